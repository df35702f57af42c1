// SPDX-License-Identifier: GPL-2.0
/*
 * Capture ring memory: pages the core allocates itself, one control page
 * plus the data chunks, mapped for the backend's DMA engine with the
 * streaming DMA API and into user space read-only through a fault handler
 * (vm_insert_page()), one way for every page.
 *
 * Chunks are high-order allocations split into order-0 pages, so that
 * each page is refcounted on its own as vm_insert_page() requires, while
 * a chunk stays contiguous in kernel and bus address space: a span the
 * backend gets never crosses a chunk, so it needs one address only.
 *
 * The ring is reference counted: the capture holds one reference and every
 * user mapping another (vm_ops open/close). Its pages are charged, like
 * perf's ring buffers, to the locked_vm of the user that started the
 * capture, against a per-user allowance (kprof.mlock_kb) plus the
 * starter's RLIMIT_MEMLOCK, from allocation until the ring is freed or
 * goes idle into the device's cache. Device removal does not wait
 * for them: kprof_device_unregister() zaps every user mapping (later
 * faults get SIGBUS) and unmaps every ring from the device, so that only
 * the pages are left, for read() to drain what was captured; they are
 * freed with the last reference.
 */
#include <linux/capability.h>
#include <linux/dma-mapping.h>
#include <linux/gfp.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <linux/slab.h>

#include "kprof_internal.h"

/*
 * Ring memory each user may hold on top of RLIMIT_MEMLOCK, as
 * perf_event_mlock_kb does for perf: two default (32 MiB) rings.
 */
static unsigned int kprof_mlock_kb = 2 * ((KPROF_RING_SIZE_DEFAULT >> 10) +
					  (PAGE_SIZE >> 10));
module_param_named(mlock_kb, kprof_mlock_kb, uint, 0644);
MODULE_PARM_DESC(mlock_kb,
		 "Capture ring KiB each user may hold on top of RLIMIT_MEMLOCK (default: two default rings)");

static unsigned long kprof_ring_pages_of(u32 size)
{
	return 1 + (size >> PAGE_SHIFT);
}

/*
 * Charge pages to the current user, or -EPERM past the allowance plus
 * RLIMIT_MEMLOCK (CAP_IPC_LOCK has no limit), as perf's mmap does.
 */
static struct user_struct *kprof_charge(unsigned long pages)
{
	struct user_struct *user = get_current_user();
	unsigned long limit, cur;

	limit = (READ_ONCE(kprof_mlock_kb) >> (PAGE_SHIFT - 10)) +
		(rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT);
	cur = atomic_long_read(&user->locked_vm);
	do {
		if (cur + pages > limit && !capable(CAP_IPC_LOCK)) {
			free_uid(user);
			return ERR_PTR(-EPERM);
		}
	} while (!atomic_long_try_cmpxchg(&user->locked_vm, &cur,
					  cur + pages));
	return user;
}

static void kprof_uncharge(struct user_struct *user, unsigned long pages)
{
	atomic_long_sub(pages, &user->locked_vm);
	free_uid(user);
}

static void kprof_ring_uncharge(struct kprof_ring *ring)
{
	if (!ring->user)
		return;
	kprof_uncharge(ring->user, kprof_ring_pages_of(ring->size));
	ring->user = NULL;
}

/* Largest chunk we ask for: MAX_ORDER - 1 pages (4 MiB on x86). */
#define KPROF_CHUNK_SHIFT_MAX	(PAGE_SHIFT + MAX_ORDER - 1)

static unsigned int kprof_chunk_order(const struct kprof_ring *ring)
{
	return ring->chunk_shift - PAGE_SHIFT;
}

static void kprof_free_split_pages(struct page *page, unsigned int order)
{
	unsigned long i;

	for (i = 0; i < (1UL << order); i++)
		__free_page(nth_page(page, i));
	kprof_pages_sub(1UL << order);
}

static void kprof_ring_unmap_pages(struct kprof_ring *ring)
{
	size_t len = 1UL << ring->chunk_shift;
	u32 i;

	for (i = 0; i < ring->nr_chunks; i++)
		if (ring->chunks[i].page)
			dma_unmap_page(ring->dma_dev, ring->chunks[i].dma, len,
				       DMA_FROM_DEVICE);
}

/*
 * Once: the device may not touch the ring after this. Drops the ring's
 * reference on the device.
 */
static void kprof_ring_unmap_chunks(struct kprof_ring *ring)
{
	if (!ring->dma_dev)
		return;
	kprof_ring_unmap_pages(ring);
	put_device(ring->dma_dev);
	ring->dma_dev = NULL;
}

