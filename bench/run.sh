#!/usr/bin/env bash
# `make bench [QUICK=1]`: the seeds' benchmark tables on a real interrupt
# path, side by side, with plots.
#
# Boots the release kernel (no debug options) under QEMU TCG, 2 vCPUs, with
# two virtio-net-pci NICs on one QEMU hub, twice: once as built (modes
# softirq, knapid and per-NAPI threaded, and the IRQ-suspension cases) and
# once with `threadirqs` (softirq again, as that boot's reference). A third
# boot (tap) has one virtio NIC on a tap device in a network namespace made
# here, and the load generator native on the host (bench/tap_host.py runs
# what the guest asks for): it repeats Table 1's NIC rows and Table 2 with a
# generator that can saturate the SUT's vCPU, which the in-guest one cannot.
# In the guest bench/guest_bench.py runs every table; bench/report.py writes
# report.md and the PNG plots. Everything lands in
# results/bench/<date>-<commit>[-quick]/ with the raw JSON, the consoles and
# the exact commands; the full run is also copied to reports/ to be committed.
# Fails (and writes no report) when a measurement fails or a splat shows.
#
# For a design experiment: FLAVOUR=NAME boots work/build-NAME instead of the
# release kernel, and BOOTS=ab runs Table 1 and 2 for softirq and knapid only
# (their ratio, in one boot, is what two kernels are compared by); such a
# run writes the raw JSON but no report. BOOTS=profile counts context
# switches and NET_RX softirqs per request-response round trip.
# BOOTS=napitx0 runs Table 3's base, defer20, fullbusy and suspend20 with
# virtio_net.napi_tx=0 (TX completions without an interrupt of their own).
# BOOTS="tapbatch tapbatch-2 tapbatch-3" are tap boots of softirq, knapid
# and knapid with SCHED_BATCH threads (bench/tap_ratios.py reads them).
# BENCH_ARGS (debugging) is added to guest_bench.py's arguments, e.g.
# "--rounds 1 --secs 1".
#
# BASE=7.3: the main boot has a fourth mode, threaded busy poll (napi-set
# threaded busy-poll; the per-NAPI threaded mode is set by napi-set too), and
# Table 3 a case busypoll20. The full run boots the main boot three times
# (main, main-2, main-3: the report pools their rounds and gives each goal
# per boot), each shorter than 6.12's single one (BENCH_LEN), then threadirqs,
# then the tap boot three times too (tap, tap-2, tap-3: Tables 1b and 2b pool
# their rounds, the throughput and CPU goals are given per tap boot), and
# compares its ratios with the 6.12 report in BENCH_COMPARE.
set -uo pipefail
. "$(dirname "$0")/../scripts/common.sh"
. "$(dirname "$0")/lib.sh"
# TIER=vt: the virtual-clock tier, its own script
[ "${TIER:-}" = vt ] && exec "$TOP/bench/vt.sh"
[ -z "${TIER:-}" ] || die "TIER=$TIER: vt or nothing"

quick=${QUICK:-}
case $quick in
1) tag=-quick qflag=--quick tmo=3600 ;;
'' | 0) quick='' tag='' qflag='' tmo=9000 ;;
*) die "QUICK=$quick: 1 or nothing" ;;
esac
flavour=${FLAVOUR:-release}
# QUICK=1 is the main boot only, 5 rounds of 2 s: the threadirqs and tap
# columns are in the full run
all_boots="main threadirqs tap"
len=
compare=
if [ "$KBASE" = 7.3 ]; then
	all_boots="main main-2 main-3 threadirqs tap tap-2 tap-3"
	# three main boots of 3 rounds of 3 s (Table 3: 2 rounds, three loads)
	# take about as long as 6.12's one of 7 rounds of 5 s
	len=${BENCH_LEN---rounds 3 --secs 3 --t3-rounds 2 --loads 20%,40%,MAX}
	compare=${BENCH_COMPARE-$TOP/reports/bench-2026-11-24-46a7f03}
