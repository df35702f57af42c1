// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Host test of the real BPF programs through the real loader: loads them
 * on the running kernel with each hook kind in turn, traces a pty slave
 * (its tty_ioctl handler stands in for an accelerator driver's), and checks
 * that exactly the matching ioctls come out, with the right pid, tid,
 * comm, cmd, role, return value and seq fields, and that ring overflow is
 * counted rather than silent.
 *
 * Stand-ins: LAUNCH = TIOCGWINSZ (the kernel writes the window size into
 * the arg at exit, so "seq" read at exit is rows | cols << 16), SYNC =
 * TIOCINQ (the seq read at entry is the int we put in the arg before the
 * call). Exit 77 = BPF not permitted here (skipped, with the reason).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <termios.h>

#include "kprof_bpf.h"
#include "kprof_array_size.h"
#include "kprof_host_test.h"

#define N_LAUNCH	100
#define N_SYNC		50
#define ROWS		1234
#define COLS		77

struct seen {
	unsigned int launch, sync, efault, other;
	unsigned int bad_ids, bad_seq, bad_time;
};

static int open_pty(int *master, char *name, size_t len)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY), s;

	if (m < 0 || grantpt(m) || unlockpt(m) || ptsname_r(m, name, len))
		return -1;
	s = open(name, O_RDWR | O_NOCTTY);
	if (s < 0)
		return -1;
	*master = m;
	return s;
}

static int on_event(const struct kprof_host_event *ev, void *ctx)
{
	struct seen *s = ctx;

	if (ev->pid != (uint32_t)getpid() || ev->tid != (uint32_t)syscall(SYS_gettid) ||
	    strncmp(ev->comm, "kprof-bpf-test", sizeof(ev->comm)) ||
	    ev->size != sizeof(*ev))
		s->bad_ids++;
	if (ev->exit_ns < ev->enter_ns || !ev->enter_ns)
		s->bad_time++;
	if (ev->cmd == TIOCGWINSZ && ev->role == KPROF_ROLE_LAUNCH) {
		if (ev->ret == -EFAULT) {
			s->efault++;
			return 0;
		}
		s->launch++;
		if (ev->ret != 0 || ev->seq != (ROWS | (uint64_t)COLS << 16))
			s->bad_seq++;
	} else if (ev->cmd == TIOCINQ && ev->role == KPROF_ROLE_SYNC) {
		s->sync++;
		if (ev->ret != 0 || ev->seq != 4242)
			s->bad_seq++;
	} else {
		s->other++;
	}
	return 0;
}

static void traffic(int fd, int other_fd)
{
	struct termios tio;
	struct winsize ws;
	int inq;

	for (int i = 0; i < N_LAUNCH; i++) {
		ioctl(fd, TIOCGWINSZ, &ws);
		ioctl(other_fd, TIOCGWINSZ, &ws);	/* other device: not traced */
		ioctl(fd, TCGETS, &tio);		/* other cmd: not traced */
	}
	for (int i = 0; i < N_SYNC; i++) {
		inq = 4242;
		ioctl(fd, TIOCINQ, &inq);
		inq = 4242;
		ioctl(other_fd, TIOCINQ, &inq);
	}
	/* Failing launch: the return value must come through. */
	ioctl(fd, TIOCGWINSZ, (void *)8);
}

