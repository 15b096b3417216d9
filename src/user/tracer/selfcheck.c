// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Proof at start-up that tcptrace's programs see TCP on this kernel: one
 * loopback connection between two processes of its own, in a network
 * namespace of their own, must be counted with the right owner, side and
 * close class. A kernel whose events do not reach the programs, or whose
 * layout the programs misread, would otherwise give a table of zeros. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include "common/fail.h"
#include "tracer/selfcheck.h"
#include "common/test_hooks.h"

#define SELFCHECK_WAIT_MS 5000

/* The self-check's processes stay until tcptrace has read their counters
 * and kills them: a process that has exited and been reaped leaves
 * proc_slots (proc_gone), and its counters can no longer be found by
 * its PID. Once they could not: where tcptrace read them late (in a slow
 * emulated guest), the connecting end, reaped by its peer right after its
 * close(), was already gone and read as all zeros. */
static void wait_to_be_killed(void)
{
	for (;;)
		pause();
}

/* Everything but fds a and b closed: the children must not hold the BPF
 * programs attached if tcptrace dies before they end. */
static void close_other_fds(int a, int b)
{
	DIR *dir = opendir("/proc/self/fd");
	struct dirent *de;

	if (!dir)
		return;
	while ((de = readdir(dir))) {
		char *end;
		long fd = strtol(de->d_name, &end, 10);

		if (*end == '\0' && fd > 2 && fd != a && fd != b && fd != dirfd(dir))
			close((int)fd);
	}
	closedir(dir);
}

static void loopback_up(void)
{
	struct ifreq ifr = {};
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return;
	strcpy(ifr.ifr_name, "lo");
	if (!ioctl(fd, SIOCGIFFLAGS, &ifr)) {
		ifr.ifr_flags |= IFF_UP;
		ioctl(fd, SIOCSIFFLAGS, &ifr);
	}
	close(fd);
}

static int read_full(int fd, void *buf, size_t len)
{
	return read(fd, buf, len) == (ssize_t)len ? 0 : -1;
}

/* The connecting end: connects, closes first (so it keeps the timewait
 * socket), waits for the peer's FIN, closes, and stays. */
static int run_client(int port_fd)
{
	struct sockaddr_in addr = { .sin_family = AF_INET };
	char byte;
	int fd;

	if (read_full(port_fd, &addr.sin_port, sizeof(addr.sin_port)))
		return 1;
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof(addr)))
		return 1;
	shutdown(fd, SHUT_WR);
	while (read(fd, &byte, 1) > 0)
		;
	close(fd);
	wait_to_be_killed();
	return 0;
}

/* The accepting end, in a new network namespace: forks the client, tells
 * tcptrace both PIDs, and once tcptrace has marked them traced, listens,
 * accepts, reads to the end, closes second and stays, as the client. */
static int run_server(int go_fd, int report_fd)
{
	struct sockaddr_in addr = { .sin_family = AF_INET };
	socklen_t len = sizeof(addr);
	int port_pipe[2], lfd, cfd, status;
	uint32_t client;
	pid_t pid;
	char byte;

	/* A namespace of its own keeps its timewait socket out of every other
	 * namespace's counts; without CAP_SYS_ADMIN it stays in tcptrace's. */
	if (!unshare(CLONE_NEWNET))
		loopback_up();
	if (pipe(port_pipe))
		return 1;
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		close(port_pipe[1]);
		close(go_fd);
		close(report_fd);
		_exit(run_client(port_pipe[0]));
	}
	close(port_pipe[0]);
	client = (uint32_t)pid;
	if (write(report_fd, &client, sizeof(client)) != sizeof(client) ||
	    read(go_fd, &byte, 1) != 1)
		goto fail;
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&addr, sizeof(addr)) || listen(lfd, 1) ||
	    getsockname(lfd, (struct sockaddr *)&addr, &len) ||
	    write(port_pipe[1], &addr.sin_port, sizeof(addr.sin_port)) != sizeof(addr.sin_port))
		goto fail;
	cfd = accept(lfd, NULL, NULL);
	if (cfd < 0)
		goto fail;
	while (read(cfd, &byte, 1) > 0)
		;
	close(cfd);
	close(lfd);
	wait_to_be_killed();
	return 0;
