// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Where the rows go, and the files tcptrace writes them to. */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include "cli/outputs.h"
#include "common/fail.h"

static bool is_stdout(const char *path)
{
	return path && !strcmp(path, "-");
}

int outputs_open(struct session *s)
{
	const struct tt_options *o = &s->opts;
	struct report *rep = &s->rep;

	if (is_stdout(o->csv_path)) {
		rep->csv = stdout;
	} else {
		rep->table = stdout;
		if (o->csv_path && !(s->csv_file = fopen(o->csv_path, "we")))
			return tt_die(TT_EXIT_USAGE, "cannot write CSV file '%s': %s", o->csv_path,
				      strerror(errno));
		rep->csv = s->csv_file;
	}
	if (is_stdout(o->json_path)) {
		rep->json = stdout;
		rep->table = NULL;
	} else if (o->json_path && !(rep->json = s->json_file = fopen(o->json_path, "we"))) {
		return tt_die(TT_EXIT_USAGE, "cannot write JSON file '%s': %s", o->json_path,
			      strerror(errno));
	}
	if (o->listen_addr.set)
		rep->table = NULL; /* a daemon: /metrics instead of the table */
	rep->names = &s->t.reason_names;
	rep->by_dest = o->by_dest;
	rep->scope = scope_is_set(&s->scope) ? s->scope.label : NULL;
	return TT_EXIT_OK;
}

/* Never an empty file behind a run that did not start. */
static int file_close(FILE *f, const char *path, const char *what, bool keep, int ret)
{
	if (!f)
		return ret;
	if (fclose(f) && ret == TT_EXIT_OK)
		ret = tt_die(TT_EXIT_RUNTIME, "cannot write %s file '%s': %s", what, path,
			     strerror(errno));
	if (!keep)
		unlink(path);
	return ret;
}

int outputs_close(struct session *s, int ret)
{
	ret = file_close(s->json_file, s->opts.json_path, "JSON", s->tracing, ret);
	s->json_file = NULL;
	ret = file_close(s->csv_file, s->opts.csv_path, "CSV", s->tracing, ret);
	s->csv_file = NULL;
	return ret;
}
