// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* tcptrace: per process, how TCP connections open, end and fail, every
 * interval. main() is the life cycle: parse, resolve, open the outputs,
 * start up (startup.c: open, load, attach, seed, self-check), loop
 * (loop.c), summarise (summary.c), clean up in reverse. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "cli/loop.h"
#include "cli/outputs.h"
#include "cli/session.h"
#include "cli/startup.h"
#include "cli/summary.h"
#include "cli/targets.h"
#include "common/cgroup_name.h"
#include "common/fail.h"
#include "common/test_hooks.h"
#include "offline/compare_cli.h"
#include "offline/report_cli.h"
#include "tracer/netns_broker.h"

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

/* The options, or an exit status: usage, --help, --version. */
static int options_read(struct tt_options *opts, int argc, char **argv)
{
	char err[TT_ERR_LEN * 2];

	if (options_parse(argc, argv, opts, err, sizeof(err))) {
		fprintf(stderr, "tcptrace: %s (see tcptrace --help)\n", err);
		return TT_EXIT_USAGE;
	}
	if (opts->help)
		fputs(tt_usage, stdout);
	if (opts->version)
		puts("tcptrace " TCPTRACE_VERSION);
	return opts->help || opts->version ? TT_EXIT_OK : -1;
}

/* What the kernel and the machine must give before anything is opened. */
static int machine_check(const struct tt_options *opts)
{
	char cgroup_root[4096];

	if (opts->by_cgroup && cgroup2_mount(cgroup_root, sizeof(cgroup_root)))
		return tt_die(TT_EXIT_USAGE, "--by cgroup needs cgroup v2: no cgroup2 mount of "
			      "the whole hierarchy in /proc/self/mountinfo");
	if (access(BTF_PATH, R_OK))
		return tt_die(TT_EXIT_USAGE, "kernel BTF not found at %s: %s (tcptrace needs a "
			      "kernel built with CONFIG_DEBUG_INFO_BTF=y)", BTF_PATH, strerror(errno));
	return TT_EXIT_OK;
}

static void session_init(struct session *s)
{
	memset(s, 0, sizeof(*s));
	s->cmd.runner = -1;
	s->check.go[0] = s->check.go[1] = -1;
	s->check.report[0] = s->check.report[1] = -1;
	s->scope.cgroup_fd = -1;
	s->clock.begun_ns = monotonic_ns();
}

/* All that s holds, released in reverse; the run's exit status: ret, or
 * the first failure met on the way (COMMAND's status, a file not closed). */
static int clean_up(struct session *s, int ret)
{
	/* The last snapshot is the first's copy when no interval was taken. */
	if (s->last.mono_ns != s->first.mono_ns)
		snapshot_free(&s->last);
	snapshot_free(&s->first);
	selfcheck_stop(&s->check);
	free(s->targets.in_scope);
	if (s->cmd_prepared) {
		int status = command_finish(&s->cmd);

		if (ret == TT_EXIT_OK)
			ret = status;
	}
	tracer_close(&s->t);
	netns_broker_stop();
	scope_close(&s->scope);
	exporter_close(&s->exp);
	return outputs_close(s, ret);
}

int main(int argc, char **argv)
{
	static struct session s; /* large: not on the stack */
	const struct tt_options *opts = &s.opts;
	char err[TT_ERR_LEN * 2];
	int ret;

	if (argc > 1 && !strcmp(argv[1], "compare"))
		return compare_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "report"))
		return report_main(argc - 1, argv + 1);
	session_init(&s);
	if ((ret = options_read(&s.opts, argc, argv)) >= 0 || (ret = targets_resolve(&s)))
		return ret;
	if (scope_resolve(&s.scope, opts->cgroup, opts->unit, opts->netns, err, sizeof(err)))
		return tt_die(TT_EXIT_USAGE, "%s", err);
	if ((ret = machine_check(opts)))
		return ret;
	/* Bound while still root (a port below 1024), kept after the drop. */
	if (opts->listen_addr.set &&
	    exporter_open(&s.exp, &opts->listen_addr, opts->max_comms, opts->by_dest,
			  opts->by_cgroup, &s.t.reason_names, err, sizeof(err)))
		return tt_die(TT_EXIT_USAGE, "%s", err);
	if ((ret = outputs_open(&s)))
		return clean_up(&s, ret);
	libbpf_set_print(libbpf_print);
	/* Before the slow part: a Ctrl-C while loading must not be lost (and
	 * a shell starts background jobs with SIGINT ignored). */
	loop_signals_install();
	/* The runner is forked before any BPF object exists, so it never
	 * holds one: a SIGKILLed tcptrace leaves nothing attached. */
	if (opts->command && command_prepare(&s.cmd, opts->command, err, sizeof(err)))
		return clean_up(&s, tt_die(TT_EXIT_RUNTIME, "%s", err));
	s.cmd_prepared = opts->command != NULL;
	if ((ret = startup_trace(&s)) || (ret = startup_go_live(&s)))
		return clean_up(&s, ret);

	ret = trace_loop(&s.t, opts, &s.rep, opts->command ? &s.cmd : NULL,
			 opts->listen_addr.set ? &s.exp : NULL, &s.first, &s.last);
	summary_print(&s.t, &s.rep, &s.first, &s.last, s.rep.table ? s.rep.table : stderr);
	if (tt_test_hooks()->sockets_left)
		tracer_print_sockets_left(&s.t, stderr);
	if (ret == TT_EXIT_OK)
		summary_print_resources(&s.t, opts->max_sockets);
	return clean_up(&s, ret);
}
