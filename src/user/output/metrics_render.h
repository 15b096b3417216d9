/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The exposition text of output/metrics' series. Pure. */
#ifndef TT_METRICS_RENDER_H
#define TT_METRICS_RENDER_H

#include <stddef.h>
#include "output/metrics.h"

/* The exposition text (malloc'd, *len bytes, NUL-terminated), or NULL when
 * out of memory. names: the RST reason names (NULL entries are written as
 * reason_N); version: tcptrace's, for tcptrace_build_info. */
char *metrics_render(const struct tt_metrics *m, const struct tt_reason_names *names,
		     const char *version, enum metrics_format format, size_t *len);

#endif /* TT_METRICS_RENDER_H */
