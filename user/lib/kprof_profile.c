// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Driver profiles (the JSON files in data/profiles/) and the command-line equivalent.
 * Strict: an unknown key, a wrong type or an out-of-range value is an
 * error naming the file and the key, since a silently ignored typo would
 * trace nothing.
 */
#include "kprof_profile.h"
#include "kprof_array_size.h"
#include "kprof_env.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <linux/ioctl.h>
#include <linux/kprof_sim.h>

#include <json.h>

#define PROFILE_MAX_BYTES	(64 * 1024)
#define SEQ_OFF_MAX		4096	/* seq lives in the ioctl's arg struct */

static int copy_str(struct json_object *o, const char *origin, const char *key,
		    char *dst, size_t len, struct kprof_err *err)
{
	const char *s;

	if (!json_object_is_type(o, json_type_string))
		return kprof_err_set(err, EINVAL, "%s: \"%s\" must be a string", origin, key);
	s = json_object_get_string(o);
	if (strlen(s) >= len)
		return kprof_err_set(err, EINVAL, "%s: \"%s\" is longer than %zu bytes",
				     origin, key, len - 1);
	memcpy(dst, s, strlen(s) + 1);
	return 0;
}

static int get_u32(struct json_object *o, const char *origin, const char *key,
		   uint32_t max, uint32_t *out, struct kprof_err *err)
{
	int64_t v;

	if (!json_object_is_type(o, json_type_int))
		return kprof_err_set(err, EINVAL, "%s: \"%s\" must be an integer", origin, key);
	errno = 0;
	v = json_object_get_int64(o);
	if (errno || v < 0 || v > max)
		return kprof_err_set(err, EINVAL, "%s: \"%s\" = %lld is out of range 0..%u",
				     origin, key, (long long)v, max);
	*out = (uint32_t)v;
	return 0;
}

static int parse_ioctl(struct json_object *o, const char *origin, const char *role,
		       struct kprof_profile_ioctl *io, struct kprof_err *err)
{
	char key[48], cmd[64] = "";
	bool have_cmd = false;
	int ret;

	if (!json_object_is_type(o, json_type_object))
		return kprof_err_set(err, EINVAL, "%s: \"%s\" must be an object", origin, role);
	json_object_object_foreach(o, k, v) {
		snprintf(key, sizeof(key), "%s.%s", role, k);
		if (!strcmp(k, "ioctl")) {
			ret = copy_str(v, origin, key, io->ioctl, sizeof(io->ioctl), err);
		} else if (!strcmp(k, "cmd")) {
			ret = copy_str(v, origin, key, cmd, sizeof(cmd), err);
			if (!ret) {
				struct kprof_err e2 = { 0 };

				ret = kprof_ioctl_cmd_parse(cmd, &io->cmd, &e2);
				if (ret)
					ret = kprof_err_set(err, EINVAL, "%s: \"%s\": %s",
							    origin, key, e2.msg);
				have_cmd = true;
			}
		} else if (!strcmp(k, "seq_offset")) {
			ret = get_u32(v, origin, key, SEQ_OFF_MAX, &io->seq_off, err);
		} else if (!strcmp(k, "seq_size")) {
			ret = get_u32(v, origin, key, 8, &io->seq_size, err);
			if (!ret && io->seq_size != 0 && io->seq_size != 4 && io->seq_size != 8)
				ret = kprof_err_set(err, EINVAL, "%s: \"%s\" must be 0, 4 or 8",
						    origin, key);
		} else if (!strcmp(k, "comment")) {
			ret = 0;
		} else {
			ret = kprof_err_set(err, EINVAL, "%s: unknown key \"%s\"", origin, key);
		}
		if (ret)
			return ret;
	}
	if (!have_cmd || !io->cmd)
		return kprof_err_set(err, EINVAL, "%s: \"%s.cmd\" is missing or 0", origin, role);
	return 0;
}

int kprof_profile_parse(const char *text, size_t len, const char *origin,
			struct kprof_profile *p, struct kprof_err *err)
{
	struct json_tokener *tok;
	struct json_object *root;
	enum json_tokener_error jerr;
	bool have_launch = false;
	char match[16] = "";
	int ret = 0;

