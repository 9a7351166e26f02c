#!/usr/bin/env bash
# `make demo`: boot the release kernel with two virtio-net NICs on one QEMU
# hub and show what each feature does to their interrupt path
# (tests/guest/demo.sh); fails when an effect is absent.
set -uo pipefail
. "$(dirname "$0")/common.sh"
out=$WORK/results/demo
rm -rf "$out"
mkdir -p "$out"
hub="-netdev hubport,id=hp0,hubid=0 -device virtio-net-pci,netdev=hp0"
hub="$hub -netdev hubport,id=hp1,hubid=0 -device virtio-net-pci,netdev=hp1"
log "demo: the guest's output follows when it is done (about 5 minutes)"
"$TOP/scripts/run-guest.sh" release "$out" 900 \
	"KSRC=$LINUX KSFT=$KSFT $TOP/tests/guest/demo.sh > $out/demo.txt 2>&1; echo \$? > $out/demo.rc" "" "$hub" ||
	die "the demo guest failed (console: $out/console.log)"
sed -n '/^=== /,$p' "$out/demo.txt" 2>/dev/null || die "the demo left no output (console: $out/console.log)"
[ "$(cat "$out/demo.rc" 2>/dev/null)" = 0 ] || die "demo: an effect is absent or a step failed (full output: $out/demo.txt)"
log "demo done; output in $out/demo.txt"
