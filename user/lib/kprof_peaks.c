// SPDX-License-Identifier: GPL-2.0
/*
 * Device peaks files: one JSON object per device type (docs/formats.md,
 * "Peaks file"). Strict: unknown keys and wrong types are errors, so a
 * typo does not silently fall back to a default.
 */
#include "kprof_peaks.h"
#include "kprof_array_size.h"
#include "kprof_env.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json.h>

#include "kprof_fs.h"

#define LATENCY_FRAC_DEFAULT	0.2

static int get_num(json_object *v, const char *key, double *out, struct kprof_err *err)
{
	if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int))
		return kprof_err_set(err, EINVAL, "peaks: \"%s\" must be a number", key);
	*out = json_object_get_double(v);
	if (!isfinite(*out) || *out < 0)
		return kprof_err_set(err, EINVAL, "peaks: \"%s\" must be a finite number >= 0",
				     key);
	return 0;
}

static int get_str(json_object *v, const char *key, char *out, size_t len,
		   struct kprof_err *err)
{
	const char *s;

	if (!json_object_is_type(v, json_type_string))
		return kprof_err_set(err, EINVAL, "peaks: \"%s\" must be a string", key);
	s = json_object_get_string(v);
	if (!s[0] || strlen(s) >= len)
		return kprof_err_set(err, EINVAL, "peaks: \"%s\" must be 1-%zu characters", key,
				     len - 1);
	snprintf(out, len, "%s", s);
	return 0;
}

static int get_bytes_counters(json_object *v, struct kprof_peaks *p, struct kprof_err *err)
{
	size_t n;

	n = json_object_is_type(v, json_type_array) ? json_object_array_length(v) : 0;
	if (n < 1 || n > 2)
		return kprof_err_set(err, EINVAL,
				     "peaks: \"bytes_counters\" must be an array of 1 or 2 counter names");
	p->bytes_counters[1][0] = '\0';
	for (size_t i = 0; i < n; i++)
		if (get_str(json_object_array_get_idx(v, i), "bytes_counters",
			    p->bytes_counters[i], sizeof(p->bytes_counters[i]), err))
			return -EINVAL;
	return 0;
}

static int parse_key(const char *key, json_object *v, struct kprof_peaks *p,
		     unsigned int *seen, struct kprof_err *err)
{
	double gb;

	if (!strcmp(key, "device"))
		return get_str(v, key, p->device, sizeof(p->device), err);
	if (!strcmp(key, "scope")) {
		const char *s = json_object_is_type(v, json_type_string) ?
				json_object_get_string(v) : "";

		if (strcmp(s, "core") && strcmp(s, "device"))
			return kprof_err_set(err, EINVAL,
					     "peaks: \"scope\" must be \"core\" or \"device\"");
		p->per_core = !strcmp(s, "core");
		return 0;
	}
	if (!strcmp(key, "clock_mhz"))
		return get_num(v, key, &p->clock_mhz, err);
	if (!strcmp(key, "peak_gflops")) {
		*seen |= 1;
		if (get_num(v, key, &gb, err))
			return -EINVAL;
		p->flops_per_s = gb * 1e9;
		return 0;
	}
	if (!strcmp(key, "peak_gb_per_s")) {
		*seen |= 2;
		if (get_num(v, key, &gb, err))
			return -EINVAL;
		p->bytes_per_s = gb * 1e9;
		return 0;
	}
	if (!strcmp(key, "latency_threshold")) {
		if (get_num(v, key, &p->latency_frac, err))
			return -EINVAL;
		if (p->latency_frac >= 1)
			return kprof_err_set(err, EINVAL,
					     "peaks: \"latency_threshold\" must be below 1");
		return 0;
	}
	if (!strcmp(key, "flops_counter"))
		return get_str(v, key, p->flops_counter, sizeof(p->flops_counter), err);
	if (!strcmp(key, "bytes_counters"))
		return get_bytes_counters(v, p, err);
	if (!strcmp(key, "source") || !strcmp(key, "comment"))
		return 0;	/* documentation only */
	return kprof_err_set(err, EINVAL, "peaks: unknown key \"%s\"", key);
}

