// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Host CPU clock lock/reset via cpufreq sysfs. Only the files a lock
 * changes are saved, as raw bytes, and written back in an order that the
 * kernel accepts (boost first, since it bounds the max; then governor;
 * then min/max ordered so that min never exceeds max in between).
 */
#include "kprof_cpufreq.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CPUFREQ_DIR	"devices/system/cpu/cpufreq"
#define BOOST_FILE	CPUFREQ_DIR "/boost"
#define NO_TURBO_FILE	"devices/system/cpu/intel_pstate/no_turbo"

const char *kprof_cpufreq_root(void)
{
	const char *r = getenv("KPROF_SYSFS_ROOT");

	return r && *r ? r : "/sys";
}

const char *kprof_run_dir(void)
{
	const char *r = getenv("KPROF_RUN_DIR");

	return r && *r ? r : "/run/kprof";
}

static int read_rel(const char *root, const char *rel, char *buf, size_t len)
{
	char path[512];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		n = -errno;
		close(fd);
		return n;
	}
	close(fd);
	buf[n] = '\0';
	return 0;
}

static int write_rel(const char *root, const char *rel, const char *val)
{
	char path[512];
	size_t len = strlen(val);
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, val, len);
	if (n < 0) {
		n = -errno;
		close(fd);
		return n;
	}
	close(fd);
	return (size_t)n == len ? 0 : -EIO;
}

static int exists_rel(const char *root, const char *rel)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	return stat(path, &st) == 0;
}

static int read_khz(const char *root, const char *rel, uint32_t *khz)
{
	char buf[64], *end;
	unsigned long v;
	int r;

	r = read_rel(root, rel, buf, sizeof(buf));
	if (r)
		return r;
	errno = 0;
	v = strtoul(buf, &end, 10);
	if (errno || end == buf || v > UINT32_MAX)
		return -EINVAL;
	*khz = (uint32_t)v;
	return 0;
}

static int cmp_uint(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return x < y ? -1 : x > y;
}

/* policy numbers under root, sorted; returns count or -errno */
static int list_policies(const char *root, unsigned int **out)
{
	char path[512];
	unsigned int *ids = NULL;
	struct dirent *de;
	int n = 0, cap = 0;
	DIR *d;

	snprintf(path, sizeof(path), "%s/" CPUFREQ_DIR, root);
	d = opendir(path);
	if (!d)
		return -ENOENT;
	while ((de = readdir(d)) != NULL) {
		char *end;
		unsigned long v;

		if (strncmp(de->d_name, "policy", 6) ||
		    de->d_name[6] < '0' || de->d_name[6] > '9')
			continue;
		v = strtoul(de->d_name + 6, &end, 10);
		if (*end || v > 65535)
			continue;
		if (n == cap) {
			unsigned int *t;

			cap = cap ? cap * 2 : 16;
			t = realloc(ids, cap * sizeof(*ids));
			if (!t) {
				free(ids);
				closedir(d);
				return -ENOMEM;
			}
			ids = t;
		}
		ids[n++] = (unsigned int)v;
	}
	closedir(d);
	if (!n) {
		free(ids);
		return -ENOENT;
	}
	qsort(ids, n, sizeof(*ids), cmp_uint);
	*out = ids;
	return n;
}

int kprof_cpufreq_policies(const char *root)
{
	unsigned int *ids = NULL;
	int n = list_policies(root, &ids);

	free(ids);
	return n;
}

int kprof_cpufreq_snapshot_add(struct kprof_cpufreq_snapshot *s,
			       const char *rel, const char *value)
{
	struct kprof_cpufreq_file *f;

	if (strlen(rel) >= KPROF_CPUFREQ_REL_LEN ||
	    strlen(value) >= KPROF_CPUFREQ_VAL_LEN)
		return -ENAMETOOLONG;
	f = realloc(s->files, (s->n + 1) * sizeof(*f));
	if (!f)
		return -ENOMEM;
	s->files = f;
	f = &s->files[s->n++];
	memset(f, 0, sizeof(*f));
	strcpy(f->rel, rel);
	strcpy(f->value, value);
	return 0;
}

void kprof_cpufreq_snapshot_free(struct kprof_cpufreq_snapshot *s)
{
	free(s->files);
	s->files = NULL;
	s->n = 0;
}

