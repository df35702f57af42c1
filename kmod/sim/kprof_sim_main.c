// SPDX-License-Identifier: GPL-2.0
/*
 * kprof_sim.ko, the simulated accelerator: the "kprof_sim" bus, its
 * new_device and del_device attributes (in the manner of netdevsim),
 * module parameters, and creation and removal of sim devices, each
 * registered with the kprof core (kprof.ko) as a kprof device.
 */
#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "kprof_sim_priv.h"

#define KPROF_SIM_MAX_ID	1023
#define KPROF_SIM_L1_MIN	16
#define KPROF_SIM_L1_MAX	65536
/*
 * Simulated L1 memory of all sim devices together, MiB: one device at the
 * largest parameters would otherwise ask vmalloc for 2 GiB.
 */
#define KPROF_SIM_L1_TOTAL_MB	256

static unsigned int kprof_sim_param_devices;
module_param_named(sim_devices, kprof_sim_param_devices, uint, 0444);
MODULE_PARM_DESC(sim_devices, "Sim devices created at load (ids 0..N-1, N <= "
		 __stringify(KPROF_MAX_DEVICES) ", kprof's minors)");

static unsigned int kprof_sim_param_cores = 64;
module_param_named(sim_cores, kprof_sim_param_cores, uint, 0444);
MODULE_PARM_DESC(sim_cores, "Default cores per sim device (1-256)");

static unsigned int kprof_sim_param_riscs = 5;
module_param_named(sim_riscs, kprof_sim_param_riscs, uint, 0444);
MODULE_PARM_DESC(sim_riscs, "Default RISCs per core (1-8)");

unsigned int kprof_sim_param_l1_entries = 2048;
module_param_named(sim_l1_entries, kprof_sim_param_l1_entries, uint, 0444);
MODULE_PARM_DESC(sim_l1_entries,
		 "Markers per RISC L1 ring (16-65536, rounded up to a power of two)");

int kprof_sim_param_drift_ppm = 20;
module_param_named(sim_drift_ppm, kprof_sim_param_drift_ppm, int, 0444);
MODULE_PARM_DESC(sim_drift_ppm,
		 "Reference timer drift against CLOCK_MONOTONIC, ppm (-1000..1000)");

unsigned int kprof_sim_param_jitter_ns = 100;
module_param_named(sim_jitter_ns, kprof_sim_param_jitter_ns, uint, 0444);
MODULE_PARM_DESC(sim_jitter_ns, "Cross-timestamp read jitter, +/- ns");

static const char * const kprof_sim_risc_names[KPROF_MAX_RISCS] = {
	"BRISC", "NCRISC", "TRISC0", "TRISC1", "TRISC2", "TRISC3", "TRISC4",
	"TRISC5",
};

static const struct kprof_backend_ops kprof_sim_ops = {
	.capture_start		= kprof_sim_capture_start,
	.capture_stop		= kprof_sim_capture_stop,
	.capture_pause		= kprof_sim_capture_pause,
	.dma_submit		= kprof_sim_dma_submit,
	.dma_poll		= kprof_sim_dma_poll,
	.mmap_counters		= kprof_sim_mmap_counters,
	.get_clock		= kprof_sim_get_clock,
	.set_clock		= kprof_sim_set_clock,
	.cross_timestamp	= kprof_sim_cross_timestamp,
	.dma_flush		= kprof_sim_dma_flush,
};

/* kprof_sim_devs, _enabled and _l1_bytes are under kprof_sim_devs_lock. */
static LIST_HEAD(kprof_sim_devs);
static DEFINE_MUTEX(kprof_sim_devs_lock);
static bool kprof_sim_enabled;
static size_t kprof_sim_l1_bytes;	/* L1 memory of the devices listed */

static struct bus_type kprof_sim_bus;

/* Last reference gone: no thread, timer, work or file uses sd any more. */
static void kprof_sim_dev_release(struct device *dev)
{
	struct kprof_sim_dev *sd = to_kprof_sim_dev(dev);

	kprof_sim_pmu_free(sd);
	kprof_sim_l1_free(sd);
	vfree(sd->truth);
	kvfree(sd->queue);
	kfree(sd);
}

static struct kprof_sim_dev *kprof_sim_find(u32 id)
{
	struct kprof_sim_dev *sd;

	list_for_each_entry(sd, &kprof_sim_devs, list)
		if (sd->id == id)
			return sd;
	return NULL;
}

/* Most square grid: 64 -> 8 x 8, 12 -> 4 x 3, primes -> N x 1. */
static void kprof_sim_grid(u32 cores, u32 *gx, u32 *gy)
{
	u32 y = int_sqrt(cores);

	while (cores % y)
		y--;
	*gy = y;
	*gx = cores / y;
}

static void kprof_sim_fill_info(struct kprof_sim_dev *sd)
{
	struct kprof_hw_info *info = &sd->info;
	u32 r;

	info->backend = "sim";
	info->num_cores = sd->num_cores;
	kprof_sim_grid(sd->num_cores, &info->grid_x, &info->grid_y);
	sd->grid_x = info->grid_x;
	sd->grid_y = info->grid_y;
	info->riscs_per_core = sd->num_riscs;
	for (r = 0; r < sd->num_riscs; r++)
		info->risc_names[r] = kprof_sim_risc_names[r];
	info->l1_ring_entries = sd->l1_entries;
	/* counters: kprof_sim_pmu_init; clocks: kprof_sim_clock_init */
}

