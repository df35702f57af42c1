// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Loader for bpf/kprof_ioctl.bpf.c: fills the rodata filters, picks the
 * cheapest hook that loads and attaches on the running kernel, and reads
 * the ring buffer and the loss counters.
 *
 * Probing is by trying: each hook kind is loaded and attached in a fresh
 * skeleton; on failure the reason is kept for the fallback log and the
 * next kind is tried. Only EPERM stops the search, since no other hook
 * would load either.
 */
#include "kprof_bpf.h"
#include "kprof_array_size.h"
#include "kprof_bpf_common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "../../bpf/kprof_ioctl.h"	/* stat indexes, shared with the BPF side */
#include "kprof_ioctl.skel.h"

struct kprof_bpf {
	struct kprof_ioctl_bpf *skel;
	struct bpf_link *links[2];
	struct ring_buffer *rb;
	kprof_bpf_cb cb;
	void *ctx;
	enum kprof_bpf_hook hook;
	char hook_name[128];
	char fallback_log[1024];
};

const char *kprof_bpf_hook_kind_name(enum kprof_bpf_hook h)
{
	switch (h) {
	case KPROF_BPF_HOOK_AUTO:
		return "auto";
	case KPROF_BPF_HOOK_HANDLER:
		return "handler";
	case KPROF_BPF_HOOK_LSM:
		return "lsm";
	case KPROF_BPF_HOOK_TP:
		return "tp";
	case KPROF_BPF_HOOK_RAWTP:
		return "rawtp";
	}
	return "?";
}

int kprof_bpf_hook_parse(const char *s, enum kprof_bpf_hook *out)
{
	static const enum kprof_bpf_hook all[] = {
		KPROF_BPF_HOOK_AUTO, KPROF_BPF_HOOK_HANDLER,
		KPROF_BPF_HOOK_LSM, KPROF_BPF_HOOK_TP, KPROF_BPF_HOOK_RAWTP,
	};

	for (size_t i = 0; i < ARRAY_SIZE(all); i++) {
		if (!strcmp(s, kprof_bpf_hook_kind_name(all[i]))) {
			*out = all[i];
			return 0;
		}
	}
	return -1;
}

static int ring_event(void *ctx, void *data, size_t size)
{
	struct kprof_bpf *b = ctx;

	if (!kprof_bpf_rec_ok(data, size, KPROF_HREC_IOCTL, sizeof(struct kprof_host_event)))
		return -EPROTO;
	return b->cb ? b->cb(data, b->ctx) : 0;
}

static void detach(struct kprof_bpf *b)
{
	for (size_t i = 0; i < 2; i++) {
		bpf_link__destroy(b->links[i]);
		b->links[i] = NULL;
	}
	kprof_ioctl_bpf__destroy(b->skel);
	b->skel = NULL;
}

static void set_filters(struct kprof_ioctl_bpf *s, const struct kprof_bpf_target *t)
{
	uint32_t mask = t->cmd_mask ? t->cmd_mask : ~0U;

	/* The kernel's dev_t encoding (MKDEV), not glibc's. */
	s->rodata->targ_dev = (major(t->dev) << 20) | minor(t->dev);
	s->rodata->targ_tgid = (uint32_t)t->tgid;
	s->rodata->cmd_mask = mask;
	s->rodata->launch_cmd = t->launch_cmd & mask;
	s->rodata->sync_cmd = t->sync_cmd & mask;
	s->rodata->launch_seq_off = t->launch_seq_off;
	s->rodata->launch_seq_size = t->launch_seq_size;
	s->rodata->sync_seq_off = t->sync_seq_off;
	s->rodata->sync_seq_size = t->sync_seq_size;
}

/*
 * One attempt with one hook kind, in a fresh skeleton with only that
 * kind's two programs autoloaded. Returns 0 or -errno with *why set.
 */
static int try_hook(struct kprof_bpf *b, const struct kprof_bpf_target *t,
		    enum kprof_bpf_hook hook, char *why, size_t whylen)
{
	struct bpf_program *progs[2], *p;
	struct kprof_ioctl_bpf *s;
	const char *stage = "open";
	int ret;

