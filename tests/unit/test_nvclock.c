// SPDX-License-Identifier: GPL-2.0
/*
 * NVIDIA clock decisions (kprof_nvclock.c): clock rounding, what a reset
 * undoes, event reasons and lock texts; and the "gpu" section of the
 * clock-state file (kprof_clockstate.c): round trip, strict parse, and
 * host files without it still read.
 */
#include "kt.h"
#include "kprof_array_size.h"
#include "kprof_clockstate.h"
#include "kprof_nvclock.h"
#include "kprof_nvml_api.h"

#include <errno.h>

static void pick(void)
{
	/* descending, as NVML lists them */
	static const uint32_t clk[] = { 1980, 1965, 1950, 1215, 1200, 1185, 360, 345 };
	const size_t n = ARRAY_SIZE(clk);
	static const uint32_t unordered[] = { 600, 300, 900 };
	static const uint32_t even[] = { 1010, 1000 };
	uint32_t got = 0, lo, hi;

	KT_CHECK(kprof_nvclock_pick(clk, n, 1200, &got) == 0 && got == 1200, "exact: %u", got);
	KT_CHECK(kprof_nvclock_pick(clk, n, 1203, &got) == 1 && got == 1200, "down: %u", got);
	KT_CHECK(kprof_nvclock_pick(clk, n, 1210, &got) == 1 && got == 1215, "up: %u", got);
	/* a tie goes to the lower clock */
	KT_CHECK(kprof_nvclock_pick(clk, n, 1207, &got) == 1 && got == 1200, "tie 1207: %u", got);
	KT_CHECK(kprof_nvclock_pick(even, 2, 1005, &got) == 1 && got == 1000, "tie 1005: %u", got);
	KT_CHECK(kprof_nvclock_pick(clk, n, 1980, &got) == 0 && got == 1980, "top");
	KT_CHECK(kprof_nvclock_pick(clk, n, 345, &got) == 0 && got == 345, "bottom");
	/* the wide gap between 360 and 1185 */
	KT_CHECK(kprof_nvclock_pick(clk, n, 700, &got) == 1 && got == 360, "gap low: %u", got);
	KT_CHECK(kprof_nvclock_pick(clk, n, 900, &got) == 1 && got == 1185, "gap high: %u", got);
	got = 7;
	KT_CHECK(kprof_nvclock_pick(clk, n, 1981, &got) == -ERANGE && got == 7, "above");
	KT_CHECK(kprof_nvclock_pick(clk, n, 344, &got) == -ERANGE, "below");
	KT_CHECK(kprof_nvclock_pick(clk, n, 0, &got) == -ERANGE, "zero");
	KT_CHECK(kprof_nvclock_pick(clk, 0, 1200, &got) == -ENOENT, "empty");
	KT_CHECK(kprof_nvclock_pick(unordered, 3, 500, &got) == 1 && got == 600, "any order");
	kprof_nvclock_range(clk, n, &lo, &hi);
	KT_EQ_U64(lo, 345);
	KT_EQ_U64(hi, 1980);
	kprof_nvclock_range(unordered, 3, &lo, &hi);
	KT_EQ_U64(lo, 300);
	KT_EQ_U64(hi, 900);
	kprof_nvclock_range(clk, 0, &lo, &hi);
	KT_EQ_U64(lo, 0);
	KT_EQ_U64(hi, 0);
}

static void plan(void)
{
	struct kprof_gpu_clock held = { .sm_locked_mhz = 1200 };
	struct kprof_nvclock_plan p;

	/* nothing held: nothing to undo, unless forced */
	kprof_nvclock_reset_plan(NULL, 0, &p);
	KT_CHECK(!p.reset_sm && !p.reset_mem, "none: %d %d", p.reset_sm, p.reset_mem);
	kprof_nvclock_reset_plan(NULL, 1, &p);
	KT_CHECK(p.reset_sm && p.reset_mem, "force: %d %d", p.reset_sm, p.reset_mem);
	/* kprof locked SM only: memory is left alone */
	kprof_nvclock_reset_plan(&held, 0, &p);
	KT_CHECK(p.reset_sm && !p.reset_mem, "sm: %d %d", p.reset_sm, p.reset_mem);
	held.mem_locked_mhz = 2619;
	kprof_nvclock_reset_plan(&held, 0, &p);
	KT_CHECK(p.reset_sm && p.reset_mem, "sm+mem: %d %d", p.reset_sm, p.reset_mem);
	/* a record of a memory lock alone (SM reset, memory reset failed) */
	held.sm_locked_mhz = 0;
	kprof_nvclock_reset_plan(&held, 0, &p);
	KT_CHECK(!p.reset_sm && p.reset_mem, "mem: %d %d", p.reset_sm, p.reset_mem);
}

