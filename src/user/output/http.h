/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The small HTTP/1.1 server behind --listen: one thread, driven by
 * ppoll() between the intervals of the main loop, one request per
 * connection. Every buffer and every wait is bounded, so a slow, hostile
 * or broken client can delay nothing but itself. */
#ifndef TT_HTTP_H
#define TT_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <signal.h>
#include <stdint.h>
#include <time.h>
#include <sys/socket.h>

#define HTTP_MAX_CLIENTS 16       /* connections served at once */
#define HTTP_MAX_PER_SOURCE 8     /* of them, from one address */
#define HTTP_STALL_MS 1000        /* a response not read for this long may give way */
#define HTTP_MAX_REQUEST 8192     /* request line and headers, bytes */
#define HTTP_MAX_PATH 256
#define HTTP_REQUEST_TIMEOUT_MS 5000  /* from accept to the end of the headers */
#define HTTP_RESPONSE_TIMEOUT_MS 10000 /* to send the response */
#define HTTP_DRAIN_TIMEOUT_MS 1000     /* to read what the client sends after it */
#define HTTP_DRAIN_MAX 65536

/* --listen: where the /metrics endpoint binds. */
struct tt_listen {
	bool set;
	int family;       /* AF_INET or AF_INET6 */
	uint8_t addr[16]; /* network order; IPv4 in the first 4 bytes */
	uint16_t port;    /* host order, 1 to 65535 */
};

enum http_method {
	HTTP_GET,
	HTTP_HEAD,
	HTTP_OTHER_METHOD,
};

struct http_request {
	enum http_method method;
	char path[HTTP_MAX_PATH]; /* the target up to '?', NUL-terminated */
	bool path_too_long;
	bool openmetrics; /* Accept prefers application/openmetrics-text */
};

enum http_parse {
	HTTP_PARSE_INCOMPLETE, /* the headers have not ended yet */
	HTTP_PARSE_OK,
	HTTP_PARSE_BAD,     /* malformed: 400 */
	HTTP_PARSE_VERSION, /* a well-formed version other than HTTP/1.0 and 1.1: 505 */
};

/* Parse the len bytes received so far. */
enum http_parse http_parse_request(const char *buf, size_t len, struct http_request *req);

/* Whether an Accept value prefers OpenMetrics to the 0.0.4 text format:
 * application/openmetrics-text with a q above zero and no lower than the
 * q of text/plain or of a wildcard range. */
bool http_accepts_openmetrics(const char *value, size_t len);

/* The status for a parsed request: 200 for GET or HEAD of / and /metrics,
 * 405 for another method there, 414 for an overlong path, 404 otherwise. */
int http_route(const struct http_request *req);

/* Response head for a status, with Content-Length body_len and
 * Connection: close (and Allow for 405), dated now. Returns its length,
 * or 0 when it does not fit in len bytes. */
size_t http_format_head(char *buf, size_t len, int status, const char *content_type,
			size_t body_len, time_t now);

/* Produces the body of /metrics in the format asked for: malloc'd text the
 * server frees, or NULL when out of memory (the client then gets a 500). */
typedef char *(*http_metrics_fn)(void *ctx, bool openmetrics, size_t *len);

struct http_server;

/* Bind and listen on addr (port 0 picks a free port). Returns 0, or
 * -errno with one line in err naming the address. */
int http_server_open(struct http_server **out, const struct sockaddr *addr, socklen_t addrlen,
		     http_metrics_fn metrics, void *ctx, char *err, size_t errlen);

/* The port the server listens on, host order. */
uint16_t http_server_port(const struct http_server *s);

/* Where it listens: "127.0.0.1:9477" or "[::1]:9477". */
const char *http_server_address(const struct http_server *s);

/* Serve clients until CLOCK_MONOTONIC reaches deadline_ns (returns 0), or
 * until a signal handler has run (returns -EINTR), so that the caller can
 * look at the flags its handlers set before it calls again. The signal
 * mask while waiting is wait_mask (NULL: the process's own): a caller that
 * blocks its signals otherwise gets them only here, and none is missed
 * between its look at the flags and the wait. */
int http_server_run(struct http_server *s, uint64_t deadline_ns, const sigset_t *wait_mask);

/* Tests only: the servers' clock set ns ahead of CLOCK_MONOTONIC (0 in
 * normal use), so that a test reaches a timeout without waiting for it. */
void http_server_test_clock_ahead(uint64_t ns);

/* Close the listener and every client; s may be NULL. */
void http_server_close(struct http_server *s);

#endif /* TT_HTTP_H */
