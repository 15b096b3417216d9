/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Waits timed in the kernel: a connect() from its SYN to ESTABLISHED, and
 * an accepted connection from its queueing to accept(). Each wait lands in
 * a 1-2-5 bucket of its process's slot in proc_times (procs.bpf.h). */
#ifndef TT_TIMES_BPF_H
#define TT_TIMES_BPF_H

/* The clock in microseconds, cut to 32 bits: a wait is the difference,
 * right across a wrap for any wait under an hour. */
static __always_inline __u32 now_us(void)
{
	return bpf_ktime_get_ns() / 1000;
}

/* The bucket of a wait: global, so that the verifier walks the ladder
 * once, not once for each path of its caller. */
__noinline __u32 latency_bucket(__u32 us)
{
	__u32 bound = 10, i = 0;

	for (int decade = 0; decade < TT_CONNECT_BUCKETS / 3; decade++) {
		if (us <= bound)
			return i;
		if (us <= bound * 2)
			return i + 1;
		if (us <= bound * 5)
			return i + 2;
		bound *= 10;
		i += 3;
	}
	return TT_CONNECT_BUCKETS - 1;
}

/* The socket's entry holds a start in since_us (TT_SK_TIMED) until its
 * wait ends; the word is the RST's reason after that. */
static __always_inline void timed_from_now(struct tt_sock *s)
{
	s->since_us = now_us();
	s->flags |= TT_SK_TIMED;
}

/* Microseconds since the start, if one was kept; the word goes back to
 * the RST's reason. */
static __always_inline bool timed_end(struct tt_sock *s, __u32 *us)
{
	bool timed = s->flags & TT_SK_TIMED;

	if (timed)
		*us = now_us() - s->since_us;
	s->flags &= ~TT_SK_TIMED;
	s->rst_reason = 0;
	return timed;
}

/* An RST's reason takes the word: a start still kept is given up. */
static __always_inline void rst_reason_set(struct tt_sock *s, __u32 reason)
{
	s->flags &= ~TT_SK_TIMED;
	s->rst_reason = reason;
}

/* A child taken by accept() after us microseconds in its listener's queue:
 * on the acceptor's slot (on_touch has made the entry its). */
static __always_inline void count_accept_wait(struct tt_sock *s, __u32 us)
{
	__u32 slot = slot_of_sock(s);
	struct tt_proc_times *t;
	__u64 i = latency_bucket(us);

	if (i >= TT_CONNECT_BUCKETS)
		return;
	barrier_var(i);
	t = bpf_map_lookup_elem(&proc_times, &slot);
	if (t) {
		bump(&t->acceptq_le[i]);
		__sync_fetch_and_add(&t->acceptq_us, us);
	}
}

#endif /* TT_TIMES_BPF_H */
