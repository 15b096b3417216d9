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
#include <sys/prctl.h>
#include "privileges.h"

#define FALLBACK_ID 65534 /* nobody/nogroup on Debian and most others */

int privileges_drop(char *err, size_t errlen)
{
	const struct passwd *pw = getpwnam("nobody");
	uid_t uid = pw ? pw->pw_uid : FALLBACK_ID;
	gid_t gid = pw ? pw->pw_gid : FALLBACK_ID;

	/* Group first: once the user is nobody, changing groups is refused.
	 * A change of every uid to non-zero clears all capabilities. */
	if (setgroups(0, NULL) || setresgid(gid, gid, gid) || setresuid(uid, uid, uid)) {
		int e = errno;

		snprintf(err, errlen, "cannot drop privileges: %s", strerror(e));
		return -e;
	}
	/* A set-id change makes the process non-dumpable, which hands its own
	 * /proc/self files to root; tcptrace reads them at exit. */
	prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
	return 0;
}
