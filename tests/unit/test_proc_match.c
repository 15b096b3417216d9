// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests of proc_match against a fake /proc tree built in a temporary
 * directory: PIDs, names, names shared by several processes, misses. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli/proc_match.h"
#include "common/procfs.h"

#define ERR_LEN 128
#define MAX_PIDS 16

/* The fake tree: each numeric directory holds a comm file. */
static const struct {
	const char *dir;
	const char *comm; /* NULL: no comm file, as for a process exiting */
} fake_procs[] = {
	{ "1", "systemd\n" },         { "100", "nginx\n" },
	{ "4000", "nginx\n" },        { "250", "haproxy\n" },
	{ "300", "systemd-journal\n" }, { "301", "a,b c\n" },
	{ "600", NULL },              { "self", "ghost\n" },
	{ "42abc", "phantom\n" },     { "0123", "zeroed\n" },
};

struct match {
	uint32_t pids[MAX_PIDS];
	size_t n_pids;
	char err[ERR_LEN];
	int ret;
};

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

static int make_tree(void **state)
{
	char path[PATH_MAX];
	char *root = malloc(PATH_MAX);
	const char *tmp = getenv("TMPDIR");
	size_t i;

	if (!root)
		return -1;
	snprintf(root, PATH_MAX, "%s/test_proc_match_XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(root)) {
		free(root);
		return -1;
	}
	for (i = 0; i < sizeof(fake_procs) / sizeof(fake_procs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", root, fake_procs[i].dir);
		if (mkdir(path, 0755)) {
			free(root);
			return -1;
		}
		if (!fake_procs[i].comm)
			continue;
		snprintf(path, sizeof(path), "%s/%s/comm", root, fake_procs[i].dir);
		write_file(path, fake_procs[i].comm);
	}
	/* A numeric name that is a file, not a directory, is no process. */
	snprintf(path, sizeof(path), "%s/700", root);
	write_file(path, "nginx\n");
	*state = root;
	return 0;
}

static int remove_tree(void **state)
{
	char path[PATH_MAX];
	char *root = *state;
	int ret = 0;
	size_t i;

	for (i = 0; i < sizeof(fake_procs) / sizeof(fake_procs[0]); i++) {
		if (fake_procs[i].comm) {
			snprintf(path, sizeof(path), "%s/%s/comm", root, fake_procs[i].dir);
			ret |= unlink(path);
		}
		snprintf(path, sizeof(path), "%s/%s", root, fake_procs[i].dir);
		ret |= rmdir(path);
	}
	snprintf(path, sizeof(path), "%s/700", root);
	ret |= unlink(path);
	ret |= rmdir(root);
	free(root);
	return ret;
}

static struct tt_target pid_target(uint32_t pid)
{
	struct tt_target t = { .is_pid = true, .pid = pid };

	return t;
}

static struct tt_target name_target(const char *name)
{
	struct tt_target t = { .is_pid = false };

	snprintf(t.name, sizeof(t.name), "%s", name);
	return t;
}

static void run_match(const char *root, const struct tt_target *targets, size_t n,
		      struct match *m)
{
	memset(m, 0, sizeof(*m));
	m->ret = proc_match(root, targets, n, NULL, m->pids, MAX_PIDS, &m->n_pids, m->err,
			    sizeof(m->err));
}

/* A tree of its own for proc_instance: a shell (900) that started an
 * nginx master (5000) with two workers, and a haproxy (6000). */
static void test_instance_is_the_farthest_parent_of_the_name(void **state)
{
	static const struct {
		uint32_t pid, ppid;
		const char *comm;
	} procs[] = {
		{ 900, 1, "bash\n" },      { 5000, 900, "nginx\n" }, { 5001, 5000, "nginx\n" },
		{ 5002, 5000, "nginx\n" }, { 6000, 900, "haproxy\n" },
	};
	char root[PATH_MAX], path[PATH_MAX + 32], text[64];
	size_t n = sizeof(procs) / sizeof(procs[0]);

	snprintf(root, sizeof(root), "%s/instance_XXXXXX", (const char *)*state);
	assert_non_null(mkdtemp(root));
	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%u", root, procs[i].pid);
		assert_int_equal(mkdir(path, 0755), 0);
		snprintf(path, sizeof(path), "%s/%u/comm", root, procs[i].pid);
		write_file(path, procs[i].comm);
		snprintf(path, sizeof(path), "%s/%u/status", root, procs[i].pid);
		snprintf(text, sizeof(text), "Name:\tx\nPPid:\t%u\n", procs[i].ppid);
		write_file(path, text);
	}
	assert_int_equal(proc_instance(root, 5002, "nginx"), 5000);
	assert_int_equal(proc_instance(root, 5000, "nginx"), 5000);
	assert_int_equal(proc_instance(root, 6000, "haproxy"), 6000);
	/* Gone, or another name now (a PID used again): not known. */
	assert_int_equal(proc_instance(root, 5003, "nginx"), 0);
	assert_int_equal(proc_instance(root, 6000, "nginx"), 0);
	assert_int_equal(proc_instance(root, 0, "nginx"), 0);
	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%u/comm", root, procs[i].pid);
		assert_int_equal(unlink(path), 0);
		snprintf(path, sizeof(path), "%s/%u/status", root, procs[i].pid);
		assert_int_equal(unlink(path), 0);
		snprintf(path, sizeof(path), "%s/%u", root, procs[i].pid);
		assert_int_equal(rmdir(path), 0);
	}
	assert_int_equal(rmdir(root), 0);
}

