// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kprofctl capture: run a command (or a time span) under an exclusive
 * device capture, with host ioctl events from BPF and host perf counters,
 * spooling raw data as it arrives, then aggregate with libkprof.
 *
 * Order matters: the device capture and BPF are ready and the command's
 * perf counters are open before the command is released from its pipe,
 * so nothing it does goes unseen.
 */
#include "kprofctl.h"
#include "capture_child.h"
#include "capture_multi.h"
#include "capture_nvidia.h"
#include "capture_opts.h"
#include "capture_perf.h"
#include "kprof_array_size.h"
#include "kprof_steps.h"
#include "kprof_bpf.h"
#include "kprof_clockstate.h"
#include "kprof_cpufreq.h"
#include "kprof_dev.h"
#include "kprof_err.h"
#include "kprof_outdir.h"
#include "kprof_peaks.h"
#include "kprof_profile.h"
#include "kprof_progress.h"
#include "kprof_report.h"
#include "kprof_spool.h"
#include "kprof_user.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <getopt.h>
#include <glob.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <json-c/json.h>

#define DEFAULT_EVENTS	"cycles,instructions"
#define DRAIN_BUF	(1U << 20)
#define TICK_MS		100		/* spool flush / housekeeping period */
#define STOP_GRACE_MS	3000		/* wait for the command after a signal */
#define FINAL_DRAIN_MS	2000		/* wait for the kernel's last DMA */
/* After CMD exits: the device is quiet once a window brings few records. */
#define SETTLE_WINDOW_MS	200
#define SETTLE_RECORDS		64	/* periodic SYNC/CLOCK records, no markers */
#define SETTLE_MAX_MS		10000

static void capture_usage(FILE *f)
{
	fprintf(f,
		"usage: kprofctl capture --device N[,N...] [OPTIONS] -- CMD [ARGS...]\n"
		"       kprofctl capture --device N[,N...] [OPTIONS] --duration SEC\n"
		"Capture device N while CMD runs (or for SEC seconds): device markers,\n"
		"ops and PMU counters from /dev/kprofN, launch/sync ioctl timestamps\n"
		"from BPF, and host perf counters for CMD. Raw data is spooled to\n"
		"DIR/raw/ as it arrives; at the end ops.csv, counters.csv,\n"
		"device_log.csv, host_events.csv, params.json and summary.txt are\n"
		"written to DIR. The exit status is CMD's (128+signal if it was killed).\n"
		"\n"
		"CMD runs as --user's user if given; else, when kprofctl runs as root\n"
		"under sudo, as the user who ran sudo (SUDO_UID/SUDO_GID); else as\n"
		"kprofctl's own user: as root without sudo or --user, CMD runs as root.\n"
		"CMD runs in its own process group, without the terminal (give it input\n"
		"with < FILE), and is ended with everything in that group when the\n"
		"capture ends (docs/security.md).\n"
		"\n"
		"  -d, --device N[,N...]\n"
		"                        device number (/dev/kprofN). Several, comma\n"
		"                        separated: one capture each, all started before CMD\n"
		"                        and stopped after it, or none when one is taken;\n"
		"                        each device's files in DIR/devN/ as a one-device\n"
		"                        capture writes them, and in DIR trace.json (every\n"
		"                        device on one timeline), report.md and report.html\n"
		"                        (the devices compared). nvidia:N for an NVIDIA GPU\n"
		"                        (nvidia:N,nvidia:M or nvidia:all for several),\n"
		"                        with options of its own: see\n"
		"                        kprofctl capture --device nvidia:0 --help\n"
		"  -o, --output DIR      output directory (default ./kprof-N-YYYYmmdd-HHMMSS,\n"
		"                        several devices: ./kprof-N+M-YYYYmmdd-HHMMSS);\n"
		"                        a non-empty DIR is refused without --force; an\n"
		"                        existing DIR must be yours, not writable by others\n"
		"  -f, --force           write into a non-empty DIR: its raw/ and kprof's\n"
		"                        own output files are removed first\n"
		"  -e, --events LIST     host perf events for CMD, libpfm4 names, comma\n"
		"                        separated (default "
		DEFAULT_EVENTS "; 'none'). Without a\n"
		"                        hardware PMU, perf::task-clock is counted instead.\n"
		"      --op-filter GLOB  keep only ops whose OP CODE matches GLOB (fnmatch)\n"
		"                        in the outputs; the raw spool keeps everything\n"
		"      --step GLOB       several devices: an op matching GLOB starts a step,\n"
		"                        report.md names the slowest device per step\n"
		"                        (default " KPROF_STEP_DEFAULT ", NCCL's all-reduce)\n"
		"      --ring-size S     device ring size (power of two, 64K..256M; K/M/G)\n"
		"      --paused          start paused; send SIGUSR1 to kprofctl to resume\n"
		"      --duration SEC    capture for SEC seconds with no command\n"
		"  -u, --user NAME|UID   run CMD as this user (root only; under sudo only\n"
		"                        the sudo user; without sudo 'root' keeps root)\n"
		"      --no-bpf          no host ioctl timestamps (without root: BPF\n"
		"                        tracing sees every process using the device, so\n"
		"                        kprofctl loads it only as root)\n"
		"      --no-device-log   skip device_log.csv (one row per marker: large)\n"
		"      --progress        show progress (ops, markers/s, lost) even when\n"
		"                        stderr is not a terminal (by default only on one)\n"
		"      --trace-group N   trace.json: one device track per N cores (default\n"
		"                        1: per core, with zone slices); bounds the file\n"
		"                        for devices with many cores, without zone slices.\n"
		"                        Kept in params.json: `kprofctl report DIR` uses it too\n"
		"      --peaks FILE      device peaks for roofline.csv / report.md (saved\n"
		"                        as raw/peaks.json; default data/peaks/kprof_<backend>.json)\n"
		"      --test-drain-delay MS  tests only: sleep MS before each device\n"
		"                        drain, so that the ring overflows and LOST\n"
		"                        accounting can be checked\n"
		"      --bpf-hook KIND   force a BPF hook kind (handler, lsm, tp, ...)\n"
		"      --profile NAME    driver profile (data/profiles/NAME.json) for the\n"
		"                        ioctls to trace; default: the device backend's\n"
		"      --dev-node PATH   device node to trace (e.g. /dev/accel/accel0)\n"
		"      --launch-ioctl C  with --dev-node and no profile: the launch ioctl\n"
		"                        (0xc060bb81 or _IOWR('d', 0x40, 64))\n"
		"      --sync-ioctl C    ... and the sync ioctl (optional)\n"
		"\n"
		"Signals: Ctrl-C, SIGTERM or SIGHUP stops cleanly: CMD's process group\n"
		"gets the signal too, and the results are still written. If CMD has not\n"
		"ended 3 s later, or on a second signal, or when the capture fails\n"
		"(device removed, ring or spool error), CMD's group gets SIGTERM, then\n"
		"SIGKILL 2 s later. If kprofctl itself is killed, CMD gets SIGKILL (its\n"
		"own children may survive that). SIGUSR1 toggles pause/resume of the\n"
		"device capture.\n");
}

enum {
	OPT_RING_SIZE = CAPTURE_OPT_OWN, OPT_PAUSED, OPT_DURATION,
	OPT_NO_BPF, OPT_BPF_HOOK, OPT_DEV_NODE, OPT_LAUNCH_IOCTL,
	OPT_SYNC_IOCTL, OPT_PROFILE, OPT_DRAIN_DELAY, OPT_PEAKS,
};

#define STOP_GRACE_S	(STOP_GRACE_MS / 1000)

struct capture_opts {
	struct capture_common cc;	/* -o, -f, -u, --op-filter, ... */
	uint32_t dev_id;
	int have_dev;
	/* --device N,M,...: every device (ndev 1: a one-device capture) */
	struct kprof_device_id devs[KPROF_DEVICE_LIST_MAX];
	unsigned int ndev;
	const char *events;
	uint32_t ring_size;
	int paused;
	double duration;
	int no_bpf;
	uint32_t drain_delay_ms;	/* test knob: a deliberately slow reader */
	const char *bpf_hook;
	const char *dev_node;
	const char *launch_ioctl, *sync_ioctl;
	const char *profile;
	const char *peaks;
	char **cmd;
	int cmd_argc;
};

