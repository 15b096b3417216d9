/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Text and scripts written into an HTML page: escaped so that nothing from
 * a file name or a CSV can become markup or end a script element. */
#ifndef TT_HTML_H
#define TT_HTML_H

#include <stddef.h>
#include <stdio.h>

/* s as text or an attribute value (in double quotes): '&', '<', '>', '"'
 * and '\'' as references, a byte that is not UTF-8 or a control character
 * but tab and line feed as U+FFFD. */
void html_put_text(FILE *f, const char *s);

/* The source of a script (len bytes) for a <script> element: every
 * "</script" and "<!--", in any case, has a backslash put after its '<'
 * ("<\/script"), which means the same inside the string, regular
 * expression or comment where JavaScript can hold them. */
void html_put_script(FILE *f, const char *s, size_t len);

#endif /* TT_HTML_H */
