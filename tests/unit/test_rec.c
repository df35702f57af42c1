// SPDX-License-Identifier: GPL-2.0
/* Record reader: valid streams, unknown types, truncation, bad sizes, garbage, GPU types. */
#include "kt.h"
#include "kprof_array_size.h"
#include "kprof_rec.h"

static uint64_t bufw[1024];

static size_t put_marker(uint8_t *p, uint32_t seq, uint64_t ts)
{
	struct kprof_rec_marker m = {
		.hdr = { .type = KPROF_REC_MARKER, .size = sizeof(m) },
		.core = 3, .risc = 1, .kind = KPROF_MARK_FW_START,
		.op_seq = seq, .timestamp = ts,
	};
	memcpy(p, &m, sizeof(m));
	return sizeof(m);
}

static int count_all(const void *buf, size_t len, int *nrec, size_t *bad_off,
		     struct kprof_err *err)
{
	struct kprof_rec_iter it;
	const struct kprof_rec_hdr *r;
	int ret;

	kprof_rec_iter_init(&it, buf, len, 1000);
	*nrec = 0;
	while ((ret = kprof_rec_next(&it, &r, err)) == KPROF_REC_OK)
		(*nrec)++;
	*bad_off = it.off;
	return ret;
}

/*
 * The GPU agent's records: each type at its minimum and at a size past it
 * read whole; shorter than its minimum, or not a multiple of 8, refused
 * at its offset (the inline fast path and the slow path agree)
 */
static void gpu_types(void)
{
	static const struct { uint16_t type, min; } t[] = {
		{ KPROF_GREC_AGENT, sizeof(struct kprof_grec_agent) },
		{ KPROF_GREC_KERNEL, KPROF_GREC_KERNEL_V1_SIZE },
		{ KPROF_GREC_COPY, sizeof(struct kprof_grec_copy) },
		{ KPROF_GREC_API, sizeof(struct kprof_grec_api) },
		{ KPROF_GREC_NAME, sizeof(struct kprof_grec_name) },
		{ KPROF_GREC_DROPPED, sizeof(struct kprof_grec_dropped) },
		{ KPROF_GREC_METRICS, sizeof(struct kprof_grec_metrics) },
		{ KPROF_GREC_DEVICE, sizeof(struct kprof_grec_device) },
	};
	struct kprof_err err;
	size_t off;
	int nrec, ret;

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		uint16_t sizes[] = { t[i].min, (uint16_t)(t[i].min + 16), (uint16_t)(t[i].min - 8),
				     (uint16_t)(t[i].min + 4) };

		for (size_t k = 0; k < 4; k++) {
			struct kprof_rec_hdr h = { t[i].type, sizes[k], 0 };
			/* the record, then a marker after it */
			size_t n = ((size_t)sizes[k] + 7) / 8 * 8;

			memset(bufw, 0, sizeof(bufw));
			memcpy(bufw, &h, sizeof(h));
			n += put_marker((uint8_t *)bufw + n, 1, 2);
			ret = count_all(bufw, n, &nrec, &off, &err);
			if (k < 2)
				KT_CHECK(ret == KPROF_REC_END && nrec == 2, "%#x of %u: %d %d",
					 t[i].type, sizes[k], ret, nrec);
			else
				KT_CHECK(ret == KPROF_REC_BAD && nrec == 0 && off == 0 &&
					 strstr(err.msg, "offset 1000"), "%#x of %u: %d %s",
					 t[i].type, sizes[k], ret, err.msg);
		}
	}
}

/* kprof_popcount64() against the compiler's builtin */
static void popcount(void)
{
	static const uint64_t edge[] = { 0, 1, 0x8000000000000000ULL, UINT64_MAX,
					 0x5555555555555555ULL, 0xaaaaaaaaaaaaaaaaULL, 0xff };
	uint64_t s = 88172645463325252ULL;
	int bad = 0;

	for (size_t i = 0; i < ARRAY_SIZE(edge); i++)
		KT_EQ_U64(kprof_popcount64(edge[i]), (uint64_t)__builtin_popcountll(edge[i]));
	for (int i = 0; i < 100000; i++) {
		uint64_t v = kt_xorshift(&s) & kt_xorshift(&s);

		bad += kprof_popcount64(v) != (unsigned int)__builtin_popcountll(v);
	}
	KT_EQ_U64(bad, 0);
}