/* One kprof.ko capture being run: its device, spools, workload and loop. */
struct capture_session {
	struct capture_opts *o;
	char dir[4096];
	struct kprof_outdir *od;	/* dir, held open from check_dir on */
	struct kprof_dev dev;
	struct kprof_device_info info;
	struct kprof_counter_info cinfo;
	struct kprof_clock_state clk_start, clk_end;
	struct kprof_spool_writer *dspool, *hspool;
	struct kprof_bpf *bpf;
	struct capture_perf perf;
	uint8_t *buf;
	int epfd, sigfd, timerfd, durfd;
	struct kprof_user run_as;	/* CMD's user, the outputs' owner */
	struct capture_child child;	/* CMD; child.pid -1: none */
	char stop_why[128];		/* why CMD's group is ended, if it is */
	int stop_sig;			/* signal that asked us to stop */
	int paused;
	int device_gone;
	int kernel_stopped;		/* capture ended by the kernel */
	int ring_error;
	int spool_error;
	uint64_t host_events;
	uint64_t drains;		/* drain rounds that found data */
	uint64_t max_pending;		/* fullest the ring was seen, bytes */
	uint64_t pause_toggles;
	uint64_t settle_mark;		/* records_read at a settle window's start */
	struct kprof_progress prog;	/* terminal only */
	struct timespec t_start, t_end;
	char bpf_target_desc[640];
	/* BPF state kept after the programs are detached at the end. */
	int bpf_used;
	int have_bst;
	struct kprof_host_bpf_stats bst;
	char bpf_hook[128];
	char bpf_fallback[1024];
	/*
	 * A capture of several devices: one session each, linked from the
	 * first (the lead), which runs CMD, the signals and the loop; NULL,
	 * NULL: one device.
	 */
	struct capture_session *lead, *next;
};

static struct capture_session *lead_of(struct capture_session *c)
{
	return c->lead ? c->lead : c;
}

/* ------------------------------------------------------------------ */
/* Options                                                             */
/* ------------------------------------------------------------------ */

/* capture's own long options; capture_opts.h adds the common ones */
static const struct option capture_long_opts[] = {
	{ "device", required_argument, NULL, 'd' },
	{ "events", required_argument, NULL, 'e' },
	{ "ring-size", required_argument, NULL, OPT_RING_SIZE },
	{ "paused", no_argument, NULL, OPT_PAUSED },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "no-bpf", no_argument, NULL, OPT_NO_BPF },
	{ "bpf-hook", required_argument, NULL, OPT_BPF_HOOK },
	{ "dev-node", required_argument, NULL, OPT_DEV_NODE },
	{ "launch-ioctl", required_argument, NULL, OPT_LAUNCH_IOCTL },
	{ "sync-ioctl", required_argument, NULL, OPT_SYNC_IOCTL },
	{ "profile", required_argument, NULL, OPT_PROFILE },
	{ "peaks", required_argument, NULL, OPT_PEAKS },
	{ "test-drain-delay", required_argument, NULL, OPT_DRAIN_DELAY },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/*
 * One option of capture's command line into o: 0, -1 after --help, or
 * the usage error's exit status.
 */
static int parse_one_opt(struct capture_opts *o, int c, char **argv)
{
	struct kprof_err err = { 0 };
	uint32_t cmd;
	uint64_t sz;
	char *end;
	int r = capture_opts_take(&o->cc, c, optarg);

	if (r != 1)
		return r;
	switch (c) {
	case 'd':
		if (strchr(optarg, ',')) {
			if (capture_multi_parse(optarg, o->devs, &o->ndev))
				return KPROFCTL_EXIT_USAGE;
			o->dev_id = o->devs[0].index;
			o->have_dev = 1;
			break;
		}
		if (kprofctl_parse_u32(optarg, KPROF_DEV_MAX - 1, &o->dev_id))
			return kprofctl_usage_error("capture", "bad device number '%s'", optarg);
		o->devs[0] = (struct kprof_device_id){ .index = o->dev_id };
		o->ndev = 1;
		o->have_dev = 1;
		break;
	case 'e':
		o->events = optarg;
		break;
	case OPT_RING_SIZE:
		if (kprofctl_parse_size(optarg, &sz) || sz < KPROF_RING_SIZE_MIN ||
		    sz > KPROF_RING_SIZE_MAX || (sz & (sz - 1)))
			return kprofctl_usage_error("capture",
				"--ring-size '%s': a power of two from 64K to 256M", optarg);
		o->ring_size = (uint32_t)sz;
		break;
	case OPT_PAUSED:
		o->paused = 1;
		break;
	case OPT_DURATION:
		errno = 0;
		o->duration = strtod(optarg, &end);
		if (errno || *end || end == optarg || !(o->duration > 0) ||
		    o->duration > 7 * 86400.0)
			return kprofctl_usage_error("capture",
				"--duration '%s': seconds, > 0", optarg);
		break;
	case OPT_NO_BPF:
		o->no_bpf = 1;
		break;
	case OPT_BPF_HOOK:
		o->bpf_hook = optarg;
		break;
	case OPT_DEV_NODE:
		o->dev_node = optarg;
		break;
	case OPT_LAUNCH_IOCTL:
	case OPT_SYNC_IOCTL:
		if (kprof_ioctl_cmd_parse(optarg, &cmd, &err))
			return kprofctl_usage_error("capture", "%s: %s",
				c == OPT_LAUNCH_IOCTL ? "--launch-ioctl" : "--sync-ioctl",
				err.msg);
		if (c == OPT_LAUNCH_IOCTL)
			o->launch_ioctl = optarg;
		else
			o->sync_ioctl = optarg;
		break;
	case OPT_PROFILE:
		o->profile = optarg;
		break;
	case OPT_PEAKS:
		/* checked once the workload's user is known (check_peaks) */
		o->peaks = optarg;
		break;
	case OPT_DRAIN_DELAY:
		if (kprofctl_parse_u32(optarg, 10000, &o->drain_delay_ms))
			return kprofctl_usage_error("capture",
				"--test-drain-delay '%s': milliseconds, 0..10000", optarg);
		break;
	case 'h':
		capture_usage(stdout);
		return -1;
	default:
		return kprofctl_usage_error("capture", "unknown or incomplete option '%s'",
					    argv[optind - 1]);
	}
	return 0;
}

/* The options against each other, once all are read: 0 or the status. */
static int check_opts(struct capture_opts *o)
{
	if (!o->have_dev)
		return kprofctl_usage_error("capture", "--device N is required");
	if (!o->cmd_argc && !o->duration)
		return kprofctl_usage_error("capture",
					    "give a command after '--', or --duration SEC");
	if (o->cmd_argc && o->duration)
		return kprofctl_usage_error("capture",
					    "--duration is for captures without a command");
	if ((o->launch_ioctl || o->sync_ioctl) && !o->dev_node)
		return kprofctl_usage_error("capture",
					    "--launch-ioctl/--sync-ioctl need --dev-node");
	if (o->sync_ioctl && !o->launch_ioctl)
		return kprofctl_usage_error("capture", "--sync-ioctl needs --launch-ioctl");
	if (o->launch_ioctl && o->profile)
		return kprofctl_usage_error("capture", "--profile or --launch-ioctl, not both");
	if (o->cmd_argc) {
		char msg[512];

		if (capture_perf_check(o->events, msg, sizeof(msg)))
			return kprofctl_usage_error("capture", "%s", msg);
	}
	if (o->ndev > 1 && o->dev_node)
		return kprofctl_usage_error("capture",
					    "--dev-node names one device's node: not with several devices");
	if (o->ndev < 2 && o->cc.step)
		return kprofctl_usage_error("capture",
					    "--step compares several devices: give a list of them (--device N,M)");
	if (o->no_bpf && (o->dev_node || o->bpf_hook || o->profile))
		return kprofctl_usage_error("capture",
					    "--no-bpf excludes --dev-node, --profile and --bpf-hook");
	return 0;
}

