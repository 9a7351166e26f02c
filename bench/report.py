#!/usr/bin/env python3
"""Turn benchmark results (one JSON file per guest boot) into a Markdown report.

usage: /usr/bin/python3 bench/report.py [--compare DIR] OUTDIR RESULT.json [RESULT.json ...]

Writes OUTDIR/report.md and the plots OUTDIR/*.png. At least one input must
come from a main boot (meta.boot "main", or "main-N" for a further main boot
of the same run: "main-2", "main-3", ...). Several main boots are pooled:
Tables 1, 2 and 3 take the rounds of all of them together, and the goals are
computed per main boot, with a verdict over the boots. At most one more input
may come from the "threadirqs" boot, which feeds the threadirqs column of
Tables 1 and 2. The "tap" boot (the generator native on the host, through a
tap; "tap-N" for a further one: "tap-2", "tap-3", ...) feeds Tables 1b and 2b
and the throughput and CPU goals; several tap boots are pooled the same way
(Tables 1b and 2b take all their rounds, the per-boot goals table gives tap
boot i's value in main boot i's columns, with a verdict over the tap boots).
Each boot name may appear once.

Records read (bench/guest_bench.py writes them); optional fields add rows or
columns only when present, so older results give the report they always did:
- t1 and t2 "mode": softirq, knapid, threaded, threadirqs and (7.3) busypoll,
  the SUT's NAPI in threaded busy poll; a busypoll column and ratio appear in
  Tables 1, 2, 1b and 2b when the boot has busypoll records.
- t2 may carry "secs", "sched" {"ctxt", "net_rx", "net_rx_cpu0"} and
  "irqs_rx", "irqs_tx" (counts over the cyclictest run): Tables 2 and 2b then
  get per-second rows for them.
- t3 "case" may include busypoll20 (suspend20 with the NAPI in threaded busy
  poll); the loads may be any subset of 20%..80% and MAX.

--compare DIR: DIR is an earlier report directory of the other kernel base
holding result-main.json (and result-main-N.json), optionally
result-threadirqs.json and result-tap.json (and result-tap-N.json); the report
then gets a section with the goal values and the main ratios of both bases
side by side.

Every table cell is the median over rounds followed by "(min-max)" across
rounds. Ping RTT cells are the exception asked for: mean/p50/p99 over all the
samples of a mode pooled across rounds, the spread being the range of the
per-round values. Ratio columns divide medians. A cell without data reads
"n/a": nothing is invented.

Exit status: 0 on success, 1 (one line on stderr) when an input (or the
--compare directory) is unreadable or lacks a required part, 2 on a usage
error.
"""
import argparse
import glob
import json
import os
import re
import sys
from collections import defaultdict
from typing import Callable, NamedTuple, Optional

import numpy as np
import matplotlib
matplotlib.use('Agg')
import matplotlib.pyplot as plt  # noqa: E402  (after the backend choice)
from matplotlib.patches import Patch  # noqa: E402

MAIN, TIRQ, TAP = 'main', 'threadirqs', 'tap'
TAPBATCH = 'tapbatch'   # the tap boots of bench/tap_ratios.py, not of the report
BUSYPOLL = 'busypoll'
REPEAT = re.compile(r'(main|tapbatch|tap)-([0-9]+)$')   # a further boot: main-2, tap-3, ...
PP_TESTS = ('pp_virtio', 'pp_veth', 'pp_lo')
IPERF_TESTS = ('iperf_max', 'iperf_50', 'iperf_5')
IPERF_LABEL = {'iperf_max': 'max', 'iperf_50': '50%', 'iperf_5': '5%'}
CPU_FIELDS = ('usr', 'sys', 'softirq', 'irq', 'idle')
THREAD_PREFIXES = ('knapid/', 'napi/', 'ksoftirqd/', 'irq/')
T3_CASES = ('base', 'defer20', 'defer200', 'napibusy', 'fullbusy',
            'suspend0', 'suspend20', 'suspend200', 'busypoll20',
            'suspend0+knapid', 'suspend20+knapid', 'suspend200+knapid')
LOADS = ('20%', '40%', '60%', '80%', 'MAX')
PLOTS = ('t1_latency.png', 't1_cpu.png', 't2_cyclictest.png', 't1b_tap.png',
         't3_latency.png', 't3_cpu.png', 't3_irq_per_req.png')

# Fields each record must carry ("a.b" = nested); a null value is allowed
# and reads as "no data".
T1_KEYS = {'ping': ('samples_us',),
           'pp': ('p50_us', 'p99_us'),
           'iperf': ('bps', 'threads') + tuple('cpu.cpu0.' + f for f in CPU_FIELDS)}
T2_KEYS = ('max_us', 'p99_us', 'overflows', 'flood_bps')
T3_METRICS = ('achieved_mps', 'mean_us', 'p95_us', 'p99_us', 'cpu_busy', 'irq_per_req')
T3_KEYS = ('case', 'knapid', 'load') + T3_METRICS

SEED000_NOTE = ('Seed 000 reference (softirq vs knapid): ping 212 us vs 241 us (+14%); '
                'max throughput 2.25 vs 2.31 Gbit/s; CPU at 1 Gbit/s ~35% vs ~50%; '
                'at 100 Mbit/s 1.1% vs 10.3%.')
SEED001_NOTE = ('Seed 001 reference at 200K msg/s: p99 base 416 us, suspend20 151 us, '
                'fullbusy 133 us; CPU0 busy base 26%, suspend20 30%, fullbusy 100%.')


class InputError(Exception):
    pass


# ---------------------------------------------------------------- statistics

class Stat(NamedTuple):
    mid: float      # median over rounds (pooled statistic for ping)
    lo: float       # smallest per-round value
    hi: float       # largest per-round value
    n: int          # rounds behind it


def median_spread(values) -> Optional[Stat]:
    vals = [float(v) for v in values if v is not None]
    if not vals:
        return None
    return Stat(float(np.median(vals)), min(vals), max(vals), len(vals))


def mid(x):
    return x.mid if isinstance(x, Stat) else x


def ratio(a, b) -> Optional[float]:
    a, b = mid(a), mid(b)
    if a is None or b is None or b == 0:
        return None
    return a / b


def difference(a, b) -> Optional[float]:
    a, b = mid(a), mid(b)
    return None if a is None or b is None else a - b


def auto_digits(x):
    x = abs(x)
    return 0 if x >= 100 else 1 if x >= 10 else 2


def fmt(x, digits=None) -> str:
    if x is None:
        return 'n/a'
    return f'{x:.{auto_digits(x) if digits is None else digits}f}'


def fmt_stat(s: Optional[Stat], digits=None) -> str:
    if s is None:
        return 'n/a'
    d = auto_digits(s.mid) if digits is None else digits
    return f'{fmt(s.mid, d)} ({fmt(s.lo, d)}-{fmt(s.hi, d)})'


def fmt_ratio(r) -> str:
    if r is None:
        return 'n/a'
    return '<0.01x' if 0 < r < 0.005 else f'{r:.2f}x'     # "0.00x" would read as zero


def fmt_cell(v, digits=None) -> str:
    if isinstance(v, Stat) or v is None:
        return fmt_stat(v, digits)
    return str(v)


def scaled(s: Optional[Stat], k: float) -> Optional[Stat]:
    return None if s is None else Stat(s.mid * k, s.lo * k, s.hi * k, s.n)


# ---------------------------------------------------------------- input

def get_path(rec, path):
    """(found, value) for a dotted path; a null on the way counts as found, no data."""
    cur = rec
    for key in path.split('.'):
        if cur is None:
            return True, None
        if not isinstance(cur, dict) or key not in cur:
            return False, None
        cur = cur[key]
    return True, cur


