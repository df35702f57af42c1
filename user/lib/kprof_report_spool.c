// SPDX-License-Identifier: GPL-2.0
/*
 * Reports from a capture's spools (raw/device.kspool, raw/host.kspool or
 * an NVIDIA capture's agent spool) -> all output files.
 *
 * The time mapping is fitted from the capture's SYNC triples first (and
 * its clock and state records are listed): from the device spool's index
 * (raw/device.kidx, kprof_spool.h) when it has a good one, else by pass 1
 * over the whole device spool. Pass 2 merges device and host records by
 * host time and streams them through the aggregation engine and the
 * writers.
 *
 * The retirement slack needs the worst lateness of the whole capture
 * (kprof_lag.h). Pass 1 measures it; with the index, pass 2 measures it
 * as it goes, with the slack that lateness under 120 ms gives (nearly
 * every capture), and is made again with the slack it found if that is
 * another: the same outputs either way. Memory: the fit's samples (24
 * bytes per sync period), ops in flight, and bounded lists.
 */
#include "kprof_report.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json.h>

#include "kprof_agg.h"
#include "kprof_analysis.h"
#include "kprof_fs.h"
#include "kprof_gpu.h"
#include "kprof_gpucnt_out.h"
#include "kprof_lag.h"
#include "kprof_outdir.h"
#include "kprof_report_out.h"
#include "kprof_spool.h"
#include "kprof_text.h"
#include "kprof_timesync.h"
#include "kprof_trace.h"
#include "kprof_writers.h"

#define CONFIG_NAME	"config.json"
#define CONFIG_FILE	KPROF_SPOOL_DIR "/" CONFIG_NAME
#define MAX_EVENTS_KEPT	1000	/* state records listed (clock changes: all) */
#define MAX_GPU_SPOOLS	64	/* agent spools listed (NVIDIA captures) */
#define PROGRESS_EVERY	(1U << 20)

struct clock_ev {
	uint64_t host_ns, device_cycles;
	uint32_t mhz, flags;
};

struct state_ev {
	uint64_t host_ns;
	uint32_t state, reason;
};

/*
 * One report from a capture's spools: the open spools and what pass 1
 * learnt from the device spool (time sync samples, clock and state
 * changes, record lateness), then the fit made from it.
 */
struct spool_report {
	struct kprof_spool_reader *dev, *host;
	struct kprof_spool_hdr dev_hdr;
	struct kprof_sync_pt *pts;
	size_t npts, cap;
	struct clock_ev *clocks;	/* every change: params.json lists them all */
	size_t nclocks, clocks_cap, clocks_total;
	struct state_ev states[MAX_EVENTS_KEPT];
	size_t nstates, states_total;
	struct kprof_host_bpf_stats bpf;
	int have_bpf;
	struct kprof_tsfit fit, oneshot;
	double oneshot_max_diff_ns;	/* |one-shot - piecewise| at sync samples */
	struct kprof_lag lag;		/* sizes the retirement slack */
	int lag_in_pass2;		/* lag is measured by pass 2, not pass 1 */
	uint64_t slack_ns;		/* what pass 2 used */
	int slack_capped;
	uint32_t spool_reads;		/* of the device spool, by either pass */
	uint64_t records;		/* pass 2's, up to the last progress callback */
	/*
	 * NVIDIA (device backend "nvidia"): the CUPTI agent's spool of one
	 * process, read as device and host records (kprof_gpu.h) in place
	 * of raw/device.kspool's records and raw/host.kspool
	 */
	int nvidia;
	struct kprof_gpu_src *gdev, *ghost;
	struct kprof_gpu_spool gspools[MAX_GPU_SPOOLS];
	int ngspools, gpick;		/* spools found; the one read (-1: none) */
	int picked_pid;			/* gpick is the report's --pid */
};

/* The device and host record streams, whichever spools hold them. */
static inline int dev_next(struct spool_report *c, const struct kprof_rec_hdr **r,
			   struct kprof_err *err)
{
	return c->gdev ? kprof_gpu_next(c->gdev, r, err) : kprof_spool_next(c->dev, r, err);
}

static inline int host_next(struct spool_report *c, const struct kprof_rec_hdr **r,
			    struct kprof_err *err)
{
	return c->ghost ? kprof_gpu_next(c->ghost, r, err) : kprof_spool_next(c->host, r, err);
}

static int have_host(const struct spool_report *c)
{
	return c->host || c->ghost;
}

static const struct kprof_spool_stats *dev_stats(const struct spool_report *c)
{
	return c->gdev ? kprof_gpu_spool_stats(c->gdev) : kprof_spool_reader_stats(c->dev);
}

static const struct kprof_spool_stats *host_stats(const struct spool_report *c)
{
	return c->ghost ? kprof_gpu_spool_stats(c->ghost) : kprof_spool_reader_stats(c->host);
}

/* ---------------------------------------------------------------- */
/* pass 1                                                           */

/* What the fit and the lists take from a device record (SYNC, CLOCK, STATE). */
static int keep_rare(struct spool_report *c, const struct kprof_rec_hdr *rec,
		     struct kprof_err *err)
{
	if (rec->type == KPROF_REC_SYNC) {
		const struct kprof_rec_sync *s = (const void *)rec;

		if (kprof_report_grow(&c->pts, &c->cap, c->npts, sizeof(*c->pts), 1024, err))
			return -ENOMEM;
		c->pts[c->npts++] = (struct kprof_sync_pt){
			s->host_before_ns, s->device_cycles, s->host_after_ns };
	} else if (rec->type == KPROF_REC_CLOCK) {
		const struct kprof_rec_clock *k = (const void *)rec;

		if (kprof_report_grow(&c->clocks, &c->clocks_cap, c->nclocks,
				      sizeof(*c->clocks), 256, err))
			return -ENOMEM;
		c->clocks[c->nclocks++] = (struct clock_ev){
			k->host_ns, k->device_cycles, k->mhz, k->flags };
		c->clocks_total++;
	} else if (rec->type == KPROF_REC_STATE) {
		const struct kprof_rec_state *s = (const void *)rec;

		if (c->nstates < MAX_EVENTS_KEPT)
			c->states[c->nstates++] = (struct state_ev){
				s->host_ns, s->state, s->reason };
		c->states_total++;
	}
	return 0;
}

static int pass1(struct spool_report *c, struct kprof_err *err)
{
	const struct kprof_rec_hdr *rec;
	int ret;

	c->spool_reads++;
	while ((ret = dev_next(c, &rec, err)) == KPROF_REC_OK) {
		if (rec->flags & KPROF_RECF_CORRUPT)
			continue;
		kprof_lag_rec(&c->lag, rec);
		ret = keep_rare(c, rec, err);
		if (ret)
			return ret;
	}
	kprof_lag_end(&c->lag);
	if (ret < 0)
		return -(err ? err->code : EBADMSG);
	if (c->gdev) {
		/* the GPU's (device, stream) tracks are its "cores" */
		c->dev_hdr.device.num_cores = kprof_gpu_ntracks(c->gdev);
		return kprof_gpu_rewind(c->gdev, err);
	}
	return kprof_spool_rewind(c->dev, err);
}

/*
 * Pass 1's SYNC, CLOCK and STATE records from the device spool's index,
 * when it has a good one (1; 0: none, read the spool). An index that
 * cannot be read whole is not used.
 */
static int read_index(struct spool_report *c, int capfd, struct kprof_err *err)
{
	struct kprof_spool_reader *x;
	const struct kprof_rec_hdr *rec;
	int ret, whole;

	if (!c->dev || c->gdev)
		return 0;
	x = kprof_spool_index_openat(capfd, c->dev);
	if (!x)
		return 0;
	while ((ret = kprof_spool_next(x, &rec, NULL)) == KPROF_REC_OK) {
		if (rec->flags & KPROF_RECF_CORRUPT)
			continue;
		ret = keep_rare(c, rec, err);
		if (ret)
			break;
	}
	whole = ret == KPROF_REC_END && !kprof_spool_reader_stats(x)->truncated_bytes;
	kprof_spool_free(x);
	if (ret == -ENOMEM)
		return ret;
	if (whole)
		return 1;
	/* what it gave is read from the spool instead */
	c->npts = 0;
	c->nclocks = 0;
	c->clocks_total = 0;
	c->nstates = 0;
	c->states_total = 0;
	return 0;
}

/* An NVIDIA capture whose CUPTI timestamps are host CLOCK_MONOTONIC. */
static int gpu_monotonic(const struct spool_report *c)
{
	return c->gdev && kprof_gpu_stats(c->gdev)->clock == KPROF_GCLOCK_MONOTONIC;
}

static void fit_capture(struct spool_report *c, struct kprof_err *err)
{
	double hz = (double)c->dev_hdr.device.ref_clock_hz;

	if (gpu_monotonic(c)) {
		/*
		 * CUPTI's timestamps are CLOCK_MONOTONIC already (the agent's
		 * timestamp callback): nothing to fit
		 */
		kprof_tsfit_linear(&c->fit, 1.0, 0);
		kprof_tsfit_linear(&c->oneshot, 1.0, 0);
		c->oneshot_max_diff_ns = NAN;
		return;
	}

	if (!(hz > 0))
		hz = 1e9;	/* no nominal rate: treat cycles as ns */
	kprof_tsfit_piecewise(c->pts, c->npts, hz, &c->fit, err);
	kprof_tsfit_oneshot(c->pts, c->npts, hz, &c->oneshot, err);
	if (c->ghost)
		kprof_gpu_set_fit(c->ghost, &c->fit);	/* API times are CUPTI's too */
	c->oneshot_max_diff_ns = NAN;
	for (size_t i = 0; i < c->npts; i++) {
		double d = fabs(kprof_tsfit_to_host(&c->oneshot, c->pts[i].device_cycles) -
				kprof_tsfit_to_host(&c->fit, c->pts[i].device_cycles));

		if (isnan(c->oneshot_max_diff_ns) || d > c->oneshot_max_diff_ns)
			c->oneshot_max_diff_ns = d;
	}
}