static int parse_opts(int argc, char **argv, struct capture_opts *o)
{
	struct option lo[ARRAY_SIZE(capture_long_opts) + CAPTURE_COMMON_NLONG];
	int c, r;

	memset(o, 0, sizeof(*o));
	o->events = DEFAULT_EVENTS;
	optind = 1;
	opterr = 0;
	/* '+': stop at CMD, so that its own options stay its own. */
	if (capture_opts_merge(capture_long_opts, lo, ARRAY_SIZE(lo)))
		return KPROFCTL_EXIT_FAIL;
	while ((c = getopt_long(argc, argv, "+d:e:h" CAPTURE_COMMON_SHORT, lo, NULL)) != -1) {
		r = parse_one_opt(o, c, argv);
		if (r)
			return r;
	}
	o->cmd = argv + optind;
	o->cmd_argc = argc - optind;
	return check_opts(o);
}

/* ------------------------------------------------------------------ */
/* Draining                                                            */
/* ------------------------------------------------------------------ */

static void spool_fail(struct capture_session *c, const struct kprof_err *err)
{
	if (!c->spool_error)
		kprofctl_err("writing the raw spool failed: %s; stopping the capture (data so far kept)",
			     err->msg);
	c->spool_error = 1;
}

/* Copy everything the device ring holds into the spool. */
static void drain_device(struct capture_session *c)
{
	struct kprof_err err = { 0 };
	ssize_t n;

	if (c->ring_error || !c->dev.ctrl)
		return;
	if (c->o->drain_delay_ms)
		usleep(c->o->drain_delay_ms * 1000U);
	{
		uint64_t p = kprof_dev_ring_pending(&c->dev);

		if (p > c->max_pending)
			c->max_pending = p;
		if (p)
			c->drains++;
	}
	for (;;) {
		n = kprof_dev_ring_read(&c->dev, c->buf, DRAIN_BUF);
		if (n == 0)
			break;
		if (n < 0) {
			if (n == -ENODEV) {
				c->device_gone = 1;
				break;
			}
			kprofctl_err("device ring: %s at position %llu; stopping (data before it kept)",
				     n == -EPROTO ? "malformed record" : strerror((int)-n),
				     (unsigned long long)c->dev.pos);
			c->ring_error = 1;
			break;
		}
		if (c->dspool && !c->spool_error &&
		    kprof_spool_append(c->dspool, c->buf, (size_t)n, &err))
			spool_fail(c, &err);
		kprof_progress_count(&lead_of(c)->prog, c->buf, (size_t)n);
	}
	if (kprof_dev_ring_state(&c->dev) == KPROF_STATE_GONE)
		c->device_gone = 1;
}

static int on_host_event(const struct kprof_host_event *ev, void *ctx)
{
	struct capture_session *c = ctx;
	struct kprof_err err = { 0 };

	c->host_events++;
	if (c->hspool && !c->spool_error &&
	    kprof_spool_append(c->hspool, ev, sizeof(*ev), &err))
		spool_fail(c, &err);
	return 0;
}

static void drain_bpf(struct capture_session *c)
{
	if (c->bpf)
		kprof_bpf_consume(c->bpf);
}

static void flush_spools(struct capture_session *c)
{
	struct kprof_err err = { 0 };

	if (c->dspool && !c->spool_error && kprof_spool_flush(c->dspool, &err))
		spool_fail(c, &err);
	if (c->hspool && !c->spool_error && kprof_spool_flush(c->hspool, &err))
		spool_fail(c, &err);
}

/* ------------------------------------------------------------------ */
/* Set-up                                                              */
/* ------------------------------------------------------------------ */

static int open_device(struct capture_session *c)
{
	char msg[256];
	int r;

	r = kprof_dev_open(&c->dev, (int)c->o->dev_id, O_RDWR);
	if (r) {
		kprofctl_err("%s", kprof_dev_open_error((int)c->o->dev_id, r, msg, sizeof(msg)));
		return -1;
	}
	r = kprof_dev_info(&c->dev, &c->info);
	if (!r)
		r = kprof_dev_counter_info(&c->dev, &c->cinfo);
	if (!r)
		r = kprof_dev_clock_get(&c->dev, &c->clk_start);
	if (r) {
		kprofctl_err("%s: query failed: %s", c->dev.path, strerror(-r));
		return -1;
	}
	return 0;
}

static int start_capture(struct capture_session *c)
{
	struct kprof_device_info now;
	int r;

	r = kprof_dev_capture_start(&c->dev, c->o->paused ? KPROF_CAPTURE_PAUSED : 0,
				    c->o->ring_size, 0);
	if (r == -EBUSY) {
		if (!kprof_dev_info(&c->dev, &now) && now.capture_pid)
			kprofctl_err("device %u is being captured by pid %d (%.16s); wait or stop it",
				     c->o->dev_id, now.capture_pid, now.capture_comm);
		else
			kprofctl_err("device %u is being captured by another process; wait or stop it",
				     c->o->dev_id);
		return -1;
	}
	if (r == -EACCES) {
		kprofctl_err("device %u: capture refused: a capture sees every process's work on the device, so it needs CAP_PERFMON or CAP_SYS_ADMIN while /sys/module/kprof/parameters/paranoid is 1; run as root, or have root let the kprof group capture with 'echo 0 > /sys/module/kprof/parameters/paranoid'",
			     c->o->dev_id);
		return -1;
	}
	if (r == -EPERM) {
		char msg[512];

		kprofctl_err("device %u: capture refused: %s", c->o->dev_id,
			     kprof_dev_memlock_error(c->o->ring_size, msg, sizeof(msg)));
		return -1;
	}
	if (r) {
		uint32_t ring = c->o->ring_size ? c->o->ring_size : KPROF_RING_SIZE_DEFAULT;

		if (r == -EBADF)
			kprofctl_err("device %u: capture start failed: %s", c->o->dev_id,
				     "permission denied (open /dev/kprofN read-write: group kprof or root)");
		else if (r == -ENOMEM)
			kprofctl_err("device %u: capture start failed: no memory for a %u KiB capture ring that the device can reach (a device with a narrow DMA mask and no IOMMU can use only low memory); use a smaller --ring-size",
				     c->o->dev_id, ring >> 10);
		else
			kprofctl_err("device %u: capture start failed: %s", c->o->dev_id,
				     strerror(-r));
		return -1;
	}
	if (!(c->clk_start.flags & KPROF_CLOCK_LOCKED))
		kprofctl_warn("device %u clock is not locked (dvfs, now %u MHz): device durations will vary; 'kprofctl lock-clock --device %u' pins it",
			      c->o->dev_id, c->clk_start.mhz, c->o->dev_id);
	c->paused = c->o->paused;
	r = kprof_dev_ring_map(&c->dev);
	if (r) {
		kprofctl_err("device %u: cannot map the capture ring: %s", c->o->dev_id,
			     strerror(-r));
		return -1;
	}
	return 0;
}

/*
 * The node to trace for a profile: --dev-node if given; else the node of
 * this very device (the sim's vendor node is kprof_<device name>, e.g.
 * kprof_sim0) when it matches the profile's glob; else the glob's only
 * match.
 */
static int profile_node(struct capture_session *c, const struct kprof_profile *p,
			char *node, size_t len)
{
	const char *base = strrchr(p->node, '/');
	glob_t g;
	int r;

	if (c->o->dev_node) {
		snprintf(node, len, "%s", c->o->dev_node);
		return 0;
	}
	snprintf(node, len, "%s/kprof_%.32s", kprof_dev_dir(), c->info.name);
	if (!fnmatch(base ? base + 1 : p->node, strrchr(node, '/') + 1, 0))
		return 0;
	r = glob(p->node, 0, NULL, &g);
	if (r == 0 && g.gl_pathc == 1) {
		snprintf(node, len, "%s", g.gl_pathv[0]);
		globfree(&g);
		return 0;
	}
	kprofctl_err("profile %s: %s nodes match %s; pick one with --dev-node",
		     p->name, r == 0 ? "several" : "no", p->node);
	if (r == 0)
		globfree(&g);
	return -1;
}

