// SPDX-License-Identifier: GPL-2.0
/*
 * Bad input for every struct-carrying ioctl of /dev/kprofN and of the sim
 * vendor device: short sizes, unknown flags, non-zero reserved fields, bad
 * pointers (NULL, unmapped, kernel, straddling a PROT_NONE page), and
 * unknown commands; and struct versioning: /dev/kprofN takes a newer
 * (larger, zero tail) or older (smaller) struct whatever size the command
 * number encodes. Each class runs once per ioctl (fixture variants).
 */
#include <stddef.h>

#include "kprof_test_util.h"
#include "kprof_harness.h"

/* Large enough for any struct tested here. */
#define ARG_MAX_SIZE	sizeof(struct kprof_counter_info)

struct span {
	size_t off, len;
};

FIXTURE(ioc) {
	int fd;			/* the fd the ioctl goes to */
	int kfd;		/* /dev/kprof0, for cleanup */
	int simfd;
	uint8_t arg[ARG_MAX_SIZE];
};

FIXTURE_VARIANT(ioc) {
	unsigned long cmd;
	size_t size;
	bool on_sim;		/* vendor device ioctl */
	bool exact_size;	/* kprof_sim.h: size == sizeof, no growth */
	size_t min_size;	/* kprof.h: the struct without its reserved tail */
	struct span reserved[3];
	void (*prep)(void *arg);
};

static void prep_size(void *arg, size_t size)
{
	memset(arg, 0, size);
	*(uint32_t *)arg = (uint32_t)size;
}

static void prep_info(void *a) { prep_size(a, sizeof(struct kprof_device_info)); }
static void prep_counters(void *a) { prep_size(a, sizeof(struct kprof_counter_info)); }
static void prep_clock_get(void *a) { prep_size(a, sizeof(struct kprof_clock_state)); }
static void prep_sync_sample(void *a) { prep_size(a, sizeof(struct kprof_sync_sample)); }
static void prep_start(void *a) { prep_size(a, sizeof(struct kprof_capture_params)); }

static void prep_clock_set(void *a)
{
	struct kprof_clock_req *r = a;

	prep_size(a, sizeof(*r));
	r->op = KPROF_CLOCK_OP_LOCK_BASE;
}

static void prep_launch(void *a)
{
	kt_launch_init(a, "badinput", 0, 1, KT_SMALL_FLOPS, KT_SMALL_BYTES, 0);
}

static void prep_sim_sync(void *a)
{
	struct kprof_sim_sync *s = a;

	prep_size(a, sizeof(*s));
	s->flags = KPROF_SIM_SYNC_ALL;
}

#define SPAN(type, field) { offsetof(type, field), sizeof(((type *)0)->field) }

FIXTURE_VARIANT_ADD(ioc, info) {
	.cmd = KPROF_IOC_INFO, .size = sizeof(struct kprof_device_info),
	.min_size = offsetof(struct kprof_device_info, reserved),
	.prep = prep_info,
	.reserved = { SPAN(struct kprof_device_info, reserved) },
};

FIXTURE_VARIANT_ADD(ioc, counters) {
	.cmd = KPROF_IOC_COUNTERS, .size = sizeof(struct kprof_counter_info),
	.min_size = offsetof(struct kprof_counter_info, reserved),
	.prep = prep_counters,
	.reserved = { SPAN(struct kprof_counter_info, reserved) },
};

FIXTURE_VARIANT_ADD(ioc, capture_start) {
	.cmd = KPROF_IOC_CAPTURE_START,
	.size = sizeof(struct kprof_capture_params),
	.min_size = offsetof(struct kprof_capture_params, reserved),
	.reserved = { SPAN(struct kprof_capture_params, reserved) },
	.prep = prep_start,
};

