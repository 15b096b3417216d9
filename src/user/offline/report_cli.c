// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* tcptrace report: the arguments, the CSV files read as compare reads them,
 * the chart library, and the page written beside its destination and
 * renamed over it, so that no reader ever sees half a page. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "offline/compare.h"
#include "common/fail.h"
#include "offline/report_cli.h"
#include "offline/report_page.h"
#include "offline/timeline.h"

/* Chart.js 3.9 is 200 KiB; a file far past it is not the library. */
#define CHART_LIB_MAX (16 << 20)

const char report_usage[] =
	"Usage: tcptrace report FILE.csv [FILE.csv]... -o FILE.html\n"
	"Write one HTML page about CSV files written by tcptrace --csv (per\n"
	"process, or per destination with --by dest): every section tcptrace\n"
	"compare prints for them, as tables, then charts of the runs on one time\n"
	"axis: tw_now, connections per second by side, closes per second by class,\n"
	"RSTs sent per second by reason, EADDRNOTAVAIL per second and, where a CSV\n"
	"has their columns, connections open by side, listen drops per second, the\n"
	"deepest accept queue with its limit and SYNs sent again per second by\n"
	"side, each a line per process name (the names drawn, or their sum, are\n"
	"chosen on the page), and per destination ports_free and runout_s; a chart\n"
	"that is 0 throughout is one line instead. The page holds all it shows, the\n"
	"chart library included\n"
	"(Chart.js, read from\n"
	TT_CHART_LIB ",\n"
	"Debian's package " TT_CHART_LIB_PACKAGE "): it opens offline and loads nothing.\n"
	"\n"
	"  -o, --output FILE  write the page to FILE, replaced whole or not at all\n"
	"  -h, --help         print this help and exit\n"
	"\n"
	"Exit status: 0 ok, 1 a file could not be read or the page not written,\n"
	"2 usage, malformed input, or an output path that cannot be written.\n"
	"\n"
	"Example:\n"
	"  tcptrace report nginx-default.csv nginx-keepalive.csv -o nginx.html\n";

static const struct option long_options[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct report_args {
	const char **files;
	size_t n_files;
	const char *output;
	bool help;
};

/* What the page is written from: each file's rows, sums and series. */
struct report_runs {
	size_t n;
	struct tt_csv_file *csv;
	struct compare_run *sums;
	struct timeline *tls;
};

static void put_usage_error(FILE *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put_usage_error(FILE *err, const char *fmt, ...)
{
	char line[TT_ERR_LEN];
	va_list ap;

	va_start(ap, fmt);
	tt_verror(line, sizeof(line), fmt, ap);
	va_end(ap);
	tt_say(err, 2, "tcptrace report", "%s (see tcptrace report --help)", line);
}

/* Exit status 2 after one line; an expression rather than a variadic
 * function that returns 2, so that the static analyzer, which does not
 * follow variadic calls, sees the 2. */
#define usage_error(err, ...) (put_usage_error((err), __VA_ARGS__), 2)

/* Returns 0, or the exit status after one line on err. */
static int parse_args(int argc, char **argv, struct report_args *args, FILE *err)
{
	int c;

	memset(args, 0, sizeof(*args));
	args->files = calloc(argc > 0 ? (size_t)argc : 1, sizeof(*args->files));
	if (!args->files) {
		tt_say(err, 1, "tcptrace report", "out of memory");
		return 1;
	}
	/* '-': files come back in order, between options; ':': a missing
	 * argument is ':'. */
	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, "-:ho:", long_options, NULL)) != -1) {
		const char *arg = optind > 0 && optind <= argc ? argv[optind - 1] : "";

		switch (c) {
		case 1:
			args->files[args->n_files++] = optarg;
			break;
		case 'o':
			args->output = optarg;
			break;
		case 'h':
			args->help = true;
			break;
		case ':':
			return usage_error(err, "option '%s' needs FILE.html, where to write the page",
					   arg);
		default:
			if (optopt == 'h')
				return usage_error(err, "option '%.*s' takes no argument",
						   (int)strcspn(arg, "="), arg);
			if (optopt)
				return usage_error(err, "unknown option '-%c'", optopt);
			return usage_error(err, "unknown option '%.*s'", (int)strcspn(arg, "="), arg);
		}
	}
	/* Whatever follows "--" is a file, even when it starts with '-'. */
	while (optind < argc)
		args->files[args->n_files++] = argv[optind++];
	if (args->help)
		return 0;
	if (!args->n_files)
		return usage_error(err, "expected at least one CSV file");
	if (!args->output)
		return usage_error(err, "missing -o FILE.html, where to write the page");
	if (!*args->output)
		return usage_error(err, "-o names no file");
	if (!strcmp(args->output, "-"))
		return usage_error(err, "-o - : the page is written to a file, whole or not at all");
	return 0;
}

