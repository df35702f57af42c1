// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Loader for bpf/kprof_cuda.bpf.c: one uprobe and one uretprobe per
 * libcuda function found (libbpf resolves the symbol in the file; the BPF
 * cookie carries the function's id), the tgid set seeded with the traced
 * process, and the ring buffer and loss counters read back.
 */
#include "kprof_bpf_cuda.h"
#include "kprof_bpf_common.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "../../bpf/kprof_cuda.h"	/* stat indexes, shared with the BPF side */
#include "kprof_cuda.skel.h"

#define NLINKS			(2 * KPROF_CUDA_FN_NR + 1)	/* + on_fork */

struct kprof_cuda_uprobes {
	struct kprof_cuda_bpf *skel;
	struct bpf_link *links[NLINKS];
	size_t nlinks;
	struct ring_buffer *rb;
	kprof_cuda_cb cb;
	void *ctx;
	char missing[512];
};

/* Without these a library is not a CUDA driver (or not one we know). */
static int required(uint32_t fn)
{
	return fn == KPROF_CUDA_LAUNCH_KERNEL || fn == KPROF_CUDA_STREAM_SYNC ||
	       fn == KPROF_CUDA_CTX_SYNC;
}

static int ring_event(void *ctx, void *data, size_t size)
{
	struct kprof_cuda_uprobes *b = ctx;

	if (!kprof_bpf_rec_ok(data, size, KPROF_HREC_CUDA, sizeof(struct kprof_cuda_event)))
		return -EPROTO;
	return b->cb ? b->cb(data, b->ctx) : 0;
}

static int attach_one(struct kprof_cuda_uprobes *b, const char *lib, uint32_t fn,
		      int ret_probe)
{
	LIBBPF_OPTS(bpf_uprobe_opts, o, .func_name = kprof_cuda_fn_name(fn),
		    .retprobe = ret_probe, .bpf_cookie = fn);
	struct bpf_program *p = ret_probe ? b->skel->progs.cuda_exit : b->skel->progs.cuda_enter;
	struct bpf_link *l;

	/* pid -1: every process mapping the file; the tgid set filters */
	l = bpf_program__attach_uprobe_opts(p, -1, lib, 0, &o);
	if (!l)
		return -errno;
	b->links[b->nlinks++] = l;
	return 0;
}

static int attach_all(struct kprof_cuda_uprobes *b, const char *lib, struct kprof_err *err)
{
	for (uint32_t fn = 1; fn < KPROF_CUDA_FN_NR; fn++) {
		const char *name = kprof_cuda_fn_name(fn);
		int ret;

		kprof_bpf_libbpf_clear();
		ret = attach_one(b, lib, fn, 0);
		if (!ret)
			ret = attach_one(b, lib, fn, 1);
		if (!ret)
			continue;
		if (ret == -ENOENT && !required(fn)) {
			size_t n = strlen(b->missing);

			snprintf(b->missing + n, sizeof(b->missing) - n, "%s%s", n ? "," : "",
				 name);
			continue;
		}
		if (ret == -ENOENT)
			return kprof_err_set(err, ENOENT,
					     "%s has no function %s: is it the NVIDIA driver's libcuda.so.1? Give the right file with --libcuda PATH",
					     lib, name);
		return kprof_err_set(err, -ret, "cannot attach a uprobe to %s in %s: %s%s",
				     name, lib, strerror(-ret), kprof_bpf_libbpf_why());
	}
	return 0;
}

int kprof_cuda_bpf_open(const struct kprof_cuda_target *t, kprof_cuda_cb cb, void *ctx,
			struct kprof_cuda_uprobes **out, struct kprof_err *err)
{
	struct kprof_cuda_uprobes *b;
	struct bpf_link *l;
	uint32_t tgid = (uint32_t)t->tgid;
	uint8_t one = 1;
	int ret;

	*out = NULL;
	if (!t->lib || access(t->lib, R_OK))
		return kprof_err_set(err, ENOENT, "libcuda %s: %s", t->lib ? t->lib : "(none)",
				     t->lib ? strerror(errno) : "no path given");
	ret = kprof_bpf_prepare(t->ring_bytes, err);
	if (ret)
		return ret;
	b = calloc(1, sizeof(*b));
	if (!b)
		return kprof_err_set(err, ENOMEM, "out of memory");
	b->cb = cb;
	b->ctx = ctx;
	b->skel = kprof_cuda_bpf__open();
	if (!b->skel) {
		ret = -errno;
		kprof_err_set(err, -ret, "cannot open the CUDA BPF programs: %s", strerror(-ret));
		goto fail;
	}
	b->skel->rodata->all_tgids = !t->tgid;
	b->skel->rodata->follow_forks = !!t->follow_forks;
	/* the fork hook is only needed when following forks */
	bpf_program__set_autoload(b->skel->progs.on_fork, t->tgid && t->follow_forks);
	ret = kprof_bpf_ring_size(b->skel->maps.events, t->ring_bytes);
	if (!ret)
		ret = kprof_cuda_bpf__load(b->skel);
	if (ret) {
		if (kprof_bpf_denied(ret))
			kprof_bpf_eperm_error(err);
		else
			kprof_err_set(err, -ret, "cannot load the CUDA BPF programs: %s%s",
				      strerror(-ret), kprof_bpf_libbpf_why());
		goto fail;
	}
	if (t->tgid && bpf_map__update_elem(b->skel->maps.tgids, &tgid, sizeof(tgid), &one,
					    sizeof(one), BPF_ANY)) {
		ret = -errno;
		kprof_err_set(err, -ret, "cannot add process %u to the traced set: %s", tgid,
			      strerror(-ret));
		goto fail;
	}
	if (t->tgid && t->follow_forks) {
		l = bpf_program__attach(b->skel->progs.on_fork);
		if (!l) {
			ret = -errno;
			kprof_err_set(err, -ret,
				      "cannot attach to sched_process_fork (to follow the workload's child processes): %s",
				      strerror(-ret));
			goto fail;
		}
		b->links[b->nlinks++] = l;
	}
	ret = attach_all(b, t->lib, err);
	if (ret)
		goto fail;
	ret = kprof_bpf_ring_new(b->skel->maps.events, ring_event, b, &b->rb, err);
	if (ret)
		goto fail;
	*out = b;
	return 0;
fail:
	kprof_cuda_bpf_close(b);
	return ret < 0 ? ret : -EINVAL;
}

int kprof_cuda_bpf_fd(const struct kprof_cuda_uprobes *b)
{
	return ring_buffer__epoll_fd(b->rb);
}

int kprof_cuda_bpf_consume(struct kprof_cuda_uprobes *b)
{
	return ring_buffer__consume(b->rb);
}

int kprof_cuda_bpf_stats(const struct kprof_cuda_uprobes *b, struct kprof_cuda_bpf_stats *st)
{
	uint64_t sum[KPROF_CUDA_STAT_NR];
	int ret = kprof_bpf_percpu_sum(b->skel->maps.stats, sum, KPROF_CUDA_STAT_NR);

	if (ret)
		return ret;
	memset(st, 0, sizeof(*st));
	st->type = KPROF_HREC_CUDA_STATS;
	st->size = sizeof(*st);
	st->events = sum[KPROF_STAT_EVENTS];
	st->reserve_failed = sum[KPROF_STAT_RESERVE_FAILED];
	st->unmatched_exit = sum[KPROF_STAT_UNMATCHED_EXIT];
	st->nested = sum[KPROF_CUDA_STAT_NESTED];
	st->inflight_full = sum[KPROF_CUDA_STAT_INFLIGHT_FULL];
	st->tgid_full = sum[KPROF_CUDA_STAT_TGID_FULL];
	return 0;
}

const char *kprof_cuda_bpf_missing(const struct kprof_cuda_uprobes *b)
{
	return b->missing;
}

void kprof_cuda_bpf_close(struct kprof_cuda_uprobes *b)
{
	if (!b)
		return;
	ring_buffer__free(b->rb);
	for (size_t i = 0; i < b->nlinks; i++)
		bpf_link__destroy(b->links[i]);
	kprof_cuda_bpf__destroy(b->skel);
	free(b);
}
