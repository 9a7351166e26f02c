#!/usr/bin/env bash
# What `make demo` runs in the guest: the series at work, in words a user reads.
. "$(dirname "$0")/lib.sh"
set -u
trap pair_destroy EXIT

step() { printf '\n=== %s\n' "$*"; }

step "kernel $(uname -r) on $(nproc) vCPUs (QEMU TCG)"
step "a linked netdevsim pair: $ADDR_B (netns B) -> $ADDR_A (netns A), 2 queues each"
pair_create 201 202 2 || { echo "could not create the netdevsim pair"; exit 1; }
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
	--json "{\"id\": $napi_id, \"defer-hard-irqs\": 2, \"gro-flush-timeout\": 20000}" >/dev/null
after=$(ip netns exec "$NS_A" $YNL --do napi-get --json "{\"id\": $napi_id}")
echo "after:  $after"
grep -q "'defer-hard-irqs': 2" <<<"$after" && grep -q "'gro-flush-timeout': 20000" <<<"$after" &&
	napicfg=applied || napicfg=NOT-APPLIED

step "iperf3, 5 s, B -> A"
ip netns exec "$NS_A" iperf3 -s -1 -B "$ADDR_A" -p 5201 >/dev/null 2>&1 &
tcp_listen_wait "$NS_A" 5201
gbps=$(ip netns exec "$NS_B" timeout 30 iperf3 -c "$ADDR_A" -p 5201 -t 5 -J |
	/usr/bin/python3 -c 'import json,sys; print("%.2f" % (json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"] / 1e9))')
echo "received: $gbps Gbit/s (TCG: compare modes, not absolute numbers)"

step "64 MiB with socat, checked byte for byte"
if transfer_check $((64 << 20)); then md5=equal; else md5=DIFFERENT; fi

KNAPID=/proc/sys/net/core/knapid_enabled
knapid=absent
if [ -e "$KNAPID" ]; then
	kpids=$(pgrep -x 'knapid/[0-9]+' | tr '\n' ' ')
	spids=$(pgrep -x 'ksoftirqd/[0-9]+' | tr '\n' ' ')
	saved=$(cat "$KNAPID")

	step "knapid: one NAPI thread per CPU (CONFIG_THREADED_NAPI), net.core.knapid_enabled=$saved"
	kcsv=$(echo $kpids | tr ' ' ',')
	ps -o pid,psr,cls,rtprio,comm -p "$kcsv"

	step "where the NAPI CPU time goes: iperf3 3 s in each mode"
	printf '%-26s %10s %16s %18s %14s\n' mode Gbit/s "knapid CPU ms" "ksoftirqd CPU ms" "NET_RX softirqs"
	for mode in 0 1; do
		echo $mode > "$KNAPID"
		k0=$(task_cpu_ns $kpids); s0=$(task_cpu_ns $spids); r0=$(softirq_count NET_RX)
		ip netns exec "$NS_A" iperf3 -s -1 -B "$ADDR_A" -p 5202 >/dev/null 2>&1 &
		tcp_listen_wait "$NS_A" 5202
		g=$(ip netns exec "$NS_B" timeout 30 iperf3 -c "$ADDR_A" -p 5202 -t 3 -J |
			/usr/bin/python3 -c 'import json,sys; print("%.2f" % (json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"] / 1e9))')
		wait
		k1=$(task_cpu_ns $kpids); s1=$(task_cpu_ns $spids); r1=$(softirq_count NET_RX)
		[ $mode = 0 ] && name="0 (NET_RX softirq)" || name="1 (knapid threads)"
		printf '%-26s %10s %16d %18d %14d\n' "$name" "$g" $(((k1 - k0) / 1000000)) \
			$(((s1 - s0) / 1000000)) $((r1 - r0))
		[ $mode = 0 ] && soft_knapid_ms=$(((k1 - k0) / 1000000)) || knapid_ms=$(((k1 - k0) / 1000000))
	done
	echo "(softirq time spent in the interrupted task is not shown: that is the point of knapid)"

	step "flip net.core.knapid_enabled 100 times under a 32 MiB transfer"
	( for i in $(seq 100); do echo $((i % 2)) > "$KNAPID"; sleep 0.02; done ) &
	flipper=$!
	if transfer_check $((32 << 20)); then flipmd5=equal; else flipmd5=DIFFERENT; fi
	wait $flipper
	echo "$saved" > "$KNAPID"
	knapid="threads: $(echo $kpids | wc -w); knapid CPU ${soft_knapid_ms} ms in mode 0, ${knapid_ms} ms in mode 1; md5 after 100 flips: $flipmd5"
fi

step "IRQ suspension: an epoll server busy polling with prefer_busy_poll (busy_poller)"
bp_dir=$(mktemp -d)
suspend=failed
# built on the host by the kselftest Makefile (make selftests, installed in work/kselftest)
poller=$KSFT/net/busy_poller
if [ -x "$poller" ]; then
	echo "NAPIs of $DEV_A before:"
	ip netns exec "$NS_A" $YNL --dump napi-get --json "{\"ifindex\": $IFINDEX_A}"
	head -c $((16 << 20)) /dev/urandom > "$bp_dir/in"
	echo "\$ busy_poller -u 0 -P 1 -g 64 -d 100 -r 200000 -s 20000000  (epoll: busy_poll_usecs 0, budget 64,"
	echo "  prefer_busy_poll 1; napi-set: defer-hard-irqs 100, gro-flush-timeout 200 us, irq-suspend-timeout 20 ms)"
	ip netns exec "$NS_A" "$poller" -p 5300 -b "$ADDR_A" -o "$bp_dir/out" \
		-u 0 -P 1 -g 64 -d 100 -r 200000 -s 20000000 -t 60 > "$bp_dir/server.txt" 2>&1 &
	bp_pid=$!
	tcp_listen_wait "$NS_A" 5300
	start=$(date +%s%N)
	ip netns exec "$NS_B" timeout 60 socat -u "OPEN:$bp_dir/in" "TCP:$ADDR_A:5300"
	wait $bp_pid
	ms=$((($(date +%s%N) - start) / 1000000))
	sed 's/^/server: /' "$bp_dir/server.txt"
	echo "16 MiB in $ms ms (TCG)"
	echo "NAPIs of $DEV_A after:"
	ip netns exec "$NS_A" $YNL --dump napi-get --json "{\"ifindex\": $IFINDEX_A}"
	cmp -s "$bp_dir/in" "$bp_dir/out" &&
		ip netns exec "$NS_A" $YNL --dump napi-get --json "{\"ifindex\": $IFINDEX_A}" |
		grep -q "'irq-suspend-timeout': 20000000" && suspend=ok
fi
rm -rf "$bp_dir"

step "summary"
echo "kernel:      $(uname -r)"
napis=$(ip netns exec "$NS_A" $YNL --dump napi-get --json "{\"ifindex\": $IFINDEX_A}" | grep -o "'id'" | wc -l)
echo "NAPIs:       $napis on $DEV_A"
echo "napi-set:    $napicfg (defer-hard-irqs 2, gro-flush-timeout 20000 ns on NAPI $napi_id)"
echo "iperf3:      $gbps Gbit/s"
echo "socat md5:   $md5"
echo "knapid:      $knapid"
echo "suspension:  $suspend (busy_poller set irq-suspend-timeout on its NAPI, 16 MiB received intact)"
[ "$md5" = equal ] && [ "$napis" -gt 0 ] && [ "$napicfg" = applied ] && [ "$suspend" = ok ] &&
	{ [ "$knapid" = absent ] || [ "$flipmd5" = equal ]; }
