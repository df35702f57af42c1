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
#include "kprof_gpu.h"
#include "kprof_hash.h"
#include "kprof_html.h"
#include "kprof_lag.h"
#include "kprof_outdir.h"
#include "kprof_spool.h"
#include "kprof_text.h"
#include "kprof_timesync.h"
#include "kprof_trace.h"
#include "kprof_ttmetal.h"
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
	/* NVIDIA (device backend "nvidia"): the CUPTI agent's spool of one
	 * process, read as device and host records (kprof_gpu.h) in place
	 * of raw/device.kspool's records and raw/host.kspool */
	int nvidia;
	struct kprof_gpu_src *gdev, *ghost;
	struct kprof_gpu_spool gspools[MAX_GPU_SPOOLS];
	int ngspools, gpick;		/* spools found; the one read (-1: none) */
};

/* The device and host record streams, whichever spools hold them. */
static int dev_next(struct capture *c, const struct kprof_rec_hdr **r, struct kprof_err *err)
{
	return c->gdev ? kprof_gpu_next(c->gdev, r, err) : kprof_spool_next(c->dev, r, err);
}

static int host_next(struct capture *c, const struct kprof_rec_hdr **r, struct kprof_err *err)
{
	return c->ghost ? kprof_gpu_next(c->ghost, r, err) : kprof_spool_next(c->host, r, err);
}

static int have_host(const struct capture *c)
{
	return c->host || c->ghost;
}

static const struct kprof_spool_stats *dev_stats(const struct capture *c)
{
	return c->gdev ? kprof_gpu_spool_stats(c->gdev) : kprof_spool_reader_stats(c->dev);
}

