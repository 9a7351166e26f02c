#!/usr/bin/python3
"""Compare kernels by their knapid/softirq ratios (bench/run.sh BOOTS=ab runs).

usage: /usr/bin/python3 bench/compare.py LABEL=RESULT.json [LABEL=RESULT.json ...]

Each RESULT.json is one boot that measured softirq and knapid side by side
(interleaved rounds). Two kernels are never compared by absolute numbers,
which drift between boots under TCG, but by the ratio each measured in its
own boot. Prints a Markdown table: per row, each kernel's knapid/softirq
ratio, then its two medians with their spread over rounds.
"""
import json
import sys

import report as r


def rows():
    return [
        ('ping RTT p50 (us)', lambda b, m: r.ping_stat(b, m, 'p50')),
        ('ping RTT p99 (us)', lambda b, m: r.ping_stat(b, m, 'p99')),
        ('ping-pong virtio RTT p50 (us)', lambda b, m: r.t1_stat(b, 'pp_virtio', m, 'p50_us')),
        ('ping-pong veth RTT p50 (us)', lambda b, m: r.t1_stat(b, 'pp_veth', m, 'p50_us')),
        ('ping-pong lo RTT p50 (us)', lambda b, m: r.t1_stat(b, 'pp_lo', m, 'p50_us')),
        ('iperf3 max (Gbit/s)', lambda b, m: r.scaled(r.t1_stat(b, 'iperf_max', m, 'bps'), 1e-9)),
        ('CPU0 busy at max (%)', lambda b, m: r.busy_stat(b, 'iperf_max', m)),
        ('CPU0 busy at 50% (%)', lambda b, m: r.busy_stat(b, 'iperf_50', m)),
        ('CPU0 busy at 5% (%)', lambda b, m: r.busy_stat(b, 'iperf_5', m)),
        ('cyclictest max under flood (us)', lambda b, m: r.t2_stat(b, m, 'max_us')),
        ('cyclictest p99 under flood (us)', lambda b, m: r.t2_stat(b, m, 'p99_us')),
    ] + [(f'under cyclictest: {label}', lambda b, m, p=paths: r.t2_rate(b, m, p))
         for label, paths in r.T2_RATES]


def main():
    if len(sys.argv) < 2 or any('=' not in a for a in sys.argv[1:]):
        sys.exit(__doc__)
    boots = []
    for arg in sys.argv[1:]:
        label, path = arg.split('=', 1)
        with open(path) as f:
            doc = json.load(f)
        if not doc.get('complete'):
            sys.exit(f'{path}: the run did not finish (no "complete": true)')
        boots.append((label, r.Boot(path, doc)))
    head = ['measurement'] + [f'{lb}: knapid/softirq' for lb, _ in boots]
    head += [f'{lb}: softirq \\| knapid' for lb, _ in boots]
    out = []
    for name, f in rows():
        cells = [name]
        vals = [(f(b, 'softirq'), f(b, 'knapid')) for _, b in boots]
        cells += [r.fmt_ratio(r.ratio(k, s)) for s, k in vals]
        cells += [f'{r.fmt_stat(s)} \\| {r.fmt_stat(k)}' for s, k in vals]
        out.append(cells)
    print(r.markdown_table(head, out))
    print()
    notes = [f'{lb}: {note}' for lb, b in boots if (note := r.idle_note(b))]
    if notes:
        print('\n'.join(notes) + '\n')
    print('Rounds: ' + ', '.join(f'{lb} {b.meta.get("rounds")} x {b.meta.get("secs")} s'
                                 for lb, b in boots))


if __name__ == '__main__':
    main()
