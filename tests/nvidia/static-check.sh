#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The static kprofctl may need glibc's libraries and nothing else: it is
# carried to hosts that have no libbpf, json-c, libpfm... (a GPU host),
# and glibc must stay dynamic for dlopen (NVML). Reads the ELF's NEEDED
# entries (readelf -d) and refuses any other library.
# Usage: static-check.sh BINARY
set -eu
bin=$1
needed=$(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
bad=
for lib in $needed; do
	case $lib in
	libc.so.6 | libm.so.6 | libdl.so.2 | libpthread.so.0 | ld-linux-x86-64.so.2) ;;
	*) bad="$bad $lib" ;;
	esac
done
if [ -n "$bad" ]; then
	echo "static-check: $bin needs$bad; only glibc (libc, libm, libdl, libpthread, ld-linux) may stay shared" >&2
	exit 1
fi
echo "static-check: $bin needs only:" $needed
