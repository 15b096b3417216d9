// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Turns tcptrace's command line into a struct tt_options, checking every
 * value and describing the first bad one in a single line of text. */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>
#include "cli/options.h"
#include "common/fail.h"

#define PID_MAX_LIMIT 4194304 /* the kernel's PID_MAX_LIMIT on 64-bit */
#define INTERVAL_MIN_MS 100ULL
#define INTERVAL_MAX_MS (3600ULL * 1000)
#define DURATION_MAX_MS (31ULL * 24 * 3600 * 1000)
#define COUNT_MAX 1000000000ULL
#define MAX_SOCKETS_MIN 1024
#define MAX_SOCKETS_MAX 16777216
#define MAX_PROCS_MIN 16
#define MAX_PROCS_MAX 1048576
#define MAX_COMMS_MAX 65536

enum {
	OPT_CSV = 0x100,
	OPT_MAX_SOCKETS,
	OPT_MAX_PROCS,
	OPT_BY,
	OPT_JSON,
	OPT_LISTEN,
	OPT_MAX_COMMS,
	OPT_CATCH_NESTED,
	OPT_VERBOSE,
	OPT_STRICT,
	OPT_CGROUP,
	OPT_UNIT,
	OPT_NETNS,
};

static const struct option long_options[] = {
	{ "pid", required_argument, NULL, 'p' },
	{ "interval", required_argument, NULL, 'i' },
	{ "duration", required_argument, NULL, 'd' },
	{ "count", required_argument, NULL, 'c' },
	{ "csv", required_argument, NULL, OPT_CSV },
	{ "max-sockets", required_argument, NULL, OPT_MAX_SOCKETS },
	{ "max-procs", required_argument, NULL, OPT_MAX_PROCS },
	{ "by", required_argument, NULL, OPT_BY },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "listen", required_argument, NULL, OPT_LISTEN },
	{ "max-comms", required_argument, NULL, OPT_MAX_COMMS },
	{ "catch-nested", no_argument, NULL, OPT_CATCH_NESTED },
	{ "verbose", no_argument, NULL, OPT_VERBOSE },
	{ "strict", no_argument, NULL, OPT_STRICT },
	{ "cgroup", required_argument, NULL, OPT_CGROUP },
	{ "unit", required_argument, NULL, OPT_UNIT },
	{ "netns", required_argument, NULL, OPT_NETNS },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

/* '-': positional arguments come back in order, so the first one is named;
 * ':': a missing argument is reported as ':' rather than '?'. */
static const char short_options[] = "-:p:i:d:c:hV";

