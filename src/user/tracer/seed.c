// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Sockets that existed before tcptrace started: the listeners and
 * connections held by the processes to trace, found in /proc/PID/fd and in
 * one sock_diag dump per network namespace, stored in the listeners and
 * seeds maps for the BPF side to adopt at their next event. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/types.h>
#include "tcptrace.h"
#include "tracer/namespaces.h"
#include "tracer/netns.h"
#include "tracer/seed.h"
#include "common/test_hooks.h"
#include "tracer/sockdiag.h"
#include "tcptrace.skel.h"

/* What a seeding dump lists: the states of full sockets that a seed
 * may stand for. */
#define SEED_STATES (~((1u << TCP_TIME_WAIT) | (1u << TCP_CLOSE) | (1u << 12 /* NEW_SYN_RECV */)))

/* Socket inodes held by the seeded processes, sorted for bsearch. */
struct inode_owner {
	uint32_t inode;
	uint32_t pid;
};

struct inode_table {
	struct inode_owner *v;
	size_t n, cap;
};

static int cmp_inode(const void *a, const void *b)
{
	const struct inode_owner *x = a, *y = b;

	return x->inode < y->inode ? -1 : x->inode > y->inode;
}

static void collect_socket_inodes(uint32_t pid, struct inode_table *tab)
{
	char path[64], link[64];
	struct dirent *de;
	DIR *dir;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/fd", pid);
	dir = opendir(path);
	if (!dir)
		return; /* gone, or a kernel thread */
	fd = dirfd(dir);
	while (fd >= 0 && (de = readdir(dir))) {
		unsigned long inode;
		ssize_t len;
		char *end;

		len = readlinkat(fd, de->d_name, link, sizeof(link) - 1);
		if (len <= 0)
			continue;
		link[len] = '\0';
		if (strncmp(link, "socket:[", 8) != 0)
			continue;
		errno = 0;
		inode = strtoul(link + 8, &end, 10);
		if (errno || end == link + 8 || strcmp(end, "]") != 0 || inode > UINT32_MAX)
			continue;
		if (tab->n == tab->cap) {
			size_t cap = tab->cap ? tab->cap * 2 : 256;
			struct inode_owner *v = realloc(tab->v, cap * sizeof(*v));
			if (!v)
				break;
			tab->v = v;
			tab->cap = cap;
		}
		tab->v[tab->n++] = (struct inode_owner){ .inode = (uint32_t)inode, .pid = pid };
	}
	closedir(dir);
}

/* Listening ports of one namespace: a few, so a plain array. */
struct port_set {
	uint16_t *v;
	size_t n, cap;
};

static bool port_set_has(const struct port_set *set, uint16_t port)
{
	for (size_t i = 0; i < set->n; i++)
		if (set->v[i] == port)
			return true;
	return false;
}

static void add_port(struct port_set *set, uint16_t port)
{
	if (port_set_has(set, port))
		return;
	if (set->n == set->cap) {
		size_t cap = set->cap ? set->cap * 2 : 16;
		uint16_t *v = realloc(set->v, cap * sizeof(*v));

		if (!v)
			return;
		set->v = v;
		set->cap = cap;
	}
	set->v[set->n++] = port;
}

/* Whether more than one process holds the socket with this inode. */
static bool held_by_several(const struct inode_table *tab, uint32_t inode)
{
	struct inode_owner key = { .inode = inode }, *hit;
	size_t first, last;

	hit = bsearch(&key, tab->v, tab->n, sizeof(key), cmp_inode);
	if (!hit)
		return false;
	first = last = (size_t)(hit - tab->v);
	while (first > 0 && tab->v[first - 1].inode == inode)
		first--;
	while (last + 1 < tab->n && tab->v[last + 1].inode == inode)
		last++;
	for (size_t i = first + 1; i <= last; i++)
		if (tab->v[i].pid != tab->v[first].pid)
			return true;
	return false;
}

/* A seed written, until the second dump settles it (settle_seeds). */
struct seed_written {
	uint64_t cookie;
	uint32_t tgid;
	uint8_t side;
	uint8_t family;
	bool open;
};

