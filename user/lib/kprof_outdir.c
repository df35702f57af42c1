// SPDX-License-Identifier: GPL-2.0
/* Output directories and files (see kprof_outdir.h). */
#include "kprof_outdir.h"
#include "kprof_array_size.h"
#include "kprof_user.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kprof_fs.h"
#include "kprof_spool.h"

const char *const kprof_outdir_outputs[KPROF_OUTDIR_NOUTPUTS] = {
	"ops.csv", "counters.csv", "device_log.csv", "host_events.csv",
	"params.json", "summary.txt", "trace.json", "bubbles.csv", "roofline.csv",
	"report.md", "report.html",
};

/* What raw/ may hold: the spools and the device spool's index
 * (kprof_spool.h), the capture's config (kprof_report.c) and the peaks it
 * used (kprof_analysis.c).
 */
static const char *const raw_files[] = {
	KPROF_SPOOL_DEVICE_NAME, KPROF_SPOOL_INDEX_NAME, KPROF_SPOOL_HOST_NAME,
	KPROF_SPOOL_CUDA_NAME, "config.json", "peaks.json",
};

/* Temporary files: this prefix, the final name, a random suffix. */
#define TMP_PREFIX	".kprof-tmp."

struct kprof_outdir {
	int fd;
	char *path;
	uid_t uid;		/* owner of what is created */
	gid_t gid;
	int chown;		/* an owner was given: chown what is created */
	int created;		/* kprof_outdir_open made it */
	uint32_t written;	/* bit i: kprof_outdir_outputs[i] committed */
	struct kprof_outdir *sub;
};

_Static_assert(KPROF_OUTDIR_NOUTPUTS <= 32, "written is a 32-bit mask");

static int output_index(const char *name)
{
	for (int i = 0; i < KPROF_OUTDIR_NOUTPUTS; i++)
		if (!strcmp(kprof_outdir_outputs[i], name))
			return i;
	return -1;
}

static void user_name(uid_t uid, char *buf, size_t len)
{
	struct passwd pw, *res = NULL;
	char tmp[1024];

	if (!getpwuid_r(uid, &pw, tmp, sizeof(tmp), &res) && res)
		snprintf(buf, len, "uid %u (%s)", (unsigned int)uid, pw.pw_name);
	else
		snprintf(buf, len, "uid %u", (unsigned int)uid);
}

/*
 * An existing directory is trusted only when nobody else can change what
 * is in it: owned by the caller, or, when we write for another user, by
 * that user alone (root writing for a user must not put the user's files
 * into a directory of root's), and neither group- nor other-writable.
 */
static int check_dir(const struct kprof_outdir *od, int fd, const char *path,
		     struct kprof_err *err)
{
	struct stat st;
	char have[160], want[160];

	if (fstat(fd, &st))
		return kprof_err_set(err, errno, "%s: %s", path, strerror(errno));
	if (od->chown ? st.st_uid != od->uid : st.st_uid != geteuid()) {
		user_name(st.st_uid, have, sizeof(have));
		user_name(od->uid, want, sizeof(want));
		return kprof_err_set(err, EPERM,
				     "refusing to write into %s: it is owned by %s, not by %s; give an output directory of your own (-o DIR) or change its owner",
				     path, have, want);
	}
	if (st.st_mode & 0022)
		return kprof_err_set(err, EPERM,
				     "refusing to write into %s: its mode %04o lets other users change it; run 'chmod go-w %s' or give another directory (-o DIR)",
				     path, (unsigned int)(st.st_mode & 07777), path);
	return 0;
}

static int open_dir_at(int at, const char *name, const char *path, struct kprof_err *err)
{
	int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	struct stat st;

	if (fd >= 0)
		return fd;
	/* O_DIRECTORY | O_NOFOLLOW on a link gives ENOTDIR: tell them apart */
	if (errno == ELOOP || (errno == ENOTDIR && !fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) &&
			       S_ISLNK(st.st_mode)))
		return kprof_err_set(err, ELOOP,
				     "refusing to write into %s: it is a symbolic link; give the directory it points to",
				     path);
	if (errno == ENOTDIR)
		return kprof_err_set(err, ENOTDIR, "%s exists and is not a directory", path);
	return kprof_err_set(err, errno, "cannot open %s: %s", path, strerror(errno));
}

