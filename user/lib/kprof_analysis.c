// SPDX-License-Identifier: GPL-2.0
/* Bubbles, roofline and report.md of a capture report (kprof_analysis.h). */
#include "kprof_analysis.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kprof_bubbles.h"
#include "kprof_fs.h"
#include "kprof_outdir.h"
#include "kprof_peaks.h"
#include "kprof_roofline.h"

#define PEAKS_NAME	"peaks.json"

struct kprof_analysis {
	struct kprof_outdir *od;
	char label[160];
	char peaks_note[PATH_MAX + 64];	/* why there is no roofline */
	struct kprof_bubbles *bub;
	struct kprof_roofline *roof;
	struct kprof_outfile roof_csv;
};

static int save_peaks(struct kprof_outdir *od, const char *text, struct kprof_err *err)
{
	struct kprof_outdir *raw = kprof_outdir_sub(od, "raw", err);
	struct kprof_outfile of;

	if (!raw || kprof_outfile_create(raw, PEAKS_NAME, &of, err))
		return -(err ? err->code : EIO);
	fputs(text, of.f);
	return kprof_outfile_commit(&of, 0, err);
}

/* The peaks text to use, or NULL (note says why) */
static char *pick_peaks(struct kprof_analysis *an, int capfd, const char *capture_dir,
			const char *file, const struct kprof_spool_hdr *hdr, int *given,
			struct kprof_err *err)
{
	char path[PATH_MAX], name[KPROF_NAME_LEN + 8];
	struct kprof_err e = { 0 };
	char *text;

	*given = 0;
	if (file) {
		*given = 1;
		text = kprof_in_read(AT_FDCWD, file, NULL, KPROF_IN_JSON_MAX, NULL, err);
		if (!text)
			kprof_err_prefix(err, "peaks file");
		return text;
	}
	snprintf(path, sizeof(path), "%s/raw/" PEAKS_NAME, capture_dir);
	text = kprof_in_read(capfd, "raw/" PEAKS_NAME, path, KPROF_IN_JSON_MAX, NULL, &e);
	if (text || e.code != ENOENT) {
		/* the capture's own: an error in it is an error */
		*given = 1;
		if (!text)
			kprof_err_set(err, e.code, "%s", e.msg);
		return text;
	}
	snprintf(name, sizeof(name), "kprof_%.*s",
		 (int)strnlen(hdr->device.backend, sizeof(hdr->device.backend)),
		 hdr->device.backend);
	if (kprof_peaks_default(name, path, sizeof(path))) {
		snprintf(an->peaks_note, sizeof(an->peaks_note),
			 "no peaks file for this device (%s.json; give one with --peaks FILE)",
			 name);
		return NULL;
	}
	text = kprof_in_read(AT_FDCWD, path, NULL, KPROF_IN_JSON_MAX, NULL, &e);
	if (!text)
		snprintf(an->peaks_note, sizeof(an->peaks_note), "%s", e.msg);
	return text;
}

struct kprof_analysis *kprof_analysis_new(int capfd, const char *capture_dir,
					  struct kprof_outdir *od, const char *peaks_file,
					  const struct kprof_spool_hdr *hdr,
					  struct kprof_err *err)
{
	struct kprof_analysis *an = calloc(1, sizeof(*an));
	const struct kprof_device_info *d = &hdr->device;
	struct kprof_peaks peaks;
	char *text = NULL;
	unsigned int nc = hdr->counters.num_counters;
	int given;

	if (!an) {
		kprof_err_set(err, ENOMEM, "out of memory");
		return NULL;
	}
	an->od = od;
	snprintf(an->label, sizeof(an->label), "device %u, %.*s (%.*s), %u cores",
		 d->device_id, (int)strnlen(d->name, sizeof(d->name)), d->name,
		 (int)strnlen(d->backend, sizeof(d->backend)), d->backend, d->num_cores);
	an->bub = kprof_bubbles_new(d->num_cores, err);
	if (!an->bub)
		goto fail;
	text = pick_peaks(an, capfd, capture_dir, peaks_file, hdr, &given, err);
	if (!text && given)
		goto fail;
	if (text) {
		if (kprof_peaks_parse(text, &peaks, err))
			goto fail;
		/* the capture's own report keeps the peaks it used */
		if (kprof_outdir_is(od, capfd) && save_peaks(od, text, err))
			goto fail;
		if (kprof_outfile_create(od, "roofline.csv", &an->roof_csv, err))
			goto fail;
		an->roof = kprof_roofline_new(&peaks, hdr->counters.desc,
					      nc < KPROF_MAX_COUNTERS ? nc : KPROF_MAX_COUNTERS,
					      an->roof_csv.f, err);
		if (!an->roof)
			goto fail;
	}
	free(text);
	return an;
fail:
	free(text);
	kprof_analysis_free(an);
	return NULL;
}

int kprof_analysis_op(struct kprof_analysis *an, const struct kprof_op_row *row)
{
	int ret;

	if (!an->roof)		/* no peaks: a tail call */
		return kprof_bubbles_op(an->bub, row);
	ret = kprof_bubbles_op(an->bub, row);
	return ret ? ret : kprof_roofline_op(an->roof, row);
}

int kprof_analysis_finish(struct kprof_analysis *an, FILE *summary, struct kprof_err *err)
{
	struct kprof_outfile of;
	int ret;

	kprof_bubbles_finish(an->bub);
	ret = kprof_outfile_create(an->od, "bubbles.csv", &of, err);
	if (ret)
		return ret;
	kprof_bubbles_write_csv(an->bub, of.f);	/* the commit sees a write error */
	ret = kprof_outfile_commit(&of, 0, err);
	if (ret)
		return ret;
	kprof_bubbles_summary(an->bub, summary);
	if (an->roof) {
		ret = kprof_roofline_finish(an->roof, err);
		if (!ret)
			ret = kprof_outfile_commit(&an->roof_csv, 0, err);
		if (ret)
			return ret;
	}
	ret = kprof_outfile_create(an->od, "report.md", &of, err);
	if (ret)
		return ret;
	kprof_roofline_report_md(an->roof, an->bub, an->label, an->peaks_note, of.f);
	return kprof_outfile_commit(&of, 0, err);
}

void kprof_analysis_free(struct kprof_analysis *an)
{
	if (!an)
		return;
	kprof_outfile_discard(&an->roof_csv);
	kprof_bubbles_free(an->bub);
	kprof_roofline_free(an->roof);
	free(an);
}
