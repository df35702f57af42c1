// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kprofctl capture --device nvidia:N -- CMD: an NVIDIA GPU, whose driver
 * owns the hardware (no kprof.ko, no ioctls). CMD runs with the CUPTI
 * agent injected (CUDA_INJECTION64_PATH = libkprof_cupti.so, found next to
 * kprofctl or given with --agent); each CUDA process it starts writes
 * DIR/raw/gpu-PID.kspool. kprofctl writes DIR/raw/device.kspool (the
 * device description) and, when CMD has exited, the outputs, through the
 * same report as any capture (kprof_report_build, kprof_gpu.h).
 * CUDA_VISIBLE_DEVICES is left as it is.
 */
#include "kprofctl.h"
#include "capture_child.h"
#include "capture_multi.h"
#include "capture_nvidia.h"
#include "capture_opts.h"
#include "kprof_array_size.h"
#include "kprof_gpucnt.h"
#include "kprof_agg.h"
#include "kprof_bpf_cuda.h"
#include "kprof_device.h"
#include "kprof_err.h"
#include "kprof_fs.h"
#include "kprof_gpu.h"
#include "kprof_gpu_hold.h"
#include "kprof_gpu_route.h"
#include "kprof_outdir.h"
#include "kprof_progress.h"
#include "kprof_report.h"
#include "kprof_spool.h"
#include "kprof_steps.h"
#include "kprof_user.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <json-c/json.h>

#define AGENT_NAME	"libkprof_cupti.so"

struct nv_opts {
	struct kprof_device_id id;		/* ids[0] */
	struct kprof_device_id ids[KPROF_DEVICE_LIST_MAX];
	unsigned int n;
	int multi;			/* several, or nvidia:all: capture_nvidia_multi() */
	char name[KPROF_DEVICE_NAME_LEN];	/* canonical: nvidia:N */
	struct capture_common cc;	/* -o, -f, -u, --op-filter, ... */
	const char *agent;
	const char *cupti;
	const char *api;
	const char *host_times;
	const char *libcuda;		/* --libcuda */
	const char *counters;		/* --counters: CUPTI metric list */
	char **cmd;
	int cmd_argc;
};

static void print_help(FILE *f)
{
	fprintf(f,
		"usage: kprofctl capture --device nvidia:N[,nvidia:M...] [OPTIONS] -- CMD [ARGS...]\n"
		"Capture an NVIDIA GPU while CMD runs: CMD's CUDA processes load kprof's\n"
		"CUPTI agent, which records every kernel, memcpy and memset with its GPU\n"
		"start and end, and the launch and sync calls on the host, on\n"
		"CLOCK_MONOTONIC. Raw records go to DIR/raw/; at the end ops.csv,\n"
		"counters.csv, trace.json, summary.txt, params.json (and the rest) are\n"
		"written to DIR. The exit status is CMD's (128+signal if it was killed).\n"
		"CUDA_VISIBLE_DEVICES is not changed; nvidia:N names the GPU for NVML.\n"
		"Several GPUs (nvidia:0,nvidia:1 or nvidia:all): one capture per GPU in\n"
		"DIR/nvidiaN/, every CUDA process's ops routed to their GPU by its UUID,\n"
		"and DIR/{trace.json,report.md,report.html} with the GPUs side by side.\n"
		"A GPU already being captured is refused, naming the capture holding it.\n"
		"\n"
		"  -d, --device nvidia:N  the GPU: nvidia:N (NVML index) or nvidia:GPU-<uuid>;\n"
		"                        a list of them, or nvidia:all (every GPU NVML sees,\n"
		"                        DIR/nvidiaN/ each, also when there is one)\n"
		"  -o, --output DIR      output directory (default ./kprof-nvidia-N-YYYYmmdd-HHMMSS);\n"
		"                        a non-empty DIR is refused without --force\n"
		"  -f, --force           write into a non-empty DIR\n"
		"      --op-filter GLOB  keep only ops whose OP CODE matches GLOB\n"
		"      --trace-group N   trace.json: one track per N streams (default 1)\n"
		"      --step GLOB       several GPUs: an op matching GLOB starts a step,\n"
		"                        report.md names the slowest GPU per step\n"
		"                        (default " KPROF_STEP_DEFAULT ", NCCL's all-reduce)\n"
		"      --no-device-log   skip device_log.csv\n"
		"      --progress        show the report's progress on any stderr\n"
		"      --agent PATH      the CUPTI agent (default: " AGENT_NAME " next to\n"
		"                        kprofctl, or in ../lib/kprof/)\n"
		"      --cupti PATH      libcupti to load (default: libcupti.so.13, .12 or\n"
		"                        libcupti.so from the library path or CUDA's usual places)\n"
		"      --api MODE        API calls to record: driver (default: the cheapest;\n"
		"                        runtime calls are seen through the driver calls they\n"
		"                        make), runtime, both, or none (no host timestamps)\n"
		"      --host-times SRC  host times of the launch and sync calls: api (default:\n"
		"                        CUPTI's API activity records, entry and exit),\n"
		"                        callback (CUPTI's API callbacks, timestamped by the\n"
		"                        agent: the same columns, no cheaper), queued\n"
		"                        (CUPTI's latency timestamps on the kernel records:\n"
		"                        when the launch left the queue, not the call; no\n"
		"                        memcpy or memset records with them), or\n"
		"                        uprobe (BPF uprobes on libcuda's launch and sync\n"
		"                        functions, root only, dearer than api; the agent then\n"
		"                        records kernels only: --api is none; copies get no\n"
		"                        host times)\n"
		"      --libcuda PATH    uprobe: the libcuda.so.1 CMD loads (default: found\n"
		"                        by LD_LIBRARY_PATH and the driver's usual places)\n"
		"      --counters M,...  per-kernel values of these CUPTI metrics (e.g.\n"
		"                        sm__cycles_elapsed.max,dram__bytes.sum) in counters.csv,\n"
		"                        through CUPTI's range profiler with kernel replay:\n"
		"                        each kernel re-runs once per pass its metrics need\n"
		"                        and kernels run one at a time (slow: summary.txt\n"
		"                        says what it cost); launch times and concurrency are\n"
		"                        then not those of an unprofiled run\n"
		"  -u, --user NAME|UID   run CMD as this user (root only; under sudo only\n"
		"                        the sudo user); by default as kprofctl capture does:\n"
		"                        the sudo user under sudo, else kprofctl's own user\n"
		"\n"
		"CMD runs in its own process group: Ctrl-C, SIGTERM and SIGHUP to kprofctl\n"
		"are passed on to it, and kprofctl still writes the results.\n");
}

