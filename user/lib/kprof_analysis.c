// SPDX-License-Identifier: GPL-2.0
/* Bubbles, roofline and report.md of a capture report (kprof_analysis.h). */
#include "kprof_analysis.h"
#include "kprof_fs.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kprof_bubbles.h"
#include "kprof_peaks.h"
#include "kprof_roofline.h"

struct kprof_analysis {
	char outdir[PATH_MAX];
	char label[160];
	char peaks_note[PATH_MAX + 64];	/* why there is no roofline */
	struct kprof_bubbles *bub;
	struct kprof_roofline *roof;
};

static int save_peaks(const char *capture_dir, const char *text, struct kprof_err *err)
{
	char path[PATH_MAX], tmp[PATH_MAX + 8];
	FILE *f;
	int bad;

	snprintf(path, sizeof(path), "%s/raw/peaks.json", capture_dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "we");
	if (!f)
		return kprof_err_set(err, errno, "cannot create %s: %s", tmp, strerror(errno));
	fputs(text, f);
	bad = ferror(f);
	bad |= fclose(f) != 0;
	if (bad || rename(tmp, path)) {
		unlink(tmp);
		return kprof_err_set(err, EIO, "writing %s failed", path);
	}
	return 0;
}

/* The peaks text to use, or NULL (note says why) */
static char *pick_peaks(struct kprof_analysis *an, const char *capture_dir, const char *file,
			const struct kprof_spool_hdr *hdr, int *given, struct kprof_err *err)
{
	char path[PATH_MAX], name[KPROF_NAME_LEN + 8];
	char *text;

	*given = 0;
	if (file) {
		*given = 1;
		text = kprof_read_file(file);
		if (!text)
			kprof_err_set(err, errno ? errno : EIO, "cannot read peaks file %s: %s",
				      file, strerror(errno ? errno : EIO));
		return text;
	}
	snprintf(path, sizeof(path), "%s/raw/peaks.json", capture_dir);
	text = kprof_read_file(path);
	if (text) {
		*given = 1;	/* the capture's own: an error in it is an error */
		return text;
	}
	snprintf(name, sizeof(name), "kprof_%.*s",
		 (int)strnlen(hdr->device.backend, sizeof(hdr->device.backend)),
		 hdr->device.backend);
	if (kprof_peaks_default(name, path, sizeof(path))) {
		snprintf(an->peaks_note, sizeof(an->peaks_note),
			 "no peaks file for this device (%s.json; give one with --peaks FILE)", name);
		return NULL;
	}
	return kprof_read_file(path);
}

struct kprof_analysis *kprof_analysis_new(const char *capture_dir, const char *outdir,
					  const char *peaks_file,
					  const struct kprof_spool_hdr *hdr,
					  struct kprof_err *err)
{
	struct kprof_analysis *an = calloc(1, sizeof(*an));
	const struct kprof_device_info *d = &hdr->device;
	struct kprof_peaks peaks;
	char *text = NULL, path[PATH_MAX + 16];
	unsigned int nc = hdr->counters.num_counters;
	int given;

	if (!an) {
		kprof_err_set(err, ENOMEM, "out of memory");
		return NULL;
	}
	snprintf(an->outdir, sizeof(an->outdir), "%s", outdir);
	snprintf(an->label, sizeof(an->label), "device %u, %.*s (%.*s), %u cores",
		 d->device_id, (int)strnlen(d->name, sizeof(d->name)), d->name,
		 (int)strnlen(d->backend, sizeof(d->backend)), d->backend, d->num_cores);
	an->bub = kprof_bubbles_new(d->num_cores, err);
	if (!an->bub)
		goto fail;
	errno = 0;
	text = pick_peaks(an, capture_dir, peaks_file, hdr, &given, err);
	if (!text && given)
		goto fail;
	if (text) {
		if (kprof_peaks_parse(text, &peaks, err))
			goto fail;
		/* the capture's own report keeps the peaks it used */
		if (!strcmp(capture_dir, outdir) && save_peaks(capture_dir, text, err))
			goto fail;
		snprintf(path, sizeof(path), "%s/roofline.csv", outdir);
		an->roof = kprof_roofline_new(&peaks, hdr->counters.desc,
					      nc < KPROF_MAX_COUNTERS ? nc : KPROF_MAX_COUNTERS,
					      path, err);
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
	int ret = kprof_bubbles_op(an->bub, row);

	if (!ret && an->roof)
		ret = kprof_roofline_op(an->roof, row);
	return ret;
}

int kprof_analysis_finish(struct kprof_analysis *an, struct kprof_err *err)
{
	char path[PATH_MAX + 16];
	FILE *f;
	int ret, bad;

	kprof_bubbles_finish(an->bub);
	snprintf(path, sizeof(path), "%s/bubbles.csv", an->outdir);
	ret = kprof_bubbles_write_csv(an->bub, path, err);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%s/summary.txt", an->outdir);
	f = fopen(path, "ae");
	if (!f)
		return kprof_err_set(err, errno, "cannot append to %s: %s", path, strerror(errno));
	kprof_bubbles_summary(an->bub, f);
	bad = ferror(f);
	bad |= fclose(f) != 0;
	if (bad)
		return kprof_err_set(err, EIO, "writing %s failed", path);
	if (an->roof) {
		ret = kprof_roofline_finish(an->roof, err);
		if (ret)
			return ret;
	}
	snprintf(path, sizeof(path), "%s/report.md", an->outdir);
	return kprof_roofline_report_md(an->roof, an->bub, an->label, an->peaks_note, path, err);
}

void kprof_analysis_free(struct kprof_analysis *an)
{
	if (!an)
		return;
	kprof_bubbles_free(an->bub);
	kprof_roofline_free(an->roof);
	free(an);
}
