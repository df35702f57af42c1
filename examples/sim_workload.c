// SPDX-License-Identifier: GPL-2.0
/*
 * sim_workload: a small "model" for the simulated accelerator. It drives
 * /dev/kprof_simN the way an accelerator runtime would: it launches a
 * stream of ops (LAUNCH ioctl) and synchronises every few ops (SYNC ioctl).
 * kprofctl traces exactly these two ioctls.
 *
 * The op mix is a transformer-ish block plus a convolution, sized like
 * real layers so that the sim's cost model makes matmul and conv2d
 * compute-bound and eltwise_add, softmax and layernorm memory-bound:
 *
 *   matmul       1024x1024x1024 bf16  2.1 GFLOP, 6 MiB    all cores
 *   conv2d       56x56x256 -> 256 3x3 3.7 GFLOP, 4.4 MiB  all cores
 *   eltwise_add  2M elements bf16     2 MFLOP,   12 MiB   first half
 *   softmax      4096x1024 bf16       21 MFLOP,  16 MiB   16 cores
 *   layernorm    4096x1024 bf16       34 MFLOP,  16 MiB   16 cores
 *
 * Work is given per core (the sim's LAUNCH takes per-core flops/bytes).
 * Usage: sim_workload [--ops N] [--device N] [--sync-every K] [--quiet]
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <linux/kprof_sim.h>

/* Cores of the default sim device (8x8); smaller devices are handled. */
#define WL_CORES_DEFAULT	64

struct wl_kind {
	const char *name;
	uint64_t flops;		/* whole op */
	uint64_t bytes;		/* whole op */
	uint32_t core_div;	/* op uses cores / core_div cores */
	uint32_t core_off_div;	/* starting at cores / core_off_div (0: 0) */
	uint32_t zones;		/* custom zones per RISC */
	uint64_t launched;
};

static struct wl_kind wl_kinds[] = {
	{ .name = "matmul", .flops = 2ULL * 1024 * 1024 * 1024,
	  .bytes = 3ULL * 1024 * 1024 * 2, .core_div = 1, .zones = 2 },
	{ .name = "eltwise_add", .flops = 2ULL << 20,
	  .bytes = 3ULL * (2 << 20) * 2, .core_div = 2 },
	{ .name = "softmax", .flops = 5ULL * 4096 * 1024,
	  .bytes = 2ULL * 4096 * 1024 * 2, .core_div = 4, .core_off_div = 2,
	  .zones = 1 },
	{ .name = "layernorm", .flops = 8ULL * 4096 * 1024,
	  .bytes = 2ULL * 4096 * 1024 * 2, .core_div = 4, .core_off_div = 4,
	  .zones = 1 },
	{ .name = "conv2d", .flops = 2ULL * 56 * 56 * 256 * 256 * 9,
	  .bytes = (56ULL * 56 * 256 * 2) * 2 + 256ULL * 256 * 9 * 2,
	  .core_div = 1 },
};

#define WL_NKINDS	(sizeof(wl_kinds) / sizeof(wl_kinds[0]))

/* One layer: which kinds run, in order. */
static const unsigned int wl_layer[] = { 3, 0, 2, 0, 1, 3, 0, 1, 4, 1 };

#define WL_LAYER_LEN	(sizeof(wl_layer) / sizeof(wl_layer[0]))

static uint64_t wl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void wl_usage(FILE *f)
{
	fprintf(f,
		"usage: sim_workload [--ops N] [--device N] [--sync-every K] [--quiet]\n"
		"  --ops N         ops to launch (default 1000)\n"
		"  --device N      use /dev/kprof_simN (default 0)\n"
		"  --sync-every K  SYNC after every K launches (default 16; 0: only at the end)\n"
		"  --quiet         print only the ops/s line\n");
}

static int wl_parse_uint(const char *s, const char *what, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-') {
		fprintf(stderr, "sim_workload: bad %s '%s': expected a non-negative integer\n",
			what, s);
		return -1;
	}
	return 0;
}

