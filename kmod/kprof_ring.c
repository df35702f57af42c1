// SPDX-License-Identifier: GPL-2.0
/*
 * Capture ring memory: DMA-coherent data chunks from the backend's parent
 * device plus one control page, and their read-only user mapping.
 *
 * The ring is reference counted: the capture holds one reference and every
 * user mapping another (vm_ops open/close), so the memory stays valid for
 * as long as user space can see it, even after the capture stopped, the
 * file was closed or the device was removed.
 */
#include <linux/dma-mapping.h>
#include <linux/gfp.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "kprof_internal.h"

/* Largest chunk we ask for: MAX_ORDER - 1 pages (4 MiB on x86). */
#define KPROF_CHUNK_SHIFT_MAX	(PAGE_SHIFT + MAX_ORDER - 1)

static void kprof_ring_free_chunks(struct kprof_ring *ring)
{
	size_t chunk = 1UL << ring->chunk_shift;
	u32 i;

	for (i = 0; i < ring->nr_chunks; i++)
		if (ring->chunks[i].cpu)
			dma_free_coherent(ring->dma_dev, chunk,
					  ring->chunks[i].cpu,
					  ring->chunks[i].dma);
}

static void kprof_ring_release(struct kref *ref)
{
	struct kprof_ring *ring = container_of(ref, struct kprof_ring, ref);

	kprof_ring_free_chunks(ring);
	put_device(ring->dma_dev);
	free_page((unsigned long)ring->ctrl);
	kvfree(ring);
}

void kprof_ring_put(struct kprof_ring *ring)
{
	kref_put(&ring->ref, kprof_ring_release);
}

/* Allocate size bytes (power of two) as chunks of 1 << shift bytes. */
static struct kprof_ring *kprof_ring_try_alloc(struct device *dev, u32 size,
					       u32 shift)
{
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
		/* Failure is expected when memory is fragmented: retry smaller. */
		ring->chunks[i].cpu = dma_alloc_coherent(dev, 1UL << shift,
							 &ring->chunks[i].dma,
							 GFP_KERNEL | __GFP_NOWARN);
		if (!ring->chunks[i].cpu) {
			kprof_ring_free_chunks(ring);
			kvfree(ring);
			return NULL;
		}
	}
	return ring;
}

static struct kprof_ring *kprof_ring_alloc(struct kprof_device *kd, u32 size)
{
	struct device *dev = get_device(kd->parent);
	struct kprof_ring *ring = NULL;
	struct kprof_ring_ctrl *ctrl;
	u32 shift = min_t(u32, ilog2(size), KPROF_CHUNK_SHIFT_MAX);

	ctrl = (struct kprof_ring_ctrl *)get_zeroed_page(GFP_KERNEL);
	if (!ctrl)
		goto err;
	for (; shift >= ilog2(KPROF_RING_SIZE_MIN); shift--) {
		ring = kprof_ring_try_alloc(dev, size, shift);
		if (ring)
			break;
	}
	if (!ring)
		goto err;

	kref_init(&ring->ref);
	ring->ctrl = ctrl;
	ctrl->data_size = size;
	ctrl->data_offset = PAGE_SIZE;
	return ring;

err:
	free_page((unsigned long)ctrl);
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
	clear_page(ring->ctrl);
	ring->ctrl->data_size = ring->size;
	ring->ctrl->data_offset = PAGE_SIZE;
}

/* A clean ring of size bytes: the cached one if it fits, else a new one. */
struct kprof_ring *kprof_ring_get(struct kprof_device *kd, u32 size)
{
	struct kprof_ring *ring;

	spin_lock(&kd->cache_lock);
	ring = kd->ring_cache;
	kd->ring_cache = NULL;
	spin_unlock(&kd->cache_lock);

	if (ring && ring->size == size) {
		kprof_ring_scrub(ring);
		return ring;
	}
	if (ring)
		kprof_ring_put(ring);
	return kprof_ring_alloc(kd, size);
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
		spin_lock(&kd->cache_lock);
		if (!kd->cache_closed && !kd->ring_cache) {
			kd->ring_cache = ring;
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
	if (ring)
		kprof_ring_put(ring);
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

static const struct vm_operations_struct kprof_ring_vm_ops = {
	.open = kprof_ring_vm_open,
	.close = kprof_ring_vm_close,
};

/*
 * Map the control page, then as much of the data as the vma covers.
 * dma_mmap_coherent() maps a buffer over a whole vma, so each chunk is
 * mapped with the vma bounds narrowed to the chunk's part of it; the vma
 * is not yet visible to anyone else while ->mmap runs.
 */
int kprof_ring_mmap(struct kprof_ring *ring, struct vm_area_struct *vma)
{
	unsigned long start = vma->vm_start, end = vma->vm_end;
	unsigned long pgoff = vma->vm_pgoff;
	unsigned long chunk = 1UL << ring->chunk_shift;
	unsigned long addr;
	u32 i;
	int ret;

	if (end - start > PAGE_SIZE + (unsigned long)ring->size)
		return -EINVAL;

	ret = remap_pfn_range(vma, start, virt_to_phys(ring->ctrl) >> PAGE_SHIFT,
			      PAGE_SIZE, vma->vm_page_prot);
	if (ret)
		return ret;

	for (i = 0, addr = start + PAGE_SIZE; addr < end; i++, addr += chunk) {
		vma->vm_start = addr;
		vma->vm_end = min(addr + chunk, end);
		vma->vm_pgoff = 0;
		ret = dma_mmap_coherent(ring->dma_dev, vma, ring->chunks[i].cpu,
					ring->chunks[i].dma, chunk);
		vma->vm_start = start;
		vma->vm_end = end;
		vma->vm_pgoff = pgoff;
		if (ret)
			return ret;
	}

	kref_get(&ring->ref);
	vma->vm_private_data = ring;
	vma->vm_ops = &kprof_ring_vm_ops;
	return 0;
}
