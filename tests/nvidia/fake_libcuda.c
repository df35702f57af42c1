// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A stand-in libcuda.so.1 for the uprobe test (bpf/tests/
 * kprof_cuda_host_test.c): exports the launch and synchronize functions
 * kprof's uprobes attach to (bpf/kprof_cuda.bpf.c), with libcuda's
 * signatures, and nothing behind them. Each returns the low 16 bits of
 * its first argument, so the test can check the return value the
 * uretprobe saw against what it passed.
 *
 * Built three ways (bpf/Makefile): whole; -DKPROF_FAKE_NO_LAUNCH without
 * cuLaunchKernel (not a CUDA driver: the loader must say so);
 * -DKPROF_FAKE_OLD without cuLaunchKernelEx and its _ptsz form (an older
 * driver: attached, the missing ones listed).
 */
#include <stdint.h>

#define FAKE __attribute__((visibility("default"), noinline))

/* built with -fno-ipa-icf: equal bodies must stay apart (one probe each) */
static int low16(const void *x)
{
	return (int)((uintptr_t)x & 0xffff);
}

#ifndef KPROF_FAKE_NO_LAUNCH
FAKE int cuLaunchKernel(void *f, unsigned int gx, unsigned int gy, unsigned int gz,
			unsigned int bx, unsigned int by, unsigned int bz, unsigned int smem,
			void *stream, void **params, void **extra)
{
	(void)gx; (void)gy; (void)gz; (void)bx; (void)by; (void)bz; (void)smem;
	(void)stream; (void)params; (void)extra;
	return low16(f);
}
#endif

FAKE int cuLaunchKernel_ptsz(void *f, unsigned int gx, unsigned int gy, unsigned int gz,
			     unsigned int bx, unsigned int by, unsigned int bz,
			     unsigned int smem, void *stream, void **params, void **extra)
{
	(void)gx; (void)gy; (void)gz; (void)bx; (void)by; (void)bz; (void)smem;
	(void)stream; (void)params; (void)extra;
	return low16(f);
}

#ifndef KPROF_FAKE_OLD
FAKE int cuLaunchKernelEx(const void *config, void *f, void **params, void **extra)
{
	(void)f; (void)params; (void)extra;
	return low16(config);
}

FAKE int cuLaunchKernelEx_ptsz(const void *config, void *f, void **params, void **extra)
{
	(void)f; (void)params; (void)extra;
	return low16(config);
}
#endif

FAKE int cuGraphLaunch(void *exec, void *stream)
{
	(void)stream;
	return low16(exec);
}

FAKE int cuGraphLaunch_ptsz(void *exec, void *stream)
{
	(void)stream;
	return low16(exec);
}

FAKE int cuStreamSynchronize(void *stream)
{
	return low16(stream);
}

FAKE int cuStreamSynchronize_ptsz(void *stream)
{
	return low16(stream);
}

FAKE int cuCtxSynchronize(void)
{
	return 0;
}

FAKE int cuCtxSynchronize_v2(void *ctx)
{
	return low16(ctx);
}

FAKE int cuEventSynchronize(void *event)
{
	return low16(event);
}
