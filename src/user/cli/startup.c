// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Start-up, from the tracer's open to the "tracing" line, and where its
 * time went. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cli/privileges.h"
#include "cli/startup.h"
#include "cli/targets.h"
#include "common/fail.h"
#include "common/test_hooks.h"
#include "tracer/netns_broker.h"

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


/* What --pid, the scope and the map sizes ask of the tracer. */
static void tracer_config_of(struct session *s)
{
	const struct tt_options *o = &s->opts;
	struct tracer_config *cfg = &s->cfg;

	memset(cfg, 0, sizeof(*cfg));
	cfg->scope_cgroup_fd = s->scope.cgroup_fd;
	cfg->scope_netns = s->scope.netns;
	cfg->scope_netns_path = s->scope.netns_path;
	for (size_t i = 0; i < o->n_targets; i++) {
		const struct tt_target *target = &o->targets[i];

		if (target->is_pid)
			s->cfg_pids[cfg->n_pids++] = target->pid;
		else
			memcpy(s->cfg_comms[cfg->n_comms++], target->name, TT_COMM_LEN);
	}
	cfg->pids = s->cfg_pids;
	cfg->comms = (const char (*)[TT_COMM_LEN])s->cfg_comms;
	cfg->max_sockets = o->max_sockets;
	cfg->max_procs = o->max_procs;
	cfg->by_dest = o->by_dest;
	cfg->by_cgroup = o->by_cgroup;
	cfg->catch_nested = o->catch_nested;
	cfg->verbose = o->verbose;
}

/* Opened and loaded: the kernel has said whether tcptrace may trace. */
static int startup_load(struct session *s)
{
	struct tracer *t = &s->t;
	int err;

	tracer_config_of(s);
	if (tracer_open(t, &s->cfg))
		return tt_die(TT_EXIT_BPF, "%s", t->err);
	startup_mark(&s->clock, STEP_OPEN);
	err = tracer_load(t);
	if (err == -EPERM)
		return tt_die(TT_EXIT_USAGE, "%s (tcptrace needs root)", t->err);
	if (err)
		return tt_die(TT_EXIT_BPF, "%s", t->err);
	startup_mark(&s->clock, STEP_LOAD);
	s->exp.metrics.accept_waits = tracer_times_accepts(t);
	if (s->opts.verbose)
		verifier_stats_print(t);
	if (tracer_set_targets(t))
		return tt_die(TT_EXIT_RUNTIME, "%s", t->err);
	return TT_EXIT_OK;
}

/* Attached first, then what is already there is read: a process or
 * socket that comes meanwhile is seen by the programs, by the scan, or by
 * both, and counted once. */
static int startup_attach_and_seed(struct session *s)
{
	struct tracer *t = &s->t;
	const uint32_t *pids;
	uint32_t hidden[2];
	size_t n_hidden, n_pids;
	int ret;

	if (tracer_attach(t))
		return tt_die(TT_EXIT_BPF, "%s", t->err);
	startup_mark(&s->clock, STEP_ATTACH);
	n_hidden = selfcheck_pids(&s->check, hidden);
	ret = targets_rematch(s, hidden, n_hidden, &pids, &n_pids);
	if (ret)
		return ret;
	t->selected = s->targets.pids;
	t->n_selected = s->targets.n_pids;
	if (tracer_seed(t, pids, n_pids, s->opts.n_targets == 0 && !scope_is_set(&s->scope),
			hidden, n_hidden))
		return tt_die(TT_EXIT_RUNTIME, "%s", t->err);
	startup_mark(&s->clock, STEP_SEED);
	return TT_EXIT_OK;
}

int startup_trace(struct session *s)
{
	char err[TT_ERR_LEN * 2];
	int ret;

	/* Like COMMAND's runner, before any BPF object exists. */
	if (selfcheck_start(&s->check, err, sizeof(err)))
		return tt_die(TT_EXIT_RUNTIME, "%s", err);
	ret = startup_load(s);
	if (ret)
		return ret;
	targets_say_waiting(s);
	ret = startup_attach_and_seed(s);
	if (ret)
		return ret;
	if (selfcheck_run(&s->check, &s->t, err, sizeof(err)))
		return tt_die(TT_EXIT_BPF, "%s", err);
	startup_mark(&s->clock, STEP_SELFCHECK);
	if (tracer_snapshot(&s->t, &s->first))
		return tt_die(TT_EXIT_RUNTIME, "%s", s->t.err);
	/* Before the "tracing" line, which a test's load waits for. */
	if (tt_test_hooks()->detach_after_start)
		tracer_test_detach(&s->t, tt_test_hooks()->detach_after_start);
	return TT_EXIT_OK;
}

int startup_go_live(struct session *s)
{
	const struct tt_options *o = &s->opts;
	char err[TT_ERR_LEN * 2];
	int broker_err;

	report_csv_header(&s->rep);
	if (o->command && command_start(&s->cmd, o->command, err, sizeof(err))) {
		int status;

		tt_die(TT_EXIT_RUNTIME, "%s", err);
		s->cmd_prepared = false;
		status = command_finish(&s->cmd);
		return status ? status : TT_EXIT_RUNTIME;
	}
	/* It keeps none of tcptrace's files (netns_broker.c). */
	if (!geteuid() && (broker_err = netns_broker_start()))
		fprintf(stderr, "tcptrace: no namespace broker (%s): processes that start in a "
				"new network namespace from now on are counted, but their timewait "
				"sockets and ports are not read\n", strerror(-broker_err));
	/* After COMMAND's start, whose failure must still remove the CSV file. */
	if (privileges_drop(tracer_map_fd(&s->t), err, sizeof(err)))
		return tt_die(TT_EXIT_RUNTIME, "%s", err);
	if (tracer_watch(&s->t))
		return tt_die(TT_EXIT_RUNTIME, "%s", s->t.err);
	/* Said once all is set, root dropped included: a script that waits
	 * for this line finds tcptrace as it stays. */
	if (o->listen_addr.set)
		fprintf(stderr, "tcptrace: serving http://%s/metrics\n", exporter_address(&s->exp));
	if (tracer_syscall_hooks_missing(&s->t))
		fprintf(stderr, "tcptrace: connect()s refused before their SYN and bind()s that found "
				"no free port are not counted: %s\n",
			tracer_syscall_hooks_missing(&s->t));
	fprintf(stderr, "tcptrace: tracing %s%s%s, %llu existing sockets found, %s; %s\n",
		o->n_targets ? "the named processes" : "every process",
		scope_is_set(&s->scope) ? " in " : "", s->scope.label,
		(unsigned long long)s->t.seeded, tracer_acceptors(&s->t),
		o->command ? "running the command" : "Ctrl-C to stop");
	if (o->verbose)
		startup_print(&s->clock);
	s->tracing = true;
	return TT_EXIT_OK;
}
