/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The network namespaces of the traced processes, each opened once, on
 * first use (netns.h), and the port settings read from them. */
#ifndef TT_NAMESPACES_H
#define TT_NAMESPACES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "tracer/netns.h"
#include "tracer/ports.h"

#define TT_MAX_NETNS 64
#define TT_BROKERED_PIDS 1024

/* A process whose namespace the broker named (once root is given up,
 * /proc/PID/ns/net of another user's process is out of reach), kept so
 * that each snapshot does not ask again: valid while the PID's start time
 * is the same. */
struct brokered_pid {
	uint32_t pid, inum;
	uint64_t start;
};

struct namespaces {
	struct tt_netns ns[TT_MAX_NETNS];
	size_t n;
	bool warned; /* a namespace could not be opened (said once) */
	struct brokered_pid brokered[TT_BROKERED_PIDS]; /* by PID modulo */
};

/* The namespace of process pid, opened if it is new; NULL when the
 * process is gone, the namespace cannot be opened, or TT_MAX_NETNS are. */
struct tt_netns *namespaces_of_pid(struct namespaces *s, uint32_t pid);

/* The namespace with inode inum that path names, opened if it is new: a
 * namespace whose processes all come and go between two snapshots is
 * listed all the same. NULL when it cannot be opened. */
struct tt_netns *namespaces_of_path(struct namespaces *s, const char *path, uint32_t inum);

/* The index in s->ns of the namespace with inode inum, or TT_MAX_NETNS. */
size_t namespaces_index(const struct namespaces *s, uint32_t inum);

/* The namespace's port sysctls as they are now (defaults where unreadable). */
void namespaces_port_policy(const struct tt_netns *ns, struct tt_port_policy *p);

void namespaces_close(struct namespaces *s);

#endif /* TT_NAMESPACES_H */
