// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* tt-scenario's server: the listener, each connection served by its mode,
 * the workers of --workers (forked after listen()), and its summary line. */

#include "scenario.h"

static int open_listener(const struct config *cfg)
{
	struct timeval accept_timeout = { .tv_sec = ACCEPT_TIMEOUT_S };
	int one = 1;
	int fd;

	fd = socket(cfg->addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		note_error("socket: %s", strerror(errno));
		return -1;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &accept_timeout, sizeof(accept_timeout))) {
		note_error("setsockopt on listener: %s", strerror(errno));
		goto fail;
	}
	if (bind(fd, (const struct sockaddr *)&cfg->addr, cfg->addr_len)) {
		note_error("bind: %s", strerror(errno));
		goto fail;
	}
	if (cfg->fastopen) {
		int qlen = FASTOPEN_QUEUE;

		if (setsockopt(fd, IPPROTO_TCP, TCP_FASTOPEN, &qlen, sizeof(qlen))) {
			note_error("TCP_FASTOPEN on listener: %s", strerror(errno));
			goto fail;
		}
	}
	if (cfg->defer_s) {
		int defer = (int)cfg->defer_s;

		if (setsockopt(fd, IPPROTO_TCP, TCP_DEFER_ACCEPT, &defer, sizeof(defer))) {
			note_error("TCP_DEFER_ACCEPT on listener: %s", strerror(errno));
			goto fail;
		}
	}
	if (listen(fd, (int)cfg->backlog)) {
		note_error("listen: %s", strerror(errno));
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return -1;
}

/* Waits for data on FD without reading it. 0, or -1 noted. */
static int wait_readable(int fd, long i)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int r;

	do
		r = poll(&pfd, 1, IO_TIMEOUT_MS);
	while (r < 0 && errno == EINTR);
	if (r < 0) {
		note_error("server connection %ld: poll: %s", i, strerror(errno));
		return -1;
	}
	if (r == 0) {
		note_error("server connection %ld: no request within %d s", i,
			   IO_TIMEOUT_MS / 1000);
		return -1;
	}
	return 0;
}

/* Whether FD is still in SYN_RECV: a Fast Open child whose handshake's
 * last ACK has not come yet. */
static bool in_syn_recv(int fd)
{
	struct tcp_info info;
	socklen_t len = sizeof(info);

	return !getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) && info.tcpi_state == TCP_SYN_RECV;
}

/* keepalive: answers each ping with a pong until the client closes; with
 * --bytes, each carries that many bytes after it. */
static void serve_keepalive(int fd, long i, long bytes, struct server_counts *sc)
{
	for (long r = 0;; r++) {
		long preopened = 0;
		int err = recv_request(fd, &preopened);

		if (!err && bytes)
			err = recv_payload(fd, bytes);
		if (err == -ENODATA && r > 0) {
			/* The client's FIN came once it had read every byte
			 * sent: none goes out after this. */
			note_sent_counts(fd, &sc->segs_out, &sc->retrans);
			sc->eof++;
			return;
		}
		if (err) {
			if (err == -ECONNRESET)
				sc->rst_seen++;
			note_error("server connection %ld: read request %ld: %s", i, r,
				   msg_error_text(err));
			sc->errors++;
			return;
		}
		if (r == 0)
			sc->queued += preopened;
		err = send_msg(fd, "pong");
		if (!err && bytes)
			err = send_payload(fd, bytes);
		if (err) {
			note_error("server connection %ld: send pong: %s", i, errno_text(-err));
			sc->errors++;
			return;
		}
		sc->requests++;
	}
}

