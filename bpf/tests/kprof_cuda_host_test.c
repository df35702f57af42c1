// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Host test of the CUDA uprobes (bpf/kprof_cuda.bpf.c) through their real
 * loader (user/lib/kprof_bpf_cuda.c), without a GPU: a stand-in
 * libcuda.so.1 (tests/nvidia/fake_libcuda.c) exports the functions, and
 * this program calls them. Checks one event per call with its function,
 * pid, tid, first argument and return value, in call order (also per
 * thread, 4 threads at once), that only the traced process (and, when
 * asked, the processes it forks) is seen, that a full ring is counted,
 * and that a library without cuLaunchKernel is refused by name while one
 * without cuLaunchKernelEx is traced with the missing ones listed; and
 * that libcuda.so.1 is found in a process's maps and by LD_LIBRARY_PATH.
 *
 * usage: kprof_cuda_host_test FULL_LIB NO_LAUNCH_LIB OLD_LIB
 * Exit 77 = BPF not permitted here (skipped, with the reason).
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "kprof_bpf_cuda.h"
#include "kprof_array_size.h"
#include "kprof_host_test.h"

#define MAX_EV		16384
#define N_ORDER		2000
#define N_THREADS	4
#define N_PER_THREAD	500

static int passed;

typedef int (*launch_fn)(void *, unsigned int, unsigned int, unsigned int, unsigned int,
			 unsigned int, unsigned int, unsigned int, void *, void **, void **);
typedef int (*launch_ex_fn)(const void *, void *, void **, void **);
typedef int (*graph_fn)(void *, void *);
typedef int (*one_fn)(void *);
typedef int (*none_fn)(void);

static struct {
	launch_fn launch, launch_ptsz;
	launch_ex_fn launch_ex, launch_ex_ptsz;
	graph_fn graph, graph_ptsz;
	one_fn ssync, ssync_ptsz, ctx_v2, esync;
	none_fn ctx;
} cu;

static struct kprof_cuda_event evs[MAX_EV];
static size_t nev;

static int on_event(const struct kprof_cuda_event *ev, void *ctx)
{
	(void)ctx;
	if (nev < MAX_EV)
		evs[nev] = *ev;
	nev++;
	return 0;
}

static pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* 0 opened, 77 not permitted (skip), -errno other failure (err.msg) */
static int open_probes(const char *lib, pid_t tgid, int follow, uint32_t ring,
		       struct kprof_cuda_uprobes **u, struct kprof_err *err)
{
	struct kprof_cuda_target t = {
		.lib = lib, .tgid = tgid, .follow_forks = follow, .ring_bytes = ring,
	};
	int r;

	nev = 0;
	r = kprof_cuda_bpf_open(&t, on_event, NULL, u, err);
	if (r == -EPERM)
		return 77;
	return r;
}

static int launch(uintptr_t f)
{
	return cu.launch((void *)f, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL);
}

