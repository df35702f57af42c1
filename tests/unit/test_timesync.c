// SPDX-License-Identifier: GPL-2.0
/*
 * Time-sync fit on synthetic data: a device timer with 200 ppm drift that
 * itself wanders (+-50 ppm over 20 s), jittered host reads and some
 * preempted (wide) windows. The piecewise fit must beat the one-shot fit
 * (tt-metal's method) and its error bound must hold.
 */
#include "kt.h"
#include "kprof_timesync.h"

#define NOM_HZ	1000000000.0	/* nominal 1 GHz reference */

static uint64_t rng = 0x9E3779B97F4A7C15ULL;

static double urand(void)
{
	return (double)(kt_xorshift(&rng) >> 11) / 9007199254740992.0;
}

/* ground truth: device cycles at host time t (ns), t from 0..60 s */
static double dev_at(double t)
{
	const double P = 20e9;
	/* integral of (1 + 200e-6 + 50e-6 sin(2 pi t / P)) dt */
	double c = t * (1 + 200e-6) + 50e-6 * P / (2 * M_PI) * (1 - cos(2 * M_PI * t / P));

	return c * NOM_HZ / 1e9 + 5e12;	/* arbitrary device epoch */
}

/* inverse by Newton: host time of a device count */
static double host_at(double cyc)
{
	double t = (cyc - 5e12);

	for (int i = 0; i < 8; i++)
		t -= (dev_at(t) - cyc) / (1 + 200e-6);
	return t;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(void)
{
	enum { N = 600 };		/* 100 ms period, 60 s */
	static struct kprof_sync_pt pts[N];
	struct kprof_tsfit pw, os, lin;
	struct kprof_err err;
	double max_pw = 0, max_os = 0, t0 = 1e9;
	int wide = 0;

	for (int i = 0; i < N; i++) {
		double t = t0 + i * 1e8 + urand() * 1e6;
		double before = t - 100 - urand() * 400;	/* 100..500 ns */
		double after = t + 100 + urand() * 400;

		if (i % 37 == 5) {	/* preempted between the reads */
			after += 40000 + urand() * 20000;
			wide++;
		}
		pts[i].host_before_ns = (uint64_t)before;
		pts[i].host_after_ns = (uint64_t)after;
		pts[i].device_cycles = (uint64_t)dev_at(t - t0);
		/* host clock starts at t0: shift the device mapping accordingly */
	}
	KT_CHECK(kprof_tsfit_piecewise(pts, N, NOM_HZ, &pw, &err) == 0, "pw: %s", err.msg);
	KT_CHECK(kprof_tsfit_oneshot(pts, N, NOM_HZ, &os, &err) == 0, "os: %s", err.msg);
	KT_EQ_U64(pw.samples, N);
	KT_EQ_U64(pw.rejected, (uint64_t)wide);
	KT_NEAR(pw.drift_ppm, 200.0, 30.0);	/* average of the wandering drift */

	/* evaluate at 100k random device times inside the sampled range */
	{
		static double errs[100000];
		int n = 0;

		for (int i = 0; i < 100000; i++) {
			double tt = 0.2e9 + urand() * 59.5e9;	/* host ns since t0 */
			uint64_t c = (uint64_t)dev_at(tt);
			double truth = t0 + host_at((double)c);
			double e1 = fabs(kprof_tsfit_to_host(&pw, c) - truth);
			double e2 = fabs(kprof_tsfit_to_host(&os, c) - truth);

			errs[n++] = e1;
			max_pw = fmax(max_pw, e1);
			max_os = fmax(max_os, e2);
		}
		qsort(errs, (size_t)n, sizeof(errs[0]), cmp_d);
		printf("piecewise p50 %.1f ns p99 %.1f ns\n", errs[n / 2], errs[n * 99 / 100]);
		printf("piecewise max err %.1f ns (bound %.1f ns), one-shot max err %.1f ns\n",
		       max_pw, pw.err_bound_ns, max_os);
		KT_CHECK(max_pw < 1000.0, "piecewise max error %.1f ns >= 1 us", max_pw);
		KT_CHECK(max_os > 100000.0, "one-shot should drift > 100 us, got %.1f", max_os);
		KT_CHECK(max_pw * 100 < max_os, "piecewise %.1f not 100x better than %.1f",
			 max_pw, max_os);
		KT_CHECK(max_pw <= pw.err_bound_ns, "error %.1f exceeds the bound %.1f",
			 max_pw, pw.err_bound_ns);
		KT_CHECK(pw.err_bound_ns < 2000.0, "bound too loose: %.1f", pw.err_bound_ns);
	}

	/* spans: 1 ms of device time is 1 ms / (1 + drift) of host time */
	KT_NEAR(kprof_tsfit_span_ns(&pw, pts[100].device_cycles, 1000000), 1e6 / 1.0002, 60.0);
	/* before the first / after the last sample: extrapolated, still sane */
	{
		uint64_t c = pts[0].device_cycles - 1000000;
		double truth = t0 + host_at((double)c);

		KT_NEAR(kprof_tsfit_to_host(&pw, c), truth, 2000.0);
	}

	/* degenerate inputs */
	{
		struct kprof_tsfit f;

		KT_CHECK(kprof_tsfit_piecewise(pts, 0, NOM_HZ, &f, &err) == 0 &&
			 f.method == KPROF_TS_NONE, "no samples");
		KT_NEAR(kprof_tsfit_to_host(&f, 1000), 1000.0, 1e-9);
		kprof_tsfit_free(&f);
		KT_CHECK(kprof_tsfit_piecewise(pts, 1, NOM_HZ, &f, &err) == 0 &&
			 f.used == 1 && f.nseg == 0, "one sample");
		KT_NEAR(kprof_tsfit_to_host(&f, pts[0].device_cycles + 1000),
			(pts[0].host_before_ns + pts[0].host_after_ns) / 2.0 + 1000, 1.0);
		kprof_tsfit_free(&f);
		KT_CHECK(kprof_tsfit_piecewise(pts, 2, 0, &f, &err) < 0, "zero nominal");
		/* backwards window is dropped */
		struct kprof_sync_pt b[3] = { pts[0], pts[1], pts[2] };

		b[1].host_after_ns = b[1].host_before_ns - 1;
		KT_CHECK(kprof_tsfit_piecewise(b, 3, NOM_HZ, &f, &err) == 0 && f.used == 2,
			 "backwards window: used %zu", f.used);
		kprof_tsfit_free(&f);
	}
	/* sparse samples (1 s) and a rate that changes fast (+-50 ppm over
	 * 4 s): the error between samples is the model's, not the reads';
	 * the bound must still cover it
	 */
	{
		struct kprof_sync_pt sp[40];
		struct kprof_tsfit f;
		double maxe = 0;

		for (int i = 0; i < 40; i++) {
			double t = i * 1e9;
			double c = t + 50e-6 * 4e9 / (2 * M_PI) * (1 - cos(2 * M_PI * t / 4e9));

			sp[i].host_before_ns = (uint64_t)(t + 1e9) - 100;
			sp[i].host_after_ns = (uint64_t)(t + 1e9) + 100;
			sp[i].device_cycles = (uint64_t)c;
		}
		KT_CHECK(kprof_tsfit_piecewise(sp, 40, NOM_HZ, &f, &err) == 0, "sparse");
		for (double t = 0.5e9; t < 38.5e9; t += 1.37e6) {
			double c = t + 50e-6 * 4e9 / (2 * M_PI) * (1 - cos(2 * M_PI * t / 4e9));

			maxe = fmax(maxe, fabs(kprof_tsfit_to_host(&f, (uint64_t)c) - (t + 1e9)));
		}
		printf("sparse: max error %.0f ns, bound %.0f ns\n", maxe, f.err_bound_ns);
		KT_CHECK(maxe > 1000, "the model error should dominate here: %.0f", maxe);
		KT_CHECK(maxe <= f.err_bound_ns, "error %.0f exceeds the bound %.0f", maxe,
			 f.err_bound_ns);
		kprof_tsfit_free(&f);
	}

	/* slow reads (as under qemu TCG): 2-3.4 us windows with the device
	 * read anywhere inside; smoothing over neighbours must bring p99
	 * under 1 us where each sample alone is only good to +-1.7 us
	 */
	{
		enum { M = 600 };
		static struct kprof_sync_pt sp[M];
		static double e[20000];
		struct kprof_tsfit f;
		int k = 0;

		for (int i = 0; i < M; i++) {
			double t = 1e9 + i * 1e8;
			double wdt = 2000 + urand() * 1400, at = urand();

			sp[i].host_before_ns = (uint64_t)(t - at * wdt);
			sp[i].host_after_ns = (uint64_t)(t - at * wdt + wdt);
			sp[i].device_cycles = (uint64_t)dev_at(t - 1e9);
		}
		KT_CHECK(kprof_tsfit_piecewise(sp, M, NOM_HZ, &f, &err) == 0, "slow reads");
		for (int i = 0; i < 20000; i++) {
			double tt = 0.2e9 + urand() * 59.5e9;
			uint64_t c = (uint64_t)dev_at(tt);

			e[k++] = fabs(kprof_tsfit_to_host(&f, c) - (1e9 + host_at((double)c)));
		}
		qsort(e, (size_t)k, sizeof(e[0]), cmp_d);
		printf("slow reads: p50 %.0f ns p99 %.0f ns max %.0f ns, bound %.0f ns\n",
		       e[k / 2], e[k * 99 / 100], e[k - 1], f.err_bound_ns);
		KT_CHECK(e[k * 99 / 100] < 1000, "p99 %.0f ns >= 1 us", e[k * 99 / 100]);
		KT_CHECK(e[k - 1] <= f.err_bound_ns, "max %.0f exceeds the bound %.0f",
			 e[k - 1], f.err_bound_ns);
		kprof_tsfit_free(&f);
	}

	kprof_tsfit_linear(&lin, 1000.0 / 1202.0, 0);
	KT_NEAR(kprof_tsfit_to_host(&lin, 1202000), 1e6, 1e-6);
	KT_NEAR(kprof_tsfit_span_ns(&lin, 5, 1202), 1000.0, 1e-9);
	kprof_tsfit_free(&pw);
	kprof_tsfit_free(&os);
	return kt_done("test_timesync");
}
