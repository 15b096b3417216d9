// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests of the /metrics HTTP server: request parsing, content
 * negotiation, routing and the response head as pure functions; then the
 * server itself on a loopback port (no root needed), against well-behaved,
 * malformed, oversized, slow and too many clients. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/time.h>
#include "output/http.h"

static enum http_parse parse(const char *text, struct http_request *req)
{
	return http_parse_request(text, strlen(text), req);
}

static void test_get_metrics(void **state)
{
	struct http_request req;

	(void)state;
	assert_int_equal(parse("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", &req), HTTP_PARSE_OK);
	assert_int_equal(req.method, HTTP_GET);
	assert_string_equal(req.path, "/metrics");
	assert_false(req.openmetrics);
	assert_int_equal(http_route(&req), 200);
}

static void test_http_1_0_and_bare_lf_line_ends(void **state)
{
	struct http_request req;

	(void)state;
	assert_int_equal(parse("HEAD /metrics HTTP/1.0\n\n", &req), HTTP_PARSE_OK);
	assert_int_equal(req.method, HTTP_HEAD);
	assert_int_equal(http_route(&req), 200);
}

static void test_headers_not_ended_yet(void **state)
{
	struct http_request req;

	(void)state;
	assert_int_equal(parse("", &req), HTTP_PARSE_INCOMPLETE);
	assert_int_equal(parse("GET /metrics HTTP/1.1\r\n", &req), HTTP_PARSE_INCOMPLETE);
	assert_int_equal(parse("GET /metrics HTTP/1.1\r\nAccept: */*\r\n\r", &req),
			 HTTP_PARSE_INCOMPLETE);
}

static void test_query_string_is_not_part_of_the_path(void **state)
{
	struct http_request req;

	(void)state;
	assert_int_equal(parse("GET /metrics?x=1&y HTTP/1.1\r\n\r\n", &req), HTTP_PARSE_OK);
	assert_string_equal(req.path, "/metrics");
	assert_int_equal(http_route(&req), 200);
}

static void test_routes(void **state)
{
	struct http_request req;

	(void)state;
	assert_int_equal(parse("GET / HTTP/1.1\r\n\r\n", &req), HTTP_PARSE_OK);
	assert_int_equal(http_route(&req), 200);
	assert_int_equal(parse("GET /metricsx HTTP/1.1\r\n\r\n", &req), HTTP_PARSE_OK);
	assert_int_equal(http_route(&req), 404);
	assert_int_equal(parse("GET /metrics/ HTTP/1.1\r\n\r\n", &req), HTTP_PARSE_OK);
	assert_int_equal(http_route(&req), 404);
	assert_int_equal(parse("GET * HTTP/1.1\r\n\r\n", &req), HTTP_PARSE_OK);
	assert_int_equal(http_route(&req), 404);
	assert_int_equal(parse("GET http://h/metrics HTTP/1.1\r\n\r\n", &req), HTTP_PARSE_OK);
	assert_int_equal(http_route(&req), 404);
}

static void test_other_methods_are_not_allowed(void **state)
{
	static const char *const methods[] = { "POST", "PUT", "DELETE", "OPTIONS", "get", "TRACE" };
	char text[64];
	struct http_request req;

	(void)state;
	for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++) {
		snprintf(text, sizeof(text), "%s /metrics HTTP/1.1\r\n\r\n", methods[i]);
		assert_int_equal(parse(text, &req), HTTP_PARSE_OK);
		assert_int_equal(req.method, HTTP_OTHER_METHOD);
		assert_int_equal(http_route(&req), 405);
	}
	assert_int_equal(parse("POST /nowhere HTTP/1.1\r\n\r\n", &req), HTTP_PARSE_OK);
	assert_int_equal(http_route(&req), 404);
}

