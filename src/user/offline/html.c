// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Escapes text and scripts for an HTML page. */
#include <stdbool.h>
#include <string.h>
#include <strings.h>
#include "offline/html.h"
#include "common/utf8.h"

void html_put_text(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s), i = 0, n;

	while (i < len) {
		unsigned char c = p[i];

		switch (c) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&#39;", f);
			break;
		default:
			n = utf8_char_len(p + i, len - i);
			if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7f || !n) {
				fputs(UTF8_REPLACEMENT, f);
			} else {
				fwrite(p + i, 1, n, f);
				i += n;
				continue;
			}
		}
		i++;
	}
}

/* Whether s[0..len) starts with "</script" or "<!--", in any case. */
static bool ends_script_data(const char *s, size_t len)
{
	return (len >= 8 && !strncasecmp(s, "</script", 8)) || (len >= 4 && !memcmp(s, "<!--", 4));
}

void html_put_script(FILE *f, const char *s, size_t len)
{
	size_t start = 0, i;

	for (i = 0; i < len; i++) {
		if (s[i] != '<' || !ends_script_data(s + i, len - i))
			continue;
		fwrite(s + start, 1, i + 1 - start, f);
		fputc('\\', f);
		start = i + 1;
	}
	fwrite(s + start, 1, len - start, f);
}
