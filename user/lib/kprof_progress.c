// SPDX-License-Identifier: GPL-2.0
/* Progress line (kprof_progress.h). */
#include "kprof_progress.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "kprof_rec.h"

/* The one line pinned to a terminal, for the exit handler. */
static struct kprof_progress *pinned;

static uint64_t now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Rows of the terminal behind f, or 0 where a pinned line cannot work. */
static unsigned int tty_rows(FILE *f)
{
	const char *term = getenv("TERM");
	struct winsize ws;

	if (!f || !isatty(fileno(f)) || !term || !*term || !strcmp(term, "dumb"))
		return 0;
	if (ioctl(fileno(f), TIOCGWINSZ, &ws) || ws.ws_row < 2)
		return 0;
	return ws.ws_row;
}

/*
 * Keeps the last row for the line: a newline scrolls if the cursor is on
 * that row, the scroll region then leaves it out (setting a region homes
 * the cursor, hence the save/restore), and the cursor goes back up.
 */
static void pin(struct kprof_progress *p)
{
	fprintf(p->f, "\n\0337\033[1;%ur\0338\033[1A", p->rows - 1);
	fflush(p->f);
}

/* Erases the line and gives the row back to the scroll region. */
static void unpin(struct kprof_progress *p)
{
	fprintf(p->f, "\0337\033[%u;1H\033[2K\033[r\0338", p->rows);
	fflush(p->f);
}

static void unpin_at_exit(void)
{
	if (pinned)
		kprof_progress_done(pinned);
}

void kprof_progress_init(struct kprof_progress *p, FILE *f, const char *what, int force)
{
	static int registered;

	memset(p, 0, sizeof(*p));
	p->what = what;
	p->last_ns = now_mono();
	p->start_ns = p->last_ns;
	if (force < 0 || !f)
		return;
	p->rows = tty_rows(f);
	if (p->rows)
		p->mode = KPROF_PROGRESS_TTY;
	else if (force > 0)
		p->mode = KPROF_PROGRESS_LINES;
	else
		return;
	p->f = f;
	if (p->mode == KPROF_PROGRESS_TTY) {
		if (pinned)
			kprof_progress_done(pinned);
		pin(p);
		pinned = p;
		if (!registered)
			registered = !atexit(unpin_at_exit);
	}
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
	unsigned int rows;

	if (!p->f)
		return 0;
	if (!now_ns)
		now_ns = now_mono();
	if (now_ns - p->last_ns < KPROF_PROGRESS_PERIOD_NS)
		return 0;
	p->rate = (double)(p->markers - p->rate_markers) * 1e9 / (double)(now_ns - p->last_ns);
	p->rate_markers = p->markers;
	p->last_ns = now_ns;
	kprof_progress_format(p, line, sizeof(line));
	if (p->mode == KPROF_PROGRESS_LINES) {
		fprintf(p->f, "%s\n", line);
	} else {
		rows = tty_rows(p->f);
		if (rows && rows != p->rows) {	/* resized: move the region */
			fprintf(p->f, "\0337\033[r\0338");
			p->rows = rows;
			pin(p);
		}
		fprintf(p->f, "\0337\033[%u;1H\033[2K%s\0338", p->rows, line);
	}
	fflush(p->f);
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
	if (p->mode == KPROF_PROGRESS_TTY && p->f)
		unpin(p);
	if (pinned == p)
		pinned = NULL;
	p->f = NULL;
	p->mode = KPROF_PROGRESS_OFF;
}