static int take_owner(const struct kprof_outdir *od, int fd, const char *what,
		      struct kprof_err *err)
{
	if (od->chown && fchown(fd, od->uid, od->gid))
		return kprof_err_set(err, errno, "cannot give %s to uid %u: %s", what,
				     (unsigned int)od->uid, strerror(errno));
	return 0;
}

static struct kprof_outdir *new_od(const char *path, uid_t uid, gid_t gid,
				   struct kprof_err *err)
{
	struct kprof_outdir *od = calloc(1, sizeof(*od));

	if (od)
		od->path = strdup(path);
	if (!od || !od->path) {
		free(od);
		kprof_err_set(err, ENOMEM, "out of memory");
		return NULL;
	}
	od->fd = -1;
	od->chown = uid != (uid_t)-1;
	od->uid = od->chown ? uid : geteuid();
	od->gid = gid != (gid_t)-1 ? gid : getegid();
	return od;
}

/* unlinkat each of names in dfd (never following a link: a link is what
 * is removed), plus kprof's temporary files
 */
static int remove_set(int dfd, const char *dir, const char *const *names, size_t n,
		      struct kprof_err *err)
{
	struct dirent *de;
	DIR *d;
	int fd;

	for (size_t i = 0; i < n; i++)
		if (unlinkat(dfd, names[i], 0) && errno != ENOENT)
			return kprof_err_set(err, errno,
					     "cannot remove %s/%s: %s; remove it by hand",
					     dir, names[i], strerror(errno));
	fd = dup(dfd);
	d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return kprof_err_set(err, errno, "cannot list %s: %s", dir, strerror(errno));
	}
	while ((de = readdir(d)) != NULL)
		if (!strncmp(de->d_name, TMP_PREFIX, strlen(TMP_PREFIX)))
			unlinkat(dfd, de->d_name, 0);
	closedir(d);
	return 0;
}

/* The CUPTI agent's spools in raw/ (gpu-PID.kspool, kprof_spool.h):
 * kprof's files too, named by pid.
 */
static void remove_gpu_spools(int dfd)
{
	struct dirent *de;
	int fd = dup(dfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return;		/* what stays makes the rmdir below fail, with its message */
	}
	rewinddir(d);	/* a dup shares the offset remove_set() left at the end */
	while ((de = readdir(d)) != NULL) {
		unsigned int pid;
		char tail[16];

		if (sscanf(de->d_name, KPROF_SPOOL_GPU_PREFIX "%u%15s", &pid, tail) == 2 &&
		    !strcmp(tail, KPROF_SPOOL_GPU_SUFFIX))
			unlinkat(dfd, de->d_name, 0);
	}
	closedir(d);
}

static int remove_raw(struct kprof_outdir *od, struct kprof_err *err)
{
	char path[PATH_MAX];
	int fd, ret;

	snprintf(path, sizeof(path), "%s/%s", od->path, KPROF_SPOOL_DIR);
	fd = openat(od->fd, KPROF_SPOOL_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		/* a link or a file named raw: removed, never followed */
		if ((errno == ELOOP || errno == ENOTDIR) && !unlinkat(od->fd, KPROF_SPOOL_DIR, 0))
			return 0;
		return kprof_err_set(err, errno, "cannot remove %s: %s", path, strerror(errno));
	}
	ret = check_dir(od, fd, path, err);
	if (!ret)
		ret = remove_set(fd, path, raw_files, ARRAY_SIZE(raw_files),
				 err);
	if (!ret)
		remove_gpu_spools(fd);
	close(fd);
	if (ret)
		return ret;
	if (unlinkat(od->fd, KPROF_SPOOL_DIR, AT_REMOVEDIR))
		return kprof_err_set(err, errno,
				     "cannot remove %s: %s; it holds files kprof did not write: move them away, or use another directory",
				     path, strerror(errno));
	return 0;
}

