// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests of options_parse: every option, its defaults, its limits, and
 * the one-line error for each kind of bad input. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/types.h>
#include "cli/options.h"

#define ERR_LEN 256
#define ARGV(...) ((char *[]){ "tcptrace", __VA_ARGS__, NULL })

struct parsed {
	struct tt_options opts;
	char err[ERR_LEN];
	int ret;
};

static void parse(struct parsed *p, char **argv)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	memset(p->err, 'X', sizeof(p->err));
	p->ret = options_parse(argc, argv, &p->opts, p->err, sizeof(p->err));
}

/* Parses argv and expects it to succeed. */
static void parse_ok(struct parsed *p, char **argv)
{
	parse(p, argv);
	if (p->ret != 0)
		fail_msg("unexpected error: %s", p->err);
}

/* Parses argv and expects exactly this error line. */
static void parse_fails_with(char **argv, const char *err)
{
	struct parsed p;

	parse(&p, argv);
	assert_int_equal(p.ret, -1);
	assert_string_equal(p.err, err);
}

/* Parses argv and expects some error naming the option. */
static void parse_fails_naming(char **argv, const char *option)
{
	struct parsed p;

	parse(&p, argv);
	assert_int_equal(p.ret, -1);
	assert_non_null(strstr(p.err, option));
	assert_null(strchr(p.err, '\n'));
}

static uint64_t interval_of(const char *arg)
{
	struct parsed p;

	parse_ok(&p, ARGV("-i", (char *)arg));
	return p.opts.interval_ms;
}

static uint64_t duration_of(const char *arg)
{
	struct parsed p;

	parse_ok(&p, ARGV("-d", (char *)arg));
	return p.opts.duration_ms;
}

static void test_defaults(void **state)
{
	struct parsed p;

	(void)state;
	parse_ok(&p, (char *[]){ "tcptrace", NULL });
	assert_int_equal(p.opts.n_targets, 0);
	assert_int_equal(p.opts.interval_ms, 1000);
	assert_int_equal(p.opts.duration_ms, 0);
	assert_int_equal(p.opts.count, 0);
	assert_null(p.opts.csv_path);
	assert_null(p.opts.json_path);
	assert_false(p.opts.listen_addr.set);
	assert_int_equal(p.opts.max_comms, TT_DEFAULT_MAX_COMMS);
	assert_int_equal(p.opts.max_sockets, TT_DEFAULT_MAX_SOCKETS);
	assert_int_equal(p.opts.max_procs, TT_DEFAULT_MAX_PROCS);
	assert_false(p.opts.catch_nested);
	assert_false(p.opts.help);
	assert_false(p.opts.version);
}

static void test_pid_numeric(void **state)
{
	struct parsed p;

	(void)state;
	parse_ok(&p, ARGV("-p", "4242"));
	assert_int_equal(p.opts.n_targets, 1);
	assert_true(p.opts.targets[0].is_pid);
	assert_int_equal(p.opts.targets[0].pid, 4242);
}

static void test_pid_name(void **state)
{
	struct parsed p;

	(void)state;
	parse_ok(&p, ARGV("--pid", "haproxy"));
	assert_int_equal(p.opts.n_targets, 1);
	assert_false(p.opts.targets[0].is_pid);
	assert_string_equal(p.opts.targets[0].name, "haproxy");
}

static void test_pid_equals_form(void **state)
{
	struct parsed p;

	(void)state;
	parse_ok(&p, ARGV("--pid=nginx"));
	assert_int_equal(p.opts.n_targets, 1);
	assert_string_equal(p.opts.targets[0].name, "nginx");
}

static void test_pid_list_mixes_pids_and_names(void **state)
{
	struct parsed p;

	(void)state;
	parse_ok(&p, ARGV("-p", "1,nginx,42,12a"));
	assert_int_equal(p.opts.n_targets, 4);
	assert_true(p.opts.targets[0].is_pid);
	assert_int_equal(p.opts.targets[0].pid, 1);
	assert_string_equal(p.opts.targets[1].name, "nginx");
	assert_int_equal(p.opts.targets[2].pid, 42);
	assert_false(p.opts.targets[3].is_pid);
	assert_string_equal(p.opts.targets[3].name, "12a");
}

