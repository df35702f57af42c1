/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tt-metal profile_log_device.csv parser. Accepts every layout tt-metal
 * has used, found by header names (not positions):
 *   12 columns: ..., stat value, Run ID, zone name, zone phase, source line, source file
 *   13 columns: ..., stat value, run ID, run host ID,  zone name, zone phase, ...
 *               or ..., data, run host ID,  zone name, type, ..., meta data
 *   15 columns: ..., data, run host ID, trace id, trace id counter, zone name, type, ...
 * Line 1: "ARCH: <arch>, CHIP_FREQ[MHz]: <MHz>[, Max Compute Cores: <n>]".
 * CRLF, spaces around fields and double-quoted fields are accepted. A bad
 * line stops parsing with an error naming the line number.
 */
#ifndef KPROF_TTMETAL_H
#define KPROF_TTMETAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "kprof_err.h"

struct kprof_tt_info {
	char arch[32];
	double chip_freq_mhz;
	uint32_t max_compute_cores;	/* 0 if absent */
	int ncols;			/* header columns: 12, 13 or 15 */
};

/*
 * One data row. Strings point into the parser's line buffer: valid only
 * during the callback.
 */
struct kprof_tt_row {
	unsigned long line;
	uint32_t pcie_slot;
	uint32_t core_x, core_y;
	const char *risc;		/* "BRISC", "NCRISC", "TRISC_0", ... */
	uint64_t timer_id;
	uint64_t time;			/* cycles since reset */
	uint64_t data;
	uint64_t run_host_id;		/* op key (Run ID in 12-col files) */
	const char *zone_name;		/* "BRISC-FW", "TRISC-KERNEL", ... */
	const char *type;		/* "ZONE_START", "begin", "TS_DATA", ... */
	size_t risc_len, zone_len, type_len;	/* strlen of those */
	/*
	 * timer_id, time, data and run_host_id as the log writes them, when
	 * that is how the value prints (digits, no leading zero): ndig[i]
	 * bytes at dig[i]; else ndig[i] is 0
	 */
	const char *dig[4];
	unsigned char ndig[4];
};

typedef int (*kprof_tt_row_fn)(void *ctx, const struct kprof_tt_info *info,
			       const struct kprof_tt_row *row);

/*
 * Streams the file through fn (one row at a time, bounded memory).
 * fn returning non-zero stops parsing and is returned. Returns 0 or
 * -errno with err set ("file:line: what").
 */
int kprof_tt_parse(FILE *f, const char *name, kprof_tt_row_fn fn, void *ctx,
		   struct kprof_tt_info *info, struct kprof_err *err);
int kprof_tt_parse_file(const char *path, kprof_tt_row_fn fn, void *ctx,
			struct kprof_tt_info *info, struct kprof_err *err);

#endif /* KPROF_TTMETAL_H */
