// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Timewait reconciliation: the owners the BPF side recorded in tw_owners
 * for the timewait sockets it saw made, matched at each snapshot against
 * the kernel's own list of timewait sockets (sock_diag) for tw_now, and
 * deleted once their socket has ended. tw_stamp tells the entries made
 * before a snapshot from those made after it. With --by dest, the same
 * listing gives the ports still free toward each destination. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "ports.h"
#include "sockdiag.h"
#include "tcptrace.skel.h"
#include "tracer.h"
#include "tracer_priv.h"

static uint64_t monotonic_ms(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (uint64_t)now.tv_sec * 1000 + (uint64_t)now.tv_nsec / 1000000;
}

/* Each snapshot's tw_stamp, later than the one before. */
uint64_t next_tw_stamp(struct tracer *t)
{
	uint64_t now = monotonic_ms();

	t->tw_stamp = now > t->tw_stamp ? now : t->tw_stamp + 1;
	t->skel->bss->tw_stamp = t->tw_stamp;
	return t->tw_stamp;
}

/* Every entry of tw_owners, in batches: *keys and *vals (the caller frees
 * both). Returns how many. */
static size_t read_tw_owners(int fd, struct tt_tw_key **keys, struct tt_tw_owner **vals)
{
	size_t n = 0, cap = 0, chunk = 4096;
	__u32 batch = 0;
	bool first = true;

	*keys = NULL;
	*vals = NULL;
	for (;;) {
		__u32 count = (__u32)chunk;
		int err;

		if (cap - n < chunk) {
			struct tt_tw_key *k = realloc(*keys, (n + chunk) * sizeof(*k));
			struct tt_tw_owner *v = k ? realloc(*vals, (n + chunk) * sizeof(*v)) : NULL;

			if (k)
				*keys = k;
			if (!v)
				break;
			*vals = v;
			cap = n + chunk;
		}
		/* Defined for memory checkers, which do not know what the kernel writes. */
		memset(*keys + n, 0, chunk * sizeof(**keys));
		memset(*vals + n, 0, chunk * sizeof(**vals));
		err = bpf_map_lookup_batch(fd, first ? NULL : &batch, &batch, *keys + n, *vals + n,
					   &count, NULL);
		if (err && errno == ENOSPC && chunk < (1u << 20)) {
			chunk *= 2; /* one hash bucket holds more than chunk entries */
			continue;
		}
		if (err && errno != ENOENT)
			break;
		n += count;
		if (err)
			break; /* ENOENT: no more */
		first = false;
	}
	return n;
}

/* A timewait socket listed by sock_diag, keyed as in tw_owners. */
struct listed_tw {
	struct tt_flow_key key;
	bool time_wait; /* substate TIME_WAIT, not FIN_WAIT2 (no FIN from the peer yet) */
};

static int cmp_listed(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(struct tt_flow_key));
}

struct tw_list {
	struct listed_tw *v;
	size_t n, cap;
	uint32_t netns;
	struct tt_diag_sock *socks; /* --by dest: every socket of the namespace */
	size_t n_socks, cap_socks;
};

/* The kernel lists a timewait socket under its substate: TIME_WAIT, or
 * FIN_WAIT2 while the peer has not sent its FIN. Both are alive; only the
 * first counts in tw_now (as in `ss state time-wait`). The idiag timer
 * tells them from full sockets in FIN_WAIT2. */
#define TT_DIAG_TIMER_TIMEWAIT 3

static void add_timewait(const struct tt_diag_sock *sock, void *opaque)
{
	struct tw_list *list = opaque;
	struct tt_flow_key *key;

	if (sock->timer != TT_DIAG_TIMER_TIMEWAIT)
		return;
	if (list->n == list->cap) {
		size_t cap = list->cap ? list->cap * 2 : 1024;
		struct listed_tw *v = realloc(list->v, cap * sizeof(*v));

		if (!v)
			return;
		list->v = v;
		list->cap = cap;
	}
	list->v[list->n].time_wait = sock->state == TCP_TIME_WAIT;
	key = &list->v[list->n++].key;
	memset(key, 0, sizeof(*key));
	key->netns = list->netns;
	key->family = sock->family;
	key->lport = sock->lport;
	key->rport = sock->rport;
	memcpy(key->laddr, sock->laddr, sizeof(key->laddr));
	memcpy(key->raddr, sock->raddr, sizeof(key->raddr));
}

