/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Every setting of the BPF side, in one place: constants to the verifier,
 * set by user space between open and load (tracer.c), so that the code a
 * setting turns off is gone at load. */
#ifndef TT_SETTINGS_BPF_H
#define TT_SETTINGS_BPF_H

#include "tcptrace.h"

/* Every process, or the ones --pid names by PID (traced_pids) and by
 * name (traced_comms). */
const volatile bool trace_all = true;
const volatile bool trace_pids = false;
const volatile bool trace_comms = false;
/* --by dest: also count per destination. */
const volatile bool by_dest = false;
/* --by cgroup: slots keep their cgroup's id. */
const volatile bool by_cgroup = false;
/* --cgroup or --unit: only processes in scope_cgroups' cgroup or below it;
 * --netns: only processes in the network namespace of this inode. */
const volatile bool scope_cgroup = false;
const volatile __u32 scope_netns = 0;
/* fexit/inet_csk_accept is loaded (accept.bpf.h): acceptors are named at
 * accept(), not at a read. */
const volatile bool acceptors_at_accept = false;
/* --catch-nested: the twins run (nested.bpf.h). */
const volatile bool catch_nested = false;
/* --max-procs: process slots a CPU's counter blocks hold (procs.bpf.h). */
const volatile __u32 slots_per_cpu = TT_DEFAULT_MAX_PROCS;
/* The kernel lets a tracing program make a socket's cookie: it marks the
 * sockets tcptrace follows (socks.bpf.h). */
const volatile bool cookie_marks_followed = false;
/* --max-sockets: the socket table's buckets (socks.bpf.h). */
const volatile __u32 sock_buckets = TT_DEFAULT_MAX_SOCKETS;
/* Tests only: the retransmit hook ignores every Nth event, as a kernel
 * that ran no program for it (retrans.bpf.h). */
const volatile __u32 test_retrans_skip_every = 0;

#endif /* TT_SETTINGS_BPF_H */
