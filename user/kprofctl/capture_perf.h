/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Host perf counters for the captured command, named with libpfm4
 * (pfm_get_os_event_encoding, PFM_OS_PERF_EVENT). Counting starts at the
 * command's exec (enable_on_exec) and follows its children (inherit).
 */
#ifndef _KPROF_CAPTURE_PERF_H
#define _KPROF_CAPTURE_PERF_H

#include <stdint.h>
#include <sys/types.h>

#define CAPTURE_PERF_MAX	16

struct capture_perf_event {
	char name[128];		/* as requested, or the fallback's name */
	char fqname[256];	/* libpfm4's fully qualified name */
	int fd;
	int fallback;		/* software stand-in for a missing hardware PMU */
	int user_only;		/* kernel counting refused (perf_event_paranoid) */
	uint64_t value;		/* scaled by enabled/running */
	uint64_t enabled_ns, running_ns;
};

struct capture_perf {
	unsigned int n;
	struct capture_perf_event ev[CAPTURE_PERF_MAX];
	char notes[1024];	/* what was replaced or skipped, for the user */
};

/*
 * Opens the comma-separated events for pid (or every event of a
 * system-wide capture when pid is -1: not supported, returns 0 with no
 * events). Events that cannot be counted here are replaced by
 * perf::task-clock once, or skipped; notes says which. Returns 0, or -1
 * with msg set when an event name is unknown to libpfm4.
 */
int capture_perf_open(struct capture_perf *p, const char *events, pid_t pid,
		      char *msg, size_t msg_len);
/* Checks that every name is known to libpfm4 (no perf_event_open). */
int capture_perf_check(const char *events, char *msg, size_t msg_len);
/* Reads final values; call after the command has exited. */
void capture_perf_read(struct capture_perf *p);
void capture_perf_close(struct capture_perf *p);

#endif /* _KPROF_CAPTURE_PERF_H */
