// SPDX-License-Identifier: GPL-2.0
/*
 * tt-metal profile_log_device.csv parser (all layouts; see kprof_ttmetal.h).
 */
#include "kprof_ttmetal.h"
#include "kprof_csvread.h"
#include "kprof_fs.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define MAX_COLS	32
#define MAX_LINE	(1 << 20)

enum col {
	C_SLOT, C_X, C_Y, C_RISC, C_TIMER, C_TIME, C_DATA, C_RUN_ID, C_RUN_HOST_ID,
	C_ZONE, C_PHASE, C_NR
};

/* header names (normalized: lower case, single spaces) -> column */
static const struct {
	const char *name;
	enum col col;
} col_names[] = {
	{ "pcie slot", C_SLOT },
	{ "core_x", C_X },
	{ "core_y", C_Y },
	{ "risc processor type", C_RISC },
	{ "timer_id", C_TIMER },
	{ "time[cycles since reset]", C_TIME },
	{ "stat value", C_DATA },
	{ "data", C_DATA },
	{ "run id", C_RUN_ID },
	{ "run host id", C_RUN_HOST_ID },
	{ "zone name", C_ZONE },
	{ "zone phase", C_PHASE },
	{ "type", C_PHASE },
};

static void normalize(const char *in, char *out, size_t len)
{
	size_t o = 0;
	int sp = 0;

	for (; *in && o + 1 < len; in++) {
		if (isspace((unsigned char)*in)) {
			sp = o > 0;
			continue;
		}
		if (sp && o + 2 < len)
			out[o++] = ' ';
		sp = 0;
		out[o++] = (char)tolower((unsigned char)*in);
	}
	out[o] = '\0';
}

/*
 * Digits only, no sign or blank, at most UINT64_MAX (what strtoull with a
 * full-string check accepts); by hand: strtoull's locale handling was the
 * import's largest cost after the CSV scan.
 */
