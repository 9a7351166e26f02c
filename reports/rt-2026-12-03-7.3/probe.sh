#!/bin/bash
# where NET_RX and NAPI polls run on this kernel, by comm, during
# knapid.py's rounds_knapid / rounds_softirq / rounds_knapid_rps
KSFT=${KSFT:?}
T=/sys/kernel/tracing
mount -t tracefs nodev $T 2>/dev/null
echo "realtime=$(cat /sys/kernel/realtime 2>/dev/null) $(uname -r)"
# shellcheck disable=SC2009 # the class and priority of each thread
ps -eo pid,cls,rtprio,ni,comm | grep -E 'ktimer|ksoftirq|knapid|backlog|irq/|rcu' | head -40
for t in rounds_knapid rounds_softirq rounds_knapid_rps; do
	echo 0 > $T/tracing_on; echo > $T/trace
	echo 8192 > $T/buffer_size_kb
	echo 'vec == 3' > $T/events/irq/softirq_entry/filter
	echo 1 > $T/events/irq/softirq_entry/enable
	echo 1 > $T/events/napi/napi_poll/enable
	echo 1 > $T/tracing_on
	timeout 600 "$KSFT"/drivers/net/knapid.py -t $t 2>&1 | grep -v '^#  *$' | tail -8
	echo 0 > $T/tracing_on
	echo "== $t: NET_RX softirq_entry by comm/cpu"
	grep softirq_entry $T/trace | sed -E 's/^ *(.*)-[0-9]+ +\[([0-9]+)\].*/\1 cpu\2/' | sort | uniq -c | sort -rn | head
	echo "== $t: napi_poll by comm/cpu (dev)"
	grep napi_poll $T/trace | sed -E 's/^ *(.*)-[0-9]+ +\[([0-9]+)\].*device ([^ ]+) .*/\1 cpu\2 \3/' | sort | uniq -c | sort -rn | head -12
	grep -c . $T/trace
	tail -1 $T/per_cpu/cpu0/stats 2>/dev/null; grep overrun $T/per_cpu/cpu*/stats
done
