#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""report.md and plots of `make bench TIER=vt` (bench/vt.sh).

usage: vt_report.py [--icount QEMU_OPTS] OUTDIR vt-BOOT.json...

The boots named vt, vt-2, vt-3 ran under QEMU icount (the guest's virtual
clock); tcg is the same run without it, shown beside them for its spread
and never used in a verdict. A goal is met when every icount boot meets
it, missed when none does, and undecided otherwise.
"""

import json
import os
import statistics
import sys

import matplotlib

matplotlib.use('Agg')
import matplotlib.pyplot as plt  # noqa: E402

MODES = ('softirq', 'knapid', 'threaded')
# (name, what, the mode, the figure it reads, the bound, why)
GOALS = (
    ('rt-knapid', 'knapid cuts the cyclictest max on the flooded CPU by at least 2x',
     'knapid', 'max_cut', 2.0,
     'the promise of seed 000: NET_RX work in a task the scheduler can preempt, so a '
     'SCHED_FIFO task no longer waits behind a softirq round'),
    ('rt-threaded', 'per-NAPI threaded cuts it by at least 2x', 'threaded', 'max_cut', 2.0,
     'the same question for what 7.3 already has'),
    ('fair-knapid-0', 'a CPU-bound task keeps at least 40% of the flooded CPU, knapid/1 at nice 0',
     'knapid', 'hog_0', 40.0, 'two runnable tasks of equal weight: about half each, if the '
     'NET_RX work is charged to its thread'),
    ('fair-knapid-19', 'at least 80% with knapid/1 at nice 19', 'knapid', 'hog_19', 80.0,
     'nice 19 weighs 15 against nice 0\'s 1024: the thread yields'),
    ('fair-threaded-0', 'at least 40% with the NAPI threads at nice 0', 'threaded', 'hog_0',
     40.0, 'as for knapid'),
    ('fair-threaded-19', 'at least 80% with the NAPI threads at nice 19', 'threaded', 'hog_19',
     80.0, 'as for knapid'),
)


def median(vals):
    vals = [v for v in vals if v is not None]
    return statistics.median(vals) if vals else None


def summarize(res):
    """per-boot figures: {'quiet': {...}, mode: {...}}"""
    recs = res['records']
    s = {'boot': res['boot'], 'icount': 'icount' in res.get('cmdline', '') or
         res['boot'].startswith('vt')}
    quiet = [r for r in recs if r['test'] == 'quiet']
    s['quiet'] = {'max_us': max((r['max_us'] for r in quiet), default=None),
                  'p99_us': median(r['p99_us'] for r in quiet)}
    for m in MODES:
        fl = [r for r in recs if r['test'] == 'flood' and r['mode'] == m]
        rr = [r for r in recs if r['test'] == 'rr' and r['mode'] == m]
        d = {'max_us': max((r['max_us'] for r in fl), default=None),
             'round_max_us': [r['max_us'] for r in fl],
             'p99_us': median(r['p99_us'] for r in fl),
             'p999_us': median(r['p999_us'] for r in fl),
             'flood_bps': median(r['flood_bps'] for r in fl),
             'softirq_pct': median(r['cpu']['softirq'] for r in fl),
             'threads': {}, 'rr_p50': median(r['p50_us'] for r in rr),
             'rr_p99': median(r['p99_us'] for r in rr),
             'round_rr_p50': [r['p50_us'] for r in rr]}
        names = {k for r in fl for k in r['threads']}
        for k in sorted(names):
            d['threads'][k] = median(r['threads'].get(k, 0) for r in fl)
        for nice in (0, 19):
            fa = [r for r in recs if r['test'] == 'fair' and r['mode'] == m and
                  r['nice'] == nice]
            d[f'hog_{nice}'] = median(r['hog_pct'] for r in fa)
            d[f'charged_{nice}'] = median(r.get('charged_pct') for r in fa)
            d[f'fair_bps_{nice}'] = median(r['flood_bps'] for r in fa)
        if m == 'softirq':
            d['hog_19'] = d['charged_19'] = d['fair_bps_19'] = None
        s[m] = d
    for m in MODES[1:]:
        base, d = s['softirq'], s[m]
        d['max_cut'] = base['max_us'] / d['max_us'] if base['max_us'] and d['max_us'] else None
        d['rr_ratio'] = d['rr_p50'] / base['rr_p50'] if base['rr_p50'] and d['rr_p50'] else None
        d['bps_ratio'] = d['flood_bps'] / base['flood_bps'] if base['flood_bps'] and \
            d['flood_bps'] else None
        d['round_rr_ratio'] = [b / a for a, b in zip(base['round_rr_p50'], d['round_rr_p50'])
                               if a and b]
    return s


def verdict(values, bound):
    """met / missed / undecided over the icount boots' VALUES"""
    vals = [v for v in values if v is not None]
    if not vals or len(vals) < len(values):
        return 'undecided (no figure)'
    ok = [v >= bound for v in vals]
    return 'met' if all(ok) else 'missed' if not any(ok) else 'undecided'


def fmt(v, spec='.2f'):
    return '-' if v is None else format(v, spec)


def spread(vals):
    vals = [v for v in vals if v is not None]
    if not vals:
        return '-'
    return f'{min(vals):.2f}-{max(vals):.2f}' if len(vals) > 1 else f'{vals[0]:.2f}'


