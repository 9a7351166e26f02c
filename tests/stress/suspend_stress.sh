#!/usr/bin/env bash
# make stress, part 2: IRQ suspension under faults. Each scenario arms a
# suspension first: an epoll server with prefer_busy_poll keeps finding
# events (tests/guest/epoll_hold.py) on a NAPI with irq-suspend-timeout
# 20 s, and a napi_watchdog timer must be pending (else the scenario
# tests nothing and fails). Then the fault, and what must hold after it;
# under all of it KASAN and DEBUG_OBJECTS_TIMERS/_FREE report any timer
# left in freed memory: a round with such a report in dmesg fails (and the
# splat gate fails the boot).
#
# usage: suspend_stress.sh nsim|virtio
#   nsim (a linked netdevsim pair, 2 queues): the epoll fd closed; the
#     link down (no timer may stay pending on the disabled NAPI); the
#     device deleted; the server's netns deleted (with a 600 s timeout:
#     the timer must go with the device's close, not expire); every
#     netdevsim device deleted at once (what its module exit does;
#     netdevsim is built in); 8 epoll contexts on one NAPI; a fork
#     sharing the context; prefer_busy_poll on pipes and unix sockets; and
#     napi-set changing irq-suspend-timeout, gro-flush-timeout and
#     defer-hard-irqs 100 times while suspended
#   virtio (two virtio-net NICs on a QEMU hub: real interrupts): a busy
#     polling server stopped with SIGSTOP while suspended (sc_sigstop);
#     the epoll fd closed; the link down
# STRESS_SCALE=slice|quick|full: rounds of each scenario (ROUNDS below).
. "$(dirname "$0")/lib.sh"

kind=${1:?usage: suspend_stress.sh nsim|virtio}
ROUNDS=$(scaled 1 1 3)
SUSPEND_NS=20000000000
HOLD=$STRESS_DIR/../guest/epoll_hold.py
state=
srv=
clients=()
port=4300

events_at_least() { [ "$(cat "$state/${2:-events}" 2>/dev/null || echo 0)" -ge "$1" ]; }
no_watchdogs() { [ "$(napi_watchdogs)" -eq 0 ]; }

# napi_set_all NS DEV JSON_FIELDS: napi-set on every NAPI of DEV (one
# python and the selftests' YNL library: the CLI takes seconds per call
# under TCG)
napi_set_all() {
	local ifindex
	ifindex=$(ip netns exec "$1" cat "/sys/class/net/$2/ifindex") || return 1
	ip netns exec "$1" /usr/bin/python3 - "$KSFT/net" "$ifindex" "{$3}" <<-'EOF'
	import json, sys
	sys.path.insert(0, sys.argv[1])
	from lib.py import NetdevFamily
	nl = NetdevFamily()
	napis = nl.napi_get({'ifindex': int(sys.argv[2])}, dump=True)
	assert napis, 'no NAPI'
	for n in napis:
	    nl.napi_set({'id': n['id'], **json.loads(sys.argv[3])})
	EOF
}

setup_devs() {
	if [ "$kind" = nsim ]; then
		id=$((5000 + RANDOM % 3000))
		pair_create $id $((id + 1)) 2 || return 1
		ip -n "$NS_A" link set "$DEV_A" up && ip -n "$NS_B" link set "$DEV_B" up
	else
		nics_pair_into_netns virtio_net || return 1
	fi
	peer_reachable 30
}

# arm [EPOLL_HOLD ARGS]: the server in NS_A suspending DEV_A's NAPI; fails
# unless a napi_watchdog timer is pending
arm() {
	local conns=1 i
	[ "${1:-}" = --conns ] && conns=$2
	state=$(mktemp -d)
	setup_devs || { echo "# setup failed"; return 1; }
	napi_set_all "$NS_A" "$DEV_A" "\"irq-suspend-timeout\": ${SUSPEND:-$SUSPEND_NS}" ||
		{ echo "# napi-set failed"; return 1; }
	port=$((port + 1))
	ip netns exec "$NS_A" /usr/bin/python3 "$HOLD" $port "$state" --secs 300 "$@" &
	srv=$!
	[[ " $* " == *" --pipes "* ]] && return 0
	tcp_listen_wait "$NS_A" $port 60 || { echo "# the server does not listen in 60 s"; return 1; }
	for ((i = 0; i < conns; i++)); do
		head -c 16384 /dev/zero | timeout 300 ip netns exec "$NS_B" socat -u - "TCP:$ADDR_A:$port" &
		clients+=($!)
	done
	slowwait 30 events_at_least 5 || { echo "# epoll_wait() returned no events"; return 1; }
	slowwait 5 eval '[ "$(napi_watchdogs)" -ge 1 ]' || { echo "# no napi_watchdog timer pending: not suspended"; return 1; }
}

