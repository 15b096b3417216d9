/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The kernel's own counts of one TCP connection, apart from scenario.h:
 * they come from the kernel's struct tcp_info, which glibc's (in
 * netinet/tcp.h, which scenario.h includes) stops short of. */
#ifndef TT_SCENARIO_TCPINFO_H
#define TT_SCENARIO_TCPINFO_H

/* The data segments the connection sent (tcpi_data_segs_out, those sent
 * again included) and the segments it sent again (tcpi_total_retrans).
 * 0, or -errno. */
int tcp_sent_counts(int fd, long *data_segs_out, long *total_retrans);

#endif
