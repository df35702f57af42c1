#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make deb`: the kprof-dkms and kprofctl packages, into $BUILD/deb/.
# The tree's files (tracked, and untracked ones git does not ignore; no
# build outputs) are copied to $BUILD/deb/kprof-VERSION/ with
# packaging/debian/ as its debian/, so the tree's top level holds no
# debian/. There dpkg-buildpackage -b builds both packages (debian/rules),
# and lintian must find nothing to report: no error, no warning (its
# overrides, each with its reason, are in packaging/debian/*.lintian-overrides).
# The copy is removed after a good build, kept after a failed one.
# Logs: $BUILD/deb/build.log, $BUILD/deb/lintian.log.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
out=$BUILD/deb

die() { echo "deb: $*" >&2; exit 1; }
say() { echo "deb: $*"; }

for t in dpkg-buildpackage dh dh_dkms help2man lintian fakeroot; do
	command -v "$t" >/dev/null || die "$t is missing: run 'make deps'"
done
command -v git >/dev/null && git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1 ||
	die "$ROOT is not a git checkout: the package is made from the files git knows"

ver=$("$ROOT/scripts/version.sh")
src=$out/kprof-$ver
rm -rf "$out"
mkdir -p "$src"

# What git knows, less files deleted in the working tree.
(cd "$ROOT" && comm -23 <(git ls-files -co --exclude-standard | sort) <(git ls-files -d | sort) |
	tar -cf - --no-recursion -T -) | tar -xf - -C "$src"
cp -r "$ROOT/packaging/debian" "$src/debian"

say "building kprof-dkms and kprofctl $ver in $src (log: $out/build.log)"
t0=$(date +%s)
# The caller's make exports its own BUILD, KDIR and flags: not for this tree.
if ! (cd "$src" && env -u BUILD -u KPROF_ROOT -u KDIR -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
	dpkg-buildpackage -b -us -uc) >"$out/build.log" 2>&1; then
	tail -n 30 "$out/build.log" >&2
	die "dpkg-buildpackage failed: see $out/build.log (the copy is kept in $src)"
fi
say "built in $(($(date +%s) - t0)) s"

changes=$(ls "$out"/kprof_"${ver}"_*.changes)
# --fail-on warning: a warning fails as an error does; info and pedantic
# tags are shown, not fatal.
if ! lintian --fail-on error,warning --info "$changes" >"$out/lintian.log" 2>&1; then
	cat "$out/lintian.log" >&2
	die "lintian found problems (above; $out/lintian.log)"
fi
if grep -E '^[EW]: ' "$out/lintian.log" >&2; then
	die "lintian reported errors or warnings (above; $out/lintian.log)"
fi
rm -rf "$src"
say "lintian: no errors, no warnings ($out/lintian.log)"
ls -1 "$out"/*.deb
