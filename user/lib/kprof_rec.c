// SPDX-License-Identifier: GPL-2.0
/*
 * The record reader: one parser for device and host records.
 */
#include "kprof_rec.h"

#include <errno.h>
#include <string.h>

/*
 * Minimum size of each device type by number: the hot path's table, no
 * switch. PAD's entry is UINT16_MAX, which no record size passes with
 * the multiple-of-8 test, so that kprof_rec_next_fast() leaves PAD to the
 * slow path by the same one compare; min_size() gives PAD's real minimum.
 */
const uint16_t kprof_rec_dev_min[KPROF_REC_MAX + 1] = {
	[KPROF_REC_PAD] = UINT16_MAX,
	[KPROF_REC_MARKER] = sizeof(struct kprof_rec_marker),
	[KPROF_REC_LOST] = sizeof(struct kprof_rec_lost),
	[KPROF_REC_OP] = sizeof(struct kprof_rec_op),
	[KPROF_REC_COUNTERS] = sizeof(struct kprof_rec_counters),
	[KPROF_REC_SYNC] = sizeof(struct kprof_rec_sync),
	[KPROF_REC_CLOCK] = sizeof(struct kprof_rec_clock),
	[KPROF_REC_STATE] = sizeof(struct kprof_rec_state),
};

/* every device type number has its entry (none left 0) */
_Static_assert(KPROF_REC_MAX == 7, "kprof_rec_dev_min: a new type needs its entry");

/* the same for the GPU agent's types, by number from KPROF_GREC_AGENT */
const uint16_t kprof_rec_gpu_min[KPROF_REC_GPU_TYPES] = {
	[KPROF_GREC_AGENT - KPROF_GREC_AGENT] = sizeof(struct kprof_grec_agent),
	/* older agents' kernel records lack the latency timestamps */
	[KPROF_GREC_KERNEL - KPROF_GREC_AGENT] = KPROF_GREC_KERNEL_V1_SIZE,
	[KPROF_GREC_COPY - KPROF_GREC_AGENT] = sizeof(struct kprof_grec_copy),
	[KPROF_GREC_API - KPROF_GREC_AGENT] = sizeof(struct kprof_grec_api),
	[KPROF_GREC_NAME - KPROF_GREC_AGENT] = sizeof(struct kprof_grec_name),
	[KPROF_GREC_DROPPED - KPROF_GREC_AGENT] = sizeof(struct kprof_grec_dropped),
	[KPROF_GREC_METRICS - KPROF_GREC_AGENT] = sizeof(struct kprof_grec_metrics),
	[KPROF_GREC_DEVICE - KPROF_GREC_AGENT] = sizeof(struct kprof_grec_device),
};

_Static_assert(KPROF_REC_GPU_TYPES == 8, "kprof_rec_gpu_min: a new type needs its entry");

_Static_assert(offsetof(struct kprof_grec_kernel, queued_ns) == KPROF_GREC_KERNEL_V1_SIZE,
	       "a kernel record of an older agent ends before queued_ns");

static inline size_t min_size(unsigned int type)
{
	if (type == KPROF_REC_PAD)
		return sizeof(struct kprof_rec_hdr);
	if (type <= KPROF_REC_MAX)
		return kprof_rec_dev_min[type];
	if (type == KPROF_HREC_IOCTL)
		return sizeof(struct kprof_host_event);
	if (type == KPROF_HREC_BPF_STATS)
		return sizeof(struct kprof_host_bpf_stats);
	if (type == KPROF_HREC_CUDA)
		return sizeof(struct kprof_cuda_event);
	if (type == KPROF_HREC_CUDA_STATS)
		return sizeof(struct kprof_cuda_bpf_stats);
	if (type - KPROF_GREC_AGENT < KPROF_REC_GPU_TYPES)
		return kprof_rec_gpu_min[type - KPROF_GREC_AGENT];
	return 0;
}

size_t kprof_rec_min_size(unsigned int type)
{
	return min_size(type);
}

