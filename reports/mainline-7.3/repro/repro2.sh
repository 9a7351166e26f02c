#!/bin/bash
# scratch: netdevsim device deleted while an epoll server suspends its NAPI
# usage: repro2.sh ROUNDS
K=$(cd "$(dirname "$0")"/..; pwd)/${KTREE:-plain}
YNL="python3 $K/tools/net/ynl/pyynl/cli.py --spec $K/Documentation/netlink/specs/netdev.yaml"
modprobe netdevsim 2>/dev/null
for r in $(seq ${1:-5}); do
	a=$((600 + 2 * r)) b=$((601 + 2 * r))
	echo $a > /sys/bus/netdevsim/new_device; echo $b > /sys/bus/netdevsim/new_device
	udevadm settle 2>/dev/null; sleep 0.5
	A=$(ls /sys/bus/netdevsim/devices/netdevsim$a/net/); B=$(ls /sys/bus/netdevsim/devices/netdevsim$b/net/)
	ip netns add sv$r; ip netns add cl$r
	ip link set $A netns sv$r; ip link set $B netns cl$r
	exec {FA}</var/run/netns/sv$r; exec {FB}</var/run/netns/cl$r
	IA=$(ip netns exec sv$r cat /sys/class/net/$A/ifindex); IB=$(ip netns exec cl$r cat /sys/class/net/$B/ifindex)
	echo "$FA:$IA $FB:$IB" > /sys/bus/netdevsim/link_device
	exec {FA}<&- {FB}<&-
	ip -n sv$r addr add 192.0.2.1/24 dev $A; ip -n cl$r addr add 192.0.2.2/24 dev $B
	ip -n sv$r link set $A up; ip -n cl$r link set $B up
	ip netns exec cl$r ping -c 1 -W 5 192.0.2.1 >/dev/null || echo "no ping"
	NAPI=$(ip netns exec sv$r $YNL --dump napi-get --json "{\"ifindex\": $IA}" | python3 -c 'import ast,sys; print(ast.literal_eval(sys.stdin.read())[0]["id"])')
	ip netns exec sv$r $YNL --do napi-set --json "{\"id\": $NAPI, \"defer-hard-irqs\": 100, \"gro-flush-timeout\": 50000, \"irq-suspend-timeout\": 3000000000}" >/dev/null
	ip netns exec sv$r python3 $(dirname "$0")/repro2_server.py 192.0.2.1 7000 > /tmp/srv2.txt 2>&1 &
	sp=$!
	for i in $(seq 100); do grep -q listening /tmp/srv2.txt && break; sleep 0.1; done
	ip netns exec cl$r timeout 20 socat -u /dev/zero TCP4:192.0.2.1:7000 2>/dev/null &
	cp=$!
	sleep 2
	echo $a > /sys/bus/netdevsim/del_device
	kill $cp 2>/dev/null; wait $cp 2>/dev/null
	kill $sp 2>/dev/null; wait $sp 2>/dev/null
	echo $b > /sys/bus/netdevsim/del_device
	ip netns del sv$r; ip netns del cl$r
	sleep 4
	echo "round $r: NAPI $NAPI, ODEBUG reports so far: $(dmesg | grep -c 'ODEBUG')"
done
dmesg | grep -A12 -m2 'ODEBUG' | head -40
echo REPRO2-DONE
