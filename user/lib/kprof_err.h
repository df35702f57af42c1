/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Error reports from libkprof: an errno-style code plus a message a user
 * can act on (what happened, where: file, line or byte offset).
 */
#ifndef KPROF_ERR_H
#define KPROF_ERR_H

#include <stdarg.h>

struct kprof_err {
	int code;		/* positive errno value; 0 = no error */
	char msg[512];
};

/* Sets err (if non-NULL) and returns -code, so callers can `return kprof_err_set(...)`. */
int kprof_err_set(struct kprof_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void kprof_err_clear(struct kprof_err *err);
/* Prepends "prefix: " to the message (e.g. a file name). */
void kprof_err_prefix(struct kprof_err *err, const char *prefix);

#endif /* KPROF_ERR_H */
