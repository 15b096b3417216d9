/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Proof at start-up that tcptrace's programs see TCP on this kernel. */
#ifndef TT_SELFCHECK_H
#define TT_SELFCHECK_H

#include <stddef.h>
#include "tracer/tracer.h"

/* Two processes of tcptrace's own, in a network namespace of their own,
 * make one loopback connection; the connecting one closes first. Its
 * counts must come out as conn_out, fin_active_out and tw_out of the one,
 * conn_in and fin_passive_in of the other, and nothing else. Every trace
 * of them is then removed from the maps, so the connection never shows in
 * a row, a total or a metric. Call after attaching, as root. Returns 0, or
 * -1 with one line in err that says what was not seen and names the
 * kernel release. */
int selfcheck_run(struct tracer *t, char *err, size_t errlen);

#endif /* TT_SELFCHECK_H */
