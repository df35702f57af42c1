// SPDX-License-Identifier: GPL-2.0
/*
 * kprof_cupti_conv: CUPTI activity records (hand-made, in the layouts
 * kprof_cupti.h declares) -> the agent's spool records.
 */
#include "kt.h"

#include "kprof_cupti_conv.h"

static struct kprof_conv conv;
static uint8_t out[2 * KPROF_CONV_MAX_BYTES];

static void test_roles(void)
{
	KT_EQ_U64(kprof_conv_api_role("cudaLaunchKernel_v7000"), KPROF_GROLE_LAUNCH);
	KT_EQ_U64(kprof_conv_api_role("cudaLaunchKernel_ptsz_v7000"), KPROF_GROLE_LAUNCH);
	KT_EQ_U64(kprof_conv_api_role("cuLaunchKernel"), KPROF_GROLE_LAUNCH);
	KT_EQ_U64(kprof_conv_api_role("cuLaunchKernel_ptsz"), KPROF_GROLE_LAUNCH);
	KT_EQ_U64(kprof_conv_api_role("cuLaunchKernelEx"), KPROF_GROLE_LAUNCH);
	KT_EQ_U64(kprof_conv_api_role("cudaGraphLaunch_v10000"), KPROF_GROLE_LAUNCH);
	KT_EQ_U64(kprof_conv_api_role("cuMemcpyHtoDAsync_v2_ptsz"), KPROF_GROLE_LAUNCH);
	KT_EQ_U64(kprof_conv_api_role("cuMemsetD8_v2"), KPROF_GROLE_LAUNCH);
	KT_EQ_U64(kprof_conv_api_role("cudaMemcpy_v3020"), KPROF_GROLE_LAUNCH);
	KT_EQ_U64(kprof_conv_api_role("cudaMemsetAsync_ptsz_v7000"), KPROF_GROLE_LAUNCH);
	KT_EQ_U64(kprof_conv_api_role("cudaDeviceSynchronize_v3020"), KPROF_GROLE_SYNC);
	KT_EQ_U64(kprof_conv_api_role("cudaStreamSynchronize_ptsz_v7000"), KPROF_GROLE_SYNC);
	KT_EQ_U64(kprof_conv_api_role("cuCtxSynchronize_v2"), KPROF_GROLE_SYNC);
	KT_EQ_U64(kprof_conv_api_role("cuEventSynchronize"), KPROF_GROLE_SYNC);
	/* an event's sync covers no op (KPROF_HEVF_NO_COVER); the others may */
	KT_EQ_U64(kprof_conv_api_event_sync("cuEventSynchronize"), 1);
	KT_EQ_U64(kprof_conv_api_event_sync("cudaEventSynchronize_v3020"), 1);
	KT_EQ_U64(kprof_conv_api_event_sync("cuStreamSynchronize_ptsz"), 0);
	KT_EQ_U64(kprof_conv_api_event_sync("cuCtxSynchronize"), 0);
	KT_EQ_U64(kprof_conv_api_event_sync("cuEventRecord"), 0);
	/* not work, not waits */
	KT_EQ_U64(kprof_conv_api_role("cudaMalloc_v3020"), 0);
	KT_EQ_U64(kprof_conv_api_role("cuStreamWaitEvent"), 0);
	KT_EQ_U64(kprof_conv_api_role("cudaEventQuery_v3020"), 0);
	KT_EQ_U64(kprof_conv_api_role("cuLaunchHostFunc"), 0);
	KT_EQ_U64(kprof_conv_api_role("cuMemAlloc_v2"), 0);
	KT_EQ_U64(kprof_conv_api_role(""), 0);
	KT_EQ_U64(kprof_conv_api_role(NULL), 0);
	/* a suffix that only looks like a version is part of the name */
	KT_EQ_U64(kprof_conv_api_role("cuLaunchKernel_vx"), 0);
	/* the calls a kernel's queued timestamp stands in for */
	KT_EQ_U64(kprof_conv_api_kernel_launch("cuLaunchKernel_ptsz"), 1);
	KT_EQ_U64(kprof_conv_api_kernel_launch("cudaLaunchKernel_v7000"), 1);
	KT_EQ_U64(kprof_conv_api_kernel_launch("cuLaunchKernelEx"), 1);
	KT_EQ_U64(kprof_conv_api_kernel_launch("cuGraphLaunch"), 0);
	KT_EQ_U64(kprof_conv_api_kernel_launch("cuMemcpyHtoDAsync_v2"), 0);
	KT_EQ_U64(kprof_conv_api_kernel_launch("cuCtxSynchronize"), 0);
	KT_EQ_U64(kprof_conv_api_kernel_launch("cuLaunchHostFunc"), 0);
}