static void test_pid_is_repeatable(void **state)
{
	struct parsed p;

	(void)state;
	parse_ok(&p, ARGV("-p", "nginx", "--pid", "7,haproxy"));
	assert_int_equal(p.opts.n_targets, 3);
	assert_string_equal(p.opts.targets[0].name, "nginx");
	assert_int_equal(p.opts.targets[1].pid, 7);
	assert_string_equal(p.opts.targets[2].name, "haproxy");
}

static void test_pid_duplicates_are_kept_once(void **state)
{
	struct parsed p;

	(void)state;
	parse_ok(&p, ARGV("-p", "1,1,nginx", "-p", "nginx,1"));
	assert_int_equal(p.opts.n_targets, 2);
	assert_int_equal(p.opts.targets[0].pid, 1);
	assert_string_equal(p.opts.targets[1].name, "nginx");
}

static void test_pid_range_limits(void **state)
{
	struct parsed p;

	(void)state;
	parse_ok(&p, ARGV("-p", "4194304"));
	assert_int_equal(p.opts.targets[0].pid, 4194304);
	parse_fails_with(ARGV("-p", "4194305"),
			 "invalid --pid entry '4194305': expected a PID from 1 to 4194304");
	parse_fails_with(ARGV("-p", "0"),
			 "invalid --pid entry '0': expected a PID from 1 to 4194304");
	parse_fails_naming(ARGV("-p", "99999999999999999999999"), "--pid");
}

static void test_pid_name_of_15_bytes_is_accepted(void **state)
{
	struct parsed p;

	(void)state;
	parse_ok(&p, ARGV("-p", "systemd-journal"));
	assert_string_equal(p.opts.targets[0].name, "systemd-journal");
}

static void test_pid_name_of_16_bytes_is_rejected(void **state)
{
	(void)state;
	parse_fails_with(ARGV("-p", "systemd-journald"),
			 "invalid --pid entry 'systemd-journald': expected a process name of at "
			 "most 15 bytes without '/', as in /proc/PID/comm");
}

static void test_pid_name_with_slash_is_rejected(void **state)
{
	(void)state;
	parse_fails_naming(ARGV("-p", "usr/bin/nginx"), "'usr/bin/nginx'");
}

static void test_pid_empty_entries_are_rejected(void **state)
{
	(void)state;
	parse_fails_with(ARGV("-p", ""),
			 "invalid --pid '': empty entry, expected PID|NAME[,PID|NAME...]");
	parse_fails_with(ARGV("-p", ",x"),
			 "invalid --pid ',x': empty entry, expected PID|NAME[,PID|NAME...]");
	parse_fails_naming(ARGV("-p", "x,"), "'x,'");
	parse_fails_naming(ARGV("-p", "a,,b"), "'a,,b'");
}

static void test_pid_limit_of_targets(void **state)
{
	static char names[TT_MAX_TRACED + 1][16];
	char *argv[2 * (TT_MAX_TRACED + 1) + 2];
	struct tt_options opts;
	char err[ERR_LEN];
	int i, argc = 0;

	(void)state;
	argv[argc++] = "tcptrace";
	for (i = 0; i < TT_MAX_TRACED; i++) {
		snprintf(names[i], sizeof(names[i]), "%d", i + 1);
		argv[argc++] = "-p";
		argv[argc++] = names[i];
	}
	argv[argc] = NULL;
	assert_int_equal(options_parse(argc, argv, &opts, err, sizeof(err)), 0);
	assert_int_equal(opts.n_targets, TT_MAX_TRACED);

	snprintf(names[i], sizeof(names[i]), "proc%d", i + 1);
	argv[argc++] = "-p";
	argv[argc++] = names[i];
	argv[argc] = NULL;
	assert_int_equal(options_parse(argc, argv, &opts, err, sizeof(err)), -1);
	assert_string_equal(err, "too many --pid entries: expected at most 256");
}

