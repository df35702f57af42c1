/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Analysis outputs of a capture report (docs/formats.md): bubbles.csv,
 * roofline.csv, report.md and the bubbles section of summary.txt. The
 * report pipeline hands every op row it writes to ops.csv to
 * kprof_analysis_op() and calls kprof_analysis_finish() after summary.txt.
 *
 * Peaks: the file given (--peaks), else the capture's raw/peaks.json,
 * else data/peaks/kprof_<backend>.json (kprof_peaks_default). The report
 * written into the capture directory saves the one it used as
 * raw/peaks.json, so a later `kprofctl report DIR` re-makes the same files.
 */
#ifndef KPROF_ANALYSIS_H
#define KPROF_ANALYSIS_H

#include <stdio.h>

#include "kprof_agg.h"
#include "kprof_err.h"
#include "kprof_spool.h"

struct kprof_analysis;
struct kprof_outdir;

/*
 * capfd/capture_dir: the capture directory (its raw/peaks.json is read
 * relative to capfd); outputs go to od. When od is the capture directory
 * itself, the peaks used are saved as raw/peaks.json.
 */
struct kprof_analysis *kprof_analysis_new(int capfd, const char *capture_dir,
					  struct kprof_outdir *od, const char *peaks_file,
					  const struct kprof_spool_hdr *hdr,
					  struct kprof_err *err);
int kprof_analysis_op(struct kprof_analysis *an, const struct kprof_op_row *row);
/* Writes bubbles.csv, roofline.csv and report.md, and the bubbles section
 * of summary.txt to summary.
 */
int kprof_analysis_finish(struct kprof_analysis *an, FILE *summary, struct kprof_err *err);
void kprof_analysis_free(struct kprof_analysis *an);

#endif /* KPROF_ANALYSIS_H */
