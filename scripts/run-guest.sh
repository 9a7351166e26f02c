#!/usr/bin/env bash
# usage: run-guest.sh FLAVOUR OUTDIR TIMEOUT COMMAND [APPEND [QEMU_OPTS]]
# Boot $WORK/build-FLAVOUR's bzImage with virtme-ng under QEMU TCG (2 vCPUs)
# and run COMMAND in it as root. OUTDIR is writable in the guest; the whole
# console goes to OUTDIR/console.log. APPEND is added to the kernel command
# line, QEMU_OPTS to QEMU's (extra devices). Fails with a clear message when the guest hangs or panics.
set -uo pipefail
. "$(dirname "$0")/common.sh"

flavour=$1 out=$(realpath -m "$2") tmo=$3 cmd=$4 append=${5:-} qemu=${6:-}
B=$WORK/build-$flavour
img=$B/arch/x86/boot/bzImage
case $flavour in
deb-*)
	# a package of build-deb.sh: the vmlinuz of its linux-image package,
	# unpacked, the file a host boots after dpkg -i
	pkg=$WORK/deb/${flavour#deb-}
	img=$pkg/unpacked/boot/vmlinuz-$(cat "$pkg/kernelrelease" 2>/dev/null)
	;;
esac
[ -f "$img" ] || die "no kernel image $img (run make build, or make deb-slim)"
mkdir -p "$out"
rm -f "$out/guest-done"
mem=${GUEST_MEMORY:-2G}
cpus=${GUEST_CPUS:-2}

# /dev/kvm here is a paravirtual KVM on which our kernels hang in early boot:
# always emulate (TCG).
log "guest $flavour: ${img#"$TOP"/}, QEMU accelerator TCG (vng --disable-kvm), $cpus vCPUs, $mem, timeout ${tmo}s"
log "guest $flavour: console in $out/console.log"
export PATH=$VENV/bin:$PATH
start=$(date +%s)
: > "$out/console.log"
timeout -k 20 "$tmo" "$VENV/bin/vng" --disable-kvm --cpus "$cpus" --memory "$mem" \
	--force-9p --disable-microvm --verbose --run "$img" --user root --rwdir "$out=$out" \
	--append "panic=-1 $append" ${qemu:+--qemu-opts="$qemu"} \
	--exec "$cmd" < /dev/null > "$out/console.log" 2>&1 &
vng=$!
# stopped itself (Ctrl-C, a caller's kill): stop the guest too, which
# runs in timeout's own process group
trap 'kill -TERM $vng 2>/dev/null; wait $vng; exit 130' INT TERM HUP
# virtme-ng's init that finds no console port for the command (udev timed
# out: under icount with sleep=off a loaded host does it) starts a shell
# that waits for the whole timeout: stop at once
while kill -0 $vng 2>/dev/null; do
	if grep -q 'cannot find script I/O ports' "$out/console.log"; then
		kill -TERM $vng
		wait $vng
		tail -n 12 "$out/console.log" >&2
		die "guest $flavour: virtme-ng's init found no script I/O ports after $(( $(date +%s) - start ))s, so the command never ran (udev timed out in the boot; console: $out/console.log)"
	fi
	sleep 1
done
wait $vng
rc=$?
trap - INT TERM HUP
secs=$(( $(date +%s) - start ))
if grep -q 'Kernel panic - not syncing' "$out/console.log"; then
	grep -B5 -A30 'Kernel panic - not syncing' "$out/console.log" | head -60 >&2
	die "guest $flavour: kernel panic after ${secs}s (console: $out/console.log)"
fi
if [ $rc = 124 ] || [ $rc = 137 ]; then
	tail -n 30 "$out/console.log" >&2
	die "guest $flavour: no exit after ${tmo}s, guest hung or tests too slow (console: $out/console.log)"
fi
log "guest $flavour: exited with $rc after ${secs}s"
exit $rc
