// SPDX-License-Identifier: GPL-2.0
/*
 * NVIDIA captures: the CUPTI agent's spool as kprof records (kprof_gpu.h).
 */
#include "kprof_gpu.h"
#include "kprof_array_size.h"
#include "kprof_bpf_cuda.h"
#include "kprof_cupti_conv.h"
#include "kprof_gpucnt.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LAUNCH_RING	(1U << 16)	/* recent launch entries, by correlation */
/* records made from one agent record: an OP with the longest name
 * (KPROF_GNAME_MAX), 4 markers and a COUNTERS record fit
 */
#define QBUF		(8U << 10)

struct track {
	uint32_t device, stream;
};

struct launch {
	uint32_t corr;
	uint32_t valid;
	uint64_t enter;
};

struct kprof_gpu_src {
	struct kprof_spool_reader *r;
	int view;
	const struct kprof_tsfit *fit;
	struct kprof_gpu_stats st;
	char *names[KPROF_GNAME_SLOTS];
	/* the API calls that synchronize on an event (domain << 16 | cbid,
	 * from their NAME records): the sync of no op (KPROF_HEVF_NO_COVER)
	 */
	uint32_t event_sync[4];
	unsigned int nevent_sync;
	struct track tracks[KPROF_GPU_MAX_TRACKS];
	uint32_t ntracks;
	struct launch *launches;	/* LAUNCH_RING, device view */
	/* host view with the uprobes' calls: their spool, the joined events */
	struct kprof_spool_reader *ur;
	struct kprof_cj *cj;
	struct kprof_host_event uev;
	struct kprof_gpu_uprobes us;
	/* counters (capture --counters): the metrics' names, the join */
	char metric[KPROF_GPU_MAX_METRICS][KPROF_GPUCNT_NAME_LEN];
	uint32_t nmetrics;
	struct kprof_gpucnt_join join;
	int join_ended;
	size_t qlen, qoff;
	uint64_t q[QBUF / 8];		/* 8-byte aligned records */
};

struct kprof_gpu_src *kprof_gpu_open(const char *path, int view, struct kprof_err *err)
{
	return kprof_gpu_openat(AT_FDCWD, path, NULL, view, err);
}

struct kprof_gpu_src *kprof_gpu_openat(int dirfd, const char *rel, const char *shown,
				       int view, struct kprof_err *err)
{
	const char *path = shown ? shown : rel;
	struct kprof_gpu_src *s = calloc(1, sizeof(*s));

	if (!s) {
		kprof_err_set(err, ENOMEM, "out of memory");
		return NULL;
	}
	s->view = view;
	if (view == KPROF_GPU_VIEW_DEVICE)
		s->launches = calloc(LAUNCH_RING, sizeof(*s->launches));
	if (view == KPROF_GPU_VIEW_DEVICE && (!s->launches || kprof_gpucnt_join_init(&s->join))) {
		free(s);
		kprof_err_set(err, ENOMEM, "out of memory");
		return NULL;
	}
	s->r = kprof_spool_openat(dirfd, rel, shown, err);
	if (!s->r) {
		kprof_gpu_free(s);
		return NULL;
	}
	if (kprof_spool_header(s->r)->kind != KPROF_SPOOL_GPU) {
		kprof_err_set(err, EBADMSG, "%s is not a GPU agent spool (kind %u)", path,
			      kprof_spool_header(s->r)->kind);
		kprof_gpu_free(s);
		return NULL;
	}
	return s;
}

void kprof_gpu_free(struct kprof_gpu_src *s)
{
	if (!s)
		return;
	kprof_spool_free(s->r);
	kprof_spool_free(s->ur);
	kprof_cj_free(s->cj);
	for (uint32_t i = 0; i < KPROF_GNAME_SLOTS; i++)
		free(s->names[i]);
	free(s->launches);
	kprof_gpucnt_join_free(&s->join);
	free(s);
}

int kprof_gpu_rewind(struct kprof_gpu_src *s, struct kprof_err *err)
{
	/* counted again by the next pass; who the agent is stays known */
	struct kprof_gpu_stats keep = s->st;

	memset(&s->st, 0, sizeof(s->st));
	s->st.pid = keep.pid;
	s->st.ppid = keep.ppid;
	memcpy(s->st.comm, keep.comm, sizeof(s->st.comm));
	s->st.clock = keep.clock;
	s->st.cupti_version = keep.cupti_version;
	s->st.host_times = keep.host_times;
	s->qlen = 0;
	s->qoff = 0;
	if (s->launches)
		memset(s->launches, 0, LAUNCH_RING * sizeof(*s->launches));
	if (s->join.slot) {
		struct kprof_gpucnt_slot *slot = s->join.slot;

		memset(slot, 0, KPROF_GPUCNT_RING * sizeof(*slot));
		memset(&s->join, 0, sizeof(s->join));
		s->join.slot = slot;
	}
	s->join_ended = 0;
	if (s->cj) {
		/* the join again from the start, its counts with it */
		kprof_cj_free(s->cj);
		s->cj = NULL;
		memset(&s->us, 0, sizeof(s->us));
		s->us.used = 1;
		if (kprof_spool_rewind(s->ur, err))
			return -(err->code ? err->code : EIO);
	}
	return kprof_spool_rewind(s->r, err);
}

