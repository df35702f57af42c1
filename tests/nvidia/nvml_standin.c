// SPDX-License-Identifier: GPL-2.0
/*
 * A stand-in libnvidia-ml.so.1 for the tests on machines without a GPU
 * (built by make into $(BUILD)/tests/nvidia/; tests/unit/nvidia_cli.sh
 * puts it on LD_LIBRARY_PATH, so kprofctl's dlopen finds it). It plays
 * back what the real NVML returned on a GPU host, recorded by
 * nvml_record.c into a playback file ($KPROF_NVML_STANDIN_DATA), and
 * appends every set/reset call it receives to $KPROF_NVML_STANDIN_LOG,
 * which is also where it keeps the GPU's lock state from one process to
 * the next (the log is replayed at nvmlInit_v2), as the driver would.
 *
 * Under a lock the SM clock reads as recorded under the probe lock, moved
 * to the locked clock when the recording shows that the GPU held the
 * probe clock; a locked memory clock reads as locked.
 * $KPROF_NVML_STANDIN_RC="fn=rc ..." makes a set/reset function return rc
 * instead of the recorded code (a call kprof makes as a non-root user, a
 * GPU that refuses a memory lock...). A call whose
 * arguments were never recorded returns NVML_ERROR_UNKNOWN and leaves an
 * "UNRECORDED" line in the log, so that a test sees it.
 *
 * $KPROF_NVML_STANDIN_GPUS=N (2..8) presents N GPUs from a recording of
 * one: GPU i answers as the recorded GPU 0, but for its index and its UUID
 * (the recorded one, the last byte made i): a stand-in for a host of
 * several GPUs (tests/unit/nvidia_multi.sh), not a recording of one.
 *
 * The declarations are kprof's (kprof_nvml_api.h), checked against
 * NVIDIA's by nvml_decl_check.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kprof_nvml_api.h"

#define MAXDEV	8
#define MAXLINES 512

struct kprof_nvmlDevice_st {
	unsigned int idx;
};

static struct {
	int loaded;
	char *key[MAXLINES];		/* "CALL ARGS" (with a "locked:"... prefix) */
	char *val[MAXLINES];		/* "RC [VALUES]" */
	int n;
	struct kprof_nvmlDevice_st devs[MAXDEV];
	unsigned int sm_locked[MAXDEV];	/* 0 = not locked */
	unsigned int mem_locked[MAXDEV];
} S;

/* Our own declarations of the symbols we define. */
#define DECLARE(sym, ret, args) ret sym args __attribute__((visibility("default")));
KPROF_NVML_FUNCS(DECLARE)

static const char *const tnames[] = { "GRAPHICS", "SM", "MEM", "VIDEO" };

static char *trim(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = '\0';
	return s;
}

static void log_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void log_line(const char *fmt, ...)
{
	const char *path = getenv("KPROF_NVML_STANDIN_LOG");
	va_list ap;
	FILE *f = NULL;

	if (path)
		f = fopen(path, "a");
	if (!path || !f)
		return;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	fclose(f);
}

/* The recorded "RC [VALUES]" for a key, or NULL. */
static const char *find(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static const char *find(const char *fmt, ...)
{
	char key[256];
	va_list ap;
	int i;

	va_start(ap, fmt);
	vsnprintf(key, sizeof(key), fmt, ap);
	va_end(ap);
	for (i = 0; i < S.n; i++)
		if (!strcmp(S.key[i], key))
			return S.val[i];
	log_line("UNRECORDED %s", key);
	return NULL;
}

/* rc of a recorded value; *rest points past it. */
static kprof_nvmlReturn_t rc_of(const char *v, const char **rest)
{
	char *end;
	long rc;

	if (!v)
		return KPROF_NVML_ERROR_UNKNOWN;
	rc = strtol(v, &end, 10);
	if (rest)
		*rest = *end == ' ' ? end + 1 : end;
	return (kprof_nvmlReturn_t)rc;
}

/* The override of $KPROF_NVML_STANDIN_RC for fn, or -1. */
static int override(const char *fn)
{
	const char *o = getenv("KPROF_NVML_STANDIN_RC"), *p;
	size_t n = strlen(fn);

	for (p = o; p && (p = strstr(p, fn)); p += n)
		if ((p == o || p[-1] == ' ') && p[n] == '=')
			return atoi(p + n + 1);
	return -1;
}

static void replay_log(void)
{
	const char *path = getenv("KPROF_NVML_STANDIN_LOG");
	unsigned int i, a, b;
	char line[256];
	int rc;
	FILE *f = NULL;

	if (path)
		f = fopen(path, "r");
	if (!path || !f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "nvmlDeviceSetGpuLockedClocks %u %u %u = %d",
			   &i, &a, &b, &rc) == 4 &&
		    !rc && i < MAXDEV)
			S.sm_locked[i] = a;
		else if (sscanf(line, "nvmlDeviceResetGpuLockedClocks %u = %d", &i, &rc) == 2 &&
			 !rc && i < MAXDEV)
			S.sm_locked[i] = 0;
		else if (sscanf(line, "nvmlDeviceSetMemoryLockedClocks %u %u %u = %d", &i, &a, &b,
				&rc) == 4 && !rc && i < MAXDEV)
			S.mem_locked[i] = a;
		else if (sscanf(line, "nvmlDeviceResetMemoryLockedClocks %u = %d", &i, &rc) == 2 &&
			 !rc && i < MAXDEV)
			S.mem_locked[i] = 0;
	}
	fclose(f);
}

