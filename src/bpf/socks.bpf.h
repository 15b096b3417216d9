/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The socket table: the owner and story of every followed socket, from
 * its creation (connect, accept, a seed from start-up) to its destruction. */
#ifndef TT_SOCKS_BPF_H
#define TT_SOCKS_BPF_H

/* Seeds not yet adopted: while zero, unknown sockets cost one lookup less. */
__u64 seeds_pending = 0;

/* Counting filters over socket addresses: slot i holds how many members
 * of a set of sockets hash to i. A zero slot proves a socket is not a
 * member at the cost of one array read, where a lookup in the socket
 * table that misses costs a cold bucket (bench/README.md has the figures).
 * tracked_slots: the sockets in the table. Most state changes on a busy
 * machine are of sockets nobody traces. untouched_slots: the accepted
 * sockets in the table that no syscall has touched yet (see on_touch).
 * tcp_rcv_space_adjust runs on every read of every TCP socket. */
#define TT_FILTER_SLOTS (1 << 14)
__u32 tracked_slots[TT_FILTER_SLOTS];
__u32 untouched_slots[TT_FILTER_SLOTS];

/* Accepted sockets in the table whose acceptor is not named yet
 * (TT_SK_PROVISIONAL, untouched), where accept() is not traced: user
 * space keeps the read hook attached while there are any (acceptors.c). */
__s64 awaiting_acceptor = 0;

static __always_inline void count_awaiting(__u16 flags, __s64 n)
{
	if (!acceptors_at_accept && (flags & TT_SK_PROVISIONAL))
		__sync_fetch_and_add(&awaiting_acceptor, n);
}

/* The programs' arguments are typed pointers (tp_btf), on which the
 * verifier allows no arithmetic: an address becomes a number to hash by
 * a trip through a per-CPU word. A program nested on the CPU (a
 * softirq's, in a syscall's) runs to its end before the one it
 * interrupted goes on: each nesting level takes its own word. */
struct addr_words {
	__u32 depth;
	__u32 pad;
	__u64 word[4];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct addr_words);
} addr_scratch SEC(".maps");

static __always_inline __u64 addr_of(const void *p)
{
	__u32 zero = 0;
	struct addr_words *w = bpf_map_lookup_elem(&addr_scratch, &zero);
	__u32 level;
	__u64 addr;

	if (!w)
		return 0;
	level = w->depth++ & 3;
	w->word[level] = (__u64)p;
	addr = *(volatile __u64 *)&w->word[level];
	w->depth--;
	return addr;
}

/* The socket's address, mixed. Sockets are objects of a few KiB carved
 * from contiguous slabs: their addresses step by a fixed size, and a
 * single multiplication left runs of them on a few buckets, so that the
 * spill filled long before --max-sockets (bench/held-at-once.sh). A
 * 64-bit finalizer (MurmurHash3's fmix64) spreads them evenly. */
static __always_inline __u64 hash_of(const struct sock *sk)
{
	__u64 h = addr_of(sk);

	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	return h ^ (h >> 33);
}

static __always_inline __u32 slot_of(const struct sock *sk)
{
	return hash_of(sk) >> (64 - 14);
}

/* The socket table: an entry per followed socket, keyed by its address,
 * in an array of buckets of TT_SOCK_WAYS entries. An entry is taken
 * without a lock: claim() counts claimants with an atomic add and keeps
 * the entry only if it was alone. Inserting and deleting thus cost a few
 * stores, where a hash map takes a bucket lock and a free list each time
 * (bench/README.md). A socket whose bucket is full goes to sock_spill,
 * and the bucket counts it there so that a lookup looks only when it
 * must. User space sets the bucket count to half of --max-sockets: at
 * most two sockets a bucket on average, and few spill. */
#define TT_SOCK_WAYS 4

struct sock_bucket {
	__u64 sk[TT_SOCK_WAYS]; /* 0: free */
	__u32 claims[TT_SOCK_WAYS];
	__u32 spilled;
	__u32 pad[3];
	struct tt_sock s[TT_SOCK_WAYS];
};

const volatile __u32 sock_buckets = TT_DEFAULT_MAX_SOCKETS / 2;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TT_DEFAULT_MAX_SOCKETS / 2);
	__type(key, __u32);
	__type(value, struct sock_bucket);
} sock_table SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TT_DEFAULT_MAX_SOCKETS / 4);
	__type(key, __u64); /* struct sock address */
	__type(value, struct tt_sock);
} sock_spill SEC(".maps");

