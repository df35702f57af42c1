// SPDX-License-Identifier: GPL-2.0
/*
 * The sim's clocks: a DVFS core clock that wanders and throttles unless
 * locked, and a constant-rate reference timer that stamps markers and
 * drifts against CLOCK_MONOTONIC by drift_ppm.
 */
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/random.h>
#include <linux/ktime.h>
#include <linux/workqueue.h>

#include "kprof_sim_priv.h"

#define KPROF_SIM_MHZ_MIN	800
#define KPROF_SIM_MHZ_BASE	1000
#define KPROF_SIM_MHZ_MAX	1200
#define KPROF_SIM_MHZ_STEP	5
#define KPROF_SIM_DVFS_MS	20
#define KPROF_SIM_DRIFT_MAX	1000	/* |ppm| */

void kprof_sim_clock_init(struct kprof_sim_dev *sd)
{
	struct kprof_sim_clock *c = &sd->clk;

	spin_lock_init(&c->lock);
	c->mhz = KPROF_SIM_MHZ_BASE;
	c->locked = false;
	c->heat = 0;
	c->busy_done_ns = 0;
	c->busy_start_ns = 0;
	c->busy_end_ns = 0;
	c->busy_last = 0;
	c->tick_last_ns = ktime_get_ns();
	/* The timer starts counting when the device powers up. */
	c->ref.base_ns = ktime_get_ns();
	c->ref.base_cycles = 0;
	c->ref.drift_ppm = clamp(kprof_sim_param_drift_ppm,
				 -KPROF_SIM_DRIFT_MAX, KPROF_SIM_DRIFT_MAX);
	c->jitter_ns = min(kprof_sim_param_jitter_ns, 1000000U);

	sd->info.ref_clock_hz = NSEC_PER_SEC;
	sd->info.clock_min_mhz = KPROF_SIM_MHZ_MIN;
	sd->info.clock_base_mhz = KPROF_SIM_MHZ_BASE;
	sd->info.clock_max_mhz = KPROF_SIM_MHZ_MAX;
}

/* Nominal 1 GHz, scaled by (1 + drift_ppm / 1e6); exact, no jitter. */
u64 kprof_sim_ns_to_cycles(const struct kprof_sim_tref *ref, u64 ns)
{
	s64 d = (s64)(ns - ref->base_ns);

	return ref->base_cycles + d + div_s64(d * ref->drift_ppm, 1000000);
}

void kprof_sim_tref_snapshot(struct kprof_sim_dev *sd,
			     struct kprof_sim_tref *ref)
{
	unsigned long flags;

	spin_lock_irqsave(&sd->clk.lock, flags);
	*ref = sd->clk.ref;
	spin_unlock_irqrestore(&sd->clk.lock, flags);
}

/* Rebase so that the timer stays continuous across a drift change. */
void kprof_sim_set_drift(struct kprof_sim_dev *sd, s32 ppm)
{
	struct kprof_sim_tref *ref = &sd->clk.ref;
	unsigned long flags;
	u64 now;

	ppm = clamp(ppm, -KPROF_SIM_DRIFT_MAX, KPROF_SIM_DRIFT_MAX);
	spin_lock_irqsave(&sd->clk.lock, flags);
	now = ktime_get_ns();
	ref->base_cycles = kprof_sim_ns_to_cycles(ref, now);
	ref->base_ns = now;
	ref->drift_ppm = ppm;
	spin_unlock_irqrestore(&sd->clk.lock, flags);
}

s32 kprof_sim_get_drift(struct kprof_sim_dev *sd)
{
	return READ_ONCE(sd->clk.ref.drift_ppm);
}

u32 kprof_sim_clock_mhz(struct kprof_sim_dev *sd)
{
	return READ_ONCE(sd->clk.mhz);
}

/*
 * The exec thread reports each op's modelled interval at dispatch. Ops do
 * not overlap, so busy time up to t is the previous ops' total plus the
 * part of the current op before t.
 */
void kprof_sim_clock_op_start(struct kprof_sim_dev *sd, u64 start, u64 end)
{
	struct kprof_sim_clock *c = &sd->clk;
	unsigned long flags;

	spin_lock_irqsave(&c->lock, flags);
	c->busy_done_ns += c->busy_end_ns - c->busy_start_ns;
	c->busy_start_ns = start;
	c->busy_end_ns = end;
	spin_unlock_irqrestore(&c->lock, flags);
}

static u64 kprof_sim_busy_until(const struct kprof_sim_clock *c, u64 t)
{
	u64 cur = 0;

	if (t > c->busy_start_ns)
		cur = min(t, c->busy_end_ns) - c->busy_start_ns;
	return c->busy_done_ns + cur;
}

/*
 * One DVFS step: load over the last period heats the part up; heat lowers
 * the ceiling from max towards base; the clock takes a random step and
 * leans upwards while busy (boost).
 */