/*
 * Teardown in the order the core needs: the core first (it stops any
 * capture through capture_stop), then the clock work, engine, waiters,
 * the vendor node and the exec thread; memory goes with the last ref.
 */
static void kprof_sim_dev_destroy(struct kprof_sim_dev *sd)
{
	list_del(&sd->list);
	kprof_sim_l1_bytes -= kprof_sim_l1_size(sd);
	/* First: the clock_lock_mhz knob reports to the core through sd->kd. */
	kprof_sim_debugfs_exit(sd);
	if (sd->kd) {
		kprof_sim_clock_stop(sd);
		kprof_device_unregister(sd->kd);
		kprof_sim_engine_cancel(sd);
	}
	kprof_sim_kill(sd);
	kprof_sim_vendor_exit(sd);
	kprof_sim_exec_stop(sd);
	device_del(&sd->dev);
	put_device(&sd->dev);
}

static int kprof_sim_dev_create(u32 id, u32 cores, u32 riscs)
{
	struct kprof_sim_dev *sd;
	struct kprof_device *kd;
	int ret;

	lockdep_assert_held(&kprof_sim_devs_lock);
	if (id > KPROF_SIM_MAX_ID || !cores || cores > KPROF_SIM_MAX_CORES ||
	    !riscs || riscs > KPROF_MAX_RISCS)
		return -EINVAL;
	if (kprof_sim_find(id))
		return -EEXIST;

	sd = kzalloc(sizeof(*sd), GFP_KERNEL);
	if (!sd)
		return -ENOMEM;
	sd->id = id;
	sd->num_cores = cores;
	sd->num_riscs = riscs;
	sd->l1_entries = roundup_pow_of_two(clamp(kprof_sim_param_l1_entries,
						  KPROF_SIM_L1_MIN,
						  KPROF_SIM_L1_MAX));
	INIT_LIST_HEAD(&sd->list);
	spin_lock_init(&sd->queue_lock);
	spin_lock_init(&sd->truth_lock);
	init_waitqueue_head(&sd->queue_wq);
	init_waitqueue_head(&sd->done_wq);
	mutex_init(&sd->exec_mutex);

	device_initialize(&sd->dev);
	sd->dev.bus = &kprof_sim_bus;
	sd->dev.release = kprof_sim_dev_release;
	sd->dev.dma_mask = &sd->dma_mask;
	/* From here on put_device() frees whatever was allocated. */
	ret = dev_set_name(&sd->dev, "sim%u", id);
	if (ret)
		goto err_put;

	kprof_sim_fill_info(sd);
	kprof_sim_clock_init(sd);
	if (kprof_sim_l1_size(sd) >
	    ((size_t)KPROF_SIM_L1_TOTAL_MB << 20) - kprof_sim_l1_bytes) {
		pr_err("kprof_sim: sim%u: %u cores x %u RISCs x %u L1 entries would take the sim devices past %u MiB of L1 memory: use fewer cores, RISCs, sim_l1_entries or devices\n",
		       id, cores, riscs, sd->l1_entries,
		       KPROF_SIM_L1_TOTAL_MB);
		ret = -ENOSPC;
		goto err_put;
	}
	ret = kprof_sim_l1_init(sd);
	if (!ret)
		ret = kprof_sim_pmu_init(sd);
	sd->queue = kvcalloc(KPROF_SIM_QUEUE_LEN, sizeof(*sd->queue),
			     GFP_KERNEL | __GFP_NOWARN);
	sd->truth = __vmalloc(array_size(KPROF_SIM_TRUTH_LEN,
					 sizeof(*sd->truth)),
			      GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN);
	if (!ret && (!sd->queue || !sd->truth))
		ret = -ENOMEM;
	if (ret) {
		pr_err("kprof_sim: sim%u: out of memory for the simulated device (%u cores, %u RISCs, %u L1 entries): %d\n",
		       id, cores, riscs, sd->l1_entries, ret);
		goto err_put;
	}

	ret = device_add(&sd->dev);
	if (ret)
		goto err_put;
	list_add_tail(&sd->list, &kprof_sim_devs);
	kprof_sim_l1_bytes += kprof_sim_l1_size(sd);
	/* The core allocates its DMA ring against this device. */
	ret = dma_set_mask_and_coherent(&sd->dev, DMA_BIT_MASK(64));
	if (ret)
		goto err_destroy;
	ret = kprof_sim_exec_init(sd);
	if (ret)
		goto err_destroy;

	kd = kprof_device_register(&sd->dev, &kprof_sim_ops, &sd->info, sd);
	if (IS_ERR_OR_NULL(kd)) {
		ret = kd ? PTR_ERR(kd) : -ENOMEM;
		goto err_destroy;
	}
	sd->kd = kd;
	kprof_sim_clock_start(sd);

	ret = kprof_sim_vendor_init(sd);
	if (ret)
		goto err_destroy;
	kprof_sim_debugfs_init(sd);
	dev_info(&sd->dev, "%u cores (%ux%u), %u RISCs, %u L1 entries\n",
		 cores, sd->grid_x, sd->grid_y, riscs, sd->l1_entries);
	return 0;

err_destroy:
	kprof_sim_dev_destroy(sd);
	return ret;
err_put:
	put_device(&sd->dev);
	return ret;
}

