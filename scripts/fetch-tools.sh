#!/usr/bin/env bash
# usage: fetch-tools.sh
# The user-space tools the 7.3 tests need newer than Debian 12's: ethtool
# (7.3's drivers/net/napi_threaded.py reads `ethtool --json -l`, which
# neither Debian 12's ethtool 6.1 nor Debian 13's 6.14 has; 7.2 has it).
# Debian testing's ethtool runs on Debian 12 (it asks libc6 >= 2.34 and
# libmnl0, and uses no symbol newer than GLIBC_2.34); its package is
# fetched from the mirror
# of the machine's apt sources through a private list (common.sh),
# unpacked under $CACHE/tools, and the directory of its binary is printed
# on stdout. Pinned, with the same fallback as the base: another version
# the suite serves, with a warning. Nothing is installed on the machine.
set -euo pipefail
. "$(dirname "$0")/common.sh"

BASE_SUITE=forky
PKG=ethtool PIN=1:7.2-1
dir=$CACHE/tools/$PKG
if [ -x "$dir/usr/sbin/ethtool" ] && [ "$(cat "$dir/.done" 2>/dev/null)" = "$PIN" ]; then
	log "tools: $PKG $(cat "$dir/.done") cached in $dir"
	echo "$dir/usr/sbin"
	exit 0
fi
base_apt_update
served=$(base_apt_cache madison "$PKG" | awk '{print $3}')
if grep -qxF "$PIN" <<<"$served"; then
	version=$PIN
else
	version=$(sort -V <<<"$served" | tail -n1)
	[ -n "$version" ] || die "the $BASE_SUITE list serves no $PKG"
	warn "$PKG $PIN is not served any more; using $version"
fi
rm -rf "$dir"
mkdir -p "$dir"
log "tools: downloading $PKG=$version from $BASE_SUITE"
(cd "$dir" && base_apt_get download -q "$PKG=$version" >&2)
dpkg-deb -x "$dir"/*.deb "$dir"
rm -f "$dir"/*.deb
"$dir/usr/sbin/ethtool" --version >/dev/null || die "$dir/usr/sbin/ethtool does not run here"
echo "$version" > "$dir/.done"
log "tools: $("$dir/usr/sbin/ethtool" --version) in $dir"
echo "$dir/usr/sbin"
