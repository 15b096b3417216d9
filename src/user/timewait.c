// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Timewait reconciliation: the records the BPF side writes to tw_records
 * (struct tt_tw_record), drained at each snapshot into a table of owners
 * and of timewait RSTs, matched against the kernel's own list of timewait
 * sockets (sock_diag) for tw_now; an owner goes once its socket has ended.
 * tw_stamp tells the owners recorded before a snapshot from those recorded
 * after it. With --by dest, the same listing gives the ports still free
 * toward each destination. */
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
#include "tw_table.h"
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

/* A process's or a namespace's count, grown one entry at a time. */
static uint64_t *count_of(struct tt_tw_count **v, size_t *n, uint32_t id, uint16_t reason)
{
	struct tt_tw_count *grown;

	for (size_t i = 0; i < *n; i++)
		if ((*v)[i].id == id && (*v)[i].reason == reason)
			return &(*v)[i].count;
	grown = realloc(*v, (*n + 1) * sizeof(*grown));
	if (!grown)
		return NULL;
	*v = grown;
	grown[*n] = (struct tt_tw_count){ .id = id, .reason = reason };
	return &grown[(*n)++].count;
}

/* One record of tw_records: an owner goes into the table; an RST to its
 * owner's tw_rst, or, for a timewait socket whose owner is not known, to
 * the other RSTs of its namespace, as the BPF side counts an RST of no
 * followed socket. */
int on_tw_record(void *ctx, void *data, size_t size)
{
	const struct tt_tw_record *r = data;
	struct tracer *t = ctx;
	struct tw_owner *owner;
	uint64_t *count;

	if (size < sizeof(*r))
		return 0;
	if (r->kind == TT_TW_OWNER) {
		struct tw_owner o = {
			.key = r->key, .stamp = r->stamp, .slot = r->slot, .side = r->side
		};

		if (tw_table_put(&t->tw_owners, &o))
			t->tw_unrecorded++;
		return 0;
	}
	if (r->kind != TT_TW_RST)
		return 0;
	owner = tw_table_get(&t->tw_owners, &r->key);
	if (owner)
		count = count_of(&t->tw_rsts, &t->n_tw_rsts, owner->slot, 0);
	else
		count = count_of(&t->tw_other_rsts, &t->n_tw_other_rsts, r->key.flow.netns,
				 r->reason);
	if (count)
		++*count;
	return 0;
}

static bool has_ended(const struct tw_owner *o, void *ctx)
{
	(void)ctx;
	return o->ended;
}

static bool owned_by(const struct tw_owner *o, void *ctx)
{
	return o->slot == *(const uint32_t *)ctx;
}

void forget_tw_rsts_of(struct tracer *t, uint32_t slot)
{
	for (size_t i = 0; i < t->n_tw_rsts; i++)
		if (t->tw_rsts[i].id == slot)
			t->tw_rsts[i--] = t->tw_rsts[--t->n_tw_rsts];
}

void forget_tw_owners_of(struct tracer *t, uint32_t slot)
{
	tw_table_remove_if(&t->tw_owners, owned_by, &slot);
	forget_tw_rsts_of(t, slot);
}

uint64_t tw_rst_of(const struct tracer *t, uint32_t slot)
{
	for (size_t i = 0; i < t->n_tw_rsts; i++)
		if (t->tw_rsts[i].id == slot)
			return t->tw_rsts[i].count;
	return 0;
}

