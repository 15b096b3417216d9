/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Timewait reconciliation: the records the BPF side writes to tw_records
 * (struct tt_tw_record), drained into a table of owners and counts of
 * timewait RSTs, and matched against the kernel's own list of timewait
 * sockets (sock_diag). What it finds is returned as plain data. */
#ifndef TT_TIMEWAIT_H
#define TT_TIMEWAIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "tracer/namespaces.h"
#include "tracer/sockdiag.h"
#include "tracer/tw_table.h"

struct ring_buffer;

/* RSTs of timewait sockets: by owner (id a process slot, reason 0), or by
 * namespace and reason for those of no known owner (id a netns).
 * Cumulative, like the BPF side's counters. */
struct tw_count {
	uint32_t id;
	uint16_t reason;
	uint64_t count;
};

struct timewait {
	struct ring_buffer *ring; /* reads tw_records */
	struct tw_table owners;
	struct tw_count *rsts, *other_rsts;
	size_t n_rsts, n_other_rsts;
	uint64_t unrecorded; /* owners the table had no memory for */
	uint64_t stamp;      /* the last one given to the BPF side */
	__u64 *bpf_stamp;    /* the BPF side's copy */
	unsigned int families[TT_MAX_NETNS]; /* namespaces' with owners: 1 IPv4, 2 IPv6 */
	uint16_t reading;    /* readings so far, as each owner's seen */
	bool unplaced;       /* owners kept whose namespace was not opened */
	struct namespaces *nss; /* while a reading drains tw_records */
};

/* A timewait socket in TIME_WAIT that a process's connection out left. */
struct tw_held {
	uint32_t slot;
	struct tt_flow_key flow;
};

/* Every socket of one namespace (--by dest, for the ports). */
struct ns_sockets {
	size_t ns; /* index in struct namespaces */
	struct tt_diag_sock *socks;
	size_t n, cap;
};

/* What one reading found. */
struct tw_reading {
	uint32_t *held_by_slot; /* timewait sockets in TIME_WAIT, by process slot */
	size_t n_slots;
	struct tw_held *held; /* with every_socket: the `out` side's, one by one */
	size_t n_held, cap_held;
	struct ns_sockets *listed; /* with every_socket only */
	size_t n_listed;
};

/* 0, or -errno with err set. ring_fd is tw_records', bpf_stamp the BPF
 * side's tw_stamp. */
int timewait_open(struct timewait *tw, int ring_fd, __u64 *bpf_stamp, char *err);
void timewait_close(struct timewait *tw);

/* Drains tw_records and matches the owners with the timewait sockets of
 * the namespaces in nss that hold any: the held ones in TIME_WAIT are
 * counted in r->held_by_slot (with every_socket, the `out` side's listed
 * in r->held too), those gone leave the table. With every_socket, each namespace
 * is listed whole and its sockets kept in r->listed. */
void timewait_read(struct timewait *tw, struct namespaces *nss, bool every_socket,
		   struct tw_reading *r);
void tw_reading_free(struct tw_reading *r);

/* A slot's RSTs sent by its timewait sockets. */
uint64_t timewait_rsts_of(const struct timewait *tw, uint32_t slot);
/* How many timewait owners each slot has, an array of n_slots (free it). */
uint32_t *timewait_owners_by_slot(const struct timewait *tw, size_t n_slots);
/* A slot given back: its RST count goes. */
void timewait_forget_rsts(struct timewait *tw, uint32_t slot);
/* The self-check's slot: its owners go too. */
void timewait_forget_slot(struct timewait *tw, uint32_t slot);

#endif /* TT_TIMEWAIT_H */
