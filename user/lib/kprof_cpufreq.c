// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Host CPU clock lock/reset via cpufreq sysfs. Only the files a lock
 * changes are saved, as raw bytes, and written back in an order that the
 * kernel accepts (boost first, since it bounds the max; then governor;
 * then min/max ordered so that min never exceeds max in between).
 */
#include "kprof_cpufreq.h"
#include "kprof_env.h"
#include "kprof_fs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CPUFREQ_DIR	"devices/system/cpu/cpufreq"
#define KPROF_CPUFREQ_REL_LEN	128
#define BOOST_FILE	CPUFREQ_DIR "/boost"
#define NO_TURBO_FILE	"devices/system/cpu/intel_pstate/no_turbo"

const char *kprof_cpufreq_root(void)
{
	return kprof_env_or("KPROF_SYSFS_ROOT", "/sys");
}

const char *kprof_run_dir(void)
{
	return kprof_env_or("KPROF_RUN_DIR", "/run/kprof");
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

/* Read a sysfs value without its trailing newline. */
static int read_val(const char *root, const char *rel, char *val)
{
	size_t n;
	int r;

	r = read_rel(root, rel, val, KPROF_CLOCKSTATE_VAL_LEN);
	if (r)
		return r;
	n = strlen(val);
	if (n && val[n - 1] == '\n')
		val[--n] = '\0';
	return 0;
}

/* Write a saved value back; sysfs text always ends in a newline. */
static int write_val(const char *root, const char *rel, const char *val)
{
	char buf[KPROF_CLOCKSTATE_VAL_LEN + 2];

	snprintf(buf, sizeof(buf), "%s\n", val);
	return write_rel(root, rel, buf);
}

static void policy_rel(char *rel, size_t len, unsigned int id, const char *f)
{
	snprintf(rel, len, CPUFREQ_DIR "/policy%u/%s", id, f);
}

int kprof_cpufreq_snapshot(const char *root, struct kprof_clockstate *s)
{
	char rel[KPROF_CPUFREQ_REL_LEN];
	unsigned int *ids = NULL;
	int n, i, r = 0;

	memset(s, 0, sizeof(*s));
	n = list_policies(root, &ids);
	if (n < 0)
		return n;
	s->cpus = calloc(n, sizeof(*s->cpus));
	if (!s->cpus) {
		free(ids);
		return -ENOMEM;
	}
	snprintf(s->sysfs_root, sizeof(s->sysfs_root), "%s", root);
	s->pid = getpid();
	s->saved_at = (uint64_t)time(NULL);
	if (exists_rel(root, BOOST_FILE)) {
		s->has_boost = 1;
		r = read_val(root, BOOST_FILE, s->boost);
	}
	if (!r && exists_rel(root, NO_TURBO_FILE)) {
		s->has_no_turbo = 1;
		r = read_val(root, NO_TURBO_FILE, s->no_turbo);
	}
	for (i = 0; !r && i < n; i++) {
		struct kprof_cpu_clock *c = &s->cpus[i];

		c->cpu = ids[i];
		policy_rel(rel, sizeof(rel), ids[i], "scaling_governor");
		r = read_val(root, rel, c->governor);
		if (!r) {
			policy_rel(rel, sizeof(rel), ids[i], "scaling_min_freq");
			r = read_val(root, rel, c->min_freq);
		}
		if (!r) {
			policy_rel(rel, sizeof(rel), ids[i], "scaling_max_freq");
			r = read_val(root, rel, c->max_freq);
		}
		s->ncpus = i + 1;
	}
	free(ids);
	if (r)
		kprof_clockstate_free(s);
	return r;
}

/* Set a policy's min and max, ordered so that min <= max at every step. */
static int set_min_max(const char *root, unsigned int id, const char *min_val,
		       const char *max_val)
{
	char min_rel[KPROF_CPUFREQ_REL_LEN], max_rel[KPROF_CPUFREQ_REL_LEN];
	uint32_t cur_max = 0;
	int r;

	policy_rel(min_rel, sizeof(min_rel), id, "scaling_min_freq");
	policy_rel(max_rel, sizeof(max_rel), id, "scaling_max_freq");
	if (!read_khz(root, max_rel, &cur_max) &&
	    strtoul(min_val, NULL, 10) > cur_max) {
		r = write_val(root, max_rel, max_val);
		return r ? r : write_val(root, min_rel, min_val);
	}
	r = write_val(root, min_rel, min_val);
	return r ? r : write_val(root, max_rel, max_val);
}

int kprof_cpufreq_restore(const char *root, const struct kprof_clockstate *s)
{
	int r, err = 0;
	size_t i;

	/* Boost first: it bounds what scaling_max_freq accepts. */
	if (s->has_boost) {
		r = write_val(root, BOOST_FILE, s->boost);
		err = err ? err : r;
	}
	if (s->has_no_turbo) {
		r = write_val(root, NO_TURBO_FILE, s->no_turbo);
		err = err ? err : r;
	}
	for (i = 0; i < s->ncpus; i++) {
		const struct kprof_cpu_clock *c = &s->cpus[i];
		char rel[KPROF_CPUFREQ_REL_LEN];

		policy_rel(rel, sizeof(rel), c->cpu, "scaling_governor");
		r = write_val(root, rel, c->governor);
		err = err ? err : r;
		r = set_min_max(root, c->cpu, c->min_freq, c->max_freq);
		err = err ? err : r;
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
	for (tok = strtok_r(buf, "\n ", &save); tok;
	     tok = strtok_r(NULL, "\n ", &save))
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
		r = write_val(root, BOOST_FILE, "0");
	if (!r && exists_rel(root, NO_TURBO_FILE))
		r = write_val(root, NO_TURBO_FILE, "1");
	for (i = 0; !r && i < n; i++) {
		uint32_t f;

		if (!governor_available(root, ids[i], "performance")) {
			r = -EOPNOTSUPP;
			break;
		}
		r = pick_khz(root, ids[i], target, khz, &f);
		if (r)
			break;
		snprintf(rel, sizeof(rel), CPUFREQ_DIR "/policy%u/scaling_governor",
			 ids[i]);
		r = write_val(root, rel, "performance");
		if (r)
			break;
		snprintf(val, sizeof(val), "%u", f);
		r = set_min_max(root, ids[i], val, val);
		if (!r && i == 0 && locked_khz)
			*locked_khz = f;
	}
	free(ids);
	return r;
}

/* ---- lock / reset with the saved state file and the run lock ---- */

#define STATE_FILE	"host-clock.json"
#define LOCK_FILE	"clock.lock"
#define LOCK_WAIT_MS	2000

/*
 * The run directory, opened for *at() calls: a real directory (not a
 * symbolic link) owned by root or us and writable by nobody else, since
 * what it holds is written back to sysfs as root. Made (0755) if missing
 * and create is set. A descriptor, or -errno with msg.
 */
static int open_run_dir(const char *run_dir, int create, char *msg, size_t msg_len)
{
	struct kprof_err err = { 0 };
	struct stat sb;
	int fd, r;

	if (create) {
		r = kprof_mkdir_p(run_dir, &err);
		if (r) {
			snprintf(msg, msg_len, "%s", err.msg);
			return r;
		}
	}
	fd = open(run_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		snprintf(msg, msg_len, "cannot open the run directory %s: %s", run_dir,
			 !lstat(run_dir, &sb) && S_ISLNK(sb.st_mode)
			 ? "it is a symbolic link (remove it; kprofctl makes the directory)"
			 : strerror(-r));
		return r;
	}
	r = fstat(fd, &sb) ? -errno : kprof_clockstate_trusted(&sb, run_dir, &err);
	if (r) {
		snprintf(msg, msg_len, "%s", err.msg[0] ? err.msg : strerror(-r));
		close(fd);
		return r;
	}
	return fd;
}

/* Take clock.lock in the run directory; waits a little for a concurrent run to end. */
static int take_lock(int dirfd, const char *run_dir, char *msg, size_t msg_len)
{
	struct kprof_err err = { 0 };
	struct stat sb;
	int fd, r, waited = 0;

	fd = openat(dirfd, LOCK_FILE, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		r = -errno;
		snprintf(msg, msg_len, "cannot open %s/" LOCK_FILE ": %s", run_dir,
			 r == -ELOOP ? "it is a symbolic link; remove it" : strerror(-r));
		return r;
	}
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
		snprintf(msg, msg_len, "%s/" LOCK_FILE " is not a regular file; remove it",
			 run_dir);
		close(fd);
		return -EINVAL;
	}
	r = kprof_clockstate_trusted(&sb, LOCK_FILE, &err);
	if (r) {
		snprintf(msg, msg_len, "in %s: %s", run_dir, err.msg);
		close(fd);
		return r;
	}
	while (flock(fd, LOCK_EX | LOCK_NB)) {
		if (errno != EWOULDBLOCK || waited >= LOCK_WAIT_MS) {
			r = errno == EWOULDBLOCK ? -EBUSY : -errno;
			snprintf(msg, msg_len,
				 "another kprofctl lock-clock/reset-clock holds %s/" LOCK_FILE
				 "; try again when it ends",
				 run_dir);
			close(fd);
			return r;
		}
		usleep(100 * 1000);
		waited += 100;
	}
	return fd;
}

static void release_lock(int fd)
{
	flock(fd, LOCK_UN);
	close(fd);
}

static int perm_error(int r)
{
	return r == -EPERM || r == -EACCES || r == -EROFS;
}

/* The run directory, locked: *lock gets the lock's fd. A dir fd or -errno. */
static int open_locked(const char *run_dir, int create, int *lock, char *msg, size_t msg_len)
{
	int dfd = open_run_dir(run_dir, create, msg, msg_len);

	if (dfd < 0) {
		if (perm_error(dfd) && geteuid() != 0)
			snprintf(msg, msg_len,
				 "changing clocks needs CAP_SYS_ADMIN (run as root): cannot write %s",
				 run_dir);
		return dfd;
	}
	*lock = take_lock(dfd, run_dir, msg, msg_len);
	if (*lock < 0) {
		if (perm_error(*lock) && geteuid() != 0)
			snprintf(msg, msg_len,
				 "changing clocks needs CAP_SYS_ADMIN (run as root): cannot write %s",
				 run_dir);
		close(dfd);
		return *lock;
	}
	return dfd;
}

static int state_exists(int dirfd)
{
	struct stat sb;

	return !fstatat(dirfd, STATE_FILE, &sb, AT_SYMLINK_NOFOLLOW);
}

static void no_cpufreq_msg(const char *root, char *msg, size_t msg_len)
{
	snprintf(msg, msg_len,
		 "host cpufreq not available (no %s/" CPUFREQ_DIR
		 "/policy*; usual in VMs): host clock not changed",
		 root);
}

int kprof_host_clock_saved(const char *run_dir, struct kprof_clockstate *st,
			   char *path, size_t path_len, struct kprof_err *err)
{
	char msg[512];
	int dfd, r;

	memset(st, 0, sizeof(*st));
	snprintf(path, path_len, "%s/" STATE_FILE, run_dir);
	dfd = open_run_dir(run_dir, 0, msg, sizeof(msg));
	if (dfd < 0)
		return kprof_err_set(err, -dfd, "%s", msg);
	r = kprof_clockstate_read_at(dfd, STATE_FILE, path, st, err);
	close(dfd);
	return r;
}

int kprof_host_clock_lock(const char *root, const char *run_dir,
			  enum kprof_cpufreq_target target, uint32_t khz,
			  char *msg, size_t msg_len)
{
	struct kprof_clockstate st;
	struct kprof_err err = { 0 };
	char path[512];
	uint32_t locked = 0;
	int dfd, fd = -1, r, n, created = 0;

	n = kprof_cpufreq_policies(root);
	if (n < 0) {
		no_cpufreq_msg(root, msg, msg_len);
		return n;
	}
	dfd = open_locked(run_dir, 1, &fd, msg, msg_len);
	if (dfd < 0)
		return dfd;
	snprintf(path, sizeof(path), "%s/" STATE_FILE, run_dir);
	/*
	 * Save before touching sysfs, and only if nothing is saved yet: a
	 * second lock must not overwrite the pre-first-lock state, and a
	 * kill -9 mid-lock leaves a state file that reset can use.
	 */
	if (!state_exists(dfd)) {
		r = kprof_cpufreq_snapshot(root, &st);
		if (r) {
			snprintf(msg, msg_len, "cannot read host cpufreq state under %s: %s",
				 root, strerror(-r));
			goto out;
		}
		r = kprof_clockstate_write_at(dfd, STATE_FILE, &st, &err);
		kprof_clockstate_free(&st);
		if (r) {
			if (perm_error(r))
				snprintf(msg, msg_len,
					 "changing clocks needs CAP_SYS_ADMIN (run as root): %s",
					 err.msg);
			else
				snprintf(msg, msg_len, "cannot save host clock state in %s: %s",
					 run_dir, err.msg);
			goto out;
		}
		created = 1;
	}
	r = kprof_cpufreq_lock(root, target, khz, &locked);
	if (r) {
		if (perm_error(r))
			snprintf(msg, msg_len,
				 "changing clocks needs CAP_SYS_ADMIN (run as root)");
		else if (r == -ERANGE)
			snprintf(msg, msg_len,
				 "host: %u kHz is outside cpuinfo_min_freq..cpuinfo_max_freq",
				 khz);
		else if (r == -EOPNOTSUPP)
			snprintf(msg, msg_len,
				 "host: cpufreq driver offers no 'performance' governor");
		else
			snprintf(msg, msg_len, "host: cpufreq lock failed: %s",
				 strerror(-r));
		/* Undo a half-done lock so the host is left as found. */
		if (created && !kprof_clockstate_read_at(dfd, STATE_FILE, path, &st, &err)) {
			if (!kprof_cpufreq_restore(root, &st))
				unlinkat(dfd, STATE_FILE, 0);
			kprof_clockstate_free(&st);
		}
		goto out;
	}
	snprintf(msg, msg_len,
		 "host: %d cpufreq policies locked at %u MHz (governor performance, boost off); pre-lock state in %s",
		 n, locked / 1000, path);
out:
	release_lock(fd);
	close(dfd);
	return r;
}

/* "policy0 scaling_max_freq: wrote 3200000, reads 3100000; ..." for what differs. */
static void describe_diff(const struct kprof_clockstate *want,
			  const struct kprof_clockstate *now, char *buf, size_t len)
{
	size_t off = 0;

#define DIFF(what, id, w, n) do {						\
	const char *w_ = (w), *n_ = (n);					\
	if (strcmp(w_, n_) && off < len)					\
		off += (size_t)snprintf(buf + off, len - off,			\
					"%s" what ": wrote '%s', reads '%s'",	\
					off ? "; " : "", id, w_, n_);		\
} while (0)
	buf[0] = '\0';
	if (want->has_boost && now->has_boost)
		DIFF("%sboost", "", want->boost, now->boost);
	if (want->has_no_turbo && now->has_no_turbo)
		DIFF("%sno_turbo", "", want->no_turbo, now->no_turbo);
	for (size_t i = 0; i < want->ncpus; i++) {
		const struct kprof_cpu_clock *w = &want->cpus[i], *n = NULL;
		char id[32];

		for (size_t j = 0; j < now->ncpus; j++)
			if (now->cpus[j].cpu == w->cpu)
				n = &now->cpus[j];
		snprintf(id, sizeof(id), "policy%u ", w->cpu);
		if (!n) {
			if (off < len)
				off += (size_t)snprintf(buf + off, len - off, "%s%sis gone",
							off ? "; " : "", id);
			continue;
		}
		DIFF("%sscaling_governor", id, w->governor, n->governor);
		DIFF("%sscaling_min_freq", id, w->min_freq, n->min_freq);
		DIFF("%sscaling_max_freq", id, w->max_freq, n->max_freq);
	}
#undef DIFF
}

