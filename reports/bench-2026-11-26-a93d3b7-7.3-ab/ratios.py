#!/usr/bin/env python3
"""Per boot, knapid/softirq of the medians over rounds of a BOOTS=ab run's
result-ab-N.json: ping RTT p50 (median of each round's samples), sockperf
ping-pong p50 (virtio, veth, lo) with the per-round spread, and Table 2's
NET_RX softirqs per second on CPU0 (the cyclictest CPU) under the flood."""
import json
import statistics as st
import sys


def main():
    """Print the ratios of each file given."""
    for f in sys.argv[1:]:
        with open(f, encoding='utf-8') as fh:
            d = json.load(fh)
        print(f, d['meta'].get('boot'), 'rounds', d['meta'].get('rounds'),
              'complete', d['complete'])
        by = {}
        for r in d['t1']:
            if r['test'].startswith('pp_'):
                v = r['p50_us']
            elif r['test'] == 'ping':
                v = st.median(r['samples_us'])
            else:
                continue
            by.setdefault((r['test'], r['mode']), {})[r['round']] = v
        for t in ('ping', 'pp_virtio', 'pp_veth', 'pp_lo'):
            s = by.get((t, 'softirq'), {})
            k = by.get((t, 'knapid'), {})
            if not s or not k:
                continue
            per = [k[i] / s[i] for i in sorted(s) if i in k]
            print(f'  {t:10s} p50 softirq {st.median(s.values()):8.1f} '
                  f'knapid {st.median(k.values()):8.1f} us  ratio of medians '
                  f'{st.median(k.values()) / st.median(s.values()):.3f}  '
                  f'per round {min(per):.2f}-{max(per):.2f}')
        t2 = {}
        for r in d['t2']:
            t2.setdefault(r['mode'], []).append(
                (r['sched']['net_rx_cpu0'] / r['secs'], r['max_us']))
        if 'softirq' in t2 and 'knapid' in t2:
            s = st.median(x[0] for x in t2['softirq'])
            k = st.median(x[0] for x in t2['knapid'])
            print(f'  t2 NET_RX/s on CPU0: softirq {s:.0f} knapid {k:.0f}  '
                  f'knapid/softirq {k / s:.3f}; cyclictest max softirq '
                  f'{st.median(x[1] for x in t2["softirq"])} knapid '
                  f'{st.median(x[1] for x in t2["knapid"])} us')


if __name__ == '__main__':
    main()
