// SPDX-License-Identifier: GPL-2.0
/*
 * kprof_gpu_route: an agent spool of a process that drove three GPUs
 * (CUDA ordinals 0, 1, 2; the capture takes two of them, listed in
 * another order than the ordinals) split over the captured GPUs' spools:
 * each kernel and copy in its own GPU's spool, each launch call with its
 * op, the process's other records in both, the third GPU's ops and an
 * undescribed ordinal's counted, not written. Then a process of one GPU:
 * all its records there, nothing elsewhere. UUIDs as NVML prints them.
 */
#include "kt.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "kprof_gpu_route.h"
#include "kprof_outdir.h"
#include "kprof_rec.h"
#include "kprof_spool.h"
#include <linux/kprof.h>
#include <kprof/gpu_rec.h>

static char *dir;

static const uint8_t U[3][16] = {
	{ 0x8b, 0x1e, 0x5c, 0x0a, 0x11, 0x22, 0x33, 0x44,
	  0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc },
	{ 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
	  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10 },
	{ 0xf0, 0xe1, 0xd2, 0xc3, 0xb4, 0xa5, 0x96, 0x87,
	  0x78, 0x69, 0x5a, 0x4b, 0x3c, 0x2d, 0x1e, 0x0f },
};

static void uuid_str(void)
{
	char s[KPROF_DEVICE_UUID_LEN];

	kprof_gpu_uuid_str(U[1], s, sizeof(s));
	KT_STR(s, "GPU-01020304-0506-0708-090a-0b0c0d0e0f10");
	kprof_gpu_uuid_str(U[0], s, sizeof(s));
	KT_STR(s, "GPU-8b1e5c0a-1122-3344-5566-778899aabbcc");
}

struct w {
	struct kprof_spool_writer *sw;
};

static void put(struct w *w, const void *rec, size_t len)
{
	struct kprof_err err = { 0 };

	KT_CHECK(!kprof_spool_append(w->sw, rec, len, &err), "append: %s", err.msg);
}

static void device(struct w *w, uint32_t ord, const uint8_t *u)
{
	struct kprof_grec_device d = { .type = KPROF_GREC_DEVICE, .size = sizeof(d),
				       .ordinal = ord };

	memcpy(d.uuid, u, 16);
	put(w, &d, sizeof(d));
}

static void launch(struct w *w, uint32_t corr)
{
	struct kprof_grec_api a = { .type = KPROF_GREC_API, .size = sizeof(a),
				    .start_ns = corr * 100, .end_ns = corr * 100 + 10,
				    .correlation = corr, .role = KPROF_GROLE_LAUNCH,
				    .domain = KPROF_GDOMAIN_DRIVER };

	put(w, &a, sizeof(a));
}

static void kernel(struct w *w, uint32_t corr, uint32_t ord)
{
	struct kprof_grec_kernel k = { .type = KPROF_GREC_KERNEL, .size = sizeof(k),
				       .start_ns = corr * 100 + 20, .end_ns = corr * 100 + 50,
				       .correlation = corr, .device = ord };

	put(w, &k, sizeof(k));
}

/* What a routed spool holds: records per type, and the ops' and launches' ids. */
struct got {
	int agent, device, api_sync, name;
	uint32_t kernels[16], copies[16], launches[16];
	int nk, nc, nl;
};

