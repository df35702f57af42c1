// SPDX-License-Identifier: GPL-2.0
/*
 * Reports: spools (or a tt-metal device log) -> all output files.
 *
 * A capture is read twice: pass 1 collects the SYNC triples (and clock
 * and state records) from the device spool to fit the time mapping;
 * pass 2 merges device and host records by host time and streams them
 * through the aggregation engine and the writers. Memory: the fit's
 * samples (24 bytes per sync period), ops in flight, and bounded lists.
 */
#include "kprof_report.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json.h>

#include "kprof_agg.h"
#include "kprof_analysis.h"
#include "kprof_fs.h"
#include "kprof_hash.h"
#include "kprof_html.h"
#include "kprof_lag.h"
#include "kprof_spool.h"
#include "kprof_text.h"
#include "kprof_timesync.h"
#include "kprof_trace.h"
#include "kprof_ttmetal.h"
#include "kprof_writers.h"

#define MAX_EVENTS_KEPT	1000	/* state records listed (clock changes: all) */
#define PROGRESS_EVERY	(1U << 20)

struct clock_ev {
	uint64_t host_ns, device_cycles;
	uint32_t mhz, flags;
};

struct state_ev {
	uint64_t host_ns;
	uint32_t state, reason;
};

struct capture {
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
	struct kprof_lag lag;		/* pass 1: sizes the retirement slack */
	uint64_t slack_ns;		/* what pass 2 used */
	int slack_capped;
	uint64_t records;
};

static int mkdir_one(const char *dir, struct kprof_err *err)
{
	if (mkdir(dir, 0755) && errno != EEXIST)
		return kprof_err_set(err, errno, "cannot create directory %s: %s", dir,
				     strerror(errno));
	return 0;
}

static int write_file_atomic(const char *path, const char *text, struct kprof_err *err)
{
	char tmp[PATH_MAX];
	FILE *f;
	int bad;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "we");
	if (!f)
		return kprof_err_set(err, errno, "cannot create %s: %s", tmp, strerror(errno));
	fputs(text, f);
	bad = ferror(f);
	bad |= fflush(f) != 0;
	bad |= fsync(fileno(f)) != 0;
	bad |= fclose(f) != 0;
	if (bad || rename(tmp, path)) {
		unlink(tmp);
		return kprof_err_set(err, EIO, "writing %s failed", path);
	}
	return 0;
}

/* Makes room for one more element in *arr (doubling from init). */
static int grow(void *arr, size_t *cap, size_t n, size_t elem, size_t init,
		struct kprof_err *err)
{
	void **a = arr;
	size_t c;
	void *p;

	if (n < *cap)
		return 0;
	c = *cap ? *cap * 2 : init;
	p = realloc(*a, c * elem);
	if (!p)
		return kprof_err_set(err, ENOMEM, "out of memory");
	*a = p;
	*cap = c;
	return 0;
}

/* ---------------------------------------------------------------- */
/* pass 1                                                           */

