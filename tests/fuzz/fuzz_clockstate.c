// SPDX-License-Identifier: GPL-2.0
/*
 * Host clock saved-state JSON (kprof_clockstate_parse). A file that
 * parses is written back and read again: it must round-trip.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "kprof_clockstate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kprof_clockstate st, back;
	struct kprof_err err = { 0 };
	char path[4096];
	char *s = fuzz_cstr(data, size);

	if (!s)
		return 0;
	memset(&st, 0, sizeof(st));
	if (kprof_clockstate_parse(s, &st, &err)) {
		if (!err.msg[0])
			abort();
		free(s);
		return 0;
	}
	snprintf(path, sizeof(path), "%s/state.json", fuzz_scratch());
	if (kprof_clockstate_write(path, &st, &err))
		abort();
	memset(&back, 0, sizeof(back));
	if (kprof_clockstate_read(path, &back, &err))
		abort();
	if (back.ncpus != st.ncpus || strcmp(back.sysfs_root, st.sysfs_root) ||
	    back.has_boost != st.has_boost || strcmp(back.boost, st.boost) ||
	    back.has_no_turbo != st.has_no_turbo ||
	    strcmp(back.no_turbo, st.no_turbo) || back.has_gpu != st.has_gpu ||
	    memcmp(&back.gpu, &st.gpu, sizeof(st.gpu)))
		abort();
	for (size_t i = 0; i < st.ncpus; i++)
		if (back.cpus[i].cpu != st.cpus[i].cpu ||
		    strcmp(back.cpus[i].governor, st.cpus[i].governor) ||
		    strcmp(back.cpus[i].min_freq, st.cpus[i].min_freq) ||
		    strcmp(back.cpus[i].max_freq, st.cpus[i].max_freq))
			abort();
	kprof_clockstate_free(&back);
	kprof_clockstate_free(&st);
	free(s);
	return 0;
}