static void test_interval_whole_seconds(void **state)
{
	(void)state;
	assert_int_equal(interval_of("1"), 1000);
	assert_int_equal(interval_of("3600"), 3600000);
}

static void test_interval_fractions(void **state)
{
	(void)state;
	assert_int_equal(interval_of("0.5"), 500);
	assert_int_equal(interval_of("2.250"), 2250);
	assert_int_equal(interval_of("0.1"), 100);
	assert_int_equal(interval_of("1.01"), 1010);
}

static void test_interval_long_form(void **state)
{
	struct parsed p;

	(void)state;
	parse_ok(&p, ARGV("--interval", "2"));
	assert_int_equal(p.opts.interval_ms, 2000);
}

static void test_interval_zero_error_line(void **state)
{
	(void)state;
	parse_fails_with(ARGV("-i", "0"), "invalid --interval '0': expected seconds from 0.1 "
					  "to 3600, e.g. 1 or 0.5");
}

static void test_control_bytes_in_a_bad_argument_are_shown_as_question_marks(void **state)
{
	(void)state;
	parse_fails_with(ARGV("-i", "1\n\033[31mx"), "invalid --interval '1??[31mx': expected "
						     "seconds from 0.1 to 3600, e.g. 1 or 0.5");
}

static void test_interval_out_of_range(void **state)
{
	(void)state;
	parse_fails_naming(ARGV("-i", "0.05"), "'0.05'");
	parse_fails_naming(ARGV("-i", "0.099"), "'0.099'");
	parse_fails_naming(ARGV("-i", "3600.001"), "'3600.001'");
	parse_fails_naming(ARGV("-i", "99999999999999999999"), "--interval");
}

static void test_interval_malformed_seconds(void **state)
{
	static const char *const bad[] = {
		"1.2345", "1e3", "-1", " 1", "1 ", "+1", "0x10",
		"1.", ".5", "", "1.2.3", "1,5", "inf",
	};
	char expected[ERR_LEN];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(expected, sizeof(expected),
			 "invalid --interval '%s': expected seconds from 0.1 to 3600, "
			 "e.g. 1 or 0.5",
			 bad[i]);
		parse_fails_with(ARGV("-i", (char *)bad[i]), expected);
	}
}

static void test_duration_in_seconds(void **state)
{
	(void)state;
	assert_int_equal(duration_of("30"), 30000);
	assert_int_equal(duration_of("0.001"), 1);
	assert_int_equal(duration_of("2678400"), 2678400000ULL);
}

static void test_duration_long_form(void **state)
{
	struct parsed p;

	(void)state;
	parse_ok(&p, ARGV("--duration", "1.5"));
	assert_int_equal(p.opts.duration_ms, 1500);
}

static void test_duration_zero_error_line(void **state)
{
	(void)state;
	parse_fails_with(ARGV("-d", "0"), "invalid --duration '0': expected seconds from 0.001 "
					  "to 2678400 (31 days), e.g. 30 or 0.5");
}

static void test_duration_bad_values(void **state)
{
	(void)state;
	parse_fails_naming(ARGV("-d", "0.000"), "'0.000'");
	parse_fails_naming(ARGV("-d", "2678400.001"), "'2678400.001'");
	parse_fails_naming(ARGV("-d", "1e3"), "--duration");
	parse_fails_naming(ARGV("-d", "-5"), "--duration");
	parse_fails_naming(ARGV("-d", "0.0001"), "--duration");
}

static void test_count(void **state)
{
	struct parsed p;

	(void)state;
	parse_ok(&p, ARGV("-c", "1"));
	assert_int_equal(p.opts.count, 1);
	parse_ok(&p, ARGV("--count", "1000000000"));
	assert_int_equal(p.opts.count, 1000000000);
}