const struct kprof_spool_stats *kprof_gpu_spool_stats(const struct kprof_gpu_src *s)
{
	return kprof_spool_reader_stats(s->r);
}

const struct kprof_gpu_stats *kprof_gpu_stats(const struct kprof_gpu_src *s)
{
	return &s->st;
}

void kprof_gpu_set_fit(struct kprof_gpu_src *s, const struct kprof_tsfit *fit)
{
	s->fit = fit;
}

uint32_t kprof_gpu_ntracks(const struct kprof_gpu_src *s)
{
	return s->ntracks;
}

void kprof_gpu_track_name(const struct kprof_gpu_src *s, uint32_t track, char *buf,
			  size_t len)
{
	if (track >= s->ntracks)
		snprintf(buf, len, "track %u", track);
	else if (track == KPROF_GPU_MAX_TRACKS - 1 && s->st.tracks_over)
		snprintf(buf, len, "GPU %u stream %u and later streams",
			 s->tracks[track].device, s->tracks[track].stream);
	else
		snprintf(buf, len, "GPU %u stream %u", s->tracks[track].device,
			 s->tracks[track].stream);
}

const char *kprof_gpu_host_times_name(uint32_t host_times)
{
	if (host_times == KPROF_GHOST_UPROBE)
		return "uprobe";
	return host_times == KPROF_GHOST_QUEUED ? "queued" :
	       host_times == KPROF_GHOST_CALLBACK ? "callback" : "api";
}

#define HOST_TIMES_QUEUED_DESC "kernel launches from CUPTI's latency timestamps (queued, submitted) on the kernel records; CUPTI API activity records of the copy, graph launch and sync calls (entry and exit on the calling thread); no memcpy or memset records (with them and latency timestamps on, CUPTI stops the workload)"
#define HOST_TIMES_API_DESC "CUPTI API activity records of the launch and sync calls (entry and exit on the calling thread)"
#define HOST_TIMES_CALLBACK_DESC "CUPTI API callbacks of the launch and sync calls (entry and exit timestamps taken by the agent on the calling thread)"

#define HOST_TIMES_UPROBE_DESC "BPF uprobes on libcuda's launch and sync functions (entry and return on the calling thread), joined to the kernel records by call order (docs/architecture.md)"

const char *kprof_gpu_host_times_desc(uint32_t host_times)
{
	if (host_times == KPROF_GHOST_UPROBE)
		return HOST_TIMES_UPROBE_DESC;
	return host_times == KPROF_GHOST_QUEUED ? HOST_TIMES_QUEUED_DESC :
	       host_times == KPROF_GHOST_CALLBACK ? HOST_TIMES_CALLBACK_DESC : HOST_TIMES_API_DESC;
}

/* A kernel record's queued timestamp as its launch time: 0 when unknown,
 * for an older agent's record (which ends before it), and when the launch
 * calls' records are the source (the agent then records queued only to
 * compare the two: KPROF_AGENT_HOST_TIMES=both)
 */
static uint64_t kernel_queued(const struct kprof_gpu_src *s, const struct kprof_grec_kernel *k)
{
	return s->st.host_times == KPROF_GHOST_QUEUED && k->size >= sizeof(*k) ?
	       k->queued_ns : 0;
}

const char *kprof_gpu_copy_name(uint8_t kind, uint8_t copy_kind)
{
	static const char *const names[] = {
		[1] = "[memcpy HtoD]", [2] = "[memcpy DtoH]", [3] = "[memcpy HtoA]",
		[4] = "[memcpy AtoH]", [5] = "[memcpy AtoA]", [6] = "[memcpy AtoD]",
		[7] = "[memcpy DtoA]", [8] = "[memcpy DtoD]", [9] = "[memcpy HtoH]",
		[10] = "[memcpy PtoP]",
	};

	if (kind == KPROF_GCOPY_MEMSET)
		return "[memset]";
	if (copy_kind < ARRAY_SIZE(names) && names[copy_kind])
		return names[copy_kind];
	return "[memcpy]";
}

