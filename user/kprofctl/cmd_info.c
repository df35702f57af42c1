// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* kprofctl info --device NAME [--json]: one device in detail. */
#include "kprofctl.h"
#include "kprof_cpufreq.h"
#include "kprof_dev.h"
#include "kprof_device.h"
#include "kprof_nvclock.h"
#include "kprof_text.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <string.h>
#include <json-c/json.h>

static void info_usage(FILE *f)
{
	fprintf(f,
		"usage: kprofctl info --device NAME [--json]\n"
		"       kprofctl info --host [--json]\n"
		"Show device N (/dev/kprofN): backend, core grid, RISCs, PMU counters,\n"
		"clock (current, locked, saved pre-lock state), capture holder and\n"
		"markers dropped. Needs read access to /dev/kprofN only.\n"
		"An NVIDIA GPU (nvidia:N): name, UUID, PCI bus id, driver, SM and memory\n"
		"clocks (now, max, default applications, supported SM range), clock\n"
		"event reasons, and kprof's own clock lock (NVML cannot read back a\n"
		"lock another tool set).\n"
		"  -d, --device NAME  " KPROF_DEVICE_NAME_HELP "\n"
		"      --host       host CPU clocks (cpufreq) and the state saved by\n"
		"                   lock-clock --host, if any\n"
		"  -j, --json       machine-readable output\n");
}

struct json_object *kprofctl_device_json(const struct kprof_device_info *info,
					 const struct kprof_counter_info *ci,
					 const struct kprof_clock_state *cs)
{
	struct json_object *o = json_object_new_object();
	struct json_object *clk = json_object_new_object();
	struct json_object *saved, *cap, *arr;
	char id[16];
	unsigned int i;

	snprintf(id, sizeof(id), "%u", info->device_id);

	json_object_object_add(o, "kind", json_object_new_string("kprof"));
	json_object_object_add(o, "id", json_object_new_string(id));
	json_object_object_add(o, "device", json_object_new_int(info->device_id));
	json_object_object_add(o, "name", json_object_new_string(info->name));
	json_object_object_add(o, "backend", json_object_new_string(info->backend));
	json_object_object_add(o, "uapi_version", json_object_new_int(info->version));
	json_object_object_add(o, "cores", json_object_new_int(info->num_cores));
	json_object_object_add(o, "grid_x", json_object_new_int(info->grid_x));
	json_object_object_add(o, "grid_y", json_object_new_int(info->grid_y));
	json_object_object_add(o, "riscs_per_core",
			       json_object_new_int(info->riscs_per_core));
	arr = json_object_new_array();
	for (i = 0; i < info->riscs_per_core && i < KPROF_MAX_RISCS; i++) {
		size_t len = strnlen(info->risc_names[i], sizeof(info->risc_names[i]));

		json_object_array_add(arr, json_object_new_string_len(info->risc_names[i], len));
	}
	json_object_object_add(o, "riscs", arr);
	json_object_object_add(o, "ref_clock_hz", json_object_new_int64(info->ref_clock_hz));
	json_object_object_add(o, "l1_ring_entries",
			       json_object_new_int(info->l1_ring_entries));
	arr = json_object_new_array();
	for (i = 0; ci && i < ci->num_counters; i++) {
		struct json_object *c = json_object_new_object();

		json_object_object_add(c, "name", json_object_new_string(ci->desc[i].name));
		json_object_object_add(c, "unit", json_object_new_string(ci->desc[i].unit));
		json_object_array_add(arr, c);
	}
	json_object_object_add(o, "counters", arr);

	json_object_object_add(clk, "mhz", json_object_new_int(cs ? cs->mhz : info->clock_mhz));
	json_object_object_add(clk, "min_mhz", json_object_new_int(info->clock_min_mhz));
	json_object_object_add(clk, "base_mhz", json_object_new_int(info->clock_base_mhz));
	json_object_object_add(clk, "max_mhz", json_object_new_int(info->clock_max_mhz));
	json_object_object_add(clk, "locked",
			       json_object_new_boolean(!!(info->clock_flags & KPROF_CLOCK_LOCKED)));
	if (cs && (cs->flags & KPROF_CLOCK_LOCKED)) {
		json_object_object_add(clk, "locked_mhz", json_object_new_int(cs->locked_mhz));
		json_object_object_add(clk, "locked_by_pid",
				       json_object_new_int(cs->locked_by_pid));
	}
	if (cs && (cs->flags & KPROF_CLOCK_SAVED)) {
		int was_locked = !!(cs->saved_flags & KPROF_CLOCK_LOCKED);

		saved = json_object_new_object();
		json_object_object_add(saved, "mhz", json_object_new_int(cs->saved_mhz));
		json_object_object_add(saved, "locked", json_object_new_boolean(was_locked));
		json_object_object_add(clk, "saved", saved);
	} else {
		json_object_object_add(clk, "saved", NULL);
	}
	json_object_object_add(o, "clock", clk);

	if (info->capture_pid) {
		size_t comm_len = strnlen(info->capture_comm, sizeof(info->capture_comm));

		cap = json_object_new_object();
		json_object_object_add(cap, "pid", json_object_new_int(info->capture_pid));
		json_object_object_add(cap, "comm",
				       json_object_new_string_len(info->capture_comm, comm_len));
		json_object_object_add(o, "capture", cap);
	} else {
		json_object_object_add(o, "capture", NULL);
	}
	json_object_object_add(o, "markers_dropped",
			       json_object_new_int64(info->markers_dropped));
	return o;
}

