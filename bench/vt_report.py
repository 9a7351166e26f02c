#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""report.md and plots of `make bench TIER=vt` (bench/vt.sh).

usage: vt_report.py [--icount QEMU_OPTS] OUTDIR vt-BOOT.json...

The boots named vt, vt-2, vt-3 ran under QEMU icount (the guest's virtual
clock) and decide the goals: a goal is met when every one of them meets
it, missed when none does, and undecided otherwise. vt-threadirqs ran
under icount with `threadirqs`, tcg without icount: both are shown beside
them and never used in a verdict.
"""

import json
import os
import statistics
import sys

import matplotlib

matplotlib.use('Agg')
import matplotlib.pyplot as plt  # noqa: E402

MODES = ('softirq', 'knapid', 'threaded', 'busypoll')
POLLERS = MODES[1:]
PATHS = ('pair', 'veth', 'lo')
LABEL = {'softirq': 'softirq', 'knapid': 'knapid', 'threaded': 'per-NAPI threaded',
         'busypoll': 'threaded busy poll'}
# (what, the mode, the figure it reads, 'ge' or 'le', the bound, why)
GOALS = (
    ('knapid cuts the cyclictest max on the flooded CPU by at least 2x',
     'knapid', 'max_cut', 'ge', 2.0,
     'the promise of seed 000: NET_RX work in a task the scheduler can preempt, so a '
     'SCHED_FIFO task no longer waits behind a softirq round'),
    ('per-NAPI threaded cuts it by at least 2x', 'threaded', 'max_cut', 'ge', 2.0,
     'the same question for what 7.3 already has'),
    ('knapid cuts the cyclictest p99.9 by at least 1.5x', 'knapid', 'p999_cut', 'ge', 1.5,
     'the 2x on the max is bounded by one NAPI poll, which no design that polls between '
     'preemption points goes below (reports/bench-2026-11-27-yield-ab-7.3-vt); p99.9 is '
     'what a real-time task meets every second'),
    ('knapid\'s cyclictest p99.9 within 1.1x of per-NAPI threaded\'s', 'knapid',
     'p999_vs_threaded', 'le', 1.1,
     'knapid must not be worse for a real-time task than what 7.3 already has'),
    ('a CPU-bound task keeps at least 40% of the flooded CPU, knapid/1 at nice 0',
     'knapid', 'hog_0', 'ge', 40.0, 'two runnable tasks of equal weight: about half each, if '
     'the NET_RX work is charged to its thread'),
    ('at least 80% with knapid/1 at nice 19', 'knapid', 'hog_19', 'ge', 80.0,
     'nice 19 weighs 15 against nice 0\'s 1024: the thread yields'),
    ('at least 40% with the NAPI threads at nice 0', 'threaded', 'hog_0', 'ge', 40.0,
     'as for knapid'),
    ('at least 80% with the NAPI threads at nice 19', 'threaded', 'hog_19', 'ge', 80.0,
     'as for knapid'),
    ('a SCHED_FIFO CPU-bound task keeps at least 90% of the flooded CPU with knapid',
     'knapid', 'fifo', 'ge', 90.0,
     'the thread runs at SCHED_OTHER: a real-time task outranks it, and only RT throttling '
     '(5% of each second) is left to it'),
    ('knapid\'s ping-pong p50 over veth within 1.05x of softirq\'s', 'knapid', 'rr_veth',
     'le', 1.05, 'the container path: a task\'s own round stays in the task ([knapid-design])'),
    ('knapid\'s ping-pong p50 over lo within 1.05x of softirq\'s', 'knapid', 'rr_lo', 'le',
     1.05, 'as for veth'),
)


def median(vals):
    vals = [v for v in vals if v is not None]
    return statistics.median(vals) if vals else None


def ratio(a, b):
    return a / b if a and b else None


def kind(res):
    """'icount' (a boot that decides), 'threadirqs' or 'tcg'"""
    cmd = res.get('cmdline', '')
    if 'threadirqs' in cmd.split() or res['boot'] == 'vt-threadirqs':
        return 'threadirqs'
    return 'icount' if res['boot'] in ('vt', 'vt-2', 'vt-3') else 'tcg'


def cost_ms_per_mb(recs):
    """median guest CPU ms (both vCPUs) per MB received"""
    vals = []
    for r in recs:
        mb = r['flood_bps'] * r['secs'] / 8 / 1e6
        if mb and r.get('busy_cpu_secs') is not None:
            vals.append(1e3 * r['busy_cpu_secs'] / mb)
    return median(vals)


def summarize(res):
    """per-boot figures: {'quiet': {...}, mode: {...}}"""
    recs = res['records']
    s = {'boot': res['boot'], 'kind': kind(res)}
    quiet = [r for r in recs if r['test'] == 'quiet']
    s['quiet'] = {'max_us': max((r['max_us'] for r in quiet), default=None),
                  'p99_us': median(r['p99_us'] for r in quiet)}

    def of(test, m, **kw):
        return [r for r in recs if r['test'] == test and r.get('mode') == m and
                all(r.get(k) == v for k, v in kw.items())]
    for m in MODES:
        fl = of('flood', m)
        d = {'max_us': max((r['max_us'] for r in fl), default=None),
             'round_max_us': [r['max_us'] for r in fl],
             'p99_us': median(r['p99_us'] for r in fl),
             'p999_us': median(r['p999_us'] for r in fl),
             'flood_bps': median(r['flood_bps'] for r in fl),
             'softirq_pct': median(r['cpu']['softirq'] for r in fl),
             'threads': {}, 'cost_max': cost_ms_per_mb(fl),
             'cost_rate': cost_ms_per_mb(of('rate', m)),
             'rate_bps': median(r['flood_bps'] for r in of('rate', m))}
        for k in sorted({k for r in fl for k in r['threads']}):
            d['threads'][k] = median(r['threads'].get(k, 0) for r in fl)
        for nice in (0, 19):
            fa = of('fair', m, nice=nice)
            d[f'hog_{nice}'] = median(r['hog_pct'] for r in fa)
            d[f'charged_{nice}'] = median(r.get('charged_pct') for r in fa)
            d[f'fair_bps_{nice}'] = median(r['flood_bps'] for r in fa)
        ff = of('fifo', m)
        d['fifo'] = median(r['hog_pct'] for r in ff)
        d['fifo_bps'] = median(r['flood_bps'] for r in ff)
        for p in PATHS:
            # records of the first tier have no path: the pair
            rr = [r for r in of('rr', m) if r.get('path', 'pair') == p]
            d[f'p50_{p}'] = median(r['p50_us'] for r in rr)
            d[f'p99_{p}'] = median(r['p99_us'] for r in rr)
            d[f'ctxt_{p}'] = median(r.get('ctxt_per_rt') for r in rr)
            d[f'round_p50_{p}'] = [r['p50_us'] for r in rr]
        s[m] = d
    base = s['softirq']
    for m in MODES:
        d = s[m]
        d['max_cut'] = ratio(base['max_us'], d['max_us'])
        d['p999_cut'] = ratio(base['p999_us'], d['p999_us'])
        d['p999_vs_threaded'] = ratio(d['p999_us'], s['threaded']['p999_us'])
        d['bps_ratio'] = ratio(d['flood_bps'], base['flood_bps'])
        for p in PATHS:
            d[f'rr_{p}'] = ratio(d[f'p50_{p}'], base[f'p50_{p}'])
            d[f'round_rr_{p}'] = [b / a for a, b in zip(base[f'round_p50_{p}'],
                                                        d[f'round_p50_{p}']) if a and b]
    return s


def verdict(values, sense, bound):
    """met / missed / undecided over the icount boots' VALUES"""
    vals = [v for v in values if v is not None]
    if not vals or len(vals) < len(values):
        return 'undecided (no figure)'
    ok = [v >= bound if sense == 'ge' else v <= bound for v in vals]
    return 'met' if all(ok) else 'missed' if not any(ok) else 'undecided'


