// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The BPF side's counting maps read as plain data, summed over CPUs. Map
 * entries are never deleted while they are read, but for a slot given
 * back (counters_clear_slot). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "common/fail.h"
#include "tracer/counters.h"
#include "tcptrace.skel.h"

/* The largest value of a per-CPU map read here. */
#define MAX_PERCPU_VALUE sizeof(struct tt_nesting)
_Static_assert(sizeof(struct tt_proc_counters) <= MAX_PERCPU_VALUE, "per-CPU buffer");
_Static_assert(sizeof(struct tt_dest_counters) <= MAX_PERCPU_VALUE, "per-CPU buffer");

int counters_open(struct counters *c, struct tcptrace_bpf *skel, char *err)
{
	struct bpf_map *map = skel->maps.proc_counters;
	void *blocks;

	c->skel = skel;
	c->ncpus = libbpf_num_possible_cpus();
	if (c->ncpus <= 0)
		return tt_fail(err, c->ncpus ? c->ncpus : -EINVAL, "cannot count CPUs");
	c->percpu = calloc((size_t)c->ncpus, MAX_PERCPU_VALUE);
	if (!c->percpu)
		return tt_fail(err, ENOMEM, "cannot read counters");
	c->slots = bpf_map__max_entries(map) / (size_t)c->ncpus;
	c->blocks_bytes = bpf_map__max_entries(map) * sizeof(struct tt_proc_counters);
	blocks = mmap(NULL, c->blocks_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, bpf_map__fd(map), 0);
	if (blocks == MAP_FAILED)
		return tt_fail(err, errno, "cannot map the counters");
	c->blocks = blocks;
	map = skel->maps.proc_times;
	c->times_bytes = bpf_map__max_entries(map) * sizeof(struct tt_proc_times);
	blocks = mmap(NULL, c->times_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, bpf_map__fd(map), 0);
	if (blocks == MAP_FAILED)
		return tt_fail(err, errno, "cannot map the connect times");
	c->times = blocks;
	return 0;
}

void counters_close(struct counters *c)
{
	free(c->percpu);
	c->percpu = NULL;
	if (c->blocks)
		munmap(c->blocks, c->blocks_bytes);
	c->blocks = NULL;
	if (c->times)
		munmap(c->times, c->times_bytes);
	c->times = NULL;
}

/* Add the per-CPU copies in c->percpu of a struct of __u64 words (size
 * bytes each) to dst. */
static void sum_percpu_words(const struct counters *c, void *dst, size_t size)
{
	const __u64 *src = c->percpu;
	__u64 *out = dst;

	for (int cpu = 0; cpu < c->ncpus; cpu++)
		for (size_t i = 0; i < size / sizeof(__u64); i++)
			out[i] += src[(size_t)cpu * (size / sizeof(__u64)) + i];
}

int counters_of_slot(struct counters *c, uint32_t slot, struct tt_proc_counters *out)
{
	__u64 *sum = (__u64 *)out;

	memset(out, 0, sizeof(*out));
	if (slot >= c->slots)
		return -ENOENT;
	for (int cpu = 0; cpu < c->ncpus; cpu++) {
		const __u64 *block = (const __u64 *)&c->blocks[(size_t)cpu * c->slots + slot];

		for (size_t i = 0; i < sizeof(*out) / sizeof(__u64); i++)
			sum[i] += __atomic_load_n(&block[i], __ATOMIC_RELAXED);
	}
	return 0;
}

int counters_times_of_slot(struct counters *c, uint32_t slot, struct tt_proc_times *out)
{
	const __u64 *words;
	__u64 *copy = (__u64 *)out;

	memset(out, 0, sizeof(*out));
	if (slot >= c->times_bytes / sizeof(*out))
		return -ENOENT;
	words = (const __u64 *)&c->times[slot];
	for (size_t i = 0; i < sizeof(*out) / sizeof(__u64); i++)
		copy[i] = __atomic_load_n(&words[i], __ATOMIC_RELAXED);
	return 0;
}

/* The value of key in a per-CPU map of __u64, summed over CPUs; -1 when
 * the key is gone. */
static int lookup_percpu_sum(struct counters *c, int fd, const void *key, uint64_t *sum)
{
	const __u64 *percpu = c->percpu;
	uint64_t total = 0;

	if (bpf_map_lookup_elem(fd, key, c->percpu))
		return -1;
	for (int cpu = 0; cpu < c->ncpus; cpu++)
		total += percpu[cpu];
	*sum = total;
	return 0;
}

/* Room for one more element of size bytes in *v, which holds n of cap. */
static bool grow(void **v, size_t n, size_t *cap, size_t size)
{
	size_t new_cap;
	void *grown;

	if (n < *cap)
		return true;
	new_cap = *cap ? *cap * 2 : 64;
	grown = realloc(*v, new_cap * size);
	if (!grown)
		return false;
	*v = grown;
	*cap = new_cap;
	return true;
}

