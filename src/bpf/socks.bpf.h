/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The socket table: the owner and story of every followed socket, from
 * its creation (connect, accept, a seed from start-up) to its destruction. */
#ifndef TT_SOCKS_BPF_H
#define TT_SOCKS_BPF_H

#include "compat.bpf.h"
#include "maps.bpf.h"
#include "settings.bpf.h"
#include "procs.bpf.h"
#include "tt_sock_hash.h"
#include "retrans_seen.bpf.h"

/* Seeds not yet adopted: while zero, unknown sockets cost one lookup less.
 * User space counts a seed here before it writes it. */
__u64 seeds_pending = 0;
/* Until user space has written every seed (see sock_drop_seed). */
__u32 seeds_unwritten = 1;

/* Counting filters over socket addresses: slot i holds how many members
 * of a set of sockets hash to i. A zero slot proves a socket is not a
 * member at the cost of one array read, where a lookup in the socket
 * table that misses costs a cold bucket (bench/results/2026-11-history.md has the figures).
 * tracked_slots: the sockets in the table, where cookies cannot mark them
 * (below). Most state changes on a busy machine are of sockets nobody
 * traces. untouched_slots: the accepted sockets in the table that no
 * syscall has touched yet (see listener_on_touch). tcp_rcv_space_adjust runs on
 * every read of every TCP socket. */
#define TT_FILTER_SLOTS (1 << 14)
__u32 tracked_slots[TT_FILTER_SLOTS];
__u32 untouched_slots[TT_FILTER_SLOTS];

/* Where the kernel lets a tracing program make a socket's cookie (user
 * space probes it): every followed socket gets one before it enters the
 * table, and a socket without one is proven not followed by a field of
 * the socket the kernel has just used, where tracked_slots' slot is a
 * line of its own, seldom still in a cache under load. A kernel makes a
 * socket's cookie only when asked (sock_diag, SO_COOKIE), and never for
 * a new or cloned one: the few sockets that have one and are not
 * followed go on to the table. cookie_marks_followed says so. */

static __always_inline bool sock_may_be_followed(const struct sock *sk)
{
	return !cookie_marks_followed || sk->__sk_common.skc_cookie.counter;
}

/* Accepted sockets in the table whose acceptor is not named yet
 * (TT_SK_PROVISIONAL, untouched), where accept() is not traced: user
 * space keeps the read hook attached while their sum over the CPUs is
 * above zero (acceptors.c). Per CPU: one word that both ends of such a
 * connection write, often on two CPUs, would move its cache line between
 * them, and with it the flags beside it that every program reads. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __s64);
} awaiting_acceptor SEC(".maps");

static __always_inline void sock_count_awaiting(__u16 flags, __s64 n)
{
	__u32 zero = 0;
	__s64 *count;

	if (acceptors_at_accept || !(flags & TT_SK_PROVISIONAL))
		return;
	count = bpf_map_lookup_elem(&awaiting_acceptor, &zero);
	if (count)
		__sync_fetch_and_add(count, n);
}

/* A socket made by accept() carries its listener's accept queue limit
 * (sk_clone copies the socket whole), one made by connect() none: the
 * read hook leaves at that field of a socket the read has just used,
 * before any line of the filters. Until a socket without one (a child of
 * listen() with a backlog of 0) waits for its acceptor: from then on
 * every read goes to the filter. Set by sock_track, before the socket can
 * be read. */
__u32 children_without_backlog = 0;

/* In sock_track's side_flags: the socket has no accept queue limit. */
#define TT_TRACK_NO_BACKLOG (1u << 8)

static __always_inline __u32 sock_backlog_flag(const struct sock *sk)
{
	return sk->sk_max_ack_backlog ? 0 : TT_TRACK_NO_BACKLOG;
}

static __always_inline bool sock_cannot_await_acceptor(const struct sock *sk)
{
	return !sk->sk_max_ack_backlog && !children_without_backlog;
}

