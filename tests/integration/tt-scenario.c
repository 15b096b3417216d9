// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Ground truth for the integration tests: one side (server or client) of a
 * TCP scenario that ends connections in exactly one way (FIN from either
 * side, RST from either side, an RST after the server's FIN, an orphan
 * aborted by the kernel at the client's ACK of that FIN, port
 * exhaustion, refused connects, held connections), or keeps each connection
 * for --requests round trips (keepalive). It counts what it saw and prints one key=value summary line
 * so a test can compare a tracer's numbers with it. A server with
 * --workers N forks N processes after listen(), as nginx does, which
 * accept and serve the connections, each printing a summary line of its
 * own; with --queued K it forks only once K connections wait in its
 * accept queue, which a client's --preopen K makes before any is used
 * (those carry "prep" instead of "ping", so that a worker can tell them).
 * A hold server with --accept-delay and --queued K starts its delays once
 * K connections wait: each then waits in the queue a delay more than the
 * one before it, however late the client came.
 * --fastopen runs any
 * mode over TCP Fast Open: the client's first message rides in its SYN
 * once the kernel has a cookie for the server, which the first connection
 * fetches (net.ipv4.tcp_fastopen must allow both ends).
 *
 * Exit codes: 0 the scenario went as its mode expects, 1 it did not (one
 * line on stderr says why), 2 usage. Every blocking call has a timeout. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define IO_TIMEOUT_MS 10000	/* any single blocking step */
/* An accept: the first waits for the test to start tcptrace, then the
 * client, which a loaded machine may take more than IO_TIMEOUT_MS to do. */
#define ACCEPT_TIMEOUT_S 40
#define HOLD_LIMIT_S 60		/* hold: longest wait for SIGUSR1 */
#define MAX_COUNT 100000
#define LISTEN_BACKLOG 1024
#define FASTOPEN_QUEUE 1024	/* Fast Open children not yet handshaken, at most */
#define MAX_WORKERS 64

enum mode {
	MODE_FIN_SERVER,
	MODE_FIN_CLIENT,
	MODE_LINGER0_SERVER,
	MODE_UNREAD_SERVER,
	MODE_LINGER0_CLIENT,
	MODE_EXHAUST,
	MODE_HOLD,
	MODE_REFUSED,
	MODE_HALFCLOSE_LINGER0_SERVER,
	MODE_HALFCLOSE_SERVER,
	MODE_LINGER2_SERVER,
	MODE_NOACCEPT,
	MODE_BURST,
	MODE_KEEPALIVE,
	MODE_CONNECTS,
};

static const char *const mode_names[] = {
	[MODE_FIN_SERVER] = "fin-server",
	[MODE_FIN_CLIENT] = "fin-client",
	[MODE_LINGER0_SERVER] = "linger0-server",
	[MODE_UNREAD_SERVER] = "unread-server",
	[MODE_LINGER0_CLIENT] = "linger0-client",
	[MODE_EXHAUST] = "exhaust",
	[MODE_HOLD] = "hold",
	[MODE_REFUSED] = "refused",
	[MODE_HALFCLOSE_LINGER0_SERVER] = "halfclose-linger0-server",
	[MODE_HALFCLOSE_SERVER] = "halfclose-server",
	[MODE_LINGER2_SERVER] = "linger2-server",
	[MODE_NOACCEPT] = "noaccept",
	[MODE_BURST] = "burst",
	[MODE_KEEPALIVE] = "keepalive",
	[MODE_CONNECTS] = "connects",
};

#define N_MODES (sizeof(mode_names) / sizeof(mode_names[0]))

struct config {
	bool is_server;
	enum mode mode;
	struct sockaddr_storage addr;
	socklen_t addr_len;
	long count;
	const char *ready_path; /* server --ready */
	const char *hold_path;  /* client --hold */
	bool fastopen;
	long backlog;           /* server --backlog */
	long defer_s;           /* server --defer: TCP_DEFER_ACCEPT */
	long wait_s;            /* burst client --wait */
	long accept_delay_ms;   /* server --accept-delay: before each accept() */
	bool keep_listening;    /* hold server --keep-listening */
	long workers;  /* server --workers */
	long queued;   /* server --queued */
	long preopen;  /* client --preopen */
	long requests; /* keepalive: round trips per connection */
	long give_up_ms; /* connects: how long a connect is given before close() */
};