def value(rec, path):
    return get_path(rec, path)[1]


def t1_kind(test):
    if test == 'ping':
        return 'ping'
    if test in PP_TESTS:
        return 'pp'
    if test in IPERF_TESTS:
        return 'iperf'
    return None


def check_records(fname, section, records, keys_for):
    if not isinstance(records, list):
        raise InputError(f"{fname}: '{section}' is not a list")
    for i, rec in enumerate(records):
        if not isinstance(rec, dict):
            raise InputError(f'{fname}: {section}[{i}] is not an object')
        for key in ('round',) + keys_for(rec):
            if not get_path(rec, key)[0]:
                what = ', '.join(f'{k} {rec[k]}' for k in ('test', 'mode', 'case', 'load', 'round')
                                 if k in rec)
                raise InputError(f"{fname}: {section}[{i}] ({what}) lacks '{key}'")


def t1_keys(rec):
    if 'test' not in rec or 'mode' not in rec:
        return ('test', 'mode')
    return ('mode', 'test') + T1_KEYS.get(t1_kind(rec['test']), ())


class Boot:
    """The results of one guest boot, records indexed for the tables."""

    def __init__(self, path, doc):
        self.file = os.path.basename(path)
        self.meta = doc['meta']
        self.boot = self.meta['boot']
        self.calibration = doc.get('calibration') or {}
        self.parts = [self]     # the boots pooled into this one (pooled())
        self.records = {'t1': doc['t1'], 't2': doc['t2'], 't3': doc.get('t3') or [],
                        't2_idle': doc.get('t2_idle') or []}
        self._t1 = group(doc['t1'], lambda r: (r['test'], r['mode']))
        self._t2 = group(doc['t2'], lambda r: r['mode'])
        for rec in doc.get('t3') or []:
            # the RX vector alone: the queue whose NAPI suspension masks
            if rec.get('irqs_rx') is not None and rec.get('requests'):
                rec['irq_rx_per_req'] = rec['irqs_rx'] / rec['requests']
            else:
                rec.setdefault('irq_rx_per_req', None)
        self._t3 = group(doc.get('t3') or [],
                         lambda r: (r['case'] + ('+knapid' if r['knapid'] else ''), str(r['load'])))
        self.unknown_tests = sorted({t for t, _ in self._t1 if t1_kind(t) is None})

    def t1(self, test, mode):
        return self._t1.get((test, mode), [])

    def t2(self, mode):
        return self._t2.get(mode, [])

    def t3(self, case, load):
        """case label: "suspend20" or "suspend20+knapid"."""
        return self._t3.get((case, load), [])

    def t3_keys(self):
        return self._t3.keys()

    def ran(self, table):
        """Whether the boot holds any record of table 't1', 't2' or 't3'."""
        return bool({'t1': self._t1, 't2': self._t2, 't3': self._t3}[table])

    def has_mode(self, mode):
        return any(m == mode for _, m in self._t1) or mode in self._t2

    @classmethod
    def pooled(cls, boots):
        """One boot holding the records of BOOTS (the main boots, or the tap
        boots, of one run), so that every table pools their rounds; each
        record's round becomes (index of its boot, round) to stay apart. Meta
        and calibration are the first boot's; parts lists BOOTS. A single
        boot is returned as it is, no boot as None."""
        if len(boots) <= 1:
            return boots[0] if boots else None
        doc = {'meta': boots[0].meta, 'calibration': boots[0].calibration}
        for table in ('t1', 't2', 't3', 't2_idle'):
            doc[table] = [dict(r, round=(i, r['round']))
                          for i, b in enumerate(boots) for r in b.records[table]]
        pool = cls(' + '.join(b.file for b in boots), doc)
        pool.parts = list(boots)
        return pool


def group(records, key):
    out = defaultdict(list)
    for rec in records:
        out[key(rec)].append(rec)
    return dict(out)


def load_boot(path) -> Boot:
    fname = os.path.basename(path)
    try:
        with open(path) as f:
            doc = json.load(f)
    except OSError as e:
        raise InputError(f'{path}: {e.strerror}')
    except ValueError as e:
        raise InputError(f'{path}: not valid JSON ({e})')
    if not isinstance(doc, dict):
        raise InputError(f'{fname}: not a JSON object')
    for part in ('meta', 't1', 't2'):
        if part not in doc:
            raise InputError(f"{fname}: missing '{part}'")
    boot = doc['meta'].get('boot') if isinstance(doc['meta'], dict) else None
    if boot != TIRQ and all(boot_index(boot, k) is None for k in (MAIN, TAP, TAPBATCH)):
        raise InputError(f"{fname}: meta.boot must be '{MAIN}', '{MAIN}-N', '{TIRQ}', "
                         f"'{TAP}', '{TAP}-N', '{TAPBATCH}' or '{TAPBATCH}-N'")
    if doc.get('complete') is not True:
        raise InputError(f'{fname}: the run did not finish (no "complete": true)')
    check_records(fname, 't1', doc['t1'], t1_keys)
    check_records(fname, 't2', doc['t2'], lambda r: ('mode',) + T2_KEYS)
    check_records(fname, 't3', doc.get('t3') or [], lambda r: T3_KEYS)
    return Boot(path, doc)


def boot_index(boot, kind):
    """1 for KIND ("main", "tap" or "tapbatch"), N for "KIND-N"; None for
    any other boot"""
    if boot == kind:
        return 1
    m = REPEAT.match(boot) if isinstance(boot, str) else None
    return int(m.group(2)) if m and m.group(1) == kind else None


def load_boots(paths):
    """(the main boots in order main, main-2, main-3, ..., threadirqs boot or
    None, the tap boots in order tap, tap-2, ..., possibly none)"""
    boots = {}
    for path in paths:
        b = load_boot(path)
        if boot_index(b.boot, TAPBATCH) is not None:
            raise InputError(f'{b.file}: a {TAPBATCH} boot is read by bench/tap_ratios.py, '
                             'not by the report')
        if b.boot in boots:
            raise InputError(f'{b.file}: a second result for the {b.boot} boot '
                             f'(first: {boots[b.boot].file})')
        boots[b.boot] = b

    def of_kind(kind):
        return sorted((b for b in boots.values() if boot_index(b.boot, kind) is not None),
                      key=lambda b: boot_index(b.boot, kind))
    mains = of_kind(MAIN)
    if not mains:
        raise InputError(f"no input from the '{MAIN}' boot (meta.boot '{MAIN}' or '{MAIN}-N')")
    return mains, boots.get(TIRQ), of_kind(TAP)


# ---------------------------------------------------------------- Table 1/2 cells

PING_STATS = {'mean': np.mean,
              'p50': lambda a: np.percentile(a, 50),
              'p99': lambda a: np.percentile(a, 99)}


def ping_stat(boot, mode, stat) -> Optional[Stat]:
    """Statistic over all samples pooled; spread = range of the per-round values."""
    by_round = defaultdict(list)
    for rec in boot.t1('ping', mode):
        by_round[rec['round']].extend(rec['samples_us'] or [])
    rounds = [np.asarray(s, dtype=float) for s in by_round.values() if s]
    if not rounds:
        return None
    f = PING_STATS[stat]
    per_round = [float(f(s)) for s in rounds]
    return Stat(float(f(np.concatenate(rounds))), min(per_round), max(per_round), len(rounds))


def t1_stat(boot, test, mode, path) -> Optional[Stat]:
    return median_spread(value(r, path) for r in boot.t1(test, mode))


def busy_stat(boot, test, mode) -> Optional[Stat]:
    idle = t1_stat(boot, test, mode, 'cpu.cpu0.idle')
    return None if idle is None else Stat(100 - idle.mid, 100 - idle.hi, 100 - idle.lo, idle.n)


