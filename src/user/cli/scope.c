// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* --cgroup, --unit and --netns resolved, and processes matched to them. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spawn.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include "common/fail.h"
#include "common/procfs.h"
#include "cli/scope.h"

#define CGROUP2_MAGIC 0x63677270

static void add_label(struct tt_scope *s, const char *kind, const char *what)
{
	size_t len = strlen(s->label);

	snprintf(s->label + len, sizeof(s->label) - len, "%s%s %s", len ? ", " : "", kind, what);
}

/* The cgroup2 mount that holds path (already resolved), from mountinfo,
 * into mount; false when none does. */
static bool cgroup2_mount_of(const char *path, char *mount, size_t mount_len)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096];
	size_t best = 0;
	bool found = false;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		char point[PATH_MAX], *dash = strstr(line, " - ");
		size_t len;

		if (!dash || strncmp(dash + 3, "cgroup2 ", 8) != 0)
			continue;
		if (sscanf(line, "%*s %*s %*s %*s %4095s", point) != 1)
			continue;
		len = strcmp(point, "/") ? strlen(point) : 0;
		if (strncmp(path, point, len) != 0 || (path[len] != '/' && path[len] != '\0'))
			continue;
		if (!found || len > best) {
			best = len;
			found = true;
			snprintf(mount, mount_len, "%s", len ? point : "");
		}
	}
	fclose(f);
	return found;
}

static int open_cgroup(struct tt_scope *s, const char *path, const char *option, char *err,
		       size_t errlen)
{
	char real[PATH_MAX], mount[PATH_MAX];
	const char *rel;
	struct statfs fs;

	if (!realpath(path, real))
		return tt_error(err, errlen, "invalid %s '%s': %s", option, path, strerror(errno));
	s->cgroup_fd = open(real, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s->cgroup_fd < 0)
		return tt_error(err, errlen, "invalid %s '%s': %s", option, path, strerror(errno));
	if (fstatfs(s->cgroup_fd, &fs) || fs.f_type != CGROUP2_MAGIC)
		return tt_error(err, errlen, "invalid %s '%s': not a directory of a cgroup v2 "
					     "hierarchy (cgroup2 in /proc/mounts)", option, path);
	if (!cgroup2_mount_of(real, mount, sizeof(mount)))
		return tt_error(err, errlen, "invalid %s '%s': no cgroup2 mount holds it", option,
				path);
	rel = real + strlen(mount);
	snprintf(s->cgroup, sizeof(s->cgroup), "%s", real);
	snprintf(s->cgroup_rel, sizeof(s->cgroup_rel), "%s", *rel ? rel : "/");
	return 0;
}

static bool unit_name_ok(const char *name)
{
	for (const char *c = name; *c; c++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:_.\\@-",
			    *c))
			return false;
	return name[0] != '-';
}