/* "ID [CORES [RISCS]]", decimal, space separated. */
static int kprof_sim_parse(const char *buf, size_t count, u32 *vals,
			   unsigned int max)
{
	char tmp[64], *s, *tok;
	unsigned int n = 0;
	int ret;

	if (count >= sizeof(tmp))
		return -EINVAL;
	memcpy(tmp, buf, count);
	tmp[count] = '\0';
	s = strim(tmp);
	while ((tok = strsep(&s, " \t")) != NULL) {
		if (!*tok)
			continue;
		if (n == max)
			return -EINVAL;
		ret = kstrtou32(tok, 10, &vals[n++]);
		if (ret)
			return -EINVAL;
	}
	return n ? n : -EINVAL;
}

static ssize_t new_device_store(struct bus_type *bus, const char *buf,
				size_t count)
{
	u32 v[3] = { 0, kprof_sim_param_cores, kprof_sim_param_riscs };
	int ret;

	ret = kprof_sim_parse(buf, count, v, 3);
	if (ret < 0)
		return ret;
	mutex_lock(&kprof_sim_devs_lock);
	ret = kprof_sim_enabled ? kprof_sim_dev_create(v[0], v[1], v[2]) :
				  -ENODEV;
	mutex_unlock(&kprof_sim_devs_lock);
	return ret ? ret : count;
}
static BUS_ATTR_WO(new_device);

static ssize_t del_device_store(struct bus_type *bus, const char *buf,
				size_t count)
{
	struct kprof_sim_dev *sd;
	u32 id;
	int ret;

	ret = kprof_sim_parse(buf, count, &id, 1);
	if (ret < 0)
		return ret;
	mutex_lock(&kprof_sim_devs_lock);
	sd = kprof_sim_enabled ? kprof_sim_find(id) : NULL;
	if (sd)
		kprof_sim_dev_destroy(sd);
	mutex_unlock(&kprof_sim_devs_lock);
	return sd ? count : -ENOENT;
}
static BUS_ATTR_WO(del_device);

static struct attribute *kprof_sim_bus_attrs[] = {
	&bus_attr_new_device.attr,
	&bus_attr_del_device.attr,
	NULL,
};
ATTRIBUTE_GROUPS(kprof_sim_bus);

static struct bus_type kprof_sim_bus = {
	.name		= "kprof_sim",
	.bus_groups	= kprof_sim_bus_groups,
};

static void kprof_sim_destroy_all(void)
{
	struct kprof_sim_dev *sd, *tmp;

	mutex_lock(&kprof_sim_devs_lock);
	kprof_sim_enabled = false;
	list_for_each_entry_safe(sd, tmp, &kprof_sim_devs, list)
		kprof_sim_dev_destroy(sd);
	mutex_unlock(&kprof_sim_devs_lock);
}

static void kprof_sim_exit(void)
{
	kprof_sim_destroy_all();
	kprof_sim_debugfs_exit_root();
	bus_unregister(&kprof_sim_bus);
}

static int __init kprof_sim_init(void)
{
	unsigned int i;
	int ret = 0;

	if (!kprof_sim_param_cores ||
	    kprof_sim_param_cores > KPROF_SIM_MAX_CORES ||
	    !kprof_sim_param_riscs || kprof_sim_param_riscs > KPROF_MAX_RISCS ||
	    kprof_sim_param_devices > KPROF_MAX_DEVICES) {
		pr_err("kprof_sim: sim_cores must be 1-%u, sim_riscs 1-%u, sim_devices 0-%u (kprof's minors)\n",
		       KPROF_SIM_MAX_CORES, KPROF_MAX_RISCS,
		       KPROF_MAX_DEVICES);
		return -EINVAL;
	}
	ret = bus_register(&kprof_sim_bus);
	if (ret)
		return ret;
	kprof_sim_debugfs_init_root();

	mutex_lock(&kprof_sim_devs_lock);
	kprof_sim_enabled = true;
	for (i = 0; i < kprof_sim_param_devices && !ret; i++)
		ret = kprof_sim_dev_create(i, kprof_sim_param_cores,
					   kprof_sim_param_riscs);
	mutex_unlock(&kprof_sim_devs_lock);
	if (ret) {
		pr_err("kprof_sim: creating device %u failed: %d\n", i - 1, ret);
		kprof_sim_exit();
	}
	return ret;
}

static void __exit kprof_sim_module_exit(void)
{
	kprof_sim_exit();
}

module_init(kprof_sim_init);
module_exit(kprof_sim_module_exit);

MODULE_DESCRIPTION("kprof_sim: simulated accelerator, a kprof backend");
MODULE_AUTHOR("kprof developers");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(KPROF);
