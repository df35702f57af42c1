// SPDX-License-Identifier: GPL-2.0
/*
 * Per-kernel NVIDIA counters: metric list, join, values (kprof_gpucnt.h).
 */
#include "kprof_gpucnt.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int metric_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.';
}

int kprof_gpucnt_parse(const char *list, char names[][KPROF_GPUCNT_NAME_LEN], int max,
		       struct kprof_err *err)
{
	const char *p = list;
	int n = 0;

	if (!list || !*list) {
		kprof_err_set(err, EINVAL,
			      "--counters: no metric given; name CUPTI metrics, e.g. --counters sm__cycles_elapsed.max,dram__bytes.sum");
		return -1;
	}
	for (;;) {
		size_t len = strcspn(p, ",");

		if (!len) {
			kprof_err_set(err, EINVAL,
				      "--counters: an empty metric name in '%s'; separate names with single commas",
				      list);
			return -1;
		}
		for (size_t i = 0; i < len; i++)
			if (!metric_char(p[i])) {
				kprof_err_set(err, EINVAL,
					      "--counters: '%.*s' is not a CUPTI metric name (letters, digits, '_' and '.' only)",
					      (int)len, p);
				return -1;
			}
		if (len >= KPROF_GPUCNT_NAME_LEN) {
			kprof_err_set(err, EINVAL,
				      "--counters: '%.*s' is longer than %d characters, which counters.csv keeps",
				      (int)len, p, KPROF_GPUCNT_NAME_LEN - 1);
			return -1;
		}
		if (n >= max) {
			kprof_err_set(err, E2BIG,
				      "--counters: more than %d metrics; ask for fewer (each kernel is replayed for them)",
				      max);
			return -1;
		}
		memcpy(names[n], p, len);
		names[n][len] = '\0';
		for (int i = 0; i < n; i++)
			if (!strcmp(names[i], names[n])) {
				kprof_err_set(err, EINVAL, "--counters: '%s' is named twice",
					      names[n]);
				return -1;
			}
		n++;
		if (!p[len])
			return n;
		p += len + 1;
	}
}

int kprof_gpucnt_join_init(struct kprof_gpucnt_join *j)
{
	memset(j, 0, sizeof(*j));
	j->slot = calloc(KPROF_GPUCNT_RING, sizeof(*j->slot));
	return j->slot ? 0 : -ENOMEM;
}

void kprof_gpucnt_join_free(struct kprof_gpucnt_join *j)
{
	free(j->slot);
	j->slot = NULL;
}

static struct kprof_gpucnt_slot *slot_of(struct kprof_gpucnt_join *j, uint32_t corr)
{
	struct kprof_gpucnt_slot *s = &j->slot[corr & (KPROF_GPUCNT_RING - 1)];

	if (s->corr != corr || (!s->have_vals && !s->kernel_seen)) {
		/* another correlation's: values it still held are lost */
		if (s->have_vals)
			j->unjoined++;
		memset(s, 0, sizeof(*s));
		s->corr = corr;
	}
	return s;
}

int kprof_gpucnt_join_metrics(struct kprof_gpucnt_join *j, uint32_t corr, const double *v,
			      uint32_t n, uint32_t *mask, double *vals)
{
	struct kprof_gpucnt_slot *s = slot_of(j, corr);
	uint32_t m = 0;

	if (n > KPROF_GPU_MAX_METRICS)
		n = KPROF_GPU_MAX_METRICS;
	for (uint32_t i = 0; i < n; i++)
		if (!isnan(v[i])) {
			m |= 1U << i;
			s->vals[i] = v[i];
		}
	if (s->kernel_seen) {
		*mask = m;
		memcpy(vals, s->vals, sizeof(s->vals));
		s->kernel_seen = 0;
		j->joined++;
		j->values += (uint64_t)__builtin_popcount(m);
		return 1;
	}
	if (s->have_vals)	/* a second record for one kernel: keep the last */
		j->unjoined++;
	s->have_vals = 1;
	s->mask = m;
	return 0;
}

uint32_t kprof_gpucnt_join_kernel(struct kprof_gpucnt_join *j, uint32_t corr, double *vals)
{
	struct kprof_gpucnt_slot *s = slot_of(j, corr);
	uint32_t m;

	if (!s->have_vals) {
		s->kernel_seen = 1;
		return 0;
	}
	m = s->mask;
	memcpy(vals, s->vals, sizeof(s->vals));
	memset(s, 0, sizeof(*s));
	j->joined++;
	j->values += (uint64_t)__builtin_popcount(m);
	return m;
}

void kprof_gpucnt_join_end(struct kprof_gpucnt_join *j)
{
	for (size_t i = 0; j->slot && i < KPROF_GPUCNT_RING; i++)
		if (j->slot[i].have_vals) {
			j->unjoined++;
			j->slot[i].have_vals = 0;
		}
}

uint64_t kprof_gpucnt_to_u64(double v)
{
	uint64_t u;

	memcpy(&u, &v, sizeof(u));
	return u;
}

double kprof_gpucnt_from_u64(uint64_t u)
{
	double v;

	memcpy(&v, &u, sizeof(v));
	return v;
}

const char *kprof_gpucnt_replay_name(int32_t mode)
{
	return mode == KPROF_GREPLAY_KERNEL ? "kernel" : "unknown";
}
