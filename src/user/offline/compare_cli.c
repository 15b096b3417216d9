// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* `tcptrace compare`: its help, its arguments, the files read and summed,
 * and the report written at once. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "common/fail.h"
#include "offline/compare.h"
#include "offline/compare_cli.h"
#include "offline/compare_write.h"

const char compare_usage[] =
	"Usage: tcptrace compare FILE FILE [FILE]... [--csv]\n"
	"Put two or more CSV files written by tcptrace --csv side by side: per run\n"
	"its duration and processes, then for every count its total, its rate per\n"
	"second and its ratio to the first run. TIME_WAIT comes first: tw_in,\n"
	"tw_out, and the peak of tw_now (summed over processes per interval).\n"
	"Then listen_drops, syn_retrans_out and synack_retrans_in, each process\n"
	"name's listen drops and deepest accept queue with its limit, and the\n"
	"peaks of open_in and open_out (n/a for a CSV written before they were).\n"
	"Then the connects timed, those of more than 1 s, the bucket bounds of\n"
	"their p50, p99 and max in microseconds (n/a above 50 s), and the failed\n"
	"connects by cause; as much of the accept queue waits (over 100 ms) and\n"
	"of the handshakes as the listeners saw them (over 1 s), when a run has any;\n"
	"the data segments sent again (retrans_*, retrans_rto_*) and those sent\n"
	"(segs_sent_*), when a run sent any again.\n"
	"\n"
	"      --csv     write the figures as CSV: counter,run,file,total,\n"
	"                per_second,ratio_to_first,comm\n"
	"  -h, --help    print this help and exit\n"
	"\n"
	"A ratio is '-' when both runs counted 0, 'inf' when only the first did.\n"
	"Exit status: 0 ok, 1 a file could not be read, 2 usage or malformed input.\n"
	"\n"
	"Example:\n"
	"  tcptrace compare nginx-default.csv nginx-keepalive.csv\n";

enum { OPT_CSV = 0x100 };

static const struct option long_options[] = {
	{ "csv", no_argument, NULL, OPT_CSV },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct compare_args {
	const char **files;
	size_t n_files;
	bool csv;
	bool help;
};

static int usage_error(FILE *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int usage_error(FILE *err, const char *fmt, ...)
{
	char line[TT_ERR_LEN];
	va_list ap;

	va_start(ap, fmt);
	tt_verror(line, sizeof(line), fmt, ap);
	va_end(ap);
	return tt_say(err, 2, "tcptrace compare", "%s (see tcptrace compare --help)", line);
}

/* Returns 0, or the exit status after one line on err. */
static int parse_args(int argc, char **argv, struct compare_args *args, FILE *err)
{
	int c;

	memset(args, 0, sizeof(*args));
	args->files = calloc(argc > 0 ? (size_t)argc : 1, sizeof(*args->files));
	if (!args->files) {
		tt_say(err, 1, "tcptrace compare", "out of memory");
		return 1;
	}
	/* '-': files come back in order, between options; ':': a missing
	 * argument is ':'. */
	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, "-:h", long_options, NULL)) != -1) {
		switch (c) {
		case 1:
			args->files[args->n_files++] = optarg;
			break;
		case OPT_CSV:
			args->csv = true;
			break;
		case 'h':
			args->help = true;
			break;
		default: {
			const char *arg = optind > 0 && optind <= argc ? argv[optind - 1] : "";

			if (optopt == OPT_CSV || optopt == 'h')
				return usage_error(err, "option '%.*s' takes no argument",
						   (int)strcspn(arg, "="), arg);
			if (optopt)
				return usage_error(err, "unknown option '-%c'", optopt);
			return usage_error(err, "unknown option '%.*s'", (int)strcspn(arg, "="),
					   arg);
		}
		}
	}
	/* Whatever follows "--" is a file, even when it starts with '-'. */
	while (optind < argc)
		args->files[args->n_files++] = argv[optind++];
	if (!args->help && args->n_files < 2)
		return usage_error(err, "expected at least two CSV files, got %zu",
				   args->n_files);
	return 0;
}

/* Reads and sums one file. Returns 0, or the exit status after one line on
 * err: 1 when it could not be read, 2 when its content is wrong. */
static int load_run(const char *path, struct compare_run *run, FILE *err)
{
	struct tt_csv_file csv;
	struct csv_error e;
	int ret;

	ret = csv_load("compare", path, TT_CSV_PER_PROCESS, &csv, err);
	if (ret)
		return ret;
	ret = compare_run_init(run, path, &csv, &e);
	csv_file_free(&csv);
	return ret ? csv_print_error(err, "compare", path, &e) : 0;
}

/* The report is built in memory and written at once, so that a failed
 * write is seen, with its errno, at the call that failed. */
static int write_report(FILE *out, const struct compare_run *runs, size_t n, bool csv,
			FILE *err)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m;
	int failed;

	m = open_memstream(&text, &len);
	if (!m) {
		tt_say(err, 1, "tcptrace compare", "out of memory");
		return 1;
	}
	failed = csv ? compare_write_csv(m, runs, n) : compare_write_text(m, runs, n);
	if (fclose(m) || failed) {
		free(text);
		tt_say(err, 1, "tcptrace compare", "out of memory");
		return 1;
	}
	if (fwrite(text, 1, len, out) != len || fflush(out)) {
		tt_say(err, 1, "tcptrace compare", "cannot write the report: %s", strerror(errno));
		free(text);
		return 1;
	}
	free(text);
	return 0;
}

int compare_cli(int argc, char **argv, FILE *out, FILE *err)
{
	struct compare_run *runs = NULL;
	struct compare_args args;
	size_t loaded = 0, i;
	int ret;

	ret = parse_args(argc, argv, &args, err);
	if (ret)
		goto out;
	if (args.help) {
		if (fputs(compare_usage, out) == EOF || fflush(out)) {
			tt_say(err, 1, "tcptrace compare", "cannot write the help: %s",
				strerror(errno));
			ret = 1;
		}
		goto out;
	}
	runs = calloc(args.n_files ? args.n_files : 1, sizeof(*runs));
	if (!runs) {
		tt_say(err, 1, "tcptrace compare", "out of memory");
		ret = 1;
		goto out;
	}
	for (loaded = 0; loaded < args.n_files; loaded++) {
		ret = load_run(args.files[loaded], &runs[loaded], err);
		if (ret) {
			compare_run_free(&runs[loaded]);
			goto out;
		}
	}
	ret = write_report(out, runs, args.n_files, args.csv, err);
out:
	for (i = 0; i < loaded; i++)
		compare_run_free(&runs[i]);
	free(runs);
	free(args.files);
	return ret;
}

int compare_main(int argc, char **argv)
{
	return compare_cli(argc, argv, stdout, stderr);
}