/* The slot of a socket in the counting filters. */
static __always_inline __u32 sock_filter_slot(__u64 key)
{
	return tt_sock_hash(key) >> (64 - 14);
}

static __always_inline __u32 sock_filter_slot_of(const struct sock *sk)
{
	return sock_filter_slot(tt_addr_of(sk));
}

/* False proves the socket at address key is not in the table (where
 * cookies do not tell). */
static __always_inline bool sock_filter_may_hold(__u64 key)
{
	return cookie_marks_followed || tracked_slots[sock_filter_slot(key)];
}

/* The socket table: an entry per followed socket, keyed by its address,
 * in an array of buckets of TT_SOCK_WAYS entries. An entry is taken
 * without a lock: sock_way_claim() counts claimants with an atomic add and keeps
 * the entry only if it was alone. Inserting and deleting thus cost a few
 * stores, where a hash map takes a bucket lock and a free list each time
 * (bench/results/2026-11-history.md). A socket whose own bucket (its home) is full goes to
 * one of the next TT_SOCK_PROBES - 1 buckets, and its home counts it there
 * so that a lookup looks further only when it must. User space sets the
 * bucket count to --max-sockets: at most one socket a bucket on average,
 * and few move on. The table has TT_SOCK_PROBES - 1 buckets more than
 * that, where the last homes' sockets move on to.
 *
 * A bucket is one cache line, its keys and entries together. The table is
 * mmapable only for where the kernel then puts its values, at a page's
 * start: an array's values otherwise start 56 bytes into a line (6.18).
 * Under load, a line untouched since a socket's last change is seldom in
 * a cache any more, and each line a program reads is a wait
 * (bench/results/2026-11-history.md).
 *
 * An entry is named by its index, bucket * TT_SOCK_WAYS + way: the
 * functions that search the table are global, verified once each, and
 * return that number; sock_entry_at() makes it a pointer, one the verifier
 * follows as a single state whichever way it is. */
#define TT_NO_ENTRY 0xffffffffu

/* Counted connections whose socket's destruction no program ran for
 * (recursion_misses does not count them all: docs/reliability.md): a new
 * socket at the same address found the entry. */
__u64 ends_unseen = 0;

/* The same, found by the sweep at exit: the entry's socket is gone. */
__u64 ends_swept = 0;

/* Sockets held outside their home bucket, for bench/held-at-once.sh. */
__s64 sockets_spilled = 0;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, TT_DEFAULT_MAX_SOCKETS + TT_SOCK_PROBES - 1);
	__type(key, __u32);
	__type(value, struct tt_sock_bucket);
} sock_table SEC(".maps");

static __always_inline __u32 sock_home_bucket(__u64 key)
{
	return tt_sock_home(key, sock_buckets);
}

static __always_inline struct tt_sock *sock_entry_at(__u32 entry)
{
	__u32 i = entry / TT_SOCK_WAYS;
	struct tt_sock_bucket *b;

	if (entry == TT_NO_ENTRY)
		return NULL;
	b = bpf_map_lookup_elem(&sock_table, &i);
	if (!b)
		return NULL;
	/* Not folded into a select before the check, which the verifier
	 * refuses (arithmetic on a pointer that may be NULL). */
	barrier_var(b);
	return &b->s[entry % TT_SOCK_WAYS];
}

/* Whether this program is the only claimant of way w, which it then
 * holds until sock_way_release(). Two claimants cannot both see a count of one:
 * each reads after its own add, and the later add sees the earlier. The
 * atomic add is the one atomic that every kernel from 5.10 on takes. */
static __always_inline bool sock_way_claim(struct tt_sock_bucket *b, int w)
{
	if (*(volatile __u32 *)&b->claims[w])
		return false;
	__sync_fetch_and_add(&b->claims[w], 1);
	if (*(volatile __u32 *)&b->claims[w] == 1)
		return true;
	__sync_fetch_and_add(&b->claims[w], -1);
	return false;
}

