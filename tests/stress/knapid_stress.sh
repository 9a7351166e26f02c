#!/usr/bin/env bash
# make stress, part 1: knapid under stress. Two checked TCP streams, one
# each way (seqstream.py verifies every byte), run through a pair of
# devices while
#   1. net.core.knapid_enabled is switched back and forth as fast as the
#      sysctl takes it, with a progress check after every window of
#      switches: a NAPI stranded on a poll list with nobody woken stops a
#      stream, and a window without progress for 10 s fails the case;
#   2. cpu1 goes offline and online in knapid mode;
#   3. the switches race with that hotplug,
#   4. with per-NAPI threaded on/off (/sys/class/net/<dev>/threaded),
#   5. and with `ip link set down/up` of the receiving device.
# TCP retransmissions and device drops are counted, not failed on (a link
# that goes down drops packets); a lost or corrupted byte fails.
#
# usage: knapid_stress.sh nsim|virtio
#   nsim: a linked netdevsim pair; virtio: the guest's two virtio-net NICs
#   (a QEMU hub wires them back to back)
# STRESS_SCALE=slice|quick|full sets the counts (the scaled lines below).
. "$(dirname "$0")/lib.sh"

kind=${1:?usage: knapid_stress.sh nsim|virtio}
SWITCHES=$(scaled 300 1000 10000)
WINDOW=$(scaled 50 50 100)
HOTPLUG=$(scaled 3 20 200)
RACE_HOTPLUG=$(scaled 2 10 50)
RACE_THREADED=$(scaled 10 50 200)
RACE_LINK=$(scaled 3 20 100)
STREAM_SECS=$(scaled 600 1200 7200)
CPU1=/sys/devices/system/cpu/cpu1/online
exec {NAP_FD}<> <(:)
# nap SECONDS: sleep without forking (read times out: status > 128)
nap() { read -r -t "$1" -u "$NAP_FD"; return 0; }

saved_mode=$(cat "$SYSCTL")
cleanup() {
	touch "$STREAM_STATE/switch-stop"
	wait "${switcher:-}" 2>/dev/null
	stream_cleanup
	[ -w "$CPU1" ] && echo 1 > "$CPU1" 2>/dev/null
	echo "$saved_mode" > "$SYSCTL"
	for d in ${SYS_A:-} ${SYS_B:-}; do
		umount "$d" && rmdir "$d"
	done
	if [ "$kind" = nsim ]; then
		pair_destroy
	else
		nics_out_of_netns virtio_net
	fi
}
trap cleanup EXIT

ktap_print_header
ktap_set_plan 5

if [ "$kind" = nsim ]; then
	id=$((4000 + RANDOM % 4000))
	pair_create $id $((id + 1)) 1 || ktap_exit_fail_msg "netdevsim pair"
	ip -n "$NS_A" link set "$DEV_A" up
	ip -n "$NS_B" link set "$DEV_B" up
else
	nics_pair_into_netns virtio_net || ktap_exit_fail_msg "could not set up the virtio-net NICs"
fi
peer_reachable 30 || ktap_exit_fail_msg "no link between $DEV_B and $DEV_A"
echo "# $kind: $DEV_A $ADDR_A in $NS_A, $DEV_B $ADDR_B in $NS_B; scale $STRESS_SCALE"
# each netns's view of sysfs, mounted once here: an `ip netns exec` (a new
# mount namespace and sysfs each time) per write took seconds under KASAN
SYS_A=$(mktemp -d) SYS_B=$(mktemp -d)
nsenter --net="/run/netns/$NS_A" mount -t sysfs sysfs "$SYS_A" &&
	nsenter --net="/run/netns/$NS_B" mount -t sysfs sysfs "$SYS_B" ||
	ktap_exit_fail_msg "cannot mount the sysfs views of $NS_A and $NS_B"

port=30000
# both streams, A -> B and B -> A
streams_start() {
	port=$((port + 2))
	stream_start ab "$NS_A" "$NS_B" "$ADDR_B" $port "$STREAM_SECS" &&
	stream_start ba "$NS_B" "$NS_A" "$ADDR_A" $((port + 1)) "$STREAM_SECS" &&
	STREAM_WAIT=30 streams_moved
}

# counters at the start of a case, and what they grew by at its end
counters_start() {
	r0=$(( $(tcp_retrans "$NS_A") + $(tcp_retrans "$NS_B") ))
	d0=$(( $(dev_drops "$NS_A" "$DEV_A") + $(dev_drops "$NS_B" "$DEV_B") ))
	t0=$SECONDS
}
counters_record() {
	record "$1" "TCP retransmissions" $(( $(tcp_retrans "$NS_A") + $(tcp_retrans "$NS_B") - r0 ))
	record "$1" "device drops" $(( $(dev_drops "$NS_A" "$DEV_A") + $(dev_drops "$NS_B" "$DEV_B") - d0 ))
	record "$1" "seconds" $((SECONDS - t0))
}

