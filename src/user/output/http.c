// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A small HTTP/1.1 server for /metrics (RFC 9110, 9112): non-blocking
 * sockets polled by the caller's loop, a fixed table of clients, one
 * request each, answered with Connection: close. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/uio.h>
#include "output/http.h"

#define LISTEN_BACKLOG 64
#define ACCEPTS_PER_WAKE 32
#define ACCEPT_PAUSE_MS 100 /* after EMFILE: the listener would stay readable */
#define NS_PER_MS 1000000ull

static const char landing[] = "tcptrace exporter: metrics at /metrics\n";

enum client_state {
	CLIENT_FREE,
	CLIENT_READING,
	CLIENT_WRITING,
	CLIENT_DRAINING, /* response sent, write side shut: wait for the client's FIN */
};

struct http_client {
	int fd;
	enum client_state state;
	uint64_t accepted_ns, deadline_ns;
	uint64_t progress_ns; /* accepted, or the last byte of the response the client took */
	struct sockaddr_storage peer;
	size_t req_len, drained;
	char req[HTTP_MAX_REQUEST];
	char head[512];
	size_t head_len;
	char *body; /* malloc'd, or NULL for the landing page and error texts */
	char error_text[64];
	const char *body_text;
	size_t body_len, sent;
};

struct http_server {
	int fd;
	uint16_t port;
	char address[INET6_ADDRSTRLEN + 16];
	uint64_t accept_paused_until;
	http_metrics_fn metrics;
	void *ctx;
	struct http_client clients[HTTP_MAX_CLIENTS];
};

/* Tests only (http_server_test_clock_ahead): how far the servers' clock
 * is ahead of CLOCK_MONOTONIC. */
static uint64_t clock_ahead_ns;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec + clock_ahead_ns;
}

void http_server_test_clock_ahead(uint64_t ns)
{
	clock_ahead_ns = ns;
}

/* RFC 9110 token characters, for methods and header names. */
static bool is_tchar(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c && strchr("!#$%&'*+-.^_`|~", c));
}

static bool all_tchars(const char *s, size_t len)
{
	if (len == 0)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!is_tchar((unsigned char)s[i]))
			return false;
	return true;
}

static bool ci_equal(const char *s, size_t len, const char *word)
{
	return strlen(word) == len && strncasecmp(s, word, len) == 0;
}

/* Index of c in s[from, to), or to. */
static size_t find(const char *s, size_t from, size_t to, char c)
{
	while (from < to && s[from] != c)
		from++;
	return from;
}

static size_t skip_space(const char *s, size_t from, size_t to)
{
	while (from < to && (s[from] == ' ' || s[from] == '\t'))
		from++;
	return from;
}

static size_t trim_space(const char *s, size_t from, size_t to)
{
	while (to > from && (s[to - 1] == ' ' || s[to - 1] == '\t'))
		to--;
	return to;
}

/* "0.5", "1", "0.750": a qvalue in thousandths; -1 when malformed. */
static int parse_qvalue(const char *s, size_t len)
{
	size_t i = 1;
	int q, scale = 100;

	if (len == 0 || (s[0] != '0' && s[0] != '1'))
		return -1;
	q = (s[0] - '0') * 1000;
	if (len > 1 && s[1] == '.')
		for (i = 2; i < len && i < 5 && s[i] >= '0' && s[i] <= '9'; i++, scale /= 10)
			q += (s[i] - '0') * scale;
	return i == len && q <= 1000 ? q : -1;
}

/* The q of the media range s[from, to) ("type/subtype;p=v;q=0.5"): 1000
 * unless given, 0 when malformed. Sets *type_end past its type. */
