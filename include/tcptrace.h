/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The contract between tcptrace's BPF programs and its user space:
 * map keys, counter layouts and limits. Fixed-width types only. */
#ifndef TCPTRACE_H
#define TCPTRACE_H

#define TT_COMM_LEN 16

/* in: accepted from a listener; out: opened with connect(). */
enum tt_side {
	TT_SIDE_IN = 0,
	TT_SIDE_OUT = 1,
	TT_SIDES = 2,
};

/* Why a connect() failed (EADDRNOTAVAIL, no local port, is counted apart).
 * The first four: it got a local port and sent its SYN, and never reached
 * ESTABLISHED; the cause is the socket's error at its move to CLOSE, what
 * connect() returns. From TT_CONNFAIL_BEFORE_SYN on: connect() itself
 * returned the error and no SYN left (the socket never reached SYN_SENT),
 * by that errno, read where the syscall returns (syscalls.bpf.h). */
enum tt_connfail {
	TT_CONNFAIL_REFUSED = 0,   /* ECONNREFUSED: an RST (or ICMP port unreachable) answered */
	TT_CONNFAIL_TIMEOUT = 1,   /* ETIMEDOUT: its SYNs sent again ran out */
	TT_CONNFAIL_UNREACH = 2,   /* any other error after the SYN: an ICMP unreachable, ... */
	TT_CONNFAIL_ABANDONED = 3, /* none: the process closed it first */
	TT_CONNFAIL_ENETUNREACH = 4,  /* before the SYN: no route to the network */
	TT_CONNFAIL_EHOSTUNREACH = 5, /* before the SYN: an `unreachable` route */
	TT_CONNFAIL_EACCES = 6,       /* before the SYN: a `prohibit` route, an LSM */
	TT_CONNFAIL_EINVAL = 7,       /* before the SYN: a `blackhole` route */
	TT_CONNFAIL_EPERM = 8,        /* before the SYN: a cgroup connect hook, an LSM */
	TT_CONNFAIL_OTHER = 9,        /* before the SYN: any other errno */
	TT_CONNFAILS = 10,
};

#define TT_CONNFAIL_BEFORE_SYN TT_CONNFAIL_ENETUNREACH

/* Connect latency, from the move to SYN_SENT to ESTABLISHED, in buckets of
 * 1-2-5 steps: bucket i holds those of at most tt_connect_bound_us(i)
 * microseconds (10, 20, 50, 100, ... 50 s), the last one the rest. */
#define TT_CONNECT_BUCKETS 22

/* Cumulative per-process counters (value of the proc_counters map at the
 * process's slot, one copy per CPU). Every connection that ends is counted in exactly one
 * of fin_active, fin_passive, rst_sent, rst_recv, timeout. */
struct tt_proc_counters {
	__u64 conn[TT_SIDES];        /* reached ESTABLISHED */
	__u64 fin_active[TT_SIDES];  /* this side sent FIN first, no RST */
	__u64 fin_passive[TT_SIDES]; /* peer's FIN first, no RST */
	__u64 rst_sent[TT_SIDES];    /* ended by an RST this side sent */
	__u64 rst_recv[TT_SIDES];    /* ended by an RST from the peer */
	__u64 timeout[TT_SIDES];     /* ended with no FIN exchange and no RST */
	__u64 tw[TT_SIDES];          /* timewait sockets left behind */
	__u64 connfail;              /* connect() failed, for another cause than no port:
				      * connfail_by[] adds up to it */
	__u64 eaddrnotavail;         /* connect() found no free local port */
	__u64 eaddrinuse;            /* bind() to port 0 found no free local port */
	__u64 untracked;             /* sockets not followed: the socket table full */
	__u64 tw_rst;                /* RSTs sent by its timewait sockets */
	__u64 syn_retrans;           /* SYNs its connect()s sent again, counted as each
				      * connect leaves SYN_SENT */
	__u64 synack_retrans;        /* SYN-ACKs its listeners sent again */
	__u64 opened[TT_SIDES];      /* conn[] counted while ESTABLISHED */
	__u64 open_ended[TT_SIDES];  /* of those, the ones that have left ESTABLISHED */
	__u64 connfail_by[TT_CONNFAILS]; /* connfail by cause */
	/* Data segments sent again (not SYNs, not SYN-ACKs), each a GSO
	 * packet's segments, as TcpRetransSegs counts them; on the socket's
	 * owner, as each is sent. */
	__u64 retrans[TT_SIDES];
	__u64 retrans_rto[TT_SIDES]; /* of those, sent in the Loss state: after a
				      * retransmission timeout */
	__u64 segs_sent[TT_SIDES];   /* data segments its connections sent, those sent
				      * again included (tcpi_data_segs_out), counted as
				      * each established connection ends */
};

