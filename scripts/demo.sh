#!/usr/bin/env bash
# `make demo`: boot the release kernel and show the series at work.
set -uo pipefail
. "$(dirname "$0")/common.sh"
out=$WORK/results/demo
rm -rf "$out"
mkdir -p "$out"
"$TOP/scripts/run-guest.sh" release "$out" 900 \
	"$TOP/tests/guest/demo.sh > $out/demo.txt 2>&1; echo \$? > $out/demo.rc"
sed -n '/^=== /,$p' "$out/demo.txt" 2>/dev/null || die "the demo left no output (console: $out/console.log)"
[ "$(cat "$out/demo.rc" 2>/dev/null)" = 0 ] || die "demo failed (full output: $out/demo.txt)"
log "demo done; output in $out/demo.txt"
