// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kprofctl lock-clock / reset-clock: a device's clock through its ops
 * (kprof_device.h: /dev/kprofN's KPROF_IOC_CLOCK_SET, whose pre-lock
 * state the kernel keeps; an NVIDIA GPU's through NVML, with kprof's
 * state file), and with --host the host CPUs through cpufreq.
 */
#include "kprofctl.h"
#include "kprof_cpufreq.h"
#include "kprof_dev.h"
#include "kprof_device.h"

#include <errno.h>
#include <getopt.h>
#include <string.h>

static void lock_usage(FILE *f)
{
	fprintf(f,
		"usage: kprofctl lock-clock [--device NAME] [--host] [--mhz F | --base | --max]\n"
		"                           [--mem-mhz F|current] [--host-mhz F]\n"
		"Pin the clock so that measurements repeat. Needs CAP_SYS_ADMIN (root).\n"
		"  -d, --device NAME  " KPROF_DEVICE_NAME_HELP "\n"
		"                   N: lock /dev/kprofN's core clock (KPROF_IOC_CLOCK_SET)\n"
		"                   nvidia:N: lock the GPU's SM clock with\n"
		"                   nvmlDeviceSetGpuLockedClocks(F, F); F is rounded to\n"
		"                   the nearest supported SM clock (said when it is).\n"
		"                   --base is the default applications clock (NVML has\n"
		"                   no base clock; on an H100 it equals the max),\n"
		"                   --max the max SM clock. What kprof locked is kept in\n"
		"                   /run/kprof/nvidia-<uuid>.json for reset-clock\n"
		"      --host       lock the host CPUs via cpufreq: governor performance,\n"
		"                   scaling_min_freq = scaling_max_freq, boost off\n"
		"                   (intel_pstate: no_turbo=1). The previous values are\n"
		"                   saved in /run/kprof/host-clock.json and restored by\n"
		"                   reset-clock --host.\n"
		"                   Without cpufreq (VMs) this is reported, not an error.\n"
		"      --mhz F      lock at F MHz (the device's; with --host only, the host's)\n"
		"      --base       lock at the base frequency (default)\n"
		"      --max        lock at the maximum (host: highest non-boost frequency)\n"
		"      --mem-mhz F  NVIDIA: also lock the memory clock at F MHz, or at\n"
		"                   its current clock with 'current'. A GPU that cannot\n"
		"                   (H100: not supported) is reported; the SM lock stands\n"
		"      --host-mhz F  host frequency when --device is given too\n"
		"A second lock keeps the state saved by the first; reset-clock restores\n"
		"the state from before the first lock. KPROF_SYSFS_ROOT replaces /sys and\n"
		"KPROF_RUN_DIR /run/kprof (as root only with `kprofctl --trust-env`); the\n"
		"run directory must belong to root (or you) and be writable by no one else.\n");
}

static void reset_usage(FILE *f)
{
	fprintf(f,
		"usage: kprofctl reset-clock [--device NAME [--force]] [--host [--forget]]\n"
		"Restore the clock state from before the first lock-clock, exactly:\n"
		"automatic DVFS, or a lock someone else had set. Needs CAP_SYS_ADMIN.\n"
		"  -d, --device NAME  " KPROF_DEVICE_NAME_HELP "\n"
		"                   N: state kept by the kernel.\n"
		"                   nvidia:N: undoes what kprof's state file says it\n"
		"                   locked (nvmlDeviceResetGpuLockedClocks, and the memory\n"
		"                   reset only if kprof locked memory), nothing else. NVML\n"
		"                   cannot read a lock another tool set: without a state\n"
		"                   file nothing is changed (and that is said)\n"
		"      --force      nvidia:N: reset SM and memory locks whoever set them\n"
		"      --host       host CPUs (state from /run/kprof/host-clock.json)\n"
		"      --forget     with --host: discard the saved state without changing\n"
		"                   any clock, after printing what it recorded (for a\n"
		"                   state that cannot be restored any more)\n"
		"If the kernel shows other values than the ones restored (it rounds or\n"
		"limits them), reset-clock --host says which and removes the saved state:\n"
		"writing it again would give the same.\n");
}

enum { OPT_HOST = 256, OPT_BASE, OPT_MAX, OPT_HOST_MHZ, OPT_MEM_MHZ, OPT_FORCE, OPT_FORGET };

/* Lock (req) or reset (req NULL) one device; messages as it goes. */
static int device_clock(const struct kprof_device_id *id,
			const struct kprof_clock_request *req, int force)
{
	struct kprof_err err = { 0 };
	struct kprof_device dev;
	char msg[2048];
	int r;

	r = kprof_device_open(&dev, id, 1, &err);
	if (r) {
		kprofctl_err("%s", err.msg);
		return KPROFCTL_EXIT_FAIL;
	}
	if (req)
		r = kprof_device_clock_lock(&dev, req, msg, sizeof(msg), &err);
	else
		r = kprof_device_clock_reset(&dev, force, msg, sizeof(msg), &err);
	kprof_device_close(&dev);
	/* What was done before a failure is said too (a refused memory lock). */
	if (msg[0])
		printf("%s\n", msg);
	if (r) {
		fflush(stdout);
		kprofctl_err("%s", err.msg);
		return KPROFCTL_EXIT_FAIL;
	}
	return 0;
}

static int host_result(int r, const char *msg)
{
	if (r == -ENOENT) {	/* no cpufreq: reported, not fatal */
		printf("%s\n", msg);
		return 0;
	}
	if (r == KPROF_HOST_RESET_ADJUSTED) {
		kprofctl_warn("%s", msg);
		return 0;
	}
	if (r) {
		kprofctl_err("%s", msg);
		return KPROFCTL_EXIT_FAIL;
	}
	printf("%s\n", msg);
	return 0;
}

