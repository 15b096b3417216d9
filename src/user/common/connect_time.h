/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Connect latency read from its buckets (TT_CONNECT_BUCKETS in tcptrace.h):
 * their bounds, a quantile as the bound of the bucket it falls in, and a
 * duration written as people read one. */
#ifndef TT_CONNECT_TIME_H
#define TT_CONNECT_TIME_H

#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "tcptrace.h"

/* The bucket above every bound: its bound is UINT64_MAX. */
#define TT_CONNECT_OVER (TT_CONNECT_BUCKETS - 1)
/* The bucket of at most 1 s: those above it took more than a second. */
#define TT_CONNECT_1S 15
/* The bucket of at most 100 ms: an accept wait above it is a long one. */
#define TT_WAIT_100MS 12

/* Bucket i holds the connects of at most this many microseconds. */
uint64_t tt_connect_bound_us(size_t i);

/* Connects in the buckets, those above bucket `over`, and those of more
 * than a second. */
uint64_t tt_connect_count(const __u64 le[TT_CONNECT_BUCKETS]);
uint64_t tt_waits_above(const __u64 le[TT_CONNECT_BUCKETS], size_t over);
uint64_t tt_connect_slow(const __u64 le[TT_CONNECT_BUCKETS]);

/* The bucket of quantile q (0 < q <= 1): the first whose running count
 * reaches q of all; -1 when the buckets are empty. The highest non-empty
 * bucket for q = 1. */
int tt_connect_quantile(const __u64 le[TT_CONNECT_BUCKETS], double q);

/* "at most" a bucket's bound, as "50us", "2ms", "1s"; ">50s" for the last;
 * "-" for -1. */
void tt_connect_format(char *buf, size_t len, int bucket);

#endif /* TT_CONNECT_TIME_H */