static uint32_t track_of(struct kprof_gpu_src *s, uint32_t device, uint32_t stream)
{
	for (uint32_t i = 0; i < s->ntracks; i++)
		if (s->tracks[i].device == device && s->tracks[i].stream == stream)
			return i;
	if (s->ntracks < KPROF_GPU_MAX_TRACKS) {
		s->tracks[s->ntracks] = (struct track){ device, stream };
		return s->ntracks++;
	}
	s->st.tracks_over++;
	return KPROF_GPU_MAX_TRACKS - 1;
}

/* ---- output queue ---- */

static void *qput(struct kprof_gpu_src *s, size_t size)
{
	uint8_t *p = (uint8_t *)s->q + s->qlen;

	memset(p, 0, size);
	s->qlen += size;
	return p;
}

static void q_marker(struct kprof_gpu_src *s, uint32_t corr, uint32_t track, uint8_t kind,
		     uint64_t ts)
{
	struct kprof_rec_marker *m = qput(s, sizeof(*m));

	m->hdr.type = KPROF_REC_MARKER;
	m->hdr.size = sizeof(*m);
	m->core = (uint16_t)track;
	m->risc = 0;
	m->kind = kind;
	m->op_seq = corr;
	m->timestamp = ts;
}

/* OP, the four markers and the counters of one kernel / memcpy / memset */
static void q_counters(struct kprof_gpu_src *s, uint32_t corr, uint32_t track, uint64_t mask,
		       const uint64_t *vals, uint32_t mmask, const double *mvals)
{
	int n = __builtin_popcountll(mask) + __builtin_popcount(mmask), k = 0;
	struct kprof_rec_counters *c = qput(s, sizeof(*c) + 8 * (size_t)n);

	c->hdr.type = KPROF_REC_COUNTERS;
	c->hdr.size = (uint16_t)(sizeof(*c) + 8 * (size_t)n);
	c->op_seq = corr;
	c->counter_mask = mask | (uint64_t)mmask << KPROF_GPU_NCOUNTERS;
	c->core = track;
	for (int i = 0; i < KPROF_GPU_NCOUNTERS; i++)
		if (mask & (1ULL << i))
			c->values[k++] = vals[i];
	/* metric values as their doubles' bits (kprof_gpucnt_to_u64) */
	for (int i = 0; i < KPROF_GPU_MAX_METRICS; i++)
		if (mmask & (1U << i))
			c->values[k++] = kprof_gpucnt_to_u64(mvals[i]);
}

static void q_op(struct kprof_gpu_src *s, uint32_t corr, uint32_t track, const char *name,
		 uint64_t start, uint64_t end, uint64_t mask, const uint64_t *vals,
		 uint32_t mmask, const double *mvals)
{
	size_t n = strlen(name), ext = n >= KPROF_NAME_LEN ? (n + 1 + 7) & ~(size_t)7 : 0;
	const struct launch *l = &s->launches[corr & (LAUNCH_RING - 1)];
	struct kprof_rec_op *op = qput(s, sizeof(*op) + ext);

	op->hdr.type = KPROF_REC_OP;
	op->hdr.size = (uint16_t)(sizeof(*op) + ext);
	op->op_seq = corr;
	/* dispatch time: the launch when seen (the lateness of the op's
	 * records is measured from there: kprof_lag.h), else its start
	 */
	op->timestamp = l->valid && l->corr == corr && l->enter <= start ? l->enter : start;
	op->first_core = track;
	op->num_cores = 1;
	memcpy(op->name, name, n < KPROF_NAME_LEN ? n : KPROF_NAME_LEN - 1);
	if (ext)
		memcpy(op + 1, name, n);
	q_marker(s, corr, track, KPROF_MARK_FW_START, start);
	q_marker(s, corr, track, KPROF_MARK_KERNEL_START, start);
	q_marker(s, corr, track, KPROF_MARK_KERNEL_END, end);
	q_marker(s, corr, track, KPROF_MARK_FW_END, end);
	q_counters(s, corr, track, mask, vals, mmask, mvals);
}

/* A fit from a spool's SYNC triples can map a time below 0 (or past u64): 0 then */
static uint64_t host_ns(const struct kprof_gpu_src *s, uint64_t t)
{
	double h;

	if (!s->fit)
		return t;
	h = kprof_tsfit_to_host(s->fit, t);
	return h > 0 && h < 18446744073709549568.0 ? (uint64_t)h : 0;
}