/* ---------------------------------------------------------------- */
/* pass 2                                                           */

struct feed {
	struct spool_report *c;
	struct kprof_agg *agg;
	struct kprof_out *out;
	const struct kprof_report_opts *opts;
	struct kprof_lag *lag;		/* measured here (NULL: by pass 1) */
	double last_dev_key;
	/* dev_run(): the next host record's key as cycles of run_seg (run_hx
	 * cycles from its dev0 convert to run_hk or less)
	 */
	struct kprof_ts_seg run_seg;
	double run_hk;
	uint64_t run_hx;
	/* device_log.csv's RISC names and FW / KERNEL zone names, by RISC,
	 * and the types, each checked once (kprof_devlog_text)
	 */
	char risc[KPROF_MAX_RISCS][16];
	char zone[KPROF_MAX_RISCS][2][48];
	struct kprof_devlog_text trisc[KPROF_MAX_RISCS], tzone[KPROF_MAX_RISCS][2], ttype[2];
	/* device_log.csv rows' heads by core and RISC (made at their first
	 * marker, n 0 before; NULL: none kept, too many cores) and tails by
	 * RISC and FW / KERNEL marker kind
	 */
	struct kprof_devlog_part *dl_head;
	unsigned int dl_cores;
	struct kprof_devlog_part dl_tail[KPROF_MAX_RISCS][4];
};

/* the most cores whose rows' heads are kept: 4096 x 8 RISCs x 68 bytes */
#define DEVLOG_HEAD_CORES	4096

static void risc_label(const struct kprof_spool_hdr *h, unsigned int r, char *out,
		       size_t len)
{
	const char *n = h->device.risc_names[r];
	size_t k = strnlen(n, sizeof(h->device.risc_names[r]));

	if (k == 0) {
		snprintf(out, len, "RISC%u", r);
		return;
	}
	snprintf(out, len, "%.*s", (int)k, n);
}

/*
 * fd's names of each RISC and its zones, and device_log.csv rows' parts,
 * made once, not per marker
 */
static int devlog_names(struct feed *fd)
{
	for (unsigned int r = 0; r < KPROF_MAX_RISCS; r++) {
		const char *n = fd->risc[r];

		risc_label(&fd->c->dev_hdr, r, fd->risc[r], sizeof(fd->risc[r]));
		/* tt-metal names the three TRISCs' zones TRISC-FW / TRISC-KERNEL */
		snprintf(fd->zone[r][0], sizeof(fd->zone[r][0]), "%s-FW",
			 strncmp(n, "TRISC", 5) ? n : "TRISC");
		snprintf(fd->zone[r][1], sizeof(fd->zone[r][1]), "%s-KERNEL",
			 strncmp(n, "TRISC", 5) ? n : "TRISC");
		kprof_devlog_text_init(&fd->trisc[r], fd->risc[r]);
		kprof_devlog_text_init(&fd->tzone[r][0], fd->zone[r][0]);
		kprof_devlog_text_init(&fd->tzone[r][1], fd->zone[r][1]);
	}
	kprof_devlog_text_init(&fd->ttype[0], "ZONE_END");
	kprof_devlog_text_init(&fd->ttype[1], "ZONE_START");
	for (unsigned int r = 0; r < KPROF_MAX_RISCS; r++)
		for (unsigned int k = KPROF_MARK_FW_START; k <= KPROF_MARK_KERNEL_END; k++)
			kprof_devlog_tail(&fd->dl_tail[r][k - 1],
					  &fd->tzone[r][k > KPROF_MARK_FW_END], &fd->ttype[k % 2]);
	fd->dl_cores = fd->c->dev_hdr.device.num_cores;
	if (!fd->out->devlog || !fd->dl_cores || fd->dl_cores > DEVLOG_HEAD_CORES)
		return 0;
	fd->dl_head = calloc((size_t)fd->dl_cores * KPROF_MAX_RISCS, sizeof(*fd->dl_head));
	return fd->dl_head ? 0 : -ENOMEM;
}

/* the head of m's row, made once; NULL when it has none */
static const struct kprof_devlog_part *devlog_head(struct feed *fd,
						   const struct kprof_rec_marker *m,
						   unsigned int gx, unsigned int r)
{
	size_t i = (size_t)m->core * KPROF_MAX_RISCS + r;

	if (!fd->dl_head || m->core >= fd->dl_cores)
		return NULL;
	/* (a head is never empty: "slot,x,y,RISC") */
	if (!fd->dl_head[i].n)
		kprof_devlog_head(&fd->dl_head[i], fd->c->dev_hdr.device.device_id,
				  m->core % gx, m->core / gx, &fd->trisc[r]);
	return fd->dl_head[i].n >= 0 ? &fd->dl_head[i] : NULL;
}

static int devlog_marker(struct feed *fd, const struct kprof_rec_marker *m)
{
	const struct kprof_device_info *d = &fd->c->dev_hdr.device;
	unsigned int gx = d->grid_x ? d->grid_x : 1;
	unsigned int r = m->risc < KPROF_MAX_RISCS ? m->risc : 0;
	char zbuf[48];
	struct kprof_devlog_text zt;
	const struct kprof_devlog_text *zone;

	switch (m->kind) {
	case KPROF_MARK_FW_START:
	case KPROF_MARK_FW_END:
	case KPROF_MARK_KERNEL_START:
	case KPROF_MARK_KERNEL_END: {
		const struct kprof_devlog_part *h = devlog_head(fd, m, gx, r),
					       *t = &fd->dl_tail[r][m->kind - 1];

		if (h && t->n >= 0)
			return kprof_out_devlog_row_p(fd->out, h, 0, m->timestamp, 0,
						      m->op_seq, t);
		zone = &fd->tzone[r][m->kind > KPROF_MARK_FW_END];
		break;
	}
	default:
		snprintf(zbuf, sizeof(zbuf), "ZONE-%u", m->zone_id);
		kprof_devlog_text_init(&zt, zbuf);
		zone = &zt;
		break;
	}
	return kprof_out_devlog_row_t(fd->out, d->device_id, m->core % gx, m->core / gx,
				      &fd->trisc[r],
				      m->kind >= KPROF_MARK_ZONE_START ? m->zone_id : 0,
				      m->timestamp, 0, m->op_seq, zone, &fd->ttype[m->kind % 2]);
}

/* dev_key() for every type but MARKER */
static __attribute__((noinline)) double dev_key_other(struct feed *fd,
						      const struct kprof_rec_hdr *r)
{
	const struct kprof_tsfit *fit = &fd->c->fit;
	double k = fd->last_dev_key;

	switch (r->type) {
	case KPROF_REC_OP:
		k = kprof_tsfit_to_host(fit, ((const struct kprof_rec_op *)r)->timestamp);
		break;
	case KPROF_REC_LOST:
		k = kprof_tsfit_to_host(fit, ((const struct kprof_rec_lost *)r)->timestamp);
		break;
	case KPROF_REC_SYNC: {
		const struct kprof_rec_sync *s = (const void *)r;

		/* a broken triple must not push the merge ahead of everything */
		if (s->host_after_ns >= s->host_before_ns)
			k = (double)s->host_before_ns;
		break;
	}
	case KPROF_REC_CLOCK:
		k = (double)((const struct kprof_rec_clock *)r)->host_ns;
		break;
	case KPROF_REC_STATE:
		k = (double)((const struct kprof_rec_state *)r)->host_ns;
		break;
	default:
		break;
	}
	fd->last_dev_key = k;
	return k;
}

/*
 * A device record's merge key, host ns: its own time converted, or the
 * key of the record before for types with none. Inline for a MARKER,
 * nearly every record; the other types in dev_key_other().
 */
static inline double dev_key(struct feed *fd, const struct kprof_rec_hdr *r)
{
	if (r->type != KPROF_REC_MARKER)
		return dev_key_other(fd, r);
	fd->last_dev_key = kprof_tsfit_to_host(&fd->c->fit,
					       ((const struct kprof_rec_marker *)r)->timestamp);
	return fd->last_dev_key;
}

static int feed_dev(struct feed *fd, const struct kprof_rec_hdr *r, double key,
		    struct kprof_err *err)
{
	int ret;

	if (fd->lag && !(r->flags & KPROF_RECF_CORRUPT))
		kprof_lag_rec(fd->lag, r);
	if (fd->out->trace && r->type == KPROF_REC_CLOCK &&
	    !(r->flags & KPROF_RECF_CORRUPT)) {
		const struct kprof_rec_clock *k = (const void *)r;

		kprof_trace_clock(fd->out->trace, k->host_ns, k->mhz);
	}
	if (fd->out->devlog && r->type == KPROF_REC_MARKER &&
	    !(r->flags & KPROF_RECF_CORRUPT)) {
		ret = devlog_marker(fd, (const void *)r);
		if (ret)
			return ret;
	}
	/* dev_key() converted this record's timestamp already */
	return kprof_agg_device_rec_at(fd->agg, r, key, err);
}

/*
 * The lateness meter's view of a run's parts: as if each part's markers
 * came one by one (kprof_lag_marker()), its latest standing for them all
 * (the meter keeps the latest of a run; the run's cycles past the meter's
 * SYNC do not wrap: dev_run()).
 */
static void lag_run(struct kprof_lag *l, const struct kprof_agg_run *run)
{
	for (uint32_t k = 0; k < run->nops; k++) {
		const struct kprof_agg_run_op *op = &run->ops[k];
		struct kprof_rec_marker m = { .op_seq = op->op_lo,
					      .timestamp = run->seg->dev0 + op->xmax };
		int64_t d = (int64_t)(m.timestamp - l->sync_cycles);

		if (op->op_lo == l->last_lo) {
			if (d > l->run_max)
				l->run_max = d;
			continue;
		}
		kprof_lag_marker_slow(l, &m);
		/* an op whose dispatch is not known: each marker counts */
		if (l->last_lo != op->op_lo)
			l->unknown += op->n - 1;
	}
}

