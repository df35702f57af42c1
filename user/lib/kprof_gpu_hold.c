// SPDX-License-Identifier: GPL-2.0
/* One capture per NVIDIA GPU (kprof_gpu_hold.h). */
#include "kprof_gpu_hold.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define HOLD_PREFIX	"kprof-capture:"

/* The abstract address of key: a NUL, then the name; its length. */
static socklen_t addr_of(const char *key, struct sockaddr_un *a)
{
	int n;

	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	n = snprintf(a->sun_path + 1, sizeof(a->sun_path) - 1, HOLD_PREFIX "%s", key);
	if (n < 0 || (size_t)n >= sizeof(a->sun_path) - 1)
		n = (int)sizeof(a->sun_path) - 2;
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

/* Who holds it: connect and ask the kernel for the listener's pid. */
static void holder(const struct sockaddr_un *a, socklen_t len, pid_t *pid, char *comm,
		   size_t comm_len)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	struct ucred cr;
	socklen_t cl = sizeof(cr);
	char path[64];
	ssize_t n;
	int cf;

	*pid = 0;
	if (comm_len)
		comm[0] = '\0';
	if (fd < 0)
		return;
	if (!connect(fd, (const struct sockaddr *)a, len) &&
	    !getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &cl))
		*pid = cr.pid;
	close(fd);
	if (!*pid || !comm_len)
		return;
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)*pid);
	cf = open(path, O_RDONLY | O_CLOEXEC);
	if (cf < 0)
		return;
	n = read(cf, comm, comm_len - 1);
	close(cf);
	if (n < 0)
		n = 0;
	comm[n] = '\0';
	comm[strcspn(comm, "\n")] = '\0';
}

int kprof_gpu_hold(const char *key, pid_t *pid, char *comm, size_t comm_len,
		   struct kprof_err *err)
{
	struct sockaddr_un a;
	socklen_t len = addr_of(key, &a);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return kprof_err_set(err, errno, "socket: %s", strerror(errno));
	if (bind(fd, (const struct sockaddr *)&a, len)) {
		int e = errno;

		close(fd);
		if (e != EADDRINUSE)
			return kprof_err_set(err, e, "holding %s: %s", key, strerror(e));
		holder(&a, len, pid, comm, comm_len);
		return -EBUSY;
	}
	if (listen(fd, 8)) {
		int e = errno;

		close(fd);
		return kprof_err_set(err, e, "holding %s: listen: %s", key, strerror(e));
	}
	return fd;
}

void kprof_gpu_release(int fd)
{
	if (fd >= 0)
		close(fd);
}
