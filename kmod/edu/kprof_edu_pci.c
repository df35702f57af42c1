// SPDX-License-Identifier: GPL-2.0
/*
 * kprof_edu.ko: the PCI driver for QEMU's edu device (1234:11e8) as a
 * kprof backend. Probe maps BAR0, sets edu's 28-bit DMA mask, allocates
 * one interrupt (MSI, else INTx), the engine's staging buffer, and only
 * then registers with the kprof core; remove undoes it in reverse, the
 * core first, so that no capture, mapping or DMA outlives the device.
 * docs/backend.md walks through it.
 */
#include <linux/interrupt.h>
#include <linux/module.h>
#include <linux/pci.h>

#include "kprof_edu.h"

#define EDU_VENDOR		0x1234
#define EDU_DEVICE		0x11e8
#define EDU_LIVE_PATTERN	0x6b70726fU	/* any value: edu inverts it */

static bool kprof_edu_param_msi = true;
module_param_named(msi, kprof_edu_param_msi, bool, 0444);
MODULE_PARM_DESC(msi, "Use MSI when the device offers it (default), else INTx");

static const char * const kprof_edu_risc_names[] = { "FACT" };

/* Write N: the device computes N! as one op; read: the last result. */
static ssize_t factorial_store(struct device *dev,
			       struct device_attribute *attr,
			       const char *buf, size_t count)
{
	struct kprof_edu *ed = dev_get_drvdata(dev);
	u32 n, result;
	int ret;

	ret = kstrtou32(buf, 0, &n);
	if (ret)
		return ret;
	ret = kprof_edu_run_op(ed, n, &result);
	return ret ? ret : count;
}

static ssize_t factorial_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	struct kprof_edu *ed = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%u\n", READ_ONCE(ed->last_result));
}
static DEVICE_ATTR_RW(factorial);

static struct attribute *kprof_edu_attrs[] = {
	&dev_attr_factorial.attr,
	NULL,
};
ATTRIBUTE_GROUPS(kprof_edu);

static void kprof_edu_fill_info(struct kprof_edu *ed)
{
	struct kprof_hw_info *info = &ed->info;

	info->backend = "edu";
	info->num_cores = 1;
	info->grid_x = 1;
	info->grid_y = 1;
	info->riscs_per_core = ARRAY_SIZE(kprof_edu_risc_names);
	info->risc_names[0] = kprof_edu_risc_names[0];
	/* Markers are stamped with CLOCK_MONOTONIC: ns. */
	info->ref_clock_hz = NSEC_PER_SEC;
	info->clock_min_mhz = 1000;
	info->clock_base_mhz = 1000;
	info->clock_max_mhz = 1000;
	info->l1_ring_entries = EDU_BUF_SIZE / sizeof(struct kprof_rec_marker);
}

static int kprof_edu_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	unsigned int irq_types = PCI_IRQ_LEGACY;
	struct kprof_edu *ed;
	struct kprof_device *kd;
	u32 ver;
	int ret;

	ed = devm_kzalloc(&pdev->dev, sizeof(*ed), GFP_KERNEL);
	if (!ed)
		return -ENOMEM;
	ed->pdev = pdev;
	pci_set_drvdata(pdev, ed);

	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	ret = pcim_iomap_regions(pdev, BIT(0), KBUILD_MODNAME);
	if (ret)
		return ret;
	ed->regs = pcim_iomap_table(pdev)[0];
	ver = readl(ed->regs + EDU_REG_ID);
	writel(EDU_LIVE_PATTERN, ed->regs + EDU_REG_LIVE);
	if ((ver & 0xff) != 0xed ||
	    readl(ed->regs + EDU_REG_LIVE) != ~EDU_LIVE_PATTERN) {
		dev_err(&pdev->dev, "not an edu device or not answering (id %#x)\n",
			ver);
		return -ENODEV;
	}

	/* Everything the device reaches goes through the DMA API. */
	ret = dma_set_mask_and_coherent(&pdev->dev,
					DMA_BIT_MASK(EDU_DMA_BITS));
	if (ret) {
		dev_err(&pdev->dev, "no usable %u-bit DMA: %d\n",
			EDU_DMA_BITS, ret);
		return ret;
	}
	pci_set_master(pdev);
	ret = kprof_edu_engine_init(ed);
	if (ret)
		goto err_master;

	if (kprof_edu_param_msi)
		irq_types |= PCI_IRQ_MSI;
	ret = pci_alloc_irq_vectors(pdev, 1, 1, irq_types);
	if (ret < 0)
		goto err_engine;
	/* INTx may be shared; the handler checks the device's status. */
	ret = request_irq(pci_irq_vector(pdev, 0), kprof_edu_irq,
			  pdev->msi_enabled ? 0 : IRQF_SHARED, KBUILD_MODNAME,
			  ed);
	if (ret)
		goto err_vectors;

	/* Last: from here on user space can open /dev/kprofN. */
	kprof_edu_fill_info(ed);
	kd = kprof_device_register(&pdev->dev, &kprof_edu_ops, &ed->info, ed);
	if (IS_ERR(kd)) {
		ret = PTR_ERR(kd);
		goto err_irq;
	}
	ed->kd = kd;
	dev_info(&pdev->dev, "edu %u.%u, %s interrupt, %u-bit DMA: /dev/kprof%d\n",
		 ver >> 24, (ver >> 16) & 0xff,
		 pdev->msi_enabled ? "MSI" : "INTx", EDU_DMA_BITS,
		 kprof_device_id(kd));
	return 0;

err_irq:
	free_irq(pci_irq_vector(pdev, 0), ed);
err_vectors:
	pci_free_irq_vectors(pdev);
err_engine:
	kprof_edu_engine_exit(ed);
err_master:
	pci_clear_master(pdev);
	return ret;
}

/*
 * Also the path of a hot-unplug (device_del, or /sys/.../remove): the
 * core stops any capture (capture_stop waits for the DMA engine), zaps
 * every user mapping and unmaps the rings before it returns; only then
 * do the interrupt and the staging buffer go.
 */
static void kprof_edu_remove(struct pci_dev *pdev)
{
	struct kprof_edu *ed = pci_get_drvdata(pdev);

	kprof_device_unregister(ed->kd);
	free_irq(pci_irq_vector(pdev, 0), ed);
	pci_free_irq_vectors(pdev);
	kprof_edu_engine_exit(ed);
	pci_clear_master(pdev);
}

static const struct pci_device_id kprof_edu_ids[] = {
	{ PCI_DEVICE(EDU_VENDOR, EDU_DEVICE) },
	{ }
};
MODULE_DEVICE_TABLE(pci, kprof_edu_ids);

static struct pci_driver kprof_edu_driver = {
	.name		= "kprof_edu",
	.id_table	= kprof_edu_ids,
	.probe		= kprof_edu_probe,
	.remove		= kprof_edu_remove,
	.dev_groups	= kprof_edu_groups,
};
module_pci_driver(kprof_edu_driver);

MODULE_DESCRIPTION("kprof_edu: QEMU's edu PCI device as a kprof backend");
MODULE_AUTHOR("kprof developers");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(KPROF);