static void test_path_too_long(void **state)
{
	char text[HTTP_MAX_PATH + 64];
	struct http_request req;

	(void)state;
	snprintf(text, sizeof(text), "GET /%0*d HTTP/1.1\r\n\r\n", HTTP_MAX_PATH - 1, 0);
	assert_int_equal(parse(text, &req), HTTP_PARSE_OK);
	assert_true(req.path_too_long);
	assert_int_equal(http_route(&req), 414);
}

static void test_malformed_requests(void **state)
{
	static const char *const bad[] = {
		"\r\n\r\n",
		"GET\r\n\r\n",
		"GET /metrics\r\n\r\n",                       /* HTTP/0.9 */
		"GET  /metrics HTTP/1.1\r\n\r\n",             /* empty target */
		"GET /metrics HTTP/1.1 \r\n\r\n",
		"GET /metrics http/1.1\r\n\r\n",
		"GET /metrics HTTP/1.10\r\n\r\n",
		"GET /me\x01trics HTTP/1.1\r\n\r\n",
		"G(T /metrics HTTP/1.1\r\n\r\n",              /* not a token */
		"GET /metrics HTTP/1.1\r\nNoColon\r\n\r\n",
		"GET /metrics HTTP/1.1\r\nBad Name: x\r\n\r\n",
		"GET /metrics HTTP/1.1\r\n: empty\r\n\r\n",
		"GET /metrics HTTP/1.1\r\nA: b\r\n folded\r\n\r\n", /* obs-fold */
		"GET /metrics HTTP/1.1\r\nA: b\rc\r\n\r\n",
	};
	struct http_request req;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (parse(bad[i], &req) != HTTP_PARSE_BAD)
			fail_msg("accepted: %s", bad[i]);
}

static void test_nul_byte_is_malformed_even_before_the_end(void **state)
{
	static const char text[] = "GET /metrics HTTP/1.1\r\nA: \0";
	struct http_request req;

	(void)state;
	assert_int_equal(http_parse_request(text, sizeof(text) - 1, &req), HTTP_PARSE_BAD);
}

static void test_other_versions(void **state)
{
	struct http_request req;

	(void)state;
	assert_int_equal(parse("GET /metrics HTTP/2.0\r\n\r\n", &req), HTTP_PARSE_VERSION);
	assert_int_equal(parse("PRI * HTTP/2.0\r\n\r\n", &req), HTTP_PARSE_VERSION);
	assert_int_equal(parse("GET /metrics HTTP/1.2\r\n\r\n", &req), HTTP_PARSE_VERSION);
}

/* What Prometheus 2.42 sends. */
#define PROMETHEUS_ACCEPT                                                                   \
	"application/openmetrics-text;version=1.0.0,application/openmetrics-text;"          \
	"version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"

static bool accepts_om(const char *value)
{
	return http_accepts_openmetrics(value, strlen(value));
}

static void test_negotiation(void **state)
{
	(void)state;
	assert_true(accepts_om(PROMETHEUS_ACCEPT));
	assert_true(accepts_om("application/openmetrics-text"));
	assert_true(accepts_om(" Application/OpenMetrics-Text ; version=1.0.0 ; q=0.9 , text/plain;q=0.9"));
	assert_false(accepts_om(""));
	assert_false(accepts_om("*/*"));
	assert_false(accepts_om("text/plain;version=0.0.4"));
	assert_false(accepts_om("application/openmetrics-text;q=0"));
	assert_false(accepts_om("application/openmetrics-text;q=0.4,text/plain;q=0.5"));
	assert_false(accepts_om("application/openmetrics-text;q=0.5,text/*"));
	assert_false(accepts_om("application/openmetrics-text;q=2"));
	assert_false(accepts_om("application/openmetrics-text;q=0.1234"));
	assert_true(accepts_om("application/openmetrics-text;q=1.000,*/*;q=0.999"));
	assert_false(accepts_om("application/openmetrics-textual"));
}

