// SPDX-License-Identifier: GPL-2.0
/*
 * The sim's command queue and execution: ops launched through the vendor
 * device run one after another on an exec thread, in real time, with times
 * taken from the cost model rather than from when the thread happened to
 * wake, so that emulation latency does not distort the model.
 */
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/ktime.h>

#include "kprof_sim_priv.h"

/* Cost model constants; docs/sim.md explains each. */
#define KPROF_SIM_DISPATCH_NS		2000	/* launch -> earliest start */
#define KPROF_SIM_FW_PRE_CYCLES		600	/* FW_START -> KERNEL_START */
#define KPROF_SIM_FW_POST_CYCLES	400	/* KERNEL_END -> FW_END */
#define KPROF_SIM_MIN_KERNEL_CYCLES	100
#define KPROF_SIM_FLOPS_PER_CYCLE	2048	/* per core */
#define KPROF_SIM_BYTES_PER_US		12000	/* per core, 12 GB/s */
#define KPROF_SIM_RISC_STAGGER_NS	8	/* RISC r starts r * 8 ns late */
#define KPROF_SIM_SKEW_PPM		16000	/* per-core, deterministic */
#define KPROF_SIM_NOISE_PPM		2000	/* per-op, random */
#define KPROF_SIM_SLACK_NS		10000	/* exec thread wake-up slack */
#define KPROF_SIM_STORM_TICK_NS		1000000
#define KPROF_SIM_STORM_CHUNK		8192
#define KPROF_SIM_STORM_BATCH		64	/* markers per ring visit (even) */

/* Small fixed per-core slowdown: cores are not all equal. */
static u32 kprof_sim_core_skew_ppm(u32 core)
{
	return ((core * 2654435761U) >> 8) % (KPROF_SIM_SKEW_PPM + 1);
}

static u64 kprof_sim_scale(u64 ns, u32 ppm)
{
	return mul_u64_u32_div(ns, ppm, 1000000);
}

void kprof_sim_core_model(const struct kprof_sim_plan *p, u32 core,
			  struct kprof_sim_core_model *cm)
{
	u32 mhz = p->mhz;
	u64 min_ns = div_u64(KPROF_SIM_MIN_KERNEL_CYCLES * 1000ULL, mhz);

	cm->scale_ppm = 1000000 + kprof_sim_core_skew_ppm(core) + p->noise_ppm;
	cm->compute_ns = div64_u64(p->op.flops * 1000,
				   (u64)KPROF_SIM_FLOPS_PER_CYCLE * mhz);
	cm->mem_ns = div_u64(p->op.bytes * 1000, KPROF_SIM_BYTES_PER_US);
	cm->compute_ns = kprof_sim_scale(max(cm->compute_ns, min_ns),
					 cm->scale_ppm);
	cm->mem_ns = kprof_sim_scale(max(cm->mem_ns, min_ns), cm->scale_ppm);
	cm->kernel_ns = max(cm->compute_ns, cm->mem_ns);
	cm->pre_ns = div_u64(KPROF_SIM_FW_PRE_CYCLES * 1000ULL, mhz);
	cm->post_ns = div_u64(KPROF_SIM_FW_POST_CYCLES * 1000ULL, mhz);
}

/*
 * BRISC and NCRISC move data, so their kernels last as long as the memory
 * traffic; the TRISCs compute. A core with fewer than three RISCs has no
 * split and each RISC runs the whole kernel.
 */
static void kprof_sim_times_cm(const struct kprof_sim_dev *sd,
			       const struct kprof_sim_plan *p,
			       const struct kprof_sim_core_model *cm, u32 risc,
			       struct kprof_sim_risc_times *t)
{
	u64 own;

	if (sd->num_riscs < 3)
		own = cm->kernel_ns;
	else if (risc < 2)
		own = cm->mem_ns;
	else
		own = cm->compute_ns;
	t->fw_start = p->start_ns + risc * KPROF_SIM_RISC_STAGGER_NS;
	t->kernel_start = t->fw_start + cm->pre_ns;
	t->kernel_end = t->kernel_start + own;
	/* Firmware signals done only once the whole core's kernel is over. */
	t->fw_end = t->fw_start + cm->pre_ns + cm->kernel_ns + cm->post_ns;
}

