// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kprofctl capture's workload process (capture_child.h).
 *
 * In the child, the order matters: its own process group first; then the
 * drop to the user (which clears PR_SET_PDEATHSIG, so that comes after);
 * then the parent-death signal and the check that the parent did not die
 * before it was armed; then the wait for the release and exec.
 */
#include "capture_child.h"
#include "kprofctl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define KILL_GRACE_MS	2000	/* SIGTERM to SIGKILL */
#define REAP_MAX_MS	5000	/* after SIGKILL: a process in D state */
#define POLL_MS		20

/* What the child reports on the close-on-exec pipe when it fails. */
enum { CHILD_EXEC = 1, CHILD_SETUP };

struct child_report {
	int stage;
	int err;
	char msg[240];
};

static void report(int fd, int stage, int e, const char *msg)
{
	struct child_report r = { .stage = stage, .err = e };

	snprintf(r.msg, sizeof(r.msg), "%s", msg ? msg : "");
	if (write(fd, &r, sizeof(r)) < 0)
		_exit(127);
}

/* Everything between fork and exec; never returns. */
static void child_main(char **argv, const struct kprof_user *as, const sigset_t *mask,
		       pid_t parent, int go, int ex)
{
	struct kprof_err err = { 0 };
	ssize_t n;
	char b;
	int e;

	setpgid(0, 0);
	sigprocmask(SIG_SETMASK, mask, NULL);
	signal(SIGPIPE, SIG_DFL);
	if (as->drop) {
		if (kprof_user_become(as, &err)) {
			report(ex, CHILD_SETUP, err.code, err.msg);
			_exit(126);
		}
		/* what a login as that user would have; the rest is the caller's */
		if (as->name[0]) {
			setenv("USER", as->name, 1);
			setenv("LOGNAME", as->name, 1);
		}
		if (as->home[0])
			setenv("HOME", as->home, 1);
	}
	if (prctl(PR_SET_PDEATHSIG, SIGKILL)) {
		report(ex, CHILD_SETUP, errno, "prctl(PR_SET_PDEATHSIG)");
		_exit(126);
	}
	if (getppid() != parent)
		_exit(125);	/* kprofctl died before the signal was armed */
	do {
		n = read(go, &b, 1);
	} while (n < 0 && errno == EINTR);
	if (n != 1)
		_exit(125);	/* kprofctl gave up before releasing us */
	execvp(argv[0], argv);
	e = errno;
	report(ex, CHILD_EXEC, e, NULL);
	_exit(e == ENOENT ? 127 : 126);
}

int capture_child_fork(struct capture_child *ch, char **argv,
		       const struct kprof_user *as, const sigset_t *mask)
{
	pid_t parent = getpid(), pid;
	int go[2], ex[2];

	memset(ch, 0, sizeof(*ch));
	ch->pid = -1;
	ch->go_fd = -1;
	ch->ex_fd = -1;
	if (pipe2(go, O_CLOEXEC))
		goto pipe_fail;
	if (pipe2(ex, O_CLOEXEC)) {
		close(go[0]);
		close(go[1]);
		goto pipe_fail;
	}
	fflush(NULL);	/* no buffered output written twice */
	pid = fork();
	if (pid < 0) {
		kprofctl_err("fork: %s", strerror(errno));
		close(go[0]);
		close(go[1]);
		close(ex[0]);
		close(ex[1]);
		return -1;
	}
	if (pid == 0) {
		close(go[1]);
		close(ex[0]);
		child_main(argv, as, mask, parent, go[0], ex[1]);
	}
	/* Both sides set the group: whichever runs first, it is set before release. */
	setpgid(pid, pid);
	close(go[0]);
	close(ex[1]);
	ch->pid = pid;
	ch->go_fd = go[1];
	ch->ex_fd = ex[0];
	return 0;
pipe_fail:
	kprofctl_err("pipe: %s", strerror(errno));
	return -1;
}

