// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* kprofctl: command dispatch, version, help and shared helpers. */
#include "kprofctl.h"
#include "kprof_text.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

int cmd_diff(int argc, char **argv);

static const struct command commands[] = {
	{ "list", cmd_list, "list kprof devices" },
	{ "info", cmd_info, "show one device: cores, counters, clock, capture holder" },
	{ "capture", cmd_capture, "capture a command (or a time span) into CSVs" },
	{ "report", cmd_report, "re-make outputs from a capture's raw spool, or from a tt-metal log" },
	{ "diff", cmd_diff, "compare two captures by op kind, flag changes beyond noise" },
	{ "lock-clock", cmd_lock_clock, "pin the device (and/or host) clock" },
	{ "reset-clock", cmd_reset_clock, "restore the clock state from before the first lock" },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: kprofctl COMMAND [OPTIONS]\n\ncommands:\n");
	for (i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-12s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "  %-12s %s\n", "help", "this text; 'kprofctl help COMMAND' for one command");
	fprintf(f, "\n'kprofctl COMMAND --help' describes each command.\n"
		   "--version prints the version.\n");
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

int main(int argc, char **argv)
{
	const char *name;
	size_t i;

	if (argc < 2) {
		usage(stderr);
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
					char *av[] = { argv[2], "--help", NULL };

					return commands[i].fn(2, av);
				}
			}
			fprintf(stderr, "kprofctl: unknown command '%s'\n",
				argv[2]);
			usage(stderr);
			return KPROFCTL_EXIT_USAGE;
		}
		usage(stdout);
		return 0;
	}
	for (i = 0; i < NCOMMANDS; i++)
		if (!strcmp(name, commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "kprofctl: unknown command '%s'\n\n", name);
	usage(stderr);
	return KPROFCTL_EXIT_USAGE;
}