struct server_counts {
	long accepted;
	long rst_seen;
	long eof;
	long errors;
	long closed_in_syn_recv; /* Fast Open children closed before the handshake's last ACK */
	long queued;             /* connections that said "prep": made before the workers */
	long requests;           /* keepalive: round trips answered */
};

struct client_counts {
	long timed_out; /* burst: neither connected nor refused within --wait */
	long connected;
	long eaddrnotavail;
	long refused;
	long rst_seen;
	long other_errors;
	long requests; /* keepalive: round trips done */
	/* connects: by how each connect ended */
	long etimedout, unreachable, abandoned;
	long slow;      /* connected after more than a second, by the client's clock */
	long syn_again; /* connected after a SYN sent again (TCP_INFO) */
};

/* The first thing that went wrong, for the one stderr line at the end. */
static char first_error[256];

static void note_error(const char *fmt, ...)
{
	va_list ap;

	if (first_error[0])
		return;
	va_start(ap, fmt);
	vsnprintf(first_error, sizeof(first_error), fmt, ap);
	va_end(ap);
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: tt-scenario server --addr ADDR --port PORT --count N --mode MODE [--ready FILE] [--name NAME]\n"
		"                          [--fastopen] [--backlog N] [--defer SECONDS] [--accept-delay MS]\n"
		"                          [--keep-listening] [--workers N] [--queued K] [--requests R]\n"
		"       tt-scenario client --addr ADDR --port PORT --count N --mode MODE [--hold FILE] [--name NAME]\n"
		"                          [--fastopen] [--wait SECONDS] [--preopen K] [--requests R]\n"
		"                          [--give-up MS]\n"
		"modes: fin-server halfclose-server fin-client linger0-server unread-server linger0-client\n"
		"       halfclose-linger0-server linger2-server keepalive\n"
		"       hold (both), noaccept (server only: listens, accepts nothing, closes its\n"
		"       listener on SIGUSR1), exhaust refused burst (client only; burst: COUNT\n"
		"       connects at once, each given --wait seconds; with --hold, kept\n"
		"       open once all are connected, until SIGUSR1; connects: COUNT connects one\n"
		"       after another, each closed once it ends, or after --give-up MS)\n");
}

static bool parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return false;
	*out = v;
	return true;
}

