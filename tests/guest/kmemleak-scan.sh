#!/usr/bin/env bash
# Runs inside the guest after the tests: a kmemleak scan, its report in
# OUTDIR/kmemleak.txt and its outcome in OUTDIR/kmemleak-status: "ok", or why
# there is no scan to trust (no kmemleak, kmemleak disabled or refusing the
# scan, network namespaces never cleaned up). check.sh fails the boot on
# anything but "ok" when the kernel config has CONFIG_DEBUG_KMEMLEAK=y.
#
# usage: kmemleak-scan.sh OUTDIR
# KMEMLEAK (default /sys/kernel/debug/kmemleak) and KMEMLEAK_MIN_AGE (seconds
# waited before the scan, default 6) are there for the harness self-tests.
set -u
out=$1
kmemleak=${KMEMLEAK:-/sys/kernel/debug/kmemleak}
# kmemleak reports no object younger than 5 s
min_age=${KMEMLEAK_MIN_AGE:-6}
problems=()

# the network namespaces still there, as ip netns sees them
netns_left() {
	{ ls -A /var/run/netns; ip netns list; } 2>/dev/null | awk '{print $1}' | sort -u | tr '\n' ' '
}

# write to the kmemleak file; prints the error (EPERM when kmemleak is off)
kmemleak_write() {
	{ echo "$1" > "$kmemleak"; } 2>&1 | sed 's/^.*line [0-9]*: //'
	return "${PIPESTATUS[0]}"
}

if [ ! -e "$kmemleak" ]; then
	problems+=("no $kmemleak (kernel without kmemleak?)")
else
	# a deleted network namespace is freed later (cleanup_net): what it
	# leaks shows only once that is done
	for _ in $(seq 30); do
		[ -z "$(netns_left)" ] && break
		sleep 1
	done
	left=$(netns_left)
	[ -n "$left" ] && problems+=("network namespaces still there after 30 s: ${left% }")
	sleep "$min_age"
	echo "guest: kmemleak scan"
	# an object that changed since the previous scan is not reported yet
	for pass in 1 2; do
		if ! err=$(kmemleak_write scan); then
			problems+=("kmemleak refused scan $pass: ${err:-write failed}")
			break
		fi
		[ $pass = 1 ] && sleep 1
	done
	if cat "$kmemleak" > "$out/kmemleak.txt"; then
		echo "guest: kmemleak reports $(grep -c 'unreferenced object' "$out/kmemleak.txt") object(s)"
	else
		problems+=("cannot read $kmemleak")
	fi
	# kmemleak turns itself off on an internal error (e.g. its pool ran out)
	if dmesg 2>/dev/null | grep -q 'kmemleak: Kernel memory leak detector disabled'; then
		problems+=("kmemleak disabled: $(dmesg | grep 'kmemleak: ' | tail -n 2 | tr '\n' ' ')")
	fi
fi

if [ ${#problems[@]} = 0 ]; then
	status=ok
else
	status=$(printf '%s; ' "${problems[@]}")
	status=${status%; }
fi
echo "$status" > "$out/kmemleak-status"
echo "guest: kmemleak status: $status"