static int media_range_q(const char *s, size_t from, size_t to, size_t *type_end)
{
	size_t semi = find(s, from, to, ';');
	int q = 1000;

	*type_end = trim_space(s, from, semi);
	while (semi < to) {
		size_t param = skip_space(s, semi + 1, to);
		size_t next = find(s, param, to, ';');
		size_t param_end = trim_space(s, param, next);

		if (param_end - param >= 2 && (s[param] == 'q' || s[param] == 'Q') &&
		    s[param + 1] == '=') {
			q = parse_qvalue(s + param + 2, param_end - param - 2);
			if (q < 0)
				q = 0;
		}
		semi = next;
	}
	return q;
}

bool http_accepts_openmetrics(const char *value, size_t len)
{
	int om = -1, text = -1;

	for (size_t i = 0; i < len;) {
		size_t range_end = find(value, i, len, ',');
		size_t type = skip_space(value, i, range_end), type_end;
		int q = media_range_q(value, type, range_end, &type_end);
		const char *t = value + type;
		size_t n = type_end - type;

		if (ci_equal(t, n, "application/openmetrics-text")) {
			if (q > om)
				om = q;
		} else if (ci_equal(t, n, "text/plain") || ci_equal(t, n, "text/*") ||
			   ci_equal(t, n, "*/*")) {
			if (q > text)
				text = q;
		}
		i = range_end + 1;
	}
	return om > 0 && om >= text;
}

/* "HTTP/1.1": 0; another "HTTP/d.d": 1; anything else: -1. */
static int check_version(const char *v, size_t len)
{
	if (len != 8 || memcmp(v, "HTTP/", 5) != 0 || v[5] < '0' || v[5] > '9' || v[6] != '.' ||
	    v[7] < '0' || v[7] > '9')
		return -1;
	return v[5] == '1' && (v[7] == '0' || v[7] == '1') ? 0 : 1;
}

static enum http_parse parse_request_line(const char *line, const char *end,
					  struct http_request *req)
{
	const char *sp1 = memchr(line, ' ', (size_t)(end - line));
	const char *target, *sp2, *path_end;
	size_t path_len;
	int version;

	if (!sp1 || !all_tchars(line, (size_t)(sp1 - line)))
		return HTTP_PARSE_BAD;
	target = sp1 + 1;
	sp2 = memchr(target, ' ', (size_t)(end - target));
	if (!sp2 || sp2 == target)
		return HTTP_PARSE_BAD;
	for (const char *c = target; c < sp2; c++)
		if ((unsigned char)*c <= ' ' || *c == 0x7f)
			return HTTP_PARSE_BAD;
	version = check_version(sp2 + 1, (size_t)(end - sp2 - 1));
	if (version < 0)
		return HTTP_PARSE_BAD;
	if (version > 0)
		return HTTP_PARSE_VERSION;
	/* Methods are case-sensitive (RFC 9110, 9.1). */
	if (sp1 - line == 3 && !memcmp(line, "GET", 3))
		req->method = HTTP_GET;
	else if (sp1 - line == 4 && !memcmp(line, "HEAD", 4))
		req->method = HTTP_HEAD;
	else
		req->method = HTTP_OTHER_METHOD;
	path_end = memchr(target, '?', (size_t)(sp2 - target));
	path_len = (size_t)((path_end ? path_end : sp2) - target);
	if (path_len >= sizeof(req->path)) {
		req->path_too_long = true;
		path_len = 0;
	}
	memcpy(req->path, target, path_len);
	req->path[path_len] = '\0';
	return HTTP_PARSE_OK;
}

enum http_parse http_parse_request(const char *buf, size_t len, struct http_request *req)
{
	const char *line = buf, *headers_end;
	const char *crlf = memmem(buf, len, "\r\n\r\n", 4), *lf = memmem(buf, len, "\n\n", 2);
	enum http_parse ret;