enum {
	OPT_AGENT = CAPTURE_OPT_OWN, OPT_CUPTI, OPT_API, OPT_HOST_TIMES, OPT_LIBCUDA,
	OPT_COUNTERS,
};

int capture_nvidia_wanted(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		const char *v = NULL;

		if ((!strcmp(argv[i], "-d") || !strcmp(argv[i], "--device")) && i + 1 < argc)
			v = argv[i + 1];
		else if (!strncmp(argv[i], "--device=", 9))
			v = argv[i] + 9;
		else if (!strncmp(argv[i], "-d", 2) && argv[i][2])
			v = argv[i] + 2;
		/* lists naming a GPU too (parse_devices); kprof.ko lists are capture_multi.h's */
		if (v && strstr(v, "nvidia:"))
			return 1;
	}
	return 0;
}

/* --device: nvidia:N, a list of GPUs, or nvidia:all; 0 or the usage error's status. */
static int parse_devices(const char *arg, struct nv_opts *o)
{
	char why[512];
	struct kprof_err err = { 0 };
	int r;

	if (!strcmp(arg, "nvidia:all")) {
		r = kprof_device_nvidia_ops.enumerate(o->ids, KPROF_DEVICE_LIST_MAX, &err);
		if (r <= 0) {
			kprofctl_err("--device nvidia:all: %s", r < 0 ? err.msg :
				     "NVML sees no NVIDIA GPU (no driver, or no GPU): kprofctl list shows what there is");
			return KPROFCTL_EXIT_FAIL;
		}
	} else {
		r = kprof_device_parse_list(arg, o->ids, KPROF_DEVICE_LIST_MAX, why, sizeof(why));
		if (r < 0)
			return kprofctl_usage_error("capture", "--device: %s", why);
	}
	for (int k = 0; k < r; k++)
		if (o->ids[k].kind != KPROF_DEVICE_NVIDIA)
			return kprofctl_usage_error("capture",
						    "--device %s: NVIDIA GPUs and kprof.ko devices cannot be captured together; capture each kind on its own",
						    arg);
	o->n = (unsigned int)r;
	/* nvidia:all: DIR/nvidiaN/ per GPU however many there are, for scripts */
	o->multi = r > 1 || !strcmp(arg, "nvidia:all");
	o->id = o->ids[0];
	kprof_device_name(&o->id, o->name, sizeof(o->name));
	return 0;
}

static int uprobe_mode(const struct nv_opts *o)
{
	return o->host_times && !strcmp(o->host_times, "uprobe");
}

