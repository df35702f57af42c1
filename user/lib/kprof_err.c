// SPDX-License-Identifier: GPL-2.0
#include "kprof_err.h"

#include <stdio.h>
#include <string.h>

int kprof_err_set(struct kprof_err *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (code <= 0)
		code = code < 0 ? -code : 22 /* EINVAL */;
	if (err) {
		err->code = code;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return -code;
}

void kprof_err_clear(struct kprof_err *err)
{
	if (err) {
		err->code = 0;
		err->msg[0] = '\0';
	}
}

void kprof_err_prefix(struct kprof_err *err, const char *prefix)
{
	size_t pl, ml, room;

	if (!err)
		return;
	pl = strlen(prefix);
	ml = strlen(err->msg);
	if (pl + 2 >= sizeof(err->msg))
		return;
	room = sizeof(err->msg) - 1 - pl - 2;
	if (ml > room)
		ml = room;
	memmove(err->msg + pl + 2, err->msg, ml);
	memcpy(err->msg, prefix, pl);
	memcpy(err->msg + pl, ": ", 2);
	err->msg[pl + 2 + ml] = '\0';
}
