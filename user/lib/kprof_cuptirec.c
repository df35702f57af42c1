// SPDX-License-Identifier: GPL-2.0
/*
 * Reader of the agent's recordings (kprof_cuptirec.h): the stand-in
 * libcupti plays them back, the tests compare outputs with them.
 */
#include "kprof_cuptirec.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <stdio.h>

static size_t padded(uint64_t len)
{
	return (size_t)((len + 7) & ~(uint64_t)7);
}

int kprof_crec_load(const char *path, struct kprof_crec *r, struct kprof_err *err)
{
	FILE *f = fopen(path, "rb");
	size_t off = 0;
	long n;

	memset(r, 0, sizeof(*r));
	if (!f)
		return kprof_err_set(err, errno, "cannot open recording %s: %s", path,
				     strerror(errno));
	n = fseek(f, 0, SEEK_END) ? -1 : ftell(f);
	if (n >= 0 && !fseek(f, 0, SEEK_SET))
		r->data = malloc(n ? (size_t)n : 1);
	if (!r->data || fread(r->data, 1, (size_t)n, f) != (size_t)n) {
		fclose(f);
		kprof_crec_free(r);
		return kprof_err_set(err, EIO, "cannot read recording %s", path);
	}
	fclose(f);
	r->len = (size_t)n;
	while (off < r->len) {
		struct kprof_crec_frame fr;

		if (r->len - off < sizeof(fr))
			goto bad;
		memcpy(&fr, r->data + off, sizeof(fr));
		if (fr.magic != KPROF_CREC_MAGIC || fr.len > r->len - off - sizeof(fr) ||
		    padded(fr.len) > r->len - off - sizeof(fr))
			goto bad;
		off += sizeof(fr) + padded(fr.len);
	}
	return 0;
bad:
	kprof_crec_free(r);
	return kprof_err_set(err, EBADMSG, "recording %s: bad frame at byte %zu", path, off);
}

void kprof_crec_free(struct kprof_crec *r)
{
	free(r->data);
	r->data = NULL;
	r->len = 0;
}

const struct kprof_crec_frame *kprof_crec_next(const struct kprof_crec *r, size_t *off,
					       const void **payload)
{
	const struct kprof_crec_frame *f;

	if (*off + sizeof(*f) > r->len)
		return NULL;
	f = (const void *)(r->data + *off);
	*payload = r->data + *off + sizeof(*f);
	*off += sizeof(*f) + padded(f->len);
	return f;
}
