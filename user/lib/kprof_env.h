/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The one way libkprof and kprofctl read KPROF_* environment variables.
 *
 * They redirect where kprof reads and writes (run directory, sysfs, /dev,
 * peaks, driver profiles), so a process with privileges must not take
 * them from whoever set its environment (`sudo -E`, a set-id or file
 * capability binary). They are honoured only when the process is not
 * AT_SECURE and either its effective uid is not 0 or the caller opted in
 * with kprof_env_trust(1) (kprofctl's global --trust-env). The decision
 * is taken once, on the first call, so that dropping privileges later
 * (kprofctl report) does not change it. docs/security.md.
 */
#ifndef KPROF_ENV_H
#define KPROF_ENV_H

/* Opt in (1) before the first kprof_env() call; never under AT_SECURE. */
void kprof_env_trust(int trust);

/* 1 when KPROF_* variables are honoured. */
int kprof_env_trusted(void);

/*
 * getenv(name) for a KPROF_* name when honoured and non-empty, else NULL.
 * A variable that is set but ignored gets one warning on stderr (per
 * name), so that a user sees why it had no effect.
 */
const char *kprof_env(const char *name);

/* kprof_env(name), or dflt when it gives NULL. */
const char *kprof_env_or(const char *name, const char *dflt);

#endif /* KPROF_ENV_H */
