// SPDX-License-Identifier: GPL-2.0
/*
 * What both report inputs write alike (kprof_report_out.h).
 */
#include "kprof_report_out.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "kprof_html.h"
#include "kprof_text.h"
#include "kprof_trace.h"

int kprof_report_grow(void *arr, size_t *cap, size_t n, size_t elem, size_t init,
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

void kprof_report_summary_ops(FILE *f, struct kprof_out *o)
{
	char name[KPROF_NAME_LEN];

	fprintf(f, "ops: %" PRIu64 " (%" PRIu64 " with FW markers)\n", o->nops,
		o->ops_with_fw);
	if (o->op_filter) {
		fputs("op filter '", f);
		kprof_text_put(f, o->op_filter);
		fprintf(f, "': %" PRIu64 " ops left out\n", o->ops_filtered);
	}
	fprintf(f, "device FW time, sum over ops: %.0f ns%s\n", o->fw_sum_ns, "");
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
			o->top[i].op_code[0] ?
			kprof_text_safe(name, sizeof(name), o->top[i].op_code) :
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

json_object *kprof_report_config_json(const char *text)
{
	json_object *o;

	if (!text)
		return NULL;
	o = json_tokener_parse(text);
	return o;
}

json_object *kprof_report_stats_json(const struct kprof_agg_stats *as,
				     const struct kprof_out *o)
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
	ADD("device_records_lost_first_op",
	    as->device_records_lost ? as->device_records_lost_first : 0);
	ADD("device_records_lost_last_op",
	    as->device_records_lost ? as->device_records_lost_last : 0);
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

/* text as the whole file od/name, synced (small files a later report needs) */
int kprof_report_write_text(struct kprof_outdir *od, const char *name, const char *text,
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

int kprof_report_write_params(struct kprof_outdir *od, json_object *root,
			      struct kprof_err *err)
{
	/* json-c leaves no trailing newline: add one for text tools */
	return kprof_report_write_text(od, "params.json", json_object_to_json_string_ext(root,
			  JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
			  JSON_C_TO_STRING_NOSLASHESCAPE), "\n", err);
}

int kprof_report_close_streams(struct kprof_out *out, struct kprof_err *err)
{
	int ret = kprof_trace_close(out->trace, err);

	out->trace = NULL;
	return ret ? ret : kprof_out_close(out, err);
}

int kprof_report_finish(struct kprof_outdir *od, struct kprof_err *err)
{
	int ret = kprof_html_write(od, err);

	return ret ? ret : kprof_outdir_prune(od, err);
}

void kprof_report_out_free(struct kprof_out *out)
{
	kprof_trace_free(out->trace);
	out->trace = NULL;
	kprof_out_discard(out);
	free(out->top);
	free(out->codes);
	kprof_hidx_free(&out->code_idx);
	out->top = NULL;
	out->codes = NULL;
}
