#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make deps`: install every Debian package kprof needs, then prepare the
# caches the build and the VM lane use (outside the tree, in $KPROF_CACHE):
#   linux-source-6.1/         checkpatch.pl, kselftest_harness.h
#   linux-image-<release>/    the stock kernel matching the installed headers,
#                             unpacked (never installed) for tests/vm/run
#   kbuild-<release>/         the installed headers plus that kernel's vmlinux
#                             and resolve_btfids, so kprof.ko gets its own BTF
#                             (the top-level Makefile's default KDIR)
# Idempotent: re-running installs nothing and unpacks nothing new.
#
#   scripts/deps.sh            packages + caches
#   scripts/deps.sh --caches   caches only (no apt-get install)
#   scripts/deps.sh --list     print the package list
set -euo pipefail

# The one list of Debian packages the project needs (build, tests, VM, style).
# Add a package here when you start using it.
PACKAGES=(
	build-essential pkg-config
	linux-headers-amd64 linux-source-6.1
	clang llvm libclang-rt-14-dev sparse dwarves lz4
	bpftool libbpf-dev libelf-dev zlib1g-dev libzstd-dev
	libpfm4-dev libjson-c-dev
	qemu-system-x86 busybox-static mawk cpio kmod xz-utils zstd file
	python3 perl git debootstrap
	flex bison bc rsync
	chromium
	help2man man-db debhelper dh-dkms lintian fakeroot
)

KPROF_CACHE=${KPROF_CACHE:-~/.cache/kprof}

die() { echo "deps: $*" >&2; exit 1; }
say() { echo "deps: $*"; }

missing_packages() {
	local p st
	for p in "${PACKAGES[@]}"; do
		st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
		[ "$st" = installed ] || echo "$p"
	done
}

as_root() {
	if [ "$(id -u)" = 0 ]; then
		"$@"
	elif command -v sudo >/dev/null; then
		sudo "$@"
	else
		die "need root to run: $* (run 'make deps' as root)"
	fi
}

install_packages() {
	local missing
	missing=$(missing_packages)
	if [ -z "$missing" ]; then
		say "all ${#PACKAGES[@]} packages installed"
		return
	fi
	say "installing: $(tr '\n' ' ' <<<"$missing")"
	as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
	# shellcheck disable=SC2086
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing </dev/null
}

# The newest installed 6.1 amd64 headers: the module is built against them
# and the VM must boot the kernel of the same release (vermagic).
headers_release() {
	local d
	d=$(printf '%s\n' /usr/src/linux-headers-6.1.*-amd64 | sort -V | tail -n1)
	[ -d "$d" ] || d=
	[ -n "$d" ] || die "no /usr/src/linux-headers-6.1.*-amd64: install linux-headers-amd64"
	basename "$d" | sed 's/^linux-headers-//'
}

unpack_source() {
	local dst=$KPROF_CACHE/linux-source-6.1 tarball=/usr/src/linux-source-6.1.tar.xz
	if [ -f "$dst/scripts/checkpatch.pl" ] &&
	   [ -f "$dst/tools/testing/selftests/kselftest_harness.h" ]; then
		return
	fi
	[ -f "$tarball" ] || die "$tarball is missing: install linux-source-6.1"
	say "unpacking $tarball into $dst"
	rm -rf "$dst.tmp"
	mkdir -p "$dst.tmp"
	tar -xf "$tarball" -C "$dst.tmp" --strip-components=1
	rm -rf "$dst"
	mv "$dst.tmp" "$dst"
}

