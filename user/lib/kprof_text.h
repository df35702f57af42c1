/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names from foreign input (op codes, counter and zone names, process
 * comm, device names: spools, CSV and tt-metal logs may come from another
 * machine) made safe to show a person: in a terminal, summary.txt,
 * report.md. The rule (docs/formats.md, "Names in text outputs"): each C0
 * control (bytes 0x00-0x1f), DEL (0x7f), C1 control (U+0080-U+009F),
 * Unicode bidi override or isolate (U+202A-U+202E, U+2066-U+2069), and
 * each byte that is not part of valid UTF-8 is shown as one '?'. Anything
 * else passes unchanged.
 */
#ifndef KPROF_TEXT_H
#define KPROF_TEXT_H

#include <stddef.h>
#include <stdio.h>

/*
 * Writes the safe form of at most n bytes of s (less at a NUL) to out
 * (len bytes, always NUL-terminated when len > 0), never cutting a
 * character in two. Returns the length the whole safe form has (as
 * snprintf does: > len - 1 means it was cut).
 */
size_t kprof_text_safen(char *out, size_t len, const char *s, size_t n);
/* kprof_text_safen() of the whole string; returns out. */
char *kprof_text_safe(char *out, size_t len, const char *s);
/* The safe form of s to f. */
void kprof_text_put(FILE *f, const char *s);
/*
 * The safe form of s to f for Markdown text or a table cell: also each of
 * \ ` * _ [ ] < > & | ~ gets a backslash before it, so that nothing in a
 * name makes emphasis, code, a link, HTML, an entity or a table column.
 */
void kprof_md_put(FILE *f, const char *s);

#endif /* KPROF_TEXT_H */
