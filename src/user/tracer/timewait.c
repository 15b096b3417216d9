// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Timewait reconciliation: the records the BPF side writes to tw_records
 * (struct tt_tw_record), drained at each reading into a table of owners
 * and of timewait RSTs, matched against the kernel's own list of timewait
 * sockets (sock_diag); an owner goes once its socket has ended. The stamp
 * tells the owners recorded before a reading from those recorded after. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <bpf/libbpf.h>
#include "common/fail.h"
#include "tracer/timewait.h"

static uint64_t monotonic_ms(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (uint64_t)now.tv_sec * 1000 + (uint64_t)now.tv_nsec / 1000000;
}

/* Each reading's stamp, later than the one before. */
static uint64_t next_stamp(struct timewait *tw)
{
	uint64_t now = monotonic_ms();

	tw->stamp = now > tw->stamp ? now : tw->stamp + 1;
	*tw->bpf_stamp = tw->stamp;
	return tw->stamp;
}

/* A process's or a namespace's count, grown one entry at a time. */
static uint64_t *count_of(struct tw_count **v, size_t *n, uint32_t id, uint16_t reason)
{
	struct tw_count *grown;

	for (size_t i = 0; i < *n; i++)
		if ((*v)[i].id == id && (*v)[i].reason == reason)
			return &(*v)[i].count;
	grown = realloc(*v, (*n + 1) * sizeof(*grown));
	if (!grown)
		return NULL;
	*v = grown;
	grown[*n] = (struct tw_count){ .id = id, .reason = reason };
	return &grown[(*n)++].count;
}

/* A family as a bit of struct timewait's families[] and a reading's listed[]. */
static unsigned int family_bit(uint16_t family)
{
	return family == AF_INET6 ? 2 : 1;
}

/* An owner kept: its namespace (index i in struct namespaces) and family
 * are listed at the next reading; a namespace not opened yet (i is
 * TT_MAX_NETNS) is looked for again then. */
static void note_owner_place(struct timewait *tw, size_t i, uint16_t family)
{
	if (i < TT_MAX_NETNS)
		tw->families[i] |= family_bit(family);
	else
		tw->unplaced = true;
}

/* One record of tw_records: an owner goes into the table, and its
 * namespace and family are listed from this reading on; an RST to its
 * owner's count, or, for a timewait socket whose owner is not known, to
 * the other RSTs of its namespace, as the BPF side counts an RST of no
 * followed socket. */
static int on_record(void *ctx, void *data, size_t size)
{
	const struct tt_tw_record *r = data;
	struct timewait *tw = ctx;
	struct tw_owner *owner;
	uint64_t *count;

	if (size < sizeof(*r))
		return 0;
	if (r->kind == TT_TW_OWNER) {
		struct tw_owner o = {
			.flow = r->key.flow, .snd_nxt = r->key.snd_nxt, .stamp = r->stamp,
			.slot = r->slot, .side = r->side
		};
		size_t i = tw->nss ? namespaces_index(tw->nss, o.flow.netns) : TT_MAX_NETNS;

		if (tw_table_put(&tw->owners, &o))
			tw->unrecorded++;
		else
			note_owner_place(tw, i, o.flow.family);
		return 0;
	}
	if (r->kind != TT_TW_RST)
		return 0;
	owner = tw_table_get(&tw->owners, &r->key.flow);
	if (owner && owner->snd_nxt == r->key.snd_nxt)
		count = count_of(&tw->rsts, &tw->n_rsts, owner->slot, 0);
	else
		count = count_of(&tw->other_rsts, &tw->n_other_rsts, r->key.flow.netns, r->reason);
	if (count)
		++*count;
	return 0;
}

int timewait_open(struct timewait *tw, int ring_fd, __u64 *bpf_stamp, char *err)
{
	tw->bpf_stamp = bpf_stamp;
	tw->ring = ring_buffer__new(ring_fd, on_record, tw, NULL);
	if (!tw->ring)
		return tt_fail(err, errno, "cannot map the timewait records");
	next_stamp(tw);
	return 0;
}

void timewait_close(struct timewait *tw)
{
	ring_buffer__free(tw->ring);
	tw->ring = NULL;
	tw_table_free(&tw->owners);
	free(tw->rsts);
	free(tw->other_rsts);
	tw->rsts = tw->other_rsts = NULL;
	tw->n_rsts = tw->n_other_rsts = 0;
}

static bool owned_by(struct tw_owner *o, void *ctx)
{
	return o->slot == *(const uint32_t *)ctx;
}

void timewait_forget_rsts(struct timewait *tw, uint32_t slot)
{
	for (size_t i = 0; i < tw->n_rsts; i++)
		if (tw->rsts[i].id == slot)
			tw->rsts[i--] = tw->rsts[--tw->n_rsts];
}

