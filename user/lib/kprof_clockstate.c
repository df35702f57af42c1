// SPDX-License-Identifier: GPL-2.0
/*
 * Host cpufreq saved-state file (JSON): atomic write, strict parse.
 */
#include "kprof_clockstate.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json.h>

static json_object *str_or_null(int present, const char *val)
{
	return present ? json_object_new_string(val) : NULL;
}

static json_object *mhz_or_null(uint32_t mhz)
{
	return mhz ? json_object_new_int64(mhz) : NULL;
}

static json_object *gpu_to_json(const struct kprof_gpu_clock *g)
{
	json_object *o = json_object_new_object(), *b = json_object_new_object();

	json_object_object_add(o, "uuid", json_object_new_string(g->uuid));
	json_object_object_add(o, "index", json_object_new_int64(g->index));
	json_object_object_add(o, "sm_locked_mhz", mhz_or_null(g->sm_locked_mhz));
	json_object_object_add(o, "mem_locked_mhz", mhz_or_null(g->mem_locked_mhz));
	json_object_object_add(b, "sm_mhz", mhz_or_null(g->before_sm_mhz));
	json_object_object_add(b, "mem_mhz", mhz_or_null(g->before_mem_mhz));
	json_object_object_add(b, "app_sm_mhz", mhz_or_null(g->before_app_sm_mhz));
	json_object_object_add(b, "app_mem_mhz", mhz_or_null(g->before_app_mem_mhz));
	json_object_object_add(b, "clocks_event_reasons", g->has_before_reasons ?
			       json_object_new_int64((int64_t)g->before_reasons) : NULL);
	json_object_object_add(o, "before", b);
	return o;
}

static char *clockstate_to_json(const struct kprof_clockstate *st)
{
	json_object *o = json_object_new_object(), *cpus = json_object_new_array();
	char *out;

	json_object_object_add(o, "version", json_object_new_int(KPROF_CLOCKSTATE_VERSION));
	json_object_object_add(o, "sysfs_root", json_object_new_string(st->sysfs_root));
	json_object_object_add(o, "pid", json_object_new_int(st->pid));
	json_object_object_add(o, "saved_at", json_object_new_int64((int64_t)st->saved_at));
	json_object_object_add(o, "boost", str_or_null(st->has_boost, st->boost));
	json_object_object_add(o, "no_turbo", str_or_null(st->has_no_turbo, st->no_turbo));
	for (size_t i = 0; i < st->ncpus; i++) {
		const struct kprof_cpu_clock *c = &st->cpus[i];
		json_object *j = json_object_new_object();

		json_object_object_add(j, "cpu", json_object_new_int64(c->cpu));
		json_object_object_add(j, "scaling_governor", json_object_new_string(c->governor));
		json_object_object_add(j, "scaling_min_freq", json_object_new_string(c->min_freq));
		json_object_object_add(j, "scaling_max_freq", json_object_new_string(c->max_freq));
		json_object_array_add(cpus, j);
	}
	json_object_object_add(o, "cpus", cpus);
	if (st->has_gpu)
		json_object_object_add(o, "gpu", gpu_to_json(&st->gpu));
	out = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
						    JSON_C_TO_STRING_SPACED));
	json_object_put(o);
	return out;
}

int kprof_clockstate_trusted(const struct stat *sb, const char *path,
			     struct kprof_err *err)
{
	if (sb->st_uid != 0 && sb->st_uid != geteuid())
		return kprof_err_set(err, EPERM,
				     "%s belongs to uid %u, neither root nor this user: its contents cannot be trusted; remove it if you know where it came from",
				     path, (unsigned int)sb->st_uid);
	if (sb->st_mode & 0022)
		return kprof_err_set(err, EPERM,
				     "%s is writable by group or others (mode %04o): anyone could have changed it; `chmod go-w %s` if it is right, or remove it",
				     path, (unsigned int)(sb->st_mode & 07777), path);
	return 0;
}

