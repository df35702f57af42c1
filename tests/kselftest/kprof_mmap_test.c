// SPDX-License-Identifier: GPL-2.0
/*
 * mmap of the capture ring and of the live counter block: read-only, in
 * range, consistent with read(), and alive as long as it is mapped; shared
 * only, never executable, not inherited by fork(), and still right after
 * mremap() and partial munmap().
 */
#include <setjmp.h>
#include <signal.h>

#include "kprof_test_util.h"
#include "kprof_harness.h"

#define NS_5S	5000000000ULL

FIXTURE(map) {
	int fd, simfd;
	size_t pg;
	struct kprof_device_info info;
};

FIXTURE_SETUP(map)
{
	self->pg = KT_PAGE_SIZE;
	self->fd = kt_open_dev(0);
	ASSERT_LE(0, self->fd) TH_LOG("open /dev/kprof0: %s", strerror(errno));
	self->simfd = kt_open_sim(0);
	ASSERT_LE(0, self->simfd);
	ASSERT_EQ(0, kt_info(self->fd, &self->info));
	ASSERT_EQ(0, kt_start(self->fd, 0, KPROF_RING_SIZE_MIN, 0));
}

FIXTURE_TEARDOWN(map)
{
	kt_stop(self->fd);
	kt_sync_all(self->simfd, NS_5S);
	close(self->simfd);
	close(self->fd);
}

static int try_map(int fd, size_t len, int prot, int flags, off_t off)
{
	void *p = mmap(NULL, len, prot, flags, fd, off);

	if (p == MAP_FAILED)
		return -errno;
	munmap(p, len);
	return 0;
}

TEST_F(map, ring_maps_read_only)
{
	size_t len = self->pg + KPROF_RING_SIZE_MIN;

	EXPECT_EQ(0, try_map(self->fd, len, PROT_READ, MAP_SHARED,
			     KPROF_MMAP_RING));
	EXPECT_EQ(-EPERM, try_map(self->fd, len, PROT_READ | PROT_WRITE,
				  MAP_SHARED, KPROF_MMAP_RING));
	EXPECT_EQ(-EPERM, try_map(self->fd, self->pg, PROT_WRITE, MAP_SHARED,
				  KPROF_MMAP_RING));
}

TEST_F(map, ring_mprotect_write_refused)
{
	size_t len = self->pg + KPROF_RING_SIZE_MIN;
	void *p = mmap(NULL, len, PROT_READ, MAP_SHARED, self->fd,
		       KPROF_MMAP_RING);

	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(-1, mprotect(p, len, PROT_READ | PROT_WRITE));
	EXPECT_EQ(EACCES, errno);
	EXPECT_EQ(-1, mprotect(p, self->pg, PROT_READ | PROT_WRITE));
	EXPECT_EQ(EACCES, errno);
	munmap(p, len);
}

TEST_F(map, ring_bad_offsets_and_lengths)
{
	size_t full = self->pg + KPROF_RING_SIZE_MIN;

	/* Longer than control page plus data. */
	EXPECT_EQ(-EINVAL, try_map(self->fd, full + self->pg, PROT_READ,
				   MAP_SHARED, KPROF_MMAP_RING));
	/* Offsets inside the ring, past it, and between the two regions. */
	EXPECT_EQ(-EINVAL, try_map(self->fd, self->pg, PROT_READ, MAP_SHARED,
				   self->pg));
	EXPECT_EQ(-EINVAL, try_map(self->fd, self->pg, PROT_READ, MAP_SHARED,
				   full));
	EXPECT_EQ(-EINVAL, try_map(self->fd, self->pg, PROT_READ, MAP_SHARED,
				   KPROF_MMAP_COUNTERS / 2));
	EXPECT_EQ(-EINVAL, try_map(self->fd, self->pg, PROT_READ, MAP_SHARED,
				   (off_t)KPROF_MMAP_COUNTERS + self->pg));
	EXPECT_EQ(-EINVAL, try_map(self->fd, self->pg, PROT_READ, MAP_SHARED,
				   (off_t)1 << 40));
}

/* The ring belongs to whoever holds the capture. */
TEST_F(map, ring_needs_capture)
{
	int fd2 = kt_open_dev(0);

	ASSERT_LE(0, fd2);
	EXPECT_EQ(-EINVAL, try_map(fd2, self->pg, PROT_READ, MAP_SHARED,
				   KPROF_MMAP_RING));
	close(fd2);
}