FIXTURE_VARIANT_ADD(ioc, clock_get) {
	.cmd = KPROF_IOC_CLOCK_GET, .size = sizeof(struct kprof_clock_state),
	.min_size = offsetof(struct kprof_clock_state, reserved),
	.prep = prep_clock_get,
	.reserved = { SPAN(struct kprof_clock_state, reserved0),
		      SPAN(struct kprof_clock_state, reserved) },
};

FIXTURE_VARIANT_ADD(ioc, clock_set) {
	.cmd = KPROF_IOC_CLOCK_SET, .size = sizeof(struct kprof_clock_req),
	.min_size = offsetof(struct kprof_clock_req, reserved),
	.reserved = { SPAN(struct kprof_clock_req, reserved0),
		      SPAN(struct kprof_clock_req, reserved) },
	.prep = prep_clock_set,
};

FIXTURE_VARIANT_ADD(ioc, sync_sample) {
	.cmd = KPROF_IOC_SYNC_SAMPLE, .size = sizeof(struct kprof_sync_sample),
	.min_size = offsetof(struct kprof_sync_sample, reserved),
	.prep = prep_sync_sample,
	.reserved = { SPAN(struct kprof_sync_sample, reserved0),
		      SPAN(struct kprof_sync_sample, reserved) },
};

FIXTURE_VARIANT_ADD(ioc, sim_launch) {
	.cmd = KPROF_SIM_IOC_LAUNCH, .size = sizeof(struct kprof_sim_launch),
	.on_sim = true, .exact_size = true,
	.reserved = { SPAN(struct kprof_sim_launch, reserved0),
		      SPAN(struct kprof_sim_launch, reserved) },
	.prep = prep_launch,
};

FIXTURE_VARIANT_ADD(ioc, sim_sync) {
	.cmd = KPROF_SIM_IOC_SYNC, .size = sizeof(struct kprof_sim_sync),
	.on_sim = true, .exact_size = true,
	.reserved = { SPAN(struct kprof_sim_sync, reserved) },
	.prep = prep_sim_sync,
};

FIXTURE_SETUP(ioc)
{
	self->kfd = kt_open_dev(0);
	ASSERT_LE(0, self->kfd) TH_LOG("open /dev/kprof0: %s", strerror(errno));
	self->simfd = kt_open_sim(0);
	ASSERT_LE(0, self->simfd) TH_LOG("open sim: %s", strerror(errno));
	self->fd = variant->on_sim ? self->simfd : self->kfd;
	variant->prep(self->arg);
}

FIXTURE_TEARDOWN(ioc)
{
	/* Undo whatever an unexpected success did. */
	kt_stop(self->kfd);
	if (variant->cmd == KPROF_IOC_CLOCK_SET)
		kt_clock_set(self->kfd, KPROF_CLOCK_OP_RESET, 0);
	if (variant->on_sim)
		kt_sync_all(self->simfd, 5000000000ULL);
	close(self->simfd);
	close(self->kfd);
}

/* The well-formed argument is accepted: the other cases fail for cause. */
TEST_F(ioc, valid_arg_accepted)
{
	ASSERT_EQ(0, kt_ioctl(self->fd, variant->cmd, self->arg));
}

TEST_F(ioc, size_zero)
{
	*(uint32_t *)self->arg = 0;
	ASSERT_EQ(-EINVAL, kt_ioctl(self->fd, variant->cmd, self->arg));
}

TEST_F(ioc, size_short)
{
	size_t min = variant->exact_size ? variant->size : variant->min_size;

	*(uint32_t *)self->arg = (uint32_t)min - 8;
	ASSERT_EQ(-EINVAL, kt_ioctl(self->fd, variant->cmd, self->arg));
	*(uint32_t *)self->arg = 4;
	ASSERT_EQ(-EINVAL, kt_ioctl(self->fd, variant->cmd, self->arg));
}

/* The command number as a program built with size bytes would encode it. */
static unsigned long cmd_with_size(unsigned long cmd, size_t size)
{
	return (cmd & ~((unsigned long)_IOC_SIZEMASK << _IOC_SIZESHIFT)) |
	       ((unsigned long)size << _IOC_SIZESHIFT);
}