/* What systemctl prints of the unit's ControlGroup, into out. */
static void systemctl_control_group(const char *unit, char *out, size_t len)
{
	char *const argv[] = { "systemctl", "show", "--property=ControlGroup", "--value", "--",
			       (char *)unit, NULL };
	posix_spawn_file_actions_t actions;
	int pipefd[2], status;
	ssize_t got = 0, n;
	pid_t pid;

	out[0] = '\0';
	if (pipe2(pipefd, O_CLOEXEC))
		return;
	posix_spawn_file_actions_init(&actions);
	posix_spawn_file_actions_adddup2(&actions, pipefd[1], STDOUT_FILENO);
	posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
	if (posix_spawnp(&pid, "systemctl", &actions, NULL, argv, environ) == 0) {
		close(pipefd[1]);
		pipefd[1] = -1;
		while ((size_t)got < len - 1 &&
		       (n = read(pipefd[0], out + got, len - 1 - (size_t)got)) > 0)
			got += n;
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	out[got] = '\0';
	out[strcspn(out, "\n")] = '\0';
	posix_spawn_file_actions_destroy(&actions);
	close(pipefd[0]);
	if (pipefd[1] >= 0)
		close(pipefd[1]);
}

/* The unit's cgroup, as systemd has it ("/system.slice/haproxy.service"). */
static int unit_cgroup(const char *unit, char *out, size_t len, char *err, size_t errlen)
{
	char comm[64] = "?";
	FILE *f;

	if (access("/run/systemd/system", F_OK)) {
		f = fopen("/proc/1/comm", "re");
		if (f) {
			if (fgets(comm, sizeof(comm), f))
				comm[strcspn(comm, "\n")] = '\0';
			fclose(f);
		}
		return tt_error(err, errlen, "invalid --unit '%s': systemd is not running here (PID "
					     "1 is '%s'); give the unit's cgroup with --cgroup",
				unit, comm);
	}
	if (!unit_name_ok(unit) || strlen(unit) > 256)
		return tt_error(err, errlen, "invalid --unit '%s': not a unit name", unit);
	systemctl_control_group(unit, out, len);
	if (out[0] != '/')
		return tt_error(err, errlen, "invalid --unit '%s': systemd knows no cgroup of it "
					     "(not loaded, or not running)", unit);
	return 0;
}

static int resolve_netns(struct tt_scope *s, const char *netns, char *err, size_t errlen)
{
	char path[PATH_MAX];
	struct stat st, self;
	const char *c;

	for (c = netns; *c >= '0' && *c <= '9'; c++)
		;
	if (!*c && c - netns < 11)
		snprintf(path, sizeof(path), "/proc/%s/ns/net", netns);
	else
		snprintf(path, sizeof(path), "%s", netns);
	if (stat(path, &st) && !*c)
		return tt_error(err, errlen, "invalid --netns '%s': no process %s", netns, netns);
	if (stat(path, &st))
		return tt_error(err, errlen, "invalid --netns '%s': %s", netns, strerror(errno));
	if (stat("/proc/self/ns/net", &self) || st.st_dev != self.st_dev || st.st_ino > UINT32_MAX)
		return tt_error(err, errlen, "invalid --netns '%s': not a network namespace "
					     "(a /run/netns/NAME file or a PID)", netns);
	s->netns = (uint32_t)st.st_ino;
	snprintf(s->netns_path, sizeof(s->netns_path), "%s", path);
	return 0;
}

int scope_resolve(struct tt_scope *s, const char *cgroup, const char *unit, const char *netns,
		  char *err, size_t errlen)
{
	memset(s, 0, sizeof(*s));
	s->cgroup_fd = -1;
	if (unit) {
		char group[PATH_MAX], mount[PATH_MAX], path[2 * PATH_MAX];

		if (unit_cgroup(unit, group, sizeof(group), err, errlen))
			return -1;
		if (!cgroup2_mount_of("/sys/fs/cgroup/unified", mount, sizeof(mount)) &&
		    !cgroup2_mount_of("/sys/fs/cgroup", mount, sizeof(mount)))
			return tt_error(err, errlen, "invalid --unit '%s': no cgroup2 mount", unit);
		snprintf(path, sizeof(path), "%s%s", mount, group);
		if (open_cgroup(s, path, "--unit", err, errlen))
			return -1;
		add_label(s, "unit", unit);
	} else if (cgroup) {
		if (open_cgroup(s, cgroup, "--cgroup", err, errlen))
			return -1;
		add_label(s, "cgroup", s->cgroup);
	}
	if (netns) {
		if (resolve_netns(s, netns, err, errlen))
			return -1;
		add_label(s, "netns", netns);
	}
	return 0;
}

bool scope_is_set(const struct tt_scope *s)
{
	return s->cgroup_fd >= 0 || s->netns;
}

static bool in_cgroup(const struct tt_scope *s, uint32_t pid)
{
	size_t len = strlen(s->cgroup_rel);
	char rel[PATH_MAX];

	if (proc_cgroup_path("/proc", pid, rel, sizeof(rel)))
		return false;
	return !strcmp(s->cgroup_rel, "/") ||
	       (!strncmp(rel, s->cgroup_rel, len) && (rel[len] == '\0' || rel[len] == '/'));
}

bool scope_has_pid(const struct tt_scope *s, uint32_t pid)
{
	if (s->cgroup_fd >= 0 && !in_cgroup(s, pid))
		return false;
	if (s->netns) {
		char path[64];
		struct stat st;

		snprintf(path, sizeof(path), "/proc/%u/ns/net", pid);
		if (stat(path, &st) || st.st_ino != s->netns)
			return false;
	}
	return true;
}

size_t scope_filter(const struct tt_scope *s, uint32_t *pids, size_t n)
{
	size_t out = 0;

	for (size_t i = 0; i < n; i++)
		if (scope_has_pid(s, pids[i]))
			pids[out++] = pids[i];
	return out;
}

size_t scope_pids(const struct tt_scope *s, uint32_t *pids, size_t max, const uint32_t *skip,
		  size_t n_skip)
{
	DIR *dir = opendir("/proc");
	struct dirent *de;
	size_t n = 0;

	if (!dir)
		return 0;
	while (n < max && (de = readdir(dir))) {
		char *end;
		unsigned long pid = strtoul(de->d_name, &end, 10);
		bool skipped = false;

		if (*end || end == de->d_name || pid == 0 || pid > UINT32_MAX)
			continue;
		for (size_t i = 0; i < n_skip; i++)
			skipped |= skip[i] == pid;
		if (!skipped && scope_has_pid(s, (uint32_t)pid))
			pids[n++] = (uint32_t)pid;
	}
	closedir(dir);
	return n;
}

void scope_close(struct tt_scope *s)
{
	if (s->cgroup_fd >= 0)
		close(s->cgroup_fd);
	s->cgroup_fd = -1;
}
