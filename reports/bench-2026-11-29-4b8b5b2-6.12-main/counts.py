"""Table 1's per-round-trip counts and Table 2's NET_RX on CPU0, per round."""
import json
import sys

d = json.load(open(sys.argv[1]))
print('# Table 1 request-response: round mode test p50_us p99_us ctxt_per_rt net_rx_per_rt')
for r in d['t1']:
    if r['test'].startswith('pp_'):
        print(r['round'], r['mode'], r['test'], round(r['p50_us']), round(r['p99_us']),
              round(r['ctxt_per_rt'], 2), round(r['net_rx_per_rt'], 2))
print('# Table 2 flood: round mode cyclictest_max_us p99_us NET_RX_on_cpu0 secs per_s')
for r in d['t2']:
    n = r['sched']['net_rx_cpu0']
    print(r['round'], r['mode'], r['max_us'], r['p99_us'], n, round(r['secs'], 2), round(n / r['secs']))
