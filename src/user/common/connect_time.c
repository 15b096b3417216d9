// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Connect latency buckets: bounds, counts, quantiles and their text. */
#include <stdio.h>
#include "common/connect_time.h"

/* The 1-2-5 steps of the BPF side's times_latency_bucket() (times.bpf.h), from 10 us. */
uint64_t tt_connect_bound_us(size_t i)
{
	static const uint64_t steps[3] = { 1, 2, 5 };
	uint64_t decade = 10;

	if (i >= TT_CONNECT_OVER)
		return UINT64_MAX;
	for (size_t d = 0; d < i / 3; d++)
		decade *= 10;
	return decade * steps[i % 3];
}

uint64_t tt_connect_count(const __u64 le[TT_CONNECT_BUCKETS])
{
	uint64_t n = 0;

	for (size_t i = 0; i < TT_CONNECT_BUCKETS; i++)
		n += le[i];
	return n;
}

uint64_t tt_waits_above(const __u64 le[TT_CONNECT_BUCKETS], size_t over)
{
	uint64_t n = 0;

	for (size_t i = over + 1; i < TT_CONNECT_BUCKETS; i++)
		n += le[i];
	return n;
}

/* A SYN sent again waits a second, its connect a little more. */
uint64_t tt_connect_slow(const __u64 le[TT_CONNECT_BUCKETS])
{
	return tt_waits_above(le, TT_CONNECT_1S);
}

int tt_connect_quantile(const __u64 le[TT_CONNECT_BUCKETS], double q)
{
	uint64_t n = tt_connect_count(le), seen = 0;

	if (!n)
		return -1;
	for (size_t i = 0; i < TT_CONNECT_BUCKETS; i++) {
		seen += le[i];
		if (le[i] && (double)seen >= q * (double)n)
			return (int)i;
	}
	return TT_CONNECT_OVER;
}

void tt_connect_format(char *buf, size_t len, int bucket)
{
	uint64_t us;

	if (bucket < 0) {
		snprintf(buf, len, "-");
		return;
	}
	if (bucket >= TT_CONNECT_OVER) {
		snprintf(buf, len, ">%llus",
			 (unsigned long long)(tt_connect_bound_us(TT_CONNECT_OVER - 1) / 1000000));
		return;
	}
	us = tt_connect_bound_us((size_t)bucket);
	if (us < 1000)
		snprintf(buf, len, "%lluus", (unsigned long long)us);
	else if (us < 1000000)
		snprintf(buf, len, "%llums", (unsigned long long)(us / 1000));
	else
		snprintf(buf, len, "%llus", (unsigned long long)(us / 1000000));
}
