#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The worst waits of cyclictest's SCHED_FIFO 90 thread (kernel prio 9) in
a trace written by bench/vt_trace.py: from its sched_waking to its
sched_switch-in, the longest first, each with what ran on the CPU
meanwhile (events counted by kind, then the first and last of them).

usage: vt_waits.py TRACE [N]   (N: how many waits to show, default 3)
"""

import collections
import re
import sys

LINE = re.compile(r'^\s*(.+?)-(\d+)\s+\[(\d+)\]\s+(\S+)\s+([\d.]+): (\w+): (.*)$')


def parse(path):
    """[(seconds, comm, flags, event, fields)] of the trace at PATH"""
    events = []
    with open(path, encoding='utf-8', errors='replace') as f:
        for line in f:
            m = LINE.match(line)
            if m:
                events.append((float(m.group(5)), m.group(1), m.group(4),
                               m.group(6), m.group(7)))
    return events


def waits(events):
    """[(seconds, first index, last index)] of each wake-up, longest first"""
    found, start = [], None
    for i, (t, _, _, name, rest) in enumerate(events):
        if name == 'sched_waking' and 'comm=cyclictest' in rest \
                and re.search(r'\bprio=9\b', rest):
            start = (t, i)
        elif name == 'sched_switch' and start and 'next_comm=cyclictest' in rest \
                and re.search(r'\bnext_prio=9\b', rest):
            found.append((t - start[0], start[1], i))
            start = None
    return sorted(found, reverse=True)


def kind(comm, name, rest):
    """the key a meanwhile-event is counted under"""
    if name == 'napi_poll':
        dev = re.search(r'for device (\S+)', rest)
        return f'napi_poll {dev.group(1) if dev else "?"} in {comm}'
    if name in ('softirq_entry', 'softirq_raise'):
        return f'{name} {rest} in {comm}'
    if name == 'netif_receive_skb':
        return f'netif_receive_skb {rest.split()[0]} in {comm}'
    return name


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    events = parse(sys.argv[1])
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    found = waits(events)
    print(f'{len(found)} wake-ups; worst waits (us):',
          [round(w[0] * 1e6) for w in found[:10]])
    for secs, a, b in found[:top]:
        print(f'--- wait {secs * 1e6:.0f} us, events {a}..{b}')
        counts = collections.Counter(kind(e[1], e[3], e[4]) for e in events[a:b + 1])
        for key, n in counts.most_common(25):
            print(f'  {n:5d} {key}')
        shown = events[a:a + 12] + [None] + events[max(a + 12, b - 12):b + 1]
        for e in shown:
            print('   ...' if e is None else f'   {e[0]:.6f} {e[1]:>14} {e[2]} {e[3]}: {e[4][:110]}')


if __name__ == '__main__':
    main()
