// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* kprofctl list [--json]: every /dev/kprofN, one line each. */
#include "kprofctl.h"
#include "kprof_dev.h"

#include <fcntl.h>
#include <getopt.h>
#include <string.h>
#include <json-c/json.h>

static void list_usage(FILE *f)
{
	fprintf(f,
		"usage: kprofctl list [--json]\n"
		"List kprof devices: backend, cores/grid, RISCs, counters, clock,\n"
		"capture holder (pid comm) and markers dropped.\n"
		"  -j, --json   machine-readable output (an array of devices)\n");
}

int cmd_list(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct json_object *arr = NULL;
	int ids[KPROF_DEV_MAX];
	int json = 0, c, n, i, failed = 0, rows = 0;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = 1;
			break;
		case 'h':
			list_usage(stdout);
			return 0;
		default:
			return kprofctl_usage_error("list", "unknown option '%s'",
						    argv[optind - 1]);
		}
	}
	if (optind < argc)
		return kprofctl_usage_error("list", "unexpected argument '%s'", argv[optind]);

	n = kprof_dev_list(ids, KPROF_DEV_MAX);
	if (n < 0)
		n = 0;
	if (!n && !kprof_dev_module_loaded()) {
		kprofctl_err("%s/kprof* missing and /sys/class/kprof absent: load the module: insmod kprof.ko",
			     kprof_dev_dir());
		return KPROFCTL_EXIT_FAIL;
	}
	if (json)
		arr = json_object_new_array();
	for (i = 0; i < n; i++) {
		struct kprof_device_info info;
		struct kprof_counter_info ci;
		struct kprof_clock_state cs;
		struct kprof_dev dev;
		char clk[48], cores[32], cap[48], msg[256];
		int r;

		r = kprof_dev_open(&dev, ids[i], O_RDONLY);
		if (r) {
			kprofctl_err("%s", kprof_dev_open_error(ids[i], r, msg, sizeof(msg)));
			failed = 1;
			continue;
		}
		r = kprof_dev_info(&dev, &info);
		if (!r)
			r = kprof_dev_counter_info(&dev, &ci);
		if (!r)
			r = kprof_dev_clock_get(&dev, &cs);
		kprof_dev_close(&dev);
		if (r) {
			kprofctl_err("%s: query failed: %s", dev.path, strerror(-r));
			failed = 1;
			continue;
		}
		if (json) {
			json_object_array_add(arr, kprofctl_device_json(&info, &ci, &cs));
			continue;
		}
		if (!rows++)
			printf("%-4s %-14s %-8s %-10s %-5s %-5s %-20s %-24s %s\n", "DEV",
			       "NAME", "BACKEND", "CORES", "RISCS", "CNTRS", "CLOCK",
			       "CAPTURE", "DROPPED");
		kprof_dev_clock_str(cs.flags, cs.mhz, clk, sizeof(clk));
		snprintf(cores, sizeof(cores), "%u(%ux%u)", info.num_cores,
			 info.grid_x, info.grid_y);
		if (info.capture_pid)
			snprintf(cap, sizeof(cap), "pid %d (%.16s)",
				 info.capture_pid, info.capture_comm);
		else
			snprintf(cap, sizeof(cap), "idle");
		printf("%-4u %-14.32s %-8.32s %-10s %-5u %-5u %-20s %-24s %llu\n",
		       info.device_id, info.name, info.backend, cores,
		       info.riscs_per_core, ci.num_counters, clk, cap,
		       (unsigned long long)info.markers_dropped);
	}
	if (json) {
		printf("%s\n", json_object_to_json_string_ext(arr, JSON_C_TO_STRING_PRETTY));
		json_object_put(arr);
	} else if (!n) {
		printf("no kprof devices (the module is loaded; add one with sim_devices=N or the sim's new_device)\n");
	}
	return failed ? KPROFCTL_EXIT_FAIL : 0;
}
