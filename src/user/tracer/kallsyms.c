// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Where kernel functions lie, from a kallsyms file: each line is
 * "ADDRESS TYPE NAME [MODULE]", in no promised order. A function ends
 * where the next symbol by address begins. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracer/kallsyms.h"

int kallsyms_ranges(const char *path, const char *const *names, size_t n, uint64_t *start,
		    uint64_t *end)
{
	FILE *f = fopen(path, "re");
	char line[512];
	bool any_address = false;
	int found = 0;

	if (!f)
		return -1;
	memset(start, 0, n * sizeof(*start));
	memset(end, 0, n * sizeof(*end));
	/* First the starts, then for each the nearest symbol above it. */
	for (int pass = 0; pass < 2; pass++) {
		if (fseek(f, 0, SEEK_SET))
			break;
		while (fgets(line, sizeof(line), f)) {
			char text[32], type, name[256], *rest;
			uint64_t addr;

			/* The address as text, then strtoull: sscanf's %x would
			 * not tell a bad one. */
			if (sscanf(line, "%31s %c %255s", text, &type, name) != 3)
				continue;
			errno = 0;
			addr = strtoull(text, &rest, 16);
			if (errno || rest == text || *rest)
				continue;
			any_address |= addr != 0;
			for (size_t i = 0; i < n; i++) {
				if (pass == 0 && !start[i] && !strcmp(name, names[i]) &&
				    (type == 't' || type == 'T')) {
					start[i] = addr;
					found++;
				} else if (pass == 1 && start[i] && addr > start[i] &&
					   (!end[i] || addr < end[i])) {
					end[i] = addr;
				}
			}
		}
		if (!any_address)
			break;
	}
	fclose(f);
	if (!any_address)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (start[i] && !end[i]) {
			start[i] = 0;
			found--;
		}
	}
	return found;
}
