// SPDX-License-Identifier: GPL-2.0
/*
 * KPROF_* environment variables (kprof_env.c): as root they count only
 * after kprof_env_trust(1) (kprofctl --trust-env); without root always;
 * empty ones never.
 */
#include "kt.h"
#include "kprof_env.h"
#include "kprof_user.h"

#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
	setenv("KPROF_RUN_DIR", "/tmp/elsewhere", 1);
	setenv("KPROF_DEV_DIR", "", 1);
	if (geteuid() == 0) {
		/* the first call decides: root, no opt-in */
		KT_CHECK(!kprof_env("KPROF_RUN_DIR"), "honoured as root");
		KT_CHECK(!kprof_env_trusted(), "trusted as root");
		KT_STR(kprof_env_or("KPROF_RUN_DIR", "/run/kprof"), "/run/kprof");
	}
	kprof_env_trust(1);
	KT_STR(kprof_env("KPROF_RUN_DIR"), "/tmp/elsewhere");
	KT_CHECK(!kprof_env("KPROF_DEV_DIR"), "empty value honoured");
	KT_STR(kprof_env_or("KPROF_DEV_DIR", "/dev"), "/dev");
	KT_CHECK(!kprof_env("KPROF_NOT_SET"), "unset variable");
	kprof_env_trust(0);
	KT_CHECK(!!kprof_env("KPROF_RUN_DIR") == (geteuid() != 0),
		 "without opt-in, honoured exactly when not root");

	/* A process that is not root honours them without opt-in. */
	if (geteuid() == 0) {
		struct kprof_user u;
		struct kprof_err err = { 0 };
		int st = -1;
		pid_t pid;

		KT_CHECK(!kprof_user_parse("4000001", &u, &err), "parse: %s", err.msg);
		pid = fork();
		if (pid == 0) {
			if (kprof_user_become(&u, &err))
				_exit(2);
			kprof_env_trust(0);
			_exit(kprof_env("KPROF_RUN_DIR") ? 0 : 1);
		}
		KT_CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
			 WEXITSTATUS(st) == 0, "not honoured without root: status %d", st);
	}
	return kt_done("test_env");
}