fail:
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return 1;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The words of struct tt_proc_counters, in order, as the CSV names them. */
static const char *const counter_names[] = {
	"conn_in", "conn_out", "fin_active_in", "fin_active_out", "fin_passive_in",
	"fin_passive_out", "rst_sent_in", "rst_sent_out", "rst_recv_in", "rst_recv_out",
	"timeout_in", "timeout_out", "tw_in", "tw_out", "connfail_out", "eaddrnotavail",
	"eaddrinuse", "untracked", "tw_rst", "syn_retrans_out", "synack_retrans_in", "opened_in",
	"opened_out", "open_ended_in", "open_ended_out", "connfail_refused", "connfail_timeout",
	"connfail_unreach", "connfail_abandoned", "connfail_enetunreach", "connfail_ehostunreach",
	"connfail_eacces", "connfail_einval", "connfail_eperm", "connfail_other", "retrans_in",
	"retrans_out", "retrans_rto_in", "retrans_rto_out", "segs_sent_in", "segs_sent_out",
};
_Static_assert(sizeof(counter_names) / sizeof(counter_names[0]) ==
		       sizeof(struct tt_proc_counters) / sizeof(__u64),
	       "a name per counter");

static void want_of(struct tt_proc_counters *want_server, struct tt_proc_counters *want_client)
{
	memset(want_server, 0, sizeof(*want_server));
	memset(want_client, 0, sizeof(*want_client));
	want_server->conn[TT_SIDE_IN] = want_server->fin_passive[TT_SIDE_IN] = 1;
	want_server->opened[TT_SIDE_IN] = want_server->open_ended[TT_SIDE_IN] = 1;
	want_client->conn[TT_SIDE_OUT] = want_client->fin_active[TT_SIDE_OUT] = 1;
	want_client->opened[TT_SIDE_OUT] = want_client->open_ended[TT_SIDE_OUT] = 1;
	want_client->tw[TT_SIDE_OUT] = 1;
}

/* What the machine's timing decides, set aside: a SYN or SYN-ACK sent
 * again (on a busy machine, an emulated guest beside other work, the
 * first one's answer may take a second), and a connection that left
 * ESTABLISHED before accept() returned (the peer's FIN came first: counted
 * in conn_in, never open in between). */
static void set_timing_aside(struct tt_proc_counters *server, struct tt_proc_counters *client)
{
	server->synack_retrans = client->syn_retrans = 0;
	if (server->opened[TT_SIDE_IN] == 0 && server->open_ended[TT_SIDE_IN] == 0)
		server->opened[TT_SIDE_IN] = server->open_ended[TT_SIDE_IN] = 1;
}

/* The counters of one end that differ from what was expected, as
 * " END NAME N (W expected)", appended to buf. */
static void differences(char *buf, size_t len, const char *end, const struct tt_proc_counters *seen,
			const struct tt_proc_counters *want)
{
	const __u64 *s = (const __u64 *)seen, *w = (const __u64 *)want;

	for (size_t i = 0; i < sizeof(counter_names) / sizeof(counter_names[0]); i++) {
		size_t used = strlen(buf);

		if (s[i] != w[i] && used < len)
			snprintf(buf + used, len - used, " %s %s %llu (%llu expected)", end,
				 counter_names[i], (unsigned long long)s[i],
				 (unsigned long long)w[i]);
	}
}

static bool seen_as_expected(const struct tt_proc_counters *server_seen,
			     const struct tt_proc_counters *client_seen)
{
	struct tt_proc_counters want_server, want_client;
	struct tt_proc_counters server = *server_seen, client = *client_seen;

	set_timing_aside(&server, &client);
	want_of(&want_server, &want_client);
	return !memcmp(&server, &want_server, sizeof(server)) &&
	       !memcmp(&client, &want_client, sizeof(client));
}

static void describe(char *err, size_t errlen, const struct tt_proc_counters *server,
		     const struct tt_proc_counters *client)
{
	bool shown_right = client->conn[TT_SIDE_OUT] == 1 && client->fin_active[TT_SIDE_OUT] == 1 &&
			   client->tw[TT_SIDE_OUT] == 1 && server->conn[TT_SIDE_IN] == 1 &&
			   server->fin_passive[TT_SIDE_IN] == 1;
	struct tt_proc_counters want_server, want_client, s = *server, c = *client;
	char others[256] = "";
	struct utsname u = {};

	uname(&u);
	set_timing_aside(&s, &c);
	want_of(&want_server, &want_client);
	differences(others, sizeof(others), "connecting end", &c, &want_client);
	differences(others, sizeof(others), "accepting end", &s, &want_server);
	tt_error(err, errlen,
		 "self-check failed on Linux %s: its own loopback connection was not counted "
		 "(connecting end conn_out %llu fin_active_out %llu tw_out %llu, accepting end "
		 "conn_in %llu fin_passive_in %llu; 1 each expected%s%s)",
		 u.release, (unsigned long long)client->conn[TT_SIDE_OUT],
		 (unsigned long long)client->fin_active[TT_SIDE_OUT],
		 (unsigned long long)client->tw[TT_SIDE_OUT],
		 (unsigned long long)server->conn[TT_SIDE_IN],
		 (unsigned long long)server->fin_passive[TT_SIDE_IN],
		 shown_right ? "; but:" : "", shown_right ? others : "");
}

