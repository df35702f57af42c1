// SPDX-License-Identifier: GPL-2.0
/* kprof_xsort: external merge sort against qsort, spilled or not. */
#include "kt.h"
#include "kprof_outdir.h"
#include "kprof_xsort.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <unistd.h>

struct ev {
	int64_t ns;
	uint32_t track;
	int32_t w;
};

static int cmp_ev(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns < y->ns ? -1 : 1;
	if (x->track != y->track)
		return x->track < y->track ? -1 : 1;
	return (x->w > y->w) - (x->w < y->w);
}

static uint64_t rng = 88172645463325252ULL;

static uint64_t next(void)
{
	return kt_xorshift(&rng);
}

static size_t entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;

	while (d && (e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	if (d)
		closedir(d);
	return n;
}

/* how events come: at random, nearly in order, in order (equal ones too), or
 * in order but the last one, which goes first
 */
enum { RANDOM, NEAR, IN_ORDER, LAST_FIRST };

/* n events (how they come: above), sorted with runs of run_len. */
static void check(struct kprof_outdir *od, size_t n, size_t run_len, int how,
		  unsigned int want_runs)
{
	struct kprof_err err = { 0 };
	struct kprof_xsort *x = kprof_xsort_new(sizeof(struct ev), cmp_ev, run_len, od, &err);
	const char *dir = kprof_outdir_path(od);
	struct ev *ref = calloc(n ? n : 1, sizeof(*ref));
	const void *p;
	size_t got = 0, bad = 0, add_err = 0;
	int ret;

	KT_CHECK(x && ref, "new: %s", err.msg);
	if (!x || !ref)
		goto out;
	for (size_t i = 0; i < n; i++) {
		/* as slices come: starts rising, ends later, ties on purpose */
		ref[i] = (struct ev){ how == NEAR ? (int64_t)(i / 3 * 10 + next() % 50) :
				      (int64_t)(next() % 1000) - 500,
				      (uint32_t)(next() % 8), (next() & 1) ? 4 : -4 };
		/* in order: pairs of equal events, rising */
		if (how >= IN_ORDER)
			ref[i] = (struct ev){ (int64_t)(i / 4), (uint32_t)(i % 4 / 2), 4 };
		if (how == LAST_FIRST && i == n - 1)
			ref[i].ns = -1;
		add_err += kprof_xsort_add(x, &ref[i], &err) != 0;
	}
	KT_CHECK(!add_err, "add: %s", err.msg);
	qsort(ref, n, sizeof(*ref), cmp_ev);
	while ((ret = kprof_xsort_next(x, &p, &err)) == 1) {
		if (got >= n || memcmp(p, &ref[got], sizeof(*ref)))
			bad++;
		got++;
	}
	KT_CHECK(ret == 0, "next: %s", err.msg);
	KT_EQ_U64(got, n);
	KT_EQ_U64(bad, 0);
	KT_EQ_U64(kprof_xsort_runs(x), want_runs);
	KT_EQ_U64(entries(dir), 0);	/* the spill file is never visible */
out:
	kprof_xsort_free(x);
	free(ref);
}

int main(void)
{
	char dir[] = "/tmp/kprof-test-xsort.XXXXXX", gone[64];
	struct kprof_err err = { 0 };
	struct kprof_outdir *od;

	KT_CHECK(mkdtemp(dir), "mkdtemp");
	od = kprof_outdir_open(dir, 0, (uid_t)-1, (gid_t)-1, &err);
	KT_CHECK(od, "outdir: %s", err.msg);
	if (!od)
		return kt_done("test_xsort");
	check(od, 0, 16, 0, 0);
	check(od, 1000, 4096, 0, 0);		/* all in memory */
	check(od, 1000, 1000, 1, 0);		/* exactly one full run: still in memory */
	check(od, 1001, 1000, 1, 2);
	check(od, 100000, 7, 0, 14286);	/* many tiny runs */
	check(od, 100000, 4096, 1, 25);
	check(od, 3000, 1, 0, 3000);
	/* in order: not sorted again, in memory or in runs; the last out of order */
	check(od, 1000, 4096, IN_ORDER, 0);
	check(od, 10000, 1000, IN_ORDER, 10);
	check(od, 1000, 4096, LAST_FIRST, 0);
	check(od, 10000, 1000, LAST_FIRST, 10);
	kprof_outdir_close(od);

	/* a directory that cannot take the spill (gone): a clear error */
	snprintf(gone, sizeof(gone), "%s/gone", dir);
	od = kprof_outdir_open(gone, 0, (uid_t)-1, (gid_t)-1, &err);
	KT_CHECK(od && rmdir(gone) == 0, "outdir %s: %s", gone, err.msg);
	if (od) {
		struct kprof_xsort *x = kprof_xsort_new(sizeof(struct ev), cmp_ev, 2, od, &err);
		struct ev e = { 0 };
		int r = 0;

		for (int i = 0; x && i < 3 && !r; i++)
			r = kprof_xsort_add(x, &e, &err);
		KT_CHECK(r < 0 && strstr(err.msg, gone), "spill error: %s", err.msg);
		kprof_xsort_free(x);
		kprof_outdir_close(od);
	}
	KT_CHECK(rmdir(dir) == 0, "rmdir %s: %s", dir, strerror(errno));
	return kt_done("test_xsort");
}