/* Which driver profile applies: --profile, --dev-node, or the backend's. */
static int pick_profile(struct capture_session *c, struct kprof_profile *out)
{
	struct kprof_profile *all = NULL;
	const struct kprof_profile *p = NULL;
	struct kprof_err err = { 0 };
	char dir[4096];
	size_t n = 0;
	int r;

	if (c->o->launch_ioctl) {
		r = kprof_profile_from_cli(c->o->dev_node, c->o->launch_ioctl,
					   c->o->sync_ioctl, out, &err);
		if (r)
			kprofctl_err("%s", err.msg);
		return r ? -1 : 0;
	}
	if (kprof_profiles_dir(dir, sizeof(dir)) == 0) {
		r = kprof_profiles_load_dir(dir, &all, &n, &err);
		if (r) {
			kprofctl_err("driver profiles: %s", err.msg);
			return -1;
		}
	}
	if (c->o->profile) {
		p = kprof_profile_find(all, n, c->o->profile);
		if (!p) {
			kprofctl_err("no driver profile '%s' in %s",
				     c->o->profile, n ? dir : "(no profile directory)");
			free(all);
			return -1;
		}
	} else {
		p = kprof_profile_for_backend(all, n, c->info.backend);
	}
	if (p) {
		*out = *p;
	} else if (!c->o->profile && !strcmp(c->info.backend, "sim")) {
		kprof_profile_builtin_sim(out);	/* no data files installed */
	} else {
		kprofctl_err("device %u (backend %s): no driver profile; give --profile, or --dev-node with --launch-ioctl [--sync-ioctl], or --no-bpf",
			     c->o->dev_id, c->info.backend);
		free(all);
		return -1;
	}
	free(all);
	return 0;
}

static int setup_bpf(struct capture_session *c)
{
	struct kprof_profile prof;
	struct kprof_bpf_target t;
	struct kprof_err err = { 0 };
	char node[512];
	int r;

	if (c->o->no_bpf)
		return 0;
	/*
	 * The programs see every process that uses the device, not only
	 * CMD: that is root's to allow, whatever capabilities we hold.
	 */
	if (geteuid() != 0) {
		kprofctl_err("host ioctl tracing needs root: its BPF programs see every process using the device, not only CMD. Run kprofctl as root (`sudo kprofctl capture ... -- CMD` still runs CMD as you), or give --no-bpf");
		return -1;
	}
	if (pick_profile(c, &prof) || profile_node(c, &prof, node, sizeof(node)))
		return -1;
	r = kprof_profile_target(&prof, node, &t, &err);
	if (r) {
		kprofctl_err("%s; --no-bpf captures without host ioctl timestamps", err.msg);
		return -1;
	}
	t.tgid = 0;	/* whole device: CMD's children are traced too */
	if (c->o->bpf_hook && kprof_bpf_hook_parse(c->o->bpf_hook, &t.hook)) {
		kprofctl_err("unknown --bpf-hook '%s'", c->o->bpf_hook);
		return -1;
	}
	snprintf(c->bpf_target_desc, sizeof(c->bpf_target_desc),
		 "%s (%u:%u) profile %s launch 0x%08x sync 0x%08x", node,
		 major(t.dev), minor(t.dev), prof.name, t.launch_cmd, t.sync_cmd);
	r = kprof_bpf_open(&t, on_host_event, c, &c->bpf, &err);
	if (r) {
		kprofctl_err("cannot load the BPF ioctl tracer: %s%s",
			     err.msg[0] ? err.msg : strerror(-r),
			     "; --no-bpf captures without host ioctl timestamps");
		return -1;
	}
	c->bpf_used = 1;
	snprintf(c->bpf_hook, sizeof(c->bpf_hook), "%s", kprof_bpf_hook_name(c->bpf));
	snprintf(c->bpf_fallback, sizeof(c->bpf_fallback), "%s",
		 kprof_bpf_fallback_log(c->bpf));
	if (kprof_bpf_fallback_log(c->bpf)[0])
		kprofctl_warn("BPF hook %s (cheaper hooks failed: %s)",
			      kprof_bpf_hook_name(c->bpf), kprof_bpf_fallback_log(c->bpf));
	return 0;
}

static int default_dir(struct capture_session *c)
{
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;

	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	snprintf(c->dir, sizeof(c->dir), "./kprof-%u-%s", c->o->dev_id, stamp);
	return 0;
}

/*
 * --peaks, read now rather than after a long capture, and as the
 * workload's user: under sudo, root must not read for the user a file the
 * user could not (its numbers would reach params.json).
 */
static int check_peaks(struct capture_session *c)
{
	struct kprof_err err = { 0 };
	struct kprof_peaks pk;
	struct kprof_fsid ofs;
	int r;

	if (!c->o->peaks)
		return 0;
	if (c->run_as.drop)
		kprof_fsid_enter(c->run_as.uid, c->run_as.gid, &ofs);
	r = kprof_peaks_load(c->o->peaks, &pk, &err);
	if (c->run_as.drop)
		kprof_fsid_leave(&ofs);
	if (r)
		kprofctl_err("--peaks: %s", err.msg);
	return r ? -1 : 0;
}

/* Opens the output directory: a new capture starts from an empty raw/. */
static int check_dir(struct capture_session *c)
{
	if (c->o->cc.outdir)
		snprintf(c->dir, sizeof(c->dir), "%s", c->o->cc.outdir);
	else
		default_dir(c);
	/* the workload's user owns what it made: the sudo user, --user */
	c->od = kprofctl_outdir(c->dir, KPROF_OUTDIR_EMPTY |
				(c->o->cc.force ? KPROF_OUTDIR_FORCE | KPROF_OUTDIR_FORCE_RAW : 0),
				c->run_as.drop ? c->run_as.uid : (uid_t)-1,
				c->run_as.drop ? c->run_as.gid : (gid_t)-1);
	return c->od ? 0 : -1;
}

static int open_spools(struct capture_session *c)
{
	struct kprof_err err = { 0 };

	c->dspool = kprof_spool_create(c->od, KPROF_SPOOL_DEVICE, &c->info, &c->cinfo, &err);
	if (!c->dspool) {
		kprofctl_err("cannot create the device spool in %s: %s", c->dir, err.msg);
		return -1;
	}
	if (c->bpf) {
		c->hspool = kprof_spool_create(c->od, KPROF_SPOOL_HOST, NULL, NULL, &err);
		if (!c->hspool) {
			kprofctl_err("cannot create the host spool in %s: %s", c->dir, err.msg);
			return -1;
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Event loop                                                          */
/* ------------------------------------------------------------------ */

static void toggle_pause(struct capture_session *c)
{
	int r = c->paused ? kprof_dev_capture_resume(&c->dev)
			  : kprof_dev_capture_pause(&c->dev);

	if (r) {
		kprofctl_warn("device %u: %s failed: %s", c->o->dev_id,
			      c->paused ? "resume" : "pause", strerror(-r));
		return;
	}
	c->paused = !c->paused;
	c->pause_toggles++;
	if (!c->lead)
		fprintf(stderr, "kprofctl: capture %s\n", c->paused ? "paused" : "resumed");
}

/* The kernel ended the capture (device removed, DMA timeout). */
static void device_hup(struct capture_session *c)
{
	uint32_t st = kprof_dev_ring_state(&c->dev);

	epoll_ctl(lead_of(c)->epfd, EPOLL_CTL_DEL, c->dev.fd, NULL);
	if (st == KPROF_STATE_GONE) {
		c->device_gone = 1;
	} else if (!c->kernel_stopped) {
		c->kernel_stopped = 1;
		kprofctl_warn("device %u: the kernel ended the capture (ring state %u); collecting what is there",
			      c->o->dev_id, st);
	}
}

static int epoll_add(int epfd, int fd, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.fd = fd };

	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev);
}

static int64_t ms_since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t0->tv_sec) * 1000LL +
	       (now.tv_nsec - t0->tv_nsec) / 1000000LL;
}

/* "SIGINT" */
static const char *sig_name(int sig, char *buf, size_t len)
{
	const char *a = sigabbrev_np(sig);

	if (a)
		snprintf(buf, len, "SIG%s", a);
	else
		snprintf(buf, len, "signal %d", sig);
	return buf;
}

