// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libcuda's traced functions (their names and roles) and where
 * libcuda.so.1 is, for the uprobe loader (kprof_bpf_cuda.c) and the
 * report. Built with or without the BPF skeletons.
 */
#include "kprof_bpf_cuda.h"
#include "kprof_array_size.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct {
	uint32_t fn;
	const char *name;
	int role;
} fns[] = {
	{ KPROF_CUDA_LAUNCH_KERNEL, "cuLaunchKernel", 1 },
	{ KPROF_CUDA_LAUNCH_KERNEL_PTSZ, "cuLaunchKernel_ptsz", 1 },
	{ KPROF_CUDA_LAUNCH_KERNEL_EX, "cuLaunchKernelEx", 1 },
	{ KPROF_CUDA_LAUNCH_KERNEL_EX_PTSZ, "cuLaunchKernelEx_ptsz", 1 },
	{ KPROF_CUDA_GRAPH_LAUNCH, "cuGraphLaunch", 1 },
	{ KPROF_CUDA_GRAPH_LAUNCH_PTSZ, "cuGraphLaunch_ptsz", 1 },
	{ KPROF_CUDA_STREAM_SYNC, "cuStreamSynchronize", 2 },
	{ KPROF_CUDA_STREAM_SYNC_PTSZ, "cuStreamSynchronize_ptsz", 2 },
	{ KPROF_CUDA_CTX_SYNC, "cuCtxSynchronize", 2 },
	{ KPROF_CUDA_CTX_SYNC_V2, "cuCtxSynchronize_v2", 2 },
	{ KPROF_CUDA_EVENT_SYNC, "cuEventSynchronize", 2 },
};

const char *kprof_cuda_fn_name(uint32_t fn)
{
	for (size_t i = 0; i < ARRAY_SIZE(fns); i++)
		if (fns[i].fn == fn)
			return fns[i].name;
	return "?";
}

int kprof_cuda_fn_role(uint32_t fn)
{
	for (size_t i = 0; i < ARRAY_SIZE(fns); i++)
		if (fns[i].fn == fn)
			return fns[i].role;
	return 0;
}

/* The mapped file of pid whose name is libcuda.so.1 (or libcuda.so*). */
static int from_maps(pid_t pid, char *out, size_t len)
{
	char path[64], line[PATH_MAX + 128];
	FILE *f;
	int found = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		char *p = strchr(line, '/'), *base;

		if (!p)
			continue;
		p[strcspn(p, "\n")] = '\0';
		base = strrchr(p, '/') + 1;
		if (!strncmp(base, "libcuda.so", 10) && strlen(p) < len) {
			snprintf(out, len, "%s", p);
			found = 1;
		}
	}
	fclose(f);
	return found;
}

/* dir/libcuda.so.1, resolved, when it is there. */
static int in_dir(const char *dir, size_t dlen, char *out, size_t len)
{
	char p[PATH_MAX], real[PATH_MAX];

	if (!dlen || dlen > sizeof(p) - 16)
		return 0;
	snprintf(p, sizeof(p), "%.*s/libcuda.so.1", (int)dlen, dir);
	if (access(p, R_OK) || !realpath(p, real) || strlen(real) >= len)
		return 0;
	snprintf(out, len, "%s", real);
	return 1;
}

int kprof_cuda_find_lib(pid_t pid, const char *ld_library_path, char *out, size_t len,
			struct kprof_err *err)
{
	/* where NVIDIA's installers and distributions put the driver */
	static const char *const dirs[] = {
		"/usr/local/nvidia/lib64", "/usr/lib/x86_64-linux-gnu", "/usr/lib64",
		"/usr/lib", "/lib/x86_64-linux-gnu", "/usr/lib/wsl/lib",
	};
	const char *p = ld_library_path;

	if (pid > 0) {
		if (from_maps(pid, out, len))
			return 0;
		return kprof_err_set(err, ENOENT,
				     "process %d has not loaded libcuda.so.1 (not in /proc/%d/maps): wait until it has initialized CUDA, or give the library's path (--libcuda PATH)",
				     (int)pid, (int)pid);
	}
	while (p && *p) {
		size_t n = strcspn(p, ":");

		if (in_dir(p, n, out, len))
			return 0;
		p += n + (p[n] == ':');
	}
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++)
		if (in_dir(dirs[i], strlen(dirs[i]), out, len))
			return 0;
	return kprof_err_set(err, ENOENT,
			     "libcuda.so.1 (the NVIDIA driver's CUDA library) is in none of LD_LIBRARY_PATH, /usr/local/nvidia/lib64, /usr/lib/x86_64-linux-gnu, /usr/lib64, /usr/lib, /lib/x86_64-linux-gnu, /usr/lib/wsl/lib: give its path with --libcuda PATH");
}
