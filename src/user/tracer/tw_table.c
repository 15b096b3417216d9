// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* User space's table of timewait sockets' owners (see tw_table.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "tracer/tw_table.h"

_Static_assert(sizeof(struct tw_owner) == 64, "one owner a cache line");
_Static_assert(sizeof(struct tt_flow_key) % sizeof(uint32_t) == 0, "a key of whole words");

/* The key's words mixed by multiplication: the BPF side and the listing
 * zero the key's padding. */
static size_t hash_of(const struct tt_flow_key *flow)
{
	uint32_t w[sizeof(*flow) / sizeof(uint32_t)];
	uint64_t h = 0;

	memcpy(w, flow, sizeof(w));
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		h = (h ^ w[i]) * 0x9e3779b97f4a7c15ull;
	return (size_t)(h ^ h >> 29);
}

/* The place holding flow, or the free place where it would go. */
static size_t place_of(const struct tw_table *t, const struct tt_flow_key *flow)
{
	size_t i = hash_of(flow) & (t->cap - 1);

	while (t->slots[i].used && memcmp(&t->slots[i].flow, flow, sizeof(*flow)) != 0)
		i = (i + 1) & (t->cap - 1);
	return i;
}

/* A table of a pile-up is looked up at random places, once per timewait
 * socket at each reading: on huge pages, where the kernel has them, each
 * lookup's miss costs no page walk too. */
#define TT_HUGE_PAGE (2u << 20)

static struct tw_owner *places_alloc(size_t cap)
{
	size_t size = cap * sizeof(struct tw_owner);
	void *p;

	if (size < TT_HUGE_PAGE)
		return calloc(cap, sizeof(struct tw_owner));
	if (posix_memalign(&p, TT_HUGE_PAGE, size))
		return NULL;
	(void)madvise(p, size, MADV_HUGEPAGE);
	memset(p, 0, size);
	return p;
}

static int resize(struct tw_table *t, size_t cap)
{
	struct tw_table bigger = { .cap = cap };

	bigger.slots = places_alloc(cap);
	if (!bigger.slots)
		return -ENOMEM;
	for (size_t i = 0; i < t->cap; i++)
		if (t->slots[i].used) {
			bigger.slots[place_of(&bigger, &t->slots[i].flow)] = t->slots[i];
			bigger.n++;
		}
	tw_table_free(t);
	*t = bigger;
	return 0;
}

int tw_table_put(struct tw_table *t, const struct tw_owner *o)
{
	struct tw_owner *at;

	if (2 * (t->n + 1) > t->cap && resize(t, t->cap ? 2 * t->cap : 1024))
		return -ENOMEM;
	at = &t->slots[place_of(t, &o->flow)];
	if (!at->used)
		t->n++;
	*at = *o;
	at->used = true;
	return 0;
}

void tw_table_prefetch(const struct tw_table *t, const struct tt_flow_key *flow)
{
	if (t->n)
		__builtin_prefetch(&t->slots[hash_of(flow) & (t->cap - 1)]);
}

struct tw_owner *tw_table_get(const struct tw_table *t, const struct tt_flow_key *flow)
{
	struct tw_owner *at;

	if (!t->n)
		return NULL;
	at = &t->slots[place_of(t, flow)];
	return at->used ? at : NULL;
}

/* Empties place i. Linear probing cannot just clear it: an owner further
 * in the run, whose home place is not between i and itself, would no
 * longer be found. Such owners move back into the hole (backward shift). */
static void remove_at(struct tw_table *t, size_t i)
{
	size_t mask = t->cap - 1;

	for (size_t j = (i + 1) & mask; t->slots[j].used; j = (j + 1) & mask) {
		size_t home = hash_of(&t->slots[j].flow) & mask;

		/* home is cyclically in (i, j]: the owner stays. */
		if (((j - home) & mask) < ((j - i) & mask))
			continue;
		t->slots[i] = t->slots[j];
		i = j;
	}
	t->slots[i].used = false;
	t->n--;
}

size_t tw_table_remove_if(struct tw_table *t, bool (*drop)(struct tw_owner *, void *), void *ctx)
{
	size_t removed = 0;

	/* A removal may move another owner into place i: look at it again. */
	for (size_t i = 0; i < t->cap;) {
		if (t->slots[i].used && drop(&t->slots[i], ctx)) {
			remove_at(t, i);
			removed++;
		} else {
			i++;
		}
	}
	return removed;
}

struct tw_owner *tw_table_next(const struct tw_table *t, size_t *pos)
{
	while (*pos < t->cap) {
		size_t i = (*pos)++;

		if (t->slots[i].used)
			return &t->slots[i];
	}
	return NULL;
}

void tw_table_free(struct tw_table *t)
{
	free(t->slots);
	t->slots = NULL;
	t->cap = t->n = 0;
}