/* every function once, in the table's order: one event each */
static void test_every_call(const char *lib)
{
	static const uintptr_t base = 0x4000;
	struct kprof_cuda_uprobes *u;
	struct kprof_cuda_bpf_stats st;
	struct kprof_err err = { 0 };
	int rets[KPROF_CUDA_FN_NR] = { 0 }, f0 = failures;

	CHECK(!open_probes(lib, getpid(), 0, 0, &u, &err), "open: %s", err.msg);
	if (!u)
		return;
	CHECK(!strcmp(kprof_cuda_bpf_missing(u), ""), "missing '%s'", kprof_cuda_bpf_missing(u));
	rets[KPROF_CUDA_LAUNCH_KERNEL] = launch(base + KPROF_CUDA_LAUNCH_KERNEL);
	rets[KPROF_CUDA_LAUNCH_KERNEL_PTSZ] =
		cu.launch_ptsz((void *)(base + KPROF_CUDA_LAUNCH_KERNEL_PTSZ), 1, 1, 1, 1, 1, 1,
			       0, NULL, NULL, NULL);
	rets[KPROF_CUDA_LAUNCH_KERNEL_EX] =
		cu.launch_ex((void *)(base + KPROF_CUDA_LAUNCH_KERNEL_EX), NULL, NULL, NULL);
	rets[KPROF_CUDA_LAUNCH_KERNEL_EX_PTSZ] =
		cu.launch_ex_ptsz((void *)(base + KPROF_CUDA_LAUNCH_KERNEL_EX_PTSZ), NULL, NULL,
				  NULL);
	rets[KPROF_CUDA_GRAPH_LAUNCH] = cu.graph((void *)(base + KPROF_CUDA_GRAPH_LAUNCH), NULL);
	rets[KPROF_CUDA_GRAPH_LAUNCH_PTSZ] =
		cu.graph_ptsz((void *)(base + KPROF_CUDA_GRAPH_LAUNCH_PTSZ), NULL);
	rets[KPROF_CUDA_STREAM_SYNC] = cu.ssync((void *)(base + KPROF_CUDA_STREAM_SYNC));
	rets[KPROF_CUDA_STREAM_SYNC_PTSZ] =
		cu.ssync_ptsz((void *)(base + KPROF_CUDA_STREAM_SYNC_PTSZ));
	rets[KPROF_CUDA_CTX_SYNC] = cu.ctx();
	rets[KPROF_CUDA_CTX_SYNC_V2] = cu.ctx_v2((void *)(base + KPROF_CUDA_CTX_SYNC_V2));
	rets[KPROF_CUDA_EVENT_SYNC] = cu.esync((void *)(base + KPROF_CUDA_EVENT_SYNC));
	CHECK(kprof_cuda_bpf_consume(u) >= 0, "consume");
	CHECK(nev == KPROF_CUDA_FN_NR - 1, "%zu events for %d calls", nev, KPROF_CUDA_FN_NR - 1);
	for (size_t i = 0; i < nev && i < KPROF_CUDA_FN_NR - 1; i++) {
		const struct kprof_cuda_event *e = &evs[i];
		uint32_t fn = (uint32_t)i + 1;

		CHECK(e->fn == fn, "event %zu: fn %u (%s), called %u (%s)", i, e->fn,
		      kprof_cuda_fn_name(e->fn), fn, kprof_cuda_fn_name(fn));
		CHECK(e->type == KPROF_HREC_CUDA && e->size == sizeof(*e), "event %zu header", i);
		CHECK(e->pid == (uint32_t)getpid() && e->tid == (uint32_t)gettid_(),
		      "event %zu: pid %u tid %u", i, e->pid, e->tid);
		CHECK(e->ret == rets[fn], "%s: ret %d, returned %d", kprof_cuda_fn_name(fn),
		      e->ret, rets[fn]);
		if (fn != KPROF_CUDA_CTX_SYNC)
			CHECK(e->arg0 == base + fn, "%s: arg0 %#llx", kprof_cuda_fn_name(fn),
			      (unsigned long long)e->arg0);
		CHECK(e->enter_ns && e->enter_ns <= e->exit_ns, "%s: times",
		      kprof_cuda_fn_name(fn));
		if (i)
			CHECK(e->enter_ns >= evs[i - 1].exit_ns, "event %zu before the one before",
			      i);
	}
	CHECK(!kprof_cuda_bpf_stats(u, &st) && st.events == nev && !st.reserve_failed &&
	      !st.unmatched_exit && !st.nested && !st.inflight_full,
	      "stats: %llu events, %llu lost, %llu unmatched, %llu nested",
	      (unsigned long long)st.events, (unsigned long long)st.reserve_failed,
	      (unsigned long long)st.unmatched_exit, (unsigned long long)st.nested);
	kprof_cuda_bpf_close(u);
	passed += test_ok(f0, "every_call");
}

/* many launches: all there, in call order */
static void test_order(const char *lib)
{
	struct kprof_cuda_uprobes *u;
	struct kprof_err err = { 0 };
	int f0 = failures, bad = 0;

	CHECK(!open_probes(lib, getpid(), 0, 0, &u, &err), "open: %s", err.msg);
	if (!u)
		return;
	for (uintptr_t i = 0; i < N_ORDER; i++)
		launch(i);
	CHECK(kprof_cuda_bpf_consume(u) >= 0, "consume");
	CHECK(nev == N_ORDER, "%zu events for %d launches", nev, N_ORDER);
	for (size_t i = 0; i < nev && i < N_ORDER; i++)
		bad += evs[i].arg0 != i || evs[i].fn != KPROF_CUDA_LAUNCH_KERNEL;
	CHECK(!bad, "%d launches out of order or wrong", bad);
	kprof_cuda_bpf_close(u);
	passed += test_ok(f0, "order");
}

