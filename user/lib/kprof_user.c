// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Which user kprofctl works for, and dropping root to become it (kprof_user.h). */
#include "kprof_user.h"

#include <errno.h>
#include <grp.h>
#include <libgen.h>
#include <limits.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/fsuid.h>
#include <unistd.h>

/* Strict decimal id: digits only, below (uid_t)-1 (which means "none"). */
static int parse_id(const char *s, unsigned int *out)
{
	unsigned long long v;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v >= UINT32_MAX)
		return -1;
	*out = (unsigned int)v;
	return 0;
}

int kprof_user_from_ids(uid_t uid, gid_t gid, struct kprof_user *u,
			struct kprof_err *err)
{
	struct passwd *pw;

	memset(u, 0, sizeof(*u));
	u->uid = uid;
	u->gid = gid;
	errno = 0;
	pw = getpwuid(uid);
	if (!pw) {
		if (errno && errno != ENOENT && errno != ESRCH)
			return kprof_err_set(err, errno, "cannot look up uid %u: %s",
					     (unsigned int)uid, strerror(errno));
		return 0;	/* no passwd entry: no name, no groups */
	}
	if (strlen(pw->pw_name) >= sizeof(u->name))
		return kprof_err_set(err, ENAMETOOLONG, "user name of uid %u is too long",
				     (unsigned int)uid);
	strcpy(u->name, pw->pw_name);
	if (strlen(pw->pw_dir) < sizeof(u->home))
		strcpy(u->home, pw->pw_dir);
	u->gid = pw->pw_gid;
	u->ngroups = KPROF_USER_GROUPS_MAX;
	if (getgrouplist(u->name, u->gid, u->groups, &u->ngroups) < 0)
		return kprof_err_set(err, E2BIG, "user %s is in more than %d groups",
				     u->name, KPROF_USER_GROUPS_MAX);
	return 0;
}

int kprof_user_parse(const char *spec, struct kprof_user *u, struct kprof_err *err)
{
	struct passwd *pw;
	unsigned int id;

	if (!spec || !*spec)
		return kprof_err_set(err, EINVAL, "empty user name");
	if (!parse_id(spec, &id))
		return kprof_user_from_ids((uid_t)id, (gid_t)id, u, err);
	errno = 0;
	pw = getpwnam(spec);
	if (!pw)
		return kprof_err_set(err, ENOENT,
				     "no user '%s' (give a user name or a numeric uid)",
				     spec);
	return kprof_user_from_ids(pw->pw_uid, pw->pw_gid, u, err);
}

int kprof_user_for_workload(const char *spec, struct kprof_user *u,
			    struct kprof_err *err)
{
	uid_t euid = geteuid();
	unsigned int id = 0, gid = 0;
	const char *s;
	int r;

	/*
	 * sudo sets SUDO_UID/SUDO_GID to the invoking user. Honouring them
	 * as root can only take privileges away, so they need no opt-in.
	 */
	s = getenv("SUDO_UID");
	if (euid == 0 && s && *s && parse_id(s, &id))
		return kprof_err_set(err, EINVAL,
				     "SUDO_UID='%s' is not a uid; unset it (env -u SUDO_UID)", s);
	if (spec) {
		r = kprof_user_parse(spec, u, err);
		if (r)
			return r;
		if (euid != 0 && u->uid != euid)
			return kprof_err_set(err, EPERM,
					     "--user %s: only root can run the command as another user",
					     spec);
		/* else a sudo rule for kprofctl would hand out every user, root too */
		if (euid == 0 && s && *s && id != 0 && u->uid != (uid_t)id)
			return kprof_err_set(err, EPERM,
					     "--user %s: under sudo the command runs as the user who ran sudo (uid %u) and no other; as root without sudo (env -u SUDO_UID) any user can be given",
					     spec, id);
		u->drop = euid == 0 && u->uid != 0;
		return 0;
	}
	if (euid == 0 && s && *s) {
		s = getenv("SUDO_GID");
		if (s && *s && parse_id(s, &gid))
			return kprof_err_set(err, EINVAL,
					     "SUDO_GID='%s' is not a gid; unset it, or give --user",
					     s);
		r = kprof_user_from_ids((uid_t)id, s && *s ? (gid_t)gid : (gid_t)id, u, err);
		if (r)
			return r;
		/* SUDO_GID is what sudo saw; it wins over passwd's primary group */
		if (s && *s)
			u->gid = (gid_t)gid;
		u->drop = u->uid != 0;
		return 0;
	}
	r = kprof_user_from_ids(euid, getegid(), u, err);
	if (!r)
		u->gid = getegid();
	return r;
}