/* Say why CMD's process group is to be ended (the first reason wins). */
static void stop_because(struct capture_session *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void stop_because(struct capture_session *c, const char *fmt, ...)
{
	va_list ap;

	if (c->stop_why[0])
		return;
	va_start(ap, fmt);
	vsnprintf(c->stop_why, sizeof(c->stop_why), fmt, ap);
	va_end(ap);
}

/* Ctrl-C, SIGTERM, SIGHUP: the first asks CMD's group to stop, a second ends it. */
static int on_stop_signal(struct capture_session *c, int sig, int stopping)
{
	char name[32];

	if (stopping) {
		stop_because(c, "second %s", sig_name(sig, name, sizeof(name)));
		fprintf(stderr, "kprofctl: stopping now\n");
		return 1;
	}
	c->stop_sig = sig;
	/* CMD has its own process group: a terminal's Ctrl-C reaches only us. */
	if (c->child.pid > 0 && !c->child.exited) {
		capture_child_signal(&c->child, sig);
		capture_child_signal(&c->child, SIGCONT);
	}
	fprintf(stderr, "kprofctl: %s: stopping the capture, writing results\n",
		strsignal(sig));
	return 0;
}

/*
 * A device whose capture cannot go on ends the loop (every device's:
 * they are stopped together); 1 when one did, the reason given.
 */
static int device_failed(struct capture_session *c)
{
	struct capture_session *p;

	for (p = c; p; p = p->next) {
		if (p->device_gone)
			stop_because(c, "device %u was removed", p->o->dev_id);
		else if (p->ring_error)
			stop_because(c, "reading the device ring failed");
		else if (p->spool_error)
			stop_because(c, "writing the raw spool failed");
		else
			continue;
		return 1;
	}
	return 0;
}

/* 1 when the kernel ended every device's capture. */
static int all_kernel_stopped(struct capture_session *c)
{
	struct capture_session *p;

	for (p = c; p; p = p->next)
		if (!p->kernel_stopped)
			return 0;
	return 1;
}

/* The loop's event on fd of a device (its ring or its BPF programs). */
static int device_event(struct capture_session *c, const struct epoll_event *ev)
{
	struct capture_session *p;

	for (p = c; p; p = p->next) {
		if (ev->data.fd == p->dev.fd) {
			drain_device(p);
			if (ev->events & (EPOLLHUP | EPOLLERR))
				device_hup(p);
			return 1;
		}
		if (p->bpf && ev->data.fd == kprof_bpf_fd(p->bpf)) {
			drain_bpf(p);
			return 1;
		}
	}
	return 0;
}

static void run_loop(struct capture_session *c)
{
	struct capture_session *p;
	struct epoll_event evs[8];
	struct timespec sig_at = { 0 };
	int stopping = 0, i, n;
	char name[32];

	for (;;) {
		if (c->child.pid > 0 && c->child.exited) {
			stop_because(c,
				     "the command exited, leaving processes in its process group");
			break;
		}
		if (device_failed(c))
			break;
		if (all_kernel_stopped(c) && c->child.pid <= 0)
			break;
		if (stopping && (c->child.pid <= 0 || ms_since(&sig_at) > STOP_GRACE_MS)) {
			stop_because(c, "still running %d s after %s", STOP_GRACE_S,
				     sig_name(c->stop_sig, name, sizeof(name)));
			break;
		}
		n = epoll_wait(c->epfd, evs, 8, TICK_MS);
		if (n < 0 && errno != EINTR) {
			kprofctl_err("epoll_wait: %s", strerror(errno));
			stop_because(c, "kprofctl failed (epoll_wait)");
			break;
		}
		for (i = 0; i < n; i++) {
			int fd = evs[i].data.fd;

			if (device_event(c, &evs[i])) {
				continue;
			} else if (fd == c->timerfd) {
				uint64_t x;

				if (read(c->timerfd, &x, sizeof(x)) < 0)
					continue;
				/* Also catches data whose wake-up was missed. */
				for (p = c; p; p = p->next) {
					drain_device(p);
					drain_bpf(p);
					flush_spools(p);
				}
				kprof_progress_tick(&c->prog, 0);
			} else if (fd == c->durfd) {
				uint64_t x;

				if (read(c->durfd, &x, sizeof(x)) >= 0)
					return;
			} else if (fd == c->sigfd) {
				struct signalfd_siginfo si;

				if (read(c->sigfd, &si, sizeof(si)) != sizeof(si))
					continue;
				if (si.ssi_signo == SIGCHLD) {
					capture_child_reap(&c->child);
				} else if (si.ssi_signo == SIGUSR1) {
					for (p = c; p; p = p->next)
						toggle_pause(p);
				} else {
					if (on_stop_signal(c, (int)si.ssi_signo, stopping))
						return;
					stopping = 1;
					clock_gettime(CLOCK_MONOTONIC, &sig_at);
				}
			}
		}
	}
}

/* Keeps the ring drained while CMD's group is being stopped. */
static void drain_tick(void *ctx)
{
	struct capture_session *c = ctx, *p;

	for (p = c; p; p = p->next) {
		drain_device(p);
		drain_bpf(p);
	}
}

/* 1 while the device's ring can still be read. */
static int ring_live(const struct capture_session *c)
{
	return !c->ring_error && !c->dev.gone && c->dev.ctrl;
}

/*
 * CMD has exited, but the device may still hold markers of its last ops in
 * its own buffers (the sim's L1 rings): keep draining until it goes quiet.
 * A stop flushes only what fits in the ring; markers beyond that would be
 * gone without a LOST record. With several devices: until every one is.
 */
static void settle(struct capture_session *c)
{
	struct pollfd pfd[KPROF_DEVICE_LIST_MAX];
	struct capture_session *p;
	struct timespec t0, win;
	int live, quiet;
	nfds_t n;

	for (p = c; p; p = p->next)
		p->settle_mark = p->dev.records_read;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	win = t0;
	for (;;) {
		n = 0;
		live = 0;
		for (p = c; p; p = p->next) {
			live |= ring_live(p);
			pfd[n++] = (struct pollfd){ .fd = ring_live(p) ? p->dev.fd : -1,
						    .events = POLLIN };
		}
		if (!live)
			return;
		poll(pfd, n, 20);
		for (p = c; p; p = p->next) {
			drain_device(p);
			drain_bpf(p);
		}
		if (ms_since(&win) >= SETTLE_WINDOW_MS) {
			/* quiet: every device brought few records in the window */
			quiet = 1;
			for (p = c; p; p = p->next) {
				quiet &= p->dev.records_read - p->settle_mark < SETTLE_RECORDS;
				p->settle_mark = p->dev.records_read;
			}
			if (quiet)
				return;
			clock_gettime(CLOCK_MONOTONIC, &win);
		}
		if (ms_since(&t0) > SETTLE_MAX_MS) {
			kprofctl_warn("the device still delivered data %d ms after the command exited; stopping anyway",
				      SETTLE_MAX_MS);
			return;
		}
	}
}

/* The stop request: the kernel flushes what the device still holds. */
static void stop_device(struct capture_session *c)
{
	int r;

	if (c->dev.fd < 0 || c->device_gone)
		return;
	r = kprof_dev_capture_stop(&c->dev);
	if (r && r != -ENODEV)
		kprofctl_warn("capture stop: %s", strerror(-r));
	if (r == -ENODEV)
		c->device_gone = 1;
}

/* After the stop: everything the kernel still delivers, then BPF's last. */
static void drain_stopped(struct capture_session *c)
{
	struct pollfd pfd = { .fd = c->dev.fd, .events = POLLIN };
	struct timespec t0;

	if (c->dev.fd < 0)
		return;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		uint32_t st;

		drain_device(c);
		if (c->ring_error || !c->dev.ctrl || c->dev.gone)
			break;
		st = kprof_dev_ring_state(&c->dev);
		if ((st == KPROF_STATE_STOPPED || st == KPROF_STATE_GONE) &&
		    !kprof_dev_ring_pending(&c->dev))
			break;
		if (ms_since(&t0) > FINAL_DRAIN_MS) {
			kprofctl_warn("device ring did not reach the stopped state in %d ms; %llu bytes left unread",
				      FINAL_DRAIN_MS,
				      (unsigned long long)kprof_dev_ring_pending(&c->dev));
			break;
		}
		poll(&pfd, 1, 20);
	}
	/*
	 * Counters first, then the last events: everything the counters
	 * count is then in the spool. Detach right away so that the stats
	 * describe the capture window, not whatever runs after it.
	 */
	if (c->bpf) {
		c->have_bst = !kprof_bpf_stats(c->bpf, &c->bst);
		drain_bpf(c);
		kprof_bpf_close(c->bpf);
		c->bpf = NULL;
	}
}