const char *kprof_rec_type_name(unsigned int type)
{
	switch (type) {
	case KPROF_REC_PAD:		return "PAD";
	case KPROF_REC_MARKER:		return "MARKER";
	case KPROF_REC_LOST:		return "LOST";
	case KPROF_REC_OP:		return "OP";
	case KPROF_REC_COUNTERS:	return "COUNTERS";
	case KPROF_REC_SYNC:		return "SYNC";
	case KPROF_REC_CLOCK:		return "CLOCK";
	case KPROF_REC_STATE:		return "STATE";
	case KPROF_HREC_IOCTL:		return "IOCTL";
	case KPROF_HREC_BPF_STATS:	return "BPF_STATS";
	case KPROF_HREC_CUDA:		return "CUDA_CALL";
	case KPROF_HREC_CUDA_STATS:	return "CUDA_BPF_STATS";
	case KPROF_GREC_AGENT:		return "GPU_AGENT";
	case KPROF_GREC_KERNEL:		return "GPU_KERNEL";
	case KPROF_GREC_COPY:		return "GPU_COPY";
	case KPROF_GREC_API:		return "GPU_API";
	case KPROF_GREC_NAME:		return "GPU_NAME";
	case KPROF_GREC_DROPPED:	return "GPU_DROPPED";
	case KPROF_GREC_METRICS:	return "GPU_METRICS";
	case KPROF_GREC_DEVICE:		return "GPU_DEVICE";
	default:			return "UNKNOWN";
	}
}

void kprof_rec_iter_init(struct kprof_rec_iter *it, const void *buf,
			 size_t len, uint64_t base)
{
	memset(it, 0, sizeof(*it));
	it->buf = buf;
	it->len = len;
	it->base = base;
}

/* Every case, with the reason for a bad record (kprof_rec_next's slow path). */
int kprof_rec_next_slow(struct kprof_rec_iter *it, const struct kprof_rec_hdr **rec,
			struct kprof_err *err)
{
	for (;;) {
		struct kprof_rec_hdr h;
		size_t left = it->len - it->off;
		uint64_t at = it->base + it->off;
		size_t min;

		if (left == 0)
			return KPROF_REC_END;
		if (left < sizeof(h))
			return KPROF_REC_PARTIAL;
		/* memcpy: the buffer need not be aligned for the header read */
		memcpy(&h, it->buf + it->off, sizeof(h));
		if (h.size < sizeof(h) || h.size % 8) {
			kprof_err_set(err, EBADMSG,
				      "record at offset %llu: bad size %u (type %u): must be a multiple of 8 and >= 8",
				      (unsigned long long)at, h.size, h.type);
			return KPROF_REC_BAD;
		}
		min = min_size(h.type);
		if (h.size < min) {
			kprof_err_set(err, EBADMSG,
				      "record at offset %llu: %s record of %u bytes, shorter than its minimum %zu",
				      (unsigned long long)at, kprof_rec_type_name(h.type),
				      h.size, min);
			return KPROF_REC_BAD;
		}
		if (h.size > left)
			return KPROF_REC_PARTIAL;
		if (h.type == KPROF_REC_COUNTERS) {
			struct kprof_rec_counters c;

			memcpy(&c, it->buf + it->off, sizeof(c));
			if (h.size < kprof_rec_counters_need(&c)) {
				kprof_err_set(err, EBADMSG,
					      "record at offset %llu: COUNTERS record of %u bytes cannot hold the %d values its mask 0x%llx names",
					      (unsigned long long)at, h.size,
					      __builtin_popcountll(c.counter_mask),
					      (unsigned long long)c.counter_mask);
				return KPROF_REC_BAD;
			}
		}
		it->off += h.size;
		if (h.type == KPROF_REC_PAD)
			continue;
		if (min == 0) {
			it->skipped++;
			continue;
		}
		*rec = (const struct kprof_rec_hdr *)(it->buf + it->off - h.size);
		return KPROF_REC_OK;
	}
}
