// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The tracing loop: a row block per interval until the run ends, and the
 * signals that end it. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cli/loop.h"
#include "common/fail.h"

static volatile sig_atomic_t stop;
static volatile sig_atomic_t child_exited; /* a child ended: run mode's runner, or another */
/* tcptrace's signals are blocked but while it waits, with this mask: one
 * that comes while it works is taken at the next wait, which it ends. */
static sigset_t wait_mask;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void on_child(int sig)
{
	(void)sig;
	child_exited = 1;
}

/* Sleep until the monotonic deadline, or until a signal asks us to stop
 * or run mode's COMMAND has ended; with --listen, answer scrapes meanwhile.
 * Other children (the self-check's, the privilege probe) end before the
 * first wait: their SIGCHLD only wakes the loop once. */
static void sleep_until(struct exporter *exp, struct command *cmd, uint64_t deadline_ns)
{
	while (!stop) {
		struct timespec now, left;
		uint64_t now_ns;

		if (child_exited) {
			child_exited = 0;
			if (cmd && command_done(cmd))
				return;
		}
		if (exp) {
			if (exporter_wait(exp, deadline_ns, &wait_mask) != -EINTR)
				return;
			continue;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		now_ns = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
		if (now_ns >= deadline_ns) {
			/* Behind (a snapshot took longer than the interval): the
			 * signals blocked outside a wait still get in, or a Ctrl-C
			 * would wait until tcptrace caught up, which under a pile-up
			 * it may never do. */
			left = (struct timespec){ 0 };
			ppoll(NULL, 0, &left, &wait_mask);
			return;
		}
		left.tv_sec = (time_t)((deadline_ns - now_ns) / 1000000000ull);
		left.tv_nsec = (long)((deadline_ns - now_ns) % 1000000000ull);
		if (ppoll(NULL, 0, &left, &wait_mask) < 0 && errno != EINTR)
			return;
	}
}

void loop_signals_install(void)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct sigaction child = { .sa_handler = on_child, .sa_flags = SA_NOCLDSTOP };
	sigset_t handled;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigemptyset(&child.sa_mask);
	sigaction(SIGCHLD, &child, NULL);
	/* A closed stdout (tcptrace | head) shows up as EPIPE on write. */
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&handled);
	sigaddset(&handled, SIGINT);
	sigaddset(&handled, SIGTERM);
	sigaddset(&handled, SIGHUP);
	sigaddset(&handled, SIGCHLD);
	sigprocmask(SIG_BLOCK, &handled, &wait_mask);
}

/* Whether every process named by PID has exited, when only PIDs were
 * named (a NAME may come back: nginx -s reload, a haproxy restart). */
static bool targets_gone(const struct tt_options *opts)
{
	if (!opts->n_targets || opts->command)
		return false;
	for (size_t i = 0; i < opts->n_targets; i++)
		if (!opts->targets[i].is_pid || kill((pid_t)opts->targets[i].pid, 0) == 0 ||
		    errno != ESRCH)
			return false;
	return true;
}

/* Once COMMAND has ended, the connections it leaves are still closing:
 * snapshot every 0.1 s until two in a row are equal, for at most 2 s, so
 * that the last row holds the closes the run caused. */
static int settle(struct tracer *t, struct exporter *exp, struct tt_snapshot *cur)
{
	uint64_t until = cur->mono_ns + 2000000000ull;
	struct tt_snapshot next;
	bool same;

	do {
		sleep_until(exp, NULL, cur->mono_ns + 100000000ull);
		if (tracer_snapshot(t, &next))
			return -1;
		same = snapshot_counts_equal(cur, &next);
		snapshot_free(cur);
		*cur = next;
	} while (!same && !stop && cur->mono_ns < until);
	return 0;
}

/* Trace, one row block per interval, until duration, count, a signal,
 * COMMAND's end (run mode), or one interval after the last process named
 * by PID exited (its sockets finish closing after the process is gone). */
int trace_loop(struct tracer *t, const struct tt_options *opts, struct report *rep,
		      struct command *cmd, struct exporter *exp, struct tt_snapshot *first,
		      struct tt_snapshot *last)
{
	uint64_t start = first->mono_ns, end = start + opts->duration_ms * 1000000ull;
	struct tt_snapshot prev = *first;
	struct tt_row *rows = NULL;
	struct tt_dest_row *dests = NULL;
	uint64_t ticks = 0;
	bool last_tick = false, cmd_ended = false, gone = false;
	int err = 0;

	*last = *first;
	while (!stop) {
		uint64_t deadline = start + (ticks + 1) * opts->interval_ms * 1000000ull;
		struct tt_snapshot cur;
		struct tt_dest_row *grown_dests;
		struct tt_row *grown;
		struct timespec wall;
		size_t n, n_dests;

		if (opts->duration_ms && deadline > end)
			deadline = end;
		sleep_until(exp, cmd, deadline);
		cmd_ended = cmd && command_done(cmd);
		if (tracer_snapshot(t, &cur) || (cmd_ended && settle(t, exp, &cur))) {
			err = tt_die(TT_EXIT_RUNTIME, "%s", t->err);
			break;
		}
		clock_gettime(CLOCK_REALTIME, &wall);
		grown = realloc(rows, (cur.n ? cur.n : 1) * sizeof(*rows));
		if (grown)
			rows = grown;
		grown_dests = realloc(dests, (cur.n_dests ? cur.n_dests : 1) * sizeof(*dests));
		if (grown_dests)
			dests = grown_dests;
		if (!grown || !grown_dests) {
			snapshot_free(&cur);
			err = tt_die(TT_EXIT_RUNTIME, "out of memory");
			break;
		}
		n = snapshot_diff(&prev, &cur, rows, cur.n);
		n_dests = dests_diff(&prev, &cur, dests, cur.n_dests);
		if (exp)
			exporter_interval(exp, rows, n, dests, n_dests, &prev, &cur);
		err = report_interval(rep, rows, n, dests, n_dests, &wall,
				      (double)(cur.mono_ns - start) / 1e9);
		if (prev.mono_ns != first->mono_ns)
			snapshot_free(&prev);
		prev = cur;
		*last = cur;
		ticks++;
		if (err == -EPIPE) {
			err = TT_EXIT_OK; /* the reader went away: finish quietly */
			break;
		}
		if (err) {
			if (rep->csv_failed && opts->csv_path && strcmp(opts->csv_path, "-") != 0)
				err = tt_die(TT_EXIT_RUNTIME, "cannot write CSV file '%s': %s",
					  opts->csv_path, strerror(-err));
			else if (rep->json_failed && opts->json_path &&
				 strcmp(opts->json_path, "-") != 0)
				err = tt_die(TT_EXIT_RUNTIME, "cannot write JSON file '%s': %s",
					  opts->json_path, strerror(-err));
			else
				err = tt_die(TT_EXIT_RUNTIME, "cannot write to stdout: %s", strerror(-err));
			break;
		}
		if ((opts->count && ticks >= opts->count) ||
		    (opts->duration_ms && cur.mono_ns >= end) || last_tick || cmd_ended)
			break;
		if (!gone && targets_gone(opts)) {
			/* A daemon keeps serving the last counts until it is stopped. */
			fprintf(stderr, "tcptrace: the traced processes have exited%s\n",
				exp ? "; /metrics keeps their counts until tcptrace is stopped" : "");
			gone = true;
			last_tick = !exp;
		}
	}
	free(rows);
	free(dests);
	return err;
}