static void kprof_sim_risc_times(const struct kprof_sim_dev *sd,
				 const struct kprof_sim_plan *p, u32 core,
				 u32 risc, struct kprof_sim_risc_times *t)
{
	struct kprof_sim_core_model cm;

	kprof_sim_core_model(p, core, &cm);
	kprof_sim_times_cm(sd, p, &cm, risc, t);
}

static u64 kprof_sim_plan_end(const struct kprof_sim_dev *sd,
			      const struct kprof_sim_plan *p)
{
	struct kprof_sim_risc_times t;
	u64 end = p->start_ns;
	u32 c;

	for (c = p->op.first_core; c < p->op.first_core + p->op.num_cores; c++) {
		kprof_sim_risc_times(sd, p, c, sd->num_riscs - 1, &t);
		end = max(end, t.fw_end);
	}
	return end;
}

static bool kprof_sim_queue_room(struct kprof_sim_dev *sd)
{
	return READ_ONCE(sd->q_head) - READ_ONCE(sd->q_tail) <
	       KPROF_SIM_QUEUE_LEN || READ_ONCE(sd->dead);
}

static bool kprof_sim_done(struct kprof_sim_dev *sd, u64 target)
{
	return READ_ONCE(sd->completed_seq) >= target || READ_ONCE(sd->dead);
}

int kprof_sim_enqueue(struct kprof_sim_dev *sd, struct kprof_sim_op *op)
{
	int ret;

	spin_lock(&sd->queue_lock);
	for (;;) {
		if (sd->dead) {
			ret = -ENODEV;
			break;
		}
		if (sd->q_head - sd->q_tail < KPROF_SIM_QUEUE_LEN) {
			op->seq = ++sd->launched_seq;
			op->launch_ns = ktime_get_ns();
			sd->queue[sd->q_head % KPROF_SIM_QUEUE_LEN] = *op;
			sd->q_head++;
			/* Under the lock: dead is set before the thread stops. */
			wake_up_process(sd->exec_thread);
			ret = 0;
			break;
		}
		spin_unlock(&sd->queue_lock);
		ret = wait_event_interruptible(sd->queue_wq,
					       kprof_sim_queue_room(sd));
		if (ret)
			return ret;
		spin_lock(&sd->queue_lock);
	}
	spin_unlock(&sd->queue_lock);
	if (!ret)
		atomic64_inc(&sd->stats.ops_launched);
	return ret;
}

int kprof_sim_wait(struct kprof_sim_dev *sd, bool all, u64 seq,
		   u64 timeout_ns, u64 *completed)
{
	u64 target;
	long ret;

	spin_lock(&sd->queue_lock);
	if (sd->dead) {
		spin_unlock(&sd->queue_lock);
		return -ENODEV;
	}
	if (!all && seq > sd->launched_seq) {
		spin_unlock(&sd->queue_lock);
		return -EINVAL;
	}
	target = all ? sd->launched_seq : seq;
	spin_unlock(&sd->queue_lock);

	if (timeout_ns) {
		ktime_t to = ns_to_ktime(min_t(u64, timeout_ns, KTIME_MAX));

		ret = wait_event_interruptible_hrtimeout(sd->done_wq,
							 kprof_sim_done(sd, target),
							 to);
		if (ret == -ETIME)
			ret = -ETIMEDOUT;
	} else {
		ret = wait_event_interruptible(sd->done_wq,
					       kprof_sim_done(sd, target));
	}
	*completed = READ_ONCE(sd->completed_seq);
	if (!ret && *completed < target)
		ret = -ENODEV;
	return ret;
}

