#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The design review's tap-boot ratios (knapid/softirq maximum throughput,
CPU0 busy at 5% and 50% of the maximum; per-NAPI threaded's maximum too)
of result-tap*.json files, one line a boot: for a run of
BOOTS="tap tap-2 tap-3", which writes no report. A tapbatch boot's line
gives knapidbatch (knapid's threads SCHED_BATCH) against softirq and
against knapid instead of per-NAPI threaded.

With --profile, a line per boot and mode too: what a mode's receive path
cost per interrupt at the maximum (medians over the rounds): context
switches, received packets, NET_RX softirqs, and the CPU0 time of the
thread that polled (knapid/0 or napi/...), counts that TCG's timing does
not move the way it moves the ratios.

usage: tap_ratios.py [--profile] result-tap*.json..."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report as R  # noqa: E402

MODES = ('knapid', 'softirq', 'threaded', 'knapidbatch')


def fmt(x):
    return '-' if x is None else f'{x:.2f}'


def load(path):
    """a tap or tapbatch boot through report.py's checks"""
    try:
        return R.load_boot(path)
    except R.InputError as e:
        sys.exit(str(e))


def per_irq(rec, count):
    irqs = rec.get('irqs') or 0
    return count / irqs if irqs else None


def poller_share(rec):
    """CPU0 % of the thread that polled: knapid/N or napi/..., if any"""
    thr = rec.get('threads') or {}
    vals = [v for k, v in thr.items() if k.startswith(('knapid/', 'napi/'))]
    return sum(vals) if vals else 0.0


def profile(b):
    for m in MODES:
        recs = b.t1('iperf_max', m)
        if not recs:
            continue
        rows = {
            'ctxt/irq': [per_irq(r, r['sched']['ctxt']) for r in recs],
            'rx pkts/irq': [per_irq(r, r['rx_packets']) for r in recs],
            'NET_RX/irq': [per_irq(r, r['sched']['net_rx']) for r in recs],
            'irqs/GB': [r['irqs'] / (r['bps'] * r['secs'] / 8 / 1e9) for r in recs],
            'poller CPU0 %': [poller_share(r) for r in recs],
        }
        parts = []
        for k, v in rows.items():
            s = R.median_spread(v)
            parts.append(f'{k} {fmt(R.mid(s))} ({fmt(s.lo)}-{fmt(s.hi)})' if s else f'{k} -')
        print(f'  {m} at the maximum ({len(recs)} rounds): ' + ', '.join(parts))


def main(argv):
    prof = '--profile' in argv
    paths = [a for a in argv if a != '--profile']
    if not paths:
        sys.exit(__doc__)
    for p in paths:
        b = load(p)
        bps = {m: R.t1_stat(b, 'iperf_max', m, 'bps') for m in MODES}
        b5 = {m: R.busy_stat(b, 'iperf_5', m) for m in MODES}
        b50 = {m: R.busy_stat(b, 'iperf_50', m) for m in MODES}
        if b.boot.startswith('tapbatch'):
            other = (f'knapidbatch/softirq {fmt(R.ratio(bps["knapidbatch"], bps["softirq"]))}, '
                     f'knapidbatch/knapid {fmt(R.ratio(bps["knapidbatch"], bps["knapid"]))}')
            other5 = (f'; knapidbatch/softirq at 5% '
                      f'{fmt(R.ratio(b5["knapidbatch"], b5["softirq"]))}, at 50% '
                      f'{fmt(R.ratio(b50["knapidbatch"], b50["softirq"]))}')
        else:
            other = f'threaded/softirq {fmt(R.ratio(bps["threaded"], bps["softirq"]))}'
            other5 = ''
        print(f'{os.path.basename(p)}: max throughput knapid/softirq '
              f'{fmt(R.ratio(bps["knapid"], bps["softirq"]))}, {other} (softirq '
              f'{fmt(R.mid(bps["softirq"]) / 1e9 if bps["softirq"] else None)} Gbit/s); '
              f'CPU0 busy at 5% knapid/softirq {fmt(R.ratio(b5["knapid"], b5["softirq"]))} '
              f'({fmt(R.mid(b5["knapid"]))} vs {fmt(R.mid(b5["softirq"]))}%), at 50% '
              f'{fmt(R.ratio(b50["knapid"], b50["softirq"]))}{other5}')
        if prof:
            profile(b)


if __name__ == '__main__':
    main(sys.argv[1:])