static void kprof_sim_dvfs_work(struct work_struct *work)
{
	struct kprof_sim_dev *sd = container_of(to_delayed_work(work),
						struct kprof_sim_dev,
						dvfs_work);
	struct kprof_sim_clock *c = &sd->clk;
	u64 now, busy, busy_now;
	unsigned long flags;
	bool changed = false;
	u32 load, ceiling, mhz;
	int step;

	spin_lock_irqsave(&c->lock, flags);
	now = ktime_get_ns();
	busy_now = kprof_sim_busy_until(c, now);
	busy = busy_now - c->busy_last;
	load = now > c->tick_last_ns ?
	       (u32)div64_u64(min(busy, now - c->tick_last_ns) * 100,
			      now - c->tick_last_ns) : 0;
	c->busy_last = busy_now;
	c->tick_last_ns = now;
	if (load > 80)
		c->heat = min(c->heat + 5, 100U);
	else if (load < 50)
		c->heat = c->heat > 3 ? c->heat - 3 : 0;
	if (!c->locked) {
		ceiling = KPROF_SIM_MHZ_MAX -
			  c->heat * (KPROF_SIM_MHZ_MAX - KPROF_SIM_MHZ_BASE) / 100;
		step = ((int)get_random_u32_below(9) - 4) * KPROF_SIM_MHZ_STEP;
		if (load > 50)
			step += KPROF_SIM_MHZ_STEP;
		mhz = clamp_t(int, (int)c->mhz + step, KPROF_SIM_MHZ_MIN,
			      ceiling);
		changed = mhz != c->mhz;
		c->mhz = mhz;
	}
	mhz = c->mhz;
	spin_unlock_irqrestore(&c->lock, flags);

	if (changed) {
		atomic64_inc(&sd->stats.clock_changes);
		kprof_clock_changed(sd->kd, mhz, false);
	}
	if (!READ_ONCE(sd->dvfs_stop))
		schedule_delayed_work(&sd->dvfs_work,
				      msecs_to_jiffies(KPROF_SIM_DVFS_MS));
}

/* Called once sd->kd is set: the work reports changes to the core. */
void kprof_sim_clock_start(struct kprof_sim_dev *sd)
{
	INIT_DELAYED_WORK(&sd->dvfs_work, kprof_sim_dvfs_work);
	WRITE_ONCE(sd->dvfs_stop, false);
	schedule_delayed_work(&sd->dvfs_work,
			      msecs_to_jiffies(KPROF_SIM_DVFS_MS));
}

void kprof_sim_clock_stop(struct kprof_sim_dev *sd)
{
	WRITE_ONCE(sd->dvfs_stop, true);
	cancel_delayed_work_sync(&sd->dvfs_work);
}

void kprof_sim_get_clock(struct kprof_device *kd, struct kprof_hw_clock *clk)
{
	struct kprof_sim_dev *sd = kprof_device_priv(kd);
	unsigned long flags;

	spin_lock_irqsave(&sd->clk.lock, flags);
	clk->mhz = sd->clk.mhz;
	clk->locked = sd->clk.locked;
	spin_unlock_irqrestore(&sd->clk.lock, flags);
}

/*
 * The core asked for this change and records it itself, so no
 * kprof_clock_changed() here; only autonomous DVFS steps report.
 */
int kprof_sim_set_clock(struct kprof_device *kd, bool locked, u32 mhz)
{
	struct kprof_sim_dev *sd = kprof_device_priv(kd);
	unsigned long flags;

	if (locked && (mhz < KPROF_SIM_MHZ_MIN || mhz > KPROF_SIM_MHZ_MAX))
		return -EINVAL;
	spin_lock_irqsave(&sd->clk.lock, flags);
	sd->clk.locked = locked;
	if (locked)
		sd->clk.mhz = mhz;
	spin_unlock_irqrestore(&sd->clk.lock, flags);
	return 0;
}

/*
 * Reading the timer over the bus takes an uncertain time: the value read
 * is the timer at a point up to jitter_ns away from the midpoint. The
 * mapping is taken before the window opens, so that the read itself sits
 * between two clock reads of equal cost, at the window's midpoint (taking
 * the lock inside the window put it at ~77% under TCG: a bias no fit on
 * the triples can see). A drift change in between is harmless: the
 * mapping is continuous.
 */
int kprof_sim_cross_timestamp(struct kprof_device *kd, u64 *host_before_ns,
			      u64 *device_cycles, u64 *host_after_ns)
{
	struct kprof_sim_dev *sd = kprof_device_priv(kd);
	struct kprof_sim_tref ref;
	u32 jitter = READ_ONCE(sd->clk.jitter_ns);
	s64 off = 0;
	u64 t;

	if (jitter)
		off = (s64)get_random_u32_below(2 * jitter + 1) - jitter;
	kprof_sim_tref_snapshot(sd, &ref);
	*host_before_ns = ktime_get_ns();
	t = ktime_get_ns();
	*device_cycles = kprof_sim_ns_to_cycles(&ref, t + off);
	*host_after_ns = ktime_get_ns();
	return 0;
}
