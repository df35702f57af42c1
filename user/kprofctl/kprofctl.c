// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* kprofctl: command dispatch, version, help and shared helpers. */
#include "kprofctl.h"
#include "kprof_array_size.h"
#include "kprof_env.h"
#include "kprof_user.h"
#include "kprof_text.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "list", cmd_list, "list kprof devices" },
	{ "info", cmd_info, "show one device: cores, counters, clock, capture holder" },
	{ "capture", cmd_capture, "capture a command (or a time span) into CSVs" },
	{ "report", cmd_report,
	  "re-make outputs from a capture's raw spool, or from a tt-metal log" },
	{ "diff", cmd_diff, "compare two captures by op kind, flag changes beyond noise" },
	{ "lock-clock", cmd_lock_clock, "pin the device (and/or host) clock" },
	{ "reset-clock", cmd_reset_clock, "restore the clock state from before the first lock" },
};

#define NCOMMANDS (ARRAY_SIZE(commands))

static void main_usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: kprofctl [--trust-env] COMMAND [OPTIONS]\n\ncommands:\n");
	for (i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-12s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "  %-12s %s\n", "help", "this text; 'kprofctl help COMMAND' for one command");
	fprintf(f, "\n'kprofctl COMMAND --help' describes each command.\n"
		   "--version prints the version.\n"
		   "--trust-env honours KPROF_* environment variables (KPROF_RUN_DIR,\n"
		   "  KPROF_SYSFS_ROOT, KPROF_DEV_DIR...) when running as root; without it\n"
		   "  root ignores them (docs/security.md). Without root they always count.\n");
}

/*
 * A message on stderr as a terminal may show it: the names it quotes
 * (a holder's comm, op codes, file contents) may hold control
 * characters (kprof_text.h).
 */
static void put_msg(const char *fmt, va_list ap)
{
	char *msg;

	if (vasprintf(&msg, fmt, ap) < 0) {
		fputs("(out of memory formatting the message)", stderr);
		return;
	}
	kprof_text_put(stderr, msg);
	free(msg);
}

int kprofctl_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "kprofctl %s: ", cmd);
	va_start(ap, fmt);
	put_msg(fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'kprofctl %s --help'.\n", cmd);
	return KPROFCTL_EXIT_USAGE;
}

void kprofctl_err(const char *fmt, ...)
{
	va_list ap;

	fputs("kprofctl: ", stderr);
	va_start(ap, fmt);
	put_msg(fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void kprofctl_warn(const char *fmt, ...)
{
	va_list ap;

	fputs("kprofctl: warning: ", stderr);
	va_start(ap, fmt);
	put_msg(fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int kprofctl_parse_u32(const char *s, uint32_t max, uint32_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v > max)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

int kprofctl_parse_size(const char *s, uint64_t *out)
{
	unsigned long long v;
	char *end;
	unsigned int shift = 0;

	if (!s || !*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -1;
	switch (*end) {
	case '\0':
		break;
	case 'k': case 'K':
		shift = 10;
		break;
	case 'm': case 'M':
		shift = 20;
		break;
	case 'g': case 'G':
		shift = 30;
		break;
	default:
		return -1;
	}
	if (*end && end[1] && strcmp(end + 1, "iB") && strcmp(end + 1, "B"))
		return -1;
	if (v > (ULLONG_MAX >> shift))
		return -1;
	*out = (uint64_t)v << shift;
	return 0;
}

int kprofctl_run_as_owner(const char *cmd, const char *const *paths, size_t n)
{
	struct kprof_err err = { 0 };
	struct kprof_user u;
	int r, sudo;

	if (geteuid() != 0)
		return 0;
	/* Under sudo: the user's own rights, never root's, whoever owns the files. */
	if (kprof_user_for_workload(NULL, &u, &err)) {
		kprofctl_err("%s: %s", cmd, err.msg);
		return -1;
	}
	sudo = u.drop;
	if (sudo) {
		r = 1;
	} else {
		r = kprof_user_owner_of(paths, n, &u, &err);
		u.drop = r == 1;
	}
	if (r < 0) {
		kprofctl_err("%s: %s; as root, kprofctl %s works as the owner of its files: give it files of one user (or run it as that user)",
			     cmd, err.msg, cmd);
		return -1;
	}
	if (r == 0)
		return 0;	/* all root's: nothing to drop to */
	r = kprof_user_become(&u, &err);
	if (r) {
		kprofctl_err("%s: cannot become %s (uid %u), the owner of %s: %s",
			     cmd, u.name[0] ? u.name : "the user", (unsigned int)u.uid,
			     n == 1 ? paths[0] : "the files", err.msg);
		return -1;
	}
	fprintf(stderr, "kprofctl: %s: running as %s (uid %u), %s, not as root\n",
		cmd, u.name[0] ? u.name : "the user", (unsigned int)u.uid,
		sudo ? "who ran sudo" : "the owner of the files");
	return 0;
}

int main(int argc, char **argv)
{
	const char *name;
	int trust_env = 0;
	size_t i;

	/*
	 * Set-id or file capabilities would let any user run this as root,
	 * with BPF that sees every process using a device: not supported.
	 */
	if (getauxval(AT_SECURE)) {
		fprintf(stderr,
			"kprofctl: this kprofctl runs set-user-ID, set-group-ID or with file capabilities, which is not supported: any user could then trace other users' processes. Remove them (chmod u-s,g-s; setcap -r) and run kprofctl as root, e.g. with sudo (docs/security.md)\n");
		return KPROFCTL_EXIT_FAIL;
	}
	while (argc > 1 && !strcmp(argv[1], "--trust-env")) {
		trust_env = 1;
		argv[1] = argv[0];
		argc--;
		argv++;
	}
	/* sudo's user must not choose where root reads and writes */
	if (trust_env && geteuid() == 0 && getenv("SUDO_UID") &&
	    strcmp(getenv("SUDO_UID"), "0")) {
		fprintf(stderr,
			"kprofctl: --trust-env is refused under sudo: KPROF_* variables would let the sudo user choose where root reads and writes (docs/security.md); as root without sudo: env -u SUDO_UID kprofctl --trust-env ...\n");
		return KPROFCTL_EXIT_FAIL;
	}
	kprof_env_trust(trust_env);

	if (argc < 2) {
		main_usage(stderr);
		return KPROFCTL_EXIT_USAGE;
	}
	name = argv[1];
	if (!strcmp(name, "--version") || !strcmp(name, "version")) {
		printf("kprofctl %s (uapi %d)\n", KPROF_VERSION,
		       KPROF_UAPI_VERSION);
		return 0;
	}
	if (!strcmp(name, "help") || !strcmp(name, "--help") ||
	    !strcmp(name, "-h")) {
		if (argc > 2 && strcmp(name, "help") == 0) {
			for (i = 0; i < NCOMMANDS; i++) {
				if (!strcmp(argv[2], commands[i].name)) {
					char *av[3] = { argv[2], "--help", NULL };

					return commands[i].fn(2, av);
				}
			}
			fprintf(stderr, "kprofctl: unknown command '%s'\n",
				argv[2]);
			main_usage(stderr);
			return KPROFCTL_EXIT_USAGE;
		}
		main_usage(stdout);
		return 0;
	}
	for (i = 0; i < NCOMMANDS; i++)
		if (!strcmp(name, commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "kprofctl: unknown command '%s'\n\n", name);
	main_usage(stderr);
	return KPROFCTL_EXIT_USAGE;
}