static void agent_rec(struct kprof_gpu_src *s, const struct kprof_grec_agent *a)
{
	struct kprof_rec_state *st;

	switch (a->event) {
	case KPROF_GAGENT_START:
		s->st.started = 1;
		s->st.pid = a->pid;
		s->st.ppid = a->ppid;
		s->st.clock = a->clock;
		s->st.host_times = a->host_times ? a->host_times : KPROF_GHOST_API;
		s->st.cupti_version = (uint32_t)a->value;
		memcpy(s->st.comm, a->comm, sizeof(a->comm));
		s->st.comm[sizeof(a->comm)] = '\0';
		break;
	case KPROF_GAGENT_STOP:
		s->st.stopped = 1;
		s->st.records_written = a->value;
		s->st.forks = a->value2;
		break;
	case KPROF_GAGENT_ERROR:
		if (a->code == KPROF_GERR_MULTIPLE_SUBSCRIBERS)
			s->st.multiple_subscribers++;
		if (s->st.nerrors < KPROF_GPU_MAX_ERRORS) {
			s->st.errors[s->st.nerrors].code = a->code;
			memcpy(s->st.errors[s->st.nerrors].text, a->text, sizeof(a->text));
			s->st.errors[s->st.nerrors].text[sizeof(a->text)] = '\0';
		}
		s->st.nerrors++;
		return;
	case KPROF_GAGENT_NO_BUFFER:
		s->st.no_buffer += a->value;
		return;
	case KPROF_GAGENT_COUNTERS:
		s->st.cnt.set_up = 1;
		s->st.cnt.replay = a->code;
		s->st.cnt.passes = a->value;
		return;
	case KPROF_GAGENT_COUNTERS_END:
		s->st.cnt.ended = 1;
		s->st.cnt.profiled = a->value;
		s->st.cnt.not_profiled = a->value2;
		s->st.cnt.bad_ranges = (uint64_t)(uint32_t)a->code;
		return;
	case KPROF_GAGENT_METRIC_REFUSED:
		if (s->st.cnt.nrefused < KPROF_GPU_MAX_METRICS)
			s->st.cnt.refused[s->st.cnt.nrefused++] =
				(struct kprof_gpu_refused){ (uint32_t)a->value, a->code };
		return;
	default:
		return;
	}
	if (s->view != KPROF_GPU_VIEW_DEVICE)
		return;
	st = qput(s, sizeof(*st));
	st->hdr.type = KPROF_REC_STATE;
	st->hdr.size = sizeof(*st);
	st->host_ns = a->host_ns;
	st->state = a->event == KPROF_GAGENT_START ? KPROF_STATE_RUNNING : KPROF_STATE_STOPPED;
	st->reason = a->event == KPROF_GAGENT_START ? KPROF_REASON_START : KPROF_REASON_STOP;
}

/* The spool is written inside the workload: nothing in it is trusted. */
static void name_rec(struct kprof_gpu_src *s, const struct kprof_grec_name *n)
{
	size_t len = n->len;
	char *t;

	if (n->kind == KPROF_GNAME_METRIC) {
		if (n->id >= KPROF_GPU_MAX_METRICS || len >= KPROF_GPUCNT_NAME_LEN ||
		    sizeof(*n) + len + 1 > n->size || n->text[len] != '\0') {
			s->st.bad_names++;
			return;
		}
		memcpy(s->metric[n->id], n->text, len + 1);
		if (n->id >= s->nmetrics)
			s->nmetrics = n->id + 1;
		return;
	}
	if (n->kind == KPROF_GNAME_API) {
		if (sizeof(*n) + len + 1 <= n->size && n->text[len] == '\0' &&
		    kprof_conv_api_event_sync(n->text) &&
		    s->nevent_sync < ARRAY_SIZE(s->event_sync))
			s->event_sync[s->nevent_sync++] = n->id;
		return;
	}
	if (n->kind != KPROF_GNAME_KERNEL)
		return;
	if (n->id >= KPROF_GNAME_SLOTS || sizeof(*n) + len + 1 > n->size ||
	    n->text[len] != '\0') {
		s->st.bad_names++;
		return;
	}
	if (len > KPROF_GNAME_MAX)	/* the agent cuts there; so does the queue */
		len = KPROF_GNAME_MAX;
	t = malloc(len + 1);
	if (!t)
		return;		/* the kernels of this slot go unnamed, counted */
	memcpy(t, n->text, len);
	t[len] = '\0';
	free(s->names[n->id]);
	s->names[n->id] = t;
}