static void test_count_bad_values(void **state)
{
	(void)state;
	parse_fails_with(ARGV("-c", "0"),
			 "invalid --count '0': expected an integer from 1 to 1000000000");
	parse_fails_naming(ARGV("-c", "1000000001"), "'1000000001'");
	parse_fails_naming(ARGV("-c", "1.5"), "'1.5'");
	parse_fails_naming(ARGV("-c", "-1"), "'-1'");
	parse_fails_naming(ARGV("-c", " 3"), "' 3'");
	parse_fails_naming(ARGV("-c", "ten"), "'ten'");
}

static void test_csv_path(void **state)
{
	struct parsed p;

	(void)state;
	parse_ok(&p, ARGV("--csv", "out.csv"));
	assert_string_equal(p.opts.csv_path, "out.csv");
	parse_ok(&p, ARGV("--csv", "-"));
	assert_string_equal(p.opts.csv_path, "-");
}

static void test_csv_empty_is_rejected(void **state)
{
	(void)state;
	parse_fails_with(ARGV("--csv", ""),
			 "invalid --csv '': expected a file name, or - for stdout");
}

static void test_json_path(void **state)
{
	struct parsed p;

	(void)state;
	parse_ok(&p, ARGV("--json", "out.jsonl"));
	assert_string_equal(p.opts.json_path, "out.jsonl");
	parse_ok(&p, ARGV("--json", "-", "--csv", "x.csv"));
	assert_string_equal(p.opts.json_path, "-");
	assert_string_equal(p.opts.csv_path, "x.csv");
	parse_ok(&p, ARGV("--json", "x.jsonl", "--csv", "-"));
	assert_string_equal(p.opts.csv_path, "-");
}

static void test_json_empty_is_rejected(void **state)
{
	(void)state;
	parse_fails_with(ARGV("--json", ""),
			 "invalid --json '': expected a file name, or - for stdout");
}

static void test_csv_and_json_cannot_both_take_stdout(void **state)
{
	(void)state;
	parse_fails_with(ARGV("--json", "-", "--csv", "-"),
			 "--csv - and --json - cannot both write to stdout");
}

/* The address --listen parses to, as text, or "" when it fails. */
static const char *listen_of(const char *arg)
{
	static char text[64];
	char addr[INET6_ADDRSTRLEN];
	struct parsed p;

	parse(&p, ARGV("--listen", (char *)arg));
	if (p.ret)
		return "";
	assert_true(p.opts.listen_addr.set);
	inet_ntop(p.opts.listen_addr.family, p.opts.listen_addr.addr, addr, sizeof(addr));
	snprintf(text, sizeof(text), p.opts.listen_addr.family == AF_INET6 ? "[%s]:%u" : "%s:%u",
		 addr, p.opts.listen_addr.port);
	return text;
}

static void test_listen_port_alone_is_loopback(void **state)
{
	(void)state;
	assert_string_equal(listen_of("9477"), "127.0.0.1:9477");
	assert_string_equal(listen_of(":9477"), "127.0.0.1:9477");
	assert_string_equal(listen_of("localhost:1"), "127.0.0.1:1");
}

static void test_listen_addresses(void **state)
{
	(void)state;
	assert_string_equal(listen_of("0.0.0.0:9477"), "0.0.0.0:9477");
	assert_string_equal(listen_of("10.1.2.3:65535"), "10.1.2.3:65535");
	assert_string_equal(listen_of("[::1]:9477"), "[::1]:9477");
	assert_string_equal(listen_of("[::]:80"), "[::]:80");
	assert_string_equal(listen_of("[fe80::1:2]:8080"), "[fe80::1:2]:8080");
}

static void test_listen_bad_values(void **state)
{
	static const char *const bad[] = {
		"", ":", "0", "65536", "99999999999999999999", "-1", "+80", "0x50", " 80", "80 ",
		"http", "127.0.0.1", "127.0.0.1:", "127.0.0.1:0", "127.1:80", "1.2.3.4.5:80",
		"256.0.0.1:80", "::1:9477", "[::1]", "[::1]9477", "[]:80", "[127.0.0.1]:80",
		"[::1:80", "host.example:80", "localhost", "[::g]:80",
	};
	char expected[ERR_LEN];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(expected, sizeof(expected),
			 "invalid --listen '%s': expected PORT or ADDR:PORT, ADDR an IPv4 address "
			 "or [IPv6 address], PORT from 1 to 65535",
			 bad[i]);
		parse_fails_with(ARGV("--listen", (char *)bad[i]), expected);
	}
}

