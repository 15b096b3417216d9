// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Feature probes (see probe.h). */
#include <unistd.h>
#include <bpf/bpf.h>
#include "tracer/probe.h"

bool tracing_prog_loads(const char *name, const struct bpf_insn *insns, size_t n,
			enum bpf_attach_type type, int btf_id)
{
	struct bpf_prog_load_opts opts = {
		.sz = sizeof(opts),
		.expected_attach_type = type,
	};
	int fd;

	if (btf_id < 0)
		return false;
	opts.attach_btf_id = (__u32)btf_id;
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, name, "Dual BSD/GPL", insns, n, &opts);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}