/* Cumulative per-process times (value of proc_times at the process's
 * slot): one copy for every CPU, bumped atomically, once a connect. A
 * histogram per CPU would multiply the largest map by the CPUs. */
struct tt_proc_times {
	__u64 connect_le[TT_CONNECT_BUCKETS]; /* connects established, by latency */
	__u64 connect_us;                     /* their latencies added up, in microseconds */
	__u64 acceptq_le[TT_CONNECT_BUCKETS]; /* connections accepted, by their wait in the queue */
	__u64 acceptq_us;                     /* those waits added up, in microseconds */
	/* Connections its listeners completed, by the handshake as the
	 * listener saw it: its first SYN-ACK to ESTABLISHED. */
	__u64 handshake_le[TT_CONNECT_BUCKETS];
	__u64 handshake_us;
};

/* Key of dest_counters (--by dest): one process's connections to one
 * destination. Addresses as in struct tt_flow_key, port in host order. */
struct tt_dest_key {
	__u32 slot; /* the process's, as in struct tt_sock */
	__u32 netns;
	__u16 family;
	__u16 port;
	__u8 addr[16];
};

/* Cumulative per process and destination, one copy per CPU: the `out`
 * side of struct tt_proc_counters, split by where connect() went. */
struct tt_dest_counters {
	__u64 conn;
	__u64 fin_active;
	__u64 fin_passive;
	__u64 rst_sent;
	__u64 rst_recv;
	__u64 timeout;
	__u64 tw;
	__u64 connfail;
	__u64 eaddrnotavail;
	__u64 connfail_by[TT_CONNFAILS];
	__u64 connect_le[TT_CONNECT_BUCKETS];
	__u64 connect_us;
	__u64 retrans;     /* as in struct tt_proc_counters, the out side */
	__u64 retrans_rto;
	__u64 segs_sent;
};

/* Key of rst_reasons: RSTs that ended this process's connections. */
struct tt_reason_key {
	__u32 slot; /* the process's, as in struct tt_sock */
	__u16 reason; /* enum sk_rst_reason, or TT_REASON_UNKNOWN */
	__u8 side;
	__u8 pad;
};

/* Key of other_rsts: RSTs the kernel sent that are in no process's row
 * (no socket, a listener or half-open socket, an untraced process, a
 * socket whose connection carried on), per network namespace. */
struct tt_other_rst_key {
	__u32 netns;
	__u16 reason;
	__u16 pad;
};

/* Kernels before 6.10 pass no reason to tcp_send_reset. */
#define TT_REASON_UNKNOWN 0xffff

/* A followed socket's entry in the socket table, keyed by the kernel's
 * struct sock address. */