/* Stop the captures (every device, then drain each) and take what is left. */
static void final_drain(struct capture_session *c)
{
	struct capture_session *p;
	int gone = 0;

	for (p = c; p; p = p->next)
		gone |= p->device_gone;
	if (!gone && c->child.pid > 0 && c->child.exited && !c->stop_sig)
		settle(c);
	for (p = c; p; p = p->next)
		stop_device(p);
	for (p = c; p; p = p->next)
		drain_stopped(p);
}

/* ------------------------------------------------------------------ */
/* Results                                                             */
/* ------------------------------------------------------------------ */

static struct json_object *host_clock_json(void)
{
	struct kprof_clockstate st;
	struct kprof_err err = { 0 };
	struct json_object *o = json_object_new_object();
	char path[512];
	int n = kprof_cpufreq_policies(kprof_cpufreq_root());

	json_object_object_add(o, "cpufreq", json_object_new_boolean(n > 0));
	if (!kprof_host_clock_saved(kprof_run_dir(), &st, path, sizeof(path), &err)) {
		json_object_object_add(o, "locked_by_kprofctl", json_object_new_boolean(1));
		json_object_object_add(o, "saved_state", json_object_new_string(path));
		kprof_clockstate_free(&st);
	} else {
		json_object_object_add(o, "locked_by_kprofctl", json_object_new_boolean(0));
	}
	if (n > 0 && !kprof_cpufreq_snapshot(kprof_cpufreq_root(), &st)) {
		if (st.ncpus) {
			json_object_object_add(o, "governor",
					       json_object_new_string(st.cpus[0].governor));
			json_object_object_add(o, "min_khz",
					       json_object_new_string(st.cpus[0].min_freq));
			json_object_object_add(o, "max_khz",
					       json_object_new_string(st.cpus[0].max_freq));
		}
		if (st.has_boost)
			json_object_object_add(o, "boost", json_object_new_string(st.boost));
		if (st.has_no_turbo)
			json_object_object_add(o, "no_turbo", json_object_new_string(st.no_turbo));
		kprof_clockstate_free(&st);
	}
	return o;
}

static struct json_object *clock_json(const struct kprof_clock_state *cs)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "mhz", json_object_new_int(cs->mhz));
	json_object_object_add(o, "locked",
			       json_object_new_boolean(!!(cs->flags & KPROF_CLOCK_LOCKED)));
	if (cs->flags & KPROF_CLOCK_LOCKED)
		json_object_object_add(o, "locked_mhz", json_object_new_int(cs->locked_mhz));
	return o;
}

static char *config_json(struct capture_session *c)
{
	/* CMD, its counters and the run are the lead session's */
	const struct capture_session *L = lead_of(c);
	struct json_object *o = json_object_new_object(), *a, *x;
	unsigned int i;
	double wall_s;
	char *s;

	a = json_object_new_array();
	for (i = 0; i < (unsigned int)c->o->cmd_argc; i++)
		json_object_array_add(a, json_object_new_string(c->o->cmd[i]));
	json_object_object_add(o, "command", a);
	json_object_object_add(o, "device", json_object_new_int(c->o->dev_id));
	if (c->o->ndev > 1) {
		a = json_object_new_array();
		for (i = 0; i < c->o->ndev; i++)
			json_object_array_add(a, json_object_new_int((int)c->o->devs[i].index));
		json_object_object_add(o, "devices", a);
	}
	if (c->o->duration)
		json_object_object_add(o, "duration_s", json_object_new_double(c->o->duration));
	capture_opts_json(&c->o->cc, o);
	json_object_object_add(o, "ring_size",
			       json_object_new_int64(c->dev.ring_size ? c->dev.ring_size :
						     (c->o->ring_size ? c->o->ring_size :
						      KPROF_RING_SIZE_DEFAULT)));
	json_object_object_add(o, "started_paused", json_object_new_boolean(c->o->paused));
	json_object_object_add(o, "pause_toggles", json_object_new_int64(c->pause_toggles));
	json_object_object_add(o, "events_requested", json_object_new_string(c->o->events));

	a = json_object_new_array();
	for (i = 0; i < L->perf.n; i++) {
		const struct capture_perf_event *e = &L->perf.ev[i];

		x = json_object_new_object();
		json_object_object_add(x, "name", json_object_new_string(e->name));
		json_object_object_add(x, "pfm_name", json_object_new_string(e->fqname));
		json_object_object_add(x, "value", json_object_new_int64((int64_t)e->value));
		json_object_object_add(x, "enabled_ns",
				       json_object_new_int64((int64_t)e->enabled_ns));
		json_object_object_add(x, "running_ns",
				       json_object_new_int64((int64_t)e->running_ns));
		json_object_object_add(x, "fallback", json_object_new_boolean(e->fallback));
		json_object_object_add(x, "user_only", json_object_new_boolean(e->user_only));
		json_object_array_add(a, x);
	}
	json_object_object_add(o, "host_perf", a);
	if (L->perf.notes[0])
		json_object_object_add(o, "host_perf_notes", json_object_new_string(L->perf.notes));

	x = json_object_new_object();
	json_object_object_add(x, "enabled", json_object_new_boolean(c->bpf_used));
	if (c->bpf_used) {
		json_object_object_add(x, "hook", json_object_new_string(c->bpf_hook));
		json_object_object_add(x, "fallback_log", json_object_new_string(c->bpf_fallback));
		json_object_object_add(x, "target", json_object_new_string(c->bpf_target_desc));
		json_object_object_add(x, "events_spooled",
				       json_object_new_int64((int64_t)c->host_events));
		if (c->have_bst) {
			const struct kprof_host_bpf_stats *bst = &c->bst;

			json_object_object_add(x, "events",
					       json_object_new_int64((int64_t)bst->events));
			json_object_object_add(x, "reserve_failed",
					       json_object_new_int64((int64_t)bst->reserve_failed));
			json_object_object_add(x, "unmatched_exit",
					       json_object_new_int64((int64_t)bst->unmatched_exit));
		}
	}
	json_object_object_add(o, "bpf", x);

	x = json_object_new_object();
	json_object_object_add(x, "start", clock_json(&c->clk_start));
	json_object_object_add(x, "end", clock_json(&c->clk_end));
	json_object_object_add(o, "device_clock", x);
	json_object_object_add(o, "host_clock", host_clock_json());

	x = json_object_new_object();
	if (c->dev.ctrl) {
		json_object_object_add(x, "records",
				       json_object_new_int64((int64_t)c->dev.ctrl->records));
		json_object_object_add(x, "lost_records",
				       json_object_new_int64((int64_t)c->dev.ctrl->lost_records));
		json_object_object_add(x, "lost_markers",
				       json_object_new_int64((int64_t)c->dev.ctrl->lost_markers));
	}
	json_object_object_add(x, "bytes_read", json_object_new_int64((int64_t)c->dev.bytes_read));
	json_object_object_add(x, "records_read",
			       json_object_new_int64((int64_t)c->dev.records_read));
	json_object_object_add(x, "drains", json_object_new_int64((int64_t)c->drains));
	/* Close to ring_size means the reader fell behind. */
	json_object_object_add(x, "max_pending_bytes",
			       json_object_new_int64((int64_t)c->max_pending));
	json_object_object_add(x, "device_removed", json_object_new_boolean(c->device_gone));
	json_object_object_add(x, "ring_error", json_object_new_boolean(c->ring_error));
	json_object_object_add(o, "ring", x);

	x = json_object_new_object();
	if (L->child.pid > 0 && L->child.exited) {
		if (WIFEXITED(L->child.status))
			json_object_object_add(x, "exit_status",
					       json_object_new_int(WEXITSTATUS(L->child.status)));
		else if (WIFSIGNALED(L->child.status))
			json_object_object_add(x, "signal",
					       json_object_new_int(WTERMSIG(L->child.status)));
	}
	if (L->child.exec_errno)
		json_object_object_add(x, "exec_error",
				       json_object_new_string(strerror(L->child.exec_errno)));
	if (L->stop_sig)
		json_object_object_add(x, "stopped_by_signal", json_object_new_int(L->stop_sig));
	wall_s = (L->t_end.tv_sec - L->t_start.tv_sec) +
		 (L->t_end.tv_nsec - L->t_start.tv_nsec) / 1e9;
	json_object_object_add(x, "wall_s", json_object_new_double(wall_s));
	json_object_object_add(o, "run", x);

	s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	return s;
}

