// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * NVIDIA GPUs through NVML, loaded at run time (kprof_nvml.h): the
 * library loader and the device ops (enumerate, open, describe, clock
 * lock and reset with the GPU state file).
 */
#include "kprof_nvml.h"
#include "kprof_cpufreq.h"
#include "kprof_device.h"
#include "kprof_nvclock.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define NVML_LIB	"libnvidia-ml.so.1"
/* More than any GPU lists (an H100 has about a hundred SM clocks). */
#define MAX_CLOCKS	1024

static struct {
	int tried;
	int ret;			/* kprof_nvml_load()'s result */
	int init_rc;			/* nvmlInit_v2's */
	char why[sizeof(((struct kprof_err *)0)->msg)];
	void *lib;
#define KPROF_NVML_FN_FIELD(sym, ret, args) kprof_nvml_fn_##sym sym;
	KPROF_NVML_FUNCS(KPROF_NVML_FN_FIELD)
#undef KPROF_NVML_FN_FIELD
} nv;

/* A function the library may lack (older drivers): FUNCTION_NOT_FOUND. */
#define NV(fn, ...) \
	(nv.fn ? nv.fn(__VA_ARGS__) : KPROF_NVML_ERROR_FUNCTION_NOT_FOUND)

static const char *nv_str(kprof_nvmlReturn_t rc)
{
	const char *s = nv.nvmlErrorString ? nv.nvmlErrorString(rc) : NULL;

	return s ? s : "unknown NVML error";
}

static void nv_shutdown(void)
{
	if (nv.lib && !nv.ret)
		nv.nvmlShutdown();
}