/* The temporary file, made only by us (O_EXCL); a stale one of a dead run with our pid goes. */
static int create_tmp(int dirfd, const char *tmp)
{
	int fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);

	if (fd < 0 && errno == EEXIST && !unlinkat(dirfd, tmp, 0))
		fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	return fd;
}

int kprof_clockstate_write_at(int dirfd, const char *name, const struct kprof_clockstate *st,
			      struct kprof_err *err)
{
	char tmp[NAME_MAX + 1];
	char *json = clockstate_to_json(st);
	size_t len, off = 0;
	int fd, ret = 0;

	if (!json)
		return kprof_err_set(err, ENOMEM, "out of memory");
	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%d", name, (int)getpid()) >= (int)sizeof(tmp)) {
		free(json);
		return kprof_err_set(err, ENAMETOOLONG, "state file name too long: %s", name);
	}
	fd = create_tmp(dirfd, tmp);
	if (fd < 0) {
		ret = kprof_err_set(err, errno, "cannot create %s: %s", tmp, strerror(errno));
		free(json);
		return ret;
	}
	len = strlen(json);
	json[len] = '\n';	/* replaces the NUL: write len + 1 bytes */
	while (off < len + 1) {
		ssize_t n = write(fd, json + off, len + 1 - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = kprof_err_set(err, errno, "writing %s: %s", tmp, strerror(errno));
			break;
		}
		off += (size_t)n;
	}
	free(json);
	if (!ret && fsync(fd))
		ret = kprof_err_set(err, errno, "fsync %s: %s", tmp, strerror(errno));
	if (close(fd) && !ret)
		ret = kprof_err_set(err, errno, "close %s: %s", tmp, strerror(errno));
	if (!ret && renameat(dirfd, tmp, dirfd, name))
		ret = kprof_err_set(err, errno, "rename %s to %s: %s", tmp, name,
				    strerror(errno));
	if (ret) {
		unlinkat(dirfd, tmp, 0);
		return ret;
	}
	/* the rename is durable only once the directory is synced */
	fsync(dirfd);
	return 0;
}

/* The directory of path, opened; *base points into path. */
static int open_parent(const char *path, const char **base, struct kprof_err *err)
{
	char dir[PATH_MAX];
	int fd;

	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir))
		return kprof_err_set(err, ENAMETOOLONG, "path too long: %s", path);
	*base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	fd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return kprof_err_set(err, errno, "cannot open the directory of %s: %s", path,
				     strerror(errno));
	return fd;
}

int kprof_clockstate_write(const char *path, const struct kprof_clockstate *st,
			   struct kprof_err *err)
{
	const char *base;
	int dfd = open_parent(path, &base, err), ret;

	if (dfd < 0)
		return dfd;
	ret = kprof_clockstate_write_at(dfd, base, st, err);
	close(dfd);
	return ret;
}

static int get_key(json_object *o, const char *key, json_type type, int nullable,
		   json_object **val, struct kprof_err *err)
{
	if (!json_object_object_get_ex(o, key, val))
		return kprof_err_set(err, EBADMSG, "clock state: missing key \"%s\"", key);
	if (nullable && !*val)
		return 0;
	if (!json_object_is_type(*val, type))
		return kprof_err_set(err, EBADMSG,
				     "clock state: \"%s\" has the wrong type (want %s)",
				     key, json_type_to_name(type));
	return 0;
}

static int copy_str(char *dst, size_t len, json_object *v, const char *key,
		    struct kprof_err *err)
{
	const char *s = json_object_get_string(v);
	size_t n = (size_t)json_object_get_string_len(v);

	if (n >= len || strlen(s) != n)
		return kprof_err_set(err, EBADMSG,
				     "clock state: \"%s\" is too long or has a NUL byte", key);
	memcpy(dst, s, n + 1);
	return 0;
}

