// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* What both sides of tt-scenario share: the first problem noted, the ready
 * file, socket options, the messages and the waits for a connection's end,
 * and a hold's wait for SIGUSR1. */

#include "scenario.h"

/* The first thing that went wrong, for the one stderr line at the end. */
char first_error[256];

void note_error(const char *fmt, ...)
{
	va_list ap;

	if (first_error[0])
		return;
	va_start(ap, fmt);
	vsnprintf(first_error, sizeof(first_error), fmt, ap);
	va_end(ap);
}

/* Writes TEXT to PATH through PATH.tmp and rename(), so a reader never sees
 * a partial file. */
int write_file_atomic(const char *path, const char *text)
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
int set_timeouts(int fd)
{
	struct timeval tv = { .tv_sec = IO_TIMEOUT_MS / 1000 };

	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)))
		return -1;
	return 0;
}

int set_linger0(int fd)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };

	return setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
}

/* An orphan of this socket is not kept in FIN_WAIT2: the kernel aborts it
 * with an RST when the peer acknowledges our FIN. */
int set_linger2_abort(int fd)
{
	int linger2 = -1;

	return setsockopt(fd, IPPROTO_TCP, TCP_LINGER2, &linger2, sizeof(linger2));
}

/* Waits until the peer has acknowledged our FIN (FIN_WAIT2). 0, or -1
 * after IO_TIMEOUT_MS. */
int wait_fin_wait2(int fd)
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
int wait_reset_after_eof(int fd)
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
int wait_acked(int fd)
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

const char *errno_text(int err)
{
	return err == EAGAIN ? "timed out" : strerror(err);
}

/* Sends the 4-byte message MSG. 0 or -errno. */
int send_msg(int fd, const char *msg)
{
	ssize_t n = send(fd, msg, 4, MSG_NOSIGNAL);

	if (n < 0)
		return -errno;
	return n == 4 ? 0 : -EMSGSIZE;
}

/* Reads exactly the 4 bytes MSG. 0, -errno, -ENODATA on EOF or -EBADMSG
 * when other bytes came. */
int recv4(int fd, char buf[4])
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

int recv_msg(int fd, const char *msg)
{
	char buf[4];
	int err = recv4(fd, buf);

	return err ? err : memcmp(buf, msg, sizeof(buf)) ? -EBADMSG : 0;
}

/* Reads until the peer ends the connection: EOF or ECONNRESET. Any other
 * error, a timeout or unexpected data is END_ERROR, noted for connection I. */
enum end_kind read_until_end(int fd, const char *who, long i)
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
int recv_request(int fd, long *preopened)
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

/* keepalive --bytes: n bytes of payload, each 'x', in chunks. 0 or -errno. */
int send_payload(int fd, long n)
{
	static char buf[65536];
	ssize_t sent;

	if (!buf[0])
		memset(buf, 'x', sizeof(buf));
	while (n > 0) {
		sent = send(fd, buf, (size_t)(n < (long)sizeof(buf) ? n : (long)sizeof(buf)),
			    MSG_NOSIGNAL);
		if (sent < 0 && errno == EINTR)
			continue;
		if (sent < 0)
			return -errno;
		n -= sent;
	}
	return 0;
}

/* Reads exactly n bytes of 'x'. 0, -errno, -ENODATA on EOF, -EBADMSG. */
int recv_payload(int fd, long n)
{
	char buf[65536];
	ssize_t got;

	while (n > 0) {
		got = recv(fd, buf, (size_t)(n < (long)sizeof(buf) ? n : (long)sizeof(buf)), 0);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -errno;
		if (got == 0)
			return -ENODATA;
		for (ssize_t i = 0; i < got; i++)
			if (buf[i] != 'x')
				return -EBADMSG;
		n -= got;
	}
	return 0;
}

/* keepalive: a connection's tcp_sent_counts() added to *segs_out and
 * *retrans; a failure to read them noted as an error. */
void note_sent_counts(int fd, long *segs_out, long *retrans)
{
	long segs, again;
	int err = tcp_sent_counts(fd, &segs, &again);

	if (err) {
		note_error("TCP_INFO: %s", errno_text(-err));
		return;
	}
	*segs_out += segs;
	*retrans += again;
}

const char *msg_error_text(int err)
{
	if (err == -ENODATA)
		return "EOF";
	if (err == -EBADMSG)
		return "wrong bytes";
	return errno_text(-err);
}

/* hold: blocks until SIGUSR1 or the hold limit. SIGUSR1 is blocked from the
 * start, so a signal sent early stays pending instead of being lost. */
void wait_for_release(void)
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
