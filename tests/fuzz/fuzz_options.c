// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* libFuzzer harness for options_parse(): the input is a command line, each
 * argument ended by a NUL byte (the last one may end with the input), and
 * argv[0] is added. Besides the sanitizers, it checks what options.h
 * promises: on success every value is in its documented range, on failure
 * err holds a message. (The message quotes the bad argument as given, so it
 * is one line only when the argument is.) */
#include <stdint.h>
#include <sys/socket.h>
#include <stdlib.h>
#include <string.h>
#include "cli/options.h"

#define MAX_ARGS 64 /* getopt's cost grows with argc; more finds nothing new */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_success(const struct tt_options *o)
{
	if (o->interval_ms < 100 || o->interval_ms > 3600 * 1000)
		abort();
	if (o->duration_ms > 31ULL * 24 * 3600 * 1000)
		abort();
	if (o->count > 1000000000ULL)
		abort();
	if (o->max_sockets < 1024 || o->max_sockets > 16777216)
		abort();
	if (o->max_procs < 16 || o->max_procs > 1048576)
		abort();
	if (o->csv_path && o->csv_path[0] == '\0')
		abort();
	if (o->json_path && o->json_path[0] == '\0')
		abort();
	if (o->csv_path && o->json_path && !strcmp(o->csv_path, "-") && !strcmp(o->json_path, "-"))
		abort();
	if (o->max_comms < 1 || o->max_comms > 65536)
		abort();
	if (o->listen_addr.set && (o->listen_addr.port == 0 || (o->listen_addr.family != AF_INET &&
								 o->listen_addr.family != AF_INET6)))
		abort();
	if (o->n_targets > TT_MAX_TRACED)
		abort();
	for (size_t i = 0; i < o->n_targets; i++) {
		const struct tt_target *t = &o->targets[i];

		if (t->is_pid && (t->pid < 1 || t->pid > 4194304))
			abort();
		if (!t->is_pid && (memchr(t->name, '\0', sizeof(t->name)) == NULL ||
				   t->name[0] == '\0' || strchr(t->name, '/') || strchr(t->name, ',')))
			abort();
	}
}

static void check_failure(const char *err, size_t errlen)
{
	size_t len = strnlen(err, errlen);

	/* Some text, NUL-terminated within the buffer. */
	if (len == 0 || len == errlen)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[MAX_ARGS + 2];
	char err[256];
	struct tt_options opts;
	char *copy;
	int argc = 0;
	size_t start = 0;

	/* A private, NUL-terminated copy: the parser may keep pointers into
	 * argv (csv_path), and libFuzzer's buffer has no terminator. */
	copy = malloc(size + 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	copy[size] = '\0';

	argv[argc++] = "tcptrace";
	while (argc <= MAX_ARGS && start < size) {
		argv[argc++] = copy + start;
		start += strlen(copy + start) + 1;
	}
	argv[argc] = NULL;

	if (options_parse(argc, argv, &opts, err, sizeof(err)) == 0)
		check_success(&opts);
	else
		check_failure(err, sizeof(err));
	free(copy);
	return 0;
}