/* key = val: replaces the value of key, or adds it. */
static void set_key(const char *key, const char *val)
{
	for (int i = 0; i < S.n; i++)
		if (!strcmp(S.key[i], key)) {
			free(S.val[i]);
			S.val[i] = strdup(val);
			return;
		}
	if (S.n < MAXLINES) {
		S.key[S.n] = strdup(key);
		S.val[S.n++] = strdup(val);
	}
}

/* The recorded UUID with its last byte made i. */
static void clone_uuid(const char *uuid, unsigned int i, char *out, size_t len)
{
	size_t n = strlen(uuid);

	snprintf(out, len, "%s", uuid);
	if (n >= 2 && n < len)
		snprintf(out + n - 2, len - (n - 2), "%02x", i);
}

/* $KPROF_NVML_STANDIN_GPUS: GPUs 1..N-1 as copies of GPU 0 (see the top). */
static void clone_gpus(void)
{
	const char *env = getenv("KPROF_NVML_STANDIN_GPUS");
	unsigned int n = env ? (unsigned int)strtoul(env, NULL, 10) : 0;
	const char *uuid0 = find("nvmlDeviceGetUUID 0");
	char key[512], val[256], uuid[128];
	int orig = S.n;

	if (n < 2 || n > MAXDEV || !uuid0 || strncmp(uuid0, "0 ", 2))
		return;
	for (unsigned int i = 1; i < n; i++) {
		for (int l = 0; l < orig; l++) {
			const char *k = S.key[l], *sp = strstr(k, " 0");

			/* "fn 0" and "fn 0 ARGS" (also "locked:fn 0 ..."): GPU 0's answers */
			if (!sp || strchr(k, ' ') != sp || (sp[2] && sp[2] != ' '))
				continue;
			snprintf(key, sizeof(key), "%.*s %u%s", (int)(sp - k), k, i, sp + 2);
			set_key(key, S.val[l]);
		}
		clone_uuid(uuid0 + 2, i, uuid, sizeof(uuid));
		snprintf(key, sizeof(key), "nvmlDeviceGetUUID %u", i);
		snprintf(val, sizeof(val), "0 %s", uuid);
		set_key(key, val);
		snprintf(key, sizeof(key), "nvmlDeviceGetHandleByIndex_v2 %u", i);
		set_key(key, "0");
		snprintf(key, sizeof(key), "nvmlDeviceGetHandleByUUID %s", uuid);
		snprintf(val, sizeof(val), "0 %u", i);
		set_key(key, val);
		snprintf(key, sizeof(key), "nvmlDeviceGetIndex %u", i);
		snprintf(val, sizeof(val), "0 %u", i);
		set_key(key, val);
	}
	snprintf(val, sizeof(val), "0 %u", n);
	set_key("nvmlDeviceGetCount_v2", val);
}

static int load(void)
{
	const char *path = getenv("KPROF_NVML_STANDIN_DATA");
	char line[4096];
	unsigned int i;
	FILE *f = NULL;

	if (S.loaded)
		return 0;
	if (path)
		f = fopen(path, "r");
	if (!path || !f) {
		fprintf(stderr, "nvml stand-in: set KPROF_NVML_STANDIN_DATA to a playback file\n");
		return -1;
	}
	while (fgets(line, sizeof(line), f) && S.n < MAXLINES) {
		char *eq = strstr(line, " = ");

		if (line[0] == '#' || !eq)
			continue;
		*eq = '\0';
		S.key[S.n] = strdup(line);
		S.val[S.n] = strdup(trim(eq + 3));
		S.n++;
	}
	fclose(f);
	for (i = 0; i < MAXDEV; i++)
		S.devs[i].idx = i;
	clone_gpus();
	replay_log();
	S.loaded = 1;
	return 0;
}