/*
 * An older, smaller struct (up to its reserved tail) works: the kernel
 * takes what is missing as zero, writes nothing past it, and says how
 * much it wrote. The vendor uAPI pins the size instead.
 */
TEST_F(ioc, size_older_ok)
{
	uint8_t buf[ARG_MAX_SIZE + 64];
	size_t min = variant->min_size, i;

	if (variant->exact_size) {
		*(uint32_t *)self->arg = (uint32_t)variant->size - 8;
		ASSERT_EQ(-EINVAL, kt_ioctl(self->fd, variant->cmd, self->arg));
		return;
	}
	ASSERT_LT(0, min);
	memset(buf, 0xaa, sizeof(buf));
	memcpy(buf, self->arg, min);
	*(uint32_t *)buf = (uint32_t)min;
	ASSERT_EQ(0, kt_ioctl(self->fd, cmd_with_size(variant->cmd, min), buf));
	/* The first byte past size that the command wrote, if any. */
	i = min;
	while (i < sizeof(buf) && buf[i] == 0xaa)
		i++;
	ASSERT_EQ(sizeof(buf), i) TH_LOG("byte %zu written past size", i);
	if (_IOC_DIR(variant->cmd) & _IOC_READ)
		EXPECT_EQ(min, *(uint32_t *)buf);
}

/* Each reserved byte on its own must be refused, in and out structs. */
TEST_F(ioc, reserved_nonzero)
{
	unsigned int checked = 0;

	for (int s = 0; s < 3; s++) {
		const struct span *sp = &variant->reserved[s];

		for (size_t b = 0; b < sp->len; b++) {
			variant->prep(self->arg);
			self->arg[sp->off + b] = 0x01;
			EXPECT_EQ(-EINVAL,
				  kt_ioctl(self->fd, variant->cmd, self->arg))
				TH_LOG("reserved byte at offset %zu", sp->off + b);
			checked++;
		}
	}
	ASSERT_LT(0, checked);
}

TEST_F(ioc, null_pointer)
{
	ASSERT_EQ(-EFAULT, kt_ioctl(self->fd, variant->cmd, NULL));
}

TEST_F(ioc, unmapped_pointer)
{
	size_t pg = KT_PAGE_SIZE;
	void *p = mmap(NULL, pg, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, munmap(p, pg));
	ASSERT_EQ(-EFAULT, kt_ioctl(self->fd, variant->cmd, p));
}

TEST_F(ioc, kernel_pointer)
{
	ASSERT_EQ(-EFAULT, kt_ioctl(self->fd, variant->cmd, KT_KERNEL_PTR));
}

/* A newer, larger struct is fine while the bytes we do not know are 0. */
TEST_F(ioc, size_larger_zero_tail_ok)
{
	uint8_t buf[ARG_MAX_SIZE + 64];

	memset(buf, 0, sizeof(buf));
	memcpy(buf, self->arg, variant->size);
	*(uint32_t *)buf = (uint32_t)variant->size + 64;
	/* The vendor uAPI pins the size: a larger one is refused. */
	if (variant->exact_size) {
		ASSERT_EQ(-EINVAL, kt_ioctl(self->fd, variant->cmd, buf));
		return;
	}
	/* A newer program's command number encodes its larger size. */
	ASSERT_EQ(0, kt_ioctl(self->fd,
			      cmd_with_size(variant->cmd, variant->size + 64),
			      buf));
	/* Out, size says how much of the struct the kernel filled. */
	if (_IOC_DIR(variant->cmd) & _IOC_READ)
		EXPECT_EQ(variant->size, *(uint32_t *)buf);
	EXPECT_TRUE(kt_all_zero(buf + variant->size, 64));
}

