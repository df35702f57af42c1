/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Which user kprofctl works for, and dropping root to become that user.
 *
 * kprofctl runs as root for BPF and clocks, but what it runs and reads on
 * a user's behalf must not be root's: the workload of `sudo kprofctl
 * capture -- CMD` runs as the sudo user (or --user), and report/diff as
 * root on a directory someone else owns run as that owner. The drop is
 * setgroups (initgroups for a named user), setresgid, setresuid, each
 * checked, then a check that uid 0 cannot be regained. docs/security.md.
 */
#ifndef KPROF_USER_H
#define KPROF_USER_H

#include <stddef.h>
#include <sys/types.h>

#define KPROF_USER_GROUPS_MAX	256

#include "kprof_err.h"

struct kprof_user {
	uid_t uid;
	gid_t gid;		/* primary group */
	char name[64];		/* passwd name; "" when the uid has none */
	char home[256];		/* passwd home; "" when unknown */
	int ngroups;		/* supplementary groups (from /etc/group) */
	gid_t groups[KPROF_USER_GROUPS_MAX];
	int drop;		/* 1: a root process must become this user */
};

/*
 * User from "NAME" or a numeric "UID" (one without a passwd entry is
 * accepted by number: gid = uid then). 0 or -errno with err.
 */
int kprof_user_parse(const char *spec, struct kprof_user *u, struct kprof_err *err);

/*
 * The user a uid stands for: name, home, primary group and supplementary
 * groups from passwd/group; gid is used when the uid has no passwd entry
 * (no supplementary groups then). 0 or -errno with err.
 */
int kprof_user_from_ids(uid_t uid, gid_t gid, struct kprof_user *u,
			struct kprof_err *err);

/*
 * Who a capture's workload runs as, and so who should own its outputs:
 *   spec (--user NAME|UID) when given;
 *   else, with effective uid 0, the sudo user (SUDO_UID/SUDO_GID, set by
 *   sudo; trusting them can only lower privileges);
 *   else the current (effective) user.
 * u->drop is 1 when this process is root and the user is not (the child
 * must drop privileges before exec). Refused (-EPERM): a --user other
 * than oneself without root, and under sudo (SUDO_UID set, not 0) a
 * --user other than the sudo user. 0 or -errno with err.
 *
 * The owner of the capture's output directory is u->uid/u->gid: the
 * output-directory layer takes them from here.
 */
int kprof_user_for_workload(const char *spec, struct kprof_user *u,
			    struct kprof_err *err);

/*
 * Become u for good (this process): setgroups (u's supplementary groups,
 * looked up beforehand), setresgid, setresuid, every step checked, then
 * checks that every id is u's and that uid and gid 0 cannot be regained.
 * System calls only, so a child may call it between fork and exec.
 * 0 or -errno with err naming the step that failed.
 */
int kprof_user_become(const struct kprof_user *u, struct kprof_err *err);

/*
 * The one user other than root that owns the given paths: for each path,
 * the owner of the path itself (a symlink's own owner counts) and of what
 * it names; a path that does not exist counts as its nearest existing
 * parent (an output about to be created there). Returns 1 with *u set when
 * some path is not root's, 0 when all are root's, -EPERM when two users
 * own them (err names both), -errno when a path cannot be examined.
 */
int kprof_user_owner_of(const char *const *paths, size_t n, struct kprof_user *u,
			struct kprof_err *err);

/*
 * Files opened or made between kprof_fsid_enter and kprof_fsid_leave are
 * checked and owned as uid/gid (setfsuid/setfsgid, this thread only):
 * root working for a user reads and makes only what that user could.
 * Nothing changes when not root. old keeps the previous ids.
 */
struct kprof_fsid {
	int uid, gid;
};

void kprof_fsid_enter(uid_t uid, gid_t gid, struct kprof_fsid *old);
void kprof_fsid_leave(const struct kprof_fsid *old);

#endif /* KPROF_USER_H */
