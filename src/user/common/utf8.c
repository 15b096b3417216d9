// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Well-formed UTF-8 per RFC 3629 (Table 3-7 of the Unicode standard). */
#include "common/utf8.h"

static int in(unsigned char c, unsigned char lo, unsigned char hi)
{
	return c >= lo && c <= hi;
}

size_t utf8_char_len(const unsigned char *s, size_t n)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len, i;

	if (n == 0)
		return 0;
	if (s[0] < 0x80)
		return 1;
	if (in(s[0], 0xc2, 0xdf)) {
		len = 2;
	} else if (in(s[0], 0xe0, 0xef)) {
		len = 3;
		if (s[0] == 0xe0)
			lo = 0xa0; /* overlong */
		else if (s[0] == 0xed)
			hi = 0x9f; /* surrogates */
	} else if (in(s[0], 0xf0, 0xf4)) {
		len = 4;
		if (s[0] == 0xf0)
			lo = 0x90; /* overlong */
		else if (s[0] == 0xf4)
			hi = 0x8f; /* past U+10FFFF */
	} else {
		return 0;
	}
	if (n < len || !in(s[1], lo, hi))
		return 0;
	for (i = 2; i < len; i++)
		if (!in(s[i], 0x80, 0xbf))
			return 0;
	return len;
}