static void kernel(struct kprof_cupti_kernel *k, const char *name, uint32_t corr)
{
	memset(k, 0, sizeof(*k));
	k->kind = KPROF_CUPTI_KIND_CONCURRENT_KERNEL;
	k->registers_per_thread = 40;
	k->start = 1000;
	k->end = 3500;
	k->device_id = 1;
	k->context_id = 2;
	k->stream_id = 13;
	k->grid_x = 4;
	k->grid_y = 2;
	k->grid_z = 1;
	k->block_x = 128;
	k->block_y = 1;
	k->block_z = 1;
	k->static_shared_memory = 1024;
	k->dynamic_shared_memory = 512;
	k->correlation_id = corr;
	k->name = name;
}

static void test_kernel(void)
{
	static const char n1[] = "_Z4spinv", n2[] = "other";
	struct kprof_cupti_kernel k;
	const struct kprof_grec_name *nm = (const void *)out;
	const struct kprof_grec_kernel *g;
	size_t n;
	uint32_t id;

	kernel(&k, n1, 7);
	n = kprof_cupti_conv(&conv, (void *)&k, out);
	/* first use of the name: NAME, then KERNEL */
	KT_EQ_U64(nm->type, KPROF_GREC_NAME);
	KT_EQ_U64(nm->kind, KPROF_GNAME_KERNEL);
	KT_EQ_U64(nm->len, strlen(n1));
	KT_STR(nm->text, n1);
	KT_EQ_U64(nm->size % 8, 0);
	KT_CHECK(nm->size >= sizeof(*nm) + strlen(n1) + 1, "name fits its record");
	id = nm->id;
	KT_CHECK(id < KPROF_GNAME_SLOTS, "slot %u", id);
	g = (const void *)(out + nm->size);
	KT_EQ_U64(n, nm->size + sizeof(*g));
	KT_EQ_U64(g->type, KPROF_GREC_KERNEL);
	KT_EQ_U64(g->size, sizeof(*g));
	KT_EQ_U64(g->start_ns, 1000);
	KT_EQ_U64(g->end_ns, 3500);
	KT_EQ_U64(g->correlation, 7);
	KT_EQ_U64(g->device, 1);
	KT_EQ_U64(g->context, 2);
	KT_EQ_U64(g->stream, 13);
	KT_EQ_U64(g->grid[0] * g->grid[1] * g->grid[2], 8);
	KT_EQ_U64(g->block[0], 128);
	KT_EQ_U64(g->static_smem, 1024);
	KT_EQ_U64(g->dynamic_smem, 512);
	KT_EQ_U64(g->registers, 40);
	KT_EQ_U64(g->name_id, id);
	KT_EQ_U64(g->reserved0, 0);
	KT_EQ_U64(g->queued_ns, 0);	/* latency timestamps off: unknown */
	KT_EQ_U64(g->submitted_ns, 0);
	/* latency timestamps: carried over; all ones (unknown) as 0 */
	k.queued = 900;
	k.submitted = UINT64_MAX;
	kprof_cupti_conv(&conv, (void *)&k, out);
	g = (const void *)out;
	KT_EQ_U64(g->queued_ns, 900);
	KT_EQ_U64(g->submitted_ns, 0);
	k.queued = 0;
	/* the same name pointer again: no NAME */
	k.correlation_id = 8;
	n = kprof_cupti_conv(&conv, (void *)&k, out);
	KT_EQ_U64(n, sizeof(*g));
	g = (const void *)out;
	KT_EQ_U64(g->name_id, id);
	KT_EQ_U64(g->correlation, 8);
	/* another name: another slot */
	kernel(&k, n2, 9);
	n = kprof_cupti_conv(&conv, (void *)&k, out);
	KT_EQ_U64(nm->type, KPROF_GREC_NAME);
	KT_CHECK(nm->id != id, "a second name gets its own slot");
	KT_STR(nm->text, n2);
}