# a background loop that switches the mode every 5 ms until switcher_stop;
# switcher_stop fails if a write failed, and records the switches
switcher_start() {
	rm -f "$STREAM_STATE"/switch-*
	(
		n=0
		while [ ! -e "$STREAM_STATE/switch-stop" ] && [ $n -lt 1000000 ]; do
			if ! echo $((n % 2)) > "$SYSCTL"; then
				echo "switch $n failed" > "$STREAM_STATE/switch-error"
				break
			fi
			n=$((n + 1))
			nap 0.005
		done
		echo $n > "$STREAM_STATE/switch-count"
	) &
	switcher=$!
}
switcher_stop() {
	touch "$STREAM_STATE/switch-stop"
	wait "$switcher"
	switcher=
	record "$1" "sysctl switches" "$(cat "$STREAM_STATE/switch-count")"
	echo "$saved_mode" > "$SYSCTL"
	[ ! -e "$STREAM_STATE/switch-error" ] || { cat "$STREAM_STATE/switch-error"; return 1; }
}

# 1. switches with a progress check per window
part="$kind: $SWITCHES switches under traffic"
bad=0 stalls=0 windows=0
counters_start
streams_start || bad=1
for ((i = 1; i <= SWITCHES; i++)); do
	if ! echo $((i % 2)) > "$SYSCTL"; then
		echo "# switch $i failed"
		bad=1
		break
	fi
	[ $((i % WINDOW)) -eq 0 ] || continue
	windows=$((windows + 1))
	if ! streams_moved; then
		stalls=$((stalls + 1))
		echo "# window $windows (switch $i): a stream made no progress for 10 s"
	fi
	[ $((i % (WINDOW * 20))) -eq 0 ] && echo "# $i switches, $(stream_bytes ab)/$(stream_bytes ba) bytes verified"
done
echo "$saved_mode" > "$SYSCTL"
streams_moved || { echo "# a stream stopped after the last switch"; stalls=$((stalls + 1)); }
stream_stop "$part" || bad=1
record "$part" "sysctl switches" $((i - 1))
record "$part" "windows without progress" "$stalls/$windows"
counters_record "$part"
[ $stalls -eq 0 ] || bad=1
ktap_test_result "$part, every byte verified, no window without progress" test $bad -eq 0

hotplug_cycle() {
	echo 0 > "$CPU1" && nap 0.2 && echo 1 > "$CPU1"
}

# 2. hotplug in knapid mode
part="$kind: $HOTPLUG CPU offline/online cycles in knapid mode"
if [ ! -w "$CPU1" ]; then
	ktap_test_skip "$part: cpu1 cannot be taken offline here"
else
	bad=0
	counters_start
	echo 1 > "$SYSCTL"
	streams_start || bad=1
	for ((i = 1; i <= HOTPLUG; i++)); do
		hotplug_cycle || { echo "# cycle $i failed"; bad=1; break; }
		streams_moved || { echo "# cycle $i: a stream made no progress for 10 s"; bad=1; }
	done
	stream_stop "$part" || bad=1
	echo "$saved_mode" > "$SYSCTL"
	record "$part" "hotplug cycles" $((i - 1))
	counters_record "$part"
	ktap_test_result "$part, every byte verified" test $bad -eq 0
fi

# 3.-5. the racing ones: ACTION runs COUNT times while the switcher runs
race() {
	local part=$1 count=$2 action=$3 bad=0 i

	counters_start
	streams_start || bad=1
	switcher_start
	for ((i = 1; i <= count; i++)); do
		$action || { echo "# $action $i failed"; bad=1; break; }
		STREAM_WAIT=30 streams_moved || { echo "# $action $i: a stream made no progress for 30 s"; bad=1; }
	done
	switcher_stop "$part" || bad=1
	STREAM_WAIT=30 streams_moved || bad=1
	stream_stop "$part" || bad=1
	record "$part" "${action//_/ }s" $((i - 1))
	counters_record "$part"
	ktap_test_result "$part, every byte verified" test $bad -eq 0
}

threaded_flip() {
	echo 1 > "$SYS_A/class/net/$DEV_A/threaded" &&
	echo 1 > "$SYS_B/class/net/$DEV_B/threaded" &&
	nap 0.05 &&
	echo 0 > "$SYS_A/class/net/$DEV_A/threaded" &&
	echo 0 > "$SYS_B/class/net/$DEV_B/threaded"
}

link_flap() {
	ip -n "$NS_B" link set "$DEV_B" down && nap 0.05 && ip -n "$NS_B" link set "$DEV_B" up
}

if [ ! -w "$CPU1" ]; then
	ktap_test_skip "$kind: switches racing with CPU hotplug: cpu1 cannot be taken offline here"
else
	race "$kind: switches racing with $RACE_HOTPLUG CPU hotplug cycles" "$RACE_HOTPLUG" hotplug_cycle
fi
race "$kind: switches racing with $RACE_THREADED per-NAPI threaded on/off" "$RACE_THREADED" threaded_flip
race "$kind: switches racing with $RACE_LINK link down/up" "$RACE_LINK" link_flap
ktap_finished