TEST_F(ioc, size_larger_nonzero_tail)
{
	uint8_t buf[ARG_MAX_SIZE + 64];

	memset(buf, 0, sizeof(buf));
	memcpy(buf, self->arg, variant->size);
	*(uint32_t *)buf = (uint32_t)variant->size + 64;
	buf[variant->size + 63] = 1;
	/* A field this kernel does not know is set: E2BIG, never ignored. */
	ASSERT_EQ(variant->exact_size ? -EINVAL : -E2BIG,
		  kt_ioctl(self->fd, variant->exact_size ? variant->cmd :
			   cmd_with_size(variant->cmd, variant->size + 64),
			   buf));
}

/* Size readable, the rest of the struct in a PROT_NONE page. */
TEST_F(ioc, straddles_guard_page)
{
	size_t pg = KT_PAGE_SIZE, half = variant->size / 2 & ~7UL;
	uint8_t *p = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ASSERT_NE(MAP_FAILED, p);
	memcpy(p + pg - half, self->arg, half);
	ASSERT_EQ(0, mprotect(p + pg, pg, PROT_NONE));
	EXPECT_EQ(-EFAULT, kt_ioctl(self->fd, variant->cmd, p + pg - half));
	munmap(p, 2 * pg);
}

/* Alignment is not the caller's problem: an odd address works. */
TEST_F(ioc, misaligned_pointer_ok)
{
	uint8_t *buf = malloc(variant->size + 16);

	ASSERT_NE(NULL, buf);
	memcpy(buf + 1, self->arg, variant->size);
	EXPECT_EQ(0, kt_ioctl(self->fd, variant->cmd, buf + 1));
	free(buf);
}

/*
 * Another size encoded in the command: the vendor device matches the
 * whole number (ENOTTY); /dev/kprofN goes by the struct's size field.
 */
TEST_F(ioc, other_encoded_size)
{
	unsigned long cmd = cmd_with_size(variant->cmd, variant->size + 8);

	ASSERT_EQ(variant->exact_size ? -ENOTTY : 0,
		  kt_ioctl(self->fd, cmd, self->arg));
}

/* The direction is part of the command, even without a size check. */
TEST_F(ioc, other_direction)
{
	unsigned long cmd = variant->cmd ^ ((unsigned long)_IOC_READ << _IOC_DIRSHIFT);

	ASSERT_EQ(-ENOTTY, kt_ioctl(self->fd, cmd, self->arg));
}

/* ------------------------------------------------------------------ */
/* Commands and values                                                 */
/* ------------------------------------------------------------------ */

FIXTURE(dev) {
	int fd, simfd;
	struct kprof_device_info info;
};

FIXTURE_SETUP(dev)
{
	self->fd = kt_open_dev(0);
	ASSERT_LE(0, self->fd);
	self->simfd = kt_open_sim(0);
	ASSERT_LE(0, self->simfd);
	ASSERT_EQ(0, kt_info(self->fd, &self->info));
}

FIXTURE_TEARDOWN(dev)
{
	kt_stop(self->fd);
	kt_sync_all(self->simfd, 5000000000ULL);
	close(self->simfd);
	close(self->fd);
}

TEST_F(dev, unknown_commands)
{
	uint64_t buf[64] = { 0 };

	EXPECT_EQ(-ENOTTY, kt_ioctl(self->fd, _IO(KPROF_IOC_MAGIC, 0x7f), buf));
	EXPECT_EQ(-ENOTTY, kt_ioctl(self->fd, _IOWR(KPROF_IOC_MAGIC, 0x05, __u64), buf));
	EXPECT_EQ(-ENOTTY, kt_ioctl(self->fd, _IO('x', 0x00), buf));
	/* The vendor device's commands are not capture commands... */
	EXPECT_EQ(-ENOTTY, kt_ioctl(self->fd, KPROF_SIM_IOC_LAUNCH, buf));
	/* ... and the other way round. */
	EXPECT_EQ(-ENOTTY, kt_ioctl(self->simfd, KPROF_IOC_INFO, buf));
	EXPECT_EQ(-ENOTTY, kt_ioctl(self->simfd, _IO(KPROF_SIM_IOC_MAGIC, 0x7f), buf));
	/* Direction bits are part of the command. */
	EXPECT_EQ(-ENOTTY, kt_ioctl(self->fd,
				    _IOR(KPROF_IOC_MAGIC, 0x00, struct kprof_device_info),
				    buf));
}

