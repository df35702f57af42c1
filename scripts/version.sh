#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The project's version, from the one place it is written: the top entry of
# packaging/debian/changelog (kprofctl --version, the man pages, dkms.conf's
# PACKAGE_VERSION in kprof-dkms and both packages' versions all read it).
#
#   scripts/version.sh           the upstream version, e.g. 0.1.0
#   scripts/version.sh --epoch   the entry's date in seconds since 1970 (the
#                                man pages' date: SOURCE_DATE_EPOCH)
set -eu
log=$(dirname "$0")/../packaging/debian/changelog
case ${1:-} in
"")
	v=$(dpkg-parsechangelog -l "$log" -S Version)
	# no epoch, no Debian revision: what the tarball and DKMS call it
	v=${v#*:}
	echo "${v%-*}"
	;;
--epoch)
	dpkg-parsechangelog -l "$log" -S Timestamp
	;;
*)
	echo "usage: $0 [--epoch]" >&2
	exit 2
	;;
esac
