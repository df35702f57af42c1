// SPDX-License-Identifier: GPL-2.0
/*
 * Which user kprofctl works for (kprof_user.c): --user parsing, the sudo
 * user for a capture's workload, the owner of report/diff files, and the
 * drop itself (in a child: it cannot be undone), checked to be for good.
 * The drop and ownership checks need root (the unit suite runs as root);
 * without it they check that the drop is refused.
 */
#include "kt.h"
#include "kprof_user.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define NO_SUCH_UID	4000001u	/* no passwd entry (checked below) */

static void check_parse(void)
{
	struct kprof_user u;
	struct kprof_err err = { 0 };
	struct passwd *pw = getpwnam("nobody");
	/* copied now: every look-up below reuses getpwnam's buffer */
	uid_t nuid = pw ? pw->pw_uid : 0;
	gid_t ngid = pw ? pw->pw_gid : 0;

	KT_CHECK(!kprof_user_parse("root", &u, &err) && u.uid == 0 && !strcmp(u.name, "root"),
		 "root: %s", err.msg);
	KT_CHECK(!kprof_user_parse("0", &u, &err) && u.uid == 0 && !strcmp(u.name, "root"),
		 "uid 0: %s", err.msg);
	if (pw) {
		char num[32];

		KT_CHECK(!kprof_user_parse("nobody", &u, &err) && u.uid == nuid &&
			 u.gid == ngid && !strcmp(u.name, "nobody") && u.ngroups >= 1,
			 "nobody: %s", err.msg);
		snprintf(num, sizeof(num), "%u", (unsigned int)nuid);
		KT_CHECK(!kprof_user_parse(num, &u, &err) && u.uid == nuid &&
			 !strcmp(u.name, "nobody"), "nobody by number: %s", err.msg);
	}
	KT_CHECK(!getpwuid(NO_SUCH_UID), "uid %u exists here", NO_SUCH_UID);
	KT_CHECK(!kprof_user_parse("4000001", &u, &err) && u.uid == NO_SUCH_UID &&
		 u.gid == NO_SUCH_UID && !u.name[0] && !u.ngroups,
		 "uid without passwd entry: %s", err.msg);
	KT_CHECK(kprof_user_parse("", &u, &err) == -EINVAL, "empty name accepted");
	KT_CHECK(kprof_user_parse("no-such-user-kprof", &u, &err) == -ENOENT &&
		 strstr(err.msg, "no-such-user-kprof"), "unknown name: %s", err.msg);
	KT_CHECK(kprof_user_parse("-1", &u, &err) == -ENOENT, "-1 accepted");
	KT_CHECK(kprof_user_parse("4294967295", &u, &err) == -ENOENT, "(uid_t)-1 accepted");
}

static void check_workload(void)
{
	struct kprof_user u;
	struct kprof_err err = { 0 };

	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
	KT_CHECK(!kprof_user_for_workload(NULL, &u, &err) && u.uid == geteuid() && !u.drop,
		 "no sudo: %s", err.msg);
	setenv("SUDO_UID", "4000001", 1);
	setenv("SUDO_GID", "4000002", 1);
	if (geteuid() == 0) {
		KT_CHECK(!kprof_user_for_workload(NULL, &u, &err) && u.uid == NO_SUCH_UID &&
			 u.gid == 4000002 && u.drop, "sudo user: %s", err.msg);
		/* under sudo --user may name the sudo user, nobody else (not root) */
		KT_CHECK(!kprof_user_for_workload("4000001", &u, &err) && u.uid == NO_SUCH_UID &&
			 u.drop, "--user the sudo user: %s", err.msg);
		KT_CHECK(kprof_user_for_workload("root", &u, &err) == -EPERM &&
			 strstr(err.msg, "under sudo"), "--user root under sudo: %s", err.msg);
		unsetenv("SUDO_UID");
		KT_CHECK(!kprof_user_for_workload("root", &u, &err) && u.uid == 0 && !u.drop,
			 "--user root without sudo: %s", err.msg);
		setenv("SUDO_UID", "0", 1);	/* root ran sudo: root may choose */
		KT_CHECK(!kprof_user_for_workload("4000001", &u, &err) && u.drop,
			 "--user under sudo by root: %s", err.msg);
		setenv("SUDO_UID", "12ab", 1);
		KT_CHECK(kprof_user_for_workload(NULL, &u, &err) == -EINVAL &&
			 strstr(err.msg, "SUDO_UID"), "bad SUDO_UID: %s", err.msg);
	} else {
		/* only root's sudo matters; without root nobody else can be run */
		KT_CHECK(!kprof_user_for_workload(NULL, &u, &err) && u.uid == geteuid() && !u.drop,
			 "SUDO_UID without root: %s", err.msg);
		KT_CHECK(kprof_user_for_workload("root", &u, &err) == -EPERM,
			 "--user root without root");
	}
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
}

