// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* tt-scenario's client: connections made and ended by its mode (one at a
 * time, kept open, a burst, timed connects), and its summary line. */

#include "scenario.h"

/* Opens a connection to the server, counting the outcome. Returns the fd,
 * or -1 with the failure counted. */
static int connect_one(const struct config *cfg, long i, struct client_counts *cc)
{
	int fd, err;

	fd = socket(cfg->addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		note_error("client connection %ld: socket: %s", i, strerror(errno));
		cc->other_errors++;
		return -1;
	}
	if (set_timeouts(fd)) {
		note_error("client connection %ld: setsockopt: %s", i, strerror(errno));
		cc->other_errors++;
		close(fd);
		return -1;
	}
	/* With a cookie, connect() sends nothing: the first send carries
	 * the SYN and the data. Without one, the SYN asks for a cookie. */
	if (cfg->fastopen &&
	    setsockopt(fd, IPPROTO_TCP, TCP_FASTOPEN_CONNECT, &(int){ 1 }, sizeof(int))) {
		note_error("client connection %ld: TCP_FASTOPEN_CONNECT: %s", i, strerror(errno));
		cc->other_errors++;
		close(fd);
		return -1;
	}
	if (connect(fd, (const struct sockaddr *)&cfg->addr, cfg->addr_len) == 0) {
		cc->connected++;
		return fd;
	}
	err = errno;
	close(fd);
	if (err == EADDRNOTAVAIL) {
		cc->eaddrnotavail++;
		if (cfg->mode != MODE_EXHAUST)
			note_error("client connection %ld: connect: %s", i, strerror(err));
	} else if (err == ECONNREFUSED) {
		cc->refused++;
		if (cfg->mode != MODE_REFUSED)
			note_error("client connection %ld: connect: %s", i, strerror(err));
	} else {
		/* EINPROGRESS here means SO_SNDTIMEO expired. */
		note_error("client connection %ld: connect: %s", i,
			   err == EINPROGRESS ? "timed out" : strerror(err));
		cc->other_errors++;
	}
	return -1;
}

/* One connection of a sequential mode, from connect (unless fd is one
 * opened before: --preopen) to close. */
static void client_one(const struct config *cfg, long i, struct client_counts *cc, int fd)
{
	bool preopened = fd >= 0;
	enum end_kind end;
	int err;

	if (!preopened)
		fd = connect_one(cfg, i, cc);
	if (fd < 0)
		return;

	err = send_msg(fd, preopened ? "prep" : "ping");
	if (!err && cfg->bytes)
		err = send_payload(fd, cfg->bytes);
	/* A Fast Open send() carries its data in the SYN and waits for the
	 * handshake: an unread-server may take the data, close and reset the
	 * connection before this send() returns, which then reports the reset
	 * although the ping went out. It is the reset this mode expects. */
	if (err == -ECONNRESET && cfg->fastopen && cfg->mode == MODE_UNREAD_SERVER) {
		cc->rst_seen++;
		goto out;
	}
	if (err) {
		note_error("client connection %ld: send ping: %s", i, errno_text(-err));
		cc->other_errors++;
		goto out;
	}
	if (cfg->mode != MODE_UNREAD_SERVER) {
		err = recv_msg(fd, "pong");
		if (!err && cfg->bytes)
			err = recv_payload(fd, cfg->bytes);
		if (err == -ECONNRESET) {
			/* A reset is a reset, but one this early is not the mode's. */
			note_error("client connection %ld: reset before pong", i);
			cc->rst_seen++;
			cc->other_errors++;
			goto out;
		}
		if (err) {
			note_error("client connection %ld: read pong: %s", i, msg_error_text(err));
			cc->other_errors++;
			goto out;
		}
	}

	for (long r = 1; cfg->mode == MODE_KEEPALIVE && r < cfg->requests; r++) {
		err = send_msg(fd, "ping");
		err = err || !cfg->bytes ? err : send_payload(fd, cfg->bytes);
		err = err ? err : recv_msg(fd, "pong");
		err = err || !cfg->bytes ? err : recv_payload(fd, cfg->bytes);
		if (err) {
			note_error("client connection %ld: request %ld: %s", i, r, msg_error_text(err));
			cc->other_errors++;
			goto out;
		}
	}
	if (cfg->mode == MODE_KEEPALIVE)
		cc->requests += cfg->requests;

	switch (cfg->mode) {
	case MODE_FIN_CLIENT:
		break;
	case MODE_KEEPALIVE:
		/* Every byte it sent was read before the last pong came: no
		 * segment of it goes out after this. */
		note_sent_counts(fd, &cc->segs_out, &cc->retrans);
		break;
	case MODE_HALFCLOSE_LINGER0_SERVER:
	case MODE_LINGER2_SERVER:
		end = read_until_end(fd, "client", i);
		if (end != END_EOF) {
			if (end == END_RST)
				note_error("client connection %ld: reset before the FIN", i);
			cc->other_errors++;
		} else if (wait_reset_after_eof(fd)) {
			note_error("client connection %ld: no reset after the FIN", i);
			cc->other_errors++;
		} else {
			cc->rst_seen++;
		}
		break;
	case MODE_LINGER0_CLIENT:
		if (set_linger0(fd)) {
			note_error("client connection %ld: SO_LINGER: %s", i, strerror(errno));
			cc->other_errors++;
		}
		break;
	default:
		/* fin-server, linger0-server, unread-server: the server ends it. */
		end = read_until_end(fd, "client", i);
		if (end == END_RST)
			cc->rst_seen++;
		else if (end == END_ERROR)
			cc->other_errors++;
		else if (cfg->mode != MODE_FIN_SERVER && cfg->mode != MODE_HALFCLOSE_SERVER)
			note_error("client connection %ld: EOF where a reset was expected", i);
		break;
	}
out:
	close(fd);
}

