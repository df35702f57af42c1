/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report.md as HTML, for report.html: the Markdown that kprof's own
 * report.md writer emits (ATX headings, paragraphs, "- " and "1. " lists,
 * pipe tables with an alignment row, **bold**, `code`, backslash escapes
 * of punctuation). Anything else is shown as escaped text: the input may
 * come from another machine, so no raw HTML, link or image ever passes.
 */
#ifndef KPROF_MDHTML_H
#define KPROF_MDHTML_H

#include <stdio.h>

/*
 * Reads Markdown from in and writes HTML to out, headings shifted down by
 * shift levels (1: "#" becomes <h2>), at most h6. Lines longer than
 * 64 KiB are cut. Returns 0, or -errno on a read error.
 */
int kprof_md_to_html(FILE *in, FILE *out, int shift);

#endif /* KPROF_MDHTML_H */
