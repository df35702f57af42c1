// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kprofctl diff A B [--csv FILE] [--threshold PCT] [-k K]: compare two
 * capture directories by op kind. All the work is libkprof's (kprof_diff).
 */
#include "kprofctl.h"
#include "kprof_diff.h"
#include "kprof_outdir.h"
#include "kprof_text.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int cmd_diff(int argc, char **argv);

static void diff_usage(FILE *f)
{
	fprintf(f,
		"usage: kprofctl diff A B [--csv FILE] [--threshold PCT] [-k K]\n"
		"Compare capture directory B against baseline A by op kind (OP CODE):\n"
		"per kind, the device kernel and FW durations, the host (launch)\n"
		"duration and each counter's per-op sum: count, median and %% change\n"
		"of the median (mean and total in the CSV).\n"
		"FLAG is UP/DOWN when the change is beyond run-to-run noise: |change|\n"
		"exceeds PCT %% AND k times the standard error of the difference of\n"
		"the medians (each side's from its MAD: 1.2533*1.4826*MAD/sqrt(n)).\n"
		"'only in A/B': the kind is missing on one side; 'n<2': too few ops\n"
		"to know the noise, never flagged.\n"
		"  --csv FILE         also write the comparison as CSV ('-': stdout)\n"
		"  --threshold PCT    smallest change flagged, in %% (default %.0f)\n"
		"  -k K               noise multiple (default %.0f)\n"
		"Needs no privileges. Run as root on captures of another user, it\n"
		"works as that user (also for --csv FILE).\n"
		"Exit status: 0 (also when changes are flagged), 1 error, 2 usage.\n",
		KPROF_DIFF_THRESHOLD_PCT, KPROF_DIFF_K);
}

static int parse_pos(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return (errno || end == s || *end || !(*v > 0) || *v > 1e9) ? -1 : 0;
}

/* FILE written whole, then renamed into place (a link there is replaced) */
static int write_csv(const char *path, const struct kprof_diff_row *rows, size_t n)
{
	struct kprof_err err = { 0 };
	struct kprof_outfile of;
	struct kprof_outdir *od;
	const char *name;
	int r;

	/* kprofctl is the files' owner by now (kprofctl_run_as_owner) */
	od = kprof_outdir_of_file(path, (uid_t)-1, (gid_t)-1, &name, &err);
	r = od ? kprof_outfile_create(od, name, &of, &err) : -1;
	if (!r) {
		kprof_diff_write_csv(of.f, rows, n);	/* the commit sees a write error */
		r = kprof_outfile_commit(&of, 0, &err);
	}
	kprof_outdir_close(od);
	if (r)
		kprofctl_err("--csv %s: %s", path, err.msg);
	return r;
}

enum { OPT_CSV = 256, OPT_THRESHOLD };

int cmd_diff(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "csv", required_argument, NULL, OPT_CSV },
		{ "threshold", required_argument, NULL, OPT_THRESHOLD },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct kprof_diff_opts o = { 0 };
	struct kprof_err err = { 0 };
	const struct kprof_diff_row *rows;
	const char *csv = NULL;
	struct kprof_diff *d;
	size_t n;
	int c, ret = KPROFCTL_EXIT_FAIL;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "k:h", lopts, NULL)) != -1) {
		switch (c) {
		case OPT_CSV:
			csv = optarg;
			break;
		case OPT_THRESHOLD:
			if (parse_pos(optarg, &o.threshold_pct))
				return kprofctl_usage_error("diff",
							    "bad --threshold '%s' (a percentage > 0)",
							    optarg);
			break;
		case 'k':
			if (parse_pos(optarg, &o.k))
				return kprofctl_usage_error("diff", "bad -k '%s' (a number > 0)",
							    optarg);
			break;
		case 'h':
			diff_usage(stdout);
			return 0;
		default:
			return kprofctl_usage_error("diff", "unknown or incomplete option '%s'",
						    argv[optind - 1]);
		}
	}
	if (argc - optind != 2)
		return kprofctl_usage_error("diff",
					    "give two capture directories: A (baseline) and B");
	{
		/* as root: compared as the captures' owner (docs/security.md) */
		const char *const paths[] = { argv[optind], argv[optind + 1], csv };

		if (kprofctl_run_as_owner("diff", paths, csv && strcmp(csv, "-") ? 3 : 2))
			return KPROFCTL_EXIT_FAIL;
	}
	d = kprof_diff_new();
	if (!d) {
		kprofctl_err("out of memory");
		return KPROFCTL_EXIT_FAIL;
	}
	for (int side = 0; side < 2; side++) {
		struct stat st;

		if (stat(argv[optind + side], &st) || !S_ISDIR(st.st_mode)) {
			kprofctl_err("diff: %s is not a directory (give two capture directories)",
				     argv[optind + side]);
			goto out;
		}
		if (kprof_diff_add_capture(d, side, argv[optind + side], &err)) {
			kprofctl_err("diff: %s (run 'kprofctl report %s' if the capture has only raw/)",
				     err.msg, argv[optind + side]);
			goto out;
		}
	}
	if (kprof_diff_compute(d, &o, &rows, &n)) {
		kprofctl_err("out of memory");
		goto out;
	}
	if (csv && !strcmp(csv, "-")) {
		if (kprof_diff_write_csv(stdout, rows, n) | fflush(stdout)) {
			kprofctl_err("writing the CSV to stdout failed");
			goto out;
		}
		goto ok;
	}
	if (csv && write_csv(csv, rows, n))
		goto out;
	fputs("A: ", stdout);
	kprof_text_put(stdout, argv[optind]);
	fputs("\nB: ", stdout);
	kprof_text_put(stdout, argv[optind + 1]);
	putchar('\n');
	kprof_diff_print(stdout, rows, n);
ok:
	ret = 0;
out:
	kprof_diff_free(d);
	return ret;
}