fi
[ -n "$quick" ] && all_boots=main len=
boots=${BOOTS:-$all_boots}
[ "$KBASE" = 6.12 ] || tag=$tag-$KBASE
[ "$flavour" = release ] || tag=$tag-$flavour
[ "$boots" = "$all_boots" ] || tag=$tag-${boots// /-}
commit=$(git -C "$TOP" rev-parse --short HEAD)
out=$TOP/results/bench/$(date -u +%F)-$commit$tag
rm -rf "$out"
mkdir -p "$out"
log "bench: results in ${out#"$TOP"/}"

# the epoll server's EPIOCSPARAMS shim, built here, read by the guest
gcc -O2 -Wall -Wextra -shared -fPIC -o "$out/epoll_shim.so" "$TOP/bench/epoll_shim.c" -ldl ||
	die "cannot build bench/epoll_shim.c"
for t in sockperf cyclictest iperf3 ping; do
	command -v $t > /dev/null || die "$t is missing (make deps installs it)"
done

hub="-netdev hubport,id=hp0,hubid=0 -device virtio-net-pci,netdev=hp0"
hub="$hub -netdev hubport,id=hp1,hubid=0 -device virtio-net-pci,netdev=hp1"
{
	echo "# host, $(date -u '+%F %T') UTC, $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "make bench BASE=$KBASE${quick:+ QUICK=1}"
} > "$out/commands.txt"

# boot NAME APPEND QEMU_OPTS [WRAPPER...]: one guest, a progress line every
# 30 s from the guest's log
boot() {
	local name=$1 append=$2 nics=$3 rc
	shift 3
	local cmd="/usr/bin/python3 $TOP/bench/guest_bench.py --out $out --ksrc $LINUX --shim $out/epoll_shim.so --commit $commit --boot $name $qflag${len:+ $len}${BENCH_ARGS:+ $BENCH_ARGS}"
	bench_guest "$name" "$cmd" "$append" "$nics" "$@"
	grep -q '^\[bench.*\] done$' "$out/progress-$name.log" 2>/dev/null ||
		die "bench: the $name boot did not finish (exit $rc): $(grep FAILED "$out/progress-$name.log" 2>/dev/null | tail -n 1) (console: $out/console-$name.log)"
	"$TOP/scripts/scan-splats.py" "$out/console-$name.log" ||
		die "bench: the $name boot left a kernel splat (above)"
}

# tap_boot NAME: a tap boot (tap, tap-2, tap-3, tapbatch, ...), a netns of
# the host with the tap (192.0.2.2) in which bench/tap_host.py runs the
# generator's commands; the guest's NIC is the tap's other end
tapns=knapid-bench-$$
tap_boot() {
	local name=$1
	ip netns add "$tapns" &&
		ip netns exec "$tapns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 &&
		ip -n "$tapns" link set lo up &&
		ip -n "$tapns" tuntap add dev tap0 mode tap &&
		ip -n "$tapns" addr add 192.0.2.2/24 dev tap0 &&
		ip -n "$tapns" link set tap0 up || die "bench: cannot make the tap in netns $tapns"
	# a fresh one for each tap boot: the last one's stop and rc-N files
	# would end this one's host side or answer its requests
	rm -rf "$out/host"
	mkdir -p "$out/host"
	/usr/bin/python3 "$TOP/bench/tap_host.py" "$out/host" "$tapns" &
	hpid=$!
	boot "$name" "" "-netdev tap,id=n0,ifname=tap0,script=no,downscript=no -device virtio-net-pci,netdev=n0" \
		ip netns exec "$tapns"
	touch "$out/host/stop"
	wait "$hpid"
	hpid=
	ip netns del "$tapns"
}

# an interrupted run takes its guest with it (timeout, vng and QEMU are
# children of run-guest.sh), and the tap's host side
pid= hpid=
cleanup() {
	[ -n "$pid" ] && pkill -TERM -P "$pid"
	[ -n "$hpid" ] && kill "$hpid"
	ip netns del "$tapns" 2> /dev/null
}
trap cleanup EXIT
start=$(date +%s)
for b in $boots; do
	case $b in
	main | main-[23] | ab | profile) boot "$b" "" "$hub" ;;
	threadirqs) boot threadirqs threadirqs "$hub" ;;
	napitx0) boot napitx0 virtio_net.napi_tx=0 "$hub" ;;
	tap | tap-[23] | tapbatch | tapbatch-[23]) tap_boot "$b" ;;
	*) die "BOOTS: main, main-2, main-3, threadirqs, tap, tap-2, tap-3, tapbatch, tapbatch-2, tapbatch-3, ab, profile or napitx0, not '$b'" ;;
	esac
done
if [ "$boots" != "$all_boots" ]; then
	log "bench: done in $(($(date +%s) - start))s: $(ls "$out"/result-*.json) (no report for BOOTS=$boots)"
	exit 0
fi
results=$(for b in $boots; do echo "$out/result-$b.json"; done)
# shellcheck disable=SC2086 # one path per boot, no blanks in them
/usr/bin/python3 "$TOP/bench/report.py" ${compare:+--compare "$compare"} "$out" $results ||
	die "bench: report.py failed"
{
	echo
	echo "# in the guest (bench/guest_bench.py), every distinct command line"
	/usr/bin/python3 -c 'import json, sys
for f in sys.argv[1:]:
    print("\n".join(json.load(open(f))["commands"]))' $results | sort -u
} >> "$out/commands.txt" || die "bench: cannot list the guest's commands"
rm -rf "$out/epoll_shim.so" "$out/flood.json" "$out/conns.txt" "$out/epoll-server.log" "$out/host"
log "bench: done in $(($(date +%s) - start))s: $out/report.md"
if [ -z "$quick" ]; then
	pub=$TOP/reports/bench-$(basename "$out")
	rm -rf "$pub"
	mkdir -p "$pub"
	cp "$out"/report.md "$out"/*.png "$out"/result-*.json "$out"/commands.txt "$pub"/ ||
		die "bench: copying the report to $pub failed"
	log "bench: the full run is copied to ${pub#"$TOP"/} (commit it)"
fi
