#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The man pages and --help must not disagree. docs/man/Makefile makes
# kprofctl(1) and kprofctl-CMD(1) with help2man from `kprofctl [CMD] --help`
# plus the hand-written docs/man/*.h2m; this builds them afresh into a
# temporary directory with that Makefile and checks:
#   - one page per command in `kprofctl --help`, and no .h2m for a command
#     that does not exist;
#   - every option line of --help became an entry of the page's OPTIONS,
#     and every entry there is an option of --help (or, for kprofctl(1),
#     an option the top-level --help names): an option line help2man
#     cannot read (e.g. one space between the option and its text) fails;
#   - every option the hand-written text names is an option of the command
#     it names it for: of "kprofctl CMD" earlier on the same line, else of
#     the page's own command (a renamed or removed option fails);
#   - NAME is the command's line of `kprofctl --help` (lexgrog reads it),
#     the sections NAME SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS" FILES
#     EXAMPLES "SEE ALSO" are there, SEE ALSO names existing pages;
#   - man --warnings and groff -ww have nothing to say.
# Usage: man_pages.sh BUILD/kprofctl
set -uo pipefail

ctl=$(realpath "$1")
root=$(cd "$(dirname "$0")/../.." && pwd)
h2m=$root/docs/man
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kprof-man.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0

fail() { echo "man_pages: $*" >&2; fails=$((fails + 1)); }

if ! make -s -C "$h2m" KPROFCTL="$ctl" MANDIR="$tmp/man" >"$tmp/make.log" 2>&1; then
	cat "$tmp/make.log" >&2
	echo "man_pages: building the pages failed (is help2man installed? make deps)" >&2
	exit 1
fi

# roff or --help text -> plain: no font escapes, \- is -.
plain() { sed -e 's/\\f[BIRP]//g; s/\\f(CW//g; s/\\[,\/&%]//g; s/\\-/-/g; s/\\(aq/'"'"'/g'; }
# Options named in text: --long, and -x standing alone.
opts_in() {
	grep -oE '(^|[^-A-Za-z0-9])--?[A-Za-z][-A-Za-z0-9]*' | sed 's/^[^-]*//' |
		awk 'length($0) == 2 || substr($0, 1, 2) == "--"' | sort -u
}
# The option lines of --help (indented 1 to 10 spaces, starting with -):
# their tag, the text up to two spaces.
help_tags() {
	awk 'match($0, /^ +-/) && RLENGTH <= 11 { sub(/^ +/, ""); sub(/  .*/, ""); print }'
}
# A tag holds options and their arguments only (DIR, N, [=FILE], nvidia:N):
# a lowercase word means the text was not parted from it by two spaces.
bad_tag() {
	local w
	for w in $(tr ',|' '  ' <<<"$1"); do
		case $w in
		-*) ;;
		*[A-Z]*) ;;
		*[a-z]*) return 0 ;;
		esac
	done
	return 1
}
# One section of a roff page, plain.
section() { awk -v s="$2" '/^\.SH / { on = ($0 == ".SH " s || $0 == ".SH \"" s "\"") ; next } on' "$1"; }

cmds=$("$ctl" --help | awk '/^[Cc]ommands:$/ { on = 1; next } on && /^  [^ ]/ { if ($1 != "help") print $1; next } on { exit }')
[ -n "$cmds" ] || { echo "man_pages: no commands in 'kprofctl --help'" >&2; exit 1; }