static void test_accept_header_sets_openmetrics(void **state)
{
	struct http_request req;

	(void)state;
	assert_int_equal(parse("GET /metrics HTTP/1.1\r\naccept: " PROMETHEUS_ACCEPT "\r\n\r\n", &req),
			 HTTP_PARSE_OK);
	assert_true(req.openmetrics);
	assert_int_equal(parse("GET /metrics HTTP/1.1\r\nX-Accept: " PROMETHEUS_ACCEPT "\r\n\r\n",
			       &req),
			 HTTP_PARSE_OK);
	assert_false(req.openmetrics);
}

static void test_response_head(void **state)
{
	char head[512];
	size_t len;

	(void)state;
	len = http_format_head(head, sizeof(head), 200, "text/plain", 42, 1795000000);
	assert_string_equal(head, "HTTP/1.1 200 OK\r\n"
				  "Date: Wed, 18 Nov 2026 11:06:40 GMT\r\n"
				  "Content-Type: text/plain\r\n"
				  "Content-Length: 42\r\n"
				  "Connection: close\r\n"
				  "\r\n");
	assert_int_equal(len, strlen(head));
	http_format_head(head, sizeof(head), 405, "text/plain", 0, 0);
	assert_non_null(strstr(head, "HTTP/1.1 405 Method Not Allowed\r\n"));
	assert_non_null(strstr(head, "\r\nAllow: GET, HEAD\r\n"));
	assert_int_equal(http_format_head(head, 40, 200, "text/plain", 1, 0), 0);
}

/* The server, on a loopback port of its own. */

struct served {
	struct http_server *server;
	uint16_t port;
	int calls;
	bool last_openmetrics;
};

static char *metrics_body(void *ctx, bool openmetrics, size_t *len)
{
	struct served *s = ctx;
	char *body;

	s->calls++;
	s->last_openmetrics = openmetrics;
	body = strdup(openmetrics ? "om 1\n# EOF\n" : "text 1\n");
	*len = body ? strlen(body) : 0;
	return body;
}

static char *no_memory(void *ctx, bool openmetrics, size_t *len)
{
	(void)ctx;
	(void)openmetrics;
	*len = 0;
	return NULL;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void serve_for_ms(struct served *s, unsigned ms)
{
	assert_int_equal(http_server_run(s->server, mono_ns() + ms * 1000000ull, NULL), 0);
}

static int server_setup(void **state)
{
	struct sockaddr_in addr = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct served *s = calloc(1, sizeof(*s));
	char err[256];

	if (!s || http_server_open(&s->server, (struct sockaddr *)&addr, sizeof(addr), metrics_body,
				   s, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		free(s);
		return -1;
	}
	s->port = http_server_port(s->server);
	*state = s;
	return 0;
}

static int server_teardown(void **state)
{
	struct served *s = *state;

	http_server_close(s->server);
	free(s);
	return 0;
}

static int connect_to(uint16_t port)
{
	struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons(port),
				    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&addr, sizeof(addr)), 0);
	assert_int_equal(fcntl(fd, F_SETFL, O_NONBLOCK), 0);
	return fd;
}

static void send_text(int fd, const char *text, size_t len)
{
	assert_int_equal(send(fd, text, len, MSG_NOSIGNAL), (ssize_t)len);
}

/* Serve and read until the server closes (EOF), for at most 3 s; returns
 * what arrived, or NULL when the server reset the connection instead. */
static char *read_reply(struct served *s, int fd)
{
	static char reply[65536];
	size_t len = 0;
	uint64_t give_up = mono_ns() + 3000000000ull;

	while (mono_ns() < give_up) {
		ssize_t n;

		serve_for_ms(s, 5);
		n = recv(fd, reply + len, sizeof(reply) - 1 - len, 0);
		if (n > 0) {
			len += (size_t)n;
			continue;
		}
		if (n == 0)
			break;
		if (errno == ECONNRESET)
			return NULL;
		assert_true(errno == EAGAIN || errno == EWOULDBLOCK);
	}
	reply[len] = '\0';
	return reply;
}

static char *exchange(struct served *s, const char *request)
{
	int fd = connect_to(s->port);
	char *reply;

	send_text(fd, request, strlen(request));
	reply = read_reply(s, fd);
	close(fd);
	return reply;
}