static __always_inline void sock_way_release(struct tt_sock_bucket *b, int w)
{
	b->sk[w] = 0;
	__sync_fetch_and_add(&b->claims[w], -1);
}

/* The way of bucket i that holds key; TT_SOCK_WAYS if none does, and
 * TT_SOCK_WAYS + 1 if the search ends here too: i is key's home and none
 * of its sockets is held elsewhere. Global, as the other steps of a walk
 * of the table: the verifier checks a step once, not each time it is
 * taken. */
__noinline __u32 sock_bucket_find(__u32 i, __u64 key, __u32 p)
{
	struct tt_sock_bucket *b = bpf_map_lookup_elem(&sock_table, &i);

	if (!b)
		return TT_SOCK_WAYS + 1;
	for (__u32 w = 0; w < TT_SOCK_WAYS; w++)
		if (b->sk[w] == key)
			return w;
	return p == 0 && !b->spilled ? TT_SOCK_WAYS + 1 : TT_SOCK_WAYS;
}

/* The entry of the socket at address key, or TT_NO_ENTRY. */
__noinline __u32 sock_index_of_key(__u64 key)
{
	__u32 home = sock_home_bucket(key);

	for (__u32 p = 0; p < TT_SOCK_PROBES; p++) {
		__u32 i = home + p, w = sock_bucket_find(i, key, p);

		if (w < TT_SOCK_WAYS)
			return i * TT_SOCK_WAYS + w;
		if (w > TT_SOCK_WAYS)
			break;
	}
	return TT_NO_ENTRY;
}

/* Filled once at start-up and emptied as sockets show up: allocated on
 * demand rather than sized up front like the maps of the hot path. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TT_DEFAULT_MAX_SOCKETS);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u64); /* socket cookie */
	__type(value, struct tt_seed);
} seeds SEC(".maps");

/* The counters of a followed socket's owner. A socket accepted from a
 * shared listener gets its slot with its owner, at its first listener_touch (or at
 * its first count if it ends untouched): the listener's owner gets no row
 * for connections it did not accept. */
static __always_inline __u32 sock_proc_slot(struct tt_sock *s)
{
	if (s->slot == TT_NO_SLOT) {
		s->slot = proc_slot_of(s->tgid);
		proc_count_sockets(s->slot, 1);
	}
	return s->slot;
}

static __always_inline struct tt_proc_counters *sock_counters(struct tt_sock *s)
{
	return proc_counters_at(sock_proc_slot(s));
}

/* Copies a struct sock_common, up to a timewait socket's tw_snd_nxt,
 * into c: addresses, hash, ports, family, state, namespace, the link in
 * the connection hash. For sockets reached through a plain address (the
 * timewait walk), where no direct load is allowed: a probe read costs
 * about as much whatever its size (bench/results/2026-11-history.md), and these fields sit
 * together, so one read gets them all. c's fields are then read like any
 * other, at the offsets CO-RE relocates to the running kernel's. */
static __always_inline bool sock_read_common(struct sock_common *c, const void *skc)
{
	__u32 len = bpf_core_field_offset(struct sock_common, skc_tw_snd_nxt) +
		    bpf_core_field_size(struct sock_common, skc_tw_snd_nxt);

	if (len > sizeof(*c))
		len = sizeof(*c);
	return bpf_probe_read_kernel(c, len, skc) == 0;
}

static __always_inline bool sock_awaits_touch(const struct tt_sock *s)
{
	return (s->side & 1) == TT_SIDE_IN && !(s->flags & TT_SK_TOUCHED);
}

/* A connection whose end no program saw, found by a new socket at its
 * address; not one the sweep has said already. */
static __always_inline bool sock_end_unseen(__u16 flags, __u8 side)
{
	return (flags & TT_SK_ESTABLISHED) && !(side & TT_SOCK_GONE);
}