/* One accepted connection of a sequential mode, closed on return. */
static void serve_one(const struct config *cfg, int fd, long i, struct server_counts *sc)
{
	enum end_kind end;
	int err;

	if (cfg->mode == MODE_UNREAD_SERVER) {
		/* The unread ping makes close() send RST (TCP_ABORT_ON_CLOSE). */
		if (wait_readable(fd, i))
			sc->errors++;
		goto out;
	}
	if (cfg->mode == MODE_KEEPALIVE) {
		serve_keepalive(fd, i, cfg->bytes, sc);
		goto out;
	}

	err = recv_request(fd, &sc->queued);
	if (err == -ECONNRESET)
		sc->rst_seen++;
	if (err) {
		note_error("server connection %ld: read ping: %s", i, msg_error_text(err));
		sc->errors++;
		goto out;
	}
	err = send_msg(fd, "pong");
	if (err) {
		note_error("server connection %ld: send pong: %s", i, errno_text(-err));
		sc->errors++;
		goto out;
	}

	switch (cfg->mode) {
	case MODE_LINGER0_SERVER:
		err = wait_acked(fd);
		if (err) {
			note_error("server connection %ld: pong not acknowledged: %s", i,
				   errno_text(-err));
			sc->errors++;
		}
		if (set_linger0(fd)) {
			note_error("server connection %ld: SO_LINGER: %s", i, strerror(errno));
			sc->errors++;
		}
		break;
	case MODE_HALFCLOSE_LINGER0_SERVER:
		/* FIN first, then the abort: close() goes through tcp_disconnect
		 * from FIN_WAIT2, which sends the RST (TCP_STATE). */
		if (shutdown(fd, SHUT_WR) || wait_fin_wait2(fd) || set_linger0(fd)) {
			note_error("server connection %ld: FIN, then SO_LINGER 0: %s", i,
				   errno_text(errno));
			sc->errors++;
		}
		break;
	case MODE_LINGER2_SERVER:
		/* TCP_LINGER2 -1: the client's ACK of our FIN aborts the orphan
		 * (TcpExtTCPAbortOnData); the kernel destroys it, then sends
		 * the RST. */
		err = wait_acked(fd);
		if (err) {
			note_error("server connection %ld: pong not acknowledged: %s", i,
				   errno_text(-err));
			sc->errors++;
		}
		if (set_linger2_abort(fd)) {
			note_error("server connection %ld: TCP_LINGER2: %s", i, strerror(errno));
			sc->errors++;
		}
		break;
	case MODE_HALFCLOSE_SERVER:
		/* FIN first, and the socket kept until the client's FIN: its
		 * move to timewait then sends nothing more, even where the
		 * kernel makes no timewait socket (tcp_max_tw_buckets). */
		if (shutdown(fd, SHUT_WR)) {
			note_error("server connection %ld: shutdown: %s", i, strerror(errno));
			sc->errors++;
			break;
		}
		/* fall through */
	case MODE_FIN_CLIENT:
	case MODE_LINGER0_CLIENT:
		end = read_until_end(fd, "server", i);
		if (end == END_EOF)
			sc->eof++;
		else if (end == END_RST)
			sc->rst_seen++;
		else
			sc->errors++;
		break;
	default:
		break;
	}
out:
	if (in_syn_recv(fd))
		sc->closed_in_syn_recv++;
	close(fd);
}

/* hold: waits for the client to close every connection, then closes ours.
 * The limit outlasts the client's own wait for SIGUSR1. */
static void hold_wait_eofs(int *fds, long n, struct server_counts *sc)
{
	struct pollfd *pfds;
	struct timespec now, deadline;
	long left = n, i;
	int r, ms;

	pfds = calloc((size_t)n, sizeof(*pfds));
	if (!pfds) {
		note_error("out of memory");
		sc->errors += n;
		return;
	}
	for (i = 0; i < n; i++) {
		pfds[i].fd = fds[i];
		pfds[i].events = POLLIN;
	}
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += HOLD_LIMIT_S + IO_TIMEOUT_MS / 1000;

	while (left > 0) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		ms = (int)((deadline.tv_sec - now.tv_sec) * 1000 +
			   (deadline.tv_nsec - now.tv_nsec) / 1000000);
		if (ms <= 0) {
			note_error("server: %ld of %ld connections still open after %d s",
				   left, n, HOLD_LIMIT_S + IO_TIMEOUT_MS / 1000);
			sc->errors += left;
			break;
		}
		r = poll(pfds, (nfds_t)n, ms);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			note_error("server: poll: %s", strerror(errno));
			sc->errors += left;
			break;
		}
		for (i = 0; i < n; i++) {
			enum end_kind end;

			if (pfds[i].fd < 0 || !pfds[i].revents)
				continue;
			end = read_until_end(pfds[i].fd, "server", i);
			if (end == END_EOF)
				sc->eof++;
			else if (end == END_RST)
				sc->rst_seen++;
			else
				sc->errors++;
			close(pfds[i].fd);
			fds[i] = pfds[i].fd = -1;
			left--;
		}
	}
	free(pfds);
}

