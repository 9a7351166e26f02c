#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The design review's tap-boot ratios (knapid/softirq maximum throughput,
CPU0 busy at 5% and 50% of the maximum; per-NAPI threaded's maximum too)
of result-tap*.json files, one line a boot: for a run of
BOOTS="tap tap-2 tap-3", which writes no report.

usage: tap_ratios.py result-tap.json..."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report as R  # noqa: E402

MODES = ('knapid', 'softirq', 'threaded')


def fmt(x):
    return '-' if x is None else f'{x:.2f}'


def main(paths):
    if not paths:
        sys.exit(__doc__)
    for p in paths:
        b = R.load_boot(p)
        bps = {m: R.t1_stat(b, 'iperf_max', m, 'bps') for m in MODES}
        b5 = {m: R.busy_stat(b, 'iperf_5', m) for m in MODES}
        b50 = {m: R.busy_stat(b, 'iperf_50', m) for m in MODES}
        print(f'{os.path.basename(p)}: max throughput knapid/softirq '
              f'{fmt(R.ratio(bps["knapid"], bps["softirq"]))}, threaded/softirq '
              f'{fmt(R.ratio(bps["threaded"], bps["softirq"]))} (softirq '
              f'{fmt(R.mid(bps["softirq"]) / 1e9 if bps["softirq"] else None)} Gbit/s); '
              f'CPU0 busy at 5% knapid/softirq {fmt(R.ratio(b5["knapid"], b5["softirq"]))} '
              f'({fmt(R.mid(b5["knapid"]))} vs {fmt(R.mid(b5["softirq"]))}%), at 50% '
              f'{fmt(R.ratio(b50["knapid"], b50["softirq"]))}')


if __name__ == '__main__':
    main(sys.argv[1:])
