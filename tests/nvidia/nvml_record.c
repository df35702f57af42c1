// SPDX-License-Identifier: GPL-2.0
/*
 * Records what the real NVML returns for every call kprof makes (the
 * KPROF_NVML_FUNCS list of user/lib/kprof_nvml_api.h), in the playback
 * format that the stand-in library (nvml_standin.c) reads: see
 * tests/nvidia/README.md. Built and run on a GPU host by
 * tests/nvidia/check.sh (`make check-nvidia`), against NVIDIA's own
 * nvml.h, so that a wrong declaration of ours cannot bias the record.
 *
 * With --lock-mhz F (root) it also locks GPU 0's SM clock at F, reads
 * the clocks back, tries a memory lock at the current memory clock, and
 * resets both: the set/reset return codes and the readings under lock go
 * into the record too. The SM lock is always reset before it exits.
 *
 * Usage: nvml_record [--lock-mhz F] > file
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <nvml.h>

#define FUNCS(X)						\
	X(nvmlInit_v2) X(nvmlShutdown) X(nvmlErrorString)	\
	X(nvmlSystemGetDriverVersion) X(nvmlDeviceGetCount_v2)	\
	X(nvmlDeviceGetHandleByIndex_v2) X(nvmlDeviceGetHandleByUUID) \
	X(nvmlDeviceGetIndex) X(nvmlDeviceGetName) X(nvmlDeviceGetUUID) \
	X(nvmlDeviceGetPciInfo_v3) X(nvmlDeviceGetClockInfo)	\
	X(nvmlDeviceGetMaxClockInfo) X(nvmlDeviceGetApplicationsClock) \
	X(nvmlDeviceGetDefaultApplicationsClock)		\
	X(nvmlDeviceGetSupportedMemoryClocks)			\
	X(nvmlDeviceGetSupportedGraphicsClocks)			\
	X(nvmlDeviceGetCurrentClocksEventReasons)		\
	X(nvmlDeviceSetGpuLockedClocks) X(nvmlDeviceResetGpuLockedClocks) \
	X(nvmlDeviceSetMemoryLockedClocks) X(nvmlDeviceResetMemoryLockedClocks)

#define PTR(f) static __typeof__(&f) p_##f;
FUNCS(PTR)

#define MAXCLK 1024

static const char *const tnames[] = { "GRAPHICS", "SM", "MEM", "VIDEO" };
static const nvmlClockType_t types[] = { NVML_CLOCK_GRAPHICS, NVML_CLOCK_SM, NVML_CLOCK_MEM };

/* " V" after a success, then the line's end */
static void end_u(nvmlReturn_t rc, unsigned int v)
{
	if (rc == NVML_SUCCESS)
		printf(" %u", v);
	printf("\n");
}

typedef nvmlReturn_t (*clock_fn)(nvmlDevice_t, nvmlClockType_t, unsigned int *);

static void clock_line(const char *pre, const char *fn, clock_fn f, unsigned int i,
		       nvmlDevice_t d, nvmlClockType_t t)
{
	unsigned int v = 0;
	nvmlReturn_t rc = f(d, t, &v);

	printf("%s%s %u %s = %d", pre, fn, i, tnames[t], rc);
	end_u(rc, v);
}

static void reasons_line(const char *pre, unsigned int i, nvmlDevice_t d)
{
	unsigned long long m = 0;
	nvmlReturn_t rc = p_nvmlDeviceGetCurrentClocksEventReasons(d, &m);

	printf("%snvmlDeviceGetCurrentClocksEventReasons %u = %d", pre, i, rc);
	if (rc == NVML_SUCCESS)
		printf(" 0x%llx", m);
	printf("\n");
}

static void list_line(const char *key, nvmlReturn_t rc, const unsigned int *v, unsigned int n)
{
	printf("%s = %d", key, rc);
	for (unsigned int k = 0; rc == NVML_SUCCESS && k < n; k++)
		printf(" %u", v[k]);
	printf("\n");
}

