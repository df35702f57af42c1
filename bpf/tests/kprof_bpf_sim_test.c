// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * End to end on the target: the sim's vendor node, its driver profile and
 * the loader's automatic hook choice. Launches ops through
 * KPROF_SIM_IOC_LAUNCH, waits with KPROF_SIM_IOC_SYNC, and checks that
 * each ioctl gives exactly one event carrying the seq the driver returned
 * (launch) or the seq waited for (sync). Runs in the VM lane:
 *   tests/vm/run --exec bpf/tests/vm-sim-test.sh
 * Usage: kprof_bpf_sim_test [NODE] [HOOK]
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <linux/kprof_sim.h>

#include "kprof_bpf.h"
#include "kprof_profile.h"

#define N_OPS	200

struct seen {
	uint64_t launch_seq[N_OPS + 1];	/* seq the driver returned, per launch */
	unsigned int launches, syncs, bad;
	uint64_t last_sync_seq;
};

static int on_event(const struct kprof_host_event *ev, void *ctx)
{
	struct seen *s = ctx;

	if (ev->pid != (uint32_t)getpid() || ev->tid != (uint32_t)syscall(SYS_gettid) ||
	    ev->exit_ns < ev->enter_ns || ev->ret != 0) {
		s->bad++;
		return 0;
	}
	if (ev->role == KPROF_ROLE_LAUNCH && ev->cmd == KPROF_SIM_IOC_LAUNCH &&
	    s->launches < N_OPS)
		s->launch_seq[s->launches++] = ev->seq;
	else if (ev->role == KPROF_ROLE_SYNC && ev->cmd == KPROF_SIM_IOC_SYNC)
		s->syncs++, s->last_sync_seq = ev->seq;
	else
		s->bad++;
	return 0;
}

int main(int argc, char **argv)
{
	const char *node = argc > 1 ? argv[1] : "/dev/kprof_sim0";
	static struct seen s;
	uint64_t returned[N_OPS];
	struct kprof_host_bpf_stats st;
	struct kprof_profile prof;
	struct kprof_bpf_target t;
	struct kprof_err err = { 0 };
	struct kprof_bpf *b;
	int fd, fails = 0, r;

	kprof_profile_builtin_sim(&prof);
	if (kprof_profile_target(&prof, node, &t, &err)) {
		fprintf(stderr, "FAIL: %s\n", err.msg);
		return 1;
	}
	if (argc > 2 && kprof_bpf_hook_parse(argv[2], &t.hook)) {
		fprintf(stderr, "unknown hook %s\n", argv[2]);
		return 2;
	}
	t.tgid = 0;	/* whole device, as kprofctl capture traces it */
	r = kprof_bpf_open(&t, on_event, &s, &b, &err);
	if (r) {
		fprintf(stderr, "FAIL: %s\n", err.msg);
		return r == -EPERM ? 77 : 1;
	}
	printf("# hook: %s\n", kprof_bpf_hook_name(b));
	if (kprof_bpf_fallback_log(b)[0])
		printf("# fell back because: %s\n", kprof_bpf_fallback_log(b));
	fd = open(node, O_RDWR);
	if (fd < 0) {
		perror(node);
		return 1;
	}
	for (int i = 0; i < N_OPS; i++) {
		struct kprof_sim_launch l = { .size = sizeof(l), .num_cores = 1,
					      .flops = 1000, .bytes = 1000 };

		snprintf(l.name, sizeof(l.name), "op%d", i % 4);
		if (ioctl(fd, KPROF_SIM_IOC_LAUNCH, &l)) {
			perror("LAUNCH");
			return 1;
		}
		returned[i] = l.seq;
		if (i % 50 == 49) {
			struct kprof_sim_sync sy = { .size = sizeof(sy), .seq = l.seq };

			if (ioctl(fd, KPROF_SIM_IOC_SYNC, &sy)) {
				perror("SYNC");
				return 1;
			}
		}
		if (i % 64 == 0)
			kprof_bpf_consume(b);
	}
	kprof_bpf_consume(b);
	if (s.launches != N_OPS || s.syncs != N_OPS / 50 || s.bad) {
		fprintf(stderr, "FAIL: %u launch, %u sync, %u bad events; want %d, %d, 0\n",
			s.launches, s.syncs, s.bad, N_OPS, N_OPS / 50);
		fails++;
	}
	for (int i = 0; i < N_OPS && i < (int)s.launches; i++) {
		if (s.launch_seq[i] != returned[i]) {
			fprintf(stderr, "FAIL: launch %d: event seq %llu, driver returned %llu\n",
				i, (unsigned long long)s.launch_seq[i],
				(unsigned long long)returned[i]);
			fails++;
			break;
		}
	}
	if (s.last_sync_seq != returned[N_OPS - 1]) {
		fprintf(stderr, "FAIL: last sync waited for %llu, event says %llu\n",
			(unsigned long long)returned[N_OPS - 1],
			(unsigned long long)s.last_sync_seq);
		fails++;
	}
	if (kprof_bpf_stats(b, &st) || st.reserve_failed || st.unmatched_exit ||
	    st.events != N_OPS + N_OPS / 50) {
		fprintf(stderr, "FAIL: stats events %llu lost %llu unmatched %llu\n",
			(unsigned long long)st.events, (unsigned long long)st.reserve_failed,
			(unsigned long long)st.unmatched_exit);
		fails++;
	}
	kprof_bpf_close(b);
	close(fd);
	printf("%s sim end-to-end (%d launches, seq %llu..%llu)\n", fails ? "not ok" : "ok",
	       N_OPS, (unsigned long long)returned[0], (unsigned long long)returned[N_OPS - 1]);
	return fails ? 1 : 0;
}
