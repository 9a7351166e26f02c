#!/usr/bin/env bash
# What `make demo` runs in the guest: the series at work, in words a user reads.
. "$(dirname "$0")/lib.sh"
set -u
trap nsim_pair_destroy EXIT

step() { printf '\n=== %s\n' "$*"; }

step "kernel $(uname -r) on $(nproc) vCPUs (QEMU TCG)"
step "a linked netdevsim pair: $ADDR_B (netns B) -> $ADDR_A (netns A), 2 queues each"
nsim_pair_create 201 202 2 || { echo "could not create the netdevsim pair"; exit 1; }
ip -n "$NS_A" -br addr show dev "$DEV_A"
ip -n "$NS_B" -br addr show dev "$DEV_B"

step "NAPIs of $DEV_A over netdev-genl (tools/net/ynl/cli.py --dump napi-get)"
ip netns exec "$NS_A" $YNL --dump napi-get --json "{\"ifindex\": $IFINDEX_A}"

napi_id=$(ip netns exec "$NS_A" $YNL --dump napi-get --json "{\"ifindex\": $IFINDEX_A}" |
	grep -o "'id': [0-9]*" | head -n1 | grep -o '[0-9]*$')
step "per-NAPI config: napi-set on NAPI $napi_id, then napi-get (YNL CLI)"
echo "before: $(ip netns exec "$NS_A" $YNL --do napi-get --json "{\"id\": $napi_id}")"
echo "\$ cli.py --do napi-set --json '{\"id\": $napi_id, \"defer-hard-irqs\": 2, \"gro-flush-timeout\": 20000}'"
ip netns exec "$NS_A" $YNL --do napi-set \
	--json "{\"id\": $napi_id, \"defer-hard-irqs\": 2, \"gro-flush-timeout\": 20000}"
after=$(ip netns exec "$NS_A" $YNL --do napi-get --json "{\"id\": $napi_id}")
echo "after:  $after"
grep -q "'defer-hard-irqs': 2" <<<"$after" && grep -q "'gro-flush-timeout': 20000" <<<"$after" &&
	napicfg=applied || napicfg=NOT-APPLIED

step "iperf3, 5 s, B -> A"
ip netns exec "$NS_A" iperf3 -s -1 -B "$ADDR_A" -p 5201 >/dev/null 2>&1 &
wait_port "$NS_A" 5201
gbps=$(ip netns exec "$NS_B" timeout 30 iperf3 -c "$ADDR_A" -p 5201 -t 5 -J |
	/usr/bin/python3 -c 'import json,sys; print("%.2f" % (json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"] / 1e9))')
echo "received: $gbps Gbit/s (TCG: compare modes, not absolute numbers)"

step "64 MiB with socat, checked byte for byte"
if transfer_check $((64 << 20)); then md5=equal; else md5=DIFFERENT; fi

step "summary"
echo "kernel:      $(uname -r)"
napis=$(ip netns exec "$NS_A" $YNL --dump napi-get --json "{\"ifindex\": $IFINDEX_A}" | grep -o "'id'" | wc -l)
echo "NAPIs:       $napis on $DEV_A"
echo "napi-set:    $napicfg (defer-hard-irqs 2, gro-flush-timeout 20000 ns on NAPI $napi_id)"
echo "iperf3:      $gbps Gbit/s"
echo "socat md5:   $md5"
[ "$md5" = equal ] && [ "$napis" -gt 0 ] && [ "$napicfg" = applied ]