void timewait_forget_slot(struct timewait *tw, uint32_t slot)
{
	tw_table_remove_if(&tw->owners, owned_by, &slot);
	timewait_forget_rsts(tw, slot);
}

uint64_t timewait_rsts_of(const struct timewait *tw, uint32_t slot)
{
	for (size_t i = 0; i < tw->n_rsts; i++)
		if (tw->rsts[i].id == slot)
			return tw->rsts[i].count;
	return 0;
}

uint32_t *timewait_owners_by_slot(const struct timewait *tw, size_t n_slots)
{
	uint32_t *held = calloc(n_slots ? n_slots : 1, sizeof(*held));
	const struct tw_owner *o;
	size_t pos = 0;

	while (held && (o = tw_table_next(&tw->owners, &pos)))
		if (o->slot < n_slots)
			held[o->slot]++;
	return held;
}

/* A timewait socket listed by sock_diag, keyed as in the owners' table. */
struct listed_tw {
	struct tt_flow_key key;
	bool time_wait; /* substate TIME_WAIT, not FIN_WAIT2 (no FIN from the peer yet) */
};

/* The listing under way: the timewait sockets of every namespace listed,
 * and with --by dest the sockets of the one being listed. */
struct listing {
	struct listed_tw *v;
	size_t n, cap;
	uint32_t netns;
	struct ns_sockets *socks;
};

/* The kernel lists a timewait socket under its substate: TIME_WAIT, or
 * FIN_WAIT2 while the peer has not sent its FIN. Both are alive; only the
 * first counts as held (as in `ss state time-wait`). The idiag timer
 * tells them from full sockets in FIN_WAIT2. */
#define TT_DIAG_TIMER_TIMEWAIT 3

static void add_timewait(const struct tt_diag_sock *sock, void *opaque)
{
	struct listing *list = opaque;
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

static void add_socket(const struct tt_diag_sock *sock, void *opaque)
{
	struct listing *list = opaque;
	struct ns_sockets *s = list->socks;

	add_timewait(sock, list);
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 1024;
		struct tt_diag_sock *v = realloc(s->socks, cap * sizeof(*v));

		if (!v)
			return;
		s->socks = v;
		s->cap = cap;
	}
	s->socks[s->n++] = *sock;
}

/* Lists the timewait sockets of namespace i for the families in bits not
 * listed yet; with every_socket, every socket of both families at once. */
static void list_namespace(struct namespaces *nss, size_t i, unsigned int bits, bool every_socket,
			   unsigned int *listed, struct listing *list, struct tw_reading *r)
{
	uint32_t states = 1u << TCP_TIME_WAIT | 1u << TCP_FIN_WAIT2;
	int diag_fd = nss->ns[i].diag_fd;

	list->netns = nss->ns[i].inum;
	if (every_socket) {
		struct ns_sockets *grown;

		if (listed[i])
			return;
		grown = realloc(r->listed, (r->n_listed + 1) * sizeof(*grown));
		if (!grown)
			return;
		r->listed = grown;
		list->socks = &grown[r->n_listed++];
		memset(list->socks, 0, sizeof(*list->socks));
		list->socks->ns = i;
		if (sockdiag_dump(diag_fd, AF_INET, ~0u, add_socket, list) == 0)
			listed[i] |= 1;
		if (sockdiag_dump(diag_fd, AF_INET6, ~0u, add_socket, list) == 0)
			listed[i] |= 2;
		return;
	}
	bits &= ~listed[i];
	if ((bits & 1) && sockdiag_dump(diag_fd, AF_INET, states, add_timewait, list) == 0)
		listed[i] |= 1;
	if ((bits & 2) && sockdiag_dump(diag_fd, AF_INET6, states, add_timewait, list) == 0)
		listed[i] |= 2;
}

/* One more timewait socket in TIME_WAIT for the owner o: its process's
 * count, and with every_socket its flow, for the `out` side's
 * destinations. */
static void add_held(struct tw_reading *r, const struct tw_owner *o, bool every_socket)
{
	if (o->slot == TT_NO_SLOT) /* a process the BPF side had no slot for: no row */
		return;
	if (o->slot >= r->n_slots) {
		size_t n = (size_t)o->slot + 64;
		uint32_t *v = realloc(r->held_by_slot, n * sizeof(*v));

		if (!v)
			return;
		memset(v + r->n_slots, 0, (n - r->n_slots) * sizeof(*v));
		r->held_by_slot = v;
		r->n_slots = n;
	}
	r->held_by_slot[o->slot]++;
	if (!every_socket || o->side != TT_SIDE_OUT)
		return;
	if (r->n_held == r->cap_held) {
		size_t cap = r->cap_held ? r->cap_held * 2 : 256;
		struct tw_held *v = realloc(r->held, cap * sizeof(*v));

		if (!v)
			return;
		r->held = v;
		r->cap_held = cap;
	}
	r->held[r->n_held++] = (struct tw_held){ .slot = o->slot, .flow = o->flow };
}