/* Wakes everyone blocked in LAUNCH or SYNC; they return -ENODEV. */
void kprof_sim_kill(struct kprof_sim_dev *sd)
{
	spin_lock(&sd->queue_lock);
	sd->dead = true;
	spin_unlock(&sd->queue_lock);
	wake_up_all(&sd->queue_wq);
	wake_up_all(&sd->done_wq);
}

static bool kprof_sim_emitting(struct kprof_sim_dev *sd)
{
	return READ_ONCE(sd->capturing) && !READ_ONCE(sd->paused);
}

static void kprof_sim_emit_op(struct kprof_sim_dev *sd,
			      struct kprof_sim_plan *p)
{
	struct kprof_rec_op rec;

	memset(&rec, 0, sizeof(rec));
	rec.hdr.type = KPROF_REC_OP;
	rec.hdr.size = sizeof(rec);
	rec.op_seq = p->op.seq;
	rec.timestamp = kprof_sim_ns_to_cycles(&p->ref, p->start_ns);
	rec.first_core = p->op.first_core;
	rec.num_cores = p->op.num_cores;
	rec.clock_mhz = p->mhz;
	memcpy(rec.name, p->op.name, sizeof(rec.name));
	kprof_sim_fifo_put(sd, &rec, sizeof(rec), p->op.seq);
	p->op_emitted = true;
}

/* Takes the next op off the queue and plans it. exec_mutex held. */
static bool kprof_sim_dispatch(struct kprof_sim_dev *sd)
{
	struct kprof_sim_plan *p = &sd->cur;

	spin_lock(&sd->queue_lock);
	if (sd->q_head == sd->q_tail) {
		spin_unlock(&sd->queue_lock);
		return false;
	}
	p->op = sd->queue[sd->q_tail % KPROF_SIM_QUEUE_LEN];
	sd->q_tail++;
	spin_unlock(&sd->queue_lock);
	wake_up(&sd->queue_wq);

	/* All of the op's timestamps use the mapping of this moment. */
	kprof_sim_tref_snapshot(sd, &p->ref);
	p->mhz = kprof_sim_clock_mhz(sd);
	p->noise_ppm = get_random_u32_below(KPROF_SIM_NOISE_PPM + 1);
	p->start_ns = max(p->op.launch_ns + KPROF_SIM_DISPATCH_NS,
			  sd->prev_end_ns);
	p->end_ns = kprof_sim_plan_end(sd, p);
	sd->running = true;
	kprof_sim_clock_op_start(sd, p->start_ns, p->end_ns);

	p->op_emitted = false;
	if (kprof_sim_emitting(sd))
		kprof_sim_emit_op(sd, p);
	return true;
}

static void kprof_sim_marker(struct kprof_rec_marker *m, u32 core, u32 risc,
			     u8 kind, u64 op_seq, u64 cycles, u32 zone_id)
{
	m->hdr.type = KPROF_REC_MARKER;
	m->hdr.size = sizeof(*m);
	m->hdr.flags = 0;
	m->core = core;
	m->risc = risc;
	m->kind = kind;
	m->op_seq = (u32)op_seq;
	m->timestamp = cycles;
	m->zone_id = zone_id;
	m->reserved = 0;
}