static void device(unsigned int i, nvmlDevice_t d)
{
	char buf[NVML_DEVICE_NAME_V2_BUFFER_SIZE], uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
	unsigned int mem[MAXCLK], gfx[MAXCLK], nmem = MAXCLK, n, idx = 0;
	nvmlDevice_t h;
	nvmlPciInfo_t pci;
	nvmlReturn_t rc;
	char key[128];
	size_t t;

	rc = p_nvmlDeviceGetIndex(d, &idx);
	printf("nvmlDeviceGetIndex %u = %d", i, rc);
	end_u(rc, idx);
	rc = p_nvmlDeviceGetName(d, buf, sizeof(buf));
	printf("nvmlDeviceGetName %u = %d%s%s\n", i, rc, rc ? "" : " ", rc ? "" : buf);
	rc = p_nvmlDeviceGetUUID(d, uuid, sizeof(uuid));
	printf("nvmlDeviceGetUUID %u = %d%s%s\n", i, rc, rc ? "" : " ", rc ? "" : uuid);
	memset(&pci, 0, sizeof(pci));
	rc = p_nvmlDeviceGetPciInfo_v3(d, &pci);
	printf("nvmlDeviceGetPciInfo_v3 %u = %d", i, rc);
	if (rc == NVML_SUCCESS)
		printf(" %s %s %u %u %u 0x%08x 0x%08x", pci.busId, pci.busIdLegacy, pci.domain,
		       pci.bus, pci.device, pci.pciDeviceId, pci.pciSubSystemId);
	printf("\n");
	for (t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
		clock_line("", "nvmlDeviceGetClockInfo", p_nvmlDeviceGetClockInfo, i, d, types[t]);
		clock_line("", "nvmlDeviceGetMaxClockInfo", p_nvmlDeviceGetMaxClockInfo, i, d,
			   types[t]);
		clock_line("", "nvmlDeviceGetApplicationsClock", p_nvmlDeviceGetApplicationsClock,
			   i, d, types[t]);
		clock_line("", "nvmlDeviceGetDefaultApplicationsClock",
			   p_nvmlDeviceGetDefaultApplicationsClock, i, d, types[t]);
	}
	rc = p_nvmlDeviceGetSupportedMemoryClocks(d, &nmem, mem);
	snprintf(key, sizeof(key), "nvmlDeviceGetSupportedMemoryClocks %u", i);
	list_line(key, rc, mem, nmem);
	for (unsigned int m = 0; rc == NVML_SUCCESS && m < nmem; m++) {
		nvmlReturn_t r2;

		n = MAXCLK;
		r2 = p_nvmlDeviceGetSupportedGraphicsClocks(d, mem[m], &n, gfx);
		snprintf(key, sizeof(key), "nvmlDeviceGetSupportedGraphicsClocks %u %u", i, mem[m]);
		list_line(key, r2, gfx, n);
	}
	reasons_line("", i, d);
	if (p_nvmlDeviceGetUUID(d, uuid, sizeof(uuid)) == NVML_SUCCESS) {
		rc = p_nvmlDeviceGetHandleByUUID(uuid, &h);
		idx = 0;
		if (rc == NVML_SUCCESS)
			p_nvmlDeviceGetIndex(h, &idx);
		printf("nvmlDeviceGetHandleByUUID %s = %d", uuid, rc);
		end_u(rc, idx);
	}
}