static void print_text(const struct kprof_device_info *info,
		       const struct kprof_counter_info *ci,
		       const struct kprof_clock_state *cs)
{
	char buf[64], name[KPROF_NAME_LEN + 1], backend[KPROF_NAME_LEN + 1],
	     text[KPROF_NAME_LEN + 1], unit[17];
	unsigned int i;

	/* names come from the driver: no control characters (kprof_text.h) */
	kprof_text_safen(name, sizeof(name), info->name, sizeof(info->name));
	kprof_text_safen(backend, sizeof(backend), info->backend, sizeof(info->backend));
	printf("device %u: %s (backend %s, uapi %u)\n", info->device_id,
	       name, backend, info->version);
	printf("  cores:        %u (grid %ux%u), %u RISCs per core:", info->num_cores,
	       info->grid_x, info->grid_y, info->riscs_per_core);
	for (i = 0; i < info->riscs_per_core && i < KPROF_MAX_RISCS; i++) {
		kprof_text_safen(text, sizeof(text), info->risc_names[i],
				 sizeof(info->risc_names[i]));
		printf(" %s", text);
	}
	printf("\n  ref clock:    %llu Hz\n", (unsigned long long)info->ref_clock_hz);
	printf("  L1 ring:      %u markers per RISC\n", info->l1_ring_entries);
	printf("  clock:        %s (min %u, base %u, max %u MHz)\n",
	       kprof_dev_clock_str(cs->flags, cs->mhz, buf, sizeof(buf)),
	       info->clock_min_mhz, info->clock_base_mhz, info->clock_max_mhz);
	if (cs->flags & KPROF_CLOCK_LOCKED)
		printf("  locked:       at %u MHz by pid %d\n", cs->locked_mhz,
		       cs->locked_by_pid);
	kprof_dev_clock_saved_str(cs, buf, sizeof(buf));
	printf("  saved state:  %s%s\n", buf,
	       (cs->flags & KPROF_CLOCK_SAVED) ? " (reset-clock restores it)" : "");
	if (info->capture_pid) {
		kprof_text_safen(text, sizeof(text), info->capture_comm,
				 sizeof(info->capture_comm));
		printf("  capture:      held by pid %d (%s)\n", info->capture_pid, text);
	} else {
		printf("  capture:      idle\n");
	}
	printf("  dropped:      %llu markers (device lifetime)\n",
	       (unsigned long long)info->markers_dropped);
	printf("  counters:     %u\n", ci->num_counters);
	for (i = 0; i < ci->num_counters && i < KPROF_MAX_COUNTERS; i++) {
		kprof_text_safen(text, sizeof(text), ci->desc[i].name, sizeof(ci->desc[i].name));
		kprof_text_safen(unit, sizeof(unit), ci->desc[i].unit, sizeof(ci->desc[i].unit));
		printf("    %2u %-32s %s\n", i, text, unit);
	}
}