static void kprof_ring_free_chunks(struct kprof_ring *ring)
{
	u32 i;

	for (i = 0; i < ring->nr_chunks; i++)
		if (ring->chunks[i].page)
			kprof_free_split_pages(ring->chunks[i].page,
					       kprof_chunk_order(ring));
}

static void kprof_ring_release(struct kref *ref)
{
	struct kprof_ring *ring = container_of(ref, struct kprof_ring, ref);
	struct kprof_device *kd = ring->kd;

	mutex_lock(&kd->rings_lock);
	list_del(&ring->node);
	kprof_ring_unmap_chunks(ring);
	mutex_unlock(&kd->rings_lock);
	kprof_ring_free_chunks(ring);
	kprof_free_split_pages(ring->ctrl_page, 0);
	kprof_ring_uncharge(ring);
	kvfree(ring);
	kprof_device_put(kd);
}

void kprof_ring_put(struct kprof_ring *ring)
{
	kref_put(&ring->ref, kprof_ring_release);
}

/*
 * Whether the device reaches the pages directly. Without an IOMMU the bus
 * address is the physical one (x86), and a page above the device's mask
 * would be bounced by swiotlb (the device writing a copy, not the page
 * user space maps) or refused with a WARN where there is no swiotlb.
 * With an IOMMU the IOVA is allocated under the mask.
 */
static bool kprof_ring_reachable(struct device *dev, struct page *page,
				 size_t len)
{
	u64 limit = min_not_zero(dma_get_mask(dev), dev->bus_dma_limit);

	return device_iommu_mapped(dev) ||
	       page_to_phys(page) + len - 1 <= limit;
}

/*
 * Pages for a chunk the device reaches directly: gfp's zone first
 * (ZONE_DMA32 for a mask of 32 bits or fewer), then ZONE_DMA for a mask
 * under 32 bits (edu's 28) where ZONE_DMA32 gave pages above it.
 */
static struct page *kprof_ring_chunk_pages(struct device *dev, gfp_t gfp,
					   unsigned int order)
{
	size_t len = PAGE_SIZE << order;
	struct page *page = alloc_pages(gfp, order);

	if (!page || kprof_ring_reachable(dev, page, len))
		return page;
	__free_pages(page, order);
	if (!IS_ENABLED(CONFIG_ZONE_DMA))
		return NULL;
	page = alloc_pages((gfp & ~GFP_DMA32) | GFP_DMA, order);
	if (page && !kprof_ring_reachable(dev, page, len)) {
		__free_pages(page, order);
		page = NULL;
	}
	return page;
}

/* One chunk of 1 << chunk_shift bytes, zeroed and mapped for the device. */
static int kprof_ring_alloc_chunk(struct kprof_ring *ring,
				  struct kprof_ring_chunk *c, gfp_t gfp)
{
	unsigned int order = kprof_chunk_order(ring);
	struct page *page;
	dma_addr_t dma;

	page = kprof_ring_chunk_pages(ring->dma_dev, gfp, order);
	if (!page)
		return -ENOMEM;
	split_page(page, order);
	kprof_pages_add(1UL << order);
	dma = dma_map_page(ring->dma_dev, page, 0, 1UL << ring->chunk_shift,
			   DMA_FROM_DEVICE);
	if (dma_mapping_error(ring->dma_dev, dma)) {
		kprof_free_split_pages(page, order);
		return -ENOMEM;
	}
	c->page = page;
	c->cpu = page_address(page);
	c->dma = dma;
	return 0;
}

/* Allocate size bytes (power of two) as chunks of 1 << shift bytes. */
static struct kprof_ring *kprof_ring_try_alloc(struct device *dev, u32 size,
					       u32 shift)
{
	/* Pages the device cannot address would need bouncing. */
	gfp_t gfp = GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN |
		    (dma_get_mask(dev) <= DMA_BIT_MASK(32) ? GFP_DMA32 : 0);
	struct kprof_ring *ring;
	u32 i, n = size >> shift;

	ring = kvzalloc(struct_size(ring, chunks, n), GFP_KERNEL);
	if (!ring)
		return NULL;
	ring->dma_dev = dev;
	ring->size = size;
	ring->chunk_shift = shift;
	ring->nr_chunks = n;
	for (i = 0; i < n; i++) {
		/*
		 * Failure is expected when memory is fragmented: retry smaller.
		 * The caller's reference on dev stays for the retry.
		 */
		if (kprof_ring_alloc_chunk(ring, &ring->chunks[i], gfp)) {
			kprof_ring_unmap_pages(ring);
			kprof_ring_free_chunks(ring);
			kvfree(ring);
			return NULL;
		}
	}
	return ring;
}

