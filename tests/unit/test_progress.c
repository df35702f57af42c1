// SPDX-License-Identifier: GPL-2.0
/* Progress line: silent when not a terminal; counts and format when on. */
#include "kt.h"

#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/kprof.h>

#include "kprof_progress.h"

static size_t drain(int fd, char *buf, size_t len)
{
	ssize_t n = read(fd, buf, len - 1);

	buf[n > 0 ? n : 0] = '\0';
	return n > 0 ? (size_t)n : 0;
}

/*
 * A pseudo-terminal hands output over asynchronously (the tty layer's
 * flip buffers): read until nothing more comes for 200 ms.
 */
static size_t drain_tty(int fd, char *buf, size_t len)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	size_t n = 0;
	ssize_t r;

	while (n < len - 1 && poll(&p, 1, 200) > 0) {
		r = read(fd, buf + n, len - 1 - n);
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	return n;
}

int main(void)
{
	union {
		uint64_t align;
		uint8_t b[512];
	} buf;
	struct kprof_rec_marker m;
	struct kprof_rec_op o;
	struct kprof_rec_lost l;
	struct kprof_progress p;
	size_t off = 0;
	char out[512];
	int fds[2];
	FILE *w;

	KT_CHECK(pipe(fds) == 0, "pipe");
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	w = fdopen(fds[1], "w");

	memset(&m, 0, sizeof(m));
	m.hdr.type = KPROF_REC_MARKER;
	m.hdr.size = sizeof(m);
	memset(&o, 0, sizeof(o));
	o.hdr.type = KPROF_REC_OP;
	o.hdr.size = sizeof(o);
	memset(&l, 0, sizeof(l));
	l.hdr.type = KPROF_REC_LOST;
	l.hdr.size = sizeof(l);
	l.count = 7;
	memcpy(buf.b + off, &o, sizeof(o));
	off += sizeof(o);
	for (int i = 0; i < 3; i++) {
		memcpy(buf.b + off, &m, sizeof(m));
		off += sizeof(m);
	}
	memcpy(buf.b + off, &l, sizeof(l));
	off += sizeof(l);

	/* a pipe is not a terminal: nothing is counted or written */
	kprof_progress_init(&p, w, "capture", 0);
	KT_CHECK(!p.f, "off on a pipe");
	kprof_progress_count(&p, buf.b, off);
	KT_CHECK(kprof_progress_tick(&p, p.start_ns + 10 * KPROF_PROGRESS_PERIOD_NS) == 0,
		 "no draw");
	kprof_progress_report_cb(&p, 100, 1000, 0);
	kprof_progress_done(&p);
	fflush(w);
	KT_EQ_U64(drain(fds[0], out, sizeof(out)), 0);

	/* forced on a non-terminal (--progress): whole lines */
	kprof_progress_init(&p, w, "capture", 1);
	kprof_progress_count(&p, buf.b, off);
	KT_EQ_U64(p.ops, 1);
	KT_EQ_U64(p.markers, 3);
	KT_EQ_U64(p.lost, 7);
	KT_CHECK(kprof_progress_tick(&p, p.start_ns + KPROF_PROGRESS_PERIOD_NS / 2) == 0,
		 "not before the period");
	KT_CHECK(kprof_progress_tick(&p, p.start_ns + KPROF_PROGRESS_PERIOD_NS) == 1, "draws");
	drain(fds[0], out, sizeof(out));
	KT_STR(out, "kprofctl capture: 1 ops, 3 markers (6/s), 7 lost\n");
	kprof_progress_done(&p);
	KT_EQ_U64(drain(fds[0], out, sizeof(out)), 0);	/* nothing to erase */

	kprof_progress_init(&p, w, "report", 1);
	kprof_progress_report_cb(&p, 1048576, 25000000, 0);
	KT_EQ_U64(p.lines, 0);	/* within the first period */
	p.last_ns -= KPROF_PROGRESS_PERIOD_NS;
	kprof_progress_report_cb(&p, 2097152, 50000000, 0);
	drain(fds[0], out, sizeof(out));
	KT_STR(out, "kprofctl report: 2097152 records, 50.0 MB read\n");
	fclose(w);
	close(fds[0]);

	/*
	 * A terminal (a pseudo-terminal here, 24 rows) turns it on without
	 * force: the last row is kept out of the scroll region, each redraw
	 * goes there and comes back, and done() erases it and restores the
	 * region, so the line never shares a row with other output.
	 */
	{
		struct winsize ws = { .ws_row = 24, .ws_col = 80 };
		int m = posix_openpt(O_RDWR | O_NOCTTY);
		FILE *t = NULL;
		char *name;

		setenv("TERM", "xterm", 1);
		KT_CHECK(m >= 0 && !grantpt(m) && !unlockpt(m) && (name = ptsname(m)) &&
			 (t = fopen(name, "w")), "pseudo-terminal");
		if (t) {
			KT_CHECK(ioctl(m, TIOCSWINSZ, &ws) == 0, "window size");
			fcntl(m, F_SETFL, O_NONBLOCK);
			kprof_progress_init(&p, t, "capture", 0);
			KT_CHECK(p.f == t && p.mode == KPROF_PROGRESS_TTY, "on for a terminal");
			drain_tty(m, out, sizeof(out));
			KT_STR(out, "\r\n\0337\033[1;23r\0338\033[1A");
			p.ops = 5;
			KT_CHECK(kprof_progress_tick(&p, p.start_ns + KPROF_PROGRESS_PERIOD_NS),
				 "draws");
			drain_tty(m, out, sizeof(out));
			KT_STR(out,
			       "\0337\033[24;1H\033[2Kkprofctl capture: 5 ops, 0 markers (0/s), 0 lost\0338");
			kprof_progress_done(&p);
			drain_tty(m, out, sizeof(out));
			KT_STR(out, "\0337\033[24;1H\033[2K\033[r\0338");
			KT_CHECK(!p.f, "off after done");

			/* a dumb terminal cannot keep a row: nothing, unless forced */
			setenv("TERM", "dumb", 1);
			kprof_progress_init(&p, t, "capture", 0);
			KT_CHECK(!p.f, "off on a dumb terminal");
			kprof_progress_init(&p, t, "capture", 1);
			KT_CHECK(p.mode == KPROF_PROGRESS_LINES, "forced: whole lines");
			kprof_progress_init(&p, t, "capture", -1);
			KT_CHECK(!p.f, "forced off");
			fclose(t);
		}
		if (m >= 0)
			close(m);
	}
	return kt_done("test_progress");
}