static bool server_as_expected(const struct config *cfg, const struct server_counts *sc)
{
	long n = cfg->count;

	if ((cfg->mode != MODE_NOACCEPT && sc->accepted != n) || sc->errors)
		return false;
	switch (cfg->mode) {
	case MODE_FIN_CLIENT:
	case MODE_HOLD:
	case MODE_HALFCLOSE_SERVER:
	case MODE_KEEPALIVE:
		return sc->eof == n && sc->rst_seen == 0;
	case MODE_LINGER0_CLIENT:
		return sc->rst_seen == n && sc->eof == 0;
	case MODE_NOACCEPT:
		return true;
	default:
		return sc->eof == 0 && sc->rst_seen == 0;
	}
}

/* Waits until n connections wait in lfd's accept queue (a listener's
 * tcpi_unacked is its accept queue's length). 0, or -1 noted. */
static int wait_queued(int lfd, long n)
{
	struct timespec step = { .tv_nsec = 1000000 };
	struct tcp_info info;
	socklen_t len;

	for (int waited = 0; waited < IO_TIMEOUT_MS; waited++) {
		len = sizeof(info);
		if (getsockopt(lfd, IPPROTO_TCP, TCP_INFO, &info, &len)) {
			note_error("server: TCP_INFO on listener: %s", strerror(errno));
			return -1;
		}
		if (info.tcpi_unacked >= n)
			return 0;
		nanosleep(&step, NULL);
	}
	note_error("server: %ld connections not queued within %d s", n, IO_TIMEOUT_MS / 1000);
	return -1;
}

/* What the workers share: the connections claimed so far (a worker claims
 * one, then accepts it), and each worker's counts. */
struct workers_state {
	long claimed;
	struct server_counts counts[MAX_WORKERS];
};

static void worker_loop(const struct config *cfg, int lfd, struct workers_state *ws,
			struct server_counts *sc)
{
	long i;
	int fd;

	while ((i = __atomic_fetch_add(&ws->claimed, 1, __ATOMIC_SEQ_CST)) < cfg->count) {
		do
			fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		while (fd < 0 && errno == EINTR);
		if (fd < 0) {
			note_error("worker: accept %ld of %ld: %s", i + 1, cfg->count, errno_text(errno));
			sc->errors++;
			return;
		}
		sc->accepted++;
		if (set_timeouts(fd)) {
			note_error("server connection %ld: setsockopt: %s", i, strerror(errno));
			sc->errors++;
		}
		serve_one(cfg, fd, i, sc);
	}
}

static void print_counts(const char *role, const struct config *cfg, const struct server_counts *sc)
{
	printf("role=%s mode=%s accepted=%ld rst_seen=%ld eof=%ld errors=%ld closed_in_syn_recv=%ld "
	       "queued=%ld requests=%ld segs_out=%ld retrans=%ld pid=%d\n",
	       role, mode_names[cfg->mode], sc->accepted, sc->rst_seen, sc->eof, sc->errors,
	       sc->closed_in_syn_recv, sc->queued, sc->requests, sc->segs_out, sc->retrans,
	       (int)getpid());
	fflush(stdout);
}

/* --workers: the listener's holder forks the workers (after --queued
 * connections wait, if asked) and accepts nothing itself; their counts
 * add up to sc. */