int kprof_nvml_load(struct kprof_err *err, int *nvml_rc)
{
	kprof_nvmlReturn_t rc;

	if (nvml_rc)
		*nvml_rc = 0;
	if (nv.tried) {
		if (nvml_rc)
			*nvml_rc = nv.init_rc;
		return nv.ret ? kprof_err_set(err, -nv.ret, "%s", nv.why) : 0;
	}
	nv.tried = 1;
	nv.lib = dlopen(NVML_LIB, RTLD_NOW | RTLD_LOCAL);
	if (!nv.lib) {
		const char *e = dlerror();

		nv.ret = -ENOENT;
		snprintf(nv.why, sizeof(nv.why),
			 NVML_LIB " not found (%s): no NVIDIA driver is installed on this machine",
			 e ? e : "dlopen failed");
		return kprof_err_set(err, ENOENT, "%s", nv.why);
	}
#define KPROF_NVML_FN_LOAD(sym, ret, args) \
	nv.sym = (kprof_nvml_fn_##sym)dlsym(nv.lib, #sym);
	KPROF_NVML_FUNCS(KPROF_NVML_FN_LOAD)
#undef KPROF_NVML_FN_LOAD
	/* Without these nothing works; the others are checked per call. */
	if (!nv.nvmlInit_v2 || !nv.nvmlShutdown || !nv.nvmlErrorString ||
	    !nv.nvmlDeviceGetCount_v2 || !nv.nvmlDeviceGetHandleByIndex_v2 ||
	    !nv.nvmlDeviceGetUUID) {
		nv.ret = -ENOSYS;
		snprintf(nv.why, sizeof(nv.why),
			 "%s lacks nvmlInit_v2 or another basic function: the NVIDIA driver is too old; update it",
			 NVML_LIB);
		return kprof_err_set(err, ENOSYS, "%s", nv.why);
	}
	rc = nv.nvmlInit_v2();
	nv.init_rc = rc;
	if (nvml_rc)
		*nvml_rc = rc;
	if (rc != KPROF_NVML_SUCCESS) {
		const char *advice = kprof_nvclock_advice(rc);

		nv.ret = -ENODEV;
		snprintf(nv.why, sizeof(nv.why), "NVML did not start (nvmlInit_v2: %s)%s%s",
			 nv_str(rc), *advice ? ": " : "", advice);
		return kprof_err_set(err, ENODEV, "%s", nv.why);
	}
	atexit(nv_shutdown);
	return 0;
}

/* "nvidia:N: FN: <NVML's text>[: advice]" into err; returns -EIO/-EPERM. */
static int nv_fail(struct kprof_err *err, const struct kprof_device *d,
		   const char *fn, kprof_nvmlReturn_t rc, const char *tail)
{
	const char *advice = kprof_nvclock_advice(rc);

	return kprof_err_set(err, rc == KPROF_NVML_ERROR_NO_PERMISSION ? EPERM :
			     rc == KPROF_NVML_ERROR_NOT_SUPPORTED ? EOPNOTSUPP : EIO,
			     "%s: %s: %s%s%s%s", d->name, fn, nv_str(rc),
			     *advice ? ": " : "", advice, tail ? tail : "");
}

/* Append a line to msg. */
static void msg_add(char *msg, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void msg_add(char *msg, size_t len, const char *fmt, ...)
{
	size_t off = strnlen(msg, len);
	va_list ap;

	if (off + 1 >= len)
		return;
	if (off)
		msg[off++] = '\n';
	va_start(ap, fmt);
	vsnprintf(msg + off, len - off, fmt, ap);
	va_end(ap);
}

/* ---- ops ---- */

static int nv_enumerate(struct kprof_device_id *ids, int max, struct kprof_err *err)
{
	unsigned int count = 0, i;
	kprof_nvmlReturn_t rc;
	int nvml_rc, r;

	r = kprof_nvml_load(err, &nvml_rc);
	/* No library, or a library without a driver (a container without GPUs): none. */
	if (r == -ENOENT || (r == -ENODEV && nvml_rc == KPROF_NVML_ERROR_DRIVER_NOT_LOADED)) {
		kprof_err_clear(err);
		return 0;
	}
	if (r)
		return r;
	rc = nv.nvmlDeviceGetCount_v2(&count);
	if (rc != KPROF_NVML_SUCCESS)
		return kprof_err_set(err, EIO, "NVIDIA: nvmlDeviceGetCount_v2: %s", nv_str(rc));
	for (i = 0; i < count && (int)i < max && i <= KPROF_DEVICE_INDEX_MAX; i++) {
		memset(&ids[i], 0, sizeof(ids[i]));
		ids[i].kind = KPROF_DEVICE_NVIDIA;
		ids[i].index = i;
	}
	return (int)i;
}

static int nv_open(struct kprof_device *d, int write, struct kprof_err *err)
{
	struct kprof_nvml_dev *g = &d->nv;
	kprof_nvmlReturn_t rc;
	unsigned int count = 0;
	char name[KPROF_DEVICE_NAME_LEN];
	int r;

	(void)write;	/* NVML checks permission per call */
	kprof_device_name(&d->id, name, sizeof(name));
	snprintf(d->name, sizeof(d->name), "%s", name);
	r = kprof_nvml_load(err, NULL);
	if (r) {
		kprof_err_prefix(err, name);
		return r;
	}
	if (d->id.uuid[0]) {
		rc = NV(nvmlDeviceGetHandleByUUID, d->id.uuid, &g->handle);
		if (rc == KPROF_NVML_ERROR_NOT_FOUND || rc == KPROF_NVML_ERROR_INVALID_ARGUMENT)
			return kprof_err_set(err, ENODEV,
					     "%s: no NVIDIA GPU has this UUID: kprofctl list shows them",
					     name);
		if (rc != KPROF_NVML_SUCCESS)
			return nv_fail(err, d, "nvmlDeviceGetHandleByUUID", rc, NULL);
		rc = NV(nvmlDeviceGetIndex, g->handle, &g->index);
		if (rc != KPROF_NVML_SUCCESS)
			return nv_fail(err, d, "nvmlDeviceGetIndex", rc, NULL);
	} else {
		rc = nv.nvmlDeviceGetCount_v2(&count);
		if (rc != KPROF_NVML_SUCCESS)
			return nv_fail(err, d, "nvmlDeviceGetCount_v2", rc, NULL);
		if (d->id.index >= count)
			return kprof_err_set(err, ENODEV,
					     "no %s: this machine has %u NVIDIA GPU%s; kprofctl list shows them",
					     name, count, count == 1 ? "" : "s");
		rc = nv.nvmlDeviceGetHandleByIndex_v2(d->id.index, &g->handle);
		if (rc != KPROF_NVML_SUCCESS)
			return nv_fail(err, d, "nvmlDeviceGetHandleByIndex_v2", rc, NULL);
		g->index = d->id.index;
	}
	rc = nv.nvmlDeviceGetUUID(g->handle, g->uuid, sizeof(g->uuid));
	if (rc != KPROF_NVML_SUCCESS)
		return nv_fail(err, d, "nvmlDeviceGetUUID", rc, NULL);
	/* The index names it everywhere kprof prints it; the UUID is in info. */
	snprintf(d->name, sizeof(d->name), "nvidia:%u", g->index);
	return 0;
}

static void nv_close(struct kprof_device *d)
{
	memset(&d->nv, 0, sizeof(d->nv));
}

/* A clock, 0 when NVML cannot give it. */
static uint32_t clock_of(kprof_nvml_fn_nvmlDeviceGetClockInfo fn, kprof_nvmlDevice_t h,
			 kprof_nvmlClockType_t type)
{
	unsigned int v = 0;

	if (!fn || fn(h, type, &v) != KPROF_NVML_SUCCESS)
		return 0;
	return v;
}

/* Default applications SM clock: NVML gives it for SM or for graphics. */
static uint32_t def_app_sm(kprof_nvmlDevice_t h)
{
	uint32_t v = clock_of(nv.nvmlDeviceGetDefaultApplicationsClock, h, KPROF_NVML_CLOCK_SM);

	return v ? v : clock_of(nv.nvmlDeviceGetDefaultApplicationsClock, h,
				KPROF_NVML_CLOCK_GRAPHICS);
}

static uint32_t app_sm(kprof_nvmlDevice_t h)
{
	uint32_t v = clock_of(nv.nvmlDeviceGetApplicationsClock, h, KPROF_NVML_CLOCK_SM);

	return v ? v : clock_of(nv.nvmlDeviceGetApplicationsClock, h, KPROF_NVML_CLOCK_GRAPHICS);
}

/* Supported SM clocks at memory clock mem_mhz; count, 0 when unknown. */
static size_t sm_clocks(kprof_nvmlDevice_t h, uint32_t mem_mhz, uint32_t *clk)
{
	unsigned int n = MAX_CLOCKS;

	if (!mem_mhz || NV(nvmlDeviceGetSupportedGraphicsClocks, h, mem_mhz, &n, clk) !=
	    KPROF_NVML_SUCCESS)
		return 0;
	return n;
}

static size_t mem_clocks(kprof_nvmlDevice_t h, uint32_t *clk)
{
	unsigned int n = MAX_CLOCKS;

	if (NV(nvmlDeviceGetSupportedMemoryClocks, h, &n, clk) != KPROF_NVML_SUCCESS)
		return 0;
	return n;
}

static int state_path_of(const struct kprof_device *d, char *buf, size_t len,
			 struct kprof_err *err)
{
	if (kprof_nvclock_state_path(kprof_run_dir(), d->nv.uuid, buf, len))
		return kprof_err_set(err, ENAMETOOLONG, "%s: run directory name too long: %s",
				     d->name, kprof_run_dir());
	return 0;
}

/*
 * kprof's state for this GPU: 1 (read into *st), 0 (no file), or -errno
 * with err when the file is there but unusable.
 */
static int state_load(const struct kprof_device *d, const char *path,
		      struct kprof_clockstate *st, struct kprof_err *err)
{
	struct stat sb;
	int r;

	memset(st, 0, sizeof(*st));
	if (stat(path, &sb))
		return 0;
	r = kprof_clockstate_read(path, st, err);
	if (!r && (!st->has_gpu || strcmp(st->gpu.uuid, d->nv.uuid))) {
		kprof_clockstate_free(st);
		r = kprof_err_set(err, EBADMSG, "%s: not a clock state file of %s", path,
				  d->nv.uuid);
	}
	return r ? r : 1;
}

static int nv_describe(struct kprof_device *d, struct kprof_device_desc *desc,
		       struct kprof_err *err)
{
	struct kprof_nvml_info *ni = &desc->nvidia;
	kprof_nvmlDevice_t h = d->nv.handle;
	kprof_nvml_fn_nvmlDeviceGetClockInfo cur = nv.nvmlDeviceGetClockInfo;
	kprof_nvml_fn_nvmlDeviceGetClockInfo max = nv.nvmlDeviceGetMaxClockInfo;
	kprof_nvmlPciInfo_t pci;
	struct kprof_clockstate st;
	struct kprof_err serr = { 0 };
	unsigned long long reasons = 0;
	uint32_t *clk;
	size_t n;

	memset(desc, 0, sizeof(*desc));
	desc->kind = KPROF_DEVICE_NVIDIA;
	snprintf(desc->name, sizeof(desc->name), "%s", d->name);
	ni->index = d->nv.index;
	snprintf(ni->uuid, sizeof(ni->uuid), "%s", d->nv.uuid);
	if (NV(nvmlDeviceGetName, h, ni->name, sizeof(ni->name)) != KPROF_NVML_SUCCESS)
		snprintf(ni->name, sizeof(ni->name), "?");
	memset(&pci, 0, sizeof(pci));
	if (NV(nvmlDeviceGetPciInfo_v3, h, &pci) == KPROF_NVML_SUCCESS)
		snprintf(ni->pci_bus_id, sizeof(ni->pci_bus_id), "%.*s",
			 (int)sizeof(pci.busId), pci.busId);
	if (NV(nvmlSystemGetDriverVersion, ni->driver, sizeof(ni->driver)) != KPROF_NVML_SUCCESS)
		ni->driver[0] = '\0';
	ni->sm_mhz = clock_of(cur, h, KPROF_NVML_CLOCK_SM);
	ni->mem_mhz = clock_of(cur, h, KPROF_NVML_CLOCK_MEM);
	ni->max_sm_mhz = clock_of(max, h, KPROF_NVML_CLOCK_SM);
	ni->max_mem_mhz = clock_of(max, h, KPROF_NVML_CLOCK_MEM);
	ni->app_sm_mhz = app_sm(h);
	ni->app_mem_mhz = clock_of(nv.nvmlDeviceGetApplicationsClock, h, KPROF_NVML_CLOCK_MEM);
	ni->def_app_sm_mhz = def_app_sm(h);
	ni->def_app_mem_mhz = clock_of(nv.nvmlDeviceGetDefaultApplicationsClock, h,
				       KPROF_NVML_CLOCK_MEM);
	clk = calloc(MAX_CLOCKS, sizeof(*clk));
	if (!clk)
		return kprof_err_set(err, ENOMEM, "out of memory");
	n = sm_clocks(h, ni->mem_mhz, clk);
	kprof_nvclock_range(clk, n, &ni->sup_sm_min, &ni->sup_sm_max);
	ni->sup_sm_count = (uint32_t)n;
	free(clk);
	if (NV(nvmlDeviceGetCurrentClocksEventReasons, h, &reasons) == KPROF_NVML_SUCCESS) {
		ni->has_reasons = 1;
		ni->reasons = reasons;
	}
	if (state_path_of(d, ni->state_path, sizeof(ni->state_path), err))
		return -ENAMETOOLONG;
	/* An unreadable state file is shown as such, not as "no lock". */
	switch (state_load(d, ni->state_path, &st, &serr)) {
	case 1:
		ni->held = 1;
		ni->state = st.gpu;
		ni->state_pid = st.pid;
		kprof_clockstate_free(&st);
		break;
	case 0:
		break;
	default:
		return kprof_err_set(err, serr.code, "%s: %s", d->name, serr.msg);
	}
	return 0;
}

/* Write st to path, or remove path when st is NULL (nothing held). */
static int state_store(const char *path, const struct kprof_clockstate *st,
		       struct kprof_err *err)
{
	if (st)
		return kprof_clockstate_write(path, st, err);
	if (unlink(path) && errno != ENOENT)
		return kprof_err_set(err, errno, "cannot remove %s: %s", path, strerror(errno));
	return 0;
}

static int perm_errno(int r)
{
	return r == -EPERM || r == -EACCES || r == -EROFS;
}

/* Take the run lock, with the message lock-clock --host gives. */
static int run_lock(const struct kprof_device *d, struct kprof_err *err)
{
	char m[512];
	int fd = kprof_clock_run_lock(kprof_run_dir(), m, sizeof(m));

	if (fd >= 0)
		return fd;
	if (perm_errno(fd))
		return kprof_err_set(err, -fd,
				     "%s: changing clocks needs root: cannot write the state directory %s ($KPROF_RUN_DIR)",
				     d->name, kprof_run_dir());
	return kprof_err_set(err, -fd, "%s: %s", d->name, m);
}

/* The SM clock F the request becomes; notes rounding in msg. */
static int pick_sm(struct kprof_device *d, const struct kprof_clock_request *req,
		   uint32_t mem_mhz, uint32_t *f, char *msg, size_t msg_len,
		   struct kprof_err *err)
{
	kprof_nvmlDevice_t h = d->nv.handle;
	uint32_t want, lo, hi, *clk;
	const char *what;
	size_t n;
	int r;

	switch (req->target) {
	case KPROF_CLOCK_TARGET_MHZ:
		want = req->mhz;
		what = "requested";
		break;
	case KPROF_CLOCK_TARGET_MAX:
		want = clock_of(nv.nvmlDeviceGetMaxClockInfo, h, KPROF_NVML_CLOCK_SM);
		what = "the max SM clock";
		if (!want)
			return kprof_err_set(err, EOPNOTSUPP,
					     "%s: NVML gives no max SM clock for this GPU: use --mhz F",
					     d->name);
		break;
	default:
		want = def_app_sm(h);
		what = "the default applications clock, --base";
		if (!want)
			return kprof_err_set(err, EOPNOTSUPP,
					     "%s: NVML gives no default applications clock for this GPU: use --mhz F or --max",
					     d->name);
		break;
	}
	clk = calloc(MAX_CLOCKS, sizeof(*clk));
	if (!clk)
		return kprof_err_set(err, ENOMEM, "out of memory");
	n = sm_clocks(h, mem_mhz, clk);
	kprof_nvclock_range(clk, n, &lo, &hi);
	r = kprof_nvclock_pick(clk, n, want, f);
	free(clk);
	if (r == -ENOENT) {	/* no list: NVML itself judges the value */
		*f = want;
		msg_add(msg, msg_len,
			"%s: NVML lists no supported SM clocks; trying %u MHz as given",
			d->name, want);
		return 0;
	}
	if (r == -ERANGE)
		return kprof_err_set(err, ERANGE,
				     "%s: %u MHz (%s) is outside the supported SM clocks %u..%u MHz",
				     d->name, want, what, lo, hi);
	if (r == 1)
		msg_add(msg, msg_len,
			"%s: %u MHz (%s) is not a supported SM clock; using %u MHz, the nearest",
			d->name, want, what, *f);
	return 0;
}

static int pick_mem(struct kprof_device *d, const struct kprof_clock_request *req,
		    uint32_t mem_now, uint32_t *f, char *msg, size_t msg_len,
		    struct kprof_err *err)
{
	uint32_t want = req->mem_mhz ? req->mem_mhz : mem_now, lo, hi, *clk;
	size_t n;
	int r;

	if (!want)
		return kprof_err_set(err, EOPNOTSUPP,
				     "%s: NVML gives no current memory clock: use --mem-mhz F",
				     d->name);
	clk = calloc(MAX_CLOCKS, sizeof(*clk));
	if (!clk)
		return kprof_err_set(err, ENOMEM, "out of memory");
	n = mem_clocks(d->nv.handle, clk);
	kprof_nvclock_range(clk, n, &lo, &hi);
	r = kprof_nvclock_pick(clk, n, want, f);
	free(clk);
	if (r == -ENOENT) {
		*f = want;
		return 0;
	}
	if (r == -ERANGE)
		return kprof_err_set(err, ERANGE,
				     "%s: memory clock %u MHz is outside the supported %u..%u MHz",
				     d->name, want, lo, hi);
	if (r == 1)
		msg_add(msg, msg_len,
			"%s: memory clock %u MHz is not supported; using %u MHz, the nearest",
			d->name, want, *f);
	return 0;
}

static int nv_clock_lock(struct kprof_device *d, const struct kprof_clock_request *req,
			 char *msg, size_t msg_len, struct kprof_err *err)
{
	kprof_nvmlDevice_t h = d->nv.handle;
	kprof_nvml_fn_nvmlDeviceGetClockInfo cur = nv.nvmlDeviceGetClockInfo;
	struct kprof_clockstate old, st;
	unsigned long long reasons = 0;
	char path[512], rs[128];
	uint32_t mem_now, sm_before, f, fm = 0, after;
	kprof_nvmlReturn_t rc;
	int fd, had, r;

	mem_now = clock_of(cur, h, KPROF_NVML_CLOCK_MEM);
	sm_before = clock_of(cur, h, KPROF_NVML_CLOCK_SM);
	r = pick_sm(d, req, mem_now, &f, msg, msg_len, err);
	if (r)
		return r;
	r = 0;
	if (req->mem)
		r = pick_mem(d, req, mem_now, &fm, msg, msg_len, err);
	if (r)
		return r;
	r = state_path_of(d, path, sizeof(path), err);
	if (r)
		return r;
	fd = run_lock(d, err);
	if (fd < 0)
		return fd;
	had = state_load(d, path, &old, err);
	if (had < 0) {
		r = had;
		kprof_err_prefix(err, d->name);
		snprintf(err->msg + strlen(err->msg), sizeof(err->msg) - strlen(err->msg),
			 "; kprofctl reset-clock --device %s --force releases the lock and removes it",
			 d->name);
		goto out;
	}
	/*
	 * The file says what kprof locked before the call is made: a crash
	 * in between leaves a record that reset can act on (a reset of a
	 * lock that did not happen is harmless). The first lock's "before"
	 * readings are kept.
	 */
	st = old;
	if (!had) {
		memset(&st, 0, sizeof(st));
		st.pid = (int32_t)getpid();
		st.saved_at = (uint64_t)time(NULL);
		st.has_gpu = 1;
		snprintf(st.gpu.uuid, sizeof(st.gpu.uuid), "%s", d->nv.uuid);
		st.gpu.before_sm_mhz = sm_before;
		st.gpu.before_mem_mhz = mem_now;
		st.gpu.before_app_sm_mhz = app_sm(h);
		st.gpu.before_app_mem_mhz = clock_of(nv.nvmlDeviceGetApplicationsClock, h,
						     KPROF_NVML_CLOCK_MEM);
		if (NV(nvmlDeviceGetCurrentClocksEventReasons, h, &reasons) ==
		    KPROF_NVML_SUCCESS) {
			st.gpu.has_before_reasons = 1;
			st.gpu.before_reasons = reasons;
		}
	}
	st.gpu.index = d->nv.index;
	st.gpu.sm_locked_mhz = f;
	r = kprof_clockstate_write(path, &st, err);
	if (r) {
		if (perm_errno(r))
			kprof_err_set(err, -r, "%s: changing clocks needs root: cannot write %s",
				      d->name, path);
		goto out;
	}
	rc = NV(nvmlDeviceSetGpuLockedClocks, h, f, f);
	if (rc != KPROF_NVML_SUCCESS) {
		struct kprof_err e2 = { 0 };

		r = nv_fail(err, d, "nvmlDeviceSetGpuLockedClocks", rc,
			    "; no clock was changed");
		if (state_store(path, had ? &old : NULL, &e2))
			msg_add(err->msg, sizeof(err->msg), "(and %s)", e2.msg);
		goto out;
	}
	after = clock_of(cur, h, KPROF_NVML_CLOCK_SM);
	msg_add(msg, msg_len,
		"%s: SM clock locked at %u MHz (nvmlDeviceSetGpuLockedClocks %u..%u); NVML read %u MHz right after the call, %u MHz before",
		d->name, f, f, f, after, sm_before);
	if (req->mem) {
		st.gpu.mem_locked_mhz = fm;
		r = kprof_clockstate_write(path, &st, err);
		if (r)
			goto out;
		rc = NV(nvmlDeviceSetMemoryLockedClocks, h, fm, fm);
		if (rc != KPROF_NVML_SUCCESS) {
			st.gpu.mem_locked_mhz = had ? old.gpu.mem_locked_mhz : 0;
			r = kprof_clockstate_write(path, &st, err);
			if (r)
				goto out;
			if (rc == KPROF_NVML_ERROR_NOT_SUPPORTED) {
				msg_add(msg, msg_len,
					"%s: memory clock not locked: this GPU does not support it (nvmlDeviceSetMemoryLockedClocks: %s); the SM lock stands",
					d->name, nv_str(rc));
			} else {
				r = nv_fail(err, d, "nvmlDeviceSetMemoryLockedClocks", rc,
					    "; the SM lock stands (reset-clock releases it)");
				goto out;
			}
		} else {
			msg_add(msg, msg_len,
				"%s: memory clock locked at %u MHz (nvmlDeviceSetMemoryLockedClocks); reads %u MHz now",
				d->name, fm, clock_of(cur, h, KPROF_NVML_CLOCK_MEM));
		}
	}
	if (NV(nvmlDeviceGetCurrentClocksEventReasons, h, &reasons) == KPROF_NVML_SUCCESS)
		msg_add(msg, msg_len, "%s: clock event reasons now: %s", d->name,
			kprof_nvclock_reasons_str(reasons, rs, sizeof(rs)));
	msg_add(msg, msg_len, "%s: state in %s; kprofctl reset-clock --device %s releases %s",
		d->name, path, d->name, st.gpu.mem_locked_mhz ? "both locks" : "the lock");
	r = 0;
out:
	if (had > 0)
		kprof_clockstate_free(&old);
	kprof_clock_run_unlock(fd);
	return r;
}

static int nv_clock_reset(struct kprof_device *d, int force, char *msg, size_t msg_len,
			  struct kprof_err *err)
{
	kprof_nvmlDevice_t h = d->nv.handle;
	struct kprof_nvclock_plan plan;
	struct kprof_clockstate st;
	struct kprof_err serr = { 0 };
	char path[512];
	kprof_nvmlReturn_t rc;
	int fd, had, r = 0;

	r = state_path_of(d, path, sizeof(path), err);
	if (r)
		return r;
	fd = run_lock(d, err);
	if (fd < 0)
		return fd;
	had = state_load(d, path, &st, &serr);
	if (had < 0 && !force) {
		r = kprof_err_set(err, serr.code,
				  "%s: %s; kprofctl reset-clock --device %s --force releases any lock and removes it",
				  d->name, serr.msg, d->name);
		goto out;
	}
	kprof_nvclock_reset_plan(had > 0 ? &st.gpu : NULL, force, &plan);
	if (!plan.reset_sm && !plan.reset_mem) {
		msg_add(msg, msg_len,
			"%s: kprof holds no clock lock on this GPU (no %s); NVML cannot tell whether another tool (nvidia-smi -lgc, DCGM) holds one.\n"
			"To release any lock anyway: kprofctl reset-clock --device %s --force (calls nvmlDeviceResetGpuLockedClocks and nvmlDeviceResetMemoryLockedClocks)",
			d->name, path, d->name);
		goto out;
	}
	if (force)
		msg_add(msg, msg_len, "%s: --force: resetting %s",
			d->name, had > 0 ?
			"every clock lock, kprof's and any other" :
			"without a kprof record: any lock, whoever set it, is released");
	if (plan.reset_sm) {
		rc = NV(nvmlDeviceResetGpuLockedClocks, h);
		if (rc != KPROF_NVML_SUCCESS) {
			r = nv_fail(err, d, "nvmlDeviceResetGpuLockedClocks", rc,
				    had > 0 ? "; the lock and its state file stay" : NULL);
			goto out;
		}
		msg_add(msg, msg_len,
			"%s: SM clock lock released (nvmlDeviceResetGpuLockedClocks); reads %u MHz now",
			d->name, clock_of(nv.nvmlDeviceGetClockInfo, h, KPROF_NVML_CLOCK_SM));
		if (had > 0)
			st.gpu.sm_locked_mhz = 0;
	}
	if (plan.reset_mem) {
		int kprofs = had > 0 && st.gpu.mem_locked_mhz;

		rc = NV(nvmlDeviceResetMemoryLockedClocks, h);
		if (rc == KPROF_NVML_ERROR_NOT_SUPPORTED && !kprofs) {
			msg_add(msg, msg_len,
				"%s: memory clock: nothing to release (nvmlDeviceResetMemoryLockedClocks: %s)",
				d->name, nv_str(rc));
		} else if (rc != KPROF_NVML_SUCCESS) {
			r = nv_fail(err, d, "nvmlDeviceResetMemoryLockedClocks", rc,
				    had > 0 ? "; the state file keeps the memory lock" : NULL);
			/* keep the record of what is still held */
			if (had > 0 && state_store(path, &st, &serr))
				msg_add(err->msg, sizeof(err->msg), "(and %s)", serr.msg);
			goto out;
		} else {
			msg_add(msg, msg_len,
				"%s: memory clock lock released (nvmlDeviceResetMemoryLockedClocks); reads %u MHz now",
				d->name,
				clock_of(nv.nvmlDeviceGetClockInfo, h, KPROF_NVML_CLOCK_MEM));
		}
	}
	r = state_store(path, NULL, err);
	if (r)
		goto out;
	if (had > 0)
		msg_add(msg, msg_len, "%s: removed %s", d->name, path);
out:
	if (had > 0)
		kprof_clockstate_free(&st);
	kprof_clock_run_unlock(fd);
	return r;
}

const struct kprof_device_ops kprof_device_nvidia_ops = {
	.kind = KPROF_DEVICE_NVIDIA,
	.enumerate = nv_enumerate,
	.open = nv_open,
	.close = nv_close,
	.describe = nv_describe,
	.clock_lock = nv_clock_lock,
	.clock_reset = nv_clock_reset,
};
