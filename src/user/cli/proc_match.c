// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Finds the processes that --pid names, by PID or by command name, in a
 * /proc tree; the root is a parameter so tests can use a fake tree. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli/proc_match.h"
#include "common/fail.h"
#include "common/procfs.h"

bool comm_matches(const char *name, const char *comm)
{
	size_t len = strnlen(name, TT_COMM_LEN - 1);

	return strlen(comm) == len && memcmp(name, comm, len) == 0;
}

static bool pid_exists(const char *proc_root, uint32_t pid)
{
	char path[PATH_MAX];
	struct stat st;

	if (snprintf(path, sizeof(path), "%s/%u", proc_root, pid) >= (int)sizeof(path))
		return false;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Only directories named by a PID are processes: /proc also holds "self",
 * "sys" and the like. */
static bool parse_pid_name(const char *name, uint32_t *pid)
{
	unsigned long v;
	char *end;

	if (name[0] < '1' || name[0] > '9' || name[strspn(name, "0123456789")] != '\0')
		return false;
	errno = 0;
	v = strtoul(name, &end, 10);
	if (errno || *end != '\0' || v > UINT32_MAX)
		return false;
	*pid = (uint32_t)v;
	return true;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static size_t sort_unique(uint32_t *pids, size_t n)
{
	size_t i, out = 0;

	if (n < 2)
		return n;
	qsort(pids, n, sizeof(*pids), cmp_u32);
	for (i = 0; i < n; i++) {
		if (out == 0 || pids[out - 1] != pids[i])
			pids[out++] = pids[i];
	}
	return out;
}

/* Appends pid; when the array is full, duplicates are squeezed out first,
 * as a name and a PID may well name the same process. */
static int add_pid(uint32_t *pids, size_t max_pids, size_t *n, uint32_t pid, char *err,
		   size_t errlen)
{
	if (*n == max_pids)
		*n = sort_unique(pids, *n);
	if (*n == max_pids)
		return tt_error(err, errlen, "--pid matches more than %zu processes", max_pids);
	pids[(*n)++] = pid;
	return 0;
}

/* Adds every process whose comm matches a NAME target, marking found[]. */
static int match_names(const char *proc_root, const struct tt_target *targets, size_t n,
		       bool *found, uint32_t *pids, size_t max_pids, size_t *n_pids, char *err,
		       size_t errlen)
{
	char comm[TT_COMM_LEN + 1];
	struct dirent *de;
	uint32_t pid;
	size_t i;
	DIR *dir;
	int ret = 0;

	dir = opendir(proc_root);
	if (!dir)
		return tt_error(err, errlen, "cannot read %s: %s", proc_root, strerror(errno));
	while (!ret && (de = readdir(dir))) {
		bool matched = false;

		if (!parse_pid_name(de->d_name, &pid))
			continue;
		/* A process may exit between readdir and the read of its comm. */
		if (proc_read_comm(proc_root, pid, comm, sizeof(comm)))
			continue;
		for (i = 0; i < n; i++) {
			if (!targets[i].is_pid && comm_matches(targets[i].name, comm)) {
				found[i] = true;
				matched = true;
			}
		}
		if (matched)
			ret = add_pid(pids, max_pids, n_pids, pid, err, errlen);
	}
	closedir(dir);
	return ret;
}

int proc_match(const char *proc_root, const struct tt_target *targets, size_t n,
	       bool *found, uint32_t *pids, size_t max_pids, size_t *n_pids, char *err,
	       size_t errlen)
{
	bool matched[TT_MAX_TRACED] = { false };
	bool any_name = false;
	size_t i;

	*n_pids = 0;
	if (n > TT_MAX_TRACED)
		return tt_error(err, errlen, "too many --pid entries: expected at most %d",
			    TT_MAX_TRACED);
	for (i = 0; i < n; i++) {
		if (!targets[i].is_pid) {
			any_name = true;
			continue;
		}
		if (!pid_exists(proc_root, targets[i].pid))
			return tt_error(err, errlen, "no process with PID %u", targets[i].pid);
		if (add_pid(pids, max_pids, n_pids, targets[i].pid, err, errlen))
			return -1;
	}
	if (any_name &&
	    match_names(proc_root, targets, n, matched, pids, max_pids, n_pids, err, errlen))
		return -1;
	for (i = 0; i < n; i++) {
		if (found)
			found[i] = targets[i].is_pid || matched[i];
		else if (!targets[i].is_pid && !matched[i])
			return tt_error(err, errlen, "no process named '%s'", targets[i].name);
	}
	*n_pids = sort_unique(pids, *n_pids);
	return 0;
}