static void *thread_main(void *arg)
{
	uintptr_t t = (uintptr_t)arg;

	for (uintptr_t i = 0; i < N_PER_THREAD; i++)
		cu.ssync((void *)(t << 12 | i));
	return NULL;
}

/* 4 threads at once: each thread's calls whole and in its order */
static void test_threads(const char *lib)
{
	pthread_t th[N_THREADS];
	struct kprof_cuda_uprobes *u;
	struct kprof_err err = { 0 };
	unsigned int next[N_THREADS] = { 0 }, bad = 0;
	int f0 = failures;

	CHECK(!open_probes(lib, getpid(), 0, 0, &u, &err), "open: %s", err.msg);
	if (!u)
		return;
	for (uintptr_t t = 0; t < N_THREADS; t++)
		pthread_create(&th[t], NULL, thread_main, (void *)t);
	for (size_t t = 0; t < N_THREADS; t++)
		pthread_join(th[t], NULL);
	CHECK(kprof_cuda_bpf_consume(u) >= 0, "consume");
	CHECK(nev == N_THREADS * N_PER_THREAD, "%zu events for %d calls", nev,
	      N_THREADS * N_PER_THREAD);
	for (size_t i = 0; i < nev && i < MAX_EV; i++) {
		uint64_t t = evs[i].arg0 >> 12, k = evs[i].arg0 & 0xfff;

		if (t >= N_THREADS || k != next[t] || evs[i].tid == (uint32_t)getpid() ||
		    evs[i].fn != KPROF_CUDA_STREAM_SYNC ||
		    evs[i].ret != (int)(evs[i].arg0 & 0xffff)) {
			bad++;
			continue;
		}
		next[t]++;
	}
	CHECK(!bad, "%u events out of their thread's order or wrong", bad);
	kprof_cuda_bpf_close(u);
	passed += test_ok(f0, "threads");
}

/* a child calls too; without follow_forks only this process is seen */
static void test_pid_filter(const char *lib)
{
	struct kprof_cuda_uprobes *u;
	struct kprof_err err = { 0 };
	int f0 = failures, other = 0;
	pid_t p;

	CHECK(!open_probes(lib, getpid(), 0, 0, &u, &err), "open: %s", err.msg);
	if (!u)
		return;
	p = fork();
	if (p == 0) {
		for (uintptr_t i = 0; i < 50; i++)
			launch(i);
		_exit(0);
	}
	waitpid(p, NULL, 0);
	for (uintptr_t i = 0; i < 5; i++)
		launch(i);
	CHECK(kprof_cuda_bpf_consume(u) >= 0, "consume");
	for (size_t i = 0; i < nev && i < MAX_EV; i++)
		other += evs[i].pid != (uint32_t)getpid();
	CHECK(nev == 5 && !other, "%zu events (%d of other processes), wanted this process's 5",
	      nev, other);
	kprof_cuda_bpf_close(u);
	passed += test_ok(f0, "pid_filter");
}

/*
 * follow_forks: the traced process is a child A; A's own child B is seen,
 * this process (A's parent, not traced) is not.
 */