int kprof_user_become(const struct kprof_user *u, struct kprof_err *err)
{
	uid_t r, e, s;
	gid_t rg, eg, sg;

	if (u->uid == 0)
		return kprof_err_set(err, EINVAL, "refusing to 'drop' to root");
	if (setgroups((size_t)u->ngroups, u->ngroups ? u->groups : NULL))
		return kprof_err_set(err, errno, "setgroups: %s", strerror(errno));
	if (setresgid(u->gid, u->gid, u->gid))
		return kprof_err_set(err, errno, "setresgid(%u): %s", (unsigned int)u->gid,
				     strerror(errno));
	if (setresuid(u->uid, u->uid, u->uid))
		return kprof_err_set(err, errno, "setresuid(%u): %s", (unsigned int)u->uid,
				     strerror(errno));
	if (getresuid(&r, &e, &s) || r != u->uid || e != u->uid || s != u->uid ||
	    getresgid(&rg, &eg, &sg) || rg != u->gid || eg != u->gid || sg != u->gid)
		return kprof_err_set(err, EPERM, "the user and group ids did not all change");
	/* No way back: with every uid non-zero the capabilities are gone. */
	if (setresuid(0, 0, 0) == 0 || setresgid(0, 0, 0) == 0 || setgroups(0, NULL) == 0)
		return kprof_err_set(err, EPERM, "root could be regained after dropping it");
	return 0;
}

/* Owner of p (and of a symlink's target); 0 with *none = 1 when p is missing. */
static int owners(const char *p, uid_t *link_uid, uid_t *uid, int *none,
		  struct kprof_err *err)
{
	struct stat st;

	*none = 0;
	if (lstat(p, &st)) {
		if (errno == ENOENT) {
			*none = 1;
			return 0;
		}
		return kprof_err_set(err, errno, "%s: %s", p, strerror(errno));
	}
	*link_uid = *uid = st.st_uid;
	if (S_ISLNK(st.st_mode)) {
		if (stat(p, &st)) {
			if (errno == ENOENT) {
				*none = 1;	/* dangling: its directory decides */
				return 0;
			}
			return kprof_err_set(err, errno, "%s: %s", p, strerror(errno));
		}
		*uid = st.st_uid;
	}
	return 0;
}

static int note_owner(uid_t uid, gid_t gid, const char *p, struct kprof_user *u,
		      char *who, size_t wlen, int *found, struct kprof_err *err)
{
	if (uid == 0)
		return 0;
	if (*found && u->uid != uid)
		return kprof_err_set(err, EPERM, "%s belongs to uid %u but %s to uid %u",
				     who, (unsigned int)u->uid, p, (unsigned int)uid);
	if (!*found) {
		int r = kprof_user_from_ids(uid, gid, u, err);

		if (r)
			return r;
		snprintf(who, wlen, "%s", p);
		*found = 1;
	}
	return 0;
}

int kprof_user_owner_of(const char *const *paths, size_t n, struct kprof_user *u,
			struct kprof_err *err)
{
	char who[PATH_MAX] = "", cur[PATH_MAX], *d;
	int found = 0, none, r;
	struct stat st;
	uid_t lu = 0, tu = 0;

	memset(u, 0, sizeof(*u));
	for (size_t i = 0; i < n; i++) {
		if (snprintf(cur, sizeof(cur), "%s", paths[i]) >= (int)sizeof(cur))
			return kprof_err_set(err, ENAMETOOLONG, "path too long: %.64s...",
					     paths[i]);
		for (;;) {
			r = owners(cur, &lu, &tu, &none, err);
			if (r)
				return r;
			if (!none)
				break;
			/* the nearest existing parent is where it would be made */
			if (!strcmp(cur, "/") || !strcmp(cur, "."))
				break;
			d = dirname(cur);
			memmove(cur, d, strlen(d) + 1);
		}
		if (none)
			continue;
		st.st_gid = 0;
		if (stat(cur, &st))
			st.st_gid = (gid_t)tu;
		r = note_owner(lu, st.st_gid, cur, u, who, sizeof(who), &found, err);
		if (!r && tu != lu)
			r = note_owner(tu, st.st_gid, cur, u, who, sizeof(who), &found, err);
		if (r)
			return r;
	}
	return found;
}

void kprof_fsid_enter(uid_t uid, gid_t gid, struct kprof_fsid *old)
{
	/* group first: with the uid switched, a non-root fsuid could not */
	old->gid = setfsgid(gid);
	old->uid = setfsuid(uid);
}

void kprof_fsid_leave(const struct kprof_fsid *old)
{
	setfsuid((uid_t)old->uid);
	setfsgid((gid_t)old->gid);
}