static void device_rec(struct kprof_gpu_src *s, const struct kprof_rec_hdr *rec)
{
	switch (rec->type) {
	case KPROF_GREC_KERNEL: {
		const struct kprof_grec_kernel *k = (const void *)rec;
		const char *name = k->name_id < KPROF_GNAME_SLOTS ? s->names[k->name_id] : NULL;
		uint64_t v[KPROF_GPU_NCOUNTERS] = { 0 };
		double mv[KPROF_GPU_MAX_METRICS];
		uint32_t mmask = s->nmetrics ? kprof_gpucnt_join_kernel(&s->join, k->correlation,
									 mv) : 0;

		s->st.kernels++;
		if (kernel_queued(s, k)) {
			/* the launch's time on the host, as a launch record gives */
			s->st.queued_launches++;
			s->launches[k->correlation & (LAUNCH_RING - 1)] =
				(struct launch){ k->correlation, 1, kernel_queued(s, k) };
		}
		if (!name) {
			s->st.unnamed++;
			name = "";
		}
		v[KPROF_GPU_CNT_BLOCKS] = (uint64_t)(uint32_t)k->grid[0] * (uint32_t)k->grid[1] *
					  (uint32_t)k->grid[2];
		v[KPROF_GPU_CNT_THREADS] = (uint64_t)(uint32_t)k->block[0] *
					   (uint32_t)k->block[1] * (uint32_t)k->block[2];
		v[KPROF_GPU_CNT_REGS] = k->registers;
		v[KPROF_GPU_CNT_SMEM] = (uint64_t)k->static_smem + k->dynamic_smem;
		q_op(s, k->correlation, track_of(s, k->device, k->stream), name, k->start_ns,
		     k->end_ns, 1ULL << KPROF_GPU_CNT_BLOCKS | 1ULL << KPROF_GPU_CNT_THREADS |
		     1ULL << KPROF_GPU_CNT_REGS | 1ULL << KPROF_GPU_CNT_SMEM, v, mmask, mv);
		return;
	}
	case KPROF_GREC_METRICS: {
		const struct kprof_grec_metrics *m = (const void *)rec;
		double mv[KPROF_GPU_MAX_METRICS], in[KPROF_GPU_MAX_METRICS];
		uint32_t mmask, n = m->count;

		if (n > KPROF_GPU_MAX_METRICS || sizeof(*m) + 8 * (size_t)n > m->size) {
			s->st.cnt.bad_records++;
			return;
		}
		s->st.cnt.records++;
		s->st.cnt.cost_ns += m->cost_ns;
		memcpy(in, m + 1, 8 * (size_t)n);
		/* its kernel already went out: the values follow on their own */
		if (kprof_gpucnt_join_metrics(&s->join, m->correlation, in, n, &mmask, mv))
			q_counters(s, m->correlation, 0, 0, NULL, mmask, mv);
		return;
	}
	case KPROF_GREC_COPY: {
		const struct kprof_grec_copy *c = (const void *)rec;
		uint64_t v[KPROF_GPU_NCOUNTERS] = { [KPROF_GPU_CNT_BYTES] = c->bytes };

		if (c->kind == KPROF_GCOPY_MEMSET)
			s->st.memsets++;
		else
			s->st.memcpys++;
		q_op(s, c->correlation, track_of(s, c->device, c->stream),
		     kprof_gpu_copy_name(c->kind, c->copy_kind), c->start_ns, c->end_ns,
		     1ULL << KPROF_GPU_CNT_BYTES, v, 0, NULL);
		return;
	}
	case KPROF_GREC_API: {
		const struct kprof_grec_api *a = (const void *)rec;

		if (a->role == KPROF_GROLE_LAUNCH)
			s->launches[a->correlation & (LAUNCH_RING - 1)] =
				(struct launch){ a->correlation, 1, a->start_ns };
		return;
	}
	case KPROF_REC_SYNC: {
		struct kprof_rec_sync *y;

		/*
		 * On CLOCK_MONOTONIC nothing is mapped, and a triple is taken
		 * when CUPTI hands a buffer over, which can be a second after
		 * the buffer's records: passed on, it would make them look
		 * that late and the report hold every op of that second
		 */
		if (s->st.clock == KPROF_GCLOCK_MONOTONIC)
			return;
		/* the known part only: a longer record must not overrun the queue */
		y = qput(s, sizeof(*y));

		memcpy(y, rec, sizeof(*y));
		y->hdr.size = sizeof(*y);
		return;
	}
	default:
		return;
	}
}

static void host_rec(struct kprof_gpu_src *s, const struct kprof_grec_api *a)
{
	struct kprof_host_event *ev;

	if (a->role != KPROF_GROLE_LAUNCH && a->role != KPROF_GROLE_SYNC)
		return;
	ev = qput(s, sizeof(*ev));
	ev->type = KPROF_HREC_IOCTL;
	ev->size = sizeof(*ev);
	ev->enter_ns = host_ns(s, a->start_ns);
	ev->exit_ns = host_ns(s, a->end_ns);
	ev->pid = a->pid;
	ev->tid = a->tid;
	ev->cmd = (uint32_t)a->domain << 16 | (a->cbid & 0xffff);
	ev->role = a->role == KPROF_GROLE_LAUNCH ? KPROF_ROLE_LAUNCH : KPROF_ROLE_SYNC;
	ev->flags = 0;
	for (unsigned int i = 0; i < s->nevent_sync && ev->role == KPROF_ROLE_SYNC; i++)
		if (s->event_sync[i] == ev->cmd)
			ev->flags = KPROF_HEVF_NO_COVER;
	/* kprof's rule: ret < 0 is a failed call (no op) */
	ev->ret = a->ret ? -(int64_t)a->ret : 0;
	ev->seq = a->correlation;
	memcpy(ev->comm, s->st.comm, sizeof(ev->comm));
}

