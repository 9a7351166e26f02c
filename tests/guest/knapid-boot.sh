#!/usr/bin/env bash
# Harness case for the boot parameter threaded_napi=: the boot group that
# set it says what it must have done, and the case checks it.
#
#   KNAPID_BOOT_MODE     the mode the kernel must have booted in (0 or 1;
#                        default 1, knapid's default)
#   KNAPID_BOOT_WARNING  a bad value of threaded_napi= that the kernel must
#                        have warned about (in dmesg, not just echoed from
#                        the command line)
#
# And, in whatever mode it booted: one knapid/<cpu> per online CPU, bound
# to it (what the kselftest checks too, here in every boot group).
#
# KNAPID_BOOT_MODE=rt: a PREEMPT_RT kernel built with the series and
# CONFIG_THREADED_NAPI=y requested (the rt flavour), where the option
# depends on !PREEMPT_RT: no knapid sysctl and no knapid thread, whatever
# threaded_napi= says; the controls: threads() finds one ktimers/<cpu> and
# one backlog_napi/<cpu> per CPU (the threads that run that work on
# PREEMPT_RT), so pgrep finds per-CPU kthreads on this boot.
. "$(dirname "$0")/lib.sh"

SYSCTL=/proc/sys/net/core/knapid_enabled

# boot_mode: the mode and the warning that the boot parameter asked for
boot_mode()
{
	local want=${KNAPID_BOOT_MODE:-1} bad=${KNAPID_BOOT_WARNING:-}
	local val mode

	val=$(tr ' ' '\n' < /proc/cmdline | sed -n 's/^threaded_napi=//p' | tail -n 1)
	mode=$(cat "$SYSCTL")
	echo "# /proc/cmdline threaded_napi=${val:-<unset>}: knapid_enabled=$mode, want $want"
	[ "$mode" = "$want" ] || return 1
	[ -z "$bad" ] && return 0
	# the warning, not the command line that dmesg also shows
	dmesg | grep -v -i 'command line' | grep "threaded_napi=$bad" | sed 's/^/# /'
	dmesg | grep -v -i 'command line' | grep -q "threaded_napi=$bad"
}

# threads [NAME]: one NAME/<cpu> (default knapid) per online CPU, bound to
# its CPU
threads()
{
	local name=${1:-knapid} cpu pids allowed bad=0

	for cpu in $(seq 0 $(($(nproc --all) - 1))); do
		[ "$(cat "/sys/devices/system/cpu/cpu$cpu/online" 2>/dev/null || echo 1)" = 1 ] ||
			continue
		pids=$(pgrep -x "$name/$cpu")
		allowed=$(awk '/^Cpus_allowed_list:/ { print $2 }' "/proc/${pids%%$'\n'*}/status" 2>/dev/null)
		echo "# $name/$cpu: pid ${pids//$'\n'/ }, Cpus_allowed_list $allowed"
		[ "$(wc -w <<<"$pids")" = 1 ] && [ "$allowed" = "$cpu" ] || bad=1
	done
	return $bad
}

# rt_absent: a PREEMPT_RT kernel without knapid: no sysctl, no knapid thread
rt_absent()
{
	local val n

	val=$(tr ' ' '\n' < /proc/cmdline | sed -n 's/^threaded_napi=//p' | tail -n 1)
	n=$(pgrep -c '^knapid/')
	echo "# $(uname -v); threaded_napi=${val:-<unset>}; $SYSCTL:" \
	     "$([ -e "$SYSCTL" ] && echo present || echo absent); knapid threads: $n"
	uname -v | grep -q PREEMPT_RT && [ ! -e "$SYSCTL" ] && [ "$n" -eq 0 ]
}

ktap_print_header
if [ "${KNAPID_BOOT_MODE:-}" = rt ]; then
	ktap_set_plan 3
	ktap_test_result "rt: no knapid on PREEMPT_RT (CONFIG_THREADED_NAPI depends on !PREEMPT_RT)" rt_absent
	ktap_test_result "rt: the control: one ktimers/<cpu> per online CPU, bound to its CPU" threads ktimers
	ktap_test_result "rt: the control: one backlog_napi/<cpu> per online CPU, bound to its CPU" threads backlog_napi
	ktap_finished
fi
if [ ! -e "$SYSCTL" ]; then
	ktap_set_plan 0
	ktap_exit_fail_msg "no $SYSCTL: not a kernel with CONFIG_THREADED_NAPI"
fi
ktap_set_plan 2
ktap_test_result "boot: threaded_napi= gave the mode${KNAPID_BOOT_WARNING:+ and the warning} it must" boot_mode
ktap_test_result "threads: one knapid/<cpu> per online CPU, bound to its CPU" threads
ktap_finished
