// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* One line that says what failed (see fail.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "common/fail.h"

static void scrub(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

static void vformat(char *err, size_t errlen, const char *fmt, va_list ap)
{
	if (!err || !errlen)
		return;
	vsnprintf(err, errlen, fmt, ap);
	scrub(err);
}

int tt_verror(char *err, size_t errlen, const char *fmt, va_list ap)
{
	vformat(err, errlen, fmt, ap);
	return -1;
}

int tt_error(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vformat(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

int tt_fail(char *err, int errnum, const char *fmt, ...)
{
	va_list ap;
	size_t len;

	va_start(ap, fmt);
	vformat(err, TT_ERR_LEN, fmt, ap);
	va_end(ap);
	len = strlen(err);
	snprintf(err + len, TT_ERR_LEN - len, ": %s", strerror(errnum < 0 ? -errnum : errnum));
	return errnum < 0 ? errnum : -errnum;
}

static int vsay(FILE *f, int code, const char *who, const char *fmt, va_list ap)
{
	char line[1024];

	vformat(line, sizeof(line), fmt, ap);
	fprintf(f, "%s: %s\n", who, line);
	return code;
}

int tt_say(FILE *f, int code, const char *who, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	code = vsay(f, code, who, fmt, ap);
	va_end(ap);
	return code;
}

int tt_die(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	code = vsay(stderr, code, "tcptrace", fmt, ap);
	va_end(ap);
	return code;
}