static int is_empty(int dfd, const char *path, struct kprof_err *err)
{
	int fd = dup(dfd), empty = 1;
	struct dirent *de;
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return kprof_err_set(err, errno, "cannot list %s: %s", path, strerror(errno));
	}
	while (empty && (de = readdir(d)) != NULL)
		empty = !strcmp(de->d_name, ".") || !strcmp(de->d_name, "..");
	closedir(d);
	return empty;
}

struct kprof_outdir *kprof_outdir_open(const char *path, unsigned int flags, uid_t uid,
				       gid_t gid, struct kprof_err *err)
{
	char name[PATH_MAX];
	struct kprof_outdir *od;
	size_t len = strlen(path);
	char *slash;
	struct kprof_fsid ofs;
	int created, ret;

	/* "out/" would follow a link named out: the name is "out" */
	while (len > 1 && path[len - 1] == '/')
		len--;
	if (len == 0 || len >= sizeof(name)) {
		kprof_err_set(err, ENAMETOOLONG, "bad directory name '%s'", path);
		return NULL;
	}
	memcpy(name, path, len);
	name[len] = '\0';
	od = new_od(name, uid, gid, err);
	if (!od)
		return NULL;
	/*
	 * Writing for another user: the directory is looked up and made with
	 * that user's file-system identity, so it can only land where the
	 * user could make it. The files inside are made through its fd.
	 */
	if (od->chown)
		kprof_fsid_enter(uid, gid, &ofs);
	/* the parents are the user's path; only the last component is ours */
	slash = strrchr(name, '/');
	if (slash && slash != name) {
		*slash = '\0';
		ret = kprof_mkdir_p(name, err);
		*slash = '/';
		if (ret)
			goto fail_fsid;
	}
	created = !mkdir(name, 0755);
	if (!created && errno != EEXIST) {
		kprof_err_set(err, errno, "cannot create directory %s: %s", name, strerror(errno));
		goto fail_fsid;
	}
	od->fd = open_dir_at(AT_FDCWD, name, name, err);
	if (od->chown)
		kprof_fsid_leave(&ofs);
	/* also when created: another user may have swapped it since mkdir */
	if (od->fd < 0 || check_dir(od, od->fd, name, err))
		goto fail;
	if (created && take_owner(od, od->fd, name, err))
		goto fail;
	od->created = created;
	if (!created && (flags & KPROF_OUTDIR_FORCE)) {
		if (remove_set(od->fd, name, kprof_outdir_outputs, KPROF_OUTDIR_NOUTPUTS, err))
			goto fail;
		if ((flags & KPROF_OUTDIR_FORCE_RAW) && remove_raw(od, err))
			goto fail;
	} else if (!created && (flags & KPROF_OUTDIR_EMPTY)) {
		ret = is_empty(od->fd, name, err);
		if (ret < 0)
			goto fail;
		if (!ret) {
			kprof_err_set(err, EEXIST,
				      "%s is not empty; use --force to write into it (kprof's own files there are removed first), or -o another directory",
				      name);
			goto fail;
		}
	}
	return od;
fail_fsid:
	if (od->chown)
		kprof_fsid_leave(&ofs);
fail:
	kprof_outdir_close(od);
	return NULL;
}

struct kprof_outdir *kprof_outdir_of_file(const char *path, uid_t uid, gid_t gid,
					  const char **name, struct kprof_err *err)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];
	struct kprof_outdir *od;

	*name = slash ? slash + 1 : path;
	if (!**name || !strcmp(*name, ".") || !strcmp(*name, "..") ||
	    strlen(*name) >= sizeof(((struct kprof_outfile *)0)->name)) {
		kprof_err_set(err, EINVAL, "%s: give a file name", path);
		return NULL;
	}
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	od = new_od(dir, uid, gid, err);
	if (!od)
		return NULL;
	od->fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (od->fd < 0) {
		kprof_err_set(err, errno, "cannot open directory %s: %s", dir, strerror(errno));
		kprof_outdir_close(od);
		return NULL;
	}
	return od;
}

