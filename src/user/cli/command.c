// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Run mode's COMMAND, started by a runner process that keeps tcptrace's
 * original privileges while tcptrace itself gives them up. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "cli/command.h"
#include "common/fail.h"

/* What the runner writes to result_fd: first once COMMAND's exec has
 * succeeded or failed, then, if it ran, once it has ended. */
struct command_result {
	int exec_errno; /* 0: COMMAND runs */
	int status;     /* wait status, in the second message */
};

static int fail(char *err, size_t errlen, const char *what)
{
	return tt_error(err, errlen, "%s: %s", what, strerror(errno));
}

static void write_result(int fd, int exec_errno, int status)
{
	struct command_result r = { .exec_errno = exec_errno, .status = status };

	/* A short write can only mean tcptrace is gone; nobody to tell. */
	if (write(fd, &r, sizeof(r)) != sizeof(r))
		_exit(1);
}

static void exec_command(char *const argv[], int exec_fd)
{
	static const int reset[] = { SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGPIPE, SIGCHLD };
	sigset_t none;
	int e;

	/* tcptrace ignores SIGPIPE and the runner SIGINT; an ignored signal
	 * would stay ignored across exec. */
	for (size_t i = 0; i < sizeof(reset) / sizeof(reset[0]); i++)
		signal(reset[i], SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	execvp(argv[0], argv);
	e = errno;
	if (write(exec_fd, &e, sizeof(e)) != sizeof(e))
		_exit(127);
	_exit(127);
}

/* Waits for tcptrace's go, starts COMMAND, and stops it with SIGTERM if
 * tcptrace closes the control pipe first (a signal, --duration, or its
 * death: the runner holds none of its BPF objects, so nothing stays
 * attached for COMMAND's sake). */
static void runner(char *const argv[], int control_fd, int result_fd)
{
	int exec_pipe[2], exec_errno = 0, status = 0, pidfd;
	sigset_t unblocked;
	struct pollfd fds[2];
	pid_t child;
	char go;

	/* Ctrl-C reaches the whole process group: COMMAND decides what it
	 * means, the runner must live on to report how COMMAND ended. */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGTERM, SIG_DFL);
	sigemptyset(&unblocked);
	sigprocmask(SIG_SETMASK, &unblocked, NULL); /* tcptrace's blocks them but while it waits */
	if (read(control_fd, &go, 1) != 1)
		_exit(0); /* tcptrace ended before tracing began */
	if (pipe2(exec_pipe, O_CLOEXEC)) {
		write_result(result_fd, errno, 0);
		_exit(0);
	}
	child = fork();
	if (child < 0) {
		write_result(result_fd, errno, 0);
		_exit(0);
	}
	if (child == 0) {
		close(control_fd);
		close(result_fd);
		close(exec_pipe[0]);
		exec_command(argv, exec_pipe[1]);
	}
	close(exec_pipe[1]);
	/* EOF (the pipe closed by a successful exec) leaves exec_errno 0. */
	if (read(exec_pipe[0], &exec_errno, sizeof(exec_errno)) != sizeof(exec_errno))
		exec_errno = 0;
	close(exec_pipe[0]);
	write_result(result_fd, exec_errno, 0);
	if (exec_errno) {
		waitpid(child, NULL, 0);
		_exit(0);
	}

	pidfd = (int)syscall(SYS_pidfd_open, child, 0);
	fds[0] = (struct pollfd){ .fd = control_fd, .events = POLLIN };
	fds[1] = (struct pollfd){ .fd = pidfd, .events = POLLIN };
	/* Without a pidfd (a kernel before 5.3) COMMAND is simply waited for. */
	while (pidfd >= 0 && poll(fds, 2, -1) < 0 && errno == EINTR)
		;
	if (pidfd >= 0 && !(fds[1].revents & POLLIN) && fds[0].revents)
		kill(child, SIGTERM);
	while (waitpid(child, &status, 0) < 0 && errno == EINTR)
		;
	write_result(result_fd, 0, status);
	_exit(0);
}

int command_prepare(struct command *c, char *const argv[], char *err, size_t errlen)
{
	int control[2], result[2];

	memset(c, 0, sizeof(*c));
	c->runner = -1;
	c->control_fd = c->result_fd = -1;
	if (pipe2(control, O_CLOEXEC))
		return fail(err, errlen, "cannot create a pipe for the command");
	if (pipe2(result, O_CLOEXEC)) {
		close(control[0]);
		close(control[1]);
		return fail(err, errlen, "cannot create a pipe for the command");
	}
	fflush(NULL);
	c->runner = fork();
	if (c->runner < 0) {
		close(control[0]);
		close(control[1]);
		close(result[0]);
		close(result[1]);
		return fail(err, errlen, "cannot fork");
	}
	if (c->runner == 0) {
		close(control[1]);
		close(result[0]);
		runner(argv, control[0], result[1]);
	}
	close(control[0]);
	close(result[1]);
	c->control_fd = control[1];
	c->result_fd = result[0];
	return 0;
}

static int read_result(struct command *c, struct command_result *r)
{
	ssize_t got;

	while ((got = read(c->result_fd, r, sizeof(*r))) < 0 && errno == EINTR)
		;
	return got == sizeof(*r) ? 0 : -1;
}

int command_start(struct command *c, char *const argv[], char *err, size_t errlen)
{
	struct command_result r;

	if (write(c->control_fd, "g", 1) != 1 || read_result(c, &r)) {
		tt_error(err, errlen, "cannot run '%s': the runner process failed", argv[0]);
		return -1;
	}
	if (r.exec_errno) {
		c->finished = true;
		c->exit_code = r.exec_errno == ENOENT ? 127 : 126;
		tt_error(err, errlen, "cannot run '%s': %s", argv[0], strerror(r.exec_errno));
		return -1;
	}
	return 0;
}

bool command_done(struct command *c)
{
	struct pollfd p = { .fd = c->result_fd, .events = POLLIN };

	return c->finished || (c->result_fd >= 0 && poll(&p, 1, 0) > 0);
}

int command_finish(struct command *c)
{
	struct command_result r;

	if (c->control_fd >= 0) {
		close(c->control_fd); /* COMMAND still running: the runner stops it */
		c->control_fd = -1;
	}
	if (!c->finished && c->result_fd >= 0) {
		c->finished = true;
		c->exit_code = 1; /* the runner died: nothing better to say */
		if (read_result(c, &r) == 0) {
			if (WIFEXITED(r.status))
				c->exit_code = WEXITSTATUS(r.status);
			else if (WIFSIGNALED(r.status))
				c->exit_code = 128 + WTERMSIG(r.status);
		}
	}
	if (c->result_fd >= 0) {
		close(c->result_fd);
		c->result_fd = -1;
	}
	if (c->runner > 0) {
		while (waitpid(c->runner, NULL, 0) < 0 && errno == EINTR)
			;
		c->runner = -1;
	}
	return c->exit_code;
}