static int check_keys(json_object *o, const char *const *keys, const char *what,
		      struct kprof_err *err)
{
	json_object_object_foreach(o, k, v) {
		int ok = 0;

		(void)v;
		for (size_t i = 0; keys[i]; i++)
			ok |= !strcmp(k, keys[i]);
		if (!ok)
			return kprof_err_set(err, EBADMSG, "clock state: unknown key \"%s\" in %s",
					     k, what);
	}
	return 0;
}

static int get_int(json_object *o, const char *key, int64_t lo, int64_t hi,
		   int64_t *out, struct kprof_err *err)
{
	json_object *v;
	int ret = get_key(o, key, json_type_int, 0, &v, err);

	if (ret)
		return ret;
	errno = 0;
	*out = json_object_get_int64(v);
	if (errno || *out < lo || *out > hi)
		return kprof_err_set(err, EBADMSG, "clock state: \"%s\" out of range", key);
	return 0;
}

/* MHz: a positive int, or null (stored as 0). */
static int get_mhz(json_object *o, const char *key, uint32_t *out, struct kprof_err *err)
{
	json_object *v;
	int ret = get_key(o, key, json_type_int, 1, &v, err);
	int64_t n;

	if (ret)
		return ret;
	*out = 0;
	if (!v)
		return 0;
	errno = 0;
	n = json_object_get_int64(v);
	if (errno || n < 1 || n > 1000000)
		return kprof_err_set(err, EBADMSG, "clock state: \"%s\" out of range", key);
	*out = (uint32_t)n;
	return 0;
}

static int parse_gpu(json_object *o, struct kprof_gpu_clock *g, struct kprof_err *err)
{
	static const char *const gpu_keys[] = { "uuid", "index", "sm_locked_mhz",
		"mem_locked_mhz", "before", NULL };
	static const char *const before_keys[] = { "sm_mhz", "mem_mhz", "app_sm_mhz",
		"app_mem_mhz", "clocks_event_reasons", NULL };
	json_object *v, *b;
	int64_t n;
	int ret;

	if (!json_object_is_type(o, json_type_object))
		return kprof_err_set(err, EBADMSG, "clock state: \"gpu\" is not an object");
	ret = check_keys(o, gpu_keys, "gpu", err);
	if (!ret)
		ret = get_key(o, "uuid", json_type_string, 0, &v, err);
	if (!ret)
		ret = copy_str(g->uuid, sizeof(g->uuid), v, "uuid", err);
	if (!ret)
		ret = get_int(o, "index", 0, UINT32_MAX, &n, err);
	if (ret)
		return ret;
	g->index = (uint32_t)n;
	ret = get_mhz(o, "sm_locked_mhz", &g->sm_locked_mhz, err);
	if (!ret)
		ret = get_mhz(o, "mem_locked_mhz", &g->mem_locked_mhz, err);
	if (!ret)
		ret = get_key(o, "before", json_type_object, 0, &b, err);
	if (!ret)
		ret = check_keys(b, before_keys, "gpu.before", err);
	if (!ret)
		ret = get_mhz(b, "sm_mhz", &g->before_sm_mhz, err);
	if (!ret)
		ret = get_mhz(b, "mem_mhz", &g->before_mem_mhz, err);
	if (!ret)
		ret = get_mhz(b, "app_sm_mhz", &g->before_app_sm_mhz, err);
	if (!ret)
		ret = get_mhz(b, "app_mem_mhz", &g->before_app_mem_mhz, err);
	if (!ret)
		ret = get_key(b, "clocks_event_reasons", json_type_int, 1, &v, err);
	if (ret)
		return ret;
	g->has_before_reasons = !!v;
	if (v) {
		errno = 0;
		n = json_object_get_int64(v);
		if (errno || n < 0)
			return kprof_err_set(err, EBADMSG,
					     "clock state: \"clocks_event_reasons\" out of range");
		g->before_reasons = (uint64_t)n;
	}
	return 0;
}

