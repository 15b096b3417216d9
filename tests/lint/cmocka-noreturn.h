/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Force-included by `make lint` into tests/unit/*.c, never by a build.
 * A failed cmocka assertion longjmps out of the test, but cmocka 1.1 does not
 * say so, so the static analyzer walks on past assert_non_null(f) and reports
 * "Stream pointer might be NULL". Here the assertions the tests use on
 * pointers and conditions end in a noreturn call when they fail, which is
 * what they do at run time. */
#ifndef TT_LINT_CMOCKA_NORETURN_H
#define TT_LINT_CMOCKA_NORETURN_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

void tt_lint_assert_failed(void) __attribute__((noreturn));

#undef assert_true
#define assert_true(c) ((c) ? (void)0 : tt_lint_assert_failed())
#undef assert_false
#define assert_false(c) (!(c) ? (void)0 : tt_lint_assert_failed())
#undef assert_non_null
#define assert_non_null(c) ((c) != NULL ? (void)0 : tt_lint_assert_failed())
#undef assert_null
#define assert_null(c) ((c) == NULL ? (void)0 : tt_lint_assert_failed())

#endif
