/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The summary at the end of a run. */
#ifndef TT_SUMMARY_H
#define TT_SUMMARY_H

#include <stdint.h>
#include <stdio.h>
#include "output/report.h"
#include "tracer/tracer.h"

/* Totals over the run from first to last, the listeners that dropped, the
 * totals by destination, the RSTs of no process row and the findings, to
 * f; on stderr, the events lost and the counts the kernel kept from it. */
void summary_print(struct tracer *t, struct report *rep, const struct tt_snapshot *first,
		   const struct tt_snapshot *last, FILE *f);

/* "tcptrace: BPF maps N MiB (--max-sockets N), peak RSS N MiB" on stderr. */
void summary_print_resources(struct tracer *t, uint32_t max_sockets);

#endif /* TT_SUMMARY_H */
