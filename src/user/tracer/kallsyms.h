/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Where kernel functions lie, from a kallsyms file (/proc/kallsyms). */
#ifndef TT_KALLSYMS_H
#define TT_KALLSYMS_H

#include <stddef.h>
#include <stdint.h>

/* The bytes read at a time, and one more than the longest line read:
 * far more than any line of the kernel's (a name is at most 512 bytes). */
#define TT_KALLSYMS_BLOCK ((size_t)256 << 10)

/* For each of the n function names, its first address and the address of
 * the next symbol after it (its end), or 0 and 0 when the file does not
 * have it. Returns how many names were found, or -1 when the file cannot
 * be read or shows no addresses (kernel.kptr_restrict hides them). */
int kallsyms_ranges(const char *path, const char *const *names, size_t n, uint64_t *start,
		    uint64_t *end);

#endif /* TT_KALLSYMS_H */