static void kprof_ring_ctrl_init(struct kprof_ring *ring)
{
	clear_page(ring->ctrl);
	ring->ctrl->data_size = ring->size;
	ring->ctrl->data_offset = PAGE_SIZE;
}

static struct kprof_ring *kprof_ring_alloc(struct kprof_device *kd, u32 size)
{
	struct device *dev = get_device(kd->parent);
	struct kprof_ring *ring = NULL;
	struct page *ctrl;
	u32 shift = min_t(u32, ilog2(size), KPROF_CHUNK_SHIFT_MAX);

	ctrl = alloc_page(GFP_KERNEL);
	if (!ctrl)
		goto err;
	kprof_pages_add(1);
	for (; shift >= ilog2(KPROF_RING_SIZE_MIN); shift--) {
		ring = kprof_ring_try_alloc(dev, size, shift);
		if (ring)
			break;
	}
	if (!ring)
		goto err;

	kref_init(&ring->ref);
	ring->ctrl_page = ctrl;
	ring->ctrl = page_address(ctrl);
	kprof_ring_ctrl_init(ring);
	kref_get(&kd->ref);
	ring->kd = kd;
	mutex_lock(&kd->rings_lock);
	list_add(&ring->node, &kd->rings);
	mutex_unlock(&kd->rings_lock);
	return ring;

err:
	if (ctrl)
		kprof_free_split_pages(ctrl, 0);
	put_device(dev);
	return NULL;
}

/* Zero what the previous capture may have written, and the control page. */
static void kprof_ring_scrub(struct kprof_ring *ring)
{
	u64 left = min_t(u64, ring->dirty, ring->size);
	size_t chunk = 1UL << ring->chunk_shift;
	size_t n;
	u32 i;

	for (i = 0; left; i++, left -= n) {
		n = min_t(u64, left, chunk);
		memset(ring->chunks[i].cpu, 0, n);
	}
	ring->dirty = 0;
	kprof_ring_ctrl_init(ring);
}

/*
 * A clean ring of size bytes, charged to the current user: the cached one
 * if it fits, else a new one. ERR_PTR(-EPERM) past the user's limit,
 * checked before anything is allocated; ERR_PTR(-ENOMEM).
 */
struct kprof_ring *kprof_ring_get(struct kprof_device *kd, u32 size)
{
	struct user_struct *user;
	struct kprof_ring *ring;

	user = kprof_charge(kprof_ring_pages_of(size));
	if (IS_ERR(user))
		return ERR_CAST(user);

	spin_lock(&kd->cache_lock);
	ring = kd->ring_cache;
	kd->ring_cache = NULL;
	spin_unlock(&kd->cache_lock);
	if (ring)
		kprof_pages_cached_add(-(long)kprof_ring_pages_of(ring->size));

	if (ring && ring->size == size) {
		kprof_ring_scrub(ring);
	} else {
		if (ring)
			kprof_ring_put(ring);
		ring = kprof_ring_alloc(kd, size);
		if (!ring) {
			kprof_uncharge(user, kprof_ring_pages_of(size));
			return ERR_PTR(-ENOMEM);
		}
	}
	ring->user = user;
	return ring;
}

/*
 * Drop a capture's ring reference, keeping the ring for the next capture
 * if nobody maps it. With no mapping left nothing can take a new
 * reference (mappings come from the capture), so the check is stable.
 */
void kprof_ring_stash(struct kprof_device *kd, struct kprof_ring *ring)
{
	/* Pinning more than a default ring while idle is not worth it. */
	if (kref_read(&ring->ref) == 1 &&
	    ring->size <= KPROF_RING_SIZE_DEFAULT) {
		/* Idle in the cache, it is the device's, not the user's. */
		kprof_ring_uncharge(ring);
		spin_lock(&kd->cache_lock);
		if (!kd->cache_closed && !kd->ring_cache) {
			kd->ring_cache = ring;
			kprof_pages_cached_add(kprof_ring_pages_of(ring->size));
			ring = NULL;
		}
		spin_unlock(&kd->cache_lock);
	}
	if (ring)
		kprof_ring_put(ring);
}

