/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Giving up root once the BPF programs are attached. */
#ifndef TT_PRIVILEGES_H
#define TT_PRIVILEGES_H

/* Become the user nobody with no capabilities at all. What tcptrace still
 * needs works without them: the map and netlink file descriptors it holds
 * and its own /proc entries. Returns 0, or -errno with one line in err. */
int privileges_drop(char *err, size_t errlen);

#endif /* TT_PRIVILEGES_H */
