/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* User space's table of timewait sockets' owners, keyed by struct
 * tt_tw_key: open addressing with linear probing, grown at half full. */
#ifndef TT_TW_TABLE_H
#define TT_TW_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "tcptrace.h"

struct tw_owner {
	struct tt_tw_key key;
	uint64_t stamp; /* tw_stamp when the BPF side recorded it */
	uint32_t slot; /* the owner's process slot */
	uint8_t side;
	bool ended; /* its timewait socket has gone */
};

struct tw_table {
	struct tw_owner *slots;
	bool *used;
	size_t cap; /* a power of two, or 0 */
	size_t n;
};

/* Adds or replaces the owner of o->key. Returns 0, or -ENOMEM. */
int tw_table_put(struct tw_table *t, const struct tw_owner *o);
/* The owner of key, or NULL. */
struct tw_owner *tw_table_get(const struct tw_table *t, const struct tt_tw_key *key);
/* Removes every owner for which drop(owner, ctx) is true; returns how many. */
size_t tw_table_remove_if(struct tw_table *t, bool (*drop)(const struct tw_owner *, void *),
			  void *ctx);
/* Walks the owners: *pos starts at 0; NULL at the end. */
struct tw_owner *tw_table_next(const struct tw_table *t, size_t *pos);
void tw_table_free(struct tw_table *t);

#endif /* TT_TW_TABLE_H */