	memset(p, 0, sizeof(*p));
	p->cmd_mask = KPROF_PROFILE_MASK_EXACT;
	if (len > PROFILE_MAX_BYTES)
		return kprof_err_set(err, EFBIG, "%s: profile larger than %d bytes",
				     origin, PROFILE_MAX_BYTES);
	tok = json_tokener_new();
	if (!tok)
		return kprof_err_set(err, ENOMEM, "out of memory");
	root = json_tokener_parse_ex(tok, text, (int)len);
	jerr = json_tokener_get_error(tok);
	if (!root || jerr != json_tokener_success) {
		ret = kprof_err_set(err, EINVAL, "%s: not valid JSON near byte %zu: %s", origin,
				    json_tokener_get_parse_end(tok),
				    jerr == json_tokener_continue ? "unexpected end" :
				    json_tokener_error_desc(jerr));
		goto out;
	}
	/* Only whitespace may follow the object. */
	for (size_t end = json_tokener_get_parse_end(tok); end < len; end++) {
		if (!isspace((unsigned char)text[end])) {
			ret = kprof_err_set(err, EINVAL,
					    "%s: data after the JSON object at byte %zu",
					    origin, end);
			goto out;
		}
	}
	if (!json_object_is_type(root, json_type_object)) {
		ret = kprof_err_set(err, EINVAL, "%s: top level must be an object", origin);
		goto out;
	}
	json_object_object_foreach(root, k, v) {
		if (!strcmp(k, "name"))
			ret = copy_str(v, origin, k, p->name, sizeof(p->name), err);
		else if (!strcmp(k, "description"))
			ret = copy_str(v, origin, k, p->description, sizeof(p->description), err);
		else if (!strcmp(k, "backend"))
			ret = copy_str(v, origin, k, p->backend, sizeof(p->backend), err);
		else if (!strcmp(k, "node"))
			ret = copy_str(v, origin, k, p->node, sizeof(p->node), err);
		else if (!strcmp(k, "handler"))
			ret = copy_str(v, origin, k, p->handler, sizeof(p->handler), err);
		else if (!strcmp(k, "uapi"))
			ret = copy_str(v, origin, k, p->uapi, sizeof(p->uapi), err);
		else if (!strcmp(k, "match"))
			ret = copy_str(v, origin, k, match, sizeof(match), err);
		else if (!strcmp(k, "launch"))
			have_launch = !(ret = parse_ioctl(v, origin, k, &p->launch, err));
		else if (!strcmp(k, "sync"))
			ret = parse_ioctl(v, origin, k, &p->sync, err);
		else if (!strcmp(k, "comment"))
			ret = 0;
		else
			ret = kprof_err_set(err, EINVAL, "%s: unknown key \"%s\"", origin, k);
		if (ret)
			goto out;
	}
	if (!p->name[0] || !p->node[0] || !have_launch) {
		ret = kprof_err_set(err, EINVAL,
				    "%s: \"name\", \"node\" and \"launch\" are required",
				    origin);
		goto out;
	}
	if (!match[0] || !strcmp(match, "exact")) {
		p->cmd_mask = KPROF_PROFILE_MASK_EXACT;
	} else if (!strcmp(match, "type_nr")) {
		p->cmd_mask = KPROF_PROFILE_MASK_TYPE_NR;
	} else {
		ret = kprof_err_set(err, EINVAL, "%s: \"match\" must be \"exact\" or \"type_nr\"",
				    origin);
		goto out;
	}
	if (p->sync.cmd && (p->sync.cmd & p->cmd_mask) == (p->launch.cmd & p->cmd_mask))
		ret = kprof_err_set(err, EINVAL, "%s: launch and sync commands are the same",
				    origin);
out:
	json_object_put(root);
	json_tokener_free(tok);
	return ret;
}

int kprof_profile_load_file(const char *path, struct kprof_profile *p,
			    struct kprof_err *err)
{
	char *buf;
	ssize_t n;
	size_t len = 0;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return kprof_err_set(err, errno, "%s: %s", path, strerror(errno));
	buf = malloc(PROFILE_MAX_BYTES + 1);
	if (!buf) {
		close(fd);
		return kprof_err_set(err, ENOMEM, "out of memory");
	}
	while (len <= PROFILE_MAX_BYTES &&
	       (n = read(fd, buf + len, PROFILE_MAX_BYTES + 1 - len)) > 0)
		len += n;
	if (n < 0)
		ret = kprof_err_set(err, errno, "%s: %s", path, strerror(errno));
	else
		ret = kprof_profile_parse(buf, len, path, p, err);
	free(buf);
	close(fd);
	return ret;
}

static int cmp_profile(const void *a, const void *b)
{
	return strcmp(((const struct kprof_profile *)a)->name,
		      ((const struct kprof_profile *)b)->name);
}

int kprof_profiles_load_dir(const char *dir, struct kprof_profile **out, size_t *n,
			    struct kprof_err *err)
{
	struct kprof_profile *v = NULL, *nv;
	struct dirent **names;
	char path[PATH_MAX];
	size_t cnt = 0;
	int nent, ret = 0;

