// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/debug/kprof_sim/simN/: the sim's ground truth, so that tests
 * measure kprof's error rather than only its output, and fault knobs.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/string.h>

#include "kprof_sim_priv.h"

#define KPROF_SIM_STORM_MAX	1000000000ULL	/* markers/s */

static struct dentry *kprof_sim_dbg_root;

void kprof_sim_truth_add(struct kprof_sim_dev *sd,
			 const struct kprof_sim_truth *t)
{
	spin_lock(&sd->truth_lock);
	sd->truth[sd->truth_count % KPROF_SIM_TRUTH_LEN] = *t;
	sd->truth_count++;
	spin_unlock(&sd->truth_lock);
}

/* Position 0 is the header; position i >= 1 is the i-th op kept. */
static void *kprof_sim_truth_start(struct seq_file *m, loff_t *pos)
{
	struct kprof_sim_dev *sd = m->private;
	u64 kept;

	spin_lock(&sd->truth_lock);
	kept = min_t(u64, sd->truth_count, KPROF_SIM_TRUTH_LEN);
	spin_unlock(&sd->truth_lock);
	return *pos <= kept ? pos : NULL;
}

static void *kprof_sim_truth_next(struct seq_file *m, void *v, loff_t *pos)
{
	++*pos;
	return kprof_sim_truth_start(m, pos);
}

static void kprof_sim_truth_stop(struct seq_file *m, void *v)
{
}

static int kprof_sim_truth_show(struct seq_file *m, void *v)
{
	struct kprof_sim_dev *sd = m->private;
	loff_t pos = *(loff_t *)v;
	struct kprof_sim_truth t;
	u64 first;

	if (!pos) {
		seq_puts(m, "seq name first_core num_cores mhz launch_ns start_ns end_ns fw_start_cycles fw_end_cycles kernel_start_cycles kernel_end_cycles\n");
		return 0;
	}
	spin_lock(&sd->truth_lock);
	first = sd->truth_count > KPROF_SIM_TRUTH_LEN ?
		sd->truth_count - KPROF_SIM_TRUTH_LEN : 0;
	if (first + pos > sd->truth_count) {
		/* reset_truth while reading */
		spin_unlock(&sd->truth_lock);
		return SEQ_SKIP;
	}
	t = sd->truth[(first + pos - 1) % KPROF_SIM_TRUTH_LEN];
	spin_unlock(&sd->truth_lock);
	seq_printf(m, "%llu %s %u %u %u %llu %llu %llu %llu %llu %llu %llu\n",
		   t.seq, t.name, t.first_core, t.num_cores, t.mhz,
		   t.launch_ns, t.start_ns, t.end_ns, t.fw_start, t.fw_end,
		   t.kernel_start, t.kernel_end);
	return 0;
}

static const struct seq_operations kprof_sim_truth_sops = {
	.start	= kprof_sim_truth_start,
	.next	= kprof_sim_truth_next,
	.stop	= kprof_sim_truth_stop,
	.show	= kprof_sim_truth_show,
};
DEFINE_SEQ_ATTRIBUTE(kprof_sim_truth);

