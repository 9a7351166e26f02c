#!/bin/bash
cd /work/wt73/work/7.3/linux/tools/testing/selftests/drivers/net
timeout 400 python3 ./irq_suspend.py; echo "rc=$?"
dmesg | grep -E "WARNING|BUG:|ODEBUG|Call Trace|circular" | head
