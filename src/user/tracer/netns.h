/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What tcptrace reads of another network namespace: its TCP sockets
 * (sock_diag) and the sysctls that decide which local ports connect() may
 * use. Both are opened once, while tcptrace may still enter the namespace;
 * they stay bound to it after tcptrace gives up root. */
#ifndef TT_NETNS_H
#define TT_NETNS_H

#include <stddef.h>
#include <stdint.h>

enum tt_netns_sysctl {
	TT_SYSCTL_PORT_RANGE,     /* net.ipv4.ip_local_port_range */
	TT_SYSCTL_RESERVED_PORTS, /* net.ipv4.ip_local_reserved_ports */
	TT_SYSCTL_TW_REUSE,       /* net.ipv4.tcp_tw_reuse */
	TT_SYSCTL_SOMAXCONN,      /* net.core.somaxconn: the most a listen() backlog can be */
	TT_SYSCTLS,
};

struct tt_netns {
	uint32_t inum;
	int diag_fd;
	int sysctl_fd[TT_SYSCTLS]; /* -1 when it could not be opened */
};

/* Open the files of pid's network namespace (0: our own). Returns 0, or
 * -errno when even the diag socket could not be had. */
int netns_open(uint32_t pid, uint32_t inum, struct tt_netns *ns);
/* The same for the namespace a file names (/run/netns/NAME, /proc/PID/ns/net). */
int netns_open_path(const char *path, uint32_t inum, struct tt_netns *ns);

/* Enter pid's network namespace (inum) for as long as opening something
 * there takes; nothing to do when it is ours. *back is what netns_leave
 * needs to come back. Returns 0 or -errno (then still in our own). */
int netns_enter(uint32_t pid, uint32_t inum, int *back);
int netns_leave(int back);

/* Read one sysctl now, without its newline, into buf. 0 or -1. */
int netns_read_sysctl(const struct tt_netns *ns, enum tt_netns_sysctl which, char *buf,
		      size_t len);

void netns_close(struct tt_netns *ns);

#endif /* TT_NETNS_H */
