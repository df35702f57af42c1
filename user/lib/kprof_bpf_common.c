// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What the two BPF loaders share (kprof_bpf_common.h): the same checks,
 * messages and ring buffer handling for the ioctl programs and the
 * libcuda uprobes, so that both report alike.
 */
#include "kprof_bpf_common.h"
#include "kprof_env.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include <linux/kprof.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#define KPROF_BPF_DEFAULT_RING	(1U << 20)

/*
 * libbpf reports through one global callback. Keep its first warning so
 * that a failed attempt can say why, instead of spraying stderr;
 * KPROF_BPF_DEBUG=1 shows everything.
 */
static char libbpf_why[512];

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char line[256];
	size_t n;

	if (kprof_env("KPROF_BPF_DEBUG"))
		return vfprintf(stderr, fmt, ap);
	if (level != LIBBPF_WARN)
		return 0;
	vsnprintf(line, sizeof(line), fmt, ap);
	n = strcspn(line, "\n");
	line[n] = '\0';
	/* The first warning of an attempt is the cause; later ones echo it. */
	if (n && !libbpf_why[0])
		snprintf(libbpf_why, sizeof(libbpf_why), " (%s)", line);
	return 0;
}

void kprof_bpf_libbpf_clear(void)
{
	libbpf_why[0] = '\0';
}

const char *kprof_bpf_libbpf_why(void)
{
	return libbpf_why;
}

static int has_cap(int cap)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = { { 0 } };

	if (syscall(SYS_capget, &hdr, data))
		return 0;
	return !!(data[cap / 32].effective & (1U << (cap % 32)));
}

/* True when EPERM cannot be for lack of capabilities. */
static int capable_now(void)
{
	return has_cap(CAP_SYS_ADMIN) || (has_cap(CAP_BPF) && has_cap(CAP_PERFMON));
}

int kprof_bpf_denied(int ret)
{
	return (ret == -EPERM || ret == -EACCES) && !capable_now();
}

int kprof_bpf_eperm_error(struct kprof_err *err)
{
	char missing[96] = "";

	if (!has_cap(CAP_BPF))
		strcat(missing, " CAP_BPF");
	if (!has_cap(CAP_PERFMON))
		strcat(missing, " CAP_PERFMON");
	if (!has_cap(CAP_SYS_ADMIN))
		strcat(missing, " CAP_SYS_ADMIN");
	return kprof_err_set(err, EPERM,
		"loading the BPF tracing programs is not permitted: they need CAP_BPF and CAP_PERFMON (Linux >= 5.8) or CAP_SYS_ADMIN (older kernels); this process lacks%s. Run kprofctl as root: `sudo kprofctl capture ... -- CMD` still runs CMD as you (kprofctl does not support file capabilities: docs/security.md)%s",
		missing[0] ? missing :
		" none of them (a security module or kernel.unprivileged_bpf_disabled may forbid it)",
		has_cap(CAP_BPF) && has_cap(CAP_PERFMON) && !has_cap(CAP_SYS_ADMIN)
		? "; on kernels older than 5.8 CAP_SYS_ADMIN is the one missing" : "");
}

int kprof_bpf_prepare(uint32_t ring_bytes, struct kprof_err *err)
{
	if (ring_bytes && (ring_bytes & (ring_bytes - 1) || ring_bytes < (uint32_t)getpagesize()))
		return kprof_err_set(err, EINVAL,
				     "BPF ring size %u is not a power of two >= the page size",
				     ring_bytes);
	/* Tracing programs need these whatever the hook: say so up front. */
	if (!capable_now())
		return kprof_bpf_eperm_error(err);
	libbpf_set_print(libbpf_print);
	kprof_bpf_libbpf_clear();
	return 0;
}

int kprof_bpf_ring_size(struct bpf_map *events, uint32_t ring_bytes)
{
	return bpf_map__set_max_entries(events, ring_bytes ? ring_bytes : KPROF_BPF_DEFAULT_RING);
}

int kprof_bpf_rec_ok(const void *data, size_t size, uint16_t type, size_t want)
{
	const struct kprof_rec_hdr *h = data;

	return size >= want && h->type == type;
}

int kprof_bpf_ring_new(const struct bpf_map *events, ring_buffer_sample_fn fn, void *ctx,
		       struct ring_buffer **out, struct kprof_err *err)
{
	int ret;

	*out = ring_buffer__new(bpf_map__fd(events), fn, ctx, NULL);
	if (*out)
		return 0;
	ret = -errno;
	return kprof_err_set(err, -ret, "cannot map the BPF ring buffer: %s", strerror(-ret));
}

int kprof_bpf_percpu_sum(const struct bpf_map *stats, uint64_t *sum, uint32_t n)
{
	int ncpu = libbpf_num_possible_cpus(), fd = bpf_map__fd(stats);
	uint64_t *vals;

	if (ncpu <= 0)
		return ncpu ? ncpu : -EINVAL;
	vals = calloc(ncpu, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	for (uint32_t k = 0; k < n; k++) {
		if (bpf_map_lookup_elem(fd, &k, vals)) {
			int ret = -errno;

			free(vals);
			return ret;
		}
		sum[k] = 0;
		for (int c = 0; c < ncpu; c++)
			sum[k] += vals[c];
	}
	free(vals);
	return 0;
}
