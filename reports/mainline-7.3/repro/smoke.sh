#!/bin/bash
# scratch smoke test of the 7.3 knapid kernel (not part of the project yet)
set -u
echo "kernel $(uname -r)"
pgrep -a 'knapid/' ; echo "knapid_enabled=$(cat /proc/sys/net/core/knapid_enabled)"
modprobe netdevsim 2>/dev/null
echo 301 > /sys/bus/netdevsim/new_device; echo 302 > /sys/bus/netdevsim/new_device
udevadm settle 2>/dev/null; sleep 1
A=$(ls /sys/bus/netdevsim/devices/netdevsim301/net/); B=$(ls /sys/bus/netdevsim/devices/netdevsim302/net/)
ip netns add na; ip netns add nb
ip link set $A netns na; ip link set $B netns nb
exec {FA}</var/run/netns/na; exec {FB}</var/run/netns/nb
IA=$(ip netns exec na cat /sys/class/net/$A/ifindex); IB=$(ip netns exec nb cat /sys/class/net/$B/ifindex)
echo "$FA:$IA $FB:$IB" > /sys/bus/netdevsim/link_device || echo "link failed"
ip -n na addr add 192.0.2.1/24 dev $A; ip -n nb addr add 192.0.2.2/24 dev $B
ip -n na link set $A up; ip -n nb link set $B up
ip netns exec na ping -c 2 -W 2 192.0.2.2 | tail -2
kp=$(pgrep -x 'knapid/[0-9]+' | tr '\n' ' ')
cpu() { local s=0 p; for p in "$@"; do read -r ns _ < /proc/$p/schedstat; s=$((s+ns)); done; echo $((s/1000000)); }
netrx() { awk '$1=="NET_RX:" {for(i=2;i<=NF;i++) s+=$i; print s}' /proc/softirqs; }
head -c $((16<<20)) /dev/urandom > /tmp/in
xfer() {
	rm -f /tmp/out
	ip netns exec nb timeout 60 socat -u TCP4-LISTEN:5000,reuseaddr OPEN:/tmp/out,creat & sp=$!
	for i in $(seq 100); do ip netns exec nb ss -Htln "sport = :5000" | grep -q . && break; sleep 0.2; done
	ip netns exec na timeout 60 socat -u OPEN:/tmp/in TCP4:192.0.2.2:5000
	wait $sp
	cmp -s /tmp/in /tmp/out && echo "md5 equal" || echo "DATA DIFFERENT"
}
for m in 1 0 1; do
	echo $m > /proc/sys/net/core/knapid_enabled
	k0=$(cpu $kp) r0=$(netrx)
	echo "mode $m: $(xfer); knapid CPU ms $(( $(cpu $kp) - k0 )), NET_RX $(( $(netrx) - r0 ))"
done
echo "per-NAPI threaded on B (sysfs threaded=1), knapid on:"
ip netns exec nb sh -c "echo 1 > /sys/class/net/$B/threaded"
np=$(pgrep 'napi/' | tr '\n' ' '); echo "napi threads: $(pgrep -a 'napi/' | tr '\n' ' ')"
k0=$(cpu $kp) n0=$(cpu $np)
echo "$(xfer); knapid CPU ms $(( $(cpu $kp) - k0 )), napi/ CPU ms $(( $(cpu $np) - n0 ))"
ip netns exec nb sh -c "echo 0 > /sys/class/net/$B/threaded"
echo "flips under traffic:"
( for i in $(seq 200); do echo $((i%2)) > /proc/sys/net/core/knapid_enabled; done ) &
xfer; wait
echo 2 > /proc/sys/net/core/knapid_enabled 2>&1; echo "write 2: rc=$? value=$(cat /proc/sys/net/core/knapid_enabled)"
dmesg | grep -E "WARNING|BUG|lockdep|ODEBUG|KFENCE|circular|Call Trace" | head -20
echo SMOKE-DONE
