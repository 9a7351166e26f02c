#!/usr/bin/env bash
# usage: build-kernel.sh FLAVOUR
# Build $WORK/build-FLAVOUR/arch/x86/boot/bzImage with ccache and constant
# build metadata (so ccache hits across clones). Full log in build.log,
# a progress line every 30 s on stderr.
set -euo pipefail
. "$(dirname "$0")/common.sh"

flavour=${1:?usage: build-kernel.sh FLAVOUR}
B=$WORK/build-$flavour
[ -f "$B/.config" ] || die "run configure-kernel.sh $flavour first"

kbuild_env "$WORK"
jobs=$(($(nproc) + 1))

log "build $flavour: make -j$jobs bzImage (log: $B/build.log)"
start=$(date +%s)
make -C "$LINUX" O="$B" ARCH=x86_64 CC="ccache gcc" HOSTCC="ccache gcc" \
	-j"$jobs" bzImage >"$B/build.log" 2>&1 &
pid=$!
while kill -0 "$pid" 2>/dev/null; do
	sleep 30
	kill -0 "$pid" 2>/dev/null || break
	log "build $flavour: $(grep -c '^  CC ' "$B/build.log" || true) files compiled, $(( $(date +%s) - start ))s"
done
if ! wait "$pid"; then
	grep -E -B2 -A8 'error:|Error [0-9]' "$B/build.log" | head -60 >&2
	die "build $flavour failed (full log: $B/build.log)"
fi
secs=$(( $(date +%s) - start ))
log "build $flavour: done in ${secs}s ($(grep -c '^  CC ' "$B/build.log" || true) files compiled, through ccache)"
echo "$secs" > "$B/build-seconds"
