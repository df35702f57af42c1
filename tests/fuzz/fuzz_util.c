// SPDX-License-Identifier: GPL-2.0
/* Scratch files for the fuzz targets (fuzz_util.h). */
#include "fuzz_util.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char scratch[PATH_MAX];

static void rm_tree(const char *dir, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[PATH_MAX];

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		if (unlink(p) && depth < 3) {
			rm_tree(p, depth + 1);
			rmdir(p);
		}
	}
	closedir(d);
}

static void scratch_remove(void)
{
	if (scratch[0]) {
		rm_tree(scratch, 0);
		rmdir(scratch);
	}
}

const char *fuzz_scratch(void)
{
	const char *tmp = getenv("TMPDIR");

	if (scratch[0])
		return scratch;
	snprintf(scratch, sizeof(scratch), "%s/kprof-fuzz-XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(scratch)) {
		perror("fuzz: mkdtemp");
		abort();
	}
	atexit(scratch_remove);
	return scratch;
}

static void mkdirs_for(const char *path)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s", path);
	for (char *s = p + strlen(fuzz_scratch()) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(p, 0700);
		*s = '/';
	}
}

const char *fuzz_write(const char *name, const void *data, size_t len)
{
	static char path[PATH_MAX];
	const char *b = data;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", fuzz_scratch(), name);
	mkdirs_for(path);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		perror(path);
		abort();
	}
	while (len) {
		ssize_t n = write(fd, b, len);

		if (n <= 0) {
			perror(path);
			abort();
		}
		b += n;
		len -= (size_t)n;
	}
	close(fd);
	return path;
}

void fuzz_clean(const char *sub)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", fuzz_scratch(), sub);
	rm_tree(p, 1);
}

char *fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (s) {
		memcpy(s, data, size);
		s[size] = '\0';
	}
	return s;
}