uint32_t *tw_owners_by_slot(const struct tracer *t)
{
	uint32_t *held = calloc(t->n_slots ? t->n_slots : 1, sizeof(*held));
	const struct tw_owner *o;
	size_t pos = 0;

	while (held && (o = tw_table_next(&t->tw_owners, &pos)))
		if (o->slot < t->n_slots)
			held[o->slot]++;
	return held;
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

/* The destination row of a process toward family/addr/port, if there is one. */
static struct tt_dest_row *dest_row_of(struct tt_snapshot *snap, const struct tt_row *proc,
				       uint32_t netns, uint8_t family, const uint8_t *addr,
				       uint16_t port)
{
	struct tt_dest_row key = {
		.pid = proc->pid, .id = proc->id, .netns = netns, .family = family, .port = port
	};

	memcpy(key.addr, addr, sizeof(key.addr));
	return dests_find(snap->dests, snap->n_dests, &key);
}

/* An owner in the table, and the index of its namespace in t->netns. */
struct tw_entry {
	struct tw_owner *owner;
	size_t ns;
};

static int cmp_entry_flow(const void *a, const void *b)
{
	const struct tw_entry *x = a, *y = b;

	return memcmp(&x->owner->key.flow, &y->owner->key.flow, sizeof(struct tt_flow_key));
}

/* A timewait socket in TIME_WAIT: its owner's tw_now, and with --by dest
 * that of the destination it was connected to. */
static void count_tw_now(struct tracer *t, struct tt_snapshot *snap, size_t sorted, size_t *cap,
			 const struct tt_flow_key *key, const struct tw_owner *owner)
{
	struct tt_row *row = row_of_slot(t, snap, sorted, cap, owner->slot);
	struct tt_dest_row *dest;

	if (!row)
		return;
	row->tw_now++;
	if (!t->by_dest || owner->side != TT_SIDE_OUT)
		return;
	dest = dest_row_of(snap, row, key->netns, (uint8_t)key->family, key->raddr, key->rport);
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

/* Each process's tw_rst, counted here, added to its row. */
static void add_tw_rsts(struct tracer *t, struct tt_snapshot *snap, size_t sorted, size_t *cap)
{
	for (size_t i = 0; i < t->n_tw_rsts; i++) {
		struct tt_row *row = row_of_slot(t, snap, sorted, cap, t->tw_rsts[i].id);

		if (row)
			row->c.tw_rst += t->tw_rsts[i].count;
	}
}

/* tw_now, and the end of the owners of timewait sockets that have gone.
 * The kernel's own list of timewait sockets (sock_diag) is read before
 * tw_records is drained, so that the owner of every listed timewait socket
 * is in the table: the program run that sees its full socket move to CLOSE
 * records it, right after the kernel has put it in the connection hash.
 * Each owner is matched to that list in its namespace and family: a listed
 * one in TIME_WAIT counts in its owner's tw_now; an unlisted one recorded
 * before this snapshot's tw_stamp belongs to a timewait socket that has
 * ended, and goes (its RSTs, sent before its end, were drained with it).
 * Without --by dest only the namespaces and families holding owners are
 * listed; with it every namespace is, whole, for the ports. */
void read_timewait(struct tracer *t, struct tt_snapshot *snap, size_t sorted, size_t *cap)
{
	unsigned int want[TT_MAX_NETNS] = {}, listed[TT_MAX_NETNS] = {};
	size_t n = 0, pos = 0;
	struct tw_list dump = {};
	struct tw_entry *entries = NULL;
	struct tw_owner *owner;
	uint64_t stamp, now;

	for (size_t i = 0; i < snap->n; i++)
		netns_for_pid(t, snap->rows[i].pid);
	stamp = next_tw_stamp(t);
	for (size_t i = 0; i < t->n_netns; i++)
		if (t->by_dest || t->tw_families[i])
			list_timewait(t, i, t->tw_families[i], listed, &dump, snap);
	ring_buffer__consume(t->tw_ring);
	add_tw_rsts(t, snap, sorted, cap);
	entries = malloc((t->tw_owners.n ? t->tw_owners.n : 1) * sizeof(*entries));
	if (!entries)
		goto out;
	while ((owner = tw_table_next(&t->tw_owners, &pos))) {
		const struct tt_flow_key *flow = &owner->key.flow;

		entries[n] = (struct tw_entry){ .owner = owner, .ns = TT_MAX_NETNS };
		for (size_t i = 0; i < t->n_netns; i++) {
			if (t->netns[i].inum == flow->netns) {
				entries[n].ns = i;
				want[i] |= family_bit(flow->family);
			}
		}
		n++;
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
	/* One group of owners per four-tuple. A listed timewait socket is the
	 * four-tuple's latest connection, whose sequence numbers are the
	 * highest (a new connection's ISN follows the clock): the group's other
	 * owners, and every owner of an unlisted four-tuple, have ended. */
	for (size_t a = 0, b; a < n; a = b) {
		const struct tt_flow_key *flow = &entries[a].owner->key.flow;
		size_t i = entries[a].ns, latest = a;
		bool is_listed = i < TT_MAX_NETNS && (listed[i] & family_bit(flow->family));
		const struct listed_tw *tw = NULL;

		for (b = a + 1; b < n && !cmp_entry_flow(&entries[b], &entries[a]); b++)
			if ((int32_t)(entries[b].owner->key.snd_nxt -
				      entries[latest].owner->key.snd_nxt) > 0)
				latest = b;
		if (dump.n)
			tw = bsearch(flow, dump.v, dump.n, sizeof(*dump.v), cmp_listed);
		if (tw && tw->time_wait)
			count_tw_now(t, snap, sorted, cap, flow, entries[latest].owner);
		for (size_t e = a; e < b; e++) {
			const struct tw_owner *o = entries[e].owner;

			if (tw && e == latest)
				continue;
			if (is_listed ? o->stamp < stamp : o->stamp + TT_TW_UNLISTED_MS < now)
				entries[e].owner->ended = true;
		}
	}
	tw_table_remove_if(&t->tw_owners, has_ended, NULL);
out:
	free(entries);
	free(dump.v);
	free(dump.socks);
}