size_t counters_reasons(struct counters *c, struct reason_count **out)
{
	int fd = bpf_map__fd(c->skel->maps.rst_reasons);
	struct tt_reason_key key, *prev = NULL;
	size_t n = 0, cap = 0;
	void *v = NULL;

	while (bpf_map_get_next_key(fd, prev, &key) == 0) {
		uint64_t sum;

		prev = &key;
		if (lookup_percpu_sum(c, fd, &key, &sum) || !grow(&v, n, &cap, sizeof(**out)))
			continue;
		((struct reason_count *)v)[n++] = (struct reason_count){
			.slot = key.slot, .side = key.side & 1, .reason = key.reason, .count = sum
		};
	}
	*out = v;
	return n;
}

size_t counters_other_rsts(struct counters *c, struct other_rst_count **out)
{
	int fd = bpf_map__fd(c->skel->maps.other_rsts);
	struct tt_other_rst_key key, *prev = NULL;
	size_t n = 0, cap = 0;
	void *v = NULL;

	while (bpf_map_get_next_key(fd, prev, &key) == 0) {
		uint64_t sum;

		prev = &key;
		if (lookup_percpu_sum(c, fd, &key, &sum) || !grow(&v, n, &cap, sizeof(**out)))
			continue;
		((struct other_rst_count *)v)[n++] = (struct other_rst_count){
			.netns = key.netns, .reason = key.reason, .count = sum
		};
	}
	*out = v;
	return n;
}

size_t counters_dests(struct counters *c, struct dest_count **out)
{
	int fd = bpf_map__fd(c->skel->maps.dest_counters);
	struct tt_dest_key key, *prev = NULL;
	size_t n = 0, cap = 0;
	void *v = NULL;

	while (bpf_map_get_next_key(fd, prev, &key) == 0) {
		struct dest_count *d;

		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, c->percpu) || !grow(&v, n, &cap, sizeof(**out)))
			continue;
		d = &((struct dest_count *)v)[n++];
		memset(d, 0, sizeof(*d));
		d->key = key;
		sum_percpu_words(c, &d->c, sizeof(d->c));
	}
	*out = v;
	return n;
}

void counters_drops(struct counters *c, uint64_t drops[TT_DROPS])
{
	int fd = bpf_map__fd(c->skel->maps.drop_counts);

	for (__u32 key = 0; key < TT_DROPS; key++)
		lookup_percpu_sum(c, fd, &key, &drops[key]);
}

uint64_t counters_nested_caught(struct counters *c)
{
	const struct tt_nesting *percpu = c->percpu;
	uint64_t caught = 0;
	__u32 zero = 0;

	if (bpf_map_lookup_elem(bpf_map__fd(c->skel->maps.nesting), &zero, c->percpu))
		return 0;
	for (int cpu = 0; cpu < c->ncpus; cpu++)
		caught += percpu[cpu].caught;
	return caught;
}

static bool is_twin(const struct bpf_program *prog)
{
	return !strncmp(bpf_program__name(prog), "catch_", 6);
}

/* The kernel runs a BPF program at most once at a time on a CPU: a softirq
 * that interrupts one of tcptrace's programs in a task's syscall (close(),
 * connect()) and hits the same tracepoint skips it, and counts it in the
 * program's recursion_misses. That event is lost to tcptrace, unless the
 * program's twin handled it (--catch-nested). A twin's own misses lose
 * nothing its primary did not miss too. */
uint64_t counters_lost(struct counters *c, bool catch_nested, uint64_t *ends)
{
	struct bpf_program *prog;
	uint64_t missed = 0, caught = catch_nested ? counters_nested_caught(c) : 0;

	*ends = 0;
	bpf_object__for_each_program(prog, c->skel->obj) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);

		if (!bpf_program__autoload(prog) || is_twin(prog) ||
		    bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
			continue;
		missed += info.recursion_misses;
		/* Nothing later tells of a socket's end: its connection's close
		 * goes uncounted. A state change missed, later ones tell. */
		if (prog == c->skel->progs.handle_destroy_sock && !catch_nested)
			*ends = info.recursion_misses;
	}
	return missed > caught ? missed - caught : 0;
}

/* Every entry of a per-CPU map whose key starts with slot, deleted. */
static void delete_entries_of(int fd, size_t key_size, uint32_t slot)
{
	__u8 key[sizeof(struct tt_dest_key)] = {}, next[sizeof(struct tt_dest_key)];
	bool first = true;

	while (bpf_map_get_next_key(fd, first ? NULL : key, next) == 0) {
		uint32_t head;

		memcpy(key, next, key_size);
		memcpy(&head, key, sizeof(head));
		/* After a delete the walk starts over: the key is gone. */
		first = head == slot && !bpf_map_delete_elem(fd, key);
	}
}

int counters_clear_slot(struct counters *c, uint32_t slot)
{
	struct tcptrace_bpf *skel = c->skel;

	if (slot >= c->slots)
		return -ENOENT;
	/* Nothing counts there now: its process is gone and no socket holds it. */
	for (int cpu = 0; cpu < c->ncpus; cpu++)
		memset(&c->blocks[(size_t)cpu * c->slots + slot], 0, sizeof(struct tt_proc_counters));
	if (slot < c->times_bytes / sizeof(struct tt_proc_times))
		memset(&c->times[slot], 0, sizeof(struct tt_proc_times));
	delete_entries_of(bpf_map__fd(skel->maps.rst_reasons), sizeof(struct tt_reason_key), slot);
	delete_entries_of(bpf_map__fd(skel->maps.dest_counters), sizeof(struct tt_dest_key), slot);
	return 0;
}
