// SPDX-License-Identifier: GPL-2.0
/* Device names for --device: N, nvidia:N, nvidia:GPU-<uuid>; and back. */
#include "kt.h"
#include "kprof_devname.h"

#include <errno.h>

#define UUID "GPU-1b2c3d4e-5f60-7182-93a4-b5c6d7e8f901"

static void good(const char *s, enum kprof_device_kind kind, uint32_t index,
		 const char *uuid, const char *canon)
{
	struct kprof_device_id id;
	char why[256] = "", buf[KPROF_DEVICE_NAME_LEN];

	KT_CHECK(kprof_device_parse_name(s, &id, why, sizeof(why)) == 0,
		 "'%s' refused: %s", s, why);
	KT_EQ_U64(id.kind, kind);
	KT_EQ_U64(id.index, index);
	KT_STR(id.uuid, uuid);
	KT_STR(kprof_device_name(&id, buf, sizeof(buf)), canon);
}

static void bad(const char *s, const char *why_has)
{
	struct kprof_device_id id;
	char why[256] = "";

	KT_CHECK(kprof_device_parse_name(s, &id, why, sizeof(why)) == -EINVAL,
		 "'%s' accepted", s);
	KT_CHECK(strstr(why, why_has), "'%s': reason '%s' lacks '%s'",
		 s, why, why_has);
}

/* A --device list: the names in order, canonical. */
static void list_good(const char *s, const char *canon)
{
	struct kprof_device_id ids[KPROF_DEVICE_LIST_MAX];
	char why[256] = "", buf[KPROF_DEVICE_NAME_LEN], got[1024] = "";
	int n = kprof_device_parse_list(s, ids, KPROF_DEVICE_LIST_MAX, why, sizeof(why));

	KT_CHECK(n > 0, "'%s' refused: %s", s, why);
	for (int i = 0; i < n; i++) {
		size_t l = strlen(got);

		snprintf(got + l, sizeof(got) - l, "%s%s", i ? " " : "",
			 kprof_device_name(&ids[i], buf, sizeof(buf)));
	}
	KT_STR(got, canon);
}

static void list_bad(const char *s, int max, const char *why_has)
{
	struct kprof_device_id ids[KPROF_DEVICE_LIST_MAX];
	char why[256] = "";

	KT_CHECK(kprof_device_parse_list(s, ids, max, why, sizeof(why)) == -EINVAL,
		 "'%s' accepted", s);
	KT_CHECK(strstr(why, why_has), "'%s': reason '%s' lacks '%s'", s, why, why_has);
}

static void lists(void)
{
	char all[512] = "", want[512] = "";

	list_good("0", "0");
	list_good("0,1", "0 1");
	list_good("5,02,63", "5 2 63");
	list_good("nvidia:0,nvidia:1", "nvidia:0 nvidia:1");
	list_good("0,nvidia:0", "0 nvidia:0");	/* kinds differ: two devices */
	list_good("nvidia:" UUID ",nvidia:3", "nvidia:" UUID " nvidia:3");
	for (int i = 0; i < KPROF_DEVICE_LIST_MAX; i++) {
		size_t l = strlen(all), w = strlen(want);

		snprintf(all + l, sizeof(all) - l, "%s%d", i ? "," : "", i);
		snprintf(want + w, sizeof(want) - w, "%s%d", i ? " " : "", i);
	}
	list_good(all, want);

	list_bad("", KPROF_DEVICE_LIST_MAX, "empty device name");
	list_bad(NULL, KPROF_DEVICE_LIST_MAX, "empty device name");
	list_bad("0,", KPROF_DEVICE_LIST_MAX, "empty device name");
	list_bad(",1", KPROF_DEVICE_LIST_MAX, "empty device name");
	list_bad("0,,1", KPROF_DEVICE_LIST_MAX, "empty device name");
	list_bad("0,1,0", KPROF_DEVICE_LIST_MAX, "device 0 is named twice");
	list_bad("1,01", KPROF_DEVICE_LIST_MAX, "device 1 is named twice");
	list_bad("nvidia:2,nvidia:02", KPROF_DEVICE_LIST_MAX, "nvidia:2 is named twice");
	list_bad("0,64", KPROF_DEVICE_LIST_MAX, "at most 63");
	list_bad("0,amd:1", KPROF_DEVICE_LIST_MAX, "unknown device kind in 'amd:1'");
	list_bad("0, 1", KPROF_DEVICE_LIST_MAX, "bad device ' 1'");
	list_bad("0,1,2", 2, "more than 2 devices");
	/* an item longer than any name: refused whole, not cut to one */
	snprintf(all, sizeof(all), "0,nvidia:%0*d", KPROF_DEVICE_NAME_LEN, 7);
	list_bad(all, KPROF_DEVICE_LIST_MAX, "bad device 'nvidia:000000000...'");
}