static int parse(int argc, char **argv, struct nv_opts *o)
{
	/* the GPU's own long options; capture_opts.h adds the common ones */
	static const struct option own[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "agent", required_argument, NULL, OPT_AGENT },
		{ "cupti", required_argument, NULL, OPT_CUPTI },
		{ "api", required_argument, NULL, OPT_API },
		{ "host-times", required_argument, NULL, OPT_HOST_TIMES },
		{ "libcuda", required_argument, NULL, OPT_LIBCUDA },
		{ "counters", required_argument, NULL, OPT_COUNTERS },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct option lo[ARRAY_SIZE(own) + CAPTURE_COMMON_NLONG];
	int c, r, have_dev = 0;

	memset(o, 0, sizeof(*o));
	if (capture_opts_merge(own, lo, ARRAY_SIZE(lo)))
		return KPROFCTL_EXIT_FAIL;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+d:h" CAPTURE_COMMON_SHORT, lo, NULL)) != -1) {
		r = capture_opts_take(&o->cc, c, optarg);
		if (!r)
			continue;
		if (r != 1)
			return r;
		switch (c) {
		case 'd':
			r = parse_devices(optarg, o);
			if (r)
				return r;
			have_dev = 1;
			break;
		case OPT_AGENT:
			o->agent = optarg;
			break;
		case OPT_CUPTI:
			o->cupti = optarg;
			break;
		case OPT_API:
			if (strcmp(optarg, "driver") && strcmp(optarg, "runtime") &&
			    strcmp(optarg, "both") && strcmp(optarg, "none"))
				return kprofctl_usage_error("capture",
							    "bad --api '%s' (driver, runtime, both, none)",
							    optarg);
			o->api = optarg;
			break;
		case OPT_HOST_TIMES:
			if (strcmp(optarg, "callback") && strcmp(optarg, "api") &&
			    strcmp(optarg, "queued") && strcmp(optarg, "uprobe"))
				return kprofctl_usage_error("capture",
							    "bad --host-times '%s' (callback, api, queued, uprobe)",
							    optarg);
			o->host_times = optarg;
			break;
		case OPT_LIBCUDA:
			o->libcuda = optarg;
			break;
		case OPT_COUNTERS: {
			char names[KPROF_GPU_MAX_METRICS][KPROF_GPUCNT_NAME_LEN];
			struct kprof_err err = { 0 };

			if (kprof_gpucnt_parse(optarg, names, KPROF_GPU_MAX_METRICS, &err) < 0)
				return kprofctl_usage_error("capture", "%s", err.msg);
			o->counters = optarg;
			break;
		}
		case 'h':
			print_help(stdout);
			return -1;
		default:
			return kprofctl_usage_error("capture",
						    "unknown option (an NVIDIA capture takes the options in --help)");
		}
	}
	if (!have_dev)
		return kprofctl_usage_error("capture", "--device nvidia:N is required");
	if (o->libcuda && !uprobe_mode(o))
		return kprofctl_usage_error("capture", "--libcuda is for --host-times uprobe");
	if (uprobe_mode(o) && o->api && strcmp(o->api, "none"))
		return kprofctl_usage_error("capture",
					    "--host-times uprobe takes the calls from the uprobes: --api %s cannot go with it",
					    o->api);
	if (o->multi && uprobe_mode(o))
		return kprofctl_usage_error("capture",
					    "--host-times uprobe takes one GPU; with several, use the default (api)");
	if (o->cc.step && !o->multi)
		return kprofctl_usage_error("capture",
					    "--step compares several GPUs: give a list of them");
	if (optind >= argc)
		return kprofctl_usage_error("capture",
					    "no command: kprofctl capture --device %s -- CMD [ARGS]",
					    o->name);
	o->cmd = argv + optind;
	o->cmd_argc = argc - optind;
	return 0;
}

/* The agent: --agent, else next to this kprofctl, else ../lib/kprof/. */
static int find_agent(const struct nv_opts *o, char *out, size_t len)
{
	char exe[PATH_MAX - 32], *sl;
	ssize_t n;

	if (o->agent) {
		if (len < PATH_MAX || !realpath(o->agent, out) || access(out, R_OK)) {
			kprofctl_err("--agent %s: %s", o->agent, strerror(errno));
			return -1;
		}
		return 0;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		sl = strrchr(exe, '/');
		if (sl) {
			*sl = '\0';
			snprintf(out, len, "%s/%s", exe, AGENT_NAME);
			if (!access(out, R_OK))
				return 0;
			snprintf(out, len, "%s/../lib/kprof/%s", exe, AGENT_NAME);
			if (!access(out, R_OK))
				return 0;
		}
	}
	kprofctl_err("the CUPTI agent %s is not next to kprofctl (%s) nor in ../lib/kprof/; build it (make -C user agent) or give --agent PATH",
		     AGENT_NAME, n > 0 ? exe : "?");
	return -1;
}

/*
 * --host-times uprobe: libcuda's calls of CMD and the processes it
 * forks, from the BPF uprobes, into raw/cuda-uprobes.kspool as they come
 * (kprof_gpu.h: the report joins them to the agent's kernel records).
 */
struct uprobe_cap {
	char lib[PATH_MAX];
	char missing[512];		/* functions the library lacks */
	struct kprof_cuda_uprobes *u;
	struct kprof_spool_writer *w;
	int werr;			/* a write failed: said once */
};

static int uprobe_event(const struct kprof_cuda_event *ev, void *ctx)
{
	struct uprobe_cap *up = ctx;
	struct kprof_err err = { 0 };

	if (!up->werr && kprof_spool_append(up->w, ev, sizeof(*ev), &err)) {
		kprofctl_err("writing the uprobe calls: %s; the capture goes on without them",
			     err.msg);
		up->werr = 1;
	}
	return 0;
}

/* Attach to CMD's process (held, not yet exec'd) and its children. */
static int uprobe_start(struct uprobe_cap *up, struct kprof_outdir *od, pid_t pid)
{
	struct kprof_cuda_target t = { .lib = up->lib, .tgid = pid, .follow_forks = 1 };
	struct kprof_err err = { 0 };
	struct kprof_outdir *raw = kprof_outdir_sub(od, KPROF_SPOOL_DIR, &err);

	if (raw)
		up->w = kprof_spool_create_in(raw, KPROF_SPOOL_CUDA_NAME, KPROF_SPOOL_HOST, NULL,
					      NULL, &err);
	if (!up->w) {
		kprofctl_err("cannot create %s: %s", KPROF_SPOOL_CUDA_FILE, err.msg);
		return -1;
	}
	if (kprof_cuda_bpf_open(&t, uprobe_event, up, &up->u, &err)) {
		kprofctl_err("--host-times uprobe: %s", err.msg);
		return -1;
	}
	snprintf(up->missing, sizeof(up->missing), "%s", kprof_cuda_bpf_missing(up->u));
	return 0;
}

