// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* tcptrace: per-process TCP connection endings, TIME_WAIT and port
 * exhaustion, every interval. main() is the life cycle: parse, resolve,
 * open, load, attach, seed, self-check, loop, summarise, clean up. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "cli/command.h"
#include "offline/compare.h"
#include "output/exporter.h"
#include "cli/options.h"
#include "cli/privileges.h"
#include "cli/proc_match.h"
#include "common/procfs.h"
#include "output/findings.h"
#include "output/report.h"
#include "offline/report_cli.h"
#include "tracer/selfcheck.h"
#include "tracer/tracer.h"

#define BTF_PATH "/sys/kernel/btf/vmlinux"

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

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	/* tcptrace says what failed in one line of its own; the verifier's
	 * log and libbpf's chatter only on request. */
	(void)level;
	if (!getenv("TCPTRACE_DEBUG"))
		return 0;
	return vfprintf(stderr, fmt, args);
}

static int die(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int die(int code, const char *fmt, ...)
{
	va_list ap;

	fputs("tcptrace: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return code;
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
		if (now_ns >= deadline_ns)
			return;
		left.tv_sec = (time_t)((deadline_ns - now_ns) / 1000000000ull);
		left.tv_nsec = (long)((deadline_ns - now_ns) % 1000000000ull);
		if (ppoll(NULL, 0, &left, &wait_mask) < 0 && errno != EINTR)
			return;
	}
}

/* VmHWM of /proc/self/status, in KiB (0 if unreadable). */
static uint64_t peak_rss_kib(void)
{
	uint64_t kib = 0;

	proc_read_field("/proc/self/status", "VmHWM:", &kib);
	return kib;
}

static void install_signals(void)
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
static int trace_loop(struct tracer *t, const struct tt_options *opts, struct report *rep,
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
			err = die(TT_EXIT_RUNTIME, "%s", t->err);
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
			err = die(TT_EXIT_RUNTIME, "out of memory");
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
				err = die(TT_EXIT_RUNTIME, "cannot write CSV file '%s': %s",
					  opts->csv_path, strerror(-err));
			else if (rep->json_failed && opts->json_path &&
				 strcmp(opts->json_path, "-") != 0)
				err = die(TT_EXIT_RUNTIME, "cannot write JSON file '%s': %s",
					  opts->json_path, strerror(-err));
			else
				err = die(TT_EXIT_RUNTIME, "cannot write to stdout: %s", strerror(-err));
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

/* What --pid and the map sizes ask of the tracer. */
static void tracer_config_of(const struct tt_options *opts, struct tracer_config *cfg,
			     uint32_t pids[TT_MAX_TRACED], char comms[][TT_COMM_LEN])
{
	memset(cfg, 0, sizeof(*cfg));
	for (size_t i = 0; i < opts->n_targets; i++) {
		const struct tt_target *target = &opts->targets[i];

		if (target->is_pid)
			pids[cfg->n_pids++] = target->pid;
		else
			memcpy(comms[cfg->n_comms++], target->name, TT_COMM_LEN);
	}
	cfg->pids = pids;
	cfg->comms = (const char (*)[TT_COMM_LEN])comms;
	cfg->max_sockets = opts->max_sockets;
	cfg->max_procs = opts->max_procs;
	cfg->by_dest = opts->by_dest;
	cfg->catch_nested = opts->catch_nested;
	cfg->verbose = opts->verbose;
}

/* --verbose: the steps from launch to "tracing", each ending at a mark. */
enum startup_step { STEP_OPEN, STEP_LOAD, STEP_ATTACH, STEP_SEED, STEP_SELFCHECK, STEPS };

struct startup_clock {
	uint64_t begun_ns;
	uint64_t ended_ns[STEPS];
};

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void startup_mark(struct startup_clock *clock, enum startup_step step)
{
	clock->ended_ns[step] = monotonic_ns();
}

static void print_startup(const struct startup_clock *clock)
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

static void print_verifier_stats(const struct tracer *t)
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
}

static void print_summary(struct tracer *t, struct report *rep, const struct tt_snapshot *first,
			  const struct tt_snapshot *last, FILE *f)
{
	struct tt_row *totals = calloc(last->n ? last->n : 1, sizeof(*totals));
	struct tt_listener_row *listeners =
		calloc(last->n_listeners ? last->n_listeners : 1, sizeof(*listeners));
	struct findings_input found = {};
	static const char *const drop_what[TT_DROPS] = {
		[TT_DROP_SOCK_MAP_FULL] = "sockets not followed, the socket map was full: raise --max-sockets",
		[TT_DROP_PROC_MAP_FULL] = "events lost, the process map was full: raise --max-procs",
		[TT_DROP_TW_MAP_FULL] = "timewait owners not recorded: raise --max-sockets",
		[TT_DROP_REASON_MAP_FULL] = "RST reasons not counted: raise --max-procs",
		[TT_DROP_DEST_MAP_FULL] = "destination rows not counted: raise --max-procs",
		[TT_DROP_LISTENER_RECORD] = "listener closes not recorded: their last drops lost",
	};
	struct tt_dest_row *dests = calloc(last->n_dests ? last->n_dests : 1, sizeof(*dests));
	uint64_t lost, unattached;
	int attach_error;
	size_t n;

	if (!totals || !dests || !listeners) {
		free(totals);
		free(dests);
		free(listeners);
		return;
	}
	found.rows = totals;
	found.n = n = snapshot_diff(first, last, totals, last->n);
	for (size_t i = 0; i < n; i++)
		totals[i].instance = proc_instance("/proc", totals[i].pid, totals[i].comm);
	found.listeners = listeners;
	found.n_listeners = listeners_diff(first, last, listeners, last->n_listeners);
	report_summary(f, totals, n, (double)(last->mono_ns - first->mono_ns) / 1e9,
		       &t->reason_names, t->reasons_available);
	report_listeners(f, listeners, found.n_listeners, t->listen_drops_exact);
	if (t->cfg.by_dest) {
		found.dests = dests;
		found.n_dests = dests_diff(first, last, dests, last->n_dests);
		report_dest_summary(f, dests, found.n_dests);
	}
	report_other_rsts(f, first, last, &t->reason_names);
	if (report_findings(rep, f, &found))
		fprintf(stderr, "tcptrace: cannot write the findings to the JSON lines\n");
	for (int i = 0; i < TT_DROPS; i++)
		if (last->drops[i] > first->drops[i])
			fprintf(stderr, "tcptrace: %llu %s\n",
				(unsigned long long)(last->drops[i] - first->drops[i]), drop_what[i]);
	lost = last->lost - first->lost;
	if (lost)
		fprintf(stderr, "tcptrace: %llu events lost: the kernel skipped a program already "
				"running on the same CPU%s\n", (unsigned long long)lost,
			t->cfg.catch_nested ? "" : " (--catch-nested catches most)");
	unattached = tracer_read_hook_failures(t, &attach_error);
	if (unattached)
		fprintf(stderr, "tcptrace: the read hook could not be attached %llu times (%s): "
				"connections of shared listeners were counted at their close\n",
			(unsigned long long)unattached, strerror(attach_error));
	if (t->cfg.catch_nested)
		fprintf(stderr, "tcptrace: %llu events nested in a running program, counted by "
				"its twin (--catch-nested)\n",
			(unsigned long long)tracer_nested_caught(t));
	free(totals);
	free(dests);
	free(listeners);
}

int main(int argc, char **argv)
{
	struct tt_options opts;
	struct tracer t = {};
	struct tracer_config cfg;
	uint32_t target_pids[TT_MAX_TRACED];
	char target_comms[TT_MAX_TRACED][TT_COMM_LEN];
	struct report rep = {};
	struct command cmd = { .runner = -1 };
	struct exporter exp = {};
	struct selfcheck check = { .go = { -1, -1 }, .report = { -1, -1 } };
	uint32_t hidden[2];
	size_t n_hidden;
	bool cmd_prepared = false;
	FILE *csv_file = NULL, *json_file = NULL;
	struct tt_snapshot first, last;
	struct startup_clock clock = { .begun_ns = monotonic_ns() };
	uint32_t pids[TT_MAX_TRACED * 4], rematched[TT_MAX_TRACED * 4];
	bool found[TT_MAX_TRACED] = { false };
	size_t n_pids = 0, n_rematched = 0;
	bool tracing_started = false;
	char err[512];
	int ret;

	if (argc > 1 && !strcmp(argv[1], "compare"))
		return compare_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "report"))
		return report_main(argc - 1, argv + 1);
	if (options_parse(argc, argv, &opts, err, sizeof(err))) {
		fprintf(stderr, "tcptrace: %s (see tcptrace --help)\n", err);
		return TT_EXIT_USAGE;
	}
	if (opts.help) {
		fputs(tt_usage, stdout);
		return TT_EXIT_OK;
	}
	if (opts.version) {
		puts("tcptrace " TCPTRACE_VERSION);
		return TT_EXIT_OK;
	}
	/* A NAME not running yet is counted from its start (in run mode,
	 * COMMAND may start it), unless --strict. */
	if (opts.n_targets && proc_match("/proc", opts.targets, opts.n_targets,
					 opts.strict && !opts.command ? NULL : found, pids,
					 sizeof(pids) / sizeof(pids[0]), &n_pids, err, sizeof(err)))
		return die(TT_EXIT_USAGE, "%s", err);
	for (size_t i = 0; i < opts.n_targets && !opts.strict && !opts.command; i++)
		if (!found[i])
			fprintf(stderr, "tcptrace: no process named '%s' yet: counted from its "
					"start (--strict refuses instead)\n", opts.targets[i].name);
	if (access(BTF_PATH, R_OK))
		return die(TT_EXIT_USAGE, "kernel BTF not found at %s: %s (tcptrace needs a kernel "
			   "built with CONFIG_DEBUG_INFO_BTF=y)", BTF_PATH, strerror(errno));
	/* Bound while still root (a port below 1024), kept after the drop. */
	if (opts.listen_addr.set &&
	    exporter_open(&exp, &opts.listen_addr, opts.max_comms, opts.by_dest,
			  &t.reason_names, err, sizeof(err)))
		return die(TT_EXIT_USAGE, "%s", err);
	if (opts.csv_path && !strcmp(opts.csv_path, "-")) {
		rep.csv = stdout;
	} else {
		rep.table = stdout;
		if (opts.csv_path && !(csv_file = fopen(opts.csv_path, "we"))) {
			ret = die(TT_EXIT_USAGE, "cannot write CSV file '%s': %s", opts.csv_path,
				  strerror(errno));
			goto cleanup;
		}
		rep.csv = csv_file;
	}
	if (opts.json_path && !strcmp(opts.json_path, "-")) {
		rep.json = stdout;
		rep.table = NULL;
	} else if (opts.json_path && !(rep.json = json_file = fopen(opts.json_path, "we"))) {
		ret = die(TT_EXIT_USAGE, "cannot write JSON file '%s': %s", opts.json_path,
			  strerror(errno));
		goto cleanup;
	}
	if (opts.listen_addr.set)
		rep.table = NULL; /* a daemon: /metrics instead of the table */
	rep.names = &t.reason_names;
	rep.by_dest = opts.by_dest;
	libbpf_set_print(libbpf_print);
	/* Before the slow part: a Ctrl-C while loading must not be lost (and
	 * a shell starts background jobs with SIGINT ignored). */
	install_signals();
	/* The runner is forked before any BPF object exists, so it never
	 * holds one: a SIGKILLed tcptrace leaves nothing attached. */
	if (opts.command) {
		if (command_prepare(&cmd, opts.command, err, sizeof(err))) {
			ret = die(TT_EXIT_RUNTIME, "%s", err);
			goto cleanup;
		}
		cmd_prepared = true;
	}

	/* Like the runner, before any BPF object exists. */
	if (selfcheck_start(&check, err, sizeof(err))) {
		ret = die(TT_EXIT_RUNTIME, "%s", err);
		goto cleanup;
	}
	ret = TT_EXIT_BPF;
	tracer_config_of(&opts, &cfg, target_pids, target_comms);
	if (tracer_open(&t, &cfg)) {
		die(ret, "%s", t.err);
		goto cleanup;
	}
	startup_mark(&clock, STEP_OPEN);
	if ((ret = tracer_load(&t))) {
		ret = ret == -EPERM ? TT_EXIT_USAGE : TT_EXIT_BPF;
		die(ret, "%s%s", t.err, ret == TT_EXIT_USAGE ?
			" (tcptrace needs root)" : "");
		goto cleanup;
	}
	startup_mark(&clock, STEP_LOAD);
	if (opts.verbose)
		print_verifier_stats(&t);
	ret = TT_EXIT_RUNTIME;
	if (tracer_set_targets(&t)) {
		die(ret, "%s", t.err);
		goto cleanup;
	}
	/* Attached first, then what is already there is read: a process or
	 * socket that comes meanwhile is seen by the programs, by the scan,
	 * or by both, and counted once. Names are matched again for the scan:
	 * loading takes long enough for a server to start. */
	if (tracer_attach(&t)) {
		ret = die(TT_EXIT_BPF, "%s", t.err);
		goto cleanup;
	}
	startup_mark(&clock, STEP_ATTACH);
	if (opts.n_targets && !proc_match("/proc", opts.targets, opts.n_targets, found, rematched,
					  sizeof(rematched) / sizeof(rematched[0]), &n_rematched,
					  err, sizeof(err))) {
		memcpy(pids, rematched, n_rematched * sizeof(pids[0]));
		n_pids = n_rematched;
	}
	t.selected = pids;
	t.n_selected = n_pids;
	n_hidden = selfcheck_pids(&check, hidden);
	if (tracer_seed(&t, pids, n_pids, opts.n_targets == 0, hidden, n_hidden)) {
		die(ret, "%s", t.err);
		goto cleanup;
	}
	startup_mark(&clock, STEP_SEED);
	if (selfcheck_run(&check, &t, err, sizeof(err))) {
		ret = die(TT_EXIT_BPF, "%s", err);
		goto cleanup;
	}
	startup_mark(&clock, STEP_SELFCHECK);
	if (tracer_snapshot(&t, &first)) {
		die(ret, "%s", t.err);
		goto cleanup;
	}
	report_csv_header(&rep);
	if (opts.listen_addr.set)
		fprintf(stderr, "tcptrace: serving http://%s/metrics\n", exporter_address(&exp));
	fprintf(stderr, "tcptrace: tracing %s, %llu existing sockets found, %s; %s\n",
		opts.n_targets ? "the named processes" : "every process",
		(unsigned long long)t.seeded, tracer_acceptors(&t),
		opts.command ? "running the command" : "Ctrl-C to stop");
	if (opts.verbose)
		print_startup(&clock);
	if (opts.command && command_start(&cmd, opts.command, err, sizeof(err))) {
		die(TT_EXIT_RUNTIME, "%s", err);
		ret = command_finish(&cmd);
		cmd_prepared = false;
		snapshot_free(&first);
		goto cleanup;
	}
	/* After COMMAND's start, whose failure must still remove the CSV file. */
	if (privileges_drop(tracer_map_fd(&t), err, sizeof(err))) {
		ret = die(TT_EXIT_RUNTIME, "%s", err);
		snapshot_free(&first);
		goto cleanup;
	}
	if (tracer_watch(&t)) {
		ret = die(TT_EXIT_RUNTIME, "%s", t.err);
		snapshot_free(&first);
		goto cleanup;
	}
	tracing_started = true;

	ret = trace_loop(&t, &opts, &rep, opts.command ? &cmd : NULL,
			 opts.listen_addr.set ? &exp : NULL, &first, &last);
	print_summary(&t, &rep, &first, &last, rep.table ? rep.table : stderr);
	if (ret == TT_EXIT_OK)
		fprintf(stderr, "tcptrace: BPF maps %.1f MiB (--max-sockets %u), peak RSS %.1f MiB\n",
			(double)tracer_map_bytes(&t) / (1 << 20), opts.max_sockets,
			(double)peak_rss_kib() / 1024);
	if (last.mono_ns != first.mono_ns)
		snapshot_free(&last);
	snapshot_free(&first);

cleanup:
	selfcheck_stop(&check);
	if (cmd_prepared) {
		int status = command_finish(&cmd);

		if (ret == TT_EXIT_OK)
			ret = status;
	}
	tracer_close(&t);
	exporter_close(&exp);
	if (json_file) {
		if (fclose(json_file) && ret == TT_EXIT_OK)
			ret = die(TT_EXIT_RUNTIME, "cannot write JSON file '%s': %s", opts.json_path,
				  strerror(errno));
		if (!tracing_started)
			unlink(opts.json_path);
	}
	if (csv_file) {
		if (fclose(csv_file) && ret == TT_EXIT_OK)
			ret = die(TT_EXIT_RUNTIME, "cannot write CSV file '%s': %s", opts.csv_path,
				  strerror(errno));
		/* Never leave an empty file behind a run that did not start. */
		if (!tracing_started)
			unlink(opts.csv_path);
	}
	return ret;
}