/*
 * After MARKER m was fed: the markers that follow it in the device
 * spool's window, of its op and of other ops in flight, fed to the engine
 * at once while they convert in the fit's current segment and come before
 * the next host record (at hk, when have_hk); at most max, *taken of
 * them. The same as one by one through feed_dev(), device_log.csv's rows
 * included; for the native spool (pass2()). 0 or a writing error.
 */
static int dev_run(struct feed *fd, const struct kprof_rec_marker *m, int have_hk, double hk,
		   size_t max, size_t *taken)
{
	const struct kprof_ts_seg *seg = &fd->c->fit.cur;
	struct kprof_agg_run run;	/* ops[] is 1 KiB: set by the engine, not here */
	const void *recs;
	size_t left, n;

	*taken = 0;
	if (!fd->c->fit.cur_len || (m->hdr.flags & KPROF_RECF_CORRUPT))
		return 0;
	recs = kprof_spool_peek(fd->c->dev, &left);
	n = left / sizeof(*m);
	if (n > max)
		n = max;
	if (!n)
		return 0;
	run.seg = seg;
	run.op_lo = m->op_seq;
	run.xlen = fd->c->fit.cur_len < (1ULL << 63) ? fd->c->fit.cur_len : 1ULL << 63;
	if (have_hk) {
		if (memcmp(&fd->run_seg, seg, sizeof(*seg)) || fd->run_hk != hk) {
			fd->run_seg = *seg;
			fd->run_hk = hk;
			fd->run_hx = kprof_ts_seg_upto(seg, 1ULL << 63, hk);
		}
		if (run.xlen > fd->run_hx)
			run.xlen = fd->run_hx;
	}
	if (fd->lag) {
		/* the meter's cycles past its SYNC, signed, grow with the
		 * markers' up to where they wrap
		 */
		uint64_t w = fd->lag->sync_cycles + (1ULL << 63) - seg->dev0;

		if (w && w < run.xlen)
			run.xlen = w;
	}
	n = kprof_agg_marker_run(fd->agg, recs, n, &run);
	if (!n)
		return 0;
	kprof_spool_take(fd->c->dev, n, n * sizeof(*m));
	*taken = n;
	if (fd->lag)
		lag_run(fd->lag, &run);
	fd->last_dev_key = kprof_ts_seg_eval(seg, seg->dev0 + run.xlast);
	/* their rows, in order, as feed_dev() writes a marker's */
	for (size_t i = 0; fd->out->devlog && i < n; i++) {
		int ret = devlog_marker(fd, (const struct kprof_rec_marker *)recs + i);

		if (ret)
			return ret;
	}
	return 0;
}

static int feed_host(struct feed *fd, const struct kprof_rec_hdr *r, struct kprof_err *err)
{
	if (r->type == KPROF_HREC_IOCTL) {
		const struct kprof_host_event *ev = (const void *)r;
		int ret = kprof_out_host_event(fd->out, ev);

		if (ret)
			return kprof_err_set(err, -ret, "writing host_events.csv failed");
		return kprof_agg_host_event(fd->agg, ev, err);
	}
	if (r->type == KPROF_HREC_BPF_STATS) {
		memcpy(&fd->c->bpf, r, sizeof(fd->c->bpf));
		fd->c->have_bpf = 1;
	}
	return 0;
}

static double host_key(const struct kprof_rec_hdr *r)
{
	if (r->type == KPROF_HREC_IOCTL)
		return (double)((const struct kprof_host_event *)r)->enter_ns;
	return -INFINITY;
}

static int pass2(struct feed *fd, struct kprof_err *err)
{
	const struct kprof_rec_hdr *dr = NULL, *hr = NULL;
	double dk = 0, hk = 0;
	int dret, hret = KPROF_REC_END, ret = 0;
	uint64_t total = 0;	/* unknown: the callback gets 0 */
	/* records to the next progress callback: a count down, not a
	 * division per record
	 */
	uint32_t to_progress = PROGRESS_EVERY;
	/* markers in runs: the native spool */
	const int runs = !fd->c->gdev &&
			 !(fd->opts && (fd->opts->flags & KPROF_REPORT_ONE_BY_ONE));

	fd->c->spool_reads++;
	dret = dev_next(fd->c, &dr, err);
	if (dret == KPROF_REC_OK)
		dk = dev_key(fd, dr);
	if (have_host(fd->c)) {
		hret = host_next(fd->c, &hr, err);
		if (hret == KPROF_REC_OK)
			hk = host_key(hr);
	}
	while (dret == KPROF_REC_OK || hret == KPROF_REC_OK) {
		if (dret == KPROF_REC_OK && (hret != KPROF_REC_OK || dk <= hk)) {
			ret = feed_dev(fd, dr, dk, err);
			if (!ret && runs && dr->type == KPROF_REC_MARKER) {
				size_t n;

				ret = dev_run(fd, (const void *)dr, hret == KPROF_REC_OK, hk,
					      to_progress - 1, &n);
				to_progress -= (uint32_t)n;
			}
			dret = dev_next(fd->c, &dr, err);
			if (dret == KPROF_REC_OK)
				dk = dev_key(fd, dr);
		} else {
			ret = feed_host(fd, hr, err);
			hret = host_next(fd->c, &hr, err);
			if (hret == KPROF_REC_OK)
				hk = host_key(hr);
		}
		if (ret)
			return ret;
		if (--to_progress)
			continue;
		to_progress = PROGRESS_EVERY;
		fd->c->records += PROGRESS_EVERY;
		if (fd->opts && fd->opts->progress)
			fd->opts->progress(fd->opts->progress_ctx, fd->c->records,
					   dev_stats(fd->c)->bytes, total);
	}
	if (dret < 0 || hret < 0)
		return -(err ? err->code : EBADMSG);
	return kprof_agg_finish(fd->agg, err);
}

/* ---------------------------------------------------------------- */
/* summary.txt and params.json                                      */

static const char *state_name(uint32_t s)
{
	switch (s) {
	case KPROF_STATE_RUNNING: return "running";
	case KPROF_STATE_PAUSED: return "paused";
	case KPROF_STATE_STOPPED: return "stopped";
	case KPROF_STATE_GONE: return "gone";
	default: return "unknown";
	}
}

static const char *reason_name(uint32_t r)
{
	switch (r) {
	case KPROF_REASON_START: return "start";
	case KPROF_REASON_PAUSE: return "pause";
	case KPROF_REASON_RESUME: return "resume";
	case KPROF_REASON_STOP: return "stop";
	case KPROF_REASON_REMOVED: return "device removed";
	case KPROF_REASON_DMA_TIMEOUT: return "DMA timeout";
	default: return "unknown";
	}
}

static const char *fit_method(int m)
{
	switch (m) {
	case KPROF_TS_PIECEWISE: return "piecewise";
	case KPROF_TS_ONESHOT: return "one-shot";
	case KPROF_TS_LINEAR: return "fixed-rate";
	default: return "none";
	}
}

/*
 * Records the kernel dropped because the capture ring was full: only the
 * capture knows (ring control page), so it is read from the config kprofctl
 * saved ("ring": {"lost_records": N}). Returns -1 when the config has none.
 */
static int64_t config_ring_lost(const char *config)
{
	json_object *o, *ring, *v;
	int64_t n = -1;

	o = config ? json_tokener_parse(config) : NULL;
	if (o && json_object_object_get_ex(o, "ring", &ring) &&
	    json_object_object_get_ex(ring, "lost_records", &v))
		n = json_object_get_int64(v);
	json_object_put(o);
	return n;
}

/* NVIDIA: where the data came from and what the agent could not do. */
/* KPROF_GHOST_* of the host times the outputs use */
static uint32_t gpu_host_times(const struct spool_report *c)
{
	if (c->ghost && kprof_gpu_uprobe_stats(c->ghost)->used)
		return KPROF_GHOST_UPROBE;
	return kprof_gpu_stats(c->gdev)->host_times;
}

/* --host-times uprobe: the calls, the join and the BPF counters */
static void summary_uprobes(FILE *f, const struct spool_report *c)
{
	const struct kprof_gpu_uprobes *u = c->ghost ? kprof_gpu_uprobe_stats(c->ghost) : NULL;
	const struct kprof_cj_stats *j;
	const struct kprof_cuda_bpf_stats *b;

	if (!u || !u->used)
		return;
	j = &u->join;
	b = &u->bpf;
	fprintf(f, "  uprobe calls of this process: %" PRIu64 " (launches %" PRIu64
		", failed %" PRIu64 ", syncs %" PRIu64 "); of other processes: %" PRIu64 "\n",
		u->calls, u->launches, u->failed_launches, u->syncs, u->other_pids);
	fprintf(f, "  launches joined to kernels: %" PRIu64 " of %" PRIu64
		" (ambiguous: %" PRIu64 ", calls that overlapped another thread's)\n",
		j->matched, j->launches, j->ambiguous);
	fprintf(f, "  kernel launches without a launch call: %" PRIu64
		" (started before the next call: %" PRIu64 ")%s\n",
		j->kernels_unmatched, j->causal_skips, j->kernels_unmatched ?
		"  <-- these ops have no host times: launched by a function kprof does not probe, or calls lost"
		: "");
	fprintf(f, "  launch calls without a kernel: %" PRIu64 "%s\n", j->calls_unmatched,
		j->calls_unmatched ?
		"  <-- kernel records missing (CUPTI drops?): the join after the first is not exact"
		: "");
	if (j->late_calls || j->late_kernels)
		fprintf(f, "  later than the join's reorder window: calls %" PRIu64
			", kernel records %" PRIu64 "  <-- left out of the join and the host view;"
			" the joins next to them may be off by one\n",
			j->late_calls, j->late_kernels);
	if (!u->have_bpf_stats) {
		fprintf(f, "%s\n",
			"  BPF counters: missing (kprofctl did not end the capture)  <-- calls may be lost");
		return;
	}
	fprintf(f, "  BPF: %llu calls delivered, lost %llu (ring full), returns without entry %llu",
		(unsigned long long)b->events, (unsigned long long)b->reserve_failed,
		(unsigned long long)b->unmatched_exit);
	fprintf(f, ", nested %llu, entries not stored %llu, processes not followed %llu%s\n",
		(unsigned long long)b->nested, (unsigned long long)b->inflight_full,
		(unsigned long long)b->tgid_full,
		b->reserve_failed || b->unmatched_exit || b->nested || b->inflight_full ||
		b->tgid_full ? "  <-- calls are missing" : "");
}