static int wl_sync(int fd)
{
	struct kprof_sim_sync s;

	memset(&s, 0, sizeof(s));
	s.size = sizeof(s);
	s.flags = KPROF_SIM_SYNC_ALL;
	if (ioctl(fd, KPROF_SIM_IOC_SYNC, &s) < 0) {
		fprintf(stderr, "sim_workload: SYNC failed: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * The vendor uAPI does not report the core count; kprof's sysfs does:
 * /sys/bus/kprof_sim/devices/simN/kprof/kprofM/cores.
 */
static int wl_cores(unsigned long dev, uint32_t *cores)
{
	char dir[128], path[512], buf[32];
	struct dirent *de;
	FILE *f;
	DIR *d;
	int ret = -1;

	snprintf(dir, sizeof(dir), "/sys/bus/kprof_sim/devices/sim%lu/kprof", dev);
	d = opendir(dir);
	if (!d)
		return -1;
	while ((de = readdir(d)) && ret) {
		if (strncmp(de->d_name, "kprof", 5))
			continue;
		snprintf(path, sizeof(path), "%s/%s/cores", dir, de->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fgets(buf, sizeof(buf), f) && atoi(buf) > 0) {
			*cores = (uint32_t)atoi(buf);
			ret = 0;
		}
		fclose(f);
	}
	closedir(d);
	return ret;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "ops", required_argument, NULL, 'n' },
		{ "device", required_argument, NULL, 'd' },
		{ "sync-every", required_argument, NULL, 's' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long nops = 1000, dev = 0, sync_every = 16;
	uint64_t t0, t1;
	uint32_t cores = WL_CORES_DEFAULT;
	bool quiet = false;
	char path[64];
	double secs;
	int fd, c;

	while ((c = getopt_long(argc, argv, "n:d:s:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (wl_parse_uint(optarg, "--ops", &nops))
				return 2;
			break;
		case 'd':
			if (wl_parse_uint(optarg, "--device", &dev))
				return 2;
			break;
		case 's':
			if (wl_parse_uint(optarg, "--sync-every", &sync_every))
				return 2;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			wl_usage(stdout);
			return 0;
		default:
			wl_usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		wl_usage(stderr);
		return 2;
	}

	snprintf(path, sizeof(path), "/dev/kprof_sim%lu", dev);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "sim_workload: cannot open %s: %s\n"
			"  (is kprof_sim.ko loaded with sim_devices=%lu or more? "
			"see /sys/bus/kprof_sim/new_device)\n",
			path, strerror(errno), dev + 1);
		return 1;
	}
	if (wl_cores(dev, &cores)) {
		cores = WL_CORES_DEFAULT;
		fprintf(stderr, "sim_workload: core count of sim%lu not in sysfs; assuming %u\n",
			dev, cores);
	}

	t0 = wl_now_ns();
	for (unsigned long i = 0; i < nops; i++) {
		struct wl_kind *k = &wl_kinds[wl_layer[i % WL_LAYER_LEN]];
		struct kprof_sim_launch l;
		uint32_t n = cores / k->core_div ? cores / k->core_div : 1;
		uint32_t first = k->core_off_div ? cores / k->core_off_div : 0;

		if (first + n > cores)
			first = cores - n;
		memset(&l, 0, sizeof(l));
		l.size = sizeof(l);
		snprintf(l.name, sizeof(l.name), "%s", k->name);
		l.first_core = first;
		l.num_cores = n;
		l.flops = k->flops / n;
		l.bytes = k->bytes / n;
		l.num_zones = k->zones;
		if (ioctl(fd, KPROF_SIM_IOC_LAUNCH, &l) < 0) {
			fprintf(stderr, "sim_workload: LAUNCH of op %lu (%s) failed: %s\n",
				i, k->name, strerror(errno));
			return 1;
		}
		k->launched++;
		if (sync_every && (i + 1) % sync_every == 0 && wl_sync(fd))
			return 1;
	}
	if (wl_sync(fd))
		return 1;
	t1 = wl_now_ns();
	close(fd);

	secs = (double)(t1 - t0) / 1e9;
	if (!quiet) {
		printf("sim_workload: %s, %u cores, sync every %lu\n", path,
		       cores, sync_every);
		for (size_t k = 0; k < WL_NKINDS; k++)
			printf("  %-12s %8" PRIu64 " ops\n", wl_kinds[k].name,
			       wl_kinds[k].launched);
	}
	printf("sim_workload: %lu ops in %.3f s: %.0f ops/s\n", nops, secs,
	       secs > 0 ? (double)nops / secs : 0.0);
	return 0;
}
