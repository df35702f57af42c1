// SPDX-License-Identifier: GPL-2.0
/* Several devices' trace.json into one (kprof_trace_merge.h). */
#include "kprof_trace_merge.h"
#include "kprof_trace.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Where an event line's top-level "pid" and "id" numbers are. */
struct ev_scan {
	size_t pid_at, pid_end;		/* pid_end 0: none */
	size_t id_at, id_end;
	uint64_t pid, id;
	int pname;			/* a process_name metadata event */
};

static int key_is(const char *s, size_t len, const char *key)
{
	return strlen(key) == len && !memcmp(s, key, len);
}

/* An unsigned decimal at s[i..]: its end (i: none). */
static size_t number(const char *s, size_t len, size_t i, uint64_t *v)
{
	size_t j = i;

	*v = 0;
	while (j < len && s[j] >= '0' && s[j] <= '9' && *v <= (UINT64_MAX - 9) / 10)
		*v = *v * 10 + (uint64_t)(s[j++] - '0');
	return j < len && s[j] >= '0' && s[j] <= '9' ? i : j;
}

/*
 * One JSON object s[0..len): strings skipped with their escapes, the
 * keys of its top level looked at. 0, or -1 when it is not one object.
 */
static int scan_event(const char *s, size_t len, struct ev_scan *e)
{
	size_t i = 0;
	int depth = 0;

	memset(e, 0, sizeof(*e));
	if (!len || s[0] != '{')
		return -1;
	while (i < len) {
		size_t ks, ke, j;

		if (s[i] == '{' || s[i] == '[') {
			depth++;
		} else if (s[i] == '}' || s[i] == ']') {
			if (--depth == 0 && i + 1 != len)
				return -1;
		}
		if (s[i] != '"') {
			i++;
			continue;
		}
		ks = ++i;
		while (i < len && s[i] != '"')
			i += s[i] == '\\' ? 2 : 1;
		if (i >= len)
			return -1;
		ke = i++;
		if (depth != 1 || i >= len || s[i] != ':')
			continue;
		j = i + 1;
		if (key_is(s + ks, ke - ks, "pid")) {
			e->pid_at = j;
			e->pid_end = number(s, len, j, &e->pid);
			if (e->pid_end == j)
				return -1;
			i = e->pid_end;
		} else if (key_is(s + ks, ke - ks, "id")) {
			e->id_at = j;
			e->id_end = number(s, len, j, &e->id);
			if (e->id_end == j)
				e->id_end = 0;	/* not a number: kept as it is */
			i = j;
		} else if (key_is(s + ks, ke - ks, "name")) {
			e->pname |= len - j >= 14 && !memcmp(s + j, "\"process_name\"", 14);
			i = j;
		}
	}
	return depth ? -1 : 0;
}

static void sep(struct kprof_trace_merge *m)
{
	fputs(m->first ? "\n" : ",\n", m->out);
	m->first = 0;
}

static void meta(struct kprof_trace_merge *m, uint64_t pid, const char *what,
		 const char *key, const char *val, uint64_t num)
{
	sep(m);
	fprintf(m->out, "{\"ph\":\"M\",\"pid\":%" PRIu64, pid);
	fprintf(m->out, ",\"tid\":0,\"name\":\"%s\",\"args\":{\"%s\":", what, key);
	if (val) {
		putc('"', m->out);
		for (; *val; val++) {
			if (*val == '"' || *val == '\\')
				putc('\\', m->out);
			if ((unsigned char)*val >= 0x20)
				putc(*val, m->out);
		}
		putc('"', m->out);
	} else {
		fprintf(m->out, "%" PRIu64, num);
	}
	fputs("}}", m->out);
}

void kprof_trace_merge_begin(struct kprof_trace_merge *m, FILE *out, unsigned int n)
{
	m->out = out;
	m->n = n ? n : 1;
	m->first = 1;
	fprintf(out, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"devices\":%u},\"traceEvents\":[",
		m->n);
}

/* The event line s[0..len) of device k, renumbered, to the output. */
static void put_event(struct kprof_trace_merge *m, const char *s, size_t len,
		      const struct ev_scan *e, unsigned int k)
{
	struct rep { size_t at, end; uint64_t v; } r[2], t;
	size_t at = 0;
	int nr = 0;

	r[nr++] = (struct rep){ e->pid_at, e->pid_end, e->pid + 2ULL * k };
	/* ids past 2^64 / n stay as they are (no op sequence gets there) */
	if (e->id_end) {
		uint64_t id = e->id <= (UINT64_MAX - k) / m->n ? e->id * m->n + k : e->id;

		r[nr++] = (struct rep){ e->id_at, e->id_end, id };
	}
	if (nr == 2 && r[1].at < r[0].at) {
		t = r[0];
		r[0] = r[1];
		r[1] = t;
	}
	sep(m);
	for (int i = 0; i < nr; i++) {
		fwrite(s + at, 1, r[i].at - at, m->out);
		fprintf(m->out, "%" PRIu64, r[i].v);
		at = r[i].end;
	}
	fwrite(s + at, 1, len - at, m->out);
}

int kprof_trace_merge_add(struct kprof_trace_merge *m, FILE *in, const char *path,
			  unsigned int k, const char *name, struct kprof_err *err)
{
	uint64_t pdev = KPROF_TRACE_PID_DEVICE + 2ULL * k;
	uint64_t phost = KPROF_TRACE_PID_HOST + 2ULL * k;
	char *line = NULL, label[128];
	size_t cap = 0, lineno = 0;
	ssize_t got;
	int ret = 0, body = 0;

	/* devices in order, each one's host ioctls right below it */
	meta(m, pdev, "process_sort_index", "sort_index", NULL, pdev);
	meta(m, phost, "process_sort_index", "sort_index", NULL, phost);
	while ((got = getline(&line, &cap, in)) > 0) {
		size_t len = (size_t)got;
		const char *s = line;
		struct ev_scan e;

		lineno++;
		while (len && (s[len - 1] == '\n' || s[len - 1] == ',' || s[len - 1] == ' '))
			len--;
		while (len && (*s == ',' || *s == ' ')) {
			s++;
			len--;
		}
		if (!body) {
			/* the header: {..."traceEvents":[ */
			body = len && s[len - 1] == '[';
			if (!body)
				break;
			continue;
		}
		if (!len)
			continue;
		if (len == 2 && !memcmp(s, "]}", 2)) {
			body = 2;
			break;
		}
		if (scan_event(s, len, &e) || !e.pid_end ||
		    (e.pid != KPROF_TRACE_PID_DEVICE && e.pid != KPROF_TRACE_PID_HOST)) {
			ret = kprof_err_set(err, EPROTO,
					    "%s:%zu: not an event of kprof's trace.json (pid 1 or 2)",
					    path, lineno);
			break;
		}
		if (e.pname && e.pid == KPROF_TRACE_PID_HOST) {
			snprintf(label, sizeof(label), "host (device %s)", name);
			meta(m, phost, "process_name", "name", label, 0);
			continue;
		}
		put_event(m, s, len, &e, k);
	}
	if (!ret && ferror(in))
		ret = kprof_err_set(err, EIO, "%s: read error", path);
	else if (!ret && body != 2)
		ret = kprof_err_set(err, EPROTO, "%s:%zu: not kprof's trace.json (%s)", path,
				    lineno, body ? "no closing ]}" : "no traceEvents header");
	free(line);
	return ret;
}

void kprof_trace_merge_end(struct kprof_trace_merge *m)
{
	fputs("\n]}\n", m->out);
}
