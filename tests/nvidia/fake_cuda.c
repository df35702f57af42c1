// SPDX-License-Identifier: GPL-2.0
/*
 * Plays libcuda's part in the GPU-less tests: loads $CUDA_INJECTION64_PATH
 * and calls its InitializeInjection(), as libcuda does when a process
 * initializes CUDA, then has the stand-in libcupti ($KPROF_CUPTI_LIB,
 * tests/nvidia/cupti_standin.c) play its recording through the agent.
 *
 * usage: fake_cuda [fork] [kill] [calls N LIB]
 *   fork: fork() once first (the child exits at once)
 *   kill: die by SIGKILL after playing (no exit handlers run)
 *   calls N LIB: before playing, call LIB's cuLaunchKernel N times and
 *     cuStreamSynchronize once, and cuCtxSynchronize after (LIB: the
 *     stand-in libcuda.so.1, tests/nvidia/fake_libcuda.c, for the uprobe
 *     capture test: the calls come before every played kernel)
 */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* cuLaunchKernel's */
typedef int (*launch_fn)(void *f, unsigned int gx, unsigned int gy, unsigned int gz,
			 unsigned int bx, unsigned int by, unsigned int bz, unsigned int smem,
			 void *stream, void **params, void **extra);

int main(int argc, char **argv)
{
	const char *inj = getenv("CUDA_INJECTION64_PATH");
	const char *lib = getenv("KPROF_CUPTI_LIB");
	int (*init)(void);
	int (*play)(void);
	void *h, *s;
	int do_fork = 0, do_kill = 0, (*ctx_sync)(void) = NULL;
	long ncalls = 0;
	const char *cuda = NULL;

	for (int i = 1; i < argc; i++) {
		do_fork |= !strcmp(argv[i], "fork");
		do_kill |= !strcmp(argv[i], "kill");
		if (!strcmp(argv[i], "calls") && i + 2 < argc) {
			ncalls = strtol(argv[i + 1], NULL, 10);
			cuda = argv[i + 2];
			i += 2;
		}
	}
	if (!inj || !lib) {
		fprintf(stderr,
			"fake_cuda: CUDA_INJECTION64_PATH and KPROF_CUPTI_LIB must be set\n");
		return 2;
	}
	h = dlopen(inj, RTLD_NOW | RTLD_LOCAL);
	init = h ? (int (*)(void))dlsym(h, "InitializeInjection") : NULL;
	if (!init) {
		fprintf(stderr, "fake_cuda: %s: %s\n", inj, dlerror());
		return 2;
	}
	init();
	if (do_fork) {
		pid_t p = fork();

		if (p == 0)
			_exit(0);
		if (p > 0)
			waitpid(p, NULL, 0);
	}
	if (cuda) {
		void *c = dlopen(cuda, RTLD_NOW | RTLD_LOCAL);
		launch_fn launch;
		int (*stream_sync)(void *stream);

		*(void **)&launch = c ? dlsym(c, "cuLaunchKernel") : NULL;
		*(void **)&stream_sync = c ? dlsym(c, "cuStreamSynchronize") : NULL;
		*(void **)&ctx_sync = c ? dlsym(c, "cuCtxSynchronize") : NULL;
		if (!launch || !stream_sync || !ctx_sync) {
			fprintf(stderr, "fake_cuda: %s: %s\n", cuda,
				c ? "no CUDA functions" : dlerror());
			return 2;
		}
		for (long i = 0; i < ncalls; i++)
			/* the stand-in returns the low 16 bits: CUDA_SUCCESS */
			launch((void *)((i + 1) << 16), 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL);
		stream_sync(NULL);
	}
	s = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	play = s ? (int (*)(void))dlsym(s, "kprof_standin_play") : NULL;
	if (!play || play() < 0) {
		fprintf(stderr, "fake_cuda: %s cannot play\n", lib);
		return 2;
	}
	if (ctx_sync)
		ctx_sync();
	if (do_kill)
		raise(SIGKILL);
	return 0;
}