static bool parse_addr(const char *s, long port, struct config *cfg)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)&cfg->addr;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&cfg->addr;

	memset(&cfg->addr, 0, sizeof(cfg->addr));
	if (inet_pton(AF_INET, s, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons((unsigned short)port);
		cfg->addr_len = sizeof(*sin);
		return true;
	}
	if (inet_pton(AF_INET6, s, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons((unsigned short)port);
		cfg->addr_len = sizeof(*sin6);
		return true;
	}
	return false;
}

/* Returns 0, or 2 after printing why the command line is wrong. */
static int parse_args(int argc, char **argv, struct config *cfg)
{
	static const struct option opts[] = {
		{ "addr", required_argument, NULL, 'a' },
		{ "port", required_argument, NULL, 'p' },
		{ "count", required_argument, NULL, 'n' },
		{ "mode", required_argument, NULL, 'm' },
		{ "ready", required_argument, NULL, 'r' },
		{ "hold", required_argument, NULL, 'H' },
		{ "name", required_argument, NULL, 'N' },
		{ "fastopen", no_argument, NULL, 'F' },
		{ "backlog", required_argument, NULL, 'b' },
		{ "defer", required_argument, NULL, 'd' },
		{ "wait", required_argument, NULL, 'w' },
		{ "accept-delay", required_argument, NULL, 'D' },
		{ "keep-listening", no_argument, NULL, 'k' },
		{ "workers", required_argument, NULL, 'W' },
		{ "queued", required_argument, NULL, 'Q' },
		{ "preopen", required_argument, NULL, 'P' },
		{ "requests", required_argument, NULL, 'R' },
		{ "give-up", required_argument, NULL, 'G' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *addr = NULL, *mode = NULL;
	long port = -1;
	size_t i;
	int c;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "server")) {
		cfg->is_server = true;
	} else if (!strcmp(argv[1], "client")) {
		cfg->is_server = false;
	} else if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		exit(0);
	} else {
		fprintf(stderr, "tt-scenario: unknown role '%s' (server or client)\n", argv[1]);
		return 2;
	}

	cfg->count = -1;
	cfg->backlog = LISTEN_BACKLOG;
	cfg->wait_s = 5;
	optind = 2;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			addr = optarg;
			break;
		case 'p':
			if (!parse_long(optarg, 1, 65535, &port)) {
				fprintf(stderr, "tt-scenario: invalid --port '%s'\n", optarg);
				return 2;
			}
			break;
		case 'n':
			if (!parse_long(optarg, 1, MAX_COUNT, &cfg->count)) {
				fprintf(stderr, "tt-scenario: invalid --count '%s' (1..%d)\n",
					optarg, MAX_COUNT);
				return 2;
			}
			break;
		case 'm':
			mode = optarg;
			break;
		case 'r':
			cfg->ready_path = optarg;
			break;
		case 'H':
			cfg->hold_path = optarg;
			break;
		case 'N':
			/* Named anew before any socket, as servers that set their
			 * process title do: tcptrace must follow the new name. */
			if (prctl(PR_SET_NAME, optarg, 0, 0, 0)) {
				fprintf(stderr, "tt-scenario: --name '%s': %s\n", optarg, strerror(errno));
				return 2;
			}
			break;
		case 'F':
			cfg->fastopen = true;
			break;
		case 'b':
			if (!parse_long(optarg, 1, 65535, &cfg->backlog)) {
				fprintf(stderr, "tt-scenario: invalid --backlog '%s'\n", optarg);
				return 2;
			}
			break;
		case 'd':
			if (!parse_long(optarg, 1, 60, &cfg->defer_s)) {
				fprintf(stderr, "tt-scenario: invalid --defer '%s' (1..60)\n", optarg);
				return 2;
			}
			break;
		case 'w':
			if (!parse_long(optarg, 1, 60, &cfg->wait_s)) {
				fprintf(stderr, "tt-scenario: invalid --wait '%s' (1..60)\n", optarg);
				return 2;
			}
			break;
		case 'D':
			if (!parse_long(optarg, 0, IO_TIMEOUT_MS / 2, &cfg->accept_delay_ms)) {
				fprintf(stderr, "tt-scenario: invalid --accept-delay '%s' (0..%d ms)\n",
					optarg, IO_TIMEOUT_MS / 2);
				return 2;
			}
			break;
		case 'k':
			cfg->keep_listening = true;
			break;
		case 'W':
		case 'Q':
		case 'P':
		case 'R': {
			long *field = c == 'W' ? &cfg->workers : c == 'Q' ? &cfg->queued :
				      c == 'P' ? &cfg->preopen : &cfg->requests;

			if (!parse_long(optarg, 1, MAX_COUNT, field)) {
				fprintf(stderr, "tt-scenario: invalid count '%s' (1..%d)\n", optarg,
					MAX_COUNT);
				return 2;
			}
			break;
		}
		case 'G':
			if (!parse_long(optarg, 1, 60000, &cfg->give_up_ms)) {
				fprintf(stderr, "tt-scenario: invalid --give-up '%s' (1..60000 ms)\n", optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "tt-scenario: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (!addr || port < 0 || cfg->count < 0 || !mode) {
		fprintf(stderr, "tt-scenario: --addr, --port, --count and --mode are required\n");
		return 2;
	}
	if (!parse_addr(addr, port, cfg)) {
		fprintf(stderr, "tt-scenario: invalid --addr '%s' (an IPv4 or IPv6 literal)\n", addr);
		return 2;
	}
	for (i = 0; i < N_MODES; i++)
		if (!strcmp(mode, mode_names[i]))
			break;
	if (i == N_MODES) {
		fprintf(stderr, "tt-scenario: unknown --mode '%s'\n", mode);
		return 2;
	}
	cfg->mode = (enum mode)i;
	if (!cfg->is_server && cfg->mode == MODE_NOACCEPT) {
		fprintf(stderr, "tt-scenario: mode noaccept is server only\n");
		return 2;
	}
	if (cfg->is_server && (cfg->mode == MODE_EXHAUST || cfg->mode == MODE_REFUSED ||
			       cfg->mode == MODE_BURST || cfg->mode == MODE_CONNECTS)) {
		fprintf(stderr, "tt-scenario: mode %s is client only (use a hold server as the peer)\n",
			mode);
		return 2;
	}
	if (cfg->ready_path && !cfg->is_server) {
		fprintf(stderr, "tt-scenario: --ready is a server option\n");
		return 2;
	}
	if (cfg->hold_path && (cfg->is_server || (cfg->mode != MODE_HOLD && cfg->mode != MODE_BURST))) {
		fprintf(stderr, "tt-scenario: --hold is for a hold or burst client\n");
		return 2;
	}
	if ((cfg->keep_listening || cfg->accept_delay_ms) && (!cfg->is_server || cfg->mode != MODE_HOLD)) {
		fprintf(stderr, "tt-scenario: --keep-listening and --accept-delay are for a hold server\n");
		return 2;
	}
	if ((cfg->workers && (!cfg->is_server || cfg->mode == MODE_HOLD || cfg->mode == MODE_NOACCEPT)) ||
	    (cfg->queued && !cfg->workers && !cfg->accept_delay_ms)) {
		fprintf(stderr, "tt-scenario: --workers is for a server of a sequential mode, "
				"--queued for one with workers or --accept-delay\n");
		return 2;
	}
	if (cfg->preopen && (cfg->is_server || cfg->preopen > cfg->count || cfg->mode == MODE_HOLD ||
			     cfg->mode == MODE_EXHAUST || cfg->mode == MODE_REFUSED || cfg->fastopen)) {
		fprintf(stderr, "tt-scenario: --preopen is for a client of a sequential mode, at most "
				"--count\n");
		return 2;
	}
	if (cfg->give_up_ms && cfg->mode != MODE_CONNECTS) {
		fprintf(stderr, "tt-scenario: --give-up is for mode connects\n");
		return 2;
	}
	if (!cfg->give_up_ms)
		cfg->give_up_ms = IO_TIMEOUT_MS;
	if (cfg->mode == MODE_KEEPALIVE && !cfg->requests)
		cfg->requests = 1;
	if (cfg->requests && cfg->mode != MODE_KEEPALIVE) {
		fprintf(stderr, "tt-scenario: --requests is for mode keepalive\n");
		return 2;
	}
	return 0;
}

/* Writes TEXT to PATH through PATH.tmp and rename(), so a reader never sees
 * a partial file. */
static int write_file_atomic(const char *path, const char *text)
{
	char tmp[4096];
	FILE *f;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp)) {
		note_error("path too long: %s", path);
		return -1;
	}
	f = fopen(tmp, "w");
	if (!f) {
		note_error("cannot create %s: %s", tmp, strerror(errno));
		return -1;
	}
	fputs(text, f);
	if (fclose(f)) {
		note_error("cannot write %s: %s", tmp, strerror(errno));
		return -1;
	}
	if (rename(tmp, path)) {
		note_error("cannot rename %s to %s: %s", tmp, path, strerror(errno));
		return -1;
	}
	return 0;
}

