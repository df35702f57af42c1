// SPDX-License-Identifier: GPL-2.0
/*
 * CUPTI activity records -> agent spool records (kprof_cupti_conv.h).
 */
#include "kprof_cupti_conv.h"
#include "kprof_array_size.h"

#include <stdlib.h>
#include <string.h>

/* "cuMemcpyHtoDAsync_v2_ptsz" -> "cuMemcpyHtoDAsync": CUPTI names carry
 * API version and per-thread-stream suffixes.
 */
static void base_name(const char *name, char *out, size_t len)
{
	size_t n = strnlen(name, len - 1);
	int again = 1;

	memcpy(out, name, n);
	out[n] = '\0';
	while (again) {
		char *u = strrchr(out, '_');
		const char *s;

		again = 0;
		if (!u || u == out)
			break;
		s = u + 1;
		if (!strcmp(s, "ptsz") || !strcmp(s, "ptds")) {
			*u = '\0';
			again = 1;
		} else if (s[0] == 'v' && s[1] >= '0' && s[1] <= '9' &&
			   strspn(s + 1, "0123456789") == strlen(s + 1)) {
			*u = '\0';
			again = 1;
		}
	}
}

static int starts(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

int kprof_conv_api_role(const char *cupti_name)
{
	static const char *const launch[] = {
		"cudaLaunchKernel", "cudaLaunchKernelExC", "cudaLaunchCooperativeKernel",
		"cudaLaunchCooperativeKernelMultiDevice", "cudaGraphLaunch",
		"cuLaunchKernel", "cuLaunchKernelEx", "cuLaunchCooperativeKernel",
		"cuLaunchCooperativeKernelMultiDevice", "cuLaunchGrid", "cuLaunchGridAsync",
		"cuGraphLaunch",
	};
	static const char *const sync[] = {
		"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize",
		"cudaThreadSynchronize", "cuCtxSynchronize", "cuStreamSynchronize",
		"cuEventSynchronize",
	};
	char b[128];

	if (!cupti_name)
		return 0;
	base_name(cupti_name, b, sizeof(b));
	for (size_t i = 0; i < ARRAY_SIZE(launch); i++)
		if (!strcmp(b, launch[i]))
			return KPROF_GROLE_LAUNCH;
	for (size_t i = 0; i < ARRAY_SIZE(sync); i++)
		if (!strcmp(b, sync[i]))
			return KPROF_GROLE_SYNC;
	/* every copy and set: cudaMemcpy*, cudaMemset*, cuMemcpy*, cuMemsetD* */
	if (starts(b, "cudaMemcpy") || starts(b, "cudaMemset") ||
	    starts(b, "cuMemcpy") || starts(b, "cuMemsetD"))
		return KPROF_GROLE_LAUNCH;
	return 0;
}

int kprof_conv_api_event_sync(const char *cupti_name)
{
	char b[128];

	if (!cupti_name)
		return 0;
	base_name(cupti_name, b, sizeof(b));
	return !strcmp(b, "cuEventSynchronize") || !strcmp(b, "cudaEventSynchronize");
}

int kprof_conv_api_kernel_launch(const char *cupti_name)
{
	char b[128];

	if (kprof_conv_api_role(cupti_name) != KPROF_GROLE_LAUNCH)
		return 0;
	base_name(cupti_name, b, sizeof(b));
	return starts(b, "cudaLaunch") || starts(b, "cuLaunch");
}

size_t kprof_conv_name(uint32_t id, uint16_t kind, const char *text, void *out)
{
	struct kprof_grec_name *n = out;
	size_t len = strlen(text), size;
	uint32_t flags = 0;

	if (len > KPROF_GNAME_MAX) {
		len = KPROF_GNAME_MAX;
		flags = KPROF_GNAMEF_CUT;
	}
	size = (sizeof(*n) + len + 1 + 7) & ~(size_t)7;
	memset(out, 0, size);
	n->type = KPROF_GREC_NAME;
	n->size = (uint16_t)size;
	n->flags = flags;
	n->id = id;
	n->kind = kind;
	n->len = (uint16_t)len;
	memcpy(n->text, text, len);
	return size;
}

/* The slot of a kernel name: one of two by the pointer's hash; *is_new
 * when the slot must be (re)named.
 */
static uint32_t name_slot(struct kprof_conv *c, const void *p, int *is_new)
{
	uint64_t h = (uint64_t)(uintptr_t)p * 0x9E3779B97F4A7C15ULL;
	uint32_t a = (uint32_t)(h >> 52) % KPROF_GNAME_SLOTS, b = a ^ 1;

	*is_new = 0;
	if (c->slot[a] == p)
		return a;
	if (c->slot[b] == p)
		return b;
	*is_new = 1;
	/* the empty one, else evict the first: its next use names it again */
	if (!c->slot[b] && c->slot[a])
		a = b;
	c->slot[a] = p;
	return a;
}

static size_t kernel_name(struct kprof_conv *c, const char *name, uint32_t id, void *out)
{
	char *d = NULL;
	size_t n;
	int st = -1;

	if (c->demangle && name[0] == '_' && name[1] == 'Z')
		d = c->demangle(name, NULL, NULL, &st);
	n = kprof_conv_name(id, KPROF_GNAME_KERNEL, d && !st ? d : name, out);
	free(d);
	return n;
}

/* A COPY record of kind: zeroed, then what a memcpy and a memset share. */
static void copy_head(struct kprof_grec_copy *g, uint8_t kind, uint64_t start, uint64_t end,
		      uint64_t bytes)
{
	memset(g, 0, sizeof(*g));
	g->type = KPROF_GREC_COPY;
	g->size = sizeof(*g);
	g->kind = kind;
	g->start_ns = start;
	g->end_ns = end;
	g->bytes = bytes;
}

static void copy_ids(struct kprof_grec_copy *g, uint32_t correlation, uint32_t device,
		     uint32_t context, uint32_t stream)
{
	g->correlation = correlation;
	g->device = device;
	g->context = context;
	g->stream = stream;
}

size_t kprof_cupti_conv(struct kprof_conv *c, const struct kprof_cupti_activity *rec,
			void *out)
{
	uint8_t *o = out;

	switch (rec->kind) {
	case KPROF_CUPTI_KIND_CONCURRENT_KERNEL: {
		static const char unnamed[] = "";
		const struct kprof_cupti_kernel *k = (const void *)rec;
		/* a NULL name is a name too (""): empty slots hold NULL */
		const char *name = k->name ? k->name : unnamed;
		struct kprof_grec_kernel g;
		size_t n = 0;
		int is_new;
		uint32_t id = name_slot(c, name, &is_new);

		if (is_new)
			n = kernel_name(c, name, id, o);
		memset(&g, 0, sizeof(g));
		g.type = KPROF_GREC_KERNEL;
		g.size = sizeof(g);
		g.start_ns = k->start;
		g.end_ns = k->end;
		g.correlation = k->correlation_id;
		g.device = k->device_id;
		g.context = k->context_id;
		g.stream = k->stream_id;
		g.grid[0] = k->grid_x;
		g.grid[1] = k->grid_y;
		g.grid[2] = k->grid_z;
		g.block[0] = k->block_x;
		g.block[1] = k->block_y;
		g.block[2] = k->block_z;
		g.static_smem = (uint32_t)k->static_shared_memory;
		g.dynamic_smem = (uint32_t)k->dynamic_shared_memory;
		g.registers = k->registers_per_thread;
		g.name_id = id;
		/* CUPTI_TIMESTAMP_UNKNOWN is 0, as ours; some report all ones */
		g.queued_ns = k->queued != UINT64_MAX ? k->queued : 0;
		g.submitted_ns = k->submitted != UINT64_MAX ? k->submitted : 0;
		memcpy(o + n, &g, sizeof(g));
		return n + sizeof(g);
	}
	case KPROF_CUPTI_KIND_MEMCPY: {
		const struct kprof_cupti_memcpy *m = (const void *)rec;
		struct kprof_grec_copy g;

		copy_head(&g, KPROF_GCOPY_MEMCPY, m->start, m->end, m->bytes);
		copy_ids(&g, m->correlation_id, m->device_id, m->context_id, m->stream_id);
		g.copy_kind = m->copy_kind;
		g.src_kind = m->src_kind;
		g.dst_kind = m->dst_kind;
		memcpy(o, &g, sizeof(g));
		return sizeof(g);
	}
	case KPROF_CUPTI_KIND_MEMSET: {
		const struct kprof_cupti_memset *m = (const void *)rec;
		struct kprof_grec_copy g;

		copy_head(&g, KPROF_GCOPY_MEMSET, m->start, m->end, m->bytes);
		copy_ids(&g, m->correlation_id, m->device_id, m->context_id, m->stream_id);
		g.dst_kind = (uint8_t)m->memory_kind;
		g.value = m->value;
		memcpy(o, &g, sizeof(g));
		return sizeof(g);
	}
	case KPROF_CUPTI_KIND_DRIVER:
	case KPROF_CUPTI_KIND_RUNTIME: {
		const struct kprof_cupti_api *a = (const void *)rec;
		int dom = rec->kind == KPROF_CUPTI_KIND_DRIVER ? KPROF_GDOMAIN_DRIVER :
							     KPROF_GDOMAIN_RUNTIME;
		int role = a->cbid < KPROF_CONV_MAX_CBID ? c->role[dom - 1][a->cbid] : 0;
		struct kprof_grec_api g;

		if (!role) {
			c->unwanted++;
			return 0;
		}
		memset(&g, 0, sizeof(g));
		g.type = KPROF_GREC_API;
		g.size = sizeof(g);
		g.start_ns = a->start;
		g.end_ns = a->end;
		g.correlation = a->correlation_id;
		g.cbid = a->cbid;
		g.pid = a->process_id;
		g.tid = a->thread_id;
		g.ret = a->return_value;
		g.domain = (uint8_t)dom;
		g.role = (uint8_t)role;
		memcpy(o, &g, sizeof(g));
		return sizeof(g);
	}
	default:
		c->unknown++;
		return 0;
	}
}