disarm() {
	local pid
	[ -n "$state" ] && touch "$state/stop"
	[ -n "$srv" ] && { kill -CONT "$srv" 2>/dev/null; wait "$srv" 2>/dev/null; }
	for pid in "${clients[@]}"; do
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	srv= clients=()
	if [ "$kind" = nsim ]; then
		pair_destroy 2>/dev/null
	else
		nics_out_of_netns virtio_net
	fi
	[ -n "$state" ] && rm -rf "$state"
	state=
}
trap 'disarm; stream_cleanup' EXIT

ping_ok() { peer_reachable 10; }

# the scenarios: each returns non-zero when what must hold after the fault
# does not
sc_close() {
	touch "$state/stop"
	wait "$srv"
	srv=
	ping_ok
}

sc_down() {
	local n
	ip -n "$NS_A" link set "$DEV_A" down
	n=$(cat "$state/events")
	# epoll keeps finding the readable socket: it calls napi_suspend_irqs()
	# for a NAPI that is now disabled
	slowwait 10 events_at_least $((n + 20)) || echo "# epoll stopped returning events"
	slowwait 2 no_watchdogs || { echo "# $(napi_watchdogs) napi_watchdog timers pending on the disabled NAPI"; return 1; }
	# stop the server first: once the link is up, a server that keeps
	# finding its unread socket keeps the NAPI (same id) suspended, and
	# on virtio-net nothing else would poll it, by design
	touch "$state/stop"
	wait "$srv"
	srv=
	ip -n "$NS_A" link set "$DEV_A" up && ping_ok
}

sc_delete() {
	# the NAPIs are freed with the device (setup_devs made it with id $id)
	echo "$id" > /sys/bus/netdevsim/del_device || return 1
	slowwait 2 no_watchdogs || { echo "# $(napi_watchdogs) napi_watchdog timers pending after the device went"; return 1; }
}

sc_netns() {
	# the netns goes when its last user (the server) does; its devices
	# move back to the init netns
	ip netns del "$NS_A" || return 1
	touch "$state/stop"
	wait "$srv"
	srv=
	slowwait 60 no_watchdogs || { echo "# $(napi_watchdogs) napi_watchdog timers pending 60 s after the netns went"; return 1; }
}

# netdevsim's module exit deletes every device of its bus; the slim
# kernels have netdevsim built in, so that is done here by hand
sc_unload() {
	local d
	for d in /sys/bus/netdevsim/devices/netdevsim*; do
		echo "${d##*/netdevsim}" > /sys/bus/netdevsim/del_device || return 1
	done
	slowwait 2 no_watchdogs || { echo "# $(napi_watchdogs) napi_watchdog timers pending after the devices went"; return 1; }
}

sc_contexts() {
	touch "$state/stop"
	wait "$srv"
	srv=
	ping_ok
}

sc_fork() {
	local n
	n=$(cat "$state/events.child" 2>/dev/null || echo 0)
	slowwait 10 events_at_least $((n + 5)) events.child || { echo "# the child's epoll_wait() found nothing"; return 1; }
	touch "$state/stop"
	wait "$srv"
	srv=
	ping_ok
}

sc_pipes() {
	# the server starts in the background (arm() does not wait for it):
	# a python start under KASAN and TCG on a loaded host can take 10 s
	slowwait 60 events_at_least 20 || { echo "# epoll_wait() on pipes found nothing in 60 s"; return 1; }
	[ "$(napi_watchdogs)" -eq 0 ] || { echo "# a napi_watchdog timer pending without a NAPI"; return 1; }
}