static void test_follow_forks(const char *lib)
{
	struct kprof_cuda_uprobes *u = NULL;
	struct kprof_err err = { 0 };
	int go[2], f0 = failures, of_a = 0, of_b = 0, others = 0;
	uint32_t b_pid = 0;
	pid_t a;
	char c;

	if (pipe(go))
		return;
	a = fork();
	if (a == 0) {
		pid_t b;

		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		for (uintptr_t i = 0; i < 3; i++)
			launch(i);
		b = fork();
		if (b == 0) {
			for (uintptr_t i = 0; i < 7; i++)
				launch(i);
			_exit(0);
		}
		waitpid(b, NULL, 0);
		_exit(0);
	}
	close(go[0]);
	CHECK(!open_probes(lib, a, 1, 0, &u, &err), "open: %s", err.msg);
	for (uintptr_t i = 0; i < 5; i++)
		launch(i);
	c = 1;
	CHECK(write(go[1], &c, 1) == 1, "write");
	close(go[1]);
	waitpid(a, NULL, 0);
	if (!u)
		return;
	CHECK(kprof_cuda_bpf_consume(u) >= 0, "consume");
	for (size_t i = 0; i < nev && i < MAX_EV; i++) {
		if (evs[i].pid == (uint32_t)a) {
			of_a++;
		} else if (evs[i].pid != (uint32_t)getpid() && (!b_pid || evs[i].pid == b_pid)) {
			b_pid = evs[i].pid;
			of_b++;
		} else {
			others++;
		}
	}
	CHECK(of_a == 3 && of_b == 7 && !others,
	      "%d events of the traced process (3), %d of its child (7), %d others (0)",
	      of_a, of_b, others);
	kprof_cuda_bpf_close(u);
	passed += test_ok(f0, "follow_forks");
}

/* a one-page ring that is never read: what does not fit is counted */
static void test_ring_full(const char *lib)
{
	struct kprof_cuda_uprobes *u;
	struct kprof_cuda_bpf_stats st = { 0 };
	struct kprof_err err = { 0 };
	int f0 = failures, n = 500;

	CHECK(!open_probes(lib, getpid(), 0, (uint32_t)getpagesize(), &u, &err), "open: %s",
	      err.msg);
	if (!u)
		return;
	for (int i = 0; i < n; i++)
		launch((uintptr_t)i);
	CHECK(!kprof_cuda_bpf_stats(u, &st), "stats");
	CHECK(st.reserve_failed > 0 && st.events + st.reserve_failed == (uint64_t)n,
	      "%llu delivered + %llu lost != %d calls", (unsigned long long)st.events,
	      (unsigned long long)st.reserve_failed, n);
	CHECK(kprof_cuda_bpf_consume(u) >= 0 && nev == st.events, "%zu read, %llu delivered",
	      nev, (unsigned long long)st.events);
	kprof_cuda_bpf_close(u);
	passed += test_ok(f0, "ring_full");
}

/* not a CUDA driver, an older one, no file */
static void test_symbols(const char *no_launch, const char *old)
{
	struct kprof_cuda_uprobes *u = NULL;
	struct kprof_err err = { 0 };
	int f0 = failures, r;
	void *h;

	r = open_probes(no_launch, getpid(), 0, 0, &u, &err);
	CHECK(r == -ENOENT && !u, "a library without cuLaunchKernel: %d", r);
	CHECK(strstr(err.msg, "no function cuLaunchKernel") && strstr(err.msg, no_launch) &&
	      strstr(err.msg, "--libcuda"), "message: %s", err.msg);
	kprof_cuda_bpf_close(u);
	u = NULL;

	memset(&err, 0, sizeof(err));
	r = open_probes("/nonexistent/libcuda.so.1", getpid(), 0, 0, &u, &err);
	CHECK(r == -ENOENT && !u && strstr(err.msg, "/nonexistent/libcuda.so.1"),
	      "no file: %d %s", r, err.msg);

	memset(&err, 0, sizeof(err));
	r = open_probes(old, getpid(), 0, 0, &u, &err);
	CHECK(!r && u, "an older driver: %d %s", r, err.msg);
	if (u) {
		launch_fn l;

		CHECK(!strcmp(kprof_cuda_bpf_missing(u), "cuLaunchKernelEx,cuLaunchKernelEx_ptsz"),
		      "missing: '%s'", kprof_cuda_bpf_missing(u));
		h = dlopen(old, RTLD_NOW | RTLD_LOCAL);
		l = h ? (launch_fn)dlsym(h, "cuLaunchKernel") : NULL;
		CHECK(l, "dlopen %s", old);
		if (l)
			l((void *)7, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL);
		CHECK(kprof_cuda_bpf_consume(u) >= 0 && nev == 1 &&
		      evs[0].fn == KPROF_CUDA_LAUNCH_KERNEL && evs[0].arg0 == 7,
		      "older driver: %zu events", nev);
		kprof_cuda_bpf_close(u);
	}
	passed += test_ok(f0, "symbols");
}