static int dev_ok(kprof_nvmlDevice_t d)
{
	return S.loaded && d >= S.devs && d < S.devs + MAXDEV;
}

kprof_nvmlReturn_t nvmlInit_v2(void)
{
	if (load())
		return KPROF_NVML_ERROR_DRIVER_NOT_LOADED;
	return rc_of(find("nvmlInit_v2"), NULL);
}

kprof_nvmlReturn_t nvmlShutdown(void)
{
	return KPROF_NVML_SUCCESS;
}

const char *nvmlErrorString(kprof_nvmlReturn_t result)
{
	int i;
	char key[64];

	snprintf(key, sizeof(key), "%s %d", __func__, (int)result);
	for (i = 0; i < S.n; i++)
		if (!strcmp(S.key[i], key))
			return S.val[i];
	return "Unknown Error";
}

/* A recorded string value into buf. */
static kprof_nvmlReturn_t str_value(const char *v, char *buf, unsigned int len)
{
	const char *rest;
	kprof_nvmlReturn_t rc = rc_of(v, &rest);

	if (rc == KPROF_NVML_SUCCESS) {
		if (strlen(rest) >= len)
			return KPROF_NVML_ERROR_INSUFFICIENT_SIZE;
		strcpy(buf, rest);
	}
	return rc;
}

static kprof_nvmlReturn_t uint_value(const char *v, unsigned int *out)
{
	const char *rest;
	kprof_nvmlReturn_t rc = rc_of(v, &rest);

	if (rc == KPROF_NVML_SUCCESS)
		*out = (unsigned int)strtoul(rest, NULL, 0);
	return rc;
}

static kprof_nvmlReturn_t list_value(const char *v, unsigned int *count, unsigned int *out)
{
	const char *rest;
	kprof_nvmlReturn_t rc = rc_of(v, &rest);
	unsigned int n = 0, cap = *count;
	char *end;

	if (rc != KPROF_NVML_SUCCESS)
		return rc;
	while (*rest) {
		unsigned long x = strtoul(rest, &end, 10);

		if (end == rest)
			break;
		if (n < cap)
			out[n] = (unsigned int)x;
		n++;
		rest = end;
	}
	*count = n;
	return n > cap ? KPROF_NVML_ERROR_INSUFFICIENT_SIZE : KPROF_NVML_SUCCESS;
}

kprof_nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length)
{
	return str_value(find("nvmlSystemGetDriverVersion"), version, length);
}

kprof_nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *deviceCount)
{
	return uint_value(find("nvmlDeviceGetCount_v2"), deviceCount);
}

kprof_nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, kprof_nvmlDevice_t *device)
{
	kprof_nvmlReturn_t rc;

	if (index >= MAXDEV)
		return KPROF_NVML_ERROR_INVALID_ARGUMENT;
	rc = rc_of(find("%s %u", __func__, index), NULL);
	if (rc == KPROF_NVML_SUCCESS)
		*device = &S.devs[index];
	return rc;
}

kprof_nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *uuid, kprof_nvmlDevice_t *device)
{
	static const char bogus[] = "GPU-00000000-0000-0000-0000-000000000000";
	unsigned int idx = 0;
	kprof_nvmlReturn_t rc;
	char key[256];
	int i;

	snprintf(key, sizeof(key), "%s %s", __func__, uuid);
	for (i = 0; i < S.n; i++) {
		if (!strcmp(S.key[i], key)) {
			rc = uint_value(S.val[i], &idx);
			if (rc == KPROF_NVML_SUCCESS && idx < MAXDEV)
				*device = &S.devs[idx];
			return rc;
		}
	}
	/* any other UUID: what the real NVML said for one that is not there */
	return rc_of(find("%s %s", __func__, bogus), NULL);
}

kprof_nvmlReturn_t nvmlDeviceGetIndex(kprof_nvmlDevice_t device, unsigned int *index)
{
	if (!dev_ok(device))
		return KPROF_NVML_ERROR_INVALID_ARGUMENT;
	return uint_value(find("%s %u", __func__, device->idx), index);
}

kprof_nvmlReturn_t nvmlDeviceGetName(kprof_nvmlDevice_t device, char *name, unsigned int length)
{
	if (!dev_ok(device))
		return KPROF_NVML_ERROR_INVALID_ARGUMENT;
	return str_value(find("%s %u", __func__, device->idx), name, length);
}

