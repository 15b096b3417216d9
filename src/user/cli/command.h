/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Run mode: the COMMAND of `tcptrace [OPTIONS] -- COMMAND [ARGS...]`,
 * started once tracing is attached and waited for. */
#ifndef TT_COMMAND_H
#define TT_COMMAND_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* tcptrace gives up root after attaching, and then may not signal a
 * COMMAND that kept it. So a small runner process, forked while tcptrace
 * is still privileged, starts COMMAND, stops it with SIGTERM when tcptrace
 * closes the control pipe (or dies), and reports how it ended. */
struct command {
	pid_t runner;
	int control_fd; /* write end: one byte starts COMMAND, close stops it */
	int result_fd;  /* read end: the runner writes one struct there */
	bool finished;  /* the result has been read */
	int exit_code;  /* valid once finished */
};

/* Fork the runner; COMMAND does not start yet. 0, or -1 with err set. */
int command_prepare(struct command *c, char *const argv[], char *err, size_t errlen);

/* Start COMMAND (argv as given to command_prepare) and wait until its exec
 * has succeeded or failed. 0, or -1 with err set ("cannot run 'x': ..."). */
int command_start(struct command *c, char *const argv[], char *err, size_t errlen);

/* Whether COMMAND has ended, without blocking. */
bool command_done(struct command *c);

/* Stop COMMAND if it still runs (SIGTERM), wait for it and the runner, and
 * return its status as a shell would: its exit code, 128 + the signal that
 * ended it, 127 when it could not be found, 126 when it could not be run. */
int command_finish(struct command *c);

#endif /* TT_COMMAND_H */