/* At unregister: free the cached ring and cache nothing more. */
void kprof_ring_cache_close(struct kprof_device *kd)
{
	struct kprof_ring *ring;

	spin_lock(&kd->cache_lock);
	kd->cache_closed = true;
	ring = kd->ring_cache;
	kd->ring_cache = NULL;
	spin_unlock(&kd->cache_lock);
	if (ring) {
		kprof_pages_cached_add(-(long)kprof_ring_pages_of(ring->size));
		kprof_ring_put(ring);
	}
}

/*
 * At unregister, after the capture stopped and the cache was closed: no
 * ring stays mapped for a device that is going away. What is left of each
 * (pages, for read()) goes with its last reference.
 */
void kprof_ring_unmap_all(struct kprof_device *kd)
{
	struct kprof_ring *ring;

	mutex_lock(&kd->rings_lock);
	list_for_each_entry(ring, &kd->rings, node)
		kprof_ring_unmap_chunks(ring);
	mutex_unlock(&kd->rings_lock);
}

/* Span [pos, pos + len) of one chunk: the device may write it now. */
void kprof_ring_sync_for_device(struct kprof_ring *ring, u64 pos, u32 len)
{
	dma_sync_single_for_device(ring->dma_dev, kprof_ring_dma(ring, pos),
				   len, DMA_FROM_DEVICE);
}

/* The device wrote [pos, pos + len) of one chunk: the CPU may read it. */
void kprof_ring_sync_for_cpu(struct kprof_ring *ring, u64 pos, u32 len)
{
	if (len)
		dma_sync_single_for_cpu(ring->dma_dev,
					kprof_ring_dma(ring, pos), len,
					DMA_FROM_DEVICE);
}

/* Page pgoff of the mapping: the control page, then the data in order. */
static struct page *kprof_ring_page(struct kprof_ring *ring,
				    unsigned long pgoff)
{
	unsigned long per_chunk_shift = kprof_chunk_order(ring);
	unsigned long idx;

	if (!pgoff)
		return ring->ctrl_page;
	idx = pgoff - 1;
	return nth_page(ring->chunks[idx >> per_chunk_shift].page,
			idx & ((1UL << per_chunk_shift) - 1));
}

static void kprof_ring_vm_open(struct vm_area_struct *vma)
{
	struct kprof_ring *ring = vma->vm_private_data;

	kref_get(&ring->ref);
}

static void kprof_ring_vm_close(struct vm_area_struct *vma)
{
	kprof_ring_put(vma->vm_private_data);
}

/*
 * The page goes in under mmap_sem, so that unregister (dead, then zap)
 * cannot miss it: a fault after that gets SIGBUS.
 */
static vm_fault_t kprof_ring_fault(struct vm_fault *vmf)
{
	struct kprof_ring *ring = vmf->vma->vm_private_data;
	struct kprof_device *kd = ring->kd;
	vm_fault_t ret = VM_FAULT_SIGBUS;
	int err;

	if (vmf->pgoff > ring->size >> PAGE_SHIFT)
		return VM_FAULT_SIGBUS;
	down_read(&kd->mmap_sem);
	if (!kd->mmap_dead) {
		err = vm_insert_page(vmf->vma, vmf->address,
				     kprof_ring_page(ring, vmf->pgoff));
		/* -EBUSY: a concurrent fault on the same page won. */
		ret = !err || err == -EBUSY ? VM_FAULT_NOPAGE : vmf_error(err);
	}
	up_read(&kd->mmap_sem);
	return ret;
}

static const struct vm_operations_struct kprof_ring_vm_ops = {
	.open = kprof_ring_vm_open,
	.close = kprof_ring_vm_close,
	.fault = kprof_ring_fault,
};

/*
 * The control page, then the data: pages are inserted as they are
 * touched. VM_MIXEDMAP is set here, under the mmap lock held for write,
 * because vm_insert_page() may only set it itself outside a fault.
 */
int kprof_ring_mmap(struct kprof_ring *ring, struct vm_area_struct *vma)
{
	struct kprof_device *kd = ring->kd;
	int ret = 0;

	if (vma->vm_pgoff ||
	    vma_pages(vma) > 1 + ((unsigned long)ring->size >> PAGE_SHIFT))
		return -EINVAL;

	/* Faults check for removal; a new mapping cannot even start. */
	if (down_read_killable(&kd->mmap_sem))
		return -EINTR;
	if (kd->mmap_dead) {
		ret = -ENODEV;
	} else {
		kprof_vm_flags_set(vma, VM_MIXEDMAP);
		kref_get(&ring->ref);
		vma->vm_private_data = ring;
		vma->vm_ops = &kprof_ring_vm_ops;
	}
	up_read(&kd->mmap_sem);
	return ret;
}
