// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Loads one program of hookcost.bpf.c, attaches it, waits for SIGINT or
 * SIGTERM, then prints "NAME run_cnt run_time_ns" (the kernel's own
 * statistics: kernel.bpf_stats_enabled must be 1 meanwhile).
 *
 *   hookcost --list      the program names, one a line
 *   hookcost NAME        measure NAME; "ready" on stdout once attached
 *   hookcost floor       the five floor_* programs at once (tcptrace's
 *                        hooks, empty); the figures are their sums
 *
 * A large map is created only for the programs named after it (hash_big
 * for hash_big_miss...): preallocating all of them for every run would
 * take seconds. A program whose name ends in _full finds its map full. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "hookcost.skel.h"

#define SMALL_MAP 4096

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

#define FLOOR "floor"
#define MAX_CHOSEN 8

static bool is_floor(const char *prog)
{
	return !strncmp(prog, FLOOR "_", strlen(FLOOR "_"));
}

static bool named_after(const char *prog, const struct bpf_map *map)
{
	const char *name = bpf_map__name(map);

	return !strncmp(prog, name, strlen(name));
}

/* Inserts max_entries new keys from every CPU in turn: an LRU map with a
 * list per CPU is full only once each CPU's share is. */
static int fill(const struct bpf_map *map)
{
	char key[256] = {}, value[256] = {};
	int ncpus = libbpf_num_possible_cpus(), fd = bpf_map__fd(map);
	__u32 n = bpf_map__max_entries(map), seq = 0;

	if (ncpus < 0 || bpf_map__key_size(map) > sizeof(key) ||
	    bpf_map__value_size(map) > sizeof(value))
		return -1;
	for (int cpu = 0; cpu < ncpus; cpu++) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			continue; /* offline */
		for (__u32 i = 0; i < n; i++, seq++) {
			memcpy(key, &seq, sizeof(seq));
			memset(key + sizeof(seq), 0xff, 4); /* never a key the programs make */
			if (bpf_map_update_elem(fd, key, value, BPF_ANY))
				return -1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct hookcost_bpf *skel;
	struct bpf_program *prog, *chosen[MAX_CHOSEN];
	struct bpf_link *links[MAX_CHOSEN] = {};
	struct bpf_map *map;
	const char *name = argc == 2 ? argv[1] : "";
	size_t name_len = strlen(name), n_chosen = 0;
	bool full = name_len > 5 && !strcmp(name + name_len - 5, "_full");
	bool floor = !strcmp(name, FLOOR);
	unsigned long long runs = 0, ns = 0;
	int status = 1;

	if (argc != 2) {
		fprintf(stderr, "usage: hookcost --list | hookcost NAME\n");
		return 2;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	skel = hookcost_bpf__open();
	if (!skel) {
		fprintf(stderr, "hookcost: cannot open BPF object: %s\n", strerror(errno));
		return 1;
	}
	bpf_object__for_each_program(prog, skel->obj) {
		const char *prog_name = bpf_program__name(prog);

		if (!strcmp(name, "--list") && !is_floor(prog_name))
			printf("%s\n", prog_name);
		if ((floor ? is_floor(prog_name) : !strcmp(name, prog_name)) &&
		    n_chosen < MAX_CHOSEN)
			chosen[n_chosen++] = prog;
		else
			bpf_program__set_autoload(prog, false);
	}
	if (!strcmp(name, "--list")) {
		printf("%s\n", FLOOR);
		status = 0;
		goto out;
	}
	if (!n_chosen) {
		fprintf(stderr, "hookcost: no program '%s' (see hookcost --list)\n", name);
		goto out;
	}
	bpf_object__for_each_map(map, skel->obj)
		if (bpf_map__max_entries(map) > SMALL_MAP && !named_after(name, map))
			bpf_map__set_autocreate(map, false);
	if (hookcost_bpf__load(skel)) {
		fprintf(stderr, "hookcost: cannot load %s: %s\n", name, strerror(errno));
		goto out;
	}
	bpf_object__for_each_map(map, skel->obj) {
		if (full && bpf_map__max_entries(map) > SMALL_MAP && named_after(name, map) &&
		    fill(map)) {
			fprintf(stderr, "hookcost: cannot fill %s\n", bpf_map__name(map));
			goto out;
		}
	}
	for (size_t i = 0; i < n_chosen; i++) {
		links[i] = bpf_program__attach(chosen[i]);
		if (!links[i]) {
			fprintf(stderr, "hookcost: cannot attach %s: %s\n",
				bpf_program__name(chosen[i]), strerror(errno));
			goto out;
		}
	}
	printf("ready\n");
	fflush(stdout);
	while (!stop)
		pause();
	status = 0;
	for (size_t i = 0; i < n_chosen; i++) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);

		if (bpf_obj_get_info_by_fd(bpf_program__fd(chosen[i]), &info, &len)) {
			status = 1;
			continue;
		}
		runs += info.run_cnt;
		ns += info.run_time_ns;
	}
	if (!status)
		printf("%s %llu %llu\n", name, runs, ns);
out:
	for (size_t i = 0; i < n_chosen; i++)
		bpf_link__destroy(links[i]);
	hookcost_bpf__destroy(skel);
	return status;
}
