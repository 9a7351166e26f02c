#!/usr/bin/env bash
# In the guest: iperf3 between two linked netdevsim devices in two netns.
# usage: guest-iperf.sh OUTDIR RUNS SECONDS
# Writes OUTDIR/iperf3-nsim.json (every run) and prints one line per run.
. "$(dirname "$0")/../tests/guest/lib.sh"
set -u
out=$1 runs=${2:-3} secs=${3:-10}
trap nsim_pair_destroy EXIT
nsim_pair_create 301 302 2 || { echo "could not create the netdevsim pair"; exit 1; }
echo "[" > "$out/iperf3-nsim.json"
for i in $(seq "$runs"); do
	ip netns exec "$NS_A" iperf3 -s -1 -B "$ADDR_A" -p 5201 >/dev/null 2>&1 &
	wait_port "$NS_A" 5201 || exit 1
	ip netns exec "$NS_B" timeout $((secs + 30)) iperf3 -c "$ADDR_A" -p 5201 -t "$secs" -J > "$out/run$i.json" || exit 1
	wait
	[ "$i" -gt 1 ] && echo "," >> "$out/iperf3-nsim.json"
	cat "$out/run$i.json" >> "$out/iperf3-nsim.json"
	/usr/bin/python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["end"]; print("run %s: %.3f Gbit/s received, %d retransmits" % (sys.argv[2], e["sum_received"]["bits_per_second"]/1e9, e["sum_sent"].get("retransmits", 0)))' "$out/run$i.json" "$i"
	rm "$out/run$i.json"
done
echo "]" >> "$out/iperf3-nsim.json"
