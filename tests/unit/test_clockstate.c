// SPDX-License-Identifier: GPL-2.0
/* Host clock-state file: round trip (byte for byte values), malformed input,
 * refusal of files others could have planted or changed.
 */
#include "kt.h"
#include "kprof_array_size.h"
#include "kprof_clockstate.h"

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

static const char good[] =
	"{ \"version\": 1, \"sysfs_root\": \"/tmp/x\", \"pid\": 5, \"saved_at\": 7,\n"
	" \"boost\": null, \"no_turbo\": \"0\", \"cpus\": [ { \"cpu\": 3,\n"
	" \"scaling_governor\": \"schedutil\", \"scaling_min_freq\": \"800000\",\n"
	" \"scaling_max_freq\": \"3600000\" } ] }";

int main(void)
{
	char *dir = kt_tmpdir();
	char path[256];
	struct kprof_clockstate st = { 0 }, back;
	struct kprof_err err;
	struct stat sb;

	snprintf(path, sizeof(path), "%s/state.json", dir);
	strcpy(st.sysfs_root, "/tmp/fake sysfs \"quoted\"");
	st.pid = 4242;
	st.saved_at = 1763793000;
	st.has_boost = 1;
	strcpy(st.boost, "1");
	st.ncpus = 3;
	st.cpus = calloc(3, sizeof(*st.cpus));
	for (int i = 0; i < 3; i++) {
		st.cpus[i].cpu = (uint32_t)(i * 2);
		strcpy(st.cpus[i].governor, i ? "performance" : "powersave");
		snprintf(st.cpus[i].min_freq, KPROF_CLOCKSTATE_VAL_LEN, "%d", 400000 + i);
		snprintf(st.cpus[i].max_freq, KPROF_CLOCKSTATE_VAL_LEN, "  %d ", 4700000 - i);
	}
	KT_CHECK(kprof_clockstate_write(path, &st, &err) == 0, "write: %s", err.msg);
	KT_CHECK(kprof_clockstate_read(path, &back, &err) == 0, "read: %s", err.msg);
	KT_STR(back.sysfs_root, st.sysfs_root);
	KT_EQ_U64(back.pid, 4242);
	KT_EQ_U64(back.saved_at, 1763793000);
	KT_EQ_U64(back.has_boost, 1);
	KT_STR(back.boost, "1");
	KT_EQ_U64(back.has_no_turbo, 0);
	KT_EQ_U64(back.ncpus, 3);
	for (size_t i = 0; i < back.ncpus && i < 3; i++) {
		KT_EQ_U64(back.cpus[i].cpu, st.cpus[i].cpu);
		KT_STR(back.cpus[i].governor, st.cpus[i].governor);
		KT_STR(back.cpus[i].min_freq, st.cpus[i].min_freq);
		KT_STR(back.cpus[i].max_freq, st.cpus[i].max_freq);	/* spaces kept */
	}
	kprof_clockstate_free(&back);
	/* atomic: no temporary left behind */
	{
		char tmp[300];

		snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
		KT_CHECK(stat(tmp, &sb) != 0, "tmp file left: %s", tmp);
	}

	KT_CHECK(kprof_clockstate_parse(good, &back, &err) == 0, "good: %s", err.msg);
	KT_EQ_U64(back.has_no_turbo, 1);
	KT_STR(back.no_turbo, "0");
	KT_EQ_U64(back.has_boost, 0);
	KT_EQ_U64(back.cpus[0].cpu, 3);
	kprof_clockstate_free(&back);

	{
		static const char *const bad[] = {
			"",
			"{",
			"[]",
			"{\"version\": 1}",
			"{ \"version\": 2, \"sysfs_root\": \"\", \"pid\": 5, \"saved_at\": 7, \"boost\": null, \"no_turbo\": null, \"cpus\": [] }",
			"{ \"version\": 1, \"sysfs_root\": \"\", \"pid\": \"5\", \"saved_at\": 7, \"boost\": null, \"no_turbo\": null, \"cpus\": [] }",
			"{ \"version\": 1, \"sysfs_root\": \"\", \"pid\": 5, \"saved_at\": 7, \"boost\": null, \"no_turbo\": null, \"cpus\": [], \"extra\": 1 }",
			"{ \"version\": 1, \"sysfs_root\": \"\", \"pid\": 5, \"saved_at\": 7, \"boost\": 1, \"no_turbo\": null, \"cpus\": [] }",
			"{ \"version\": 1, \"sysfs_root\": \"\", \"pid\": -1, \"saved_at\": 7, \"boost\": null, \"no_turbo\": null, \"cpus\": [] }",
			"{ \"version\": 1, \"sysfs_root\": \"\", \"pid\": 5, \"saved_at\": 7, \"boost\": null, \"no_turbo\": null, \"cpus\": [ 1 ] }",
			"{ \"version\": 1, \"sysfs_root\": \"\", \"pid\": 5, \"saved_at\": 7, \"boost\": null, \"no_turbo\": null, \"cpus\": [ { \"cpu\": 0, \"scaling_governor\": \"x\", \"scaling_min_freq\": \"1\" } ] }",
			"{ \"version\": 1, \"sysfs_root\": \"\", \"pid\": 5, \"saved_at\": 7, \"boost\": null, \"no_turbo\": null, \"cpus\": [] } trailing",
			"{ \"version\": 1, \"sysfs_root\": \"\", \"pid\": 5, \"saved_at\": 7, \"boost\": \"0123456789012345678901234567890123456789012345678901234567890123456789\", \"no_turbo\": null, \"cpus\": [] }",
		};
		for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
			int r = kprof_clockstate_parse(bad[i], &back, &err);

			KT_CHECK(r < 0 && err.msg[0], "bad[%zu] accepted", i);
			KT_CHECK(!back.cpus, "bad[%zu] leaked cpus", i);
		}
	}
	KT_CHECK(kprof_clockstate_read("/nonexistent/x.json", &back, &err) < 0 &&
		 strstr(err.msg, "/nonexistent/x.json"), "missing file: %s", err.msg);

	/*
	 * What reset writes to sysfs as root comes from this file: a
	 * symbolic link, or a file someone else owns or could write, is
	 * refused; the temporary file is never one planted beforehand.
	 */
	{
		char lnk[300], victim[300], tmpname[300];

		snprintf(lnk, sizeof(lnk), "%s/link.json", dir);
		KT_CHECK(symlink(path, lnk) == 0, "symlink");
		KT_CHECK(kprof_clockstate_read(lnk, &back, &err) == -ELOOP &&
			 strstr(err.msg, "symbolic link"), "symlink read: %s", err.msg);
		KT_CHECK(chmod(path, 0664) == 0, "chmod");
		KT_CHECK(kprof_clockstate_read(path, &back, &err) == -EPERM &&
			 strstr(err.msg, "writable by group or others"), "g+w read: %s", err.msg);
		KT_CHECK(chmod(path, 0644) == 0, "chmod");
		if (geteuid() == 0) {
			KT_CHECK(chown(path, 4000001, 0) == 0, "chown");
			KT_CHECK(kprof_clockstate_read(path, &back, &err) == -EPERM &&
				 strstr(err.msg, "belongs to uid 4000001"),
				 "foreign read: %s", err.msg);
			KT_CHECK(chown(path, 0, 0) == 0, "chown");
		}
		snprintf(victim, sizeof(victim), "%s/victim", dir);
		snprintf(tmpname, sizeof(tmpname), "%s.tmp.%d", path, (int)getpid());
		{
			FILE *f = fopen(victim, "w");

			KT_CHECK(f && fputs("precious\n", f) >= 0 && !fclose(f), "victim");
		}
		KT_CHECK(symlink(victim, tmpname) == 0, "plant tmp link");
		KT_CHECK(kprof_clockstate_write(path, &st, &err) == 0, "write: %s", err.msg);
		{
			char *v = kt_slurp(victim, NULL);

			KT_CHECK(v && !strcmp(v, "precious\n"), "planted tmp link followed: %s",
				 v ? v : "(gone)");
			free(v);
		}
		KT_CHECK(lstat(tmpname, &sb) != 0, "temporary file left");
		KT_CHECK(kprof_clockstate_read(path, &back, &err) == 0, "read back: %s", err.msg);
		kprof_clockstate_free(&back);
	}
	kprof_clockstate_free(&st);
	kt_rmrf(dir);
	return kt_done("test_clockstate");
}
