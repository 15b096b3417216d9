/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* One line that names a failed step and why, for the caller to print. */
#ifndef TT_FAIL_H
#define TT_FAIL_H

#define TT_ERR_LEN 256

/* err (TT_ERR_LEN bytes) set to the step, ": ", and errnum's text;
 * returns -errnum (errnum may be given either sign). */
int tt_fail(char *err, int errnum, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif /* TT_FAIL_H */