/* --by dest: the namespace's sockets are kept for the port headroom. */
static void collect_socket(const struct tt_diag_sock *sock, void *opaque)
{
	struct tw_list *list = opaque;

	add_timewait(sock, list);
	if (list->n_socks == list->cap_socks) {
		size_t cap = list->cap_socks ? list->cap_socks * 2 : 1024;
		struct tt_diag_sock *v = realloc(list->socks, cap * sizeof(*v));

		if (!v)
			return;
		list->socks = v;
		list->cap_socks = cap;
	}
	list->socks[list->n_socks++] = *sock;
}

/* Local ports held and still free toward each destination row of ns. */
static void count_ports(const struct tt_netns *ns, struct tt_snapshot *snap,
			const struct tw_list *list)
{
	struct tt_port_policy policy;
	uint64_t usable;

	read_port_policy(ns, &policy);
	usable = ports_usable(&policy);
	for (size_t i = 0; i < snap->n_dests; i++) {
		struct tt_dest_row *d = &snap->dests[i];

		if (d->netns != ns->inum)
			continue;
		d->ports_held = ports_held(&policy, list->socks, list->n_socks, (uint8_t)d->family,
					   d->addr, d->port);
		d->ports_free = usable > d->ports_held ? usable - d->ports_held : 0;
	}
}

/* The destination row of pid toward family/addr/port, if there is one. */
static struct tt_dest_row *dest_row_of(struct tt_snapshot *snap, uint32_t pid, uint32_t netns,
				       uint8_t family, const uint8_t *addr, uint16_t port)
{
	struct tt_dest_row key = { .pid = pid, .netns = netns, .family = family, .port = port };

	memcpy(key.addr, addr, sizeof(key.addr));
	return dests_find(snap->dests, snap->n_dests, &key);
}

/* An entry of tw_owners, and the index of its namespace in t->netns. */
struct tw_entry {
	struct tt_tw_key key;
	struct tt_tw_owner owner;
	size_t ns;
};

static int cmp_entry_flow(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(struct tt_flow_key));
}

/* A timewait socket in TIME_WAIT: its owner's tw_now, and with --by dest
 * that of the destination it was connected to. */
static void count_tw_now(struct tracer *t, struct tt_snapshot *snap, size_t sorted, size_t *cap,
			 const struct tt_flow_key *key, const struct tt_tw_owner *owner)
{
	struct tt_row *row = row_for(snap, sorted, cap, owner->tgid);
	struct tt_dest_row *dest;

	if (row)
		row->tw_now++;
	if (!t->by_dest || owner->side != TT_SIDE_OUT)
		return;
	dest = dest_row_of(snap, owner->tgid, key->netns, (uint8_t)key->family, key->raddr,
			   key->rport);
	if (dest)
		dest->tw_now++;
}

/* Bits of a namespace's families in want[] and listed[]. */
static unsigned int family_bit(uint16_t family)
{
	return family == AF_INET6 ? 2 : 1;
}

/* A timewait socket lasts 60 s (more only while its peer keeps sending
 * FINs): the owners recorded in a namespace tcptrace cannot list go after
 * ten minutes. */
#define TT_TW_UNLISTED_MS (10ull * 60 * 1000)

/* Lists the timewait sockets of namespace i for the families in bits not
 * listed yet; with --by dest, every socket of both families at once. */
static void list_timewait(struct tracer *t, size_t i, unsigned int bits, unsigned int *listed,
			  struct tw_list *dump, struct tt_snapshot *snap)
{
	uint32_t states = 1u << TCP_TIME_WAIT | 1u << TCP_FIN_WAIT2;
	int diag_fd = t->netns[i].diag_fd;

	dump->netns = t->netns[i].inum;
	if (t->by_dest) {
		if (listed[i])
			return;
		dump->n_socks = 0;
		if (sockdiag_dump(diag_fd, AF_INET, ~0u, collect_socket, dump) == 0)
			listed[i] |= 1;
		if (sockdiag_dump(diag_fd, AF_INET6, ~0u, collect_socket, dump) == 0)
			listed[i] |= 2;
		count_ports(&t->netns[i], snap, dump);
		return;
	}
	bits &= ~listed[i];
	if ((bits & 1) && sockdiag_dump(diag_fd, AF_INET, states, add_timewait, dump) == 0)
		listed[i] |= 1;
	if ((bits & 2) && sockdiag_dump(diag_fd, AF_INET6, states, add_timewait, dump) == 0)
		listed[i] |= 2;
}

