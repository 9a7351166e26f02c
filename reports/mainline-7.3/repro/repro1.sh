#!/bin/bash
# scratch reproducer of "a completing poll ends an IRQ suspension early"
# usage: repro1.sh RUNS THREADED(0/1) USECS
K=$(cd "$(dirname "$0")"/..; pwd)/${KTREE:-plain}
YNL="python3 $K/tools/net/ynl/pyynl/cli.py --spec $K/Documentation/netlink/specs/netdev.yaml"
runs=${1:-8} thr=${2:-1} usecs=${3:-0}
modprobe netdevsim 2>/dev/null
echo 401 > /sys/bus/netdevsim/new_device; echo 402 > /sys/bus/netdevsim/new_device
udevadm settle 2>/dev/null; sleep 1
A=$(ls /sys/bus/netdevsim/devices/netdevsim401/net/); B=$(ls /sys/bus/netdevsim/devices/netdevsim402/net/)
ip netns add sv; ip netns add cl
ip link set $A netns sv; ip link set $B netns cl
exec {FA}</var/run/netns/sv; exec {FB}</var/run/netns/cl
IA=$(ip netns exec sv cat /sys/class/net/$A/ifindex); IB=$(ip netns exec cl cat /sys/class/net/$B/ifindex)
echo "$FA:$IA $FB:$IB" > /sys/bus/netdevsim/link_device
ip -n sv addr add 192.0.2.1/24 dev $A; ip -n cl addr add 192.0.2.2/24 dev $B
ip -n sv link set $A up; ip -n cl link set $B up
ip netns exec cl ping -c 1 -W 5 192.0.2.1 >/dev/null || echo "no ping"
ip netns exec sv sh -c "echo $thr > /sys/class/net/$A/threaded"
for p in $(pgrep 'napi/'); do taskset -p 1 $p >/dev/null; done
echo "napi threads: $(pgrep -a napi/ | tr '\n' ' ')"
NAPI=$(ip netns exec sv $YNL --dump napi-get --json "{\"ifindex\": $IA}" | python3 -c 'import ast,sys; print(ast.literal_eval(sys.stdin.read())[0]["id"])')
ip netns exec sv $YNL --do napi-set --json "{\"id\": $NAPI, \"defer-hard-irqs\": 100, \"gro-flush-timeout\": 50000, \"irq-suspend-timeout\": 3000000000}" >/dev/null
echo "NAPI $NAPI: $(ip netns exec sv $YNL --do napi-get --json "{\"id\": $NAPI}" | tr -s '\n ' ' ')"
held=0 ended=0
for r in $(seq $runs); do
	port=$((6000 + r))
	ip netns exec sv taskset -c 0 python3 $(dirname "$0")/repro1_server.py 192.0.2.1 $port $usecs > /tmp/srv.txt 2>&1 &
	sp=$!
	for i in $(seq 100); do grep -q listening /tmp/srv.txt && break; sleep 0.1; done
	head -c 1000 /dev/zero | ip netns exec cl taskset -c 0 timeout 20 socat -u - TCP4:192.0.2.1:$port
	wait $sp
	grep -q HELD /tmp/srv.txt && held=$((held+1)) || ended=$((ended+1))
	echo "run $r: $(grep stall /tmp/srv.txt) $(grep -E 'HELD|ENDED|no data' /tmp/srv.txt)"
	sleep 3.5
done
echo "RESULT threaded=$thr usecs=$usecs: held $held, ended early $ended of $runs"
