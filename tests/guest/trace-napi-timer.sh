#!/usr/bin/env bash
# Run a command with every start and expiry of a NAPI timer (napi_watchdog)
# traced, with the stack that armed it; the trace goes to TRACE_FILE.
# A diagnosis tool, not a test.
# usage: trace-napi-timer.sh TRACE_FILE COMMAND...
set -u
out=$1
shift
T=/sys/kernel/tracing
mountpoint -q $T || mount -t tracefs none $T
fn=$(awk '$3 == "napi_watchdog" { print $1; exit }' /proc/kallsyms)
echo 0 > $T/tracing_on
echo > $T/trace
echo 16384 > $T/buffer_size_kb
echo "function == 0x$fn" > $T/events/timer/hrtimer_start/filter
echo "stacktrace if function == 0x$fn" > $T/events/timer/hrtimer_start/trigger
echo "function == 0x$fn" > $T/events/timer/hrtimer_expire_entry/filter
echo 1 > $T/events/timer/hrtimer_start/enable
echo 1 > $T/events/timer/hrtimer_expire_entry/enable
echo 1 > $T/tracing_on
"$@"
rc=$?
echo 0 > $T/tracing_on
cat $T/trace > "$out"
exit $rc
