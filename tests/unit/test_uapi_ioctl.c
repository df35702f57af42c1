// SPDX-License-Identifier: GPL-2.0
/*
 * kprof's ioctl numbers: every command of /dev/kprofN and of the sim's
 * vendor device uses a type code that Documentation/userspace-api/ioctl/
 * ioctl-number.rst does not give to another driver (the neighbours kprof
 * once used or could drift into are listed here), kprof in 0x00-0x3F and
 * the sim in 0x80-0x8F of it, and no two commands share a number.
 */
#include "kt.h"
#include "kprof_array_size.h"

#include <linux/kprof.h>
#include <linux/kprof_sim.h>

/* Codes ioctl-number.rst assigns near ours: 0xB7 nsfs/remoteproc, ... */
static const unsigned int taken[] = { 0xB3, 0xB4, 0xB5, 0xB6, 0xB7, 0xB8, 0xBA, 0xC0 };

int main(void)
{
	static const struct { const char *name; unsigned long cmd; int sim; } cmds[] = {
		{ "INFO", KPROF_IOC_INFO, 0 },
		{ "COUNTERS", KPROF_IOC_COUNTERS, 0 },
		{ "CAPTURE_START", KPROF_IOC_CAPTURE_START, 0 },
		{ "CAPTURE_STOP", KPROF_IOC_CAPTURE_STOP, 0 },
		{ "CAPTURE_PAUSE", KPROF_IOC_CAPTURE_PAUSE, 0 },
		{ "CAPTURE_RESUME", KPROF_IOC_CAPTURE_RESUME, 0 },
		{ "RING_CONSUME", KPROF_IOC_RING_CONSUME, 0 },
		{ "CLOCK_GET", KPROF_IOC_CLOCK_GET, 0 },
		{ "CLOCK_SET", KPROF_IOC_CLOCK_SET, 0 },
		{ "SYNC_SAMPLE", KPROF_IOC_SYNC_SAMPLE, 0 },
		{ "SIM_LAUNCH", KPROF_SIM_IOC_LAUNCH, 1 },
		{ "SIM_SYNC", KPROF_SIM_IOC_SYNC, 1 },
	};
	size_t n = ARRAY_SIZE(cmds);

	for (size_t i = 0; i < n; i++) {
		unsigned int type = _IOC_TYPE(cmds[i].cmd), nr = _IOC_NR(cmds[i].cmd);

		for (size_t t = 0; t < ARRAY_SIZE(taken); t++)
			KT_CHECK(type != taken[t], "%s: type 0x%02X belongs to another driver",
				 cmds[i].name, type);
		KT_CHECK(type == 0xBB, "%s: type 0x%02X, not kprof's 0xBB", cmds[i].name, type);
		if (cmds[i].sim)
			KT_CHECK(nr >= 0x80 && nr <= 0x8F, "%s: nr 0x%02X outside 0x80-0x8F",
				 cmds[i].name, nr);
		else
			KT_CHECK(nr <= 0x3F, "%s: nr 0x%02X outside 0x00-0x3F", cmds[i].name, nr);
		/* Dispatch goes by number and direction: both must be unique. */
		for (size_t j = 0; j < i; j++)
			KT_CHECK(nr != _IOC_NR(cmds[j].cmd),
				 "%s and %s share nr 0x%02X", cmds[i].name, cmds[j].name, nr);
	}
	return kt_done("test_uapi_ioctl");
}