int capture_child_release(struct capture_child *ch, const char *cmd)
{
	struct child_report r;
	ssize_t n;

	if (write(ch->go_fd, "g", 1) != 1)
		kprofctl_err("cannot release the command: %s", strerror(errno));
	close(ch->go_fd);
	ch->go_fd = -1;
	do {
		n = read(ch->ex_fd, &r, sizeof(r));
	} while (n < 0 && errno == EINTR);
	close(ch->ex_fd);
	ch->ex_fd = -1;
	if (n != (ssize_t)sizeof(r))
		return 0;	/* closed by a successful exec */
	/* it exits right after the report: collect it, so it is not "stopped" later */
	if (waitpid(ch->pid, &ch->status, 0) == ch->pid)
		ch->exited = 1;
	r.msg[sizeof(r.msg) - 1] = '\0';
	if (r.stage == CHILD_SETUP) {
		ch->setup_errno = r.err ? r.err : EPERM;
		kprofctl_err("cannot run %s as the workload's user: %s", cmd, r.msg);
		return ch->setup_errno;
	}
	ch->exec_errno = r.err ? r.err : ENOEXEC;
	if (ch->exec_errno == ENOENT)
		kprofctl_err("%s: command not found", cmd);
	else
		kprofctl_err("%s: cannot execute: %s", cmd, strerror(ch->exec_errno));
	return ch->exec_errno;
}

void capture_child_reap(struct capture_child *ch)
{
	int st;
	pid_t p;

	while (ch->pid > 0 && !ch->exited) {
		p = waitpid(ch->pid, &st, WNOHANG | WUNTRACED);
		if (p != ch->pid)
			break;
		if (WIFSTOPPED(st)) {
			/* Not the terminal's foreground group: reading it stops us. */
			if ((WSTOPSIG(st) == SIGTTIN || WSTOPSIG(st) == SIGTTOU) &&
			    !ch->tty_stopped) {
				ch->tty_stopped = 1;
				kprofctl_warn("the command (pid %d) was stopped using the terminal: it runs in its own process group, without the terminal; give it input from a file (< FILE); Ctrl-C ends the capture",
					      (int)ch->pid);
			}
			continue;
		}
		ch->status = st;
		ch->exited = 1;
	}
}

void capture_child_signal(struct capture_child *ch, int sig)
{
	if (ch->pid > 0)
		killpg(ch->pid, sig);
}

/* Anything left in the group (the workload reaped first: a zombie counts). */
static int group_alive(struct capture_child *ch)
{
	capture_child_reap(ch);
	return ch->pid > 0 && (killpg(ch->pid, 0) == 0 || errno == EPERM);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Wait up to ms for the group to empty; 1 if it did. */
static int wait_gone(struct capture_child *ch, int ms, void (*tick)(void *), void *ctx)
{
	for (int t = 0; t < ms; t += POLL_MS) {
		if (!group_alive(ch))
			return 1;
		if (tick)
			tick(ctx);
		sleep_ms(POLL_MS);
	}
	return !group_alive(ch);
}

void capture_child_stop(struct capture_child *ch, const char *why,
			void (*tick)(void *), void *ctx)
{
	if (!group_alive(ch))
		return;
	fprintf(stderr, "kprofctl: stopping the workload (pid %d): %s\n", (int)ch->pid, why);
	capture_child_signal(ch, SIGTERM);
	capture_child_signal(ch, SIGCONT);	/* a stopped process acts on it only then */
	if (wait_gone(ch, KILL_GRACE_MS, tick, ctx))
		return;
	fprintf(stderr, "kprofctl: the workload did not end within %d ms of SIGTERM: SIGKILL\n",
		KILL_GRACE_MS);
	capture_child_signal(ch, SIGKILL);
	if (!wait_gone(ch, REAP_MAX_MS, tick, ctx))
		kprofctl_warn("processes of the workload (process group %d) are still there %d ms after SIGKILL (uninterruptible sleep?)",
			      (int)ch->pid, REAP_MAX_MS);
}

void capture_child_abandon(struct capture_child *ch)
{
	if (ch->go_fd >= 0)
		close(ch->go_fd);
	if (ch->ex_fd >= 0)
		close(ch->ex_fd);
	ch->go_fd = -1;
	ch->ex_fd = -1;
	if (ch->pid > 0 && !ch->exited) {
		/* it is only kprofctl's own code so far: no grace needed */
		kill(ch->pid, SIGKILL);
		if (waitpid(ch->pid, &ch->status, 0) == ch->pid)
			ch->exited = 1;
	}
}
