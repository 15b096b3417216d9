// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* What tt-scenario's files share: the limits, the modes, the configuration
 * the options make, what each side counts, and the helpers of sockets.c.
 * main.c says what the program does. */
#ifndef TT_SCENARIO_H
#define TT_SCENARIO_H

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
#include "tcpinfo.h"

#define IO_TIMEOUT_MS 10000	/* any single blocking step */
/* An accept: the first waits for the test to start tcptrace, then the
 * client, which a loaded machine may take more than IO_TIMEOUT_MS to do. */
#define ACCEPT_TIMEOUT_S 40
#define HOLD_LIMIT_S 60		/* hold: longest wait for SIGUSR1 */
#define MAX_COUNT 100000
#define MAX_BYTES (64L << 20) /* --bytes */
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

extern const char *const mode_names[];

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
	long bytes;    /* keepalive --bytes: payload after each ping and pong */
	long give_up_ms; /* connects: how long a connect is given before close() */
	long bind_port;  /* connects --bind-port: bound to the wildcard address first; -1: not */
	bool blocking;   /* connects --blocking: connect() waits for the result */
	bool ask_again;  /* connects --ask-again: the result asked of connect() again */
};

struct server_counts {
	long accepted;
	long rst_seen;
	long eof;
	long errors;
	long closed_in_syn_recv; /* Fast Open children closed before the handshake's last ACK */
	long queued;             /* connections that said "prep": made before the workers */
	long requests;           /* keepalive: round trips answered */
	long segs_out, retrans;  /* keepalive: tcp_sent_counts() of its connections, summed */
};

struct client_counts {
	long timed_out; /* burst: neither connected nor refused within --wait */
	long connected;
	long eaddrnotavail;
	long refused;
	long rst_seen;
	long other_errors;
	long requests; /* keepalive: round trips done */
	long segs_out, retrans; /* keepalive: tcp_sent_counts() of its connections, summed */
	/* connects: by how each connect ended */
	long etimedout, unreachable, abandoned;
	/* connects: errors connect() returned itself (non-blocking: before any
	 * SYN), and bind()'s EADDRINUSE (--bind-port) */
	long enetunreach, ehostunreach, eacces, einval, eperm, eaddrinuse;
	long slow;      /* connected after more than a second, by the client's clock */
	long syn_again; /* connected after a SYN sent again (TCP_INFO) */
};

enum end_kind { END_EOF, END_RST, END_ERROR };

/* options.c: 0, or the exit status of a bad command line (2) */
int parse_args(int argc, char **argv, struct config *cfg);

/* sockets.c: the first problem noted, for the one stderr line at the end */
extern char first_error[256];
void note_error(const char *fmt, ...);

/* sockets.c: the steps of a connection both sides take */
int write_file_atomic(const char *path, const char *text);
int set_timeouts(int fd);
int set_linger0(int fd);
int set_linger2_abort(int fd);
int wait_fin_wait2(int fd);
int wait_reset_after_eof(int fd);
int wait_acked(int fd);
const char *errno_text(int err);
int send_msg(int fd, const char *msg);
int recv4(int fd, char buf[4]);
int recv_msg(int fd, const char *msg);
enum end_kind read_until_end(int fd, const char *who, long i);
int recv_request(int fd, long *preopened);
int send_payload(int fd, long n);
int recv_payload(int fd, long n);
void note_sent_counts(int fd, long *segs_out, long *retrans);
const char *msg_error_text(int err);
void wait_for_release(void);

/* server.c, client.c: one side of the scenario; its exit status */
int run_server(const struct config *cfg);
int run_client(const struct config *cfg);

#endif