def cpu_split(boot, test, mode) -> Optional[str]:
    meds = [t1_stat(boot, test, mode, 'cpu.cpu0.' + f) for f in CPU_FIELDS]
    if all(m is None for m in meds):
        return None
    return '/'.join(fmt(mid(m), 1) for m in meds)


def thread_sums(boot, test, mode):
    """{prefix: Stat of the per-round sums}; None when no record has thread data."""
    recs = [r for r in boot.t1(test, mode) if isinstance(r['threads'], dict)]
    if not recs:
        return None
    sums = {}
    for prefix in THREAD_PREFIXES:
        if any(name.startswith(prefix) for r in recs for name in r['threads']):
            sums[prefix] = median_spread(
                sum(v or 0 for name, v in r['threads'].items() if name.startswith(prefix))
                for r in recs)
    return sums


def threads_cell(boot, test, mode) -> Optional[str]:
    sums = thread_sums(boot, test, mode)
    if sums is None:
        return None
    return ', '.join(f'{p.rstrip("/")} {fmt(s.mid, 1)}' for p, s in sums.items()) or 'none'


class Row(NamedTuple):
    label: str
    cell: Callable          # (boot, mode) -> Stat | str | None
    digits: Optional[int] = None
    has_ratio: bool = True


class Col(NamedTuple):
    label: str
    boot: Optional[Boot]
    mode: str


class RatioCol(NamedTuple):
    label: str
    num: Col
    den: Col


def table1_rows():
    rows = [Row(f'ping RTT {s} (us)', lambda b, m, s=s: ping_stat(b, m, s))
            for s in ('mean', 'p50', 'p99')]
    rows += [Row(f'sockperf ping-pong {t[3:]} RTT {p} (us)',
                 lambda b, m, t=t, p=p: t1_stat(b, t, m, f'{p}_us'))
             for t in PP_TESTS for p in ('p50', 'p99')]
    rows.append(Row('iperf max throughput (Gbit/s)',
                    lambda b, m: scaled(t1_stat(b, 'iperf_max', m, 'bps'), 1e-9), 2))
    for t in IPERF_TESTS:
        lab = f'iperf {IPERF_LABEL[t]}:'
        if t != 'iperf_max':
            rows.append(Row(f'{lab} achieved (Gbit/s)',
                            lambda b, m, t=t: scaled(t1_stat(b, t, m, 'bps'), 1e-9), 2))
        rows += [Row(f'{lab} CPU0 busy %', lambda b, m, t=t: busy_stat(b, t, m), 1),
                 Row(f'{lab} CPU0 usr/sys/softirq/irq/idle %',
                     lambda b, m, t=t: cpu_split(b, t, m), has_ratio=False),
                 Row(f'{lab} NAPI threads (% of a CPU)',
                     lambda b, m, t=t: threads_cell(b, t, m), has_ratio=False)]
    return rows


def t2_stat(boot, mode, key, k=1.0) -> Optional[Stat]:
    return scaled(median_spread(r[key] for r in boot.t2(mode)), k)


# the profile counts some t2 records carry (7.3 runs): per second of the
# cyclictest run ('secs'), summed over the paths given
T2_RATES = (('context switches per second (all CPUs)', ('sched.ctxt',)),
            ('NET_RX softirqs on CPU0 per second', ('sched.net_rx_cpu0',)),
            ('NET_RX softirqs per second (all CPUs)', ('sched.net_rx',)),
            ('SUT NIC interrupts per second (RX+TX)', ('irqs_rx', 'irqs_tx')))


def per_second(rec, paths) -> Optional[float]:
    secs = value(rec, 'secs')
    counts = [value(rec, p) for p in paths]
    if not isinstance(secs, (int, float)) or secs <= 0 \
            or not all(isinstance(c, (int, float)) for c in counts):
        return None
    return sum(counts) / secs


def idle_note(boot) -> str:
    """the sentence on cyclictest without a flood (7.3 runs: once a round,
    no mode set), the floor TCG itself puts under the flooded numbers"""
    recs = boot.records['t2_idle']
    if not recs:
        return ''
    mx = median_spread(r['max_us'] for r in recs)
    p99 = median_spread(r['p99_us'] for r in recs)
    return (f'Without a flood (once a round, no traffic): max {fmt_stat(mx, 0)} us, '
            f'p99 {fmt_stat(p99, 0)} us: what TCG alone does to it, the floor to read the '
            'flooded rows against.')


def t2_rate(boot, mode, paths) -> Optional[Stat]:
    return median_spread(per_second(r, paths) for r in boot.t2(mode))


def table2_rows(boot=None):
    """the rate rows only when BOOT's t2 records carry their counts"""
    rows = [Row('max latency (us)', lambda b, m: t2_stat(b, m, 'max_us')),
            Row('p99 latency (us)', lambda b, m: t2_stat(b, m, 'p99_us')),
            Row('overflows', lambda b, m: t2_stat(b, m, 'overflows'), 0),
            Row('RX flood (Gbit/s)', lambda b, m: t2_stat(b, m, 'flood_bps', 1e-9), 2)]
    recs = boot.records['t2'] if boot else []
    rows += [Row(label, lambda b, m, paths=paths: t2_rate(b, m, paths))
             for label, paths in T2_RATES
             if any(get_path(r, p)[0] for r in recs for p in paths)]
    return rows


# ---------------------------------------------------------------- Markdown

def markdown_table(headers, rows) -> str:
    lines = ['| ' + ' | '.join(headers) + ' |',
             '|' + '|'.join('---' for _ in headers) + '|']
    lines += ['| ' + ' | '.join(r) + ' |' for r in rows]
    return '\n'.join(lines)


def build_table(row_header, rows, ratio_cols, cols):
    """Markdown for rows x (ratio columns, then value columns), plus the rounds seen."""
    out, rounds = [], []
    for row in rows:
        cache = {}

        def cell(col):
            key = (id(col.boot), col.mode)
            if key not in cache:
                cache[key] = row.cell(col.boot, col.mode) if col.boot else None
            return cache[key]

        cells = [row.label]
        cells += [fmt_ratio(ratio(cell(rc.num), cell(rc.den))) if row.has_ratio else '-'
                  for rc in ratio_cols]
        for col in cols:
            v = cell(col)
            if isinstance(v, Stat):
                rounds.append(v.n)
            cells.append(fmt_cell(v, row.digits))
        out.append(cells)
    headers = [row_header] + [rc.label for rc in ratio_cols] + [c.label for c in cols]
    return markdown_table(headers, out), rounds


def rounds_note(rounds) -> str:
    if not rounds:
        return ''
    lo, hi = min(rounds), max(rounds)
    n = str(lo) if lo == hi else f'{lo}-{hi} (fewer for some cells)'
    return f'Rounds per cell: {n}.'


def image(name, alt):
    return f'![{alt}]({name})'


# ---------------------------------------------------------------- plots

def _save(fig, path):
    fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches='tight')
    plt.close(fig)


def _yerr(stats):
    return [[max(0.0, s.mid - s.lo) if s else 0 for s in stats],
            [max(0.0, s.hi - s.mid) if s else 0 for s in stats]]