/* A kernel's queued timestamp as its launch on the host: entry = queued,
 * exit = submitted (the command buffer handed to the GPU) when known and
 * not earlier. CUPTI's kernel record names no thread: tid 0.
 */
static void host_queued(struct kprof_gpu_src *s, const struct kprof_grec_kernel *k)
{
	struct kprof_host_event *ev;
	uint64_t q = kernel_queued(s, k), sub = k->submitted_ns;

	if (!q)
		return;
	ev = qput(s, sizeof(*ev));
	ev->type = KPROF_HREC_IOCTL;
	ev->size = sizeof(*ev);
	ev->enter_ns = host_ns(s, q);
	ev->exit_ns = host_ns(s, sub >= q ? sub : q);
	ev->pid = s->st.pid;
	ev->tid = 0;
	ev->cmd = (uint32_t)KPROF_GDOMAIN_QUEUED << 16;
	ev->role = KPROF_ROLE_LAUNCH;
	ev->ret = 0;
	ev->seq = k->correlation;
	memcpy(ev->comm, s->st.comm, sizeof(ev->comm));
}

/* ---- host view from the libcuda uprobes ---- */

int kprof_gpu_use_uprobes(struct kprof_gpu_src *s, int dirfd, const char *rel,
			  const char *shown, struct kprof_err *err)
{
	if (s->view != KPROF_GPU_VIEW_HOST)
		return kprof_err_set(err, EINVAL, "uprobe calls are for the host view");
	s->ur = kprof_spool_openat(dirfd, rel, shown, err);
	if (!s->ur)
		return -(err->code ? err->code : EIO);
	if (kprof_spool_header(s->ur)->kind != KPROF_SPOOL_HOST)
		return kprof_err_set(err, EBADMSG, "%s is not a host spool", shown ? shown : rel);
	s->us.used = 1;
	return 0;
}

const struct kprof_gpu_uprobes *kprof_gpu_uprobe_stats(const struct kprof_gpu_src *s)
{
	return &s->us;
}

/*
 * The agent's records first (the process, its errors, how it ended),
 * known before any call is read, as with the other views.
 */
static int uprobe_start(struct kprof_gpu_src *s, struct kprof_err *err)
{
	const struct kprof_rec_hdr *r;
	int ret;

	while ((ret = kprof_spool_next(s->r, &r, err)) == KPROF_REC_OK)
		if (r->type == KPROF_GREC_AGENT)
			agent_rec(s, (const void *)r);
	if (ret != KPROF_REC_END)
		return -(err->code ? err->code : EBADMSG);
	return kprof_spool_rewind(s->r, err);
}

/* The next kernel of the process (correlation id, GPU start on the host
 * clock) into the join, or the end of them.
 */
static int uprobe_kernel(struct kprof_gpu_src *s, struct kprof_err *err)
{
	const struct kprof_rec_hdr *r;
	int ret;

	while ((ret = kprof_spool_next(s->r, &r, err)) == KPROF_REC_OK) {
		const struct kprof_grec_kernel *k = (const void *)r;

		if (r->type != KPROF_GREC_KERNEL)
			continue;
		return kprof_cj_push_kernel(s->cj, &(struct kprof_cj_kernel){
			k->correlation, host_ns(s, k->start_ns) });
	}
	if (ret != KPROF_REC_END)
		return -(err->code ? err->code : EBADMSG);
	kprof_cj_kernels_end(s->cj);
	return kprof_spool_rewind(s->r, err);
}

/* The next call of the process from the uprobe spool into the join (the
 * capture's counters on the way), or the end of them.
 */
