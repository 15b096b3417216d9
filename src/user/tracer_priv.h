/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What the tracer's own files share and no other module uses: the public
 * API is tracer.h. */
#ifndef TT_TRACER_PRIV_H
#define TT_TRACER_PRIV_H

#include <stddef.h>
#include <stdint.h>
#include "ports.h"
#include "tracer.h"

/* t->err set to the failed step and why; returns -errno. */
int tracer_fail(struct tracer *t, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* seed.c */
struct tt_netns *netns_for_pid(struct tracer *t, uint32_t pid);
void read_port_policy(const struct tt_netns *ns, struct tt_port_policy *p);

/* snapshot.c */
struct tt_row *row_for(struct tt_snapshot *snap, size_t sorted, size_t *cap, uint32_t pid,
		       uint64_t id);

/* slots.c */
int slots_open(struct tracer *t);
void slots_close(struct tracer *t);
bool slot_has_row(const struct tracer *t, uint32_t slot);
uint64_t slot_row_id(const struct tracer *t, uint32_t slot);
/* The row of slot's process, named; NULL for a slot of no row. */
struct tt_row *row_of_slot(struct tracer *t, struct tt_snapshot *snap, size_t sorted,
			   size_t *cap, uint32_t slot);
void delete_entries_of(int fd, size_t key_size, uint32_t slot);
void slots_reclaim(struct tracer *t);

/* timewait.c */
uint64_t next_tw_stamp(struct tracer *t);
void read_timewait(struct tracer *t, struct tt_snapshot *snap, size_t sorted, size_t *cap);
int on_tw_record(void *ctx, void *data, size_t size);
void forget_tw_owners_of(struct tracer *t, uint32_t slot);
void forget_tw_rsts_of(struct tracer *t, uint32_t slot);
uint64_t tw_rst_of(const struct tracer *t, uint32_t slot);
/* How many timewait owners each slot has, an array of t->n_slots (free it). */
uint32_t *tw_owners_by_slot(const struct tracer *t);

#endif /* TT_TRACER_PRIV_H */
