/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The label --by cgroup gives a process: the name of its cgroup (v2), as
 * an operator knows it (a unit's, a container's), bounded in length. */
#ifndef TT_CGROUP_NAME_H
#define TT_CGROUP_NAME_H

#include <stddef.h>

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

#endif /* TT_CGROUP_NAME_H */