def grouped_bars(path, title, ylabel, groups, series, log=False) -> bool:
    """series: [(label, [Stat|None per group])]. False (no file) when all is empty."""
    if not any(s for _, stats in series for s in stats):
        return False
    fig, ax = plt.subplots(figsize=(max(6.5, 1.9 * len(groups)), 4.5))
    x = np.arange(len(groups))
    width = 0.8 / len(series)
    for i, (label, stats) in enumerate(series):
        pos = x - 0.4 + width * (i + 0.5)
        have = [(p, s) for p, s in zip(pos, stats) if s is not None]
        ax.bar([p for p, _ in have], [s.mid for _, s in have], width,
               yerr=_yerr([s for _, s in have]), capsize=3, color=f'C{i}')
        for p, s in zip(pos, stats):
            if s is None:
                ax.text(p, 0.02, 'n/a', transform=ax.get_xaxis_transform(),
                        rotation=90, ha='center', va='bottom', fontsize=8, color='grey')
    ax.set_xticks(x, groups)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if log:
        ax.set_yscale('log')
    ax.grid(axis='y', alpha=0.3, which='both' if log else 'major')
    # explicit handles: a series without any bar still gets its own colour
    ax.legend(handles=[Patch(color=f'C{i}', label=label) for i, (label, _) in enumerate(series)],
              fontsize=9)
    _save(fig, path)
    return True


def load_lines(path, title, ylabel, loads, series, log=False) -> bool:
    """series: [(case, [Stat|None per load])], one line per case, load on x."""
    if not any(s for _, stats in series for s in stats):
        return False
    fig, ax = plt.subplots(figsize=(max(7.5, 1.5 * len(loads) + 4), 5))
    colors = plt.get_cmap('tab10')
    markers = 'osD^v<>ph*X'
    n = len(series)
    for i, (label, stats) in enumerate(series):
        pts = [(j, s) for j, s in enumerate(stats) if s is not None]
        if not pts:
            continue
        xs = [j + (i - (n - 1) / 2) * 0.015 for j, _ in pts]     # keep error bars apart
        ss = [s for _, s in pts]
        knapid = label.endswith('+knapid')
        ax.errorbar(xs, [s.mid for s in ss], yerr=_yerr(ss), capsize=3,
                    color=colors(T3_CASES.index(label.replace('+knapid', '')) % 10
                                 if label.replace('+knapid', '') in T3_CASES else i % 10),
                    linestyle='--' if knapid else '-', marker=markers[i % len(markers)],
                    label=label)
    ax.set_xticks(range(len(loads)), loads)
    ax.set_xlim(-0.5, len(loads) - 0.5)
    ax.set_xlabel('offered load')
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if log:
        ax.set_yscale('log')
    ax.grid(alpha=0.3)
    if log:
        ax.grid(alpha=0.1, which='minor')
    ax.legend(fontsize=8, loc='center left', bbox_to_anchor=(1.01, 0.5))
    _save(fig, path)
    return True


def spans_decades(series, factor=100.0) -> bool:
    vals = [v for _, stats in series for s in stats if s
            for v in (s.mid, s.lo, s.hi) if v > 0]
    return bool(vals) and max(vals) / min(vals) > factor


# ---------------------------------------------------------------- sections

def meta_get(boot, key):
    v = boot.meta.get(key) if boot else None
    return 'n/a' if v is None or v == '' else str(v)


def text_item(label, text):
    if '\n' in text:
        return [f'- **{label}:**', '', '```', text.rstrip('\n'), '```', '']
    return [f'- **{label}:** {text}']


def calibration_text(boot) -> str:
    cal = boot.calibration
    parts = []
    s = scaled(median_spread(cal.get('iperf_max_softirq_bps') or []), 1e-9)
    if s:
        parts.append(f'softirq iperf max {fmt_stat(s, 2)} Gbit/s over {s.n} runs')
    rates = cal.get('rates_bps') or {}
    if rates:
        parts.append('fixed rates ' + ', '.join(f'{k} = {fmt(v / 1e9 if v is not None else None, 3)} Gbit/s'
                                                for k, v in rates.items()))
    s = scaled(median_spread(cal.get('t3_base_max_mps') or []), 1e-3)
    if s:
        parts.append(f'Table 3 base max {fmt_stat(s, 1)} K msg/s over {s.n} runs')
    return '; '.join(parts) or 'n/a'


def header(main, tirq, outdir, tap=None):
    m = main.meta
    mains = main.parts      # MAIN pools them when there are several
    quick = {True: 'quick', False: 'full'}.get(m.get('quick'), 'n/a')
    pool = (f'; the tables pool the {len(mains)} main boots listed below (all their rounds '
            f'together), the goals take each alone' if len(mains) > 1 else '')
    lines = ['# knapid and IRQ suspension benchmark', '']
    lines += [f'- **Kernel:** {meta_get(main, "kernel")}, commit {meta_get(main, "commit")}',
              f'- **Accelerator:** {meta_get(main, "accel")}, {meta_get(main, "vcpus")} vCPUs',
              f'- **Run:** {quick}, {meta_get(main, "rounds")} rounds, '
              f'{meta_get(main, "secs")} s per measurement{pool}',
              f'- **Started / finished:** {meta_get(main, "started")} / '
              f'{meta_get(mains[-1], "finished")}']
    lines += text_item('Topology', meta_get(main, 'topology'))
    lines += text_item('Pinning', meta_get(main, 'pinning'))
    for b in mains + [tirq]:
        if b:
            lines.append(f'- **{b.boot} boot:** `{b.file}`, command line `{meta_get(b, "cmdline")}`'
                         + (f', {meta_get(b, "started")} / {meta_get(b, "finished")}'
                            if b is tirq or len(mains) > 1 else ''))
    if not tirq:
        lines.append('- **threadirqs boot:** not supplied (its columns read n/a)')
    for b in mains:
        lines.append(f'- **Calibration ({b.boot} boot):** {calibration_text(b)}')
    present = '' if os.path.exists(os.path.join(outdir, 'commands.txt')) else \
        ' (not present when this report was written)'
    lines.append(f'- **Command lines:** every command run is in [commands.txt](commands.txt), '
                 f'next to this report{present}.')
    if tirq:
        for key in ('kernel', 'commit', 'accel', 'vcpus', 'rounds', 'secs', 'quick'):
            if tirq.meta.get(key) != main.meta.get(key):
                lines.append(f'- **Warning:** {key} differs between the boots: '
                             f'main {meta_get(main, key)}, threadirqs {meta_get(tirq, key)}')
    for b in mains[1:]:
        for key in ('kernel', 'commit', 'accel', 'vcpus', 'rounds', 'secs', 'quick'):
            if b.meta.get(key) != main.meta.get(key):
                lines.append(f'- **Warning:** {key} differs between the main boots: '
                             f'main {meta_get(main, key)}, {b.boot} {meta_get(b, key)}')
    taps = tap.parts if tap else []     # TAP pools them when there are several
    for t in taps:
        if t.meta.get('kernel') != main.meta.get('kernel'):
            lines.append(f'- **Warning:** the {t.boot} boot ran another kernel: '
                         f'{meta_get(t, "kernel")}, main {meta_get(main, "kernel")}')
        if t.meta.get('commit') != main.meta.get('commit'):
            lines.append(f'- **{t.boot.capitalize()} boot:** harness commit '
                         f'{meta_get(t, "commit")}, kernel {meta_get(t, "kernel")} (Tables 1b and 2b)')
    for b in mains + [tirq] + taps:
        if b and b.unknown_tests:
            lines.append(f'- **Ignored:** unknown t1 tests in `{b.file}`: {", ".join(b.unknown_tests)}')
    lines += ['', 'Cells: median over rounds, then (min-max) across rounds. Ratio columns divide '
              'those medians. n/a = no data; - = no ratio for that row.', '']
    return lines


def moderate_load(loads):
    for load in ('40%', '60%'):
        if load in loads:
            return load
    return next((l for l in loads if l != 'MAX'), None)


def t3_loads(main):
    present = {load for _, load in main.t3_keys()}
    return [l for l in LOADS if l in present] + sorted(present - set(LOADS))


def t3_cases(main):
    present = {case for case, _ in main.t3_keys()}
    return [c for c in T3_CASES if c in present] + sorted(present - set(T3_CASES))