struct seed_ctx {
	struct tcptrace_bpf *skel;
	struct seed_open *open;           /* the connections seeded open, by owner */
	struct seed_written *written;     /* this namespace's seeds written */
	size_t n_written;
	const struct inode_table *inodes;
	uint32_t netns;
	struct tt_diag_sock *socks; /* this namespace's sockets held by seeded processes */
	uint32_t *owners;
	size_t n, cap;
	uint64_t listeners, connections; /* stored */
	struct port_set listening;       /* of every process in the namespace */
	uint16_t ephemeral_lo, ephemeral_hi;
};

/* A connection in a listener's accept queue: no process holds it yet, and
 * its owner is its listener's (see store_seeds). */
static bool unaccepted(const struct tt_diag_sock *sock)
{
	return !sock->inode && (sock->state == TCP_ESTABLISHED || sock->state == TCP_CLOSE_WAIT);
}

static void keep_owned(const struct tt_diag_sock *sock, void *opaque)
{
	struct seed_ctx *ctx = opaque;
	struct inode_owner key = { .inode = sock->inode }, *hit = NULL;

	if (sock->state == TCP_LISTEN)
		add_port(&ctx->listening, sock->lport);
	if (sock->inode)
		hit = bsearch(&key, ctx->inodes->v, ctx->inodes->n, sizeof(key), cmp_inode);
	if (!hit && !unaccepted(sock))
		return;
	if (ctx->n == ctx->cap) {
		size_t cap = ctx->cap ? ctx->cap * 2 : 256;
		struct tt_diag_sock *socks = realloc(ctx->socks, cap * sizeof(*socks));
		uint32_t *owners = socks ? realloc(ctx->owners, cap * sizeof(*owners)) : NULL;

		if (socks)
			ctx->socks = socks;
		if (!owners)
			return;
		ctx->owners = owners;
		ctx->cap = cap;
	}
	ctx->socks[ctx->n] = *sock;
	ctx->owners[ctx->n++] = hit ? hit->pid : 0;
}

/* The seeded listener on port, or -1. */
static ssize_t listener_on(const struct seed_ctx *ctx, uint16_t port)
{
	for (size_t i = 0; i < ctx->n; i++)
		if (ctx->socks[i].state == TCP_LISTEN && ctx->socks[i].lport == port && ctx->owners[i])
			return (ssize_t)i;
	return -1;
}

static __u16 seed_flags(uint8_t state)
{
	__u16 flags = 0;

	if (state == TCP_SYN_SENT)
		return flags;
	flags |= TT_SK_ESTABLISHED | TT_SK_COUNTED;
	if (state == TCP_ESTABLISHED)
		flags |= TT_SK_OPEN;
	if (state == TCP_FIN_WAIT1 || state == TCP_FIN_WAIT2 || state == TCP_CLOSING)
		flags |= TT_SK_FIN_FIRST;
	else if (state == TCP_CLOSE_WAIT || state == TCP_LAST_ACK)
		flags |= TT_SK_FIN_PEER;
	return flags;
}

/* Accepted (in) or connected (out)? The kernel does not say once the
 * socket exists. A local port someone listens on means accepted; else the
 * end holding the ephemeral port is the one that connected. */
static __u8 seed_side(const struct seed_ctx *ctx, const struct tt_diag_sock *s)
{
	bool local_ephemeral = s->lport >= ctx->ephemeral_lo && s->lport <= ctx->ephemeral_hi;
	bool remote_ephemeral = s->rport >= ctx->ephemeral_lo && s->rport <= ctx->ephemeral_hi;

	if (port_set_has(&ctx->listening, s->lport))
		return TT_SIDE_IN;
	return remote_ephemeral && !local_ephemeral ? TT_SIDE_IN : TT_SIDE_OUT;
}

/* One more connection seeded open for tgid on side. */
static void count_open(struct seed_open *open, uint32_t tgid, uint8_t side)
{
	struct seed_open_count *v;

	for (size_t i = 0; i < open->n; i++) {
		if (open->v[i].tgid == tgid && open->v[i].side == side) {
			open->v[i].n++;
			return;
		}
	}
	v = realloc(open->v, (open->n + 1) * sizeof(*v));
	if (!v)
		return;
	open->v = v;
	v[open->n++] = (struct seed_open_count){ .tgid = tgid, .side = side, .n = 1 };
}