/* The slots are bounded: names past them evict, and an evicted name is
 * named again when it comes back.
 */
static void test_slots(void)
{
	static char names[3 * KPROF_GNAME_SLOTS][16];
	struct kprof_cupti_kernel k;
	uint64_t nname = 0;
	int again = 0;

	memset(&conv, 0, sizeof(conv));
	for (int i = 0; i < 3 * KPROF_GNAME_SLOTS; i++) {
		snprintf(names[i], sizeof(names[i]), "k%d", i);
		kernel(&k, names[i], (uint32_t)i);
		kprof_cupti_conv(&conv, (void *)&k, out);
		nname++;
	}
	/* the first name has been evicted by now (3x the slots went by) */
	for (int i = 0; i < KPROF_GNAME_SLOTS; i++) {
		const struct kprof_grec_name *nm = (const void *)out;

		kernel(&k, names[i], 0);
		kprof_cupti_conv(&conv, (void *)&k, out);
		if (nm->type == KPROF_GREC_NAME) {
			again++;
			KT_STR(nm->text, names[i]);
		}
	}
	KT_CHECK(again > 0, "evicted names are named again");
	KT_EQ_U64(nname, 3 * KPROF_GNAME_SLOTS);
}

static void test_long_name(void)
{
	static char big[KPROF_GNAME_MAX + 100];
	struct kprof_cupti_kernel k;
	const struct kprof_grec_name *nm = (const void *)out;

	memset(big, 'x', sizeof(big) - 1);
	memset(&conv, 0, sizeof(conv));
	kernel(&k, big, 1);
	kprof_cupti_conv(&conv, (void *)&k, out);
	KT_EQ_U64(nm->len, KPROF_GNAME_MAX);
	KT_EQ_U64(nm->flags, KPROF_GNAMEF_CUT);
	KT_EQ_U64(nm->text[KPROF_GNAME_MAX], 0);
	KT_CHECK(nm->size <= KPROF_CONV_MAX_BYTES, "NAME within the bound");
	/* no name at all: an empty one */
	kernel(&k, NULL, 2);
	kprof_cupti_conv(&conv, (void *)&k, out);
	KT_EQ_U64(nm->type, KPROF_GREC_NAME);
	KT_EQ_U64(nm->len, 0);
}

static char *fake_demangle(const char *name, char *buf, size_t *len, int *status)
{
	char *d = malloc(64);

	(void)buf;
	(void)len;
	snprintf(d, 64, "demangled(%s)", name);
	*status = 0;
	return d;
}

static void test_demangle(void)
{
	struct kprof_cupti_kernel k;
	const struct kprof_grec_name *nm = (const void *)out;

	memset(&conv, 0, sizeof(conv));
	conv.demangle = fake_demangle;
	kernel(&k, "_Z1fv", 1);
	kprof_cupti_conv(&conv, (void *)&k, out);
	KT_STR(nm->text, "demangled(_Z1fv)");
	/* only mangled names are handed to it */
	kernel(&k, "sm80_xmma_gemm", 2);
	kprof_cupti_conv(&conv, (void *)&k, out);
	KT_STR(nm->text, "sm80_xmma_gemm");
	conv.demangle = NULL;
}