static void test_listen_and_json_with_a_command(void **state)
{
	struct parsed p;

	(void)state;
	parse_ok(&p, ARGV("--listen", "9477", "--json", "-", "--", "haproxy", "-f", "x.cfg"));
	assert_true(p.opts.listen_addr.set);
	assert_string_equal(p.opts.json_path, "-");
	assert_non_null(p.opts.command);
	assert_string_equal(p.opts.command[0], "haproxy");
	parse_fails_with(ARGV("--csv", "-", "--json", "-", "--", "true"),
			 "--csv - and --json - cannot both write to stdout");
}

static void test_max_comms_limits(void **state)
{
	struct parsed p;

	(void)state;
	parse_ok(&p, ARGV("--max-comms", "1"));
	assert_int_equal(p.opts.max_comms, 1);
	parse_ok(&p, ARGV("--max-comms", "65536"));
	assert_int_equal(p.opts.max_comms, 65536);
	parse_fails_with(ARGV("--max-comms", "0"),
			 "invalid --max-comms '0': expected an integer from 1 to 65536");
	parse_fails_naming(ARGV("--max-comms", "65537"), "'65537'");
}

static void test_max_sockets_limits(void **state)
{
	struct parsed p;

	(void)state;
	parse_ok(&p, ARGV("--max-sockets", "1024"));
	assert_int_equal(p.opts.max_sockets, 1024);
	parse_ok(&p, ARGV("--max-sockets", "16777216"));
	assert_int_equal(p.opts.max_sockets, 16777216);
	parse_fails_with(ARGV("--max-sockets", "1023"),
			 "invalid --max-sockets '1023': expected an integer from 1024 to 16777216");
	parse_fails_naming(ARGV("--max-sockets", "16777217"), "'16777217'");
}

static void test_max_procs_limits(void **state)
{
	struct parsed p;

	(void)state;
	parse_ok(&p, ARGV("--max-procs", "16"));
	assert_int_equal(p.opts.max_procs, 16);
	parse_ok(&p, ARGV("--max-procs", "1048576"));
	assert_int_equal(p.opts.max_procs, 1048576);
	parse_fails_with(ARGV("--max-procs", "15"),
			 "invalid --max-procs '15': expected an integer from 16 to 1048576");
	parse_fails_naming(ARGV("--max-procs", "1048577"), "'1048577'");
}

static void test_catch_nested_takes_no_argument(void **state)
{
	struct parsed p;

	(void)state;
	parse_ok(&p, ARGV("--catch-nested", "-p", "nginx"));
	assert_true(p.opts.catch_nested);
	assert_int_equal(p.opts.n_targets, 1);
	parse_fails_naming(ARGV("--catch-nested=yes"), "--catch-nested");
}

static void test_help(void **state)
{
	struct parsed p;

	(void)state;
	parse_ok(&p, ARGV("-h"));
	assert_true(p.opts.help);
	parse_ok(&p, ARGV("--help"));
	assert_true(p.opts.help);
	assert_false(p.opts.version);
}

static void test_version(void **state)
{
	struct parsed p;

	(void)state;
	parse_ok(&p, ARGV("-V"));
	assert_true(p.opts.version);
	parse_ok(&p, ARGV("--version"));
	assert_true(p.opts.version);
	assert_false(p.opts.help);
}

