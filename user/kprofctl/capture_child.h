/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kprofctl capture's workload: fork, drop to the user it runs as, hold it
 * until the capture is ready, exec, and end it (with everything it
 * started in its process group) on every way kprofctl ends.
 *
 * The workload is its own process group, so that it and its children can
 * be signalled as one; it does not get the terminal (Ctrl-C reaches
 * kprofctl, which passes it on). It dies with kprofctl
 * (PR_SET_PDEATHSIG SIGKILL), also when kprofctl is killed with SIGKILL.
 */
#ifndef CAPTURE_CHILD_H
#define CAPTURE_CHILD_H

#include <signal.h>
#include <sys/types.h>

#include "kprof_user.h"

struct capture_child {
	pid_t pid;		/* also its process group; -1: none */
	int go_fd;		/* release pipe, until released */
	int ex_fd;		/* failure report pipe, until released */
	int status;		/* waitpid status, valid when exited */
	int exited;
	int exec_errno;		/* CMD could not be executed */
	int setup_errno;	/* could not become the user (or set up) */
	int tty_stopped;	/* the terminal stopped it: said once */
};

/*
 * Fork argv[0], held until capture_child_release(). With as->drop the
 * child becomes that user before it waits; its signal mask is set to
 * *mask. 0, or -1 after saying why on stderr.
 */
int capture_child_fork(struct capture_child *ch, char **argv,
		       const struct kprof_user *as, const sigset_t *mask);

/*
 * Let it exec. 0, or the errno of what failed (exec_errno or
 * setup_errno is set; the message is on stderr).
 */
int capture_child_release(struct capture_child *ch, const char *cmd);

/* Collect its exit status if it has exited (never waits). */
void capture_child_reap(struct capture_child *ch);

/* Send sig to its whole process group. */
void capture_child_signal(struct capture_child *ch, int sig);

/*
 * End the whole process group if anything in it still runs: say so
 * ("kprofctl: stopping the workload (pid N): <why>"), SIGTERM, a bounded
 * grace period (tick(ctx) is called every few ms meanwhile, to keep
 * draining), then SIGKILL; reap the workload.
 */
void capture_child_stop(struct capture_child *ch, const char *why,
			void (*tick)(void *), void *ctx);

/* Set-up failed before release: it never runs CMD; kill and reap it. */
void capture_child_abandon(struct capture_child *ch);

#endif /* CAPTURE_CHILD_H */