/* the counters of the aggregated agent spool (capture --counters) */
static void gpucnt_view(const struct spool_report *c, struct kprof_gpucnt_view *v)
{
	memset(v, 0, sizeof(*v));
	v->g = kprof_gpu_stats(c->gdev);
	v->join = kprof_gpu_metric_join(c->gdev);
	v->nmetrics = kprof_gpu_nmetrics(c->gdev);
	for (uint32_t i = 0; i < v->nmetrics; i++)
		v->names[i] = kprof_gpu_metric_name(c->gdev, i);
}

static void summary_gpu(FILE *f, const struct spool_report *c)
{
	struct kprof_gpucnt_view cv;

	const struct kprof_gpu_stats *g;

	fprintf(f, "\nGPU capture (CUPTI agent in the workload):\n");
	if (!c->gdev) {
		fprintf(f,
			"  no CUDA process loaded the agent (no raw/gpu-PID.kspool): the command made no CUDA call, or CUDA_INJECTION64_PATH was overridden  <-- no GPU data\n");
		return;
	}
	g = kprof_gpu_stats(c->gdev);
	fprintf(f, "  process %u (%s), parent %u, CUPTI %u: raw/gpu-%u.kspool%s\n", g->pid,
		g->comm[0] ? g->comm : "?", g->ppid, g->cupti_version,
		c->gspools[c->gpick].pid,
		c->picked_pid ? " (picked with --pid)" :
		c->ngspools > 1 ? " (the process with the most records)" : "");
	fprintf(f, "  host timestamps (%s): %s\n",
		kprof_gpu_host_times_name(gpu_host_times(c)),
		kprof_gpu_host_times_desc(gpu_host_times(c)));
	summary_uprobes(f, c);
	if (g->clock == KPROF_GCLOCK_MONOTONIC)
		fprintf(f,
			"  clock: CUPTI timestamps are host CLOCK_MONOTONIC (the agent's timestamp callback); no conversion\n");
	else
		fprintf(f,
			"  clock: CUPTI's own, mapped to CLOCK_MONOTONIC by the agent's sync triples (time sync below)\n");
	fprintf(f, "  kernels %" PRIu64 ", memcpys %" PRIu64 ", memsets %" PRIu64
		", launch calls %" PRIu64 ", sync calls %" PRIu64 ", tracks (GPU, stream) %u\n",
		g->kernels, g->memcpys,
		g->memsets, g->api_launches, g->api_syncs, kprof_gpu_ntracks(c->gdev));
	fprintf(f, "  CUPTI records dropped: %" PRIu64, g->dropped);
	if (g->dropped)
		fprintf(f,
			"  <-- kernels, copies or API calls are missing: raise KPROF_AGENT_BUFFER_KB / KPROF_AGENT_BUFFERS");
	fprintf(f, "\n");
	if (g->no_buffer)
		fprintf(f, "  buffers the agent refused (its memory bound): %" PRIu64 "\n",
			g->no_buffer);
	fprintf(f, "  agent stopped cleanly: %s\n", g->stopped ? "yes" :
		"NO  <-- the process did not exit normally (killed?): records CUPTI still held are lost");
	if (g->forks)
		fprintf(f, "  fork() calls: %" PRIu64
			" (a child without exec is not profiled; one that execs a CUDA program has its own spool)\n",
			g->forks);
	if (g->multiple_subscribers)
		fprintf(f,
			"  another CUPTI client held the process (a profiler, e.g. Nsight or PyTorch's): its activity may be missing\n");
	if (g->unnamed || g->bad_names)
		fprintf(f, "  kernels without a name: %" PRIu64 ", bad name records: %" PRIu64 "\n",
			g->unnamed, g->bad_names);
	gpucnt_view(c, &cv);
	kprof_gpucnt_summary(f, &cv);
	if (g->tracks_over)
		fprintf(f, "  ops on streams past the first %u tracks (drawn on the last one): %"
			PRIu64 "\n",
			KPROF_GPU_MAX_TRACKS, g->tracks_over);
	for (uint32_t i = 0; i < g->nerrors && i < KPROF_GPU_MAX_ERRORS; i++)
		fprintf(f, "  agent: %s failed (%d)\n", g->errors[i].text, g->errors[i].code);
	if (g->nerrors > KPROF_GPU_MAX_ERRORS)
		fprintf(f, "  agent: %u more errors\n", g->nerrors - KPROF_GPU_MAX_ERRORS);
	if (c->ngspools > 1) {
		fprintf(f,
			"  other CUDA processes, not in these outputs (their spools are in raw/; `kprofctl report DIR --pid PID -o NEWDIR` reports one):");
		for (int i = 0; i < c->ngspools && i < MAX_GPU_SPOOLS; i++)
			if (i != c->gpick)
				fprintf(f, " %u (%" PRIu64 " bytes)", c->gspools[i].pid,
					c->gspools[i].bytes);
		if (c->ngspools > MAX_GPU_SPOOLS)
			fprintf(f, " and %d more", c->ngspools - MAX_GPU_SPOOLS);
		fprintf(f, "\n");
	}
}

/* summary.txt up to the analysis' part (kprof_analysis_finish adds it) */
static void write_summary(FILE *f, struct spool_report *c, struct kprof_out *o,
			  const struct kprof_agg_stats *as, const char *config)
{
	int64_t klost = config_ring_lost(config);
	const struct kprof_device_info *d = &c->dev_hdr.device;
	const struct kprof_spool_stats *ds = dev_stats(c);
	char name[sizeof(d->name) + 1], backend[sizeof(d->backend) + 1];

	/* names come from the device or the agent: no control characters */
	kprof_text_safen(name, sizeof(name), d->name, sizeof(d->name));
	kprof_text_safen(backend, sizeof(backend), d->backend, sizeof(d->backend));
	if (c->nvidia)
		fprintf(f, "kprof capture summary\n\n"
			"device: %s (backend %s), %u tracks (GPU, stream), timestamps in ns\n",
			name, backend, d->num_cores);
	else
		fprintf(f, "kprof capture summary\n\n"
			"device: %s (backend %s), %u cores x %u RISCs, reference clock %" PRIu64
			" Hz\n",
			name, backend, d->num_cores, d->riscs_per_core, (uint64_t)d->ref_clock_hz);
	if (c->nvidia)
		summary_gpu(f, c);
	kprof_report_summary_ops(f, o);

	fprintf(f, "\nlost and late data:\n");
	fprintf(f, "  markers received: %" PRIu64 "\n", as->markers);
	fprintf(f, "  markers lost (LOST records): %" PRIu64 " in %" PRIu64 " records%s\n",
		as->lost_markers, as->lost_records,
		as->lost_markers ? "  <-- data is incomplete; see MARKERS LOST in ops.csv" : "");
	if (as->device_records_lost)
		fprintf(f, "  device records lost (its OP/COUNTERS queue overflowed): %" PRIu64
			" for ops %" PRIu64 "-%" PRIu64
			"  <-- those ops may lack OP CODE or counters\n",
			as->device_records_lost, as->device_records_lost_first,
			as->device_records_lost_last);
	if (klost >= 0)
		fprintf(f, "  kernel records dropped (capture ring full): %" PRId64 "%s\n", klost,
			klost ? "  <-- sync/clock/state records missing; use a larger --ring-size" :
			"");
	fprintf(f, "  corrupt records skipped: %" PRIu64 "\n", as->corrupt_records);
	fprintf(f, "  invalid markers skipped: %" PRIu64 " (core, RISC or kind out of range)\n",
		as->bad_markers);
	fprintf(f, "  records with an implausible op seq skipped: %" PRIu64 "\n", as->bad_seqs);
	fprintf(f, "  zone markers without a partner (no zone slice): %" PRIu64 "\n",
		as->zone_unpaired);
	if (as->zone_over_cap)
		fprintf(f, "  zone markers past 262144 in one op (no zone slice): %" PRIu64 "\n",
			as->zone_over_cap);
	fprintf(f, "  late data (op already written): %" PRIu64 " markers, %" PRIu64
		" host events, %" PRIu64 " lost markers\n",
		as->late_markers, as->late_host_events, as->late_lost_markers);
	fprintf(f,
		"  latest device record: %.0f ms after its op's dispatch; ops held %.0f ms for late data%s\n",
		c->lag.max_lag_ns / 1e6, (double)c->slack_ns / 1e6,
		c->slack_capped ? "  <-- capped: records later than that count as late data" : "");
	fprintf(f, "  device spool: truncated tail %" PRIu64 " bytes%s\n", ds->truncated_bytes,
		ds->truncated_bytes ? " (capture ended mid-write; earlier data kept)" : "");
	if (have_host(c)) {
		const struct kprof_spool_stats *hs = host_stats(c);

		fprintf(f, "  host spool: %" PRIu64 " events, truncated tail %" PRIu64 " bytes\n",
			as->host_events, hs->truncated_bytes);
	} else {
		fprintf(f, "  host spool: none (no host timestamps)\n");
	}
	if (c->have_bpf)
		fprintf(f, "  BPF: %" PRIu64 " events, %" PRIu64 " lost (ring buffer full), %"
			PRIu64 " unmatched exits\n",
			(uint64_t)c->bpf.events, (uint64_t)c->bpf.reserve_failed,
			(uint64_t)c->bpf.unmatched_exit);

	if (c->nvidia && !d->clock_mhz)
		fprintf(f, "\nclock:\n"
			"  at capture start: not read (an NVIDIA GPU's clock is NVML's: kprofctl info / lock-clock)\n");
	else
		fprintf(f, "\nclock:\n  at capture start: %u MHz, %s\n", d->clock_mhz,
			(d->clock_flags & KPROF_CLOCK_LOCKED) ? "locked" :
			"NOT locked (durations may vary with DVFS)");
	fprintf(f, "  changes during capture: %zu\n", c->clocks_total);
	for (size_t i = 0; i < c->nclocks && i < 20; i++)
		fprintf(f, "    at %" PRIu64 " ns: %u MHz%s\n", c->clocks[i].host_ns,
			c->clocks[i].mhz,
			(c->clocks[i].flags & KPROF_CLOCK_LOCKED) ? " (locked)" : "");
	if (c->clocks_total > 20)
		fprintf(f, "    ... %zu more: every change is in params.json (clock.changes)\n",
			c->clocks_total - 20);

	fprintf(f, "\ntime sync (device cycles -> host CLOCK_MONOTONIC):\n");
	if (gpu_monotonic(c))
		fprintf(f, "  none needed: the agent put CUPTI's timestamps on CLOCK_MONOTONIC\n");
	else
		fprintf(f, "  method: %s, samples %zu, used %zu, rejected %zu\n",
			fit_method(c->fit.method), c->fit.samples, c->fit.used, c->fit.rejected);
	if (c->fit.method == KPROF_TS_PIECEWISE)
		fprintf(f, "  error bound: %.0f ns; drift %.1f ppm; median read window %.0f ns\n",
			c->fit.err_bound_ns, c->fit.drift_ppm, c->fit.median_window_ns);
	if (!isnan(c->oneshot_max_diff_ns))
		fprintf(f,
			"  one-shot fit (first sample + nominal rate) would be off by up to %.0f ns\n",
			c->oneshot_max_diff_ns);
	if (c->fit.method == KPROF_TS_NONE)
		fprintf(f,
			"  no sync samples: host-time columns are device time at the nominal rate\n");
	fprintf(f, "\ncapture states:\n");
	for (size_t i = 0; i < c->nstates; i++)
		fprintf(f, "  at %" PRIu64 " ns: %s (%s)\n", c->states[i].host_ns,
			state_name(c->states[i].state), reason_name(c->states[i].reason));
}

