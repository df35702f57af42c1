// SPDX-License-Identifier: GPL-2.0
/* Devices compared by op class and by step (kprof_steps.h). */
#include "kprof_steps.h"
#include "kprof_text.h"

#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define STEPS_SHOWN	50	/* steps listed one by one in report.md */

struct step_dev {
	double cls[KPROF_OPC_N];
	double *at;		/* marker starts */
	size_t n, cap;
	uint64_t seen;		/* markers, kept or not */
	int sorted;
};

struct kprof_steps {
	unsigned int ndev;
	char *glob;
	struct step_dev *d;
};

enum kprof_op_class kprof_op_class(const char *op)
{
	if (!strncmp(op, "ncclKernel_", 11) || !strncmp(op, "ncclDevKernel_", 14))
		return KPROF_OPC_COLLECTIVE;
	if (!strncmp(op, "[memcpy", 7) || !strncmp(op, "[memset", 7))
		return KPROF_OPC_COPY;
	return KPROF_OPC_COMPUTE;
}

struct kprof_steps *kprof_steps_new(unsigned int ndev, const char *glob)
{
	struct kprof_steps *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->ndev = ndev;
	s->glob = strdup(glob ? glob : KPROF_STEP_DEFAULT);
	s->d = calloc(ndev ? ndev : 1, sizeof(*s->d));
	if (!s->glob || !s->d) {
		kprof_steps_free(s);
		return NULL;
	}
	return s;
}

void kprof_steps_free(struct kprof_steps *s)
{
	if (!s)
		return;
	for (unsigned int i = 0; s->d && i < s->ndev; i++)
		free(s->d[i].at);
	free(s->d);
	free(s->glob);
	free(s);
}

int kprof_steps_op(struct kprof_steps *s, unsigned int dev, const char *op,
		   double start_ns, double kernel_ns)
{
	struct step_dev *d;

	if (dev >= s->ndev)
		return 0;
	d = &s->d[dev];
	if (!isnan(kernel_ns))
		d->cls[kprof_op_class(op)] += kernel_ns;
	if (isnan(start_ns) || fnmatch(s->glob, op, 0))
		return 0;
	d->seen++;
	if (d->n == KPROF_STEPS_MAX)
		return 0;
	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 64;
		double *p = realloc(d->at, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		d->at = p;
		d->cap = cap;
	}
	d->at[d->n++] = start_ns;
	d->sorted = 0;
	return 0;
}

double kprof_steps_class_ns(const struct kprof_steps *s, unsigned int dev,
			    enum kprof_op_class c)
{
	return dev < s->ndev && c < KPROF_OPC_N ? s->d[dev].cls[c] : 0;
}

uint64_t kprof_steps_markers(const struct kprof_steps *s, unsigned int dev)
{
	return dev < s->ndev ? s->d[dev].seen : 0;
}