/* Every followed socket leaves the table here, so that the filters stay
 * exact. Its entry is read before it goes: the kernel may reuse the
 * address at once. found: the entry the caller's lookup gave, which saves
 * a second search, or TT_NO_ENTRY. Returns the entry's TT_SK_* flags and
 * its side << 16, or -1 when key has no entry. */
__noinline int sock_forget(__u64 key, __u32 found)
{
	__u32 home, filter = sock_filter_slot(key), entry = found, i, w;
	struct tt_sock_bucket *b, *h;
	bool untouched;
	__u16 flags;
	__u8 side;
	__u32 slot;

	if (!sock_filter_may_hold(key))
		return -1;
	i = entry / TT_SOCK_WAYS;
	b = entry == TT_NO_ENTRY ? NULL : bpf_map_lookup_elem(&sock_table, &i);
	if (!b || b->sk[entry % TT_SOCK_WAYS] != key) {
		entry = sock_index_of_key(key);
		if (entry == TT_NO_ENTRY)
			return -1;
		i = entry / TT_SOCK_WAYS;
		b = bpf_map_lookup_elem(&sock_table, &i);
		if (!b)
			return -1;
	}
	w = entry % TT_SOCK_WAYS;
	home = sock_home_bucket(key);
	untouched = sock_awaits_touch(&b->s[w]);
	flags = b->s[w].flags;
	side = b->s[w].side;
	slot = b->s[w].slot;
	sock_way_release(b, w);
	if (i != home) {
		h = bpf_map_lookup_elem(&sock_table, &home);
		if (h)
			__sync_fetch_and_add(&h->spilled, -1);
		__sync_fetch_and_add(&sockets_spilled, -1);
	}
	if (!cookie_marks_followed)
		__sync_fetch_and_add(&tracked_slots[filter], -1);
	if (untouched) {
		__sync_fetch_and_add(&untouched_slots[filter], -1);
		sock_count_awaiting(flags, -1);
	}
	proc_count_sockets(slot, -1);
	return flags | (__u32)side << 16;
}

/* Whether the socket at address key is gone: its destruction's event,
 * where a followed socket leaves the table, comes before the kernel drops
 * its last reference. The memory of a freed socket keeps its count at
 * zero until a new socket takes it: its slab puts its free list outside
 * the object (SLAB_TYPESAFE_BY_RCU). A new socket there is not the one
 * followed where it has no cookie and cookies mark the followed ones. */
static __always_inline bool sock_gone(__u64 key)
{
	const void *skc = (const void *)key;
	__u64 cookie = 0;
	int refs = 1;

	if (bpf_probe_read_kernel(&refs, sizeof(refs),
				  skc + bpf_core_field_offset(struct sock_common, skc_refcnt)))
		return false;
	if (!refs)
		return true;
	if (!cookie_marks_followed ||
	    bpf_probe_read_kernel(&cookie, sizeof(cookie),
				  skc + bpf_core_field_offset(struct sock_common, skc_cookie)))
		return false;
	return !cookie;
}

/* The sweep at exit (sweep_sockets_gone): way w of bucket b, if its
 * socket is gone, an entry whose socket's destruction no program ran for.
 * Marked, so that a new socket at its address does not count it again in
 * ends_unseen; not freed, which would race with the programs' own
 * sock_forget. */
static __always_inline void sock_sweep_way(struct tt_sock_bucket *b, int w)
{
	__u64 key = b->sk[w];
	__u16 flags = b->s[w].flags;

	if (!key || (b->s[w].side & TT_SOCK_GONE) || !sock_gone(key) || b->sk[w] != key)
		return;
	b->s[w].side |= TT_SOCK_GONE;
	if (flags & TT_SK_ESTABLISHED)
		__sync_fetch_and_add(&ends_swept, 1);
}

/* The sweep's step: bucket i's ways. Global, verified once. Returns
 * nonzero past the last bucket. */