static __always_inline struct sock_bucket *bucket_of(const struct sock *sk)
{
	__u32 i = ((hash_of(sk) >> 32) * sock_buckets) >> 32;

	return bpf_map_lookup_elem(&sock_table, &i);
}

/* Whether this program is the only claimant of way w, which it then
 * holds until release(). Two claimants cannot both see a count of one:
 * each reads after its own add, and the later add sees the earlier. The
 * atomic add is the one atomic that every kernel from 5.10 on takes. */
static __always_inline bool claim(struct sock_bucket *b, int w)
{
	if (*(volatile __u32 *)&b->claims[w])
		return false;
	__sync_fetch_and_add(&b->claims[w], 1);
	if (*(volatile __u32 *)&b->claims[w] == 1)
		return true;
	__sync_fetch_and_add(&b->claims[w], -1);
	return false;
}

static __always_inline void release(struct sock_bucket *b, int w)
{
	b->sk[w] = 0;
	__sync_fetch_and_add(&b->claims[w], -1);
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
 * shared listener gets its slot with its owner, at its first touch (or at
 * its first count if it ends untouched): the listener's owner gets no row
 * for connections it did not accept. */
static __always_inline __u32 slot_of_sock(struct tt_sock *s)
{
	if (s->slot == TT_NO_SLOT) {
		s->slot = slot_of_process(s->tgid);
		count_slot_sockets(s->slot, 1);
	}
	return s->slot;
}

static __always_inline struct tt_proc_counters *counters_of_sock(struct tt_sock *s)
{
	return counters_at(slot_of_sock(s));
}

/* Copies a struct sock_common, up to a timewait socket's tw_snd_nxt,
 * into c: addresses, hash, ports, family, state, namespace, the link in
 * the connection hash. For sockets reached through a plain address (the
 * timewait walk), where no direct load is allowed: a probe read costs
 * about as much whatever its size (bench/README.md), and these fields sit
 * together, so one read gets them all. c's fields are then read like any
 * other, at the offsets CO-RE relocates to the running kernel's. */
static __always_inline bool read_skc(struct sock_common *c, const void *skc)
{
	__u32 len = bpf_core_field_offset(struct sock_common, skc_tw_snd_nxt) +
		    bpf_core_field_size(struct sock_common, skc_tw_snd_nxt);

	if (len > sizeof(*c))
		len = sizeof(*c);
	return bpf_probe_read_kernel(c, len, skc) == 0;
}

static __always_inline bool awaits_touch(const struct tt_sock *s)
{
	return s->side == TT_SIDE_IN && !(s->flags & TT_SK_TOUCHED);
}

/* Every followed socket leaves the table here, so that the filters stay
 * exact. s is read before its entry goes: the kernel may reuse it at once. */
static __always_inline void forget(const struct sock *sk, const struct tt_sock *s)
{
	struct sock_bucket *b = bucket_of(sk);
	bool untouched = awaits_touch(s);
	__u16 flags = s->flags;
	__u32 slot = s->slot;
	__u64 key = (__u64)sk;
	int w;

	if (!b)
		return;
	for (w = 0; w < TT_SOCK_WAYS; w++)
		if (b->sk[w] == key)
			break;
	if (w < TT_SOCK_WAYS) {
		release(b, w);
	} else {
		if (bpf_map_delete_elem(&sock_spill, &key))
			return;
		__sync_fetch_and_add(&b->spilled, -1);
	}
	__sync_fetch_and_add(&tracked_slots[slot_of(sk)], -1);
	if (untouched) {
		__sync_fetch_and_add(&untouched_slots[slot_of(sk)], -1);
		count_awaiting(flags, -1);
	}
	count_slot_sockets(slot, -1);
}

static __always_inline struct tt_sock *find_in(struct sock_bucket *b, const struct sock *sk)
{
	__u64 key = (__u64)sk;

	for (int w = 0; w < TT_SOCK_WAYS; w++)
		if (b->sk[w] == key)
			return &b->s[w];
	if (!b->spilled)
		return NULL;
	return bpf_map_lookup_elem(&sock_spill, &key);
}

/* The entry of a socket in the table, if it has one. */
static __always_inline struct tt_sock *find(const struct sock *sk)
{
	struct sock_bucket *b;

	if (!tracked_slots[slot_of(sk)])
		return NULL;
	b = bucket_of(sk);
	return b ? find_in(b, sk) : NULL;
}

/* Every followed socket enters the table here. Returns its entry, or NULL
 * when sk is not followed. */
static __always_inline struct tt_sock *track(const struct sock *sk, __u32 tgid, __u32 slot,
					     __u8 side, __u16 flags)
{
	struct tt_sock value = { .tgid = tgid, .slot = slot, .side = side, .flags = flags };
	struct sock_bucket *b = bucket_of(sk);
	struct tt_proc_counters *c;
	__u64 key = (__u64)sk;
	struct tt_sock *s;
	int w;

	if (!b)
		goto full;
	/* Left by an earlier socket at this address whose destruction went
	 * unseen: its connection cannot be counted any more. */
	s = find(sk);
	if (s)
		forget(sk, s);
	s = NULL;
	for (w = 0; w < TT_SOCK_WAYS; w++) {
		if (claim(b, w)) {
			b->s[w] = value;
			b->sk[w] = key;
			s = &b->s[w];
			break;
		}
	}
	if (!s) {
		if (bpf_map_update_elem(&sock_spill, &key, &value, BPF_NOEXIST))
			goto full;
		__sync_fetch_and_add(&b->spilled, 1);
		s = bpf_map_lookup_elem(&sock_spill, &key);
	}
	__sync_fetch_and_add(&tracked_slots[slot_of(sk)], 1);
	if (awaits_touch(&value)) {
		__sync_fetch_and_add(&untouched_slots[slot_of(sk)], 1);
		count_awaiting(flags, 1);
	}
	count_slot_sockets(slot, 1);
	return s;
full:
	count_drop(TT_DROP_SOCK_MAP_FULL);
	c = counters_of(tgid);
	if (c)
		bump(&c->untracked);
	return NULL;
}

/* A socket that existed before start-up, known to user space by cookie. */
static __always_inline struct tt_sock *adopt_seed(const struct sock *sk)
{
	struct tt_seed *seed;
	__u64 cookie;

	if (!seeds_pending)
		return NULL;
	cookie = sk->__sk_common.skc_cookie.counter;
	if (!cookie)
		return NULL;
	seed = bpf_map_lookup_elem(&seeds, &cookie);
	if (!seed)
		return NULL;
	__u32 slot = seed->flags & TT_SK_PROVISIONAL ? TT_NO_SLOT : slot_of_process(seed->tgid);
	struct tt_sock *s = track(sk, seed->tgid, slot, seed->side, seed->flags);

	bpf_map_delete_elem(&seeds, &cookie);
	__sync_fetch_and_add(&seeds_pending, -1);
	return s;
}

/* Open connections: opened[] when a counted connection is ESTABLISHED,
 * open_ended[] when it leaves ESTABLISHED or ends; user space adds those
 * it seeded open at start-up. A socket is open on one side of one
 * process. c: the counters of its owner, when the caller has them. */
static __always_inline void open_begins(struct tt_sock *s, struct tt_proc_counters *c)
{
	if (s->flags & TT_SK_OPEN)
		return;
	if (!c)
		c = counters_of_sock(s);
	if (!c)
		return;
	bump(&c->opened[s->side & 1]);
	s->flags |= TT_SK_OPEN;
}

static __always_inline void open_ends(struct tt_sock *s)
{
	struct tt_proc_counters *c;

	if (!(s->flags & TT_SK_OPEN))
		return;
	s->flags &= ~TT_SK_OPEN;
	c = counters_of_sock(s);
	if (c)
		bump(&c->open_ended[s->side & 1]);
}

/* A socket that goes away drops its seed: one written by a scan that
 * raced with the programs, for a socket they already followed, would
 * otherwise never be adopted and keep seeds_pending up. That socket was
 * counted open twice, by user space from its seed and by the programs:
 * once is taken back. */
static __always_inline void drop_seed(const struct sock *sk)
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
	c = open ? counters_of(tgid) : NULL;
	if (c)
		bump(&c->open_ended[side]);
}

static __always_inline struct tt_sock *lookup_sock(const struct sock *sk)
{
	struct tt_sock *s = find(sk);

	return s ? s : adopt_seed(sk);
}

/* A new socket is followed only if it is TCP over IPv4 or IPv6 (the
 * tracepoint also fires for MPTCP's own sockets). Sockets already followed
 * passed this test when they were created. */
static __always_inline bool is_inet_tcp(const struct sock *sk)
{
	__u16 family;

	if (sk_protocol_of(sk) != IPPROTO_TCP)
		return false;
	family = sk->__sk_common.skc_family;
	return family == AF_INET || family == AF_INET6;
}

#endif /* TT_SOCKS_BPF_H */
