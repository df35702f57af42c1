/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Device names, as --device takes them and as every output prints them:
 *   N                    /dev/kprofN (0..63)
 *   nvidia:N             NVIDIA GPU of NVML index N (nvidia-smi's index)
 *   nvidia:GPU-<uuid>    the NVIDIA GPU with that UUID (nvidia-smi -L)
 * Pure parsing and formatting (tests/unit/test_devname.c).
 */
#ifndef KPROF_DEVNAME_H
#define KPROF_DEVNAME_H

#include <stddef.h>
#include <stdint.h>

enum kprof_device_kind {
	KPROF_DEVICE_KPROF,	/* /dev/kprofN */
	KPROF_DEVICE_NVIDIA,	/* NVML */
	KPROF_DEVICE_NKINDS
};

/* NVML's UUID buffer; a UUID is "GPU-" + 36 characters. */
#define KPROF_DEVICE_UUID_LEN	96
/* "nvidia:" + UUID */
#define KPROF_DEVICE_NAME_LEN	(8 + KPROF_DEVICE_UUID_LEN)
/* Highest N of /dev/kprofN (KPROF_DEV_MAX - 1) and of nvidia:N. */
#define KPROF_DEVICE_INDEX_MAX	63

/* What --device names. */
struct kprof_device_id {
	enum kprof_device_kind kind;
	uint32_t index;				/* N of /dev/kprofN, or NVML index */
	char uuid[KPROF_DEVICE_UUID_LEN];	/* nvidia:GPU-...; "" = by index */
};

/* For --help texts and messages. */
#define KPROF_DEVICE_NAME_HELP \
	"N (/dev/kprofN), nvidia:N (NVML index) or nvidia:GPU-<uuid>"

/*
 * Parse a --device argument. 0, or -EINVAL with a one-line reason in why
 * (what was wrong, and the accepted forms).
 */
int kprof_device_parse_name(const char *s, struct kprof_device_id *id,
			    char *why, size_t why_len);
/* Most devices one --device list names (/dev/kprof0..63). */
#define KPROF_DEVICE_LIST_MAX	(KPROF_DEVICE_INDEX_MAX + 1)

/*
 * Parse a --device list: NAME[,NAME...], each NAME as
 * kprof_device_parse_name, into ids (at most max). No empty NAME, no
 * device twice (by canonical name). Returns the count (>= 1), or -EINVAL
 * with a one-line reason in why.
 */
int kprof_device_parse_list(const char *s, struct kprof_device_id *ids, int max,
			    char *why, size_t why_len);
/* The name back: "3", "nvidia:0", "nvidia:GPU-...". */
const char *kprof_device_name(const struct kprof_device_id *id, char *buf,
			      size_t len);
/* "kprof" / "nvidia": the "kind" field of --json outputs. */
const char *kprof_device_kind_str(enum kprof_device_kind kind);

#endif /* KPROF_DEVNAME_H */
