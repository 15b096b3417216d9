/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* User space's table of timewait sockets' owners, one per four-tuple
 * (struct tt_flow_key): open addressing with linear probing, grown at half
 * full, an owner and its mark of use on one cache line. */
#ifndef TT_TW_TABLE_H
#define TT_TW_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "tcptrace.h"

struct tw_owner {
	struct tt_flow_key flow;
	uint32_t snd_nxt; /* the timewait socket's tw_snd_nxt */
	uint64_t stamp;   /* tw_stamp when the BPF side recorded it */
	uint32_t slot;    /* the owner's process slot */
	uint8_t side;
	bool used;     /* this place of the table holds an owner */
	uint16_t seen; /* the last reading that listed its timewait socket */
};

struct tw_table {
	struct tw_owner *slots;
	size_t cap; /* a power of two, or 0 */
	size_t n;
};

/* Adds o, in the place of its four-tuple's owner if the table has one:
 * the kernel holds one socket per four-tuple, so a new timewait socket
 * there means the one before has ended (owners are put in the order the
 * BPF side recorded them). Returns 0, or -ENOMEM. */
int tw_table_put(struct tw_table *t, const struct tw_owner *o);
/* Asks the CPU for the place where flow's owner would be, ahead of a
 * tw_table_get of it among many. */
void tw_table_prefetch(const struct tw_table *t, const struct tt_flow_key *flow);
/* The owner of flow, or NULL. */
struct tw_owner *tw_table_get(const struct tw_table *t, const struct tt_flow_key *flow);
/* Removes every owner for which drop(owner, ctx) is true; returns how many. */
size_t tw_table_remove_if(struct tw_table *t, bool (*drop)(struct tw_owner *, void *), void *ctx);
/* Walks the owners: *pos starts at 0; NULL at the end. */
struct tw_owner *tw_table_next(const struct tw_table *t, size_t *pos);
void tw_table_free(struct tw_table *t);

#endif /* TT_TW_TABLE_H */