int kprof_host_clock_reset(const char *root, const char *run_dir,
			   char *msg, size_t msg_len)
{
	struct kprof_clockstate st, now;
	struct kprof_err err = { 0 };
	char path[512], diff[384];
	int dfd, fd = -1, r;

	snprintf(path, sizeof(path), "%s/" STATE_FILE, run_dir);
	dfd = open_run_dir(run_dir, 0, msg, msg_len);
	if (dfd == -ENOENT || (dfd >= 0 && !state_exists(dfd))) {
		if (dfd >= 0)
			close(dfd);
		if (kprof_cpufreq_policies(root) < 0)
			no_cpufreq_msg(root, msg, msg_len);
		else
			snprintf(msg, msg_len,
				 "host: no saved state in %s (not locked by kprofctl): nothing to restore",
				 path);
		return 0;
	}
	if (dfd >= 0)
		close(dfd);
	dfd = open_locked(run_dir, 0, &fd, msg, msg_len);
	if (dfd < 0)
		return dfd;
	r = kprof_clockstate_read_at(dfd, STATE_FILE, path, &st, &err);
	if (r) {
		snprintf(msg, msg_len,
			 "host: cannot read the saved state: %s; `kprofctl reset-clock --host --forget` discards it",
			 err.msg);
		goto out;
	}
	if (strcmp(st.sysfs_root, root)) {
		snprintf(msg, msg_len,
			 "host: %s was saved for sysfs root %s, not %s; run `kprofctl --trust-env reset-clock --host` with KPROF_SYSFS_ROOT=%s, or discard it with `kprofctl reset-clock --host --forget`",
			 path, st.sysfs_root, root, st.sysfs_root);
		r = -EXDEV;
		goto free_st;
	}
	r = kprof_cpufreq_restore(root, &st);
	if (r) {
		snprintf(msg, msg_len,
			 "%s%s (state kept in %s; `kprofctl reset-clock --host --forget` discards it)",
			 perm_error(r) ? "changing clocks needs CAP_SYS_ADMIN (run as root)"
				       : "host: restore failed: ",
			 perm_error(r) ? "" : strerror(-r), path);
		goto free_st;
	}
	/*
	 * What the kernel shows now may differ from what was written (a
	 * frequency rounded to a step it supports, a limit from firmware):
	 * writing again would give the same, so the state is done with.
	 */
	diff[0] = '\0';
	if (!kprof_cpufreq_snapshot(root, &now)) {
		describe_diff(&st, &now, diff, sizeof(diff));
		kprof_clockstate_free(&now);
	}
	unlinkat(dfd, STATE_FILE, 0);
	if (diff[0]) {
		snprintf(msg, msg_len,
			 "host: restored, but the kernel adjusted what was written (%s); the saved state is removed since writing it again gives the same; check the values under %s/"
			 CPUFREQ_DIR " and set any that matter by hand",
			 diff, root);
		r = KPROF_HOST_RESET_ADJUSTED;
		goto free_st;
	}
	snprintf(msg, msg_len,
		 "host: %zu cpufreq policies restored (governor %s, min %s, max %s kHz on policy%u)",
		 st.ncpus, st.ncpus ? st.cpus[0].governor : "-",
		 st.ncpus ? st.cpus[0].min_freq : "-",
		 st.ncpus ? st.cpus[0].max_freq : "-",
		 st.ncpus ? st.cpus[0].cpu : 0);
	r = 0;
free_st:
	kprof_clockstate_free(&st);
out:
	release_lock(fd);
	close(dfd);
	return r;
}

