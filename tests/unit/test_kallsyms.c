// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests of kallsyms_ranges: a function ends where the next symbol
 * above it begins, in the file's address order; hidden addresses refuse. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tracer/kallsyms.h"

static char *write_file(const char *text)
{
	static char path[] = "/tmp/test_kallsyms_XXXXXX";
	char *copy = malloc(sizeof(path));
	int fd;

	assert_non_null(copy);
	snprintf(copy, sizeof(path), "%s", path);
	fd = mkstemp(copy);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return copy;
}

static const char *const names[] = { "tcp_v4_rcv", "tcp_v6_rcv", "tcp_rcv_state_process" };

/* kallsyms_ranges of the three names over a file holding text. */
static int ranges_of(const char *text, uint64_t start[3], uint64_t end[3])
{
	char *path = write_file(text);
	int found = kallsyms_ranges(path, names, 3, start, end);

	unlink(path);
	free(path);
	return found;
}

static void test_ranges_in_address_order(void **state)
{
	uint64_t start[3], end[3];

	(void)state;
	assert_int_equal(ranges_of("ffffffff81a00000 t tcp_v4_rcv\n"
				   "ffffffff81a00080 t tcp_v4_rcv.cold\n"
				   "ffffffff81a00100 T tcp_v4_do_rcv\n"
				   "ffffffff81a00300 T tcp_rcv_state_process\n"
				   "ffffffff81b00000 d some_data\n"
				   "ffffffffc0001000 t nf_hook [nf_tables]\n", start, end), 2);
	assert_true(start[0] == 0xffffffff81a00000ull && end[0] == 0xffffffff81a00080ull);
	assert_true(start[1] == 0 && end[1] == 0);
	assert_true(start[2] == 0xffffffff81a00300ull && end[2] == 0xffffffff81b00000ull);
}

/* A lower address after a function's line does not end it; the end of
 * the kernel's text ends the search. */
static void test_lower_addresses_passed_over_and_etext_stops(void **state)
{
	uint64_t start[3], end[3];

	(void)state;
	assert_int_equal(ranges_of("ffffffff81a00300 T tcp_rcv_state_process\n"
				   "ffffffff81a00000 t tcp_v4_rcv\n"
				   "ffffffff81a00400 T next\n"
				   "ffffffff81c00000 T _etext\n"
				   "ffffffffc0002000 t tcp_v6_rcv [ipv6]\n"
				   "ffffffffc0003000 t after [ipv6]\n", start, end), 2);
	assert_true(end[2] == 0xffffffff81a00400ull);
	assert_true(end[0] == 0xffffffff81a00400ull);
	assert_true(start[1] == 0);
}

/* A data symbol of the same name is no function. */
static void test_only_text_symbols(void **state)
{
	uint64_t start[3], end[3];

	(void)state;
	assert_int_equal(ranges_of("ffffffff81a00000 d tcp_v4_rcv\n"
				   "ffffffff81a00100 T tcp_v6_rcv\n"
				   "ffffffff81a00200 T next\n", start, end), 1);
	assert_true(start[0] == 0);
	assert_true(start[1] == 0xffffffff81a00100ull && end[1] == 0xffffffff81a00200ull);
}

/* kernel.kptr_restrict hides every address: nothing can be told. */
static void test_hidden_addresses(void **state)
{
	uint64_t start[3], end[3];

	(void)state;
	assert_int_equal(ranges_of("0000000000000000 T tcp_v4_rcv\n"
				   "0000000000000000 T tcp_rcv_state_process\n", start, end), -1);
	assert_int_equal(kallsyms_ranges("/nonexistent/kallsyms", names, 3, start, end), -1);
}

/* The last symbol of the file has no end: not a range. */
static void test_last_symbol_has_no_end(void **state)
{
	uint64_t start[3], end[3];

	(void)state;
	assert_int_equal(ranges_of("ffffffff81a00000 T tcp_v4_rcv\n", start, end), 0);
	assert_true(start[0] == 0 && end[0] == 0);
}

/* A file of several read blocks: a line that straddles two blocks is
 * whole; a line longer than a block is passed over whole, though its tail
 * after the block it fills ("0000000000000001 T tcp_v6_rcv") would read as
 * a symbol; a last line without its newline counts. */
static void test_lines_across_blocks(void **state)
{
	size_t block = TT_KALLSYMS_BLOCK, zeros = block - 4, size = 3 * block, used = 0;
	char *text = malloc(size);
	uint64_t start[3], end[3];

	(void)state;
	assert_non_null(text);
	/* Filler up to 10 bytes before the first block's end: a regular file
	 * gives the first read() a whole block. */
	while (used + 64 < block - 10)
		used += (size_t)snprintf(text + used, size - used, "ffffffff80000000 t filler\n");
	used += (size_t)snprintf(text + used, size - used, "ffffffff80000000 t %0*d\n",
				 (int)(block - 10 - used - 20), 0);
	assert_int_equal(used, block - 10);
	used += (size_t)snprintf(text + used, size - used,
				 "ffffffff81a00000 T tcp_v4_rcv\nffffffff81a00100 T ");
	/* The long line fills a block from its start: 19 bytes, then zeros
	 * up to 15 past the block's end. */
	memset(text + used, '0', zeros);
	used += zeros;
	snprintf(text + used, size - used, "1 T tcp_v6_rcv\n"
					   "ffffffff81a00200 T tcp_rcv_state_process\n"
					   "ffffffff81a00300 T last_without_newline");
	assert_int_equal(ranges_of(text, start, end), 2);
	assert_true(start[0] == 0xffffffff81a00000ull && end[0] == 0xffffffff81a00200ull);
	assert_true(start[1] == 0 && end[1] == 0);
	assert_true(start[2] == 0xffffffff81a00200ull && end[2] == 0xffffffff81a00300ull);
	free(text);
}

/* An address of more than 16 digits is no kernel's: the line is passed
 * over. */
static void test_overlong_address_passed_over(void **state)
{
	uint64_t start[3], end[3];

	(void)state;
	assert_int_equal(ranges_of("1ffffffff81a00000 T tcp_v4_rcv\n"
				   "ffffffff81a00100 T next\n", start, end), 0);
	assert_true(start[0] == 0 && end[0] == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ranges_in_address_order),
		cmocka_unit_test(test_lower_addresses_passed_over_and_etext_stops),
		cmocka_unit_test(test_only_text_symbols),
		cmocka_unit_test(test_hidden_addresses),
		cmocka_unit_test(test_last_symbol_has_no_end),
		cmocka_unit_test(test_lines_across_blocks),
		cmocka_unit_test(test_overlong_address_passed_over),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
