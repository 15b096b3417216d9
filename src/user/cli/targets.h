/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* --pid's processes, and those of the scope, that the seeding reads. */
#ifndef TT_TARGETS_H
#define TT_TARGETS_H

#include "cli/session.h"

/* At launch: the processes --pid names that run now. A NAME with none is
 * counted from its start, unless --strict (or no COMMAND) refuses it.
 * Returns 0, or an exit status after one line on stderr. */
int targets_resolve(struct session *s);

/* Says which NAMEs tcptrace counts from their start: once it is known to
 * be able to trace at all. */
void targets_say_waiting(const struct session *s);

/* Once the programs are attached: the names matched again (loading takes
 * long enough for a server to start), narrowed to the scope, or the
 * scope's processes without --pid; tracer_seed's list of PIDs in *pids.
 * Returns 0, or an exit status after one line on stderr. */
int targets_rematch(struct session *s, const uint32_t *hidden, size_t n_hidden,
		    const uint32_t **pids, size_t *n);

#endif /* TT_TARGETS_H */