static struct json_object *mhz_json(uint32_t mhz)
{
	return mhz ? json_object_new_int64(mhz) : NULL;
}

struct json_object *kprofctl_nvidia_json(const struct kprof_device_desc *desc)
{
	const struct kprof_nvml_info *ni = &desc->nvidia;
	struct json_object *o = json_object_new_object();
	struct json_object *clk = json_object_new_object();
	struct json_object *sup, *ev, *names, *lock;
	unsigned int b;

	json_object_object_add(o, "kind", json_object_new_string("nvidia"));
	json_object_object_add(o, "id", json_object_new_string(desc->name));
	json_object_object_add(o, "device", json_object_new_int64(ni->index));
	json_object_object_add(o, "name", json_object_new_string(ni->name));
	json_object_object_add(o, "uuid", json_object_new_string(ni->uuid));
	json_object_object_add(o, "pci_bus_id", ni->pci_bus_id[0] ?
			       json_object_new_string(ni->pci_bus_id) : NULL);
	json_object_object_add(o, "driver_version", ni->driver[0] ?
			       json_object_new_string(ni->driver) : NULL);
	json_object_object_add(clk, "sm_mhz", mhz_json(ni->sm_mhz));
	json_object_object_add(clk, "mem_mhz", mhz_json(ni->mem_mhz));
	json_object_object_add(clk, "max_sm_mhz", mhz_json(ni->max_sm_mhz));
	json_object_object_add(clk, "max_mem_mhz", mhz_json(ni->max_mem_mhz));
	json_object_object_add(clk, "app_sm_mhz", mhz_json(ni->app_sm_mhz));
	json_object_object_add(clk, "app_mem_mhz", mhz_json(ni->app_mem_mhz));
	json_object_object_add(clk, "default_app_sm_mhz", mhz_json(ni->def_app_sm_mhz));
	json_object_object_add(clk, "default_app_mem_mhz", mhz_json(ni->def_app_mem_mhz));
	if (ni->sup_sm_count) {
		sup = json_object_new_object();
		json_object_object_add(sup, "min_mhz", json_object_new_int64(ni->sup_sm_min));
		json_object_object_add(sup, "max_mhz", json_object_new_int64(ni->sup_sm_max));
		json_object_object_add(sup, "count", json_object_new_int64(ni->sup_sm_count));
		json_object_object_add(clk, "supported_sm", sup);
	} else {
		json_object_object_add(clk, "supported_sm", NULL);
	}
	if (ni->has_reasons) {
		ev = json_object_new_object();
		names = json_object_new_array();
		json_object_object_add(ev, "mask", json_object_new_int64((int64_t)ni->reasons));
		for (b = 0; b < 64; b++) {
			const char *n = kprof_nvclock_reason_name(b);
			char other[16];

			if (!(ni->reasons & (1ULL << b)))
				continue;
			snprintf(other, sizeof(other), "bit %u", b);
			json_object_array_add(names, json_object_new_string(n ? n : other));
		}
		json_object_object_add(ev, "reasons", names);
		json_object_object_add(clk, "event_reasons", ev);
	} else {
		json_object_object_add(clk, "event_reasons", NULL);
	}
	lock = json_object_new_object();
	json_object_object_add(lock, "by", json_object_new_string(ni->held ? "kprof" : "unknown"));
	if (ni->held) {
		json_object_object_add(lock, "sm_mhz", mhz_json(ni->state.sm_locked_mhz));
		json_object_object_add(lock, "mem_mhz", mhz_json(ni->state.mem_locked_mhz));
		json_object_object_add(lock, "pid", json_object_new_int(ni->state_pid));
	} else {
		const char *note = "NVML cannot read a lock set by another tool";

		json_object_object_add(lock, "note", json_object_new_string(note));
	}
	json_object_object_add(lock, "state_file", json_object_new_string(ni->state_path));
	json_object_object_add(clk, "lock", lock);
	json_object_object_add(o, "clock", clk);
	return o;
}