kprof_nvmlReturn_t nvmlDeviceGetUUID(kprof_nvmlDevice_t device, char *uuid, unsigned int length)
{
	if (!dev_ok(device))
		return KPROF_NVML_ERROR_INVALID_ARGUMENT;
	return str_value(find("%s %u", __func__, device->idx), uuid, length);
}

kprof_nvmlReturn_t nvmlDeviceGetPciInfo_v3(kprof_nvmlDevice_t device, kprof_nvmlPciInfo_t *pci)
{
	const char *rest;
	kprof_nvmlReturn_t rc;

	if (!dev_ok(device))
		return KPROF_NVML_ERROR_INVALID_ARGUMENT;
	rc = rc_of(find("%s %u", __func__, device->idx), &rest);
	if (rc != KPROF_NVML_SUCCESS)
		return rc;
	memset(pci, 0, sizeof(*pci));
	if (sscanf(rest, "%31s %15s %u %u %u %x %x", pci->busId, pci->busIdLegacy, &pci->domain,
		   &pci->bus, &pci->device, &pci->pciDeviceId, &pci->pciSubSystemId) != 7)
		return KPROF_NVML_ERROR_UNKNOWN;
	return rc;
}

/* The probe lock of the recording: its clock, or 0. */
static unsigned int probe_mhz(unsigned int idx)
{
	unsigned int i, a, b;
	int k;

	for (k = 0; k < S.n; k++)
		if (sscanf(S.key[k], "nvmlDeviceSetGpuLockedClocks %u %u %u", &i, &a, &b) == 3 &&
		    i == idx)
			return a;
	return 0;
}

kprof_nvmlReturn_t nvmlDeviceGetClockInfo(kprof_nvmlDevice_t device, kprof_nvmlClockType_t type,
					  unsigned int *clock)
{
	unsigned int idx, v = 0;
	kprof_nvmlReturn_t rc;

	if (!dev_ok(device) || (unsigned int)type > KPROF_NVML_CLOCK_VIDEO)
		return KPROF_NVML_ERROR_INVALID_ARGUMENT;
	idx = device->idx;
	if (type == KPROF_NVML_CLOCK_MEM && S.mem_locked[idx]) {
		*clock = S.mem_locked[idx];	/* a memory lock is exact */
		return KPROF_NVML_SUCCESS;
	}
	if ((type == KPROF_NVML_CLOCK_SM || type == KPROF_NVML_CLOCK_GRAPHICS) &&
	    S.sm_locked[idx]) {
		rc = uint_value(find("locked:%s %u %s", __func__, idx, tnames[type]), &v);
		if (rc == KPROF_NVML_SUCCESS)
			*clock = v == probe_mhz(idx) ? S.sm_locked[idx] : v;
		return rc;
	}
	return uint_value(find("%s %u %s", __func__, idx, tnames[type]), clock);
}

/* The clock getters that only read the recording. */
static kprof_nvmlReturn_t clock_get(const char *fn, kprof_nvmlDevice_t device,
				    kprof_nvmlClockType_t type, unsigned int *clock)
{
	if (!dev_ok(device) || (unsigned int)type > KPROF_NVML_CLOCK_VIDEO)
		return KPROF_NVML_ERROR_INVALID_ARGUMENT;
	return uint_value(find("%s %u %s", fn, device->idx, tnames[type]), clock);
}

kprof_nvmlReturn_t nvmlDeviceGetMaxClockInfo(kprof_nvmlDevice_t device, kprof_nvmlClockType_t type,
					     unsigned int *clock)
{
	return clock_get(__func__, device, type, clock);
}

kprof_nvmlReturn_t nvmlDeviceGetApplicationsClock(kprof_nvmlDevice_t device,
						  kprof_nvmlClockType_t type, unsigned int *clock)
{
	return clock_get(__func__, device, type, clock);
}

kprof_nvmlReturn_t nvmlDeviceGetDefaultApplicationsClock(kprof_nvmlDevice_t device,
							 kprof_nvmlClockType_t type,
							 unsigned int *clock)
{
	return clock_get(__func__, device, type, clock);
}

kprof_nvmlReturn_t nvmlDeviceGetSupportedMemoryClocks(kprof_nvmlDevice_t device,
						      unsigned int *count, unsigned int *clocksMHz)
{
	if (!dev_ok(device))
		return KPROF_NVML_ERROR_INVALID_ARGUMENT;
	return list_value(find("%s %u", __func__, device->idx), count,
			  clocksMHz);
}

