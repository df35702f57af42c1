// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* kprofctl list [--json]: every /dev/kprofN and NVIDIA GPU, one line each. */
#include "kprofctl.h"
#include "kprof_dev.h"
#include "kprof_device.h"
#include "kprof_env.h"
#include "kprof_text.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>

static void list_usage(FILE *f)
{
	fprintf(f,
		"usage: kprofctl list [--json]\n"
		"List kprof devices: backend, cores/grid, RISCs, counters, clock,\n"
		"capture holder (pid comm) and markers dropped; then NVIDIA GPUs\n"
		"(through NVML, where the NVIDIA driver is installed): name, UUID,\n"
		"PCI bus id, SM and memory clocks, and kprof's clock lock if any.\n"
		"--device takes the name in the first column.\n"
		"  -j, --json   machine-readable output (an array of devices)\n");
}

/* One sysfs attribute of /sys/class/kprof/kprofN, newline stripped. */
static int sysfs_attr(int id, const char *attr, char *buf, size_t len)
{
	const char *root = kprof_env_or("KPROF_SYSFS_ROOT", "/sys");
	char path[512];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/class/kprof/kprof%d/%s",
		 root, id, attr);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return 0;
}

static int count_words(const char *s)
{
	int n = 0, in = 0;

	for (; *s; s++) {
		if (*s == ' ' || *s == '\n')
			in = 0;
		else if (!in++)
			n++;
	}
	return n;
}

/*
 * Without access to /dev/kprofN (not in group kprof), the world-readable
 * sysfs attributes still describe the device.
 */
static int sysfs_row(int id, int json, struct json_object *arr, int *rows)
{
	char backend[64], cores[32], grid[32], cg[72], riscs[128], cnt[1024], clk[128],
	     holder[64], dropped[32], name[64], link[512], path[512];
	const char *root = kprof_env_or("KPROF_SYSFS_ROOT", "/sys");
	ssize_t l;

	if (sysfs_attr(id, "backend", backend, sizeof(backend)))
		return -1;
	if (sysfs_attr(id, "cores", cores, sizeof(cores)))
		snprintf(cores, sizeof(cores), "?");
	if (sysfs_attr(id, "grid", grid, sizeof(grid)))
		snprintf(grid, sizeof(grid), "?");
	if (sysfs_attr(id, "riscs", riscs, sizeof(riscs)))
		riscs[0] = '\0';
	if (sysfs_attr(id, "counters", cnt, sizeof(cnt)))
		cnt[0] = '\0';
	if (sysfs_attr(id, "clock", clk, sizeof(clk)))
		snprintf(clk, sizeof(clk), "?");
	if (sysfs_attr(id, "capture_holder", holder, sizeof(holder)))
		snprintf(holder, sizeof(holder), "?");
	if (sysfs_attr(id, "markers_dropped", dropped, sizeof(dropped)))
		snprintf(dropped, sizeof(dropped), "?");
	snprintf(path, sizeof(path), "%s/class/kprof/kprof%d/device",
		 root, id);
	l = readlink(path, link, sizeof(link) - 1);
	if (l > 0) {
		link[l] = '\0';
		snprintf(name, sizeof(name), "%s", basename(link));
	} else {
		snprintf(name, sizeof(name), "kprof%d", id);
	}
	if (json) {
		struct json_object *o = json_object_new_object();

		char idstr[16];

		snprintf(idstr, sizeof(idstr), "%d", id);
		json_object_object_add(o, "kind", json_object_new_string("kprof"));
		json_object_object_add(o, "id", json_object_new_string(idstr));
		json_object_object_add(o, "device", json_object_new_int(id));
		json_object_object_add(o, "name", json_object_new_string(name));
		json_object_object_add(o, "backend", json_object_new_string(backend));
		json_object_object_add(o, "cores", json_object_new_string(cores));
		json_object_object_add(o, "grid", json_object_new_string(grid));
		json_object_object_add(o, "riscs", json_object_new_string(riscs));
		json_object_object_add(o, "clock", json_object_new_string(clk));
		json_object_object_add(o, "capture_holder", json_object_new_string(holder));
		json_object_object_add(o, "markers_dropped", json_object_new_string(dropped));
		json_object_object_add(o, "source", json_object_new_string("sysfs"));
		json_object_array_add(arr, o);
		return 0;
	}
	if (!(*rows)++)
		printf("%-4s %-14s %-8s %-10s %-5s %-5s %-20s %-24s %s\n", "DEV",
		       "NAME", "BACKEND", "CORES", "RISCS", "CNTRS", "CLOCK",
		       "CAPTURE", "DROPPED");
	/* the holder's comm is any process's name: no control characters */
	kprof_text_safe(name, sizeof(name), name);
	kprof_text_safe(backend, sizeof(backend), backend);
	kprof_text_safe(cores, sizeof(cores), cores);
	kprof_text_safe(grid, sizeof(grid), grid);
	kprof_text_safe(clk, sizeof(clk), clk);
	kprof_text_safe(holder, sizeof(holder), holder);
	kprof_text_safe(dropped, sizeof(dropped), dropped);
	snprintf(cg, sizeof(cg), "%s(%s)", cores, grid);	/* more than cores[] holds */
	printf("%-4d %-14s %-8s %-10s %-5d %-5d %-20s %-24s %s", id, name, backend, cg,
	       count_words(riscs), count_words(cnt), clk,
	       strcmp(holder, "none") ? holder : "idle", dropped);
	printf("   (sysfs: no access to %s/kprof%d)\n", kprof_dev_dir(), id);
	return 0;
}