static const char *mhz_str(uint32_t mhz, char *buf, size_t len)
{
	if (mhz)
		snprintf(buf, len, "%u MHz", mhz);
	else
		snprintf(buf, len, "n/a");
	return buf;
}

static void print_nvidia(const struct kprof_device_desc *desc)
{
	const struct kprof_nvml_info *ni = &desc->nvidia;
	char a[32], b[32], c[32], d[32], txt[512];

	printf("%s: %s\n", desc->name, ni->name);
	printf("  uuid:          %s\n", ni->uuid);
	printf("  pci bus id:    %s\n", ni->pci_bus_id[0] ? ni->pci_bus_id : "n/a");
	printf("  driver:        %s\n", ni->driver[0] ? ni->driver : "n/a");
	printf("  SM clock:      %s now; max %s, default applications %s, applications %s\n",
	       mhz_str(ni->sm_mhz, a, sizeof(a)), mhz_str(ni->max_sm_mhz, b, sizeof(b)),
	       mhz_str(ni->def_app_sm_mhz, c, sizeof(c)), mhz_str(ni->app_sm_mhz, d, sizeof(d)));
	if (ni->sup_sm_count)
		printf("  supported SM:  %u..%u MHz (%u clocks at memory %s)\n", ni->sup_sm_min,
		       ni->sup_sm_max, ni->sup_sm_count, mhz_str(ni->mem_mhz, a, sizeof(a)));
	else
		printf("  supported SM:  n/a\n");
	printf("  memory clock:  %s now; max %s, default applications %s, applications %s\n",
	       mhz_str(ni->mem_mhz, a, sizeof(a)), mhz_str(ni->max_mem_mhz, b, sizeof(b)),
	       mhz_str(ni->def_app_mem_mhz, c, sizeof(c)), mhz_str(ni->app_mem_mhz, d, sizeof(d)));
	if (ni->has_reasons)
		printf("  clock events:  %s (0x%llx)\n",
		       kprof_nvclock_reasons_str(ni->reasons, txt, sizeof(txt)),
		       (unsigned long long)ni->reasons);
	else
		printf("  clock events:  n/a\n");
	kprof_nvclock_lock_str(ni->held ? &ni->state : NULL, ni->state_path, txt, sizeof(txt));
	printf("  lock:          %s\n", txt);
}