int main(void)
{
	gpu_types();
	uint8_t *b = (uint8_t *)bufw;
	struct kprof_err err;
	size_t n = 0, off;
	int nrec, ret;

	/* valid: marker, pad, unknown type 77 of 24 bytes, sync, marker */
	n += put_marker(b + n, 1, 100);
	{
		struct kprof_rec_hdr pad = { .type = KPROF_REC_PAD, .size = 16 };

		memcpy(b + n, &pad, 8);
		n += 16;
	}
	{
		struct kprof_rec_hdr unk = { .type = 77, .size = 24 };

		memcpy(b + n, &unk, 8);
		n += 24;
	}
	{
		struct kprof_rec_sync s = { .hdr = { KPROF_REC_SYNC, sizeof(s), 0 },
					    .host_before_ns = 1, .device_cycles = 2,
					    .host_after_ns = 3 };

		memcpy(b + n, &s, sizeof(s));
		n += sizeof(s);
	}
	n += put_marker(b + n, 2, 200);

	{
		struct kprof_rec_iter it;
		const struct kprof_rec_hdr *r;
		const struct kprof_rec_marker *m;

		kprof_rec_iter_init(&it, b, n, 0);
		KT_CHECK(kprof_rec_next(&it, &r, &err) == KPROF_REC_OK, "first");
		m = (const void *)r;
		KT_EQ_U64(m->op_seq, 1);
		KT_EQ_U64(m->timestamp, 100);
		KT_CHECK(kprof_rec_next(&it, &r, &err) == KPROF_REC_OK, "sync");
		KT_EQ_U64(r->type, KPROF_REC_SYNC);
		KT_EQ_U64(it.skipped, 1);
		KT_CHECK(kprof_rec_next(&it, &r, &err) == KPROF_REC_OK, "last");
		KT_EQ_U64(((const struct kprof_rec_marker *)r)->op_seq, 2);
		KT_CHECK(kprof_rec_next(&it, &r, &err) == KPROF_REC_END, "end");
	}

	/* truncated last record: every cut inside it is PARTIAL, at its start */
	for (size_t cut = n - sizeof(struct kprof_rec_marker) + 1; cut < n; cut++) {
		ret = count_all(b, cut, &nrec, &off, &err);
		KT_CHECK(ret == KPROF_REC_PARTIAL, "cut %zu: ret %d", cut, ret);
		KT_EQ_U64(nrec, 2);
		KT_EQ_U64(off, n - sizeof(struct kprof_rec_marker));
	}

	/* bad sizes: 0, 4, 12 (not multiple of 8), marker of 16 (< minimum) */
	{
		static const uint16_t sizes[] = { 0, 4, 12, 16 };

		for (size_t i = 0; i < 4; i++) {
			struct kprof_rec_hdr h = { .type = KPROF_REC_MARKER,
						   .size = sizes[i] };
			uint8_t tmp[64] = { 0 };

			n = put_marker(tmp, 5, 5);
			memcpy(tmp + n, &h, 8);
			ret = count_all(tmp, sizeof(tmp), &nrec, &off, &err);
			KT_CHECK(ret == KPROF_REC_BAD, "size %u: ret %d", sizes[i], ret);
			KT_EQ_U64(nrec, 1);
			KT_CHECK(strstr(err.msg, "offset 1032"),
				 "message names the offset: %s", err.msg);
		}
	}

	/* a marker of 36 bytes: long enough, but not a multiple of 8 */
	{
		struct kprof_rec_hdr h = { .type = KPROF_REC_MARKER, .size = 36 };
		uint8_t tmp[80] = { 0 };

		memcpy(tmp, &h, 8);
		ret = count_all(tmp, sizeof(tmp), &nrec, &off, &err);
		KT_CHECK(ret == KPROF_REC_BAD && nrec == 0 && off == 0 &&
			 strstr(err.msg, "offset 1000: bad size 36"),
			 "size 36: ret %d n %d %s", ret, nrec, err.msg);
		/* a longer marker (40 bytes: a newer producer) is accepted */
		h.size = 40;
		memcpy(tmp, &h, 8);
		ret = count_all(tmp, 40, &nrec, &off, &err);
		KT_CHECK(ret == KPROF_REC_END && nrec == 1, "size 40: ret %d n %d", ret, nrec);
	}

	/* COUNTERS whose mask names more values than the record holds */
	{
		struct kprof_rec_counters c = { .hdr = { KPROF_REC_COUNTERS, 40, 0 },
						.counter_mask = 0x7 };
		uint8_t tmp[48] = { 0 };

		memcpy(tmp, &c, sizeof(c));
		ret = count_all(tmp, 40, &nrec, &off, &err);
		KT_CHECK(ret == KPROF_REC_BAD, "counters: ret %d", ret);
		c.hdr.size = 48;
		c.counter_mask = 0x3;
		memcpy(tmp, &c, sizeof(c));
		ret = count_all(tmp, 48, &nrec, &off, &err);
		KT_CHECK(ret == KPROF_REC_END && nrec == 1, "counters ok: ret %d n %d",
			 ret, nrec);
	}

	/* garbage: random bytes never crash, never read past the end */
	{
		uint64_t x = 88172645463325252ULL;

		for (int round = 0; round < 20000; round++) {
			size_t len = (size_t)(x % 512);
			uint8_t *g = malloc(len ? len : 1);

			for (size_t i = 0; i < len; i++) {
				x ^= x << 13; x ^= x >> 7; x ^= x << 17;
				g[i] = (uint8_t)x;
				/* often valid-looking sizes */
				if ((i & 7) == 2 && (x & 1))
					g[i] = (uint8_t)(x & 0xf8);
				if ((i & 7) == 3 && (x & 2))
					g[i] = 0;
			}
			ret = count_all(g, len, &nrec, &off, &err);
			KT_CHECK(ret >= KPROF_REC_BAD && ret <= KPROF_REC_PARTIAL &&
				 off <= len, "garbage round %d", round);
			free(g);
		}
	}
	KT_STR(kprof_rec_type_name(KPROF_HREC_IOCTL), "IOCTL");
	KT_EQ_U64(kprof_rec_min_size(KPROF_HREC_IOCTL), sizeof(struct kprof_host_event));
	popcount();
	return kt_done("test_rec");
}