static void texts(void)
{
	struct kprof_gpu_clock held = { .sm_locked_mhz = 1200 };
	char buf[256], small[12];

	KT_STR(kprof_nvclock_reasons_str(0, buf, sizeof(buf)), "none");
	KT_STR(kprof_nvclock_reasons_str(KPROF_NVML_EVENT_GPU_IDLE, buf, sizeof(buf)), "gpu_idle");
	KT_STR(kprof_nvclock_reasons_str(KPROF_NVML_EVENT_APP_CLOCKS_SETTING |
					 KPROF_NVML_EVENT_SW_POWER_CAP |
					 KPROF_NVML_EVENT_HW_POWER_BRAKE_SLOWDOWN,
					 buf, sizeof(buf)),
	       "applications_clocks_setting, sw_power_cap, hw_power_brake_slowdown");
	KT_STR(kprof_nvclock_reasons_str(KPROF_NVML_EVENT_DISPLAY_CLOCK_SETTING | (1ULL << 40),
					 buf, sizeof(buf)), "display_clock_setting, bit 40");
	/* truncation keeps whole names only */
	KT_STR(kprof_nvclock_reasons_str(KPROF_NVML_EVENT_GPU_IDLE | KPROF_NVML_EVENT_SYNC_BOOST,
					 small, sizeof(small)), "gpu_idle");
	KT_STR(kprof_nvclock_reason_name(4), "sync_boost");
	KT_CHECK(!kprof_nvclock_reason_name(9), "bit 9 has no name");

	KT_STR(kprof_nvclock_lock_str(NULL, "/run/kprof/x.json", buf, sizeof(buf)),
	       "unknown: NVML cannot read a lock set by another tool (kprof holds none)");
	KT_STR(kprof_nvclock_lock_str(&held, "/run/kprof/x.json", buf, sizeof(buf)),
	       "locked by kprof at 1200 MHz (state file /run/kprof/x.json)");
	held.mem_locked_mhz = 2619;
	KT_STR(kprof_nvclock_lock_str(&held, "/s", buf, sizeof(buf)),
	       "locked by kprof at 1200 MHz, memory at 2619 MHz (state file /s)");

	KT_CHECK(kprof_nvclock_state_path("/run/kprof", "GPU-ab", buf, sizeof(buf)) == 0, "path");
	KT_STR(buf, "/run/kprof/nvidia-GPU-ab.json");
	KT_CHECK(kprof_nvclock_state_path("/run/kprof", "GPU-ab", small, sizeof(small)) ==
		 -ENAMETOOLONG, "path too long");

	KT_CHECK(strstr(kprof_nvclock_advice(KPROF_NVML_ERROR_NO_PERMISSION), "needs root"),
		 "no permission names root");
	KT_CHECK(strstr(kprof_nvclock_advice(KPROF_NVML_ERROR_DRIVER_NOT_LOADED),
			"modprobe nvidia") != NULL, "driver not loaded");
	KT_STR(kprof_nvclock_advice(KPROF_NVML_SUCCESS), "");
}

#define GPU_STATE(sm, mem, extra) \
	"{ \"version\": 1, \"sysfs_root\": \"\", \"pid\": 5, \"saved_at\": 7, \"boost\": null," \
	" \"no_turbo\": null, \"cpus\": [], \"gpu\": { \"uuid\": \"GPU-1\", \"index\": 2," \
	" \"sm_locked_mhz\": " sm ", \"mem_locked_mhz\": " mem ", \"before\": { \"sm_mhz\": 345," \
	" \"mem_mhz\": null, \"app_sm_mhz\": 1980, \"app_mem_mhz\": 2619," \
	" \"clocks_event_reasons\": 1" extra " } } }"

