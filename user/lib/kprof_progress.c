// SPDX-License-Identifier: GPL-2.0
/* Progress line (kprof_progress.h). */
#include "kprof_progress.h"

#include <inttypes.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kprof_rec.h"

static uint64_t now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void kprof_progress_init(struct kprof_progress *p, FILE *f, const char *what, int force)
{
	memset(p, 0, sizeof(*p));
	p->what = what;
	if (force > 0 || (force == 0 && f && isatty(fileno(f))))
		p->f = f;
	p->start_ns = p->last_ns = now_mono();
}

void kprof_progress_count(struct kprof_progress *p, const void *buf, size_t len)
{
	struct kprof_rec_iter it;
	const struct kprof_rec_hdr *r;

	if (!p->f)
		return;
	kprof_rec_iter_init(&it, buf, len, 0);
	while (kprof_rec_next(&it, &r, NULL) == KPROF_REC_OK) {
		p->records++;
		if (r->type == KPROF_REC_MARKER)
			p->markers++;
		else if (r->type == KPROF_REC_OP)
			p->ops++;
		else if (r->type == KPROF_REC_LOST)
			p->lost += ((const struct kprof_rec_lost *)r)->count;
	}
	p->bytes += len;
}

size_t kprof_progress_format(const struct kprof_progress *p, char *buf, size_t len)
{
	int n;

	if (!strcmp(p->what, "report"))
		n = snprintf(buf, len, "kprofctl report: %" PRIu64 " records, %.1f MB read",
			     p->records, (double)p->bytes / 1e6);
	else
		n = snprintf(buf, len, "kprofctl %s: %" PRIu64 " ops, %" PRIu64
			     " markers (%.0f/s), %" PRIu64 " lost", p->what, p->ops, p->markers,
			     p->rate, p->lost);
	return n < 0 ? 0 : ((size_t)n < len ? (size_t)n : len - 1);
}

int kprof_progress_tick(struct kprof_progress *p, uint64_t now_ns)
{
	char line[160];
	size_t n;

	if (!p->f)
		return 0;
	if (!now_ns)
		now_ns = now_mono();
	if (now_ns - p->last_ns < KPROF_PROGRESS_PERIOD_NS)
		return 0;
	p->rate = (double)(p->markers - p->rate_markers) * 1e9 / (double)(now_ns - p->last_ns);
	p->rate_markers = p->markers;
	p->last_ns = now_ns;
	n = kprof_progress_format(p, line, sizeof(line));
	/* pad over a longer previous line instead of relying on escapes */
	fprintf(p->f, "\r%s%*s", line, p->width > n ? (int)(p->width - n) : 0, "");
	fflush(p->f);
	p->width = n;
	p->lines++;
	return 1;
}

void kprof_progress_report_cb(void *ctx, uint64_t records, uint64_t bytes, uint64_t total)
{
	struct kprof_progress *p = ctx;

	(void)total;
	p->records = records;
	p->bytes = bytes;
	kprof_progress_tick(p, 0);
}

void kprof_progress_done(struct kprof_progress *p)
{
	if (!p->f || !p->lines)
		return;
	fprintf(p->f, "\r%*s\r", (int)p->width, "");
	fflush(p->f);
	p->lines = 0;
}