/* One NVIDIA GPU: a row, or an element of arr. */
static void nvidia_row(const struct kprof_device_desc *desc, struct json_object *arr,
		       int *rows)
{
	const struct kprof_nvml_info *ni = &desc->nvidia;
	char sm[16], mem[16], lock[32];

	if (arr) {
		json_object_array_add(arr, kprofctl_nvidia_json(desc));
		return;
	}
	if (!(*rows)++)
		printf("%-10s %-28s %-40s %-16s %-8s %-8s %s\n", "DEV", "NAME", "UUID",
		       "PCI", "SM MHZ", "MEM MHZ", "LOCK");
	snprintf(sm, sizeof(sm), ni->sm_mhz ? "%u" : "n/a", ni->sm_mhz);
	snprintf(mem, sizeof(mem), ni->mem_mhz ? "%u" : "n/a", ni->mem_mhz);
	if (ni->held)
		snprintf(lock, sizeof(lock), "kprof %u MHz", ni->state.sm_locked_mhz);
	else
		snprintf(lock, sizeof(lock), "unknown");
	printf("%-10s %-28s %-40s %-16s %-8s %-8s %s\n", desc->name, ni->name, ni->uuid,
	       ni->pci_bus_id[0] ? ni->pci_bus_id : "n/a", sm, mem, lock);
}

