/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Command-line parsing into a plain struct; no side effects besides the
 * error text, so unit tests drive it directly. */
#ifndef TT_OPTIONS_H
#define TT_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "tcptrace.h"
#include "output/http.h"

/* One --pid entry: a numeric PID or a command name (as in /proc/PID/comm). */
struct tt_target {
	bool is_pid;
	uint32_t pid;
	char name[TT_COMM_LEN];
};

/* Process names given series of their own on /metrics (--max-comms). */
#define TT_DEFAULT_MAX_COMMS 256

struct tt_options {
	struct tt_target targets[TT_MAX_TRACED];
	size_t n_targets;     /* 0: every process with TCP activity */
	uint64_t interval_ms; /* -i or the first argument, default 1000 */
	uint64_t duration_ms; /* -d, 0 when not given */
	uint64_t count;       /* -c or the second argument, 0 when not given */
	const char *csv_path; /* --csv, NULL when not given, "-" for stdout */
	const char *json_path; /* --json, NULL when not given, "-" for stdout */
	struct tt_listen listen_addr; /* --listen */
	uint32_t max_comms;   /* --max-comms, default TT_DEFAULT_MAX_COMMS */
	uint32_t max_sockets; /* --max-sockets, default TT_DEFAULT_MAX_SOCKETS */
	uint32_t max_procs;   /* --max-procs, default TT_DEFAULT_MAX_PROCS */
	char **command;       /* run mode: what follows "--", NULL-terminated */
	const char *cgroup;   /* --cgroup PATH, NULL when not given */
	const char *unit;     /* --unit NAME, NULL when not given */
	const char *netns;    /* --netns PATH|PID, NULL when not given */
	bool by_dest;         /* --by dest: rows per process and destination */
	bool by_cgroup;       /* --by cgroup: /metrics series per name and cgroup */
	bool catch_nested;    /* --catch-nested: twin programs (nested.bpf.h) */
	bool verbose;         /* --verbose: start-up times on stderr */
	bool strict;          /* --strict: a -p NAME not running is an error */
	bool help;            /* -h: print usage and exit 0 */
	bool version;         /* -V */
};

enum tt_exit {
	TT_EXIT_OK = 0,
	TT_EXIT_RUNTIME = 1,
	TT_EXIT_USAGE = 2,
	TT_EXIT_BPF = 3,
};

/* Parse argv. Returns 0 on success; on bad input returns -1 and writes one
 * line (no trailing newline, no "tcptrace: " prefix) into err. */
int options_parse(int argc, char **argv, struct tt_options *opts, char *err, size_t errlen);

/* Usage text, for -h and after a usage error. */
extern const char tt_usage[];

#endif /* TT_OPTIONS_H */