static json_object *jstrn(const char *s, size_t max)
{
	return json_object_new_string_len(s, (int)strnlen(s, max));
}

/* counts and ns are uint64_t in the records; JSON holds int64 */
static json_object *jint(uint64_t v)
{
	return json_object_new_int64((int64_t)v);
}

static json_object *jdouble(double v)
{
	return isnan(v) || isinf(v) ? NULL : json_object_new_double(v);
}

static json_object *device_json(const struct kprof_spool_hdr *h)
{
	const struct kprof_device_info *d = &h->device;
	json_object *o = json_object_new_object(), *r = json_object_new_array();
	json_object *cs = json_object_new_array();

	json_object_object_add(o, "device_id", json_object_new_int64(d->device_id));
	json_object_object_add(o, "name", jstrn(d->name, sizeof(d->name)));
	json_object_object_add(o, "backend", jstrn(d->backend, sizeof(d->backend)));
	json_object_object_add(o, "uapi_version", json_object_new_int64(d->version));
	json_object_object_add(o, "num_cores", json_object_new_int64(d->num_cores));
	json_object_object_add(o, "grid_x", json_object_new_int64(d->grid_x));
	json_object_object_add(o, "grid_y", json_object_new_int64(d->grid_y));
	json_object_object_add(o, "riscs_per_core", json_object_new_int64(d->riscs_per_core));
	for (unsigned int i = 0; i < d->riscs_per_core && i < KPROF_MAX_RISCS; i++)
		json_object_array_add(r, jstrn(d->risc_names[i], sizeof(d->risc_names[i])));
	json_object_object_add(o, "risc_names", r);
	json_object_object_add(o, "ref_clock_hz", json_object_new_int64((int64_t)d->ref_clock_hz));
	json_object_object_add(o, "clock_mhz", json_object_new_int64(d->clock_mhz));
	json_object_object_add(o, "clock_min_mhz", json_object_new_int64(d->clock_min_mhz));
	json_object_object_add(o, "clock_base_mhz", json_object_new_int64(d->clock_base_mhz));
	json_object_object_add(o, "clock_max_mhz", json_object_new_int64(d->clock_max_mhz));
	json_object_object_add(o, "clock_locked",
			       json_object_new_boolean(!!(d->clock_flags & KPROF_CLOCK_LOCKED)));
	json_object_object_add(o, "l1_ring_entries", json_object_new_int64(d->l1_ring_entries));
	json_object_object_add(o, "markers_dropped_lifetime",
			       json_object_new_int64((int64_t)d->markers_dropped));
	for (unsigned int i = 0; i < h->counters.num_counters && i < KPROF_MAX_COUNTERS; i++) {
		json_object *c = json_object_new_object();

		const struct kprof_counter_desc *cd = &h->counters.desc[i];

		json_object_object_add(c, "name", jstrn(cd->name, sizeof(cd->name)));
		json_object_object_add(c, "unit", jstrn(cd->unit, sizeof(cd->unit)));
		json_object_array_add(cs, c);
	}
	json_object_object_add(o, "counters", cs);
	return o;
}

static json_object *fit_json(const struct kprof_tsfit *f)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "method", json_object_new_string(fit_method(f->method)));
	json_object_object_add(o, "nominal_hz", jdouble(f->nominal_hz));
	json_object_object_add(o, "samples", json_object_new_int64((int64_t)f->samples));
	json_object_object_add(o, "used", json_object_new_int64((int64_t)f->used));
	json_object_object_add(o, "rejected", json_object_new_int64((int64_t)f->rejected));
	json_object_object_add(o, "segments", json_object_new_int64((int64_t)f->nseg));
	json_object_object_add(o, "median_window_ns", jdouble(f->median_window_ns));
	json_object_object_add(o, "max_halfwidth_ns", jdouble(f->max_halfwidth_ns));
	json_object_object_add(o, "max_sample_error_ns", jdouble(f->max_sample_err_ns));
	json_object_object_add(o, "max_leave_one_out_ns", jdouble(f->max_loo_ns));
	json_object_object_add(o, "error_bound_ns", jdouble(f->err_bound_ns));
	json_object_object_add(o, "drift_ppm", jdouble(f->drift_ppm));
	return o;
}

/* params.json "gpu"."uprobes": the calls, the join, the BPF counters */
static json_object *uprobes_json(const struct kprof_gpu_uprobes *u)
{
	json_object *o = json_object_new_object();

#define ADD(k, v) json_object_object_add(o, k, json_object_new_int64((int64_t)(v)))
	ADD("calls", u->calls);
	ADD("launches", u->launches);
	ADD("failed_launches", u->failed_launches);
	ADD("syncs", u->syncs);
	ADD("other_process_calls", u->other_pids);
	ADD("kernel_launches", u->join.launches);
	ADD("joined", u->join.matched);
	ADD("joined_ambiguous", u->join.ambiguous);
	ADD("kernels_without_launch", u->join.kernels_unmatched);
	ADD("kernels_without_launch_causal", u->join.causal_skips);
	ADD("calls_without_kernel", u->join.calls_unmatched);
	ADD("late_calls", u->join.late_calls);
	ADD("late_kernel_records", u->join.late_kernels);
	json_object_object_add(o, "bpf_stats", json_object_new_boolean(u->have_bpf_stats));
	ADD("bpf_events", u->bpf.events);
	ADD("bpf_lost", u->bpf.reserve_failed);
	ADD("bpf_unmatched_exit", u->bpf.unmatched_exit);
	ADD("bpf_nested", u->bpf.nested);
	ADD("bpf_inflight_full", u->bpf.inflight_full);
	ADD("bpf_tgid_full", u->bpf.tgid_full);
#undef ADD
	return o;
}

