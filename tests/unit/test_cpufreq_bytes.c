// SPDX-License-Identifier: GPL-2.0
/*
 * Host clock lock/reset against fake cpufreq trees of other shapes than
 * test_cpufreq_lock.c's: boost only (acpi-cpufreq), intel_pstate no_turbo
 * only, and policies numbered 0, 2 and 10 (order by number, not by name).
 * Values end in a newline, as sysfs always prints them (the saved state
 * keeps values, not bytes: a fake file without one comes back with one).
 * After reset, every file of the tree
 * (not only those a lock touches) must be back byte for byte, no file may
 * be added or left behind (temporary files, state files in the tree), and
 * the run directory holds no state file.
 */
#include "kt.h"
#include "kprof_cpufreq.h"

#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>

#define CF "devices/system/cpu/cpufreq"
#define MAX_FILES 128

struct tree {
	size_t n;
	char *rel[MAX_FILES];
	char *val[MAX_FILES];
	size_t len[MAX_FILES];
};

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

/* Every regular file under root/dir, recursively, with its bytes. */
static void walk(const char *root, const char *dir, struct tree *t)
{
	char path[1100], rel[512];
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof(path), "%s/%s", root, dir);
	d = opendir(path);
	if (!d)
		return;
	while ((e = readdir(d))) {
		struct stat sb;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(rel, sizeof(rel), "%s%s%s", dir, *dir ? "/" : "", e->d_name);
		snprintf(path, sizeof(path), "%s/%s", root, rel);
		if (stat(path, &sb))
			continue;
		if (S_ISDIR(sb.st_mode)) {
			walk(root, rel, t);
		} else if (t->n < MAX_FILES) {
			t->rel[t->n] = strdup(rel);
			t->val[t->n] = kt_slurp(path, &t->len[t->n]);
			t->n++;
		}
	}
	closedir(d);
}

static void tree_free(struct tree *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->rel[i]);
		free(t->val[i]);
	}
	t->n = 0;
}

static int find(const struct tree *t, const char *rel)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->rel[i], rel))
			return (int)i;
	return -1;
}

/* Same set of files, same bytes in each. */
static void check_tree(const char *root, const struct tree *before,
		       const char *when)
{
	struct tree now = { 0 };

	walk(root, "", &now);
	KT_CHECK(now.n == before->n, "%s: %zu files, was %zu", when, now.n, before->n);
	for (size_t i = 0; i < now.n; i++) {
		int j = find(before, now.rel[i]);

		KT_CHECK(j >= 0, "%s: new file %s", when, now.rel[i]);
		if (j < 0)
			continue;
		KT_CHECK(now.len[i] == before->len[j] && now.val[i] && before->val[j] &&
			 !memcmp(now.val[i], before->val[j], now.len[i]),
			 "%s: %s is \"%s\", was \"%s\"", when, now.rel[i],
			 now.val[i] ? now.val[i] : "(unreadable)",
			 before->val[j] ? before->val[j] : "(unreadable)");
	}
	tree_free(&now);
}

static void check_val(const char *root, const char *rel, const char *want)
{
	char path[512], *v;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	v = kt_slurp(path, NULL);
	KT_CHECK(v && !strncmp(v, want, strlen(want)), "%s is \"%s\", expected \"%s...\"",
		 rel, v ? v : "(missing)", want);
	free(v);
}

static void put_policy(const char *root, int n, const char *gov, const char *min,
		       const char *max, const char *cmin, const char *cmax)
{
	char rel[128];

	snprintf(rel, sizeof(rel), CF "/policy%d/scaling_governor", n);
	put(root, rel, gov);
	snprintf(rel, sizeof(rel), CF "/policy%d/scaling_min_freq", n);
	put(root, rel, min);
	snprintf(rel, sizeof(rel), CF "/policy%d/scaling_max_freq", n);
	put(root, rel, max);
	snprintf(rel, sizeof(rel), CF "/policy%d/cpuinfo_min_freq", n);
	put(root, rel, cmin);
	snprintf(rel, sizeof(rel), CF "/policy%d/cpuinfo_max_freq", n);
	put(root, rel, cmax);
	snprintf(rel, sizeof(rel), CF "/policy%d/scaling_available_governors", n);
	put(root, rel, "performance powersave schedutil\n");
}