/* tcptrace [options] [interval [count]], as vmstat, sar and the bcc tools. */
static void test_interval_and_count_as_arguments(void **state)
{
	struct parsed p;

	(void)state;
	parse_ok(&p, ARGV("1", "5"));
	assert_int_equal(p.opts.interval_ms, 1000);
	assert_int_equal(p.opts.count, 5);
	parse_ok(&p, ARGV("-p", "haproxy", "0.5"));
	assert_int_equal(p.opts.interval_ms, 500);
	assert_int_equal(p.opts.count, 0);
	parse_ok(&p, ARGV("2", "3", "-p", "nginx"));
	assert_int_equal(p.opts.interval_ms, 2000);
	assert_int_equal(p.opts.count, 3);
	assert_int_equal(p.opts.n_targets, 1);
	parse_fails_with(ARGV("foo"), "invalid interval 'foo': expected seconds from 0.1 to 3600, "
				       "e.g. 1 or 0.5");
	parse_fails_with(ARGV("1", "0"), "invalid count '0': expected an integer from 1 to "
					  "1000000000");
	parse_fails_with(ARGV("1", "2", "bar"), "unexpected argument 'bar'");
	parse_fails_with(ARGV("-i", "1", "2"), "the interval is given twice (-i and a first argument)");
	parse_fails_with(ARGV("-c", "4", "1", "2"), "the count is given twice (-c and a second argument)");
	parse_fails_with(ARGV("1", "-i", "2"), "the interval is given twice (-i and a first argument)");
	/* An option given again overrides, as with any getopt tool. */
	parse_ok(&p, ARGV("-i", "0.2", "-i", "30", "-c", "1", "-c", "2"));
	assert_int_equal(p.opts.interval_ms, 30000);
	assert_int_equal(p.opts.count, 2);
}

static void test_strict(void **state)
{
	struct parsed p;

	(void)state;
	parse_ok(&p, ARGV("-p", "nginx"));
	assert_false(p.opts.strict);
	parse_ok(&p, ARGV("--strict", "-p", "nginx"));
	assert_true(p.opts.strict);
}

/* --cgroup, --unit and --netns are kept as given (resolved at start, not
 * here); an empty one, or a cgroup named twice over, is refused. */
static void test_scope(void **state)
{
	struct parsed p;

	(void)state;
	parse_ok(&p, ARGV("-p", "haproxy"));
	assert_null(p.opts.cgroup);
	assert_null(p.opts.unit);
	assert_null(p.opts.netns);
	parse_ok(&p, ARGV("--cgroup", "/sys/fs/cgroup/a", "--netns", "1234", "-p", "haproxy"));
	assert_string_equal(p.opts.cgroup, "/sys/fs/cgroup/a");
	assert_string_equal(p.opts.netns, "1234");
	parse_ok(&p, ARGV("--unit", "haproxy.service"));
	assert_string_equal(p.opts.unit, "haproxy.service");
	parse_fails_with(ARGV("--cgroup", ""), "invalid --cgroup '': expected a cgroup directory");
	parse_fails_with(ARGV("--unit", ""), "invalid --unit '': expected a systemd unit name");
	parse_fails_with(ARGV("--netns", ""),
			 "invalid --netns '': expected a network namespace file or a PID");
	parse_fails_with(ARGV("--unit", "a.service", "--cgroup", "/x"),
			 "--cgroup and --unit both name a cgroup: give one");
}

static void test_command_after_double_dash(void **state)
{
	struct parsed p;

	(void)state;
	parse_ok(&p, ARGV("-p", "haproxy", "--", "wrk", "-c", "5", "http://x/"));
	assert_non_null(p.opts.command);
	assert_string_equal(p.opts.command[0], "wrk");
	assert_string_equal(p.opts.command[1], "-c");
	assert_string_equal(p.opts.command[2], "5");
	assert_string_equal(p.opts.command[3], "http://x/");
	assert_null(p.opts.command[4]);
	assert_int_equal(p.opts.n_targets, 1);
	/* Options after "--" belong to the command, not to tcptrace. */
	parse_ok(&p, ARGV("--", "-p", "--csv"));
	assert_string_equal(p.opts.command[0], "-p");
	assert_int_equal(p.opts.n_targets, 0);
	assert_null(p.opts.csv_path);
}

static void test_no_command_without_double_dash(void **state)
{
	struct parsed p;

	(void)state;
	parse_ok(&p, ARGV("-p", "1"));
	assert_null(p.opts.command);
	/* "--" as an option's argument is a file name, not the start of a command. */
	parse_ok(&p, ARGV("--csv", "--"));
	assert_string_equal(p.opts.csv_path, "--");
	assert_null(p.opts.command);
}