/* params.json "gpu": the agent's account of itself (NVIDIA captures) */
static json_object *gpu_json(const struct spool_report *c)
{
	json_object *o = json_object_new_object(), *e, *sp = json_object_new_array();
	const struct kprof_gpu_stats *g;
	uint32_t ht;

#define ADD(k, v) json_object_object_add(o, k, json_object_new_int64((int64_t)(v)))
	for (int i = 0; i < c->ngspools && i < MAX_GPU_SPOOLS; i++) {
		e = json_object_new_object();
		json_object_object_add(e, "pid", json_object_new_int64(c->gspools[i].pid));
		json_object_object_add(e, "bytes", jint(c->gspools[i].bytes));
		json_object_object_add(e, "aggregated", json_object_new_boolean(i == c->gpick));
		json_object_array_add(sp, e);
	}
	json_object_object_add(o, "spools", sp);
	ADD("spools_total", c->ngspools);
	/* which spool is aggregated: the report's --pid, or the largest */
	json_object_object_add(o, "spool_picked_by",
			       json_object_new_string(c->picked_pid ? "pid" : "most_records"));
	if (!c->gdev)
		return o;
	g = kprof_gpu_stats(c->gdev);
	ht = gpu_host_times(c);
	json_object_object_add(o, "host_times",
			       json_object_new_string(kprof_gpu_host_times_name(ht)));
	json_object_object_add(o, "host_timestamps",
			       json_object_new_string(kprof_gpu_host_times_desc(ht)));
	if (ht == KPROF_GHOST_UPROBE)
		json_object_object_add(o, "uprobes",
				       uprobes_json(kprof_gpu_uprobe_stats(c->ghost)));
	ADD("queued_launches", g->queued_launches);
	json_object_object_add(o, "clock",
			       json_object_new_string(g->clock == KPROF_GCLOCK_MONOTONIC ?
						      "CLOCK_MONOTONIC (timestamp callback)" :
						      "CUPTI, mapped by sync triples"));
	ADD("pid", g->pid);
	ADD("ppid", g->ppid);
	json_object_object_add(o, "comm", json_object_new_string(g->comm));
	ADD("cupti_version", g->cupti_version);
	ADD("kernels", g->kernels);
	ADD("memcpys", g->memcpys);
	ADD("memsets", g->memsets);
	ADD("api_launches", g->api_launches);
	ADD("api_syncs", g->api_syncs);
	ADD("tracks", kprof_gpu_ntracks(c->gdev));
	ADD("tracks_over", g->tracks_over);
	ADD("dropped_records", g->dropped);
	ADD("buffers_refused", g->no_buffer);
	json_object_object_add(o, "agent_stopped", json_object_new_boolean(g->stopped));
	ADD("agent_records_written", g->records_written);
	ADD("forks", g->forks);
	json_object_object_add(o, "multiple_subscribers",
			       json_object_new_boolean(g->multiple_subscribers != 0));
	ADD("unnamed_kernels", g->unnamed);
	ADD("bad_name_records", g->bad_names);
	if (kprof_gpu_nmetrics(c->gdev)) {
		struct kprof_gpucnt_view cv;

		gpucnt_view(c, &cv);
		json_object_object_add(o, "counters", kprof_gpucnt_json(&cv));
	}
	e = json_object_new_array();
	for (uint32_t i = 0; i < g->nerrors && i < KPROF_GPU_MAX_ERRORS; i++) {
		json_object *x = json_object_new_object();

		json_object_object_add(x, "call", json_object_new_string(g->errors[i].text));
		json_object_object_add(x, "code", json_object_new_int(g->errors[i].code));
		json_object_array_add(e, x);
	}
	json_object_object_add(o, "agent_errors", e);
	ADD("agent_errors_total", g->nerrors);
#undef ADD
	return o;
}

static int capture_params(struct kprof_outdir *od, struct spool_report *c, const char *config,
			  const struct kprof_report_opts *opts,
			  const struct kprof_agg_stats *as, struct kprof_out *o,
			  struct kprof_err *err)
{
	json_object *root = json_object_new_object(), *k = json_object_new_object();
	json_object *clk = json_object_new_object(), *ch = json_object_new_array();
	json_object *ts = json_object_new_object(), *st = json_object_new_array();
	json_object *sp = json_object_new_object();
	const struct kprof_device_info *d = &c->dev_hdr.device;
	int ret;

	json_object_object_add(k, "version", opts && opts->version ?
			       json_object_new_string(opts->version) : NULL);
	json_object_object_add(k, "uapi_version", json_object_new_int(KPROF_UAPI_VERSION));
	json_object_object_add(k, "spool_version", json_object_new_int(KPROF_SPOOL_VERSION));
	json_object_object_add(k, "source", json_object_new_string(c->nvidia ?
			       "kprof capture (NVIDIA: CUPTI agent)" : "kprof capture"));
	json_object_object_add(root, "kprof", k);
	json_object_object_add(root, "config", kprof_report_config_json(config));
	json_object_object_add(root, "device", device_json(&c->dev_hdr));

	json_object_object_add(clk, "at_start_mhz", json_object_new_int64(d->clock_mhz));
	json_object_object_add(clk, "at_start_locked",
			       json_object_new_boolean(!!(d->clock_flags & KPROF_CLOCK_LOCKED)));
	json_object_object_add(clk, "changes_total", jint(c->clocks_total));
	for (size_t i = 0; i < c->nclocks; i++) {
		json_object *e = json_object_new_object();
		bool locked = c->clocks[i].flags & KPROF_CLOCK_LOCKED;

		json_object_object_add(e, "host_ns", jint(c->clocks[i].host_ns));
		json_object_object_add(e, "device_cycles",
				       json_object_new_int64((int64_t)c->clocks[i].device_cycles));
		json_object_object_add(e, "mhz", json_object_new_int64(c->clocks[i].mhz));
		json_object_object_add(e, "locked", json_object_new_boolean(locked));
		json_object_array_add(ch, e);
	}
	json_object_object_add(clk, "changes", ch);
	json_object_object_add(root, "clock", clk);

	json_object_object_add(ts, "fit", fit_json(&c->fit));
	json_object_object_add(ts, "one_shot", fit_json(&c->oneshot));
	json_object_object_add(ts, "one_shot_max_diff_ns", jdouble(c->oneshot_max_diff_ns));
	json_object_object_add(root, "time_sync", ts);

	for (size_t i = 0; i < c->nstates; i++) {
		json_object *e = json_object_new_object();

		json_object_object_add(e, "host_ns", jint(c->states[i].host_ns));
		json_object_object_add(e, "state",
				       json_object_new_string(state_name(c->states[i].state)));
		json_object_object_add(e, "reason",
				       json_object_new_string(reason_name(c->states[i].reason)));
		json_object_array_add(st, e);
	}
	json_object_object_add(root, "capture_states", st);
	json_object_object_add(sp, "device_truncated_bytes",
			       json_object_new_int64((int64_t)dev_stats(c)->truncated_bytes));
	json_object_object_add(sp, "host_truncated_bytes", have_host(c) ?
			       jint(host_stats(c)->truncated_bytes) : NULL);
	json_object_object_add(sp, "device_unknown_records_skipped",
			       json_object_new_int64((int64_t)dev_stats(c)->skipped));
	json_object_object_add(root, "spool", sp);
	if (c->have_bpf) {
		json_object *b = json_object_new_object();

		json_object_object_add(b, "events", json_object_new_int64((int64_t)c->bpf.events));
		json_object_object_add(b, "reserve_failed", jint(c->bpf.reserve_failed));
		json_object_object_add(b, "unmatched_exit", jint(c->bpf.unmatched_exit));
		json_object_object_add(root, "bpf", b);
	}
	{
		json_object *a = json_object_new_object();
		/* garbage timestamps can make it any size: clamp, never UB */
		int64_t max_lag = c->lag.max_lag_ns < 9e18 ? (int64_t)c->lag.max_lag_ns : INT64_MAX;

		json_object_object_add(a, "slack_ns", json_object_new_int64((int64_t)c->slack_ns));
		json_object_object_add(a, "slack_capped", json_object_new_boolean(c->slack_capped));
		json_object_object_add(a, "max_record_lag_ns", json_object_new_int64(max_lag));
		json_object_object_add(a, "max_record_lag_op", jint(c->lag.max_lag_seq));
		json_object_object_add(a, "records_without_dispatch",
				       json_object_new_int64((int64_t)c->lag.unknown));
		json_object_object_add(root, "aggregation", a);
	}
	if (c->nvidia)
		json_object_object_add(root, "gpu", gpu_json(c));
	json_object_object_add(root, "stats", kprof_report_stats_json(as, o));
	ret = kprof_report_write_params(od, root, err);
	json_object_put(root);
	return ret;
}

/* ---------------------------------------------------------------- */

static int load_config(int capfd, const char *capture_dir, struct kprof_outdir *od,
		       const struct kprof_report_opts *opts, char **config,
		       struct kprof_err *err)
{
	char path[PATH_MAX];
	struct kprof_err e = { 0 };
	json_object *o;

	snprintf(path, sizeof(path), "%s/" CONFIG_FILE, capture_dir);
	*config = NULL;
	if (opts && opts->config_json) {
		o = json_tokener_parse(opts->config_json);
		if (!o || !json_object_is_type(o, json_type_object)) {
			json_object_put(o);
			return kprof_err_set(err, EINVAL, "report: config is not a JSON object");
		}
		json_object_put(o);
		/*
		 * saved with the capture's own report only: a report written
		 * elsewhere leaves the capture directory alone
		 */
		if (kprof_outdir_is(od, capfd)) {
			struct kprof_outdir *raw = kprof_outdir_sub(od, KPROF_SPOOL_DIR, err);

			if (!raw || kprof_report_write_text(raw, CONFIG_NAME, opts->config_json,
							    "", err))
				return -(err ? err->code : EIO);
		}
		*config = strdup(opts->config_json);
		return *config ? 0 : kprof_err_set(err, ENOMEM, "out of memory");
	}
	*config = kprof_in_read(capfd, CONFIG_FILE, path, KPROF_IN_JSON_MAX, NULL, &e);
	/* absent: params.json has "config": null; anything else is refused */
	if (!*config && e.code != ENOENT)
		return kprof_err_set(err, e.code, "%s", e.msg);
	return 0;
}

/* The op filter: the caller's, else the capture config's "op_filter". */
static int pick_filter(const struct kprof_report_opts *opts, const char *config,
		       char **filter, struct kprof_err *err)
{
	json_object *o, *v;

	*filter = NULL;
	if (opts && opts->op_filter) {
		*filter = strdup(opts->op_filter);
		return *filter ? 0 : kprof_err_set(err, ENOMEM, "out of memory");
	}
	if (!config)
		return 0;
	o = json_tokener_parse(config);
	if (o && json_object_object_get_ex(o, "op_filter", &v) &&
	    json_object_is_type(v, json_type_string)) {
		*filter = strdup(json_object_get_string(v));
		if (!*filter) {
			json_object_put(o);
			return kprof_err_set(err, ENOMEM, "out of memory");
		}
	}
	json_object_put(o);
	return 0;
}

/* trace.json cores per track: the option, else the capture's (config) */
static unsigned int pick_group(const struct kprof_report_opts *opts, const char *config)
{
	json_object *o, *v;
	unsigned int g = 0;

	if (opts && opts->trace_group)
		return opts->trace_group;
	if (!config)
		return 0;
	o = json_tokener_parse(config);
	if (o && json_object_object_get_ex(o, "trace_group", &v) &&
	    json_object_is_type(v, json_type_int)) {
		int64_t x = json_object_get_int64(v);

		g = x > 0 && x <= 65536 ? (unsigned int)x : 0;
	}
	json_object_put(o);
	return g;
}

