#!/usr/bin/env bash
# usage: build-selftests.sh
# Build the selftests the way kernel CI does: the kselftest Makefiles of the
# patched tree, TARGETS=$KSFT_TARGETS (common.sh: net drivers/net
# drivers/net/virtio_net), `gen_tar`
# (= `install`, then a tarball of the install). The tarball
# (work/kselftest.tar.gz, what `make kselftest-tar` hands out) is unpacked
# into $KSFT (work/kselftest): what the guest runs is exactly what the
# tarball holds: run_kselftest.sh, kselftest-list.txt and each target's
# programs, scripts, helpers and settings (timeouts). Nothing in it needs the
# source tree. The uapi headers come from `make headers` into
# $WORK/kselftest-obj (no kernel config needed), so one build serves every
# kernel flavour.
set -euo pipefail
. "$(dirname "$0")/common.sh"

TARGETS=$KSFT_TARGETS
OBJ=$WORK/kselftest-obj
mkdir -p "$OBJ"

log "selftests: uapi headers into $OBJ/usr/include"
make -s -C "$LINUX" O="$OBJ" ARCH=x86_64 headers
# O= gives the selftests these headers and keeps their build out of the tree
STAGE=$OBJ/install
TARBALL=$WORK/kselftest.tar.gz
log "selftests: make -C tools/testing/selftests TARGETS=\"$TARGETS\" gen_tar (a few minutes when cold)"
rm -rf "$KSFT" "$STAGE" "$TARBALL"
logf=$OBJ/selftests.log
make -C "$LINUX/tools/testing/selftests" O="$OBJ" TARGETS="$TARGETS" \
	INSTALL_PATH="$STAGE" CC="ccache gcc" -j"$(nproc)" gen_tar > "$logf" 2>&1 &
pid=$!
for ((i = 1; ; i++)); do
	sleep 5
	kill -0 $pid 2>/dev/null || break
	((i % 6)) ||
		log "selftests: building, $(grep -c '^  \(CC\|GEN\|CLANG\|LINK\)' "$logf" || true) steps so far"
done
# the top-level kselftest Makefile fails only when every target failed:
# a failed program inside a target shows in the log
failed() {
	grep -n -B2 -A8 'error:\|Error [0-9]' "$logf" | tail -n 40 >&2
	die "the kselftest build failed: $1 (log: $logf)"
}
wait $pid || failed "make exited with $?"
if grep -q '^make\[[0-9]*\]: \*\*\*' "$logf"; then
	failed "$(grep -m1 '^make\[[0-9]*\]: \*\*\*' "$logf")"
fi

[ -s "$STAGE/kselftest-packages/kselftest.tar.gz" ] || failed "gen_tar made no tarball"
mv "$STAGE/kselftest-packages/kselftest.tar.gz" "$TARBALL"
rm -rf "$STAGE"
mkdir -p "$KSFT"
tar -xzf "$TARBALL" -C "$KSFT"

# what the tests need from the tarball: a missing piece fails here, not in
# the guest
need="kselftest-list.txt run_kselftest.sh net/busy_poll_test.sh net/busy_poller
      net/lib.sh net/settings drivers/net/settings
      drivers/net/lib/py/__init__.py kselftest/ktap_helpers.sh"
listed="net:busy_poll_test.sh"
case $KBASE in
6.12)
	need="$need net/knapid.sh drivers/net/napi_config.py
	      drivers/net/virtio_net/napi_irq.sh"
	listed="$listed net:knapid.sh drivers/net:napi_config.py
		drivers/net/virtio_net:napi_irq.sh"
	;;
*)
	# tests/guest/napi-irq.sh sources virtio_net_common.sh
	need="$need drivers/net/virtio_net/virtio_net_common.sh
	      drivers/net/knapid.py drivers/net/napi_threaded.py
	      net/lib/ynl/pyynl/cli.py net/lib/specs/netdev.yaml"
	listed="$listed drivers/net:knapid.py drivers/net:napi_threaded.py"
	# the net series' test, where the series file applies that series
	# (knapid also applies and is tested on net-next without it)
	if series_dirs | grep -qx irq-suspend-fixes; then
		need="$need drivers/net/suspend_irqs.py"
		listed="$listed drivers/net:suspend_irqs.py"
	fi
	;;
esac
for f in $need; do
	[ -e "$KSFT/$f" ] || failed "the install lacks $f"
done
for t in $listed; do
	grep -qx "$t" "$KSFT/kselftest-list.txt" || die "kselftest-list.txt does not list $t"
done
log "selftests: $TARBALL ($(du -h "$TARBALL" | cut -f1), $(wc -l < "$KSFT/kselftest-list.txt") tests listed), unpacked in $KSFT"
