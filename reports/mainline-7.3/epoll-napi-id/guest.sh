#!/bin/bash
mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
echo 1 > /sys/kernel/tracing/tracing_on
cat /proc/sys/net/core/knapid_enabled
cd /work/wt73/work/7.3/linux/tools/testing/selftests/drivers/net
ROUNDS=${ROUNDS:-100} CASES=${CASES:-suspend_holds_softirq} timeout 1500 ./irq_suspend_exp.py
echo "exit=$?"