sc_napiset() {
	local ifindex
	ifindex=$(ip netns exec "$NS_A" cat "/sys/class/net/$DEV_A/ifindex")
	ip netns exec "$NS_A" /usr/bin/python3 - "$KSFT/net" "$ifindex" <<-'EOF' || return 1
	import random, sys
	sys.path.insert(0, sys.argv[1])
	from lib.py import NetdevFamily
	nl = NetdevFamily()
	ids = [n['id'] for n in nl.napi_get({'ifindex': int(sys.argv[2])}, dump=True)]
	for _ in range(100):
	    nl.napi_set({'id': random.choice(ids),
	                 'irq-suspend-timeout': random.choice((0, 1000000, 20000000000)),
	                 'gro-flush-timeout': random.choice((0, 20000, 1000000)),
	                 'defer-hard-irqs': random.choice((0, 2, 100))})
	for i in ids:
	    nl.napi_set({'id': i, 'irq-suspend-timeout': 0, 'gro-flush-timeout': 0, 'defer-hard-irqs': 0})
	EOF
	touch "$state/stop"
	wait "$srv"
	srv=
	ping_ok
}

# SIGSTOP while suspended (virtio-net, real interrupts). busy_poller
# (the net selftests' epoll server: busy polls 20 ms per epoll_wait() with
# prefer_busy_poll, sets its NAPI's defer-hard-irqs 100, gro-flush-timeout
# 50 us and irq-suspend-timeout 10 s) reads a stream of 100-byte writes,
# 2 ms apart, so epoll keeps finding events and the NAPI's interrupt stays
# masked. Then the server is stopped: what arrives waits in the ring until
# the suspension timer fires, and then reaches the socket (Recv-Q grows)
# without anybody polling. Held: for 0.5 s after the stop the queue's
# interrupts stay flat; if they did not (the stop hit a moment the server
# had found nothing and resumed them), the server continues and is
# stopped again, up to 20 times. Back: Recv-Q grows no sooner than half
# the timeout and no later than 4 s after it. The timeout is long because
# on the KASAN kernel under TCG the tools that read the counters take
# seconds: with 2 s, the 0.5 s window (measured, and printed) often ended
# after the suspension had, and its interrupts were counted against it.
POLLER=$KSFT/net/busy_poller
POLLER_SUSPEND_MS=10000
# 6.12's busy_poller (this project's) takes -t WAIT_SECS, a bound on its
# life; 7.3's (upstream's) needs -i IFINDEX (it sets that device's first
# NAPI, on virtio-net with one queue pair the only one with an id), exits
# when the client hangs up, and its -t is the NAPI's threaded mode
POLLER_UPSTREAM=no
"$POLLER" 2>&1 | grep -q napi_threaded_poll && POLLER_UPSTREAM=yes
sc_sigstop() {
	local virtio b0 b1 q0 q t0 win ms=-1 held=0 try i
	virtio=$(basename "$(ip netns exec "$NS_A" readlink -f "/sys/class/net/$DEV_A/device")")
	ip netns exec "$NS_B" timeout 320 /usr/bin/python3 -c '
import os, socket, sys, time
s = socket.create_connection((sys.argv[1], int(sys.argv[2])))
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
end = time.monotonic() + 300
while time.monotonic() < end and not os.path.exists(sys.argv[3]):
    s.send(b"x" * 100)
    time.sleep(0.002)
' "$ADDR_A" "$port" "$state/stop" &
	clients+=($!)
	slowwait 20 eval "[ \$(stat -c %s $state/out 2>/dev/null || echo 0) -ge 2000 ]" ||
		{ echo "# the server got nothing"; return 1; }
	# The server's suspension lapses whenever one of its epoll_wait calls
	# finds nothing within its busy-poll time, and a stop may land in such
	# a lapse, so a stop that finds the interrupts running is retried (hold
	# rates and a trace of held stops:
	# reports/stress-2026-11-29-afb20a4-7.3-part4-rerun/NOTES.md). With the
	# suspension broken no stop holds, and the case fails.
	for ((try = 1; try <= 20 && held == 0; try++)); do
		kill -STOP "$srv"
		t0=${EPOCHREALTIME/[.,]/}
		b0=$(input_irqs "$virtio")
		sleep 0.5
		b1=$(input_irqs "$virtio")
		win=$(( (${EPOCHREALTIME/[.,]/} - t0) / 1000 ))
		q0=$(recv_q)
		echo "# stop $try: in the next $win ms $((b1 - b0)) interrupts on $virtio-input.0; Recv-Q ${q0:-?}"
		# a window that outlasted the suspension proves nothing either way
		if [ "$b1" = "$b0" ] && [ "$win" -lt $((POLLER_SUSPEND_MS / 2)) ]; then
			held=1
		else
			kill -CONT "$srv"
			sleep 1
		fi
	done
	[ $held = 1 ] || { kill -CONT "$srv"; echo "# the interrupts were never held"; return 1; }
	# nothing polls the NAPI until the suspension timer fires: only then
	# does what arrived meanwhile reach the socket
	while q=$(recv_q); [ "${q:-0}" -le "${q0:-0}" ]; do
		[ $(( (${EPOCHREALTIME/[.,]/} - t0) / 1000 )) -lt $((POLLER_SUSPEND_MS + 4000)) ] || break
		sleep 0.1
	done
	[ "${q:-0}" -gt "${q0:-0}" ] && ms=$(( (${EPOCHREALTIME/[.,]/} - t0) / 1000 ))
	echo "# Recv-Q grew from ${q0:-?} to ${q:-?} $ms ms after the stop (irq-suspend-timeout $POLLER_SUSPEND_MS ms)"
	record "irq suspension: sigstop" "ms from the stop until data reached the socket" "$ms"
	record "irq suspension: sigstop" "stops until one found the interrupts held" "$((try - 1))"
	kill -CONT "$srv"
	[ $ms -ge $((POLLER_SUSPEND_MS / 2)) ] && [ $ms -le $((POLLER_SUSPEND_MS + 4000)) ]
}