static const char *const policy_files[] = {
	"scaling_governor", "scaling_min_freq", "scaling_max_freq",
};

static int snap_rel(const char *root, struct kprof_cpufreq_snapshot *s,
		    const char *rel)
{
	char val[KPROF_CPUFREQ_VAL_LEN];
	int r;

	r = read_rel(root, rel, val, sizeof(val));
	if (r)
		return r;
	return kprof_cpufreq_snapshot_add(s, rel, val);
}

int kprof_cpufreq_snapshot(const char *root, struct kprof_cpufreq_snapshot *s)
{
	unsigned int *ids = NULL;
	char rel[KPROF_CPUFREQ_REL_LEN];
	int n, i, r = 0;
	size_t j;

	memset(s, 0, sizeof(*s));
	n = list_policies(root, &ids);
	if (n < 0)
		return n;
	if (exists_rel(root, BOOST_FILE))
		r = snap_rel(root, s, BOOST_FILE);
	if (!r && exists_rel(root, NO_TURBO_FILE))
		r = snap_rel(root, s, NO_TURBO_FILE);
	for (i = 0; !r && i < n; i++) {
		for (j = 0; !r && j < sizeof(policy_files) / sizeof(*policy_files); j++) {
			snprintf(rel, sizeof(rel), CPUFREQ_DIR "/policy%u/%s",
				 ids[i], policy_files[j]);
			r = snap_rel(root, s, rel);
		}
	}
	free(ids);
	if (r)
		kprof_cpufreq_snapshot_free(s);
	return r;
}

static int is_boost_file(const char *rel)
{
	return !strcmp(rel, BOOST_FILE) || !strcmp(rel, NO_TURBO_FILE);
}