/* Lock GPU 0 at f, read back, try memory, reset: the calls kprof makes. */
static void lock_probe(nvmlDevice_t d, unsigned int f)
{
	unsigned int mem = 0;
	nvmlReturn_t rc;

	printf("# lock probe on GPU 0 at %u MHz (idle GPU; readings after 0.5 s)\n", f);
	rc = p_nvmlDeviceSetGpuLockedClocks(d, f, f);
	printf("nvmlDeviceSetGpuLockedClocks 0 %u %u = %d\n", f, f, rc);
	usleep(500 * 1000);
	clock_line("locked:", "nvmlDeviceGetClockInfo", p_nvmlDeviceGetClockInfo, 0, d,
		   NVML_CLOCK_SM);
	clock_line("locked:", "nvmlDeviceGetClockInfo", p_nvmlDeviceGetClockInfo, 0, d,
		   NVML_CLOCK_GRAPHICS);
	reasons_line("locked:", 0, d);
	if (p_nvmlDeviceGetClockInfo(d, NVML_CLOCK_MEM, &mem) == NVML_SUCCESS) {
		rc = p_nvmlDeviceSetMemoryLockedClocks(d, mem, mem);
		printf("nvmlDeviceSetMemoryLockedClocks 0 %u %u = %d\n", mem, mem, rc);
		if (rc == NVML_SUCCESS)
			clock_line("memlocked:", "nvmlDeviceGetClockInfo",
				   p_nvmlDeviceGetClockInfo, 0, d, NVML_CLOCK_MEM);
	}
	rc = p_nvmlDeviceResetMemoryLockedClocks(d);
	printf("nvmlDeviceResetMemoryLockedClocks 0 = %d\n", rc);
	rc = p_nvmlDeviceResetGpuLockedClocks(d);
	printf("nvmlDeviceResetGpuLockedClocks 0 = %d\n", rc);
	usleep(500 * 1000);
	clock_line("reset:", "nvmlDeviceGetClockInfo", p_nvmlDeviceGetClockInfo, 0, d,
		   NVML_CLOCK_SM);
	reasons_line("reset:", 0, d);
}

int main(int argc, char **argv)
{
	static const char bogus[] = "GPU-00000000-0000-0000-0000-000000000000";
	char drv[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE];
	unsigned int count = 0, lock_mhz = 0, i;
	nvmlDevice_t d0 = NULL, h;
	nvmlReturn_t rc;
	void *lib;
	int e;

	if (argc == 3 && !strcmp(argv[1], "--lock-mhz"))
		lock_mhz = (unsigned int)strtoul(argv[2], NULL, 10);
	else if (argc != 1) {
		fprintf(stderr, "usage: nvml_record [--lock-mhz F] > file\n");
		return 2;
	}
	lib = dlopen("libnvidia-ml.so.1", RTLD_NOW);
	if (!lib) {
		fprintf(stderr, "nvml_record: %s\n", dlerror());
		return 1;
	}
#define LOAD(f) \
	if (!(p_##f = (__typeof__(p_##f))dlsym(lib, #f))) { \
		fprintf(stderr, "nvml_record: libnvidia-ml.so.1 lacks %s\n", #f); \
		return 1; \
	}
	FUNCS(LOAD)

	printf("# NVML playback for tests/nvidia/nvml_standin.c, written by\n"
	       "# tests/nvidia/nvml_record (tests/nvidia/check.sh, make check-nvidia)\n"
	       "# on %ld (Unix time). Lines: CALL ARGS = RETURN-CODE [VALUES];\n"
	       "# tests/nvidia/README.md describes them.\n", (long)time(NULL));
	rc = p_nvmlInit_v2();
	printf("nvmlInit_v2 = %d\n", rc);
	if (rc != NVML_SUCCESS)
		return 1;
	rc = p_nvmlSystemGetDriverVersion(drv, sizeof(drv));
	printf("nvmlSystemGetDriverVersion = %d%s%s\n", rc, rc ? "" : " ", rc ? "" : drv);
	rc = p_nvmlDeviceGetCount_v2(&count);
	printf("nvmlDeviceGetCount_v2 = %d", rc);
	end_u(rc, count);
	/* one past the last: the error kprof turns into "no such GPU" */
	for (i = 0; i <= count; i++) {
		rc = p_nvmlDeviceGetHandleByIndex_v2(i, &h);
		printf("nvmlDeviceGetHandleByIndex_v2 %u = %d\n", i, rc);
		if (rc == NVML_SUCCESS) {
			device(i, h);
			if (!i)
				d0 = h;
		}
	}
	rc = p_nvmlDeviceGetHandleByUUID(bogus, &h);
	printf("nvmlDeviceGetHandleByUUID %s = %d\n", bogus, rc);
	for (e = 0; e <= 30; e++)
		printf("nvmlErrorString %d = %s\n", e, p_nvmlErrorString((nvmlReturn_t)e));
	printf("nvmlErrorString 999 = %s\n", p_nvmlErrorString(NVML_ERROR_UNKNOWN));
	if (lock_mhz && d0)
		lock_probe(d0, lock_mhz);
	fflush(stdout);
	p_nvmlShutdown();
	return 0;
}
