/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* A process that stays root, forked just before tcptrace gives up root and
 * keeping none of its files, which opens a network namespace's files
 * (netns.h) for tcptrace from then on: entering a namespace needs
 * CAP_SYS_ADMIN, and a process that starts in a new one after the start
 * (a container) must still have its sockets listed. It answers only its
 * parent, over a socket pair, and ends with it. */
#ifndef TT_NETNS_BROKER_H
#define TT_NETNS_BROKER_H

#include <stdint.h>
#include <sys/types.h>
#include "tracer/netns.h"

/* Forks the broker. 0, or -errno (then there is none). */
int netns_broker_start(void);

/* The inode of pid's network namespace. 0, or -errno (-ENOTCONN: no broker). */
int netns_broker_inum(uint32_t pid, uint32_t *inum);

/* netns_open() done by the broker. 0, or -errno (-ENOTCONN: no broker). */
int netns_broker_open(uint32_t pid, uint32_t inum, struct tt_netns *ns);

/* The broker's PID, or -1 when there is none. */
pid_t netns_broker_pid(void);

void netns_broker_stop(void);

#endif /* TT_NETNS_BROKER_H */
