# shellcheck shell=bash
# Helpers of the stress campaign (make stress): the guest tests' helpers
# (tests/guest/lib.sh: the netdevsim pair, the net selftests' lib.sh, KTAP),
# the scale, counts for the report, and checked TCP streams.
STRESS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$STRESS_DIR/../guest/lib.sh"

# STRESS_SCALE: "slice" (the few minutes make check runs), "quick" (make
# stress QUICK=1) or "full" (make stress)
STRESS_SCALE=${STRESS_SCALE:-slice}
case $STRESS_SCALE in
slice|quick|full) ;;
*) echo "STRESS_SCALE must be slice, quick or full, not '$STRESS_SCALE'" >&2; exit 1 ;;
esac

# scaled SLICE QUICK FULL: the number for this run
scaled() {
	case $STRESS_SCALE in
	slice) echo "$1" ;;
	quick) echo "$2" ;;
	full) echo "$3" ;;
	esac
}

# record PART WHAT VALUE: one count for the report (OUTDIR/counts.tsv)
record() {
	printf '%s\t%s\t%s\t%s\n' "$(basename "$0")" "$1" "$2" "$3" >> "${OUTDIR:-/tmp}/counts.tsv"
	echo "# count: $1: $2 = $3"
}

SYSCTL=/proc/sys/net/core/knapid_enabled

# tcp_retrans NS: TCP segments retransmitted in NS so far
tcp_retrans() {
	ip netns exec "$1" awk '$1 == "Tcp:" && !h { for (i = 1; i <= NF; i++) col[$i] = i; h = 1; next }
		$1 == "Tcp:" { print $col["RetransSegs"] }' /proc/net/snmp
}

# dev_drops NS DEV: rx_dropped + tx_dropped of DEV
dev_drops() {
	ip netns exec "$1" sh -c "echo \$((\$(cat /sys/class/net/$2/statistics/rx_dropped) + \
		\$(cat /sys/class/net/$2/statistics/tx_dropped)))"
}

# Checked streams (seqstream.py): every byte is verified by the receiver.
STREAM_STATE=$(mktemp -d)
streams=()
stream_pids=()

# stream_start NAME FROM_NS TO_NS ADDR PORT SECONDS: a stream FROM_NS ->
# ADDR:PORT in TO_NS that runs for at most SECONDS (or until stream_stop)
stream_start() {
	local name=$1 from=$2 to=$3 addr=$4 port=$5 secs=$6 i

	rm -f "$STREAM_STATE/$name".*
	timeout $((secs + 180)) ip netns exec "$to" /usr/bin/python3 "$STRESS_DIR/seqstream.py" \
		recv "$addr" "$port" "$STREAM_STATE" "$name" &
	stream_pids+=($!)
	for i in $(seq 100); do
		[ -e "$STREAM_STATE/$name.progress" ] && break
		sleep 0.1
	done
	tcp_listen_wait "$to" "$port" || return 1
	timeout $((secs + 180)) ip netns exec "$from" /usr/bin/python3 "$STRESS_DIR/seqstream.py" \
		send "$addr" "$port" "$STREAM_STATE" "$name" "$secs" &
	stream_pids+=($!)
	streams+=("$name")
}

# stream_bytes NAME: bytes the receiver has verified so far
stream_bytes() {
	local b
	read -r b < "$STREAM_STATE/$1.progress" 2>/dev/null
	echo "${b:-0}"
}

# streams_moved: wait up to STREAM_WAIT seconds (default 10) until every
# stream has verified more bytes than at the previous call (or its start)
declare -A STREAM_MARK
streams_moved() {
	local name now i ok
	for ((i = 0; i < ${STREAM_WAIT:-10} * 20; i++)); do
		ok=1
		for name in "${streams[@]}"; do
			now=$(stream_bytes "$name")
			[ "$now" -gt "${STREAM_MARK[$name]:-0}" ] || ok=0
		done
		[ $ok = 1 ] && break
		sleep 0.05
	done
	for name in "${streams[@]}"; do
		STREAM_MARK[$name]=$(stream_bytes "$name")
	done
	[ $ok = 1 ]
}

# stream_stop PART: end the streams; fails unless each one was verified
# whole (seqstream: "ok") and carried as much as was sent; records the
# bytes verified
stream_stop() {
	local part=$1 name pid sent got bad=0 total=0

	touch "$STREAM_STATE/stop"
	for pid in "${stream_pids[@]}"; do
		wait "$pid"
	done
	stream_pids=()
	rm -f "$STREAM_STATE/stop"
	for name in "${streams[@]}"; do
		sent=$(cat "$STREAM_STATE/$name.sent" 2>/dev/null)
		got=$(cat "$STREAM_STATE/$name.recv" 2>/dev/null)
		echo "# stream $name: sent ${sent:-nothing} (blocks bytes), received: ${got:-nothing}"
		if [[ $got == ok* ]] && [ "${got#ok }" = "$sent" ] && [ "${sent%% *}" -gt 0 ]; then
			total=$((total + ${sent#* }))
		else
			bad=1
		fi
	done
	streams=()
	STREAM_MARK=()
	record "$part" "bytes verified" "$total"
	return $bad
}

stream_cleanup() {
	touch "$STREAM_STATE/stop"
	for pid in "${stream_pids[@]}"; do
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	rm -rf "$STREAM_STATE"
}
