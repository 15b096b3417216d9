// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* TCP_INFO read with the kernel's struct tcp_info (see tcpinfo.h). */
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <linux/tcp.h>
#include "tcpinfo.h"

int tcp_sent_counts(int fd, long *data_segs_out, long *total_retrans)
{
	struct tcp_info info = { 0 };
	socklen_t len = sizeof(info);

	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len))
		return -errno;
	*data_segs_out = info.tcpi_data_segs_out;
	*total_retrans = info.tcpi_total_retrans;
	return 0;
}
