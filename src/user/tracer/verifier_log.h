/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What the verifier says of a program it accepted, from its log at
 * BPF_LOG_STATS (log level 4): the instructions it walked and its time. */
#ifndef TT_VERIFIER_LOG_H
#define TT_VERIFIER_LOG_H

#include <stdint.h>

#define TT_LOG_STATS 4 /* the kernel's BPF_LOG_STATS */

struct tt_verifier_stats {
	uint64_t insns; /* "processed N insns": bpf_prog_info's verified_insns */
	uint64_t usec;  /* "verification time N usec" (5.16 and later), else 0 */
};

/* Fills out from log; returns 0, or -1 when the log names no instruction
 * count (not a BPF_LOG_STATS log of an accepted program). */
int verifier_log_stats(const char *log, struct tt_verifier_stats *out);

#endif /* TT_VERIFIER_LOG_H */