const char tt_usage[] =
	"Usage: tcptrace [OPTION]... [INTERVAL [COUNT]] [-- COMMAND [ARG]...]\n"
	"       tcptrace compare A.csv B.csv [C.csv...] [--csv]\n"
	"       tcptrace report A.csv [B.csv...] -o FILE.html\n"
	"Count, per process and side (clients in, upstream out), how TCP connections\n"
	"open and end: FIN or RST (and the kernel's reason), TIME_WAIT sockets, connect()\n"
	"failures by cause and for lack of a local port, connect times, and connection\n"
	"attempts dropped at a full listen queue; then say what went wrong and which\n"
	"setting to change. INTERVAL and COUNT are -i and -c, as vmstat takes them.\n"
	"\n"
	"  -p, --pid PID|NAME[,...]  trace only these processes (repeatable; NAME is\n"
	"                            matched against /proc/PID/comm, 15 bytes at most;\n"
	"                            a NAME not running yet is counted from its start)\n"
	"      --strict              refuse a -p NAME that no process has at start\n"
	"      --cgroup PATH         trace only processes in this cgroup (v2) or below\n"
	"                            it, now and later (a container's, a slice's)\n"
	"      --unit NAME           the same for the cgroup of a systemd unit\n"
	"      --netns PATH|PID      trace only processes in this network namespace\n"
	"                            (/run/netns/NAME, or a process's: a container's\n"
	"                            PID); -p, --cgroup and --netns must all match\n"
	"  -i, --interval SECONDS    print a table every SECONDS (0.1 to 3600, default 1)\n"
	"  -d, --duration SECONDS    stop after SECONDS (at most 31 days)\n"
	"  -c, --count N             stop after N intervals\n"
	"      --csv FILE            also write every row to FILE as CSV (- for stdout)\n"
	"      --json FILE           also write every row to FILE as JSON lines (- for\n"
	"                            stdout)\n"
	"      --by dest             rows per process and destination of its connect()s,\n"
	"                            with the local ports still free toward each: the\n"
	"                            out side only, each interval (the summary keeps\n"
	"                            the rows per process, both sides)\n"
	"      --by process          rows per process (the default)\n"
	"      --by cgroup           with --listen: the series per process name and\n"
	"                            cgroup, labelled with the name of the process's\n"
	"                            cgroup (a unit's, a container's)\n"
	"      --max-sockets N       sockets followed at once (1024 to 16777216,\n"
	"                            default 131072)\n"
	"      --max-procs N         processes (and, with --by dest, process and\n"
	"                            destination pairs) counted at once (16 to\n"
	"                            1048576, default 4096)\n"
	"      --catch-nested        also count the events the kernel skips a program\n"
	"                            for (one nested in the same program on its CPU):\n"
	"                            a second program run for every event. Without\n"
	"                            it, events are lost where thousands of\n"
	"                            connections close at once, not at a steady\n"
	"                            rate (none at 11,000 to 15,000 connections a\n"
	"                            second on two cores: docs/reliability.md);\n"
	"                            tcptrace says at exit how many it lost\n"
	"      --listen [ADDR:]PORT  serve Prometheus metrics on http://ADDR:PORT/metrics\n"
	"                            and print no table; ADDR is 127.0.0.1 by default,\n"
	"                            [::1] for IPv6, 0.0.0.0 for every interface\n"
	"      --max-comms N         process names (and with --by dest or cgroup, pairs\n"
	"                            of name and destination or cgroup) with series of\n"
	"                            their own on /metrics (1 to 65536, default 256);\n"
	"                            the rest are summed under comm=\"(other processes)\"\n"
	"      --verbose             at start, say where the start-up time went (load,\n"
	"                            attach, seed, self-check) and what the verifier\n"
	"                            spent on each BPF program\n"
	"  -h, --help                print this help and exit\n"
	"  -V, --version             print the version and exit\n"
	"\n"
	"With a COMMAND, tcptrace starts it once tracing is attached, stops when it\n"
	"exits (after the closes it caused have settled, at most 2 s), and exits\n"
	"with its status. If tracing ends first, COMMAND gets SIGTERM.\n"
	"\n"
	"Exit status: 0 ok, 1 runtime failure, 2 usage or bad input,\n"
	"3 BPF load or attach failure, or a start-up self-check that saw its own\n"
	"connection go uncounted; with a COMMAND, COMMAND's exit status\n"
	"(126: it could not run, 127: not found, 128+N: killed by signal N).\n"
	"\n"
	"Examples:\n"
	"  tcptrace --pid haproxy\n"
	"  tcptrace -p nginx --csv nginx.csv -d 30\n"
	"  tcptrace -p haproxy --csv run.csv -- wrk -c 50 -d 10 http://127.0.0.1:8080/\n"
	"  tcptrace -p haproxy --listen 9477\n";

static bool all_digits(const char *s, size_t len)
{
	size_t i;

	if (len == 0)
		return false;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
	}
	return true;
}

/* strtoull alone would accept a sign, leading spaces and "0x", so the text
 * must be plain digits first. */
static int parse_u64(const char *s, size_t len, uint64_t *out)
{
	char digits[32];
	unsigned long long v;
	char *end;

	if (!all_digits(s, len) || len >= sizeof(digits))
		return -1;
	memcpy(digits, s, len);
	digits[len] = '\0';
	errno = 0;
	v = strtoull(digits, &end, 10);
	if (errno || *end != '\0')
		return -1;
	*out = v;
	return 0;
}

