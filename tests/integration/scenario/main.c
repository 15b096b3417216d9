// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Ground truth for the integration tests: one side (server or client) of a
 * TCP scenario that ends connections in exactly one way (FIN from either
 * side, RST from either side, an RST after the server's FIN, an orphan
 * aborted by the kernel at the client's ACK of that FIN, port
 * exhaustion, refused connects, held connections), or keeps each connection
 * for --requests round trips (keepalive; with --bytes B each ping and pong
 * carries B bytes more, and each end reports what its connections' own
 * tcp_info said of the data segments they sent and sent again). It counts
 * what it saw and prints one key=value summary line
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

#include "scenario.h"

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