struct tt_sock {
	__u32 tgid;
	__u16 flags; /* TT_SK_* */
	__u8 side; /* enum tt_side, and TT_SOCK_GONE */
	/* TT_ACCEPTED_*: what accept() did, where it is traced, set by
	 * on_accept alone, which holds no lock of the socket, until a program
	 * that holds it takes it into flags (settle_accept, accept.bpf.h). */
	__u8 accepted;
	/* One word, two uses: a connect's start until it leaves SYN_SENT, the
	 * reason of the RST that ended the connection after (an RST is
	 * recorded only once the socket is CLOSE). */
	union {
		__u32 since_us;   /* TT_SK_TIMED: the clock's microseconds at connect(), or at
				   * a child's queueing for accept() */
		__u32 rst_reason; /* TT_SK_RST_SENT: enum sk_rst_reason */
	};
	__u32 slot; /* tgid's index in proc_counters, or TT_NO_SLOT */
};

/* In tt_sock's side: the socket was found gone with its entry still here
 * (its destruction unseen), by the sweep at exit. */
#define TT_SOCK_GONE 0x80
/* The socket table's buckets that one run of the sweep looks at, with
 * bpf_loop and without. */
#define TT_SWEEP_BUCKETS 16384
#define TT_SWEEP_BUCKETS_UNROLLED 64

/* A process with no counter slot: every slot is taken (--max-procs). */
#define TT_NO_SLOT 0xffffffffu

/* A process is its slot: a PID used again by a new process gets a new
 * slot, and so a row of its own. slot_owners holds one of these per slot;
 * user space gives a slot back (free_slots) once its process has gone and
 * nothing counts there any more. */
enum tt_slot_state {
	TT_SLOT_FREE = 0,
	TT_SLOT_LIVE = 1,      /* its process runs (or is a zombie) */
	TT_SLOT_GONE = 2,      /* its process has been reaped: its last sockets may live on */
	TT_SLOT_FORGOTTEN = 3, /* the self-check's: in no row */
};

struct tt_slot_owner {
	__u64 start; /* the process's start_time, 0 when the slot was given elsewhere */
	__u32 tgid;
	__u32 state; /* enum tt_slot_state */
	char comm[TT_COMM_LEN];
	/* --by cgroup: the id of the process's cgroup (v2), read in its own
	 * context when the slot was given; 0 when given elsewhere. */
	__u64 cgroup_id;
};

enum tt_sock_flags {
	TT_SK_ESTABLISHED = 1 << 0, /* reached ESTABLISHED */
	TT_SK_COUNTED = 1 << 1,     /* conn[] already counted */
	TT_SK_PROVISIONAL = 1 << 2, /* accepted from a shared listener: owner
				     * not known before a syscall touches it */
	TT_SK_FIN_FIRST = 1 << 3,   /* this side sent FIN first */
	TT_SK_FIN_PEER = 1 << 4,    /* peer's FIN came first */
	TT_SK_RST_SENT = 1 << 5,
	TT_SK_RST_RECV = 1 << 6,
	TT_SK_TW = 1 << 7,          /* left a timewait socket */
	TT_SK_TOUCHED = 1 << 8,     /* a syscall of some process has touched it */
	TT_SK_RST_AHEAD = 1 << 9,   /* RST_SENT set at the move to CLOSE, the RST not seen yet */
	TT_SK_CLOSED = 1 << 10,     /* its move to CLOSE was seen */
	TT_SK_OPEN = 1 << 11,       /* in opened[], not yet in open_ended[] */
	TT_SK_ACCEPTED_EARLY = 1 << 12, /* accept() returned it in SYN_RECV (Fast Open) */
	TT_SK_TIMED = 1 << 13,      /* since_us holds a wait's start: a connect's until SYN_SENT
				     * ends, a child's queueing until accept() */
	TT_SK_SEED_RACE = 1 << 14,  /* followed while the seeds were written, or with a
				     * cookie already: a seed may name it too (drop_seed) */
	TT_SK_RETRANS_SEEN = 1 << 15, /* sent data again: retrans_seen holds how much */
};

/* tt_sock.accepted */
enum tt_accepted_marks {
	TT_ACCEPTED = 1 << 0,      /* accept() named its owner and counted conn_in */
	TT_ACCEPTED_OPEN = 1 << 1, /* and counted it in opened[] */
};

