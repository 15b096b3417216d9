// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Giving up root once the BPF programs are attached, so that a bug in the
 * formatting or CSV code cannot act as root. */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include "cli/privileges.h"

#define FALLBACK_ID 65534 /* nobody/nogroup on Debian and most others */
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

/* Group first: once the user is nobody, changing groups is refused. A
 * change of every uid to non-zero clears all capabilities, unless
 * PR_SET_KEEPCAPS keeps the permitted ones. */
static int become_nobody(void)
{
	const struct passwd *pw = getpwnam("nobody");
	uid_t uid = pw ? pw->pw_uid : FALLBACK_ID;
	gid_t gid = pw ? pw->pw_gid : FALLBACK_ID;

	if (setgroups(0, NULL) || setresgid(gid, gid, gid) || setresuid(uid, uid, uid))
		return -errno;
	return 0;
}

/* Whether the kernel lets a process with no capability read map_fd. */
static bool map_readable_unprivileged(int map_fd)
{
	int status;
	pid_t child = fork();

	if (child < 0)
		return false;
	if (child == 0) {
		__u64 key[8];

		if (become_nobody())
			_exit(2);
		/* ENOENT is an empty map: the call itself was allowed. */
		_exit(bpf_map_get_next_key(map_fd, NULL, key) && errno == EPERM ? 1 : 0);
	}
	while (waitpid(child, &status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* Only CAP_BPF, effective and permitted; nothing to hand on. */
static int keep_only_cap_bpf(void)
{
	struct __user_cap_header_struct header = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};

	data[CAP_TO_INDEX(CAP_BPF)].effective = CAP_TO_MASK(CAP_BPF);
	data[CAP_TO_INDEX(CAP_BPF)].permitted = CAP_TO_MASK(CAP_BPF);
	return syscall(SYS_capset, &header, data) ? -errno : 0;
}

int privileges_drop(int map_fd, char *err, size_t errlen)
{
	bool keep_bpf = !map_readable_unprivileged(map_fd);
	int ret;

	if (keep_bpf && prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0)) {
		ret = -errno;
		goto fail;
	}
	ret = become_nobody();
	if (!ret && keep_bpf)
		ret = keep_only_cap_bpf();
	if (keep_bpf)
		prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0);
	if (ret)
		goto fail;
	/* A set-id change makes the process non-dumpable, which hands its own
	 * /proc/self files to root; tcptrace reads them at exit. */
	prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
	return 0;
fail:
	snprintf(err, errlen, "cannot drop privileges%s: %s",
		 keep_bpf ? " (keeping CAP_BPF, which this kernel needs to read BPF maps)" : "",
		 strerror(-ret));
	return ret;
}
