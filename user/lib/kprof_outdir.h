/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one way libkprof and kprofctl create output files. kprofctl usually
 * runs as root, in directories other users may reach, so:
 *
 * - The output directory is created (mkdir), or, when it exists, must be
 *   owned by the caller (euid) or the given owner and not be writable by
 *   group or others; else it is refused with a message saying what to do.
 *   It is then held open (O_DIRECTORY | O_NOFOLLOW): every file is made
 *   relative to that fd, so renaming or replacing the path later changes
 *   nothing. Sub-directories (raw/) alike.
 * - A file is written under a unique temporary name (O_CREAT | O_EXCL |
 *   O_NOFOLLOW) and renamed over its name once complete: a reader never
 *   sees half a file, and a link planted at the name is replaced, never
 *   followed. Spools (written while a capture runs, read even after a
 *   crash) are created at their name with O_EXCL in a new raw/ instead.
 * - With an owner, every directory and file created is chown'ed to it.
 * - The known output set (kprof_outdir_outputs) is tracked: a report
 *   reads back only the outputs it wrote itself, and removes the ones it
 *   did not write (kprof_outdir_prune), so no stale or planted file ends
 *   up in, or beside, a new report.
 */
#ifndef KPROF_OUTDIR_H
#define KPROF_OUTDIR_H

#include <stdio.h>
#include <sys/types.h>

#include "kprof_err.h"

/* kprof_outdir_open() flags */
#define KPROF_OUTDIR_EMPTY	(1U << 0)	/* an existing directory must be empty
						 * (else -EEXIST), unless FORCE
						 */
#define KPROF_OUTDIR_FORCE	(1U << 1)	/* remove the known output set first
						 * (and kprof's own temporary files)
						 */
#define KPROF_OUTDIR_FORCE_RAW	(1U << 2)	/* with FORCE: raw/ too (its known
						 * files, then the directory)
						 */

/* The output set of a report, in the order kprofctl lists them. */
extern const char *const kprof_outdir_outputs[];
#define KPROF_OUTDIR_NOUTPUTS	11

struct kprof_outdir;

/*
 * Opens (creating it, and its missing parents, if needed) the output
 * directory path. uid/gid: the owner of what is created, and the one
 * (beside the caller) an existing directory may belong to; (uid_t)-1 /
 * (gid_t)-1: the caller's euid / egid, nothing chown'ed. NULL with err
 * set: -EEXIST (not empty), EPERM (wrong owner or mode), ELOOP (a link),
 * or the system error.
 */
struct kprof_outdir *kprof_outdir_open(const char *path, unsigned int flags, uid_t uid,
				       gid_t gid, struct kprof_err *err);
/*
 * The directory of a single output file the user named (diff --csv FILE):
 * no mkdir and no owner check (the user chose it), but the file is still
 * written under a temporary name and renamed over *name, so a link there
 * is replaced, not followed. *name points into path.
 */
struct kprof_outdir *kprof_outdir_of_file(const char *path, uid_t uid, gid_t gid,
					  const char **name, struct kprof_err *err);
/*
 * The sub-directory name (raw) of od: created (mkdirat), or an existing one
 * checked like an existing output directory. Owned by od (freed with it);
 * the same pointer on every call (one sub-directory per od).
 */
struct kprof_outdir *kprof_outdir_sub(struct kprof_outdir *od, const char *name,
				      struct kprof_err *err);
void kprof_outdir_close(struct kprof_outdir *od);
/* Removes the directory if kprof_outdir_open created it and it is still
 * empty (a capture that failed before its first spool); NULL ok.
 */
void kprof_outdir_drop_new(struct kprof_outdir *od);
int kprof_outdir_fd(const struct kprof_outdir *od);
/* The path it was opened with, for messages. */
const char *kprof_outdir_path(const struct kprof_outdir *od);
/* 1 when fd is this directory (the capture directory as output). */
int kprof_outdir_is(const struct kprof_outdir *od, int fd);

struct kprof_outfile {
	FILE *f;		/* write here */
	/* private */
	struct kprof_outdir *od;
	char *buf;		/* f's buffer (KPROF_OUTFILE_BUF) */
	char name[64], tmp[96];
};

/*
 * An output's stdio buffer: 128 KiB, what cat(1) writes at a time.
 * glibc's setvbuf() without a buffer of the caller's keeps its own of
 * st_blksize (4 KiB) whatever size is asked: a write(2) per 4 KiB, 60k
 * of them for a 242 MB device_log.csv.
 */
#define KPROF_OUTFILE_BUF	(128 * 1024)

/* kprof_outfile_commit() flags */
#define KPROF_OUTFILE_SYNC	(1U << 0)	/* fsync before the rename */

/*
 * A new output file name in od, written to a temporary file until commit.
 * 0 (of->f ready, KPROF_OUTFILE_BUF buffered) or -errno with err set.
 */
int kprof_outfile_create(struct kprof_outdir *od, const char *name,
			 struct kprof_outfile *of, struct kprof_err *err);
/* Flushes, checks for write errors, closes and renames into place. The
 * temporary file is removed on any error. of is reset either way.
 */
int kprof_outfile_commit(struct kprof_outfile *of, unsigned int flags,
			 struct kprof_err *err);
/* Drops an unfinished file (no-op on a reset of). */
void kprof_outfile_discard(struct kprof_outfile *of);
/*
 * Drops a file whose writing failed with errno e outside its stream (a
 * write(2) of the caller's): the error commit would give, -e.
 */
int kprof_outfile_fail(struct kprof_outfile *of, int e, struct kprof_err *err);

/*
 * A file created at its name, O_EXCL (spools: a new raw/ holds nothing).
 * Returns a write fd or -errno with err set.
 */
int kprof_outdir_create_new(struct kprof_outdir *od, const char *name,
			    struct kprof_err *err);
/* An unnamed read-write temporary file in od (sort runs), or -errno. */
int kprof_outdir_tmpfile(struct kprof_outdir *od, struct kprof_err *err);
/*
 * An output of the known set committed through od since it was opened,
 * opened for reading (kprof_in_open rules). -ENOENT (err untouched) when
 * this run did not write it, whatever the directory holds.
 */
int kprof_outdir_reopen(struct kprof_outdir *od, const char *name, struct kprof_err *err);
/* Removes every file of the known output set not committed since open. */
int kprof_outdir_prune(struct kprof_outdir *od, struct kprof_err *err);

#endif /* KPROF_OUTDIR_H */
