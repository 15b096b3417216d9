// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The network namespaces of the traced processes, each opened once, on
 * first use, and the port settings read from them. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "common/procfs.h"
#include "tracer/namespaces.h"
#include "tracer/netns_broker.h"

static int netns_of_pid(uint32_t pid, uint32_t *inum)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%u/ns/net", pid);
	if (stat(path, &st))
		return -errno;
	*inum = (uint32_t)st.st_ino;
	return 0;
}

/* The broker's answer for pid, asked once per process. */
static int brokered_netns_of_pid(struct namespaces *s, uint32_t pid, uint32_t *inum)
{
	struct brokered_pid *b = &s->brokered[pid % TT_BROKERED_PIDS];
	uint64_t start;
	int err;

	if (proc_start_time("/proc", pid, &start))
		return -ESRCH;
	if (b->pid == pid && b->start == start) {
		*inum = b->inum;
		return 0;
	}
	err = netns_broker_inum(pid, inum);
	if (!err)
		*b = (struct brokered_pid){ .pid = pid, .inum = *inum, .start = start };
	return err;
}

struct tt_netns *namespaces_of_pid(struct namespaces *s, uint32_t pid)
{
	uint32_t inum = 0;
	size_t i;
	int err;

	/* After the drop of root, /proc/PID/ns/net of another user's process
	 * is out of reach: the broker asks. */
	if (netns_of_pid(pid, &inum) && brokered_netns_of_pid(s, pid, &inum))
		return NULL;
	i = namespaces_index(s, inum);
	if (i < TT_MAX_NETNS)
		return &s->ns[i];
	if (s->n == TT_MAX_NETNS)
		return NULL;
	err = netns_open(pid, inum, &s->ns[s->n]);
	if (err == -EPERM || err == -EACCES) {
		int brokered = netns_broker_open(pid, inum, &s->ns[s->n]);

		if (brokered != -ENOTCONN) /* there is a broker: its answer */
			err = brokered;
	}
	if (err) {
		if (!s->warned)
			fprintf(stderr, "tcptrace: cannot open the network namespace of PID %u: %s; "
					"its sockets from before the start and its port settings "
					"are not read\n", pid, strerror(-err));
		s->warned = true;
		return NULL;
	}
	return &s->ns[s->n++];
}

struct tt_netns *namespaces_of_path(struct namespaces *s, const char *path, uint32_t inum)
{
	size_t i = namespaces_index(s, inum);

	if (i < TT_MAX_NETNS)
		return &s->ns[i];
	if (s->n == TT_MAX_NETNS || netns_open_path(path, inum, &s->ns[s->n]))
		return NULL;
	return &s->ns[s->n++];
}

size_t namespaces_index(const struct namespaces *s, uint32_t inum)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->ns[i].inum == inum)
			return i;
	return TT_MAX_NETNS;
}

void namespaces_port_policy(const struct tt_netns *ns, struct tt_port_policy *p)
{
	char text[4096];

	ports_policy_default(p);
	if (netns_read_sysctl(ns, TT_SYSCTL_PORT_RANGE, text, sizeof(text)) == 0)
		ports_parse_range(text, &p->lo, &p->hi);
	if (netns_read_sysctl(ns, TT_SYSCTL_RESERVED_PORTS, text, sizeof(text)) == 0)
		ports_parse_reserved(text, p->reserved);
	if (netns_read_sysctl(ns, TT_SYSCTL_TW_REUSE, text, sizeof(text)) == 0 &&
	    text[0] >= '0' && text[0] <= '2' && text[1] == '\0')
		p->tw_reuse = text[0] - '0';
}

void namespaces_close(struct namespaces *s)
{
	for (size_t i = 0; i < s->n; i++)
		netns_close(&s->ns[i]);
	s->n = 0;
}
