// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests of utf8_char_len: every kind of well-formed character, and
 * every way a byte sequence fails to be one (RFC 3629). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "common/utf8.h"

static size_t len_of(const char *s)
{
	return utf8_char_len((const unsigned char *)s, strlen(s));
}

static void test_ascii_is_one_byte(void **state)
{
	(void)state;
	assert_int_equal(len_of("a"), 1);
	assert_int_equal(len_of("\x7f"), 1);
	assert_int_equal(utf8_char_len((const unsigned char *)"\0", 1), 1);
}

static void test_well_formed_lengths(void **state)
{
	(void)state;
	assert_int_equal(len_of("\xc2\x80"), 2);         /* U+0080 */
	assert_int_equal(len_of("\xdf\xbf"), 2);         /* U+07FF */
	assert_int_equal(len_of("\xe0\xa0\x80"), 3);     /* U+0800 */
	assert_int_equal(len_of("\xed\x9f\xbf"), 3);     /* U+D7FF */
	assert_int_equal(len_of("\xee\x80\x80"), 3);     /* U+E000 */
	assert_int_equal(len_of("\xef\xbf\xbd"), 3);     /* U+FFFD */
	assert_int_equal(len_of("\xf0\x90\x80\x80"), 4); /* U+10000 */
	assert_int_equal(len_of("\xf4\x8f\xbf\xbf"), 4); /* U+10FFFF */
}

static void test_only_the_first_character_counts(void **state)
{
	(void)state;
	assert_int_equal(len_of("\xc3\xa9xyz"), 2);
}

static void test_ill_formed_sequences(void **state)
{
	(void)state;
	assert_int_equal(len_of("\x80"), 0);             /* continuation byte alone */
	assert_int_equal(len_of("\xc0\xaf"), 0);         /* overlong '/' */
	assert_int_equal(len_of("\xc1\xbf"), 0);         /* overlong */
	assert_int_equal(len_of("\xe0\x9f\xbf"), 0);     /* overlong three-byte form */
	assert_int_equal(len_of("\xed\xa0\x80"), 0);     /* surrogate U+D800 */
	assert_int_equal(len_of("\xf0\x8f\xbf\xbf"), 0); /* overlong four-byte form */
	assert_int_equal(len_of("\xf4\x90\x80\x80"), 0); /* U+110000 */
	assert_int_equal(len_of("\xf5\x80\x80\x80"), 0);
	assert_int_equal(len_of("\xff"), 0);
	assert_int_equal(len_of("\xc3" "a"), 0);         /* lead byte, no continuation */
	assert_int_equal(len_of("\xe2\x82" "a"), 0);
}

static void test_cut_sequence_is_not_a_character(void **state)
{
	(void)state;
	assert_int_equal(utf8_char_len((const unsigned char *)"\xe2\x82\xac", 2), 0);
	assert_int_equal(utf8_char_len((const unsigned char *)"\xf0\x9f\x98\x80", 3), 0);
	assert_int_equal(utf8_char_len((const unsigned char *)"a", 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ascii_is_one_byte),
		cmocka_unit_test(test_well_formed_lengths),
		cmocka_unit_test(test_only_the_first_character_counts),
		cmocka_unit_test(test_ill_formed_sequences),
		cmocka_unit_test(test_cut_sequence_is_not_a_character),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