static int parse_obj(json_object *o, struct kprof_clockstate *st, struct kprof_err *err)
{
	static const char *const top_keys[] = { "version", "sysfs_root", "pid", "saved_at",
		"boost", "no_turbo", "cpus", "gpu", NULL };
	static const char *const cpu_keys[] = { "cpu", "scaling_governor",
		"scaling_min_freq", "scaling_max_freq", NULL };
	json_object *v, *cpus;
	int64_t n;
	int ret;

	if (!json_object_is_type(o, json_type_object))
		return kprof_err_set(err, EBADMSG, "clock state: top level is not an object");
	ret = check_keys(o, top_keys, "the top level", err);
	if (ret)
		return ret;
	ret = get_int(o, "version", 0, INT32_MAX, &n, err);
	if (ret)
		return ret;
	if (n != KPROF_CLOCKSTATE_VERSION)
		return kprof_err_set(err, EPROTONOSUPPORT,
				     "clock state: version %lld, this kprof knows %d",
				     (long long)n, KPROF_CLOCKSTATE_VERSION);
	ret = get_key(o, "sysfs_root", json_type_string, 0, &v, err);
	if (!ret)
		ret = copy_str(st->sysfs_root, sizeof(st->sysfs_root), v, "sysfs_root", err);
	if (ret)
		return ret;
	ret = get_int(o, "pid", 0, INT32_MAX, &n, err);
	if (ret)
		return ret;
	st->pid = (int32_t)n;
	ret = get_int(o, "saved_at", 0, INT64_MAX, &n, err);
	if (ret)
		return ret;
	st->saved_at = (uint64_t)n;
	ret = get_key(o, "boost", json_type_string, 1, &v, err);
	if (ret)
		return ret;
	st->has_boost = !!v;
	if (v) {
		ret = copy_str(st->boost, sizeof(st->boost), v, "boost", err);
		if (ret)
			return ret;
	}
	ret = get_key(o, "no_turbo", json_type_string, 1, &v, err);
	if (ret)
		return ret;
	st->has_no_turbo = !!v;
	if (v) {
		ret = copy_str(st->no_turbo, sizeof(st->no_turbo), v, "no_turbo", err);
		if (ret)
			return ret;
	}
	ret = get_key(o, "cpus", json_type_array, 0, &cpus, err);
	if (ret)
		return ret;
	st->ncpus = json_object_array_length(cpus);
	st->cpus = calloc(st->ncpus ? st->ncpus : 1, sizeof(*st->cpus));
	if (!st->cpus)
		return kprof_err_set(err, ENOMEM, "out of memory");
	for (size_t i = 0; i < st->ncpus; i++) {
		json_object *c = json_object_array_get_idx(cpus, i);
		struct kprof_cpu_clock *cc = &st->cpus[i];

		if (!json_object_is_type(c, json_type_object))
			return kprof_err_set(err, EBADMSG,
					     "clock state: cpus[%zu] is not an object", i);
		ret = check_keys(c, cpu_keys, "cpus[]", err);
		if (ret)
			return ret;
		ret = get_int(c, "cpu", 0, UINT32_MAX, &n, err);
		if (ret)
			return ret;
		cc->cpu = (uint32_t)n;
		ret = get_key(c, "scaling_governor", json_type_string, 0, &v, err);
		if (!ret)
			ret = copy_str(cc->governor, sizeof(cc->governor), v,
				       "scaling_governor", err);
		if (!ret)
			ret = get_key(c, "scaling_min_freq", json_type_string, 0, &v, err);
		if (!ret)
			ret = copy_str(cc->min_freq, sizeof(cc->min_freq), v,
				       "scaling_min_freq", err);
		if (!ret)
			ret = get_key(c, "scaling_max_freq", json_type_string, 0, &v, err);
		if (!ret)
			ret = copy_str(cc->max_freq, sizeof(cc->max_freq), v,
				       "scaling_max_freq", err);
		if (ret)
			return ret;
	}
	/* optional: only GPU state files have it */
	st->has_gpu = json_object_object_get_ex(o, "gpu", &v);
	if (st->has_gpu) {
		ret = parse_gpu(v, &st->gpu, err);
		if (ret)
			return ret;
	}
	return 0;
}