size_t kprof_steps_count(const struct kprof_steps *s)
{
	size_t n = s->ndev ? SIZE_MAX : 0;

	for (unsigned int i = 0; i < s->ndev; i++)
		if (s->d[i].n < n)
			n = s->d[i].n;
	return n;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* ops.csv is in launch order per stream: the k-th marker is by start time */
static void sort_all(struct kprof_steps *s)
{
	for (unsigned int i = 0; i < s->ndev; i++) {
		struct step_dev *d = &s->d[i];

		if (!d->sorted && d->n)
			qsort(d->at, d->n, sizeof(*d->at), cmp_double);
		d->sorted = 1;
	}
}

int kprof_steps_slowest(struct kprof_steps *s, size_t k, double *late_ns)
{
	double first = NAN;
	int last = -1;

	if (k >= kprof_steps_count(s))
		return -1;
	sort_all(s);
	for (unsigned int i = 0; i < s->ndev; i++) {
		double t = s->d[i].at[k];

		if (last < 0 || t > s->d[last].at[k])
			last = (int)i;
		if (isnan(first) || t < first)
			first = t;
	}
	if (late_ns)
		*late_ns = s->d[last].at[k] - first;
	return last;
}

static void classes_md(FILE *f, const struct kprof_steps *s, const char *const *names)
{
	fputs("\n## Collectives and compute\n\n", f);
	fputs("| device | compute [ms] | collectives [ms] | copies [ms] | collectives % |\n", f);
	fputs("|---|---:|---:|---:|---:|\n", f);
	for (unsigned int i = 0; i < s->ndev; i++) {
		const double *c = s->d[i].cls;
		double all = c[KPROF_OPC_COMPUTE] + c[KPROF_OPC_COLLECTIVE] + c[KPROF_OPC_COPY];

		fputs("| ", f);
		kprof_md_put(f, names[i]);
		fprintf(f, " | %.3f | %.3f | %.3f |", c[KPROF_OPC_COMPUTE] / 1e6,
			c[KPROF_OPC_COLLECTIVE] / 1e6, c[KPROF_OPC_COPY] / 1e6);
		if (all > 0)
			fprintf(f, " %.1f |\n", 100.0 * c[KPROF_OPC_COLLECTIVE] / all);
		else
			fputs(" |\n", f);
	}
	fputs("\nSums of DEVICE KERNEL DURATION. Collectives: ops named ncclKernel_* or\n"
	      "ncclDevKernel_* (NCCL); copies: [memcpy ...] and [memset]; compute: the\n"
	      "rest. A collective's time includes its wait for the other devices.\n", f);
}

void kprof_steps_md(FILE *f, struct kprof_steps *s, const char *const *names)
{
	size_t n = kprof_steps_count(s);
	uint64_t *slow = calloc(s->ndev ? s->ndev : 1, sizeof(*slow));
	double sum = 0, max = 0;
	int differ = 0;

	classes_md(f, s, names);
	fputs("\n## Steps\n\nA step of a device starts where an op matching ", f);
	kprof_md_put(f, s->glob);
	fputs(" starts on it (kprofctl report --step GLOB names another). In a\n"
	      "collective every device waits for the last to arrive: the slowest device\n"
	      "of a step is the one whose marker op started last; late: how long after\n"
	      "the first device's.\n\n", f);
	for (unsigned int i = 0; i < s->ndev; i++) {
		fputs(i ? ", " : "Markers per device: ", f);
		kprof_md_put(f, names[i]);
		fprintf(f, " %" PRIu64, s->d[i].seen);
		if (s->d[i].seen != s->d[0].seen)
			differ = 1;
	}
	fputs(".\n", f);
	if (differ)
		fprintf(f, "\nThe devices have different marker counts: %s %zu %s.\n",
			"the first", n, "of each are compared");
	if (!n || !slow) {
		fputs(n ? "\n(steps left out: out of memory)\n"
			: "\n**No step to compare**: some device has no marker op.\n", f);
		free(slow);
		return;
	}
	fputs("\n| step | slowest device | late [ms] |\n|---:|---|---:|\n", f);
	for (size_t k = 0; k < n; k++) {
		double late;
		int d = kprof_steps_slowest(s, k, &late);

		slow[d]++;
		sum += late;
		if (late > max)
			max = late;
		if (k >= STEPS_SHOWN)
			continue;
		fprintf(f, "| %zu | ", k);
		kprof_md_put(f, names[d]);
		fprintf(f, " | %.3f |\n", late / 1e6);
	}
	if (n > STEPS_SHOWN)
		fprintf(f, "\nThe first %d of %zu steps listed.\n", STEPS_SHOWN, n);
	fprintf(f, "\nOver %zu steps: late %.3f ms on average, %.3f ms at most. Slowest in:", n,
		sum / (double)n / 1e6, max / 1e6);
	for (unsigned int i = 0; i < s->ndev; i++) {
		fputs(i ? ", " : " ", f);
		kprof_md_put(f, names[i]);
		fprintf(f, " %" PRIu64, slow[i]);
	}
	fputs(" steps.\n", f);
	free(slow);
}
