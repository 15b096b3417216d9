// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* One line that names a failed step and why, for the caller to print. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "common/fail.h"

int tt_fail(char *err, int errnum, const char *fmt, ...)
{
	va_list ap;
	size_t len;

	va_start(ap, fmt);
	vsnprintf(err, TT_ERR_LEN, fmt, ap);
	va_end(ap);
	len = strlen(err);
	snprintf(err + len, TT_ERR_LEN - len, ": %s", strerror(errnum < 0 ? -errnum : errnum));
	return errnum < 0 ? errnum : -errnum;
}