static void close_spools(struct capture_session *c)
{
	struct kprof_err err = { 0 };

	if (c->hspool) {
		/* Loss counters go in the spool: nothing lost silently. */
		if (c->have_bst && !c->spool_error &&
		    kprof_spool_append(c->hspool, &c->bst, sizeof(c->bst), &err))
			spool_fail(c, &err);
		if (kprof_spool_close(c->hspool, &err))
			spool_fail(c, &err);
		c->hspool = NULL;
	}
	if (c->dspool) {
		if (kprof_spool_close(c->dspool, &err))
			spool_fail(c, &err);
		c->dspool = NULL;
	}
}

static int write_results(struct capture_session *c)
{
	struct kprof_report_opts ro = { .version = KPROF_VERSION };
	struct kprof_report_result res;
	struct kprof_err err = { 0 };
	char *cfg = config_json(c);
	struct kprof_fsid ofs;
	unsigned int i;
	int r;

	ro.config_json = cfg;
	ro.peaks_file = c->o->peaks;
	capture_opts_report(&c->o->cc, &ro, &c->prog);
	memset(&res, 0, sizeof(res));
	/* what the report reads (--peaks, raw/) it reads as the workload's user */
	if (c->run_as.drop)
		kprof_fsid_enter(c->run_as.uid, c->run_as.gid, &ofs);
	r = kprof_report_build(NULL, c->od, &ro, &res, &err);
	if (c->run_as.drop)
		kprof_fsid_leave(&ofs);
	kprof_progress_done(&c->prog);
	free(cfg);
	if (r) {
		kprofctl_err("aggregation failed: %s; the raw data is in %s/raw (kprofctl report %s retries)",
			     err.msg[0] ? err.msg : strerror(-r), c->dir, c->dir);
		return -1;
	}
	printf("kprof capture of device %u: %s\n", c->o->dev_id, c->dir);
	kprofctl_print_result(c->dir, &res, 0);
	if (c->bpf_used && c->have_bst) {
		printf("host:       %llu launch/sync ioctls traced (%s), ",
		       (unsigned long long)c->bst.events, c->bpf_hook);
		printf("%llu lost (BPF ring full)\n", (unsigned long long)c->bst.reserve_failed);
	} else if (c->bpf_used) {
		printf("host:       %llu launch/sync ioctls traced (%s)\n",
		       (unsigned long long)c->host_events, c->bpf_hook);
	} else {
		printf("host:       no ioctl tracing (--no-bpf)\n");
	}
	if (c->perf.n) {
		printf("host perf: ");
		for (i = 0; i < c->perf.n; i++)
			printf(" %s=%llu%s", c->perf.ev[i].name,
			       (unsigned long long)c->perf.ev[i].value,
			       c->perf.ev[i].fallback ? " (fallback)" : "");
		printf("\n");
	}
	if (c->perf.notes[0])
		kprofctl_warn("host perf: %s", c->perf.notes);
	if (c->dev.ctrl && c->dev.ctrl->lost_records)
		kprofctl_warn("the kernel dropped %llu records because the capture ring was full (params.json ring.lost_records); a larger --ring-size helps",
			      (unsigned long long)c->dev.ctrl->lost_records);
	if (c->have_bst && c->bst.reserve_failed)
		kprofctl_warn("%llu host ioctl events were lost (BPF ring buffer full)",
			      (unsigned long long)c->bst.reserve_failed);
	if (res.lost_markers)
		kprofctl_warn("%llu markers were lost (ring overflow); see summary.txt and ops.csv MARKERS LOST",
			      (unsigned long long)res.lost_markers);
	if (res.device_records_lost)
		kprofctl_warn("the device dropped %llu OP/COUNTERS records (its queue overflowed): some ops lack OP CODE or counters; see summary.txt",
			      (unsigned long long)res.device_records_lost);
	return 0;
}

static int exit_status(const struct capture_session *c)
{
	if (c->child.exec_errno)
		return c->child.exec_errno == ENOENT ? 127 : 126;
	if (c->child.setup_errno)
		return 126;
	if (c->child.pid > 0 && c->child.exited) {
		if (WIFEXITED(c->child.status))
			return WEXITSTATUS(c->child.status);
		if (WIFSIGNALED(c->child.status))
			return 128 + WTERMSIG(c->child.status);
	}
	if (c->stop_sig)
		return 128 + c->stop_sig;
	return 0;
}

/* ------------------------------------------------------------------ */

static void session_init(struct capture_session *c, struct capture_opts *o)
{
	memset(c, 0, sizeof(*c));
	c->o = o;
	kprof_progress_init(&c->prog, stderr, "capture", o->cc.progress);
	c->dev.fd = -1;
	c->epfd = -1;
	c->sigfd = -1;
	c->timerfd = -1;
	c->durfd = -1;
	c->child.pid = -1;
	c->child.go_fd = -1;
	c->child.ex_fd = -1;
}

/* Signals arrive through signalfd; the command gets the old mask. */
static void block_signals(sigset_t *mask, sigset_t *oldmask)
{
	sigemptyset(mask);
	sigaddset(mask, SIGINT);
	sigaddset(mask, SIGTERM);
	sigaddset(mask, SIGCHLD);
	sigaddset(mask, SIGUSR1);
	sigaddset(mask, SIGHUP);
	sigprocmask(SIG_BLOCK, mask, oldmask);
	signal(SIGPIPE, SIG_IGN);
}

/* CMD forked but held before exec, its counters open; 0 or -1 (said). */
static int start_workload(struct capture_session *c, const sigset_t *oldmask)
{
	struct capture_opts *o = c->o;
	char msg[1024];

	if (!o->cmd_argc) {
		if (o->events && strcmp(o->events, DEFAULT_EVENTS) && strcmp(o->events, "none"))
			kprofctl_warn("--events counts a command's events; ignored with --duration");
		return 0;
	}
	if (capture_child_fork(&c->child, o->cmd, &c->run_as, oldmask))
		return -1;
	if (capture_perf_open(&c->perf, o->events, c->child.pid, msg, sizeof(msg))) {
		kprofctl_err("%s", msg);
		return -1;
	}
	return 0;
}

/* The --duration timer, added to the loop; 0 or -1 (said). */
static int arm_duration(struct capture_session *c)
{
	double d = c->o->duration;
	struct itimerspec it = { 0 };

	c->durfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (c->durfd < 0) {
		kprofctl_err("timerfd: %s", strerror(errno));
		return -1;
	}
	it.it_value.tv_sec = (time_t)d;
	it.it_value.tv_nsec = (long)((d - (double)(time_t)d) * 1e9);
	if (!it.it_value.tv_sec && !it.it_value.tv_nsec)
		it.it_value.tv_nsec = 1;
	timerfd_settime(c->durfd, 0, &it, NULL);
	epoll_add(c->epfd, c->durfd, EPOLLIN);
	return 0;
}

/* The loop's epoll set: device, signals, the tick, BPF; 0 or -1 (said). */
static int setup_loop(struct capture_session *c, const sigset_t *mask)
{
	struct capture_session *p;
	struct itimerspec tick = {
		.it_interval = { 0, TICK_MS * 1000000L },
		.it_value = { 0, TICK_MS * 1000000L },
	};

	c->epfd = epoll_create1(EPOLL_CLOEXEC);
	c->sigfd = signalfd(-1, mask, SFD_CLOEXEC | SFD_NONBLOCK);
	c->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (c->epfd < 0 || c->sigfd < 0 || c->timerfd < 0) {
		kprofctl_err("epoll/signalfd/timerfd: %s", strerror(errno));
		return -1;
	}
	timerfd_settime(c->timerfd, 0, &tick, NULL);
	if (c->o->duration && arm_duration(c))
		return -1;
	for (p = c; p; p = p->next)
		epoll_add(c->epfd, p->dev.fd, EPOLLIN);
	epoll_add(c->epfd, c->sigfd, EPOLLIN);
	epoll_add(c->epfd, c->timerfd, EPOLLIN);
	for (p = c; p; p = p->next)
		if (p->bpf)
			epoll_add(c->epfd, kprof_bpf_fd(p->bpf), EPOLLIN);
	return 0;
}

