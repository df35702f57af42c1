// SPDX-License-Identifier: GPL-2.0
/*
 * kprof_gpu_hold: a GPU held once; a second hold of the same key fails
 * naming the holder (this process: its pid and comm), another key is
 * free, a released key can be held again, and a holder that dies
 * releases it (a child holds, exits; the parent then holds).
 */
#include "kt.h"

#include <errno.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kprof_gpu_hold.h"

int main(void)
{
	struct kprof_err err = { 0 };
	char key[96], other[96], comm[32], self[32] = "";
	pid_t pid = 0, child;
	FILE *f = fopen("/proc/self/comm", "r");
	int a, b, c, st, p[2];

	if (f) {
		if (fgets(self, sizeof(self), f))
			self[strcspn(self, "\n")] = '\0';
		fclose(f);
	}
	/* keys of this run only: tests running side by side do not meet */
	snprintf(key, sizeof(key), "GPU-test-%d-a", (int)getpid());
	snprintf(other, sizeof(other), "GPU-test-%d-b", (int)getpid());
	a = kprof_gpu_hold(key, &pid, comm, sizeof(comm), &err);
	KT_CHECK(a >= 0, "first hold: %d %s", a, err.msg);
	b = kprof_gpu_hold(key, &pid, comm, sizeof(comm), &err);
	KT_CHECK(b == -EBUSY, "second hold refused: %d", b);
	KT_EQ_U64(pid, getpid());
	KT_STR(comm, self);
	c = kprof_gpu_hold(other, &pid, comm, sizeof(comm), &err);
	KT_CHECK(c >= 0, "another GPU is free: %d %s", c, err.msg);
	kprof_gpu_release(c);
	kprof_gpu_release(a);
	a = kprof_gpu_hold(key, &pid, comm, sizeof(comm), &err);
	KT_CHECK(a >= 0, "held again after release: %d %s", a, err.msg);
	kprof_gpu_release(a);

	/* a holder that exits without releasing */
	KT_CHECK(!pipe(p), "pipe");
	child = fork();
	if (child == 0) {
		char x = 0;
		int fd = kprof_gpu_hold(other, &pid, comm, sizeof(comm), &err);

		(void)!write(p[1], &x, 1);
		_exit(fd >= 0 ? 0 : 1);
	}
	{
		char x;

		(void)!read(p[0], &x, 1);
	}
	waitpid(child, &st, 0);
	KT_CHECK(WIFEXITED(st) && !WEXITSTATUS(st), "child held it");
	c = kprof_gpu_hold(other, &pid, comm, sizeof(comm), &err);
	KT_CHECK(c >= 0, "released by the holder's exit: %d %s", c, err.msg);
	kprof_gpu_release(c);
	close(p[0]);
	close(p[1]);
	return kt_done("test_gpu_hold");
}