/* SO_RCVTIMEO bounds recv() and accept(), SO_SNDTIMEO bounds send() and
 * connect() (a connect that times out fails with EINPROGRESS). */
static int set_timeouts(int fd)
{
	struct timeval tv = { .tv_sec = IO_TIMEOUT_MS / 1000 };

	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)))
		return -1;
	return 0;
}

static int set_linger0(int fd)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };

	return setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
}

/* An orphan of this socket is not kept in FIN_WAIT2: the kernel aborts it
 * with an RST when the peer acknowledges our FIN. */
static int set_linger2_abort(int fd)
{
	int linger2 = -1;

	return setsockopt(fd, IPPROTO_TCP, TCP_LINGER2, &linger2, sizeof(linger2));
}

/* Waits until the peer has acknowledged our FIN (FIN_WAIT2). 0, or -1
 * after IO_TIMEOUT_MS. */
static int wait_fin_wait2(int fd)
{
	struct timespec step = { .tv_nsec = 1000000 };
	struct tcp_info info;
	socklen_t len;

	for (int waited = 0; waited < IO_TIMEOUT_MS; waited++) {
		len = sizeof(info);
		if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len))
			return -1;
		if (info.tcpi_state == TCP_FIN_WAIT2)
			return 0;
		nanosleep(&step, NULL);
	}
	errno = EAGAIN;
	return -1;
}