TEST_F(map, counters_map_read_only)
{
	size_t len = self->info.counter_block_size;

	ASSERT_LT(0, len);
	EXPECT_EQ(0, try_map(self->fd, len, PROT_READ, MAP_SHARED,
			     KPROF_MMAP_COUNTERS));
	EXPECT_EQ(-EPERM, try_map(self->fd, len, PROT_READ | PROT_WRITE,
				  MAP_SHARED, KPROF_MMAP_COUNTERS));
	EXPECT_EQ(-EINVAL, try_map(self->fd,
				   ((len + self->pg - 1) & ~(self->pg - 1)) +
				   self->pg, PROT_READ, MAP_SHARED,
				   KPROF_MMAP_COUNTERS));
}

TEST_F(map, counters_block_live)
{
	size_t len = self->info.counter_block_size;
	const struct kprof_counter_block *b;
	uint64_t seq0, busy0 = 0, busy1 = 0;
	unsigned int nc;
	void *p;

	p = mmap(NULL, len, PROT_READ, MAP_SHARED, self->fd,
		 KPROF_MMAP_COUNTERS);
	ASSERT_NE(MAP_FAILED, p);
	b = p;
	ASSERT_EQ(self->info.num_cores, b->num_cores);
	ASSERT_EQ(self->info.num_counters, b->num_counters);
	nc = b->num_counters;
	seq0 = __atomic_load_n(&b->seq, __ATOMIC_ACQUIRE);
	/* Counter 0 is busy_cycles; core 0 only runs the ops below. */
	busy0 = b->values[0 * nc + 0];
	for (int i = 0; i < 3; i++) {
		ASSERT_LT(0, kt_launch(self->simfd, "mm", 0, 1, KT_SMALL_FLOPS,
				       KT_SMALL_BYTES, 0));
	}
	ASSERT_EQ(0, kt_sync_all(self->simfd, NS_5S));
	EXPECT_LT(seq0, __atomic_load_n(&b->seq, __ATOMIC_ACQUIRE));
	busy1 = b->values[0 * nc + 0];
	EXPECT_LT(busy0, busy1);
	munmap(p, len);
}

/* Compacts the records of buf in place without PAD; UINT64_MAX if torn. */
static uint64_t strip_pad(uint8_t *buf, uint64_t len)
{
	uint64_t in = 0, out = 0;

	while (in < len) {
		struct kprof_rec_hdr *h = (void *)(buf + in);
		uint16_t sz = h->size;

		if (sz < 8 || sz % 8 || in + sz > len)
			return UINT64_MAX;
		if (h->type != KPROF_REC_PAD) {
			memmove(buf + out, h, sz);
			out += sz;
		}
		in += sz;
	}
	return out;
}

/* What mmap shows between tail and head is exactly what read() returns. */
TEST_F_TIMEOUT(map, ring_matches_read, 60)
{
	struct kt_ring r;
	uint8_t *snap, *got;
	uint64_t head, tail, len, a, b;
	ssize_t n, total = 0;

	ASSERT_EQ(0, kt_ring_map(&r, self->fd));
	for (int i = 0; i < 4; i++) {
		ASSERT_LT(0, kt_launch(self->simfd, "cmp", 0, 4, KT_SMALL_FLOPS,
				       KT_SMALL_BYTES, 1));
	}
	ASSERT_EQ(0, kt_sync_all(self->simfd, NS_5S));
	/* Stop: the stream is final, nothing moves while we compare. */
	ASSERT_EQ(0, kt_stop(self->fd));
	kt_sleep_ms(100);
	head = kt_ring_head(&r);
	tail = r.ctrl->tail;
	ASSERT_EQ(0, tail);
	len = head - tail;
	ASSERT_LT(0, len);
	ASSERT_GE(r.data_size, len);
	snap = malloc(len);
	got = malloc(len + 4096);
	ASSERT_NE(NULL, snap);
	ASSERT_NE(NULL, got);
	memcpy(snap, r.data, len);	/* no wrap: less than one ring */
	while ((n = read(self->fd, got + total, len + 4096 - total)) > 0)
		total += n;
	ASSERT_EQ(0, n);
	/* PAD is filler, not data: compare the non-PAD records of both. */
	a = strip_pad(snap, len);
	b = strip_pad(got, (uint64_t)total);
	ASSERT_NE(UINT64_MAX, a);
	ASSERT_NE(UINT64_MAX, b);
	ASSERT_EQ(a, b);
	EXPECT_EQ(0, memcmp(snap, got, a));
	EXPECT_EQ(head, r.ctrl->tail);
	free(snap);
	free(got);
	kt_ring_unmap(&r);
}