/* Field 22 of /proc/PID/stat, counted from the name's last ')': a name may
 * hold spaces and parentheses. Against this machine's own process too. */
static void test_start_time(void **state)
{
	char root[PATH_MAX], path[PATH_MAX + 32];
	uint64_t start = 0, mine = 0;

	snprintf(root, sizeof(root), "%s/start_XXXXXX", (const char *)*state);
	assert_non_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/77", root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/77/stat", root);
	write_file(path, "77 (a) (b c) S 1 77 77 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 "
			 "123456789 1000 10 18446744073709551615\n");
	assert_int_equal(proc_start_time(root, 77, &start), 0);
	assert_int_equal(start, 123456789);
	assert_int_equal(proc_start_time(root, 78, &start), -1);
	assert_int_equal(unlink(path), 0);
	snprintf(path, sizeof(path), "%s/77", root);
	assert_int_equal(rmdir(path), 0);
	assert_int_equal(rmdir(root), 0);
	assert_int_equal(proc_start_time("/proc", (uint32_t)getpid(), &mine), 0);
	assert_true(mine > 0);
}

static void test_read_comm_strips_newline(void **state)
{
	char comm[TT_COMM_LEN];

	assert_int_equal(proc_read_comm(*state, 100, comm, sizeof(comm)), 0);
	assert_string_equal(comm, "nginx");
}

static void test_read_comm_of_15_bytes(void **state)
{
	char comm[TT_COMM_LEN];

	assert_int_equal(proc_read_comm(*state, 300, comm, sizeof(comm)), 0);
	assert_string_equal(comm, "systemd-journal");
}

static void test_read_comm_cuts_to_buffer(void **state)
{
	char comm[4];

	assert_int_equal(proc_read_comm(*state, 300, comm, sizeof(comm)), 0);
	assert_string_equal(comm, "sys");
}

static void test_read_comm_of_missing_process_fails(void **state)
{
	char comm[TT_COMM_LEN];

	assert_int_equal(proc_read_comm(*state, 12345, comm, sizeof(comm)), -1);
	assert_int_equal(proc_read_comm(*state, 600, comm, sizeof(comm)), -1);
}

static void test_comm_matches_exact_name(void **state)
{
	(void)state;
	assert_true(comm_matches("nginx", "nginx"));
	assert_false(comm_matches("nginx", "nginx2"));
	assert_false(comm_matches("ngin", "nginx"));
	assert_false(comm_matches("Nginx", "nginx"));
	assert_false(comm_matches("", "nginx"));
}

static void test_comm_matches_truncated_long_name(void **state)
{
	(void)state;
	assert_true(comm_matches("systemd-journal", "systemd-journal"));
	assert_true(comm_matches("systemd-journald", "systemd-journal"));
	assert_false(comm_matches("systemd-journal", "systemd-journa"));
}

static void test_match_existing_pid(void **state)
{
	struct tt_target t[] = { pid_target(250) };
	struct match m;

	run_match(*state, t, 1, &m);
	assert_int_equal(m.ret, 0);
	assert_int_equal(m.n_pids, 1);
	assert_int_equal(m.pids[0], 250);
}

static void test_match_pid_without_comm(void **state)
{
	struct tt_target t[] = { pid_target(600) };
	struct match m;

	run_match(*state, t, 1, &m);
	assert_int_equal(m.ret, 0);
	assert_int_equal(m.n_pids, 1);
	assert_int_equal(m.pids[0], 600);
}

