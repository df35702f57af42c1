// SPDX-License-Identifier: GPL-2.0
/*
 * Driver profiles: the JSON files in data/profiles/ against the numbers the compiler
 * computes from the drivers' uapi headers (build/bpf/kprof_uapi_cmds.h,
 * made by `make bpf` from bpf/gen_uapi_cmds.c), the sim profile against
 * <linux/kprof_sim.h>, ioctl command parsing, and malformed profiles.
 */
#include "kt.h"
#include "kprof_array_size.h"
#include "kprof_profile.h"
#include "kprof_env.h"

#include <errno.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/kprof_sim.h>
#include <misc/habanalabs.h>

#if __has_include("kprof_uapi_cmds.h")
#include "kprof_uapi_cmds.h"
#define HAVE_UAPI_CMDS 1
#endif

static const struct kprof_profile *get(const struct kprof_profile *v, size_t n,
				       const char *name)
{
	const struct kprof_profile *p = kprof_profile_find(v, n, name);

	KT_CHECK(p, "no built-in profile \"%s\"", name);
	return p;
}

static void check_io(const char *drv, const char *role, const struct kprof_profile_ioctl *io,
		     uint32_t cmd, uint32_t off, uint32_t size)
{
	KT_CHECK(io->cmd == cmd, "%s %s cmd 0x%08x, header says 0x%08x", drv, role, io->cmd, cmd);
	KT_CHECK(io->seq_off == off && io->seq_size == size,
		 "%s %s seq %u/%u, header says %u/%u", drv, role, io->seq_off, io->seq_size,
		 off, size);
}