/* The mapping outlives the capture and the fd: no use-after-free. */
TEST_F(map, ring_mapping_survives_close)
{
	struct kt_ring r;
	volatile uint64_t sum = 0;

	ASSERT_EQ(0, kt_ring_map(&r, self->fd));
	ASSERT_EQ(0, kt_stop(self->fd));
	close(self->fd);
	self->fd = kt_open_dev(0);
	ASSERT_LE(0, self->fd);
	/* The device is free again while the old mapping is still there. */
	ASSERT_EQ(0, kt_start(self->fd, 0, KPROF_RING_SIZE_MIN, 0));
	for (uint32_t i = 0; i < r.data_size; i += 64)
		sum += r.data[i];
	EXPECT_EQ(KPROF_STATE_STOPPED, r.ctrl->state);
	kt_ring_unmap(&r);
}

/* The control page: data region placement and zeroed reserved words. */
TEST_F(map, ring_ctrl_layout)
{
	struct kt_ring r;

	ASSERT_EQ(0, kt_ring_map(&r, self->fd));
	EXPECT_EQ(self->pg, r.ctrl->data_offset);
	EXPECT_EQ(KPROF_RING_SIZE_MIN, r.ctrl->data_size);
	EXPECT_EQ(KPROF_STATE_RUNNING, r.ctrl->state);
	EXPECT_LE(r.ctrl->tail, r.ctrl->head);
	EXPECT_EQ(0, r.ctrl->reserved0);
	EXPECT_TRUE(kt_all_zero((const void *)r.ctrl->reserved,
				sizeof(r.ctrl->reserved)));
	kt_ring_unmap(&r);
}

/* A private (copy-on-write) view of the ring or counters is refused. */
TEST_F(map, private_mapping_refused)
{
	EXPECT_EQ(-EINVAL, try_map(self->fd, self->pg + KPROF_RING_SIZE_MIN,
				   PROT_READ, MAP_PRIVATE, KPROF_MMAP_RING));
	EXPECT_EQ(-EINVAL, try_map(self->fd, self->info.counter_block_size,
				   PROT_READ, MAP_PRIVATE, KPROF_MMAP_COUNTERS));
}

/* Never executable: neither at mmap() nor later through mprotect(). */
TEST_F(map, exec_refused)
{
	size_t len = self->pg + KPROF_RING_SIZE_MIN;
	void *p;

	EXPECT_EQ(-EPERM, try_map(self->fd, len, PROT_READ | PROT_EXEC,
				  MAP_SHARED, KPROF_MMAP_RING));
	EXPECT_EQ(-EPERM, try_map(self->fd, self->info.counter_block_size,
				  PROT_READ | PROT_EXEC, MAP_SHARED,
				  KPROF_MMAP_COUNTERS));
	p = mmap(NULL, len, PROT_READ, MAP_SHARED, self->fd, KPROF_MMAP_RING);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(-1, mprotect(p, len, PROT_READ | PROT_EXEC));
	EXPECT_EQ(EACCES, errno);
	munmap(p, len);
	p = mmap(NULL, self->info.counter_block_size, PROT_READ, MAP_SHARED,
		 self->fd, KPROF_MMAP_COUNTERS);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(-1, mprotect(p, self->info.counter_block_size,
			       PROT_READ | PROT_EXEC));
	EXPECT_EQ(EACCES, errno);
	munmap(p, self->info.counter_block_size);
}

/* 0 if nothing is mapped at [p, p + len) in this process. */
static int unmapped(void *p, size_t len)
{
	unsigned char vec[4];

	return mincore(p, len, vec) < 0 && errno == ENOMEM ? 0 : 1;
}