static void test_copies(void)
{
	struct kprof_cupti_memcpy m = {
		.kind = KPROF_CUPTI_KIND_MEMCPY, .copy_kind = KPROF_GMEMCPY_DTOH, .src_kind = 3,
		.dst_kind = 1, .bytes = 4096, .start = 10, .end = 30, .device_id = 0,
		.context_id = 1, .stream_id = 7, .correlation_id = 3, .runtime_correlation_id = 99,
	};
	struct kprof_cupti_memset s = {
		.kind = KPROF_CUPTI_KIND_MEMSET, .value = 0x5a, .bytes = 64, .start = 40, .end = 41,
		.stream_id = 14, .correlation_id = 4, .memory_kind = 3,
	};
	const struct kprof_grec_copy *g = (const void *)out;

	KT_EQ_U64(kprof_cupti_conv(&conv, (void *)&m, out), sizeof(*g));
	KT_EQ_U64(g->type, KPROF_GREC_COPY);
	KT_EQ_U64(g->kind, KPROF_GCOPY_MEMCPY);
	KT_EQ_U64(g->copy_kind, KPROF_GMEMCPY_DTOH);
	KT_EQ_U64(g->src_kind, 3);
	KT_EQ_U64(g->dst_kind, 1);
	KT_EQ_U64(g->bytes, 4096);
	KT_EQ_U64(g->start_ns, 10);
	KT_EQ_U64(g->end_ns, 30);
	KT_EQ_U64(g->stream, 7);
	KT_EQ_U64(g->correlation, 3);	/* the driver's: the API records' */
	KT_EQ_U64(kprof_cupti_conv(&conv, (void *)&s, out), sizeof(*g));
	KT_EQ_U64(g->kind, KPROF_GCOPY_MEMSET);
	KT_EQ_U64(g->value, 0x5a);
	KT_EQ_U64(g->bytes, 64);
	KT_EQ_U64(g->dst_kind, 3);
	KT_EQ_U64(g->stream, 14);
	KT_EQ_U64(g->correlation, 4);
}

static void test_api(void)
{
	struct kprof_cupti_api a = {
		.kind = KPROF_CUPTI_KIND_DRIVER, .cbid = 307, .start = 100, .end = 150,
		.process_id = 42, .thread_id = 43, .correlation_id = 5, .return_value = 0,
	};
	const struct kprof_grec_api *g = (const void *)out;
	uint64_t unknown = conv.unknown, unwanted = conv.unwanted;
	struct kprof_cupti_activity other = { .kind = 9 };

	/* not classified: nothing */
	KT_EQ_U64(kprof_cupti_conv(&conv, (void *)&a, out), 0);
	KT_EQ_U64(conv.unwanted, unwanted + 1);
	conv.role[KPROF_GDOMAIN_DRIVER - 1][307] = KPROF_GROLE_LAUNCH;
	KT_EQ_U64(kprof_cupti_conv(&conv, (void *)&a, out), sizeof(*g));
	KT_EQ_U64(g->type, KPROF_GREC_API);
	KT_EQ_U64(g->domain, KPROF_GDOMAIN_DRIVER);
	KT_EQ_U64(g->role, KPROF_GROLE_LAUNCH);
	KT_EQ_U64(g->cbid, 307);
	KT_EQ_U64(g->start_ns, 100);
	KT_EQ_U64(g->end_ns, 150);
	KT_EQ_U64(g->pid, 42);
	KT_EQ_U64(g->tid, 43);
	KT_EQ_U64(g->correlation, 5);
	/* the same cbid in the other domain is another function */
	a.kind = KPROF_CUPTI_KIND_RUNTIME;
	KT_EQ_U64(kprof_cupti_conv(&conv, (void *)&a, out), 0);
	/* a cbid past the table */
	a.kind = KPROF_CUPTI_KIND_DRIVER;
	a.cbid = KPROF_CONV_MAX_CBID + 5;
	KT_EQ_U64(kprof_cupti_conv(&conv, (void *)&a, out), 0);
	/* kinds not asked for are counted */
	KT_EQ_U64(kprof_cupti_conv(&conv, &other, out), 0);
	KT_EQ_U64(conv.unknown, unknown + 1);
}

int main(void)
{
	test_roles();
	test_kernel();
	test_slots();
	test_long_name();
	test_demangle();
	test_copies();
	test_api();
	return kt_done("test_cupti_conv");
}