static void test_by_dest(void **state)
{
	struct parsed p;

	(void)state;
	parse_ok(&p, ARGV("-p", "nginx"));
	assert_false(p.opts.by_dest);
	parse_ok(&p, ARGV("--by", "dest"));
	assert_true(p.opts.by_dest);
	parse_ok(&p, ARGV("--by", "dest", "--by", "process"));
	assert_false(p.opts.by_dest);
	parse_fails_with(ARGV("--by", "port"), "invalid --by 'port': expected dest, process or cgroup");
	parse_fails_with(ARGV("--by"), "option '--by' needs an argument");
}

static void test_by_cgroup(void **state)
{
	struct parsed p;

	(void)state;
	parse_ok(&p, ARGV("--by", "cgroup", "--listen", "9100"));
	assert_true(p.opts.by_cgroup);
	assert_false(p.opts.by_dest);
	parse_ok(&p, ARGV("--by", "cgroup", "--by", "dest"));
	assert_false(p.opts.by_cgroup);
	assert_true(p.opts.by_dest);
	parse_ok(&p, ARGV("--by", "dest", "--by", "cgroup", "--listen", "9100"));
	assert_false(p.opts.by_dest);
	parse_fails_with(ARGV("--by", "cgroup"),
			 "--by cgroup labels the series of /metrics: give --listen too");
	parse_fails_with(ARGV("--by", "cgroup", "--csv", "-"),
			 "--by cgroup labels the series of /metrics: give --listen too");
}

static void test_double_dash_needs_a_command(void **state)
{
	(void)state;
	parse_fails_with(ARGV("-p", "1", "--"), "missing COMMAND after '--'");
}

static void test_unknown_option(void **state)
{
	(void)state;
	parse_fails_with(ARGV("--foo"), "unknown option '--foo'");
	parse_fails_with(ARGV("--foo=bar"), "unknown option '--foo'");
	parse_fails_with(ARGV("-x"), "unknown option '-x'");
	parse_fails_with(ARGV("-hx"), "unknown option '-x'");
}

static void test_missing_argument(void **state)
{
	(void)state;
	parse_fails_with(ARGV("--csv"), "option '--csv' needs an argument");
	parse_fails_with(ARGV("--listen"), "option '--listen' needs an argument");
	parse_fails_with(ARGV("--json"), "option '--json' needs an argument");
	parse_fails_with(ARGV("--interval"), "option '--interval' needs an argument");
	parse_fails_with(ARGV("-p"), "option '-p' needs an argument");
	parse_fails_with(ARGV("-c"), "option '-c' needs an argument");
}

static void test_argument_to_flag_is_rejected(void **state)
{
	(void)state;
	parse_fails_with(ARGV("--help=yes"), "option '--help' takes no argument");
}

static void test_parsing_twice_starts_afresh(void **state)
{
	struct parsed p;

	(void)state;
	parse_ok(&p, ARGV("-i", "2", "-p", "nginx"));
	parse(&p, ARGV("--bogus"));
	assert_int_equal(p.ret, -1);
	parse_ok(&p, ARGV("-c", "3"));
	assert_int_equal(p.opts.count, 3);
	assert_int_equal(p.opts.interval_ms, 1000);
	assert_int_equal(p.opts.n_targets, 0);
}

static void test_error_is_cut_to_errlen(void **state)
{
	struct tt_options opts;
	char err[8] = "XXXXXXX";

	(void)state;
	assert_int_equal(options_parse(2, ARGV("--foo"), &opts, err, 6), -1);
	assert_string_equal(err, "unkno");
	assert_int_equal(err[7], '\0');
}