/* fork(): the child gets neither mapping (VM_DONTCOPY). */
TEST_F(map, fork_does_not_inherit)
{
	size_t len = self->pg + KPROF_RING_SIZE_MIN;
	size_t clen = self->info.counter_block_size;
	void *ring, *cnt;
	pid_t pid;

	ring = mmap(NULL, len, PROT_READ, MAP_SHARED, self->fd,
		    KPROF_MMAP_RING);
	ASSERT_NE(MAP_FAILED, ring);
	cnt = mmap(NULL, clen, PROT_READ, MAP_SHARED, self->fd,
		   KPROF_MMAP_COUNTERS);
	ASSERT_NE(MAP_FAILED, cnt);
	/* Touched, so that the parent's page tables are populated. */
	EXPECT_EQ(KPROF_RING_SIZE_MIN,
		  ((volatile struct kprof_ring_ctrl *)ring)->data_size);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(unmapped(ring, self->pg) | unmapped(cnt, self->pg) << 1);
	EXPECT_EQ(0, kt_wait_child(pid))
		TH_LOG("child exit 1: ring inherited, 2: counters, 3: both");
	/* The parent's mappings are untouched. */
	EXPECT_EQ(KPROF_RING_SIZE_MIN,
		  ((volatile struct kprof_ring_ctrl *)ring)->data_size);
	munmap(cnt, clen);
	munmap(ring, len);
}

/* Records of a stopped capture, for the tests that move the mapping. */
static void fill_and_stop(struct __test_metadata *_metadata, int fd,
			  int simfd)
{
	for (int i = 0; i < 4; i++)
		ASSERT_LT(0, kt_launch(simfd, "mv", 0, 4, KT_SMALL_FLOPS,
				       KT_SMALL_BYTES, 1));
	ASSERT_EQ(0, kt_sync_all(simfd, NS_5S));
	ASSERT_EQ(0, kt_stop(fd));
}

/* mremap() moves the mapping intact; it cannot grow it. */
TEST_F_TIMEOUT(map, mremap_moves_not_grows, 60)
{
	size_t len = self->pg + KPROF_RING_SIZE_MIN;
	uint8_t *a, *b, *snap;
	void *hole;

	fill_and_stop(_metadata, self->fd, self->simfd);
	a = mmap(NULL, len, PROT_READ, MAP_SHARED, self->fd, KPROF_MMAP_RING);
	ASSERT_NE(MAP_FAILED, a);
	ASSERT_LT(0, ((volatile struct kprof_ring_ctrl *)a)->head);
	snap = malloc(len);
	ASSERT_NE(NULL, snap);
	memcpy(snap, a, len);

	EXPECT_EQ(MAP_FAILED, mremap(a, len, len + self->pg, MREMAP_MAYMOVE));
	hole = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, hole);
	b = mremap(a, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, hole);
	ASSERT_EQ((void *)hole, (void *)b);
	EXPECT_EQ(0, unmapped(a, self->pg));
	EXPECT_EQ(0, memcmp(snap, b, len));
	munmap(b, len);
	free(snap);
}

/* Unmapping part of the mapping leaves the rest showing the right pages. */
TEST_F_TIMEOUT(map, partial_munmap, 60)
{
	size_t len = self->pg + KPROF_RING_SIZE_MIN, pg = self->pg;
	uint8_t *a, *snap;

	fill_and_stop(_metadata, self->fd, self->simfd);
	a = mmap(NULL, len, PROT_READ, MAP_SHARED, self->fd, KPROF_MMAP_RING);
	ASSERT_NE(MAP_FAILED, a);
	snap = malloc(len);
	ASSERT_NE(NULL, snap);
	memcpy(snap, a, len);
	munmap(a, len);

	a = mmap(NULL, len, PROT_READ, MAP_SHARED, self->fd, KPROF_MMAP_RING);
	ASSERT_NE(MAP_FAILED, a);
	/* Punch out the control page and two pages in the middle. */
	ASSERT_EQ(0, munmap(a, pg));
	ASSERT_EQ(0, munmap(a + 4 * pg, 2 * pg));
	EXPECT_EQ(0, memcmp(snap + pg, a + pg, 3 * pg));
	EXPECT_EQ(0, memcmp(snap + 6 * pg, a + 6 * pg, len - 6 * pg));
	EXPECT_EQ(0, unmapped(a + 4 * pg, 2 * pg));
	munmap(a + pg, 3 * pg);
	munmap(a + 6 * pg, len - 6 * pg);
	free(snap);
}

TEST_HARNESS_MAIN