static int pass1(struct capture *c, struct kprof_err *err)
{
	const struct kprof_rec_hdr *rec;
	int ret;

	while ((ret = kprof_spool_next(c->dev, &rec, err)) == KPROF_REC_OK) {
		if (rec->flags & KPROF_RECF_CORRUPT)
			continue;
		kprof_lag_rec(&c->lag, rec);
		if (rec->type == KPROF_REC_SYNC) {
			const struct kprof_rec_sync *s = (const void *)rec;

			if (grow(&c->pts, &c->cap, c->npts, sizeof(*c->pts), 1024, err))
				return -ENOMEM;
			c->pts[c->npts++] = (struct kprof_sync_pt){
				s->host_before_ns, s->device_cycles, s->host_after_ns };
		} else if (rec->type == KPROF_REC_CLOCK) {
			const struct kprof_rec_clock *k = (const void *)rec;

			if (grow(&c->clocks, &c->clocks_cap, c->nclocks,
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
	}
	if (ret < 0)
		return -(err ? err->code : EBADMSG);
	return kprof_spool_rewind(c->dev, err);
}

static void fit_capture(struct capture *c, struct kprof_err *err)
{
	double hz = (double)c->dev_hdr.device.ref_clock_hz;

	if (!(hz > 0))
		hz = 1e9;	/* no nominal rate: treat cycles as ns */
	kprof_tsfit_piecewise(c->pts, c->npts, hz, &c->fit, err);
	kprof_tsfit_oneshot(c->pts, c->npts, hz, &c->oneshot, err);
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
	struct capture *c;
	struct kprof_agg *agg;
	struct kprof_out *out;
	const struct kprof_report_opts *opts;
	double last_dev_key;
};

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

static int devlog_marker(struct feed *fd, const struct kprof_rec_marker *m)
{
	const struct kprof_device_info *d = &fd->c->dev_hdr.device;
	unsigned int gx = d->grid_x ? d->grid_x : 1;
	char risc[16], zone[48];
	const char *type;

	risc_label(&fd->c->dev_hdr, m->risc < KPROF_MAX_RISCS ? m->risc : 0, risc,
		   sizeof(risc));
	switch (m->kind) {
	case KPROF_MARK_FW_START:
	case KPROF_MARK_FW_END:
	case KPROF_MARK_KERNEL_START:
	case KPROF_MARK_KERNEL_END:
		/* tt-metal names the three TRISCs' zones TRISC-FW / TRISC-KERNEL */
		snprintf(zone, sizeof(zone), "%s-%s",
			 strncmp(risc, "TRISC", 5) ? risc : "TRISC",
			 m->kind <= KPROF_MARK_FW_END ? "FW" : "KERNEL");
		break;
	default:
		snprintf(zone, sizeof(zone), "ZONE-%u", m->zone_id);
		break;
	}
	type = (m->kind % 2) ? "ZONE_START" : "ZONE_END";
	return kprof_out_devlog_row(fd->out, d->device_id, m->core % gx, m->core / gx,
				    risc, m->kind >= KPROF_MARK_ZONE_START ? m->zone_id : 0,
				    m->timestamp, 0, m->op_seq, zone, type);
}

static double dev_key(struct feed *fd, const struct kprof_rec_hdr *r)
{
	const struct kprof_tsfit *fit = &fd->c->fit;
	double k = fd->last_dev_key;

	switch (r->type) {
	case KPROF_REC_MARKER:
		k = kprof_tsfit_to_host(fit, ((const struct kprof_rec_marker *)r)->timestamp);
		break;
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

static int feed_dev(struct feed *fd, const struct kprof_rec_hdr *r, double key,
		    struct kprof_err *err)
{
	int ret;

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
	dret = kprof_spool_next(fd->c->dev, &dr, err);
	if (dret == KPROF_REC_OK)
		dk = dev_key(fd, dr);
	if (fd->c->host) {
		hret = kprof_spool_next(fd->c->host, &hr, err);
		if (hret == KPROF_REC_OK)
			hk = host_key(hr);
	}
	while (dret == KPROF_REC_OK || hret == KPROF_REC_OK) {
		if (dret == KPROF_REC_OK && (hret != KPROF_REC_OK || dk <= hk)) {
			ret = feed_dev(fd, dr, dk, err);
			dret = kprof_spool_next(fd->c->dev, &dr, err);
			if (dret == KPROF_REC_OK)
				dk = dev_key(fd, dr);
		} else {
			ret = feed_host(fd, hr, err);
			hret = kprof_spool_next(fd->c->host, &hr, err);
			if (hret == KPROF_REC_OK)
				hk = host_key(hr);
		}
		if (ret)
			return ret;
		if (++fd->c->records % PROGRESS_EVERY == 0 && fd->opts && fd->opts->progress)
			fd->opts->progress(fd->opts->progress_ctx, fd->c->records,
					   kprof_spool_reader_stats(fd->c->dev)->bytes, total);
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

static void summary_ops(FILE *f, struct kprof_out *o, const char *unit_note)
{
	char name[KPROF_NAME_LEN];

	fprintf(f, "ops: %" PRIu64 " (%" PRIu64 " with FW markers)\n", o->nops,
		o->ops_with_fw);
	if (o->op_filter) {
		fputs("op filter '", f);
		kprof_text_put(f, o->op_filter);
		fprintf(f, "': %" PRIu64 " ops left out\n", o->ops_filtered);
	}
	fprintf(f, "device FW time, sum over ops: %.0f ns%s\n", o->fw_sum_ns, unit_note);
	fprintf(f, "device kernel time, sum over ops: %.0f ns\n", o->kernel_sum_ns);
	if (!isnan(o->first_fw_ns) && !isnan(o->last_fw_end_ns))
		fprintf(f, "device span, first FW start to last FW end: %.0f ns\n",
			o->last_fw_end_ns - o->first_fw_ns);
	kprof_out_top_sorted(o);
	fprintf(f, "\ntop %u ops by device time (FW duration, else kernel):\n", o->ntop);
	fprintf(f, "  %-20s %-32s %14s %14s\n", "GLOBAL CALL COUNT", "OP CODE",
		"FW [ns]", "KERNEL [ns]");
	/* op codes come from the device or a log: no control characters */
	for (unsigned int i = 0; i < o->ntop; i++)
		fprintf(f, "  %-20" PRIu64 " %-32s %14.0f %14.0f\n", o->top[i].seq,
			o->top[i].op_code[0] ? kprof_text_safe(name, sizeof(name), o->top[i].op_code) :
			"-", o->top[i].fw_ns, o->top[i].kernel_ns);
	fprintf(f, "\nby op code:\n  %-32s %8s %16s %14s %14s %14s\n", "OP CODE", "COUNT",
		"FW SUM [ns]", "FW AVG [ns]", "FW MIN [ns]", "FW MAX [ns]");
	for (unsigned int i = 0; i < o->ncodes; i++) {
		const struct kprof_out_code *c = &o->codes[i];

		fprintf(f, "  %-32s %8" PRIu64 " %16.0f %14.0f %14.0f %14.0f\n",
			c->op_code[0] ? kprof_text_safe(name, sizeof(name), c->op_code) : "-",
			c->count, c->fw_sum_ns,
			c->count ? c->fw_sum_ns / (double)c->count : 0.0,
			isnan(c->fw_min_ns) ? 0.0 : c->fw_min_ns,
			isnan(c->fw_max_ns) ? 0.0 : c->fw_max_ns);
	}
	if (o->other_codes)
		fprintf(f, "  (%" PRIu64 " ops of further op codes not listed)\n", o->other_codes);
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

static int write_summary(const char *outdir, struct capture *c, struct kprof_out *o,
			 const struct kprof_agg_stats *as, const char *config,
			 struct kprof_err *err)
{
	int64_t klost = config_ring_lost(config);
	const struct kprof_device_info *d = &c->dev_hdr.device;
	const struct kprof_spool_stats *ds = kprof_spool_reader_stats(c->dev);
	char path[PATH_MAX], name[sizeof(d->name) + 1], backend[sizeof(d->backend) + 1];
	FILE *f;
	int bad;

	snprintf(path, sizeof(path), "%s/summary.txt", outdir);
	f = fopen(path, "we");
	if (!f)
		return kprof_err_set(err, errno, "cannot create %s: %s", path, strerror(errno));
	kprof_text_safen(name, sizeof(name), d->name, sizeof(d->name));
	kprof_text_safen(backend, sizeof(backend), d->backend, sizeof(d->backend));
	fprintf(f, "kprof capture summary\n\ndevice: %s (backend %s), %u cores x %u RISCs, reference clock %" PRIu64 " Hz\n",
		name, backend, d->num_cores, d->riscs_per_core, (uint64_t)d->ref_clock_hz);
	summary_ops(f, o, "");

	fprintf(f, "\nlost and late data:\n");
	fprintf(f, "  markers received: %" PRIu64 "\n", as->markers);
	fprintf(f, "  markers lost (LOST records): %" PRIu64 " in %" PRIu64 " records%s\n",
		as->lost_markers, as->lost_records,
		as->lost_markers ? "  <-- data is incomplete; see MARKERS LOST in ops.csv" : "");
	if (as->device_records_lost)
		fprintf(f, "  device records lost (its OP/COUNTERS queue overflowed): %" PRIu64
			" for ops %" PRIu64 "-%" PRIu64 "  <-- those ops may lack OP CODE or counters\n",
			as->device_records_lost, as->device_records_lost_first,
			as->device_records_lost_last);
	if (klost >= 0)
		fprintf(f, "  kernel records dropped (capture ring full): %" PRId64 "%s\n", klost,
			klost ? "  <-- sync/clock/state records missing; use a larger --ring-size" : "");
	fprintf(f, "  corrupt records skipped: %" PRIu64 "\n", as->corrupt_records);
	fprintf(f, "  invalid markers skipped: %" PRIu64 " (core, RISC or kind out of range)\n",
		as->bad_markers);
	fprintf(f, "  records with an implausible op seq skipped: %" PRIu64 "\n", as->bad_seqs);
	fprintf(f, "  zone markers without a partner (no zone slice): %" PRIu64 "\n",
		as->zone_unpaired);
	if (as->zone_over_cap)
		fprintf(f, "  zone markers past 262144 in one op (no zone slice): %" PRIu64 "\n",
			as->zone_over_cap);
	fprintf(f, "  late data (op already written): %" PRIu64 " markers, %" PRIu64 " host events, %" PRIu64 " lost markers\n",
		as->late_markers, as->late_host_events, as->late_lost_markers);
	fprintf(f, "  latest device record: %.0f ms after its op's dispatch; ops held %.0f ms for late data%s\n",
		c->lag.max_lag_ns / 1e6, (double)c->slack_ns / 1e6,
		c->slack_capped ? "  <-- capped: records later than that count as late data" : "");
	fprintf(f, "  device spool: truncated tail %" PRIu64 " bytes%s\n", ds->truncated_bytes,
		ds->truncated_bytes ? " (capture ended mid-write; earlier data kept)" : "");
	if (c->host) {
		const struct kprof_spool_stats *hs = kprof_spool_reader_stats(c->host);

		fprintf(f, "  host spool: %" PRIu64 " events, truncated tail %" PRIu64 " bytes\n",
			as->host_events, hs->truncated_bytes);
	} else {
		fprintf(f, "  host spool: none (no host timestamps)\n");
	}
	if (c->have_bpf)
		fprintf(f, "  BPF: %" PRIu64 " events, %" PRIu64 " lost (ring buffer full), %" PRIu64 " unmatched exits\n",
			(uint64_t)c->bpf.events, (uint64_t)c->bpf.reserve_failed,
			(uint64_t)c->bpf.unmatched_exit);

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
	fprintf(f, "  method: %s, samples %zu, used %zu, rejected %zu\n",
		fit_method(c->fit.method), c->fit.samples, c->fit.used, c->fit.rejected);
	if (c->fit.method == KPROF_TS_PIECEWISE)
		fprintf(f, "  error bound: %.0f ns; drift %.1f ppm; median read window %.0f ns\n",
			c->fit.err_bound_ns, c->fit.drift_ppm, c->fit.median_window_ns);
	if (!isnan(c->oneshot_max_diff_ns))
		fprintf(f, "  one-shot fit (first sample + nominal rate) would be off by up to %.0f ns\n",
			c->oneshot_max_diff_ns);
	if (c->fit.method == KPROF_TS_NONE)
		fprintf(f, "  no sync samples: host-time columns are device time at the nominal rate\n");
	fprintf(f, "\ncapture states:\n");
	for (size_t i = 0; i < c->nstates; i++)
		fprintf(f, "  at %" PRIu64 " ns: %s (%s)\n", c->states[i].host_ns,
			state_name(c->states[i].state), reason_name(c->states[i].reason));
	bad = ferror(f);
	bad |= fclose(f) != 0;
	return bad ? kprof_err_set(err, EIO, "writing %s failed", path) : 0;
}

static json_object *jstrn(const char *s, size_t max)
{
	return json_object_new_string_len(s, (int)strnlen(s, max));
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

		json_object_object_add(c, "name", jstrn(h->counters.desc[i].name,
							 sizeof(h->counters.desc[i].name)));
		json_object_object_add(c, "unit", jstrn(h->counters.desc[i].unit,
							 sizeof(h->counters.desc[i].unit)));
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

static json_object *config_json(const char *text)
{
	json_object *o;

	if (!text)
		return NULL;
	o = json_tokener_parse(text);
	return o;
}

static json_object *stats_json(const struct kprof_agg_stats *as, struct kprof_out *o)
{
	json_object *j = json_object_new_object();

#define ADD(k, v) json_object_object_add(j, k, json_object_new_int64((int64_t)(v)))
	ADD("ops", o->nops);
	ADD("ops_filtered", o->ops_filtered);
	ADD("markers", as->markers);
	ADD("op_records", as->ops_records);
	ADD("counter_records", as->counter_records);
	ADD("lost_records", as->lost_records);
	ADD("lost_markers", as->lost_markers);
	ADD("device_records_lost", as->device_records_lost);
	ADD("device_records_lost_first_op", as->device_records_lost ? as->device_records_lost_first : 0);
	ADD("device_records_lost_last_op", as->device_records_lost ? as->device_records_lost_last : 0);
	ADD("corrupt_records", as->corrupt_records);
	ADD("invalid_markers", as->bad_markers);
	ADD("invalid_op_seqs", as->bad_seqs);
	ADD("zone_markers_unpaired", as->zone_unpaired);
	ADD("zone_markers_over_cap", as->zone_over_cap);
	ADD("host_events", as->host_events);
	ADD("launches", as->launches);
	ADD("syncs", as->syncs);
	ADD("late_markers", as->late_markers);
	ADD("late_host_events", as->late_host_events);
	ADD("late_lost_markers", as->late_lost_markers);
	ADD("max_ops_in_flight", as->max_in_flight);
#undef ADD
	return j;
}

static int write_params(const char *outdir, json_object *root, struct kprof_err *err)
{
	char path[PATH_MAX];
	int ret;

	snprintf(path, sizeof(path), "%s/params.json", outdir);
	ret = write_file_atomic(path, json_object_to_json_string_ext(root,
			JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
			JSON_C_TO_STRING_NOSLASHESCAPE), err);
	if (!ret) {
		/* json-c leaves no trailing newline: add one for text tools */
		FILE *f = fopen(path, "ae");

		if (f) {
			fputc('\n', f);
			fclose(f);
		}
	}
	return ret;
}

static int capture_params(const char *outdir, struct capture *c, const char *config,
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
	json_object_object_add(k, "source", json_object_new_string("kprof capture"));
	json_object_object_add(root, "kprof", k);
	json_object_object_add(root, "config", config_json(config));
	json_object_object_add(root, "device", device_json(&c->dev_hdr));

	json_object_object_add(clk, "at_start_mhz", json_object_new_int64(d->clock_mhz));
	json_object_object_add(clk, "at_start_locked",
			       json_object_new_boolean(!!(d->clock_flags & KPROF_CLOCK_LOCKED)));
	json_object_object_add(clk, "changes_total", json_object_new_int64((int64_t)c->clocks_total));
	for (size_t i = 0; i < c->nclocks; i++) {
		json_object *e = json_object_new_object();

		json_object_object_add(e, "host_ns", json_object_new_int64((int64_t)c->clocks[i].host_ns));
		json_object_object_add(e, "device_cycles",
				       json_object_new_int64((int64_t)c->clocks[i].device_cycles));
		json_object_object_add(e, "mhz", json_object_new_int64(c->clocks[i].mhz));
		json_object_object_add(e, "locked",
				       json_object_new_boolean(!!(c->clocks[i].flags & KPROF_CLOCK_LOCKED)));
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

		json_object_object_add(e, "host_ns", json_object_new_int64((int64_t)c->states[i].host_ns));
		json_object_object_add(e, "state", json_object_new_string(state_name(c->states[i].state)));
		json_object_object_add(e, "reason", json_object_new_string(reason_name(c->states[i].reason)));
		json_object_array_add(st, e);
	}
	json_object_object_add(root, "capture_states", st);
	json_object_object_add(sp, "device_truncated_bytes",
			       json_object_new_int64((int64_t)kprof_spool_reader_stats(c->dev)->truncated_bytes));
	json_object_object_add(sp, "host_truncated_bytes", c->host ?
			       json_object_new_int64((int64_t)kprof_spool_reader_stats(c->host)->truncated_bytes) : NULL);
	json_object_object_add(sp, "device_unknown_records_skipped",
			       json_object_new_int64((int64_t)kprof_spool_reader_stats(c->dev)->skipped));
	json_object_object_add(root, "spool", sp);
	if (c->have_bpf) {
		json_object *b = json_object_new_object();

		json_object_object_add(b, "events", json_object_new_int64((int64_t)c->bpf.events));
		json_object_object_add(b, "reserve_failed", json_object_new_int64((int64_t)c->bpf.reserve_failed));
		json_object_object_add(b, "unmatched_exit", json_object_new_int64((int64_t)c->bpf.unmatched_exit));
		json_object_object_add(root, "bpf", b);
	}
	{
		json_object *a = json_object_new_object();

		json_object_object_add(a, "slack_ns", json_object_new_int64((int64_t)c->slack_ns));
		json_object_object_add(a, "slack_capped", json_object_new_boolean(c->slack_capped));
		/* garbage timestamps can make it any size: clamp, never UB */
		json_object_object_add(a, "max_record_lag_ns", json_object_new_int64(
			c->lag.max_lag_ns < 9e18 ? (int64_t)c->lag.max_lag_ns : INT64_MAX));
		json_object_object_add(a, "max_record_lag_op", json_object_new_int64((int64_t)c->lag.max_lag_seq));
		json_object_object_add(a, "records_without_dispatch",
				       json_object_new_int64((int64_t)c->lag.unknown));
		json_object_object_add(root, "aggregation", a);
	}
	json_object_object_add(root, "stats", stats_json(as, o));
	ret = write_params(outdir, root, err);
	json_object_put(root);
	return ret;
}

/* ---------------------------------------------------------------- */

static int load_config(const char *capture_dir, const char *outdir,
		       const struct kprof_report_opts *opts, char **config,
		       struct kprof_err *err)
{
	char path[PATH_MAX];
	json_object *o;

	snprintf(path, sizeof(path), "%s/raw/config.json", capture_dir);
	*config = NULL;
	if (opts && opts->config_json) {
		o = json_tokener_parse(opts->config_json);
		if (!o || !json_object_is_type(o, json_type_object)) {
			json_object_put(o);
			return kprof_err_set(err, EINVAL, "report: config is not a JSON object");
		}
		json_object_put(o);
		/* saved with the capture's own report only: a report written
		 * elsewhere leaves the capture directory alone */
		if (!strcmp(capture_dir, outdir) &&
		    write_file_atomic(path, opts->config_json, err))
			return -(err ? err->code : EIO);
		*config = strdup(opts->config_json);
		return *config ? 0 : kprof_err_set(err, ENOMEM, "out of memory");
	}
	*config = kprof_read_file(path);	/* absent: params.json has "config": null */
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

int kprof_report_build_to(const char *capture_dir, const char *outdir,
			  const struct kprof_report_opts *opts,
			  struct kprof_report_result *res, struct kprof_err *err)
{
	struct capture *c = calloc(1, sizeof(*c));
	struct kprof_analysis *an = NULL;
	struct emit_both em;
	struct kprof_out out;
	struct kprof_agg *agg = NULL;
	struct kprof_agg_config cfg;
	struct feed fd;
	char path[PATH_MAX], *config = NULL, freq[32], *filter = NULL;
	int ret, out_open = 0;

	if (!c)
		return kprof_err_set(err, ENOMEM, "out of memory");
	memset(&out, 0, sizeof(out));
	snprintf(path, sizeof(path), "%s/%s", capture_dir, KPROF_SPOOL_DEVICE_FILE);
	c->dev = kprof_spool_open(path, err);
	if (!c->dev) {
		ret = -(err ? err->code : EIO);
		goto out;
	}
	c->dev_hdr = *kprof_spool_header(c->dev);
	if (c->dev_hdr.kind != KPROF_SPOOL_DEVICE) {
		ret = kprof_err_set(err, EBADMSG, "%s is not a device spool", path);
		goto out;
	}
	snprintf(path, sizeof(path), "%s/%s", capture_dir, KPROF_SPOOL_HOST_FILE);
	if (access(path, F_OK) == 0) {
		c->host = kprof_spool_open(path, err);
		if (!c->host) {
			ret = -(err ? err->code : EIO);
			goto out;
		}
	}
	ret = load_config(capture_dir, outdir, opts, &config, err);
	if (ret)
		goto out;
	ret = mkdir_one(outdir, err);
	if (ret)
		goto out;
	ret = kprof_lag_init(&c->lag, c->dev_hdr.device.ref_clock_hz, err);
	if (ret)
		goto out;
	ret = pass1(c, err);
	if (ret)
		goto out;
	fit_capture(c, err);

	out.nriscs = c->dev_hdr.device.riscs_per_core;
	if (out.nriscs == 0 || out.nriscs > KPROF_MAX_RISCS)
		out.nriscs = KPROF_MAX_RISCS;
	for (unsigned int r = 0; r < out.nriscs; r++)
		risc_label(&c->dev_hdr, r, out.risc_names[r], sizeof(out.risc_names[r]));
	ret = pick_filter(opts, config, &filter, err);
	if (ret)
		goto out;
	out.op_filter = filter;
	out.ncounters = c->dev_hdr.counters.num_counters;
	if (out.ncounters > KPROF_MAX_COUNTERS)
		out.ncounters = KPROF_MAX_COUNTERS;
	memcpy(out.cdesc, c->dev_hdr.counters.desc, sizeof(out.cdesc));
	ret = kprof_out_open(&out, outdir, KPROF_OUT_OPS | KPROF_OUT_COUNTERS | KPROF_OUT_HOST |
			     (opts && (opts->flags & KPROF_REPORT_NO_DEVICE_LOG) ? 0 :
			      KPROF_OUT_DEVLOG), opts ? opts->top_n : 0, err);
	if (ret)
		goto out;
	out_open = 1;
	{
		double mhz = (double)c->dev_hdr.device.ref_clock_hz / 1e6;

		/* the time column is reference-timer cycles: CHIP_FREQ is its
		 * rate, so tt-metal tools convert it right */
		snprintf(freq, sizeof(freq), "%.6g", mhz > 0 ? mhz : 1000.0);
		kprof_out_devlog_header(&out, "kprof", freq, c->dev_hdr.device.num_cores);
	}
	if (opts && (opts->flags & KPROF_REPORT_NO_TRACE)) {
		/* report.html must not draw an older report's trace.json */
		snprintf(path, sizeof(path), "%s/trace.json", outdir);
		unlink(path);
	} else {
		char label[96];
		const struct kprof_device_info *d = &c->dev_hdr.device;
		struct kprof_trace_cfg tc;

		snprintf(label, sizeof(label), "device %u: %.*s (%.*s)", d->device_id,
			 (int)strnlen(d->name, sizeof(d->name)), d->name,
			 (int)strnlen(d->backend, sizeof(d->backend)), d->backend);
		snprintf(path, sizeof(path), "%s/trace.json", outdir);
		tc = (struct kprof_trace_cfg){
			.device_label = label, .grid_x = d->grid_x,
			.group = pick_group(opts, config), .num_cores = d->num_cores,
			.risc_names = (const char (*)[16])out.risc_names, .nriscs = out.nriscs,
		};
		out.trace = kprof_trace_open(path, &tc, err);
		if (!out.trace) {
			ret = -(err ? err->code : EIO);
			goto out;
		}
		/* the clock counter starts at the capture's first moment */
		if (c->npts || c->nstates)
			kprof_trace_clock(out.trace, c->nstates ? c->states[0].host_ns :
					  c->pts[0].host_before_ns, d->clock_mhz);
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.fit = &c->fit;
	cfg.device_id = c->dev_hdr.device.device_id;
	cfg.num_riscs = out.nriscs;
	cfg.num_cores = c->dev_hdr.device.num_cores;
	/* a slack given by the caller wins; else one that covers the
	 * lateness pass 1 saw (kprof_lag.h) */
	c->slack_ns = opts && opts->slack_ns ? opts->slack_ns :
		      kprof_lag_slack(&c->lag, KPROF_AGG_SLACK_NS_DEFAULT,
				      KPROF_REPORT_SLACK_CAP_NS, &c->slack_capped);
	cfg.slack_ns = c->slack_ns;
	/* zone slices: per core only (kprof_trace.h) */
	cfg.zone_spans = out.trace && pick_group(opts, config) <= 1;
	an = kprof_analysis_new(capture_dir, outdir, opts ? opts->peaks_file : NULL,
				&c->dev_hdr, err);
	if (!an) {
		ret = -(err ? err->code : ENOMEM);
		goto out;
	}
	em = (struct emit_both){ &out, an };
	cfg.emit = emit_both;
	cfg.ctx = &em;
	agg = kprof_agg_new(&cfg, err);
	if (!agg) {
		ret = -(err ? err->code : ENOMEM);
		goto out;
	}
	memset(&fd, 0, sizeof(fd));
	fd.c = c;
	fd.agg = agg;
	fd.out = &out;
	fd.opts = opts;
	ret = pass2(&fd, err);
	if (ret)
		goto out;
	ret = kprof_trace_close(out.trace, err);
	out.trace = NULL;
	if (ret)
		goto out;
	out_open = 0;
	ret = kprof_out_close(&out, err);
	if (ret)
		goto out;
	ret = write_summary(outdir, c, &out, kprof_agg_stats(agg), config, err);
	if (ret)
		goto out;
	ret = kprof_analysis_finish(an, err);	/* appends to summary.txt */
	if (ret)
		goto out;
	ret = capture_params(outdir, c, config, opts, kprof_agg_stats(agg), &out, err);
	if (ret)
		goto out;
	/* last: report.html is made from the files written above */
	ret = kprof_html_write(outdir, err);
	if (ret)
		goto out;
	if (res) {
		memset(res, 0, sizeof(*res));
		res->ops = out.nops;
		res->markers = kprof_agg_stats(agg)->markers;
		res->lost_markers = kprof_agg_stats(agg)->lost_markers;
		res->device_records_lost = kprof_agg_stats(agg)->device_records_lost;
		res->truncated_bytes = kprof_spool_reader_stats(c->dev)->truncated_bytes +
			(c->host ? kprof_spool_reader_stats(c->host)->truncated_bytes : 0);
		res->sync_err_bound_ns = c->fit.err_bound_ns;
		res->ops_filtered = out.ops_filtered;
	}
out:
	free(filter);
	kprof_trace_close(out.trace, NULL);
	if (out_open)
		kprof_out_close(&out, NULL);
	free(out.top);
	free(out.codes);
	kprof_agg_free(agg);
	kprof_analysis_free(an);
	kprof_spool_free(c->dev);
	kprof_spool_free(c->host);
	kprof_tsfit_free(&c->fit);
	kprof_tsfit_free(&c->oneshot);
	kprof_lag_free(&c->lag);
	free(c->pts);
	free(c->clocks);
	free(c);
	free(config);
	return ret;
}

int kprof_report_build(const char *capture_dir, const struct kprof_report_opts *opts,
		       struct kprof_report_result *res, struct kprof_err *err)
{
	return kprof_report_build_to(capture_dir, capture_dir, opts, res, err);
}

/* ---------------------------------------------------------------- */
/* tt-metal device log                                              */

/* RISC types in tt-metal's ops_perf column order; others are appended. */
static const char *const tt_riscs[] = { "BRISC", "NCRISC", "TRISC_0", "TRISC_1",
					"TRISC_2", "ERISC" };

struct tt_core {
	uint32_t slot, x, y;
};

struct tt_ctx {
	/* pass 1: tables */
	char riscs[KPROF_MAX_RISCS][16];
	unsigned int nriscs;
	struct tt_core *cores;		/* pass 1: first-seen order; then sorted */
	size_t ncores, cap;
	struct kprof_hidx ch;		/* pass 1: core -> index */
	/* pass 2 */
	struct kprof_tsfit fit;
	struct kprof_agg *agg;
	struct kprof_out *out;
	struct kprof_err *err;
	uint64_t rows, markers, other_rows;
};

static int tt_risc_index(struct tt_ctx *t, const char *name)
{
	for (unsigned int i = 0; i < t->nriscs; i++)
		if (!strcmp(t->riscs[i], name))
			return (int)i;
	return -1;
}

static int cmp_core(const void *a, const void *b)
{
	const struct tt_core *x = a, *y = b;

	if (x->slot != y->slot)
		return x->slot < y->slot ? -1 : 1;
	if (x->y != y->y)
		return x->y < y->y ? -1 : 1;
	return (x->x > y->x) - (x->x < y->x);
}

static size_t core_hash(const struct tt_core *c)
{
	return kprof_hash_u64(((uint64_t)c->slot << 42) ^ ((uint64_t)c->y << 21) ^ c->x);
}

static size_t core_hash_at(const void *arr, size_t i)
{
	return core_hash(&((const struct tt_core *)arr)[i]);
}

struct core_key {
	const struct tt_core *cores, *key;
};

static int core_eq(const void *key, size_t i)
{
	const struct core_key *k = key;

	return !cmp_core(&k->cores[i], k->key);
}

static int tt_core_add(struct tt_ctx *t, const struct tt_core *key)
{
	struct core_key k = { t->cores, key };
	size_t h = core_hash(key), pos;

	if (t->ch.cap && t->ch.slot[kprof_hidx_slot(&t->ch, h, core_eq, &k)])
		return 0;
	if (kprof_hidx_reserve(&t->ch, t->ncores, core_hash_at, t->cores))
		return kprof_err_set(t->err, ENOMEM, "out of memory");
	if (grow(&t->cores, &t->cap, t->ncores, sizeof(*t->cores), 64, t->err))
		return -ENOMEM;
	k.cores = t->cores;
	pos = kprof_hidx_slot(&t->ch, h, core_eq, &k);
	t->cores[t->ncores++] = *key;
	t->ch.slot[pos] = t->ncores;
	return 0;
}

static int tt_pass1(void *ctx, const struct kprof_tt_info *info,
		    const struct kprof_tt_row *row)
{
	struct tt_ctx *t = ctx;
	struct tt_core key = { row->pcie_slot, row->core_x, row->core_y };

	(void)info;
	if (tt_risc_index(t, row->risc) < 0) {
		if (t->nriscs == KPROF_MAX_RISCS)
			return kprof_err_set(t->err, EBADMSG,
					     "line %lu: more than %d RISC processor types",
					     row->line, KPROF_MAX_RISCS);
		snprintf(t->riscs[t->nriscs++], sizeof(t->riscs[0]), "%s", row->risc);
	}
	/* cores: distinct ones by hash (files list cores in runs: the last
	 * first), sorted once after the pass: linear in the rows */
	if (t->ncores && !cmp_core(&t->cores[t->ncores - 1], &key))
		return 0;
	return tt_core_add(t, &key);
}

static int zone_kind(const char *zone, const char *type)
{
	size_t n = strlen(zone);
	int start, fw, kernel;

	if (!strcasecmp(type, "ZONE_START") || !strcasecmp(type, "begin"))
		start = 1;
	else if (!strcasecmp(type, "ZONE_END") || !strcasecmp(type, "end"))
		start = 0;
	else
		return 0;	/* TS_DATA, TS_EVENT, ZONE_TOTAL: not timing zones */
	fw = n >= 3 && !strcmp(zone + n - 3, "-FW");
	kernel = n >= 7 && !strcmp(zone + n - 7, "-KERNEL");
	if (fw)
		return start ? KPROF_MARK_FW_START : KPROF_MARK_FW_END;
	if (kernel)
		return start ? KPROF_MARK_KERNEL_START : KPROF_MARK_KERNEL_END;
	return start ? KPROF_MARK_ZONE_START : KPROF_MARK_ZONE_END;
}

static int tt_pass2(void *ctx, const struct kprof_tt_info *info,
		    const struct kprof_tt_row *row)
{
	struct tt_ctx *t = ctx;
	struct tt_core key = { row->pcie_slot, row->core_x, row->core_y }, *c;
	struct kprof_agg_marker m;
	int kind, r;

	(void)info;
	t->rows++;
	kprof_out_devlog_row(t->out, row->pcie_slot, row->core_x, row->core_y, row->risc,
			     row->timer_id, row->time, row->data, row->run_host_id,
			     row->zone_name, row->type);
	kind = zone_kind(row->zone_name, row->type);
	if (!kind) {
		t->other_rows++;
		return 0;
	}
	c = t->ncores ? bsearch(&key, t->cores, t->ncores, sizeof(key), cmp_core) : NULL;
	r = tt_risc_index(t, row->risc);
	if (!c || r < 0)	/* file changed between the passes */
		return kprof_err_set(t->err, EAGAIN, "line %lu: file changed while reading",
				     row->line);
	memset(&m, 0, sizeof(m));
	m.op_seq = row->run_host_id;
	m.timestamp = row->time;
	m.core = (uint32_t)(c - t->cores);
	m.risc = (uint8_t)r;
	m.kind = (uint8_t)kind;
	m.zone_id = (uint32_t)row->timer_id;
	if (kind >= KPROF_MARK_ZONE_START && t->out->trace)
		kprof_trace_zone_name(t->out->trace, m.zone_id, row->zone_name);
	t->markers++;
	r = kprof_agg_marker(t->agg, &m, t->err);
	return r;
}

int kprof_report_ttmetal(const char *csv, const char *outdir,
			 const struct kprof_report_opts *opts,
			 struct kprof_report_result *res, struct kprof_err *err)
{
	struct tt_ctx *t = calloc(1, sizeof(*t));
	struct kprof_tt_info info;
	struct kprof_out out;
	struct kprof_agg_config cfg;
	char freq[32];
	int ret, out_open = 0;

	if (!t)
		return kprof_err_set(err, ENOMEM, "out of memory");
	memset(&out, 0, sizeof(out));
	t->err = err;
	for (size_t i = 0; i < sizeof(tt_riscs) / sizeof(tt_riscs[0]); i++)
		snprintf(t->riscs[t->nriscs++], sizeof(t->riscs[0]), "%s", tt_riscs[i]);
	ret = kprof_tt_parse_file(csv, tt_pass1, t, &info, err);
	if (ret)
		goto out;
	/* pass 2 finds cores by bsearch; a core's id is its rank */
	if (t->ncores)
		qsort(t->cores, t->ncores, sizeof(*t->cores), cmp_core);
	kprof_hidx_free(&t->ch);
	ret = mkdir_one(outdir, err);
	if (ret)
		goto out;
	out.nriscs = t->nriscs;
	memcpy(out.risc_names, t->riscs, sizeof(out.risc_names));
	out.op_filter = opts ? opts->op_filter : NULL;
	ret = kprof_out_open(&out, outdir, KPROF_OUT_OPS |
			     (opts && (opts->flags & KPROF_REPORT_NO_DEVICE_LOG) ? 0 :
			      KPROF_OUT_DEVLOG), opts ? opts->top_n : 0, err);
	if (ret)
		goto out;
	out_open = 1;
	snprintf(freq, sizeof(freq), "%.6g", info.chip_freq_mhz);
	kprof_out_devlog_header(&out, info.arch[0] ? info.arch : "unknown", freq,
				info.max_compute_cores);
	kprof_tsfit_linear(&t->fit, 1000.0 / info.chip_freq_mhz, 0);
	if (opts && (opts->flags & KPROF_REPORT_NO_TRACE)) {
		char path[PATH_MAX];

		/* report.html must not draw an older report's trace.json */
		snprintf(path, sizeof(path), "%s/trace.json", outdir);
		unlink(path);
	} else {
		char label[96], path[PATH_MAX];
		/* busy % of the device's compute cores (the log header's Max
		 * Compute Cores), or of every core in the log if more */
		struct kprof_trace_cfg tc = {
			.device_label = label, .group = opts ? opts->trace_group : 0,
			.num_cores = info.max_compute_cores > t->ncores ?
				     info.max_compute_cores : (uint32_t)t->ncores,
			.risc_names = (const char (*)[16])out.risc_names, .nriscs = out.nriscs,
		};

		snprintf(label, sizeof(label), "tt-metal %s (device time)", info.arch);
		snprintf(path, sizeof(path), "%s/trace.json", outdir);
		out.trace = kprof_trace_open(path, &tc, err);
		if (!out.trace) {
			ret = -(err ? err->code : EIO);
			goto out;
		}
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.fit = &t->fit;
	cfg.num_riscs = t->nriscs;
	cfg.num_cores = (uint32_t)t->ncores;
	cfg.zone_spans = out.trace && !(opts && opts->trace_group > 1);
	/* tt-metal writes the log core by core, not in time order: no op is
	 * complete before the end of the file, so none retires earlier */
	cfg.slack_ns = KPROF_AGG_NEVER;
	cfg.emit = kprof_out_op;
	cfg.ctx = &out;
	t->agg = kprof_agg_new(&cfg, err);
	if (!t->agg) {
		ret = -(err ? err->code : ENOMEM);
		goto out;
	}
	t->out = &out;
	ret = kprof_tt_parse_file(csv, tt_pass2, t, &info, err);
	if (!ret)
		ret = kprof_agg_finish(t->agg, err);
	if (ret)
		goto out;	/* the trace is closed (and freed) at out: */
	ret = kprof_trace_close(out.trace, err);
	out.trace = NULL;
	if (ret)
		goto out;
	out_open = 0;
	ret = kprof_out_close(&out, err);
	if (ret)
		goto out;
	{
		char path[PATH_MAX];
		FILE *f;
		const struct kprof_agg_stats *as = kprof_agg_stats(t->agg);
		json_object *root = json_object_new_object(), *src = json_object_new_object();

		snprintf(path, sizeof(path), "%s/summary.txt", outdir);
		f = fopen(path, "we");
		if (!f) {
			json_object_put(root);
			json_object_put(src);
			ret = kprof_err_set(err, errno, "cannot create %s: %s", path, strerror(errno));
			goto out;
		}
		fputs("kprof report from a tt-metal device log\n\nsource: ", f);
		kprof_text_put(f, csv);
		fputs("\narch: ", f);
		kprof_text_put(f, info.arch);
		fprintf(f, ", CHIP_FREQ %s MHz, %d-column layout\n"
			"rows: %" PRIu64 " (%" PRIu64 " zone markers, %" PRIu64 " other rows such as TS_DATA)\ncores: %zu\n\n",
			freq, info.ncols, t->rows, t->markers, t->other_rows, t->ncores);
		summary_ops(f, &out, "");
		fprintf(f, "\ntimes: cycles / CHIP_FREQ; no host timestamps in a tt-metal device log\n");
		ret = (ferror(f) | fclose(f)) ? kprof_err_set(err, EIO, "writing %s failed", path) : 0;

		json_object_object_add(src, "kind", json_object_new_string("tt-metal profile_log_device.csv"));
		json_object_object_add(src, "file", json_object_new_string(csv));
		json_object_object_add(src, "arch", json_object_new_string(info.arch));
		json_object_object_add(src, "chip_freq_mhz", json_object_new_double(info.chip_freq_mhz));
		json_object_object_add(src, "max_compute_cores", info.max_compute_cores ?
				       json_object_new_int64(info.max_compute_cores) : NULL);
		json_object_object_add(src, "columns", json_object_new_int(info.ncols));
		json_object_object_add(src, "rows", json_object_new_int64((int64_t)t->rows));
		json_object_object_add(src, "other_rows", json_object_new_int64((int64_t)t->other_rows));
		json_object_object_add(src, "cores", json_object_new_int64((int64_t)t->ncores));
		{
			json_object *k = json_object_new_object();

			json_object_object_add(k, "version", opts && opts->version ?
					       json_object_new_string(opts->version) : NULL);
			json_object_object_add(k, "source", json_object_new_string("tt-metal device log"));
			json_object_object_add(root, "kprof", k);
		}
		json_object_object_add(root, "config", config_json(opts ? opts->config_json : NULL));
		json_object_object_add(root, "ttmetal", src);
		json_object_object_add(root, "stats", stats_json(as, &out));
		if (!ret)
			ret = write_params(outdir, root, err);
		json_object_put(root);
		if (ret)
			goto out;
	}
	if (res) {
		memset(res, 0, sizeof(*res));
		res->ops = out.nops;
		res->markers = t->markers;
		res->ops_filtered = out.ops_filtered;
		res->sync_err_bound_ns = NAN;
	}
out:
	kprof_trace_close(out.trace, NULL);
	if (out_open)
		kprof_out_close(&out, NULL);
	free(out.top);
	free(out.codes);
	kprof_agg_free(t->agg);
	free(t->cores);
	kprof_hidx_free(&t->ch);
	free(t);
	return ret;
}
