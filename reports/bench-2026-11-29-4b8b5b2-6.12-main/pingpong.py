import json, statistics, sys
d = json.load(open(sys.argv[1]))
modes = sorted({r['mode'] for r in d['t1']})
for test in ('pp_virtio', 'pp_veth', 'pp_lo', 'ping'):
    vals = {}
    for m in modes:
        rs = [r for r in d['t1'] if r['mode'] == m and r['test'] == test]
        if test == 'ping':
            vals[m] = [statistics.median(r['samples_us']) for r in rs]
        else:
            vals[m] = [r['p50_us'] for r in rs]
    base = statistics.median(vals['softirq'])
    ratios = ' '.join(f'{m}/softirq {statistics.median(v) / base:.3f}' for m, v in vals.items() if m != 'softirq' and v)
    print(test, 'p50', ratios, ' '.join(f'{m} {[round(x) for x in v]}' for m, v in vals.items()))
print('complete', d.get('complete'))
