#!/usr/bin/env bash
# Harness cases for knapid's rule of where a NET_RX round runs
# (knapid_wanted() in net/core/dev.c), the cases that need a boot parameter
# or TCG-tuned counts and so stay out of the kselftests:
#
#   own_rounds   veth and lo request-response in knapid mode wake no knapid
#                thread per request: a task's own round runs at its
#                local_bh_enable(); control: netdevsim requests that RPS
#                steers to a busy CPU wake knapid for each request (the
#                RPS IPI is an interrupt on both bases; 6.12's netdevsim
#                schedules its peer's NAPI from the sender's transmit)
#   rt_own_rounds  a SCHED_FIFO task's own lo round, and what that round
#                leaves, do not wait for a knapid thread that it starves,
#                even with a round due there; control: its netdevsim
#                traffic, which a timer interrupt hands to that thread,
#                does (7.3 only: 6.12's netdevsim has no timer, its
#                sender runs the round)
#   rt_after_yield  the same after a flood's round that the spinner's
#                wake-up cut short (knapid_yields()) left work to knapid/1:
#                the task's lo request, which RPS sends to cpu0, still
#                raises a round in the task; control: the flood's held
#                backlog gets no round
#   starved      a starved knapid thread holds a queue's traffic no longer
#                than a round may last (netdev_budget_usecs): a TCP stream
#                that RPS steers to a CPU where a SCHED_FIFO task spins,
#                knapid on and off, RT throttling on and off; control: the
#                same stream in knapid mode with that bound lifted stalls
#   idle_rounds  an RPS IPI that finds cpu1 idle runs its round there when
#                its idle loop halts, and in knapid/1 when it polls (boot
#                idle=poll); control: softirq mode runs it in the idle task
#   rt_yield     in knapid mode a NET_RX round ends once a SCHED_FIFO task
#                waits for its CPU: under a flood that RPS steers to cpu1,
#                no more than one NAPI poll runs between cyclictest's wake-up
#                there and its switch-in, and an interrupt that finds
#                cpu1 idle meanwhile starts no NET_RX round there;
#                control: softirq mode, whose round goes on polling and
#                whose idle CPU runs the interrupt's round inline
#   threadirqs   (boot threadirqs) no NAPI poll runs in ksoftirqd in knapid
#                mode; control: softirq mode polls there
#   isolated     (boot isolcpus=1) traffic pinned to the isolated CPU
#                flows across 100 switches, and a switch interrupts it
#                only to hand back work a starved knapid/1 holds there
#
# usage: knapid-contexts.sh CASE...   (default: own_rounds)
. "$(dirname "$0")/lib.sh"

SYSCTL=/proc/sys/net/core/knapid_enabled
TRACEFS=/sys/kernel/tracing
REQUESTS=100
VETH_A=knapid-va-$$
VETH_B=knapid-vb-$$
MODE_ORIG=$(cat "$SYSCTL" 2>/dev/null)
BUDGET_USECS=/proc/sys/net/core/netdev_budget_usecs
BUDGET=/proc/sys/net/core/netdev_budget
WEIGHT=/proc/sys/net/core/dev_weight
RT_RUNTIME=/proc/sys/kernel/sched_rt_runtime_us
USECS_ORIG=$(cat "$BUDGET_USECS")
BUDGET_ORIG=$(cat "$BUDGET")
WEIGHT_ORIG=$(cat "$WEIGHT")
# read by the one case that changes it (case_starved): on 7.3 without
# CONFIG_CPUSETS, any access to this sysctl with isolcpus= rebuilds the
# sched domains without the lock housekeeping_cpumask() checks for, and
# lockdep reports suspicious RCU usage (kernel/sched/isolation.c:62, seen
# in the isolcpus=1 boot), a bug of the base, not of knapid
RT_RUNTIME_ORIG=
# netdev_budget_usecs that lifts the bound on what a starved knapid thread
# holds (knapid_overdue()) beyond any case's length, for the cases that
# need the thread to hold work: 10 s
HOLD_USECS=10000000
# case_starved's limits, in ms: knapid's longest stall (the bound, 8 ms at
# HZ=250, plus a round and TCG's noise), and the least stall of its
# control, whose thread holds the traffic until the fair server runs it
STALL_MS=${STALL_MS:-250}
HOLD_MIN_MS=${HOLD_MIN_MS:-500}
SPIN_PIDS=()
FLOOD_EVENTS="napi/napi_poll sched/sched_wakeup sched/sched_switch irq/softirq_raise"

cleanup()
{
	local p

	for p in "${SPIN_PIDS[@]}"; do
		kill "$p" 2>/dev/null
	done
	[ -n "$MODE_ORIG" ] && echo "$MODE_ORIG" > "$SYSCTL"
	echo "$USECS_ORIG" > "$BUDGET_USECS"
	echo "$BUDGET_ORIG" > "$BUDGET"
	echo "$WEIGHT_ORIG" > "$WEIGHT"
	[ -n "$RT_RUNTIME_ORIG" ] && echo "$RT_RUNTIME_ORIG" > "$RT_RUNTIME"
	ip netns del "$VETH_A" 2>/dev/null
	ip netns del "$VETH_B" 2>/dev/null
	pair_destroy
}
trap cleanup EXIT

# knapid_switches: context switches of all knapid threads so far, each one
# a wake-up of a thread that had slept (or a preemption of one that ran)
knapid_switches()
{
	local pid sum=0 v

	for pid in $(pgrep -x 'knapid/[0-9]+'); do
		while read -r k v; do
			case $k in
			voluntary_ctxt_switches: | nonvoluntary_ctxt_switches:)
				sum=$((sum + v)) ;;
			esac
		done < "/proc/$pid/status"
	done
	echo "$sum"
}