def fmt(v, spec='.2f'):
    return '-' if v is None else format(v, spec)


def spread(vals):
    vals = [v for v in vals if v is not None]
    if not vals:
        return '-'
    return f'{min(vals):.2f}-{max(vals):.2f}' if len(vals) > 1 else f'{vals[0]:.2f}'


def plot(path, sums):
    fig, (ax1, ax2, ax3) = plt.subplots(1, 3, figsize=(15, 4))
    width = 0.8 / len(sums)
    fair = [(m, 0) for m in MODES] + [(m, 19) for m in POLLERS]
    for i, s in enumerate(sums):
        ys = [s['quiet']['max_us']] + [s[m]['max_us'] for m in MODES]
        ax1.bar([j + i * width for j in range(len(ys))], [y or 0 for y in ys], width,
                label=s['boot'])
        hs = [s[m][f'hog_{n}'] for m, n in fair] + [s[m]['fifo'] for m in MODES]
        ax2.bar([j + i * width for j in range(len(hs))], [h or 0 for h in hs], width,
                label=s['boot'])
        rs = [s[m][f'rr_{p}'] for p in PATHS for m in POLLERS]
        ax3.bar([j + i * width for j in range(len(rs))], [r or 0 for r in rs], width,
                label=s['boot'])
    ax1.set_xticks([j + 0.4 - width / 2 for j in range(len(MODES) + 1)],
                   ['quiet'] + list(MODES), fontsize=8)
    ax1.set_yscale('log')
    ax1.set_ylabel('cyclictest max (us), flooded CPU')
    ax1.legend(fontsize=7)
    ax2.set_xticks([j + 0.4 - width / 2 for j in range(len(fair) + len(MODES))],
                   [f'{m}\nnice {n}' for m, n in fair] + [f'{m}\nFIFO' for m in MODES],
                   fontsize=6)
    ax2.set_ylabel('CPU-bound task share of the flooded CPU (%)')
    for y in (40, 80, 90):
        ax2.axhline(y, ls=':', c='grey')
    ax3.set_xticks([j + 0.4 - width / 2 for j in range(len(PATHS) * len(POLLERS))],
                   [f'{m}\n{p}' for p in PATHS for m in POLLERS], fontsize=6)
    # log: threaded busy poll's co-located ping-pong is tens of times slower
    ax3.set_yscale('log')
    ax3.set_ylabel('ping-pong p50, mode / softirq (log)')
    ax3.axhline(1.05, ls=':', c='grey')
    ax3.set_ylim(bottom=0.5)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def report(out, sums, icount):
    vt = [s for s in sums if s['kind'] == 'icount']
    others = [s for s in sums if s['kind'] != 'icount']
    tcg = [s for s in sums if s['kind'] == 'tcg']
    lines = ['# make bench TIER=vt: knapid on the guest\'s virtual clock', '',
             'A linked netdevsim pair in two netns, every client and server on vCPU 0; RPS '
             'steers what both devices receive to vCPU 1, where only cyclictest SCHED_FIFO 90 '
             'and a CPU-bound task run (and, in the threaded modes, the pair\'s NAPI threads, '
             'set by napi-set: per-NAPI threaded is `threaded enabled`, threaded busy poll '
             '`threaded busy-poll`). A veth pair and lo carry ping-pong without a device NAPI '
             '(server on vCPU 1, client on vCPU 0). Boots '
             f'{", ".join(s["boot"] for s in vt)} ran under QEMU icount (`{icount}`: while the '
             'guest computes, its clock advances with the instructions it executes, so host '
             'load drops out) and decide the goals' +
             (f'; {", ".join(s["boot"] for s in others)} '
              f'{"is" if len(others) == 1 else "are"} shown for comparison only '
              '(vt-threadirqs: icount with `threadirqs`; tcg: no icount)' if others else '') +
             '. Ratios are per boot; the spread is their range over the deciding boots.', '',
             '## Goals', '', '| goal | per icount boot | verdict | why this bound |',
             '|---|---|---|---|']
    for what, mode, key, sense, bound, why in GOALS:
        vals = [s[mode][key] for s in vt]
        lines.append(f'| {what} | {" / ".join(fmt(v) for v in vals)} | '
                     f'{verdict(vals, sense, bound)} | {why} |')
    lines += ['', '## cyclictest on the flooded CPU (us: worst max over the rounds, median '
              'p99.9)', '', '| boot | quiet max | ' +
              ' | '.join(f'{m} max / p99.9' for m in MODES) + ' | ' +
              ' | '.join(f'{m} cut' for m in POLLERS) + ' |',
              '|' + '---|' * (2 + len(MODES) + len(POLLERS))]
    for s in sums:
        lines.append(f'| {s["boot"]} | {fmt(s["quiet"]["max_us"], ".0f")} | ' +
                     ' | '.join(f'{fmt(s[m]["max_us"], ".0f")} / {fmt(s[m]["p999_us"], ".0f")}'
                                for m in MODES) + ' | ' +
                     ' | '.join(fmt(s[m]['max_cut']) for m in POLLERS) + ' |')
    lines += ['', '## Fairness: the CPU-bound task\'s share of the flooded CPU', '',
              'The work it got done beside the flood against the same task alone in that '
              'round (%, median over the rounds); in brackets the CPU time the kernel charged '
              'to it (the release config has IRQ_TIME_ACCOUNTING since 2026-11-28: a softirq '
              'that interrupts it is no longer charged to it; before, it was) and the flood\'s '
              'Gbit/s meanwhile. Nice is the polling threads\'; in the '
              'FIFO column the task runs at SCHED_FIFO 10 and the threads at nice 0 (in '
              'brackets the flood\'s Gbit/s).', '',
              '| boot | softirq | ' + ' | '.join(f'{m} nice {n}' for m in POLLERS
                                                  for n in (0, 19)) +
              ' | ' + ' | '.join(f'{m} FIFO' for m in MODES) + ' |',
              '|' + '---|' * (2 + 2 * len(POLLERS) + len(MODES))]

    def cell(d, nice):
        bps = d[f'fair_bps_{nice}']
        return (f'{fmt(d[f"hog_{nice}"], ".1f")} ({fmt(d[f"charged_{nice}"], ".0f")}, '
                f'{fmt(bps / 1e9 if bps else None)})')

    def fifo(d):
        return f'{fmt(d["fifo"], ".1f")} ({fmt(d["fifo_bps"] / 1e9 if d["fifo_bps"] else None)})'
    for s in sums:
        lines.append(f'| {s["boot"]} | {cell(s["softirq"], 0)} | ' +
                     ' | '.join(cell(s[m], n) for m in POLLERS for n in (0, 19)) + ' | ' +
                     ' | '.join(fifo(s[m]) for m in MODES) + ' |')
    lines += ['', '## Where the flooded CPU\'s NET_RX time went (median % of a CPU during '
              'the flood, cyclictest beside it)', '', '| boot | mode | softirq in /proc/stat | '
              'threads |', '|---|---|---|---|']
    for s in sums:
        for m in MODES:
            th = ', '.join(f'{k} {v:.1f}' for k, v in s[m]['threads'].items()) or '-'
            lines.append(f'| {s["boot"]} | {m} | {fmt(s[m]["softirq_pct"], ".1f")} | {th} |')
    lines += ['', '## Request-response: ping-pong p50, mode / softirq (in brackets the '
              'context switches per round trip, all CPUs)', '',
              'The pair: client and server on vCPU 0, the receive work on vCPU 1 (an RPS IPI '
              'per packet); veth and lo: server on vCPU 1, client on vCPU 0, each round '
              'raised by the task that sends.', '',
              '| boot | path | softirq p50 (us) | ' +
              ' | '.join(f'{m}' for m in POLLERS) + ' | knapid per-round range |',
              '|' + '---|' * (4 + len(POLLERS))]
    for s in sums:
        for p in PATHS:
            lines.append(f'| {s["boot"]} | {p} | {fmt(s["softirq"][f"p50_{p}"], ".1f")} '
                         f'({fmt(s["softirq"][f"ctxt_{p}"])}) | ' +
                         ' | '.join(f'{fmt(s[m][f"rr_{p}"], ".3f")} '
                                    f'({fmt(s[m][f"ctxt_{p}"])})' for m in POLLERS) +
                         f' | {spread(s["knapid"][f"round_rr_{p}"])} |')
    lines += ['', '## Cost: guest CPU time per MB received (ms, both vCPUs; virtual time '
              'under icount)', '',
              'At a fixed 1 Gbit/s TCP stream and at the flood\'s maximum (cyclictest '
              'beside it); the maximum\'s Gbit/s in brackets. CPU time is what every task '
              'ran (schedstat) plus the interrupt and softirq time of /proc/stat '
              '(CONFIG_IRQ_TIME_ACCOUNTING): the idle time cannot be used, icount\'s clock '
              'jumps to the next timer when both vCPUs idle. Under icount a vCPU\'s time '
              'also advances while the other executes, so this is the CPU time the guest '
              'accounts, not an instruction count.', '',
              '| boot | ' + ' | '.join(f'{m} at 1G' for m in MODES) + ' | ' +
              ' | '.join(f'{m} at max' for m in MODES) + ' |',
              '|' + '---|' * (1 + 2 * len(MODES))]
    for s in sums:
        lines.append(f'| {s["boot"]} | ' +
                     ' | '.join(fmt(s[m]['cost_rate']) for m in MODES) + ' | ' +
                     ' | '.join(f'{fmt(s[m]["cost_max"])} '
                                f'({fmt(s[m]["flood_bps"] / 1e9 if s[m]["flood_bps"] else None)})'
                                for m in MODES) + ' |')
    lines += ['', 'Spread over the icount boots: knapid ping-pong p50 over the pair '
              f'{spread([s["knapid"]["rr_pair"] for s in vt])}, veth '
              f'{spread([s["knapid"]["rr_veth"] for s in vt])}, lo '
              f'{spread([s["knapid"]["rr_lo"] for s in vt])}; cyclictest max cut '
              f'{spread([s["knapid"]["max_cut"] for s in vt])}, p99.9 cut '
              f'{spread([s["knapid"]["p999_cut"] for s in vt])}; without icount: ping-pong '
              f'p50 over the pair {spread([s["knapid"]["rr_pair"] for s in tcg])}.', '',
              '![cyclictest max, fairness and ping-pong](vt.png)', '']
    with open(os.path.join(out, 'report.md'), 'w') as f:
        f.write('\n'.join(lines))


def main(argv):
    icount = '-icount'
    if argv[:1] == ['--icount']:
        icount, argv = argv[1], argv[2:]
    if len(argv) < 2:
        sys.exit(__doc__)
    out = argv[0]
    sums = [summarize(json.load(open(p))) for p in argv[1:]]
    plot(os.path.join(out, 'vt.png'), sums)
    report(out, sums, icount)
    print(f'vt_report: {os.path.join(out, "report.md")}')


if __name__ == '__main__':
    main(sys.argv[1:])
