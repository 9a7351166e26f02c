#!/usr/bin/env bash
# `make bench BASE=7.3 TIER=vt`: what knapid is for, measured on the
# guest's own virtual clock (QEMU icount), where host load drops out.
#
# Boots the release kernel under QEMU TCG with `-icount shift=0,sleep=off`
# (single-threaded TCG, 2 vCPUs; VT_ICOUNT overrides the options: on a
# loaded host the sleep=off boot can time out in udev, use sleep=on) once per
# icount boot (BOOTS, default "vt vt-2 vt-3"), once more under icount with
# `threadirqs` (vt-threadirqs), and once without icount ("tcg") so that the
# report shows what the virtual clock buys. In each guest bench/vt_guest.py
# runs a linked netdevsim pair (traffic that never leaves the guest), a
# veth pair and lo: cyclictest beside a flood on the CPU where the flood's
# receive work runs, the share of that CPU a CPU-bound task keeps (at nice
# 0 and at SCHED_FIFO), the CPU time per MB, and ping-pong, in softirq,
# knapid, per-NAPI threaded and threaded busy-poll modes, rounds
# interleaved. bench/vt_report.py writes report.md (per-boot ratios, their
# spread, the goals) and the plots.
# Everything lands in results/bench/<date>-<commit>-7.3-vt[-BOOTS]/; a run
# of the default boots is copied to reports/ to be committed.
#
# VT_ARGS (debugging) is added to vt_guest.py's arguments, e.g.
# "--rounds 1 --secs 2". 6.12's netdevsim schedules its peer's NAPI from
# the sender's transmit, not from a timer interrupt: the tier needs 7.3.
set -uo pipefail
. "$(dirname "$0")/../scripts/common.sh"
. "$(dirname "$0")/lib.sh"

[ "$KBASE" = 7.3 ] ||
	die "TIER=vt needs BASE=7.3: 6.12's netdevsim runs its peer's NAPI in the sender's transmit, so no interrupt brings work to a busy CPU"
all_boots="vt vt-2 vt-3 vt-threadirqs tcg"
boots=${BOOTS:-$all_boots}
tmo=${VT_TIMEOUT:-5400}
flavour=release
icount=${VT_ICOUNT:--icount shift=0,sleep=off}
commit=$(git -C "$TOP" rev-parse --short HEAD)
tag=-7.3-vt
[ "$boots" = "$all_boots" ] || tag=$tag-${boots// /-}
out=$TOP/results/bench/$(date -u +%F)-$commit$tag
rm -rf "$out"
mkdir -p "$out"
log "bench vt: results in ${out#"$TOP"/}"
for t in sockperf cyclictest iperf3; do
	command -v $t > /dev/null || die "$t is missing (make deps installs it)"
done
{
	echo "# host, $(date -u '+%F %T') UTC, $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "make bench BASE=7.3 TIER=vt${BOOTS:+ BOOTS=\"$boots\"}"
} > "$out/commands.txt"

pid=
trap '[ -n "$pid" ] && pkill -TERM -P "$pid"' EXIT

# boot NAME QEMU_OPTS [CMDLINE]: one guest, a progress line every 30 s
boot() {
	local name=$1 qemu=$2 append=${3:-} rc
	bench_guest "$name" "/usr/bin/python3 $TOP/bench/vt_guest.py --out $out --boot $name --ksrc $LINUX${VT_ARGS:+ $VT_ARGS}" "$append" "$qemu"
	[ -s "$out/vt-$name.json" ] ||
		die "bench vt: the $name boot wrote no results (exit $rc; console: $out/console-$name.log)"
	"$TOP/scripts/scan-splats.py" "$out/console-$name.log" ||
		die "bench vt: the $name boot left a kernel splat (above)"
}

start=$(date +%s)
for b in $boots; do
	case $b in
	vt | vt-[23]) boot "$b" "$icount" ;;
	vt-threadirqs) boot "$b" "$icount" threadirqs ;;
	tcg) boot tcg "" ;;
	*) die "BOOTS: vt, vt-2, vt-3, vt-threadirqs or tcg, not '$b'" ;;
	esac
done
# shellcheck disable=SC2046 # one path per boot, no blanks in them
/usr/bin/python3 "$TOP/bench/vt_report.py" --icount "$icount" "$out" $(for b in $boots; do echo "$out/vt-$b.json"; done) ||
	die "bench vt: vt_report.py failed"
log "bench vt: done in $(($(date +%s) - start))s: $out/report.md"
if [ "$boots" = "$all_boots" ]; then
	pub=$TOP/reports/bench-$(basename "$out")
	rm -rf "$pub"
	mkdir -p "$pub"
	cp "$out"/report.md "$out"/*.png "$out"/vt-*.json "$out"/commands.txt "$pub"/ ||
		die "bench vt: copying the report to $pub failed"
	log "bench vt: copied to ${pub#"$TOP"/} (commit it)"
fi