	*out = NULL;
	*n = 0;
	nent = scandir(dir, &names, NULL, alphasort);
	if (nent < 0)
		return kprof_err_set(err, errno, "profiles directory %s: %s", dir, strerror(errno));
	for (int i = 0; i < nent; i++) {
		const char *nm = names[i]->d_name;
		size_t l = strlen(nm);

		if (ret || l < 6 || strcmp(nm + l - 5, ".json") || nm[0] == '.')
			continue;
		nv = realloc(v, (cnt + 1) * sizeof(*v));
		if (!nv) {
			ret = kprof_err_set(err, ENOMEM, "out of memory");
			continue;
		}
		v = nv;
		snprintf(path, sizeof(path), "%s/%s", dir, nm);
		ret = kprof_profile_load_file(path, &v[cnt], err);
		if (!ret && kprof_profile_find(v, cnt, v[cnt].name))
			ret = kprof_err_set(err, EINVAL, "%s: profile name \"%s\" used twice",
					    path, v[cnt].name);
		if (!ret)
			cnt++;
	}
	for (int i = 0; i < nent; i++)
		free(names[i]);
	free(names);
	if (ret) {
		free(v);
		return ret;
	}
	qsort(v, cnt, sizeof(*v), cmp_profile);
	*out = v;
	*n = cnt;
	return 0;
}

static bool is_dir(const char *p)
{
	struct stat st;

	return !stat(p, &st) && S_ISDIR(st.st_mode);
}

int kprof_profiles_dir(char *buf, size_t len)
{
	const char *env = kprof_env("KPROF_PROFILES");
	char exe[PATH_MAX], *slash;
	static const char *const rel[] = { "../share/kprof/profiles", "../data/profiles" };
	ssize_t n;

	if (env) {
		snprintf(buf, len, "%s", env);
		return is_dir(buf) ? 0 : -ENOENT;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash)
			*slash = '\0';
		for (size_t i = 0; i < ARRAY_SIZE(rel); i++) {
			snprintf(buf, len, "%s/%s", exe, rel[i]);
			if (is_dir(buf))
				return 0;
		}
	}
	snprintf(buf, len, "$KPROF_PROFILES unset, no %s/{%s,%s}", n > 0 ? exe : "?",
		 rel[0], rel[1]);
	return -ENOENT;
}

const struct kprof_profile *kprof_profile_find(const struct kprof_profile *v, size_t n,
					       const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return &v[i];
	return NULL;
}

const struct kprof_profile *kprof_profile_for_backend(const struct kprof_profile *v,
						      size_t n, const char *backend)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].backend[0] && !strcmp(v[i].backend, backend))
			return &v[i];
	return NULL;
}

void kprof_profile_builtin_sim(struct kprof_profile *p)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "kprof_sim");
	snprintf(p->description, sizeof(p->description),
		 "kprof's simulated accelerator (built in)");
	snprintf(p->backend, sizeof(p->backend), "sim");
	snprintf(p->node, sizeof(p->node), "/dev/kprof_sim*");
	/* kmod/sim/kprof_sim_vendor.c: the vendor node's unlocked_ioctl. */
	snprintf(p->handler, sizeof(p->handler), "kprof_sim_vendor_ioctl");
	snprintf(p->uapi, sizeof(p->uapi), "linux/kprof_sim.h");
	p->cmd_mask = KPROF_PROFILE_MASK_EXACT;
	snprintf(p->launch.ioctl, sizeof(p->launch.ioctl), "KPROF_SIM_IOC_LAUNCH");
	p->launch.cmd = KPROF_SIM_IOC_LAUNCH;
	p->launch.seq_off = offsetof(struct kprof_sim_launch, seq);
	p->launch.seq_size = sizeof(((struct kprof_sim_launch *)0)->seq);
	snprintf(p->sync.ioctl, sizeof(p->sync.ioctl), "KPROF_SIM_IOC_SYNC");
	p->sync.cmd = KPROF_SIM_IOC_SYNC;
	p->sync.seq_off = offsetof(struct kprof_sim_sync, seq);
	p->sync.seq_size = sizeof(((struct kprof_sim_sync *)0)->seq);
}

/* ---- ioctl command strings */

