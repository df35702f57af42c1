// SPDX-License-Identifier: GPL-2.0
/*
 * peak_rss CMD [ARGS...]: runs CMD, prints "peak_rss_kib R wall_s W exit S".
 *
 * Why not getrusage from the Python driver: a process's ru_maxrss starts
 * at the high-water mark of the memory it was forked or vforked from, so
 * a child of a large Python process reports at least Python's RSS. This
 * process is small; CMD forked from it starts near zero.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	struct rusage ru;
	int status;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: peak_rss CMD [ARGS...]\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid < 0) {
		perror("peak_rss: fork");
		return 1;
	}
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		perror("peak_rss: exec");
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) < 0) {
		perror("peak_rss: wait4");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("peak_rss_kib %ld wall_s %.3f exit %d\n", ru.ru_maxrss,
	       (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
	       WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	return 0;
}
