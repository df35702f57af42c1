// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kprofctl lock-clock / reset-clock: the device clock through
 * KPROF_IOC_CLOCK_SET (the kernel keeps the pre-lock state, so reset works
 * after kprofctl exits), and with --host the host CPUs through cpufreq.
 */
#include "kprofctl.h"
#include "kprof_cpufreq.h"
#include "kprof_dev.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <string.h>

static void lock_usage(FILE *f)
{
	fprintf(f,
		"usage: kprofctl lock-clock [--device N] [--host] [--mhz F | --base | --max]\n"
		"                           [--host-mhz F]\n"
		"Pin the clock so that measurements repeat. Needs CAP_SYS_ADMIN.\n"
		"  -d, --device N   lock device N's core clock (KPROF_IOC_CLOCK_SET)\n"
		"      --host       lock the host CPUs via cpufreq: governor performance,\n"
		"                   scaling_min_freq = scaling_max_freq, boost off\n"
		"                   (intel_pstate: no_turbo=1). The previous values are\n"
		"                   saved in /run/kprof/host-clock.json and restored by\n"
		"                   reset-clock --host.\n"
		"                   Without cpufreq (VMs) this is reported, not an error.\n"
		"      --mhz F      lock at F MHz (the device's; with --host only, the host's)\n"
		"      --base       lock at the base frequency (default)\n"
		"      --max        lock at the maximum (host: highest non-boost frequency)\n"
		"      --host-mhz F host frequency when --device is given too\n"
		"A second lock keeps the state saved by the first; reset-clock restores\n"
		"the state from before the first lock. KPROF_SYSFS_ROOT replaces /sys and\n"
		"KPROF_RUN_DIR /run/kprof (as root only with `kprofctl --trust-env`); the\n"
		"run directory must belong to root (or you) and be writable by no one else.\n");
}

static void reset_usage(FILE *f)
{
	fprintf(f,
		"usage: kprofctl reset-clock [--device N] [--host] [--forget]\n"
		"Restore the clock state from before the first lock-clock, exactly:\n"
		"automatic DVFS, or a lock someone else had set. Needs CAP_SYS_ADMIN.\n"
		"  -d, --device N   device N (state kept by the kernel)\n"
		"      --host       host CPUs (state from /run/kprof/host-clock.json)\n"
		"      --forget     with --host: discard the saved state without changing\n"
		"                   any clock, after printing what it recorded (for a\n"
		"                   state that cannot be restored any more)\n"
		"If the kernel shows other values than the ones restored (it rounds or\n"
		"limits them), reset-clock --host says which and removes the saved state:\n"
		"writing it again would give the same.\n");
}

enum { OPT_HOST = 256, OPT_BASE, OPT_MAX, OPT_HOST_MHZ, OPT_FORGET };

static int open_dev(uint32_t id, struct kprof_dev *dev)
{
	char msg[256];
	int r = kprof_dev_open(dev, (int)id, O_RDWR);

	if (r == -EACCES)	/* group members may only have read access */
		r = kprof_dev_open(dev, (int)id, O_RDONLY);
	if (r) {
		kprofctl_err("%s", kprof_dev_open_error((int)id, r, msg, sizeof(msg)));
		return -1;
	}
	return 0;
}

