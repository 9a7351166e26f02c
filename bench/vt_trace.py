#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""In a guest of a kernel with event tracing (the debug flavour): where the
worst cyclictest wake-ups of the TIER=vt flood wait.

Sets up vt_guest.py's netdevsim pair and flood, and per MODE traces vCPU 1
(sched wake-ups and switches, softirqs, NAPI polls, netif_receive_skb,
local timer and hrtimer events) while cyclictest SCHED_FIFO 90 runs there
beside the flood, until its first wake-up that waited longer than
THRESHOLD us (cyclictest -b) or 4 s. Writes DIR/trace-MODE.txt, the whole
trace buffer, for bench/vt_waits.py.

usage (as the guest's command, e.g. under `-icount shift=0,sleep=off`):
  vt_trace.py DIR THRESHOLD MODE...   (MODE: softirq, knapid, threaded)
"""

import os
import subprocess
import sys
from types import SimpleNamespace

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vt_guest import Vt, TEST_CPU  # noqa: E402

TRACEFS = '/sys/kernel/tracing'
EVENTS = ('sched/sched_wakeup', 'sched/sched_switch', 'sched/sched_waking',
          'irq/softirq_entry', 'irq/softirq_exit', 'irq/softirq_raise',
          'napi/napi_poll', 'irq/irq_handler_entry', 'irq_vectors',
          'timer/hrtimer_expire_entry', 'net/netif_receive_skb')


def put(name, value):
    with open(f'{TRACEFS}/{name}', 'w', encoding='ascii') as f:
        f.write(value)


def trace_mode(vt, mode, threshold):
    """one flood beside cyclictest in MODE, traced; returns cyclictest's
    summary line"""
    vt.set_mode(mode)
    put('tracing_on', '0')
    put('trace', '')
    put('buffer_size_kb', '20000')
    put('tracing_cpumask', f'{1 << TEST_CPU:x}')
    put('set_event', '')
    for ev in EVENTS:
        put(f'events/{ev}/enable', '1')
    put('tracing_on', '1')
    srv, cli = vt.flood(4)
    try:
        out = subprocess.run(['cyclictest', '-m', '-q', '-p', '90', '-t', '1',
                              '-a', str(TEST_CPU), '-i', '500', '-D', '4',
                              '-b', str(threshold)],
                             capture_output=True, text=True, check=False).stdout
    finally:
        put('tracing_on', '0')
        vt.flood_end(srv, cli)
    with open(f'{TRACEFS}/trace', encoding='utf-8', errors='replace') as f:
        lines = f.readlines()
    with open(os.path.join(vt.out, f'trace-{mode}.txt'), 'w', encoding='utf-8') as f:
        f.writelines(lines)
    put('set_event', '')
    return ' '.join(out.split())[-200:]


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    out, threshold, modes = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    vt = Vt(SimpleNamespace(out=out, boot='trace', rounds=1, secs=4))
    vt.setup()
    try:
        for mode in modes:
            vt.log(f'{mode}: {trace_mode(vt, mode, threshold)}')
    finally:
        vt.teardown()


if __name__ == '__main__':
    main()
