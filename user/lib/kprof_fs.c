// SPDX-License-Identifier: GPL-2.0
#include "kprof_fs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int kprof_mkdir_p(const char *dir, struct kprof_err *err)
{
	char tmp[PATH_MAX];
	size_t len = strlen(dir);

	if (len == 0 || len >= sizeof(tmp))
		return kprof_err_set(err, ENAMETOOLONG, "bad directory name '%s'", dir);
	memcpy(tmp, dir, len + 1);
	for (char *p = tmp + 1; ; p++) {
		if (*p == '/' || *p == '\0') {
			char c = *p;

			*p = '\0';
			if (mkdir(tmp, 0755) && errno != EEXIST)
				return kprof_err_set(err, errno,
						     "cannot create directory %s: %s",
						     tmp, strerror(errno));
			*p = c;
			if (!c)
				break;
		}
	}
	return 0;
}

static const char *file_kind(mode_t m)
{
	if (S_ISLNK(m))
		return "a symbolic link";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISSOCK(m))
		return "a socket";
	if (S_ISDIR(m))
		return "a directory";
	return "not a regular file";
}

static int refuse(mode_t m, const char *shown, struct kprof_err *err)
{
	return kprof_err_set(err, S_ISLNK(m) ? ELOOP : S_ISDIR(m) ? EISDIR : EINVAL,
			     "%s is %s: kprof reads only regular files (no links, FIFOs or devices); give the file itself",
			     shown, file_kind(m));
}

/*
 * The directories of path below dirfd, one at a time and never through
 * a link; *name is set to the last component. Returns the directory fd
 * (dirfd itself when path has no '/'), or -errno with err set.
 */
static int walk_dirs(int dirfd, const char *path, const char *shown, const char **name,
		     struct kprof_err *err)
{
	int fd = dirfd;
	const char *p = path;

	if (path[0] == '/')
		return kprof_err_set(err, EINVAL, "%s: an absolute name inside a directory", shown);
	for (;;) {
		const char *sl = strchr(p, '/');
		char comp[NAME_MAX + 1];
		size_t n = sl ? (size_t)(sl - p) : strlen(p);
		int next;

		if (n == 0 || n > NAME_MAX || (n == 2 && !strncmp(p, "..", 2))) {
			if (fd != dirfd)
				close(fd);
			return kprof_err_set(err, EINVAL, "%s: bad file name", shown);
		}
		if (!sl) {
			*name = p;
			return fd;
		}
		memcpy(comp, p, n);
		comp[n] = '\0';
		next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0) {
			int e = errno;
			struct stat st;

			/* O_DIRECTORY | O_NOFOLLOW on a link gives ENOTDIR */
			if (e == ENOTDIR && !fstatat(fd, comp, &st, AT_SYMLINK_NOFOLLOW) &&
			    S_ISLNK(st.st_mode))
				e = ELOOP;
			if (fd != dirfd)
				close(fd);
			if (e == ELOOP)
				return kprof_err_set(err, e,
						     "%s: '%s' is a symbolic link: refused (kprof reads a capture directory without following links)",
						     shown, comp);
			if (e == ENOTDIR)
				return kprof_err_set(err, e, "%s: '%s' is not a directory", shown,
						     comp);
			return kprof_err_set(err, e, "cannot open %s: %s", shown, strerror(e));
		}
		if (fd != dirfd)
			close(fd);
		fd = next;
		p = sl + 1;
	}
}

int kprof_in_open(int dirfd, const char *path, const char *shown, struct kprof_err *err)
{
	const char *name = path;
	struct stat st;
	int dfd = dirfd, fd, e;

	if (!shown)
		shown = path;
	if (dirfd != AT_FDCWD) {
		dfd = walk_dirs(dirfd, path, shown, &name, err);
		if (dfd < 0)
			return dfd;
	}
	/* lstat first: a FIFO or device is never opened (open could block,
	 * or start a driver); the fstat below is the check that counts
	 */
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW)) {
		e = errno;
		fd = kprof_err_set(err, e, "cannot open %s: %s", shown, strerror(e));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		fd = refuse(st.st_mode, shown, err);
		goto out;
	}
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		fd = e == ELOOP ? refuse(S_IFLNK, shown, err) :
		     kprof_err_set(err, e, "cannot open %s: %s", shown, strerror(e));
		goto out;
	}
	if (fstat(fd, &st)) {
		e = errno;
		close(fd);
		fd = kprof_err_set(err, e, "cannot read %s: %s", shown, strerror(e));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		/* replaced between the two looks */
		close(fd);
		fd = refuse(st.st_mode, shown, err);
		goto out;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
out:
	if (dfd != dirfd)
		close(dfd);
	return fd;
}

FILE *kprof_in_fopen(int dirfd, const char *path, const char *shown, struct kprof_err *err)
{
	int fd = kprof_in_open(dirfd, path, shown, err);
	FILE *f;

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	f = fdopen(fd, "r");
	if (!f) {
		int e = errno;

		close(fd);
		kprof_err_set(err, e, "cannot read %s: %s", shown ? shown : path, strerror(e));
		errno = e;
	}
	return f;
}

char *kprof_in_read(int dirfd, const char *path, const char *shown, size_t max,
		    size_t *len, struct kprof_err *err)
{
	int fd = kprof_in_open(dirfd, path, shown, err);
	struct stat st;
	size_t got = 0;
	char *buf;

	if (!shown)
		shown = path;
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || (unsigned long long)st.st_size > max) {
		kprof_err_set(err, EFBIG,
			      "%s is %lld bytes: kprof reads at most %zu bytes of such a file; is it the right file?",
			      shown, (long long)st.st_size, max);
		close(fd);
		return NULL;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		kprof_err_set(err, ENOMEM, "out of memory");
		close(fd);
		return NULL;
	}
	/* the size may change while reading: never more than it said */
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			kprof_err_set(err, errno, "reading %s: %s", shown, strerror(errno));
			free(buf);
			close(fd);
			return NULL;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	buf[got] = '\0';
	if (len)
		*len = got;
	return buf;
}