/* 0 ok, 77 skip (not permitted), 1 failure */
static int run_hook(enum kprof_bpf_hook hook, int fd, int other_fd, dev_t dev)
{
	struct kprof_bpf_target t = {
		.dev = dev,
		.launch_cmd = TIOCGWINSZ,
		.sync_cmd = TIOCINQ,
		.launch_seq_off = 0, .launch_seq_size = 4,
		.sync_seq_off = 0, .sync_seq_size = 4,
		.tgid = getpid(),
		.handler = "tty_ioctl",
		.hook = hook,
	};
	struct kprof_host_bpf_stats st;
	struct seen s = { 0 };
	struct kprof_bpf *b;
	struct kprof_err err = { 0 };
	int before = failures, ret;

	ret = kprof_bpf_open(&t, on_event, &s, &b, &err);
	if (ret == -EPERM) {
		printf("SKIP: %s\n", err.msg);
		return 77;
	}
	if (ret == -EOPNOTSUPP) {
		printf("# hook %s NOT TESTED, unavailable on this kernel: %s\n",
		       kprof_bpf_hook_kind_name(hook), err.msg);
		return 2;
	}
	CHECK(!ret, "hook %s: %s", kprof_bpf_hook_kind_name(hook), err.msg);
	if (ret)
		return 1;
	printf("# hook %s attached as %s\n", kprof_bpf_hook_kind_name(hook),
	       kprof_bpf_hook_name(b));
	traffic(fd, other_fd);
	ret = kprof_bpf_consume(b);
	CHECK(ret == N_LAUNCH + N_SYNC + 1, "consumed %d events, want %d", ret,
	      N_LAUNCH + N_SYNC + 1);
	CHECK(s.launch == N_LAUNCH, "launch events %u, want %u", s.launch, N_LAUNCH);
	CHECK(s.sync == N_SYNC, "sync events %u, want %u", s.sync, N_SYNC);
	CHECK(s.efault == 1, "EFAULT launch events %u, want 1", s.efault);
	CHECK(!s.other, "%u events with wrong cmd/role", s.other);
	CHECK(!s.bad_ids, "%u events with wrong pid/tid/comm/size", s.bad_ids);
	CHECK(!s.bad_seq, "%u events with wrong ret/seq", s.bad_seq);
	CHECK(!s.bad_time, "%u events with exit before entry", s.bad_time);
	CHECK(!kprof_bpf_stats(b, &st), "stats");
	CHECK(st.events == N_LAUNCH + N_SYNC + 1 && !st.reserve_failed && !st.unmatched_exit,
	      "stats events %llu reserve_failed %llu unmatched %llu",
	      (unsigned long long)st.events, (unsigned long long)st.reserve_failed,
	      (unsigned long long)st.unmatched_exit);
	kprof_bpf_close(b);

	/* A one-page ring that nobody drains: losses are counted, not silent. */
	t.ring_bytes = (uint32_t)getpagesize();
	memset(&s, 0, sizeof(s));
	ret = kprof_bpf_open(&t, on_event, &s, &b, &err);
	CHECK(!ret, "small ring: %s", err.msg);
	if (!ret) {
		traffic(fd, other_fd);
		ret = kprof_bpf_consume(b);
		CHECK(!kprof_bpf_stats(b, &st), "stats");
		CHECK(st.reserve_failed > 0 &&
		      st.events + st.reserve_failed == N_LAUNCH + N_SYNC + 1 &&
		      (uint64_t)ret == st.events,
		      "small ring: consumed %d, events %llu + reserve_failed %llu != %d",
		      ret, (unsigned long long)st.events,
		      (unsigned long long)st.reserve_failed, N_LAUNCH + N_SYNC + 1);
		kprof_bpf_close(b);
	}
	return test_ok(before, "hook %s", kprof_bpf_hook_kind_name(hook)) ? 0 : 1;
}

/* Threads: the in-flight state is per task, so concurrent ioctls pair up. */
#define N_THREADS	4
#define N_MT		500

struct mt {
	int fd;
	pid_t tids[N_THREADS];
	unsigned int per_tid[N_THREADS], bad;
};

static int on_mt_event(const struct kprof_host_event *ev, void *ctx)
{
	struct mt *m = ctx;

	for (int i = 0; i < N_THREADS; i++) {
		if (ev->tid == (uint32_t)m->tids[i]) {
			if (ev->pid != (uint32_t)getpid() || ev->ret ||
			    ev->role != KPROF_ROLE_LAUNCH || ev->exit_ns < ev->enter_ns ||
			    ev->seq != (ROWS | (uint64_t)COLS << 16))
				m->bad++;
			m->per_tid[i]++;
			return 0;
		}
	}
	m->bad++;
	return 0;
}

static struct mt mt;
static int mt_index;
static pthread_mutex_t mt_lock = PTHREAD_MUTEX_INITIALIZER;

