// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Where kernel functions lie, from a kallsyms file: each line is
 * "ADDRESS TYPE NAME [MODULE]". A function ends where the next symbol by
 * address begins. /proc/kallsyms lists the kernel's own symbols in address
 * order, so the first symbol after a function's line that lies above it
 * ends it, and the pass stops at the end of the kernel's text (_etext)
 * or once every name has an end: the kernel makes the file as it is
 * read, slowly (a tenth of a second here, seconds in an emulated guest).
 * Functions of modules, listed after, are not looked for. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracer/kallsyms.h"

/* "ffffffff81a00000 T name [module]": address, type and name, or false. */
static bool parse_line(char *line, uint64_t *addr, char *type, char **name)
{
	char *end;

	*addr = strtoull(line, &end, 16);
	if (end == line || end[0] != ' ' || !end[1] || end[2] != ' ')
		return false;
	*type = end[1];
	*name = end + 3;
	(*name)[strcspn(*name, " \t\n")] = '\0';
	return true;
}

int kallsyms_ranges(const char *path, const char *const *names, size_t n, uint64_t *start,
		    uint64_t *end)
{
	FILE *f = fopen(path, "re");
	bool any_address = false;
	size_t open = n; /* names not ended yet */
	char line[512];
	int found = 0;

	if (!f)
		return -1;
	memset(start, 0, n * sizeof(*start));
	memset(end, 0, n * sizeof(*end));
	while (open && fgets(line, sizeof(line), f)) {
		uint64_t addr;
		char type, *name;

		if (!parse_line(line, &addr, &type, &name))
			continue;
		any_address |= addr != 0;
		if (!strcmp(name, "_etext"))
			open = 0;
		for (size_t i = 0; i < n; i++) {
			if (start[i] && !end[i] && addr > start[i]) {
				end[i] = addr;
				open -= open > 0;
			} else if (!start[i] && (type == 't' || type == 'T') && !strcmp(name, names[i])) {
				start[i] = addr;
				found++;
			}
		}
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
