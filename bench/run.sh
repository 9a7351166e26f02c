#!/usr/bin/env bash
# `make bench`: boot the release kernel and run the benchmarks in the guest.
# Results go to results/bench/ (readable text + raw JSON). Under TCG absolute
# numbers mean little: feature benchmarks compare modes side by side in one run.
set -uo pipefail
. "$(dirname "$0")/../scripts/common.sh"
out=$TOP/results/bench
mkdir -p "$out"
runs=${BENCH_RUNS:-3} secs=${BENCH_SECONDS:-10}
"$TOP/scripts/run-guest.sh" release "$out" 900 \
	"$TOP/bench/guest-iperf.sh $out $runs $secs > $out/iperf3-nsim.txt 2>&1; echo \$? > $out/rc"
[ "$(cat "$out/rc" 2>/dev/null)" = 0 ] || { cat "$out/iperf3-nsim.txt" >&2; die "benchmark failed"; }
{
	echo "# iperf3 over a linked netdevsim pair, $runs x ${secs}s, release kernel, QEMU TCG 2 vCPUs"
	echo "# date: $(date -u +%F) kernel: $(git -C "$LINUX" log -1 --format=%s base) + $(series_patches | wc -l) patches"
	cat "$out/iperf3-nsim.txt"
} > "$out/iperf3-nsim.summary"
rm -f "$out/rc" "$out/iperf3-nsim.txt" "$out/console.log"
cat "$out/iperf3-nsim.summary"