	memset(req, 0, sizeof(*req));
	if (memchr(buf, '\0', len))
		return HTTP_PARSE_BAD;
	if (!crlf && !lf)
		return HTTP_PARSE_INCOMPLETE;
	headers_end = !lf || (crlf && crlf < lf) ? crlf + 2 : lf + 1;
	for (bool first = true; line < headers_end; first = false) {
		const char *nl = memchr(line, '\n', (size_t)(headers_end - line));
		const char *eol = nl > line && nl[-1] == '\r' ? nl - 1 : nl;
		const char *colon;

		if (first) {
			ret = parse_request_line(line, eol, req);
			if (ret != HTTP_PARSE_OK)
				return ret;
		} else {
			/* A header line: "name: value"; folded lines (obs-fold,
			 * starting with a space) are refused, as RFC 9112 allows. */
			colon = memchr(line, ':', (size_t)(eol - line));
			if (!colon || !all_tchars(line, (size_t)(colon - line)))
				return HTTP_PARSE_BAD;
			for (const char *c = colon + 1; c < eol; c++)
				if (*c == '\r')
					return HTTP_PARSE_BAD;
			if (ci_equal(line, (size_t)(colon - line), "Accept") &&
			    http_accepts_openmetrics(colon + 1, (size_t)(eol - colon - 1)))
				req->openmetrics = true;
		}
		line = nl + 1;
	}
	return HTTP_PARSE_OK;
}

int http_route(const struct http_request *req)
{
	if (req->path_too_long)
		return 414;
	if (strcmp(req->path, "/metrics") != 0 && strcmp(req->path, "/") != 0)
		return 404;
	return req->method == HTTP_OTHER_METHOD ? 405 : 200;
}

static const char *status_text(int status)
{
	switch (status) {
	case 200: return "OK";
	case 400: return "Bad Request";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 414: return "URI Too Long";
	case 431: return "Request Header Fields Too Large";
	case 500: return "Internal Server Error";
	case 505: return "HTTP Version Not Supported";
	default: return "Error";
	}
}

size_t http_format_head(char *buf, size_t len, int status, const char *content_type,
			size_t body_len, time_t now)
{
	char date[64];
	struct tm tm;
	int n;

	/* IMF-fixdate; tcptrace never sets a locale, so the names are English. */
	gmtime_r(&now, &tm);
	strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S GMT", &tm);
	n = snprintf(buf, len,
		     "HTTP/1.1 %d %s\r\n"
		     "Date: %s\r\n"
		     "Content-Type: %s\r\n"
		     "Content-Length: %zu\r\n"
		     "%s"
		     "Connection: close\r\n"
		     "\r\n",
		     status, status_text(status), date, content_type, body_len,
		     status == 405 ? "Allow: GET, HEAD\r\n" : "");
	return n < 0 || (size_t)n >= len ? 0 : (size_t)n;
}

static void client_close(struct http_client *c)
{
	if (c->fd >= 0)
		close(c->fd);
	free(c->body);
	c->fd = -1;
	c->body = NULL;
	c->state = CLIENT_FREE;
}

static void client_send(struct http_client *c, uint64_t now);

/* Prepare the response for status and start sending it. */
static void client_respond(struct http_server *s, struct http_client *c, int status,
			   const struct http_request *req, uint64_t now)
{
	const char *type = "text/plain; charset=utf-8";
	bool head_only = req && req->method == HTTP_HEAD;

	c->body = NULL;
	c->body_text = NULL;
	c->body_len = 0;
	if (status == 200 && !strcmp(req->path, "/metrics")) {
		c->body = s->metrics(s->ctx, req->openmetrics, &c->body_len);
		if (c->body)
			type = req->openmetrics ? "application/openmetrics-text; version=1.0.0; "
						  "charset=utf-8"
						: "text/plain; version=0.0.4; charset=utf-8";
		else
			status = 500;
	} else if (status == 200) {
		c->body_text = landing;
		c->body_len = sizeof(landing) - 1;
	}
	if (status != 200) {
		snprintf(c->error_text, sizeof(c->error_text), "%d %s\n", status,
			 status_text(status));
		c->body_text = c->error_text;
		c->body_len = strlen(c->error_text);
	}
	if (c->body)
		c->body_text = c->body;
	c->head_len = http_format_head(c->head, sizeof(c->head), status, type, c->body_len,
				       time(NULL));
	if (head_only)
		c->body_len = 0;
	c->sent = 0;
	c->state = CLIENT_WRITING;
	c->deadline_ns = now + HTTP_RESPONSE_TIMEOUT_MS * NS_PER_MS;
	client_send(c, now);
}

