#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make install` on a real host: kprof.ko and its backend modules
# (kprof_sim.ko...) into /lib/modules/$(uname -r)/extra
# (+ depmod), kprofctl into /usr/local/bin (and the CUPTI agent into
# /usr/local/lib/kprof), its man pages, the udev rules,
# the driver profiles and device peaks (share/kprof/, where kprofctl looks
# beside its bin/) and the docs; creates the kprof group that owns
# /dev/kprofN.
#
# The module must be built for the running kernel:
#   make KDIR=/lib/modules/$(uname -r)/build && sudo make install
# or install the packages of `make deb`, with which DKMS rebuilds it for
# every kernel.
# DESTDIR=/some/dir stages the files there and skips depmod, groupadd, udev.
# --no-module: everything but the modules (the kprofctl package, packaging/).
# UDEVDIR (default /etc/udev/rules.d) is where the rules go.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
DESTDIR=${DESTDIR:-}
PREFIX=${PREFIX:-/usr/local}
UDEVDIR=${UDEVDIR:-/etc/udev/rules.d}
KREL=${KREL:-$(uname -r)}
module=1

die() { echo "install: $*" >&2; exit 1; }

case ${1:-} in
"") ;;
--no-module) module=0 ;;
*) die "usage: $0 [--no-module]" ;;
esac

[ -n "$DESTDIR" ] || [ "$(id -u)" = 0 ] || die "run as root (sudo make install), or set DESTDIR"

ko=$ROOT/kmod/kprof.ko
# The backends, each a module of its own that needs kprof.ko.
backends="$ROOT/kmod/sim/kprof_sim.ko $ROOT/kmod/edu/kprof_edu.ko"
ctl=$BUILD/kprofctl
[ "$module" = 0 ] || [ -f "$ko" ] || die "$ko is missing: run 'make'"
[ -x "$ctl" ] || die "$ctl is missing: run 'make'"
ls "$BUILD"/man/kprofctl*.1 >/dev/null 2>&1 || die "no man pages in $BUILD/man: run 'make man'"

if [ "$module" = 1 ]; then
	# A module built for another kernel would only fail at insmod time; say it now.
	vm=$(modinfo -F vermagic "$ko" | awk '{print $1}')
	[ "$vm" = "$KREL" ] ||
		die "kmod/kprof.ko is built for $vm, this host runs $KREL: rebuild with 'make KDIR=/lib/modules/$KREL/build' (or install the packages of 'make deb': DKMS builds it for every kernel)"
	install -D -m 0644 "$ko" "$DESTDIR/lib/modules/$KREL/extra/kprof.ko"
	for b in $backends; do
		[ -f "$b" ] || die "$b is missing: run 'make'"
		install -D -m 0644 "$b" "$DESTDIR/lib/modules/$KREL/extra/${b##*/}"
	done
fi
install -D -m 0755 "$ctl" "$DESTDIR$PREFIX/bin/kprofctl"
# the CUPTI agent of NVIDIA captures: kprofctl looks in ../lib/kprof/
if [ -f "$BUILD/libkprof_cupti.so" ]; then
	install -D -m 0755 "$BUILD/libkprof_cupti.so" "$DESTDIR$PREFIX/lib/kprof/libkprof_cupti.so"
fi
install -D -m 0644 "$ROOT/udev/99-kprof.rules" "$DESTDIR$UDEVDIR/99-kprof.rules"
install -d "$DESTDIR$PREFIX/share/man/man1"
install -m 0644 "$BUILD"/man/kprofctl*.1 "$DESTDIR$PREFIX/share/man/man1/"
# The directory the man pages name (/usr/share/doc/kprofctl in the package).
docdir=$DESTDIR$PREFIX/share/doc/kprofctl
install -d "$docdir"
install -m 0644 "$ROOT/README.md" "$docdir/"
for f in "$ROOT"/docs/*.md; do
	[ -e "$f" ] && install -m 0644 "$f" "$docdir/"
done
# Only the JSON files: kprofctl reads every *.json there.
for d in profiles peaks; do
	install -d "$DESTDIR$PREFIX/share/kprof/$d"
	for f in "$ROOT/data/$d"/*.json; do
		[ -f "$f" ] && install -m 0644 "$f" "$DESTDIR$PREFIX/share/kprof/$d/"
	done
done

if [ -z "$DESTDIR" ]; then
	getent group kprof >/dev/null || groupadd --system kprof
	[ "$module" = 0 ] || depmod -a "$KREL"
	if command -v udevadm >/dev/null; then
		udevadm control --reload-rules || true
		udevadm trigger --subsystem-match=kprof --subsystem-match=misc || true
	fi
fi

echo "install: done. Load the simulated device with 'modprobe kprof_sim sim_devices=1' (it loads kprof.ko first);"
echo "install: add profiling users to the kprof group: usermod -aG kprof USER"