struct kprof_outdir *kprof_outdir_sub(struct kprof_outdir *od, const char *name,
				      struct kprof_err *err)
{
	char path[PATH_MAX];
	struct kprof_outdir *sub;
	int created;

	snprintf(path, sizeof(path), "%s/%s", od->path, name);
	if (od->sub) {
		if (!strcmp(od->sub->path, path))
			return od->sub;
		kprof_err_set(err, EINVAL, "%s: one sub-directory (%s) per output directory",
			      path, od->sub->path);
		return NULL;
	}
	sub = new_od(path, od->chown ? od->uid : (uid_t)-1, od->chown ? od->gid : (gid_t)-1,
		     err);
	if (!sub)
		return NULL;
	created = !mkdirat(od->fd, name, 0755);
	if (!created && errno != EEXIST) {
		kprof_err_set(err, errno, "cannot create directory %s: %s", path, strerror(errno));
		goto fail;
	}
	sub->fd = open_dir_at(od->fd, name, path, err);
	/* made just now in a directory only we can change: hand it over first */
	if (sub->fd < 0 || (created && take_owner(sub, sub->fd, path, err)) ||
	    check_dir(sub, sub->fd, path, err))
		goto fail;
	od->sub = sub;
	return sub;
fail:
	kprof_outdir_close(sub);
	return NULL;
}

void kprof_outdir_drop_new(struct kprof_outdir *od)
{
	/* rmdir removes only an empty directory, whatever is at the path now */
	if (od && od->created && !od->sub && is_empty(od->fd, od->path, NULL) == 1)
		rmdir(od->path);
}

void kprof_outdir_close(struct kprof_outdir *od)
{
	if (!od)
		return;
	kprof_outdir_close(od->sub);
	if (od->fd >= 0)
		close(od->fd);
	free(od->path);
	free(od);
}

int kprof_outdir_fd(const struct kprof_outdir *od)
{
	return od->fd;
}

const char *kprof_outdir_path(const struct kprof_outdir *od)
{
	return od->path;
}

int kprof_outdir_is(const struct kprof_outdir *od, int fd)
{
	struct stat a, b;

	return !fstat(od->fd, &a) && !fstat(fd, &b) && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

/* A temporary name for name that did not exist: open O_EXCL, never a link. */
static int create_tmp(struct kprof_outdir *od, const char *name, char *tmp, size_t len,
		      int mode, struct kprof_err *err)
{
	static uint32_t seq;

	for (int tries = 0; tries < 100; tries++) {
		uint32_t r;
		int fd;

		if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != sizeof(r))
			r = (uint32_t)getpid() * 2654435761u + (uint32_t)time(NULL) + ++seq;
		snprintf(tmp, len, TMP_PREFIX "%s.%08x", name, r);
		fd = openat(od->fd, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST)
			break;
	}
	return kprof_err_set(err, errno, "cannot create a file in %s: %s", od->path,
			     strerror(errno));
}

int kprof_outfile_create(struct kprof_outdir *od, const char *name,
			 struct kprof_outfile *of, struct kprof_err *err)
{
	char what[PATH_MAX];
	int fd;

	memset(of, 0, sizeof(*of));
	if (strlen(name) >= sizeof(of->name) || strchr(name, '/'))
		return kprof_err_set(err, EINVAL, "bad output file name '%s'", name);
	snprintf(what, sizeof(what), "%s/%s", od->path, name);
	fd = create_tmp(od, name, of->tmp, sizeof(of->tmp), 0644, err);
	if (fd < 0)
		return fd;
	if (take_owner(od, fd, what, err))
		goto fail;
	of->buf = malloc(KPROF_OUTFILE_BUF);
	of->f = of->buf ? fdopen(fd, "w") : NULL;
	if (!of->f) {
		kprof_err_set(err, errno, "cannot write %s: %s", what, strerror(errno));
		free(of->buf);
		goto fail;
	}
	setvbuf(of->f, of->buf, _IOFBF, KPROF_OUTFILE_BUF);
	of->od = od;
	snprintf(of->name, sizeof(of->name), "%s", name);
	return 0;
fail:
	close(fd);
	unlinkat(od->fd, of->tmp, 0);
	return -(err ? err->code : EIO);
}