TEST_F(dev, unknown_flags)
{
	struct kprof_capture_params p;
	struct kprof_clock_req c;
	struct kprof_sim_launch l;
	struct kprof_sim_sync s;

	kt_params_init(&p);
	p.flags = ~KPROF_CAPTURE_FLAGS_ALL;
	EXPECT_EQ(-EINVAL, kt_ioctl(self->fd, KPROF_IOC_CAPTURE_START, &p));
	p.flags = 1U << 31;
	EXPECT_EQ(-EINVAL, kt_ioctl(self->fd, KPROF_IOC_CAPTURE_START, &p));

	/* The clock request's op is its verb: unknown ones are refused. */
	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	c.op = KPROF_CLOCK_OP_RESET + 1;
	EXPECT_EQ(-EINVAL, kt_ioctl(self->fd, KPROF_IOC_CLOCK_SET, &c));
	c.op = 0;
	EXPECT_EQ(-EINVAL, kt_ioctl(self->fd, KPROF_IOC_CLOCK_SET, &c));
	/* mhz means something only to LOCK_MHZ. */
	c.op = KPROF_CLOCK_OP_LOCK_BASE;
	c.mhz = self->info.clock_base_mhz;
	EXPECT_EQ(-EINVAL, kt_ioctl(self->fd, KPROF_IOC_CLOCK_SET, &c));

	kt_launch_init(&l, "flags", 0, 1, KT_SMALL_FLOPS, KT_SMALL_BYTES, 0);
	l.flags = 1;
	EXPECT_EQ(-EINVAL, kt_ioctl(self->simfd, KPROF_SIM_IOC_LAUNCH, &l));

	memset(&s, 0, sizeof(s));
	s.size = sizeof(s);
	s.flags = KPROF_SIM_SYNC_ALL | (1U << 30);
	EXPECT_EQ(-EINVAL, kt_ioctl(self->simfd, KPROF_SIM_IOC_SYNC, &s));
}

TEST_F(dev, ring_size_not_power_of_two)
{
	EXPECT_EQ(-EINVAL, kt_start(self->fd, 0, KPROF_RING_SIZE_MIN + 4096, 0));
	EXPECT_EQ(-EINVAL, kt_start(self->fd, 0, 3 * KPROF_RING_SIZE_MIN, 0));
}

TEST_F(dev, ring_size_out_of_range)
{
	EXPECT_EQ(-EINVAL, kt_start(self->fd, 0, KPROF_RING_SIZE_MIN / 2, 0));
	EXPECT_EQ(-EINVAL, kt_start(self->fd, 0, 4096, 0));
	EXPECT_EQ(-EINVAL, kt_start(self->fd, 0, KPROF_RING_SIZE_MAX * 2U, 0));
	EXPECT_EQ(-EINVAL, kt_start(self->fd, 0, 1U << 31, 0));
	/* The bounds themselves are valid (MIN; MAX may be ENOMEM). */
	ASSERT_EQ(0, kt_start(self->fd, 0, KPROF_RING_SIZE_MIN, 0));
	ASSERT_EQ(0, kt_stop(self->fd));
}

TEST_F(dev, counter_mask_beyond_counters)
{
	uint64_t n = self->info.num_counters;

	ASSERT_GT(64, n);
	EXPECT_EQ(-EINVAL, kt_start(self->fd, 0, 0, 1ULL << n));
	EXPECT_EQ(-EINVAL, kt_start(self->fd, 0, 0, 1ULL << 63));
	/* The highest real counter alone is fine. */
	ASSERT_EQ(0, kt_start(self->fd, 0, 0, 1ULL << (n - 1)));
	ASSERT_EQ(0, kt_stop(self->fd));
}