__noinline int sock_sweep_bucket(__u32 i)
{
	struct tt_sock_bucket *b = bpf_map_lookup_elem(&sock_table, &i);

	if (!b)
		return 1;
	for (int w = 0; w < TT_SOCK_WAYS; w++)
		sock_sweep_way(b, w);
	return 0;
}

static __always_inline void sock_forget_sk(const struct sock *sk)
{
	sock_forget(tt_addr_of(sk), TT_NO_ENTRY);
}

/* The same for a socket whose entry the caller has just found. */
static __always_inline void sock_forget_found(const struct sock *sk, __u32 entry)
{
	sock_forget(tt_addr_of(sk), entry);
}

/* The entry of a socket in the table, if it has one. */
static __always_inline struct tt_sock *sock_find(const struct sock *sk)
{
	__u64 key;

	if (!sock_may_be_followed(sk))
		return NULL;
	key = tt_addr_of(sk);
	if (!sock_filter_may_hold(key))
		return NULL;
	return sock_entry_at(sock_index_of_key(key));
}

/* A free way of bucket i taken for the socket at address key and filled:
 * its value first, then its key, which makes it found. Returns the way,
 * TT_SOCK_WAYS when every way is taken, TT_SOCK_WAYS + 1 when there is no
 * bucket i. */
__noinline __u32 sock_bucket_claim(__u32 i, __u64 key, __u32 tgid, __u32 slot, __u32 side_flags)
{
	struct tt_sock_bucket *b = bpf_map_lookup_elem(&sock_table, &i);

	if (!b)
		return TT_SOCK_WAYS + 1;
	for (__u32 w = 0; w < TT_SOCK_WAYS; w++) {
		if (!sock_way_claim(b, w))
			continue;
		b->s[w].tgid = tgid;
		b->s[w].slot = slot;
		b->s[w].side = side_flags & 0xff;
		b->s[w].flags = side_flags >> 16;
		b->s[w].accepted = 0;
		b->s[w].rst_reason = 0;
		b->sk[w] = key;
		return w;
	}
	return TT_SOCK_WAYS;
}

/* A free entry taken for the socket at address key in the first of its
 * buckets that has one; TT_NO_ENTRY when all are full. Its home counts it
 * as spilled before a later bucket holds it: a lookup that meanwhile finds
 * home not spilled could stop there and miss it. */
static __always_inline __u32 sock_claim(__u64 key, __u32 tgid, __u32 slot, __u32 side_flags)
{
	__u32 home = sock_home_bucket(key), w = sock_bucket_claim(home, key, tgid, slot, side_flags);
	struct tt_sock_bucket *h;

	if (w < TT_SOCK_WAYS)
		return home * TT_SOCK_WAYS + w;
	h = bpf_map_lookup_elem(&sock_table, &home);
	if (!h)
		return TT_NO_ENTRY;
	__sync_fetch_and_add(&h->spilled, 1);
	for (__u32 p = 1; p < TT_SOCK_PROBES; p++) {
		__u32 i = home + p;

		w = sock_bucket_claim(i, key, tgid, slot, side_flags);
		if (w < TT_SOCK_WAYS) {
			__sync_fetch_and_add(&sockets_spilled, 1);
			return i * TT_SOCK_WAYS + w;
		}
		if (w > TT_SOCK_WAYS)
			break;
	}
	__sync_fetch_and_add(&h->spilled, -1);
	return TT_NO_ENTRY;
}

/* Every followed socket enters the table here: the socket at address key,
 * owned by tgid (slot, or TT_NO_SLOT until its first count), on side
 * side_flags & 0xff, with the TT_SK_* flags side_flags >> 16, and
 * TT_TRACK_NO_BACKLOG. Returns its entry, or TT_NO_ENTRY when it is not
 * followed. */
