#!/usr/bin/env bash
# scratch: a disabled NAPI must not keep a deferral timer armed (run with a
# kernel that mdelay()s 5 ms before arming a timeout of >= 100 ms)
. "$(dirname "$0")/../../../tests/guest/lib.sh"
ROUNDS=${ROUNDS:-10}
ktap_print_header
ktap_set_plan 1
first=
for r in $(seq "$ROUNDS"); do
	pair_create $((200 + r)) $((300 + r)) 1 || ktap_exit_fail_msg "pair $r"
	for ns in "$NS_A:$DEV_A" "$NS_B:$DEV_B"; do
		ip netns exec "${ns%%:*}" sh -c "echo 10 > /sys/class/net/${ns#*:}/napi_defer_hard_irqs && echo 1000000000 > /sys/class/net/${ns#*:}/gro_flush_timeout"
	done
	# no ARP: the flood B -> A runs from the first datagram
	ip -n "$NS_B" neigh add "$ADDR_A" lladdr "$(ip -n "$NS_A" -br link show "$DEV_A" | awk '{print $3}')" dev "$DEV_B"
	rx0=$(ip -n "$NS_A" -s -j link show "$DEV_A" | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["stats64"]["rx"]["packets"])')
	before=$(dmesg | grep -c 'ODEBUG: free active')
	ip netns exec "$NS_B" timeout 20 bash -c "exec 3>/dev/udp/$ADDR_A/9; for i in \$(seq 200000); do echo x >&3; done" 2>/dev/null &
	p=$!
	sleep 1.5
	rx1=$(ip -n "$NS_A" -s -j link show "$DEV_A" | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["stats64"]["rx"]["packets"])')
	nsim_pair_destroy
	wait $p
	ip netns del "$NS_A"; ip netns del "$NS_B"
	sleep 1.5
	after=$(dmesg | grep -c 'ODEBUG: free active')
	echo "# round $r: $DEV_A received $((rx1 - rx0)) packets in 1.5 s before the delete; ODEBUG free-active reports $before -> $after"
	[ -z "$first" ] && [ "$after" -gt "$before" ] && first=$r
done
dmesg | grep -A3 'ODEBUG: free active' | head -8 | sed 's/^/# /'
if [ -z "$first" ]; then
	ktap_test_pass "no armed timer freed in $ROUNDS rounds"
else
	ktap_test_fail "armed timer freed, first in round $first of $ROUNDS"
fi
ktap_finished