/* The kernel addresses of the listeners stored, for the BPF side to read
 * their accept queue at each connection queued (queue_note_depth):
 * neither sock_diag nor /proc/net/tcp gives them (%pK hashes them), so
 * one walk of the namespace's TCP sockets by seed_listener_addresses
 * stores them. It is bound to the namespace it is started in, and the
 * listening sockets come first: reading stops at the first byte, which
 * it writes at the first socket that is no listener. Without it (no
 * bpf_iter), a queue's depth is the one sock_diag shows at each look. */
static void walk_listeners(struct tcptrace_bpf *skel, uint32_t pid, uint32_t inum)
{
	struct bpf_link *link = bpf_program__attach_iter(skel->progs.seed_listener_addresses, NULL);
	int back, fd = -1;
	ssize_t got;
	char byte;

	if (!link)
		return;
	if (netns_enter(pid, inum, &back) == 0) {
		fd = bpf_iter_create(bpf_link__fd(link));
		netns_leave(back);
	}
	if (fd >= 0) {
		/* EAGAIN: a million sockets walked without a byte out. */
		do
			got = read(fd, &byte, 1);
		while (got < 0 && (errno == EAGAIN || errno == EINTR));
		close(fd);
	}
	bpf_link__destroy(link);
}

/* As the BPF side's sharing_note_listening: process tgid listens on key. Returns
 * 0, or -1 when there is no room to say so. */
static int note_listening(int tgids_fd, uint32_t tgid, const struct tt_listener_key *key)
{
	struct tt_listening l = {};

	if (bpf_map_lookup_elem(tgids_fd, &tgid, &l) && errno != ENOENT)
		return -1;
	for (uint32_t i = 0; i < l.n && i < TT_LISTENING_KEYS; i++)
		if (l.keys[i].netns == key->netns && l.keys[i].port == key->port)
			return 0;
	if (l.n >= TT_LISTENING_KEYS)
		return -1;
	l.keys[l.n++] = *key;
	return bpf_map_update_elem(tgids_fd, &tgid, &l, BPF_ANY) ? -1 : 0;
}

/* Listeners and connections; a connection on a listening port is `in`. */
static void store_seeds(struct seed_ctx *ctx)
{
	int listeners_fd = bpf_map__fd(ctx->skel->maps.listeners);
	int tgids_fd = bpf_map__fd(ctx->skel->maps.listening_tgids);
	int socks_fd = bpf_map__fd(ctx->skel->maps.listen_socks);
	int seeds_fd = bpf_map__fd(ctx->skel->maps.seeds);
	/* Where accept() is traced, every connection waits for it. */
	bool at_accept = ctx->skel->bss->accept_hook_attached;

	for (size_t i = 0; i < ctx->n; i++) {
		const struct tt_diag_sock *s = &ctx->socks[i];

		if (s->state == TCP_LISTEN) {
			struct tt_listener_key key = { .netns = ctx->netns, .port = s->lport };
			struct tt_listener owner = {
				.tgid = ctx->owners[i],
				.flags = held_by_several(ctx->inodes, s->inode) ? TT_LISTENER_SHARED : 0,
			};

			/* Its owner's forks are seen from now on; if that
			 * cannot be noted, it is taken as shared already. */
			if (note_listening(tgids_fd, owner.tgid, &key))
				owner.flags |= TT_LISTENER_SHARED;
			if (bpf_map_update_elem(listeners_fd, &key, &owner, BPF_ANY) == 0) {
				struct tt_listen_sock sock = { .cookie = s->cookie };

				/* The entry goes when this socket stops listening. */
				bpf_map_update_elem(socks_fd, &key, &sock, BPF_ANY);
				ctx->listeners++;
			}
		} else if (s->cookie) {
			struct tt_seed seed = {
				.tgid = ctx->owners[i],
				.flags = seed_flags(s->state),
				.side = seed_side(ctx, s),
			};

			if (unaccepted(s)) {
				ssize_t l = listener_on(ctx, s->lport);

				if (l < 0)
					continue; /* not a traced process's listener */
				seed.tgid = ctx->owners[l];
				seed.side = TT_SIDE_IN;
				/* As listener_adopt_child does: the accepting process of a
				 * shared listener is known at its first touch. */
				if (at_accept || held_by_several(ctx->inodes, ctx->socks[l].inode))
					seed.flags |= TT_SK_PROVISIONAL;
			}

			/* Not yet known whose, it is counted open at its first touch. */
			if (seed.flags & TT_SK_PROVISIONAL)
				seed.flags &= ~TT_SK_OPEN;
			/* Pending before it can be adopted or dropped. */
			__atomic_fetch_add(&ctx->skel->bss->seeds_pending, 1, __ATOMIC_SEQ_CST);
			if (bpf_map_update_elem(seeds_fd, &s->cookie, &seed, BPF_NOEXIST)) {
				__atomic_fetch_sub(&ctx->skel->bss->seeds_pending, 1, __ATOMIC_SEQ_CST);
				continue;
			}
			ctx->written[ctx->n_written++] = (struct seed_written){
				.cookie = s->cookie,
				.tgid = seed.tgid,
				.side = seed.side,
				.family = s->family,
				.open = seed.flags & TT_SK_OPEN,
			};
		}
	}
}

