// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* --verbose: where the time from launch to "tracing" went. */
#include <stdio.h>
#include <time.h>
#include "cli/startup.h"

uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void startup_mark(struct startup_clock *clock, enum startup_step step)
{
	clock->ended_ns[step] = monotonic_ns();
}

void startup_print(const struct startup_clock *clock)
{
	static const char *const names[STEPS] = { "open", "load", "attach", "seed", "self-check" };
	uint64_t from = clock->begun_ns;

	fprintf(stderr, "tcptrace: start-up %.1f ms:",
		(double)(monotonic_ns() - clock->begun_ns) / 1e6);
	for (int step = 0; step < STEPS; step++) {
		fprintf(stderr, "%s %s %.1f", step ? "," : "", names[step],
			(double)(clock->ended_ns[step] - from) / 1e6);
		from = clock->ended_ns[step];
	}
	fputs(" ms\n", stderr);
}

void verifier_stats_print(const struct tracer *t)
{
	uint64_t insns = 0, usec = 0;

	for (size_t i = 0; i < t->n_prog_stats; i++) {
		const struct tracer_prog_stats *p = &t->prog_stats[i];

		fprintf(stderr, "tcptrace: verifier: %-26s %7llu insns %8.2f ms\n", p->name,
			(unsigned long long)p->verifier.insns, (double)p->verifier.usec / 1e3);
		insns += p->verifier.insns;
		usec += p->verifier.usec;
	}
	fprintf(stderr, "tcptrace: verifier: %-26s %7llu insns %8.2f ms\n", "all programs",
		(unsigned long long)insns, (double)usec / 1e3);
	fprintf(stderr, "tcptrace: followed sockets marked by %s\n",
		t->cookies_mark ? "their cookies" : "a counting filter");
}

