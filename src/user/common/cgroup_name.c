// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The label --by cgroup gives a process: its cgroup's name, a container's
 * ID in it cut to the short form; and a cgroup found by its id. */
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "common/cgroup_name.h"

#define FULL_ID_DIGITS 64
#define SHORT_ID_DIGITS 12
/* Deeper than any hierarchy systemd, Docker or Kubernetes makes. */
#define MAX_DEPTH 32
/* Cgroup ids whose labels are kept; past it, looked for again each time. */
#define MAX_LABELS 4096

struct cgroup_id_label {
	uint64_t id;
	char label[TT_CGROUP_LABEL_LEN];
};

static size_t hex_run(const char *s)
{
	size_t n = 0;

	while (isxdigit((unsigned char)s[n]) && !isupper((unsigned char)s[n]))
		n++;
	return n;
}

void cgroup_label(const char *name, char *out, size_t len)
{
	size_t used = 0;

	if (len == 0)
		return;
	if (name[0] == '\0' || !strcmp(name, "/"))
		name = "/";
	while (*name && used < len - 1) {
		size_t run = hex_run(name);
		size_t keep = run == FULL_ID_DIGITS ? SHORT_ID_DIGITS : run ? run : 1;

		for (size_t i = 0; i < keep && used < len - 1; i++)
			out[used++] = name[i];
		name += run ? run : 1;
	}
	out[used] = '\0';
}

void cgroup_label_of_path(const char *path, char *out, size_t len)
{
	const char *slash = strrchr(path, '/');

	cgroup_label(slash && slash[1] ? slash + 1 : path, out, len);
}

/* Looks for id below the directory dirfd, whose path from the root is
 * path[0..used); on a find, path holds the cgroup's. Closes dirfd. */
static int find_below(int dirfd, uint64_t id, char *path, size_t used, size_t len, int depth)
{
	DIR *dir = fdopendir(dirfd);
	struct dirent *e;
	int found = -1;

	if (!dir) {
		close(dirfd);
		return -1;
	}
	while (found && (e = readdir(dir))) {
		size_t name_len = strlen(e->d_name);
		struct stat st;
		int fd;

		if (e->d_type != DT_DIR || !strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (used + 1 + name_len >= len ||
		    fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISDIR(st.st_mode))
			continue;
		path[used] = '/';
		memcpy(path + used + 1, e->d_name, name_len + 1);
		if ((uint64_t)st.st_ino == id)
			found = 0;
		else if (depth < MAX_DEPTH &&
			 (fd = openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0)
			found = find_below(fd, id, path, used + 1 + name_len, len, depth + 1);
	}
	closedir(dir);
	if (found)
		path[used] = '\0';
	return found;
}

int cgroup_path_of_id(const char *root, uint64_t id, char *path, size_t len)
{
	struct stat st;
	int fd;

	if (len < 2 || stat(root, &st))
		return -1;
	if ((uint64_t)st.st_ino == id) {
		memcpy(path, "/", 2);
		return 0;
	}
	fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	path[0] = '\0';
	return find_below(fd, id, path, 0, len, 1);
}

/* The first cgroup2 mount of /proc/self/mountinfo that shows its whole
 * hierarchy (a bind mount of a subtree does not), or -1. */
int cgroup2_mount(char *root, size_t len)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096];
	int ret = -1;

	if (!f)
		return -1;
	while (ret && fgets(line, sizeof(line), f)) {
		char *dash = strstr(line, " - "), *point = line;

		if (!dash || strncmp(dash + 3, "cgroup2 ", 8) != 0)
			continue;
		/* The fifth field: ID, parent, major:minor, root, mount point. */
		for (int field = 0; field < 4 && point; field++) {
			if (field == 3 && strncmp(point, "/ ", 2) != 0)
				point = NULL;
			point = point ? strchr(point, ' ') : NULL;
			point = point ? point + 1 : NULL;
		}
		if (!point || strcspn(point, " ") >= len)
			continue;
		memcpy(root, point, strcspn(point, " "));
		root[strcspn(point, " ")] = '\0';
		ret = 0;
	}
	fclose(f);
	return ret;
}

void cgroup_label_of_id(struct cgroup_labels *c, uint64_t id, char *out)
{
	char path[4096];
	struct cgroup_id_label *kept;

	memset(out, 0, TT_CGROUP_LABEL_LEN);
	for (size_t i = 0; i < c->n; i++) {
		if (c->v[i].id == id) {
			memcpy(out, c->v[i].label, TT_CGROUP_LABEL_LEN);
			return;
		}
	}
	if (!c->root_state)
		c->root_state = cgroup2_mount(c->root, sizeof(c->root)) ? -1 : 1;
	if (c->root_state < 0 || cgroup_path_of_id(c->root, id, path, sizeof(path)))
		memcpy(out, "?", 2);
	else
		cgroup_label_of_path(path, out, TT_CGROUP_LABEL_LEN);
	if (c->n == c->allocated && c->n < MAX_LABELS) {
		size_t want = c->allocated ? 2 * c->allocated : 16;

		kept = realloc(c->v, want * sizeof(*kept));
		if (kept) {
			c->v = kept;
			c->allocated = want;
		}
	}
	if (c->n < c->allocated) {
		c->v[c->n].id = id;
		memcpy(c->v[c->n].label, out, TT_CGROUP_LABEL_LEN);
		c->n++;
	}
}

void cgroup_labels_free(struct cgroup_labels *c)
{
	free(c->v);
	c->v = NULL;
	c->n = c->allocated = 0;
}
