#!/usr/bin/env bash
# Which load generator saturates the system under test? make bench runs its
# generator in the guest, on the second vCPU, over a second virtio NIC; the
# other choice is a generator native on the host, reaching the guest's
# virtio NIC through a tap device. This boots the release kernel with one
# virtio NIC on a tap in a network namespace made (and removed) here, the
# generator running natively on the host in that namespace, and measures
# what make bench measures at the top of its range: iperf3 max, sockperf
# ping-pong, and sockperf under-load at max (Table 3's MAX), each with the
# SUT vCPU's busy share (guest /proc/stat, from bench/guest_bench.py
# --boot tap). Writes results/bench/topology-<time>/summary.md.
# usage: bench/topology-probe.sh   (TAP_CPUS=N guest vCPUs, default 1)
set -uo pipefail
. "$(dirname "$0")/../scripts/common.sh"

out=$TOP/results/bench/topology-$(date -u +%F-%H%M)
ns=knapid-tap-$$
rm -rf "$out"
mkdir -p "$out"
# the guest (timeout, vng, QEMU: children of run-guest.sh) ends before its tap
cleanup() {
	if [ -n "${gpid:-}" ]; then
		touch "$out/stop"
		pkill -TERM -P "$gpid" 2>/dev/null
		wait "$gpid" 2>/dev/null
	fi
	ip netns del "$ns" 2>/dev/null
}
trap cleanup EXIT
ip netns add "$ns" &&
	ip -n "$ns" link set lo up &&
	ip -n "$ns" tuntap add dev tap0 mode tap &&
	ip -n "$ns" addr add 192.0.2.2/24 dev tap0 &&
	ip -n "$ns" link set tap0 up || die "cannot make the tap in netns $ns"

cmd="/usr/bin/python3 $TOP/bench/guest_bench.py --out $out --ksrc $LINUX --shim /dev/null --boot serve"
GUEST_CPUS=${TAP_CPUS:-1} ip netns exec "$ns" "$TOP/scripts/run-guest.sh" release "$out" 1200 "$cmd" "" \
	"-netdev tap,id=n0,ifname=tap0,script=no,downscript=no -device virtio-net-pci,netdev=n0" &
gpid=$!
for _ in $(seq 600); do
	[ -e "$out/ready" ] && break
	kill -0 "$gpid" 2>/dev/null || die "the guest ended before serving (console: $out/console.log)"
	sleep 0.5
done
[ -e "$out/ready" ] || die "the guest did not serve within 300 s"

# measure NAME COMMAND...: COMMAND in the tap's netns, the SUT's meters around it
measure() {
	local name=$1
	shift
	touch "$out/start-$name"
	sleep 0.3
	timeout 60 ip netns exec "$ns" "$@" > "$out/$name.out" 2>&1 || die "$name: $* failed"
	touch "$out/stop-$name"
	for _ in $(seq 100); do
		[ -s "$out/meter-$name.json" ] && break
		sleep 0.2
	done
	[ -s "$out/meter-$name.json" ] || die "$name: the guest wrote no meters"
	log "topology: $name done"
}
for i in 1 2 3; do
	measure "iperf3-$i" iperf3 -c 192.0.2.1 -p 5201 -t 5 -J
	measure "pingpong-$i" sockperf ping-pong -i 192.0.2.1 -p 11111 -t 5 -m 64 --full-rtt
	measure "underload-$i" sockperf under-load -i 192.0.2.1 -p 11112 -t 3 -m 64 --reply-every=10 --mps=max
done
touch "$out/stop"
wait "$gpid" || die "the guest failed (console: $out/console.log)"
gpid=
grep -q '\] done$' "$out/progress-serve.log" || die "the guest did not finish serving"

/usr/bin/python3 - "$out" "$TOP/bench" > "$out/summary.md" <<'EOF'
import json, re, statistics, sys
out = sys.argv[1]
sys.path.insert(0, sys.argv[2])
from guest_bench import Bench  # the parsers make bench uses
def meter(n):
    return json.load(open(f'{out}/meter-{n}.json'))
def busy(m):
    return 100 - m['cpu']['cpu0']['idle']
rows = []
for kind in ('iperf3', 'pingpong', 'underload'):
    vals, bz = [], []
    for i in (1, 2, 3):
        n = f'{kind}-{i}'
        m = meter(n)
        txt = re.sub(r'\x1b\[[0-9;]*m', '', open(f'{out}/{n}.out').read())
        if kind == 'iperf3':
            vals.append(json.loads(txt)['end']['sum_received']['bits_per_second'] / 1e9)
        elif kind == 'pingpong':
            vals.append(Bench.sockperf_stats(txt)['p50_us'])
        else:
            run = float(re.search(r'\[Total Run\] RunTime=([\d.]+)', txt).group(1))
            vals.append(m['udp_in'] / run)
        bz.append(busy(m))
    unit = {'iperf3': 'Gbit/s', 'pingpong': 'us RTT p50', 'underload': 'requests/s served'}[kind]
    rows.append(f'| {kind} | {statistics.median(vals):.3g} {unit} ({min(vals):.3g}-{max(vals):.3g}) '
                f'| {statistics.median(bz):.0f}% ({min(bz):.0f}-{max(bz):.0f}) |')
print('# Load generator native on the host, through a tap (bench/topology-probe.sh)\n')
print('| measurement | median (min-max) of 3 | SUT vCPU busy |')
print('|---|---|---|')
print('\n'.join(rows))
EOF
[ $? = 0 ] || die "topology: the summary failed"
cat "$out/summary.md"
