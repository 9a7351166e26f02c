# shellcheck shell=bash
# Helpers for the harness's guest tests: a linked netdevsim pair in two netns.
# Addresses are documentation ranges only (RFC 5737 / RFC 3849).
KSRC=${KSRC:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/work/linux}
KSFT=${KSFT:-$(dirname "$KSRC")/kselftest}
. "$KSFT/kselftest/ktap_helpers.sh"
# the net selftests' helpers: the linked netdevsim pair (nsim_pair_create),
# tcp_listen_wait, tcp_transfer_check, task_cpu_ns, softirq_count
. "$KSFT/net/lib.sh"

NS_A=knapid-a-$$
NS_B=knapid-b-$$
ADDR_A=192.0.2.1
ADDR_B=192.0.2.2
# the YNL CLI of the tree: tools/net/ynl/cli.py (6.12), pyynl/cli.py (7.3)
YNL_CLI=$KSRC/tools/net/ynl/cli.py
[ -e "$YNL_CLI" ] || YNL_CLI=$KSRC/tools/net/ynl/pyynl/cli.py
YNL="/usr/bin/python3 $YNL_CLI --spec $KSRC/Documentation/netlink/specs/netdev.yaml"

# pair_create ID_A ID_B QUEUES: the linked netdevsim pair in NS_A and NS_B,
# with ADDR_A and ADDR_B; sets DEV_A, DEV_B, IFINDEX_A, IFINDEX_B
pair_create() {
	ip netns add "$NS_A" && ip netns add "$NS_B" || return 1
	nsim_pair_create "$1" "$NS_A" "$2" "$NS_B" "${3:-1}" || return 1
	DEV_A=$NSIM_DEV_A DEV_B=$NSIM_DEV_B
	IFINDEX_A=$NSIM_IFINDEX_A IFINDEX_B=$NSIM_IFINDEX_B
	ip -n "$NS_A" addr add $ADDR_A/24 dev "$DEV_A" &&
	ip -n "$NS_B" addr add $ADDR_B/24 dev "$DEV_B"
}

pair_destroy() {
	ip netns del "$NS_A" 2>/dev/null
	ip netns del "$NS_B" 2>/dev/null
	nsim_pair_destroy
}

# transfer_check BYTES: send BYTES of random data B -> A and compare md5
# sums (tcp_transfer_check); prints both sums
transfer_check() {
	local dir rc
	dir=$(mktemp -d)
	head -c "$1" /dev/urandom > "$dir/in"
	tcp_transfer_check "$NS_B" "$NS_A" "$ADDR_A" $((20000 + RANDOM % 10000)) "$dir/in"
	rc=$?
	rm -rf "$dir"
	return $rc
}

# nics_of DRIVER: the netdevs DRIVER drives, one per line
nics_of() {
	local d
	for d in /sys/class/net/*; do
		[ "$(basename "$(readlink -f "$d/device/driver" 2>/dev/null)")" = "$1" ] &&
			basename "$d"
	done
}

# nics_at_least DRIVER N: DRIVER drives at least N netdevs in this netns
nics_at_least() {
	[ "$(nics_of "$1" | wc -l)" -ge "$2" ]
}

# napi_watchdogs: napi_watchdog timers pending on any CPU (/proc/timer_list
# drops its lock between entries, so read it twice and take the larger count)
napi_watchdogs() {
	local a b
	a=$(grep -c 'napi_watchdog' /proc/timer_list)
	b=$(grep -c 'napi_watchdog' /proc/timer_list)
	echo $((a > b ? a : b))
}

# no_reports_since MARK: no ODEBUG, KASAN or BUG report in dmesg after its
# first MARK lines (MARK=$(dmesg | wc -l) before the fault); the reports
# are printed as diagnostics
no_reports_since() {
	local new
	new=$(dmesg | tail -n +"$(($1 + 1))" | grep -E -A3 'ODEBUG|KASAN|BUG:')
	[ -z "$new" ] && return 0
	echo "$new" | sed 's/^/# /'
	return 1
}

# peer_reachable SECS: NS_B pings ADDR_A within SECS
peer_reachable() {
	slowwait "$1" ip netns exec "$NS_B" ping -c 1 -W 1 -q "$ADDR_A" > /dev/null
}

# nics_into_netns DEV_A DEV_B: two NICs (wired together, e.g. on a QEMU hub)
# into NS_A and NS_B with ADDR_A and ADDR_B, up
nics_into_netns() {
	ip netns add "$NS_A" && ip netns add "$NS_B" &&
	ip link set "$1" netns "$NS_A" && ip link set "$2" netns "$NS_B" &&
	ip -n "$NS_A" addr add "$ADDR_A/24" dev "$1" &&
	ip -n "$NS_B" addr add "$ADDR_B/24" dev "$2" &&
	ip -n "$NS_A" link set "$1" up && ip -n "$NS_B" link set "$2" up
}

# nics_pair_into_netns DRIVER: the first two NICs DRIVER drives (wired
# together, e.g. on a QEMU hub) into NS_A and NS_B as nics_into_netns does;
# sets DEV_A and DEV_B. Waits up to 10 s for them: a netns deleted just
# before may still be giving them back
nics_pair_into_netns() {
	local nics
	slowwait 10 nics_at_least "$1" 2
	mapfile -t nics < <(nics_of "$1")
	if [ ${#nics[@]} -lt 2 ]; then
		echo "# needs two $1 NICs on one QEMU hub, found: ${nics[*]:-none}"
		return 1
	fi
	DEV_A=${nics[0]} DEV_B=${nics[1]}
	nics_into_netns "$DEV_A" "$DEV_B"
}

# nics_out_of_netns DRIVER: delete NS_A and NS_B and wait up to 10 s for the
# two NICs of DRIVER that nics_into_netns moved there: a deleted netns gives
# them back to the init netns asynchronously, and the next test needs them
nics_out_of_netns() {
	ip netns del "$NS_A" 2>/dev/null
	ip netns del "$NS_B" 2>/dev/null
	slowwait 10 nics_at_least "$1" 2
}
