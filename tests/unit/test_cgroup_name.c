// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests of the --by cgroup label: a unit's name as it is, a
 * container's ID cut to its short form, the root, and the bound; and a
 * cgroup found by its id (its directory's inode) in a tree. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "common/cgroup_name.h"

#define ID64 "4f1c0b2e9a8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a29180706f5e4d3c2b1a09f"

static void label_is(const char *path, const char *want)
{
	char out[TT_CGROUP_LABEL_LEN];

	cgroup_label_of_path(path, out, sizeof(out));
	assert_string_equal(out, want);
}

static void test_unit_names_as_they_are(void **state)
{
	(void)state;
	label_is("/system.slice/haproxy.service", "haproxy.service");
	label_is("/user.slice/user-0.slice/session-3.scope", "session-3.scope");
	label_is("/tt-a", "tt-a");
	label_is("tt-b", "tt-b");
}

static void test_container_ids_cut_short(void **state)
{
	(void)state;
	label_is("/system.slice/docker-" ID64 ".scope", "docker-4f1c0b2e9a8d.scope");
	label_is("/docker/" ID64, "4f1c0b2e9a8d");
	label_is("/kubepods.slice/kubepods-pod1.slice/cri-containerd-" ID64 ".scope",
		 "cri-containerd-4f1c0b2e9a8d.scope");
	/* Not 64 digits, or not lower case: not an ID, kept whole. */
	label_is("/abc123def/run-0123456789abcdef", "run-0123456789abcdef");
	label_is("/x/" "4F1C0B2E9A8D7C6B5A4F3E2D1C0B9A8F7E6D5C4B3A29180706F5E4D3C2B1A09F",
		 "4F1C0B2E9A8D7C6B5A4F3E2D1C0B9A8F7E6D5C4B3A29180706F5E4D3C2B1A09");
}

static void test_root(void **state)
{
	char out[8];

	(void)state;
	label_is("/", "/");
	cgroup_label("", out, sizeof(out));
	assert_string_equal(out, "/");
}

static void test_cut_to_fit(void **state)
{
	char out[8];

	(void)state;
	cgroup_label("haproxy.service", out, sizeof(out));
	assert_string_equal(out, "haproxy");
	cgroup_label("docker-" ID64, out, sizeof(out));
	assert_string_equal(out, "docker-");
	cgroup_label("x", out, 1);
	assert_string_equal(out, "");
}

static uint64_t inode_of(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return (uint64_t)st.st_ino;
}

/* A tree like a cgroup2 mount's: the path of each directory's inode. */
static void test_path_of_id(void **state)
{
	char root[] = "/tmp/tt-cgroup-test.XXXXXX", dir[256], path[256];
	const char *dirs[] = { "system.slice", "system.slice/haproxy.service",
			       "system.slice/nginx.service", "user.slice" };

	(void)state;
	assert_non_null(mkdtemp(root));
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(dir, sizeof(dir), "%s/%s", root, dirs[i]);
		assert_int_equal(mkdir(dir, 0755), 0);
	}
	snprintf(dir, sizeof(dir), "%s/system.slice/nginx.service", root);
	assert_int_equal(cgroup_path_of_id(root, inode_of(dir), path, sizeof(path)), 0);
	assert_string_equal(path, "/system.slice/nginx.service");
	assert_int_equal(cgroup_path_of_id(root, inode_of(root), path, sizeof(path)), 0);
	assert_string_equal(path, "/");
	/* No directory has it: a file's inode, then one too short a buffer. */
	snprintf(dir, sizeof(dir), "%s/user.slice/cgroup.procs", root);
	fclose(fopen(dir, "w"));
	assert_int_equal(cgroup_path_of_id(root, inode_of(dir), path, sizeof(path)), -1);
	snprintf(dir, sizeof(dir), "%s/system.slice/haproxy.service", root);
	assert_int_equal(cgroup_path_of_id(root, inode_of(dir), path, 16), -1);
	for (size_t i = sizeof(dirs) / sizeof(dirs[0]); i-- > 0;) {
		snprintf(dir, sizeof(dir), "%s/%s", root, dirs[i]);
		if (i == 3) {
			char file[300];

			snprintf(file, sizeof(file), "%s/cgroup.procs", dir);
			unlink(file);
		}
		rmdir(dir);
	}
	rmdir(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unit_names_as_they_are),
		cmocka_unit_test(test_container_ids_cut_short),
		cmocka_unit_test(test_root),
		cmocka_unit_test(test_cut_to_fit),
		cmocka_unit_test(test_path_of_id),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