	kprof_bpf_libbpf_clear();
	s = kprof_ioctl_bpf__open();
	if (!s) {
		ret = -errno;
		goto fail;
	}
	b->skel = s;
	switch (hook) {
	case KPROF_BPF_HOOK_HANDLER:
		progs[0] = s->progs.kp_handler_enter;
		progs[1] = s->progs.kp_handler_exit;
		if (!t->handler || !t->handler[0]) {
			snprintf(why, whylen, "no handler function known for this driver");
			ret = -ENOENT;
			goto fail_quiet;
		}
		if (libbpf_probe_bpf_prog_type(BPF_PROG_TYPE_TRACING, NULL) == 0) {
			snprintf(why, whylen,
				 "kernel refuses fentry/fexit programs (libbpf tracing-type probe)");
			ret = -EOPNOTSUPP;
			goto fail_quiet;
		}
		stage = "set attach target";
		ret = bpf_program__set_attach_target(progs[0], 0, t->handler);
		if (!ret)
			ret = bpf_program__set_attach_target(progs[1], 0, t->handler);
		if (ret == -ESRCH) {
			snprintf(why, whylen,
				 "no BTF for %s in the kernel or any loaded module (a module built without BTF, e.g. no pahole or no vmlinux in its KDIR, has none)",
				 t->handler);
			goto fail_quiet;
		}
		if (ret)
			goto fail;
		snprintf(b->hook_name, sizeof(b->hook_name), "fentry/fexit:%s", t->handler);
		break;
	case KPROF_BPF_HOOK_LSM:
		progs[0] = s->progs.kp_lsm_enter;
		progs[1] = s->progs.kp_sys_ioctl_exit;
		snprintf(b->hook_name, sizeof(b->hook_name),
			 "fentry:security_file_ioctl+fexit:__x64_sys_ioctl");
		break;
	case KPROF_BPF_HOOK_RAWTP:
		progs[0] = s->progs.kp_raw_enter;
		progs[1] = s->progs.kp_raw_exit;
		snprintf(b->hook_name, sizeof(b->hook_name),
			 "tp_btf:sys_enter+sys_exit");
		break;
	case KPROF_BPF_HOOK_TP:
	default:
		progs[0] = s->progs.kp_tp_enter;
		progs[1] = s->progs.kp_tp_exit;
		snprintf(b->hook_name, sizeof(b->hook_name),
			 "tracepoint:syscalls:sys_enter_ioctl+sys_exit_ioctl");
		break;
	}
	bpf_object__for_each_program(p, s->obj)
		bpf_program__set_autoload(p, p == progs[0] || p == progs[1]);
	set_filters(s, t);
	stage = "size ring buffer";
	ret = kprof_bpf_ring_size(s->maps.events, t->ring_bytes);
	if (ret)
		goto fail;
	stage = "load";
	ret = kprof_ioctl_bpf__load(s);
	if (ret)
		goto fail;
	stage = "attach";
	for (size_t i = 0; i < 2; i++) {
		b->links[i] = bpf_program__attach(progs[i]);
		if (!b->links[i]) {
			ret = -errno;
			goto fail;
		}
	}
	b->hook = hook;
	return 0;
fail:
	if (!ret)
		ret = -EINVAL;
	snprintf(why, whylen, "%s failed: %s%s", stage, strerror(-ret), kprof_bpf_libbpf_why());
	if (ret == -ENOENT && hook == KPROF_BPF_HOOK_TP && !strcmp(stage, "attach"))
		strncat(why, "; is tracefs mounted? mount -t tracefs nodev /sys/kernel/tracing",
			whylen - strlen(why) - 1);
fail_quiet:
	detach(b);
	b->hook_name[0] = '\0';
	return ret;
}

int kprof_bpf_open(const struct kprof_bpf_target *t, kprof_bpf_cb cb, void *ctx,
		   struct kprof_bpf **out, struct kprof_err *err)
{
	static const enum kprof_bpf_hook order[] = {
		KPROF_BPF_HOOK_HANDLER, KPROF_BPF_HOOK_LSM, KPROF_BPF_HOOK_TP,
		KPROF_BPF_HOOK_RAWTP,
	};
	struct kprof_bpf *b;
	char why[384];
	size_t len;
	int ret;