# the receiving queue's interrupts (its MSI-X vector VIRTIO-input.0)
input_irqs() {
	awk -v n="$1-input.0" '$NF == n { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i; print s + 0 }' \
		/proc/interrupts
}

recv_q() {
	ip netns exec "$NS_A" ss -tnH state established "( sport = :$port )" | awk '{ print $1; exit }'
}

# arm_poller: busy_poller as the server, suspending DEV_A's NAPI itself
arm_poller() {
	state=$(mktemp -d)
	setup_devs || { echo "# setup failed"; return 1; }
	port=$((port + 1))
	local which=(-t 120)
	[ $POLLER_UPSTREAM = yes ] &&
		which=(-i "$(ip netns exec "$NS_A" cat "/sys/class/net/$DEV_A/ifindex")")
	ip netns exec "$NS_A" "$POLLER" -p $port -b "$ADDR_A" -o "$state/out" -m 64 \
		-u 20000 -P 1 -g 64 -d 100 -r 50000 -s $((POLLER_SUSPEND_MS * 1000000)) "${which[@]}" \
		> "$state/server.out" 2>&1 &
	srv=$!
	tcp_listen_wait "$NS_A" $port 60 || {
		echo "# busy_poller does not listen in 60 s; it said:"
		sed 's/^/#   /' "$state/server.out"
		return 1
	}
}

if [ "$kind" = nsim ]; then
	scenarios=(close down delete netns unload "contexts --conns 8" "fork --fork" "pipes --pipes" napiset)
else
	scenarios=(sigstop close down)
fi

ktap_print_header
ktap_set_plan ${#scenarios[@]}
for sc in "${scenarios[@]}"; do
	read -r name args <<< "$sc"
	bad=0
	t0=$SECONDS
	prep=arm
	[ "$name" = sigstop ] && prep=arm_poller
	# netns: the device must be closed (its timer cancelled) by the netns
	# going away, well before a 600 s suspension would end by itself
	SUSPEND=
	[ "$name" = netns ] && SUSPEND=600000000000
	for ((r = 1; r <= ROUNDS; r++)); do
		mark=$(dmesg | wc -l)
		# shellcheck disable=SC2086
		if ! $prep $args; then
			echo "# $name round $r: the suspension was not armed"
			bad=1
		elif ! "sc_$name"; then
			echo "# $name round $r: failed"
			bad=1
		fi
		disarm
		# a timer freed while armed (ODEBUG), or used after its free
		no_reports_since "$mark" || { echo "# $name round $r: the kernel reported the above"; bad=1; }
	done
	record "irq suspension: $name" rounds "$ROUNDS"
	record "irq suspension: $name" seconds $((SECONDS - t0))
	ktap_test_result "$kind: $name while suspended, $ROUNDS rounds" test $bad -eq 0
done
ktap_finished