static void test_usage_documents_exit_codes_and_examples(void **state)
{
	(void)state;
	assert_non_null(strstr(tt_usage, "Usage: tcptrace"));
	assert_non_null(strstr(tt_usage, "0 ok, 1 runtime failure, 2 usage or bad input"));
	assert_non_null(strstr(tt_usage, "3 BPF load or attach failure"));
	assert_non_null(strstr(tt_usage, "tcptrace --pid haproxy\n"));
	assert_non_null(strstr(tt_usage, "tcptrace -p nginx --csv nginx.csv -d 30\n"));
	assert_non_null(strstr(tt_usage, "--max-sockets N"));
	assert_non_null(strstr(tt_usage, "--max-procs N"));
	assert_non_null(strstr(tt_usage, "--json FILE"));
	assert_non_null(strstr(tt_usage, "--listen [ADDR:]PORT"));
	assert_non_null(strstr(tt_usage, "--max-comms N"));
	assert_non_null(strstr(tt_usage, "tcptrace -p haproxy --listen 9477\n"));
	assert_non_null(strstr(tt_usage, "tcptrace report A.csv [B.csv...] -o FILE.html\n"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_control_bytes_in_a_bad_argument_are_shown_as_question_marks),
		cmocka_unit_test(test_pid_numeric),
		cmocka_unit_test(test_pid_name),
		cmocka_unit_test(test_pid_equals_form),
		cmocka_unit_test(test_pid_list_mixes_pids_and_names),
		cmocka_unit_test(test_pid_is_repeatable),
		cmocka_unit_test(test_pid_duplicates_are_kept_once),
		cmocka_unit_test(test_pid_range_limits),
		cmocka_unit_test(test_pid_name_of_15_bytes_is_accepted),
		cmocka_unit_test(test_pid_name_of_16_bytes_is_rejected),
		cmocka_unit_test(test_pid_name_with_slash_is_rejected),
		cmocka_unit_test(test_pid_empty_entries_are_rejected),
		cmocka_unit_test(test_pid_limit_of_targets),
		cmocka_unit_test(test_interval_whole_seconds),
		cmocka_unit_test(test_interval_fractions),
		cmocka_unit_test(test_interval_long_form),
		cmocka_unit_test(test_interval_zero_error_line),
		cmocka_unit_test(test_interval_out_of_range),
		cmocka_unit_test(test_interval_malformed_seconds),
		cmocka_unit_test(test_duration_in_seconds),
		cmocka_unit_test(test_duration_long_form),
		cmocka_unit_test(test_duration_zero_error_line),
		cmocka_unit_test(test_duration_bad_values),
		cmocka_unit_test(test_count),
		cmocka_unit_test(test_count_bad_values),
		cmocka_unit_test(test_csv_path),
		cmocka_unit_test(test_csv_empty_is_rejected),
		cmocka_unit_test(test_json_path),
		cmocka_unit_test(test_json_empty_is_rejected),
		cmocka_unit_test(test_csv_and_json_cannot_both_take_stdout),
		cmocka_unit_test(test_listen_port_alone_is_loopback),
		cmocka_unit_test(test_listen_addresses),
		cmocka_unit_test(test_listen_bad_values),
		cmocka_unit_test(test_listen_and_json_with_a_command),
		cmocka_unit_test(test_max_comms_limits),
		cmocka_unit_test(test_max_sockets_limits),
		cmocka_unit_test(test_max_procs_limits),
		cmocka_unit_test(test_catch_nested_takes_no_argument),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_version),
		cmocka_unit_test(test_interval_and_count_as_arguments),
		cmocka_unit_test(test_strict),
		cmocka_unit_test(test_scope),
		cmocka_unit_test(test_unknown_option),
		cmocka_unit_test(test_missing_argument),
		cmocka_unit_test(test_argument_to_flag_is_rejected),
		cmocka_unit_test(test_command_after_double_dash),
		cmocka_unit_test(test_no_command_without_double_dash),
		cmocka_unit_test(test_double_dash_needs_a_command),
		cmocka_unit_test(test_by_dest),
		cmocka_unit_test(test_by_cgroup),
		cmocka_unit_test(test_parsing_twice_starts_afresh),
		cmocka_unit_test(test_error_is_cut_to_errlen),
		cmocka_unit_test(test_usage_documents_exit_codes_and_examples),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