static void check_against_headers(const struct kprof_profile *v, size_t n)
{
	const struct kprof_profile *p;
	struct kprof_profile sim;

	/* The sim: JSON, the compiled-in profile and the header agree. */
	p = get(v, n, "kprof_sim");
	kprof_profile_builtin_sim(&sim);
	if (p) {
		check_io("kprof_sim", "launch", &p->launch, KPROF_SIM_IOC_LAUNCH,
			 offsetof(struct kprof_sim_launch, seq), 8);
		check_io("kprof_sim", "sync", &p->sync, KPROF_SIM_IOC_SYNC,
			 offsetof(struct kprof_sim_sync, seq), 8);
		KT_CHECK(!memcmp(&p->launch.cmd, &sim.launch.cmd,
				 sizeof(sim.launch) - offsetof(struct kprof_profile_ioctl, cmd)) &&
			 !memcmp(&p->sync.cmd, &sim.sync.cmd,
				 sizeof(sim.sync) - offsetof(struct kprof_profile_ioctl, cmd)),
			 "data/profiles/kprof_sim.json differs from kprof_profile_builtin_sim()");
		KT_STR(p->handler, sim.handler);
		KT_STR(p->backend, "sim");
		KT_EQ_U64(p->cmd_mask, KPROF_PROFILE_MASK_EXACT);
		KT_CHECK(kprof_profile_for_backend(v, n, "sim") == p, "sim backend lookup");
	}
	/* habanalabs' header is in linux-libc-dev: check directly too. */
	p = get(v, n, "habanalabs");
	if (p) {
		KT_EQ_U64(p->launch.cmd, HL_IOCTL_CS);
		KT_EQ_U64(p->sync.cmd, HL_IOCTL_WAIT_CS);
		KT_EQ_U64(p->launch.seq_off, offsetof(union hl_cs_args, out.seq));
		KT_EQ_U64(p->sync.seq_off, offsetof(union hl_wait_cs_args, in.seq));
	}
#ifndef HAVE_UAPI_CMDS
	KT_CHECK(0,
		 "kprof_uapi_cmds.h not found: run 'make bpf' first (it computes the DRM drivers' ioctl numbers from their uapi headers); i915/amdgpu NOT verified");
#else
	p = get(v, n, "habanalabs");
	if (p) {
		check_io("habanalabs", "launch", &p->launch, KPROF_UAPI_HL_CS,
			 KPROF_UAPI_HL_CS_SEQ_OFF, KPROF_UAPI_HL_CS_SEQ_SIZE);
		check_io("habanalabs", "sync", &p->sync, KPROF_UAPI_HL_WAIT_CS,
			 KPROF_UAPI_HL_WAIT_CS_SEQ_OFF, KPROF_UAPI_HL_WAIT_CS_SEQ_SIZE);
	}
	p = get(v, n, "i915");
	if (p) {
		check_io("i915", "launch", &p->launch, KPROF_UAPI_I915_GEM_EXECBUFFER2, 0, 0);
		check_io("i915", "sync", &p->sync, KPROF_UAPI_I915_GEM_WAIT, 0, 0);
		/* Mesa also submits with the _WR variant: the mask must cover it. */
		KT_CHECK((KPROF_UAPI_I915_GEM_EXECBUFFER2_WR & p->cmd_mask) ==
			 (p->launch.cmd & p->cmd_mask), "i915 EXECBUFFER2_WR not matched");
	}
	p = get(v, n, "amdgpu");
	if (p) {
		check_io("amdgpu", "launch", &p->launch, KPROF_UAPI_AMDGPU_CS,
			 KPROF_UAPI_AMDGPU_CS_SEQ_OFF, KPROF_UAPI_AMDGPU_CS_SEQ_SIZE);
		check_io("amdgpu", "sync", &p->sync, KPROF_UAPI_AMDGPU_WAIT_CS,
			 KPROF_UAPI_AMDGPU_WAIT_CS_SEQ_OFF, KPROF_UAPI_AMDGPU_WAIT_CS_SEQ_SIZE);
	}
#ifdef KPROF_UAPI_NO_IVPU
	/*
	 * ivpu (6.3) and qaic (6.4) postdate Debian 12's headers. The tracer
	 * matches DRM commands on type and number only, so check those; the
	 * size bits come from the upstream struct layouts (docs/formats.md).
	 */
	fprintf(stdout,
		"note: ivpu/qaic uapi headers not installed: checking type 'd' and DRM_COMMAND_BASE-relative numbers only\n");
	p = get(v, n, "ivpu");
	if (p) {
		KT_CHECK(_IOC_TYPE(p->launch.cmd) == 'd' && _IOC_NR(p->launch.cmd) == 0x40 + 0x05,
			 "ivpu SUBMIT is DRM_COMMAND_BASE + 0x05");
		KT_CHECK(_IOC_TYPE(p->sync.cmd) == 'd' && _IOC_NR(p->sync.cmd) == 0x40 + 0x06,
			 "ivpu BO_WAIT is DRM_COMMAND_BASE + 0x06");
	}
#else
	p = get(v, n, "ivpu");
	if (p) {
		check_io("ivpu", "launch", &p->launch, KPROF_UAPI_IVPU_SUBMIT, 0, 0);
		check_io("ivpu", "sync", &p->sync, KPROF_UAPI_IVPU_BO_WAIT, 0, 0);
	}
#endif
#ifdef KPROF_UAPI_NO_QAIC
	p = get(v, n, "qaic");
	if (p) {
		KT_CHECK(_IOC_TYPE(p->launch.cmd) == 'd' && _IOC_NR(p->launch.cmd) == 0x40 + 0x04,
			 "qaic EXECUTE_BO is DRM_COMMAND_BASE + 0x04");
		KT_CHECK(_IOC_TYPE(p->sync.cmd) == 'd' && _IOC_NR(p->sync.cmd) == 0x40 + 0x06,
			 "qaic WAIT_BO is DRM_COMMAND_BASE + 0x06");
	}
#else
	p = get(v, n, "qaic");
	if (p) {
		check_io("qaic", "launch", &p->launch, KPROF_UAPI_QAIC_EXECUTE_BO, 0, 0);
		check_io("qaic", "sync", &p->sync, KPROF_UAPI_QAIC_WAIT_BO, 0, 0);
	}
#endif
#endif
	/* DRM-style profiles mask to type+nr, and launch/sync stay distinct. */
	for (size_t i = 0; i < n; i++) {
		KT_CHECK(v[i].handler[0] && v[i].node[0] == '/', "%s: handler and node", v[i].name);
		KT_CHECK((v[i].launch.cmd & v[i].cmd_mask) != (v[i].sync.cmd & v[i].cmd_mask),
			 "%s: launch and sync collide under the mask", v[i].name);
	}
}

