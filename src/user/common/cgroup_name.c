// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The label --by cgroup gives a process: its cgroup's name, a container's
 * ID in it cut to the short form. */
#include <ctype.h>
#include <string.h>
#include "common/cgroup_name.h"

#define FULL_ID_DIGITS 64
#define SHORT_ID_DIGITS 12

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