/* A listening port and who owns it, per network namespace. */
struct tt_listener_key {
	__u32 netns;
	__u16 port; /* host order */
	__u16 pad;
};

/* A connection's identity inside its network namespace: used to find the
 * owner of a timewait socket, which the kernel creates as a separate
 * object with the same addresses. Ports in host order. IPv4 addresses
 * in the first 4 bytes, the rest zero. */
struct tt_flow_key {
	__u32 netns;
	__u16 family;
	__u16 lport;
	__u16 rport;
	__u16 pad;
	__u8 laddr[16];
	__u8 raddr[16];
};

/* A traced listener (the listeners map's value, by namespace and port):
 * its owner, and its accept queue's deepest depth in user space's
 * snapshot interval peak_epoch (the BPF side's; user space only reads
 * these entries, so that it never undoes what a program wrote meanwhile).
 * sk is the listener's address, learnt at listen(), or for a listener from
 * before start-up in the walk of its namespace's sockets (0 when not
 * known); with several listeners on one port (SO_REUSEPORT), the last
 * one's. */
struct tt_listener {
	__u64 sk;
	__u32 tgid;
	__u32 peak;  /* sk_ack_backlog after the deepest enqueue seen */
	__u32 epoch; /* the interval of peak */
	__u8 flags;  /* TT_LISTENER_SHARED */
	__u8 pad[3];
};

/* A traced listener that closed, through listener_records: its drops up
 * to its end, for user space to count those since its last look. */
struct tt_listener_record {
	__u64 cookie; /* the socket's cookie, 0 if none was ever made */
	__u64 drops;  /* sk_drops at the close */
	__u64 extra;  /* of those, the ones that were no connection attempt */
	__u32 netns;
	__u32 tgid;   /* its owner, as the listeners map has it */
	__u32 limit;  /* its accept queue's limit (sk_max_ack_backlog) */
	__u32 peak;   /* its deepest queue since the last snapshot */
	__u16 port;
	__u16 pad[3];
};

/* Kernel functions where a listener's drop may bump its sk_drops while
 * ListenDrops does not count it (see drop_site_start in queues.bpf.h). */
#define TT_DROP_SITES 8

/* One timewait socket, the key of user space's table of owners. The
 * four-tuple alone would not do: it may leave a new timewait socket while
 * user space deletes the entry of the one before. The new one's sequence number differs (a new
 * connection's ISN follows the clock), so the delete cannot hit it. */
struct tt_tw_key {
	struct tt_flow_key flow;
	__u32 snd_nxt; /* the timewait socket's tw_snd_nxt */
};

/* What the BPF side tells user space about timewait sockets, through the
 * tw_records ring buffer; user space resolves it at each snapshot (see
 * src/user/tracer/timewait.c). */
enum tt_tw_record_kind {
	/* An active close left the timewait socket key, owned by the process
	 * of slot on side; stamp is tw_stamp when it was written. */
	TT_TW_OWNER = 1,
	/* The timewait socket key sent an RST for reason: its owner's tw_rst
	 * if user space knows the owner, else an other RST of key's netns. */
	TT_TW_RST = 2,
};

struct tt_tw_record {
	__u64 stamp; /* TT_TW_OWNER */
	struct tt_tw_key key;
	__u32 slot;   /* TT_TW_OWNER: the owner's, as in struct tt_sock */
	__u16 reason; /* TT_TW_RST: enum sk_rst_reason, or TT_REASON_UNKNOWN */
	__u8 kind;    /* enum tt_tw_record_kind */
	__u8 side;    /* TT_TW_OWNER */
	__u32 pad;
};

/* A listener held by several processes (nginx's master and workers): the
 * process that accepts a connection is known only when it touches it. */
#define TT_LISTENER_SHARED 1

/* Where accept() is not traced: a record of the share_news ring buffer,
 * which wakes user space to attach the read hook when a traced listener
 * becomes shared. */