static int clock_main(int argc, char **argv, int reset)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "host", no_argument, NULL, OPT_HOST },
		{ "mhz", required_argument, NULL, 'm' },
		{ "base", no_argument, NULL, OPT_BASE },
		{ "max", no_argument, NULL, OPT_MAX },
		{ "host-mhz", required_argument, NULL, OPT_HOST_MHZ },
		{ "mem-mhz", required_argument, NULL, OPT_MEM_MHZ },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "forget", no_argument, NULL, OPT_FORGET },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *name = reset ? "reset-clock" : "lock-clock";
	struct kprof_clock_request req = { .target = KPROF_CLOCK_TARGET_BASE };
	struct kprof_device_id id;
	uint32_t mhz = 0, host_mhz = 0;
	int have_dev = 0, host = 0, sel = 0, force = 0, forget = 0, c, rc = 0;
	enum kprof_cpufreq_target htarget = KPROF_CPUFREQ_BASE;
	char msg[512];

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+d:m:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (kprof_device_parse_name(optarg, &id, msg, sizeof(msg)))
				return kprofctl_usage_error(name, "%s", msg);
			have_dev = 1;
			break;
		case OPT_HOST:
			host = 1;
			break;
		case 'm':
			if (reset)
				return kprofctl_usage_error(name, "--mhz is for lock-clock");
			if (kprofctl_parse_u32(optarg, 100000, &mhz) || !mhz)
				return kprofctl_usage_error(name, "bad frequency '%s' (MHz)",
							    optarg);
			req.target = KPROF_CLOCK_TARGET_MHZ;
			req.mhz = mhz;
			sel++;
			break;
		case OPT_BASE:
		case OPT_MAX:
			if (reset)
				return kprofctl_usage_error(name,
							    "--base/--max are for lock-clock");
			req.target = c == OPT_BASE ? KPROF_CLOCK_TARGET_BASE :
				     KPROF_CLOCK_TARGET_MAX;
			htarget = c == OPT_BASE ? KPROF_CPUFREQ_BASE : KPROF_CPUFREQ_MAX;
			sel++;
			break;
		case OPT_HOST_MHZ:
			if (reset)
				return kprofctl_usage_error(name, "--host-mhz is for lock-clock");
			if (kprofctl_parse_u32(optarg, 100000, &host_mhz) || !host_mhz)
				return kprofctl_usage_error(name, "bad frequency '%s' (MHz)",
							    optarg);
			break;
		case OPT_MEM_MHZ:
			if (reset)
				return kprofctl_usage_error(name, "--mem-mhz is for lock-clock");
			req.mem = 1;
			if (strcmp(optarg, "current") &&
			    (kprofctl_parse_u32(optarg, 100000, &req.mem_mhz) || !req.mem_mhz))
				return kprofctl_usage_error(name,
							    "bad memory frequency '%s' (MHz, or 'current')",
							    optarg);
			break;
		case OPT_FORGET:
			if (!reset)
				return kprofctl_usage_error(name, "--forget is for reset-clock");
			forget = 1;
			break;
		case OPT_FORCE:
			if (!reset)
				return kprofctl_usage_error(name, "--force is for reset-clock");
			force = 1;
			break;
		case 'h':
			if (reset)
				reset_usage(stdout);
			else
				lock_usage(stdout);
			return 0;
		default:
			return kprofctl_usage_error(name, "unknown or incomplete option '%s'",
						    argv[optind - 1]);
		}
	}
	if (optind < argc)
		return kprofctl_usage_error(name, "unexpected argument '%s'", argv[optind]);
	if (!have_dev && !host)
		return kprofctl_usage_error(name, "give --device NAME, --host, or both");
	if ((req.mem || force) && !have_dev)
		return kprofctl_usage_error(name, "%s needs --device nvidia:N",
					    force ? "--force" : "--mem-mhz");
	if (sel > 1)
		return kprofctl_usage_error(name, "--mhz, --base and --max exclude each other");
	if (host_mhz && !host)
		return kprofctl_usage_error(name, "--host-mhz needs --host");
	if (forget && have_dev)
		return kprofctl_usage_error(name,
			"--forget is for --host: a device's saved clock state is the kernel's (N) or undone by reset-clock --device nvidia:N [--force]; reset-clock --device NAME restores it");
	if (forget) {
		int r = kprof_host_clock_forget(kprof_run_dir(), msg, sizeof(msg));

		return host_result(r, msg);
	}

	if (reset) {
		if (have_dev)
			rc = device_clock(&id, NULL, force);
		if (host) {
			int r = kprof_host_clock_reset(kprof_cpufreq_root(), kprof_run_dir(),
						       msg, sizeof(msg));

			rc = host_result(r, msg) ? KPROFCTL_EXIT_FAIL : rc;
		}
		return rc;
	}

	if (have_dev)
		rc = device_clock(&id, &req, 0);
	if (host) {
		uint32_t khz = 0;
		int r;

		if (host_mhz) {
			htarget = KPROF_CPUFREQ_KHZ;
			khz = host_mhz * 1000;
		} else if (!have_dev && req.target == KPROF_CLOCK_TARGET_MHZ) {
			htarget = KPROF_CPUFREQ_KHZ;
			khz = mhz * 1000;
		}
		r = kprof_host_clock_lock(kprof_cpufreq_root(), kprof_run_dir(),
					  htarget, khz, msg, sizeof(msg));
		rc = host_result(r, msg) ? KPROFCTL_EXIT_FAIL : rc;
	}
	return rc;
}

int cmd_lock_clock(int argc, char **argv)
{
	return clock_main(argc, argv, 0);
}

int cmd_reset_clock(int argc, char **argv)
{
	return clock_main(argc, argv, 1);
}