static void runs_free(struct report_runs *runs)
{
	size_t i;

	for (i = 0; i < runs->n; i++) {
		timeline_free(&runs->tls[i]);
		compare_run_free(&runs->sums[i]);
		csv_file_free(&runs->csv[i]);
	}
	free(runs->tls);
	free(runs->sums);
	free(runs->csv);
}

/* Reads, sums and follows each file over time. Returns 0, or the exit
 * status after one line on err. */
static int load_runs(const struct report_args *args, struct report_runs *runs, FILE *err)
{
	const size_t n = args->n_files;
	struct csv_error e;
	int ret;

	memset(runs, 0, sizeof(*runs));
	runs->csv = calloc(n ? n : 1, sizeof(*runs->csv));
	runs->sums = calloc(n ? n : 1, sizeof(*runs->sums));
	runs->tls = calloc(n ? n : 1, sizeof(*runs->tls));
	if (!runs->csv || !runs->sums || !runs->tls) {
		tt_say(err, 1, "tcptrace report", "out of memory");
		return 1;
	}
	for (runs->n = 0; runs->n < n; runs->n++) {
		const char *path = args->files[runs->n];
		size_t i = runs->n;

		ret = csv_load("report", path, TT_CSV_PER_PROCESS | TT_CSV_PER_DEST, &runs->csv[i],
			       err);
		if (ret)
			return ret;
		if (compare_run_init(&runs->sums[i], path, &runs->csv[i], &e)) {
			runs->n++; /* freed with the others */
			return csv_print_error(err, "report", path, &e);
		}
		if (timeline_build(&runs->tls[i], &runs->csv[i])) {
			runs->n++;
			tt_say(err, 1, "tcptrace report", "out of memory");
			return 1;
		}
	}
	return 0;
}

/* The chart library, whole, into *text. Returns 0, or 1 after one line on
 * err naming the package that brings it. */
static int read_chart_lib(const char *path, char **text, size_t *len, FILE *err)
{
	FILE *f = fopen(path, "re");
	size_t cap = 256 << 10, got, want;
	const char *why = NULL;
	char *grown;

	*text = NULL;
	*len = 0;
	if (!f) {
		why = strerror(errno);
		goto fail;
	}
	/* Until a read comes back short: the end of the file, or an error. */
	do {
		if (*len == cap && cap < CHART_LIB_MAX)
			cap *= 2;
		grown = realloc(*text, cap);
		if (!grown) {
			why = strerror(ENOMEM);
			break;
		}
		*text = grown;
		want = cap - *len;
		got = fread(*text + *len, 1, want, f);
		*len += got;
	} while (got == want && *len < CHART_LIB_MAX);
	if (!why && ferror(f))
		why = strerror(errno ? errno : EIO);
	else if (!why && *len >= CHART_LIB_MAX)
		why = "larger than 16 MiB, not the library";
	else if (!why && !*len)
		why = "the file is empty";
	fclose(f);
	if (!why)
		return 0;
fail:
	tt_say(err, 1, "tcptrace report", "cannot read the chart library %s: %s (it comes with "
	       "the package " TT_CHART_LIB_PACKAGE ")", path, why);
	free(*text);
	*text = NULL;
	return 1;
}