static int parse_u64(const char *s, uint64_t *v)
{
	const char *p = s;
	uint64_t x = 0;
	unsigned int d;

	if (!isdigit((unsigned char)*s))
		return -1;
	/* 19 digits cannot overflow: checked only after them */
	for (; (d = (unsigned int)(unsigned char)*p - '0') <= 9 && p - s < 19; p++)
		x = x * 10 + d;
	for (; *p; p++) {
		d = (unsigned int)(unsigned char)*p - '0';
		if (d > 9 || x > (UINT64_MAX - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	*v = x;
	return 0;
}

static int parse_info(char **f, int n, const char *name, struct kprof_tt_info *info,
		      struct kprof_err *err)
{
	int have_freq = 0;

	for (int i = 0; i < n; i++) {
		char *colon = strchr(f[i], ':');
		char key[64], *val;

		if (!colon)
			continue;
		*colon = '\0';
		normalize(f[i], key, sizeof(key));
		val = colon + 1;
		while (*val == ' ')
			val++;
		if (!strcmp(key, "arch")) {
			snprintf(info->arch, sizeof(info->arch), "%s", val);
		} else if (!strcmp(key, "chip_freq[mhz]")) {
			char *end;

			info->chip_freq_mhz = strtod(val, &end);
			if (end == val || *end || !(info->chip_freq_mhz > 0) ||
			    info->chip_freq_mhz > 1e6)
				return kprof_err_set(err, EBADMSG,
						     "%s:1: bad CHIP_FREQ[MHz] value '%s'",
						     name, val);
			have_freq = 1;
		} else if (!strcmp(key, "max compute cores")) {
			uint64_t v;

			if (parse_u64(val, &v) || v > UINT32_MAX)
				return kprof_err_set(err, EBADMSG,
						     "%s:1: bad Max Compute Cores value '%s'",
						     name, val);
			info->max_compute_cores = (uint32_t)v;
		}
	}
	if (!have_freq)
		return kprof_err_set(err, EBADMSG,
				     "%s:1: expected 'ARCH: <arch>, CHIP_FREQ[MHz]: <MHz>': is this a tt-metal profile_log_device.csv?",
				     name);
	return 0;
}

int kprof_tt_parse(FILE *f, const char *name, kprof_tt_row_fn fn, void *ctx,
		   struct kprof_tt_info *info, struct kprof_err *err)
{
	int colidx[C_NR], ncols = 0, ret = 0;
	struct kprof_csv_src src;
	unsigned long nrec = 0;
	char **fld;

	memset(info, 0, sizeof(*info));
	for (int i = 0; i < C_NR; i++)
		colidx[i] = -1;
	kprof_csv_src_init(&src, f, name);
	src.max_record = MAX_LINE;
	while ((ret = kprof_csv_record(&src, err)) > 0) {
		unsigned long lineno = src.line;
		struct kprof_tt_row row;
		int n = src.nf + src.nskip;

		ret = 0;
		fld = src.fld;
		if (++nrec == 1) {
			ret = parse_info(fld, n, name, info, err);
			if (ret)
				break;
			continue;
		}
		if (nrec == 2) {
			ncols = n;
			if (ncols > MAX_COLS) {
				ret = kprof_err_set(err, EBADMSG,
						    "%s:%lu: bad header line (%d columns)",
						    name, lineno, ncols);
				break;
			}
			for (int i = 0; i < ncols; i++) {
				char key[64];

				normalize(fld[i], key, sizeof(key));
				for (size_t k = 0; k < ARRAY_SIZE(col_names); k++)
					if (!strcmp(key, col_names[k].name) &&
					    colidx[col_names[k].col] < 0)
						colidx[col_names[k].col] = i;
			}
			if (colidx[C_RUN_HOST_ID] < 0)
				colidx[C_RUN_HOST_ID] = colidx[C_RUN_ID];
			{
				static const char *const need[] = {
					[C_X] = "core_x", [C_Y] = "core_y",
					[C_RISC] = "RISC processor type",
					[C_TIME] = "time[cycles since reset]",
					[C_RUN_HOST_ID] = "run host ID (or Run ID)",
					[C_ZONE] = "zone name",
					[C_PHASE] = "type (or zone phase)",
				};
				for (int c = 0; c < C_NR && !ret; c++)
					if (c < (int)(ARRAY_SIZE(need)) && need[c] &&
					    colidx[c] < 0)
						ret = kprof_err_set(err, EBADMSG,
								    "%s:%lu: header has no '%s' column (%d columns): not a known tt-metal device log layout",
								    name, lineno, need[c], ncols);
			}
			if (ret)
				break;
			info->ncols = ncols;
			/*
			 * the trailing columns nothing reads (source line and
			 * file, meta data: most of a line's bytes) are counted
			 * for the field check, not split
			 */
			for (int c = 0; c < C_NR; c++)
				if (c != C_RUN_ID && colidx[c] >= src.skip_from)
					src.skip_from = colidx[c] + 1;
			if (src.skip_from >= ncols)
				src.skip_from = 0;
			continue;
		}
		/*
		 * fewer fields: broken; more: commas in the trailing free-text
		 * column (meta data / source file), which we do not read
		 */
		if (n < ncols) {
			ret = kprof_err_set(err, EBADMSG,
					    "%s:%lu: %d fields, the header has %d", name,
					    lineno, n, ncols);
			break;
		}
		memset(&row, 0, sizeof(row));
		row.line = lineno;
		{
			static const char *const what[] = {
				[C_SLOT] = "PCIe slot", [C_X] = "core_x", [C_Y] = "core_y",
				[C_TIMER] = "timer_id", [C_TIME] = "time",
				[C_DATA] = "data", [C_RUN_HOST_ID] = "run host ID",
			};
			uint64_t v[C_NR] = { 0 };
			static const enum col nums[] = { C_SLOT, C_X, C_Y, C_TIMER, C_TIME,
							 C_DATA, C_RUN_HOST_ID };

			for (size_t k = 0; k < ARRAY_SIZE(nums); k++) {
				int c = colidx[nums[k]];
				int optional = nums[k] == C_SLOT || nums[k] == C_TIMER ||
					       nums[k] == C_DATA;

				if (c < 0)
					continue;
				if (optional && fld[c][0] == '\0')
					continue;
				if (parse_u64(fld[c], &v[nums[k]])) {
					ret = kprof_err_set(err, EBADMSG,
							    "%s:%lu: %s '%.40s' is not a number",
							    name, lineno, what[nums[k]], fld[c]);
					break;
				}
			}
			if (ret)
				break;
			if (v[C_SLOT] > UINT32_MAX || v[C_X] > UINT32_MAX || v[C_Y] > UINT32_MAX) {
				ret = kprof_err_set(err, EBADMSG,
						    "%s:%lu: core or slot out of range",
						    name, lineno);
				break;
			}
			row.pcie_slot = (uint32_t)v[C_SLOT];
			row.core_x = (uint32_t)v[C_X];
			row.core_y = (uint32_t)v[C_Y];
			row.timer_id = v[C_TIMER];
			row.time = v[C_TIME];
			row.data = v[C_DATA];
			row.run_host_id = v[C_RUN_HOST_ID];
		}
		row.risc = fld[colidx[C_RISC]];
		row.zone_name = fld[colidx[C_ZONE]];
		row.type = fld[colidx[C_PHASE]];
		if (row.risc[0] == '\0') {
			ret = kprof_err_set(err, EBADMSG, "%s:%lu: empty RISC processor type",
					    name, lineno);
			break;
		}
		ret = fn(ctx, info, &row);
		if (ret)
			break;
	}
	if (!ret && nrec < 2)
		ret = kprof_err_set(err, EBADMSG,
				    "%s: %s: not a tt-metal device log (needs the ARCH line and a header)",
				    name, nrec ? "only one line" : "empty file");
	kprof_csv_src_free(&src);
	return ret;
}

int kprof_tt_parse_file(const char *path, kprof_tt_row_fn fn, void *ctx,
			struct kprof_tt_info *info, struct kprof_err *err)
{
	FILE *f = kprof_in_fopen(AT_FDCWD, path, NULL, err);
	int ret;

	if (!f)
		return -(err ? err->code : errno);
	ret = kprof_tt_parse(f, path, fn, ctx, info, err);
	fclose(f);
	return ret;
}
