// SPDX-License-Identifier: GPL-2.0
/*
 * A reader stalled inside read() (its copy_to_user() held up by a
 * userfaultfd page nobody serves) holds the ring's consumer lock. Another
 * process sharing the fd that waits for that lock in RING_CONSUME must
 * still die at SIGKILL, not sit in uninterruptible sleep until the stalled
 * reader lets go.
 */
#include <linux/userfaultfd.h>
#include <pthread.h>

#include "kprof_test_util.h"
#include "kprof_harness.h"

#define NS_5S	5000000000ULL

/* The state letter of /proc/PID/stat, or 0. */
static char proc_state(pid_t pid)
{
	char path[64], buf[512], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (kt_read_file(path, buf, sizeof(buf)) <= 0)
		return 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

struct stalled_read {
	int fd;
	void *buf;
	size_t len;
	ssize_t ret;
};

static void *do_read(void *arg)
{
	struct stalled_read *r = arg;

	r->ret = read(r->fd, r->buf, r->len);
	return NULL;
}

FIXTURE(kill) {
	int fd, simfd, uffd;
};

FIXTURE_SETUP(kill)
{
	struct uffdio_api api = { .api = UFFD_API };

	self->fd = kt_open_dev(0);
	ASSERT_LE(0, self->fd);
	self->simfd = kt_open_sim(0);
	ASSERT_LE(0, self->simfd);
	self->uffd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	ASSERT_LE(0, self->uffd) TH_LOG("userfaultfd: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(self->uffd, UFFDIO_API, &api));
}

FIXTURE_TEARDOWN(kill)
{
	if (self->uffd >= 0)
		close(self->uffd);
	kt_stop(self->fd);
	kt_sync_all(self->simfd, NS_5S);
	close(self->simfd);
	close(self->fd);
}

TEST_F_TIMEOUT(kill, consume_waiting_on_stalled_read_dies, 120)
{
	size_t pg = KT_PAGE_SIZE, len = 16 * pg;
	struct stalled_read r = { .fd = self->fd, .len = len };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };
	int go[2], st = -1;
	pthread_t th;
	uint64_t pos = 0;
	pid_t pid;
	char c = 0;

	ASSERT_EQ(0, kt_start(self->fd, 0, KPROF_RING_SIZE_MIN, 0));
	ASSERT_LT(0, kt_launch(self->simfd, "kill", 0, 2, KT_SMALL_FLOPS,
			       KT_SMALL_BYTES, 0));
	ASSERT_EQ(0, kt_sync_all(self->simfd, NS_5S));

	/* The consumer-to-be shares the fd: same file, same capture. */
	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		kt_ioctl(self->fd, KPROF_IOC_RING_CONSUME, &pos);
		_exit(0);
	}

	/* read() into pages nobody will fill: it stalls holding the lock. */
	r.buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, r.buf);
	reg.range.start = (uintptr_t)r.buf;
	reg.range.len = len;
	ASSERT_EQ(0, ioctl(self->uffd, UFFDIO_REGISTER, &reg));
	ASSERT_EQ(0, pthread_create(&th, NULL, do_read, &r));
	kt_sleep_ms(300);

	ASSERT_EQ(1, write(go[1], &c, 1));
	/* Wait until the child sleeps on the lock (D: killable or not). */
	for (int i = 0; i < 3000 && proc_state(pid) != 'D'; i++)
		kt_sleep_ms(10);
	EXPECT_EQ('D', proc_state(pid));
	ASSERT_EQ(0, kill(pid, SIGKILL));
	/*
	 * Never, before the fix: it waits for the reader, which waits for
	 * us. 30 s is room for a debug kernel, not a measurement.
	 */
	for (int i = 0; i < 3000; i++) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			break;
		kt_sleep_ms(10);
	}
	EXPECT_TRUE(st != -1 && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL)
		TH_LOG("the child did not die at SIGKILL (state %c)",
		       proc_state(pid));

	/* Closing the userfaultfd fails the stalled copy; all unwinds. */
	close(self->uffd);
	self->uffd = -1;
	pthread_join(th, NULL);
	if (st == -1)
		waitpid(pid, &st, 0);
	munmap(r.buf, len);
	close(go[0]);
	close(go[1]);
}

TEST_HARNESS_MAIN
