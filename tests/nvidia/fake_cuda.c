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
 *
 * libcuda's device queries the agent makes (cuDeviceGetCount, cuDeviceGet,
 * cuDeviceGetUuid_v2; exported, -rdynamic) answer from
 * $KPROF_STANDIN_GPUS: the UUIDs of CUDA device ordinals 0, 1... as
 * "GPU-...,GPU-..." (as CUDA_VISIBLE_DEVICES would show them). Unset:
 * CUDA_ERROR_NOT_INITIALIZED (the agent then names no device).
 */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define FAKE_EXPORT	__attribute__((visibility("default")))
#define CUDA_ERROR_INVALID_VALUE	1
#define CUDA_ERROR_NOT_INITIALIZED	3
#define CUDA_ERROR_INVALID_DEVICE	101

/* The i-th UUID of $KPROF_STANDIN_GPUS into b: 0, or -1. */
static int standin_uuid(int i, unsigned char b[16])
{
	const char *p = getenv("KPROF_STANDIN_GPUS");

	for (int k = 0; p && *p; k++) {
		const char *end = strchr(p, ',');

		if (k == i) {
			int n = 0;

			if (strncmp(p, "GPU-", 4))
				return -1;
			for (p += 4; *p && *p != ',' && n < 16; p++) {
				unsigned int x;

				if (*p == '-')
					continue;
				if (sscanf(p, "%2x", &x) != 1)
					return -1;
				b[n++] = (unsigned char)x;
				p++;
			}
			return n == 16 ? 0 : -1;
		}
		p = end ? end + 1 : NULL;
	}
	return -1;
}

FAKE_EXPORT int cuDeviceGetCount(int *count)
{
	unsigned char b[16];
	int n = 0;

	if (!getenv("KPROF_STANDIN_GPUS"))
		return CUDA_ERROR_NOT_INITIALIZED;
	while (!standin_uuid(n, b))
		n++;
	*count = n;
	return 0;
}

FAKE_EXPORT int cuDeviceGet(int *dev, int ordinal)
{
	unsigned char b[16];

	if (standin_uuid(ordinal, b))
		return CUDA_ERROR_INVALID_DEVICE;
	*dev = ordinal;
	return 0;
}

FAKE_EXPORT int cuDeviceGetUuid_v2(unsigned char uuid[16], int dev)
{
	return standin_uuid(dev, uuid) ? CUDA_ERROR_INVALID_VALUE : 0;
}

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
