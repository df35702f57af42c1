// SPDX-License-Identifier: GPL-2.0
/*
 * Host clock lock/reset (kprof_cpufreq.c) against a fake cpufreq sysfs
 * tree: every value comes back byte for byte, a second lock keeps the
 * first saved state, a failed lock leaves the tree as found, a concurrent
 * run is refused, and a missing cpufreq is reported as -ENOENT. The run
 * directory and clock.lock are refused when someone else could have
 * placed or changed them; a saved state can be forgotten; a restore the
 * kernel adjusts does not leave a state that fails every later reset.
 */
#include "kt.h"
#include "kprof_array_size.h"
#include "kprof_cpufreq.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define CF "devices/system/cpu/cpufreq"

static const char *const files[] = {
	CF "/boost",
	"devices/system/cpu/intel_pstate/no_turbo",
	CF "/policy0/scaling_governor",
	CF "/policy0/scaling_min_freq",
	CF "/policy0/scaling_max_freq",
	CF "/policy2/scaling_governor",
	CF "/policy2/scaling_min_freq",
	CF "/policy2/scaling_max_freq",
};

#define NFILES (ARRAY_SIZE(files))

static void put(const char *root, const char *rel, const char *val)
{
	char path[512], cmd[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	if (system(cmd) != 0)
		exit(2);
	f = fopen(path, "w");
	if (!f || fputs(val, f) < 0 || fclose(f))
		exit(2);
}

static char *get(const char *root, const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	return kt_slurp(path, NULL);
}

static void make_tree(const char *root)
{
	put(root, CF "/boost", "1\n");
	put(root, "devices/system/cpu/intel_pstate/no_turbo", "0\n");
	put(root, CF "/policy0/scaling_governor", "schedutil\n");
	put(root, CF "/policy0/scaling_min_freq", "400000\n");
	put(root, CF "/policy0/scaling_max_freq", "3400000\n");
	put(root, CF "/policy0/cpuinfo_min_freq", "400000\n");
	put(root, CF "/policy0/cpuinfo_max_freq", "3400000\n");
	put(root, CF "/policy0/base_frequency", "2100000\n");
	put(root, CF "/policy0/scaling_available_governors",
	    "performance schedutil powersave\n");
	/* policy2: other values, no base_frequency, no governor list */
	put(root, CF "/policy2/scaling_governor", "powersave\n");
	put(root, CF "/policy2/scaling_min_freq", "800000\n");
	put(root, CF "/policy2/scaling_max_freq", "2000000\n");
	put(root, CF "/policy2/cpuinfo_min_freq", "400000\n");
	put(root, CF "/policy2/cpuinfo_max_freq", "3000000\n");
}

static void save_all(const char *root, char **saved)
{
	for (size_t i = 0; i < NFILES; i++)
		saved[i] = get(root, files[i]);
}

static void restore_all(const char *root, char **saved)
{
	for (size_t i = 0; i < NFILES; i++)
		put(root, files[i], saved[i]);
}

static void check_same(const char *root, char **saved, const char *when)
{
	for (size_t i = 0; i < NFILES; i++) {
		char *now = get(root, files[i]);

		KT_CHECK(now && saved[i] && !strcmp(now, saved[i]),
			 "%s: %s is \"%s\", was \"%s\"", when, files[i],
			 now ? now : "(missing)", saved[i] ? saved[i] : "(missing)");
		free(now);
	}
}

static void check_val(const char *root, const char *rel, const char *want)
{
	char *v = get(root, rel);

	KT_CHECK(v && !strcmp(v, want), "%s is \"%s\", expected \"%s\"", rel,
		 v ? v : "(missing)", want);
	free(v);
}

int main(void)
{
	char *tmp = kt_tmpdir();
	char root[256], run[256], state[300], lockp[300], msg[512];
	char *saved[NFILES], *st1, *st2;
	struct stat sb;
	int r;

	snprintf(root, sizeof(root), "%s/sys", tmp);
	snprintf(run, sizeof(run), "%s/run/kprof", tmp);
	snprintf(state, sizeof(state), "%s/host-clock.json", run);
	snprintf(lockp, sizeof(lockp), "%s/clock.lock", run);

	/* No cpufreq at all (a VM): reported, nothing written. */
	r = kprof_host_clock_lock(root, run, KPROF_CPUFREQ_MAX, 0, msg, sizeof(msg));
	KT_CHECK(r == -ENOENT, "lock without cpufreq: %d (%s)", r, msg);
	KT_CHECK(strstr(msg, "not available"), "message: %s", msg);
	KT_CHECK(stat(state, &sb) != 0, "state file written without cpufreq");

	make_tree(root);
	save_all(root, saved);
	KT_EQ_U64(kprof_cpufreq_policies(root), 2);

	/* Lock at base: policy0 has base_frequency, policy2 falls back to max. */
	r = kprof_host_clock_lock(root, run, KPROF_CPUFREQ_BASE, 0, msg, sizeof(msg));
	KT_CHECK(r == 0, "lock: %d (%s)", r, msg);
	check_val(root, CF "/boost", "0\n");
	check_val(root, "devices/system/cpu/intel_pstate/no_turbo", "1\n");
	check_val(root, CF "/policy0/scaling_governor", "performance\n");
	check_val(root, CF "/policy0/scaling_min_freq", "2100000\n");
	check_val(root, CF "/policy0/scaling_max_freq", "2100000\n");
	check_val(root, CF "/policy2/scaling_governor", "performance\n");
	check_val(root, CF "/policy2/scaling_min_freq", "3000000\n");
	check_val(root, CF "/policy2/scaling_max_freq", "3000000\n");
	KT_CHECK(stat(state, &sb) == 0, "no state file after lock");

	/* A second lock changes the clocks but keeps the first saved state. */
	st1 = kt_slurp(state, NULL);
	r = kprof_host_clock_lock(root, run, KPROF_CPUFREQ_KHZ, 1000000, msg, sizeof(msg));
	KT_CHECK(r == 0, "second lock: %d (%s)", r, msg);
	check_val(root, CF "/policy0/scaling_min_freq", "1000000\n");
	check_val(root, CF "/policy2/scaling_max_freq", "1000000\n");
	st2 = kt_slurp(state, NULL);
	KT_CHECK(st1 && st2 && !strcmp(st1, st2), "second lock rewrote the saved state");
	free(st1);
	free(st2);

	/* Reset: every file byte for byte as before the first lock. */
	r = kprof_host_clock_reset(root, run, msg, sizeof(msg));
	KT_CHECK(r == 0, "reset: %d (%s)", r, msg);
	check_same(root, saved, "after reset");
	KT_CHECK(stat(state, &sb) != 0, "state file left after reset");

	/* Nothing saved: reset is a no-op that says so. */
	r = kprof_host_clock_reset(root, run, msg, sizeof(msg));
	KT_CHECK(r == 0 && strstr(msg, "nothing to restore"), "second reset: %d (%s)", r, msg);
	check_same(root, saved, "after second reset");

	/* Out-of-range frequency: refused, tree and state as found. */
	r = kprof_host_clock_lock(root, run, KPROF_CPUFREQ_KHZ, 9000000, msg, sizeof(msg));
	KT_CHECK(r == -ERANGE, "out of range lock: %d (%s)", r, msg);
	check_same(root, saved, "after refused lock");
	KT_CHECK(stat(state, &sb) != 0, "state file left by a refused lock");

	/* No 'performance' governor on offer: refused, rolled back. */
	put(root, CF "/policy0/scaling_available_governors", "schedutil powersave\n");
	r = kprof_host_clock_lock(root, run, KPROF_CPUFREQ_MAX, 0, msg, sizeof(msg));
	KT_CHECK(r == -EOPNOTSUPP, "lock without performance governor: %d (%s)", r, msg);
	check_same(root, saved, "after rolled-back lock");
	put(root, CF "/policy0/scaling_available_governors",
	    "performance schedutil powersave\n");

	/* kill -9 mid-lock: the state is saved before any write, so a tree
	 * left half-changed is restored by reset.
	 */
	r = kprof_host_clock_lock(root, run, KPROF_CPUFREQ_MAX, 0, msg, sizeof(msg));
	KT_CHECK(r == 0, "lock: %d (%s)", r, msg);
	put(root, CF "/policy2/scaling_governor", "powersave\n");	/* half undone */
	r = kprof_host_clock_reset(root, run, msg, sizeof(msg));
	KT_CHECK(r == 0, "reset after partial state: %d (%s)", r, msg);
	check_same(root, saved, "after reset of a partial lock");

	/* A saved state for another sysfs root is not applied here. */
	r = kprof_host_clock_lock(root, run, KPROF_CPUFREQ_MAX, 0, msg, sizeof(msg));
	KT_CHECK(r == 0, "lock: %d (%s)", r, msg);
	{
		char other[300];

		snprintf(other, sizeof(other), "%s/", root);	/* same tree, other text */
		r = kprof_host_clock_reset(other, run, msg, sizeof(msg));
		KT_CHECK(r == -EXDEV, "reset with another root: %d (%s)", r, msg);
	}
	r = kprof_host_clock_reset(root, run, msg, sizeof(msg));
	KT_CHECK(r == 0, "reset: %d (%s)", r, msg);
	check_same(root, saved, "after reset");

	/* Two runs racing: the second one is refused while the lock is held. */
	{
		int pfd[2];
		pid_t pid;
		char b;

		KT_CHECK(pipe(pfd) == 0, "pipe");
		pid = fork();
		if (pid == 0) {
			int fd = open(lockp, O_RDWR | O_CREAT, 0644);

			if (fd < 0 || flock(fd, LOCK_EX))
				_exit(1);
			if (write(pfd[1], "x", 1) != 1)
				_exit(1);
			sleep(4);
			_exit(0);
		}
		KT_CHECK(read(pfd[0], &b, 1) == 1, "child did not take the lock");
		r = kprof_host_clock_lock(root, run, KPROF_CPUFREQ_MAX, 0, msg, sizeof(msg));
		KT_CHECK(r == -EBUSY, "lock while another run holds it: %d (%s)", r, msg);
		check_same(root, saved, "after refused concurrent lock");
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		close(pfd[0]);
		close(pfd[1]);
	}

	/*
	 * The run directory decides what reset writes to sysfs as root: one
	 * that someone else could write to, or that is a symbolic link, is
	 * refused before anything changes; so is a planted clock.lock link.
	 */
	{
		char victim[300], alt[300];

		KT_CHECK(chmod(run, 0777) == 0, "chmod");
		r = kprof_host_clock_lock(root, run, KPROF_CPUFREQ_MAX, 0, msg, sizeof(msg));
		KT_CHECK(r == -EPERM && strstr(msg, "writable by group or others"),
			 "group/other-writable run dir: %d (%s)", r, msg);
		check_same(root, saved, "after a refused run dir");
		KT_CHECK(chmod(run, 0755) == 0, "chmod");
		if (geteuid() == 0) {
			KT_CHECK(chown(run, 65534, 65534) == 0, "chown");
			r = kprof_host_clock_lock(root, run, KPROF_CPUFREQ_MAX, 0, msg,
						  sizeof(msg));
			KT_CHECK(r == -EPERM && strstr(msg, "belongs to uid 65534"),
				 "run dir of another user: %d (%s)", r, msg);
			check_same(root, saved, "after a run dir of another user");
			KT_CHECK(chown(run, 0, 0) == 0, "chown");
		}
		snprintf(alt, sizeof(alt), "%s/elsewhere", tmp);
		KT_CHECK(mkdir(alt, 0755) == 0, "mkdir");
		snprintf(victim, sizeof(victim), "%s/run/link", tmp);
		KT_CHECK(symlink(alt, victim) == 0, "symlink");
		r = kprof_host_clock_lock(root, victim, KPROF_CPUFREQ_MAX, 0, msg, sizeof(msg));
		KT_CHECK(r < 0 && strstr(msg, "symbolic link"), "run dir symlink: %d (%s)", r, msg);
		check_same(root, saved, "after a symlinked run dir");

		snprintf(victim, sizeof(victim), "%s/victim", tmp);
		put(tmp, "victim", "precious\n");
		KT_CHECK(unlink(lockp) == 0 && symlink(victim, lockp) == 0, "plant lock link");
		r = kprof_host_clock_lock(root, run, KPROF_CPUFREQ_MAX, 0, msg, sizeof(msg));
		KT_CHECK(r < 0 && strstr(msg, "symbolic link"), "clock.lock symlink: %d (%s)",
			 r, msg);
		check_same(root, saved, "after a planted clock.lock");
		check_val(tmp, "victim", "precious\n");
		KT_CHECK(unlink(lockp) == 0, "unlink");
	}

	/* --forget: the saved state goes, no clock changes. */
	r = kprof_host_clock_lock(root, run, KPROF_CPUFREQ_MAX, 0, msg, sizeof(msg));
	KT_CHECK(r == 0, "lock: %d (%s)", r, msg);
	{
		char *locked[NFILES];

		save_all(root, locked);
		r = kprof_host_clock_forget(run, msg, sizeof(msg));
		KT_CHECK(r == 0 && strstr(msg, "forgot") && strstr(msg, "schedutil"),
			 "forget: %d (%s)", r, msg);
		KT_CHECK(stat(state, &sb) != 0, "state file left by forget");
		check_same(root, locked, "after forget");
		for (size_t i = 0; i < NFILES; i++)
			free(locked[i]);
	}
	r = kprof_host_clock_reset(root, run, msg, sizeof(msg));
	KT_CHECK(r == 0 && strstr(msg, "nothing to restore"), "reset after forget: %d (%s)",
		 r, msg);
	restore_all(root, saved);

	/*
	 * A restore the kernel adjusts (here: a value file that keeps
	 * nothing): said, and the state is gone so the next reset works.
	 */
	r = kprof_host_clock_lock(root, run, KPROF_CPUFREQ_MAX, 0, msg, sizeof(msg));
	KT_CHECK(r == 0, "lock: %d (%s)", r, msg);
	{
		char f[400];

		snprintf(f, sizeof(f), "%s/" CF "/policy2/scaling_max_freq", root);
		KT_CHECK(unlink(f) == 0 && symlink("/dev/null", f) == 0, "adjusting file");
		r = kprof_host_clock_reset(root, run, msg, sizeof(msg));
		KT_CHECK(r == KPROF_HOST_RESET_ADJUSTED && strstr(msg, "policy2 scaling_max_freq"),
			 "adjusted restore: %d (%s)", r, msg);
		KT_CHECK(stat(state, &sb) != 0, "state file left by an adjusted restore");
		r = kprof_host_clock_reset(root, run, msg, sizeof(msg));
		KT_CHECK(r == 0 && strstr(msg, "nothing to restore"),
			 "reset after an adjusted restore: %d (%s)", r, msg);
		KT_CHECK(unlink(f) == 0, "unlink");
		restore_all(root, saved);
	}

	for (size_t i = 0; i < NFILES; i++)
		free(saved[i]);
	kt_rmrf(tmp);
	return kt_done("test_cpufreq_lock");
}