static int uprobe_call(struct kprof_gpu_src *s, struct kprof_err *err)
{
	const struct kprof_rec_hdr *r;
	int ret;

	while ((ret = kprof_spool_next(s->ur, &r, err)) == KPROF_REC_OK) {
		const struct kprof_cuda_event *e = (const void *)r;
		int role;

		if (r->type == KPROF_HREC_CUDA_STATS) {
			memcpy(&s->us.bpf, r, sizeof(s->us.bpf));
			s->us.have_bpf_stats = 1;
			continue;
		}
		if (r->type != KPROF_HREC_CUDA)
			continue;
		if (e->pid != s->st.pid) {
			s->us.other_pids++;
			continue;
		}
		s->us.calls++;
		role = kprof_cuda_fn_role(e->fn);
		if (role == 1)
			s->us.launches++;
		else if (role == 2)
			s->us.syncs++;
		if (role == 1 && e->ret)
			s->us.failed_launches++;
		if (!role)
			continue;
		return kprof_cj_push_call(s->cj, &(struct kprof_cj_call){
			.enter_ns = e->enter_ns, .exit_ns = e->exit_ns, .tid = e->tid,
			.user = (uint64_t)e->fn << 32 | (uint32_t)e->ret,
			.flags = role == 1 && !e->ret ? 0 : KPROF_CJ_OTHER });
	}
	if (ret != KPROF_REC_END)
		return -(err->code ? err->code : EBADMSG);
	kprof_cj_calls_end(s->cj);
	return 0;
}

/*
 * The join (kprof_cudajoin.h), streamed: one host event per call, by
 * entry: a launch with the correlation id it was joined to (a failed one
 * with its error and no op; an unjoined one is left out, counted), a sync
 * with seq 0 (it covers the ops launched before it entered).
 */
static int uprobe_next(struct kprof_gpu_src *s, const struct kprof_rec_hdr **rec,
		       struct kprof_err *err)
{
	struct kprof_host_event *h = &s->uev;
	struct kprof_cj_call c;
	int ret = 0;

	if (!s->cj) {
		s->cj = kprof_cj_new(0);
		if (!s->cj) {
			kprof_err_set(err, ENOMEM, "out of memory joining the uprobe calls");
			return KPROF_REC_BAD;
		}
		if (uprobe_start(s, err))
			return KPROF_REC_BAD;
	}
	for (;;) {
		switch (kprof_cj_next(s->cj, &c)) {
		case KPROF_CJ_NEED_CALL:
			ret = uprobe_call(s, err);
			break;
		case KPROF_CJ_NEED_KERNEL:
			ret = uprobe_kernel(s, err);
			break;
		case KPROF_CJ_END:
			s->us.join = *kprof_cj_stats(s->cj);
			return KPROF_REC_END;
		default:
			if (!(c.flags & KPROF_CJ_OTHER) && !c.corr)
				continue;
			memset(h, 0, sizeof(*h));
			h->type = KPROF_HREC_IOCTL;
			h->size = sizeof(*h);
			h->enter_ns = c.enter_ns;
			h->exit_ns = c.exit_ns;
			h->pid = s->st.pid;
			h->tid = c.tid;
			h->cmd = (uint32_t)KPROF_GDOMAIN_UPROBE << 16 |
				 (uint32_t)(c.user >> 32 & 0xffff);
			h->role = kprof_cuda_fn_role((uint32_t)(c.user >> 32)) == 1 ?
				  KPROF_ROLE_LAUNCH : KPROF_ROLE_SYNC;
			if ((uint32_t)(c.user >> 32) == KPROF_CUDA_EVENT_SYNC)
				h->flags = KPROF_HEVF_NO_COVER;
			/* kprof's rule: ret < 0 is a failed call (no op) */
			h->ret = (uint32_t)c.user ? -(int64_t)(uint32_t)c.user : 0;
			h->seq = c.corr;
			memcpy(h->comm, s->st.comm, sizeof(h->comm));
			*rec = (const void *)h;
			return KPROF_REC_OK;
		}
		if (ret) {
			if (ret == -ENOBUFS)
				kprof_err_set(err, EPROTO, "the uprobe join was fed out of turn");
			s->us.join = *kprof_cj_stats(s->cj);
			return KPROF_REC_BAD;
		}
	}
}

int kprof_gpu_next(struct kprof_gpu_src *s, const struct kprof_rec_hdr **rec,
		   struct kprof_err *err)
{
	if (s->ur)
		return uprobe_next(s, rec, err);
	for (;;) {
		const struct kprof_rec_hdr *r;
		int ret;

		if (s->qoff < s->qlen) {
			*rec = (const void *)((uint8_t *)s->q + s->qoff);
			s->qoff += (*rec)->size;
			return KPROF_REC_OK;
		}
		s->qlen = 0;
		s->qoff = 0;
		ret = kprof_spool_next(s->r, &r, err);
		if (ret == KPROF_REC_END && s->join.slot && !s->join_ended) {
			/* values no kernel came for */
			kprof_gpucnt_join_end(&s->join);
			s->join_ended = 1;
		}
		if (ret != KPROF_REC_OK)
			return ret;
		switch (r->type) {
		case KPROF_GREC_AGENT:
			agent_rec(s, (const void *)r);
			break;
		case KPROF_GREC_NAME:
			name_rec(s, (const void *)r);
			break;
		case KPROF_GREC_DROPPED:
			s->st.dropped +=
				((const struct kprof_grec_dropped *)(const void *)r)->count;
			break;
		case KPROF_GREC_DEVICE:
			break;	/* for routing (kprof_gpu_route.h), not the report */
		case KPROF_GREC_API: {
			const struct kprof_grec_api *a = (const void *)r;

			if (a->role == KPROF_GROLE_LAUNCH)
				s->st.api_launches++;
			else if (a->role == KPROF_GROLE_SYNC)
				s->st.api_syncs++;
			if (s->view == KPROF_GPU_VIEW_HOST)
				host_rec(s, a);
			else
				device_rec(s, r);
			break;
		}
		case KPROF_GREC_KERNEL:
			if (s->view == KPROF_GPU_VIEW_DEVICE)
				device_rec(s, r);
			else
				host_queued(s, (const void *)r);
			break;
		default:
			if (s->view == KPROF_GPU_VIEW_DEVICE)
				device_rec(s, r);
			break;
		}
	}
}