def t3_stat(main, case, load, key, k=1.0) -> Optional[Stat]:
    if load is None:
        return None
    return scaled(median_spread(r[key] for r in main.t3(case, load)), k)


class Goal(NamedTuple):
    text: str
    value: Optional[float]
    ok: Callable[[float], bool]
    detail: str
    unit: str = 'x'
    tap: bool = False       # computed from the tap boot, not the main boot


def goal_list(main, modload, tap=None):
    """the goals computed from MAIN (one main boot, or the pooled ones) and TAP"""
    def cmp(a, b, d=None, unit='us'):
        return f'({fmt(mid(a), d)} vs {fmt(mid(b), d)} {unit})'

    # throughput and CPU at fixed rates: from the boot whose generator can
    # saturate the SUT, the tap boot, when it ran
    thr, where = (tap, ', tap boot') if tap and tap.ran('t1') else (main, '')
    on_tap = thr is tap
    p50 = {m: ping_stat(main, m, 'p50') for m in ('knapid', 'softirq')}
    bps = {m: scaled(t1_stat(thr, 'iperf_max', m, 'bps'), 1e-9) for m in ('knapid', 'softirq')}
    cyc = {m: t2_stat(main, m, 'max_us') for m in ('softirq', 'knapid')}
    goals = [Goal('knapid ping p50 within 5% of softirq (ratio <= 1.05)',
                  ratio(p50['knapid'], p50['softirq']), lambda r: r <= 1.05,
                  cmp(p50['knapid'], p50['softirq'])),
             Goal(f'knapid max throughput >= softirq (ratio >= 1.00{where})',
                  ratio(bps['knapid'], bps['softirq']), lambda r: r >= 1.0,
                  cmp(bps['knapid'], bps['softirq'], 2, 'Gbit/s'), tap=on_tap)]
    for t in ('iperf_50', 'iperf_5'):
        busy = {m: busy_stat(thr, t, m) for m in ('knapid', 'softirq')}
        goals.append(Goal(f'knapid CPU0 busy at {IPERF_LABEL[t]} rate <= 1.1x softirq{where}',
                          ratio(busy['knapid'], busy['softirq']), lambda r: r <= 1.1,
                          cmp(busy['knapid'], busy['softirq'], 1, '%'), tap=on_tap))
    goals.append(Goal('cyclictest max >= 5x lower with knapid (softirq/knapid >= 5)',
                      ratio(cyc['softirq'], cyc['knapid']), lambda r: r >= 5,
                      cmp(cyc['softirq'], cyc['knapid'])))
    # the bounds of knapid's design review (issue knapid-design): no cost on
    # the container path, the flood's NET_RX still off the cyclictest CPU,
    # and the tap boot's throughput and CPU near softirq
    for t in PP_TESTS:
        pp = {m: t1_stat(main, t, m, 'p50_us') for m in ('knapid', 'softirq')}
        goals.append(Goal(f'design: knapid ping-pong {t[3:]} p50 <= 1.05x softirq',
                          ratio(pp['knapid'], pp['softirq']), lambda r: r <= 1.05,
                          cmp(pp['knapid'], pp['softirq'])))
    netrx = {m: median_spread(per_second(r, ('sched.net_rx_cpu0',)) for r in main.t2(m))
             for m in ('knapid', 'softirq')}
    goals.append(Goal('design: knapid NET_RX softirqs on CPU0 under the flood <= 0.2x softirq',
                      ratio(netrx['knapid'], netrx['softirq']), lambda r: r <= 0.2,
                      cmp(netrx['knapid'], netrx['softirq'], 0, '/s')))
    goals.append(Goal(f'design: knapid max throughput >= 0.97x softirq{where}',
                      ratio(bps['knapid'], bps['softirq']), lambda r: r >= 0.97,
                      cmp(bps['knapid'], bps['softirq'], 2, 'Gbit/s'), tap=on_tap))
    busy5 = {m: busy_stat(thr, 'iperf_5', m) for m in ('knapid', 'softirq')}
    goals.append(Goal(f'design: knapid CPU0 busy at {IPERF_LABEL["iperf_5"]} rate <= 1.15x '
                      f'softirq{where}',
                      ratio(busy5['knapid'], busy5['softirq']), lambda r: r <= 1.15,
                      cmp(busy5['knapid'], busy5['softirq'], 1, '%'), tap=on_tap))

    def t3(case, key, load=modload, k=1.0):
        return t3_stat(main, case, load, key, k)

    at = f'at {modload}' if modload else 'at a moderate load'
    goals += [
        Goal(f'suspend20 p99 <= 1.1x fullbusy {at}',
             ratio(t3('suspend20', 'p99_us'), t3('fullbusy', 'p99_us')), lambda r: r <= 1.1,
             cmp(t3('suspend20', 'p99_us'), t3('fullbusy', 'p99_us'))),
        Goal(f'suspend20 CPU0 busy <= defer20 + 5 points {at}',
             difference(t3('suspend20', 'cpu_busy'), t3('defer20', 'cpu_busy')), lambda d: d <= 5,
             cmp(t3('suspend20', 'cpu_busy'), t3('defer20', 'cpu_busy'), 1, '%'), ' points'),
        Goal('suspend20 MAX throughput >= 0.97x fullbusy MAX',
             ratio(t3('suspend20', 'achieved_mps', 'MAX'), t3('fullbusy', 'achieved_mps', 'MAX')),
             lambda r: r >= 0.97,
             cmp(t3('suspend20', 'achieved_mps', 'MAX', 1e-3),
                 t3('fullbusy', 'achieved_mps', 'MAX', 1e-3), 1, 'K msg/s')),
        Goal(f'suspend20 interrupts per request <= 0.2x base {at}, RX vector (the suspended queue)',
             ratio(t3('suspend20', 'irq_rx_per_req'), t3('base', 'irq_rx_per_req')),
             lambda r: r <= 0.2,
             cmp(t3('suspend20', 'irq_rx_per_req'), t3('base', 'irq_rx_per_req'), 3, 'irq/req')),
        Goal(f'suspend20 interrupts per request <= 0.2x base {at}, both vectors (RX + TX)',
             ratio(t3('suspend20', 'irq_per_req'), t3('base', 'irq_per_req')), lambda r: r <= 0.2,
             cmp(t3('suspend20', 'irq_per_req'), t3('base', 'irq_per_req'), 3, 'irq/req'))]
    return goals


def goal_value(g) -> str:
    """the measured ratio or point difference, "n/a" without data"""
    if g.value is None:
        return 'n/a'
    return (f'{g.value:+.2f}' if g.unit == ' points' else f'{g.value:.2f}') + g.unit


def goal_cells(g, note_t3):
    """[measured, met] of one goal"""
    if g.value is None:
        return ['n/a' + (f' ({note_t3})' if note_t3 and 'suspend' in g.text else ''), 'n/a']
    return [f'{goal_value(g)} {g.detail}', 'yes' if g.ok(g.value) else 'no']


def t3_note(main, modload):
    return 't3 not run' if not main.ran('t3') else (None if modload else 'no moderate load in t3')


def goal_rows(main, modload, note_t3, tap=None):
    return [[g.text] + goal_cells(g, note_t3) for g in goal_list(main, modload, tap)]


def verdict(goals) -> str:
    """over the boots' values of one goal: met, missed, undecided or n/a"""
    oks = [g.ok(g.value) for g in goals if g.value is not None]
    if not oks:
        return 'n/a'
    if all(oks) == any(oks):
        v = 'met' if all(oks) else 'missed'
        return v if len(oks) == len(goals) else f'{v} ({len(oks)} of {len(goals)} boots have data)'
    return 'undecided'