kprof_nvmlReturn_t nvmlDeviceGetSupportedGraphicsClocks(kprof_nvmlDevice_t device,
							unsigned int memoryClockMHz,
							unsigned int *count,
							unsigned int *clocksMHz)
{
	if (!dev_ok(device))
		return KPROF_NVML_ERROR_INVALID_ARGUMENT;
	return list_value(find("%s %u %u", __func__, device->idx,
			       memoryClockMHz), count, clocksMHz);
}

kprof_nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(kprof_nvmlDevice_t device,
							  unsigned long long *clocksEventReasons)
{
	const char *rest;
	kprof_nvmlReturn_t rc;

	if (!dev_ok(device))
		return KPROF_NVML_ERROR_INVALID_ARGUMENT;
	rc = rc_of(find("%snvmlDeviceGetCurrentClocksEventReasons %u",
			S.sm_locked[device->idx] ? "locked:" : "", device->idx), &rest);
	if (rc == KPROF_NVML_SUCCESS)
		*clocksEventReasons = strtoull(rest, NULL, 0);
	return rc;
}

/* A set/reset call: the override, else the recorded code of that call. */
static kprof_nvmlReturn_t set_rc(const char *fn, unsigned int idx)
{
	int o = override(fn);
	char pre[64];
	size_t n;
	int k;

	if (o >= 0)
		return (kprof_nvmlReturn_t)o;
	snprintf(pre, sizeof(pre), "%s %u", fn, idx);
	n = strlen(pre);
	for (k = 0; k < S.n; k++)
		if (!strncmp(S.key[k], pre, n) && (!S.key[k][n] || S.key[k][n] == ' '))
			return rc_of(S.val[k], NULL);
	log_line("UNRECORDED %s", pre);
	return KPROF_NVML_ERROR_UNKNOWN;
}

kprof_nvmlReturn_t nvmlDeviceSetGpuLockedClocks(kprof_nvmlDevice_t device,
						unsigned int minGpuClockMHz,
						unsigned int maxGpuClockMHz)
{
	kprof_nvmlReturn_t rc;

	if (!dev_ok(device))
		return KPROF_NVML_ERROR_INVALID_ARGUMENT;
	rc = set_rc("nvmlDeviceSetGpuLockedClocks", device->idx);
	if (minGpuClockMHz > maxGpuClockMHz && rc == KPROF_NVML_SUCCESS)
		rc = KPROF_NVML_ERROR_INVALID_ARGUMENT;
	log_line("%s %u %u %u = %d", __func__, device->idx, minGpuClockMHz,
		 maxGpuClockMHz, rc);
	if (rc == KPROF_NVML_SUCCESS)
		S.sm_locked[device->idx] = minGpuClockMHz;
	return rc;
}

kprof_nvmlReturn_t nvmlDeviceResetGpuLockedClocks(kprof_nvmlDevice_t device)
{
	kprof_nvmlReturn_t rc;

	if (!dev_ok(device))
		return KPROF_NVML_ERROR_INVALID_ARGUMENT;
	rc = set_rc("nvmlDeviceResetGpuLockedClocks", device->idx);
	log_line("%s %u = %d", __func__, device->idx, rc);
	if (rc == KPROF_NVML_SUCCESS)
		S.sm_locked[device->idx] = 0;
	return rc;
}

kprof_nvmlReturn_t nvmlDeviceSetMemoryLockedClocks(kprof_nvmlDevice_t device,
						   unsigned int minMemClockMHz,
						   unsigned int maxMemClockMHz)
{
	kprof_nvmlReturn_t rc;

	if (!dev_ok(device))
		return KPROF_NVML_ERROR_INVALID_ARGUMENT;
	rc = set_rc("nvmlDeviceSetMemoryLockedClocks", device->idx);
	log_line("%s %u %u %u = %d", __func__, device->idx, minMemClockMHz,
		 maxMemClockMHz, rc);
	if (rc == KPROF_NVML_SUCCESS)
		S.mem_locked[device->idx] = minMemClockMHz;
	return rc;
}

kprof_nvmlReturn_t nvmlDeviceResetMemoryLockedClocks(kprof_nvmlDevice_t device)
{
	kprof_nvmlReturn_t rc;

	if (!dev_ok(device))
		return KPROF_NVML_ERROR_INVALID_ARGUMENT;
	rc = set_rc("nvmlDeviceResetMemoryLockedClocks", device->idx);
	log_line("%s %u = %d", __func__, device->idx, rc);
	if (rc == KPROF_NVML_SUCCESS)
		S.mem_locked[device->idx] = 0;
	return rc;
}
