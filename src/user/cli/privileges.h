/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Giving up root once the BPF programs are attached. */
#ifndef TT_PRIVILEGES_H
#define TT_PRIVILEGES_H

#include <stdbool.h>
#include <stddef.h>

/* Become the user nobody. What tcptrace still needs works without any
 * capability on most kernels: the map and netlink file descriptors it
 * holds and its own /proc entries. Before Linux 5.19, a kernel with
 * kernel.unprivileged_bpf_disabled set refuses every bpf() call, map
 * reads on a descriptor already held included, to a process without
 * CAP_BPF: a forked child that drops everything tries a read on map_fd
 * first, and CAP_BPF alone is kept where it was refused. Returns 0, or
 * -errno with one line in err. */
int privileges_drop(int map_fd, char *err, size_t errlen);

#endif /* TT_PRIVILEGES_H */