static void *mt_thread(void *arg)
{
	struct winsize ws;
	int i;

	(void)arg;
	pthread_mutex_lock(&mt_lock);
	i = mt_index++;
	mt.tids[i] = (pid_t)syscall(SYS_gettid);
	pthread_mutex_unlock(&mt_lock);
	for (int k = 0; k < N_MT; k++)
		ioctl(mt.fd, TIOCGWINSZ, &ws);
	return NULL;
}

static int run_threads(int fd, dev_t dev)
{
	struct kprof_bpf_target t = {
		.dev = dev, .launch_cmd = TIOCGWINSZ, .launch_seq_size = 4,
		.handler = "tty_ioctl",
	};
	struct kprof_err err = { 0 };
	pthread_t th[N_THREADS];
	struct kprof_bpf *b;
	int before = failures, got;

	mt.fd = fd;
	if (kprof_bpf_open(&t, on_mt_event, &mt, &b, &err)) {
		CHECK(0, "threads: %s", err.msg);
		return 1;
	}
	for (int i = 0; i < N_THREADS; i++)
		pthread_create(&th[i], NULL, mt_thread, NULL);
	for (int i = 0; i < N_THREADS; i++)
		pthread_join(th[i], NULL);
	got = kprof_bpf_consume(b);
	CHECK(got == N_THREADS * N_MT && !mt.bad, "threads: %d events, %u bad, want %d",
	      got, mt.bad, N_THREADS * N_MT);
	for (int i = 0; i < N_THREADS; i++)
		CHECK(mt.per_tid[i] == N_MT, "thread %d: %u events, want %d", i,
		      mt.per_tid[i], N_MT);
	printf("# %s, %d threads\n", kprof_bpf_hook_name(b), N_THREADS);
	kprof_bpf_close(b);
	return test_ok(before, "threads") ? 0 : 1;
}

int main(void)
{
	static const enum kprof_bpf_hook hooks[] = {
		KPROF_BPF_HOOK_HANDLER, KPROF_BPF_HOOK_LSM, KPROF_BPF_HOOK_TP,
		KPROF_BPF_HOOK_RAWTP,
	};
	char name[64], other_name[64];
	int m1, m2, fd, other_fd, pass = 0, fail = 0, untested = 0;
	struct winsize ws = { .ws_row = ROWS, .ws_col = COLS };
	struct stat st;

	prctl(PR_SET_NAME, "kprof-bpf-test");
	fd = open_pty(&m1, name, sizeof(name));
	other_fd = open_pty(&m2, other_name, sizeof(other_name));
	if (fd < 0 || other_fd < 0 || fstat(fd, &st) || ioctl(fd, TIOCSWINSZ, &ws) ||
	    ioctl(other_fd, TIOCSWINSZ, &ws)) {
		fprintf(stderr, "cannot set up ptys: %s\n", strerror(errno));
		return 1;
	}
	printf("# tracing %s (dev %u:%u), untraced twin %s\n", name,
	       major(st.st_rdev), minor(st.st_rdev), other_name);
	for (size_t i = 0; i < ARRAY_SIZE(hooks); i++) {
		int r = run_hook(hooks[i], fd, other_fd, st.st_rdev);

		if (r == 77)
			return 77;
		if (r == 2)
			untested++;
		else
			r ? fail++ : pass++;
	}
	/* The fallback chain itself: AUTO must find a working hook. */
	if (pass) {
		int r = run_hook(KPROF_BPF_HOOK_AUTO, fd, other_fd, st.st_rdev);

		r ? fail++ : pass++;
		r = run_threads(fd, st.st_rdev);
		r ? fail++ : pass++;
	} else {
		fprintf(stderr, "FAIL: no hook kind works on this kernel\n");
		fail++;
	}
	if (untested)
		printf("# %d hook kind(s) unavailable on this kernel: counted as skipped\n",
		       untested);
	printf("%d passed, %d failed, %d skipped\n", pass, fail, untested);
	return fail ? 1 : 0;
}
