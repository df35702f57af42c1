// SPDX-License-Identifier: GPL-2.0
/* Agent spools split over the captured GPUs (kprof_gpu_route.h). */
#include "kprof_gpu_route.h"
#include "kprof_rec.h"
#include "kprof_spool.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kprof.h>
#include <kprof/gpu_rec.h>

#define MAX_ORDINALS	64
#define ORD_UNKNOWN	(-1)	/* no DEVICE record */
#define ORD_FOREIGN	(-2)	/* a GPU not captured */
#define CORR_NONE	0xff	/* corr map: an op of no captured GPU */

void kprof_gpu_uuid_str(const uint8_t b[16], char *out, size_t len)
{
	static const int dash[] = { 4, 6, 8, 10 };	/* bytes before a '-' */
	size_t at = (size_t)snprintf(out, len, "GPU-");

	for (int i = 0, d = 0; i < 16 && at + 3 < len; i++) {
		if (d < 4 && i == dash[d]) {
			out[at++] = '-';
			d++;
		}
		at += (size_t)snprintf(out + at, len - at, "%02x", b[i]);
	}
	if (at < len)
		out[at] = '\0';
}

struct route {
	int ord[MAX_ORDINALS];		/* ordinal -> captured GPU k, or ORD_* */
	char ord_uuid[MAX_ORDINALS][KPROF_DEVICE_UUID_LEN];
	int others;			/* ops of no captured GPU seen */
	uint64_t *corr;			/* (correlation << 8 | k or CORR_NONE), sorted */
	size_t ncorr, cap;
};

static void device_rec(struct route *r, const struct kprof_grec_device *d,
		       const char *const *uuids, unsigned int n)
{
	char u[KPROF_DEVICE_UUID_LEN];

	if (d->ordinal >= MAX_ORDINALS || d->code)
		return;
	kprof_gpu_uuid_str(d->uuid, u, sizeof(u));
	r->ord[d->ordinal] = ORD_FOREIGN;
	snprintf(r->ord_uuid[d->ordinal], sizeof(r->ord_uuid[0]), "%s", u);
	for (unsigned int k = 0; k < n; k++)
		if (!strcasecmp(uuids[k], u))
			r->ord[d->ordinal] = (int)k;
}

/* An op's device ordinal and correlation id; 0: not an op. */
static int op_of(const struct kprof_rec_hdr *h, uint32_t *ord, uint32_t *corr)
{
	if (h->type == KPROF_GREC_KERNEL) {
		const struct kprof_grec_kernel *k = (const void *)h;

		*ord = k->device;
		*corr = k->correlation;
		return 1;
	}
	if (h->type == KPROF_GREC_COPY) {
		const struct kprof_grec_copy *c = (const void *)h;

		*ord = c->device;
		*corr = c->correlation;
		return 1;
	}
	return 0;
}

