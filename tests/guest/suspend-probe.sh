#!/usr/bin/env bash
# Probe: does an IRQ suspension hold, per placement and NAPI mode?
#
# usage: suspend-probe.sh [ROUNDS_SCALE]
#
# A linked netdevsim pair; busy_poller (from the patched tree) receives
# with prefer_busy_poll, busy_poll_usecs 0, budget 64, defer-hard-irqs 100,
# irq-suspend-timeout 10 s, and stops after every epoll_wait() that returned
# data (-x stall-each). Each round sends 1000 bytes; the round holds when,
# after the server stopped, the NAPI's timer is armed for about
# irq-suspend-timeout and is still the same timer one second later.
# Prints one table row per placement and mode: "held/rounds". Run under
# trace-napi-timer.sh to see who armed the NAPI timer: each round then
# leaves a marker in the trace.
# Not part of make check: it measures, it does not judge.
. "$(dirname "$0")/lib.sh"

SUSPEND_NS=10000000000
LONG_NS=100000000
PORT=48676
scale=${1:-1}
T=/sys/kernel/tracing
# mark the trace when run under trace-napi-timer.sh
mark() {
	[ "$(cat $T/tracing_on 2>/dev/null)" = 1 ] && echo "probe: $*" > $T/trace_marker
}
tmp=$(mktemp -d)
KNAPID=/proc/sys/net/core/knapid_enabled
saved=$(cat $KNAPID 2>/dev/null)

cleanup() {
	[ -n "${srv:-}" ] && kill "$srv" 2>/dev/null
	[ -n "${cli:-}" ] && kill "$cli" 2>/dev/null
	wait 2>/dev/null
	pair_destroy
	[ -n "$saved" ] && echo "$saved" > $KNAPID
	rm -rf "$tmp"
}
trap cleanup EXIT


# built on the host by the kselftest Makefile (make selftests, installed in work/kselftest)
poller=$KSFT/net/busy_poller
[ -x "$poller" ] || { echo "no $poller: run make selftests"; exit 1; }
pair_create 201 202 1 || exit 1

# the latest expiry of a NAPI timer more than LONG_NS out, and "now"
long_timer() {
	local i
	for i in 1 2 3; do
		awk '/^now at/ { now = $3 } /napi_watchdog/ { getline; split($4, e, "-"); print now, e[1] }' /proc/timer_list
	done | awk -v long=$LONG_NS '$2 - $1 > long && $2 > max { max = $2 } END { if (!max) exit 1; print max }'
}
still_there() {
	local i
	for i in 1 2 3; do
		awk '/napi_watchdog/ { getline; split($4, e, "-"); print e[1] }' /proc/timer_list
	done | grep -qx "$1"
}
wait_line() {
	local i
	for i in $(seq 200); do
		grep -q "$1" "$tmp/server.out" && return 0
		sleep 0.05
	done
	return 1
}

# probe MODE SERVER_PIN CLIENT_PIN GRO_NS ROUNDS LABEL
probe() {
	local mode=$1 spin=$2 cpin=$3 gro=$4 rounds=$5 label=$6 k x held=0 fd
	echo "$mode" > $KNAPID
	rm -f "$tmp/out" "$tmp/server.out" "$tmp/fifo"
	ip netns exec "$NS_A" $spin "$poller" -p $PORT -b "$ADDR_A" -o "$tmp/out" -m 64 \
		-u 0 -P 1 -g 64 -d 100 -r "$gro" -s $SUSPEND_NS -x stall-each -t 240 \
		> "$tmp/server.out" 2>&1 &
	srv=$!
	tcp_listen_wait "$NS_A" $PORT || { echo "# no listener"; return 1; }
	mkfifo "$tmp/fifo"
	ip netns exec "$NS_B" $cpin timeout 300 socat -u "OPEN:$tmp/fifo" "TCP:$ADDR_A:$PORT" &
	cli=$!
	exec {fd}>"$tmp/fifo"
	wait_line '^napi_id' || echo "# no connection"
	for k in $(seq "$rounds"); do
		head -c 1000 /dev/zero >&$fd
		wait_line "^stalled $k " || { echo "# round $k: no data"; break; }
		if x=$(long_timer) && sleep 1 && still_there "$x"; then
			held=$((held + 1))
		else
			echo "# $label, mode $mode, round $k: lost (expiry '$x')"
			mark "round $k lost, expiry '$x'"
		fi
		mark "round $k done"
		kill -USR1 "$srv"
	done
	exec {fd}>&-
	wait "$cli"; wait "$srv"
	cli= srv=
	printf '| %s | %s | %d/%d |\n' "$label" "$([ "$mode" = 1 ] && echo knapid || echo softirq)" \
		"$held" "$rounds"
}

echo "# kernel $(uname -r), $(nproc) CPUs"
echo "| placement | mode | held/rounds |"
echo "|---|---|---|"
for mode in 0 1; do
	probe $mode "taskset -c 0" "taskset -c 1" 50000 $((5 * scale)) "server CPU 0, client CPU 1, gro 50 us"
	probe $mode "taskset -c 0" "taskset -c 0" 50000 $((24 * scale)) "both on CPU 0, gro 50 us"
	probe $mode "taskset -c 0" "taskset -c 0" 5000000 $((10 * scale)) "both on CPU 0, gro 5 ms"
	probe $mode "" "" 50000 $((5 * scale)) "unpinned, gro 50 us"
done