TEST_F(dev, clock_bad_mhz)
{
	struct kprof_clock_state before, after;

	ASSERT_EQ(0, kt_clock_get(self->fd, &before));
	EXPECT_EQ(-EINVAL, kt_clock_set(self->fd, KPROF_CLOCK_OP_LOCK_MHZ, 0));
	EXPECT_EQ(-EINVAL, kt_clock_set(self->fd, KPROF_CLOCK_OP_LOCK_MHZ,
					self->info.clock_min_mhz - 1));
	EXPECT_EQ(-EINVAL, kt_clock_set(self->fd, KPROF_CLOCK_OP_LOCK_MHZ,
					self->info.clock_max_mhz + 1));
	EXPECT_EQ(-EINVAL, kt_clock_set(self->fd, KPROF_CLOCK_OP_LOCK_MHZ,
					UINT32_MAX));
	EXPECT_EQ(-EINVAL, kt_clock_set(self->fd, 0, 0));
	/* A refused request changed nothing. */
	ASSERT_EQ(0, kt_clock_get(self->fd, &after));
	EXPECT_EQ(before.flags, after.flags);
	EXPECT_EQ(before.locked_mhz, after.locked_mhz);
	EXPECT_EQ(before.saved_flags, after.saved_flags);
}

TEST_F(dev, ring_consume_without_capture)
{
	uint64_t pos = 0;

	EXPECT_EQ(-EINVAL, kt_ioctl(self->fd, KPROF_IOC_RING_CONSUME, &pos));
	EXPECT_EQ(-EINVAL, kt_ioctl(self->fd, KPROF_IOC_CAPTURE_STOP, NULL));
	EXPECT_EQ(-EINVAL, kt_ioctl(self->fd, KPROF_IOC_CAPTURE_PAUSE, NULL));
	EXPECT_EQ(-EINVAL, kt_ioctl(self->fd, KPROF_IOC_CAPTURE_RESUME, NULL));
}

TEST_F(dev, ring_consume_bad_positions)
{
	struct kt_ring r;
	uint64_t pos;

	ASSERT_EQ(0, kt_start(self->fd, 0, KPROF_RING_SIZE_MIN, 0));
	ASSERT_EQ(0, kt_ring_map(&r, self->fd));
	/*
	 * Past any head the ring can have: the head stays within one ring
	 * size of the tail (0 here). head + 8 was not: a SYNC record landing
	 * between reading the head and the ioctl made it valid (seen once on
	 * the debug kernel).
	 */
	pos = KPROF_RING_SIZE_MIN + 8;
	EXPECT_EQ(-EINVAL, kt_ioctl(self->fd, KPROF_IOC_RING_CONSUME, &pos));
	/* misaligned: records are 8-byte aligned */
	pos = 4;
	EXPECT_EQ(-EINVAL, kt_ioctl(self->fd, KPROF_IOC_RING_CONSUME, &pos));
	pos = UINT64_MAX;
	EXPECT_EQ(-EINVAL, kt_ioctl(self->fd, KPROF_IOC_RING_CONSUME, &pos));
	EXPECT_EQ(-EFAULT, kt_ioctl(self->fd, KPROF_IOC_RING_CONSUME, NULL));
	EXPECT_EQ(-EFAULT, kt_ioctl(self->fd, KPROF_IOC_RING_CONSUME,
				    KT_KERNEL_PTR));
	/* The tail did not move. */
	EXPECT_EQ(0, r.ctrl->tail);
	kt_ring_unmap(&r);
}

/* ------------------------------------------------------------------ */
/* Vendor device: bad launches                                         */
/* ------------------------------------------------------------------ */