/* Host cpufreq state now, and what lock-clock --host saved. */
static int host_info(int json)
{
	const char *root = kprof_cpufreq_root();
	struct kprof_clockstate now, saved;
	struct kprof_err err = { 0 };
	struct json_object *o, *arr;
	char path[512];
	int have_now, have_saved;
	size_t i;

	have_now = !kprof_cpufreq_snapshot(root, &now);
	have_saved = !kprof_host_clock_saved(kprof_run_dir(), &saved, path, sizeof(path), &err);
	if (json) {
		o = json_object_new_object();
		json_object_object_add(o, "cpufreq", json_object_new_boolean(have_now));
		arr = json_object_new_array();
		for (i = 0; have_now && i < now.ncpus; i++) {
			struct json_object *p = json_object_new_object();

			json_object_object_add(p, "policy", json_object_new_int(now.cpus[i].cpu));
			json_object_object_add(p, "governor",
					       json_object_new_string(now.cpus[i].governor));
			json_object_object_add(p, "min_khz",
					       json_object_new_string(now.cpus[i].min_freq));
			json_object_object_add(p, "max_khz",
					       json_object_new_string(now.cpus[i].max_freq));
			json_object_array_add(arr, p);
		}
		json_object_object_add(o, "policies", arr);
		if (have_now && now.has_boost)
			json_object_object_add(o, "boost", json_object_new_string(now.boost));
		if (have_now && now.has_no_turbo)
			json_object_object_add(o, "no_turbo", json_object_new_string(now.no_turbo));
		json_object_object_add(o, "saved_state",
				       have_saved ? json_object_new_string(path) : NULL);
		printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY));
		json_object_put(o);
	} else if (!have_now) {
		printf("host: cpufreq not available (no %s/devices/system/cpu/cpufreq/policy*)\n",
		       root);
	} else {
		printf("host: %zu cpufreq policies", now.ncpus);
		if (now.has_boost)
			printf(", boost %s", now.boost);
		if (now.has_no_turbo)
			printf(", intel_pstate no_turbo %s", now.no_turbo);
		printf("\n");
		for (i = 0; i < now.ncpus; i++)
			printf("  policy%-4u %-14s min %s max %s kHz\n", now.cpus[i].cpu,
			       now.cpus[i].governor, now.cpus[i].min_freq,
			       now.cpus[i].max_freq);
	}
	if (!json) {
		if (have_saved)
			printf("saved state: %s (by pid %d; reset-clock --host restores it)\n",
			       path, saved.pid);
		else if (err.code != ENOENT)
			printf("saved state: unusable: %s (%s)\n", err.msg,
			       "reset-clock --host --forget discards it");
		else
			printf("saved state: none (not locked by kprofctl)\n");
	}
	if (have_now)
		kprof_clockstate_free(&now);
	if (have_saved)
		kprof_clockstate_free(&saved);
	return 0;
}

enum { OPT_HOST = 256 };

int cmd_info(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "host", no_argument, NULL, OPT_HOST },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct kprof_device_desc desc;
	struct kprof_device_id id;
	struct kprof_device dev;
	struct kprof_err err = { 0 };
	int have_dev = 0, json = 0, host = 0, c, r;
	char why[256];

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+d:jh", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (kprof_device_parse_name(optarg, &id, why, sizeof(why)))
				return kprofctl_usage_error("info", "%s", why);
			have_dev = 1;
			break;
		case 'j':
			json = 1;
			break;
		case OPT_HOST:
			host = 1;
			break;
		case 'h':
			info_usage(stdout);
			return 0;
		default:
			return kprofctl_usage_error("info", "unknown or incomplete option '%s'",
						    argv[optind - 1]);
		}
	}
	if (optind < argc)
		return kprofctl_usage_error("info", "unexpected argument '%s'", argv[optind]);
	if (host && have_dev)
		return kprofctl_usage_error("info", "--device or --host, one at a time");
	if (host)
		return host_info(json);
	if (!have_dev)
		return kprofctl_usage_error("info", "--device NAME (or --host) is required");

	r = kprof_device_open(&dev, &id, 0, &err);
	if (!r) {
		r = kprof_device_describe(&dev, &desc, &err);
		kprof_device_close(&dev);
	}
	if (r) {
		kprofctl_err("%s", err.msg);
		return KPROFCTL_EXIT_FAIL;
	}
	if (json) {
		struct json_object *o = desc.kind == KPROF_DEVICE_NVIDIA ?
			kprofctl_nvidia_json(&desc) :
			kprofctl_device_json(&desc.kprof.info, &desc.kprof.ci, &desc.kprof.cs);

		printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY));
		json_object_put(o);
	} else if (desc.kind == KPROF_DEVICE_NVIDIA) {
		print_nvidia(&desc);
	} else {
		print_text(&desc.kprof.info, &desc.kprof.ci, &desc.kprof.cs);
	}
	return 0;
}
