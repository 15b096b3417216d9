/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Whether a traced listener's connections wait for the process that
 * accepts them to be named, and news for user space when a listener
 * becomes shared.
 *
 * Where accept() is traced (accept.bpf.h), every connection waits for it:
 * its acceptor is named there, exactly, whoever holds the listener. Where
 * it is not, the acceptor is named at its first read, and the read hook
 * runs on every read of every socket: user space attaches it only while a
 * traced listener is held by several processes (acceptors.c). A listener
 * becomes shared by a fork of its owner, by a second process listening on
 * its port (SO_REUSEPORT: a haproxy reload), or by a descriptor passed on
 * (SCM_RIGHTS), which shows at the first touch of one of its connections
 * by another process (listener_on_touch). */
#ifndef TT_SHARING_BPF_H
#define TT_SHARING_BPF_H

#include "compat.bpf.h"
#include "maps.bpf.h"
#include "settings.bpf.h"

/* Set by user space once fexit/inet_csk_accept is attached: every
 * accepted connection is named at accept(). */
bool accept_hook_attached = false;

/* The processes that listen on traced listeners, by tgid, and the keys of
 * those listeners: when such a process forks, the child holds a copy of
 * each descriptor, and each listener is marked shared there and then.
 * Filled by listener_on_listen and by user space's seeds, emptied when a process
 * goes (its PID may come back as another's); read by accept_note_fork
 * (accept.bpf.h). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TT_DEFAULT_MAX_PROCS);
	__type(key, __u32);
	__type(value, struct tt_listening);
} listening_tgids SEC(".maps");

/* The socket each entry of listeners stands for, by the same key: the
 * entry goes when that socket stops listening, whichever of its holders
 * closes it last (nginx's master closes its copy first). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, struct tt_listener_key);
	__type(value, struct tt_listen_sock);
} listen_socks SEC(".maps");

/* News for user space, which attaches the read hook at once (acceptors.c).
 * A few small records; user space reads them as soon as they come. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} share_news SEC(".maps");

static __always_inline void sharing_tell(__u32 tgid, __u32 why)
{
	struct tt_share_record r = { .tgid = tgid, .why = why };

	if (!accept_hook_attached)
		bpf_ringbuf_output(&share_news, &r, sizeof(r), 0);
}

/* Whether the connections of this listener wait for their acceptor to be
 * named: always where accept() is traced; where it is not, only when
 * several processes may accept them. */
static __always_inline bool sharing_acceptor_unknown(const struct tt_listener *owner)
{
	return accept_hook_attached || owner->flags & TT_LISTENER_SHARED;
}

/* Process tgid listens on the traced listener at key. Returns false when
 * that cannot be noted, so that its fork would go unseen: the listener is
 * then taken as shared at once. */
static __always_inline bool sharing_note_listening(__u32 tgid, const struct tt_listener_key *key)
{
	struct tt_listening fresh = {}, *l = tt_lookup_or_init(&listening_tgids, &tgid, &fresh);
	__u32 n;

	if (!l)
		return false;
	n = l->n;
	for (__u32 i = 0; i < TT_LISTENING_KEYS && i < n; i++)
		if (l->keys[i].netns == key->netns && l->keys[i].port == key->port)
			return true;
	if (n >= TT_LISTENING_KEYS)
		return false;
	l->keys[n] = *key;
	l->n = n + 1;
	return true;
}

static __always_inline void sharing_note_listen_sock(const struct tt_listener_key *key,
					     const struct sock *sk)
{
	struct tt_listen_sock v = { .sk = tt_addr_of(sk) };

	bpf_map_update_elem(&listen_socks, key, &v, BPF_ANY);
}

/* Whether sk, which stops listening, is the socket of the listeners entry
 * at key; its note goes then. */
static __always_inline bool sharing_was_listen_sock(const struct tt_listener_key *key, const struct sock *sk)
{
	struct tt_listen_sock *v = bpf_map_lookup_elem(&listen_socks, key);

	if (!v || (v->sk != tt_addr_of(sk) &&
		   !(v->cookie && v->cookie == (__u64)sk->__sk_common.skc_cookie.counter)))
		return false;
	bpf_map_delete_elem(&listen_socks, key);
	return true;
}

/* Process tgid is gone, or tgid names a new process. */
static __always_inline void sharing_forget_listening(__u32 tgid)
{
	bpf_map_delete_elem(&listening_tgids, &tgid);
}

#endif /* TT_SHARING_BPF_H */
