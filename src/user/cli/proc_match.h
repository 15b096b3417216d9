/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Resolving --pid targets (PIDs and command names) into the PIDs of running
 * processes, by reading a /proc tree whose root is a parameter. */
#ifndef TT_PROC_MATCH_H
#define TT_PROC_MATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "cli/options.h"

/* Resolve --pid targets into PIDs by reading <proc_root>/<pid>/comm ("/proc" in production,
 * a fake directory tree in tests). A numeric target must exist as a directory; a NAME must
 * match the comm (exact, up to 15 bytes) of at least one process, unless found is given:
 * then found[i] says whether target i matched one (a name may be waited for). Writes the PIDs, unique and sorted, to pids. Returns 0, or -1 with one line in err naming the target:
 * "no process named 'foo'" / "no process with PID 123". */
int proc_match(const char *proc_root, const struct tt_target *targets, size_t n,
	       bool *found, uint32_t *pids, size_t max_pids, size_t *n_pids, char *err,
	       size_t errlen);

/* True when name matches comm the way the kernel truncates comm to 15 bytes. */
bool comm_matches(const char *name, const char *comm);

#endif /* TT_PROC_MATCH_H */