static void check_cmd_parse(void)
{
	struct kprof_err err;
	uint32_t c = 0;
	char buf[96];
	static const char *const bad[] = {
		"", "0", "-1", "0x100000000", "abc", "12abc", "_IOWR(0x100, 1, 8)",
		"_IOWR('d', 1)", "_IOW('d', 1, 2", "_IOW('d', 1, 2)x", "_IOR('d', 0x100, 4)",
		"_IOWR('d', 1, 0x4000)", "_IO('d')", "_IOWR(d, 1, 8)", "_IOX('d', 1, 8)",
		"_IOWR('', 1, 8)", "_IOWR('d', 0xff+1, 8)",
	};

	KT_CHECK(!kprof_ioctl_cmd_parse("0xc060bb81", &c, &err) && c == 0xc060bb81, "hex");
	KT_CHECK(!kprof_ioctl_cmd_parse(" 21523 ", &c, &err) && c == 21523, "decimal");
	snprintf(buf, sizeof(buf), "_IOWR(0xBB, 0x81, %zu)", sizeof(struct kprof_sim_launch));
	KT_CHECK(!kprof_ioctl_cmd_parse(buf, &c, &err) && c == KPROF_SIM_IOC_LAUNCH,
		 "%s -> 0x%08x: %s", buf, c, err.msg);
	KT_CHECK(!kprof_ioctl_cmd_parse("_IO('T', 0x13)", &c, &err) && c == TIOCGWINSZ,
		 "_IO('T', 0x13) = TIOCGWINSZ, got 0x%x", c);
	snprintf(buf, sizeof(buf), "_IOWR('H',3,%zu)", sizeof(union hl_cs_args));
	KT_CHECK(!kprof_ioctl_cmd_parse(buf, &c, &err) && c == HL_IOCTL_CS, "%s", buf);
	snprintf(buf, sizeof(buf), "_IOW ( 'H' , 0x2+0x1 , %zu )", sizeof(union hl_cs_args));
	KT_CHECK(!kprof_ioctl_cmd_parse(buf, &c, &err) &&
		 c == _IOW('H', 3, union hl_cs_args), "%s", buf);
	KT_CHECK(!kprof_ioctl_cmd_parse("_IOR('d', 0x40+0x04, 24)", &c, &err) &&
		 c == _IOC(_IOC_READ, 'd', 0x44, 24), "_IOR sum");
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		err.msg[0] = '\0';
		KT_CHECK(kprof_ioctl_cmd_parse(bad[i], &c, &err) == -EINVAL && err.msg[0],
			 "'%s' accepted as 0x%x", bad[i], c);
	}
}

static void expect_bad(const char *json, const char *what)
{
	struct kprof_profile p;
	struct kprof_err err = { 0 };
	int r = kprof_profile_parse(json, strlen(json), "t.json", &p, &err);

	KT_CHECK(r < 0 && strstr(err.msg, "t.json") && strstr(err.msg, what),
		 "bad profile accepted or message lacks \"%s\": r=%d msg=%s", what, r, err.msg);
}

#define BASE "\"name\": \"x\", \"node\": \"/dev/x\", "
#define GOOD_LAUNCH "\"launch\": {\"cmd\": \"_IOW('d', 0x41, 8)\", \"seq_offset\": 4, \"seq_size\": 4},"

