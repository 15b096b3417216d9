/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The part of the machine a run is scoped to: a cgroup (v2) and every
 * cgroup below it (--cgroup, --unit), a network namespace (--netns). The
 * BPF side decides for the processes that come (procs.bpf.h: in_scope);
 * this decides for those already there, from /proc. */
#ifndef TT_SCOPE_H
#define TT_SCOPE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The processes scope_pids() lists at most: those of a large container
 * host, with room. */
#define TT_SCOPE_MAX_PIDS (1u << 20)

struct tt_scope {
	int cgroup_fd;              /* the cgroup's directory, -1 for none */
	char cgroup[PATH_MAX];      /* its path as given or resolved */
	char cgroup_rel[PATH_MAX];  /* as /proc/PID/cgroup's "0::" line has it */
	uint32_t netns;             /* the namespace's inode, 0 for none */
	char netns_path[PATH_MAX];  /* the file that names it */
	char label[PATH_MAX + 16];  /* "cgroup PATH", "unit NAME", "netns X", joined */
};

/* Resolves the options into s; on bad input returns -1 with one line in
 * err (no "tcptrace: " prefix). Any of the three may be NULL. */
int scope_resolve(struct tt_scope *s, const char *cgroup, const char *unit, const char *netns,
		  char *err, size_t errlen);

bool scope_is_set(const struct tt_scope *s);

/* Whether process pid is inside the scope now. */
bool scope_has_pid(const struct tt_scope *s, uint32_t pid);

/* Keeps, in place, the PIDs of pids inside the scope; returns how many. */
size_t scope_filter(const struct tt_scope *s, uint32_t *pids, size_t n);

/* Every process inside the scope now, but those of skip; returns how many
 * (at most max). */
size_t scope_pids(const struct tt_scope *s, uint32_t *pids, size_t max, const uint32_t *skip,
		  size_t n_skip);

void scope_close(struct tt_scope *s);

#endif /* TT_SCOPE_H */
