/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A hash index over a caller's array (entries 0..n-1, found by key):
 * open addressing, at most half full, so that finding or adding an entry
 * costs the same however many there are. Foreign input decides how many
 * distinct names, cores or tracks there are: a linear search per row
 * would make its time quadratic.
 *
 * Find or add:
 *	if (t.cap && t.slot[pos = kprof_hidx_slot(&t, h, eq, &key)])
 *		return t.slot[pos] - 1;
 *	if (kprof_hidx_reserve(&t, n, hash, arr))
 *		return -ENOMEM;
 *	pos = kprof_hidx_slot(&t, h, eq, &key);
 *	... append entry n ...; t.slot[pos] = n + 1;
 */
#ifndef KPROF_HASH_H
#define KPROF_HASH_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <string.h>

struct kprof_hidx {
	size_t *slot;		/* cap slots: entry index + 1, 0 empty */
	size_t cap;		/* 0 or a power of two */
};

/* FNV-1a of a string. */
static inline size_t kprof_hash_str(const char *s)
{
	size_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/* A 64-bit value mixed so that its low bits depend on all of it. */
static inline size_t kprof_hash_u64(uint64_t v)
{
	v *= 0x9e3779b97f4a7c15ULL;
	return (size_t)(v ^ (v >> 29));
}

/*
 * n bytes at p, 8 at a time (names as long as a GPU kernel's cost about
 * a byte-at-a-time hash's time over 8).
 */
static inline size_t kprof_hash_mem(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = 1469598103934665603ULL ^ n, w;

	for (; n >= 8; n -= 8, s += 8) {
		memcpy(&w, s, sizeof(w));
		h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
		h ^= h >> 29;
	}
	for (; n; n--, s++)
		h = (h ^ *s) * 1099511628211ULL;
	return kprof_hash_u64(h);
}

/*
 * The slot of the entry eq(key, i) accepts, or the empty slot it would
 * take. t->cap must not be 0.
 */
static inline size_t kprof_hidx_slot(const struct kprof_hidx *t, size_t h,
				     int (*eq)(const void *key, size_t i), const void *key)
{
	size_t i = h & (t->cap - 1);

	while (t->slot[i] && !eq(key, t->slot[i] - 1))
		i = (i + 1) & (t->cap - 1);
	return i;
}

/*
 * The key of tables whose entries hold their name in place (a char array
 * at off in entries of stride bytes): kprof_hidx_slot(t, kprof_hash_str(
 * s), kprof_hidx_str_eq, &key) finds the entry named s.
 */
struct kprof_hidx_str {
	const void *arr;
	size_t stride, off;
	const char *s;
};

static inline int kprof_hidx_str_eq(const void *key, size_t i)
{
	const struct kprof_hidx_str *k = key;

	return !strcmp((const char *)k->arr + i * k->stride + k->off, k->s);
}

/*
 * Room for entry n, entries 0..n-1 being indexed (hash(arr, i) gives
 * entry i's hash): rebuilds a bigger table when needed. 0 or -ENOMEM.
 */
static inline int kprof_hidx_reserve(struct kprof_hidx *t, size_t n,
				     size_t (*hash)(const void *arr, size_t i), const void *arr)
{
	size_t cap = t->cap ? t->cap : 32, *s;

	if (2 * (n + 1) <= t->cap)
		return 0;
	while (2 * (n + 1) > cap)
		cap *= 2;
	s = calloc(cap, sizeof(*s));
	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		size_t j = hash(arr, i) & (cap - 1);

		while (s[j])
			j = (j + 1) & (cap - 1);
		s[j] = i + 1;
	}
	free(t->slot);
	t->slot = s;
	t->cap = cap;
	return 0;
}

static inline void kprof_hidx_free(struct kprof_hidx *t)
{
	free(t->slot);
	t->slot = NULL;
	t->cap = 0;
}

#endif /* KPROF_HASH_H */
