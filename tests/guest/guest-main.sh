#!/usr/bin/env bash
# Entry point inside the guest: run a test list, then a kmemleak scan
# (kmemleak-scan.sh), then collect the kernel log for the splat gate, and last
# the done marker guest-done.
# usage: guest-main.sh LIST OUTDIR
set -u
list=$1 out=$2
here=$(cd "$(dirname "$0")" && pwd)
echo "guest: kernel $(uname -r), $(nproc) CPUs, cmdline: $(cat /proc/cmdline)"
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
# virtme-ng links /dev/stdout and /dev/stderr to its console ports; on a
# real system they are each process's own fd 1 and 2, where the kselftest
# runner, which writes its tests' output to /dev/stdout, must find them
ln -sfn /proc/self/fd/1 /dev/stdout
ln -sfn /proc/self/fd/2 /dev/stderr
"$here/run-tests.sh" "$list" "$out" | tee "$out/results.ktap"
# after the network namespaces are gone and past kmemleak's minimum object
# age; the outcome goes to $out/kmemleak-status
"$here/kmemleak-scan.sh" "$out"
dmesg > "$out/dmesg.txt"
touch "$out/guest-done"