def goal_rows_per_boot(mains, modload, taps=()):
    """per goal: its text, each boot's measured and met, the verdict. A goal
    from the main boots has main boot i's value in column i, a goal from the
    tap boots tap boot i's (n/a for one without Table 1b); its verdict is
    over those boots. A single tap boot's verdict says so."""
    tap0 = next((t for t in taps if t.ran('t1')), None)    # decides which goals are the tap's
    per_boot = [goal_list(b, modload, tap0) for b in mains]
    per_tap = [[g if g.tap else g._replace(value=None) for g in goal_list(mains[0], modload, t)]
               for t in taps]
    cols = max(len(mains), len(taps))
    notes = [t3_note(b, modload) for b in mains] + [None] * (cols - len(mains))
    rows = []
    for i, g0 in enumerate(per_boot[0]):
        gs = [goals[i] for goals in (per_tap if g0.tap else per_boot)]
        cells = [c for g, note in zip(gs, notes) for c in goal_cells(g, note)]
        v = verdict(gs) + (' (tap boot, one boot)' if g0.tap and len(gs) == 1 else '')
        rows.append([g0.text] + cells + ['-', '-'] * (cols - len(gs)) + [v])
    return rows


def goals_section(main, tap=None):
    """MAIN and TAP: the main boots and the tap boots (None: none), each
    pooled when several"""
    loads = t3_loads(main)
    modload = moderate_load(loads)
    mains, taps = main.parts, (tap.parts if tap else [])
    if len(mains) == 1:
        pooled = f'; the {len(taps)} tap boots pooled, as there' if len(taps) > 1 else ''
        return ['## Goals', '',
                'Computed from the main boot, except the goals marked "tap boot" (Table 1b: '
                f'the generator native on the host, which saturates the SUT\'s vCPU{pooled}): '
                'ping p50 over all samples pooled across rounds, everything else medians over '
                'rounds; the Table 3 goals use the knapid=0 cases. '
                'The figures in brackets are the two values compared.', '',
                markdown_table(['goal', 'measured', 'met'],
                               goal_rows(main, modload, t3_note(main, modload), tap)), '']
    if len(taps) > 1:
        where = ', '.join(f'{t.boot} in {b.boot}\'s' for t, b in zip(taps, mains))
        where += ''.join(f', {t.boot} in its own' for t in taps[len(mains):])
        tap_cols = (f'which come from each of the {len(taps)} tap boots alone, tap boot i in '
                    f'the columns of main boot i ({where}), their verdict over the tap boots')
    else:
        tap_cols = 'which have one value, shown in the first boot\'s columns'
    names = [b.boot for b in mains] + [t.boot for t in taps[len(mains):]]
    head = ['goal'] + [f'{b}: {c}' for b in names for c in ('measured', 'met')] + ['verdict']
    return ['## Goals', '',
            f'Computed from each of the {len(mains)} main boots alone (one pair of columns per '
            'boot; the tables below pool them), except the goals marked "tap boot" (Table 1b: '
            f'the generator native on the host, which saturates the SUT\'s vCPU), {tap_cols}. '
            'Ping p50 over all samples pooled across a boot\'s rounds, everything else medians '
            'over rounds; the Table 3 goals use the knapid=0 cases, at the load named for the '
            'pooled boots. The figures in brackets are the two values compared. Verdict: met '
            'if every boot met the goal, missed if every boot missed it, undecided if they '
            'disagree, n/a without data.', '',
            markdown_table(head, goal_rows_per_boot(mains, modload, taps)), '']


def table1_section(main, tirq, outdir):
    cols = mode_columns(main, tirq)
    ratios = mode_ratios(cols) + [RatioCol('threadirqs/softirq (threadirqs boot)', cols[-1],
                                           Col('', tirq, 'softirq'))]
    lines = ['## Table 1: knapid (seed 000)', '']
    if not main.ran('t1'):
        return lines + ['not run', '']
    table, rounds = build_table('measurement', table1_rows(), ratios, cols)
    lines += [table, '', rounds_note(rounds) + ' Ping rows: statistic over all samples of the '
              'mode pooled across rounds; the spread is the range of the per-round values. '
              'CPU split: medians of usr/sys/softirq/irq/idle. NAPI threads: median per-round '
              'sum of the CPU share of the threads named knapid/*, napi/*, ksoftirqd/*, irq/*.', '',
              'The threadirqs column comes from the threadirqs boot; its ratio is against '
              'that boot\'s softirq, not the softirq column shown here.', '']
    if main.has_mode(BUSYPOLL):
        lines += [MODES_NOTE, '']
    lost = ping_loss(main, [c.mode for c in cols[:-1]]) + ping_loss(tirq, ('threadirqs',))
    if lost:
        lines += ['Ping packets lost (all rounds): ' + ', '.join(lost) + '.', '']
    lines += [SEED000_NOTE, '']
    lines += table1_plots(main, tirq, outdir)
    return lines


def tap_boot_line(label, b):
    return (f'- **{label}:** `{b.file}`, kernel {meta_get(b, "kernel")}, harness commit '
            f'{meta_get(b, "commit")}, {meta_get(b, "rounds")} rounds of '
            f'{meta_get(b, "secs")} s, {meta_get(b, "started")} / {meta_get(b, "finished")}; '
            f'calibration {calibration_text(b)}')


def tap_section(tap, outdir):
    """Tables 1b and 2b: the NIC rows again, the generator on the host; TAP
    pools the tap boots when there are several"""
    lines = ['## Table 1b and 2b: the load generator native on the host, through a tap', '']
    if tap is None:
        return lines + ['not run (no result of the tap boot: it is in the full run, not QUICK=1)', '']
    cols = mode_columns(tap)
    ratios = mode_ratios(cols)
    tests = {t for t, _ in tap._t1}
    rows = [r for r in table1_rows() if not any(p in r.label for p in ('veth', ' lo '))]
    lines += text_item('Topology', meta_get(tap, 'topology'))
    lines += text_item('Pinning', meta_get(tap, 'pinning'))
    if len(tap.parts) == 1:
        lines += [tap_boot_line('Boot', tap)]
    else:
        lines += [f'- **Boots:** the {len(tap.parts)} tap boots below, pooled: every cell of '
                  'Tables 1b and 2b takes all their rounds together']
        lines += [tap_boot_line(f'{b.boot} boot', b) for b in tap.parts]
    these = 'this boot decides' if len(tap.parts) == 1 else 'these boots decide'
    lines += ['', 'Why: the in-guest generator shares the host\'s two cores with the SUT\'s vCPU '
              'and is emulated as slowly, so it cannot saturate the SUT (Table 1\'s CPU0 at '
              f'max stays well below 100%). A generator native on the host can: {these} the '
              'throughput and fixed-rate CPU goals. Its ping and ping-pong go through the tap '
              'and QEMU\'s event loop, so they are not comparable with Table 1\'s.', '']
    if not tests:
        return lines + ['Table 1b not run', '']
    table, rounds = build_table('measurement', rows, ratios, cols)
    lines += ['### Table 1b', '', table, '', rounds_note(rounds), '']
    if tap.has_mode(BUSYPOLL):
        lines += [MODES_NOTE, '']
    if tap.ran('t2'):
        table, rounds = build_table('measurement', table2_rows(tap), mode_ratios(cols, True),
                                    cols)
        lines += ['### Table 2b: cyclictest (SCHED_FIFO, CPU0) under the host\'s RX flood', '',
                  table, '', rounds_note(rounds) + ' Ratios are softirq/mode.', '']
        if note := idle_note(tap):
            lines += [note, '']
    series = [(c.label, [busy_stat(tap, t, c.mode) for t in IPERF_TESTS]) for c in cols]
    if grouped_bars(os.path.join(outdir, 't1b_tap.png'),
                    'Table 1b: CPU0 busy during iperf, host generator',
                    'CPU0 busy % (100 - idle)', [f'iperf {IPERF_LABEL[t]}' for t in IPERF_TESTS],
                    series):
        lines += [image('t1b_tap.png', 'Table 1b CPU'), '']
    return lines


