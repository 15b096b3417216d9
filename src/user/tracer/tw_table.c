// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* User space's table of timewait sockets' owners (see tw_table.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "tracer/tw_table.h"

/* FNV-1a over the key's bytes: the BPF side zeroes the key's padding. */
static size_t hash_of(const struct tt_tw_key *key)
{
	const unsigned char *p = (const unsigned char *)key;
	uint64_t h = 14695981039346656037ull;

	for (size_t i = 0; i < sizeof(*key); i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return (size_t)(h ^ h >> 32);
}

/* The slot holding key, or the free slot where it would go. */
static size_t slot_of(const struct tw_table *t, const struct tt_tw_key *key)
{
	size_t i = hash_of(key) & (t->cap - 1);

	while (t->used[i] && memcmp(&t->slots[i].key, key, sizeof(*key)) != 0)
		i = (i + 1) & (t->cap - 1);
	return i;
}

static int resize(struct tw_table *t, size_t cap)
{
	struct tw_table bigger = { .cap = cap };

	bigger.slots = malloc(cap * sizeof(*bigger.slots));
	bigger.used = calloc(cap, sizeof(*bigger.used));
	if (!bigger.slots || !bigger.used) {
		free(bigger.slots);
		free(bigger.used);
		return -ENOMEM;
	}
	for (size_t i = 0; i < t->cap; i++) {
		size_t j;

		if (!t->used[i])
			continue;
		j = slot_of(&bigger, &t->slots[i].key);
		bigger.slots[j] = t->slots[i];
		bigger.used[j] = true;
		bigger.n++;
	}
	tw_table_free(t);
	*t = bigger;
	return 0;
}

int tw_table_put(struct tw_table *t, const struct tw_owner *o)
{
	size_t i;

	if (2 * (t->n + 1) > t->cap && resize(t, t->cap ? 2 * t->cap : 1024))
		return -ENOMEM;
	i = slot_of(t, &o->key);
	if (!t->used[i]) {
		t->used[i] = true;
		t->n++;
	}
	t->slots[i] = *o;
	return 0;
}

struct tw_owner *tw_table_get(const struct tw_table *t, const struct tt_tw_key *key)
{
	size_t i;

	if (!t->n)
		return NULL;
	i = slot_of(t, key);
	return t->used[i] ? &t->slots[i] : NULL;
}

/* Empties slot i. Linear probing cannot just clear it: an owner further
 * in the run, whose home slot is not between i and itself, would no longer
 * be found. Such owners move back into the hole (backward shift). */
static void remove_at(struct tw_table *t, size_t i)
{
	size_t mask = t->cap - 1;

	for (size_t j = (i + 1) & mask; t->used[j]; j = (j + 1) & mask) {
		size_t home = hash_of(&t->slots[j].key) & mask;

		/* home is cyclically in (i, j]: the owner stays. */
		if (((j - home) & mask) < ((j - i) & mask))
			continue;
		t->slots[i] = t->slots[j];
		i = j;
	}
	t->used[i] = false;
	t->n--;
}

size_t tw_table_remove_if(struct tw_table *t, bool (*drop)(const struct tw_owner *, void *),
			  void *ctx)
{
	size_t removed = 0;

	/* A removal may move another owner into slot i: look at it again. */
	for (size_t i = 0; i < t->cap;) {
		if (t->used[i] && drop(&t->slots[i], ctx)) {
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

		if (t->used[i])
			return &t->slots[i];
	}
	return NULL;
}

void tw_table_free(struct tw_table *t)
{
	free(t->slots);
	free(t->used);
	t->slots = NULL;
	t->used = NULL;
	t->cap = t->n = 0;
}