static void test_match_missing_pid(void **state)
{
	struct tt_target t[] = { pid_target(250), pid_target(123) };
	struct match m;

	run_match(*state, t, 2, &m);
	assert_int_equal(m.ret, -1);
	assert_string_equal(m.err, "no process with PID 123");
}

static void test_match_pid_that_is_a_file(void **state)
{
	struct tt_target t[] = { pid_target(700) };
	struct match m;

	run_match(*state, t, 1, &m);
	assert_int_equal(m.ret, -1);
	assert_string_equal(m.err, "no process with PID 700");
}

static void test_match_name_of_one_process(void **state)
{
	struct tt_target t[] = { name_target("haproxy") };
	struct match m;

	run_match(*state, t, 1, &m);
	assert_int_equal(m.ret, 0);
	assert_int_equal(m.n_pids, 1);
	assert_int_equal(m.pids[0], 250);
}

static void test_match_name_of_two_processes_sorted(void **state)
{
	struct tt_target t[] = { name_target("nginx") };
	struct match m;

	run_match(*state, t, 1, &m);
	assert_int_equal(m.ret, 0);
	assert_int_equal(m.n_pids, 2);
	assert_int_equal(m.pids[0], 100);
	assert_int_equal(m.pids[1], 4000);
}

static void test_match_name_of_15_bytes(void **state)
{
	struct tt_target t[] = { name_target("systemd-journal") };
	struct match m;

	run_match(*state, t, 1, &m);
	assert_int_equal(m.ret, 0);
	assert_int_equal(m.n_pids, 1);
	assert_int_equal(m.pids[0], 300);
}

static void test_match_name_with_punctuation(void **state)
{
	struct tt_target t[] = { name_target("a,b c") };
	struct match m;

	run_match(*state, t, 1, &m);
	assert_int_equal(m.ret, 0);
	assert_int_equal(m.n_pids, 1);
	assert_int_equal(m.pids[0], 301);
}

static void test_match_missing_name(void **state)
{
	struct tt_target t[] = { name_target("nginx"), name_target("foo") };
	struct match m;

	run_match(*state, t, 2, &m);
	assert_int_equal(m.ret, -1);
	assert_string_equal(m.err, "no process named 'foo'");
}

/* A name is quoted back: its control bytes must not break the line. */
static void test_missing_name_is_quoted_without_control_bytes(void **state)
{
	struct tt_target t[] = { name_target("a\x1b[2Jb\nc") };
	struct match m;

	run_match(*state, t, 1, &m);
	assert_int_equal(m.ret, -1);
	assert_string_equal(m.err, "no process named 'a?[2Jb?c'");
}

static void test_missing_name_waited_for(void **state)
{
	struct tt_target t[] = { name_target("nginx"), name_target("foo"), pid_target(4242) };
	bool found[3] = { false, true, false };
	uint32_t pids[MAX_PIDS];
	size_t n_pids = 0;
	char err[128] = "";

	/* A name may be waited for: found says which ones are missing; a
	 * missing PID is still an error. */
	assert_int_equal(proc_match(*state, t, 2, found, pids, MAX_PIDS, &n_pids, err,
				    sizeof(err)), 0);
	assert_true(n_pids >= 1);
	assert_true(found[0]);
	assert_false(found[1]);
	assert_int_equal(proc_match(*state, t, 3, found, pids, MAX_PIDS, &n_pids, err,
				    sizeof(err)), -1);
	assert_string_equal(err, "no process with PID 4242");
}

static void test_match_ignores_non_numeric_directories(void **state)
{
	struct tt_target t[] = { name_target("ghost") };
	struct match m;

	run_match(*state, t, 1, &m);
	assert_int_equal(m.ret, -1);
	assert_string_equal(m.err, "no process named 'ghost'");
	t[0] = name_target("phantom");
	run_match(*state, t, 1, &m);
	assert_string_equal(m.err, "no process named 'phantom'");
}

static void test_match_ignores_pid_names_with_leading_zero(void **state)
{
	struct tt_target t[] = { name_target("zeroed") };
	struct match m;

	run_match(*state, t, 1, &m);
	assert_int_equal(m.ret, -1);
	assert_string_equal(m.err, "no process named 'zeroed'");
}

