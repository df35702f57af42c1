// SPDX-License-Identifier: GPL-2.0
/*
 * Plays libcuda's part in the GPU-less tests: loads $CUDA_INJECTION64_PATH
 * and calls its InitializeInjection(), as libcuda does when a process
 * initializes CUDA, then has the stand-in libcupti ($KPROF_CUPTI_LIB,
 * tests/nvidia/cupti_standin.c) play its recording through the agent.
 *
 * usage: fake_cuda [fork] [kill]
 *   fork: fork() once first (the child exits at once)
 *   kill: die by SIGKILL after playing (no exit handlers run)
 */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *inj = getenv("CUDA_INJECTION64_PATH");
	const char *lib = getenv("KPROF_CUPTI_LIB");
	int (*init)(void);
	int (*play)(void);
	void *h, *s;
	int do_fork = 0, do_kill = 0;

	for (int i = 1; i < argc; i++) {
		do_fork |= !strcmp(argv[i], "fork");
		do_kill |= !strcmp(argv[i], "kill");
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
	s = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	play = s ? (int (*)(void))dlsym(s, "kprof_standin_play") : NULL;
	if (!play || play() < 0) {
		fprintf(stderr, "fake_cuda: %s cannot play\n", lib);
		return 2;
	}
	if (do_kill)
		raise(SIGKILL);
	return 0;
}