/* The spool of process pid among those listed, or an error naming them. */
static int pick_pid(struct spool_report *c, uint32_t pid, const char *capture_dir,
		    struct kprof_err *err)
{
	int n = c->ngspools < MAX_GPU_SPOOLS ? c->ngspools : MAX_GPU_SPOOLS;
	char list[256] = "";
	size_t len = 0;

	for (int i = 0; i < n; i++)
		if (c->gspools[i].pid == pid)
			return i;
	for (int i = 0; i < n && len < sizeof(list) - 16; i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%u", i ? ", " : "",
					c->gspools[i].pid);
	if (!n)
		return kprof_err_set(err, ENOENT,
				     "--pid %u: %s/%s has no agent spool (no CUDA process loaded kprof's agent)",
				     pid, capture_dir, KPROF_SPOOL_DIR);
	return kprof_err_set(err, ENOENT,
			     "--pid %u: no agent spool of that process in %s/%s; its CUDA processes: %s%s",
			     pid, capture_dir, KPROF_SPOOL_DIR, list,
			     c->ngspools > n ? " and more" : "");
}

/*
 * NVIDIA: the agent spool of process pid, or (pid 0) of the process with
 * the most records, as the device and the host record streams
 * (kprof_gpu.h); none is no error
 */
static int open_gpu(struct spool_report *c, int capfd, const char *capture_dir, uint32_t pid,
		    struct kprof_err *err)
{
	char rel[64], path[PATH_MAX];
	int n = kprof_gpu_list(capfd, capture_dir, c->gspools, MAX_GPU_SPOOLS, err);

	if (n < 0)
		return n;
	c->ngspools = n;
	c->picked_pid = pid != 0;
	if (pid) {
		c->gpick = pick_pid(c, pid, capture_dir, err);
		if (c->gpick < 0)
			return c->gpick;
	} else {
		c->gpick = kprof_gpu_pick(c->gspools, n < MAX_GPU_SPOOLS ? n : MAX_GPU_SPOOLS);
	}
	if (c->gpick < 0)
		return 0;
	snprintf(rel, sizeof(rel), KPROF_SPOOL_DIR "/" KPROF_SPOOL_GPU_PREFIX "%u"
		 KPROF_SPOOL_GPU_SUFFIX, c->gspools[c->gpick].pid);
	snprintf(path, sizeof(path), "%s/%s", capture_dir, rel);
	c->gdev = kprof_gpu_openat(capfd, rel, path, KPROF_GPU_VIEW_DEVICE, err);
	if (!c->gdev)
		return -(err ? err->code : EIO);
	c->ghost = kprof_gpu_openat(capfd, rel, path, KPROF_GPU_VIEW_HOST, err);
	if (!c->ghost)
		return -(err ? err->code : EIO);
	/* capture --host-times uprobe: the launch and sync calls are there */
	if (faccessat(capfd, KPROF_SPOOL_CUDA_FILE, F_OK, AT_SYMLINK_NOFOLLOW))
		return 0;
	snprintf(path, sizeof(path), "%s/%s", capture_dir, KPROF_SPOOL_CUDA_FILE);
	return kprof_gpu_use_uprobes(c->ghost, capfd, KPROF_SPOOL_CUDA_FILE, path, err);
}

static void gpu_track_label(const void *ctx, uint32_t core, char *buf, size_t len)
{
	kprof_gpu_track_name(ctx, core, buf, len);
}

/* ops.csv rows also go to the analysis (bubbles, roofline), filtered alike */
struct emit_both {
	struct kprof_out *out;
	struct kprof_analysis *an;
};

static int emit_both(void *ctx, const struct kprof_op_row *row)
{
	struct emit_both *e = ctx;
	uint64_t filtered = e->out->ops_filtered;
	int ret = kprof_out_op(e->out, row);

	if (ret || e->out->ops_filtered != filtered)
		return ret;
	return kprof_analysis_op(e->an, row);
}

/* raw/device.kspool (or an NVIDIA capture's agent spool) and raw/host.kspool */
static int open_spools(struct spool_report *c, int capfd, const char *capture_dir,
		       uint32_t gpu_pid, struct kprof_err *err)
{
	char path[PATH_MAX];
	struct kprof_err e = { 0 };

	snprintf(path, sizeof(path), "%s/%s", capture_dir, KPROF_SPOOL_DEVICE_FILE);
	c->dev = kprof_spool_openat(capfd, KPROF_SPOOL_DEVICE_FILE, path, err);
	if (!c->dev)
		return -(err ? err->code : EIO);
	c->dev_hdr = *kprof_spool_header(c->dev);
	if (c->dev_hdr.kind != KPROF_SPOOL_DEVICE)
		return kprof_err_set(err, EBADMSG, "%s is not a device spool", path);
	c->nvidia = !strncmp(c->dev_hdr.device.backend, KPROF_GPU_BACKEND,
			     sizeof(c->dev_hdr.device.backend));
	if (c->nvidia)
		return open_gpu(c, capfd, capture_dir, gpu_pid, err);
	if (gpu_pid)
		return kprof_err_set(err, EINVAL,
				     "--pid %u picks a CUDA process of an NVIDIA capture; %s is a capture of a %.*s device",
				     gpu_pid, capture_dir,
				     (int)sizeof(c->dev_hdr.device.backend),
				     c->dev_hdr.device.backend);
	snprintf(path, sizeof(path), "%s/%s", capture_dir, KPROF_SPOOL_HOST_FILE);
	/* optional: absent without BPF; anything else there must be one */
	c->host = kprof_spool_openat(capfd, KPROF_SPOOL_HOST_FILE, path, &e);
	if (!c->host && e.code != ENOENT)
		return kprof_err_set(err, e.code, "%s", e.msg);
	return 0;
}

/* ops.csv, counters.csv, host_events.csv and device_log.csv */
static int open_csvs(struct spool_report *c, struct kprof_out *out, struct kprof_outdir *od,
		     const struct kprof_report_opts *opts, const char *filter,
		     struct kprof_err *err)
{
	double mhz = (double)c->dev_hdr.device.ref_clock_hz / 1e6;
	char freq[32];
	int ret;

	out->nriscs = c->dev_hdr.device.riscs_per_core;
	if (out->nriscs == 0 || out->nriscs > KPROF_MAX_RISCS)
		out->nriscs = KPROF_MAX_RISCS;
	if (c->nvidia) {
		/* a GPU has no RISC columns, and its timestamps are ns */
		out->nriscs = 0;
		out->no_cycles = 1;
	}
	for (unsigned int r = 0; r < out->nriscs; r++)
		risc_label(&c->dev_hdr, r, out->risc_names[r], sizeof(out->risc_names[r]));
	out->op_filter = filter;
	out->ncounters = c->dev_hdr.counters.num_counters;
	if (out->ncounters > KPROF_MAX_COUNTERS)
		out->ncounters = KPROF_MAX_COUNTERS;
	memcpy(out->cdesc, c->dev_hdr.counters.desc, sizeof(out->cdesc));
	if (c->gdev) {
		/* capture --counters: metric i is counter KPROF_GPU_NCOUNTERS + i */
		for (uint32_t i = 0; i < kprof_gpu_nmetrics(c->gdev); i++) {
			unsigned int k = KPROF_GPU_NCOUNTERS + i;

			out->cname[k] = kprof_gpu_metric_name(c->gdev, i);
			out->real_mask |= 1ULL << k;
			out->cdesc[k].unit[0] = '\0';
			if (k + 1 > out->ncounters)
				out->ncounters = k + 1;
		}
	}
	ret = kprof_out_open(out, od, KPROF_OUT_OPS | KPROF_OUT_COUNTERS | KPROF_OUT_HOST |
			     (opts && (opts->flags & KPROF_REPORT_NO_DEVICE_LOG) ? 0 :
			      KPROF_OUT_DEVLOG), opts ? opts->top_n : 0, err);
	if (ret)
		return ret;
	/*
	 * the time column is reference-timer cycles: CHIP_FREQ is its rate,
	 * so tt-metal tools convert it right
	 */
	snprintf(freq, sizeof(freq), "%.6g", mhz > 0 ? mhz : 1000.0);
	return kprof_out_devlog_header(out, "kprof", freq, c->dev_hdr.device.num_cores);
}

/*
 * trace.json, unless the options leave it out (an older report's one is
 * then removed by kprof_outdir_prune)
 */
static int open_trace(struct spool_report *c, struct kprof_out *out, struct kprof_outdir *od,
		      const struct kprof_report_opts *opts, unsigned int group,
		      struct kprof_err *err)
{
	const struct kprof_device_info *d = &c->dev_hdr.device;
	struct kprof_trace_cfg tc;
	char label[96];

	if (opts && (opts->flags & KPROF_REPORT_NO_TRACE))
		return 0;
	snprintf(label, sizeof(label), "device %u: %.*s (%.*s)", d->device_id,
		 (int)strnlen(d->name, sizeof(d->name)), d->name,
		 (int)strnlen(d->backend, sizeof(d->backend)), d->backend);
	tc = (struct kprof_trace_cfg){
		.device_label = label, .grid_x = d->grid_x,
		.group = group, .num_cores = d->num_cores,
		.risc_names = (const char (*)[16])out->risc_names, .nriscs = out->nriscs,
		.core_label = c->gdev ? gpu_track_label : NULL, .core_label_ctx = c->gdev,
	};
	out->trace = kprof_trace_open(od, "trace.json", &tc, err);
	if (!out->trace)
		return -(err ? err->code : EIO);
	/*
	 * the clock counter starts at the capture's first moment (none for a
	 * GPU whose clock was not read)
	 */
	if ((c->npts || c->nstates) && !(c->nvidia && !d->clock_mhz))
		kprof_trace_clock(out->trace, c->nstates ? c->states[0].host_ns :
				  c->pts[0].host_before_ns, d->clock_mhz);
	return 0;
}