enum tt_share_why {
	TT_SHARED_BY_FORK = 1,   /* its owner forked */
	TT_SHARED_BY_LISTEN = 2, /* another process listens on its port */
	TT_SHARED_BY_TOUCH = 3,  /* another process touched one of its connections */
};

/* The socket a listeners entry stands for (value of listen_socks): its
 * address, noted when it began to listen, or its cookie, for one found at
 * start-up. */
struct tt_listen_sock {
	__u64 sk;
	__u64 cookie;
};

/* The traced listeners a process listens on, by their keys (value of
 * listening_tgids, by tgid): all marked shared when it forks. */
#define TT_LISTENING_KEYS 8

struct tt_listening {
	__u32 n;
	__u32 pad;
	struct tt_listener_key keys[TT_LISTENING_KEYS];
};

struct tt_share_record {
	__u32 tgid; /* the listener's owner */
	__u32 why;  /* enum tt_share_why */
};

/* Sockets that existed before start-up, keyed by socket cookie. */
struct tt_seed {
	__u32 tgid;
	__u16 flags; /* TT_SK_* */
	__u8 side;
	__u8 pad;
};

/* Events tcptrace could not account for, one slot each in drop_counts. */
enum tt_drop {
	TT_DROP_SOCK_MAP_FULL = 0, /* a socket of a traced process not followed */
	TT_DROP_PROC_MAP_FULL,     /* a process's counters could not be created */
	TT_DROP_TW_MAP_FULL,       /* a timewait record (owner or RST) not written */
	TT_DROP_REASON_MAP_FULL,   /* an RST reason could not be counted */
	TT_DROP_DEST_MAP_FULL,     /* a destination row could not be created */
	TT_DROP_LISTENER_RECORD,   /* a closed listener's last drops not written */
	TT_DROPS,
};

/* --catch-nested: the hooks whose programs have a twin (nested.bpf.h). */
enum tt_hook {
	TT_HOOK_SET_STATE = 0,
	TT_HOOK_SEND_RESET,
	TT_HOOK_RECEIVE_RESET,
	TT_HOOK_DESTROY,
	TT_HOOKS,
};

/* Per CPU and hook: a stack of the events the primaries began and their
 * twins have not seen yet (a power of two deep), and how many events the
 * twins handled (events the kernel skipped the primary for). */
#define TT_NESTING_NOTES 8

struct tt_nesting {
	__u64 object[TT_HOOKS][TT_NESTING_NOTES];
	__u32 what[TT_HOOKS][TT_NESTING_NOTES];
	__u32 depth[TT_HOOKS];
	__u64 caught;
};

/* A bucket of the socket table (socks.bpf.h): one cache line. */
#define TT_SOCK_WAYS 2

struct tt_sock_bucket {
	__u64 sk[TT_SOCK_WAYS]; /* the socket's address; 0: free */
	__u32 claims[TT_SOCK_WAYS];
	__u32 spilled; /* sockets whose home this is, held in a later bucket */
	__u32 pad;
	struct tt_sock s[TT_SOCK_WAYS];
};

_Static_assert(sizeof(struct tt_sock_bucket) == 64, "a bucket is one cache line");

/* Defaults for the map sizes; --max-sockets and --max-procs change them. */
#define TT_DEFAULT_MAX_SOCKETS 131072
/* The buckets of the socket table a socket may be held in: its home
 * (tt_sock_hash.h) and the next ones. The table has --max-sockets buckets,
 * and TT_SOCK_PROBES - 1 more for the last homes' sockets to move on to;
 * tests/unit/test_sock_table.c measures the fill at which it first turns
 * a socket away (docs/reliability.md). */
#define TT_SOCK_PROBES 32
#define TT_DEFAULT_MAX_PROCS 4096
#define TT_MAX_TRACED 256 /* --pid entries */

#endif /* TCPTRACE_H */