static int device_clock(uint32_t id, uint32_t op, uint32_t mhz)
{
	struct kprof_clock_state before, after;
	struct kprof_device_info info;
	struct kprof_dev dev;
	char a[48], b[48];
	int r;

	if (open_dev(id, &dev))
		return KPROFCTL_EXIT_FAIL;
	r = kprof_dev_clock_get(&dev, &before);
	if (!r)
		r = kprof_dev_info(&dev, &info);
	if (r) {
		kprofctl_err("%s: cannot read clock state: %s", dev.path, strerror(-r));
		goto fail;
	}
	if (op == KPROF_CLOCK_OP_LOCK_MHZ &&
	    (mhz < info.clock_min_mhz || mhz > info.clock_max_mhz)) {
		kprofctl_err("device %u: %u MHz is outside %u..%u MHz", id, mhz,
			     info.clock_min_mhz, info.clock_max_mhz);
		goto fail;
	}
	r = kprof_dev_clock_set(&dev, op, mhz);
	if (r) {
		kprofctl_err("device %u: %s", id, kprofctl_clock_error(r));
		goto fail;
	}
	r = kprof_dev_clock_get(&dev, &after);
	if (r) {
		kprofctl_err("%s: cannot read clock state: %s", dev.path, strerror(-r));
		goto fail;
	}
	kprof_dev_clock_str(before.flags, before.mhz, b, sizeof(b));
	kprof_dev_clock_str(after.flags, after.mhz, a, sizeof(a));
	if (op == KPROF_CLOCK_OP_RESET) {
		printf("device %u: clock reset: %s (was %s)\n", id, a, b);
	} else {
		char saved[48];

		kprofctl_clock_saved_str(&after, saved, sizeof(saved));
		printf("device %u: clock %s (was %s); reset-clock restores %s\n",
		       id, a, b, saved);
	}
	kprof_dev_close(&dev);
	return 0;
fail:
	kprof_dev_close(&dev);
	return KPROFCTL_EXIT_FAIL;
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
		{ "forget", no_argument, NULL, OPT_FORGET },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *name = reset ? "reset-clock" : "lock-clock";
	uint32_t id = 0, mhz = 0, host_mhz = 0;
	int have_dev = 0, host = 0, sel = 0, forget = 0, c, rc = 0;
	uint32_t op = KPROF_CLOCK_OP_LOCK_BASE;
	enum kprof_cpufreq_target htarget = KPROF_CPUFREQ_BASE;
	char msg[512];

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+d:m:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (kprofctl_parse_u32(optarg, KPROF_DEV_MAX - 1, &id))
				return kprofctl_usage_error(name, "bad device number '%s'", optarg);
			have_dev = 1;
			break;
		case OPT_HOST:
			host = 1;
			break;
		case 'm':
			if (reset)
				return kprofctl_usage_error(name, "--mhz is for lock-clock");
			if (kprofctl_parse_u32(optarg, 100000, &mhz) || !mhz)
				return kprofctl_usage_error(name, "bad frequency '%s' (MHz)", optarg);
			op = KPROF_CLOCK_OP_LOCK_MHZ;
			sel++;
			break;
		case OPT_BASE:
		case OPT_MAX:
			if (reset)
				return kprofctl_usage_error(name, "--base/--max are for lock-clock");
			op = c == OPT_BASE ? KPROF_CLOCK_OP_LOCK_BASE : KPROF_CLOCK_OP_LOCK_MAX;
			htarget = c == OPT_BASE ? KPROF_CPUFREQ_BASE : KPROF_CPUFREQ_MAX;
			sel++;
			break;
		case OPT_FORGET:
			if (!reset)
				return kprofctl_usage_error(name, "--forget is for reset-clock");
			forget = 1;
			break;
		case OPT_HOST_MHZ:
			if (reset)
				return kprofctl_usage_error(name, "--host-mhz is for lock-clock");
			if (kprofctl_parse_u32(optarg, 100000, &host_mhz) || !host_mhz)
				return kprofctl_usage_error(name, "bad frequency '%s' (MHz)", optarg);
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
		return kprofctl_usage_error(name, "give --device N, --host, or both");
	if (sel > 1)
		return kprofctl_usage_error(name, "--mhz, --base and --max exclude each other");
	if (host_mhz && !host)
		return kprofctl_usage_error(name, "--host-mhz needs --host");
	if (forget && have_dev)
		return kprofctl_usage_error(name,
			"--forget is for --host: a device's saved clock state is the kernel's, not a file; reset-clock --device N restores it, and removing the device or unloading kprof.ko discards it");
	if (forget) {
		int r = kprof_host_clock_forget(kprof_run_dir(), msg, sizeof(msg));

		return host_result(r, msg);
	}

	if (reset) {
		if (have_dev)
			rc = device_clock(id, KPROF_CLOCK_OP_RESET, 0);
		if (host) {
			int r = kprof_host_clock_reset(kprof_cpufreq_root(), kprof_run_dir(),
						       msg, sizeof(msg));

			rc = host_result(r, msg) ? KPROFCTL_EXIT_FAIL : rc;
		}
		return rc;
	}

	if (have_dev)
		rc = device_clock(id, op, mhz);
	if (host) {
		uint32_t khz = 0;
		int r;

		if (host_mhz) {
			htarget = KPROF_CPUFREQ_KHZ;
			khz = host_mhz * 1000;
		} else if (!have_dev && op == KPROF_CLOCK_OP_LOCK_MHZ) {
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