/* Releases CMD, runs the loop until the capture ends, stops CMD. */
static void run_capture(struct capture_session *c)
{
	struct capture_opts *o = c->o;
	int r;

	if (o->paused)
		fprintf(stderr, "kprofctl: capture starts paused; 'kill -USR1 %d' resumes it\n",
			(int)getpid());
	clock_gettime(CLOCK_MONOTONIC, &c->t_start);
	r = o->cmd_argc ? capture_child_release(&c->child, o->cmd[0]) : 0;
	if (!r)
		run_loop(c);
	clock_gettime(CLOCK_MONOTONIC, &c->t_end);
	/* Whatever ended the loop, nothing of CMD outlives the capture. */
	capture_child_stop(&c->child, c->stop_why[0] ? c->stop_why : "the capture ended",
			   drain_tick, c);
}

/* Drains what is left, writes the results; returns the exit status. */
static int finish_capture(struct capture_session *c)
{
	struct capture_opts *o = c->o;
	struct capture_session *p;
	int rc = 0;

	final_drain(c);
	kprof_progress_done(&c->prog);
	capture_perf_read(&c->perf);
	for (p = c; p; p = p->next) {
		if (kprof_dev_clock_get(&p->dev, &p->clk_end))
			p->clk_end = p->clk_start;
		if (p->device_gone)
			kprofctl_err("device %u was removed during the capture; results so far are kept",
				     p->o->dev_id);
		close_spools(p);
		if (write_results(p))
			rc = KPROFCTL_EXIT_FAIL;
	}
	/* A --duration capture stopped early by Ctrl-C still succeeded. */
	if (o->cmd_argc)
		rc = exit_status(c) ? exit_status(c) : rc;
	for (p = c; p; p = p->next)
		if (p->device_gone || p->ring_error || p->spool_error)
			rc = rc ? rc : KPROFCTL_EXIT_FAIL;
	return rc;
}

/* Undoes whatever of the set-up was done; started: the capture began. */
static void session_release(struct capture_session *c, int started)
{
	if (c->child.go_fd >= 0)
		capture_child_abandon(&c->child);	/* set-up failed: never ran */
	else
		capture_child_stop(&c->child, "kprofctl is exiting", NULL, NULL);
	if (!started && c->dev.fd >= 0)
		kprof_dev_capture_stop(&c->dev);
	close_spools(c);
	capture_perf_close(&c->perf);
	if (c->bpf)
		kprof_bpf_close(c->bpf);
	if (c->epfd >= 0)
		close(c->epfd);
	if (c->sigfd >= 0)
		close(c->sigfd);
	if (c->timerfd >= 0)
		close(c->timerfd);
	if (c->durfd >= 0)
		close(c->durfd);
	kprof_dev_close(&c->dev);
	kprof_outdir_drop_new(c->od);	/* failed before the first spool */
	kprof_outdir_close(c->od);
	if (!c->lead)
		free(c->buf);	/* the others drain into the lead's */
}

/*
 * One session per device (o->ndev), each with its own copy of the
 * options (its device; its directory, DIR/devN, when there are several),
 * linked from the first. NULL: out of memory (said).
 */
static struct capture_session *sessions_new(struct capture_opts *o)
{
	struct capture_session *s = calloc(o->ndev, sizeof(*s));
	struct capture_opts *os = calloc(o->ndev, sizeof(*os));

	if (!s || !os) {
		kprofctl_err("out of memory");
		free(s);
		free(os);
		return NULL;
	}
	for (unsigned int k = 0; k < o->ndev; k++) {
		os[k] = *o;
		os[k].dev_id = o->devs[k].index;
		session_init(&s[k], &os[k]);
		if (k) {
			s[k].lead = &s[0];
			s[k - 1].next = &s[k];
			/* one progress line, the lead's, counts every device */
			kprof_progress_init(&s[k].prog, stderr, "capture", -1);
		}
	}
	return s;
}

/* The output directories: DIR, or DIR/devN of each device. 0 or -1 (said). */
static int open_dirs(struct capture_session *s, unsigned int n, struct capture_multi **m)
{
	const struct kprof_user *u = &s[0].run_as;

	if (n == 1)
		return check_dir(&s[0]);
	*m = capture_multi_open(s[0].o->cc.outdir, s[0].o->cc.force, s[0].o->devs, n,
				u->drop ? u->uid : (uid_t)-1, u->drop ? u->gid : (gid_t)-1);
	if (!*m)
		return -1;
	for (unsigned int k = 0; k < n; k++) {
		s[k].run_as = s[0].run_as;
		s[k].o->cc.outdir = capture_multi_devdir(*m, k);
		if (check_dir(&s[k]))
			return -1;
	}
	return 0;
}

/*
 * Every device's capture started, or none: the devices are opened, then
 * started in order; on a failure the ones started (*started) are ended by
 * session_release. 0 or -1 (said).
 */
static int start_all(struct capture_session *s, unsigned int n, struct capture_multi *m,
		     unsigned int *started)
{
	unsigned int k;

	*started = 0;
	for (k = 0; k < n; k++)
		if (open_device(&s[k]))
			goto fail;
	for (k = 0; k < n; k++, (*started)++)
		if (start_capture(&s[k]))
			goto fail;
	return 0;
fail:
	if (m)
		capture_multi_refused(m, k);
	return -1;
}

/* The merged outputs of several devices; 0 or -1 (said). */
static int finish_multi(struct capture_session *s, unsigned int n, struct capture_multi *m)
{
	struct kprof_outdir *ods[KPROF_DEVICE_LIST_MAX];

	for (unsigned int k = 0; k < n; k++)
		ods[k] = s[k].od;
	return capture_multi_finish(m, ods, s[0].o->cc.step);
}

int cmd_capture(int argc, char **argv)
{
	struct capture_opts o;
	struct capture_session *s, *c;
	struct capture_multi *m = NULL;
	sigset_t mask, oldmask;
	struct kprof_err err = { 0 };
	int r, rc = KPROFCTL_EXIT_FAIL;
	unsigned int k, n, started = 0;

	if (capture_nvidia_wanted(argc, argv))
		return capture_nvidia(argc, argv);
	r = parse_opts(argc, argv, &o);
	if (r)
		return r < 0 ? 0 : r;
	n = o.ndev;
	s = sessions_new(&o);
	if (!s)
		return KPROFCTL_EXIT_FAIL;
	c = &s[0];

	/* Who CMD runs as; the outputs are to be that user's too. */
	if (kprof_user_for_workload(o.cc.user, &c->run_as, &err)) {
		kprofctl_err("%s", err.msg);
		goto free;
	}
	if (check_peaks(c) || open_dirs(s, n, &m))
		goto free;
	c->buf = malloc(DRAIN_BUF);
	if (!c->buf) {
		kprofctl_err("out of memory");
		goto free;
	}
	for (k = 1; k < n; k++)
		s[k].buf = c->buf;

	block_signals(&mask, &oldmask);
	if (start_all(s, n, m, &started))
		goto out;
	for (k = 0; k < n; k++)
		if (setup_bpf(&s[k]) || open_spools(&s[k]))
			goto out;
	if (start_workload(c, &oldmask) || setup_loop(c, &mask))
		goto out;
	run_capture(c);
	rc = finish_capture(c);
	if (m && finish_multi(s, n, m))
		rc = rc ? rc : KPROFCTL_EXIT_FAIL;
out:
	for (k = n; k-- > 0;)
		session_release(&s[k], k < started);
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
	capture_multi_close(m);
	free(c->o);
	free(s);
	return rc;
free:
	for (k = n; k-- > 0;) {
		kprof_outdir_drop_new(s[k].od);
		kprof_outdir_close(s[k].od);
	}
	capture_multi_close(m);
	free(c->o);
	free(s);
	return rc;
}
