#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make install` on a real host: kprof.ko into /lib/modules/$(uname -r)/extra
# (+ depmod), kprofctl into /usr/local/bin (and the CUPTI agent into
# /usr/local/lib/kprof), the udev rules, the driver
# profiles and the docs; creates the kprof group that owns /dev/kprofN.
#
# The module must be built for the running kernel:
#   make KDIR=/lib/modules/$(uname -r)/build && sudo make install
# or let DKMS rebuild it for every kernel (see dkms.conf).
# DESTDIR=/some/dir stages the files there and skips depmod, groupadd, udev.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
DESTDIR=${DESTDIR:-}
PREFIX=${PREFIX:-/usr/local}
KREL=${KREL:-$(uname -r)}

die() { echo "install: $*" >&2; exit 1; }

[ -n "$DESTDIR" ] || [ "$(id -u)" = 0 ] || die "run as root (sudo make install), or set DESTDIR"

ko=$ROOT/kmod/kprof.ko
ctl=$BUILD/kprofctl
[ -f "$ko" ] || die "$ko is missing: run 'make'"
[ -x "$ctl" ] || die "$ctl is missing: run 'make'"

# A module built for another kernel would only fail at insmod time; say it now.
vm=$(modinfo -F vermagic "$ko" | awk '{print $1}')
[ "$vm" = "$KREL" ] ||
	die "kmod/kprof.ko is built for $vm, this host runs $KREL: rebuild with 'make KDIR=/lib/modules/$KREL/build' (or use DKMS, see dkms.conf)"

install -D -m 0644 "$ko" "$DESTDIR/lib/modules/$KREL/extra/kprof.ko"
install -D -m 0755 "$ctl" "$DESTDIR$PREFIX/bin/kprofctl"
# the CUPTI agent of NVIDIA captures: kprofctl looks in ../lib/kprof/
if [ -f "$BUILD/libkprof_cupti.so" ]; then
	install -D -m 0755 "$BUILD/libkprof_cupti.so" "$DESTDIR$PREFIX/lib/kprof/libkprof_cupti.so"
fi
install -D -m 0644 "$ROOT/udev/99-kprof.rules" "$DESTDIR/etc/udev/rules.d/99-kprof.rules"
docdir=$DESTDIR$PREFIX/share/doc/kprof
install -d "$docdir"
install -m 0644 "$ROOT/README.md" "$docdir/"
for f in "$ROOT"/docs/*.md; do
	[ -e "$f" ] && install -m 0644 "$f" "$docdir/"
done
if [ -d "$ROOT/data/profiles" ]; then
	install -d "$DESTDIR$PREFIX/share/kprof/profiles"
	for f in "$ROOT"/data/profiles/*.json; do
		[ -f "$f" ] && install -m 0644 "$f" "$DESTDIR$PREFIX/share/kprof/profiles/"
	done
fi

if [ -z "$DESTDIR" ]; then
	getent group kprof >/dev/null || groupadd --system kprof
	depmod -a "$KREL"
	if command -v udevadm >/dev/null; then
		udevadm control --reload-rules || true
		udevadm trigger --subsystem-match=kprof --subsystem-match=misc || true
	fi
fi

echo "install: done. Load the module with 'modprobe kprof' (sim: 'modprobe kprof sim_devices=1');"
echo "install: add profiling users to the kprof group: usermod -aG kprof USER"