int kprof_clockstate_parse(const char *json, struct kprof_clockstate *st,
			   struct kprof_err *err)
{
	struct json_tokener *tok = json_tokener_new();
	size_t len = strlen(json);
	json_object *o;
	int ret;

	memset(st, 0, sizeof(*st));
	if (!tok)
		return kprof_err_set(err, ENOMEM, "out of memory");
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	o = json_tokener_parse_ex(tok, json, (int)len);
	if (!o || json_tokener_get_error(tok) != json_tokener_success) {
		ret = kprof_err_set(err, EBADMSG, "clock state: invalid JSON at byte %d: %s",
				    tok->char_offset,
				    json_tokener_error_desc(json_tokener_get_error(tok)));
		json_object_put(o);
		json_tokener_free(tok);
		return ret;
	}
	/* trailing garbage after the object (whitespace is fine) */
	for (size_t i = (size_t)tok->char_offset; i < len; i++) {
		if (json[i] != ' ' && json[i] != '\n' && json[i] != '\t' && json[i] != '\r') {
			json_object_put(o);
			json_tokener_free(tok);
			return kprof_err_set(err, EBADMSG,
					     "clock state: trailing data at byte %zu", i);
		}
	}
	json_tokener_free(tok);
	ret = parse_obj(o, st, err);
	json_object_put(o);
	if (ret)
		kprof_clockstate_free(st);
	return ret;
}

int kprof_clockstate_read_at(int dirfd, const char *name, const char *shown,
			     struct kprof_clockstate *st, struct kprof_err *err)
{
	struct stat sb;
	char *buf;
	ssize_t n;
	size_t off = 0;
	int fd, ret;

	memset(st, 0, sizeof(*st));
	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return kprof_err_set(err, errno, "cannot open clock state %s: %s", shown,
				     errno == ELOOP ? "it is a symbolic link" : strerror(errno));
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
		close(fd);
		return kprof_err_set(err, EINVAL, "%s: not a regular file", shown);
	}
	ret = kprof_clockstate_trusted(&sb, shown, err);
	if (ret) {
		close(fd);
		return ret;
	}
	if (sb.st_size > (1L << 24)) {
		close(fd);
		return kprof_err_set(err, EFBIG, "%s: too big for a clock state file", shown);
	}
	buf = malloc((size_t)sb.st_size + 1);
	if (!buf) {
		close(fd);
		return kprof_err_set(err, ENOMEM, "out of memory");
	}
	while (off < (size_t)sb.st_size) {
		n = read(fd, buf + off, (size_t)sb.st_size - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	close(fd);
	if (off != (size_t)sb.st_size) {
		free(buf);
		return kprof_err_set(err, EIO, "cannot read %s", shown);
	}
	buf[off] = '\0';
	if (strlen(buf) != off) {
		free(buf);
		return kprof_err_set(err, EBADMSG, "%s: NUL byte in clock state file", shown);
	}
	ret = kprof_clockstate_parse(buf, st, err);
	free(buf);
	if (ret)
		kprof_err_prefix(err, shown);
	return ret;
}

int kprof_clockstate_read(const char *path, struct kprof_clockstate *st,
			  struct kprof_err *err)
{
	const char *base;
	int dfd, ret;

	memset(st, 0, sizeof(*st));
	dfd = open_parent(path, &base, err);
	if (dfd < 0)
		return dfd;
	ret = kprof_clockstate_read_at(dfd, base, path, st, err);
	close(dfd);
	return ret;
}

void kprof_clockstate_free(struct kprof_clockstate *st)
{
	free(st->cpus);
	st->cpus = NULL;
	st->ncpus = 0;
}
