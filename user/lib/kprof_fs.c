// SPDX-License-Identifier: GPL-2.0
#include "kprof_fs.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

char *kprof_read_file(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t len = 0;

	if (!f)
		return NULL;
	if (getdelim(&buf, &len, '\0', f) < 0) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}
