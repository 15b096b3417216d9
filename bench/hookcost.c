// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Loads one program of hookcost.bpf.c, attaches it, waits for SIGINT or
 * SIGTERM, then prints "NAME run_cnt run_time_ns" (the kernel's own
 * statistics: kernel.bpf_stats_enabled must be 1 meanwhile).
 *
 *   hookcost --list      the program names, one a line
 *   hookcost NAME        measure NAME; "ready" on stdout once attached
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
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	struct hookcost_bpf *skel;
	struct bpf_program *prog, *chosen = NULL;
	struct bpf_map *map;
	struct bpf_link *link;
	const char *name = argc == 2 ? argv[1] : "";
	size_t name_len = strlen(name);
	bool full = name_len > 5 && !strcmp(name + name_len - 5, "_full");
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
		if (!strcmp(name, "--list"))
			printf("%s\n", bpf_program__name(prog));
		if (!strcmp(name, bpf_program__name(prog)))
			chosen = prog;
		else
			bpf_program__set_autoload(prog, false);
	}
	if (!strcmp(name, "--list")) {
		status = 0;
		goto out;
	}
	if (!chosen) {
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
	link = bpf_program__attach(chosen);
	if (!link) {
		fprintf(stderr, "hookcost: cannot attach %s: %s\n", name, strerror(errno));
		goto out;
	}
	printf("ready\n");
	fflush(stdout);
	while (!stop)
		pause();
	if (bpf_obj_get_info_by_fd(bpf_program__fd(chosen), &info, &len) == 0) {
		printf("%s %llu %llu\n", name, (unsigned long long)info.run_cnt,
		       (unsigned long long)info.run_time_ns);
		status = 0;
	}
	bpf_link__destroy(link);
out:
	hookcost_bpf__destroy(skel);
	return status;
}