/* In a child: become u, then report what the ids are and whether root comes back. */
static void check_become(const struct kprof_user *u)
{
	struct kprof_err err = { 0 };
	pid_t pid = fork();
	int st = 0;

	if (pid == 0) {
		uid_t r, e, s;
		gid_t g[KPROF_USER_GROUPS_MAX + 1];
		int n;

		if (kprof_user_become(u, &err)) {
			fprintf(stderr, "become: %s\n", err.msg);
			_exit(geteuid() == 0 ? 10 : 20);
		}
		if (getresuid(&r, &e, &s) || r != u->uid || e != u->uid || s != u->uid)
			_exit(11);
		if (getegid() != u->gid || getgid() != u->gid)
			_exit(12);
		n = getgroups(KPROF_USER_GROUPS_MAX + 1, g);
		if (n != u->ngroups)
			_exit(13);
		for (int i = 0; i < n; i++)
			if (g[i] == 0 && u->gid != 0)
				_exit(14);	/* root's group kept */
		if (setuid(0) == 0 || seteuid(0) == 0 || setgid(0) == 0)
			_exit(15);
		_exit(0);
	}
	KT_CHECK(pid > 0 && waitpid(pid, &st, 0) == pid, "fork/wait");
	if (geteuid() == 0)
		KT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "become uid %u: child status %d",
			 (unsigned int)u->uid, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	else
		KT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 20, "drop without root: status %d",
			 WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

static void check_owner(void)
{
	char *tmp = kt_tmpdir();
	char a[300], b[300], missing[400], link[300];
	const char *p[2];
	struct kprof_user u;
	struct kprof_err err = { 0 };
	int r;

	snprintf(a, sizeof(a), "%s/a", tmp);
	snprintf(b, sizeof(b), "%s/b", tmp);
	snprintf(missing, sizeof(missing), "%s/new/deeper", a);
	snprintf(link, sizeof(link), "%s/link", tmp);
	KT_CHECK(!mkdir(a, 0755) && !mkdir(b, 0755), "mkdir");
	p[0] = a;
	p[1] = b;
	r = kprof_user_owner_of(p, 2, &u, &err);
	KT_CHECK(r == (geteuid() != 0), "own files: %d (%s)", r, err.msg);
	if (geteuid() != 0) {
		kt_rmrf(tmp);
		return;
	}
	KT_CHECK(!chown(a, NO_SUCH_UID, 777), "chown");
	r = kprof_user_owner_of(p, 2, &u, &err);
	KT_CHECK(r == 1 && u.uid == NO_SUCH_UID && u.gid == 777, "one user's: %d %u (%s)", r,
		 (unsigned int)u.uid, err.msg);
	/* an output not made yet counts as the directory it goes in */
	p[0] = missing;
	p[1] = NULL;
	r = kprof_user_owner_of(p, 1, &u, &err);
	KT_CHECK(r == 1 && u.uid == NO_SUCH_UID, "missing path: %d (%s)", r, err.msg);
	/* two users: refused */
	KT_CHECK(!chown(b, NO_SUCH_UID + 1, 0), "chown");
	p[0] = a;
	p[1] = b;
	r = kprof_user_owner_of(p, 2, &u, &err);
	KT_CHECK(r == -EPERM && strstr(err.msg, "4000001") && strstr(err.msg, "4000002"),
		 "two owners: %d (%s)", r, err.msg);
	/* a symbolic link of another user to root's directory: the link counts */
	KT_CHECK(!chown(b, 0, 0) && !symlink(b, link) && !lchown(link, NO_SUCH_UID, 0),
		 "link");
	p[0] = link;
	r = kprof_user_owner_of(p, 1, &u, &err);
	KT_CHECK(r == 1 && u.uid == NO_SUCH_UID, "link owner: %d (%s)", r, err.msg);
	kt_rmrf(tmp);
}

int main(void)
{
	struct kprof_user u;
	struct kprof_err err = { 0 };

	check_parse();
	check_workload();
	check_owner();
	if (!kprof_user_parse("nobody", &u, &err))
		check_become(&u);
	KT_CHECK(!kprof_user_parse("4000001", &u, &err), "parse: %s", err.msg);
	check_become(&u);
	KT_CHECK(!kprof_user_parse("root", &u, &err) && kprof_user_become(&u, &err) == -EINVAL,
		 "'drop' to root accepted");
	return kt_done("test_user");
}
