// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* tcptrace: per process, how TCP connections open, end and fail, every
 * interval. main() is the life cycle: parse, resolve, open, load, attach,
 * seed, self-check, loop (loop.c), summarise (summary.c), clean up. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "cli/command.h"
#include "cli/loop.h"
#include "cli/startup.h"
#include "cli/summary.h"
#include "common/cgroup_name.h"
#include "common/fail.h"
#include "offline/compare.h"
#include "cli/options.h"
#include "cli/privileges.h"
#include "cli/proc_match.h"
#include "cli/scope.h"
#include "tracer/netns_broker.h"
#include "output/report.h"
#include "offline/report_cli.h"
#include "tracer/selfcheck.h"
#include "tracer/tracer.h"

#define BTF_PATH "/sys/kernel/btf/vmlinux"

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	/* tcptrace says what failed in one line of its own; the verifier's
	 * log and libbpf's chatter only on request. */
	(void)level;
	if (!getenv("TCPTRACE_DEBUG"))
		return 0;
	return vfprintf(stderr, fmt, args);
}

/* What --pid and the map sizes ask of the tracer. */
static void tracer_config_of(const struct tt_options *opts, const struct tt_scope *scope,
			     struct tracer_config *cfg, uint32_t pids[TT_MAX_TRACED],
			     char comms[][TT_COMM_LEN])
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->scope_cgroup_fd = scope->cgroup_fd;
	cfg->scope_netns = scope->netns;
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
	cfg->by_cgroup = opts->by_cgroup;
	cfg->catch_nested = opts->catch_nested;
	cfg->verbose = opts->verbose;
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
	struct tt_scope scope = { .cgroup_fd = -1 };
	uint32_t *in_scope = NULL;
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
	char err[512], cgroup_root[4096];
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
		return tt_die(TT_EXIT_USAGE, "%s", err);
	for (size_t i = 0; i < opts.n_targets && !opts.strict && !opts.command; i++)
		if (!found[i])
			fprintf(stderr, "tcptrace: no process named '%s' yet: counted from its "
					"start (--strict refuses instead)\n", opts.targets[i].name);
	if (scope_resolve(&scope, opts.cgroup, opts.unit, opts.netns, err, sizeof(err)))
		return tt_die(TT_EXIT_USAGE, "%s", err);
	if (opts.by_cgroup && cgroup2_mount(cgroup_root, sizeof(cgroup_root)))
		return tt_die(TT_EXIT_USAGE, "--by cgroup needs cgroup v2: no cgroup2 mount of the "
			      "whole hierarchy in /proc/self/mountinfo");
	if (access(BTF_PATH, R_OK))
		return tt_die(TT_EXIT_USAGE, "kernel BTF not found at %s: %s (tcptrace needs a kernel "
			   "built with CONFIG_DEBUG_INFO_BTF=y)", BTF_PATH, strerror(errno));
	/* Bound while still root (a port below 1024), kept after the drop. */
	if (opts.listen_addr.set &&
	    exporter_open(&exp, &opts.listen_addr, opts.max_comms, opts.by_dest, opts.by_cgroup,
			  &t.reason_names, err, sizeof(err)))
		return tt_die(TT_EXIT_USAGE, "%s", err);
	if (opts.csv_path && !strcmp(opts.csv_path, "-")) {
		rep.csv = stdout;
	} else {
		rep.table = stdout;
		if (opts.csv_path && !(csv_file = fopen(opts.csv_path, "we"))) {
			ret = tt_die(TT_EXIT_USAGE, "cannot write CSV file '%s': %s", opts.csv_path,
				  strerror(errno));
			goto cleanup;
		}
		rep.csv = csv_file;
	}
	if (opts.json_path && !strcmp(opts.json_path, "-")) {
		rep.json = stdout;
		rep.table = NULL;
	} else if (opts.json_path && !(rep.json = json_file = fopen(opts.json_path, "we"))) {
		ret = tt_die(TT_EXIT_USAGE, "cannot write JSON file '%s': %s", opts.json_path,
			  strerror(errno));
		goto cleanup;
	}
	if (opts.listen_addr.set)
		rep.table = NULL; /* a daemon: /metrics instead of the table */
	rep.names = &t.reason_names;
	rep.by_dest = opts.by_dest;
	rep.scope = scope_is_set(&scope) ? scope.label : NULL;
	libbpf_set_print(libbpf_print);
	/* Before the slow part: a Ctrl-C while loading must not be lost (and
	 * a shell starts background jobs with SIGINT ignored). */
	loop_signals_install();
	/* The runner is forked before any BPF object exists, so it never
	 * holds one: a SIGKILLed tcptrace leaves nothing attached. */
	if (opts.command) {
		if (command_prepare(&cmd, opts.command, err, sizeof(err))) {
			ret = tt_die(TT_EXIT_RUNTIME, "%s", err);
			goto cleanup;
		}
		cmd_prepared = true;
	}

	/* Like the runner, before any BPF object exists. */
	if (selfcheck_start(&check, err, sizeof(err))) {
		ret = tt_die(TT_EXIT_RUNTIME, "%s", err);
		goto cleanup;
	}
	ret = TT_EXIT_BPF;
	tracer_config_of(&opts, &scope, &cfg, target_pids, target_comms);
	if (tracer_open(&t, &cfg)) {
		tt_die(ret, "%s", t.err);
		goto cleanup;
	}
	startup_mark(&clock, STEP_OPEN);
	if ((ret = tracer_load(&t))) {
		ret = ret == -EPERM ? TT_EXIT_USAGE : TT_EXIT_BPF;
		tt_die(ret, "%s%s", t.err, ret == TT_EXIT_USAGE ?
			" (tcptrace needs root)" : "");
		goto cleanup;
	}
	startup_mark(&clock, STEP_LOAD);
	exp.metrics.accept_waits = tracer_times_accepts(&t);
	if (opts.verbose)
		verifier_stats_print(&t);
	ret = TT_EXIT_RUNTIME;
	if (tracer_set_targets(&t)) {
		tt_die(ret, "%s", t.err);
		goto cleanup;
	}
	/* Attached first, then what is already there is read: a process or
	 * socket that comes meanwhile is seen by the programs, by the scan,
	 * or by both, and counted once. Names are matched again for the scan:
	 * loading takes long enough for a server to start. */
	if (tracer_attach(&t)) {
		ret = tt_die(TT_EXIT_BPF, "%s", t.err);
		goto cleanup;
	}
	startup_mark(&clock, STEP_ATTACH);
	if (opts.n_targets && !proc_match("/proc", opts.targets, opts.n_targets, found, rematched,
					  sizeof(rematched) / sizeof(rematched[0]), &n_rematched,
					  err, sizeof(err))) {
		memcpy(pids, rematched, n_rematched * sizeof(pids[0]));
		n_pids = n_rematched;
	}
	if (scope_is_set(&scope) && opts.n_targets)
		n_pids = scope_filter(&scope, pids, n_pids);
	t.selected = pids;
	t.n_selected = n_pids;
	n_hidden = selfcheck_pids(&check, hidden);
	if (scope_is_set(&scope) && !opts.n_targets) {
		in_scope = calloc(TT_SCOPE_MAX_PIDS, sizeof(*in_scope));
		if (!in_scope) {
			tt_die(ret, "out of memory");
			goto cleanup;
		}
		n_pids = scope_pids(&scope, in_scope, TT_SCOPE_MAX_PIDS, hidden, n_hidden);
	}
	if (tracer_seed(&t, in_scope ? in_scope : pids, n_pids,
			opts.n_targets == 0 && !scope_is_set(&scope), hidden, n_hidden)) {
		tt_die(ret, "%s", t.err);
		goto cleanup;
	}
	startup_mark(&clock, STEP_SEED);
	if (selfcheck_run(&check, &t, err, sizeof(err))) {
		ret = tt_die(TT_EXIT_BPF, "%s", err);
		goto cleanup;
	}
	startup_mark(&clock, STEP_SELFCHECK);
	if (tracer_snapshot(&t, &first)) {
		tt_die(ret, "%s", t.err);
		goto cleanup;
	}
	report_csv_header(&rep);
	if (opts.command && command_start(&cmd, opts.command, err, sizeof(err))) {
		tt_die(TT_EXIT_RUNTIME, "%s", err);
		ret = command_finish(&cmd);
		cmd_prepared = false;
		snapshot_free(&first);
		goto cleanup;
	}
	/* It keeps none of tcptrace's files (netns_broker.c). */
	if (!geteuid()) {
		int broker_err = netns_broker_start();

		if (broker_err)
			fprintf(stderr, "tcptrace: no namespace broker (%s): processes that start in "
					"a new network namespace from now on are counted, but their "
					"timewait sockets and ports are not read\n",
				strerror(-broker_err));
	}
	/* After COMMAND's start, whose failure must still remove the CSV file. */
	if (privileges_drop(tracer_map_fd(&t), err, sizeof(err))) {
		ret = tt_die(TT_EXIT_RUNTIME, "%s", err);
		snapshot_free(&first);
		goto cleanup;
	}
	if (tracer_watch(&t)) {
		ret = tt_die(TT_EXIT_RUNTIME, "%s", t.err);
		snapshot_free(&first);
		goto cleanup;
	}
	/* Said once all is set, root dropped included: a script that waits
	 * for this line finds tcptrace as it stays. */
	if (opts.listen_addr.set)
		fprintf(stderr, "tcptrace: serving http://%s/metrics\n", exporter_address(&exp));
	fprintf(stderr, "tcptrace: tracing %s%s%s, %llu existing sockets found, %s; %s\n",
		opts.n_targets ? "the named processes" : "every process",
		scope_is_set(&scope) ? " in " : "", scope.label,
		(unsigned long long)t.seeded, tracer_acceptors(&t),
		opts.command ? "running the command" : "Ctrl-C to stop");
	if (opts.verbose)
		startup_print(&clock);
	tracing_started = true;
	if (getenv("TCPTRACE_TEST_DETACH_AFTER_START"))
		tracer_test_detach(&t, getenv("TCPTRACE_TEST_DETACH_AFTER_START"));

	ret = trace_loop(&t, &opts, &rep, opts.command ? &cmd : NULL,
			 opts.listen_addr.set ? &exp : NULL, &first, &last);
	summary_print(&t, &rep, &first, &last, rep.table ? rep.table : stderr);
	if (getenv("TCPTRACE_TEST_SOCKETS_LEFT"))
		tracer_print_sockets_left(&t, stderr);
	if (ret == TT_EXIT_OK)
		summary_print_resources(&t, opts.max_sockets);
	if (last.mono_ns != first.mono_ns)
		snapshot_free(&last);
	snapshot_free(&first);

cleanup:
	selfcheck_stop(&check);
	free(in_scope);
	if (cmd_prepared) {
		int status = command_finish(&cmd);

		if (ret == TT_EXIT_OK)
			ret = status;
	}
	tracer_close(&t);
	netns_broker_stop();
	scope_close(&scope);
	exporter_close(&exp);
	if (json_file) {
		if (fclose(json_file) && ret == TT_EXIT_OK)
			ret = tt_die(TT_EXIT_RUNTIME, "cannot write JSON file '%s': %s", opts.json_path,
				  strerror(errno));
		if (!tracing_started)
			unlink(opts.json_path);
	}
	if (csv_file) {
		if (fclose(csv_file) && ret == TT_EXIT_OK)
			ret = tt_die(TT_EXIT_RUNTIME, "cannot write CSV file '%s': %s", opts.csv_path,
				  strerror(errno));
		/* Never leave an empty file behind a run that did not start. */
		if (!tracing_started)
			unlink(opts.csv_path);
	}
	return ret;
}
