/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Small reads of /proc files: a process's name, one numeric field, its
 * cgroup, the instance of a server it belongs to. */
#ifndef TT_PROCFS_H
#define TT_PROCFS_H

#include <stddef.h>
#include <stdint.h>

/* Read <proc_root>/<pid>/comm without its newline; 0 or -1. */
int proc_read_comm(const char *proc_root, uint32_t pid, char *buf, size_t len);

/* The number after "label" on the line of a /proc file that starts with
 * it ("VmHWM:" in /proc/self/status, "memlock:" in fdinfo). Returns 0, or
 * -1 when the file, the line or a valid number is missing. */
int proc_read_field(const char *path, const char *label, uint64_t *value);

/* The process's start time (/proc/PID/stat's field 22, clock ticks after
 * boot): with its PID, what tells it from a later process given the same
 * PID. Readable for any process by any user. 0 or -1. */
int proc_start_time(const char *proc_root, uint32_t pid, uint64_t *start);

/* The process's cgroup (v2), as /proc/PID/cgroup's "0::" line gives it:
 * a path from the root of the cgroup2 mount ("/" for the root). 0, or -1
 * when the process or the line is missing or the path does not fit. */
int proc_cgroup_path(const char *proc_root, uint32_t pid, char *buf, size_t len);

/* The instance a running process named comm belongs to: its farthest
 * ancestor of an unbroken line of that name (nginx's master for its
 * workers, the process itself when its parent has another name); 0 when
 * pid is not a process named comm now. */
uint32_t proc_instance(const char *proc_root, uint32_t pid, const char *comm);

#endif /* TT_PROCFS_H */