/* A timewait socket lasts 60 s (more only while its peer keeps sending
 * FINs): the owners recorded in a namespace tcptrace cannot list go after
 * ten minutes. */
#define TT_TW_UNLISTED_MS (10ull * 60 * 1000)

/* The families of every owner's namespace, once owners were kept whose
 * namespace tcptrace had not opened: it may have been opened since. */
static void place_owners(struct timewait *tw, struct namespaces *nss)
{
	const struct tw_owner *o;
	size_t pos = 0;

	tw->unplaced = false;
	while ((o = tw_table_next(&tw->owners, &pos)))
		note_owner_place(tw, namespaces_index(nss, o->flow.netns), o->flow.family);
}

/* What tells an owner whose timewait socket has ended, at one reading. */
struct sweep {
	struct timewait *tw;
	struct namespaces *nss;
	const unsigned int *listed; /* each namespace's families listed */
	uint64_t stamp, now;
};

/* Whether o's timewait socket has ended: its namespace and family were
 * listed without it, and it was recorded before this reading began (one
 * recorded since may be younger than the listing). An owner kept has its
 * namespace and family listed at the next reading. */
static bool has_ended(struct tw_owner *o, void *ctx)
{
	struct sweep *s = ctx;
	size_t i = namespaces_index(s->nss, o->flow.netns);
	bool listed = i < TT_MAX_NETNS && (s->listed[i] & family_bit(o->flow.family));

	if (o->seen != s->tw->reading &&
	    (listed ? o->stamp < s->stamp : o->stamp + TT_TW_UNLISTED_MS < s->now))
		return true;
	note_owner_place(s->tw, i, o->flow.family);
	return false;
}

/* How many listed timewait sockets ahead the owners' table is prefetched:
 * enough lookups in flight to hide a miss to memory each. */
#define TT_TW_AHEAD 8

/* The kernel's own list of timewait sockets is read before tw_records is
 * drained, so that the owner of every listed timewait socket is in the
 * table: the program run that sees its full socket move to CLOSE records
 * it, right after the kernel has put it in the connection hash. Each
 * listed one is looked up by its four-tuple, whose owner in the table is
 * the four-tuple's latest connection; one in TIME_WAIT is held. An owner
 * not listed whose namespace and family were, and recorded before this
 * reading's stamp, belongs to a timewait socket that has ended, and goes
 * (its RSTs, sent before its end, were drained with it). Only the
 * namespaces and families holding owners are listed, unless every_socket.
 * Nothing here is sorted: the reading's cost is one lookup per timewait
 * socket listed and one look at each owner. */
void timewait_read(struct timewait *tw, struct namespaces *nss, bool every_socket,
		   struct tw_reading *r)
{
	unsigned int listed[TT_MAX_NETNS] = {};
	struct listing list = {};
	struct sweep sweep = { .tw = tw, .nss = nss, .listed = listed };

	memset(r, 0, sizeof(*r));
	sweep.stamp = next_stamp(tw);
	tw->reading++;
	for (size_t i = 0; i < nss->n; i++)
		if (every_socket || tw->families[i])
			list_namespace(nss, i, tw->families[i], every_socket, listed, &list, r);
	tw->nss = nss;
	ring_buffer__consume(tw->ring);
	tw->nss = NULL;
	if (tw->unplaced)
		place_owners(tw, nss);
	/* A namespace or family without owners at the reading before: listed
	 * now, and at the next reading first. */
	for (size_t i = 0; i < nss->n; i++)
		if (tw->families[i] & ~listed[i])
			list_namespace(nss, i, tw->families[i], every_socket, listed, &list, r);
	/* A timewait socket listed twice (a dump that failed part-way and was
	 * made again; one that the kernel's walk met twice) counts once. */
	for (size_t k = 0; k < list.n; k++) {
		struct tw_owner *o;

		if (k + TT_TW_AHEAD < list.n)
			tw_table_prefetch(&tw->owners, &list.v[k + TT_TW_AHEAD].key);
		o = tw_table_get(&tw->owners, &list.v[k].key);
		if (!o || o->seen == tw->reading)
			continue;
		o->seen = tw->reading;
		if (list.v[k].time_wait)
			add_held(r, o, every_socket);
	}
	free(list.v);
	memset(tw->families, 0, sizeof(tw->families));
	tw->unplaced = false;
	sweep.now = monotonic_ms();
	tw_table_remove_if(&tw->owners, has_ended, &sweep);
}

void tw_reading_free(struct tw_reading *r)
{
	for (size_t i = 0; i < r->n_listed; i++)
		free(r->listed[i].socks);
	free(r->listed);
	free(r->held);
	free(r->held_by_slot);
	memset(r, 0, sizeof(*r));
}
