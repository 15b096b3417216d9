// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Where kernel functions lie, from a kallsyms file: each line is
 * "ADDRESS TYPE NAME [MODULE]". A function ends where the next symbol by
 * address begins. /proc/kallsyms lists the kernel's own symbols in address
 * order, so the first symbol after a function's line that lies above it
 * ends it, and the pass stops at the end of the kernel's text (_etext)
 * or once every name has an end. Functions of modules, listed after, are
 * not looked for. The kernel makes /proc/kallsyms as it is read, at most a
 * page per read(), and that is most of the time the pass takes; of the
 * rest, each line is parsed in place (no stdio, no strtoull). */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tracer/kallsyms.h"

struct wanted {
	const char *const *names;
	size_t *lens;
	size_t n;
	size_t open; /* names not ended yet */
	size_t started; /* names whose line was met, and not their end */
	uint64_t *start;
	uint64_t *end;
	int found;
	bool any_address;
};

/* Each byte's value as a hex digit, plus one; 0 for any other byte: a
 * table rather than strtoull, which took most of the parse's time. */
static const unsigned char hex_value[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7, ['7'] = 8,
	['8'] = 9, ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15,
	['f'] = 16, ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

/* Where a name ends: at a blank (before "[module]") or the line's end. */
static const char *name_stop(const char *name, const char *stop)
{
	const char *space = memchr(name, ' ', (size_t)(stop - name));
	const char *tab = memchr(name, '\t', (size_t)((space ?: stop) - name));

	return tab ?: space ?: stop;
}

/* One line, without its newline: "ffffffff81a00000 T name [module]". */
static void take_line(struct wanted *w, const char *line, size_t len)
{
	const char *p = line, *stop = line + len, *name, *name_end;
	uint64_t addr = 0;
	int d;
	char type;

	while (p < stop && (d = hex_value[(unsigned char)*p])) {
		addr = addr << 4 | (uint64_t)(d - 1);
		p++;
	}
	/* At most 16 digits: a longer address is no kernel's. */
	if (p == line || p - line > 16 || stop - p < 3 || p[0] != ' ' || p[2] != ' ')
		return;
	type = p[1];
	name = p + 3;
	name_end = name_stop(name, stop);
	w->any_address |= addr != 0;
	if (name_end - name == 6 && !memcmp(name, "_etext", 6))
		w->open = 0;
	for (size_t i = 0; w->started && i < w->n; i++) {
		if (w->start[i] && !w->end[i] && addr > w->start[i]) {
			w->end[i] = addr;
			w->started--;
			w->open -= w->open > 0;
		}
	}
	if (type != 't' && type != 'T')
		return;
	for (size_t i = 0; i < w->n; i++) {
		if (!w->start[i] && (size_t)(name_end - name) == w->lens[i] &&
		    !memcmp(name, w->names[i], w->lens[i])) {
			w->start[i] = addr;
			w->started++;
			w->found++;
		}
	}
}

/* Every whole line of the file until no name is open; false on a read
 * error. A line longer than the block is passed over whole, address and
 * all: the kernel writes no such line. */
static bool take_lines(struct wanted *w, int fd, char *buf)
{
	size_t have = 0;
	bool skipping = false;

	while (w->open) {
		ssize_t got = read(fd, buf + have, TT_KALLSYMS_BLOCK - have);
		char *line = buf, *nl;

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return false;
		if (!got)
			break;
		have += (size_t)got;
		while (w->open && (nl = memchr(line, '\n', have - (size_t)(line - buf)))) {
			if (!skipping)
				take_line(w, line, (size_t)(nl - line));
			skipping = false;
			line = nl + 1;
		}
		have -= (size_t)(line - buf);
		if (have == TT_KALLSYMS_BLOCK) {
			skipping = true;
			have = 0;
		} else {
			memmove(buf, line, have);
		}
	}
	if (w->open && have && !skipping)
		take_line(w, buf, have);
	return true;
}

int kallsyms_ranges(const char *path, const char *const *names, size_t n, uint64_t *start,
		    uint64_t *end)
{
	struct wanted w = { .names = names, .n = n, .open = n, .start = start, .end = end };
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *buf = malloc(TT_KALLSYMS_BLOCK);
	bool read_ok;

	w.lens = calloc(n ? n : 1, sizeof(*w.lens));
	if (fd < 0 || !buf || !w.lens) {
		if (fd >= 0)
			close(fd);
		free(buf);
		free(w.lens);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		w.lens[i] = strlen(names[i]);
	memset(start, 0, n * sizeof(*start));
	memset(end, 0, n * sizeof(*end));
	read_ok = take_lines(&w, fd, buf);
	close(fd);
	free(buf);
	free(w.lens);
	if (!read_ok || !w.any_address)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (start[i] && !end[i]) {
			start[i] = 0;
			w.found--;
		}
	}
	return w.found;
}