static const char *skip_ws(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

/* A number, 'c' or a '+'-sum of those, up to the next ',' or ')'. */
static int parse_term(const char **sp, unsigned long max, unsigned long *out)
{
	const char *s = *sp;
	unsigned long sum = 0, v;
	char *end;

	for (;;) {
		s = skip_ws(s);
		if (s[0] == '\'' && s[1] && s[1] != '\'' && s[2] == '\'') {
			v = (unsigned char)s[1];
			s += 3;
		} else if (isdigit((unsigned char)*s)) {
			errno = 0;
			v = strtoul(s, &end, 0);
			if (errno || end == s)
				return -1;
			s = end;
		} else {
			return -1;
		}
		if (v > max || sum + v > max)
			return -1;
		sum += v;
		s = skip_ws(s);
		if (*s != '+')
			break;
		s++;
	}
	*sp = s;
	*out = sum;
	return 0;
}

int kprof_ioctl_cmd_parse(const char *s, uint32_t *out, struct kprof_err *err)
{
	static const struct {
		const char *name;
		unsigned int dir;
		bool sized;
	} forms[] = {
		/* longest first: "_IOWR(" must not match as "_IOW" + "R(" */
		{ "_IOWR", _IOC_READ | _IOC_WRITE, true },
		{ "_IOR", _IOC_READ, true },
		{ "_IOW", _IOC_WRITE, true },
		{ "_IO", _IOC_NONE, false },
	};
	const char *p = skip_ws(s);
	unsigned long type, nr, size = 0, v;
	char *end;

	if (isdigit((unsigned char)*p)) {
		errno = 0;
		v = strtoul(p, &end, 0);
		if (errno || *skip_ws(end) || v > UINT32_MAX || !v)
			return kprof_err_set(err, EINVAL,
					     "ioctl command '%s' is not a non-zero 32-bit number",
					     s);
		*out = (uint32_t)v;
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(forms); i++) {
		size_t l = strlen(forms[i].name);

		if (strncmp(p, forms[i].name, l) || *skip_ws(p + l) != '(')
			continue;
		p = skip_ws(p + l) + 1;
		if (parse_term(&p, _IOC_TYPEMASK, &type) || *p++ != ',' ||
		    parse_term(&p, _IOC_NRMASK, &nr))
			goto bad;
		if (forms[i].sized) {
			if (*p++ != ',' || parse_term(&p, _IOC_SIZEMASK, &size))
				goto bad;
		}
		if (*p++ != ')' || *skip_ws(p))
			goto bad;
		*out = _IOC(forms[i].dir, type, nr, size);
		return 0;
	}
bad:
	return kprof_err_set(err, EINVAL,
			     "cannot parse ioctl command '%s': give a number (0xc0186444) or _IO(type,nr), _IOR/_IOW/_IOWR(type,nr,size) with numbers, e.g. _IOWR('d', 0x40+0x04, 24); type <= 0xff, nr <= 0xff, size <= 0x3fff",
			     s);
}

int kprof_profile_target(const struct kprof_profile *p, const char *node,
			 struct kprof_bpf_target *t, struct kprof_err *err)
{
	struct stat st;

	if (stat(node, &st))
		return kprof_err_set(err, errno, "%s: %s (the %s profile traces nodes like %s)",
				     node, strerror(errno), p->name, p->node);
	if (!S_ISCHR(st.st_mode))
		return kprof_err_set(err, ENOTTY, "%s is not a character device", node);
	memset(t, 0, sizeof(*t));
	t->dev = st.st_rdev;
	t->cmd_mask = p->cmd_mask;
	t->launch_cmd = p->launch.cmd;
	t->launch_seq_off = p->launch.seq_off;
	t->launch_seq_size = p->launch.seq_size;
	t->sync_cmd = p->sync.cmd;
	t->sync_seq_off = p->sync.seq_off;
	t->sync_seq_size = p->sync.seq_size;
	t->handler = p->handler[0] ? p->handler : NULL;
	return 0;
}

int kprof_profile_from_cli(const char *node, const char *launch, const char *sync,
			   struct kprof_profile *p, struct kprof_err *err)
{
	int ret;

	memset(p, 0, sizeof(*p));
	if (!node || !node[0] || !launch || !launch[0])
		return kprof_err_set(err, EINVAL, "--dev-node and --launch-ioctl are both needed");
	if (strlen(node) >= sizeof(p->node))
		return kprof_err_set(err, ENAMETOOLONG, "--dev-node path too long");
	snprintf(p->name, sizeof(p->name), "custom");
	snprintf(p->description, sizeof(p->description), "from the command line");
	memcpy(p->node, node, strlen(node) + 1);
	p->cmd_mask = KPROF_PROFILE_MASK_EXACT;
	ret = kprof_ioctl_cmd_parse(launch, &p->launch.cmd, err);
	if (!ret && sync && sync[0])
		ret = kprof_ioctl_cmd_parse(sync, &p->sync.cmd, err);
	if (!ret && p->sync.cmd == p->launch.cmd)
		ret = kprof_err_set(err, EINVAL,
				    "--launch-ioctl and --sync-ioctl are the same command");
	return ret;
}