static void test_match_several_targets_unique_and_sorted(void **state)
{
	struct tt_target t[] = {
		pid_target(4000), name_target("haproxy"), name_target("nginx"),
		pid_target(1),    pid_target(250),        name_target("systemd"),
	};
	struct match m;

	run_match(*state, t, 6, &m);
	assert_int_equal(m.ret, 0);
	assert_int_equal(m.n_pids, 4);
	assert_int_equal(m.pids[0], 1);
	assert_int_equal(m.pids[1], 100);
	assert_int_equal(m.pids[2], 250);
	assert_int_equal(m.pids[3], 4000);
}

static void test_match_no_targets(void **state)
{
	struct match m;

	run_match(*state, NULL, 0, &m);
	assert_int_equal(m.ret, 0);
	assert_int_equal(m.n_pids, 0);
}

static void test_match_more_processes_than_room(void **state)
{
	struct tt_target t[] = { name_target("nginx"), name_target("haproxy") };
	uint32_t pids[3];
	size_t n_pids;
	char err[ERR_LEN];

	assert_int_equal(proc_match(*state, t, 2, NULL, pids, 3, &n_pids, err, sizeof(err)), 0);
	assert_int_equal(n_pids, 3);
	assert_int_equal(proc_match(*state, t, 2, NULL, pids, 2, &n_pids, err, sizeof(err)), -1);
	assert_string_equal(err, "--pid matches more than 2 processes");
}

static void test_match_unreadable_root(void **state)
{
	struct tt_target t[] = { name_target("nginx") };
	char root[PATH_MAX];
	struct match m;

	snprintf(root, sizeof(root), "%s/missing", (char *)*state);
	run_match(root, t, 1, &m);
	assert_int_equal(m.ret, -1);
	assert_non_null(strstr(m.err, root));
}

static void test_read_field_finds_the_number_after_the_label(void **state)
{
	char path[PATH_MAX];
	uint64_t v = 0;

	snprintf(path, sizeof(path), "%s/status", (char *)*state);
	write_file(path, "Name:\tnginx\nVmPeak:\t  9 kB\nVmHWM:\t   12345 kB\n");
	assert_int_equal(proc_read_field(path, "VmHWM:", &v), 0);
	assert_int_equal(v, 12345);
	unlink(path);
}

static void test_read_field_refuses_a_missing_label_or_a_bad_number(void **state)
{
	char path[PATH_MAX];
	uint64_t v = 7;

	snprintf(path, sizeof(path), "%s/fdinfo", (char *)*state);
	write_file(path, "pos:\t0\nmemlock:\t12x\n");
	assert_int_equal(proc_read_field(path, "memlock:", &v), -1);
	assert_int_equal(proc_read_field(path, "VmHWM:", &v), -1);
	assert_int_equal(proc_read_field("/nonexistent/file", "memlock:", &v), -1);
	assert_int_equal(v, 7);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_comm_strips_newline),
		cmocka_unit_test(test_read_field_finds_the_number_after_the_label),
		cmocka_unit_test(test_read_field_refuses_a_missing_label_or_a_bad_number),
		cmocka_unit_test(test_read_comm_of_15_bytes),
		cmocka_unit_test(test_read_comm_cuts_to_buffer),
		cmocka_unit_test(test_read_comm_of_missing_process_fails),
		cmocka_unit_test(test_start_time),
		cmocka_unit_test(test_comm_matches_exact_name),
		cmocka_unit_test(test_comm_matches_truncated_long_name),
		cmocka_unit_test(test_match_existing_pid),
		cmocka_unit_test(test_match_pid_without_comm),
		cmocka_unit_test(test_match_missing_pid),
		cmocka_unit_test(test_match_pid_that_is_a_file),
		cmocka_unit_test(test_match_name_of_one_process),
		cmocka_unit_test(test_match_name_of_two_processes_sorted),
		cmocka_unit_test(test_match_name_of_15_bytes),
		cmocka_unit_test(test_match_name_with_punctuation),
		cmocka_unit_test(test_match_missing_name),
		cmocka_unit_test(test_missing_name_is_quoted_without_control_bytes),
		cmocka_unit_test(test_missing_name_waited_for),
		cmocka_unit_test(test_match_ignores_non_numeric_directories),
		cmocka_unit_test(test_match_ignores_pid_names_with_leading_zero),
		cmocka_unit_test(test_match_several_targets_unique_and_sorted),
		cmocka_unit_test(test_match_no_targets),
		cmocka_unit_test(test_match_more_processes_than_room),
		cmocka_unit_test(test_match_unreadable_root),
		cmocka_unit_test(test_instance_is_the_farthest_parent_of_the_name),
	};

	return cmocka_run_group_tests(tests, make_tree, remove_tree);
}