/* exhaust and hold: open COUNT connections, keep them all, then close them
 * all (the client closes first, so its side gets the TIME_WAIT). */
static void client_keep_open(const struct config *cfg, struct client_counts *cc)
{
	int *fds;
	long i, n = 0;

	fds = calloc((size_t)cfg->count, sizeof(*fds));
	if (!fds) {
		note_error("out of memory");
		cc->other_errors++;
		return;
	}
	for (i = 0; i < cfg->count; i++) {
		int fd = connect_one(cfg, i, cc);

		if (fd >= 0)
			fds[n++] = fd;
	}

	/* A hold that failed to connect everything ends at once, without the
	 * hold file: the test must not go on as if the connections existed. */
	if (cfg->mode == MODE_HOLD && n == cfg->count) {
		if (cfg->hold_path && write_file_atomic(cfg->hold_path, "ready\n"))
			cc->other_errors++;
		else
			wait_for_release();
	}

	for (i = 0; i < n; i++)
		close(fds[i]);
	free(fds);
}

/* burst: COUNT connects at once, to a listener whose queue is full or
 * soon will be; each is given --wait seconds in all, then every one is
 * closed. */
static void client_burst(const struct config *cfg, struct client_counts *cc)
{
	struct pollfd *fds = calloc((size_t)cfg->count, sizeof(*fds));
	long i, pending = 0;
	int left_ms = (int)cfg->wait_s * 1000;

	if (!fds) {
		note_error("out of memory");
		cc->other_errors++;
		return;
	}
	for (i = 0; i < cfg->count; i++) {
		int fd = socket(cfg->addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

		fds[i].fd = -1;
		if (fd < 0) {
			note_error("burst connection %ld: socket: %s", i, strerror(errno));
			cc->other_errors++;
			continue;
		}
		if (connect(fd, (const struct sockaddr *)&cfg->addr, cfg->addr_len) &&
		    errno != EINPROGRESS) {
			note_error("burst connection %ld: connect: %s", i, strerror(errno));
			cc->other_errors++;
			close(fd);
			continue;
		}
		fds[i] = (struct pollfd){ .fd = fd, .events = POLLOUT };
		pending++;
	}
	while (pending && left_ms > 0) {
		struct timespec t0, t1;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (poll(fds, (nfds_t)cfg->count, left_ms) < 0 && errno != EINTR)
			break;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		left_ms -= (int)((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000);
		for (i = 0; i < cfg->count; i++) {
			int err = 0;
			socklen_t len = sizeof(err);

			if (fds[i].fd < 0 || !fds[i].revents || !(fds[i].events & POLLOUT))
				continue;
			getsockopt(fds[i].fd, SOL_SOCKET, SO_ERROR, &err, &len);
			if (!err)
				cc->connected++;
			else if (err == ECONNREFUSED)
				cc->refused++;
			else
				cc->timed_out++;
			fds[i].events = 0;
			pending--;
		}
	}
	cc->timed_out += pending;
	/* --hold: every connect of the burst done, the connections kept open
	 * until released; a burst that did not connect them all ends at once. */
	if (cfg->hold_path && cc->connected == cfg->count) {
		if (write_file_atomic(cfg->hold_path, "ready\n"))
			cc->other_errors++;
		else
			wait_for_release();
	}
	for (i = 0; i < cfg->count; i++)
		if (fds[i].fd >= 0)
			close(fds[i].fd);
	free(fds);
}

static double seconds_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* --bind-port: the socket bound to that port of its family's wildcard
 * address. 0, or the errno of bind(). */
static int bind_first(const struct config *cfg, int fd)
{
	struct sockaddr_storage local = { .ss_family = cfg->addr.ss_family };

	if (local.ss_family == AF_INET)
		((struct sockaddr_in *)&local)->sin_port = htons((unsigned short)cfg->bind_port);
	else
		((struct sockaddr_in6 *)&local)->sin6_port = htons((unsigned short)cfg->bind_port);
	return bind(fd, (const struct sockaddr *)&local, cfg->addr_len) ? errno : 0;
}

/* connect()'s own error, counted by its errno: non-blocking, one that came
 * before any SYN. False for another errno. */
static bool count_at_once(int err, struct client_counts *cc)
{
	long *n = err == ENETUNREACH  ? &cc->enetunreach :
		  err == EHOSTUNREACH ? &cc->ehostunreach :
		  err == EACCES	      ? &cc->eacces :
		  err == EINVAL	      ? &cc->einval :
		  err == EPERM	      ? &cc->eperm :
					NULL;

	if (n)
		(*n)++;
	return n != NULL;
}

/* A non-blocking connect() under way, given --give-up ms: its result, as
 * SO_ERROR gives it or (--ask-again) connect() asked again; -1 when this
 * client gave up first. */
static int connect_result(const struct config *cfg, int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	socklen_t len = sizeof(int);
	int err = 0, r;

	do
		r = poll(&p, 1, (int)cfg->give_up_ms);
	while (r < 0 && errno == EINTR);
	if (r == 0)
		return -1;
	if (!cfg->ask_again) {
		getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
		return err;
	}
	if (!connect(fd, (const struct sockaddr *)&cfg->addr, cfg->addr_len) || errno == EISCONN)
		return 0;
	return errno;
}

/* connects: each connect() by itself, non-blocking (unless --blocking),
 * given --give-up ms; counted by the error it ended with, as connect()
 * would return it, or as abandoned when this client gave up first. A
 * connected one is closed at once. */
static void client_connects(const struct config *cfg, struct client_counts *cc)
{
	for (long i = 0; i < cfg->count; i++) {
		int fd = socket(cfg->addr.ss_family,
				SOCK_STREAM | SOCK_CLOEXEC | (cfg->blocking ? 0 : SOCK_NONBLOCK), 0);
		struct tcp_info info = { 0 };
		socklen_t len;
		struct timespec t0;
		int err = 0;

		if (fd < 0) {
			note_error("connect %ld: socket: %s", i, strerror(errno));
			cc->other_errors++;
			continue;
		}
		if (cfg->bind_port >= 0 && (err = bind_first(cfg, fd))) {
			if (err == EADDRINUSE)
				cc->eaddrinuse++;
			else {
				note_error("connect %ld: bind: %s", i, strerror(err));
				cc->other_errors++;
			}
			close(fd);
			continue;
		}
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (connect(fd, (const struct sockaddr *)&cfg->addr, cfg->addr_len) && errno != EINPROGRESS) {
			err = errno;
			if (count_at_once(err, cc)) {
				close(fd);
				continue;
			}
		} else if (!cfg->blocking) {
			err = connect_result(cfg, fd);
			if (err < 0) {
				cc->abandoned++;
				close(fd);
				continue;
			}
		}
		if (!err) {
			cc->connected++;
			if (seconds_since(&t0) > 1.0)
				cc->slow++;
			len = sizeof(info);
			if (!getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) && info.tcpi_total_retrans)
				cc->syn_again++;
		} else if (err == ECONNREFUSED) {
			cc->refused++;
		} else if (err == ETIMEDOUT) {
			cc->etimedout++;
		} else if (err == EHOSTUNREACH || err == ENETUNREACH) {
			cc->unreachable++;
		} else if (err == EADDRNOTAVAIL) {
			cc->eaddrnotavail++;
		} else {
			note_error("connect %ld: %s", i, strerror(err));
			cc->other_errors++;
		}
		close(fd);
	}
}

static bool client_as_expected(const struct config *cfg, const struct client_counts *cc)
{
	long n = cfg->count;

	if (cc->other_errors)
		return false;
	switch (cfg->mode) {
	case MODE_EXHAUST:
		return cc->connected + cc->eaddrnotavail == n && cc->refused == 0 &&
		       cc->rst_seen == 0;
	case MODE_REFUSED:
		return cc->refused == n && cc->connected == 0 && cc->eaddrnotavail == 0;
	case MODE_BURST:
		return cc->connected + cc->refused + cc->timed_out == n;
	case MODE_CONNECTS:
		return cc->connected + cc->refused + cc->etimedout + cc->unreachable + cc->abandoned +
			       cc->eaddrnotavail + cc->enetunreach + cc->ehostunreach + cc->eacces +
			       cc->einval + cc->eperm + cc->eaddrinuse ==
		       n;
	case MODE_LINGER0_SERVER:
	case MODE_UNREAD_SERVER:
	case MODE_HALFCLOSE_LINGER0_SERVER:
	case MODE_LINGER2_SERVER:
		return cc->connected == n && cc->rst_seen == n && !cc->refused &&
		       !cc->eaddrnotavail;
	case MODE_KEEPALIVE:
		return cc->connected == n && cc->requests == n * cfg->requests && cc->rst_seen == 0 &&
		       !cc->refused && !cc->eaddrnotavail;
	default:
		return cc->connected == n && cc->rst_seen == 0 && !cc->refused &&
		       !cc->eaddrnotavail;
	}
}

int run_client(const struct config *cfg)
{
	struct client_counts cc = { 0 };
	long i;

	switch (cfg->mode) {
	case MODE_EXHAUST:
	case MODE_HOLD:
		client_keep_open(cfg, &cc);
		break;
	case MODE_BURST:
		client_burst(cfg, &cc);
		break;
	case MODE_CONNECTS:
		client_connects(cfg, &cc);
		break;
	case MODE_REFUSED:
		for (i = 0; i < cfg->count; i++) {
			int fd = connect_one(cfg, i, &cc);

			if (fd >= 0) {
				note_error("client connection %ld: connected where a refusal was expected",
					   i);
				close(fd);
			}
		}
		break;
	default: {
		/* --preopen: the first connections are all made before any is
		 * used. One that fails is counted, and not tried again. */
		int *pre = calloc((size_t)(cfg->preopen ? cfg->preopen : 1), sizeof(*pre));

		if (!pre) {
			note_error("out of memory");
			cc.other_errors++;
			break;
		}
		for (i = 0; i < cfg->preopen; i++)
			pre[i] = connect_one(cfg, i, &cc);
		for (i = 0; i < cfg->count; i++)
			if (i >= cfg->preopen || pre[i] >= 0)
				client_one(cfg, i, &cc, i < cfg->preopen ? pre[i] : -1);
		free(pre);
		break;
	}
	}

	printf("role=client mode=%s connected=%ld eaddrnotavail=%ld refused=%ld rst_seen=%ld other_errors=%ld "
	       "timed_out=%ld requests=%ld etimedout=%ld unreachable=%ld abandoned=%ld slow=%ld "
	       "syn_again=%ld segs_out=%ld retrans=%ld enetunreach=%ld ehostunreach=%ld "
	       "eacces=%ld einval=%ld eperm=%ld eaddrinuse=%ld pid=%d\n",
	       mode_names[cfg->mode], cc.connected, cc.eaddrnotavail, cc.refused, cc.rst_seen,
	       cc.other_errors, cc.timed_out, cc.requests, cc.etimedout, cc.unreachable,
	       cc.abandoned, cc.slow, cc.syn_again, cc.segs_out, cc.retrans, cc.enetunreach,
	       cc.ehostunreach, cc.eacces, cc.einval, cc.eperm, cc.eaddrinuse, (int)getpid());
	fflush(stdout);
	if (client_as_expected(cfg, &cc))
		return 0;
	fprintf(stderr, "tt-scenario: client %s: not as expected for count=%ld%s%s\n",
		mode_names[cfg->mode], cfg->count, first_error[0] ? "; first problem: " : "",
		first_error);
	return 1;
}
