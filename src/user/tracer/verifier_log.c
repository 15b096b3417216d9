// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Reads the verifier's statistics out of its log (verifier_log.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracer/verifier_log.h"

/* The number after the first occurrence of prefix in log. */
static int number_after(const char *log, const char *prefix, uint64_t *n)
{
	const char *at = strstr(log, prefix);
	char *end;

	if (!at)
		return -1;
	at += strlen(prefix);
	if (*at < '0' || *at > '9')
		return -1;
	*n = strtoull(at, &end, 10);
	return 0;
}

int verifier_log_stats(const char *log, struct tt_verifier_stats *out)
{
	out->insns = 0;
	out->usec = 0;
	if (!log || number_after(log, "processed ", &out->insns))
		return -1;
	number_after(log, "verification time ", &out->usec);
	return 0;
}
