// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Small reads of /proc files: a process's name, one numeric field, its
 * cgroup, the instance of a server it belongs to. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/procfs.h"

int proc_read_comm(const char *proc_root, uint32_t pid, char *buf, size_t len)
{
	char path[PATH_MAX];
	size_t used = 0;
	ssize_t got;
	int fd;

	if (len == 0)
		return -1;
	if (snprintf(path, sizeof(path), "%s/%u/comm", proc_root, pid) >= (int)sizeof(path))
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while (used < len - 1) {
		got = read(fd, buf + used, len - 1 - used);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			close(fd);
			return -1;
		}
		if (got == 0)
			break;
		used += (size_t)got;
	}
	close(fd);
	buf[used] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int proc_start_time(const char *proc_root, uint32_t pid, uint64_t *start)
{
	char path[PATH_MAX], line[1024], *p, *end;
	unsigned long long v;
	int field = 2;
	FILE *f;

	if (snprintf(path, sizeof(path), "%s/%u/stat", proc_root, pid) >= (int)sizeof(path))
		return -1;
	f = fopen(path, "re");
	if (!f)
		return -1;
	p = fgets(line, sizeof(line), f);
	fclose(f);
	/* The name, field 2, may hold spaces and parentheses: count from
	 * its last ')'. */
	p = p ? strrchr(line, ')') : NULL;
	while (p && field < 22) {
		p = strchr(p + 1, ' ');
		field++;
	}
	if (!p)
		return -1;
	errno = 0;
	v = strtoull(p + 1, &end, 10);
	if (errno || end == p + 1 || (*end != ' ' && *end != '\n' && *end != '\0'))
		return -1;
	*start = v;
	return 0;
}

int proc_read_field(const char *path, const char *label, uint64_t *value)
{
	size_t len = strlen(label);
	char line[256];
	int ret = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v;
		char *end;

		if (strncmp(line, label, len) != 0)
			continue;
		errno = 0;
		v = strtoull(line + len, &end, 10);
		if (errno || end == line + len || (*end != '\n' && *end != ' ' && *end != '\0'))
			break;
		*value = v;
		ret = 0;
		break;
	}
	fclose(f);
	return ret;
}

int proc_cgroup_path(const char *proc_root, uint32_t pid, char *buf, size_t len)
{
	char path[PATH_MAX], line[PATH_MAX + 8];
	int ret = -1;
	FILE *f;

	if (snprintf(path, sizeof(path), "%s/%u/cgroup", proc_root, pid) >= (int)sizeof(path))
		return -1;
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *rel = line + 3;

		if (strncmp(line, "0::", 3) != 0)
			continue;
		rel[strcspn(rel, "\n")] = '\0';
		if (rel[0] == '/' && strlen(rel) < len) {
			memcpy(buf, rel, strlen(rel) + 1);
			ret = 0;
		}
		break;
	}
	fclose(f);
	return ret;
}

static bool named(const char *proc_root, uint32_t pid, const char *comm)
{
	char now[64];

	return !proc_read_comm(proc_root, pid, now, sizeof(now)) && !strcmp(now, comm);
}

uint32_t proc_instance(const char *proc_root, uint32_t pid, const char *comm)
{
	char path[PATH_MAX];
	uint64_t parent;

	if (!pid || !named(proc_root, pid, comm))
		return 0;
	/* Bounded: a line of names is short, and /proc may change under us. */
	for (int depth = 0; depth < 64; depth++) {
		if (snprintf(path, sizeof(path), "%s/%u/status", proc_root, pid) >= (int)sizeof(path) ||
		    proc_read_field(path, "PPid:", &parent) || !parent || parent > UINT32_MAX ||
		    !named(proc_root, (uint32_t)parent, comm))
			break;
		pid = (uint32_t)parent;
	}
	return pid;
}
