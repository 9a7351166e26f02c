#!/usr/bin/env bash
# Entry point inside the guest: run a test list, then collect the kernel log
# (after a kmemleak scan when the kernel has kmemleak) for the splat gate.
# usage: guest-main.sh LIST OUTDIR
set -u
list=$1 out=$2
here=$(cd "$(dirname "$0")" && pwd)
echo "guest: kernel $(uname -r), $(nproc) CPUs, cmdline: $(cat /proc/cmdline)"
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
"$here/run-tests.sh" "$list" "$out" | tee "$out/results.ktap"
if [ -w /sys/kernel/debug/kmemleak ]; then
	echo "guest: kmemleak scan"
	# objects freed just now may still look unreferenced on the first pass
	echo scan > /sys/kernel/debug/kmemleak
	sleep 1
	echo scan > /sys/kernel/debug/kmemleak
	cat /sys/kernel/debug/kmemleak > "$out/kmemleak.txt"
	echo "guest: kmemleak reports $(grep -c 'unreferenced object' "$out/kmemleak.txt") object(s)"
fi
dmesg > "$out/dmesg.txt"
touch "$out/guest-done"