/*
 * The retirement slack: the caller's, else one that covers the lateness
 * measured (by pass 1, or none yet: pass 2 measures it)
 */
static uint64_t lag_slack(const struct spool_report *c, const struct kprof_report_opts *opts,
			  int *capped)
{
	*capped = 0;
	if (opts && opts->slack_ns)
		return opts->slack_ns;
	return kprof_lag_slack(&c->lag, c->nvidia ? KPROF_GPU_SLACK_NS :
			       KPROF_AGG_SLACK_NS_DEFAULT, KPROF_REPORT_SLACK_CAP_NS, capped);
}

/* The aggregation engine, its rows going to ops.csv and the analysis. */
static struct kprof_agg *new_agg(struct spool_report *c, struct emit_both *em,
				 const struct kprof_report_opts *opts, unsigned int group,
				 struct kprof_err *err)
{
	struct kprof_agg_config cfg;

	memset(&cfg, 0, sizeof(cfg));
	cfg.fit = &c->fit;
	cfg.device_id = c->dev_hdr.device.device_id;
	cfg.num_riscs = c->nvidia ? 1 : em->out->nriscs;	/* GPU markers: RISC 0 */
	cfg.num_cores = c->dev_hdr.device.num_cores;
	c->slack_ns = lag_slack(c, opts, &c->slack_capped);
	cfg.slack_ns = c->slack_ns;
	/* zone slices: per core only (kprof_trace.h) */
	cfg.zone_spans = em->out->trace && group <= 1;
	cfg.emit = emit_both;
	cfg.ctx = em;
	return kprof_agg_new(&cfg, err);
}

/* After pass 2: the streamed files, summary.txt, params.json, report.html. */
static int write_outputs(struct spool_report *c, struct kprof_outdir *od,
			 struct kprof_out *out, struct kprof_agg *agg,
			 struct kprof_analysis *an, const struct kprof_report_opts *opts,
			 const char *config, struct kprof_err *err)
{
	struct kprof_outfile sum = { 0 };
	int ret = kprof_report_close_streams(out, err);

	if (!ret)
		ret = kprof_outfile_create(od, "summary.txt", &sum, err);
	if (ret)
		return ret;
	write_summary(sum.f, c, out, kprof_agg_stats(agg), config);
	ret = kprof_analysis_finish(an, sum.f, err);	/* adds to summary.txt */
	if (!ret)
		ret = kprof_outfile_commit(&sum, 0, err);
	kprof_outfile_discard(&sum);
	if (!ret)
		ret = capture_params(od, c, config, opts, kprof_agg_stats(agg), out, err);
	/* last: report.html is made from the files written above */
	return ret ? ret : kprof_report_finish(od, err);
}

static void fill_result(struct kprof_report_result *res, struct spool_report *c,
			const struct kprof_out *out, struct kprof_agg *agg)
{
	const struct kprof_agg_stats *as = kprof_agg_stats(agg);

	memset(res, 0, sizeof(*res));
	res->ops = out->nops;
	res->markers = as->markers;
	res->lost_markers = as->lost_markers;
	res->device_records_lost = as->device_records_lost;
	res->truncated_bytes = dev_stats(c)->truncated_bytes +
		(have_host(c) ? host_stats(c)->truncated_bytes : 0);
	/* CUPTI on CLOCK_MONOTONIC: the same clock, no mapping error */
	res->sync_err_bound_ns = gpu_monotonic(c) ? 0 : c->fit.err_bound_ns;
	res->spool_reads = c->spool_reads;
	res->ops_filtered = out->ops_filtered;
	res->gpu_processes = (uint32_t)c->ngspools;
	if (c->gdev) {
		const struct kprof_gpu_stats *g = kprof_gpu_stats(c->gdev);

		struct kprof_gpucnt_view cv;

		res->gpu_dropped = g->dropped;
		res->gpu_problems = g->nerrors || !g->stopped;
		gpucnt_view(c, &cv);
		kprof_gpucnt_problem(&cv, res->gpu_counters_problem,
				     sizeof(res->gpu_counters_problem));
	}
}

static void spool_report_free(struct spool_report *c)
{
	kprof_spool_free(c->dev);
	kprof_spool_free(c->host);
	kprof_gpu_free(c->gdev);
	kprof_gpu_free(c->ghost);
	kprof_tsfit_free(&c->fit);
	kprof_tsfit_free(&c->oneshot);
	kprof_lag_free(&c->lag);
	free(c->pts);
	free(c->clocks);
	free(c);
}

/* What pass 2 reads and writes with: the same for a pass made again. */
struct report_in {
	int capfd;
	const char *capture_dir;
	struct kprof_outdir *od;
	const struct kprof_report_opts *opts;
	const char *config, *filter;
	unsigned int group;
};

/*
 * Pass 2 into every output. *again: the lateness pass 2 measured wants
 * another slack than the one it was made with; nothing was written then.
 */
static int report_outputs(struct spool_report *c, const struct report_in *in,
			  struct kprof_report_result *res, int *again, struct kprof_err *err)
{
	const struct kprof_report_opts *opts = in->opts;
	struct kprof_analysis *an = NULL;
	struct kprof_agg *agg = NULL;
	struct kprof_out out = { 0 };
	struct emit_both em;
	struct feed fd;
	int ret, capped;

	*again = 0;
	ret = open_csvs(c, &out, in->od, opts, in->filter, err);
	if (!ret)
		ret = open_trace(c, &out, in->od, opts, in->group, err);
	if (ret)
		goto out;
	an = kprof_analysis_new(in->capfd, in->capture_dir, in->od,
				opts ? opts->peaks_file : NULL, &c->dev_hdr, err);
	if (!an) {
		ret = -(err ? err->code : ENOMEM);
		goto out;
	}
	em = (struct emit_both){ &out, an };
	agg = new_agg(c, &em, opts, in->group, err);
	if (!agg) {
		ret = -(err ? err->code : ENOMEM);
		goto out;
	}
	fd = (struct feed){ .c = c, .agg = agg, .out = &out, .opts = opts,
			    .lag = c->lag_in_pass2 ? &c->lag : NULL, .run_hk = NAN };
	ret = devlog_names(&fd);
	if (ret)
		kprof_err_set(err, -ret, "out of memory for device_log.csv's rows");
	if (!ret)
		ret = pass2(&fd, err);
	free(fd.dl_head);
	if (!ret && fd.lag) {
		kprof_lag_end(fd.lag);
		c->lag_in_pass2 = 0;	/* measured */
		*again = lag_slack(c, opts, &capped) != c->slack_ns || capped != c->slack_capped;
		if (*again)
			goto out;
	}
	if (!ret)
		ret = write_outputs(c, in->od, &out, agg, an, opts, in->config, err);
	if (!ret && res)
		fill_result(res, c, &out, agg);
out:
	kprof_report_out_free(&out);
	kprof_agg_free(agg);
	kprof_analysis_free(an);
	return ret;
}

/* Back to the start of both spools for pass 2 made again. */
static int rewind_spools(struct spool_report *c, struct kprof_err *err)
{
	int ret = kprof_spool_rewind(c->dev, err);

	if (!ret && c->host)
		ret = kprof_spool_rewind(c->host, err);
	c->records = 0;
	return ret;
}

static int report_build(const char *capture_dir, int capfd, struct kprof_outdir *od,
			const struct kprof_report_opts *opts,
			struct kprof_report_result *res, struct kprof_err *err)
{
	struct spool_report *c = calloc(1, sizeof(*c));
	char *config = NULL, *filter = NULL;
	struct report_in in;
	int ret, again;

	if (!c)
		return kprof_err_set(err, ENOMEM, "out of memory");
	ret = open_spools(c, capfd, capture_dir, opts ? opts->gpu_pid : 0, err);
	if (!ret)
		ret = load_config(capfd, capture_dir, od, opts, &config, err);
	if (!ret)
		ret = kprof_lag_init(&c->lag, c->dev_hdr.device.ref_clock_hz, err);
	if (!ret) {
		ret = read_index(c, capfd, err);
		c->lag_in_pass2 = ret == 1;
		if (ret == 0)
			ret = pass1(c, err);
		else if (ret == 1)
			ret = 0;
	}
	if (!ret)
		ret = pick_filter(opts, config, &filter, err);
	if (ret)
		goto out;
	fit_capture(c, err);

	in = (struct report_in){ .capfd = capfd, .capture_dir = capture_dir, .od = od,
				 .opts = opts, .config = config, .filter = filter,
				 .group = pick_group(opts, config) };
	do {
		ret = report_outputs(c, &in, res, &again, err);
		if (!ret && again)
			ret = rewind_spools(c, err);
	} while (!ret && again);
out:
	free(filter);
	spool_report_free(c);
	free(config);
	return ret;
}

int kprof_report_build(const char *capture_dir, struct kprof_outdir *od,
		       const struct kprof_report_opts *opts,
		       struct kprof_report_result *res, struct kprof_err *err)
{
	struct kprof_outdir *own = NULL;
	int capfd, ret;

	/*
	 * the directory the user named (or the held output directory); what
	 * is inside is read without links
	 */
	if (!capture_dir) {
		capture_dir = kprof_outdir_path(od);
		capfd = dup(kprof_outdir_fd(od));
	} else {
		capfd = open(capture_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	if (capfd < 0)
		return kprof_err_set(err, errno,
				     "cannot open capture directory %s: %s (it holds raw/device.kspool)",
				     capture_dir, strerror(errno));
	if (!od) {
		own = kprof_outdir_open(capture_dir, 0, (uid_t)-1, (gid_t)-1, err);
		if (!own) {
			close(capfd);
			return -(err ? err->code : EIO);
		}
	}
	ret = report_build(capture_dir, capfd, od ? od : own, opts, res, err);
	kprof_outdir_close(own);
	close(capfd);
	return ret;
}