for f in "$h2m"/kprofctl-*.h2m; do
	c=${f##*/kprofctl-}
	c=${c%.h2m}
	grep -qx -- "$c" <<<"$cmds" || fail "docs/man/kprofctl-$c.h2m: '$c' is not a command of 'kprofctl --help'"
done

for c in "" $cmds; do
	page=kprofctl${c:+-$c}
	man=$tmp/man/$page.1
	if [ ! -f "$h2m/$page.h2m" ] || [ ! -f "$man" ]; then
		fail "$page: no man page: write docs/man/$page.h2m (EXIT STATUS, FILES, EXAMPLES, SEE ALSO)"
		continue
	fi
	help=$("$ctl" ${c:+"$c"} --help)

	# --help's options against the page's OPTIONS.
	tags=$(help_tags <<<"$help")
	while IFS= read -r t; do
		[ -n "$t" ] && bad_tag "$t" && fail "$page: --help option line '$t': put two spaces between the option and its text (help2man reads it as one)"
	done <<<"$tags"
	help_opts=$(opts_in <<<"$tags")
	[ -n "$c" ] || help_opts=$(opts_in <<<"$help")
	page_tags=$(section "$man" OPTIONS | awk 'prev == ".TP" { print } { prev = $0 }' | plain)
	# not grep -q: under pipefail its early exit could hide a match
	section "$man" OPTIONS | grep '^\.HP' >/dev/null && fail "$page: OPTIONS has an entry without text (.HP): see --help's layout"
	while IFS= read -r t; do
		[ -n "$t" ] && bad_tag "$t" && fail "$page: OPTIONS entry '$t' is not just options"
	done <<<"$page_tags"
	page_opts=$(opts_in <<<"$page_tags")
	if [ -n "$c" ]; then
		missing=$(comm -23 <(echo "$help_opts") <(echo "$page_opts") | tr '\n' ' ')
		[ -z "${missing// /}" ] || fail "$page: OPTIONS lacks $missing(in --help)"
	fi
	extra=$(comm -13 <(echo "$help_opts") <(echo "$page_opts") | tr '\n' ' ')
	[ -z "${extra// /}" ] || fail "$page: OPTIONS describes $extra(not in --help)"

	# Options named by the hand-written text, per command.
	awk '/^\[/ { on = 1 } on' "$h2m/$page.h2m" | plain | awk -v self="$c" -v cmds="$(tr '\n' ' ' <<<"$cmds")" '
		BEGIN { n = split(cmds, a, " "); for (i = 1; i <= n; i++) known[a[i]] = 1 }
		{
			cur = self; nw = split($0, w, /[ \t"]+/)
			for (i = 1; i <= nw; i++) {
				if (w[i] == "kprofctl") { cur = (w[i + 1] in known) ? w[i + 1] : ""; continue }
				s = " " w[i]
				while (match(s, /[^-A-Za-z0-9]--?[A-Za-z][-A-Za-z0-9]*/)) {
					o = substr(s, RSTART + 1, RLENGTH - 1)
					if (length(o) == 2 || substr(o, 1, 2) == "--")
						print (cur == "" ? "-" : cur) "\t" o
					s = substr(s, RSTART + RLENGTH)
				}
			}
		}' | sort -u >"$tmp/named"
	for oc in $(cut -f1 "$tmp/named" | sort -u); do
		if [ "$oc" = - ]; then
			known=$("$ctl" --help | opts_in)
		else
			known=$("$ctl" "$oc" --help | help_tags | opts_in)
		fi
		name=kprofctl
		[ "$oc" = - ] || name="kprofctl $oc"
		for x in $(awk -F'\t' -v c="$oc" '$1 == c { print $2 }' "$tmp/named"); do
			grep -qx -- "$x" <<<"$known" ||
				fail "docs/man/$page.h2m names $x for '$name', which has no such option in --help"
		done
	done

	# NAME: the command's summary in `kprofctl --help`.
	whatis=$(lexgrog "$man" 2>&1)
	if [ -n "$c" ]; then
		sum=$("$ctl" --help | awk -v c="$c" '$1 == c { $1 = ""; sub(/^ +/, ""); print; exit }')
		[ "$whatis" = "$man: \"$page - $sum\"" ] || fail "$page: NAME reads $whatis, want \"$page - $sum\""
	else
		[[ $whatis == "$man: \"kprofctl - "?* ]] || fail "$page: NAME reads $whatis"
	fi

	for s in NAME SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS" FILES EXAMPLES "SEE ALSO"; do
		grep -qE "^\.SH \"?$s\"?\$" "$man" || fail "$page: no $s section"
	done
	for ref in $(section "$man" "SEE ALSO" | plain | grep -oE 'kprofctl(-[a-z-]+)?\(1\)' | sed 's/(1)//'); do
		[ -f "$tmp/man/$ref.1" ] || fail "$page: SEE ALSO names $ref(1), which does not exist"
	done

	w=$(MANWIDTH=80 LC_ALL=C.UTF-8 man --warnings -l "$man" 2>&1 >/dev/null)
	[ -z "$w" ] || fail "$page: man --warnings: $w"
	w=$(groff -ww -man -Tutf8 -z "$man" 2>&1)
	[ -z "$w" ] || fail "$page: groff -ww: $w"
done

n=$(($(wc -w <<<"$cmds") + 1))
if [ "$fails" -gt 0 ]; then
	echo "man_pages: $fails problems in $n pages" >&2
	exit 1
fi
echo "man_pages: $n pages agree with --help"