static int parse_range(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t v;

	if (parse_u64(s, strlen(s), &v) || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

/* "SECONDS[.FFF]" to milliseconds, without floating point so that "0.1" is
 * exactly 100. */
static int parse_seconds_ms(const char *s, uint64_t *ms)
{
	const char *dot = strchr(s, '.');
	size_t int_len = dot ? (size_t)(dot - s) : strlen(s);
	uint64_t secs, frac = 0;
	size_t frac_len = 0, i;

	if (parse_u64(s, int_len, &secs) || secs > UINT64_MAX / 1000 - 1000)
		return -1;
	if (dot) {
		frac_len = strlen(dot + 1);
		if (frac_len > 3 || parse_u64(dot + 1, frac_len, &frac))
			return -1;
		for (i = frac_len; i < 3; i++)
			frac *= 10;
	}
	*ms = secs * 1000 + frac;
	return 0;
}

/* "PORT", ":PORT", "ADDR:PORT" or "[IPV6]:PORT"; a missing address means
 * loopback, so that nothing is exposed beyond the machine unless asked. */
static int parse_listen(const char *arg, struct tt_listen *l)
{
	const char *colon = strrchr(arg, ':');
	const char *port = colon ? colon + 1 : arg;
	char host[INET6_ADDRSTRLEN + 2];
	size_t host_len = colon ? (size_t)(colon - arg) : 0;
	uint64_t v;

	memset(l, 0, sizeof(*l));
	if (parse_u64(port, strlen(port), &v) || v < 1 || v > 65535 || host_len >= sizeof(host))
		return -1;
	l->port = (uint16_t)v;
	memcpy(host, arg, host_len);
	host[host_len] = '\0';
	if (host_len > 2 && host[0] == '[' && host[host_len - 1] == ']') {
		host[host_len - 1] = '\0';
		l->family = AF_INET6;
		if (inet_pton(AF_INET6, host + 1, l->addr) != 1)
			return -1;
	} else {
		const char *v4 = host_len == 0 || !strcmp(host, "localhost") ? "127.0.0.1" : host;

		l->family = AF_INET;
		/* inet_pton takes dotted quads only: no "1", "0x7f.1" or spaces. */
		if (inet_pton(AF_INET, v4, l->addr) != 1)
			return -1;
	}
	l->set = true;
	return 0;
}

static bool target_equal(const struct tt_target *a, const struct tt_target *b)
{
	if (a->is_pid != b->is_pid)
		return false;
	return a->is_pid ? a->pid == b->pid : strcmp(a->name, b->name) == 0;
}

static int add_target(struct tt_options *opts, const struct tt_target *t, char *err,
		      size_t errlen)
{
	size_t i;

	/* The same process named twice is still one process to trace. */
	for (i = 0; i < opts->n_targets; i++) {
		if (target_equal(&opts->targets[i], t))
			return 0;
	}
	if (opts->n_targets == TT_MAX_TRACED)
		return tt_error(err, errlen, "too many --pid entries: expected at most %d",
			    TT_MAX_TRACED);
	opts->targets[opts->n_targets++] = *t;
	return 0;
}

static int parse_target(const char *entry, size_t len, struct tt_target *t, char *err,
			size_t errlen)
{
	uint64_t pid;

	memset(t, 0, sizeof(*t));
	if (all_digits(entry, len)) {
		if (parse_u64(entry, len, &pid) || pid < 1 || pid > PID_MAX_LIMIT)
			return tt_error(err, errlen,
				    "invalid --pid entry '%.*s': expected a PID from 1 to %d",
				    (int)len, entry, PID_MAX_LIMIT);
		t->is_pid = true;
		t->pid = (uint32_t)pid;
		return 0;
	}
	if (len > TT_COMM_LEN - 1 || memchr(entry, '/', len))
		return tt_error(err, errlen,
			    "invalid --pid entry '%.*s': expected a process name of at most %d "
			    "bytes without '/', as in /proc/PID/comm",
			    (int)len, entry, TT_COMM_LEN - 1);
	memcpy(t->name, entry, len);
	t->name[len] = '\0';
	return 0;
}

static int parse_targets(const char *arg, struct tt_options *opts, char *err, size_t errlen)
{
	const char *entry = arg;
	struct tt_target t;

	for (;;) {
		const char *comma = strchr(entry, ',');
		size_t len = comma ? (size_t)(comma - entry) : strlen(entry);

		if (len == 0)
			return tt_error(err, errlen,
				    "invalid --pid '%s': empty entry, expected "
				    "PID|NAME[,PID|NAME...]",
				    arg);
		if (parse_target(entry, len, &t, err, errlen) || add_target(opts, &t, err, errlen))
			return -1;
		if (!comma)
			return 0;
		entry = comma + 1;
	}
}

static const struct option *long_option_by_val(int val)
{
	const struct option *o;

	for (o = long_options; o->name; o++) {
		if (o->val == val)
			return o;
	}
	return NULL;
}

/* The option as the user spelled it: "--name" when given long, "-c" when short. */
static void option_name(char *buf, size_t len, int val, const char *arg)
{
	const struct option *o = long_option_by_val(val);

	if (o && (val > 0xff || strncmp(arg, "--", 2) == 0))
		snprintf(buf, len, "--%s", o->name);
	else
		snprintf(buf, len, "-%c", val);
}

/* getopt_long reports '?' for an unknown option and for an argument given
 * to a long option that takes none (then optopt holds that option). */
static int bad_option(int argc, char **argv, char *err, size_t errlen)
{
	const char *arg = optind > 0 && optind <= argc ? argv[optind - 1] : "";
	const struct option *o = optopt ? long_option_by_val(optopt) : NULL;

	if (o && o->has_arg == no_argument && strncmp(arg, "--", 2) == 0)
		return tt_error(err, errlen, "option '--%s' takes no argument", o->name);
	if (optopt)
		return tt_error(err, errlen, "unknown option '-%c'", optopt);
	return tt_error(err, errlen, "unknown option '%.*s'", (int)strcspn(arg, "="), arg);
}

/* Where the interval and the count came from: an option given again
 * overrides, as getopt tools do; an option and an argument conflict. */
enum given_as { GIVEN_NOT, GIVEN_OPTION, GIVEN_ARGUMENT };

/* -i SECONDS (what "--interval") or the first argument (what "interval"). */
static int set_interval(struct tt_options *opts, enum given_as *from, enum given_as as,
			const char *what, const char *arg, char *err, size_t errlen)
{
	uint64_t v;

	if (parse_seconds_ms(arg, &v) || v < INTERVAL_MIN_MS || v > INTERVAL_MAX_MS)
		return tt_error(err, errlen,
			    "invalid %s '%s': expected seconds from 0.1 to 3600, e.g. 1 or 0.5",
			    what, arg);
	if (*from != GIVEN_NOT && *from != as)
		return tt_error(err, errlen, "the interval is given twice (-i and a first argument)");
	*from = as;
	opts->interval_ms = v;
	return 0;
}

/* -c N (what "--count") or the second argument (what "count"). */
static int set_count(struct tt_options *opts, enum given_as *from, enum given_as as,
		     const char *what, const char *arg, char *err, size_t errlen)
{
	uint64_t v;

	if (parse_range(arg, 1, COUNT_MAX, &v))
		return tt_error(err, errlen, "invalid %s '%s': expected an integer from 1 to 1000000000",
			    what, arg);
	if (*from != GIVEN_NOT && *from != as)
		return tt_error(err, errlen, "the count is given twice (-c and a second argument)");
	*from = as;
	opts->count = v;
	return 0;
}

int options_parse(int argc, char **argv, struct tt_options *opts, char *err, size_t errlen)
{
	const char *last_optarg = NULL;
	enum given_as interval_from = GIVEN_NOT, count_from = GIVEN_NOT;
	int c, positional = 0;
	char name[32];
	uint64_t v;

	memset(opts, 0, sizeof(*opts));
	opts->interval_ms = 1000;
	opts->max_sockets = TT_DEFAULT_MAX_SOCKETS;
	opts->max_procs = TT_DEFAULT_MAX_PROCS;
	opts->max_comms = TT_DEFAULT_MAX_COMMS;
	if (err && errlen)
		err[0] = '\0';

	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, short_options, long_options, NULL)) != -1) {
		last_optarg = optarg;
		switch (c) {
		case 'p':
			if (parse_targets(optarg, opts, err, errlen))
				return -1;
			break;
		case 'i':
			if (set_interval(opts, &interval_from, GIVEN_OPTION, "--interval", optarg,
					 err, errlen))
				return -1;
			break;
		case 'd':
			if (parse_seconds_ms(optarg, &v) || v == 0 || v > DURATION_MAX_MS)
				return tt_error(err, errlen,
					    "invalid --duration '%s': expected seconds from 0.001 "
					    "to 2678400 (31 days), e.g. 30 or 0.5",
					    optarg);
			opts->duration_ms = v;
			break;
		case 'c':
			if (set_count(opts, &count_from, GIVEN_OPTION, "--count", optarg, err, errlen))
				return -1;
			break;
		case OPT_CSV:
			if (optarg[0] == '\0')
				return tt_error(err, errlen, "invalid --csv '': expected a file name, "
							 "or - for stdout");
			opts->csv_path = optarg;
			break;
		case OPT_MAX_SOCKETS:
			if (parse_range(optarg, MAX_SOCKETS_MIN, MAX_SOCKETS_MAX, &v))
				return tt_error(err, errlen,
					    "invalid --max-sockets '%s': expected an integer from "
					    "%d to %d",
					    optarg, MAX_SOCKETS_MIN, MAX_SOCKETS_MAX);
			opts->max_sockets = (uint32_t)v;
			break;
		case OPT_MAX_PROCS:
			if (parse_range(optarg, MAX_PROCS_MIN, MAX_PROCS_MAX, &v))
				return tt_error(err, errlen,
					    "invalid --max-procs '%s': expected an integer from "
					    "%d to %d",
					    optarg, MAX_PROCS_MIN, MAX_PROCS_MAX);
			opts->max_procs = (uint32_t)v;
			break;
		case OPT_BY:
			if (strcmp(optarg, "dest") != 0 && strcmp(optarg, "process") != 0 &&
			    strcmp(optarg, "cgroup") != 0)
				return tt_error(err, errlen,
					    "invalid --by '%s': expected dest, process or cgroup",
					    optarg);
			opts->by_dest = strcmp(optarg, "dest") == 0;
			opts->by_cgroup = strcmp(optarg, "cgroup") == 0;
			break;
		case OPT_JSON:
			if (optarg[0] == '\0')
				return tt_error(err, errlen, "invalid --json '': expected a file name, "
							 "or - for stdout");
			opts->json_path = optarg;
			break;
		case OPT_LISTEN:
			if (parse_listen(optarg, &opts->listen_addr))
				return tt_error(err, errlen,
					    "invalid --listen '%s': expected PORT or ADDR:PORT, ADDR "
					    "an IPv4 address or [IPv6 address], PORT from 1 to 65535",
					    optarg);
			break;
		case OPT_MAX_COMMS:
			if (parse_range(optarg, 1, MAX_COMMS_MAX, &v))
				return tt_error(err, errlen,
					    "invalid --max-comms '%s': expected an integer from 1 "
					    "to %d",
					    optarg, MAX_COMMS_MAX);
			opts->max_comms = (uint32_t)v;
			break;
		case OPT_CATCH_NESTED:
			opts->catch_nested = true;
			break;
		case OPT_VERBOSE:
			opts->verbose = true;
			break;
		case OPT_STRICT:
			opts->strict = true;
			break;
		case OPT_CGROUP:
		case OPT_UNIT:
		case OPT_NETNS: {
			const char *name = c == OPT_CGROUP ? "--cgroup" : c == OPT_UNIT ? "--unit" : "--netns";

			if (optarg[0] == '\0')
				return tt_error(err, errlen, "invalid %s '': expected %s", name,
						c == OPT_CGROUP ? "a cgroup directory" :
						c == OPT_UNIT ? "a systemd unit name" :
								"a network namespace file or a PID");
			if (c == OPT_CGROUP)
				opts->cgroup = optarg;
			else if (c == OPT_UNIT)
				opts->unit = optarg;
			else
				opts->netns = optarg;
			if (opts->cgroup && opts->unit)
				return tt_error(err, errlen, "--cgroup and --unit both name a cgroup: "
							 "give one");
			break;
		}
		case 'h':
			opts->help = true;
			break;
		case 'V':
			opts->version = true;
			break;
		case 1: /* [interval [count]], as vmstat and sar take them */
			if (++positional == 1 && set_interval(opts, &interval_from, GIVEN_ARGUMENT,
							      "interval", optarg, err, errlen))
				return -1;
			if (positional == 2 && set_count(opts, &count_from, GIVEN_ARGUMENT, "count",
							 optarg, err, errlen))
				return -1;
			if (positional > 2)
				return tt_error(err, errlen, "unexpected argument '%s'", optarg);
			break;
		case ':':
			option_name(name, sizeof(name), optopt, argv[optind - 1]);
			return tt_error(err, errlen, "option '%s' needs an argument", name);
		default:
			return bad_option(argc, argv, err, errlen);
		}
	}
	if (opts->csv_path && opts->json_path && !strcmp(opts->csv_path, "-") &&
	    !strcmp(opts->json_path, "-"))
		return tt_error(err, errlen, "--csv - and --json - cannot both write to stdout");
	if (opts->by_cgroup && !opts->listen_addr.set)
		return tt_error(err, errlen, "--by cgroup labels the series of /metrics: give --listen "
					     "too");
	/* getopt stops after "--" (unless it was an option's argument, as in
	 * --csv --): what follows is the command to run. */
	if (optind > 1 && strcmp(argv[optind - 1], "--") == 0 && argv[optind - 1] != last_optarg) {
		if (optind == argc)
			return tt_error(err, errlen, "missing COMMAND after '--'");
		opts->command = &argv[optind];
		return 0;
	}
	if (optind < argc)
		return tt_error(err, errlen, "unexpected argument '%s'", argv[optind]);
	return 0;
}