/* The page in memory, so that the file is written at once. */
static int build_page(const struct report_runs *runs, const char *lib, size_t lib_len,
		      char **page, size_t *page_len, FILE *err)
{
	FILE *m = open_memstream(page, page_len);
	int failed;

	if (!m) {
		tt_say(err, 1, "tcptrace report", "out of memory");
		return 1;
	}
	failed = report_page_write(m, runs->sums, runs->tls, runs->n, lib, lib_len);
	if (fclose(m) || failed) {
		free(*page);
		*page = NULL;
		tt_say(err, 1, "tcptrace report", "out of memory");
		return 1;
	}
	return 0;
}

/* "DIR/.NAME.XXXXXX" beside path, for mkstemp. NULL when out of memory. */
static char *temp_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0;
	size_t len = strlen(path) + sizeof(".") + sizeof(".XXXXXX");
	char *name = malloc(len);

	if (name)
		snprintf(name, len, "%.*s.%s.XXXXXX", (int)dir_len, path, path + dir_len);
	return name;
}

/* Writes the page to a new file beside path and renames it over path.
 * Returns 0, or the exit status after one line on err: 2 when nothing can
 * be written there, 1 when writing failed. No file is left either way. */
static int write_atomically(const char *path, const char *page, size_t len, FILE *err)
{
	char *tmp = temp_name(path);
	struct stat st;
	mode_t mask;
	int fd, ret = 1;
	FILE *f;

	if (!tmp) {
		tt_say(err, 1, "tcptrace report", "out of memory");
		return 1;
	}
	if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
		tt_say(err, 1, "tcptrace report", "cannot write %s: %s", path, strerror(EISDIR));
		free(tmp);
		return 2;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		tt_say(err, 1, "tcptrace report", "cannot write %s: %s", path, strerror(errno));
		free(tmp);
		return 2;
	}
	/* mkstemp makes the file 0600; the page is as readable as any new file. */
	mask = umask(0);
	umask(mask);
	f = fdopen(fd, "w");
	if (!f || fchmod(fd, 0666 & ~mask) || fwrite(page, 1, len, f) != len || fflush(f) ||
	    fsync(fd)) {
		tt_say(err, 1, "tcptrace report", "cannot write %s: %s", path, strerror(errno));
		if (f)
			fclose(f);
		else
			close(fd);
		goto out;
	}
	if (fclose(f)) {
		tt_say(err, 1, "tcptrace report", "cannot write %s: %s", path, strerror(errno));
		goto out;
	}
	if (rename(tmp, path)) {
		tt_say(err, 1, "tcptrace report", "cannot write %s: %s", path, strerror(errno));
		goto out;
	}
	ret = 0;
out:
	if (ret)
		unlink(tmp);
	free(tmp);
	return ret;
}

int report_cli(int argc, char **argv, const char *chart_lib, FILE *out, FILE *err)
{
	struct report_runs runs = { 0 };
	struct report_args args;
	char *lib = NULL, *page = NULL;
	size_t lib_len, page_len = 0;
	int ret;

	ret = parse_args(argc, argv, &args, err);
	if (ret)
		goto out;
	if (args.help) {
		if (fputs(report_usage, out) == EOF || fflush(out)) {
			tt_say(err, 1, "tcptrace report", "cannot write the help: %s", strerror(errno));
			ret = 1;
		}
		goto out;
	}
	ret = load_runs(&args, &runs, err);
	if (!ret)
		ret = read_chart_lib(chart_lib, &lib, &lib_len, err);
	if (!ret)
		ret = build_page(&runs, lib, lib_len, &page, &page_len, err);
	if (!ret)
		ret = write_atomically(args.output, page, page_len, err);
out:
	runs_free(&runs);
	free(lib);
	free(page);
	free(args.files);
	return ret;
}

int report_main(int argc, char **argv)
{
	return report_cli(argc, argv, TT_CHART_LIB, stdout, stderr);
}
