# shellcheck shell=bash
# Helpers for the harness's guest tests: a linked netdevsim pair in two netns.
# Addresses are documentation ranges only (RFC 5737 / RFC 3849).
KSRC=${KSRC:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/work/linux}
KSFT=${KSFT:-$(dirname "$KSRC")/kselftest}
. "$KSFT/kselftest/ktap_helpers.sh"
# the net selftests' helpers (setup_ns, slowwait, cleanup_all_ns)
. "$KSFT/net/lib.sh"

__tcp_listening()
{
	ip netns exec "$1" ss -Htln "sport = :$2" | grep -q .
}

# tcp_listen_wait NS PORT [SECONDS]: wait until a TCP socket listens on PORT
# in NS; fails after SECONDS (default 20)
tcp_listen_wait()
{
	slowwait "${3:-20}" __tcp_listening "$1" "$2"
}

# cpus_busy_start: a spinner at nice 19 on every online CPU, for at most
# 600 s, so that an interrupt finds a task running rather than the idle
# task, while the test's own tasks lose next to no CPU time to them.
# cpus_busy_stop ends them (call it from the test's cleanup as well).
CPUS_BUSY_PIDS=
cpus_busy_start()
{
	local c

	for c in /sys/devices/system/cpu/cpu[0-9]*; do
		[ "$(cat "$c/online" 2>/dev/null || echo 1)" = 1 ] || continue
		taskset -c "${c##*cpu}" nice -n 19 \
			timeout 600 sh -c 'while :; do :; done' &
		CPUS_BUSY_PIDS="$CPUS_BUSY_PIDS $!"
	done
}

cpus_busy_stop()
{
	[ -n "$CPUS_BUSY_PIDS" ] || return 0
	# shellcheck disable=SC2086 # one PID per word
	kill $CPUS_BUSY_PIDS 2>/dev/null
	wait $CPUS_BUSY_PIDS 2>/dev/null
	CPUS_BUSY_PIDS=
}

# softirq_count NAME [CPU]: how often softirq NAME (NET_RX, TIMER, ...) ran
# so far on CPU, or summed over the CPUs without CPU (/proc/softirqs)
softirq_count()
{
	awk -v name="$1:" -v col="CPU${2-}" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i + 1 }
		$1 == name {
			if (c) { print $c; exit }
			for (i = 2; i <= NF; i++) s += $i
			print s
		}' /proc/softirqs
}

# tcpext_counter NS NAME: the TcpExt counter NAME (BusyPollRxPackets, ...)
# of netns NS (/proc/net/netstat)
tcpext_counter()
{
	ip netns exec "$1" awk -v name="$2" '
		$1 == "TcpExt:" && !n { n = split($0, h); next }
		$1 == "TcpExt:" {
			for (i = 2; i <= n; i++)
				if (h[i] == name)
					print $i
		}' /proc/net/netstat
}

# A linked netdevsim pair: one netdevsim device in each of two netns,
# linked back to back (netdevsim's link_device), so that what one device
# sends the other receives, through its NAPI.
NSIM_BUS=/sys/bus/netdevsim
NSIM_PAIR_IDS=""