int kprof_host_clock_forget(const char *run_dir, char *msg, size_t msg_len)
{
	struct kprof_clockstate st;
	struct kprof_err err = { 0 };
	char path[512], what[1024], when[64];
	int dfd, fd = -1, r;

	snprintf(path, sizeof(path), "%s/" STATE_FILE, run_dir);
	dfd = open_run_dir(run_dir, 0, msg, msg_len);
	if (dfd == -ENOENT || (dfd >= 0 && !state_exists(dfd))) {
		if (dfd >= 0)
			close(dfd);
		snprintf(msg, msg_len, "host: no saved state in %s: nothing to forget", path);
		return 0;
	}
	if (dfd >= 0)
		close(dfd);
	dfd = open_locked(run_dir, 0, &fd, msg, msg_len);
	if (dfd < 0)
		return dfd;
	/* Say what is being thrown away, so that it can still be set by hand. */
	if (!kprof_clockstate_read_at(dfd, STATE_FILE, path, &st, &err)) {
		time_t t = (time_t)st.saved_at;
		struct tm tm;

		if (localtime_r(&t, &tm))
			strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
		else
			snprintf(when, sizeof(when), "%llu", (unsigned long long)st.saved_at);
		snprintf(what, sizeof(what),
			 "saved by pid %d at %s for sysfs root %s: %zu policies, policy%u governor %s, min %s, max %s kHz%s%s",
			 (int)st.pid, when, st.sysfs_root, st.ncpus,
			 st.ncpus ? st.cpus[0].cpu : 0, st.ncpus ? st.cpus[0].governor : "-",
			 st.ncpus ? st.cpus[0].min_freq : "-", st.ncpus ? st.cpus[0].max_freq : "-",
			 st.has_boost ? ", boost " : "", st.has_boost ? st.boost : "");
		kprof_clockstate_free(&st);
	} else {
		snprintf(what, sizeof(what), "unreadable: %s", err.msg);
	}
	if (unlinkat(dfd, STATE_FILE, 0)) {
		r = -errno;
		snprintf(msg, msg_len, "host: cannot remove %s: %s", path, strerror(-r));
	} else {
		r = 0;
		snprintf(msg, msg_len,
			 "host: forgot the saved clock state %s (%s); no clock was changed: the host keeps its current settings",
			 path, what);
	}
	release_lock(fd);
	close(dfd);
	return r;
}

int kprof_clock_run_lock(const char *run_dir, char *msg, size_t msg_len)
{
	int lock, dfd = open_locked(run_dir, 1, &lock, msg, msg_len);

	if (dfd < 0)
		return dfd;
	close(dfd);
	return lock;
}

void kprof_clock_run_unlock(int fd)
{
	release_lock(fd);
}
