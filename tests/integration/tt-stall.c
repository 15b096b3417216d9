// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Test helper for tests/integration/run.sh: loads tt_stall.bpf.c for one
 * network namespace (by inode number), local port and hold time, writes
 * READY_FILE once attached, and on SIGTERM, SIGINT or after TIME_LIMIT_S
 * prints "held=N interleaved=N" and exits.
 *
 * Exit codes: 0 ok, 1 the ready file could not be written, 2 usage,
 * 3 BPF load or attach failure. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tt_stall.skel.h"

#define TIME_LIMIT_S 300

static int parse_ulong(const char *s, unsigned long max, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(s, &end, 10);
	return errno || end == s || *end || *out > max ? -1 : 0;
}

int main(int argc, char **argv)
{
	unsigned long netns, port, hold_us;
	struct tt_stall_bpf *skel;
	sigset_t stop;
	FILE *ready;
	int sig;

	if (argc != 5 || parse_ulong(argv[1], 0xffffffffUL, &netns) ||
	    parse_ulong(argv[2], 65535, &port) || parse_ulong(argv[3], 1000000, &hold_us)) {
		fprintf(stderr, "usage: tt-stall NETNS_INODE PORT HOLD_US READY_FILE\n");
		return 2;
	}
	/* Blocked before anything starts, so that an early signal waits. */
	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGALRM);
	sigprocmask(SIG_BLOCK, &stop, NULL);

	skel = tt_stall_bpf__open();
	if (!skel) {
		fprintf(stderr, "tt-stall: cannot open the BPF object: %s\n", strerror(errno));
		return 3;
	}
	skel->rodata->netns = netns;
	skel->rodata->port = port;
	skel->rodata->hold_ns = hold_us * 1000;
	if (tt_stall_bpf__load(skel) || tt_stall_bpf__attach(skel)) {
		fprintf(stderr, "tt-stall: cannot load or attach: %s\n", strerror(errno));
		tt_stall_bpf__destroy(skel);
		return 3;
	}
	ready = fopen(argv[4], "w");
	if (!ready || fputs("ready\n", ready) == EOF || fclose(ready)) {
		fprintf(stderr, "tt-stall: cannot write %s: %s\n", argv[4], strerror(errno));
		tt_stall_bpf__destroy(skel);
		return 1;
	}
	alarm(TIME_LIMIT_S);
	while (sigwait(&stop, &sig))
		;
	printf("held=%llu interleaved=%llu\n", (unsigned long long)skel->bss->held,
	       (unsigned long long)skel->bss->interleaved);
	tt_stall_bpf__destroy(skel);
	return 0;
}
