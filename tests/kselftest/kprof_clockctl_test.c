// SPDX-License-Identifier: GPL-2.0
/*
 * Clock lock and reset as a user drives them: kprofctl lock-clock,
 * reset-clock and info (text and --json) against the sim device. The
 * ioctl-level behaviour is in kprof_clock_test.c; here it is the tool:
 * what info prints after a lock, reset giving back a lock someone else
 * had set (the sim's debugfs clock_lock_mhz knob, which kprof does not
 * know about), SIGKILL of kprofctl at random points of a lock, a user
 * without CAP_SYS_ADMIN, and the clock in a capture's warnings,
 * params.json and summary.txt.
 */
#include <ctype.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "kprof_test_util.h"
#include "kprof_harness.h"

#define NS_5S		5000000000ULL
#define OUT_MAX		(256 * 1024)
#define NOBODY		65534

struct ctl_out {
	int status;		/* exit status, or 128 + signal */
	char text[OUT_MAX];	/* stdout and stderr */
	char flat[OUT_MAX];	/* text without any whitespace (for JSON) */
};

static const char *ctl_path(void)
{
	static char path[512];
	const char *b = getenv("BUILD");

	snprintf(path, sizeof(path), "%s/kprofctl", b ? b : "/kprof/build");
	return access(path, X_OK) ? "kprofctl" : path;
}

/* The group that may open /dev/kprof0 (root:kprof 0660 under udev/mdev). */
static gid_t dev_gid(void)
{
	struct stat st;

	return stat("/dev/kprof0", &st) ? 0 : st.st_gid;
}

/*
 * Run kprofctl with argv (NULL-terminated), as root or as nobody with
 * only the device's group (no capabilities: a root -> non-root setuid
 * clears them), collecting its output.
 */
static int run_ctl(struct ctl_out *o, bool nobody, const char *const *argv)
{
	const char *args[32] = { "kprofctl" };
	size_t n = 1, len = 0, j = 0;
	int p[2], st;
	pid_t pid;
	ssize_t r;

	for (; *argv && n < 31; argv++)
		args[n++] = *argv;
	args[n] = NULL;
	if (pipe(p))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		gid_t g = dev_gid();

		dup2(p[1], 1);
		dup2(p[1], 2);
		close(p[0]);
		if (nobody && (setgroups(1, &g) || setgid(NOBODY) ||
			       setuid(NOBODY)))
			_exit(125);
		execvp(ctl_path(), (char *const *)args);
		_exit(126);
	}
	close(p[1]);
	while (len < sizeof(o->text) - 1 &&
	       (r = read(p[0], o->text + len, sizeof(o->text) - 1 - len)) > 0)
		len += r;
	close(p[0]);
	o->text[len] = 0;
	for (size_t i = 0; i < len; i++)
		if (!isspace((unsigned char)o->text[i]))
			o->flat[j++] = o->text[i];
	o->flat[j] = 0;
	if (waitpid(pid, &st, 0) < 0)
		return -errno;
	o->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	return 0;
}

#define CTL(o, ...) run_ctl(o, false, (const char *const[]){ __VA_ARGS__, NULL })
#define CTL_NOBODY(o, ...) \
	run_ctl(o, true, (const char *const[]){ __VA_ARGS__, NULL })

