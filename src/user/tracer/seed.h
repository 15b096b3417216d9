/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Sockets that existed before tcptrace started, told to the BPF side. */
#ifndef TT_SEED_H
#define TT_SEED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "tracer/namespaces.h"

struct tcptrace_bpf;

/* The listeners and connections held by the processes pids (every
 * process with all), found in /proc/PID/fd and in one sock_diag dump per
 * network namespace, stored in the listeners and seeds maps for the BPF
 * side to adopt at their next event. Returns how many it stored. */
uint64_t seed_sockets(struct tcptrace_bpf *skel, struct namespaces *nss, const uint32_t *pids,
		      size_t n_pids, bool all);

#endif /* TT_SEED_H */