fetch_image() {
	local rel ver pkg dst deb
	rel=$(headers_release)
	pkg=linux-image-$rel
	dst=$KPROF_CACHE/$pkg
	[ -f "$dst/boot/vmlinuz-$rel" ] && [ -f "$dst/lib/modules/$rel/modules.dep" ] && return
	ver=$(dpkg-query -W -f='${Version}' "linux-headers-$rel" 2>/dev/null) ||
		die "linux-headers-$rel is not installed as a package"
	# apt-get download spells an epoch's colon as %3a in the file name.
	deb=$KPROF_CACHE/${pkg}_${ver//:/%3a}_amd64.deb
	[ -f "$deb" ] || deb=
	if [ -z "$deb" ]; then
		say "downloading $pkg=$ver"
		# apt's download sandbox user may not write into $HOME; fetch as us.
		if ! (cd "$KPROF_CACHE" && apt-get download -q -o APT::Sandbox::User=root "$pkg=$ver"); then
			as_root apt-get update -q
			(cd "$KPROF_CACHE" && apt-get download -q -o APT::Sandbox::User=root "$pkg=$ver") ||
				die "cannot download $pkg=$ver: the archive may have moved on; upgrade linux-headers-amd64 and re-run"
		fi
		deb=$KPROF_CACHE/${pkg}_${ver//:/%3a}_amd64.deb
		[ -f "$deb" ] || die "apt-get download did not leave $deb"
	fi
	say "unpacking $deb into $dst"
	rm -rf "$dst.tmp"
	dpkg-deb -x "$deb" "$dst.tmp"
	# The package ships no modules.dep (postinst makes it); tests/vm/run
	# resolves module dependencies from it.
	depmod -b "$dst.tmp" "$rel"
	rm -rf "$dst"
	mv "$dst.tmp" "$dst"
}

# Kbuild writes a module's BTF (split against vmlinux, with pahole) only when
# $(objtree)/vmlinux exists, and then runs tools/bpf/resolve_btfids; Debian's
# headers ship neither. This tree is the headers, by symlink, plus both.
make_kbuild() {
	local rel hdr dst img e
	rel=$(headers_release)
	hdr=/usr/src/linux-headers-$rel
	dst=$KPROF_CACHE/kbuild-$rel
	img=$KPROF_CACHE/linux-image-$rel/boot/vmlinuz-$rel
	[ -f "$dst/vmlinux" ] && [ -x "$dst/tools/bpf/resolve_btfids/resolve_btfids" ] && return
	say "making $dst (headers + vmlinux + resolve_btfids, for module BTF)"
	rm -rf "$dst.tmp"
	mkdir -p "$dst.tmp/tools/bpf/resolve_btfids"
	for e in "$hdr"/* "$hdr"/.config "$hdr"/.kernelvariables; do
		[ "${e##*/}" = tools ] || ln -s "$e" "$dst.tmp/"
	done
	for e in "$hdr"/tools/*; do
		ln -s "$e" "$dst.tmp/tools/"
	done
	"$KPROF_CACHE/linux-source-6.1/scripts/extract-vmlinux" "$img" >"$dst.tmp/vmlinux"
	# grep reads all (not -q): readelf killed by SIGPIPE after an early
	# match would fail the pipeline under pipefail, at random
	readelf -S "$dst.tmp/vmlinux" | grep '\.BTF ' >/dev/null || die "no .BTF section in the vmlinux of $img"
	make -s -C "$KPROF_CACHE/linux-source-6.1/tools/bpf/resolve_btfids" -j2 \
		OUTPUT="$dst.tmp/tools/bpf/resolve_btfids/" >"$dst.tmp/resolve_btfids.log" 2>&1 ||
		die "building resolve_btfids failed: see $dst.tmp/resolve_btfids.log"
	rm -rf "$dst"
	mv "$dst.tmp" "$dst"
}

prepare_caches() {
	mkdir -p "$KPROF_CACHE"
	# Several users of one cache may run this at once.
	exec 9>"$KPROF_CACHE/.lock"
	flock 9
	unpack_source
	fetch_image
	make_kbuild
	exec 9>&-
	say "caches ready in $KPROF_CACHE"
}

case "${1:-}" in
--list)
	printf '%s\n' "${PACKAGES[@]}"
	;;
--caches)
	prepare_caches
	;;
"")
	install_packages
	prepare_caches
	;;
*)
	die "usage: $0 [--caches|--list]"
	;;
esac
