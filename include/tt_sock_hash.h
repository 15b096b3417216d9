/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Where the socket table puts a socket: the hash of its address and its
 * home bucket. Shared by the BPF side, which keeps the table (socks.bpf.h),
 * and the unit test that fills a model of it (tests/unit/test_sock_table.c),
 * so that the fill the test measures is the table's. */
#ifndef TT_SOCK_HASH_H
#define TT_SOCK_HASH_H

/* A socket's address, mixed. Sockets are objects of a few KiB carved
 * from contiguous slabs: their addresses step by a fixed size, and a
 * single multiplication left runs of them on a few buckets. A 64-bit
 * finalizer (MurmurHash3's fmix64) spreads them evenly. */
static inline __attribute__((always_inline)) __u64 tt_sock_hash(__u64 key)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdull;
	key ^= key >> 33;
	key *= 0xc4ceb9fe1a85ec53ull;
	return key ^ (key >> 33);
}

/* The bucket, of buckets, that the socket at address key tries first; it
 * may be held in any of the TT_SOCK_PROBES buckets from there on. */
static inline __attribute__((always_inline)) __u32 tt_sock_home(__u64 key, __u32 buckets)
{
	return ((tt_sock_hash(key) >> 32) * buckets) >> 32;
}

#endif /* TT_SOCK_HASH_H */