static const char *body_of(const char *reply)
{
	const char *body = strstr(reply, "\r\n\r\n");

	assert_non_null(body);
	return body + 4;
}

static void test_server_serves_metrics_in_the_format_asked(void **state)
{
	struct served *s = *state;
	char *reply;

	reply = exchange(s, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
	assert_non_null(reply);
	assert_non_null(strstr(reply, "HTTP/1.1 200 OK\r\n"));
	assert_non_null(strstr(reply, "\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n"));
	assert_non_null(strstr(reply, "\r\nContent-Length: 7\r\n"));
	assert_non_null(strstr(reply, "\r\nConnection: close\r\n"));
	assert_string_equal(body_of(reply), "text 1\n");
	reply = exchange(s, "GET /metrics HTTP/1.1\r\nAccept: " PROMETHEUS_ACCEPT "\r\n\r\n");
	assert_non_null(reply);
	assert_non_null(strstr(reply, "\r\nContent-Type: application/openmetrics-text; "
				      "version=1.0.0; charset=utf-8\r\n"));
	assert_string_equal(body_of(reply), "om 1\n# EOF\n");
	assert_int_equal(s->calls, 2);
}

static void test_server_head_has_length_and_no_body(void **state)
{
	struct served *s = *state;
	char *reply = exchange(s, "HEAD /metrics HTTP/1.1\r\n\r\n");

	assert_non_null(reply);
	assert_non_null(strstr(reply, "\r\nContent-Length: 7\r\n"));
	assert_string_equal(body_of(reply), "");
}

static void test_server_errors(void **state)
{
	struct served *s = *state;
	char *reply;

	reply = exchange(s, "GET /nope HTTP/1.1\r\n\r\n");
	assert_non_null(reply);
	assert_non_null(strstr(reply, "HTTP/1.1 404 Not Found\r\n"));
	assert_string_equal(body_of(reply), "404 Not Found\n");
	reply = exchange(s, "DELETE /metrics HTTP/1.1\r\n\r\n");
	assert_non_null(reply);
	assert_non_null(strstr(reply, "HTTP/1.1 405 Method Not Allowed\r\n"));
	assert_non_null(strstr(reply, "\r\nAllow: GET, HEAD\r\n"));
	reply = exchange(s, "hello\r\n\r\n");
	assert_non_null(reply);
	assert_non_null(strstr(reply, "HTTP/1.1 400 Bad Request\r\n"));
	reply = exchange(s, "GET /metrics HTTP/3.0\r\n\r\n");
	assert_non_null(reply);
	assert_non_null(strstr(reply, "HTTP/1.1 505 HTTP Version Not Supported\r\n"));
	assert_int_equal(s->calls, 0);
}

/* A request body the server never reads must not turn its close into an
 * RST that destroys the response before the client has read it. */
static void test_server_answer_survives_unread_request_body(void **state)
{
	struct served *s = *state;
	char request[4096 + 64] = { 0 };
	char *reply;

	snprintf(request, sizeof(request), "POST /metrics HTTP/1.1\r\nContent-Length: 4096\r\n\r\n");
	memset(request + strlen(request), 'x', 4096);
	reply = exchange(s, request);
	assert_non_null(reply);
	assert_non_null(strstr(reply, "HTTP/1.1 405 Method Not Allowed\r\n"));
}

static void test_server_refuses_oversized_headers(void **state)
{
	struct served *s = *state;
	char *request = malloc(HTTP_MAX_REQUEST + 100), *reply;
	int fd = connect_to(s->port);

	assert_non_null(request);
	snprintf(request, HTTP_MAX_REQUEST + 100, "GET /metrics HTTP/1.1\r\nX-Big: ");
	memset(request + strlen(request), 'a', HTTP_MAX_REQUEST + 100 - strlen(request));
	/* Sent in pieces: the server reads while the client writes. */
	for (size_t off = 0; off < HTTP_MAX_REQUEST; off += 1024) {
		send_text(fd, request + off, 1024);
		serve_for_ms(s, 5);
	}
	reply = read_reply(s, fd);
	assert_non_null(reply);
	assert_non_null(strstr(reply, "HTTP/1.1 431 Request Header Fields Too Large\r\n"));
	close(fd);
	free(request);
	assert_int_equal(s->calls, 0);
}

/* A request sent a few bytes at a time is served once it is complete. */
static void test_server_request_in_pieces(void **state)
{
	static const char request[] = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
	struct served *s = *state;
	int fd = connect_to(s->port);
	char *reply;

	for (size_t off = 0; off < sizeof(request) - 1; off += 3) {
		size_t n = sizeof(request) - 1 - off < 3 ? sizeof(request) - 1 - off : 3;

		send_text(fd, request + off, n);
		serve_for_ms(s, 2);
	}
	reply = read_reply(s, fd);
	assert_non_null(reply);
	assert_string_equal(body_of(reply), "text 1\n");
	close(fd);
}

/* Clients that connect and send nothing take every slot; a new client is
 * still served, in place of the oldest of them. */
static void test_server_slow_clients_give_way(void **state)
{
	struct served *s = *state;
	int idle[HTTP_MAX_CLIENTS + 4];
	char *reply;

	for (size_t i = 0; i < sizeof(idle) / sizeof(idle[0]); i++) {
		idle[i] = connect_to(s->port);
		serve_for_ms(s, 2);
	}
	reply = exchange(s, "GET /metrics HTTP/1.1\r\n\r\n");
	assert_non_null(reply);
	assert_string_equal(body_of(reply), "text 1\n");
	for (size_t i = 0; i < sizeof(idle) / sizeof(idle[0]); i++)
		close(idle[i]);
}

/* A client that never finishes its request is closed, unanswered, once
 * HTTP_REQUEST_TIMEOUT_MS have passed: on the servers' clock, set ahead,
 * not by waiting (a loaded machine, or valgrind, would stretch a wait). The
 * margin is for the real time the steps take, far less than it. */
static void test_server_closes_a_client_too_slow_to_ask(void **state)
{
	const uint64_t margin_ms = 2000, ms = 1000000ull;
	struct served *s = *state;
	int fd = connect_to(s->port);
	char *reply;

	send_text(fd, "GET /metr", 9);
	serve_for_ms(s, 50); /* accepted, the request begun */
	http_server_test_clock_ahead((HTTP_REQUEST_TIMEOUT_MS - margin_ms) * ms);
	serve_for_ms(s, 5);
	assert_int_equal(recv(fd, &(char){ 0 }, 1, 0), -1); /* still open */
	assert_true(errno == EAGAIN || errno == EWOULDBLOCK);
	http_server_test_clock_ahead((HTTP_REQUEST_TIMEOUT_MS + margin_ms) * ms);
	reply = read_reply(s, fd);
	http_server_test_clock_ahead(0);
	assert_non_null(reply);
	assert_string_equal(reply, "");
	assert_int_equal(recv(fd, &(char){ 0 }, 1, 0), 0); /* closed by the server */
	close(fd);
}

static void test_server_out_of_memory_is_500(void **state)
{
	struct sockaddr_in addr = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct served s = { 0 };
	char err[256], *reply;

	(void)state;
	assert_int_equal(http_server_open(&s.server, (struct sockaddr *)&addr, sizeof(addr),
					  no_memory, NULL, err, sizeof(err)),
			 0);
	s.port = http_server_port(s.server);
	reply = exchange(&s, "GET /metrics HTTP/1.1\r\n\r\n");
	assert_non_null(reply);
	assert_non_null(strstr(reply, "HTTP/1.1 500 Internal Server Error\r\n"));
	http_server_close(s.server);
}

static void test_server_port_in_use_is_one_line(void **state)
{
	struct served *s = *state;
	struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons(s->port),
				    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct http_server *second = NULL;
	char err[256], expected[128];

	snprintf(expected, sizeof(expected), "cannot listen on 127.0.0.1:%u: Address already in use",
		 s->port);
	assert_int_equal(http_server_open(&second, (struct sockaddr *)&addr, sizeof(addr),
					  metrics_body, s, err, sizeof(err)),
			 -EADDRINUSE);
	assert_null(second);
	assert_string_equal(err, expected);
}

static void test_server_address_is_the_bound_one(void **state)
{
	struct served *s = *state;
	char expected[64];

	snprintf(expected, sizeof(expected), "127.0.0.1:%u", s->port);
	assert_string_equal(http_server_address(s->server), expected);
	assert_true(s->port > 0);
}

static void test_server_returns_at_the_deadline(void **state)
{
	struct served *s = *state;
	uint64_t start = mono_ns();

	assert_int_equal(http_server_run(s->server, start + 200000000ull, NULL), 0);
	assert_true(mono_ns() - start >= 200000000ull);
	assert_int_equal(http_server_run(s->server, start, NULL), 0); /* already past */
}

static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

/* A signal ends the wait at once, so that the caller sees its flags. */
static void test_server_returns_on_a_signal(void **state)
{
	struct served *s = *state;
	struct sigaction sa = { .sa_handler = on_alarm }, old;
	struct itimerval timer = { .it_value = { .tv_usec = 100000 } };
	uint64_t start = mono_ns();

	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGALRM, &sa, &old), 0);
	assert_int_equal(setitimer(ITIMER_REAL, &timer, NULL), 0);
	assert_int_equal(http_server_run(s->server, start + 5000000000ull, NULL), -EINTR);
	assert_int_equal(alarms, 1);
	assert_true(mono_ns() - start < 2000000000ull);
	sigaction(SIGALRM, &old, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_get_metrics),
		cmocka_unit_test(test_http_1_0_and_bare_lf_line_ends),
		cmocka_unit_test(test_headers_not_ended_yet),
		cmocka_unit_test(test_query_string_is_not_part_of_the_path),
		cmocka_unit_test(test_routes),
		cmocka_unit_test(test_other_methods_are_not_allowed),
		cmocka_unit_test(test_path_too_long),
		cmocka_unit_test(test_malformed_requests),
		cmocka_unit_test(test_nul_byte_is_malformed_even_before_the_end),
		cmocka_unit_test(test_other_versions),
		cmocka_unit_test(test_negotiation),
		cmocka_unit_test(test_accept_header_sets_openmetrics),
		cmocka_unit_test(test_response_head),
		cmocka_unit_test_setup_teardown(test_server_serves_metrics_in_the_format_asked,
						server_setup, server_teardown),
		cmocka_unit_test_setup_teardown(test_server_head_has_length_and_no_body,
						server_setup, server_teardown),
		cmocka_unit_test_setup_teardown(test_server_errors, server_setup, server_teardown),
		cmocka_unit_test_setup_teardown(test_server_answer_survives_unread_request_body,
						server_setup, server_teardown),
		cmocka_unit_test_setup_teardown(test_server_refuses_oversized_headers, server_setup,
						server_teardown),
		cmocka_unit_test_setup_teardown(test_server_request_in_pieces, server_setup,
						server_teardown),
		cmocka_unit_test_setup_teardown(test_server_slow_clients_give_way, server_setup,
						server_teardown),
		cmocka_unit_test_setup_teardown(test_server_closes_a_client_too_slow_to_ask,
						server_setup, server_teardown),
		cmocka_unit_test(test_server_out_of_memory_is_500),
		cmocka_unit_test_setup_teardown(test_server_port_in_use_is_one_line, server_setup,
						server_teardown),
		cmocka_unit_test_setup_teardown(test_server_address_is_the_bound_one, server_setup,
						server_teardown),
		cmocka_unit_test_setup_teardown(test_server_returns_at_the_deadline, server_setup,
						server_teardown),
		cmocka_unit_test_setup_teardown(test_server_returns_on_a_signal, server_setup,
						server_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
