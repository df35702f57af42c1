// SPDX-License-Identifier: GPL-2.0
/*
 * Output directories and inputs (kprof_outdir.c, kprof_fs.c), as another
 * user could prepare them for kprofctl running as root: a link planted at
 * an output name is replaced and its target left alone; a directory of
 * someone else, or one others can write to, or a link, is refused; --force
 * removes only kprof's own files, never through a link; a report reads
 * back only what it wrote and removes the outputs it did not write; an
 * input that is a link, a FIFO, a device or a directory is refused at
 * once, and a small input over its size cap is refused with a message.
 */
#include "kt.h"
#include "kprof_fs.h"
#include "kprof_outdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#define VICTIM_TEXT	"precious: must not change\n"
#define OTHER_UID	65534	/* nobody */

static char base[64];

static void path_of(char *buf, size_t len, const char *rel)
{
	snprintf(buf, len, "%s/%s", base, rel);
}

static void write_file(const char *rel, const char *text)
{
	char p[512];
	FILE *f;

	path_of(p, sizeof(p), rel);
	f = fopen(p, "w");
	KT_CHECK(f, "create %s", p);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static char *read_rel(const char *rel)
{
	char p[512];

	path_of(p, sizeof(p), rel);
	return kt_slurp(p, NULL);
}

static int exists(const char *rel)
{
	char p[512];
	struct stat st;

	path_of(p, sizeof(p), rel);
	return !lstat(p, &st);
}

static int is_regular(const char *rel)
{
	char p[512];
	struct stat st;

	path_of(p, sizeof(p), rel);
	return !lstat(p, &st) && S_ISREG(st.st_mode);
}

static void link_to(const char *target, const char *rel)
{
	char p[512];

	path_of(p, sizeof(p), rel);
	KT_CHECK(symlink(target, p) == 0, "symlink %s: %s", p, strerror(errno));
}

static void mkdir_rel(const char *rel, mode_t mode)
{
	char p[512];

	path_of(p, sizeof(p), rel);
	KT_CHECK(mkdir(p, mode) == 0 && chmod(p, mode) == 0, "mkdir %s: %s", p, strerror(errno));
}

static void victim_intact(const char *rel)
{
	char *v = read_rel(rel);

	KT_CHECK(v && !strcmp(v, VICTIM_TEXT), "%s unchanged: '%s'", rel, v ? v : "(gone)");
	free(v);
}

/* entries of dir other than . and .. */
static size_t entries(const char *rel)
{
	char p[512];
	DIR *d;
	struct dirent *e;
	size_t n = 0;

	path_of(p, sizeof(p), rel);
	d = opendir(p);
	while (d && (e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	if (d)
		closedir(d);
	return n;
}

static struct kprof_outdir *open_rel(const char *rel, unsigned int flags, struct kprof_err *err)
{
	char p[512];

	path_of(p, sizeof(p), rel);
	return kprof_outdir_open(p, flags, (uid_t)-1, (gid_t)-1, err);
}

static int put(struct kprof_outdir *od, const char *name, const char *text,
	       struct kprof_err *err)
{
	struct kprof_outfile of;
	int ret = kprof_outfile_create(od, name, &of, err);

	if (ret)
		return ret;
	fputs(text, of.f);
	return kprof_outfile_commit(&of, 0, err);
}

/* A link at an output name is replaced, its target untouched; nothing
 * half-written is ever visible under the name.
 */
static void test_planted_links(void)
{
	struct kprof_err err = { 0 };
	struct kprof_outfile of;
	struct kprof_outdir *od;
	char *s;

	write_file("victim", VICTIM_TEXT);
	mkdir_rel("out", 0755);
	link_to("../victim", "out/ops.csv");
	od = open_rel("out", 0, &err);
	KT_CHECK(od, "open out: %s", err.msg);
	if (!od)
		return;
	KT_CHECK(kprof_outfile_create(od, "ops.csv", &of, &err) == 0, "create: %s", err.msg);
	fputs("new ops\n", of.f);
	fflush(of.f);
	/* while it is written, the name still is the old entry */
	KT_CHECK(!is_regular("out/ops.csv"), "not visible before the commit");
	KT_CHECK(kprof_outfile_commit(&of, 0, &err) == 0, "commit: %s", err.msg);
	victim_intact("victim");
	KT_CHECK(is_regular("out/ops.csv"), "ops.csv is now a file of its own");
	s = read_rel("out/ops.csv");
	KT_CHECK(s && !strcmp(s, "new ops\n"), "ops.csv content");
	free(s);
	KT_EQ_U64(entries("out"), 1);	/* no temporary file left */

	/* discarded: nothing left; the planted link stays as it was */
	link_to("../victim", "out/trace.json");
	KT_CHECK(kprof_outfile_create(od, "trace.json", &of, &err) == 0, "create: %s", err.msg);
	fputs("half", of.f);
	kprof_outfile_discard(&of);
	KT_EQ_U64(entries("out"), 2);
	victim_intact("victim");

	/* a spool is created only where nothing is: a link is not followed */
	link_to("../victim", "out/raw.kspool");
	KT_CHECK(kprof_outdir_create_new(od, "raw.kspool", &err) == -EEXIST, "O_EXCL: %s",
		 err.msg);
	victim_intact("victim");

	/* sort runs: an unnamed file */
	{
		int fd = kprof_outdir_tmpfile(od, &err);

		KT_CHECK(fd >= 0 && write(fd, "x", 1) == 1, "tmpfile: %s", err.msg);
		KT_EQ_U64(entries("out"), 3);
		if (fd >= 0)
			close(fd);
	}
	kprof_outdir_close(od);

	/* a single file the user named (diff --csv): the link is replaced */
	{
		char p[512];
		const char *name;

		link_to("victim", "diff.csv");
		path_of(p, sizeof(p), "diff.csv");
		od = kprof_outdir_of_file(p, (uid_t)-1, (gid_t)-1, &name, &err);
		KT_CHECK(od && !strcmp(name, "diff.csv"), "of_file: %s", err.msg);
		KT_CHECK(od && put(od, name, "a,b\n", &err) == 0, "write: %s", err.msg);
		kprof_outdir_close(od);
		victim_intact("victim");
		KT_CHECK(is_regular("diff.csv"), "diff.csv is a file of its own");
	}
}

/* Whose directory: the caller's or the owner's, and nobody else may write. */
static void test_existing_dirs(void)
{
	struct kprof_err err = { 0 };
	struct kprof_outdir *od;
	char p[512], *s;
	struct stat st;

	/* group- or other-writable: refused, the message says what to do */
	mkdir_rel("gw", 0775);
	od = open_rel("gw", 0, &err);
	KT_CHECK(!od && err.code == EPERM && strstr(err.msg, "/gw") && strstr(err.msg, "0775") &&
		 strstr(err.msg, "chmod go-w"), "group-writable refused: %s", err.msg);
	kprof_outdir_close(od);
	mkdir_rel("ow", 01777);
	od = open_rel("ow", 0, &err);
	KT_CHECK(!od && err.code == EPERM && strstr(err.msg, "1777"),
		 "sticky /tmp-like refused: %s", err.msg);
	kprof_outdir_close(od);

	/* a link as the directory: refused, never followed */
	mkdir_rel("real", 0755);
	link_to("real", "linkdir");
	od = open_rel("linkdir", 0, &err);
	KT_CHECK(!od && err.code == ELOOP && strstr(err.msg, "symbolic link"), "link refused: %s",
		 err.msg);
	kprof_outdir_close(od);
	od = open_rel("linkdir/", 0, &err);
	KT_CHECK(!od && err.code == ELOOP, "trailing slash does not follow it: %s", err.msg);
	kprof_outdir_close(od);
	KT_EQ_U64(entries("real"), 0);

	/*
	 * Someone else's directory. As root: one of nobody's. Otherwise a
	 * root-owned directory stands for it (the check is the same).
	 */
	if (geteuid() == 0) {
		mkdir_rel("theirs", 0755);
		path_of(p, sizeof(p), "theirs");
		KT_CHECK(chown(p, OTHER_UID, OTHER_UID) == 0, "chown");
	} else {
		snprintf(p, sizeof(p), "/usr");
	}
	od = kprof_outdir_open(p, 0, (uid_t)-1, (gid_t)-1, &err);
	KT_CHECK(!od && err.code == EPERM && strstr(err.msg, "owned by") && strstr(err.msg, p),
		 "someone else's directory refused: %s", err.msg);
	kprof_outdir_close(od);

	/* the owner we write for may own it; what we create becomes theirs */
	if (geteuid() == 0) {
		od = kprof_outdir_open(p, 0, OTHER_UID, OTHER_UID, &err);
		KT_CHECK(od, "the owner's directory: %s", err.msg);
		KT_CHECK(od && put(od, "ops.csv", "x\n", &err) == 0, "write: %s", err.msg);
		path_of(p, sizeof(p), "theirs/ops.csv");
		KT_CHECK(!lstat(p, &st) && st.st_uid == OTHER_UID && st.st_gid == OTHER_UID,
			 "file chown'ed to the owner (uid %u)", (unsigned int)st.st_uid);
		KT_CHECK(od && kprof_outdir_sub(od, "raw", &err), "raw: %s", err.msg);
		path_of(p, sizeof(p), "theirs/raw");
		KT_CHECK(!lstat(p, &st) && st.st_uid == OTHER_UID, "raw/ chown'ed to the owner");
		kprof_outdir_close(od);
		/* a new directory too, where the owner may make one */
		mkdir_rel("nobodys", 0755);
		path_of(p, sizeof(p), "nobodys");
		KT_CHECK(chown(p, OTHER_UID, OTHER_UID) == 0, "chown");
		path_of(p, sizeof(p), "nobodys/fornobody");
		od = kprof_outdir_open(p, KPROF_OUTDIR_EMPTY, OTHER_UID, OTHER_UID, &err);
		KT_CHECK(od && !lstat(p, &st) && st.st_uid == OTHER_UID &&
			 (st.st_mode & 0777) == 0755,
			 "new directory for the owner: %s", err.msg);
		kprof_outdir_close(od);
		/*
		 * but not where only root may: root writing for a user makes the
		 * directory as that user, and an existing one of root's is refused
		 */
		path_of(p, sizeof(p), "fornobody");
		od = kprof_outdir_open(p, KPROF_OUTDIR_EMPTY, OTHER_UID, OTHER_UID, &err);
		KT_CHECK(!od && err.code == EACCES && lstat(p, &st) != 0,
			 "no directory for the owner in root's directory: %s", err.msg);
		kprof_outdir_close(od);
		mkdir_rel("roots", 0755);
		path_of(p, sizeof(p), "roots");
		od = kprof_outdir_open(p, 0, OTHER_UID, OTHER_UID, &err);
		KT_CHECK(!od && err.code == EPERM && strstr(err.msg, "owned by"),
			 "root's existing directory refused when writing for the owner: %s",
			 err.msg);
		kprof_outdir_close(od);
	} else {
		/* the default owner is the caller: nothing to chown */
		od = open_rel("real", 0, &err);
		KT_CHECK(od && put(od, "ops.csv", "x\n", &err) == 0, "write: %s", err.msg);
		path_of(p, sizeof(p), "real/ops.csv");
		KT_CHECK(!lstat(p, &st) && st.st_uid == geteuid(), "file is the caller's");
		kprof_outdir_close(od);
	}

	/* created: mkdir (and parents) must succeed; then it is ours */
	od = open_rel("new/sub/dir", KPROF_OUTDIR_EMPTY, &err);
	KT_CHECK(od, "new directory with parents: %s", err.msg);
	kprof_outdir_close(od);

	/* a capture that fails at once leaves no empty directory it made,
	 * and never removes one it did not make, or one with files
	 */
	od = open_rel("new/sub/dir", KPROF_OUTDIR_EMPTY, &err);
	kprof_outdir_drop_new(od);
	kprof_outdir_close(od);
	KT_CHECK(exists("new/sub/dir"), "an existing empty directory stays");
	od = open_rel("new/sub/made", KPROF_OUTDIR_EMPTY, &err);
	kprof_outdir_drop_new(od);
	kprof_outdir_close(od);
	KT_CHECK(od && !exists("new/sub/made"), "an empty directory it made goes");
	od = open_rel("new/sub/used", KPROF_OUTDIR_EMPTY, &err);
	KT_CHECK(od && put(od, "ops.csv", "x\n", &err) == 0, "write: %s", err.msg);
	kprof_outdir_drop_new(od);
	kprof_outdir_close(od);
	KT_CHECK(exists("new/sub/used/ops.csv"), "one with files stays");

	/* EMPTY: a non-empty directory wants --force */
	mkdir_rel("full", 0700);
	write_file("full/notes.txt", "mine\n");
	od = open_rel("full", KPROF_OUTDIR_EMPTY, &err);
	KT_CHECK(!od && err.code == EEXIST && strstr(err.msg, "--force"), "non-empty: %s", err.msg);
	kprof_outdir_close(od);
	s = read_rel("full/notes.txt");
	KT_CHECK(s && !strcmp(s, "mine\n"), "left alone");
	free(s);

	/* raw/ of someone else inside our directory: refused */
	if (geteuid() == 0) {
		mkdir_rel("full/raw", 0755);
		path_of(p, sizeof(p), "full/raw");
		KT_CHECK(chown(p, OTHER_UID, OTHER_UID) == 0, "chown raw");
		od = open_rel("full", 0, &err);
		KT_CHECK(od && !kprof_outdir_sub(od, "raw", &err) && err.code == EPERM,
			 "someone else's raw/ refused: %s", err.msg);
		kprof_outdir_close(od);
		KT_CHECK(rmdir(p) == 0, "rmdir raw");
	}
	/* raw/ as a link: refused */
	link_to("../real", "full/raw");
	od = open_rel("full", 0, &err);
	KT_CHECK(od && !kprof_outdir_sub(od, "raw", &err) && err.code == ELOOP,
		 "raw/ link refused: %s", err.msg);
	kprof_outdir_close(od);
	path_of(p, sizeof(p), "full/raw");
	unlink(p);
}

/* --force removes the known output set (and raw/ for a capture) and
 * nothing else, never through a link.
 */
static void test_force(void)
{
	struct kprof_err err = { 0 };
	struct kprof_outdir *od;
	char name[64];

	mkdir_rel("cap", 0755);
	for (int i = 0; i < KPROF_OUTDIR_NOUTPUTS; i++) {
		snprintf(name, sizeof(name), "cap/%s", kprof_outdir_outputs[i]);
		write_file(name, "old\n");
	}
	link_to("../victim", "cap/ops.csv.bak");	/* not ours: stays */
	write_file("cap/notes.txt", "mine\n");
	write_file("cap/.kprof-tmp.ops.csv.1234abcd", "crashed\n");
	mkdir_rel("cap/raw", 0755);
	write_file("cap/raw/device.kspool", "old spool\n");
	write_file("cap/raw/config.json", "{}");
	write_file("cap/raw/peaks.json", "{}");
	write_file("cap/raw/cuda-uprobes.kspool", "uprobe calls\n");
	link_to("../../victim", "cap/raw/host.kspool");

	/* without FORCE_RAW (a report): raw/ stays */
	od = open_rel("cap", KPROF_OUTDIR_EMPTY | KPROF_OUTDIR_FORCE, &err);
	KT_CHECK(od, "force: %s", err.msg);
	kprof_outdir_close(od);
	for (int i = 0; i < KPROF_OUTDIR_NOUTPUTS; i++) {
		snprintf(name, sizeof(name), "cap/%s", kprof_outdir_outputs[i]);
		KT_CHECK(!exists(name), "%s removed", name);
	}
	KT_CHECK(!exists("cap/.kprof-tmp.ops.csv.1234abcd"), "stale temporary file removed");
	KT_CHECK(exists("cap/notes.txt") && exists("cap/ops.csv.bak"), "other files kept");
	KT_CHECK(exists("cap/raw/device.kspool"), "raw/ kept without FORCE_RAW");

	/* a capture: raw/ goes too, the link in it and not its target */
	od = open_rel("cap", KPROF_OUTDIR_EMPTY | KPROF_OUTDIR_FORCE | KPROF_OUTDIR_FORCE_RAW,
		      &err);
	KT_CHECK(od, "force raw: %s", err.msg);
	kprof_outdir_close(od);
	KT_CHECK(!exists("cap/raw"), "raw/ removed");
	victim_intact("victim");
	KT_CHECK(exists("cap/notes.txt"), "other files kept");

	/* raw/ as a link to a directory: the link goes, the directory stays */
	mkdir_rel("elsewhere", 0755);
	write_file("elsewhere/device.kspool", VICTIM_TEXT);
	link_to("../elsewhere", "cap/raw");
	od = open_rel("cap", KPROF_OUTDIR_FORCE | KPROF_OUTDIR_FORCE_RAW, &err);
	KT_CHECK(od, "force, raw a link: %s", err.msg);
	kprof_outdir_close(od);
	KT_CHECK(!exists("cap/raw"), "raw link removed");
	victim_intact("elsewhere/device.kspool");

	/* raw/ with a file kprof does not know: not removed, the user is told */
	mkdir_rel("cap/raw", 0755);
	write_file("cap/raw/device.kspool", "old\n");
	write_file("cap/raw/mine.txt", "mine\n");
	od = open_rel("cap", KPROF_OUTDIR_FORCE | KPROF_OUTDIR_FORCE_RAW, &err);
	KT_CHECK(!od && strstr(err.msg, "/cap/raw") && strstr(err.msg, "did not write"),
		 "unknown file in raw/: %s", err.msg);
	kprof_outdir_close(od);
	KT_CHECK(exists("cap/raw/mine.txt"), "unknown file kept");
}

/* A report reads back only what it wrote, and removes the rest of the set. */
static void test_written_set(void)
{
	struct kprof_err err = { 0 };
	struct kprof_outdir *od;
	int fd;

	mkdir_rel("rep", 0755);
	write_file("rep/roofline.csv", "planted\n");
	link_to("../victim", "rep/report.md");
	write_file("rep/notes.txt", "mine\n");
	od = open_rel("rep", 0, &err);
	KT_CHECK(od, "open: %s", err.msg);
	if (!od)
		return;
	KT_EQ_U64(kprof_outdir_reopen(od, "roofline.csv", &err), -ENOENT);
	KT_CHECK(put(od, "ops.csv", "ops\n", &err) == 0, "ops: %s", err.msg);
	KT_CHECK(put(od, "scratch.txt", "s\n", &err) == 0, "another name: %s", err.msg);
	fd = kprof_outdir_reopen(od, "ops.csv", &err);
	KT_CHECK(fd >= 0, "written: readable: %s", err.msg);
	if (fd >= 0)
		close(fd);
	KT_EQ_U64(kprof_outdir_reopen(od, "scratch.txt", &err), -ENOENT);
	KT_CHECK(kprof_outdir_prune(od, &err) == 0, "prune: %s", err.msg);
	kprof_outdir_close(od);
	KT_CHECK(exists("rep/ops.csv") && exists("rep/notes.txt") && exists("rep/scratch.txt"),
		 "written and other files kept");
	KT_CHECK(!exists("rep/roofline.csv") && !exists("rep/report.md"),
		 "outputs not written removed");
	victim_intact("victim");
}

/* Inputs: regular files only, never through a link; small ones capped. */
static void test_inputs(void)
{
	struct kprof_err err = { 0 };
	char p[512], *s;
	size_t len = 0;
	int fd, dfd;

	write_file("in.json", "{\"a\": 1}");
	link_to("in.json", "in-link.json");
	path_of(p, sizeof(p), "fifo");
	KT_CHECK(mkfifo(p, 0600) == 0, "mkfifo");

	path_of(p, sizeof(p), "in.json");
	s = kprof_in_read(AT_FDCWD, p, NULL, KPROF_IN_JSON_MAX, &len, &err);
	KT_CHECK(s && !strcmp(s, "{\"a\": 1}") && len == 8, "regular file read: %s", err.msg);
	free(s);
	/* a FIFO: refused without opening it (open would block: no writer) */
	path_of(p, sizeof(p), "fifo");
	fd = kprof_in_open(AT_FDCWD, p, NULL, &err);
	KT_CHECK(fd == -EINVAL && strstr(err.msg, p) && strstr(err.msg, "is a FIFO"),
		 "FIFO refused: %s", err.msg);
	fd = kprof_in_open(AT_FDCWD, "/dev/zero", NULL, &err);
	KT_CHECK(fd < 0 && strstr(err.msg, "/dev/zero is a character device"), "device: %s",
		 err.msg);
	fd = kprof_in_open(AT_FDCWD, base, NULL, &err);
	KT_CHECK(fd == -EISDIR && strstr(err.msg, "a directory"), "directory: %s", err.msg);
	path_of(p, sizeof(p), "in-link.json");
	s = kprof_in_read(AT_FDCWD, p, "peaks file", KPROF_IN_JSON_MAX, NULL, &err);
	KT_CHECK(!s && err.code == ELOOP && strstr(err.msg, "peaks file is a symbolic link"),
		 "link refused, named as shown: %s", err.msg);
	path_of(p, sizeof(p), "missing.json");
	s = kprof_in_read(AT_FDCWD, p, NULL, KPROF_IN_JSON_MAX, NULL, &err);
	KT_CHECK(!s && err.code == ENOENT, "missing: ENOENT: %s", err.msg);

	/* the size cap: at it is fine, one byte over is refused, named */
	path_of(p, sizeof(p), "in.json");
	s = kprof_in_read(AT_FDCWD, p, NULL, 8, NULL, &err);
	KT_CHECK(s, "exactly the cap: %s", err.msg);
	free(s);
	s = kprof_in_read(AT_FDCWD, p, NULL, 7, NULL, &err);
	KT_CHECK(!s && err.code == EFBIG && strstr(err.msg, p) && strstr(err.msg, "8 bytes") &&
		 strstr(err.msg, "at most 7"), "over the cap: %s", err.msg);

	/* inside a capture directory: no component may be a link */
	mkdir_rel("capin", 0755);
	mkdir_rel("capin/raw", 0755);
	mkdir_rel("secret", 0700);
	write_file("secret/config.json", "{\"secret\": 1}");
	write_file("capin/raw/peaks.json", "{}");
	link_to("../../secret/config.json", "capin/raw/config.json");
	path_of(p, sizeof(p), "capin");
	dfd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	s = kprof_in_read(dfd, "raw/peaks.json", NULL, KPROF_IN_JSON_MAX, NULL, &err);
	KT_CHECK(s && !strcmp(s, "{}"), "file in the capture: %s", err.msg);
	free(s);
	s = kprof_in_read(dfd, "raw/config.json", "capin/raw/config.json", KPROF_IN_JSON_MAX,
			  NULL, &err);
	KT_CHECK(!s && err.code == ELOOP && strstr(err.msg, "capin/raw/config.json"),
		 "link to a private file refused: %s", err.msg);
	path_of(p, sizeof(p), "capin/raw2");
	KT_CHECK(symlink("../secret", p) == 0, "symlink raw2");
	s = kprof_in_read(dfd, "raw2/config.json", NULL, KPROF_IN_JSON_MAX, NULL, &err);
	KT_CHECK(!s && err.code == ELOOP && strstr(err.msg, "'raw2'"),
		 "linked directory refused: %s", err.msg);
	s = kprof_in_read(dfd, "../secret/config.json", NULL, KPROF_IN_JSON_MAX, NULL, &err);
	KT_CHECK(!s && err.code == EINVAL, "'..' refused: %s", err.msg);
	s = kprof_in_read(dfd, "/etc/passwd", NULL, KPROF_IN_JSON_MAX, NULL, &err);
	KT_CHECK(!s && err.code == EINVAL, "absolute name refused: %s", err.msg);
	close(dfd);
}

int main(void)
{
	snprintf(base, sizeof(base), "/tmp/kprof-test-outdir-XXXXXX");
	KT_CHECK(mkdtemp(base), "mkdtemp");
	/* the other user must reach what is made for them (as root) */
	KT_CHECK(chmod(base, 0755) == 0, "chmod");
	umask(022);
	test_planted_links();
	test_existing_dirs();
	test_force();
	test_written_set();
	test_inputs();
	kt_rmrf(base);
	return kt_done("test_outdir");
}