static void check_malformed(void)
{
	struct kprof_profile p;
	struct kprof_err err;
	const char *good = "{" BASE "\"match\": \"type_nr\", "
		GOOD_LAUNCH
		" \"sync\": {\"cmd\": \"0x4008642a\"}, \"comment\": \"ok\"}\n\n";

	KT_CHECK(!kprof_profile_parse(good, strlen(good), "g.json", &p, &err), "good: %s", err.msg);
	KT_EQ_U64(p.launch.cmd, _IOC(_IOC_WRITE, 'd', 0x41, 8));
	KT_EQ_U64(p.launch.seq_off, 4);
	KT_EQ_U64(p.cmd_mask, KPROF_PROFILE_MASK_TYPE_NR);
	KT_EQ_U64(p.sync.cmd, 0x4008642a);
	/* Truncated at every length: never accepted, never crashes. */
	for (size_t l = 0; l < strlen(good) - 3; l++)
		KT_CHECK(kprof_profile_parse(good, l, "t.json", &p, &err) < 0,
			 "truncated at %zu accepted", l);
	expect_bad("{" BASE "\"launch\": {\"cmd\": \"0x1\"}} x", "after the JSON");
	expect_bad("[1, 2]", "object");
	expect_bad("{" BASE "\"lunch\": {\"cmd\": \"0x1\"}}", "unknown key \"lunch\"");
	expect_bad("{" BASE "\"launch\": {\"cmd\": \"0x1\", \"seq_sz\": 8}}", "launch.seq_sz");
	expect_bad("{" BASE "\"launch\": {\"cmd\": 1}}", "must be a string");
	expect_bad("{" BASE "\"launch\": {\"cmd\": \"0x1\", \"seq_size\": 3}}", "0, 4 or 8");
	expect_bad("{" BASE
		   "\"launch\": {\"cmd\": \"0x1\", \"seq_offset\": 99999}}", "out of range");
	expect_bad("{" BASE "\"launch\": {\"cmd\": \"0x1\", \"seq_offset\": -1}}", "out of range");
	expect_bad("{" BASE "\"launch\": {\"cmd\": \"0x1\", \"seq_offset\": \"4\"}}", "integer");
	expect_bad("{" BASE "\"launch\": {\"cmd\": \"zap\"}}", "cannot parse");
	expect_bad("{" BASE "\"launch\": {\"seq_size\": 8}}", "launch.cmd");
	expect_bad("{\"name\": \"x\", \"launch\": {\"cmd\": \"0x1\"}}", "required");
	expect_bad("{" BASE "\"sync\": {\"cmd\": \"0x1\"}}", "required");
	expect_bad("{" BASE "\"match\": \"fuzzy\", \"launch\": {\"cmd\": \"0x1\"}}", "match");
	expect_bad("{" BASE
		   "\"match\": \"type_nr\", \"launch\": {\"cmd\": \"0x40106444\"}, \"sync\": {\"cmd\": \"0xc0106444\"}}",
		   "the same");
	expect_bad("{" BASE
		   "\"handler\": \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\", \"launch\": {\"cmd\": \"0x1\"}}",
		   "longer than");
	expect_bad("{" BASE "\"launch\": {\"cmd\": \"0x1\"}, \"name\": 5}", "must be a string");
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	KT_CHECK(f && fputs(text, f) >= 0 && !fclose(f), "writing %s", path);
}