static int launch_with(int simfd, void (*edit)(struct kprof_sim_launch *,
					       const struct kprof_device_info *),
		       const struct kprof_device_info *info)
{
	struct kprof_sim_launch l;

	kt_launch_init(&l, "bad", 0, 1, KT_SMALL_FLOPS, KT_SMALL_BYTES, 0);
	edit(&l, info);
	return kt_ioctl(simfd, KPROF_SIM_IOC_LAUNCH, &l);
}

static void ed_empty_name(struct kprof_sim_launch *l,
			  const struct kprof_device_info *i)
{
	(void)i;
	memset(l->name, 0, sizeof(l->name));
}

static void ed_unterminated_name(struct kprof_sim_launch *l,
				 const struct kprof_device_info *i)
{
	(void)i;
	memset(l->name, 'a', sizeof(l->name));
}

static void ed_first_core_out(struct kprof_sim_launch *l,
			      const struct kprof_device_info *i)
{
	l->first_core = i->num_cores;
}

static void ed_range_out(struct kprof_sim_launch *l,
			 const struct kprof_device_info *i)
{
	l->first_core = i->num_cores - 1;
	l->num_cores = 2;
}

static void ed_range_overflow(struct kprof_sim_launch *l,
			      const struct kprof_device_info *i)
{
	(void)i;
	l->first_core = 1;
	l->num_cores = UINT32_MAX;
}

static void ed_too_many_zones(struct kprof_sim_launch *l,
			      const struct kprof_device_info *i)
{
	(void)i;
	l->num_zones = 9;
}

TEST_F(dev, sim_launch_bad_values)
{
	EXPECT_EQ(-EINVAL, launch_with(self->simfd, ed_empty_name, &self->info));
	EXPECT_EQ(-EINVAL, launch_with(self->simfd, ed_unterminated_name, &self->info));
	EXPECT_EQ(-EINVAL, launch_with(self->simfd, ed_first_core_out, &self->info));
	EXPECT_EQ(-EINVAL, launch_with(self->simfd, ed_range_out, &self->info));
	EXPECT_EQ(-EINVAL, launch_with(self->simfd, ed_range_overflow, &self->info));
	EXPECT_EQ(-EINVAL, launch_with(self->simfd, ed_too_many_zones, &self->info));
}

/* A refused launch consumes no sequence number. */
TEST_F(dev, sim_launch_refused_takes_no_seq)
{
	int64_t a, b;

	a = kt_launch(self->simfd, "seq", 0, 1, KT_SMALL_FLOPS, KT_SMALL_BYTES, 0);
	ASSERT_LT(0, a);
	EXPECT_EQ(-EINVAL, launch_with(self->simfd, ed_too_many_zones, &self->info));
	b = kt_launch(self->simfd, "seq", 0, 1, KT_SMALL_FLOPS, KT_SMALL_BYTES, 0);
	ASSERT_EQ(a + 1, b);
	ASSERT_EQ(0, kt_sync_all(self->simfd, 5000000000ULL));
}

TEST_F(dev, sim_sync_returns_completed)
{
	struct kprof_sim_sync s;
	int64_t seq;

	seq = kt_launch(self->simfd, "sync", 0, 0, KT_SMALL_FLOPS, KT_SMALL_BYTES, 1);
	ASSERT_LT(0, seq);
	memset(&s, 0xAA, sizeof(s));
	s.size = sizeof(s);
	s.flags = 0;
	s.seq = (uint64_t)seq;
	s.timeout_ns = 5000000000ULL;
	memset(s.reserved, 0, sizeof(s.reserved));
	ASSERT_EQ(0, kt_ioctl(self->simfd, KPROF_SIM_IOC_SYNC, &s));
	EXPECT_LE((uint64_t)seq, s.completed_seq);
	EXPECT_TRUE(kt_all_zero(s.reserved, sizeof(s.reserved)));
}

TEST_HARNESS_MAIN