int kprof_outfile_commit(struct kprof_outfile *of, unsigned int flags,
			 struct kprof_err *err)
{
	struct kprof_outdir *od = of->od;
	int e = 0, idx;

	if (!of->f)
		return kprof_err_set(err, EINVAL, "no output file to commit");
	if (fflush(of->f) || ferror(of->f))
		e = errno ? errno : EIO;
	if (!e && (flags & KPROF_OUTFILE_SYNC) && fsync(fileno(of->f)))
		e = errno;
	if (fclose(of->f) && !e)
		e = errno;
	free(of->buf);
	of->f = NULL;
	if (!e && renameat(od->fd, of->tmp, od->fd, of->name))
		e = errno;
	if (e) {
		unlinkat(od->fd, of->tmp, 0);
		kprof_err_set(err, e, "writing %s/%s failed: %s", od->path, of->name,
			      strerror(e));
	} else {
		idx = output_index(of->name);
		if (idx >= 0)
			od->written |= 1U << idx;
	}
	memset(of, 0, sizeof(*of));
	return e ? -e : 0;
}

int kprof_outfile_fail(struct kprof_outfile *of, int e, struct kprof_err *err)
{
	if (of->f)
		kprof_err_set(err, e, "writing %s/%s failed: %s", of->od->path, of->name,
			      strerror(e));
	kprof_outfile_discard(of);
	return -e;
}

void kprof_outfile_discard(struct kprof_outfile *of)
{
	if (!of->f)
		return;
	fclose(of->f);
	free(of->buf);
	unlinkat(of->od->fd, of->tmp, 0);
	memset(of, 0, sizeof(*of));
}

int kprof_outdir_create_new(struct kprof_outdir *od, const char *name,
			    struct kprof_err *err)
{
	char what[PATH_MAX];
	int fd;

	snprintf(what, sizeof(what), "%s/%s", od->path, name);
	fd = openat(od->fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return kprof_err_set(err, errno, "cannot create %s: %s%s", what, strerror(errno),
				     errno == EEXIST ? " (a new capture never reuses one)" : "");
	if (take_owner(od, fd, what, err)) {
		close(fd);
		unlinkat(od->fd, name, 0);
		return -(err ? err->code : EPERM);
	}
	return fd;
}

int kprof_outdir_tmpfile(struct kprof_outdir *od, struct kprof_err *err)
{
	char tmp[96];
	int fd = openat(od->fd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	if (fd >= 0)
		return fd;
	/* file systems without O_TMPFILE: a name, removed at once */
	fd = create_tmp(od, "sort", tmp, sizeof(tmp), 0600, err);
	if (fd >= 0)
		unlinkat(od->fd, tmp, 0);
	return fd;
}

int kprof_outdir_reopen(struct kprof_outdir *od, const char *name, struct kprof_err *err)
{
	char what[PATH_MAX];
	int idx = output_index(name);

	if (idx < 0 || !(od->written & (1U << idx)))
		return -ENOENT;
	snprintf(what, sizeof(what), "%s/%s", od->path, name);
	return kprof_in_open(od->fd, name, what, err);
}

int kprof_outdir_prune(struct kprof_outdir *od, struct kprof_err *err)
{
	for (int i = 0; i < KPROF_OUTDIR_NOUTPUTS; i++) {
		if ((od->written & (1U << i)) ||
		    !unlinkat(od->fd, kprof_outdir_outputs[i], 0) || errno == ENOENT)
			continue;
		return kprof_err_set(err, errno,
				     "cannot remove %s/%s, which this report did not write: %s; remove it by hand",
				     od->path, kprof_outdir_outputs[i], strerror(errno));
	}
	return 0;
}