__noinline __u32 sock_track(__u64 key, __u32 tgid, __u32 slot, __u32 side_flags)
{
	struct tt_sock value = { .side = side_flags & 0xff, .flags = side_flags >> 16 };
	__u32 filter = sock_filter_slot(key), entry;
	struct tt_proc_counters *c;
	int left;

	/* Left by an earlier socket at this address whose destruction went
	 * unseen: its connection's end cannot be counted any more. */
	left = sock_forget(key, TT_NO_ENTRY);
	if (left > 0 && sock_end_unseen(left, left >> 16))
		__sync_fetch_and_add(&ends_unseen, 1);
	entry = sock_claim(key, tgid, slot, side_flags);
	if (entry == TT_NO_ENTRY) {
		tt_count_drop(TT_DROP_SOCK_MAP_FULL);
		c = proc_counters_at(proc_slot_of(tgid));
		if (c)
			tt_bump(&c->untracked);
		return TT_NO_ENTRY;
	}
	if (!cookie_marks_followed)
		__sync_fetch_and_add(&tracked_slots[filter], 1);
	if (sock_awaits_touch(&value)) {
		__sync_fetch_and_add(&untouched_slots[filter], 1);
		sock_count_awaiting(value.flags, 1);
		if (!acceptors_at_accept && (side_flags & TT_TRACK_NO_BACKLOG) &&
		    !children_without_backlog)
			children_without_backlog = 1;
	}
	proc_count_sockets(slot, 1);
	return entry;
}

static __always_inline struct tt_sock *sock_track_sk(const struct sock *sk, __u32 tgid, __u32 slot,
					     __u8 side, __u16 flags)
{
	struct tt_sock *s;

	/* A seed's cookie is made by the scan's dump before the seed is
	 * written: a socket followed after the seeds were all written, with
	 * no cookie until now, has no seed (see sock_drop_seed). */
	if (seeds_unwritten || sk->__sk_common.skc_cookie.counter)
		flags |= TT_SK_SEED_RACE;
	/* The cookie before the entry: whoever finds the entry sees it. */
	if (cookie_marks_followed)
		bpf_get_socket_cookie((void *)sk);
	s = sock_entry_at(sock_track(tt_addr_of(sk), tgid, slot,
				     side | sock_backlog_flag(sk) | (__u32)flags << 16));
	/* A connect()'s socket has sent nothing yet. */
	if (s && side == TT_SIDE_IN)
		retrans_seen_join(sk, s);
	return s;
}

/* A socket that existed before start-up, known to user space by its
 * cookie: its entry, or TT_NO_ENTRY. */
__noinline __u32 sock_adopt_seed(__u64 key, __u64 cookie, __u32 no_backlog)
{
	struct tt_seed *seed = bpf_map_lookup_elem(&seeds, &cookie);
	__u32 slot, entry;

	if (!seed)
		return TT_NO_ENTRY;
	slot = seed->flags & TT_SK_PROVISIONAL ? TT_NO_SLOT : proc_slot_of(seed->tgid);
	entry = sock_track(key, seed->tgid, slot,
			   seed->side | no_backlog | (__u32)seed->flags << 16);
	/* Once, where two CPUs adopt it at once. */
	if (!bpf_map_delete_elem(&seeds, &cookie))
		__sync_fetch_and_add(&seeds_pending, -1);
	return entry;
}

/* Open connections: opened[] when a counted connection is ESTABLISHED,
 * open_ended[] when it leaves ESTABLISHED or ends; user space adds those
 * it seeded open at start-up. A socket is open on one side of one
 * process. c: the counters of its owner, when the caller has them. */
static __always_inline void sock_open_begins(struct tt_sock *s, struct tt_proc_counters *c)
{
	if (s->flags & TT_SK_OPEN)
		return;
	if (!c)
		c = sock_counters(s);
	if (!c)
		return;
	tt_bump(&c->opened[s->side & 1]);
	s->flags |= TT_SK_OPEN;
}

static __always_inline void sock_open_ends(struct tt_sock *s)
{
	struct tt_proc_counters *c;

	if (!(s->flags & TT_SK_OPEN))
		return;
	s->flags &= ~TT_SK_OPEN;
	c = sock_counters(s);
	if (c)
		tt_bump(&c->open_ended[s->side & 1]);
}

