// SPDX-License-Identifier: GPL-2.0
/*
 * Ground truth for kprof's NVIDIA capture: kernels that spin a known
 * number of SM cycles (clock64), a loop of tiny kernels, a memset and
 * two memcpys. With the SM clock locked (nvidia-smi -lgc F,F) a spin
 * kernel lasts cycles / F plus its launch and drain; each one also
 * reports the cycles it spun and the GPU global timer span it saw, so
 * kprof's DEVICE KERNEL DURATION can be checked against them.
 *
 * usage: spin [SPIN_CYCLES [SPINS [TINY [BYTES [SYNC_EVERY [TIME_CALLS]]]]]]
 *   defaults 12000000 cycles (10 ms at 1200 MHz), 10 spins, 2000 tiny
 *   kernels, 64 MiB for the memset and the copies; SYNC_EVERY N > 0: a
 *   cudaDeviceSynchronize after every N tiny kernels (default 0: none
 *   until the loop ends); TIME_CALLS 1: each launch call is timed on its
 *   own as well (two clock reads more per launch).
 * tests/nvidia/causality.py checks a capture of it: kernels start after
 * their launch, syncs return after their kernels.
 * Prints one line per spin kernel, "spin I cycles C gtimer_ns G", and
 * "tiny N launches, host X ns per launch" (wall time of the launch loop
 * alone, for the agent's overhead: the launch calls and the waits for the
 * GPU at the synchronizes). With TIME_CALLS, also "tiny launch call
 * median M ns p90 P ns sum S ns per launch": the launch call alone, what
 * the launching thread pays per launch apart from waiting for the GPU.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
	fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
	exit(1); } } while (0)

__device__ static unsigned long long gtimer(void)
{
	unsigned long long t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

__global__ void kprof_spin(long long cycles, unsigned long long *out)
{
	long long t0 = clock64(), t;
	unsigned long long g0 = gtimer();

	do {
		t = clock64();
	} while (t - t0 < cycles);
	out[0] = (unsigned long long)(t - t0);
	out[1] = gtimer() - g0;
}

__global__ void kprof_tiny(void)
{
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	long long cycles = argc > 1 ? atoll(argv[1]) : 12000000LL;
	int spins = argc > 2 ? atoi(argv[2]) : 10;
	int tiny = argc > 3 ? atoi(argv[3]) : 2000;
	size_t bytes = argc > 4 ? (size_t)atoll(argv[4]) : (64u << 20);
	int sync_every = argc > 5 ? atoi(argv[5]) : 0;
	int time_calls = argc > 6 && atoi(argv[6]) == 1;
	double *calls = NULL, call_sum = 0;
	unsigned long long *d_out, *h_out;
	void *d_buf, *h_buf;
	cudaStream_t s1;
	double t0, t1;

	CK(cudaSetDevice(0));
	CK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
	CK(cudaMalloc((void **)&d_out, 2 * sizeof(*d_out) * (spins + 1)));
	CK(cudaMalloc(&d_buf, bytes));
	CK(cudaMallocHost(&h_buf, bytes));
	h_out = (unsigned long long *)calloc(2 * (spins + 1), sizeof(*h_out));

	CK(cudaMemset(d_buf, 0x5a, bytes));
	CK(cudaMemcpy(d_buf, h_buf, bytes, cudaMemcpyHostToDevice));
	CK(cudaMemcpy(h_buf, d_buf, bytes, cudaMemcpyDeviceToHost));

	/* one at a time on a stream of their own, each waited for */
	for (int i = 0; i < spins; i++) {
		kprof_spin<<<1, 1, 0, s1>>>(cycles, d_out + 2 * i);
		CK(cudaGetLastError());
		CK(cudaStreamSynchronize(s1));
	}

	if (time_calls && tiny > 0) {
		calls = (double *)malloc(tiny * sizeof(*calls));
		if (!calls) {
			fprintf(stderr, "spin: out of memory for %d call times\n", tiny);
			return 1;
		}
	}
	kprof_tiny<<<1, 32>>>();
	CK(cudaDeviceSynchronize());
	t0 = now_ns();
	for (int i = 0; i < tiny; i++) {
		if (calls) {
			double c0 = now_ns();

			kprof_tiny<<<1, 32>>>();
			calls[i] = now_ns() - c0;
		} else {
			kprof_tiny<<<1, 32>>>();
		}
		if (sync_every > 0 && (i + 1) % sync_every == 0)
			CK(cudaDeviceSynchronize());
	}
	t1 = now_ns();
	CK(cudaDeviceSynchronize());

	CK(cudaMemcpy(h_out, d_out, 2 * sizeof(*h_out) * spins, cudaMemcpyDeviceToHost));
	for (int i = 0; i < spins; i++)
		printf("spin %d cycles %llu gtimer_ns %llu\n", i, h_out[2 * i], h_out[2 * i + 1]);
	printf("tiny %d launches, host %.1f ns per launch\n", tiny, tiny ? (t1 - t0) / tiny : 0.0);
	if (calls) {
		for (int i = 0; i < tiny; i++)
			call_sum += calls[i];
		qsort(calls, tiny, sizeof(*calls), cmp_double);
		printf("tiny launch call median %.1f ns p90 %.1f ns sum %.1f ns per launch\n",
		       calls[tiny / 2], calls[(int)(tiny * 0.9)], call_sum / tiny);
		free(calls);
	}
	CK(cudaFreeHost(h_buf));
	CK(cudaFree(d_buf));
	CK(cudaFree(d_out));
	CK(cudaStreamDestroy(s1));
	return 0;
}