static void uprobe_drain(void *ctx)
{
	struct uprobe_cap *up = ctx;

	if (up && up->u)
		kprof_cuda_bpf_consume(up->u);
}

/* The last calls, the counters, and the spool closed: 0 or -1. */
static int uprobe_end(struct uprobe_cap *up)
{
	struct kprof_cuda_bpf_stats st;
	struct kprof_err err = { 0 };
	int ret = 0;

	if (up->u) {
		kprof_cuda_bpf_consume(up->u);
		if (!kprof_cuda_bpf_stats(up->u, &st) && !up->werr &&
		    kprof_spool_append(up->w, &st, sizeof(st), &err)) {
			kprofctl_err("writing the uprobe counters: %s", err.msg);
			ret = -1;
		}
		kprof_cuda_bpf_close(up->u);
		up->u = NULL;
	}
	if (up->w && kprof_spool_close(up->w, &err)) {
		kprofctl_err("closing %s: %s", KPROF_SPOOL_CUDA_FILE, err.msg);
		ret = -1;
	}
	up->w = NULL;
	return ret;
}

/* What routing the agents' spools over the GPUs found (capture_nvidia_multi). */
struct route_total {
	uint64_t processes;
	uint64_t ops[KPROF_DEVICE_LIST_MAX];
	uint64_t foreign, unmapped;
	unsigned int nforeign;
	char foreign_uuid[KPROF_ROUTE_FOREIGN_MAX][KPROF_DEVICE_UUID_LEN];
};

static void route_json(json_object *j, const struct route_total *rt, unsigned int k)
{
	json_object *r = json_object_new_object(), *f = json_object_new_array();

	json_object_object_add(r, "agent_spools", json_object_new_int64((int64_t)rt->processes));
	json_object_object_add(r, "ops_this_gpu", json_object_new_int64((int64_t)rt->ops[k]));
	json_object_object_add(r, "ops_gpus_not_captured",
			       json_object_new_int64((int64_t)rt->foreign));
	json_object_object_add(r, "ops_unknown_gpu", json_object_new_int64((int64_t)rt->unmapped));
	for (unsigned int i = 0; i < rt->nforeign; i++)
		json_object_array_add(f, json_object_new_string(rt->foreign_uuid[i]));
	json_object_object_add(r, "gpus_not_captured", f);
	json_object_object_add(j, "routing", r);
}

static char *config_json(const struct nv_opts *o, const char *name, const char *agent,
			 const struct uprobe_cap *up, const struct route_total *rt, unsigned int k,
			 const struct kprof_user *as, int status, double wall_s, int exec_errno)
{
	json_object *j = json_object_new_object(), *a = json_object_new_array(), *r;
	char *s;

	for (int i = 0; i < o->cmd_argc; i++)
		json_object_array_add(a, json_object_new_string(o->cmd[i]));
	json_object_object_add(j, "command", a);
	json_object_object_add(j, "device", json_object_new_string(name));
	if (rt) {
		json_object_object_add(j, "step", json_object_new_string(o->cc.step ? o->cc.step :
							KPROF_STEP_DEFAULT));
		route_json(j, rt, k);
	}
	capture_opts_json(&o->cc, j);
	json_object_object_add(j, "agent", json_object_new_string(agent));
	json_object_object_add(j, "cupti_lib", o->cupti ? json_object_new_string(o->cupti) : NULL);
	json_object_object_add(j, "api", json_object_new_string(o->api ? o->api : "driver"));
	json_object_object_add(j, "host_times", json_object_new_string(o->host_times ?
							o->host_times : "api"));
	if (o->counters)	/* absent without: the same config as before */
		json_object_object_add(j, "counters", json_object_new_string(o->counters));
	if (up) {
		json_object_object_add(j, "libcuda", json_object_new_string(up->lib));
		json_object_object_add(j, "libcuda_missing",
				       json_object_new_string(up->missing));
	}
	r = json_object_new_object();
	json_object_object_add(r, "uid", json_object_new_int64(as->uid));
	if (exec_errno)
		json_object_object_add(r, "exec_error",
				       json_object_new_string(strerror(exec_errno)));
	else if (WIFEXITED(status))
		json_object_object_add(r, "exit_status", json_object_new_int(WEXITSTATUS(status)));
	else if (WIFSIGNALED(status))
		json_object_object_add(r, "signal", json_object_new_int(WTERMSIG(status)));
	json_object_object_add(r, "wall_s", json_object_new_double(wall_s));
	json_object_object_add(j, "run", r);
	s = strdup(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN));
	json_object_put(j);
	return s;
}

/*
 * The device description of raw/device.kspool: kprof_gpu_device_info(),
 * with NVML's name and clock when NVML answers (the SM clock now, and
 * locked when kprof's lock-clock holds it), and its UUID into uuid ("" if
 * unknown). Without NVML (no driver) the capture still runs: the GPU is
 * named as given, its clock unknown.
 */