int main(void)
{
	lists();
	good("0", KPROF_DEVICE_KPROF, 0, "", "0");
	good("63", KPROF_DEVICE_KPROF, 63, "", "63");
	good("007", KPROF_DEVICE_KPROF, 7, "", "7");
	good("nvidia:0", KPROF_DEVICE_NVIDIA, 0, "", "nvidia:0");
	good("nvidia:12", KPROF_DEVICE_NVIDIA, 12, "", "nvidia:12");
	good("nvidia:" UUID, KPROF_DEVICE_NVIDIA, 0, UUID, "nvidia:" UUID);
	good("nvidia:GPU-ABCDEF01-2345-6789-abcd-ef0123456789", KPROF_DEVICE_NVIDIA, 0,
	     "GPU-ABCDEF01-2345-6789-abcd-ef0123456789",
	     "nvidia:GPU-ABCDEF01-2345-6789-abcd-ef0123456789");

	bad("", "empty device name");
	bad(NULL, "empty device name");
	bad("64", "at most 63");
	bad("-1", "bad device '-1'");
	bad("+1", "bad device");
	bad("1x", "bad device");
	bad("99999999999999999999", "bad device");
	bad("kprof0", "bad device");
	bad("amd:0", "unknown device kind in 'amd:0'");
	bad("nvidia", "bad device");
	bad("nvidia:", "bad NVIDIA device 'nvidia:'");
	bad("nvidia:64", "bad NVIDIA device");
	bad("nvidia:-1", "bad NVIDIA device");
	bad("nvidia:0 ", "bad NVIDIA device");
	bad("NVIDIA:0", "unknown device kind");
	bad("nvidia:GPU-", "bad GPU UUID");
	bad("nvidia:GPU-1b2c3d4e-5f60-7182-93a4-b5c6d7e8f90", "bad GPU UUID");	/* short */
	bad("nvidia:GPU-1b2c3d4e-5f60-7182-93a4-b5c6d7e8f9011", "bad GPU UUID");	/* long */
	bad("nvidia:GPU-1b2c3d4e-5f60-7182-93a4_b5c6d7e8f901", "bad GPU UUID");	/* dash */
	bad("nvidia:GPU-1b2c3d4g-5f60-7182-93a4-b5c6d7e8f901", "bad GPU UUID");	/* hex */
	bad("nvidia:MIG-1b2c3d4e-5f60-7182-93a4-b5c6d7e8f901", "bad NVIDIA device");

	{
		struct kprof_device_id id = { .kind = KPROF_DEVICE_KPROF, .index = 5 };
		char small[4];

		/* truncation stays a string */
		id.kind = KPROF_DEVICE_NVIDIA;
		KT_STR(kprof_device_name(&id, small, sizeof(small)), "nvi");
		KT_STR(kprof_device_kind_str(KPROF_DEVICE_NVIDIA), "nvidia");
		KT_STR(kprof_device_kind_str(KPROF_DEVICE_KPROF), "kprof");
	}
	return kt_done("devname");
}