static void check_dir_and_targets(const char *root)
{
	char *dir = kt_tmpdir(), path[512], found[512];
	struct kprof_profile *v, p;
	struct kprof_bpf_target t;
	struct kprof_err err;
	struct stat st;
	size_t n;

	/* Two files, one name: refused. Then a broken file: named. */
	snprintf(path, sizeof(path), "%s/a.json", dir);
	write_file(path, "{" BASE "\"launch\": {\"cmd\": \"0x1\"}}");
	snprintf(path, sizeof(path), "%s/b.json", dir);
	write_file(path, "{" BASE "\"launch\": {\"cmd\": \"0x2\"}}");
	KT_CHECK(kprof_profiles_load_dir(dir, &v, &n, &err) < 0 && strstr(err.msg, "twice"),
		 "duplicate names: %s", err.msg);
	write_file(path, "{" BASE "\"launch\": {\"cmd\": \"0x2\"");
	KT_CHECK(kprof_profiles_load_dir(dir, &v, &n, &err) < 0 && strstr(err.msg, "b.json"),
		 "broken file: %s", err.msg);
	unlink(path);
	snprintf(path, sizeof(path), "%s/notes.txt", dir);
	write_file(path, "not a profile");
	KT_CHECK(!kprof_profiles_load_dir(dir, &v, &n, &err) && n == 1, "one profile: %s", err.msg);
	free(v);
	KT_CHECK(kprof_profiles_load_dir("/nonexistent/kprof", &v, &n, &err) == -ENOENT,
		 "missing dir");

	/* Where profiles are found. */
	setenv("KPROF_PROFILES", dir, 1);
	KT_CHECK(!kprof_profiles_dir(found, sizeof(found)) && !strcmp(found, dir), "env dir");
	setenv("KPROF_PROFILES", "/nonexistent/kprof", 1);
	KT_CHECK(kprof_profiles_dir(found, sizeof(found)) == -ENOENT, "env dir missing");
	unsetenv("KPROF_PROFILES");

	/* Targets: a real character device, a directory, nothing. */
	kprof_profile_builtin_sim(&p);
	KT_CHECK(!stat("/dev/null", &st) && !kprof_profile_target(&p, "/dev/null", &t, &err),
		 "target: %s", err.msg);
	KT_CHECK(t.dev == st.st_rdev && t.launch_cmd == KPROF_SIM_IOC_LAUNCH &&
		 t.sync_cmd == KPROF_SIM_IOC_SYNC && t.launch_seq_size == 8 &&
		 t.handler == p.handler && t.cmd_mask == KPROF_PROFILE_MASK_EXACT, "target fields");
	KT_CHECK(kprof_profile_target(&p, root, &t, &err) == -ENOTTY, "directory as node");
	KT_CHECK(kprof_profile_target(&p, "/dev/kprof-no-such", &t, &err) == -ENOENT &&
		 strstr(err.msg, "/dev/kprof_sim*"), "missing node: %s", err.msg);

	/* The command line. */
	KT_CHECK(!kprof_profile_from_cli("/dev/null", "_IOWR('d', 0x44, 24)", "0xc0206449",
					 &p, &err), "cli: %s", err.msg);
	KT_CHECK(p.launch.cmd == 0xc0186444 && p.sync.cmd == 0xc0206449 && !p.handler[0] &&
		 p.cmd_mask == KPROF_PROFILE_MASK_EXACT, "cli fields");
	KT_CHECK(!kprof_profile_from_cli("/dev/null", "0x5413", NULL, &p, &err) && !p.sync.cmd,
		 "cli without sync");
	KT_CHECK(!kprof_profile_target(&p, p.node, &t, &err) && !t.handler && !t.sync_cmd,
		 "cli target");
	KT_CHECK(kprof_profile_from_cli("/dev/null", NULL, "0x1", &p, &err) == -EINVAL,
		 "no launch");
	KT_CHECK(kprof_profile_from_cli("/dev/null", "0x1", "1", &p, &err) == -EINVAL &&
		 strstr(err.msg, "same"), "same cmds");
	KT_CHECK(kprof_profile_from_cli("/dev/null", "0x1", "_IO(", &p, &err) == -EINVAL,
		 "bad sync");
	kt_rmrf(dir);
}

int main(void)
{
	char root[512], dir[600];
	struct kprof_profile *v = NULL;
	struct kprof_err err = { 0 };
	size_t n = 0;
	char *s;

	/* KPROF_* variables below are the test's own: honour them as root too */
	kprof_env_trust(1);

	/* The tree this test was built from (the Makefile passes absolute paths). */
	snprintf(root, sizeof(root), "%s", __FILE__);
	s = strstr(root, "/tests/unit/");
	if (s)
		*s = '\0';
	snprintf(dir, sizeof(dir), "%s/data/profiles", root);
	KT_CHECK(!kprof_profiles_load_dir(dir, &v, &n, &err), "%s", err.msg);
	KT_CHECK(n >= 6, "%zu profiles in %s", n, dir);
	check_against_headers(v, n);
	free(v);
	check_cmd_parse();
	check_malformed();
	check_dir_and_targets(root);
	return kt_done("test_profiles");
}