static void describe(const struct kprof_device_id *id, const char *name,
		     struct kprof_device_info *info, struct kprof_counter_info *cinfo,
		     char *uuid, size_t uuid_len)
{
	struct kprof_device d;
	struct kprof_device_desc desc;
	struct kprof_err err = { 0 };

	kprof_gpu_device_info(id->index, info, cinfo);
	snprintf(info->name, sizeof(info->name), "%.31s", name);
	snprintf(uuid, uuid_len, "%s", id->uuid);
	if (kprof_device_open(&d, id, 0, &err)) {
		kprofctl_warn("%s; the capture goes on without the GPU's name and clock",
			      err.msg);
		return;
	}
	if (!kprof_device_describe(&d, &desc, &err)) {
		const struct kprof_nvml_info *n = &desc.nvidia;

		info->device_id = n->index;
		snprintf(info->name, sizeof(info->name), "%.31s", n->name);
		snprintf(uuid, uuid_len, "%s", n->uuid);
		info->clock_mhz = n->sm_mhz;
		info->clock_max_mhz = n->max_sm_mhz;
		if (n->held)
			info->clock_flags = KPROF_CLOCK_LOCKED;
	} else {
		kprofctl_warn("%s; the capture goes on without the GPU's name and clock",
			      err.msg);
	}
	kprof_device_close(&d);
}

/* The agent's environment, for CMD and every CUDA process it starts; 0 or -1 (said). */
static int agent_env(const struct nv_opts *o, const char *agent, const char *rawdir,
		     const struct uprobe_cap *up)
{
	const char *inj = getenv("CUDA_INJECTION64_PATH");

	if (inj && inj[0] && strcmp(inj, agent))
		kprofctl_warn("CUDA_INJECTION64_PATH was %s: replaced by kprof's agent for CMD",
			      inj);
	if (o->host_times && !strcmp(o->host_times, "queued"))
		kprofctl_warn("--host-times queued: CUPTI's latency timestamps are when a launch left the queue, not the launch call, and with them no memcpy or memset is recorded (CUPTI stops the workload with both on: docs/performance.md); the default (api) has neither limit");
	if (setenv("CUDA_INJECTION64_PATH", agent, 1) || setenv("KPROF_AGENT_DIR", rawdir, 1) ||
	    (o->cupti && setenv("KPROF_CUPTI_LIB", o->cupti, 1)) ||
	    ((o->api || up) && setenv("KPROF_AGENT_API", up ? "none" : o->api, 1)) ||
	    setenv("KPROF_AGENT_HOST_TIMES", o->host_times && !up ? o->host_times : "api", 1) ||
	    (o->counters ? setenv("KPROF_AGENT_COUNTERS", o->counters, 1) :
			   unsetenv("KPROF_AGENT_COUNTERS"))) {
		kprofctl_err("setenv: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * One capture per GPU (kprof_gpu_hold.h), held by UUID (uuid; "": by
 * name): the fd, or -1 with the holder said.
 */
static int hold_gpu(const char *name, const char *uuid)
{
	struct kprof_err err = { 0 };
	char comm[32];
	pid_t pid = 0;
	int fd = kprof_gpu_hold(uuid[0] ? uuid : name, &pid, comm, sizeof(comm), &err);

	if (fd == -EBUSY && pid)
		kprofctl_err("%s is being captured by pid %d (%.16s); wait or stop it", name,
			     (int)pid, comm);
	else if (fd == -EBUSY)
		kprofctl_err("%s is being captured by another process; wait or stop it", name);
	else if (fd < 0)
		kprofctl_err("%s: %s", name, err.msg);
	return fd < 0 ? -1 : fd;
}

/*
 * Runs CMD as the workload's user in its own process group (capture_child.h,
 * as every capture does), the agent in its environment; Ctrl-C, SIGTERM and
 * SIGHUP to kprofctl are passed to CMD's group. When CMD ends, what it left
 * running in its group is stopped. 0 with ch's status, or -1.
 */
static int run_cmd(const struct nv_opts *o, const struct kprof_user *as,
		   struct capture_child *ch, struct kprof_outdir *od, struct uprobe_cap *up)
{
	/* with uprobes, the ring is read between signals */
	const struct timespec tick = { 0, 50 * 1000 * 1000 };
	sigset_t mask, old;
	int sig;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &mask, &old);
	if (capture_child_fork(ch, o->cmd, as, &old)) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		return -1;
	}
	if (up && uprobe_start(up, od, ch->pid)) {
		capture_child_abandon(ch);
		uprobe_end(up);
		sigprocmask(SIG_SETMASK, &old, NULL);
		return -1;
	}
	if (!capture_child_release(ch, o->cmd[0])) {
		capture_child_reap(ch);
		while (!ch->exited) {
			sig = up ? sigtimedwait(&mask, NULL, &tick) : sigwaitinfo(&mask, NULL);
			if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP)
				capture_child_signal(ch, sig);
			uprobe_drain(up);
			capture_child_reap(ch);
		}
	}
	capture_child_stop(ch, "the workload's main process ended", up ? uprobe_drain : NULL, up);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return 0;
}

/* kprofctl's exit status: CMD's (128+signal if killed; 127/126: no exec). */
static int cmd_status(const struct capture_child *ch)
{
	if (ch->exec_errno || ch->setup_errno)
		return ch->exec_errno == ENOENT ? 127 : 126;
	if (WIFEXITED(ch->status))
		return WEXITSTATUS(ch->status);
	if (WIFSIGNALED(ch->status))
		return 128 + WTERMSIG(ch->status);
	return 0;
}