static int read_spool(const char *sub, struct got *g)
{
	char path[512];
	struct kprof_err err = { 0 };
	struct kprof_spool_reader *r;
	const struct kprof_rec_hdr *h;

	memset(g, 0, sizeof(*g));
	snprintf(path, sizeof(path), "%s/%s/gpu-42.kspool", dir, sub);
	r = kprof_spool_open(path, &err);
	if (!r)
		return -1;
	while (kprof_spool_next(r, &h, &err) == KPROF_REC_OK) {
		switch (h->type) {
		case KPROF_GREC_AGENT:
			g->agent++;
			break;
		case KPROF_GREC_DEVICE:
			g->device++;
			break;
		case KPROF_GREC_NAME:
			g->name++;
			break;
		case KPROF_GREC_KERNEL: {
			const struct kprof_grec_kernel *k = (const void *)h;

			if (g->nk < 16)
				g->kernels[g->nk++] = k->correlation;
			break;
		}
		case KPROF_GREC_COPY: {
			const struct kprof_grec_copy *c = (const void *)h;

			if (g->nc < 16)
				g->copies[g->nc++] = c->correlation;
			break;
		}
		case KPROF_GREC_API: {
			const struct kprof_grec_api *a = (const void *)h;

			if (a->role == KPROF_GROLE_SYNC)
				g->api_sync++;
			else if (g->nl < 16)
				g->launches[g->nl++] = a->correlation;
			break;
		}
		}
	}
	kprof_spool_free(r);
	return 0;
}

static struct kprof_outdir *od(const char *sub)
{
	char path[512];
	struct kprof_err err = { 0 };
	struct kprof_outdir *o;

	snprintf(path, sizeof(path), "%s/%s", dir, sub);
	o = kprof_outdir_open(path, 0, (uid_t)-1, (gid_t)-1, &err);
	KT_CHECK(o, "%s: %s", path, err.msg);
	return o;
}

static void three_gpus(void)
{
	struct kprof_outdir *in = od("in"), *raws[2] = { od("a"), od("b") };
	struct kprof_err err = { 0 };
	struct kprof_gpu_route_stats st;
	char ua[KPROF_DEVICE_UUID_LEN], ub[KPROF_DEVICE_UUID_LEN];
	const char *uuids[2] = { ua, ub };
	struct kprof_grec_agent ag = { .type = KPROF_GREC_AGENT, .size = sizeof(ag),
				       .event = KPROF_GAGENT_START, .pid = 42 };
	struct kprof_grec_name nm = { .type = KPROF_GREC_NAME, .size = sizeof(nm) };
	struct kprof_grec_api sync = { .type = KPROF_GREC_API, .size = sizeof(sync),
				       .role = KPROF_GROLE_SYNC, .correlation = 99 };
	struct kprof_grec_copy cp = { .type = KPROF_GREC_COPY, .size = sizeof(cp),
				      .correlation = 5, .device = 1, .bytes = 64 };
	struct w w = { kprof_spool_create_in(in, "gpu-42.kspool", KPROF_SPOOL_GPU, NULL, NULL,
					     &err) };
	struct got a, b;
	int fd;

	KT_CHECK(w.sw, "spool: %s", err.msg);
	if (!w.sw)
		return;
	/* captured: a = ordinal 1's GPU, b = ordinal 0's (in upper case) */
	kprof_gpu_uuid_str(U[1], ua, sizeof(ua));
	kprof_gpu_uuid_str(U[0], ub, sizeof(ub));
	for (char *p = ub + 4; *p; p++)
		*p = (char)toupper((unsigned char)*p);
	put(&w, &ag, sizeof(ag));
	device(&w, 0, U[0]);
	device(&w, 1, U[1]);
	device(&w, 2, U[2]);
	put(&w, &nm, sizeof(nm));
	for (uint32_t c = 1; c <= 5; c++)
		launch(&w, c);
	put(&w, &sync, sizeof(sync));
	kernel(&w, 1, 0);	/* -> b */
	kernel(&w, 2, 1);	/* -> a */
	kernel(&w, 3, 2);	/* a GPU not captured */
	kernel(&w, 4, 7);	/* an ordinal never described */
	put(&w, &cp, sizeof(cp));	/* corr 5 on ordinal 1 -> a */
	KT_CHECK(!kprof_spool_close(w.sw, &err), "close: %s", err.msg);

	fd = open(dir, O_RDONLY | O_DIRECTORY);
	KT_CHECK(!kprof_gpu_route(fd, "in/gpu-42.kspool", "in/gpu-42.kspool", uuids, raws, 2,
				  &st, &err), "route: %s", err.msg);
	close(fd);
	KT_EQ_U64(st.pid, 42);
	KT_EQ_U64(st.targets, 3);
	KT_EQ_U64(st.ops[0], 2);	/* kernel 2, copy 5 */
	KT_EQ_U64(st.ops[1], 1);	/* kernel 1 */
	KT_EQ_U64(st.foreign, 1);
	KT_EQ_U64(st.unmapped, 1);
	KT_EQ_U64(st.nforeign, 1);
	KT_STR(st.foreign_uuid[0], "GPU-f0e1d2c3-b4a5-9687-7869-5a4b3c2d1e0f");
	KT_CHECK(!read_spool("a", &a) && !read_spool("b", &b), "routed spools there");
	KT_CHECK(a.nk == 1 && a.kernels[0] == 2, "a: kernel 2 only (%d)", a.nk);
	KT_CHECK(a.nc == 1 && a.copies[0] == 5, "a: copy 5 (%d)", a.nc);
	KT_CHECK(a.nl == 2 && a.launches[0] == 2 && a.launches[1] == 5,
		 "a: launches 2 and 5 (%d)", a.nl);
	KT_CHECK(b.nk == 1 && b.kernels[0] == 1 && b.nc == 0, "b: kernel 1 only (%d)", b.nk);
	KT_CHECK(b.nl == 1 && b.launches[0] == 1, "b: launch 1 (%d)", b.nl);
	KT_CHECK(a.agent == 1 && b.agent == 1 && a.name == 1 && b.name == 1 &&
		 a.api_sync == 1 && b.api_sync == 1 && a.device == 3 && b.device == 3,
		 "the process's own records in both");
	kprof_outdir_close(in);
	kprof_outdir_close(raws[0]);
	kprof_outdir_close(raws[1]);
}