	*out = NULL;
	if (!t->launch_cmd)
		return kprof_err_set(err, EINVAL, "BPF target has no launch ioctl command");
	if ((t->launch_seq_size && t->launch_seq_size != 4 && t->launch_seq_size != 8) ||
	    (t->sync_seq_size && t->sync_seq_size != 4 && t->sync_seq_size != 8))
		return kprof_err_set(err, EINVAL, "seq field size must be 0, 4 or 8 bytes");
	ret = kprof_bpf_prepare(t->ring_bytes, err);
	if (ret)
		return ret;
	ret = -ENOENT;	/* what the hook loop returns if no hook is tried */
	b = calloc(1, sizeof(*b));
	if (!b)
		return kprof_err_set(err, ENOMEM, "out of memory");
	b->cb = cb;
	b->ctx = ctx;

	for (size_t i = 0; i < ARRAY_SIZE(order); i++) {
		if (t->hook != KPROF_BPF_HOOK_AUTO && t->hook != order[i])
			continue;
		ret = try_hook(b, t, order[i], why, sizeof(why));
		if (!ret)
			break;
		/*
		 * Without the capabilities no hook loads: say which is missing.
		 * With them, EPERM is kernel policy for this hook kind (e.g. a
		 * kernel that refuses fentry trampolines): try the next one.
		 */
		if (kprof_bpf_denied(ret)) {
			kprof_bpf_close(b);
			return kprof_bpf_eperm_error(err);
		}
		if (ret == -EPERM)
			strncat(why,
				" despite CAP_BPF+CAP_PERFMON: kernel policy (lockdown, BPF LSM)",
				sizeof(why) - strlen(why) - 1);
		len = strlen(b->fallback_log);
		snprintf(b->fallback_log + len, sizeof(b->fallback_log) - len, "%s%s: %s",
			 len ? "; " : "", kprof_bpf_hook_kind_name(order[i]), why);
	}
	if (ret) {
		/* Capabilities are there (checked above): the kernel lacks the hooks. */
		kprof_err_set(err, EOPNOTSUPP,
			      "no BPF ioctl hook could be attached on this kernel: %s",
			      b->fallback_log);
		kprof_bpf_close(b);
		return -EOPNOTSUPP;
	}
	ret = kprof_bpf_ring_new(b->skel->maps.events, ring_event, b, &b->rb, err);
	if (ret) {
		kprof_bpf_close(b);
		return ret;
	}
	*out = b;
	return 0;
}

int kprof_bpf_fd(const struct kprof_bpf *b)
{
	return ring_buffer__epoll_fd(b->rb);
}

int kprof_bpf_consume(struct kprof_bpf *b)
{
	return ring_buffer__consume(b->rb);
}

int kprof_bpf_stats(const struct kprof_bpf *b, struct kprof_host_bpf_stats *st)
{
	uint64_t sum[KPROF_BPF_STAT_NR];
	int ret = kprof_bpf_percpu_sum(b->skel->maps.stats, sum, KPROF_BPF_STAT_NR);

	if (ret)
		return ret;
	memset(st, 0, sizeof(*st));
	st->type = KPROF_HREC_BPF_STATS;
	st->size = sizeof(*st);
	st->events = sum[KPROF_STAT_EVENTS];
	st->reserve_failed = sum[KPROF_STAT_RESERVE_FAILED];
	/* An entry that could not be stored loses its exit the same way. */
	st->unmatched_exit = sum[KPROF_STAT_UNMATCHED_EXIT] +
			     sum[KPROF_BPF_STAT_INFLIGHT_FULL];
	return 0;
}

const char *kprof_bpf_hook_name(const struct kprof_bpf *b)
{
	return b->hook_name;
}

const char *kprof_bpf_fallback_log(const struct kprof_bpf *b)
{
	return b->fallback_log;
}

void kprof_bpf_close(struct kprof_bpf *b)
{
	if (!b)
		return;
	ring_buffer__free(b->rb);
	detach(b);
	free(b);
}