void kprof_gpu_device_info(uint32_t index, struct kprof_device_info *d,
			   struct kprof_counter_info *c)
{
	static const char *const cnt[KPROF_GPU_NCOUNTERS][2] = {
		[KPROF_GPU_CNT_BYTES] = { "bytes", "bytes" },
		[KPROF_GPU_CNT_BLOCKS] = { "blocks", "blocks" },
		[KPROF_GPU_CNT_THREADS] = { "threads_per_block", "threads" },
		[KPROF_GPU_CNT_REGS] = { "registers_per_thread", "registers" },
		[KPROF_GPU_CNT_SMEM] = { "shared_mem_per_block", "bytes" },
	};

	memset(d, 0, sizeof(*d));
	d->size = sizeof(*d);
	d->version = KPROF_UAPI_VERSION;
	d->device_id = index;
	d->num_counters = KPROF_GPU_NCOUNTERS;
	d->ref_clock_hz = 1000000000ULL;	/* timestamps are ns */
	snprintf(d->backend, sizeof(d->backend), "%s", KPROF_GPU_BACKEND);
	snprintf(d->name, sizeof(d->name), "nvidia:%u", index);
	memset(c, 0, sizeof(*c));
	c->size = sizeof(*c);
	c->num_counters = KPROF_GPU_NCOUNTERS;
	for (int i = 0; i < KPROF_GPU_NCOUNTERS; i++) {
		snprintf(c->desc[i].name, sizeof(c->desc[i].name), "%s", cnt[i][0]);
		snprintf(c->desc[i].unit, sizeof(c->desc[i].unit), "%s", cnt[i][1]);
	}
}

static int cmp_spool(const void *a, const void *b)
{
	const struct kprof_gpu_spool *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

int kprof_gpu_list(int capfd, const char *capture_dir, struct kprof_gpu_spool *out, int max,
		   struct kprof_err *err)
{
	struct dirent *e;
	int n = 0, fd;
	DIR *d;

	fd = openat(capfd, KPROF_SPOOL_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		int e2 = errno;

		if (fd >= 0)
			close(fd);
		return kprof_err_set(err, e2, "cannot read %s/%s: %s", capture_dir,
				     KPROF_SPOOL_DIR, strerror(e2));
	}
	while ((e = readdir(d))) {
		unsigned int pid;
		char tail[16];
		struct stat sb;

		if (sscanf(e->d_name, KPROF_SPOOL_GPU_PREFIX "%u%15s", &pid, tail) != 2 ||
		    strcmp(tail, KPROF_SPOOL_GPU_SUFFIX))
			continue;
		/* the spool is written inside the workload: no links */
		if (fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISREG(sb.st_mode))
			continue;
		if (n < max)
			out[n] = (struct kprof_gpu_spool){ pid, (uint64_t)sb.st_size };
		n++;
	}
	closedir(d);
	qsort(out, (size_t)(n < max ? n : max), sizeof(*out), cmp_spool);
	return n;
}

int kprof_gpu_pick(const struct kprof_gpu_spool *sp, int n)
{
	int best = -1;

	for (int i = 0; i < n; i++)
		if (best < 0 || sp[i].bytes > sp[best].bytes)
			best = i;	/* sorted by pid: the first of equals stays */
	return best;
}

uint32_t kprof_gpu_nmetrics(const struct kprof_gpu_src *s)
{
	return s->nmetrics;
}

const char *kprof_gpu_metric_name(const struct kprof_gpu_src *s, uint32_t i)
{
	return i < s->nmetrics && s->metric[i][0] ? s->metric[i] : NULL;
}

const struct kprof_gpucnt_join *kprof_gpu_metric_join(const struct kprof_gpu_src *s)
{
	return &s->join;
}
