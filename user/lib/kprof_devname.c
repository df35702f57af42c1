// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Device names: "N", "nvidia:N", "nvidia:GPU-<uuid>" (kprof_devname.h). */
#include "kprof_devname.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define NVIDIA_PREFIX	"nvidia:"

/* Whole string of decimal digits, at most KPROF_DEVICE_INDEX_MAX. */
static int parse_index(const char *s, uint32_t *out)
{
	uint32_t v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (uint32_t)(*s - '0');
		if (v > KPROF_DEVICE_INDEX_MAX)
			return -1;
	}
	*out = v;
	return 0;
}

/* "GPU-" then 8-4-4-4-12 hex digits: the form nvidia-smi -L prints. */
static int valid_uuid(const char *s)
{
	static const char shape[] = "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx";
	size_t i;

	if (strlen(s) != sizeof(shape) - 1)
		return 0;
	for (i = 0; shape[i]; i++) {
		char c = s[i];

		if (shape[i] != 'x') {
			if (c != shape[i])
				return 0;
		} else if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
			     (c >= 'A' && c <= 'F'))) {
			return 0;
		}
	}
	return 1;
}

int kprof_device_parse_name(const char *s, struct kprof_device_id *id,
			    char *why, size_t why_len)
{
	const char *rest;

	memset(id, 0, sizeof(*id));
	if (!s || !*s) {
		snprintf(why, why_len, "empty device name: give " KPROF_DEVICE_NAME_HELP);
		return -EINVAL;
	}
	if (strncmp(s, NVIDIA_PREFIX, strlen(NVIDIA_PREFIX))) {
		if (strchr(s, ':')) {
			snprintf(why, why_len,
				 "unknown device kind in '%s': give " KPROF_DEVICE_NAME_HELP, s);
			return -EINVAL;
		}
		if (parse_index(s, &id->index)) {
			snprintf(why, why_len,
				 "bad device '%s': give " KPROF_DEVICE_NAME_HELP
				 " (N at most %d)", s, KPROF_DEVICE_INDEX_MAX);
			return -EINVAL;
		}
		id->kind = KPROF_DEVICE_KPROF;
		return 0;
	}
	id->kind = KPROF_DEVICE_NVIDIA;
	rest = s + strlen(NVIDIA_PREFIX);
	if (!strncmp(rest, "GPU-", 4)) {
		if (!valid_uuid(rest)) {
			snprintf(why, why_len,
				 "bad GPU UUID in '%s': want nvidia:GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx (nvidia-smi -L prints them)",
				 s);
			return -EINVAL;
		}
		snprintf(id->uuid, sizeof(id->uuid), "%s", rest);
		return 0;
	}
	if (parse_index(rest, &id->index)) {
		snprintf(why, why_len,
			 "bad NVIDIA device '%s': give nvidia:N (NVML index, at most %d) or nvidia:GPU-<uuid>",
			 s, KPROF_DEVICE_INDEX_MAX);
		return -EINVAL;
	}
	return 0;
}

int kprof_device_parse_list(const char *s, struct kprof_device_id *ids, int max,
			    char *why, size_t why_len)
{
	char item[KPROF_DEVICE_NAME_LEN + 1];
	char a[KPROF_DEVICE_NAME_LEN], b[KPROF_DEVICE_NAME_LEN];
	const char *p = s ? s : "";
	int n = 0;

	for (;;) {
		size_t len = strcspn(p, ",");

		if (!len) {
			snprintf(why, why_len,
				 "empty device name in the list '%s': give NAME[,NAME...], each "
				 KPROF_DEVICE_NAME_HELP, s ? s : "");
			return -EINVAL;
		}
		if (n == max) {
			snprintf(why, why_len, "more than %d devices in '%s'", max, s);
			return -EINVAL;
		}
		/* longer than any name: refused whole, not cut */
		if (len >= sizeof(item)) {
			snprintf(why, why_len,
				 "bad device '%.16s...': give " KPROF_DEVICE_NAME_HELP, p);
			return -EINVAL;
		}
		memcpy(item, p, len);
		item[len] = '\0';
		if (kprof_device_parse_name(item, &ids[n], why, why_len))
			return -EINVAL;
		kprof_device_name(&ids[n], a, sizeof(a));
		for (int i = 0; i < n; i++) {
			if (!strcmp(a, kprof_device_name(&ids[i], b, sizeof(b)))) {
				snprintf(why, why_len, "device %s is named twice in '%s'", a, s);
				return -EINVAL;
			}
		}
		n++;
		p += len;
		if (!*p)
			return n;
		p++;	/* the comma */
	}
}

const char *kprof_device_name(const struct kprof_device_id *id, char *buf,
			      size_t len)
{
	if (id->kind == KPROF_DEVICE_NVIDIA && id->uuid[0])
		snprintf(buf, len, NVIDIA_PREFIX "%s", id->uuid);
	else if (id->kind == KPROF_DEVICE_NVIDIA)
		snprintf(buf, len, NVIDIA_PREFIX "%u", id->index);
	else
		snprintf(buf, len, "%u", id->index);
	return buf;
}

const char *kprof_device_kind_str(enum kprof_device_kind kind)
{
	return kind == KPROF_DEVICE_NVIDIA ? "nvidia" : "kprof";
}
