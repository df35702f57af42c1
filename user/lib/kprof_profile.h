/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Driver profiles: which device node, ioctl handler, LAUNCH and SYNC
 * commands and seq fields the BPF tracer uses for a driver. One JSON file
 * per driver in data/profiles/ (format in data/profiles/README.md), or
 * built from `--dev-node/--launch-ioctl/--sync-ioctl`.
 */
#ifndef KPROF_PROFILE_H
#define KPROF_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include "kprof_bpf.h"
#include "kprof_err.h"

/* "match": which bits of the command the tracer compares. */
#define KPROF_PROFILE_MASK_EXACT	0xffffffffU
#define KPROF_PROFILE_MASK_TYPE_NR	0x0000ffffU	/* DRM: size varies by header version */

struct kprof_profile_ioctl {
	char ioctl[64];		/* uapi macro name, for people; "" if unnamed */
	uint32_t cmd;		/* 0: none (sync only) */
	uint32_t seq_off;	/* offset of the seq field in the arg struct */
	uint32_t seq_size;	/* 0 (none), 4 or 8 */
};

struct kprof_profile {
	char name[32];
	char description[128];
	char backend[32];	/* kprof backend it belongs to ("sim"), or "" */
	char node[128];		/* device node glob, e.g. /dev/dri/renderD* */
	char handler[64];	/* driver's ioctl handler (BTF name), or "" */
	char uapi[64];		/* header the numbers come from */
	uint32_t cmd_mask;	/* KPROF_PROFILE_MASK_* */
	struct kprof_profile_ioctl launch, sync;
};

/* Parses one profile from JSON text; origin names it in errors. 0 or -errno. */
int kprof_profile_parse(const char *text, size_t len, const char *origin,
			struct kprof_profile *p, struct kprof_err *err);
int kprof_profile_load_file(const char *path, struct kprof_profile *p,
			    struct kprof_err *err);

/*
 * Every *.json in dir, sorted by name; *out is malloc'ed (free()). A bad
 * file fails the whole load, naming the file: profiles are data we ship.
 */
int kprof_profiles_load_dir(const char *dir, struct kprof_profile **out, size_t *n,
			    struct kprof_err *err);

/*
 * Where the profiles are: $KPROF_PROFILES if set, else the installed
 * share/kprof/profiles next to the executable's prefix, else the source
 * tree's data/profiles (running from build/). Writes the path to buf;
 * 0 or -ENOENT (buf then lists what was tried).
 */
int kprof_profiles_dir(char *buf, size_t len);

const struct kprof_profile *kprof_profile_find(const struct kprof_profile *v, size_t n,
					       const char *name);
const struct kprof_profile *kprof_profile_for_backend(const struct kprof_profile *v,
						      size_t n, const char *backend);

/* The sim's profile from <linux/kprof_sim.h> itself: needs no data file. */
void kprof_profile_builtin_sim(struct kprof_profile *p);

/*
 * An ioctl command as a user writes it: a number (0x.., decimal, octal) or
 * _IO(type,nr) / _IOR / _IOW / _IOWR(type,nr,size), where type is a
 * character literal ('d') or a number and nr may be a sum (0x40+0x04).
 * 0 or -EINVAL with a message saying what is wrong.
 */
int kprof_ioctl_cmd_parse(const char *s, uint32_t *out, struct kprof_err *err);

/*
 * The BPF target for a profile and a concrete node (stat()ed: must be a
 * character device). t->handler points into p: keep p alive.
 */
int kprof_profile_target(const struct kprof_profile *p, const char *node,
			 struct kprof_bpf_target *t, struct kprof_err *err);

/*
 * `--dev-node N --launch-ioctl C [--sync-ioctl C]`: a profile for a driver
 * we know nothing else about (exact command match, no seq, no handler:
 * the tracer uses the syscall-level hooks). sync may be NULL.
 */
int kprof_profile_from_cli(const char *node, const char *launch, const char *sync,
			   struct kprof_profile *p, struct kprof_err *err);

#endif /* KPROF_PROFILE_H */