/* A state file without a GPU. */
#define HOST_STATE "{ \"version\": 1, \"sysfs_root\": \"\", \"pid\": 5, \"saved_at\": 7, \"boost\": null, \"no_turbo\": null, \"cpus\": [] }"

static void state_file(void)
{
	static const char host[] = HOST_STATE;
	static const char *const bad[] = {
		GPU_STATE("0", "null", ""),		/* MHz must be positive */
		GPU_STATE("-5", "null", ""),
		GPU_STATE("\"1200\"", "null", ""),
		GPU_STATE("1200", "null", ", \"x\": 1"),	/* unknown key in before */
		"{ \"version\": 1, \"sysfs_root\": \"\", \"pid\": 5, \"saved_at\": 7, \"boost\": null, \"no_turbo\": null, \"cpus\": [], \"gpu\": 1 }",
		"{ \"version\": 1, \"sysfs_root\": \"\", \"pid\": 5, \"saved_at\": 7, \"boost\": null, \"no_turbo\": null, \"cpus\": [], \"gpu\": { \"uuid\": \"GPU-1\" } }",
	};
	char *dir = kt_tmpdir();
	struct kprof_clockstate st = { 0 }, back;
	struct kprof_err err;
	char path[256];
	size_t i;

	/* round trip */
	snprintf(path, sizeof(path), "%s/nvidia-GPU-x.json", dir);
	st.pid = 77;
	st.saved_at = 1763793000;
	st.has_gpu = 1;
	strcpy(st.gpu.uuid, "GPU-b445e510-d6a9-df22-1365-9df0d096077a");
	st.gpu.index = 3;
	st.gpu.sm_locked_mhz = 1200;
	st.gpu.before_sm_mhz = 345;
	st.gpu.before_mem_mhz = 2619;
	st.gpu.before_app_sm_mhz = 1980;
	st.gpu.has_before_reasons = 1;
	st.gpu.before_reasons = 0x101;
	KT_CHECK(kprof_clockstate_write(path, &st, &err) == 0, "write: %s", err.msg);
	KT_CHECK(kprof_clockstate_read(path, &back, &err) == 0, "read: %s", err.msg);
	KT_EQ_U64(back.has_gpu, 1);
	KT_STR(back.gpu.uuid, st.gpu.uuid);
	KT_EQ_U64(back.gpu.index, 3);
	KT_EQ_U64(back.gpu.sm_locked_mhz, 1200);
	KT_EQ_U64(back.gpu.mem_locked_mhz, 0);		/* null */
	KT_EQ_U64(back.gpu.before_sm_mhz, 345);
	KT_EQ_U64(back.gpu.before_mem_mhz, 2619);
	KT_EQ_U64(back.gpu.before_app_sm_mhz, 1980);
	KT_EQ_U64(back.gpu.before_app_mem_mhz, 0);
	KT_EQ_U64(back.gpu.has_before_reasons, 1);
	KT_EQ_U64(back.gpu.before_reasons, 0x101);
	KT_EQ_U64(back.ncpus, 0);
	kprof_clockstate_free(&back);

	/* a host file (no "gpu") still reads, and says it has none */
	KT_CHECK(kprof_clockstate_parse(host, &back, &err) == 0, "host file: %s", err.msg);
	KT_EQ_U64(back.has_gpu, 0);
	kprof_clockstate_free(&back);

	KT_CHECK(kprof_clockstate_parse(GPU_STATE("1200", "2619", ""), &back, &err) == 0,
		 "gpu: %s", err.msg);
	KT_EQ_U64(back.gpu.index, 2);
	KT_EQ_U64(back.gpu.mem_locked_mhz, 2619);
	KT_EQ_U64(back.gpu.before_mem_mhz, 0);
	kprof_clockstate_free(&back);

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		err.msg[0] = '\0';
		KT_CHECK(kprof_clockstate_parse(bad[i], &back, &err) != 0, "bad[%zu] accepted", i);
		KT_CHECK(err.msg[0] != '\0', "bad[%zu]: no message", i);
	}
	kt_rmrf(dir);
}

int main(void)
{
	pick();
	plan();
	texts();
	state_file();
	return kt_done("nvclock");
}