def mode_columns(boot, *tirq):
    """the columns of Tables 1 and 2: the modes of BOOT (busypoll only when
    BOOT has it), then threadirqs from its own boot for each TIRQ given
    (None: a column of n/a)"""
    modes = ('softirq', 'knapid', 'threaded') + ((BUSYPOLL,) if boot.has_mode(BUSYPOLL) else ())
    return [Col(m, boot, m) for m in modes] + [Col('threadirqs', t, 'threadirqs') for t in tirq]


def mode_ratios(cols, inverse=False):
    """ratio columns mode/softirq (softirq/mode when INVERSE) for each mode of
    COLS but softirq and threadirqs, whose ratio needs its own boot's softirq"""
    soft = cols[0]
    return [RatioCol(f'softirq/{c.label}', soft, c) if inverse else
            RatioCol(f'{c.label}/softirq', c, soft)
            for c in cols[1:] if c.mode != TIRQ]


MODES_NOTE = ('Modes: softirq = NET_RX softirq; knapid = the knapid/N threads; threaded = '
              'per-NAPI threaded: napi-set threaded enabled (the SUT NAPI\'s own thread); '
              'busypoll = threaded busy poll: napi-set threaded busy-poll, a kthread spinning '
              'on the SUT\'s NAPI.')


def ping_loss(boot, modes):
    out = []
    for mode in modes:
        recs = boot.t1('ping', mode) if boot else []
        if recs and all('lost' in r for r in recs):
            sent = sum(len(r['samples_us'] or []) + (r['lost'] or 0) for r in recs)
            out.append(f'{mode} {sum(r["lost"] or 0 for r in recs)} of {sent}')
    return out


def mode_series(main, tirq):
    return [(c.label + (' (own boot)' if c.mode == TIRQ else ''), c.boot, c.mode)
            for c in mode_columns(main, tirq)]


def table1_plots(main, tirq, outdir):
    lat = [('ping', lambda b, m: ping_stat(b, m, 'p50'))]
    lat += [(f'sockperf {t[3:]}', lambda b, m, t=t: t1_stat(b, t, m, 'p50_us')) for t in PP_TESTS]
    lines = []
    series = [(label, [f(b, m) if b else None for _, f in lat]) for label, b, m in mode_series(main, tirq)]
    if grouped_bars(os.path.join(outdir, 't1_latency.png'), 'Table 1: round-trip time p50 per mode',
                    'RTT p50 (us)', [name for name, _ in lat], series):
        lines += [image('t1_latency.png', 'Table 1 latency'), '']
    series = [(label, [busy_stat(b, t, m) if b else None for t in IPERF_TESTS])
              for label, b, m in mode_series(main, tirq)]
    if grouped_bars(os.path.join(outdir, 't1_cpu.png'), 'Table 1: CPU0 busy during iperf',
                    'CPU0 busy % (100 - idle)', [f'iperf {IPERF_LABEL[t]}' for t in IPERF_TESTS], series):
        lines += [image('t1_cpu.png', 'Table 1 CPU'), '']
    return lines


def table2_section(main, tirq, outdir):
    cols = mode_columns(main, tirq)
    ratios = mode_ratios(cols, True) + [RatioCol('softirq/threadirqs (threadirqs boot)',
                                                 Col('', tirq, 'softirq'), cols[-1])]
    lines = ['## Table 2: cyclictest (SCHED_FIFO, CPU0) while RX is flooded', '']
    if not main.ran('t2'):
        return lines + ['not run', '']
    table, rounds = build_table('measurement', table2_rows(main), ratios, cols)
    lines += [table, '', rounds_note(rounds) + ' Ratios are softirq/mode: above 1 means the '
              'mode is lower. The threadirqs ratio uses the threadirqs boot\'s softirq.', '']
    if note := idle_note(main):
        lines += [note, '']
    series = [(label, [t2_stat(b, m, k) if b else None for k in ('max_us', 'p99_us')])
              for label, b, m in mode_series(main, tirq)]
    if grouped_bars(os.path.join(outdir, 't2_cyclictest.png'),
                    'Table 2: cyclictest latency on CPU0 under RX flood', 'latency (us, log)',
                    ['max', 'p99'], series, log=True):
        lines += [image('t2_cyclictest.png', 'Table 2 cyclictest'), '']
    return lines


def t3_vs_base(main, case, load, key) -> Optional[float]:
    """Table 3's "vs base" ratio of CASE at LOAD"""
    return ratio(t3_stat(main, case, load, key), t3_stat(main, 'base', load, key))


def t3_table(main, load, cases):
    """Markdown sub-table for one load, plus the rounds behind its cells."""
    rows, rounds = [], []
    for case in cases:
        s = {k: t3_stat(main, case, load, k) for k in T3_METRICS + ('irq_rx_per_req',)}
        rounds += [v.n for v in s.values() if v]
        rows.append([case]
                    + [fmt_ratio(t3_vs_base(main, case, load, k))
                       for k in ('p99_us', 'irq_per_req', 'irq_rx_per_req')]
                    + [fmt_stat(scaled(s['achieved_mps'], 1e-3), 1),
                       fmt_stat(s['mean_us']), fmt_stat(s['p95_us']), fmt_stat(s['p99_us']),
                       fmt_stat(s['cpu_busy'], 1), fmt_stat(s['irq_per_req'], 3),
                       fmt_stat(s['irq_rx_per_req'], 3)])
    return markdown_table(['case', 'p99 vs base', 'irq/req vs base', 'RX irq/req vs base',
                           'achieved (K msg/s)', 'mean (us)', 'p95 (us)', 'p99 (us)',
                           'CPU0 busy %', 'interrupts/request (RX+TX)',
                           'RX interrupts/request'], rows), rounds


def load_heading(main, load):
    targets = median_spread(r.get('target_mps') for c, l in main.t3_keys()
                            if l == load for r in main.t3(c, l))
    what = f'target {fmt(targets.mid / 1e3, 1)}K msg/s' if targets else 'no target rate'
    return f'### Load {load} ({what})'


def dropped_note(main, load, cases):
    drops = [(c, sum(r.get('dropped') or 0 for r in main.t3(c, load))) for c in cases]
    drops = [f'{c} {d}' for c, d in drops if d]
    return [f'Dropped requests (sum over rounds): {", ".join(drops)}.', ''] if drops else []


def table3_section(main, outdir):
    lines = ['## Table 3: IRQ suspension (seed 001)', '']
    if not main.ran('t3'):
        return lines + ['not run', '']
    loads, cases = t3_loads(main), t3_cases(main)
    who = 'Main boot' if len(main.parts) == 1 else f'The {len(main.parts)} main boots pooled'
    lines += [f'{who}, one sub-table per offered load. Ratios are against base at the same '
              'load. "+knapid" = the case run with knapid enabled. Requests: sockperf '
              'under-load, open loop, 64-byte UDP; every 10th request is answered and '
              'timed (RTT). Achieved = datagrams the server\'s socket got per second. '
              'Interrupts per request count both MSI-X vectors of the SUT\'s NIC (RX, '
              'which suspension masks, and TX completions) against the packets it received.',
              '']
    if 'busypoll20' in cases:
        lines += ['busypoll20: suspend20\'s parameters with the SUT\'s NAPI in threaded busy '
                  'poll (napi-set threaded busy-poll), knapid off.', '']
    for load in loads:
        table, rounds = t3_table(main, load, cases)
        lines += [load_heading(main, load), '', table, '', rounds_note(rounds), '']
        lines += dropped_note(main, load, cases)
    lines += [SEED001_NOTE, '']
    plots = [('t3_latency.png', 'p99_us', 'p99 latency (us)', 'Table 3: p99 latency vs load'),
             ('t3_cpu.png', 'cpu_busy', 'CPU0 busy %', 'Table 3: CPU0 busy vs load'),
             ('t3_irq_per_req.png', 'irq_per_req', 'interrupts per request',
              'Table 3: interrupts per request vs load')]
    for name, key, ylabel, title in plots:
        series = [(c, [t3_stat(main, c, l, key) for l in loads]) for c in cases]
        log = key == 'irq_per_req' and spans_decades(series)
        if load_lines(os.path.join(outdir, name), title, ylabel + (' (log)' if log else ''),
                      loads, series, log=log):
            lines += [image(name, title), '']
    return lines


