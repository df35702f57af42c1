// SPDX-License-Identifier: GPL-2.0
/*
 * Device peaks file JSON (kprof_peaks_parse, the roofline's input). A
 * file that parses must give usable peaks: strings terminated within
 * their fields, peaks finite and > 0, and FLOP/s and bytes/s of an op that
 * are finite and >= 0 for any core count and clock.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "kprof_array_size.h"
#include "kprof_peaks.h"

#define TERMINATED(f) (!!memchr((f), '\0', sizeof(f)))

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned int cores[] = { 0, 1, 64, 65536 };
	static const double mhz[] = { 0, 1, 1000, 1e9 };
	struct kprof_peaks p;
	struct kprof_err err = { 0 };
	char *s = fuzz_cstr(data, size);

	if (!s)
		return 0;
	memset(&p, 0xa5, sizeof(p));
	if (kprof_peaks_parse(s, &p, &err)) {
		if (!err.msg[0])
			abort();
		free(s);
		return 0;
	}
	free(s);
	if (!TERMINATED(p.device) || !TERMINATED(p.flops_counter) ||
	    !TERMINATED(p.bytes_counters[0]) || !TERMINATED(p.bytes_counters[1]))
		abort();
	if (!(isfinite(p.flops_per_s) && p.flops_per_s > 0) ||
	    !(isfinite(p.bytes_per_s) && p.bytes_per_s > 0))
		abort();
	for (size_t c = 0; c < ARRAY_SIZE(cores); c++) {
		double b = kprof_peaks_bytes(&p, cores[c]);

		if (isnan(b) || b < 0)
			abort();
		for (size_t m = 0; m < ARRAY_SIZE(mhz); m++) {
			double f = kprof_peaks_flops(&p, cores[c], mhz[m]);

			if (isnan(f) || f < 0)
				abort();
		}
	}
	return 0;
}
