/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* UTF-8 validation for text that leaves tcptrace in formats that must be
 * UTF-8 (JSON, Prometheus labels); process names are arbitrary bytes. */
#ifndef TT_UTF8_H
#define TT_UTF8_H

#include <stddef.h>

/* U+FFFD REPLACEMENT CHARACTER, written in place of an invalid byte. */
#define UTF8_REPLACEMENT "\xef\xbf\xbd"

/* Length (1 to 4) of the well-formed UTF-8 character at s, of the n bytes
 * available, or 0 when s does not start one: a stray continuation byte, an
 * overlong form, a surrogate, a value past U+10FFFF, or a cut sequence. */
size_t utf8_char_len(const unsigned char *s, size_t n);

#endif /* TT_UTF8_H */