static void client_send(struct http_client *c, uint64_t now)
{
	while (c->sent < c->head_len + c->body_len) {
		struct iovec iov[2];
		struct msghdr msg = { .msg_iov = iov };
		ssize_t n;

		if (c->sent < c->head_len) {
			iov[0] = (struct iovec){ c->head + c->sent, c->head_len - c->sent };
			iov[1] = (struct iovec){ (void *)c->body_text, c->body_len };
			msg.msg_iovlen = c->body_len ? 2 : 1;
		} else {
			size_t off = c->sent - c->head_len;

			iov[0] = (struct iovec){ (void *)(c->body_text + off), c->body_len - off };
			msg.msg_iovlen = 1;
		}
		n = sendmsg(c->fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
				client_close(c);
			return;
		}
		c->sent += (size_t)n;
		c->progress_ns = now;
	}
	/* All sent: shut our side and read until the client closes, so that
	 * unread request bytes cannot turn our close into an RST that would
	 * destroy the response before the client has read it. */
	shutdown(c->fd, SHUT_WR);
	c->state = CLIENT_DRAINING;
	c->drained = 0;
	c->deadline_ns = now + HTTP_DRAIN_TIMEOUT_MS * NS_PER_MS;
}

static void client_read(struct http_server *s, struct http_client *c, uint64_t now)
{
	struct http_request req;
	ssize_t n;

	n = recv(c->fd, c->req + c->req_len, sizeof(c->req) - c->req_len, MSG_DONTWAIT);
	if (n <= 0) {
		if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
			client_close(c);
		return;
	}
	c->req_len += (size_t)n;
	switch (http_parse_request(c->req, c->req_len, &req)) {
	case HTTP_PARSE_INCOMPLETE:
		if (c->req_len == sizeof(c->req))
			client_respond(s, c, 431, NULL, now);
		break;
	case HTTP_PARSE_BAD:
		client_respond(s, c, 400, NULL, now);
		break;
	case HTTP_PARSE_VERSION:
		client_respond(s, c, 505, NULL, now);
		break;
	case HTTP_PARSE_OK:
		client_respond(s, c, http_route(&req), &req, now);
		break;
	}
}

static void client_drain(struct http_client *c)
{
	char scratch[4096];
	ssize_t n;

	for (;;) {
		n = recv(c->fd, scratch, sizeof(scratch), MSG_DONTWAIT);
		if (n > 0 && (c->drained += (size_t)n) <= HTTP_DRAIN_MAX)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
			return;
		client_close(c); /* the client's FIN, an error, or too much */
		return;
	}
}

static bool same_source(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
		       &((const struct sockaddr_in6 *)b)->sin6_addr, sizeof(struct in6_addr));
}

/* Whether c may give way to a new client: it has not finished its request,
 * or it has not taken a byte of its response for HTTP_STALL_MS. The oldest
 * such goes first: the one that has waited longest without progress. */
static bool may_give_way(const struct http_client *c, uint64_t now)
{
	return c->state == CLIENT_READING ||
	       (c->state == CLIENT_WRITING && c->progress_ns + HTTP_STALL_MS * NS_PER_MS <= now);
}

static struct http_client *first_to_go(struct http_server *s, const struct sockaddr_storage *peer,
				       uint64_t now)
{
	struct http_client *oldest = NULL;

	for (size_t i = 0; i < HTTP_MAX_CLIENTS; i++) {
		struct http_client *c = &s->clients[i];

		if (c->state == CLIENT_FREE || !may_give_way(c, now) ||
		    (peer && !same_source(&c->peer, peer)))
			continue;
		/* A client still reading goes before one stalled on its response. */
		if (!oldest || (c->state == CLIENT_READING) > (oldest->state == CLIENT_READING) ||
		    ((c->state == CLIENT_READING) == (oldest->state == CLIENT_READING) &&
		     c->progress_ns < oldest->progress_ns))
			oldest = c;
	}
	return oldest;
}