def plot(path, sums):
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    width = 0.8 / len(sums)
    for i, s in enumerate(sums):
        xs = [j + i * width for j in range(len(MODES) + 1)]
        ys = [s['quiet']['max_us']] + [s[m]['max_us'] for m in MODES]
        ax1.bar(xs, [y or 0 for y in ys], width, label=s['boot'])
        hs = [s[m]['hog_0'] for m in MODES] + [s[m]['hog_19'] for m in MODES[1:]]
        ax2.bar([j + i * width for j in range(len(hs))], [h or 0 for h in hs], width,
                label=s['boot'])
    ax1.set_xticks([j + 0.4 - width / 2 for j in range(len(MODES) + 1)],
                   ['quiet'] + list(MODES))
    ax1.set_yscale('log')
    ax1.set_ylabel('cyclictest max (us), flooded CPU')
    ax1.legend(fontsize=7)
    ax2.set_xticks([j + 0.4 - width / 2 for j in range(5)],
                   ['softirq', 'knapid', 'threaded', 'knapid\nnice 19', 'threaded\nnice 19'])
    ax2.set_ylabel('CPU-bound task share of the flooded CPU (%)')
    ax2.axhline(40, ls=':', c='grey')
    ax2.axhline(80, ls=':', c='grey')
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def report(out, sums, icount):
    vt = [s for s in sums if s['icount']]
    tcg = [s for s in sums if not s['icount']]
    lines = ['# make bench TIER=vt: knapid on the guest\'s virtual clock', '',
             'A linked netdevsim pair in two netns, every client and server on vCPU 0; RPS '
             'steers what both devices receive to vCPU 1, where only cyclictest SCHED_FIFO 90 '
             'and a CPU-bound task run (and, in threaded mode, the pair\'s NAPI threads). Boots '
             f'{", ".join(s["boot"] for s in vt)} ran under QEMU icount (`{icount}`: while the '
             'guest computes, its clock advances with the instructions it executes, so host '
             f'load drops out); {", ".join(s["boot"] for s in tcg) or "no boot"} without it, '
             'for comparison only. Ratios are per boot; the spread is their range over the '
             'icount boots.', '', '## Goals', '',
             '| goal | per icount boot | verdict | why this bound |', '|---|---|---|---|']
    for _, what, mode, key, bound, why in GOALS:
        vals = [s[mode][key] for s in vt]
        lines.append(f'| {what} | {" / ".join(fmt(v) for v in vals)} | '
                     f'{verdict(vals, bound)} | {why} |')
    lines += ['', '## cyclictest on the flooded CPU (us: worst max over the rounds, median '
              'p99.9)', '', '| boot | quiet max | ' +
              ' | '.join(f'{m} max / p99.9' for m in MODES) +
              ' | knapid cut | threaded cut |', '|' + '---|' * (5 + len(MODES))]
    for s in sums:
        lines.append(f'| {s["boot"]} | {fmt(s["quiet"]["max_us"], ".0f")} | ' +
                     ' | '.join(f'{fmt(s[m]["max_us"], ".0f")} / {fmt(s[m]["p999_us"], ".0f")}'
                                for m in MODES) +
                     f' | {fmt(s["knapid"]["max_cut"])} | {fmt(s["threaded"]["max_cut"])} |')
    lines += ['', '## Fairness: the CPU-bound task\'s share of the flooded CPU', '',
              'The work it got done beside the flood against the same task alone in that '
              'round (%, median over the rounds); in brackets the CPU time the kernel charged '
              'to it (without IRQ_TIME_ACCOUNTING a softirq that interrupts it is charged to '
              'it) and the flood\'s Gbit/s meanwhile.', '',
              '| boot | softirq | knapid nice 0 | knapid nice 19 | threaded nice 0 | '
              'threaded nice 19 |', '|---|---|---|---|---|---|']

    def cell(d, nice):
        bps = d[f'fair_bps_{nice}']
        return (f'{fmt(d[f"hog_{nice}"], ".1f")} ({fmt(d[f"charged_{nice}"], ".0f")}, '
                f'{fmt(bps / 1e9 if bps else None)})')
    for s in sums:
        lines.append(f'| {s["boot"]} | {cell(s["softirq"], 0)} | {cell(s["knapid"], 0)} | '
                     f'{cell(s["knapid"], 19)} | {cell(s["threaded"], 0)} | '
                     f'{cell(s["threaded"], 19)} |')
    lines += ['', '## Where the flooded CPU\'s NET_RX time went (median % of a CPU during '
              'the flood, cyclictest beside it)', '', '| boot | mode | softirq in /proc/stat | '
              'threads |', '|---|---|---|---|']
    for s in sums:
        for m in MODES:
            th = ', '.join(f'{k} {v:.1f}' for k, v in s[m]['threads'].items()) or '-'
            lines.append(f'| {s["boot"]} | {m} | {fmt(s[m]["softirq_pct"], ".1f")} | {th} |')
    lines += ['', '## Request-response and throughput, mode / softirq', '',
              '| boot | knapid ping-pong p50 | its per-round range | threaded ping-pong p50 | '
              'knapid flood | threaded flood |', '|---|---|---|---|---|---|']
    for s in sums:
        lines.append(f'| {s["boot"]} | {fmt(s["knapid"]["rr_ratio"], ".3f")} | '
                     f'{spread(s["knapid"]["round_rr_ratio"])} | '
                     f'{fmt(s["threaded"]["rr_ratio"], ".3f")} | '
                     f'{fmt(s["knapid"]["bps_ratio"])} | {fmt(s["threaded"]["bps_ratio"])} |')
    lines += ['', 'Spread over the icount boots: knapid ping-pong p50 '
              f'{spread([s["knapid"]["rr_ratio"] for s in vt])}, cyclictest cut '
              f'{spread([s["knapid"]["max_cut"] for s in vt])}; without icount: ping-pong p50 '
              f'{spread([s["knapid"]["rr_ratio"] for s in tcg])}.', '',
              '![cyclictest max and fairness](vt.png)', '']
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