static int target_of(const struct route *r, uint32_t ord)
{
	return ord < MAX_ORDINALS ? r->ord[ord] : ORD_UNKNOWN;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Pass 1: the GPUs the process ran ops on. */
static int scan(struct kprof_spool_reader *in, struct route *r, const char *const *uuids,
		unsigned int n, struct kprof_gpu_route_stats *st, struct kprof_err *err)
{
	const struct kprof_rec_hdr *h;
	int ret;

	while ((ret = kprof_spool_next(in, &h, err)) == KPROF_REC_OK) {
		uint32_t ord, corr;
		int k;

		if (h->type == KPROF_GREC_DEVICE)
			device_rec(r, (const void *)h, uuids, n);
		else if (h->type == KPROF_GREC_AGENT && !st->pid)
			st->pid = ((const struct kprof_grec_agent *)(const void *)h)->pid;
		if (!op_of(h, &ord, &corr))
			continue;
		k = target_of(r, ord);
		if (k >= 0)
			st->targets |= 1ULL << k;
		else
			r->others = 1;
	}
	return ret < 0 ? -(err->code ? err->code : EIO) : 0;
}

/*
 * Pass 1b, a process of several GPUs or with ops of GPUs not captured:
 * each op's GPU by correlation id, for its launch call.
 */
static int scan_corr(struct kprof_spool_reader *in, struct route *r, struct kprof_err *err)
{
	const struct kprof_rec_hdr *h;
	int ret;

	while ((ret = kprof_spool_next(in, &h, err)) == KPROF_REC_OK) {
		uint32_t ord, corr;
		int k;

		if (!op_of(h, &ord, &corr))
			continue;
		k = target_of(r, ord);
		if (r->ncorr == r->cap) {
			size_t cap = r->cap ? r->cap * 2 : 4096;
			uint64_t *p = realloc(r->corr, cap * sizeof(*p));

			if (!p)
				return kprof_err_set(err, ENOMEM, "out of memory");
			r->corr = p;
			r->cap = cap;
		}
		r->corr[r->ncorr++] = (uint64_t)corr << 8 | (uint64_t)(k < 0 ? CORR_NONE : k);
	}
	if (ret < 0)
		return -(err->code ? err->code : EIO);
	qsort(r->corr, r->ncorr, sizeof(*r->corr), cmp_u64);
	return 0;
}

/* The GPU a launch call's op ran on, CORR_NONE: none captured; -1: unknown. */
static int corr_target(const struct route *r, uint32_t corr)
{
	size_t lo = 0, hi = r->ncorr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if ((r->corr[mid] >> 8) < corr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->ncorr && (r->corr[lo] >> 8) == corr ? (int)(r->corr[lo] & 0xff) : -1;
}

static void count_foreign(struct kprof_gpu_route_stats *st, const char *uuid)
{
	st->foreign++;
	for (unsigned int i = 0; i < st->nforeign; i++)
		if (!strcmp(st->foreign_uuid[i], uuid))
			return;
	if (st->nforeign < KPROF_ROUTE_FOREIGN_MAX)
		snprintf(st->foreign_uuid[st->nforeign++], sizeof(st->foreign_uuid[0]), "%s",
			 uuid);
}

/* Pass 2: every record to its spools. */
static int split(struct kprof_spool_reader *in, const struct route *r, int route_calls,
		 struct kprof_spool_writer *const *w, unsigned int n,
		 struct kprof_gpu_route_stats *st, struct kprof_err *err)
{
	const struct kprof_rec_hdr *h;
	int ret;

	while ((ret = kprof_spool_next(in, &h, err)) == KPROF_REC_OK) {
		uint32_t ord, corr;
		int k = -1;

		if (op_of(h, &ord, &corr)) {
			k = target_of(r, ord);
			if (k == ORD_UNKNOWN) {
				st->unmapped++;
				continue;
			}
			if (k == ORD_FOREIGN) {
				count_foreign(st, r->ord_uuid[ord]);
				continue;
			}
			st->ops[k]++;
		} else if (route_calls && h->type == KPROF_GREC_API &&
			   ((const struct kprof_grec_api *)(const void *)h)->role ==
			   KPROF_GROLE_LAUNCH) {
			const struct kprof_grec_api *a = (const void *)h;

			k = corr_target(r, a->correlation);
			if (k == CORR_NONE)
				continue;	/* its op is counted as foreign or unmapped */
		}
		for (unsigned int j = 0; j < n; j++) {
			if (!w[j] || (k >= 0 && (unsigned int)k != j))
				continue;
			ret = kprof_spool_append(w[j], h, h->size, err);
			if (ret)
				return ret;
		}
	}
	return ret < 0 ? -(err->code ? err->code : EIO) : 0;
}

int kprof_gpu_route(int dirfd, const char *rel, const char *shown,
		    const char *const *uuids, struct kprof_outdir *const *raws,
		    unsigned int n, struct kprof_gpu_route_stats *st, struct kprof_err *err)
{
	struct kprof_spool_writer *w[KPROF_DEVICE_LIST_MAX] = { 0 };
	struct kprof_spool_reader *in;
	const char *name = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;
	struct route *r = calloc(1, sizeof(*r));
	int ret, route_calls;

	memset(st, 0, sizeof(*st));
	if (!r)
		return kprof_err_set(err, ENOMEM, "out of memory");
	if (n > KPROF_DEVICE_LIST_MAX)
		n = KPROF_DEVICE_LIST_MAX;
	for (int i = 0; i < MAX_ORDINALS; i++)
		r->ord[i] = ORD_UNKNOWN;
	in = kprof_spool_openat(dirfd, rel, shown, err);
	if (!in) {
		free(r);
		return -(err->code ? err->code : EIO);
	}
	ret = scan(in, r, uuids, n, st, err);
	route_calls = __builtin_popcountll(st->targets) > 1 || (st->targets && r->others);
	if (!ret && route_calls) {
		ret = kprof_spool_rewind(in, err);
		if (!ret)
			ret = scan_corr(in, r, err);
	}
	for (unsigned int k = 0; k < n && !ret; k++) {
		if (!(st->targets & (1ULL << k)))
			continue;
		w[k] = kprof_spool_create_in(raws[k], name, KPROF_SPOOL_GPU, NULL, NULL, err);
		if (!w[k])
			ret = -(err->code ? err->code : EIO);
	}
	if (!ret)
		ret = kprof_spool_rewind(in, err);
	if (!ret)
		ret = split(in, r, route_calls, w, n, st, err);
	for (unsigned int k = 0; k < n; k++) {
		struct kprof_err e = { 0 };

		if (w[k] && kprof_spool_close(w[k], &e) && !ret)
			ret = kprof_err_set(err, e.code, "%s", e.msg);
	}
	kprof_spool_free(in);
	free(r->corr);
	free(r);
	return ret;
}
