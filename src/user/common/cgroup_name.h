/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The label --by cgroup gives a process: the name of its cgroup (v2), as
 * an operator knows it (a unit's, a container's), bounded in length; and
 * the cgroup of an id, as the BPF side gives it, found in the cgroup2
 * mount. */
#ifndef TT_CGROUP_NAME_H
#define TT_CGROUP_NAME_H

#include <stddef.h>
#include <stdint.h>

/* Room for a label: a cgroup's name cut to fit, or "/" for the root. */
#define TT_CGROUP_LABEL_LEN 64

/* The label of a cgroup from its own name (the last component of its
 * path; empty or "/" for the root): a container's 64-hex-digit ID in it
 * is cut to its first 12 digits, as docker ps and crictl ps show it
 * ("docker-<64 hex>.scope" -> "docker-<12 hex>.scope"); the rest is kept
 * as it is, cut to len - 1 bytes. */
void cgroup_label(const char *name, char *out, size_t len);

/* The label of a cgroup from its path: the label of its last component. */
void cgroup_label_of_path(const char *path, char *out, size_t len);

/* The path, from root ("/" for root itself), of the directory under root
 * whose inode number is id: on cgroup v2 a cgroup's id is its directory's
 * inode number. 0, or -1 when no directory is. */
int cgroup_path_of_id(const char *root, uint64_t id, char *path, size_t len);

/* The mount point of the cgroup2 hierarchy (its whole tree, not a bind
 * mount of a subtree) into root: 0, or -1 when there is none. */
int cgroup2_mount(char *root, size_t len);

/* The labels of the cgroup ids met so far. root: the cgroup2 mount, ""
 * until it is looked for; a cgroup gone before it was looked for keeps
 * "?". */
struct cgroup_labels {
	struct cgroup_id_label *v;
	size_t n, allocated;
	char root[4096];
	int root_state; /* 0: not looked for, 1: found, -1: none */
};

/* The label of cgroup id into out (TT_CGROUP_LABEL_LEN bytes). */
void cgroup_label_of_id(struct cgroup_labels *c, uint64_t id, char *out);
void cgroup_labels_free(struct cgroup_labels *c);

#endif /* TT_CGROUP_NAME_H */