int selfcheck_start(struct selfcheck *sc, char *err, size_t errlen)
{
	pid_t pid;

	sc->server = 0;
	sc->client = 0;
	sc->go[0] = sc->go[1] = sc->report[0] = sc->report[1] = -1;
	if (pipe2(sc->go, O_CLOEXEC) || pipe2(sc->report, O_CLOEXEC)) {
		tt_error(err, errlen, "self-check: cannot make a pipe: %s", strerror(errno));
		selfcheck_stop(sc);
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		tt_error(err, errlen, "self-check: cannot fork: %s", strerror(errno));
		selfcheck_stop(sc);
		return -1;
	}
	if (pid == 0) {
		sigset_t unblocked;

		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		sigemptyset(&unblocked);
		sigprocmask(SIG_SETMASK, &unblocked, NULL);
		close_other_fds(sc->go[0], sc->report[1]);
		setpgid(0, 0);
		_exit(run_server(sc->go[0], sc->report[1]));
	}
	sc->server = pid;
	close(sc->report[1]);
	sc->report[1] = -1;
	return 0;
}

/* The connecting end's PID, which the server says once it has forked it:
 * read when first needed, not at start, which would wait for it. */
static uint32_t client_of(struct selfcheck *sc)
{
	if (!sc->client && sc->server > 0 &&
	    read_full(sc->report[0], &sc->client, sizeof(sc->client)))
		sc->client = 0;
	return sc->client;
}

size_t selfcheck_pids(struct selfcheck *sc, uint32_t pids[2])
{
	size_t n = 0;

	if (sc->server > 0)
		pids[n++] = (uint32_t)sc->server;
	if (client_of(sc))
		pids[n++] = sc->client;
	return n;
}

void selfcheck_stop(struct selfcheck *sc)
{
	int status;

	/* Both processes, which wait for it (the client is in the server's
	 * process group). */
	if (sc->server > 0) {
		kill(-sc->server, SIGKILL);
		while (waitpid(sc->server, &status, 0) < 0 && errno == EINTR)
			;
	}
	sc->server = 0;
	for (int i = 0; i < 2; i++) {
		if (sc->go[i] >= 0)
			close(sc->go[i]);
		if (sc->report[i] >= 0)
			close(sc->report[i]);
		sc->go[i] = sc->report[i] = -1;
	}
}

int selfcheck_run(struct selfcheck *sc, struct tracer *t, char *err, size_t errlen)
{
	const char *late = tt_test_hooks()->selfcheck_late_ms;
	struct tt_proc_counters server_c = {}, client_c = {};
	uint32_t server = (uint32_t)sc->server, client = client_of(sc);
	uint64_t deadline;
	int ret = -1;

	if (!server || !client) {
		tt_error(err, errlen, "self-check: its processes did not start");
		goto out;
	}
	if (tracer_trace_pid(t, server) || tracer_trace_pid(t, client)) {
		tt_error(err, errlen, "%s", t->err);
		goto out;
	}
	if (write(sc->go[1], "g", 1) != 1) {
		tt_error(err, errlen, "self-check: its processes ended early");
		goto out;
	}
	/* For tcptrace's own tests: the counters read late, as by a tcptrace
	 * that gets little CPU, once the connection has long ended. */
	if (late)
		usleep(1000 * (useconds_t)strtoul(late, NULL, 10));
	deadline = now_ms() + SELFCHECK_WAIT_MS;
	do {
		if (tracer_counters_of(t, server, &server_c) || tracer_counters_of(t, client, &client_c)) {
			tt_error(err, errlen, "%s", t->err);
			goto out;
		}
		if (seen_as_expected(&server_c, &client_c)) {
			ret = 0;
			break;
		}
		usleep(500);
	} while (now_ms() < deadline);
	if (ret)
		describe(err, errlen, &server_c, &client_c);
out:
	selfcheck_stop(sc);
	if (server)
		tracer_forget_pid(t, server);
	if (client)
		tracer_forget_pid(t, client);
	return ret;
}