struct cookie_set {
	uint64_t *v;
	size_t n, cap;
	bool failed;
};

static void note_cookie(const struct tt_diag_sock *sock, void *opaque)
{
	struct cookie_set *set = opaque;

	if (set->n == set->cap) {
		size_t cap = set->cap ? set->cap * 2 : 256;
		uint64_t *v = realloc(set->v, cap * sizeof(*v));

		if (!v) {
			set->failed = true;
			return;
		}
		set->v = v;
		set->cap = cap;
	}
	set->v[set->n++] = sock->cookie;
}

static int cmp_cookie(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The seeds of sockets that went away between the dump and their write:
 * the BPF side adopts a seed at its socket's next event, its end
 * included, only once the seed is written, so none would ever take them,
 * and their connections would stay open. A second dump, after the writes,
 * tells: a seed whose socket it does not list, and that the BPF side has
 * not adopted meanwhile (the delete fails then), goes. The others are
 * counted: stored, and open where they are. A family whose second dump
 * fails keeps all its seeds. */
static void settle_seeds(int diag_fd, struct seed_ctx *ctx)
{
	int seeds_fd = bpf_map__fd(ctx->skel->maps.seeds);
	struct cookie_set alive[2] = {};
	const int families[2] = { AF_INET, AF_INET6 };

	for (int f = 0; f < 2; f++) {
		if (sockdiag_dump(diag_fd, families[f], SEED_STATES, note_cookie, &alive[f]))
			alive[f].failed = true;
		if (alive[f].n > 1)
			qsort(alive[f].v, alive[f].n, sizeof(*alive[f].v), cmp_cookie);
	}
	for (size_t i = 0; i < ctx->n_written; i++) {
		const struct seed_written *w = &ctx->written[i];
		const struct cookie_set *set = &alive[w->family == AF_INET6];

		if (!set->failed && !bsearch(&w->cookie, set->v, set->n, sizeof(*set->v), cmp_cookie) &&
		    !bpf_map_delete_elem(seeds_fd, &w->cookie)) {
			__atomic_fetch_sub(&ctx->skel->bss->seeds_pending, 1, __ATOMIC_SEQ_CST);
			continue;
		}
		ctx->connections++;
		if (w->open)
			count_open(ctx->open, w->tgid, w->side);
	}
	free(alive[0].v);
	free(alive[1].v);
}

/* For the tests: a socket that goes away between the dump and its seed's
 * write. With TCPTRACE_TEST_SEED_GATE=PATH, PATH.dumped says the dump is
 * done, and the seeds wait for PATH to exist (10 s at most). */
static void seed_test_gate(void)
{
	const char *gate = tt_test_hooks()->seed_gate;
	char dumped[4096];
	int fd;

	if (!gate)
		return;
	snprintf(dumped, sizeof(dumped), "%s.dumped", gate);
	fd = open(dumped, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd >= 0)
		close(fd);
	for (int i = 0; i < 1000 && access(gate, F_OK); i++)
		usleep(10000);
}

static bool is_hidden(uint32_t pid, const uint32_t *hidden, size_t n_hidden)
{
	for (size_t i = 0; i < n_hidden; i++)
		if (hidden[i] == pid)
			return true;
	return false;
}

static void list_all_pids(uint32_t **pids, size_t *n, const uint32_t *hidden, size_t n_hidden)
{
	DIR *dir = opendir("/proc");
	struct dirent *de;
	size_t cap = 0;

	*pids = NULL;
	*n = 0;
	if (!dir)
		return;
	while ((de = readdir(dir))) {
		char *end;
		unsigned long pid = strtoul(de->d_name, &end, 10);

		if (*end || pid == 0 || pid > UINT32_MAX || is_hidden((uint32_t)pid, hidden, n_hidden))
			continue;
		if (*n == cap) {
			uint32_t *v = realloc(*pids, (cap = cap ? cap * 2 : 1024) * sizeof(*v));
			if (!v)
				break;
			*pids = v;
		}
		(*pids)[(*n)++] = (uint32_t)pid;
	}
	closedir(dir);
}

/* Whether the namespace inum was dumped already; noted as dumped if not. */
static bool ns_dumped(uint32_t *dumped, size_t *n, uint32_t inum)
{
	for (size_t i = 0; i < *n; i++)
		if (dumped[i] == inum)
			return true;
	if (*n < TT_MAX_NETNS)
		dumped[(*n)++] = inum;
	return false;
}

uint64_t seed_sockets(struct tcptrace_bpf *skel, struct namespaces *nss, const uint32_t *pids,
		      size_t n_pids, bool all, const uint32_t *hidden, size_t n_hidden,
		      struct seed_open *open)
{
	struct inode_table inodes = {};
	uint32_t *all_pids = NULL;
	uint64_t listeners = 0, connections = 0;
	uint32_t dumped[TT_MAX_NETNS];
	size_t n_dumped = 0;

	if (all) {
		list_all_pids(&all_pids, &n_pids, hidden, n_hidden);
		pids = all_pids;
	}
	for (size_t i = 0; i < n_pids; i++)
		collect_socket_inodes(pids[i], &inodes);
	if (inodes.n > 1)
		qsort(inodes.v, inodes.n, sizeof(*inodes.v), cmp_inode);

	/* One dump per network namespace the processes live in. Dumped is
	 * not the same as open: --netns opens its namespace before this. */
	for (size_t i = 0; i < n_pids && inodes.n; i++) {
		struct tt_netns *ns = namespaces_of_pid(nss, pids[i]);
		struct seed_ctx ctx = { .skel = skel, .inodes = &inodes, .open = open };
		struct tt_port_policy policy;

		if (!ns || ns_dumped(dumped, &n_dumped, ns->inum))
			continue; /* gone, or already dumped */
		ctx.netns = ns->inum;
		namespaces_port_policy(ns, &policy);
		ctx.ephemeral_lo = policy.lo;
		ctx.ephemeral_hi = policy.hi;
		sockdiag_dump(ns->diag_fd, AF_INET, SEED_STATES, keep_owned, &ctx);
		sockdiag_dump(ns->diag_fd, AF_INET6, SEED_STATES, keep_owned, &ctx);
		seed_test_gate();
		ctx.written = calloc(ctx.n ? ctx.n : 1, sizeof(*ctx.written));
		if (ctx.written) {
			store_seeds(&ctx);
			settle_seeds(ns->diag_fd, &ctx);
		}
		if (ctx.listeners)
			walk_listeners(skel, pids[i], ns->inum);
		listeners += ctx.listeners;
		connections += ctx.connections;
		free(ctx.written);
		free(ctx.socks);
		free(ctx.owners);
		free(ctx.listening.v);
	}
	free(inodes.v);
	free(all_pids);
	__atomic_store_n(&skel->data->seeds_unwritten, 0, __ATOMIC_SEQ_CST);
	return listeners + connections;
}