/* GPU name's outputs in od (dir) from its raw/; 0 or -1 (said). */
static int report_gpu(const struct nv_opts *o, const char *name, struct kprof_outdir *od,
		      const char *dir, const char *cfg)
{
	struct kprof_report_opts ro = { .version = KPROF_VERSION };
	struct kprof_report_result res;
	struct kprof_progress prog;
	struct kprof_err err = { 0 };
	int r;

	ro.config_json = cfg;
	capture_opts_report(&o->cc, &ro, &prog);
	memset(&res, 0, sizeof(res));
	r = kprof_report_build(NULL, od, &ro, &res, &err);
	kprof_progress_done(&prog);
	if (r) {
		kprofctl_err("aggregation failed: %s; the raw data is in %s/raw (kprofctl report %s retries)",
			     err.msg[0] ? err.msg : strerror(-r), dir, dir);
		return -1;
	}
	printf("kprof capture of %s: %s\n", name, dir);
	kprofctl_print_result(dir, &res, 0);
	if (!res.gpu_processes)
		kprofctl_warn("%s: no CUDA process loaded the agent or ran work on it (no %s/raw/gpu-PID.kspool): CMD made no CUDA call there, or its CUDA_INJECTION64_PATH was overridden",
			      name, dir);
	else if (res.gpu_processes > 1)
		kprofctl_warn("%s: %u CUDA processes: the outputs are of the one with the most records; summary.txt lists the others, and `kprofctl report %s --pid PID -o NEWDIR` reports one of them",
			      name, res.gpu_processes, dir);
	if (res.gpu_dropped)
		kprofctl_warn("%s: CUPTI dropped %llu records (kernels, copies or API calls are missing): see summary.txt",
			      name, (unsigned long long)res.gpu_dropped);
	if (res.gpu_counters_problem[0])
		kprofctl_warn("%s: %s", name, res.gpu_counters_problem);
	if (res.gpu_problems)
		kprofctl_warn("%s: the agent reported problems (agent errors, no clean stop): see summary.txt",
			      name);
	return 0;
}

/* Every agent spool of DIR/raw/ split over the GPUs' raw/ (kprof_gpu_route.h); 0 or -1. */
static int route_all(struct kprof_outdir *top, const char *dir, const char *const *uuids,
		     struct kprof_outdir *const *raws, unsigned int n, struct route_total *rt)
{
	enum { MAX_SPOOLS = 4096 };
	struct kprof_gpu_spool *sp = calloc(MAX_SPOOLS, sizeof(*sp));
	struct kprof_err err = { 0 };
	int ns = sp ? kprof_gpu_list(kprof_outdir_fd(top), dir, sp, MAX_SPOOLS, &err) : -ENOMEM;

	if (ns < 0) {
		kprofctl_err("listing the agents' spools in %s/raw: %s", dir,
			     err.msg[0] ? err.msg : strerror(-ns));
		free(sp);
		return -1;
	}
	if (ns > MAX_SPOOLS)
		kprofctl_warn("%d CUDA processes: the first %d by pid are split over the GPUs, the rest stay in %s/raw only",
			      ns, MAX_SPOOLS, dir);
	for (int i = 0; i < ns && i < MAX_SPOOLS; i++) {
		struct kprof_gpu_route_stats st;
		char rel[64], shown[PATH_MAX + 64];

		snprintf(rel, sizeof(rel), KPROF_SPOOL_DIR "/" KPROF_SPOOL_GPU_PREFIX "%u"
			 KPROF_SPOOL_GPU_SUFFIX, sp[i].pid);
		snprintf(shown, sizeof(shown), "%s/%s", dir, rel);
		if (kprof_gpu_route(kprof_outdir_fd(top), rel, shown, uuids, raws, n, &st, &err)) {
			kprofctl_err("splitting %s over the GPUs: %s; it stays in %s/raw", shown,
				     err.msg, dir);
			continue;
		}
		rt->processes++;
		for (unsigned int k = 0; k < n; k++)
			rt->ops[k] += st.ops[k];
		rt->foreign += st.foreign;
		rt->unmapped += st.unmapped;
		for (unsigned int f = 0; f < st.nforeign; f++) {
			unsigned int g;

			for (g = 0; g < rt->nforeign; g++)
				if (!strcmp(rt->foreign_uuid[g], st.foreign_uuid[f]))
					break;
			if (g == rt->nforeign && g < KPROF_ROUTE_FOREIGN_MAX)
				memcpy(rt->foreign_uuid[rt->nforeign++], st.foreign_uuid[f],
				       sizeof(rt->foreign_uuid[0]));
		}
	}
	free(sp);
	if (rt->foreign)
		kprofctl_warn("%llu kernels/copies ran on GPUs this capture does not take (%s%s): not in the outputs; add them to --device, or nvidia:all",
			      (unsigned long long)rt->foreign, rt->foreign_uuid[0],
			      rt->nforeign > 1 ? ", ..." : "");
	if (rt->unmapped)
		kprofctl_warn("%llu kernels/copies of CUDA devices the agent could not name (no UUID from libcuda): not in the outputs; the raw spools in %s/raw keep them",
			      (unsigned long long)rt->unmapped, dir);
	return 0;
}