static void run_workers(const struct config *cfg, int lfd, struct server_counts *sc)
{
	struct workers_state *ws;
	pid_t pids[MAX_WORKERS];
	long w, started = 0;

	ws = mmap(NULL, sizeof(*ws), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (ws == MAP_FAILED) {
		note_error("mmap: %s", strerror(errno));
		sc->errors++;
		return;
	}
	if (cfg->queued && wait_queued(lfd, cfg->queued)) {
		sc->errors++;
		goto out;
	}
	fflush(stdout);
	for (w = 0; w < cfg->workers; w++) {
		pids[w] = fork();
		if (pids[w] < 0) {
			note_error("fork: %s", strerror(errno));
			sc->errors++;
			break;
		}
		if (pids[w] == 0) {
			struct server_counts *mine = &ws->counts[w];

			worker_loop(cfg, lfd, ws, mine);
			print_counts("worker", cfg, mine);
			if (first_error[0])
				fprintf(stderr, "tt-scenario: worker %d: %s\n", (int)getpid(), first_error);
			_exit(mine->errors ? 1 : 0);
		}
		started++;
	}
	for (w = 0; w < started; w++) {
		int status;
		const struct server_counts *c = &ws->counts[w];

		while (waitpid(pids[w], &status, 0) < 0 && errno == EINTR)
			;
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			note_error("worker %d failed", (int)pids[w]);
			sc->errors++;
		}
		sc->accepted += c->accepted;
		sc->rst_seen += c->rst_seen;
		sc->eof += c->eof;
		sc->errors += c->errors;
		sc->closed_in_syn_recv += c->closed_in_syn_recv;
		sc->queued += c->queued;
		sc->requests += c->requests;
		sc->segs_out += c->segs_out;
		sc->retrans += c->retrans;
	}
out:
	munmap(ws, sizeof(*ws));
}

int run_server(const struct config *cfg)
{
	struct server_counts sc = { 0 };
	int *held = NULL;
	char pid[32];
	long i;
	int lfd, fd;

	if (cfg->mode == MODE_HOLD) {
		held = calloc((size_t)cfg->count, sizeof(*held));
		if (!held) {
			note_error("out of memory");
			sc.errors++;
			goto summary;
		}
	}

	lfd = open_listener(cfg);
	if (lfd < 0) {
		sc.errors++;
		goto summary;
	}
	if (cfg->ready_path) {
		snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
		if (write_file_atomic(cfg->ready_path, pid)) {
			sc.errors++;
			close(lfd);
			goto summary;
		}
	}

	if (cfg->mode == MODE_NOACCEPT) {
		wait_for_release();
		close(lfd);
		goto summary;
	}
	if (cfg->workers) {
		run_workers(cfg, lfd, &sc);
		close(lfd);
		goto summary;
	}
	if (cfg->accept_delay_ms && cfg->queued && wait_queued(lfd, cfg->queued))
		sc.errors++;
	for (i = 0; i < cfg->count; i++) {
		if (cfg->accept_delay_ms) {
			struct timespec delay = { .tv_sec = cfg->accept_delay_ms / 1000,
						  .tv_nsec = cfg->accept_delay_ms % 1000 * 1000000 };

			/* A slow server: its accept queue fills meanwhile. */
			while (nanosleep(&delay, &delay) && errno == EINTR)
				;
		}
		do
			fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		while (fd < 0 && errno == EINTR);
		if (fd < 0) {
			/* The client is gone or stuck; more accepts would only wait. */
			note_error("server: accept %ld of %ld: %s", i + 1, cfg->count,
				   errno_text(errno));
			sc.errors++;
			break;
		}
		sc.accepted++;
		if (set_timeouts(fd)) {
			note_error("server connection %ld: setsockopt: %s", i, strerror(errno));
			sc.errors++;
		}
		if (cfg->mode == MODE_HOLD)
			held[i] = fd;
		else
			serve_one(cfg, fd, i, &sc);
	}
	/* --keep-listening: the listener lives while the connections are
	 * held, so that its queue can be read then. */
	if (!cfg->keep_listening)
		close(lfd);

	if (cfg->mode == MODE_HOLD)
		hold_wait_eofs(held, sc.accepted, &sc);
	if (cfg->keep_listening)
		close(lfd);

summary:
	free(held);
	print_counts("server", cfg, &sc);
	if (server_as_expected(cfg, &sc))
		return 0;
	fprintf(stderr, "tt-scenario: server %s: not as expected for count=%ld%s%s\n",
		mode_names[cfg->mode], cfg->count, first_error[0] ? "; first problem: " : "",
		first_error);
	return 1;
}
