#!/usr/bin/env bash
# usage: build-selftests.sh FLAVOUR
# Build the selftest programs that the tests run (busy_poller, on the YNL C
# library) with the kselftest Makefile of the patched tree, against the uapi
# headers of $WORK/build-FLAVOUR. They land in the tree next to their tests,
# where the guest runs them; apply-series.sh keeps the outputs out of git's way.
set -euo pipefail
. "$(dirname "$0")/common.sh"

flavour=${1:?usage: build-selftests.sh FLAVOUR}
B=$WORK/build-$flavour
[ -f "$B/.config" ] || die "run configure-kernel.sh $flavour first"
net=$LINUX/tools/testing/selftests/net

log "selftests: uapi headers into $B/usr/include"
make -s -C "$LINUX" O="$B" ARCH=x86_64 headers
log "selftests: busy_poller (make -C tools/testing/selftests/net, YNL C library)"
# OUTPUT: lib.mk sets it only when make runs at the top level, and
# this script runs under make
make -C "$net" OUTPUT="$net" KHDR_INCLUDES="-isystem $B/usr/include" "$net/busy_poller" \
	> "$B/selftests.log" 2>&1 ||
	{ tail -n 40 "$B/selftests.log" >&2; die "building busy_poller failed (log: $B/selftests.log)"; }
[ -x "$net/busy_poller" ] || die "no $net/busy_poller after the build"
log "selftests: built $net/busy_poller"