/* where libcuda.so.1 is: a process's mapping, the loader's search */
static void test_find_lib(const char *lib)
{
	char want[PATH_MAX], got[PATH_MAX], dir[PATH_MAX], path[PATH_MAX + 32], *sl;
	struct kprof_err err = { 0 };
	int f0 = failures, r;
	pid_t p;

	CHECK(realpath(lib, want), "realpath %s", lib);
	r = kprof_cuda_find_lib(getpid(), NULL, got, sizeof(got), &err);
	CHECK(!r && !strcmp(got, want), "this process's libcuda: %d '%s' (%s)", r, got, err.msg);
	snprintf(dir, sizeof(dir), "%s", want);
	sl = strrchr(dir, '/');
	if (sl)
		*sl = '\0';
	snprintf(path, sizeof(path), "/nonexistent:%s", dir);
	r = kprof_cuda_find_lib(0, path, got, sizeof(got), &err);
	CHECK(!r && !strcmp(got, want), "LD_LIBRARY_PATH %s: %d '%s' (%s)", path, r, got,
	      err.msg);
	/* a process that has not loaded it: said, with what to do */
	p = fork();
	if (p == 0) {
		execl("/bin/sleep", "sleep", "5", (char *)NULL);
		_exit(127);
	}
	usleep(200 * 1000);
	memset(&err, 0, sizeof(err));
	r = kprof_cuda_find_lib(p, NULL, got, sizeof(got), &err);
	CHECK(r == -ENOENT && strstr(err.msg, "has not loaded libcuda.so.1") &&
	      strstr(err.msg, "--libcuda"), "a process without it: %d %s", r, err.msg);
	kill(p, SIGKILL);
	waitpid(p, NULL, 0);
	passed += test_ok(f0, "find_lib");
}

int main(int argc, char **argv)
{
	const struct {
		void **slot;
		const char *name;
	} syms[] = {
		{ (void **)&cu.launch, "cuLaunchKernel" },
		{ (void **)&cu.launch_ptsz, "cuLaunchKernel_ptsz" },
		{ (void **)&cu.launch_ex, "cuLaunchKernelEx" },
		{ (void **)&cu.launch_ex_ptsz, "cuLaunchKernelEx_ptsz" },
		{ (void **)&cu.graph, "cuGraphLaunch" },
		{ (void **)&cu.graph_ptsz, "cuGraphLaunch_ptsz" },
		{ (void **)&cu.ssync, "cuStreamSynchronize" },
		{ (void **)&cu.ssync_ptsz, "cuStreamSynchronize_ptsz" },
		{ (void **)&cu.ctx, "cuCtxSynchronize" },
		{ (void **)&cu.ctx_v2, "cuCtxSynchronize_v2" },
		{ (void **)&cu.esync, "cuEventSynchronize" },
	};
	struct kprof_cuda_uprobes *u = NULL;
	struct kprof_err err = { 0 };
	void *h;
	int r;

	if (argc != 4) {
		fprintf(stderr, "usage: %s FULL_LIB NO_LAUNCH_LIB OLD_LIB\n", argv[0]);
		return 2;
	}
	h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	for (size_t i = 0; i < ARRAY_SIZE(syms); i++) {
		*syms[i].slot = dlsym(h, syms[i].name);
		if (!*syms[i].slot) {
			fprintf(stderr, "%s: no %s\n", argv[1], syms[i].name);
			return 1;
		}
	}

	r = open_probes(argv[1], getpid(), 0, 0, &u, &err);
	if (r == 77) {
		printf("SKIP: %s\n", err.msg);
		return 77;
	}
	if (r) {
		printf("not ok open: %s\n0 passed, 1 failed\n", err.msg);
		return 1;
	}
	kprof_cuda_bpf_close(u);

	test_every_call(argv[1]);
	test_order(argv[1]);
	test_threads(argv[1]);
	test_pid_filter(argv[1]);
	test_follow_forks(argv[1]);
	test_ring_full(argv[1]);
	/* before test_symbols maps a second libcuda.so.1 */
	test_find_lib(argv[1]);
	test_symbols(argv[2], argv[3]);
	printf("%d passed, %d failed\n", passed, 8 - passed);
	return passed == 8 && !failures ? 0 : 1;
}
