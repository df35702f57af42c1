// SPDX-License-Identifier: GPL-2.0
/*
 * The sim's PMU: eight free-running counters per core, in a block that is
 * mapped read-only into the capture holder and advanced when an op ends.
 */
#include <linux/bitops.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/vmalloc.h>

#include "kprof_sim_priv.h"
#include "../kprof_compat.h"

#define KPROF_SIM_FLOPS_PER_INSN	32	/* SIMD width */
#define KPROF_SIM_BYTES_PER_INSN	64	/* one load/store per 64 B */
#define KPROF_SIM_INSNS_PER_RISC	200	/* kernel prologue/epilogue */
#define KPROF_SIM_NOC_PACKET		256	/* bytes per NoC packet */

const struct kprof_counter_desc kprof_sim_counter_descs[KPROF_SIM_NUM_COUNTERS] = {
	[KPROF_SIM_CTR_BUSY]		= { "busy_cycles", "cycles" },
	[KPROF_SIM_CTR_STALL]		= { "stall_cycles", "cycles" },
	[KPROF_SIM_CTR_INSNS]		= { "instructions", "instructions" },
	[KPROF_SIM_CTR_FLOPS]		= { "flops", "flops" },
	[KPROF_SIM_CTR_BYTES_RD]	= { "bytes_read", "bytes" },
	[KPROF_SIM_CTR_BYTES_WR]	= { "bytes_written", "bytes" },
	[KPROF_SIM_CTR_NOC_PKTS]	= { "noc_packets", "packets" },
	[KPROF_SIM_CTR_L1_CONFLICTS]	= { "l1_conflicts", "events" },
};

static u64 kprof_sim_ns_to_core_cycles(u64 ns, u32 mhz)
{
	return div_u64(ns * mhz, 1000);
}

/* What one core's counters advance by for one op. */
static void kprof_sim_pmu_deltas(const struct kprof_sim_dev *sd,
				 const struct kprof_sim_plan *p, u32 core,
				 u64 *d)
{
	struct kprof_sim_core_model cm;
	u64 bytes = p->op.bytes, busy, compute;

	kprof_sim_core_model(p, core, &cm);
	busy = kprof_sim_ns_to_core_cycles(cm.kernel_ns, p->mhz);
	compute = kprof_sim_ns_to_core_cycles(cm.compute_ns, p->mhz);
	d[KPROF_SIM_CTR_BUSY] = busy;
	d[KPROF_SIM_CTR_STALL] = busy > compute ? busy - compute : 0;
	d[KPROF_SIM_CTR_INSNS] = div_u64(p->op.flops, KPROF_SIM_FLOPS_PER_INSN) +
				 div_u64(bytes, KPROF_SIM_BYTES_PER_INSN) +
				 KPROF_SIM_INSNS_PER_RISC * sd->num_riscs;
	d[KPROF_SIM_CTR_FLOPS] = p->op.flops;
	d[KPROF_SIM_CTR_BYTES_WR] = div_u64(bytes, 3);
	d[KPROF_SIM_CTR_BYTES_RD] = bytes - d[KPROF_SIM_CTR_BYTES_WR];
	d[KPROF_SIM_CTR_NOC_PKTS] = DIV_ROUND_UP_ULL(bytes, KPROF_SIM_NOC_PACKET);
	/* Bank conflicts depend on where the core sits: deterministic. */
	d[KPROF_SIM_CTR_L1_CONFLICTS] = div_u64(d[KPROF_SIM_CTR_NOC_PKTS] *
						((core % 4) + 1), 16);
}

/*
 * Exec thread only. The block's seq is odd while an update is in
 * progress, seqcount style, so a reader can retry a torn read.
 */
void kprof_sim_pmu_op(struct kprof_sim_dev *sd, const struct kprof_sim_plan *p,
		      u64 counter_mask, bool emit)
{
	struct kprof_counter_block *b = sd->pmu;
	u64 buf[(sizeof(struct kprof_rec_counters) / 8) + KPROF_SIM_NUM_COUNTERS];
	struct kprof_rec_counters *rec = (void *)buf;
	u32 nc = b->num_counters, c, k, n;
	u64 d[KPROF_SIM_NUM_COUNTERS];

	WRITE_ONCE(b->seq, b->seq + 1);
	/* Odd seq is visible before any value changes. */
	smp_wmb();
	for (c = p->op.first_core; c < p->op.first_core + p->op.num_cores; c++) {
		kprof_sim_pmu_deltas(sd, p, c, d);
		for (k = 0; k < nc; k++)
			WRITE_ONCE(b->values[c * nc + k],
				   b->values[c * nc + k] + d[k]);
		if (!emit)
			continue;
		memset(rec, 0, sizeof(*rec));
		n = 0;
		for (k = 0; k < nc; k++)
			if (counter_mask & BIT_ULL(k))
				rec->values[n++] = d[k];
		rec->hdr.type = KPROF_REC_COUNTERS;
		rec->hdr.size = sizeof(*rec) + n * sizeof(u64);
		rec->op_seq = p->op.seq;
		rec->counter_mask = counter_mask;
		rec->core = c;
		kprof_sim_fifo_put(sd, rec, rec->hdr.size, p->op.seq);
	}
	/* Values are visible before seq turns even again. */
	smp_wmb();
	WRITE_ONCE(b->seq, b->seq + 1);
}

int kprof_sim_mmap_counters(struct kprof_device *kd,
			    struct vm_area_struct *vma)
{
	struct kprof_sim_dev *sd = kprof_device_priv(kd);
	unsigned long size = vma->vm_end - vma->vm_start;

	if (size > PAGE_ALIGN(sd->pmu_size))
		return -EINVAL;
	if (vma->vm_flags & VM_WRITE)
		return -EPERM;
	kprof_vm_flags_clear(vma, VM_MAYWRITE);
	/* The block starts at the mapping start whatever the file offset. */
	return remap_vmalloc_range(vma, sd->pmu, 0);
}

int kprof_sim_pmu_init(struct kprof_sim_dev *sd)
{
	sd->pmu_size = struct_size(sd->pmu, values,
				   (size_t)sd->num_cores * KPROF_SIM_NUM_COUNTERS);
	sd->pmu = vmalloc_user(PAGE_ALIGN(sd->pmu_size));
	if (!sd->pmu)
		return -ENOMEM;
	sd->pmu->num_cores = sd->num_cores;
	sd->pmu->num_counters = KPROF_SIM_NUM_COUNTERS;
	sd->info.num_counters = KPROF_SIM_NUM_COUNTERS;
	sd->info.counters = kprof_sim_counter_descs;
	sd->info.counter_block_size = sd->pmu_size;
	return 0;
}

void kprof_sim_pmu_free(struct kprof_sim_dev *sd)
{
	vfree(sd->pmu);
}