int kprof_peaks_parse(const char *text, struct kprof_peaks *p, struct kprof_err *err)
{
	struct json_tokener *tok = json_tokener_new();
	json_object *o;
	unsigned int seen = 0;
	int ret = 0;

	if (!tok)
		return kprof_err_set(err, ENOMEM, "out of memory");
	o = json_tokener_parse_ex(tok, text, (int)strlen(text));
	if (!o || json_tokener_get_error(tok) != json_tokener_success) {
		ret = kprof_err_set(err, EINVAL, "peaks: not valid JSON (%s)",
				    json_tokener_error_desc(json_tokener_get_error(tok)));
		json_object_put(o);
		json_tokener_free(tok);
		return ret;
	}
	json_tokener_free(tok);
	memset(p, 0, sizeof(*p));
	p->latency_frac = LATENCY_FRAC_DEFAULT;
	snprintf(p->flops_counter, sizeof(p->flops_counter), "flops");
	snprintf(p->bytes_counters[0], sizeof(p->bytes_counters[0]), "bytes_read");
	snprintf(p->bytes_counters[1], sizeof(p->bytes_counters[1]), "bytes_written");
	if (!json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		return kprof_err_set(err, EINVAL, "peaks: the file must hold one JSON object");
	}
	json_object_object_foreach(o, key, val) {
		ret = parse_key(key, val, p, &seen, err);
		if (ret)
			break;
	}
	json_object_put(o);
	if (ret)
		return ret;
	if (!isfinite(p->flops_per_s) || !isfinite(p->bytes_per_s))
		return kprof_err_set(err, EINVAL,
				     "peaks: \"peak_gflops\" or \"peak_gb_per_s\" is too large");
	if (seen != 3 || !(p->flops_per_s > 0) || !(p->bytes_per_s > 0))
		return kprof_err_set(err, EINVAL,
				     "peaks: \"peak_gflops\" and \"peak_gb_per_s\" are required and must be > 0");
	return 0;
}

int kprof_peaks_load(const char *path, struct kprof_peaks *p, struct kprof_err *err)
{
	char *buf = kprof_in_read(AT_FDCWD, path, NULL, KPROF_IN_JSON_MAX, NULL, err);
	int ret;

	if (!buf) {
		kprof_err_prefix(err, "peaks file");
		return -(err ? err->code : EIO);
	}
	ret = kprof_peaks_parse(buf, p, err);
	free(buf);
	if (ret && err) {
		char msg[sizeof(err->msg)];

		snprintf(msg, sizeof(msg), "%s", err->msg);
		kprof_err_set(err, -ret, "%s: %s", path, msg);
	}
	return ret;
}

static int is_file(const char *p)
{
	struct stat st;

	return !stat(p, &st) && S_ISREG(st.st_mode);
}

int kprof_peaks_default(const char *device, char *buf, size_t len)
{
	const char *env = kprof_env("KPROF_PEAKS_DIR");
	static const char *const rel[] = { "../share/kprof/peaks", "../data/peaks" };
	char exe[PATH_MAX], *slash;
	ssize_t n;

	if (env) {
		snprintf(buf, len, "%s/%s.json", env, device);
		return is_file(buf) ? 0 : -ENOENT;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash)
			*slash = '\0';
		for (size_t i = 0; i < ARRAY_SIZE(rel); i++) {
			snprintf(buf, len, "%s/%s/%s.json", exe, rel[i], device);
			if (is_file(buf))
				return 0;
		}
	}
	/* a build directory outside the tree (the VM lane's BUILD) */
	env = kprof_env("KPROF_ROOT");
	if (env) {
		snprintf(buf, len, "%s/data/peaks/%s.json", env, device);
		if (is_file(buf))
			return 0;
	}
	return -ENOENT;
}

double kprof_peaks_flops(const struct kprof_peaks *p, unsigned int cores, double clock_mhz)
{
	double v = p->flops_per_s;

	if (p->per_core)
		v *= cores ? cores : 1;
	/* compute throughput follows the core clock; the peak is given at clock_mhz */
	if (p->clock_mhz > 0 && clock_mhz > 0)
		v *= clock_mhz / p->clock_mhz;
	return v;
}

double kprof_peaks_bytes(const struct kprof_peaks *p, unsigned int cores)
{
	return p->per_core ? p->bytes_per_s * (cores ? cores : 1) : p->bytes_per_s;
}