static bool has(const char *hay, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static bool has(const char *hay, const char *fmt, ...)
{
	char needle[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(needle, sizeof(needle), fmt, ap);
	va_end(ap);
	return !!strstr(hay, needle);
}

/* Lock from outside kprof through the sim (0 = back to DVFS). */
static int foreign_lock(unsigned int mhz)
{
	return kt_sim_knob_set(0, "clock_lock_mhz", mhz);
}

FIXTURE(ctl) {
	int fd, simfd;
	struct kprof_device_info info;
	struct ctl_out out;
	char dir[64];
};

FIXTURE_SETUP(ctl)
{
	struct kprof_clock_state s;

	self->fd = kt_open_dev(0);
	ASSERT_LE(0, self->fd) TH_LOG("open /dev/kprof0: %s", strerror(errno));
	self->simfd = kt_open_sim(0);
	ASSERT_LE(0, self->simfd);
	ASSERT_EQ(0, kt_info(self->fd, &self->info));
	ASSERT_TRUE(kt_debugfs_ready()) TH_LOG("needs the sim's debugfs knobs");
	ASSERT_EQ(0, kt_clock_get(self->fd, &s));
	ASSERT_EQ(0, s.flags) TH_LOG("clock left locked by an earlier test");
	strcpy(self->dir, "/tmp/kprof-clockctl.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
}

FIXTURE_TEARDOWN(ctl)
{
	char cmd[128];

	kt_clock_set(self->fd, KPROF_CLOCK_OP_RESET, 0);
	foreign_lock(0);
	kt_sync_all(self->simfd, NS_5S);
	close(self->simfd);
	close(self->fd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", self->dir);
	if (system(cmd))
		TH_LOG("could not remove %s", self->dir);
}

/* info, text and JSON, shows the clock locked at mhz (saved: was). */
static void check_info_locked(struct __test_metadata *_metadata,
			      struct ctl_out *o, unsigned int mhz,
			      const char *saved_json)
{
	ASSERT_EQ(0, CTL(o, "info", "--device", "0"));
	ASSERT_EQ(0, o->status) TH_LOG("%s", o->text);
	EXPECT_TRUE(has(o->text, "locked:       at %u MHz", mhz))
		TH_LOG("%s", o->text);
	EXPECT_TRUE(has(o->text, "(reset-clock restores it)")) TH_LOG("%s", o->text);
	ASSERT_EQ(0, CTL(o, "info", "--device", "0", "--json"));
	ASSERT_EQ(0, o->status) TH_LOG("%s", o->text);
	EXPECT_TRUE(has(o->flat, "\"clock\":{\"mhz\":%u,", mhz)) TH_LOG("%s", o->text);
	EXPECT_TRUE(has(o->flat, "\"locked\":true,\"locked_mhz\":%u,", mhz))
		TH_LOG("%s", o->text);
	EXPECT_TRUE(has(o->flat, "\"saved\":%s", saved_json)) TH_LOG("%s", o->text);
}

TEST_F(ctl, lock_shows_in_info)
{
	struct kprof_clock_state s;
	const unsigned int f = 850;

	ASSERT_EQ(0, CTL(&self->out, "lock-clock", "--device", "0", "--mhz", "850"));
	ASSERT_EQ(0, self->out.status) TH_LOG("%s", self->out.text);
	ASSERT_EQ(0, kt_clock_get(self->fd, &s));
	EXPECT_EQ(KPROF_CLOCK_LOCKED | KPROF_CLOCK_SAVED, s.flags);
	EXPECT_EQ(f, s.mhz);
	check_info_locked(_metadata, &self->out, f, "{\"mhz\":");
	EXPECT_TRUE(has(self->out.flat, "\"locked\":false}")) TH_LOG("%s", self->out.text);
	/* --base and --max lock at the device's own figures. */
	ASSERT_EQ(0, CTL(&self->out, "lock-clock", "--device", "0", "--max"));
	ASSERT_EQ(0, self->out.status) TH_LOG("%s", self->out.text);
	check_info_locked(_metadata, &self->out, self->info.clock_max_mhz, "{");
	ASSERT_EQ(0, CTL(&self->out, "lock-clock", "--device", "0", "--base"));
	ASSERT_EQ(0, self->out.status) TH_LOG("%s", self->out.text);
	check_info_locked(_metadata, &self->out, self->info.clock_base_mhz, "{");
}

/* Two locks in a row, then reset: DVFS again, nothing saved. */
TEST_F(ctl, reset_gives_back_dvfs)
{
	struct kprof_clock_state s;

	ASSERT_EQ(0, CTL(&self->out, "lock-clock", "--device", "0", "--mhz", "850"));
	ASSERT_EQ(0, self->out.status) TH_LOG("%s", self->out.text);
	ASSERT_EQ(0, CTL(&self->out, "lock-clock", "--device", "0", "--mhz", "1150"));
	ASSERT_EQ(0, self->out.status) TH_LOG("%s", self->out.text);
	/* The saved state is still the one before the first lock. */
	check_info_locked(_metadata, &self->out, 1150, "{");
	EXPECT_TRUE(has(self->out.flat, "\"saved\":{\"mhz\":")) TH_LOG("%s", self->out.text);
	EXPECT_TRUE(has(self->out.flat, ",\"locked\":false}")) TH_LOG("%s", self->out.text);
	ASSERT_EQ(0, CTL(&self->out, "reset-clock", "--device", "0"));
	ASSERT_EQ(0, self->out.status) TH_LOG("%s", self->out.text);
	ASSERT_EQ(0, kt_clock_get(self->fd, &s));
	EXPECT_EQ(0, s.flags);
	ASSERT_EQ(0, CTL(&self->out, "info", "--device", "0", "--json"));
	EXPECT_TRUE(has(self->out.flat, "\"locked\":false,\"saved\":null"))
		TH_LOG("%s", self->out.text);
	ASSERT_EQ(0, CTL(&self->out, "info", "--device", "0"));
	EXPECT_TRUE(has(self->out.text, "clock:        dvfs")) TH_LOG("%s", self->out.text);
}

/* Someone else had locked the clock at 900: reset gives exactly that back. */
TEST_F(ctl, reset_gives_back_foreign_lock)
{
	static const char *const locks[][2] = {
		{ "--mhz", "1100" }, { "--max", NULL }, { "--base", NULL },
	};
	struct kprof_clock_state s;
	uint64_t knob;

	for (size_t i = 0; i < ARRAY_SIZE(locks); i++) {
		ASSERT_EQ(0, foreign_lock(900));
		ASSERT_EQ(0, kt_clock_get(self->fd, &s));
		ASSERT_EQ(KPROF_CLOCK_LOCKED, s.flags);	/* nothing saved */
		ASSERT_EQ(900, s.mhz);

		ASSERT_EQ(0, CTL(&self->out, "lock-clock", "--device", "0",
				 locks[i][0], locks[i][1]));
		ASSERT_EQ(0, self->out.status) TH_LOG("%s", self->out.text);
		ASSERT_EQ(0, kt_clock_get(self->fd, &s));
		EXPECT_EQ(KPROF_CLOCK_LOCKED | KPROF_CLOCK_SAVED, s.flags);
		EXPECT_EQ(KPROF_CLOCK_LOCKED, s.saved_flags);
		EXPECT_EQ(900, s.saved_mhz);
		check_info_locked(_metadata, &self->out, s.mhz,
				  "{\"mhz\":900,\"locked\":true}");

		ASSERT_EQ(0, CTL(&self->out, "reset-clock", "--device", "0"));
		ASSERT_EQ(0, self->out.status) TH_LOG("%s", self->out.text);
		ASSERT_EQ(0, kt_clock_get(self->fd, &s));
		EXPECT_EQ(KPROF_CLOCK_LOCKED, s.flags);
		EXPECT_EQ(900, s.mhz);
		EXPECT_EQ(900, s.locked_mhz);
		ASSERT_EQ(0, kt_sim_knob_u64(0, "clock_lock_mhz", &knob));
		EXPECT_EQ(900, knob);
		ASSERT_EQ(0, CTL(&self->out, "info", "--device", "0", "--json"));
		EXPECT_TRUE(has(self->out.flat,
				"\"clock\":{\"mhz\":900,\"min_mhz\""))
			TH_LOG("%s", self->out.text);
		EXPECT_TRUE(has(self->out.flat,
				"\"locked\":true,\"locked_mhz\":900,"))
			TH_LOG("%s", self->out.text);
		EXPECT_TRUE(has(self->out.flat, "\"saved\":null"))
			TH_LOG("%s", self->out.text);
		/* A second reset has nothing to restore and keeps the lock. */
		ASSERT_EQ(0, CTL(&self->out, "reset-clock", "--device", "0"));
		ASSERT_EQ(0, self->out.status) TH_LOG("%s", self->out.text);
		ASSERT_EQ(0, kt_clock_get(self->fd, &s));
		EXPECT_EQ(KPROF_CLOCK_LOCKED, s.flags);
		EXPECT_EQ(900, s.mhz);
		ASSERT_EQ(0, foreign_lock(0));
	}
}

#define KILL_ROUNDS	40
/*
 * The debug-kernel lane lowers it (kt_rounds): a kprofctl run takes
 * over a second there, and the stock lane has already killed it at 40
 * points of each kind.
 */
#define KILL_ROUNDS_ENV	"KPROF_CLOCK_KILL_ROUNDS"

/*
 * SIGKILL kprofctl lock-clock at random points. The kernel holds the
 * state, so after every kill the device is either as before the first
 * lock or locked at one of the frequencies asked for with that state
 * saved, never anything in between; reset then gives the original back.
 */
static void kill_loop(struct __test_metadata *_metadata, int fd,
		      struct ctl_out *out, uint32_t orig_flags,
		      uint32_t orig_mhz)
{
	unsigned int killed = 0, finished = 0, took = 0, i;
	const int rounds = kt_rounds(KILL_ROUNDS_ENV, KILL_ROUNDS);
	struct kprof_clock_state s;
	uint64_t t0, run_us;
	char mhz[16];

	ASSERT_LT(0, rounds) TH_LOG("%s='%s': want a whole number from 1 to %d",
				    KILL_ROUNDS_ENV, getenv(KILL_ROUNDS_ENV), KILL_ROUNDS);

	/* How long one whole run takes here, so the kills spread over it. */
	t0 = kt_now_ns();
	ASSERT_EQ(0, CTL(out, "lock-clock", "--device", "0", "--mhz", "1200"));
	ASSERT_EQ(0, out->status) TH_LOG("%s", out->text);
	run_us = (kt_now_ns() - t0) / 1000;
	ASSERT_EQ(0, kt_clock_set(fd, KPROF_CLOCK_OP_RESET, 0));
	srand(getpid());
	for (i = 0; i < (unsigned int)rounds; i++) {
		unsigned int f = 805 + 5 * (rand() % 79);	/* 805..1195 */
		pid_t pid;
		int st;

		snprintf(mhz, sizeof(mhz), "%u", f);
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid) {
			int null = open("/dev/null", O_WRONLY);

			dup2(null, 1);
			dup2(null, 2);
			execlp(ctl_path(), "kprofctl", "lock-clock", "--device",
			       "0", "--mhz", mhz, (char *)NULL);
			_exit(126);
		}
		/* anywhere from exec to a little after a whole run's time */
		usleep(rand() % (run_us * 5 / 4 + 1));
		kill(pid, SIGKILL);
		ASSERT_EQ(pid, waitpid(pid, &st, 0));
		if (WIFSIGNALED(st))
			killed++;
		else
			finished++;

		ASSERT_EQ(0, kt_clock_get(fd, &s));
		if (!(s.flags & KPROF_CLOCK_SAVED)) {
			/* Never locked by kprof yet: exactly the original. */
			ASSERT_EQ(orig_flags, s.flags);
			if (orig_flags & KPROF_CLOCK_LOCKED)
				ASSERT_EQ(orig_mhz, s.mhz);
			continue;
		}
		ASSERT_EQ(KPROF_CLOCK_LOCKED | KPROF_CLOCK_SAVED, s.flags);
		ASSERT_EQ(s.mhz, s.locked_mhz);
		took += s.mhz == f;
		ASSERT_TRUE(s.mhz >= 805 && s.mhz <= 1195 && s.mhz % 5 == 0);
		ASSERT_EQ(orig_flags, s.saved_flags);
		if (orig_flags & KPROF_CLOCK_LOCKED)
			ASSERT_EQ(orig_mhz, s.saved_mhz);
	}
	TH_LOG("one run %llu us; %u runs killed, %u finished; lock in place after %u%s",
	       (unsigned long long)run_us, killed, finished, took,
	       rounds < KILL_ROUNDS ? " (rounds lowered by " KILL_ROUNDS_ENV ")" : "");
	ASSERT_EQ(0, CTL(out, "info", "--device", "0"));
	ASSERT_EQ(0, out->status) TH_LOG("%s", out->text);
	ASSERT_EQ(0, CTL(out, "reset-clock", "--device", "0"));
	ASSERT_EQ(0, out->status) TH_LOG("%s", out->text);
	ASSERT_EQ(0, kt_clock_get(fd, &s));
	ASSERT_EQ(orig_flags, s.flags);
	if (orig_flags & KPROF_CLOCK_LOCKED)
		ASSERT_EQ(orig_mhz, s.mhz);
}

TEST_F_TIMEOUT(ctl, kill9_during_lock_from_dvfs, 300)
{
	kill_loop(_metadata, self->fd, &self->out, 0, 0);
}

TEST_F_TIMEOUT(ctl, kill9_during_lock_from_foreign_lock, 300)
{
	ASSERT_EQ(0, foreign_lock(900));
	kill_loop(_metadata, self->fd, &self->out, KPROF_CLOCK_LOCKED, 900);
}

/* nobody in the device's group: reads work, changes get the clear error. */
TEST_F(ctl, non_root_gets_cap_sys_admin_message)
{
	struct kprof_clock_state s;

	ASSERT_NE(0, dev_gid()) TH_LOG("/dev/kprof0 should be root:kprof");
	ASSERT_EQ(0, CTL_NOBODY(&self->out, "info", "--device", "0"));
	ASSERT_EQ(0, self->out.status) TH_LOG("%s", self->out.text);
	EXPECT_TRUE(has(self->out.text, "clock:        dvfs")) TH_LOG("%s", self->out.text);

	ASSERT_EQ(0, CTL_NOBODY(&self->out, "lock-clock", "--device", "0", "--mhz", "850"));
	EXPECT_NE(0, self->out.status);
	EXPECT_TRUE(has(self->out.text, "CAP_SYS_ADMIN")) TH_LOG("%s", self->out.text);
	ASSERT_EQ(0, kt_clock_get(self->fd, &s));
	EXPECT_EQ(0, s.flags);

	/* Nor may it undo root's lock, which it can see. */
	ASSERT_EQ(0, CTL(&self->out, "lock-clock", "--device", "0", "--mhz", "850"));
	ASSERT_EQ(0, self->out.status) TH_LOG("%s", self->out.text);
	ASSERT_EQ(0, CTL_NOBODY(&self->out, "reset-clock", "--device", "0"));
	EXPECT_NE(0, self->out.status);
	EXPECT_TRUE(has(self->out.text, "CAP_SYS_ADMIN")) TH_LOG("%s", self->out.text);
	ASSERT_EQ(0, CTL_NOBODY(&self->out, "info", "--device", "0", "--json"));
	ASSERT_EQ(0, self->out.status) TH_LOG("%s", self->out.text);
	EXPECT_TRUE(has(self->out.flat, "\"locked\":true,\"locked_mhz\":850,"))
		TH_LOG("%s", self->out.text);
	ASSERT_EQ(0, kt_clock_get(self->fd, &s));
	EXPECT_EQ(KPROF_CLOCK_LOCKED | KPROF_CLOCK_SAVED, s.flags);
}

static int read_whole(const char *dir, const char *name, char *buf, size_t len,
		      bool flat)
{
	char path[256];
	ssize_t n;
	size_t j = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	n = kt_read_file(path, buf, len);
	if (n < 0)
		return -1;
	if (flat) {
		for (ssize_t i = 0; i < n; i++)
			if (!isspace((unsigned char)buf[i]))
				buf[j++] = buf[i];
		buf[j] = 0;
	}
	return 0;
}

/* Unlocked: capture warns, and params.json / summary.txt say "not locked". */
TEST_F_TIMEOUT(ctl, capture_warns_when_unlocked, 120)
{
	char out[96];
	static char buf[OUT_MAX];

	snprintf(out, sizeof(out), "%s/c", self->dir);
	ASSERT_EQ(0, CTL(&self->out, "capture", "--device", "0", "-o", out,
			 "--", "sleep", "0.2"));
	ASSERT_EQ(0, self->out.status) TH_LOG("%s", self->out.text);
	EXPECT_TRUE(has(self->out.text, "clock is not locked")) TH_LOG("%s", self->out.text);
	ASSERT_EQ(0, read_whole(out, "summary.txt", buf, sizeof(buf), false));
	EXPECT_TRUE(has(buf, "NOT locked")) TH_LOG("%s", buf);
	ASSERT_EQ(0, read_whole(out, "params.json", buf, sizeof(buf), true));
	EXPECT_TRUE(has(buf, "\"at_start_locked\":false")) TH_LOG("%s", buf);

	/* Locked: no warning. */
	snprintf(out, sizeof(out), "%s/l", self->dir);
	ASSERT_EQ(0, kt_clock_set(self->fd, KPROF_CLOCK_OP_LOCK_BASE, 0));
	ASSERT_EQ(0, CTL(&self->out, "capture", "--device", "0", "-o", out,
			 "--", "sleep", "0.2"));
	ASSERT_EQ(0, self->out.status) TH_LOG("%s", self->out.text);
	EXPECT_FALSE(has(self->out.text, "not locked")) TH_LOG("%s", self->out.text);
}

/*
 * Locked capture with three changes inside it: a foreign lock (the sim
 * reports it), kprofctl lock-clock, and kprofctl reset-clock (back to the
 * foreign lock at 1000 that kprof found before its first lock). Each is a
 * CLOCK record in the stream, so each is in params.json and summary.txt.
 */
TEST_F_TIMEOUT(ctl, capture_records_every_change, 120)
{
	char out[96], sh[1400];
	static char buf[OUT_MAX];
	const char *knob = "/sys/kernel/debug/kprof_sim/sim0/clock_lock_mhz";

	ASSERT_EQ(0, foreign_lock(1000));
	ASSERT_EQ(0, CTL(&self->out, "lock-clock", "--device", "0", "--mhz", "950"));
	ASSERT_EQ(0, self->out.status) TH_LOG("%s", self->out.text);
	snprintf(out, sizeof(out), "%s/c", self->dir);
	snprintf(sh, sizeof(sh),
		 "sleep 0.3; echo 900 >%s; sleep 0.3; %s lock-clock --device 0 --mhz 1100 >/dev/null; sleep 0.3; %s reset-clock --device 0 >/dev/null; sleep 0.3",
		 knob, ctl_path(), ctl_path());
	ASSERT_EQ(0, CTL(&self->out, "capture", "--device", "0", "-o", out,
			 "--", "sh", "-c", sh));
	ASSERT_EQ(0, self->out.status) TH_LOG("%s", self->out.text);
	EXPECT_FALSE(has(self->out.text, "not locked")) TH_LOG("%s", self->out.text);

	ASSERT_EQ(0, read_whole(out, "summary.txt", buf, sizeof(buf), false));
	EXPECT_TRUE(has(buf, "at capture start: 950 MHz, locked")) TH_LOG("%s", buf);
	EXPECT_TRUE(has(buf, "changes during capture: 3\n")) TH_LOG("%s", buf);
	EXPECT_TRUE(has(buf, " ns: 900 MHz (locked)\n")) TH_LOG("%s", buf);
	EXPECT_TRUE(has(buf, " ns: 1100 MHz (locked)\n")) TH_LOG("%s", buf);
	/* reset gives back the foreign lock at 1000 kprof found first */
	EXPECT_TRUE(has(buf, " ns: 1000 MHz (locked)\n")) TH_LOG("%s", buf);

	ASSERT_EQ(0, read_whole(out, "params.json", buf, sizeof(buf), true));
	EXPECT_TRUE(has(buf, "\"at_start_mhz\":950,\"at_start_locked\":true,\"changes_total\":3,"))
		TH_LOG("%s", buf);
	EXPECT_TRUE(has(buf, "\"mhz\":900,\"locked\":true}")) TH_LOG("%s", buf);
	EXPECT_TRUE(has(buf, "\"mhz\":1100,\"locked\":true}")) TH_LOG("%s", buf);
	EXPECT_TRUE(has(buf, "\"mhz\":1000,\"locked\":true}]")) TH_LOG("%s", buf);
	/* device clock at start and end, as kprofctl read it */
	EXPECT_TRUE(has(buf, "\"device_clock\":{\"start\":{\"mhz\":950,"))
		TH_LOG("%s", buf);
	EXPECT_TRUE(has(buf, "\"end\":{\"mhz\":1000,")) TH_LOG("%s", buf);
}

TEST_HARNESS_MAIN