/* After the peer's FIN: waits for its RST, which ends the socket (POLLHUP)
 * with an error. 0 when it came, -1 otherwise. */
static int wait_reset_after_eof(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = 0 };
	socklen_t len = sizeof(int);
	int err = 0, r;

	do
		r = poll(&pfd, 1, IO_TIMEOUT_MS);
	while (r < 0 && errno == EINTR);
	if (r <= 0 || !(pfd.revents & POLLHUP))
		return -1;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len))
		return -1;
	/* tcp_reset: EPIPE in CLOSE_WAIT, where our side is after the FIN. */
	return err == EPIPE || err == ECONNRESET ? 0 : -1;
}

/* Waits until the peer has acknowledged all we sent. An abort then meets
 * no segment of the peer still on its way, which the kernel would answer
 * with an RST of its own once the connection is gone: under load, softirq
 * work moves to ksoftirqd and the peer's ACK of our last data can arrive
 * after our abort. 0, or -errno (-EAGAIN after the I/O timeout). */
static int wait_acked(int fd)
{
	struct timespec step = { .tv_nsec = 1000000 };
	int unacked;

	for (int waited = 0; waited < IO_TIMEOUT_MS; waited++) {
		if (ioctl(fd, SIOCOUTQ, &unacked))
			return -errno;
		if (unacked == 0)
			return 0;
		nanosleep(&step, NULL);
	}
	return -EAGAIN;
}

static const char *errno_text(int err)
{
	return err == EAGAIN ? "timed out" : strerror(err);
}

/* Sends the 4-byte message MSG. 0 or -errno. */
static int send_msg(int fd, const char *msg)
{
	ssize_t n = send(fd, msg, 4, MSG_NOSIGNAL);

	if (n < 0)
		return -errno;
	return n == 4 ? 0 : -EMSGSIZE;
}

/* Reads exactly the 4 bytes MSG. 0, -errno, -ENODATA on EOF or -EBADMSG
 * when other bytes came. */