int cmd_list(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct json_object *arr = NULL;
	struct kprof_device_id ids[KPROF_DEV_MAX], gpus[KPROF_DEVICE_INDEX_MAX + 1];
	struct kprof_err err = { 0 };
	int json = 0, c, n, ngpus, i, failed = 0, rows = 0, gpu_rows = 0;

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

	n = kprof_device_kprof_ops.enumerate(ids, KPROF_DEV_MAX, &err);
	if (n < 0)
		n = 0;
	/* No NVIDIA driver: no GPUs, and nothing to say about it here. */
	ngpus = kprof_device_nvidia_ops.enumerate(gpus, KPROF_DEVICE_INDEX_MAX + 1, &err);
	if (ngpus < 0) {
		kprofctl_err("%s", err.msg);
		failed = 1;
		ngpus = 0;
	}
	if (!n && !ngpus && !failed && !kprof_dev_module_loaded()) {
		kprofctl_err("%s/kprof* missing and /sys/class/kprof absent: load the module: insmod kprof.ko, then a backend (the simulator: insmod kprof_sim.ko sim_devices=1)",
			     kprof_dev_dir());
		return KPROFCTL_EXIT_FAIL;
	}
	if (json)
		arr = json_object_new_array();
	for (i = 0; i < n; i++) {
		const struct kprof_device_info *info;
		const struct kprof_counter_info *ci;
		const struct kprof_clock_state *cs;
		struct kprof_device_desc desc;
		struct kprof_device dev;
		char clk[48], cores[32], cap[48], comm[KPROF_COMM_LEN + 1],
		     name[KPROF_NAME_LEN + 1], backend[KPROF_NAME_LEN + 1];
		int r;

		r = kprof_device_open(&dev, &ids[i], 0, &err);
		if ((r == -EACCES || r == -EPERM) &&
		    !sysfs_row((int)ids[i].index, json, arr, &rows))
			continue;
		if (!r) {
			r = kprof_device_describe(&dev, &desc, &err);
			kprof_device_close(&dev);
		}
		if (r) {
			kprofctl_err("%s", err.msg);
			failed = 1;
			continue;
		}
		info = &desc.kprof.info;
		ci = &desc.kprof.ci;
		cs = &desc.kprof.cs;
		if (json) {
			json_object_array_add(arr, kprofctl_device_json(info, ci, cs));
			continue;
		}
		if (!rows++)
			printf("%-4s %-14s %-8s %-10s %-5s %-5s %-20s %-24s %s\n", "DEV",
			       "NAME", "BACKEND", "CORES", "RISCS", "CNTRS", "CLOCK",
			       "CAPTURE", "DROPPED");
		kprof_dev_clock_str(cs->flags, cs->mhz, clk, sizeof(clk));
		snprintf(cores, sizeof(cores), "%u(%ux%u)", info->num_cores,
			 info->grid_x, info->grid_y);
		/* names come from the driver and any process: no control
		 * characters (kprof_text.h)
		 */
		kprof_text_safen(comm, sizeof(comm), info->capture_comm,
				 sizeof(info->capture_comm));
		kprof_text_safen(name, sizeof(name), info->name, sizeof(info->name));
		kprof_text_safen(backend, sizeof(backend), info->backend, sizeof(info->backend));
		if (info->capture_pid)
			snprintf(cap, sizeof(cap), "pid %d (%s)", info->capture_pid, comm);
		else
			snprintf(cap, sizeof(cap), "idle");
		printf("%-4u %-14s %-8s %-10s %-5u %-5u %-20s %-24s %llu\n",
		       info->device_id, name, backend, cores,
		       info->riscs_per_core, ci->num_counters, clk, cap,
		       (unsigned long long)info->markers_dropped);
	}
	if (!json && !n && kprof_dev_module_loaded())
		printf("%s\n",
		       "no kprof devices (kprof.ko is loaded, no backend has a device: insmod kprof_sim.ko sim_devices=N, or the sim's new_device)");
	for (i = 0; i < ngpus; i++) {
		struct kprof_device_desc desc;
		struct kprof_device dev;
		int r;

		r = kprof_device_open(&dev, &gpus[i], 0, &err);
		if (!r) {
			r = kprof_device_describe(&dev, &desc, &err);
			kprof_device_close(&dev);
		}
		if (r) {
			kprofctl_err("%s", err.msg);
			failed = 1;
			continue;
		}
		if (!json && rows && !gpu_rows)
			printf("\n");
		nvidia_row(&desc, arr, &gpu_rows);
	}
	if (json) {
		printf("%s\n", json_object_to_json_string_ext(arr, JSON_C_TO_STRING_PRETTY));
		json_object_put(arr);
	}
	return failed ? KPROFCTL_EXIT_FAIL : 0;
}