static int has_suffix(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

/* Set a policy's min and max, ordered so that min <= max at every step. */
static int set_min_max(const char *root, const char *pdir, const char *min_val,
		       const char *max_val)
{
	char min_rel[KPROF_CPUFREQ_REL_LEN + 32];
	char max_rel[KPROF_CPUFREQ_REL_LEN + 32];
	uint32_t cur_max = 0;
	int r;

	snprintf(min_rel, sizeof(min_rel), "%s/scaling_min_freq", pdir);
	snprintf(max_rel, sizeof(max_rel), "%s/scaling_max_freq", pdir);
	if (min_val && max_val && !read_khz(root, max_rel, &cur_max) &&
	    strtoul(min_val, NULL, 10) > cur_max) {
		r = write_rel(root, max_rel, max_val);
		return r ? r : write_rel(root, min_rel, min_val);
	}
	r = min_val ? write_rel(root, min_rel, min_val) : 0;
	if (!r && max_val)
		r = write_rel(root, max_rel, max_val);
	return r;
}

int kprof_cpufreq_restore(const char *root,
			  const struct kprof_cpufreq_snapshot *s)
{
	unsigned int i, k;
	int r, err = 0;

	/* Boost first: it bounds what scaling_max_freq accepts. */
	for (i = 0; i < s->n; i++) {
		if (!is_boost_file(s->files[i].rel))
			continue;
		r = write_rel(root, s->files[i].rel, s->files[i].value);
		if (r && !err)
			err = r;
	}
	for (i = 0; i < s->n; i++) {
		if (!has_suffix(s->files[i].rel, "/scaling_governor"))
			continue;
		r = write_rel(root, s->files[i].rel, s->files[i].value);
		if (r && !err)
			err = r;
	}
	for (i = 0; i < s->n; i++) {
		const char *rel = s->files[i].rel, *min_val = NULL,
			   *max_val = NULL;
		char pdir[KPROF_CPUFREQ_REL_LEN];
		size_t plen;

		if (!has_suffix(rel, "/scaling_min_freq"))
			continue;
		plen = strlen(rel) - strlen("/scaling_min_freq");
		memcpy(pdir, rel, plen);
		pdir[plen] = '\0';
		min_val = s->files[i].value;
		for (k = 0; k < s->n; k++) {
			const char *o = s->files[k].rel;

			if (!strncmp(o, pdir, plen) &&
			    !strcmp(o + plen, "/scaling_max_freq"))
				max_val = s->files[k].value;
		}
		r = set_min_max(root, pdir, min_val, max_val);
		if (r && !err)
			err = r;
	}
	/* A max without a saved min (hand-edited state): write it alone. */
	for (i = 0; i < s->n; i++) {
		const char *rel = s->files[i].rel;
		char min_rel[KPROF_CPUFREQ_REL_LEN + 8];
		size_t plen;

		if (!has_suffix(rel, "/scaling_max_freq"))
			continue;
		plen = strlen(rel) - strlen("/scaling_max_freq");
		snprintf(min_rel, sizeof(min_rel), "%.*s/scaling_min_freq",
			 (int)plen, rel);
		for (k = 0; k < s->n; k++)
			if (!strcmp(s->files[k].rel, min_rel))
				break;
		if (k == s->n) {
			r = write_rel(root, rel, s->files[i].value);
			if (r && !err)
				err = r;
		}
	}
	return err;
}

static int governor_available(const char *root, unsigned int id,
			      const char *gov)
{
	char rel[KPROF_CPUFREQ_REL_LEN], buf[512], *tok, *save;

	snprintf(rel, sizeof(rel), CPUFREQ_DIR "/policy%u/scaling_available_governors",
		 id);
	if (read_rel(root, rel, buf, sizeof(buf)))
		return 1;	/* not exposed: let the write decide */
	for (tok = strtok_r(buf, " \n", &save); tok;
	     tok = strtok_r(NULL, " \n", &save))
		if (!strcmp(tok, gov))
			return 1;
	return 0;
}

static int pick_khz(const char *root, unsigned int id,
		    enum kprof_cpufreq_target target, uint32_t khz,
		    uint32_t *out)
{
	char rel[KPROF_CPUFREQ_REL_LEN];
	uint32_t lo, hi, base;
	int r;

	snprintf(rel, sizeof(rel), CPUFREQ_DIR "/policy%u/cpuinfo_min_freq", id);
	r = read_khz(root, rel, &lo);
	if (r)
		return r;
	snprintf(rel, sizeof(rel), CPUFREQ_DIR "/policy%u/cpuinfo_max_freq", id);
	r = read_khz(root, rel, &hi);
	if (r)
		return r;
	switch (target) {
	case KPROF_CPUFREQ_KHZ:
		if (khz < lo || khz > hi)
			return -ERANGE;
		*out = khz;
		return 0;
	case KPROF_CPUFREQ_BASE:
		snprintf(rel, sizeof(rel), CPUFREQ_DIR "/policy%u/base_frequency",
			 id);
		if (!read_khz(root, rel, &base) && base >= lo && base <= hi) {
			*out = base;
			return 0;
		}
		/* with boost off, cpuinfo max is the base */
		*out = hi;
		return 0;
	case KPROF_CPUFREQ_MAX:
	default:
		*out = hi;
		return 0;
	}
}

int kprof_cpufreq_lock(const char *root, enum kprof_cpufreq_target target,
		       uint32_t khz, uint32_t *locked_khz)
{
	unsigned int *ids = NULL;
	char rel[KPROF_CPUFREQ_REL_LEN], val[32];
	int n, i, r = 0;

	n = list_policies(root, &ids);
	if (n < 0)
		return n;
	/* Boost off first, so cpuinfo_max_freq is the sustained maximum. */
	if (exists_rel(root, BOOST_FILE))
		r = write_rel(root, BOOST_FILE, "0");
	if (!r && exists_rel(root, NO_TURBO_FILE))
		r = write_rel(root, NO_TURBO_FILE, "1");
	for (i = 0; !r && i < n; i++) {
		uint32_t f;
		char pdir[KPROF_CPUFREQ_REL_LEN];

		if (!governor_available(root, ids[i], "performance")) {
			r = -EOPNOTSUPP;
			break;
		}
		r = pick_khz(root, ids[i], target, khz, &f);
		if (r)
			break;
		snprintf(rel, sizeof(rel), CPUFREQ_DIR "/policy%u/scaling_governor",
			 ids[i]);
		r = write_rel(root, rel, "performance");
		if (r)
			break;
		snprintf(pdir, sizeof(pdir), CPUFREQ_DIR "/policy%u", ids[i]);
		snprintf(val, sizeof(val), "%u", f);
		r = set_min_max(root, pdir, val, val);
		if (!r && i == 0 && locked_khz)
			*locked_khz = f;
	}
	free(ids);
	return r;
}
