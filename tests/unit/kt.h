/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal unit-test helpers: each test_*.c is one binary; KT_CHECK counts
 * failures and the binary exits non-zero if any check failed.
 */
#ifndef KPROF_KT_H
#define KPROF_KT_H

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int kt_failures;
static int kt_checks;

#define KT_CHECK(cond, ...) do {					\
	kt_checks++;							\
	if (!(cond)) {							\
		kt_failures++;						\
		fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__,	\
			__LINE__, #cond);				\
		fprintf(stderr, __VA_ARGS__);				\
		fputc('\n', stderr);					\
	}								\
} while (0)

#define KT_EQ_U64(a, b) do {						\
	uint64_t kt_a = (a), kt_b = (b);				\
	KT_CHECK(kt_a == kt_b, "%s = %" PRIu64 ", expected %" PRIu64,	\
		 #a, kt_a, kt_b);					\
} while (0)

#define KT_NEAR(a, b, tol) do {						\
	double kt_a = (a), kt_b = (b), kt_tol = (tol);			\
	KT_CHECK(fabs(kt_a - kt_b) <= kt_tol, "%s = %.6f, expected %.6f +- %g", \
		 #a, kt_a, kt_b, kt_tol);				\
} while (0)

#define KT_STR(a, b) do {						\
	const char *kt_a = (a), *kt_b = (b);				\
	KT_CHECK(kt_a && strcmp(kt_a, kt_b) == 0, "%s = \"%s\", expected \"%s\"", \
		 #a, kt_a ? kt_a : "(null)", kt_b);			\
} while (0)

/* xorshift64: the same pseudo-random sequence on every run from *s. */
static inline uint64_t kt_xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static inline int kt_done(const char *name)
{
	printf("%s: %d checks, %d failed\n", name, kt_checks, kt_failures);
	return kt_failures ? 1 : 0;
}

/* A fresh temporary directory for a test (removed by the caller or left
 * in /tmp on failure for inspection).
 */
/* The shared tt-metal logs: $KPROF_TTMETAL_DATA, else the build's default. */
static inline const char *kt_ttmetal_datadir(void)
{
	const char *d = getenv("KPROF_TTMETAL_DATA");

#ifdef KPROF_TEST_DATA
	if (!d)
		d = KPROF_TEST_DATA;
#endif
	return d;
}

static inline char *kt_tmpdir(void)
{
	static char dir[64];

	snprintf(dir, sizeof(dir), "/tmp/kprof-unit-XXXXXX");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		exit(2);
	}
	return dir;
}

static inline void kt_rmrf(const char *dir)
{
	char cmd[256];

	if (kt_failures)
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
}

/* Reads a whole file into a NUL-terminated malloc'd buffer. */
static inline char *kt_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (buf) {
		buf[n] = '\0';
		if (len)
			*len = (size_t)n;
	}
	fclose(f);
	return buf;
}

/*
 * Each of names[0..n) the same bytes in directories a and b; with
 * may_lack, a file that neither has passes too.
 */
static inline void kt_same_files(const char *a, const char *b, const char *const *names,
				 size_t n, int may_lack, const char *what)
{
	for (size_t i = 0; i < n; i++) {
		char pa[600], pb[600];
		size_t la = 0, lb = 0;
		char *x, *y;

		snprintf(pa, sizeof(pa), "%s/%s", a, names[i]);
		snprintf(pb, sizeof(pb), "%s/%s", b, names[i]);
		x = kt_slurp(pa, &la);
		y = kt_slurp(pb, &lb);
		KT_CHECK((may_lack && !x && !y) || (x && y && la == lb && !memcmp(x, y, la)),
			 "%s: %s differs between %s and %s", what, names[i], a, b);
		free(x);
		free(y);
	}
}

#endif /* KPROF_KT_H */
