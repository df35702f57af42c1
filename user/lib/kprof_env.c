// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* KPROF_* environment variables, honoured only where it is safe (kprof_env.h). */
#include "kprof_env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

static int trusted = -1;	/* -1: not decided yet */

/* Names already warned about; a handful of fixed literals at most. */
#define WARNED_MAX	16
static const char *warned[WARNED_MAX];

static int decide(int opt_in)
{
	if (getauxval(AT_SECURE))
		return 0;	/* set-id or file capabilities: never */
	return geteuid() != 0 || opt_in;
}

void kprof_env_trust(int trust)
{
	trusted = decide(trust);
}

int kprof_env_trusted(void)
{
	if (trusted < 0)
		trusted = decide(0);
	return trusted;
}

static void warn_ignored(const char *name)
{
	size_t i;

	for (i = 0; i < WARNED_MAX && warned[i]; i++)
		if (!strcmp(warned[i], name))
			return;
	if (i < WARNED_MAX)
		warned[i] = name;
	fprintf(stderr, "kprofctl: warning: %s is ignored: %s; %s\n", name,
		getauxval(AT_SECURE) ? "this process runs set-id or with file capabilities"
				     : "running as root",
		getauxval(AT_SECURE) ? "KPROF_* variables are never honoured then" :
		"`kprofctl --trust-env COMMAND` honours KPROF_* variables (docs/security.md)");
}

const char *kprof_env(const char *name)
{
	const char *v = getenv(name);

	if (!v || !*v)
		return NULL;
	if (!kprof_env_trusted()) {
		warn_ignored(name);
		return NULL;
	}
	return v;
}

const char *kprof_env_or(const char *name, const char *dflt)
{
	const char *v = kprof_env(name);

	return v ? v : dflt;
}