/* Writes one RISC's markers for the op, in time order. */
static void kprof_sim_write_markers(struct kprof_sim_dev *sd,
				    const struct kprof_sim_plan *p,
				    const struct kprof_sim_tref *ref,
				    u32 core, u32 risc,
				    const struct kprof_sim_risc_times *t)
{
	struct kprof_rec_marker m[4 + 2 * KPROF_SIM_MAX_ZONES];
	u64 seq = p->op.seq, len = t->kernel_end - t->kernel_start;
	u32 z, nz = p->op.num_zones, n = 0;

	kprof_sim_marker(&m[n++], core, risc, KPROF_MARK_FW_START, seq,
			 kprof_sim_ns_to_cycles(ref, t->fw_start), 0);
	kprof_sim_marker(&m[n++], core, risc, KPROF_MARK_KERNEL_START, seq,
			 kprof_sim_ns_to_cycles(ref, t->kernel_start), 0);
	/* Zones split the kernel evenly, back to back. */
	for (z = 0; z < nz; z++) {
		u64 zs = t->kernel_start + div_u64(len * z, nz);
		u64 ze = t->kernel_start + div_u64(len * (z + 1), nz);

		kprof_sim_marker(&m[n++], core, risc, KPROF_MARK_ZONE_START,
				 seq, kprof_sim_ns_to_cycles(ref, zs), z);
		kprof_sim_marker(&m[n++], core, risc, KPROF_MARK_ZONE_END,
				 seq, kprof_sim_ns_to_cycles(ref, ze), z);
	}
	kprof_sim_marker(&m[n++], core, risc, KPROF_MARK_KERNEL_END, seq,
			 kprof_sim_ns_to_cycles(ref, t->kernel_end), 0);
	kprof_sim_marker(&m[n++], core, risc, KPROF_MARK_FW_END, seq,
			 kprof_sim_ns_to_cycles(ref, t->fw_end), 0);
	kprof_sim_l1_put(sd, core * sd->num_riscs + risc, m, n, seq);
}

/* The op's end time has come: markers, counters, truth, completion. */
static void kprof_sim_finish(struct kprof_sim_dev *sd)
{
	struct kprof_sim_plan *p = &sd->cur;
	struct kprof_sim_core_model cm;
	struct kprof_sim_risc_times t;
	const struct kprof_sim_tref *ref = &p->ref;
	struct kprof_sim_truth tr;
	bool emit = kprof_sim_emitting(sd);
	u64 ks = U64_MAX, ke = 0;
	u32 c, r;

	/* A capture that began (or resumed) while the op ran names it now. */
	if (emit && !p->op_emitted)
		kprof_sim_emit_op(sd, p);
	for (c = p->op.first_core; c < p->op.first_core + p->op.num_cores; c++) {
		kprof_sim_core_model(p, c, &cm);
		for (r = 0; r < sd->num_riscs; r++) {
			kprof_sim_times_cm(sd, p, &cm, r, &t);
			ks = min(ks, t.kernel_start);
			ke = max(ke, t.kernel_end);
			if (emit)
				kprof_sim_write_markers(sd, p, ref, c, r, &t);
		}
		cond_resched();
	}
	kprof_sim_pmu_op(sd, p, READ_ONCE(sd->counter_mask), emit);

	memset(&tr, 0, sizeof(tr));
	tr.seq = p->op.seq;
	memcpy(tr.name, p->op.name, sizeof(tr.name));
	tr.first_core = p->op.first_core;
	tr.num_cores = p->op.num_cores;
	tr.mhz = p->mhz;
	tr.launch_ns = p->op.launch_ns;
	tr.start_ns = p->start_ns;
	tr.end_ns = p->end_ns;
	tr.fw_start = kprof_sim_ns_to_cycles(ref, p->start_ns);
	tr.fw_end = kprof_sim_ns_to_cycles(ref, p->end_ns);
	tr.kernel_start = kprof_sim_ns_to_cycles(ref, ks);
	tr.kernel_end = kprof_sim_ns_to_cycles(ref, ke);
	kprof_sim_truth_add(sd, &tr);

	sd->prev_end_ns = p->end_ns;
	sd->running = false;
	atomic64_inc(&sd->stats.ops_completed);

	spin_lock(&sd->queue_lock);
	sd->completed_seq = p->op.seq;
	spin_unlock(&sd->queue_lock);
	wake_up_all(&sd->done_wq);
}

/*
 * Marker storm: markers with op_seq 0 spread round robin over every RISC,
 * at storm_rate per second of wall time. Returns when to come back.
 */
