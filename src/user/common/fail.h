/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* One line that says what failed, the one way tcptrace formats it: into a
 * buffer for the caller to print, or on a stream after "tcptrace: " (or
 * "tcptrace compare: ", ...). Control
 * bytes come out as '?': a quoted argument or process name must not break
 * the line or the terminal. */
#ifndef TT_FAIL_H
#define TT_FAIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#define TT_ERR_LEN 256

/* err (errlen bytes) set to the line; returns -1. */
int tt_error(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* err (TT_ERR_LEN bytes) set to the step, ": ", and errnum's text;
 * returns -errnum (errnum may be given either sign). */
int tt_fail(char *err, int errnum, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The same from a va_list. */
int tt_verror(char *err, size_t errlen, const char *fmt, va_list ap);

/* who ("tcptrace", "tcptrace compare"), ": " and the line on f; returns
 * code (an exit status). */
int tt_say(FILE *f, int code, const char *who, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* "tcptrace: " and the line on stderr; returns code (an exit status). */
int tt_die(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* TT_FAIL_H */
