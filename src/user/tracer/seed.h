/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Sockets that existed before tcptrace started, told to the BPF side. */
#ifndef TT_SEED_H
#define TT_SEED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "tracer/namespaces.h"

struct tcptrace_bpf;

/* The connections seeded open (ESTABLISHED), per owner and side: the
 * BPF side counts them open only once they change. */
struct seed_open_count {
	uint32_t tgid;
	uint8_t side;
	uint64_t n;
};

struct seed_open {
	struct seed_open_count *v;
	size_t n;
};

/* The listeners and connections held by the processes pids (every
 * process but the hidden ones with all), found in /proc/PID/fd and in one sock_diag dump per
 * network namespace, stored in the listeners and seeds
 * maps for the BPF side to adopt at their next event; those open go to
 * open (free open->v). Returns how many it stored. */
uint64_t seed_sockets(struct tcptrace_bpf *skel, struct namespaces *nss, const uint32_t *pids,
		      size_t n_pids, bool all, const uint32_t *hidden, size_t n_hidden,
		      struct seed_open *open);

#endif /* TT_SEED_H */