# spin_on CPU [FIFO_PRIO]: a spinner keeps CPU busy (at most 300 s), so
# that an interrupt there finds a task running: at nice 19, or at
# SCHED_FIFO FIFO_PRIO, forked on cpu0 and running once it is on CPU
spin_on()
{
	local pid

	if [ -z "${2:-}" ]; then
		taskset -c "$1" nice -n 19 timeout 300 sh -c 'while :; do :; done' &
		SPIN_PIDS+=($!)
		return
	fi
	taskset -c 0 timeout 300 chrt -f "$2" taskset -c "$1" \
		sh -c 'while :; do :; done' &
	pid=$!
	SPIN_PIDS+=("$pid")
	# it spins once sh is exec'd (a fork can take a second under load)
	slowwait 10 pgrep -P "$pid" -x sh > /dev/null
}

# spin_stop [FIRST]: stop the spinners this shell started, from the
# FIRST-th on (default: all). A subshell ($(...)) must stop only its own:
# its wait for one of its parent's would last until its own spinner exits.
spin_stop()
{
	local first=${1:-0} p

	for p in "${SPIN_PIDS[@]:first}"; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	SPIN_PIDS=("${SPIN_PIDS[@]:0:first}")
}

# wakes_per_request NS ADDR: knapid switches while REQUESTS pings from
# netns NS to ADDR, pinned to CPU 1, run beside a spinner on CPU 1
wakes_per_request()
{
	local ns=$1 addr=$2 k0 k1 own=${#SPIN_PIDS[@]}

	spin_on 1
	k0=$(knapid_switches)
	ip netns exec "$ns" taskset -c 1 \
		ping -q -c "$REQUESTS" -i 0.01 -W 2 "$addr" > /dev/null || {
		spin_stop "$own"
		echo -1
		return
	}
	k1=$(knapid_switches)
	spin_stop "$own"
	echo $((k1 - k0))
}

# a veth pair between two netns, 198.51.100.1 in VETH_A, .2 in VETH_B
veth_create()
{
	ip netns add "$VETH_A" && ip netns add "$VETH_B" &&
	ip -n "$VETH_A" link add va type veth peer name vb netns "$VETH_B" &&
	ip -n "$VETH_A" link set lo up &&
	ip -n "$VETH_A" link set va up &&
	ip -n "$VETH_B" link set vb up &&
	ip -n "$VETH_A" addr add 198.51.100.1/24 dev va &&
	ip -n "$VETH_B" addr add 198.51.100.2/24 dev vb
}

# rps_to MASK: RPS steers what the pair's DEV_A receives to the CPUs of
# MASK (hex; 0: off)
rps_to()
{
	# the device's sysfs is in its netns
	ip netns exec "$NS_A" sh -c \
		"for f in /sys/class/net/$DEV_A/queues/rx-*/rps_cpus; do echo $1 > \$f; done"
}

case_own_rounds()
{
	local name="knapid mode: a task's own veth and lo traffic wakes no knapid thread"
	local veth lo nsim

	if ! veth_create; then
		ktap_test_fail "$name"
		return
	fi
	echo 1 > "$SYSCTL"
	veth=$(wakes_per_request "$VETH_A" 198.51.100.2)
	lo=$(wakes_per_request "$VETH_A" 127.0.0.1)
	rps_to 1
	spin_on 0
	nsim=$(wakes_per_request "$NS_B" "$ADDR_A")
	spin_stop
	rps_to 0
	# their IPv6 timers would keep sending into the backlogs
	ip netns del "$VETH_A"
	ip netns del "$VETH_B"
	echo "# knapid wake-ups for $REQUESTS requests, CPU 1 busy: veth $veth," \
	     "lo $lo; netdevsim with RPS to a busy cpu0 (the control) $nsim"
	ktap_test_result "$name" test "$veth" -lt $((REQUESTS / 10)) \
		-a "$lo" -lt $((REQUESTS / 10)) \
		-a "$nsim" -ge $((REQUESTS / 2))
}

# time_squeeze: NET_RX rounds that ran out of budget or time so far, all
# CPUs (the third column of /proc/net/softnet_stat, hex)
time_squeeze()
{
	local sum=0 v

	while read -r _ _ v _; do
		sum=$((sum + 16#$v))
	done < /proc/net/softnet_stat
	echo "$sum"
}

# squeezed_since COUNT N: time_squeeze has grown by N since it was COUNT
squeezed_since()
{
	[ $(($(time_squeeze) - $1)) -ge "$2" ]
}

# received OUTPUT: the replies a ping summary in OUTPUT reports
received()
{
	sed -n 's/.* \([0-9]*\) received.*/\1/p' <<<"$1"
}

# rt_try: one try of case_rt_own_rounds; sets HELD, LO and SQUEEZED
rt_try()
{
	local usecs budget sq0

	usecs=$(cat "$BUDGET_USECS")
	budget=$(cat "$BUDGET")
	echo "$HOLD_USECS" > "$BUDGET_USECS"
	chrt -f -p 1 "$K1"
	spin_on 1 10
	HELD=$(received "$(ip netns exec "$NS_B" chrt -f 20 taskset -c 1 \
		ping -c 1 -W 1 "$ADDR_A")")
	echo 1 > "$BUDGET"
	sq0=$(time_squeeze)
	LO=$(received "$(ip netns exec "$NS_B" chrt -f 20 taskset -c 1 \
		ping -c 1 -W 2 127.0.0.1)")
	SQUEEZED=$(($(time_squeeze) - sq0))
	echo "$budget" > "$BUDGET"
	echo "$usecs" > "$BUDGET_USECS"
	spin_stop
	chrt -o -p 0 "$K1"
}

# A real-time task outranks knapid/1 (SCHED_FIFO 1 here, under a SCHED_FIFO
# 10 spinner on cpu1, so it never runs): the netdevsim pair's timer
# interrupt hands the round of its ping to knapid/1, which holds it (the
# control: no reply), and from then on a round is due there. The same
# task's ping over lo is a round of its own, which it must keep
# (knapid_due()), or it would wait for the starved thread too. With
# netdev_budget at 1 that round polls only the held netdevsim NAPI, first
# on the list, and leaves the lo backlog: what it leaves must restart in
# the task, as the softirq's does, not go to knapid/1 (knapid_wanted()).
# The rounds that ran out of budget meanwhile (time_squeeze) show that
# the case reached that path. netdev_budget_usecs is lifted to 10 s, so
# that knapid/1 holds the netdevsim round (knapid_overdue() would hand it
# to the softirq after a round's time otherwise); the softirq restarts
# only within the tick its first round started in (MAX_SOFTIRQ_TIME, one
# jiffy at HZ=250). Up to three tries, each from a
# released knapid/1, as the softirq also stops restarting when the task
# is to be preempted (7.3's fair server preempts real-time tasks for the
# normal ones now and then): ksoftirqd then runs the round, and what its
# round leaves goes to knapid/1 (ksoftirqd does not outrank it), which
# lost the lo ping in 1 of 16 traced tries; sabotages 16 and 17 lose it
# in every try. Packets that another softirq sends into cpu1's backlog
# go to knapid/1 too, and a lo request that joins that held backlog
# raises no round: own_rounds deletes its veth netns, whose IPv6 timers
# did that (4 of 30 first tries after own_rounds lost, one traced; none
# of 30 without it).
case_rt_own_rounds()
{
	local name="knapid mode: a SCHED_FIFO task's own lo traffic, and what its round leaves, do not wait for a knapid thread it starves"
	local try ok=1

	K1=$(pgrep -x knapid/1)
	if [ -z "$K1" ]; then
		ktap_print_msg "needs knapid/1"
		ktap_test_skip "$name"
		return
	fi
	echo 1 > "$SYSCTL"
	ip -n "$NS_B" link set lo up
	for try in 1 2 3; do
		rt_try
		echo "# try $try: SCHED_FIFO 20 on cpu1 beside a starved" \
		     "knapid/1: netdevsim ping ${HELD:-?}/1 replies (the" \
		     "control), lo ping ${LO:-?}/1, $SQUEEZED rounds out of budget"
		if [ "${HELD:-1}" -eq 0 ] && [ "${LO:-0}" -eq 1 ] &&
		   [ "$SQUEEZED" -ge 1 ]; then
			ok=0
			break
		fi
	done
	ktap_test_result "$name" test "$ok" -eq 0
}

# rps_lo MASK: RPS steers what NS_B's lo receives to the CPUs of MASK
rps_lo()
{
	ip netns exec "$NS_B" sh -c \
		"echo $1 > /sys/class/net/lo/queues/rx-0/rps_cpus"
}

# yield_try: one try of case_rt_after_yield; sets HELD and LO
yield_try()
{
	local sq0 flood own=${#SPIN_PIDS[@]}

	echo "$HOLD_USECS" > "$BUDGET_USECS"
	echo 1 > "$BUDGET"
	echo 1 > "$WEIGHT"
	chrt -f -p 1 "$K1"
	sq0=$(time_squeeze)
	ip netns exec "$NS_B" taskset -c 0 \
		ping -q -f -l 1000 -w 5 "$ADDR_A" > /dev/null 2>&1 &
	flood=$!
	# knapid/1 runs rounds that leave work (one packet each)
	slowwait 5 squeezed_since "$sq0" 200
	spin_on 1 10
	wait "$flood"
	HELD=$(received "$(ip netns exec "$NS_B" taskset -c 0 \
		ping -c 1 -W 1 "$ADDR_A")")
	LO=$(received "$(ip netns exec "$NS_B" chrt -f 20 taskset -c 1 \
		ping -c 1 -W 2 127.0.0.1)")
	spin_stop "$own"
	chrt -o -p 0 "$K1"
	echo "$WEIGHT_ORIG" > "$WEIGHT"
	echo "$BUDGET_ORIG" > "$BUDGET"
	echo "$USECS_ORIG" > "$BUDGET_USECS"
}

# A round that knapid_yields() cuts short hands what it leaves to the
# thread; the raises that come while that round is due there must still
# reach the rule of napi_kick_rx(). A ping flood from cpu0, which RPS
# steers to cpu1, keeps knapid/1 (SCHED_FIFO 1) busy with rounds of one
# packet (netdev_budget 1, dev_weight 1), each of which leaves work; a
# SCHED_FIFO 10 spinner that wakes on cpu1 ends the round and starves
# knapid/1 with that work due, held (netdev_budget_usecs lifted, so
# knapid_overdue() does not hand it back): a netdevsim ping through the
# same backlog gets no reply (the control). A SCHED_FIFO 20 ping over
# NS_B's lo, which RPS sends to cpu0, queues the RPS IPI on cpu1
# (napi_schedule_rps()): the task's own round must send it, in each of
# five tries (with 1,000 requests in flight the backlog stays full, but
# the spinner's wake-up can still find knapid/1 between rounds with none
# left: sabotage 20 lost the lo ping in the second of two tries with 64
# in flight, 2026-12-02).
case_rt_after_yield()
{
	local name="knapid mode: a SCHED_FIFO task's own round is not held back by a yielded round due in a thread it starves"
	local try ok=1

	K1=$(pgrep -x knapid/1)
	if [ -z "$K1" ]; then
		ktap_print_msg "needs knapid/1"
		ktap_test_skip "$name"
		return
	fi
	echo 1 > "$SYSCTL"
	ip -n "$NS_B" link set lo up
	rps_to 2
	rps_lo 1
	for try in 1 2 3 4 5; do
		yield_try
		echo "# try $try: ping flood to cpu1 cut short by SCHED_FIFO 10" \
		     "there: netdevsim ping ${HELD:-?}/1 replies (the control)," \
		     "SCHED_FIFO 20 lo ping ${LO:-?}/1"
		if [ "${HELD:-1}" -ne 0 ] || [ "${LO:-0}" -ne 1 ]; then
			ok=1
			break
		fi
		ok=0
	done
	rps_lo 0
	rps_to 0
	ktap_test_result "$name" test "$ok" -eq 0
}

# stream_under_spinner PORT: a TCP stream of 3 s from NS_B to NS_A, both
# ends on cpu0, RPS steering what A receives to cpu1, where a SCHED_FIFO
# 10 task spins; prints tcp_stall.py's "BYTES SECS MAXGAP_MS", or
# "0 0 -1" when the stream failed
stream_under_spinner()
{
	local port=$1 out srv rc=0 own=${#SPIN_PIDS[@]}
	local tool
	tool=$(dirname "$0")/tcp_stall.py

	out=$(mktemp)
	ip netns exec "$NS_A" taskset -c 0 timeout 60 \
		python3 "$tool" recv "$port" 3 > "$out" &
	srv=$!
	tcp_listen_wait "$NS_A" "$port" 60 || rc=1
	spin_on 1 10
	ip netns exec "$NS_B" taskset -c 0 timeout 60 \
		python3 "$tool" send "$ADDR_A" "$port" 3 || rc=1
	wait "$srv" || rc=1
	spin_stop "$own"
	if [ $rc -eq 0 ] && [ -s "$out" ]; then
		cat "$out"
	else
		echo 0 0 -1
	fi
	rm -f "$out"
}

# A real-time task spinning on the CPU a queue's traffic goes to starves
# knapid there; the thread must not hold that traffic longer than a round
# may last. Streams with knapid off (softirq), on, and on with the bound
# lifted (the control, netdev_budget_usecs 10 s), with RT throttling on
# (the default: 7.3's fair server and the RT bandwidth limit still run
# normal tasks, knapid/1 among them, for 5% of cpu1) and off
# (sched_rt_runtime_us -1, knapid/1 at SCHED_FIFO 1 below the spinner:
# the thread never runs while the task spins). Passes when knapid's
# stream carried data with its longest stall within STALL_MS, and the
# control stalled for HOLD_MIN_MS or more (a bound that does nothing
# stalls like it), in both settings. Bytes are printed, not judged: one
# 3 s stream under TCG gave knapid 0.27x and 2.9x the softirq's in the two
# settings of one boot (2026-12-02); STARVED_ROUNDS repeats the streams
# for a measurement. The softirq mode's stream, the reference of such a
# measurement, runs only then (or with STARVED_REFERENCE=1): the verdict
# does not read it, and each stream costs make check about 17 s.
case_starved()
{
	local name="knapid mode: a starved knapid thread holds a queue's traffic no longer than a round may last"
	local setting port=20200 ref on held ok=0 k1 round

	k1=$(pgrep -x knapid/1)
	if [ -z "$k1" ]; then
		ktap_print_msg "needs knapid/1"
		ktap_test_skip "$name"
		return
	fi
	RT_RUNTIME_ORIG=$(cat "$RT_RUNTIME")
	# this shell and what it starts stay off the spinner's CPU
	taskset -p -c 0 $$ > /dev/null
	rps_to 2
	for round in $(seq "${STARVED_ROUNDS:-1}"); do
	for setting in throttled unthrottled; do
		if [ $setting = unthrottled ]; then
			echo -1 > "$RT_RUNTIME"
			chrt -f -p 1 "$k1"
		fi
		ref="not run"
		if [ "${STARVED_REFERENCE:-${STARVED_ROUNDS:+1}}" = 1 ]; then
			echo 0 > "$SYSCTL"
			ref=$(stream_under_spinner $port)
		fi
		echo 1 > "$SYSCTL"
		read -r -a on <<<"$(stream_under_spinner $((port + 1)))"
		echo "$HOLD_USECS" > "$BUDGET_USECS"
		read -r -a held <<<"$(stream_under_spinner $((port + 2)))"
		echo "$USECS_ORIG" > "$BUDGET_USECS"
		port=$((port + 3))
		chrt -o -p 0 "$k1"
		echo "$RT_RUNTIME_ORIG" > "$RT_RUNTIME"
		echo "# round $round, $setting: 3 s TCP stream to cpu1 beside" \
		     "SCHED_FIFO 10 there, bytes / seconds / longest stall ms:" \
		     "softirq $ref; knapid ${on[*]}; knapid, bound lifted" \
		     "(the control) ${held[*]}"
		if ! awk -v on="${on[0]}" -v gap="${on[2]}" -v hgap="${held[2]}" \
			 -v stall="$STALL_MS" -v hold="$HOLD_MIN_MS" \
			 'BEGIN { exit !(on > 0 && gap >= 0 && gap <= stall &&
					 (hgap < 0 || hgap >= hold)) }'; then
			ok=1
		fi
	done
	done
	rps_to 0
	taskset -p -c 0-"$(($(nproc --all) - 1))" $$ > /dev/null
	ktap_test_result "$name" test "$ok" -eq 0
}

# napi_poll_traced: mount tracefs if needed; fails, saying why, when the
# kernel has no napi:napi_poll tracepoint
napi_poll_traced()
{
	mountpoint -q $TRACEFS || mount -t tracefs none $TRACEFS
	[ -d "$TRACEFS/events/napi/napi_poll" ] && return 0
	ktap_print_msg "no napi:napi_poll tracepoint"
	return 1
}

# polls_while_waiting: "MAX WAITS LONG IDLE HIST" from the trace of cpu1:
# the most napi_poll events between a wake-up of the SCHED_FIFO 90
# cyclictest thread (kernel prio 9) and its switch-in, the number of such
# waits, how many of them saw more than two polls, how many times the
# idle task raised NET_RX in them, and how many saw 0,1,2,... polls. A
# wake-up while cyclictest still runs (its timer fires as it goes to
# sleep) starts no wait.
polls_while_waiting()
{
	awk '$1 !~ /^cyclictest-/ &&
	     /sched_wakeup: comm=cyclictest .* prio=9 / { w = 1; n = 0; next }
	     /sched_switch: prev_comm=cyclictest / { w = 0 }
	     w && /napi_poll:/ { n++ }
	     w && $1 ~ /^<idle>-0$/ && /softirq_raise: vec=3 / { idle++ }
	     w && /sched_switch: .* next_comm=cyclictest .* next_prio=9/ {
		if (n > max) max = n
		if (n > 2) long++
		hist[n]++
		waits++
		w = 0
	     }
	     END {
		h = hist[0] + 0
		for (i = 1; i <= max; i++) h = h "," hist[i] + 0
		print max + 0, waits + 0, long + 0, idle + 0, h
	     }' "$TRACEFS/trace"
}

# flood_waits MODE: a TCP flood B -> A for 3 s, both ends on cpu0, RPS
# steering what A receives to cpu1, beside cyclictest SCHED_FIFO 90 on
# cpu1, with knapid_enabled MODE and cpu1's FLOOD_EVENTS traced (NET_RX
# softirq raises only); prints polls_while_waiting, or "-1 0 0 0 -" when
# the flood failed
flood_waits()
{
	local ev srv rc

	echo "$1" > "$SYSCTL"
	echo 0 > "$TRACEFS/tracing_on"
	echo > "$TRACEFS/trace"
	echo 2 > "$TRACEFS/tracing_cpumask"
	echo "vec == 3" > "$TRACEFS/events/irq/softirq_raise/filter"
	for ev in $FLOOD_EVENTS; do
		echo 1 > "$TRACEFS/events/$ev/enable"
	done
	ip netns exec "$NS_A" taskset -c 0 iperf3 -s -1 -p 5201 > /dev/null &
	srv=$!
	tcp_listen_wait "$NS_A" 5201 || { kill "$srv"; echo -1 0 0 0 -; return; }
	echo 1 > "$TRACEFS/tracing_on"
	ip netns exec "$NS_B" taskset -c 0 timeout 60 \
		iperf3 -c "$ADDR_A" -p 5201 -t 4 > /dev/null &
	# (it warns that the guest has no /dev/cpu_dma_latency)
	cyclictest -m -q -p 90 -t 1 -a 1 -i 1000 -D 3 > /dev/null 2>&1
	echo 0 > "$TRACEFS/tracing_on"
	wait $!
	rc=$?
	wait "$srv"
	for ev in $FLOOD_EVENTS; do
		echo 0 > "$TRACEFS/events/$ev/enable"
	done
	echo 0 > "$TRACEFS/events/irq/softirq_raise/filter"
	if [ "$rc" -ne 0 ]; then
		echo -1 0 0 0 -
	else
		polls_while_waiting
	fi
	echo > "$TRACEFS/trace"
}

# In knapid mode a round ends when a task waits to preempt the one it runs
# in (knapid_yields()): a SCHED_FIFO task woken on the flooded CPU runs
# after the NAPI poll in progress, not after the round. Counted in polls,
# not in time, so that TCG's timing noise does not matter. The round's
# own limits are lifted (netdev_budget 100000, netdev_budget_usecs 1 s),
# so that only the poll list running empty or the yield ends it; the
# control is softirq mode, whose round polls on past the wake-up.
case_rt_yield()
{
	local name="knapid mode: a round ends once a SCHED_FIFO task waits for its CPU"
	local idle="knapid mode: an idle CPU leaves its rounds to the thread while a SCHED_FIFO task waits"
	local on off t kb mask

	for t in cyclictest iperf3; do
		if ! command -v $t > /dev/null; then
			ktap_print_msg "needs $t"
			ktap_test_skip "$name"
			ktap_test_skip "$idle"
			return
		fi
	done
	if ! napi_poll_traced; then
		ktap_test_skip "$name"
		ktap_test_skip "$idle"
		return
	fi
	rps_to 2
	echo 1000000 > "$BUDGET_USECS"
	echo 100000 > "$BUDGET"
	# "7 (expanded: 1408)" before the first use
	kb=$(sed 's/.*expanded: \([0-9]*\).*/\1/' "$TRACEFS/buffer_size_kb")
	mask=$(cat "$TRACEFS/tracing_cpumask")
	echo 8192 > "$TRACEFS/buffer_size_kb"
	read -r -a off <<<"$(flood_waits 0)"
	read -r -a on <<<"$(flood_waits 1)"
	echo "$BUDGET_ORIG" > "$BUDGET"
	echo "$USECS_ORIG" > "$BUDGET_USECS"
	echo "$kb" > "$TRACEFS/buffer_size_kb"
	echo "$mask" > "$TRACEFS/tracing_cpumask"
	rps_to 0
	echo "# NAPI polls between a SCHED_FIFO wake-up on the flooded cpu1" \
	     "and its switch-in, most / waits / waits with more than 2 /" \
	     "NET_RX raises by the idle task in them /" \
	     "waits with 0,1,2,... polls: softirq mode (the control)" \
	     "${off[*]}; knapid mode ${on[*]}"
	ktap_test_result "$name" test "${on[1]}" -ge 500 \
		-a "${on[2]}" -eq 0 -a "${off[2]}" -ge 5
	# an interrupt that finds cpu1 idle with cyclictest already woken hands
	# its round to knapid/1 (knapid_wanted()) instead of raising NET_RX;
	# the control: softirq mode raises it there
	ktap_test_result "$idle" test "${on[1]}" -ge 500 -a "${on[3]}" -eq 0 \
		-a "${off[3]}" -ge 5
}

# polls_by_comm PATTERN [CPU [BACKLOG]]: napi_poll events in the trace
# buffer whose task matches PATTERN (awk regex on the task-pid column), on
# CPU if given, and only those of backlog NAPIs (no device) if BACKLOG is
# given
polls_by_comm()
{
	awk -v re="$1" -v cpu="${2:+$(printf '[%03d]' "$2")}" -v bl="${3:-}" \
		'$1 ~ re && (cpu == "" || $2 == cpu) && /napi_poll:/ &&
		 (bl == "" || /for device \(no_device\)/) { n++ }
		 END { print n + 0 }' "$TRACEFS/trace"
}

# trace_pings MODE: REQUESTS pings from cpu0 over the netdevsim pair, RPS
# steering the requests to an idle cpu1, with knapid_enabled MODE,
# napi_poll traced; prints "KSOFTIRQD KNAPID IDLE KNAPID1 IDLE_BACKLOG"
# poll counts (IDLE: by the idle task on cpu1; KNAPID1: by knapid/1;
# IDLE_BACKLOG: the idle task's polls of cpu1's backlog, which the RPS IPIs
# schedule)
trace_pings()
{
	echo "$1" > "$SYSCTL"
	echo 0 > "$TRACEFS/tracing_on"
	echo > "$TRACEFS/trace"
	echo 1 > "$TRACEFS/events/napi/napi_poll/enable"
	echo 1 > "$TRACEFS/tracing_on"
	rps_to 2
	ip netns exec "$NS_B" taskset -c 0 \
		ping -q -c "$REQUESTS" -i 0.01 -W 2 "$ADDR_A" > /dev/null
	rps_to 0
	echo 0 > "$TRACEFS/tracing_on"
	echo 0 > "$TRACEFS/events/napi/napi_poll/enable"
	echo "$(polls_by_comm '^ksoftirqd/') $(polls_by_comm '^knapid/')" \
	     "$(polls_by_comm '^<idle>-' 1) $(polls_by_comm '^knapid/1-' 1)" \
	     "$(polls_by_comm '^<idle>-' 1 backlog)"
	echo > "$TRACEFS/trace"
}

# Where the round of an RPS IPI that finds cpu1 idle runs in knapid mode.
# An idle loop that halts (HLT, as TCG guests idle by default) takes the
# IPI as an interrupt: the round runs on its way out, in the idle task, as
# in softirq mode (the control, which shows that the count counts; some
# rounds still reach knapid/1: a device interrupt nested in the idle
# task's other softirqs, or a round that a wake-up there cut short). An idle
# loop that polls (idle=poll, as x86 MWAIT and haltpoll do) takes the call
# without an interrupt, from the idle loop with TIF_NEED_RESCHED set,
# where softirq mode's raise wakes ksoftirqd: knapid/1 takes the round
# (the control: softirq mode still runs it in the idle task).
case_idle_rounds()
{
	local halted="knapid mode: an RPS IPI that finds cpu1 halted in idle runs its round there"
	local polling="knapid mode: an RPS IPI that finds cpu1 polling in idle hands its round to knapid/1"
	local on off

	if ! napi_poll_traced; then
		ktap_test_skip "$halted"
		return
	fi
	read -r -a off <<<"$(trace_pings 0)"
	read -r -a on <<<"$(trace_pings 1)"
	if grep -qw idle=poll /proc/cmdline; then
		echo "# napi_poll events for $REQUESTS pings to a polling idle" \
		     "cpu1, ksoftirqd/knapid (all CPUs)/idle task on cpu1/" \
		     "knapid/1/the idle task's of the backlog: softirq mode" \
		     "${off[*]}, knapid mode ${on[*]}"
		# the backlog's polls: the RPS IPIs' rounds (a device NAPI's
		# interrupt still runs inline there)
		ktap_test_result "$polling" test "${on[4]}" -le $((REQUESTS / 10)) \
			-a "${on[3]}" -ge "$REQUESTS" -a "${on[0]}" -eq 0 \
			-a "${off[4]}" -ge $((REQUESTS / 2))
		return
	fi
	echo "# napi_poll events for $REQUESTS pings to a halted idle cpu1," \
	     "ksoftirqd/knapid (all CPUs)/idle task on cpu1/knapid/1/the" \
	     "idle task's of the backlog: softirq mode ${off[*]}," \
	     "knapid mode ${on[*]}"
	ktap_test_result "$halted" test "${on[2]}" -ge "$REQUESTS" \
		-a "${off[2]}" -ge "$REQUESTS"
}

case_threadirqs()
{
	local name="threadirqs: in knapid mode no NAPI poll runs in ksoftirqd"
	local on off

	if ! grep -qw threadirqs /proc/cmdline; then
		ktap_print_msg "needs a boot with threadirqs"
		ktap_test_skip "$name"
		return
	fi
	if ! napi_poll_traced; then
		ktap_test_skip "$name"
		return
	fi
	read -r -a off <<<"$(trace_pings 0)"
	read -r -a on <<<"$(trace_pings 1)"
	echo "# napi_poll events for $REQUESTS pings, ksoftirqd/knapid:" \
	     "softirq mode ${off[0]}/${off[1]}, knapid mode ${on[0]}/${on[1]}"
	# the control: with threadirqs a softirq raised by the RPS IPI runs in
	# ksoftirqd, so softirq mode polls there
	ktap_test_result "$name" test "${on[0]}" -eq 0 \
		-a "${on[1]}" -ge "$REQUESTS" -a "${off[0]}" -ge "$REQUESTS"
}

# ipis_to_cpu1 CMD...: run CMD (its exit code in IPIS_RC) and set IPIS to
# the function-call IPIs queued for cpu1 meanwhile that are a switch's
# kick (knapid_kick_cpu()). Other IPIs reach an isolated CPU too (RCU and
# scheduler wake-ups, TLB flushes of exec): they are noise here, so the
# csd_queue_cpu events are counted by their function. Text patching
# (a static key flipped on each switch, as an earlier version did) is not
# counted: it sends an idle CPU no IPI, so that count could not fail.
ipis_to_cpu1()
{
	local ev=$TRACEFS/events/csd/csd_queue_cpu

	echo 0 > "$TRACEFS/tracing_on"
	echo > "$TRACEFS/trace"
	echo "cpu == 1" > "$ev/filter"
	echo 1 > "$ev/enable"
	echo 1 > "$TRACEFS/tracing_on"
	"$@"
	IPIS_RC=$?
	echo 0 > "$TRACEFS/tracing_on"
	echo 0 > "$ev/enable"
	echo 0 > "$ev/filter"
	IPIS=$(grep -c -E \
		'csd_queue_cpu: .* func=knapid_kick_cpu ' \
		"$TRACEFS/trace")
	echo > "$TRACEFS/trace"
}

switch_100()
{
	taskset -c 0 bash -c "for i in \$(seq 50); do
		echo 0 > $SYSCTL; echo 1 > $SYSCTL; done"
}

# switches_under_traffic: transfers of 8 MiB pinned to cpu1 (the sender,
# and the pair's NAPI on its CPU) until 100 switches from cpu0 have
# happened during them, at most 20 transfers; sets SWITCHES and BAD
switches_under_traffic()
{
	local file port rounds=0 pid mode=1

	SWITCHES=0 BAD=0
	file=$(mktemp)
	head -c $((8 << 20)) /dev/urandom > "$file"
	while [ $SWITCHES -lt 100 ] && [ $rounds -lt 20 ]; do
		port=$((20000 + rounds))
		tcp_transfer_check "$NS_B" "$NS_A" "$ADDR_A" $port "$file" 1 &
		pid=$!
		rounds=$((rounds + 1))
		while kill -0 "$pid" 2>/dev/null && [ $SWITCHES -lt 100 ]; do
			mode=$((1 - mode))
			taskset -c 0 sh -c "echo $mode > $SYSCTL"
			SWITCHES=$((SWITCHES + 1))
			sleep 0.01
		done
		wait "$pid" || BAD=1
	done
	rm -f "$file"
	echo "# $SWITCHES switches during $rounds transfers of 8 MiB pinned to cpu1"
}

# unacked NS PORT: the bytes the TCP connection to remote port PORT in netns
# NS has sent and not yet seen acknowledged (its Send-Q)
unacked()
{
	ip netns exec "$1" ss -Htn state established "( dport = :$2 )" |
		awk '{ print $2; exit }'
}

# unacked_is NS PORT BYTES: that connection exists with BYTES unacknowledged
unacked_is()
{
	[ "$(unacked "$1" "$2")" = "$3" ]
}

# held_work_switch: a switch hands back work that a starved knapid/1 holds.
# RFS steers a TCP flow sent from cpu0 to its reader's CPU, cpu1 (RFS,
# unlike an RPS map, may name an isolated CPU); a SCHED_FIFO 10 spinner
# there starves knapid/1 (SCHED_FIFO 1), so the RPS IPI hands the packets
# to a thread that cannot run, and with netdev_budget_usecs lifted the
# bound of knapid_overdue() does not hand them back: the receiver never
# acknowledges them. A
# switch to softirq mode must kick cpu1, whose softirq then takes them in.
# The reader is not what is measured (RT throttling leaves it 5% of cpu1):
# the sender's unacknowledged bytes are. Sets HELD and LEFT, the sender's
# unacknowledged bytes before and after the switch; returns 1 when the
# setup failed.
held_work_switch()
{
	local port=20100 k1 fifo fd pids=() rc=0 own=${#SPIN_PIDS[@]}

	HELD=-1 LEFT=-1
	k1=$(pgrep -x knapid/1) || return 1
	echo 1 > "$SYSCTL"
	echo 4096 > /proc/sys/net/core/rps_sock_flow_entries
	ip netns exec "$NS_A" sh -c \
		"echo 4096 > /sys/class/net/$DEV_A/queues/rx-0/rps_flow_cnt"
	timeout 60 ip netns exec "$NS_A" taskset -c 1 \
		socat -u "TCP4-LISTEN:$port,reuseaddr" /dev/null &
	pids+=($!)
	fifo=$(mktemp -u)
	mkfifo "$fifo"
	slowwait 10 sh -c "ip netns exec $NS_A ss -Hltn '( sport = :$port )' | grep -q ." || rc=1
	timeout 60 ip netns exec "$NS_B" taskset -c 0 \
		socat -u "OPEN:$fifo" "TCP4:$ADDR_A:$port" &
	pids+=($!)
	exec {fd}> "$fifo"
	# a first byte, read on cpu1, records the flow's CPU for RFS
	head -c 1 /dev/zero >&"$fd"
	slowwait 10 unacked_is "$NS_B" $port 0 || rc=1
	sleep 0.5
	echo "$HOLD_USECS" > "$BUDGET_USECS"
	chrt -f -p 1 "$k1"
	spin_on 1 10
	head -c 1000 /dev/zero >&"$fd"
	sleep 1
	HELD=$(unacked "$NS_B" $port)
	taskset -c 0 sh -c "echo 0 > $SYSCTL"
	slowwait 10 unacked_is "$NS_B" $port 0
	LEFT=$(unacked "$NS_B" $port)
	spin_stop "$own"
	echo "$USECS_ORIG" > "$BUDGET_USECS"
	chrt -o -p 0 "$k1"
	exec {fd}>&-
	kill "${pids[@]}" 2>/dev/null
	wait "${pids[@]}" 2>/dev/null
	rm -f "$fifo"
	ip netns exec "$NS_A" sh -c \
		"echo 0 > /sys/class/net/$DEV_A/queues/rx-0/rps_flow_cnt"
	echo 0 > /proc/sys/net/core/rps_sock_flow_entries
	echo 1 > "$SYSCTL"
	return $rc
}

# The isolated CPU is interrupted by a switch exactly when it holds work:
# the switch that hands a starved knapid/1's work to the softirq kicks it
# (held_work_switch, the control), 100 switches while it idles send it
# nothing.
case_isolated()
{
	local traffic="isolcpus: traffic pinned to the isolated CPU flows across 100 switches"
	local quiet="isolcpus: a switch interrupts the isolated CPU only to hand back held work"
	local held held_rc

	# what the kernel isolated (nothing without CONFIG_CPU_ISOLATION,
	# whatever the command line says)
	if [ "$(cat /sys/devices/system/cpu/isolated 2>/dev/null)" != 1 ]; then
		ktap_print_msg "needs cpu1 isolated (isolcpus=1, CONFIG_CPU_ISOLATION);" \
			"isolated: '$(cat /sys/devices/system/cpu/isolated 2>/dev/null)'"
		ktap_test_skip "$traffic"
		ktap_test_skip "$quiet"
		return
	fi
	mountpoint -q $TRACEFS || mount -t tracefs none $TRACEFS
	switches_under_traffic
	ktap_test_result "$traffic" test $BAD -eq 0 -a $SWITCHES -ge 100
	ipis_to_cpu1 held_work_switch
	held=$IPIS held_rc=$IPIS_RC
	echo "# a flow RFS steers to cpu1, knapid/1 starved there: $HELD bytes" \
	     "unacknowledged before a switch to softirq mode, $LEFT after it"
	ipis_to_cpu1 switch_100
	echo "# kick IPIs queued for cpu1: $held in that switch (setup exit" \
	     "$held_rc), $IPIS in 100 switches while it idles"
	ktap_test_result "$quiet" test "$IPIS" -eq 0 -a "$held" -ge 1 \
		-a "$held_rc" -eq 0 -a "$HELD" = 1000 -a "$LEFT" = 0
}

cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(own_rounds)
if [ ! -w "$SYSCTL" ]; then
	ktap_print_header
	ktap_set_plan 0
	ktap_exit_fail_msg "no $SYSCTL: not a kernel with CONFIG_THREADED_NAPI"
fi
ktap_print_header
plan=1
for c in "${cases[@]}"; do
	case $c in
	own_rounds | rt_own_rounds | rt_after_yield | starved | idle_rounds | \
	threadirqs)
		plan=$((plan + 1)) ;;
	rt_yield | isolated) plan=$((plan + 2)) ;;
	*) ktap_exit_fail_msg "unknown case $c" ;;
	esac
done
ktap_set_plan $plan
if pair_create 111 112 1; then
	ktap_test_pass "setup: linked netdevsim pair in two netns"
else
	ktap_exit_fail_msg "could not create the netdevsim pair"
fi
for c in "${cases[@]}"; do
	t0=$SECONDS
	case $c in
	own_rounds) case_own_rounds ;;
	rt_own_rounds) case_rt_own_rounds ;;
	rt_after_yield) case_rt_after_yield ;;
	starved) case_starved ;;
	idle_rounds) case_idle_rounds ;;
	rt_yield) case_rt_yield ;;
	threadirqs) case_threadirqs ;;
	isolated) case_isolated ;;
	esac
	echo "# $c: $((SECONDS - t0)) s"
done
ktap_finished