static int recv4(int fd, char buf[4])
{
	size_t got = 0;
	ssize_t n;

	while (got < 4) {
		n = recv(fd, buf + got, 4 - got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -ENODATA;
		got += (size_t)n;
	}
	return 0;
}

static int recv_msg(int fd, const char *msg)
{
	char buf[4];
	int err = recv4(fd, buf);

	return err ? err : memcmp(buf, msg, sizeof(buf)) ? -EBADMSG : 0;
}

enum end_kind { END_EOF, END_RST, END_ERROR };

/* Reads until the peer ends the connection: EOF or ECONNRESET. Any other
 * error, a timeout or unexpected data is END_ERROR, noted for connection I. */
static enum end_kind read_until_end(int fd, const char *who, long i)
{
	char buf[64];
	ssize_t n;

	for (;;) {
		n = recv(fd, buf, sizeof(buf), 0);
		if (n == 0)
			return END_EOF;
		if (n > 0) {
			note_error("%s connection %ld: %zd unexpected bytes before the end", who, i, n);
			return END_ERROR;
		}
		if (errno == EINTR)
			continue;
		if (errno == ECONNRESET)
			return END_RST;
		note_error("%s connection %ld: waiting for EOF or reset: %s", who, i,
			   errno_text(errno));
		return END_ERROR;
	}
}

/* Reads the request of a connection: "ping", or "prep" from one that a
 * client opened before using any (--preopen), counted in *preopened. */
static int recv_request(int fd, long *preopened)
{
	char buf[4];
	int err = recv4(fd, buf);

	if (err)
		return err;
	if (!memcmp(buf, "prep", 4)) {
		(*preopened)++;
		return 0;
	}
	return memcmp(buf, "ping", 4) ? -EBADMSG : 0;
}

static const char *msg_error_text(int err)
{
	if (err == -ENODATA)
		return "EOF";
	if (err == -EBADMSG)
		return "wrong bytes";
	return errno_text(-err);
}

static void wait_for_release(void);

/* ---- server ---- */

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

/* keepalive: answers each ping with a pong until the client closes. */
static void serve_keepalive(int fd, long i, struct server_counts *sc)
{
	for (long r = 0;; r++) {
		long preopened = 0;
		int err = recv_request(fd, &preopened);

		if (err == -ENODATA && r > 0) {
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
		serve_keepalive(fd, i, sc);
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
	       "queued=%ld requests=%ld pid=%d\n",
	       role, mode_names[cfg->mode], sc->accepted, sc->rst_seen, sc->eof, sc->errors,
	       sc->closed_in_syn_recv, sc->queued, sc->requests, (int)getpid());
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
	}
out:
	munmap(ws, sizeof(*ws));
}

static int run_server(const struct config *cfg)
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

/* ---- client ---- */

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
		err = err ? err : recv_msg(fd, "pong");
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
	case MODE_KEEPALIVE:
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

/* hold: blocks until SIGUSR1 or the hold limit. SIGUSR1 is blocked from the
 * start, so a signal sent early stays pending instead of being lost. */
static void wait_for_release(void)
{
	struct timespec limit = { .tv_sec = HOLD_LIMIT_S };
	sigset_t set;
	int r;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	do
		r = sigtimedwait(&set, NULL, &limit);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		fprintf(stderr, "tt-scenario: client hold: no SIGUSR1 within %d s, closing anyway\n",
			HOLD_LIMIT_S);
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

/* connects: each connect() by itself, non-blocking, given --give-up ms;
 * counted by the error it ended with, as connect() would return it, or as
 * abandoned when this client gave up first. A connected one is closed at
 * once. */
static void client_connects(const struct config *cfg, struct client_counts *cc)
{
	for (long i = 0; i < cfg->count; i++) {
		int fd = socket(cfg->addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		struct pollfd p = { .fd = fd, .events = POLLOUT };
		struct tcp_info info = { 0 };
		socklen_t len = sizeof(int);
		struct timespec t0;
		int err = 0, r;

		if (fd < 0) {
			note_error("connect %ld: socket: %s", i, strerror(errno));
			cc->other_errors++;
			continue;
		}
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (connect(fd, (const struct sockaddr *)&cfg->addr, cfg->addr_len) && errno != EINPROGRESS)
			err = errno;
		else {
			do
				r = poll(&p, 1, (int)cfg->give_up_ms);
			while (r < 0 && errno == EINTR);
			if (r == 0) {
				cc->abandoned++;
				close(fd);
				continue;
			}
			getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
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
			       cc->eaddrnotavail ==
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

static int run_client(const struct config *cfg)
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
	       "syn_again=%ld pid=%d\n",
	       mode_names[cfg->mode], cc.connected, cc.eaddrnotavail, cc.refused, cc.rst_seen,
	       cc.other_errors, cc.timed_out, cc.requests, cc.etimedout, cc.unreachable,
	       cc.abandoned, cc.slow, cc.syn_again, (int)getpid());
	fflush(stdout);
	if (client_as_expected(cfg, &cc))
		return 0;
	fprintf(stderr, "tt-scenario: client %s: not as expected for count=%ld%s%s\n",
		mode_names[cfg->mode], cfg->count, first_error[0] ? "; first problem: " : "",
		first_error);
	return 1;
}

int main(int argc, char **argv)
{
	struct config cfg = { 0 };
	sigset_t usr1;
	int err;

	err = parse_args(argc, argv, &cfg);
	if (err)
		return err;

	/* A send to a reset socket must fail with EPIPE, not kill us. */
	signal(SIGPIPE, SIG_IGN);
	/* SIGUSR1 releases a hold client; blocked everywhere so that an early
	 * or misdirected one neither kills nor is lost. */
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, NULL);

	return cfg.is_server ? run_server(&cfg) : run_client(&cfg);
}