/*
 * Several GPUs: each held, described and given DIR/nvidiaN/ (as kprof.ko
 * devices get DIR/devN/, capture_multi.h); CMD runs once with the agent
 * writing DIR/raw/; then each spool is split over the GPUs, each GPU's
 * outputs made from its share, and DIR's across them. All or none: a GPU
 * that cannot be held stops the capture before CMD runs.
 */
static int capture_nvidia_multi(const struct nv_opts *o)
{
	struct gpu_desc {
		struct kprof_device_info info;
		struct kprof_counter_info cinfo;
	} *g = calloc(o->n, sizeof(*g));
	struct kprof_outdir *od[KPROF_DEVICE_LIST_MAX] = { 0 }, *raws[KPROF_DEVICE_LIST_MAX];
	struct capture_child ch = { .pid = -1, .go_fd = -1, .ex_fd = -1 };
	struct route_total *rt = calloc(1, sizeof(*rt));
	struct kprof_err err = { 0 };
	struct kprof_outdir *top, *raw;
	struct capture_multi *m = NULL;
	struct kprof_user as;
	struct timespec t0, t1;
	char names[KPROF_DEVICE_LIST_MAX][KPROF_DEVICE_NAME_LEN];
	char uuid[KPROF_DEVICE_LIST_MAX][KPROF_DEVICE_UUID_LEN];
	const char *uuids[KPROF_DEVICE_LIST_MAX];
	struct kprof_device_id ids[KPROF_DEVICE_LIST_MAX];
	int hold[KPROF_DEVICE_LIST_MAX];
	char agent[PATH_MAX + 32], rawdir[PATH_MAX];
	unsigned int k, held = 0;
	int rc = KPROFCTL_EXIT_FAIL, failed = 0;
	uid_t uid;
	gid_t gid;

	if (!rt || !g) {
		kprofctl_err("out of memory");
		goto out;
	}
	if (find_agent(o, agent, sizeof(agent)))
		goto out;
	if (kprof_user_for_workload(o->cc.user, &as, &err)) {
		kprofctl_err("%s", err.msg);
		goto out;
	}
	uid = as.drop ? as.uid : (uid_t)-1;
	gid = as.drop ? as.gid : (gid_t)-1;
	/* every GPU held before anything is made, or none */
	for (k = 0; k < o->n; k++) {
		kprof_device_name(&o->ids[k], names[k], sizeof(names[k]));
		describe(&o->ids[k], names[k], &g[k].info, &g[k].cinfo, uuid[k], sizeof(uuid[k]));
		uuids[k] = uuid[k];
		/* by index from here: DIR/nvidiaN, whichever way it was named */
		ids[k] = o->ids[k];
		if (ids[k].uuid[0] && g[k].info.device_id <= KPROF_DEVICE_INDEX_MAX) {
			ids[k].uuid[0] = '\0';
			ids[k].index = g[k].info.device_id;
		}
		for (unsigned int j = 0; j < k; j++)
			if (uuid[k][0] && !strcmp(uuid[j], uuid[k])) {
				kprofctl_err("--device: %s and %s are the same GPU (%s)", names[j],
					     names[k], uuid[k]);
				goto out;
			}
		hold[k] = hold_gpu(names[k], uuid[k]);
		if (hold[k] < 0) {
			kprofctl_err("nothing captured: a capture of several GPUs takes every one of them or none, and %s could not be taken (above)",
				     names[k]);
			goto out;
		}
		held++;
	}
	m = capture_multi_open(o->cc.outdir, o->cc.force, ids, o->n, uid, gid);
	if (!m)
		goto out;
	top = capture_multi_top(m);
	for (k = 0; k < o->n; k++) {
		struct kprof_spool_writer *w;

		unsigned int fl = KPROF_OUTDIR_EMPTY |
				  (o->cc.force ? KPROF_OUTDIR_FORCE | KPROF_OUTDIR_FORCE_RAW : 0);

		od[k] = kprofctl_outdir(capture_multi_devdir(m, k), fl, uid, gid);
		if (!od[k])
			goto out;
		w = kprof_spool_create(od[k], KPROF_SPOOL_DEVICE, &g[k].info, &g[k].cinfo, &err);
		raws[k] = kprof_outdir_sub(od[k], KPROF_SPOOL_DIR, &err);
		if (!w || kprof_spool_close(w, &err) || !raws[k]) {
			kprofctl_err("cannot create the device spool in %s: %s",
				     capture_multi_devdir(m, k), err.msg);
			goto out;
		}
	}
	/* the agents write DIR/raw/; the split copies each GPU's share */
	raw = kprof_outdir_sub(top, KPROF_SPOOL_DIR, &err);
	if (!raw || !realpath(kprof_outdir_path(raw), rawdir)) {
		kprofctl_err("%s/%s: %s", kprof_outdir_path(top), KPROF_SPOOL_DIR,
			     raw ? strerror(errno) : err.msg);
		goto out;
	}
	if (agent_env(o, agent, rawdir, NULL))
		goto out;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (run_cmd(o, &as, &ch, NULL, NULL))
		goto out;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (route_all(top, kprof_outdir_path(top), uuids, raws, o->n, rt))
		goto out;
	for (k = 0; k < o->n; k++) {
		char *cfg = config_json(o, names[k], agent, NULL, rt, k, &as, ch.status,
					(double)(t1.tv_sec - t0.tv_sec) +
					(double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
					ch.exec_errno ? ch.exec_errno : ch.setup_errno);

		if (report_gpu(o, names[k], od[k], capture_multi_devdir(m, k), cfg))
			failed = 1;
		free(cfg);
	}
	if (failed || capture_multi_finish(m, od, o->cc.step))
		goto out;
	rc = cmd_status(&ch);
out:
	for (k = 0; k < o->n; k++)
		kprof_outdir_close(od[k]);
	capture_multi_close(m);
	for (k = 0; k < held; k++)
		kprof_gpu_release(hold[k]);
	free(rt);
	free(g);
	return rc;
}

int capture_nvidia(int argc, char **argv)
{
	struct kprof_device_info info;
	struct kprof_counter_info cinfo;
	struct kprof_spool_writer *w;
	struct kprof_outdir *od;
	struct kprof_err err = { 0 };
	struct kprof_user as;
	struct capture_child ch = { .pid = -1, .go_fd = -1, .ex_fd = -1 };
	struct uprobe_cap ucap = { .lib = "" }, *up = NULL;
	struct timespec t0, t1;
	struct nv_opts o;
	char dir[PATH_MAX], agent_dir[PATH_MAX + 8], rawdir[PATH_MAX], agent[PATH_MAX + 32];
	char *cfg, uuid[KPROF_DEVICE_UUID_LEN];
	int r, st, exec_errno, hold = -1, rc = KPROFCTL_EXIT_FAIL;

	r = parse(argc, argv, &o);
	if (r)
		return r < 0 ? 0 : r;
	if (o.multi)
		return capture_nvidia_multi(&o);
	if (find_agent(&o, agent, sizeof(agent)))
		return KPROFCTL_EXIT_FAIL;
	if (uprobe_mode(&o)) {
		/* before anything is made: a failure here loses nothing */
		up = &ucap;
		if (o.libcuda && (!realpath(o.libcuda, up->lib) || access(up->lib, R_OK))) {
			kprofctl_err("--libcuda %s: %s", o.libcuda, strerror(errno));
			return KPROFCTL_EXIT_FAIL;
		}
		if (!o.libcuda && kprof_cuda_find_lib(0, getenv("LD_LIBRARY_PATH"), up->lib,
						      sizeof(up->lib), &err)) {
			kprofctl_err("--host-times uprobe: %s", err.msg);
			return KPROFCTL_EXIT_FAIL;
		}
	}
	if (o.cc.outdir) {
		snprintf(dir, sizeof(dir), "%s", o.cc.outdir);
	} else {
		char stamp[32];
		time_t now = time(NULL);
		struct tm tm;

		localtime_r(&now, &tm);
		strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
		snprintf(dir, sizeof(dir), "./kprof-nvidia-%u-%s", o.id.index, stamp);
	}
	/* who CMD runs as: it owns the outputs, and its agent writes raw/ */
	if (kprof_user_for_workload(o.cc.user, &as, &err)) {
		kprofctl_err("%s", err.msg);
		return KPROFCTL_EXIT_FAIL;
	}
	/* before anything is made: a GPU being captured is refused */
	describe(&o.id, o.name, &info, &cinfo, uuid, sizeof(uuid));
	hold = hold_gpu(o.name, uuid);
	if (hold < 0)
		return KPROFCTL_EXIT_FAIL;
	/* a new capture starts from an empty raw/, as any capture */
	od = kprofctl_outdir(dir, KPROF_OUTDIR_EMPTY |
			     (o.cc.force ? KPROF_OUTDIR_FORCE | KPROF_OUTDIR_FORCE_RAW : 0),
			     as.drop ? as.uid : (uid_t)-1, as.drop ? as.gid : (gid_t)-1);
	if (!od)
		goto out;
	w = kprof_spool_create(od, KPROF_SPOOL_DEVICE, &info, &cinfo, &err);
	if (!w || kprof_spool_close(w, &err)) {
		kprofctl_err("cannot create the device spool in %s: %s", dir, err.msg);
		goto out;
	}
	/* the agent runs in CMD's processes, wherever they chdir to */
	snprintf(agent_dir, sizeof(agent_dir), "%s/%s", dir, KPROF_SPOOL_DIR);
	if (!realpath(agent_dir, rawdir)) {
		kprofctl_err("%s: %s", agent_dir, strerror(errno));
		goto out;
	}
	if (agent_env(&o, agent, rawdir, up))
		goto out;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (run_cmd(&o, &as, &ch, od, up))
		goto out;
	/* the calls are written before the report reads them */
	if (up && uprobe_end(up))
		kprofctl_warn("the uprobe calls may be incomplete (%s): see summary.txt",
			      KPROF_SPOOL_CUDA_FILE);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	st = ch.status;
	exec_errno = ch.exec_errno ? ch.exec_errno : ch.setup_errno;

	cfg = config_json(&o, o.name, agent, up, NULL, 0, &as, st, (double)(t1.tv_sec - t0.tv_sec) +
			  (double)(t1.tv_nsec - t0.tv_nsec) / 1e9, exec_errno);
	r = report_gpu(&o, o.name, od, dir, cfg);
	free(cfg);
	if (r)
		goto out;
	rc = cmd_status(&ch);
out:
	kprof_gpu_release(hold);
	kprof_outdir_close(od);
	return rc;
}
