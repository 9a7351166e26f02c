# shellcheck shell=bash
# Helpers for the harness's guest tests: a linked netdevsim pair in two netns.
# Addresses are documentation ranges only (RFC 5737 / RFC 3849).
KSRC=${KSRC:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/work/linux}
KSFT=${KSFT:-$(dirname "$KSRC")/kselftest}
. "$KSRC/tools/testing/selftests/kselftest/ktap_helpers.sh"

NS_A=knapid-a-$$
NS_B=knapid-b-$$
ADDR_A=192.0.2.1
ADDR_B=192.0.2.2
YNL="/usr/bin/python3 $KSRC/tools/net/ynl/cli.py --spec $KSRC/Documentation/netlink/specs/netdev.yaml"

# nsim_pair_create ID_A ID_B QUEUES: sets DEV_A, DEV_B, IFINDEX_A, IFINDEX_B
nsim_pair_create() {
	local id_a=$1 id_b=$2 queues=${3:-1} fd_a fd_b
	NSIM_IDS="$id_a $id_b"
	echo "$id_a 1 $queues" > /sys/bus/netdevsim/new_device || return 1
	echo "$id_b 1 $queues" > /sys/bus/netdevsim/new_device || return 1
	udevadm settle 2>/dev/null
	DEV_A=$(ls /sys/bus/netdevsim/devices/netdevsim$id_a/net/)
	DEV_B=$(ls /sys/bus/netdevsim/devices/netdevsim$id_b/net/)
	ip netns add "$NS_A" && ip netns add "$NS_B" || return 1
	ip link set "$DEV_A" netns "$NS_A" && ip link set "$DEV_B" netns "$NS_B" || return 1
	ip -n "$NS_A" addr add $ADDR_A/24 dev "$DEV_A"
	ip -n "$NS_B" addr add $ADDR_B/24 dev "$DEV_B"
	ip -n "$NS_A" link set "$DEV_A" up
	ip -n "$NS_B" link set "$DEV_B" up
	IFINDEX_A=$(ip netns exec "$NS_A" cat "/sys/class/net/$DEV_A/ifindex")
	IFINDEX_B=$(ip netns exec "$NS_B" cat "/sys/class/net/$DEV_B/ifindex")
	exec {fd_a}<"/run/netns/$NS_A" {fd_b}<"/run/netns/$NS_B"
	echo "$fd_a:$IFINDEX_A $fd_b:$IFINDEX_B" > /sys/bus/netdevsim/link_device
	local rc=$?
	exec {fd_a}<&- {fd_b}<&-
	return $rc
}

nsim_pair_destroy() {
	local id
	ip netns del "$NS_A" 2>/dev/null
	ip netns del "$NS_B" 2>/dev/null
	for id in $NSIM_IDS; do
		echo "$id" > /sys/bus/netdevsim/del_device 2>/dev/null
	done
}

# wait_port NS PORT: poll until a TCP listener is up (at most 10 s)
wait_port() {
	local i
	for i in $(seq 100); do
		ip netns exec "$1" ss -Htln "sport = :$2" 2>/dev/null | grep -q . && return 0
		sleep 0.1
	done
	return 1
}

# transfer_check BYTES: send BYTES of random data B -> A with socat and
# compare md5 sums; prints both sums
transfer_check() {
	local bytes=$1 port=$((20000 + RANDOM % 10000)) dir rc
	dir=$(mktemp -d)
	head -c "$bytes" /dev/urandom > "$dir/in"
	timeout 120 ip netns exec "$NS_A" socat -u "TCP-LISTEN:$port,reuseaddr" "OPEN:$dir/out,creat,trunc" &
	local srv=$!
	wait_port "$NS_A" "$port" || { kill $srv; rm -rf "$dir"; echo "# listener did not come up"; return 1; }
	timeout 120 ip netns exec "$NS_B" socat -u "OPEN:$dir/in" "TCP:$ADDR_A:$port"
	wait $srv
	local sum_in sum_out
	sum_in=$(md5sum < "$dir/in" | cut -d' ' -f1)
	sum_out=$(md5sum < "$dir/out" | cut -d' ' -f1)
	echo "# sent $bytes bytes md5 $sum_in, received $(stat -c %s "$dir/out") bytes md5 $sum_out"
	rm -rf "$dir"
	[ "$sum_in" = "$sum_out" ]
}