/* Lock (max, then an explicit kHz), check the pin, reset, compare. */
static void lock_reset(const char *name, const char *root, const char *run,
		       const int *pols, size_t npols, const char *boost,
		       const char *no_turbo)
{
	struct tree before = { 0 };
	char msg[512], rel[128], state[300];
	struct stat sb;
	int r;

	snprintf(state, sizeof(state), "%s/host-clock.json", run);
	walk(root, "", &before);
	r = kprof_host_clock_lock(root, run, KPROF_CPUFREQ_MAX, 0, msg, sizeof(msg));
	KT_CHECK(r == 0, "%s: lock: %d (%s)", name, r, msg);
	for (size_t i = 0; i < npols; i++) {
		snprintf(rel, sizeof(rel), CF "/policy%d/scaling_governor", pols[i]);
		check_val(root, rel, "performance");
	}
	if (boost)
		check_val(root, CF "/boost", "0");
	if (no_turbo)
		check_val(root, "devices/system/cpu/intel_pstate/no_turbo", "1");
	r = kprof_host_clock_lock(root, run, KPROF_CPUFREQ_KHZ, 1500000, msg, sizeof(msg));
	KT_CHECK(r == 0, "%s: second lock: %d (%s)", name, r, msg);
	for (size_t i = 0; i < npols; i++) {
		snprintf(rel, sizeof(rel), CF "/policy%d/scaling_min_freq", pols[i]);
		check_val(root, rel, "1500000");
		snprintf(rel, sizeof(rel), CF "/policy%d/scaling_max_freq", pols[i]);
		check_val(root, rel, "1500000");
	}
	r = kprof_host_clock_reset(root, run, msg, sizeof(msg));
	KT_CHECK(r == 0, "%s: reset: %d (%s)", name, r, msg);
	check_tree(root, &before, name);
	KT_CHECK(stat(state, &sb) != 0, "%s: state file left after reset", name);
	tree_free(&before);
}

int main(void)
{
	char *tmp = kt_tmpdir();
	char root[256], run[256];

	snprintf(run, sizeof(run), "%s/run/kprof", tmp);

	/* acpi-cpufreq: boost, no intel_pstate; policies 0, 2, 10. */
	{
		static const int pols[] = { 0, 2, 10 };

		snprintf(root, sizeof(root), "%s/acpi", tmp);
		put(root, CF "/boost", "1\n");
		put_policy(root, 0, "schedutil\n", "1200000\n", "3000000\n",
			   "1200000\n", "3000000\n");
		put_policy(root, 2, "ondemand\n", "1300000\n", "2900000\n",
			   "1200000\n", "3000000\n");
		put_policy(root, 10, "powersave\n", "1400000\n", "2800000\n",
			   "1200000\n", "2800000\n");
		lock_reset("acpi boost", root, run, pols, 3, "1", NULL);
	}
	/* intel_pstate: no_turbo, no cpufreq/boost; one policy per CPU. */
	{
		static const int pols[] = { 0, 1, 2, 3 };

		snprintf(root, sizeof(root), "%s/pstate", tmp);
		put(root, "devices/system/cpu/intel_pstate/no_turbo", "0\n");
		put(root, "devices/system/cpu/intel_pstate/status", "active\n");
		for (int i = 0; i < 4; i++)
			put_policy(root, i, "powersave\n", "800000\n", "4700000\n",
				   "800000\n", "4700000\n");
		lock_reset("intel_pstate no_turbo", root, run, pols, 4, NULL, "0");
	}
	kt_rmrf(tmp);
	return kt_done("test_cpufreq_bytes");
}