static int kprof_sim_dropped_show(struct seq_file *m, void *v)
{
	struct kprof_sim_dev *sd = m->private;
	u32 i, nr = sd->num_cores * sd->num_riscs;
	unsigned long flags;
	u64 n;

	seq_printf(m, "%lld\n", atomic64_read(&sd->stats.markers_dropped));
	for (i = 0; i < nr; i++) {
		spin_lock_irqsave(&sd->lost_lock, flags);
		n = sd->l1[i].dropped_total;
		spin_unlock_irqrestore(&sd->lost_lock, flags);
		if (n)
			seq_printf(m, "%u %u %llu\n", i / sd->num_riscs,
				   i % sd->num_riscs, n);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kprof_sim_dropped);

static int kprof_sim_stats_show(struct seq_file *m, void *v)
{
	struct kprof_sim_dev *sd = m->private;
	struct kprof_sim_stats *s = &sd->stats;
	const struct {
		const char *name;
		atomic64_t *v;
	} rows[] = {
		{ "ops_launched", &s->ops_launched },
		{ "ops_completed", &s->ops_completed },
		{ "markers_written", &s->markers_written },
		{ "markers_dropped", &s->markers_dropped },
		{ "markers_drained", &s->markers_drained },
		{ "markers_corrupted", &s->corrupted },
		{ "markers_discarded_at_stop", &s->discarded_at_stop },
		{ "markers_lost_unreported", &s->lost_unreported },
		{ "storm_markers", &s->storm_markers },
		{ "queue_records", &s->fifo_records },
		{ "queue_records_dropped", &s->fifo_dropped },
		{ "dma_descriptors", &s->dma_descs },
		{ "dma_completions", &s->dma_completions },
		{ "dma_irqs_dropped", &s->dma_irqs_dropped },
		{ "dma_polled", &s->dma_polled },
		{ "dma_bytes", &s->dma_bytes },
		{ "clock_changes", &s->clock_changes },
		{ "engine_passes", &s->engine_passes },
		{ "engine_idle_passes", &s->engine_idle_passes },
		{ "dma_empty_completions", &s->dma_empty_completions },
		{ "engine_max_latency_ns", &s->engine_max_latency_ns },
		{ "kick_max_late_ns", &s->kick_max_late_ns },
		{ "l1_max_fill", &s->l1_max_fill },
		{ "engine_assists", &s->engine_assists },
		{ "dma_gap_max_ns", &s->dma_gap_max_ns },
		{ "dma_gap_inline_max_ns", &s->dma_gap_inline_max_ns },
		{ "dma_gap_later_max_ns", &s->dma_gap_later_max_ns },
		{ "dma_completions_unlent", &s->dma_completions_unlent },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(rows); i++)
		seq_printf(m, "%s %lld\n", rows[i].name,
			   atomic64_read(rows[i].v));
	seq_printf(m, "clock_mhz %u\n", kprof_sim_clock_mhz(sd));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kprof_sim_stats);

static int kprof_sim_drift_get(void *data, u64 *val)
{
	*val = (u64)(s64)kprof_sim_get_drift(data);
	return 0;
}

static int kprof_sim_drift_set(void *data, u64 val)
{
	s64 ppm = (s64)val;

	if (ppm < -1000 || ppm > 1000)
		return -EINVAL;
	kprof_sim_set_drift(data, (s32)ppm);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE_SIGNED(kprof_sim_drift_fops, kprof_sim_drift_get,
				kprof_sim_drift_set, "%lld\n");

static int kprof_sim_jitter_get(void *data, u64 *val)
{
	struct kprof_sim_dev *sd = data;

	*val = READ_ONCE(sd->clk.jitter_ns);
	return 0;
}

static int kprof_sim_jitter_set(void *data, u64 val)
{
	struct kprof_sim_dev *sd = data;

	if (val > 1000000)
		return -EINVAL;
	WRITE_ONCE(sd->clk.jitter_ns, (u32)val);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(kprof_sim_jitter_fops, kprof_sim_jitter_get,
			 kprof_sim_jitter_set, "%llu\n");

/*
 * A lock set from outside kprof (another tool, firmware): kprof keeps no
 * saved state for it, so tests can check that a reset gives it back.
 */
static int kprof_sim_clock_lock_get(void *data, u64 *val)
{
	struct kprof_sim_dev *sd = data;
	struct kprof_hw_clock clk = {};

	kprof_sim_get_clock(sd->kd, &clk);
	*val = clk.locked ? clk.mhz : 0;
	return 0;
}

static int kprof_sim_clock_lock_set(void *data, u64 val)
{
	struct kprof_sim_dev *sd = data;
	struct kprof_hw_clock clk = {};
	int ret;

	if (val > U32_MAX)
		return -EINVAL;
	ret = kprof_sim_set_clock(sd->kd, val != 0, (u32)val);
	if (ret)
		return ret;
	/* Not a change the core asked for, so report it like DVFS does. */
	kprof_sim_get_clock(sd->kd, &clk);
	atomic64_inc(&sd->stats.clock_changes);
	kprof_clock_changed(sd->kd, clk.mhz, clk.locked);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(kprof_sim_clock_lock_fops, kprof_sim_clock_lock_get,
			 kprof_sim_clock_lock_set, "%llu\n");

static int kprof_sim_corrupt_get(void *data, u64 *val)
{
	struct kprof_sim_dev *sd = data;

	*val = atomic_read(&sd->fault_corrupt);
	return 0;
}

static int kprof_sim_corrupt_set(void *data, u64 val)
{
	struct kprof_sim_dev *sd = data;

	if (val > INT_MAX)
		return -EINVAL;
	atomic_set(&sd->fault_corrupt, (int)val);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(kprof_sim_corrupt_fops, kprof_sim_corrupt_get,
			 kprof_sim_corrupt_set, "%llu\n");

static int kprof_sim_stall_get(void *data, u64 *val)
{
	struct kprof_sim_dev *sd = data;

	*val = READ_ONCE(sd->fault_dma_stall);
	return 0;
}

static int kprof_sim_stall_set(void *data, u64 val)
{
	struct kprof_sim_dev *sd = data;

	if (val > 1)
		return -EINVAL;
	WRITE_ONCE(sd->fault_dma_stall, val);
	/* Resume with what piled up while stalled. */
	if (!val)
		kprof_sim_engine_kick(sd, true);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(kprof_sim_stall_fops, kprof_sim_stall_get,
			 kprof_sim_stall_set, "%llu\n");

static int kprof_sim_drop_irq_get(void *data, u64 *val)
{
	struct kprof_sim_dev *sd = data;

	*val = atomic_read(&sd->fault_drop_irq);
	return 0;
}

static int kprof_sim_drop_irq_set(void *data, u64 val)
{
	struct kprof_sim_dev *sd = data;

	if (val > INT_MAX)
		return -EINVAL;
	atomic_set(&sd->fault_drop_irq, (int)val);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(kprof_sim_drop_irq_fops, kprof_sim_drop_irq_get,
			 kprof_sim_drop_irq_set, "%llu\n");

static int kprof_sim_storm_get(void *data, u64 *val)
{
	struct kprof_sim_dev *sd = data;

	*val = READ_ONCE(sd->storm_rate);
	return 0;
}

static int kprof_sim_storm_set(void *data, u64 val)
{
	if (val > KPROF_SIM_STORM_MAX)
		return -EINVAL;
	kprof_sim_set_storm(data, val);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(kprof_sim_storm_fops, kprof_sim_storm_get,
			 kprof_sim_storm_set, "%llu\n");

static int kprof_sim_reset_truth_set(void *data, u64 val)
{
	struct kprof_sim_dev *sd = data;

	spin_lock(&sd->truth_lock);
	sd->truth_count = 0;
	spin_unlock(&sd->truth_lock);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(kprof_sim_reset_truth_fops, NULL,
			 kprof_sim_reset_truth_set, "%llu\n");

void kprof_sim_debugfs_init(struct kprof_sim_dev *sd)
{
	struct dentry *d;
	char name[16];

	snprintf(name, sizeof(name), "sim%u", sd->id);
	d = debugfs_create_dir(name, kprof_sim_dbg_root);
	sd->dbg = d;
	debugfs_create_file("truth", 0400, d, sd, &kprof_sim_truth_fops);
	debugfs_create_file("dropped", 0400, d, sd, &kprof_sim_dropped_fops);
	debugfs_create_file("stats", 0400, d, sd, &kprof_sim_stats_fops);
	debugfs_create_file_unsafe("drift_ppm", 0600, d, sd,
				   &kprof_sim_drift_fops);
	debugfs_create_file_unsafe("jitter_ns", 0600, d, sd,
				   &kprof_sim_jitter_fops);
	debugfs_create_file_unsafe("clock_lock_mhz", 0600, d, sd,
				   &kprof_sim_clock_lock_fops);
	debugfs_create_file_unsafe("fault_corrupt_markers", 0600, d, sd,
				   &kprof_sim_corrupt_fops);
	debugfs_create_file_unsafe("fault_dma_stall", 0600, d, sd,
				   &kprof_sim_stall_fops);
	debugfs_create_file_unsafe("fault_drop_irq", 0600, d, sd,
				   &kprof_sim_drop_irq_fops);
	debugfs_create_file_unsafe("marker_storm", 0600, d, sd,
				   &kprof_sim_storm_fops);
	debugfs_create_file_unsafe("reset_truth", 0200, d, sd,
				   &kprof_sim_reset_truth_fops);
}

/* Waits for open files' handlers to finish before returning. */
void kprof_sim_debugfs_exit(struct kprof_sim_dev *sd)
{
	debugfs_remove_recursive(sd->dbg);
	sd->dbg = NULL;
}

void kprof_sim_debugfs_init_root(void)
{
	kprof_sim_dbg_root = debugfs_create_dir("kprof_sim", NULL);
}

void kprof_sim_debugfs_exit_root(void)
{
	debugfs_remove_recursive(kprof_sim_dbg_root);
	kprof_sim_dbg_root = NULL;
}