# ---------------------------------------------------------------- the other base

class Base(NamedTuple):
    """one kernel base's results for the side-by-side section"""
    main: Boot              # its main boots pooled
    tap: Optional[Boot]     # its tap boots pooled
    where: str              # where they come from


def load_base(d) -> Base:
    """the results in an earlier report directory D: result-main.json and any
    result-main-N.json (at least one), and result-tap.json and any
    result-tap-N.json when there"""
    if not os.path.isdir(d):
        raise InputError(f'--compare {d}: not a directory')
    paths = sorted(glob.glob(os.path.join(d, 'result-main.json'))
                   + glob.glob(os.path.join(d, 'result-main-[0-9]*.json')))
    if not paths:
        raise InputError(f'--compare {d}: no result-main.json or result-main-N.json in it')
    paths += sorted(glob.glob(os.path.join(d, 'result-tap.json'))
                    + glob.glob(os.path.join(d, 'result-tap-[0-9]*.json')))
    try:
        mains, _, taps = load_boots(paths)
    except InputError as e:
        raise InputError(f'--compare {d}: {e}')
    return Base(Boot.pooled(mains), Boot.pooled(taps), d)


T1_COMPARED = ('ping RTT p50 (us)', 'sockperf ping-pong virtio RTT p50 (us)',
               'sockperf ping-pong veth RTT p50 (us)', 'sockperf ping-pong lo RTT p50 (us)',
               'iperf max throughput (Gbit/s)', 'iperf 50%: CPU0 busy %', 'iperf 5%: CPU0 busy %')
T2_COMPARED = ('max latency (us)', 'p99 latency (us)')


def compare_rows(base):
    """[(measurement, cell)] of one base, the same rows in the same order for
    any base: the goals, then Table 1, 2 and 3 ratios as those tables compute them"""
    main = base.main
    modload = moderate_load(t3_loads(main))
    out = []
    for g in goal_list(main, modload, base.tap):
        met = '' if g.value is None else ' (met)' if g.ok(g.value) else ' (missed)'
        out.append((f'goal: {g.text}', goal_value(g) + met))
    t1 = {r.label: r for r in table1_rows()}
    for mode in ('knapid', 'threaded'):
        for label in T1_COMPARED:
            cell = t1[label].cell
            out.append((f'Table 1 {mode}/softirq: {label}',
                        fmt_ratio(ratio(cell(main, mode), cell(main, 'softirq')))))
    t2 = {r.label: r for r in table2_rows()}
    for label in T2_COMPARED:
        cell = t2[label].cell
        out.append((f'Table 2 softirq/knapid: cyclictest {label}',
                    fmt_ratio(ratio(cell(main, 'softirq'), cell(main, 'knapid')))))
    at = modload or 'a moderate load (none in t3)'
    for key, what in (('p99_us', 'p99 vs base'), ('irq_per_req', 'irq/req vs base'),
                      ('irq_rx_per_req', 'RX irq/req vs base')):
        out.append((f'Table 3 at {at}: suspend20 {what}',
                    fmt_ratio(t3_vs_base(main, 'suspend20', modload, key))))
    return out


def base_line(label, base):
    m = base.main
    files = ', '.join(f'`{b.file}`' for b in m.parts + (base.tap.parts if base.tap else []))
    return (f'- **{label}:** {base.where}: kernel {meta_get(m, "kernel")}, commit '
            f'{meta_get(m, "commit")}, {len(m.parts)} main boot(s) of {meta_get(m, "rounds")} '
            f'rounds, {meta_get(m, "started")} / {meta_get(m.parts[-1], "finished")}; {files}'
            + ('' if base.tap else '; no tap boot'))


def compare_section(this, other):
    """the goal values and main ratios of the OTHER base next to THIS one's"""
    left, right = compare_rows(other), compare_rows(this)
    heads = [meta_get(other.main, 'kernel'), meta_get(this.main, 'kernel')]
    if heads[0] == heads[1]:
        heads = [heads[0] + ' (compared)', heads[1] + ' (this report)']
    rows = []
    for (label_o, cell_o), (label, cell) in zip(left, right):
        if label_o != label:    # another moderate load, or no tap boot there
            cell_o += f' (there: "{label_o}")'
        rows.append([label, cell_o, cell])
    taps = ('tap boots (pooled when several) when that base has them'
            if any(b.tap and len(b.tap.parts) > 1 for b in (this, other))
            else 'tap boot when that base has one')
    return ['## Both bases: the ratios side by side', '',
            'Each column is computed from its own base\'s results exactly as in the sections '
            'of its report: the goals (value, then met or missed) and Tables 1 and 2 from the '
            'main boots (pooled when several), the throughput and fixed-rate CPU goals from the '
            f'{taps}, Table 3 at that base\'s moderate load. The bases are compared by the '
            'ratios each measured within its own run, not by absolute numbers. threaded is the '
            'per-device sysfs switch on a kernel without napi-set threaded (6.12), napi-set '
            'threaded enabled on one with it (7.3).', '',
            base_line('Left column', other), base_line('Right column', this), '',
            markdown_table(['measurement'] + heads, rows), '']


def write_report(outdir, main, tirq, tap=None, other=None):
    """MAIN, TAP: the main and the tap boots, each pooled when several (TAP
    None: no tap boot); OTHER: the Base of the other kernel (--compare), or None"""
    os.makedirs(outdir, exist_ok=True)
    for name in PLOTS:      # a plot left from an earlier run would mislead
        try:
            os.remove(os.path.join(outdir, name))
        except FileNotFoundError:
            pass
    lines = header(main, tirq, outdir, tap)
    lines += goals_section(main, tap)
    if other:
        lines += compare_section(Base(main, tap, 'this report'), other)
    lines += table1_section(main, tirq, outdir)
    lines += table2_section(main, tirq, outdir)
    lines += tap_section(tap, outdir)
    lines += table3_section(main, outdir)
    with open(os.path.join(outdir, 'report.md'), 'w') as f:
        f.write('\n'.join(lines).rstrip('\n') + '\n')


def main(argv):
    ap = argparse.ArgumentParser(prog=os.path.basename(argv[0]),
                                 description='Write OUTDIR/report.md from bench results.')
    ap.add_argument('--compare', metavar='DIR',
                    help='an earlier report directory of the other kernel base')
    ap.add_argument('outdir', metavar='OUTDIR')
    ap.add_argument('results', metavar='RESULT.json', nargs='+')
    try:
        args = ap.parse_intermixed_args(argv[1:])
    except SystemExit as e:     # usage printed on stderr
        return e.code
    try:
        mains, tirq_boot, taps = load_boots(args.results)
        other = load_base(args.compare) if args.compare is not None else None
    except InputError as e:
        print(f'report.py: {e}', file=sys.stderr)
        return 1
    write_report(args.outdir, Boot.pooled(mains), tirq_boot, Boot.pooled(taps), other)
    print(os.path.join(args.outdir, 'report.md'))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