# nsim_pair_create ID_A NS_A ID_B NS_B [QUEUES]: netdevsim devices ID_A in
# NS_A and ID_B in NS_B, one port and QUEUES queues (default 1) each,
# linked and up. Sets NSIM_DEV_A, NSIM_DEV_B (the interface names),
# NSIM_IFINDEX_A and NSIM_IFINDEX_B; nsim_pair_destroy removes them.
nsim_pair_create()
{
	local id_a=$1 ns_a=$2 id_b=$3 ns_b=$4 queues=${5:-1}
	local fd_a fd_b rc

	modprobe -q netdevsim 2>/dev/null
	[ -w $NSIM_BUS/new_device ] || return 1
	echo "$id_a 1 $queues" > $NSIM_BUS/new_device || return 1
	NSIM_PAIR_IDS="$NSIM_PAIR_IDS $id_a"
	echo "$id_b 1 $queues" > $NSIM_BUS/new_device || return 1
	NSIM_PAIR_IDS="$NSIM_PAIR_IDS $id_b"
	udevadm settle 2>/dev/null
	NSIM_DEV_A=$(ls $NSIM_BUS/devices/netdevsim"$id_a"/net/)
	NSIM_DEV_B=$(ls $NSIM_BUS/devices/netdevsim"$id_b"/net/)
	ip link set "$NSIM_DEV_A" netns "$ns_a" &&
	ip link set "$NSIM_DEV_B" netns "$ns_b" &&
	ip -n "$ns_a" link set "$NSIM_DEV_A" up &&
	ip -n "$ns_b" link set "$NSIM_DEV_B" up || return 1
	NSIM_IFINDEX_A=$(ip netns exec "$ns_a" cat /sys/class/net/"$NSIM_DEV_A"/ifindex)
	NSIM_IFINDEX_B=$(ip netns exec "$ns_b" cat /sys/class/net/"$NSIM_DEV_B"/ifindex)
	exec {fd_a}</run/netns/"$ns_a" {fd_b}</run/netns/"$ns_b"
	echo "$fd_a:$NSIM_IFINDEX_A $fd_b:$NSIM_IFINDEX_B" > $NSIM_BUS/link_device
	rc=$?
	exec {fd_a}<&- {fd_b}<&-
	return $rc
}

nsim_pair_destroy()
{
	local id

	for id in $NSIM_PAIR_IDS; do
		echo "$id" > $NSIM_BUS/del_device 2>/dev/null
	done
	NSIM_PAIR_IDS=""
}

# tcp_transfer_check FROM_NS TO_NS ADDR PORT FILE [CPU]: FILE over TCP with
# socat (the sender pinned to CPU if given, each end bounded to 120 s);
# prints both md5 sums, fails when they differ or an end failed
tcp_transfer_check()
{
	local from=$1 to=$2 addr=$3 port=$4 file=$5 cpu=${6:-}
	local listen=TCP4-LISTEN connect=TCP4:$addr pin=() out srv rc=0
	local sum_in sum_out

	if [[ $addr == *:* ]]; then
		listen=TCP6-LISTEN
		connect="TCP6:[$addr]"
	fi
	[ -n "$cpu" ] && pin=(taskset -c "$cpu")
	out=$(mktemp)
	timeout 120 ip netns exec "$to" \
		socat -u "$listen:$port,reuseaddr" "OPEN:$out,creat,trunc" &
	srv=$!
	if ! tcp_listen_wait "$to" "$port"; then
		kill "$srv" 2>/dev/null
		wait "$srv"
		rm -f "$out"
		echo "# no listener on port $port in $to"
		return 1
	fi
	timeout 120 ip netns exec "$from" "${pin[@]}" \
		socat -u "OPEN:$file" "$connect:$port" || rc=1
	wait "$srv" || rc=1
	sum_in=$(md5sum < "$file")
	sum_out=$(md5sum < "$out")
	echo "# $addr:$port: sent $(stat -c %s "$file") bytes md5 ${sum_in%% *}," \
	     "received $(stat -c %s "$out") bytes md5 ${sum_out%% *}"
	[ "$sum_in" = "$sum_out" ] || rc=1
	rm -f "$out"
	return $rc
}

# task_cpu_ns PID...: CPU time the tasks used so far, in ns
task_cpu_ns()
{
	local pid sum=0 ns

	for pid in "$@"; do
		read -r ns _ < "/proc/$pid/schedstat" && sum=$((sum + ns))
	done
	echo "$sum"
}

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

# nics_out_of_netns DRIVER: move the NICs of DRIVER that nics_into_netns
# moved to NS_A and NS_B back to the init netns, delete both netns and wait
# up to 10 s for the NICs. A deleted netns gives its devices back only once
# its last reference is gone (a socket of it can outlive its processes), so
# they are moved back first: the next test needs them
nics_out_of_netns() {
	local ns dev

	for ns in "$NS_A" "$NS_B"; do
		for dev in $(ip netns exec "$ns" bash -c "$(declare -f nics_of); nics_of $1" 2>/dev/null); do
			ip -n "$ns" link set "$dev" netns 1
		done
		ip netns del "$ns" 2>/dev/null
	done
	slowwait 10 nics_at_least "$1" 2
}