/* A socket that a seed may name drops it as it goes away (TT_SK_SEED_RACE,
 * set by sock_track_sk()): one written by a scan that raced with the programs, for
 * a socket they already followed, would otherwise never be adopted and
 * keep seeds_pending up. That socket was counted open twice, by user space
 * from its seed and by the programs: once is taken back. Such a socket was
 * followed before the seeds were all written, or had a cookie when it was
 * (the scan's dump makes one before its seed is written): any other has
 * none. */
static __always_inline void sock_drop_seed(const struct sock *sk)
{
	struct tt_seed *seed;
	struct tt_proc_counters *c;
	__u64 cookie;
	__u32 tgid;
	__u8 side;
	bool open;

	if (!seeds_pending)
		return;
	cookie = sk->__sk_common.skc_cookie.counter;
	seed = cookie ? bpf_map_lookup_elem(&seeds, &cookie) : NULL;
	if (!seed)
		return;
	open = seed->flags & TT_SK_OPEN;
	tgid = seed->tgid;
	side = seed->side & 1;
	if (bpf_map_delete_elem(&seeds, &cookie))
		return;
	__sync_fetch_and_add(&seeds_pending, -1);
	c = open ? proc_counters_of(tgid) : NULL;
	if (c)
		tt_bump(&c->open_ended[side]);
}

/* The entry of a followed socket, or of one from before start-up met for
 * the first time. */
static __always_inline __u32 sock_index_or_adopt(const struct sock *sk)
{
	__u64 cookie = sk->__sk_common.skc_cookie.counter, key;
	__u32 entry = TT_NO_ENTRY;

	/* A seed has a cookie too. */
	if (!sock_may_be_followed(sk))
		return TT_NO_ENTRY;
	key = tt_addr_of(sk);
	if (sock_filter_may_hold(key))
		entry = sock_index_of_key(key);
	if (entry == TT_NO_ENTRY && seeds_pending && cookie) {
		struct tt_sock *s;

		entry = sock_adopt_seed(key, cookie, sock_backlog_flag(sk));
		s = sock_entry_at(entry);
		if (s)
			retrans_seen_join(sk, s);
	}
	return entry;
}

static __always_inline struct tt_sock *sock_find_or_adopt(const struct sock *sk)
{
	return sock_entry_at(sock_index_or_adopt(sk));
}

/* A new socket is followed only if it is TCP over IPv4 or IPv6 (the
 * tracepoint also fires for MPTCP's own sockets). Sockets already followed
 * passed this test when they were created. */
static __always_inline bool sock_is_inet_tcp(const struct sock *sk)
{
	__u16 family;

	if (sk_protocol_of(sk) != IPPROTO_TCP)
		return false;
	family = sk->__sk_common.skc_family;
	return family == AF_INET || family == AF_INET6;
}

/* The flow key of a socket from its head; lport is given because where
 * to read it depends on the kind of socket (see sk_local_port_of). */
static __always_inline void sock_flow_of(const struct sock_common *c, __u32 netns, __u16 lport,
				    struct tt_flow_key *k)
{
	__u16 family = c->skc_family;

	__builtin_memset(k, 0, sizeof(*k));
	k->netns = netns;
	k->family = family;
	k->lport = lport;
	k->rport = bpf_ntohs(c->skc_dport);
	if (family == AF_INET) {
		__builtin_memcpy(k->laddr, &c->skc_rcv_saddr, 4);
		__builtin_memcpy(k->raddr, &c->skc_daddr, 4);
	} else {
		__builtin_memcpy(k->laddr, &c->skc_v6_rcv_saddr, 16);
		__builtin_memcpy(k->raddr, &c->skc_v6_daddr, 16);
	}
}

#endif /* TT_SOCKS_BPF_H */