static u64 kprof_sim_storm(struct kprof_sim_dev *sd, u64 now)
{
	struct kprof_rec_marker m[2];
	u32 nr = sd->num_cores * sd->num_riscs, k;
	struct kprof_sim_tref ref;
	u64 due, n, left, cycles;

	due = mul_u64_u64_div_u64(now - sd->storm_start_ns, sd->storm_rate,
				  NSEC_PER_SEC);
	/* More than a second behind: the rate is not reachable, skip. */
	if (due > sd->storm_done + sd->storm_rate)
		sd->storm_done = due - sd->storm_rate;
	/* Whole START/END pairs: a visit never ends inside a zone. */
	n = min_t(u64, due - sd->storm_done, KPROF_SIM_STORM_CHUNK) & ~1ULL;
	if (kprof_sim_emitting(sd)) {
		kprof_sim_tref_snapshot(sd, &ref);
		cycles = kprof_sim_ns_to_cycles(&ref, now);
		for (left = n; left; left -= k) {
			u32 ring = sd->storm_pos++ % nr, i;
			u32 core = ring / sd->num_riscs;
			u32 risc = ring % sd->num_riscs;

			k = min_t(u64, left, KPROF_SIM_STORM_BATCH);
			kprof_sim_marker(&m[0], core, risc,
					 KPROF_MARK_ZONE_START, 0, cycles,
					 U32_MAX);
			kprof_sim_marker(&m[1], core, risc,
					 KPROF_MARK_ZONE_END, 0, cycles,
					 U32_MAX);
			if (likely(!atomic_read(&sd->fault_corrupt))) {
				kprof_sim_l1_put2(sd, ring, &m[0], &m[1], k);
				continue;
			}
			/* Slow path: markers one by one so faults apply. */
			for (i = 0; i < k; i++) {
				struct kprof_rec_marker one = m[i & 1];

				kprof_sim_l1_put(sd, ring, &one, 1, 0);
			}
		}
	}
	sd->storm_done += n;
	atomic64_add(n, &sd->stats.storm_markers);
	if (due >= sd->storm_done + 2)
		return now;
	return now + KPROF_SIM_STORM_TICK_NS;
}

void kprof_sim_set_storm(struct kprof_sim_dev *sd, u64 rate)
{
	mutex_lock(&sd->exec_mutex);
	sd->storm_rate = rate;
	sd->storm_start_ns = ktime_get_ns();
	sd->storm_done = 0;
	mutex_unlock(&sd->exec_mutex);
	wake_up_process(sd->exec_thread);
}

static int kprof_sim_exec_thread(void *data)
{
	struct kprof_sim_dev *sd = data;

	while (!kthread_should_stop()) {
		u64 now = ktime_get_ns(), wake = U64_MAX;
		ktime_t expires;

		mutex_lock(&sd->exec_mutex);
		if (sd->storm_rate)
			wake = kprof_sim_storm(sd, now);
		if (sd->running && now >= sd->cur.end_ns)
			kprof_sim_finish(sd);
		if (!sd->running)
			kprof_sim_dispatch(sd);
		if (sd->running)
			wake = min(wake, sd->cur.end_ns);
		mutex_unlock(&sd->exec_mutex);

		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop() || wake <= ktime_get_ns() ||
		    (!sd->running &&
		     READ_ONCE(sd->q_head) != READ_ONCE(sd->q_tail))) {
			__set_current_state(TASK_RUNNING);
			cond_resched();
			continue;
		}
		if (wake == U64_MAX) {
			schedule();
		} else {
			expires = ns_to_ktime(wake);
			schedule_hrtimeout_range(&expires, KPROF_SIM_SLACK_NS,
						 HRTIMER_MODE_ABS);
		}
	}
	return 0;
}

int kprof_sim_exec_init(struct kprof_sim_dev *sd)
{
	struct task_struct *t;

	t = kthread_run(kprof_sim_exec_thread, sd, "kprof_sim%u", sd->id);
	if (IS_ERR(t))
		return PTR_ERR(t);
	sd->exec_thread = t;
	return 0;
}

void kprof_sim_exec_stop(struct kprof_sim_dev *sd)
{
	if (sd->exec_thread) {
		kthread_stop(sd->exec_thread);
		sd->exec_thread = NULL;
	}
}