/* One GPU, the second of the capture: everything there; none for the first. */
static void one_gpu(void)
{
	struct kprof_outdir *in = od("in2"), *raws[2] = { od("c"), od("d") };
	struct kprof_err err = { 0 };
	struct kprof_gpu_route_stats st;
	char ua[KPROF_DEVICE_UUID_LEN], ub[KPROF_DEVICE_UUID_LEN];
	const char *uuids[2] = { ua, ub };
	struct w w = { kprof_spool_create_in(in, "gpu-42.kspool", KPROF_SPOOL_GPU, NULL, NULL,
					     &err) };
	struct got c, d;
	int fd;

	if (!w.sw)
		return;
	kprof_gpu_uuid_str(U[0], ua, sizeof(ua));
	kprof_gpu_uuid_str(U[1], ub, sizeof(ub));
	device(&w, 0, U[1]);	/* CUDA_VISIBLE_DEVICES=1: ordinal 0 is the second GPU */
	for (uint32_t k = 1; k <= 3; k++) {
		launch(&w, k);
		kernel(&w, k, 0);
	}
	KT_CHECK(!kprof_spool_close(w.sw, &err), "close: %s", err.msg);
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	KT_CHECK(!kprof_gpu_route(fd, "in2/gpu-42.kspool", NULL, uuids, raws, 2, &st, &err),
		 "route: %s", err.msg);
	close(fd);
	KT_EQ_U64(st.targets, 2);
	KT_EQ_U64(st.ops[1], 3);
	KT_EQ_U64(st.foreign + st.unmapped, 0);
	KT_CHECK(read_spool("c", &c) == -1, "no spool for a GPU the process did not use");
	KT_CHECK(!read_spool("d", &d) && d.nk == 3 && d.nl == 3, "d: all (%d, %d)", d.nk, d.nl);
	kprof_outdir_close(in);
	kprof_outdir_close(raws[0]);
	kprof_outdir_close(raws[1]);
}

int main(void)
{
	dir = kt_tmpdir();
	uuid_str();
	if (dir) {
		three_gpus();
		one_gpu();
		kt_rmrf(dir);
	}
	return kt_done("test_gpu_route");
}