/* A slot for a client from peer: a free one, unless that address already
 * holds HTTP_MAX_PER_SOURCE; when none is free, or the address is at its
 * cap, the slot of a client that may give way (of that address, at the
 * cap); NULL when every client is being answered. One address cannot take
 * every slot, and clients that stopped reading cannot keep a scraper out. */
static struct http_client *free_slot(struct http_server *s, const struct sockaddr_storage *peer,
				     uint64_t now)
{
	struct http_client *free_one = NULL, *victim;
	size_t from_peer = 0;

	for (size_t i = 0; i < HTTP_MAX_CLIENTS; i++) {
		struct http_client *c = &s->clients[i];

		if (c->state == CLIENT_FREE)
			free_one = free_one ? free_one : c;
		else if (same_source(&c->peer, peer))
			from_peer++;
	}
	if (from_peer < HTTP_MAX_PER_SOURCE && free_one)
		return free_one;
	victim = first_to_go(s, from_peer < HTTP_MAX_PER_SOURCE ? NULL : peer, now);
	if (victim)
		client_close(victim);
	return victim;
}

static void accept_clients(struct http_server *s, uint64_t now)
{
	for (int i = 0; i < ACCEPTS_PER_WAKE; i++) {
		struct sockaddr_storage peer = { 0 };
		socklen_t peer_len = sizeof(peer);
		int fd = accept4(s->fd, (struct sockaddr *)&peer, &peer_len,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct http_client *c;

		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
				s->accept_paused_until = now + ACCEPT_PAUSE_MS * NS_PER_MS;
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return;
		}
		c = free_slot(s, &peer, now);
		if (!c) {
			close(fd);
			continue;
		}
		c->fd = fd;
		c->state = CLIENT_READING;
		c->req_len = 0;
		c->accepted_ns = now;
		c->progress_ns = now;
		c->peer = peer;
		c->deadline_ns = now + HTTP_REQUEST_TIMEOUT_MS * NS_PER_MS;
	}
}

/* "127.0.0.1:9477" or "[::1]:9477"; returns the port, host order. */
static uint16_t format_addr(const struct sockaddr_storage *addr, char *buf, size_t len)
{
	char host[INET6_ADDRSTRLEN] = "?";
	struct sockaddr_in6 a6;
	struct sockaddr_in a4;

	if (addr->ss_family == AF_INET6) {
		memcpy(&a6, addr, sizeof(a6));
		inet_ntop(AF_INET6, &a6.sin6_addr, host, sizeof(host));
		snprintf(buf, len, "[%s]:%u", host, ntohs(a6.sin6_port));
		return ntohs(a6.sin6_port);
	}
	memcpy(&a4, addr, sizeof(a4));
	inet_ntop(AF_INET, &a4.sin_addr, host, sizeof(host));
	snprintf(buf, len, "%s:%u", host, ntohs(a4.sin_port));
	return ntohs(a4.sin_port);
}

