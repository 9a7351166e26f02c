#!/bin/bash
# scratch: upstream 7.3 selftests of the area in both knapid modes
K=/work/rs/k73/linux-source-7.3/tools/testing/selftests
for mode in 1 0; do
	echo $mode > /proc/sys/net/core/knapid_enabled
	echo "##### knapid_enabled=$mode"
	(cd $K/net && timeout 600 ./bpt-testnet.sh > /dev/null 2>&1; echo "busy_poll_test.sh (TEST-NET copy) rc=$?")
	for t in drivers/net/napi_threaded.py drivers/net/napi_id.py net/nl_netdev.py drivers/net/queues.py drivers/net/stats.py; do
		(cd $K/$(dirname $t) && timeout 600 python3 ./$(basename $t) > /tmp/o.txt 2>&1; rc=$?; echo "$t rc=$rc: $(grep -E '^# Totals|^ok|^not ok' /tmp/o.txt | grep -v '^ok' | tr '\n' ' ')"; grep "^not ok" /tmp/o.txt | head -5)
	done
done
dmesg | grep -E "WARNING|BUG:|ODEBUG|KFENCE|circular locking|Call Trace" | head -20
echo UPSTREAM-DONE
