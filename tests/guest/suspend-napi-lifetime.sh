#!/usr/bin/env bash
# IRQ suspension must never arm the hrtimer of a disabled NAPI.
#
# A driver without napi_config (here e1000, as most real NICs today) keeps
# its NAPI from netif_napi_add() to netif_napi_del(). If napi_suspend_irqs()
# could still find that NAPI after napi_disable() cancelled its timer, every
# epoll_wait() that returns events would re-arm the timer of a NAPI nobody
# will cancel again, and the driver frees it with the timer armed (a timer
# in freed memory: use after free when it fires).
#
# The guest has an e1000 and a virtio-net NIC on one QEMU hub (nothing on
# the host network). The e1000 receives into an epoll server with
# prefer_busy_poll that keeps finding events without reading them; its NAPI
# has irq-suspend-timeout 20 s. Cases:
#   1. the suspension is armed while the NIC is up (napi_watchdog pending):
#      the setup really exercises napi_suspend_irqs();
#   2. after `ip link set down` (napi_disable()), while epoll keeps
#      returning events, no napi_watchdog timer is pending;
#   3. unbinding the driver (free_netdev() frees the NAPI) draws no
#      ODEBUG "free active object" report (CONFIG_DEBUG_OBJECTS_FREE and
#      _TIMERS): no armed timer in freed memory;
#   4. after `ip link set up` the NAPI has the ID it had before the down
#      (checked before 3): a NAPI keeps the ID it got when added.
# If a disabled NAPI can be armed, 2 and 3 fail (and the splat gate sees the
# ODEBUG WARNING); if napi_enable() gives a new ID, 4 fails.
. "$(dirname "$0")/lib.sh"

SUSPEND_NS=20000000000
PORT=4242
state=$(mktemp -d)
pci=

cleanup() {
	touch "$state/stop"
	[ -n "${srv:-}" ] && wait "$srv" 2>/dev/null
	ip netns del "$NS_A" 2>/dev/null
	ip netns del "$NS_B" 2>/dev/null
	# give the NIC back to its driver for whatever runs next
	[ -n "$pci" ] && [ ! -e "/sys/bus/pci/drivers/e1000/$pci" ] &&
		echo "$pci" > /sys/bus/pci/drivers/e1000/bind 2>/dev/null
	rm -rf "$state"
}
trap cleanup EXIT

events() { cat "$state/events" 2>/dev/null || echo 0; }

# wait_events MIN: poll until the server has seen MIN epoll_wait() returns
wait_events() { slowwait 10 eval "[ \$(events) -ge $1 ]"; }

ktap_print_header
ktap_set_plan 4

e1000=$(nics_of e1000 | head -n1) && virtio=$(nics_of virtio_net | head -n1) &&
	[ -n "$e1000" ] && [ -n "$virtio" ] ||
	ktap_exit_fail_msg "needs an e1000 and a virtio-net NIC (boot group with -device e1000 on a hub)"
pci=$(basename "$(readlink -f "/sys/class/net/$e1000/device")")
echo "# e1000 $e1000 ($pci), virtio-net $virtio"
nics_into_netns "$e1000" "$virtio" || ktap_exit_fail_msg "could not move the NICs into their netns"
peer_reachable 30 || ktap_exit_fail_msg "no link between $virtio and $e1000 over the QEMU hub"

ifindex=$(ip netns exec "$NS_A" cat "/sys/class/net/$e1000/ifindex")
napi=$(ip netns exec "$NS_A" $YNL --dump napi-get --json "{\"ifindex\": $ifindex}" |
	grep -o "'id': [0-9]*" | head -n1 | awk '{print $2}')
[ -n "$napi" ] || ktap_exit_fail_msg "napi-get lists no NAPI for $e1000"
ip netns exec "$NS_A" $YNL --do napi-set \
	--json "{\"id\": $napi, \"irq-suspend-timeout\": $SUSPEND_NS}" > /dev/null ||
	ktap_exit_fail_msg "napi-set irq-suspend-timeout on NAPI $napi"
echo "# NAPI $napi of $e1000: irq-suspend-timeout $SUSPEND_NS ns"

ip netns exec "$NS_A" /usr/bin/python3 "$(dirname "$0")/epoll_hold.py" $PORT "$state" &
srv=$!
tcp_listen_wait "$NS_A" $PORT || ktap_exit_fail_msg "epoll server did not listen"
# 16 KiB the server never reads: its socket stays readable
head -c 16384 /dev/zero | timeout 30 ip netns exec "$NS_B" socat -u - "TCP:$ADDR_A:$PORT" &
client=$!
wait_events 5 || ktap_exit_fail_msg "epoll_wait() returned no events"

before=$(napi_watchdogs)
echo "# NIC up: $(events) epoll_wait() returns, $before napi_watchdog timer(s) pending"
if [ "$before" -ge 1 ]; then
	ktap_test_pass "suspension armed while $e1000 is up"
else
	ktap_test_fail "suspension armed while $e1000 is up"
fi

mark=$(dmesg | wc -l)
ip -n "$NS_A" link set "$e1000" down
n=$(events)
wait_events $((n + 20)) || echo "# epoll stopped returning events after the down"
after=$(napi_watchdogs)
echo "# NIC down: $(( $(events) - n )) more epoll_wait() returns, $after napi_watchdog timer(s) pending"
if [ "$after" -eq 0 ]; then
	ktap_test_pass "no timer armed on the disabled NAPI"
else
	ktap_test_fail "no timer armed on the disabled NAPI"
fi

# a NAPI keeps the ID it got when added across disable/enable, also without
# napi_config: AF_XDP sockets and threaded NAPI take it before napi_enable()
ip -n "$NS_A" link set "$e1000" up
again=$(ip netns exec "$NS_A" $YNL --dump napi-get --json "{\"ifindex\": $ifindex}" |
	grep -o "'id': [0-9]*" | head -n1 | awk '{print $2}')
echo "# NAPI of $e1000 after down/up: ${again:-none} (was $napi)"
if [ "$again" = "$napi" ]; then
	ktap_test_pass "NAPI ID kept across down/up without napi_config"
else
	ktap_test_fail "NAPI ID kept across down/up without napi_config"
fi

echo "$pci" > /sys/bus/pci/drivers/e1000/unbind
touch "$state/stop"
wait "$srv"
srv=
wait "$client" 2>/dev/null
# e1000_remove() has run free_netdev() when the unbind write returns
if no_reports_since "$mark"; then
	ktap_test_pass "NAPI freed with no active timer (no ODEBUG report)"
else
	ktap_test_fail "NAPI freed with no active timer (no ODEBUG report)"
fi
ktap_finished
