// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Host perf counters for kprofctl capture, via libpfm4 names. */
#include "capture_perf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <perfmon/pfmlib_perf_event.h>

#define FALLBACK_EVENT	"perf::task-clock"

/* The sysctl that decides what an unprivileged user may count. */
static const char *paranoid(void)
{
	static char buf[16];
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");

	snprintf(buf, sizeof(buf), "?");
	if (f) {
		if (fgets(buf, sizeof(buf), f))
			buf[strcspn(buf, "\n")] = '\0';
		fclose(f);
	}
	return buf;
}

static int perf_open(struct perf_event_attr *attr, pid_t pid)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, -1, -1,
			    PERF_FLAG_FD_CLOEXEC);
}

static void note(struct capture_perf *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Append one "; "-separated note for the user. */
static void note(struct capture_perf *p, const char *fmt, ...)
{
	size_t used = strlen(p->notes);
	va_list ap;

	if (used >= sizeof(p->notes) - 2)
		return;
	if (used) {
		p->notes[used++] = ';';
		p->notes[used++] = ' ';
		p->notes[used] = '\0';
	}
	va_start(ap, fmt);
	vsnprintf(p->notes + used, sizeof(p->notes) - used, fmt, ap);
	va_end(ap);
}

/* Encode one libpfm4 name; 0, or a PFM_ERR_* code. */
static int encode(const char *name, struct perf_event_attr *attr, char *fq,
		  size_t fq_len)
{
	pfm_perf_encode_arg_t arg;
	char *fstr = NULL;
	int r;

	memset(attr, 0, sizeof(*attr));
	memset(&arg, 0, sizeof(arg));
	arg.attr = attr;
	arg.fstr = &fstr;
	arg.size = sizeof(arg);
	r = pfm_get_os_event_encoding(name, PFM_PLM0 | PFM_PLM3,
				      PFM_OS_PERF_EVENT, &arg);
	if (r == PFM_SUCCESS)
		snprintf(fq, fq_len, "%s", fstr ? fstr : name);
	free(fstr);
	return r;
}

/* Open attr for pid; retries user-only when kernel counting is refused. */
static int open_attr(struct perf_event_attr *attr, pid_t pid, int *user_only)
{
	int fd;

	attr->size = sizeof(*attr);
	attr->disabled = 1;
	attr->enable_on_exec = 1;
	attr->inherit = 1;
	attr->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			    PERF_FORMAT_TOTAL_TIME_RUNNING;
	*user_only = 0;
	fd = perf_open(attr, pid);
	if (fd < 0 && (errno == EACCES || errno == EPERM) &&
	    !attr->exclude_kernel) {
		attr->exclude_kernel = 1;
		attr->exclude_hv = 1;
		*user_only = 1;
		fd = perf_open(attr, pid);
	}
	return fd < 0 ? -errno : fd;
}

static int add_event(struct capture_perf *p, const char *name, int fallback,
		     struct perf_event_attr *attr, const char *fq, pid_t pid)
{
	struct capture_perf_event *e;
	int user_only, fd;

	fd = open_attr(attr, pid, &user_only);
	if (fd < 0)
		return fd;
	e = &p->ev[p->n++];
	memset(e, 0, sizeof(*e));
	snprintf(e->name, sizeof(e->name), "%s", name);
	snprintf(e->fqname, sizeof(e->fqname), "%s", fq);
	e->fd = fd;
	e->fallback = fallback;
	e->user_only = user_only;
	if (user_only)
		note(p, "%s counts user mode only (perf_event_paranoid refuses kernel counting)",
		     name);
	return 0;
}

static int have_event(const struct capture_perf *p, const char *name)
{
	unsigned int i;

	for (i = 0; i < p->n; i++)
		if (!strcmp(p->ev[i].name, name))
			return 1;
	return 0;
}

int capture_perf_open(struct capture_perf *p, const char *events, pid_t pid,
		      char *msg, size_t msg_len)
{
	char *list, *tok, *save;
	int r, rc = 0;

	memset(p, 0, sizeof(*p));
	if (!events || !*events || !strcmp(events, "none"))
		return 0;
	r = pfm_initialize();
	if (r != PFM_SUCCESS) {
		note(p, "libpfm4 did not initialise (%s): no host counters",
		     pfm_strerror(r));
		return 0;
	}
	list = strdup(events);
	if (!list) {
		snprintf(msg, msg_len, "out of memory");
		return -1;
	}
	for (tok = strtok_r(list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		struct perf_event_attr attr;
		char fq[256];

		if (p->n >= CAPTURE_PERF_MAX) {
			note(p, "more than %d events: %s and later ones skipped",
			     CAPTURE_PERF_MAX, tok);
			break;
		}
		r = encode(tok, &attr, fq, sizeof(fq));
		if (r != PFM_SUCCESS) {
			snprintf(msg, msg_len,
				 "host event '%s': %s (libpfm4 names, e.g. cycles, instructions, perf::task-clock; see showevtinfo)",
				 tok, pfm_strerror(r));
			rc = -1;
			break;
		}
		r = add_event(p, tok, 0, &attr, fq, pid);
		if (!r)
			continue;
		/*
		 * No hardware PMU (VMs, some containers): count a software
		 * clock instead, once, and say so rather than report nothing.
		 */
		if (r == -ENOENT || r == -EOPNOTSUPP || r == -ENODEV ||
		    r == -EINVAL) {
			if (have_event(p, FALLBACK_EVENT)) {
				note(p, "%s: not countable here (no hardware PMU); skipped",
				     tok);
				continue;
			}
			if (encode(FALLBACK_EVENT, &attr, fq, sizeof(fq)) ==
				    PFM_SUCCESS &&
			    !add_event(p, FALLBACK_EVENT, 1, &attr, fq, pid)) {
				note(p, "%s: not countable here (no hardware PMU); counting "
				     FALLBACK_EVENT " instead", tok);
				continue;
			}
		}
		if (r == -EACCES || r == -EPERM)
			note(p,
			     "%s: not permitted (kernel.perf_event_paranoid=%s; root or CAP_PERFMON counts it); skipped",
			     tok, paranoid());
		else
			note(p, "%s: perf_event_open failed (%s); skipped", tok,
			     strerror(-r));
	}
	free(list);
	if (rc)
		capture_perf_close(p);
	return rc;
}

int capture_perf_check(const char *events, char *msg, size_t msg_len)
{
	struct perf_event_attr attr;
	char *list, *tok, *save, fq[256];
	int r, rc = 0;

	if (!events || !*events || !strcmp(events, "none"))
		return 0;
	if (pfm_initialize() != PFM_SUCCESS)
		return 0;	/* said again, as a note, when opening */
	list = strdup(events);
	if (!list) {
		snprintf(msg, msg_len, "out of memory");
		return -1;
	}
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		r = encode(tok, &attr, fq, sizeof(fq));
		if (r != PFM_SUCCESS) {
			snprintf(msg, msg_len,
				 "host event '%s': %s (libpfm4 names, e.g. cycles, instructions, perf::task-clock; see showevtinfo)",
				 tok, pfm_strerror(r));
			rc = -1;
			break;
		}
	}
	free(list);
	return rc;
}

void capture_perf_read(struct capture_perf *p)
{
	unsigned int i;

	for (i = 0; i < p->n; i++) {
		struct capture_perf_event *e = &p->ev[i];
		uint64_t v[3];

		if (e->fd < 0 || read(e->fd, v, sizeof(v)) != sizeof(v))
			continue;
		e->enabled_ns = v[1];
		e->running_ns = v[2];
		/* Multiplexed counters: scale to the time enabled. */
		if (v[2] && v[2] < v[1])
			e->value = (uint64_t)((double)v[0] * v[1] / v[2]);
		else
			e->value = v[0];
	}
}

void capture_perf_close(struct capture_perf *p)
{
	unsigned int i;

	for (i = 0; i < p->n; i++)
		if (p->ev[i].fd >= 0)
			close(p->ev[i].fd);
	p->n = 0;
}