/* tw_now, and the end of the owners of timewait sockets that have gone.
 * Every entry of tw_owners is matched to the kernel's own list of timewait
 * sockets (sock_diag) in its namespace and family: a listed one in
 * TIME_WAIT counts in its owner's tw_now; an unlisted one made before this
 * snapshot's tw_stamp belongs to a timewait socket that has ended, and is
 * deleted. Without --by dest only the namespaces and families holding
 * entries are listed; with it every namespace is, whole, for the ports. */
void read_timewait(struct tracer *t, struct tt_snapshot *snap, size_t sorted, size_t *cap)
{
	int fd = bpf_map__fd(t->skel->maps.tw_owners);
	unsigned int want[TT_MAX_NETNS] = {}, listed[TT_MAX_NETNS] = {};
	size_t n, n_dead = 0;
	struct tw_list dump = {};
	struct tt_tw_key *keys, *dead = NULL;
	struct tw_entry *entries = NULL;
	struct tt_tw_owner *vals;
	uint64_t stamp, now;

	for (size_t i = 0; i < snap->n; i++)
		netns_for_pid(t, snap->rows[i].pid);
	stamp = next_tw_stamp(t);
	/* Listed before tw_owners is read, so that the entry of every listed
	 * timewait socket is in what is read: the kernel lists one only after
	 * handle_set_state has run for it. */
	for (size_t i = 0; i < t->n_netns; i++)
		if (t->by_dest || t->tw_families[i])
			list_timewait(t, i, t->tw_families[i], listed, &dump, snap);
	n = read_tw_owners(fd, &keys, &vals);
	entries = calloc(n ? n : 1, sizeof(*entries));
	dead = malloc((n ? n : 1) * sizeof(*dead));
	if (!entries || !dead)
		goto out;
	for (size_t j = 0; j < n; j++) {
		entries[j] = (struct tw_entry){ .key = keys[j], .owner = vals[j], .ns = TT_MAX_NETNS };
		for (size_t i = 0; i < t->n_netns; i++) {
			if (t->netns[i].inum == keys[j].flow.netns) {
				entries[j].ns = i;
				want[i] |= family_bit(keys[j].flow.family);
			}
		}
	}
	/* A namespace or family without owners at the snapshot before: listed
	 * now, and at the next snapshot first. */
	for (size_t i = 0; i < t->n_netns; i++) {
		if (want[i] & ~listed[i])
			list_timewait(t, i, want[i], listed, &dump, snap);
		t->tw_families[i] = want[i];
	}
	if (dump.n > 1)
		qsort(dump.v, dump.n, sizeof(*dump.v), cmp_listed);
	if (n > 1)
		qsort(entries, n, sizeof(*entries), cmp_entry_flow);
	now = monotonic_ms();
	/* One group of entries per four-tuple. A listed timewait socket is the
	 * four-tuple's latest connection, whose sequence numbers are the
	 * highest (a new connection's ISN follows the clock): the group's other
	 * entries, and every entry of an unlisted four-tuple, have ended. */
	for (size_t a = 0, b; a < n; a = b) {
		const struct tt_flow_key *flow = &entries[a].key.flow;
		size_t i = entries[a].ns, latest = a;
		bool is_listed = i < TT_MAX_NETNS && (listed[i] & family_bit(flow->family));
		const struct listed_tw *tw = NULL;

		for (b = a + 1; b < n && !cmp_entry_flow(&entries[b], &entries[a]); b++)
			if ((int32_t)(entries[b].key.snd_nxt - entries[latest].key.snd_nxt) > 0)
				latest = b;
		if (dump.n)
			tw = bsearch(flow, dump.v, dump.n, sizeof(*dump.v), cmp_listed);
		if (tw && tw->time_wait)
			count_tw_now(t, snap, sorted, cap, flow, &entries[latest].owner);
		for (size_t e = a; e < b; e++) {
			if (tw && e == latest)
				continue;
			if (is_listed ? entries[e].owner.stamp < stamp
				      : entries[e].owner.stamp + TT_TW_UNLISTED_MS < now)
				dead[n_dead++] = entries[e].key;
		}
	}
	if (n_dead) {
		__u32 count = (__u32)n_dead;

		bpf_map_delete_batch(fd, dead, &count, NULL);
	}
out:
	free(dead);
	free(entries);
	free(dump.v);
	free(dump.socks);
	free(keys);
	free(vals);
}