int http_server_open(struct http_server **out, const struct sockaddr *addr, socklen_t addrlen,
		     http_metrics_fn metrics, void *ctx, char *err, size_t errlen)
{
	struct sockaddr_storage asked = { 0 }, bound = { 0 };
	socklen_t bound_len = sizeof(bound);
	struct http_server *s;
	char where[INET6_ADDRSTRLEN + 16];
	int one = 1, e;

	*out = NULL;
	memcpy(&asked, addr, addrlen < sizeof(asked) ? addrlen : sizeof(asked));
	format_addr(&asked, where, sizeof(where));
	s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err, errlen, "cannot listen on %s: %s", where, strerror(ENOMEM));
		return -ENOMEM;
	}
	for (size_t i = 0; i < HTTP_MAX_CLIENTS; i++)
		s->clients[i].fd = -1;
	s->metrics = metrics;
	s->ctx = ctx;
	/* CLOEXEC: a command tcptrace starts must not inherit the port. */
	s->fd = socket(addr->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	/* SO_REUSEADDR: our own TIME_WAIT sockets (we close first) must not
	 * keep a restarted tcptrace off its port; a listener still does. */
	if (s->fd < 0 || setsockopt(s->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(s->fd, addr, addrlen) || listen(s->fd, LISTEN_BACKLOG) ||
	    getsockname(s->fd, (struct sockaddr *)&bound, &bound_len)) {
		e = errno;
		snprintf(err, errlen, "cannot listen on %s: %s", where, strerror(e));
		http_server_close(s);
		return -e;
	}
	s->port = format_addr(&bound, s->address, sizeof(s->address));
	*out = s;
	return 0;
}

uint16_t http_server_port(const struct http_server *s)
{
	return s->port;
}

const char *http_server_address(const struct http_server *s)
{
	return s->address;
}

int http_server_run(struct http_server *s, uint64_t deadline_ns, const sigset_t *wait_mask)
{
	struct pollfd fds[HTTP_MAX_CLIENTS + 1];
	struct http_client *polled[HTTP_MAX_CLIENTS + 1];

	/* Past the deadline (an interval's work took longer than the
	 * interval), one pass that waits for nothing still answers the
	 * scrapes that came meanwhile: a loaded tracer answers late, not
	 * never. */
	for (bool last = false; !last;) {
		uint64_t now = now_ns(), wake = deadline_ns;
		struct timespec timeout;
		nfds_t n = 0;
		int ready;

		if (now >= deadline_ns) {
			last = true;
			wake = now;
		}
		for (size_t i = 0; i < HTTP_MAX_CLIENTS; i++) {
			struct http_client *c = &s->clients[i];

			if (c->state != CLIENT_FREE && c->deadline_ns <= now)
				client_close(c); /* too slow: no answer, just gone */
			if (c->state == CLIENT_FREE)
				continue;
			fds[n] = (struct pollfd){ c->fd, c->state == CLIENT_WRITING ? POLLOUT : POLLIN, 0 };
			polled[n++] = c;
			if (c->deadline_ns < wake)
				wake = c->deadline_ns;
		}
		if (s->accept_paused_until <= now) {
			fds[n] = (struct pollfd){ s->fd, POLLIN, 0 };
			polled[n++] = NULL;
		} else if (s->accept_paused_until < wake) {
			wake = s->accept_paused_until;
		}
		if (wake < now)
			wake = now;
		timeout.tv_sec = (time_t)((wake - now) / 1000000000ull);
		timeout.tv_nsec = (long)((wake - now) % 1000000000ull);
		ready = ppoll(fds, n, &timeout, wait_mask);
		if (ready < 0 && errno == EINTR)
			return -EINTR;
		if (ready < 0) {
			/* Nothing to wait on that works: sleep out the interval. */
			timeout.tv_sec = (time_t)(deadline_ns / 1000000000ull);
			timeout.tv_nsec = (long)(deadline_ns % 1000000000ull);
			return -clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &timeout, NULL);
		}
		now = now_ns();
		for (nfds_t i = 0; ready > 0 && i < n; i++) {
			struct http_client *c = polled[i];

			if (!fds[i].revents)
				continue;
			if (!c)
				accept_clients(s, now);
			else if (c->state == CLIENT_READING)
				client_read(s, c, now);
			else if (c->state == CLIENT_WRITING)
				client_send(c, now);
			else if (c->state == CLIENT_DRAINING)
				client_drain(c);
		}
	}
	return 0;
}

void http_server_close(struct http_server *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < HTTP_MAX_CLIENTS; i++)
		client_close(&s->clients[i]);
	if (s->fd >= 0)
		close(s->fd);
	free(s);
}