static const struct kprof_spool_stats *host_stats(const struct capture *c)
{
	return c->ghost ? kprof_gpu_spool_stats(c->ghost) : kprof_spool_reader_stats(c->host);
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

	while ((ret = dev_next(c, &rec, err)) == KPROF_REC_OK) {
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
	if (c->gdev) {
		/* the GPU's (device, stream) tracks are its "cores" */
		c->dev_hdr.device.num_cores = kprof_gpu_ntracks(c->gdev);
		return kprof_gpu_rewind(c->gdev, err);
	}
	return kprof_spool_rewind(c->dev, err);
}

/* An NVIDIA capture whose CUPTI timestamps are host CLOCK_MONOTONIC. */
static int gpu_monotonic(const struct capture *c)
{
	return c->gdev && kprof_gpu_stats(c->gdev)->clock == KPROF_GCLOCK_MONOTONIC;
}

static void fit_capture(struct capture *c, struct kprof_err *err)
{
	double hz = (double)c->dev_hdr.device.ref_clock_hz;

	if (gpu_monotonic(c)) {
		/* CUPTI's timestamps are CLOCK_MONOTONIC already (the agent's
		 * timestamp callback): nothing to fit */
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
		if (++fd->c->records % PROGRESS_EVERY == 0 && fd->opts && fd->opts->progress)
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

/* NVIDIA: where the data came from and what the agent could not do. */
static void summary_gpu(FILE *f, const struct capture *c)
{
	const struct kprof_gpu_stats *g;

	fprintf(f, "\nGPU capture (CUPTI agent in the workload):\n");
	if (!c->gdev) {
		fprintf(f, "  no CUDA process loaded the agent (no raw/gpu-PID.kspool): the command made no CUDA call, or CUDA_INJECTION64_PATH was overridden  <-- no GPU data\n");
		return;
	}
	g = kprof_gpu_stats(c->gdev);
	fprintf(f, "  process %u (%s), parent %u, CUPTI %u: raw/gpu-%u.kspool\n", g->pid,
		g->comm[0] ? g->comm : "?", g->ppid, g->cupti_version,
		c->gspools[c->gpick].pid);
	fprintf(f, "  host timestamps (%s): %s\n", kprof_gpu_host_times_name(g->host_times),
		kprof_gpu_host_times_desc(g->host_times));
	if (g->clock == KPROF_GCLOCK_MONOTONIC)
		fprintf(f, "  clock: CUPTI timestamps are host CLOCK_MONOTONIC (the agent's timestamp callback); no conversion\n");
	else
		fprintf(f, "  clock: CUPTI's own, mapped to CLOCK_MONOTONIC by the agent's sync triples (time sync below)\n");
	fprintf(f, "  kernels %" PRIu64 ", memcpys %" PRIu64 ", memsets %" PRIu64 ", launch calls %" PRIu64
		", sync calls %" PRIu64 ", tracks (GPU, stream) %u\n", g->kernels, g->memcpys,
		g->memsets, g->api_launches, g->api_syncs, kprof_gpu_ntracks(c->gdev));
	fprintf(f, "  CUPTI records dropped: %" PRIu64 "%s\n", g->dropped,
		g->dropped ? "  <-- kernels, copies or API calls are missing: raise KPROF_AGENT_BUFFER_KB / KPROF_AGENT_BUFFERS" : "");
	if (g->no_buffer)
		fprintf(f, "  buffers the agent refused (its memory bound): %" PRIu64 "\n", g->no_buffer);
	fprintf(f, "  agent stopped cleanly: %s\n", g->stopped ? "yes" :
		"NO  <-- the process did not exit normally (killed?): records CUPTI still held are lost");
	if (g->forks)
		fprintf(f, "  fork() calls: %" PRIu64 " (a child without exec is not profiled; one that execs a CUDA program has its own spool)\n",
			g->forks);
	if (g->multiple_subscribers)
		fprintf(f, "  another CUPTI client held the process (a profiler, e.g. Nsight or PyTorch's): its activity may be missing\n");
	if (g->unnamed || g->bad_names)
		fprintf(f, "  kernels without a name: %" PRIu64 ", bad name records: %" PRIu64 "\n",
			g->unnamed, g->bad_names);
	if (g->tracks_over)
		fprintf(f, "  ops on streams past the first %u tracks (drawn on the last one): %" PRIu64 "\n",
			KPROF_GPU_MAX_TRACKS, g->tracks_over);
	for (uint32_t i = 0; i < g->nerrors && i < KPROF_GPU_MAX_ERRORS; i++)
		fprintf(f, "  agent: %s failed (%d)\n", g->errors[i].text, g->errors[i].code);
	if (g->nerrors > KPROF_GPU_MAX_ERRORS)
		fprintf(f, "  agent: %u more errors\n", g->nerrors - KPROF_GPU_MAX_ERRORS);
	if (c->ngspools > 1) {
		fprintf(f, "  other CUDA processes, not in these outputs (their spools are in raw/):");
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
static void write_summary(FILE *f, struct capture *c, struct kprof_out *o,
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
		fprintf(f, "kprof capture summary\n\ndevice: %s (backend %s), %u tracks (GPU, stream), timestamps in ns\n",
			name, backend, d->num_cores);
	else
		fprintf(f, "kprof capture summary\n\ndevice: %s (backend %s), %u cores x %u RISCs, reference clock %" PRIu64 " Hz\n",
			name, backend, d->num_cores, d->riscs_per_core, (uint64_t)d->ref_clock_hz);
	if (c->nvidia)
		summary_gpu(f, c);
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
	if (have_host(c)) {
		const struct kprof_spool_stats *hs = host_stats(c);

		fprintf(f, "  host spool: %" PRIu64 " events, truncated tail %" PRIu64 " bytes\n",
			as->host_events, hs->truncated_bytes);
	} else {
		fprintf(f, "  host spool: none (no host timestamps)\n");
	}
	if (c->have_bpf)
		fprintf(f, "  BPF: %" PRIu64 " events, %" PRIu64 " lost (ring buffer full), %" PRIu64 " unmatched exits\n",
			(uint64_t)c->bpf.events, (uint64_t)c->bpf.reserve_failed,
			(uint64_t)c->bpf.unmatched_exit);

	if (c->nvidia && !d->clock_mhz)
		fprintf(f, "\nclock:\n  at capture start: not read (an NVIDIA GPU's clock is NVML's: kprofctl info / lock-clock)\n");
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
		fprintf(f, "  one-shot fit (first sample + nominal rate) would be off by up to %.0f ns\n",
			c->oneshot_max_diff_ns);
	if (c->fit.method == KPROF_TS_NONE)
		fprintf(f, "  no sync samples: host-time columns are device time at the nominal rate\n");
	fprintf(f, "\ncapture states:\n");
	for (size_t i = 0; i < c->nstates; i++)
		fprintf(f, "  at %" PRIu64 " ns: %s (%s)\n", c->states[i].host_ns,
			state_name(c->states[i].state), reason_name(c->states[i].reason));
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

/* params.json "gpu": the agent's account of itself (NVIDIA captures) */
static json_object *gpu_json(const struct capture *c)
{
	json_object *o = json_object_new_object(), *e, *sp = json_object_new_array();
	const struct kprof_gpu_stats *g;

#define ADD(k, v) json_object_object_add(o, k, json_object_new_int64((int64_t)(v)))
	for (int i = 0; i < c->ngspools && i < MAX_GPU_SPOOLS; i++) {
		e = json_object_new_object();
		json_object_object_add(e, "pid", json_object_new_int64(c->gspools[i].pid));
		json_object_object_add(e, "bytes", json_object_new_int64((int64_t)c->gspools[i].bytes));
		json_object_object_add(e, "aggregated", json_object_new_boolean(i == c->gpick));
		json_object_array_add(sp, e);
	}
	json_object_object_add(o, "spools", sp);
	ADD("spools_total", c->ngspools);
	if (!c->gdev)
		return o;
	g = kprof_gpu_stats(c->gdev);
	json_object_object_add(o, "host_times",
			       json_object_new_string(kprof_gpu_host_times_name(g->host_times)));
	json_object_object_add(o, "host_timestamps",
			       json_object_new_string(kprof_gpu_host_times_desc(g->host_times)));
	ADD("queued_launches", g->queued_launches);
	json_object_object_add(o, "clock", json_object_new_string(
		g->clock == KPROF_GCLOCK_MONOTONIC ? "CLOCK_MONOTONIC (timestamp callback)" :
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

/* text as the whole file od/name, synced (small files a later report needs) */
static int write_text(struct kprof_outdir *od, const char *name, const char *text,
		      const char *tail, struct kprof_err *err)
{
	struct kprof_outfile of;
	int ret = kprof_outfile_create(od, name, &of, err);

	if (ret)
		return ret;
	fputs(text, of.f);
	fputs(tail, of.f);
	return kprof_outfile_commit(&of, KPROF_OUTFILE_SYNC, err);
}

static int write_params(struct kprof_outdir *od, json_object *root, struct kprof_err *err)
{
	/* json-c leaves no trailing newline: add one for text tools */
	return write_text(od, "params.json", json_object_to_json_string_ext(root,
			  JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
			  JSON_C_TO_STRING_NOSLASHESCAPE), "\n", err);
}

static int capture_params(struct kprof_outdir *od, struct capture *c, const char *config,
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
	json_object_object_add(k, "source", json_object_new_string(
		c->nvidia ? "kprof capture (NVIDIA: CUPTI agent)" : "kprof capture"));
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
			       json_object_new_int64((int64_t)dev_stats(c)->truncated_bytes));
	json_object_object_add(sp, "host_truncated_bytes", have_host(c) ?
			       json_object_new_int64((int64_t)host_stats(c)->truncated_bytes) : NULL);
	json_object_object_add(sp, "device_unknown_records_skipped",
			       json_object_new_int64((int64_t)dev_stats(c)->skipped));
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
	if (c->nvidia)
		json_object_object_add(root, "gpu", gpu_json(c));
	json_object_object_add(root, "stats", stats_json(as, o));
	ret = write_params(od, root, err);
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
		/* saved with the capture's own report only: a report written
		 * elsewhere leaves the capture directory alone */
		if (kprof_outdir_is(od, capfd)) {
			struct kprof_outdir *raw = kprof_outdir_sub(od, KPROF_SPOOL_DIR, err);

			if (!raw || write_text(raw, CONFIG_NAME, opts->config_json, "", err))
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

/* NVIDIA: the agent spool of the process with the most records, as the
 * device and the host record streams (kprof_gpu.h); none is no error */
static int open_gpu(struct capture *c, int capfd, const char *capture_dir,
		    struct kprof_err *err)
{
	char rel[64], path[PATH_MAX];
	int n = kprof_gpu_list(capfd, capture_dir, c->gspools, MAX_GPU_SPOOLS, err);

	if (n < 0)
		return n;
	c->ngspools = n;
	c->gpick = kprof_gpu_pick(c->gspools, n < MAX_GPU_SPOOLS ? n : MAX_GPU_SPOOLS);
	if (c->gpick < 0)
		return 0;
	snprintf(rel, sizeof(rel), KPROF_SPOOL_DIR "/" KPROF_SPOOL_GPU_PREFIX "%u"
		 KPROF_SPOOL_GPU_SUFFIX, c->gspools[c->gpick].pid);
	snprintf(path, sizeof(path), "%s/%s", capture_dir, rel);
	c->gdev = kprof_gpu_openat(capfd, rel, path, KPROF_GPU_VIEW_DEVICE, err);
	if (!c->gdev)
		return -(err ? err->code : EIO);
	c->ghost = kprof_gpu_openat(capfd, rel, path, KPROF_GPU_VIEW_HOST, err);
	return c->ghost ? 0 : -(err ? err->code : EIO);
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

static int report_build(const char *capture_dir, int capfd, struct kprof_outdir *od,
			const struct kprof_report_opts *opts,
			struct kprof_report_result *res, struct kprof_err *err)
{
	struct capture *c = calloc(1, sizeof(*c));
	struct kprof_analysis *an = NULL;
	struct kprof_outfile sum = { 0 };
	struct emit_both em;
	struct kprof_out out;
	struct kprof_agg *agg = NULL;
	struct kprof_agg_config cfg;
	struct feed fd;
	char path[PATH_MAX], *config = NULL, freq[32], *filter = NULL;
	int ret;

	if (!c)
		return kprof_err_set(err, ENOMEM, "out of memory");
	memset(&out, 0, sizeof(out));
	snprintf(path, sizeof(path), "%s/%s", capture_dir, KPROF_SPOOL_DEVICE_FILE);
	c->dev = kprof_spool_openat(capfd, KPROF_SPOOL_DEVICE_FILE, path, err);
	if (!c->dev) {
		ret = -(err ? err->code : EIO);
		goto out;
	}
	c->dev_hdr = *kprof_spool_header(c->dev);
	if (c->dev_hdr.kind != KPROF_SPOOL_DEVICE) {
		ret = kprof_err_set(err, EBADMSG, "%s is not a device spool", path);
		goto out;
	}
	c->nvidia = !strncmp(c->dev_hdr.device.backend, KPROF_GPU_BACKEND,
			     sizeof(c->dev_hdr.device.backend));
	if (c->nvidia) {
		ret = open_gpu(c, capfd, capture_dir, err);
		if (ret)
			goto out;
	}
	snprintf(path, sizeof(path), "%s/%s", capture_dir, KPROF_SPOOL_HOST_FILE);
	if (!c->nvidia) {
		struct kprof_err e = { 0 };

		/* optional: absent without BPF; anything else there must be one */
		c->host = kprof_spool_openat(capfd, KPROF_SPOOL_HOST_FILE, path, &e);
		if (!c->host && e.code != ENOENT) {
			ret = kprof_err_set(err, e.code, "%s", e.msg);
			goto out;
		}
	}
	ret = load_config(capfd, capture_dir, od, opts, &config, err);
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
	if (c->nvidia) {
		/* a GPU has no RISC columns, and its timestamps are ns */
		out.nriscs = 0;
		out.no_cycles = 1;
	}
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
	ret = kprof_out_open(&out, od, KPROF_OUT_OPS | KPROF_OUT_COUNTERS | KPROF_OUT_HOST |
			     (opts && (opts->flags & KPROF_REPORT_NO_DEVICE_LOG) ? 0 :
			      KPROF_OUT_DEVLOG), opts ? opts->top_n : 0, err);
	if (ret)
		goto out;
	{
		double mhz = (double)c->dev_hdr.device.ref_clock_hz / 1e6;

		/* the time column is reference-timer cycles: CHIP_FREQ is its
		 * rate, so tt-metal tools convert it right */
		snprintf(freq, sizeof(freq), "%.6g", mhz > 0 ? mhz : 1000.0);
		kprof_out_devlog_header(&out, "kprof", freq, c->dev_hdr.device.num_cores);
	}
	/* without: an older report's trace.json is removed (kprof_outdir_prune) */
	if (!(opts && (opts->flags & KPROF_REPORT_NO_TRACE))) {
		char label[96];
		const struct kprof_device_info *d = &c->dev_hdr.device;
		struct kprof_trace_cfg tc;

		snprintf(label, sizeof(label), "device %u: %.*s (%.*s)", d->device_id,
			 (int)strnlen(d->name, sizeof(d->name)), d->name,
			 (int)strnlen(d->backend, sizeof(d->backend)), d->backend);
		tc = (struct kprof_trace_cfg){
			.device_label = label, .grid_x = d->grid_x,
			.group = pick_group(opts, config), .num_cores = d->num_cores,
			.risc_names = (const char (*)[16])out.risc_names, .nriscs = out.nriscs,
			.core_label = c->gdev ? gpu_track_label : NULL, .core_label_ctx = c->gdev,
		};
		out.trace = kprof_trace_open(od, "trace.json", &tc, err);
		if (!out.trace) {
			ret = -(err ? err->code : EIO);
			goto out;
		}
		/* the clock counter starts at the capture's first moment
		 * (none for a GPU whose clock was not read) */
		if ((c->npts || c->nstates) && !(c->nvidia && !d->clock_mhz))
			kprof_trace_clock(out.trace, c->nstates ? c->states[0].host_ns :
					  c->pts[0].host_before_ns, d->clock_mhz);
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.fit = &c->fit;
	cfg.device_id = c->dev_hdr.device.device_id;
	cfg.num_riscs = c->nvidia ? 1 : out.nriscs;	/* GPU markers: RISC 0 */
	cfg.num_cores = c->dev_hdr.device.num_cores;
	/* a slack given by the caller wins; else one that covers the
	 * lateness pass 1 saw (kprof_lag.h) */
	c->slack_ns = opts && opts->slack_ns ? opts->slack_ns :
		      kprof_lag_slack(&c->lag, c->nvidia ? KPROF_GPU_SLACK_NS :
				      KPROF_AGG_SLACK_NS_DEFAULT,
				      KPROF_REPORT_SLACK_CAP_NS, &c->slack_capped);
	cfg.slack_ns = c->slack_ns;
	/* zone slices: per core only (kprof_trace.h) */
	cfg.zone_spans = out.trace && pick_group(opts, config) <= 1;
	an = kprof_analysis_new(capfd, capture_dir, od, opts ? opts->peaks_file : NULL,
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
	ret = kprof_out_close(&out, err);
	if (ret)
		goto out;
	ret = kprof_outfile_create(od, "summary.txt", &sum, err);
	if (ret)
		goto out;
	write_summary(sum.f, c, &out, kprof_agg_stats(agg), config);
	ret = kprof_analysis_finish(an, sum.f, err);	/* adds to summary.txt */
	if (!ret)
		ret = kprof_outfile_commit(&sum, 0, err);
	if (ret)
		goto out;
	ret = capture_params(od, c, config, opts, kprof_agg_stats(agg), &out, err);
	if (ret)
		goto out;
	/* last: report.html is made from the files written above */
	ret = kprof_html_write(od, err);
	if (!ret)
		ret = kprof_outdir_prune(od, err);
	if (ret)
		goto out;
	if (res) {
		memset(res, 0, sizeof(*res));
		res->ops = out.nops;
		res->markers = kprof_agg_stats(agg)->markers;
		res->lost_markers = kprof_agg_stats(agg)->lost_markers;
		res->device_records_lost = kprof_agg_stats(agg)->device_records_lost;
		res->truncated_bytes = dev_stats(c)->truncated_bytes +
			(have_host(c) ? host_stats(c)->truncated_bytes : 0);
		/* CUPTI on CLOCK_MONOTONIC: the same clock, no mapping error */
		res->sync_err_bound_ns = gpu_monotonic(c) ? 0 : c->fit.err_bound_ns;
		res->ops_filtered = out.ops_filtered;
		res->gpu_processes = (uint32_t)c->ngspools;
		if (c->gdev) {
			const struct kprof_gpu_stats *g = kprof_gpu_stats(c->gdev);

			res->gpu_dropped = g->dropped;
			res->gpu_problems = g->nerrors || !g->stopped;
		}
	}
out:
	free(filter);
	kprof_trace_free(out.trace);
	kprof_out_discard(&out);
	kprof_outfile_discard(&sum);
	free(out.top);
	free(out.codes);
	kprof_agg_free(agg);
	kprof_analysis_free(an);
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
	free(config);
	return ret;
}

int kprof_report_build(const char *capture_dir, struct kprof_outdir *od,
		       const struct kprof_report_opts *opts,
		       struct kprof_report_result *res, struct kprof_err *err)
{
	struct kprof_outdir *own = NULL;
	int capfd, ret;

	/* the directory the user named (or the held output directory); what
	 * is inside is read without links */
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

int kprof_report_ttmetal(const char *csv, struct kprof_outdir *od,
			 const struct kprof_report_opts *opts,
			 struct kprof_report_result *res, struct kprof_err *err)
{
	struct tt_ctx *t = calloc(1, sizeof(*t));
	struct kprof_outfile sum = { 0 };
	struct kprof_tt_info info;
	struct kprof_out out;
	struct kprof_agg_config cfg;
	char freq[32];
	int ret;

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
	out.nriscs = t->nriscs;
	memcpy(out.risc_names, t->riscs, sizeof(out.risc_names));
	out.op_filter = opts ? opts->op_filter : NULL;
	ret = kprof_out_open(&out, od, KPROF_OUT_OPS |
			     (opts && (opts->flags & KPROF_REPORT_NO_DEVICE_LOG) ? 0 :
			      KPROF_OUT_DEVLOG), opts ? opts->top_n : 0, err);
	if (ret)
		goto out;
	snprintf(freq, sizeof(freq), "%.6g", info.chip_freq_mhz);
	kprof_out_devlog_header(&out, info.arch[0] ? info.arch : "unknown", freq,
				info.max_compute_cores);
	kprof_tsfit_linear(&t->fit, 1000.0 / info.chip_freq_mhz, 0);
	/* without: an older report's trace.json is removed (kprof_outdir_prune) */
	if (!(opts && (opts->flags & KPROF_REPORT_NO_TRACE))) {
		char label[96];
		/* busy % of the device's compute cores (the log header's Max
		 * Compute Cores), or of every core in the log if more */
		struct kprof_trace_cfg tc = {
			.device_label = label, .group = opts ? opts->trace_group : 0,
			.num_cores = info.max_compute_cores > t->ncores ?
				     info.max_compute_cores : (uint32_t)t->ncores,
			.risc_names = (const char (*)[16])out.risc_names, .nriscs = out.nriscs,
		};

		snprintf(label, sizeof(label), "tt-metal %s (device time)", info.arch);
		out.trace = kprof_trace_open(od, "trace.json", &tc, err);
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
	ret = kprof_out_close(&out, err);
	if (ret)
		goto out;
	ret = kprof_outfile_create(od, "summary.txt", &sum, err);
	if (ret)
		goto out;
	{
		FILE *f = sum.f;
		const struct kprof_agg_stats *as = kprof_agg_stats(t->agg);
		json_object *root = json_object_new_object(), *src = json_object_new_object();

		fputs("kprof report from a tt-metal device log\n\nsource: ", f);
		kprof_text_put(f, csv);
		fputs("\narch: ", f);
		kprof_text_put(f, info.arch);
		fprintf(f, ", CHIP_FREQ %s MHz, %d-column layout\n"
			"rows: %" PRIu64 " (%" PRIu64 " zone markers, %" PRIu64 " other rows such as TS_DATA)\ncores: %zu\n\n",
			freq, info.ncols, t->rows, t->markers, t->other_rows, t->ncores);
		summary_ops(f, &out, "");
		fprintf(f, "\ntimes: cycles / CHIP_FREQ; no host timestamps in a tt-metal device log\n");
		ret = kprof_outfile_commit(&sum, 0, err);

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
			ret = write_params(od, root, err);
		json_object_put(root);
		if (ret)
			goto out;
	}
	/* last: report.html is made from the files written above; then
	 * every output this report did not write goes (counters.csv, ...) */
	ret = kprof_html_write(od, err);
	if (!ret)
		ret = kprof_outdir_prune(od, err);
	if (ret)
		goto out;
	if (res) {
		memset(res, 0, sizeof(*res));
		res->ops = out.nops;
		res->markers = t->markers;
		res->ops_filtered = out.ops_filtered;
		res->sync_err_bound_ns = NAN;
	}
out:
	kprof_trace_free(out.trace);
	kprof_out_discard(&out);
	kprof_outfile_discard(&sum);
	free(out.top);
	free(out.codes);
	kprof_agg_free(t->agg);
	free(t->cores);
	kprof_hidx_free(&t->ch);
	free(t);
	return ret;
}
