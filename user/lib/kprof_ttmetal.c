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

/*
 * 8 digits at s (s[0] the first), or -1 if a byte is not a digit: the
 * bytes of a little-endian word checked and added up in pairs, fours,
 * eights (bytes 0x30-0x39: high nibble 3 before and after adding 6)
 */
static inline int64_t digits8(const char *s)
{
	uint64_t w;

	memcpy(&w, s, 8);
	if (((w & 0xf0f0f0f0f0f0f0f0ULL) |
	     ((w + 0x0606060606060606ULL) & 0xf0f0f0f0f0f0f0f0ULL) >> 4) != 0x3333333333333333ULL)
		return -1;
	w -= 0x3030303030303030ULL;
	w = (w * 10 + (w >> 8)) & 0x00ff00ff00ff00ffULL;
	w = (w * 100 + (w >> 16)) & 0x0000ffff0000ffffULL;
	return (int64_t)((w * 10000 + (w >> 32)) & 0xffffffffULL);
}

/*
 * A field of n bytes as a number, parse_u64's rules: 1 when its text is
 * what printing *v gives (no leading zero), 0 when it is another spelling
 * of *v, -1 when not a number. Up to 19 digits (every time stamp) with no
 * overflow check, the first 8 of 8 or more at once where words are
 * little-endian.
 */
static inline int parse_num(const char *s, size_t n, uint64_t *v)
{
	uint64_t x = 0;
	size_t i = 0;

	if (n == 1) {
		/* the commonest: slot, core, data */
		unsigned int d = (unsigned int)(unsigned char)s[0] - '0';

		if (d > 9)
			return -1;
		*v = d;
		return 1;
	}
	if (n - 1 >= 19)
		return parse_u64(s, v) ? -1 : n == 20 && s[0] != '0';
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (n >= 8) {
		int64_t d = digits8(s);

		if (d < 0)
			return -1;
		x = (uint64_t)d;
		i = 8;
	}
#endif
	for (; i < n; i++) {
		unsigned int d = (unsigned int)(unsigned char)s[i] - '0';

		if (d > 9)
			return -1;
		x = x * 10 + d;
	}
	*v = x;
	return s[0] != '0' || n == 1;
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

/* A number column of the log's layout: where it is, what it goes to. */
struct num_col {
	int col;		/* field index */
	enum col what;
	int optional;		/* may be empty (0) */
	int dig;		/* its place in kprof_tt_row's dig, or -1 */
};

int kprof_tt_parse(FILE *f, const char *name, kprof_tt_row_fn fn, void *ctx,
		   struct kprof_tt_info *info, struct kprof_err *err)
{
	static const char *const what[] = {
		[C_SLOT] = "PCIe slot", [C_X] = "core_x", [C_Y] = "core_y",
		[C_TIMER] = "timer_id", [C_TIME] = "time",
		[C_DATA] = "data", [C_RUN_HOST_ID] = "run host ID",
	};
	/* in device_log.csv's order, the last four kprof_tt_row's dig[0..3] */
	static const enum col nums[] = { C_SLOT, C_X, C_Y, C_TIMER, C_TIME, C_DATA,
					 C_RUN_HOST_ID };
	struct num_col plan[ARRAY_SIZE(nums)];
	int colidx[C_NR], ncols = 0, ret = 0, nplan = 0;
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
			for (size_t k = 0; k < ARRAY_SIZE(nums); k++)
				if (colidx[nums[k]] >= 0)
					plan[nplan++] = (struct num_col){
						.col = colidx[nums[k]], .what = nums[k],
						.optional = nums[k] == C_SLOT ||
							    nums[k] == C_TIMER || nums[k] == C_DATA,
						.dig = k >= 3 ? (int)k - 3 : -1,
					};
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
		row.line = lineno;
		/* (each field set below: no memset of the whole row) */
		memset(row.dig, 0, sizeof(row.dig));
		memset(row.ndig, 0, sizeof(row.ndig));
		{
			uint64_t v[C_NR] = { 0 };

			for (int k = 0; k < nplan; k++) {
				const struct num_col *p = &plan[k];
				const char *text = fld[p->col];
				size_t len = src.flen[p->col];
				int r;

				if (!len && p->optional)
					continue;
				r = parse_num(text, len, &v[p->what]);
				if (r < 0) {
					ret = kprof_err_set(err, EBADMSG,
							    "%s:%lu: %s '%.40s' is not a number",
							    name, lineno, what[p->what], text);
					break;
				}
				if (r && p->dig >= 0) {
					row.dig[p->dig] = text;
					row.ndig[p->dig] = (unsigned char)len;
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
		row.risc_len = src.flen[colidx[C_RISC]];
		row.zone_len = src.flen[colidx[C_ZONE]];
		row.type_len = src.flen[colidx[C_PHASE]];
		if (!row.risc_len) {
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
