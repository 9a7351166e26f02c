"""make bench's report and its parsers, on recorded or generated data."""
import pathlib
import shutil
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).parent
FIX = HERE / 'fixtures'
BENCH = HERE.parent.parent / 'bench'
PY = '/usr/bin/python3'   # the one with matplotlib
sys.path.insert(0, str(BENCH))

import guest_bench  # noqa: E402


def fake(tmp_path, *opts):
    subprocess.run([PY, str(FIX / 'bench_fake.py'), str(tmp_path), *opts], check=True)


def report(tmp_path, *files, opts=()):
    return subprocess.run([PY, str(BENCH / 'report.py'), *opts, str(tmp_path / 'out')]
                          + [str(tmp_path / f) for f in files], capture_output=True, text=True)


def section(md, start, end):
    return md.split(start)[1].split(end)[0]


def table_rows(text, first):
    """the cells of the Markdown rows in TEXT whose first cell is FIRST"""
    return [[c.strip() for c in line.strip('|').split('|')] for line in text.splitlines()
            if line.startswith(f'| {first} |')]


@pytest.fixture(scope='module')
def new73(tmp_path_factory):
    """the fake 7.3 run (three main boots, busypoll, profile counts, busypoll20,
    loads 20%/40%/MAX) reported with --compare against the fake 6.12 run"""
    tmp = tmp_path_factory.mktemp('bench73')
    fake(tmp, '--new')
    (tmp / 'old').mkdir()
    shutil.copy(tmp / 'main.json', tmp / 'old' / 'result-main.json')
    shutil.copy(tmp / 'tap.json', tmp / 'old' / 'result-tap.json')
    r = report(tmp, 'main73.json', 'main73-2.json', 'main73-3.json', 'threadirqs.json',
               'tap73.json', opts=('--compare', str(tmp / 'old')))
    assert r.returncode == 0, r.stderr
    return tmp, (tmp / 'out' / 'report.md').read_text()


@pytest.fixture(scope='module')
def taps73(tmp_path_factory):
    """the fake 7.3 run with its three tap boots (tap-3 misses the throughput
    goal tap and tap-2 meet), compared with a directory holding the same run"""
    tmp = tmp_path_factory.mktemp('bench73taps')
    fake(tmp, '--new')
    (tmp / 'old').mkdir()
    for src, dst in (('main73.json', 'main'), ('tap73.json', 'tap'), ('tap73-2.json', 'tap-2'),
                     ('tap73-3.json', 'tap-3')):
        shutil.copy(tmp / src, tmp / 'old' / f'result-{dst}.json')
    r = report(tmp, 'main73.json', 'main73-2.json', 'main73-3.json', 'threadirqs.json',
               'tap73.json', 'tap73-2.json', 'tap73-3.json', opts=('--compare', str(tmp / 'old')))
    assert r.returncode == 0, r.stderr
    return tmp, (tmp / 'out' / 'report.md').read_text()


def test_report_has_goals_tables_and_plots(tmp_path):
    fake(tmp_path)
    r = report(tmp_path, 'main.json', 'threadirqs.json')
    assert r.returncode == 0, r.stderr
    md = (tmp_path / 'out' / 'report.md').read_text()
    goals = md.split('## Goals')[1].split('## Table 1')[0]
    # the seed's 10 goals and the design review's 6, of which the fake run
    # has no data for the NET_RX one (its t2 records carry no counts)
    assert goals.count('| yes |') + goals.count('| no |') == 15
    for section in ('## Table 1', '## Table 2', '## Table 3'):
        assert section in md
    for png in ('t1_latency', 't1_cpu', 't2_cyclictest', 't3_latency', 't3_cpu',
                't3_irq_per_req'):
        assert (tmp_path / 'out' / f'{png}.png').stat().st_size > 1000


def test_report_takes_the_tap_boot_for_throughput_goals(tmp_path):
    fake(tmp_path)
    r = report(tmp_path, 'main.json', 'threadirqs.json', 'tap.json')
    assert r.returncode == 0, r.stderr
    md = (tmp_path / 'out' / 'report.md').read_text()
    goals = md.split('## Goals')[1].split('## Table 1')[0]
    # the seed's throughput and 50%/5% CPU goals, the design review's
    # throughput and 5% CPU bounds
    assert goals.count(', tap boot)') == 1 and goals.count('softirq, tap boot') == 4
    tap = md.split('## Table 1b and 2b')[1]
    assert '### Table 1b' in tap and '### Table 2b' in tap
    assert 'ping-pong virtio' in tap and 'ping-pong veth' not in tap
    assert (tmp_path / 'out' / 't1b_tap.png').stat().st_size > 1000


def test_report_busypoll_columns_only_with_busypoll_data(tmp_path, new73):
    _, md = new73
    t1 = section(md, '## Table 1:', '## Table 2:')
    t2 = section(md, '## Table 2:', '## Table 1b and 2b')
    t1b = section(md, '### Table 1b', '### Table 2b')
    t2b = section(md, '### Table 2b', '## Table 3')
    for t, r in ((t1, 'busypoll/softirq'), (t1b, 'busypoll/softirq'),
                 (t2, 'softirq/busypoll'), (t2b, 'softirq/busypoll')):
        head = t.split('| measurement |')[1].split('\n')[0]
        assert f' {r} |' in head and ' busypoll |' in head
    assert 'threaded = per-NAPI threaded: napi-set threaded enabled' in t1
    ping = table_rows(t1, 'ping RTT p50 (us)')[0]
    assert len(ping) == 10 and ping[8].split()[0].isdigit()       # busypoll has data
    # the 6.12 data has no busypoll record: no such column anywhere
    fake(tmp_path)
    r = report(tmp_path, 'main.json', 'threadirqs.json', 'tap.json')
    assert r.returncode == 0, r.stderr
    old = (tmp_path / 'out' / 'report.md').read_text()
    assert 'busypoll' not in old
    assert 'softirqs per second' not in old and 'switches per second' not in old


def test_report_pools_three_main_boots_with_goal_columns_per_boot(new73):
    _, md = new73
    head = section(md, '# knapid', '## Goals')
    for boot, f in (('main', 'main73.json'), ('main-2', 'main73-2.json'),
                    ('main-3', 'main73-3.json')):
        assert f'- **{boot} boot:** `{f}`' in head
    assert 'the tables pool the 3 main boots' in head
    # Tables: 5 rounds in each of the three boots
    assert 'Rounds per cell: 15.' in section(md, '### Load 40%', '### Load MAX')
    goals = section(md, '## Goals', '## Both bases')
    assert ('| goal | main: measured | main: met | main-2: measured | main-2: met | '
            'main-3: measured | main-3: met | verdict |') in goals
    cyc = table_rows(goals, 'cyclictest max >= 5x lower with knapid (softirq/knapid >= 5)')[0]
    assert cyc[2::2] == ['yes', 'yes', 'no'] and cyc[-1] == 'undecided'     # main-3 misses it
    ping = table_rows(goals, 'knapid ping p50 within 5% of softirq (ratio <= 1.05)')[0]
    assert ping[-1] in ('met', 'missed') and len(set(ping[2:7:2])) == 1
    thr = table_rows(goals, 'knapid max throughput >= softirq (ratio >= 1.00, tap boot)')[0]
    assert thr[3:7] == ['-'] * 4 and thr[-1].endswith('(tap boot, one boot)')


def gbps_ratio(path):
    """knapid/softirq of the median iperf max of one result file, as the goal reads it"""
    import json
    import statistics
    recs = json.loads(path.read_text())['t1']
    med = {m: statistics.median(r['bps'] for r in recs
                                if r['test'] == 'iperf_max' and r['mode'] == m)
           for m in ('knapid', 'softirq')}
    return f"{med['knapid'] / med['softirq']:.2f}x"


def test_report_gives_the_tap_goals_per_tap_boot(taps73):
    # sabotage caught: the tap goals from the first tap boot only, or a
    # verdict over the first tap boot only
    tmp, md = taps73
    goals = section(md, '## Goals', '## Both bases')
    assert 'from each of the 3 tap boots alone' in goals and '(tap boot, one boot)' not in goals
    thr = table_rows(goals, 'knapid max throughput >= softirq (ratio >= 1.00, tap boot)')[0]
    # tap boot i in main boot i's columns
    assert [c.split()[0] for c in thr[1:7:2]] == [gbps_ratio(tmp / f) for f in
                                                  ('tap73.json', 'tap73-2.json', 'tap73-3.json')]
    assert thr[2:7:2] == ['yes', 'yes', 'no'] and thr[-1] == 'undecided'
    cpu50 = table_rows(goals, 'knapid CPU0 busy at 50% rate <= 1.1x softirq, tap boot')[0]
    assert cpu50[2:7:2] == ['yes'] * 3 and cpu50[-1] == 'met'
    cpu5 = table_rows(goals, 'knapid CPU0 busy at 5% rate <= 1.1x softirq, tap boot')[0]
    assert cpu5[2:7:2] == ['no'] * 3 and cpu5[-1] == 'missed'
    # the main boots' goals as before
    cyc = table_rows(goals, 'cyclictest max >= 5x lower with knapid (softirq/knapid >= 5)')[0]
    assert cyc[2::2] == ['yes', 'yes', 'no'] and cyc[-1] == 'undecided'


def test_report_pools_the_tap_boots_in_tables_1b_and_2b(taps73):
    # sabotage caught: the tap tables from the first tap boot only, the
    # --compare directory's tap-N files left out
    _, md = taps73
    tap = section(md, '## Table 1b and 2b', '## Table 3')
    assert '- **Boots:** the 3 tap boots below, pooled' in tap
    for boot, f in (('tap', 'tap73.json'), ('tap-2', 'tap73-2.json'), ('tap-3', 'tap73-3.json')):
        assert f'- **{boot} boot:** `{f}`, kernel 7.3.0-knapid' in tap
    # 5 rounds in each of the three tap boots, ping's rounds kept apart too
    assert 'Rounds per cell: 15.' in section(tap, '### Table 1b', '### Table 2b')
    assert 'Rounds per cell: 15.' in section(tap, '### Table 2b', 'Ratios are softirq/mode')
    left = [l for l in md.splitlines() if l.startswith('- **Left column:**')][0]
    assert left.endswith('`result-main.json`, `result-tap.json`, `result-tap-2.json`, '
                         '`result-tap-3.json`')


def test_report_refuses_a_tap_boot_twice(tmp_path):
    fake(tmp_path, '--new')
    r = report(tmp_path, 'main73.json', 'tap73.json', 'tap73-2.json', 'tap73-2.json')
    assert r.returncode == 1
    assert r.stderr == ('report.py: tap73-2.json: a second result for the tap-2 boot '
                        '(first: tap73-2.json)\n')
    assert not (tmp_path / 'out' / 'report.md').exists()


def test_report_leaves_a_tapbatch_boot_to_tap_ratios(tmp_path):
    # sabotage caught: a tapbatch boot read as a tap boot, or dropped silently
    import json
    fake(tmp_path, '--new')
    doc = json.loads((tmp_path / 'tap73.json').read_text())
    doc['meta']['boot'] = 'tapbatch-2'
    (tmp_path / 'tapbatch73.json').write_text(json.dumps(doc))
    r = report(tmp_path, 'main73.json', 'tapbatch73.json')
    assert r.returncode == 1
    assert r.stderr == ('report.py: tapbatch73.json: a tapbatch boot is read by '
                        'bench/tap_ratios.py, not by the report\n')
    assert not (tmp_path / 'out' / 'report.md').exists()


def test_report_refuses_a_main_boot_twice(tmp_path):
    fake(tmp_path, '--new')
    r = report(tmp_path, 'main73.json', 'main73-2.json', 'main73-2.json')
    assert r.returncode == 1
    assert 'a second result for the main-2 boot' in r.stderr
    assert not (tmp_path / 'out' / 'report.md').exists()


def test_report_table3_has_the_busypoll20_row(new73):
    tmp, md = new73
    t3 = section(md, '## Table 3', 'Seed 001 reference')
    assert [l for l in t3.splitlines() if l.startswith('### Load')] == [
        '### Load 20% (target 104.0K msg/s)', '### Load 40% (target 208.0K msg/s)',
        '### Load MAX (no target rate)']
    for load in t3.split('### Load ')[1:]:
        cases = [l.split('|')[1].strip() for l in load.splitlines() if l.startswith('| ')][1:]
        i = cases.index('busypoll20')
        assert cases[i - 1] == 'suspend200' and cases[i + 1] == 'suspend0+knapid'
    assert 'suspend20 p99 <= 1.1x fullbusy at 40%' in md       # the moderate load
    assert (tmp / 'out' / 't3_latency.png').stat().st_size > 1000


def test_report_table2_profile_rows(new73):
    _, md = new73
    for t in (section(md, '## Table 2:', '## Table 1b and 2b'),
              section(md, '### Table 2b', '## Table 3')):
        soft = table_rows(t, 'measurement')[0].index('softirq')
        # the fake counts exactly 12000 context switches per second in softirq
        row = table_rows(t, 'context switches per second (all CPUs)')[0]
        assert row[soft] == '12000 (12000-12000)'
        for label in ('NET_RX softirqs on CPU0 per second', 'NET_RX softirqs per second (all CPUs)',
                      'SUT NIC interrupts per second (RX+TX)'):
            assert table_rows(t, label)[0][soft][0].isdigit()


def test_report_table2_reads_the_flood_against_the_quiet_guest(new73, tmp_path):
    _, md = new73
    # the three main boots' rounds pooled: 4000, 4200, 4400 us each
    assert ('Without a flood (once a round, no traffic): max 4200 (4000-4400) us, p99 300 '
            '(300-300) us' in section(md, '## Table 2:', '## Table 1b and 2b'))
    # the tap boot has none: no sentence, and a run without them reads as before
    assert 'Without a flood' not in section(md, '### Table 2b', '## Table 3')
    fake(tmp_path)
    r = report(tmp_path, 'main.json', 'threadirqs.json')
    assert r.returncode == 0, r.stderr
    assert 'Without a flood' not in (tmp_path / 'out' / 'report.md').read_text()


def test_report_compare_puts_both_bases_side_by_side(new73):
    _, md = new73
    both = section(md, '## Goals', '## Table 1:').split('## Both bases: the ratios side by side')[1]
    assert '| measurement | 6.12.117-knapid | 7.3.0-knapid |' in both
    assert 'commit abc1234' in both and 'commit def5678' in both
    assert len(table_rows(both, 'goal: knapid ping p50 within 5% of softirq (ratio <= 1.05)')) == 1
    # the same computation as Table 3's "vs base" cells, at the moderate load
    p99 = table_rows(both, 'Table 3 at 40%: suspend20 p99 vs base')[0]
    at40 = section(md, '### Load 40%', '### Load MAX')
    assert p99[2] == table_rows(at40, 'suspend20')[0][1]


def test_report_compare_with_a_bad_dir_fails(tmp_path):
    fake(tmp_path)
    (tmp_path / 'empty').mkdir()
    for d in ('empty', 'missing'):
        r = subprocess.run([PY, str(BENCH / 'report.py'), str(tmp_path / 'out'),
                            str(tmp_path / 'main.json'), '--compare', str(tmp_path / d)],
                           capture_output=True, text=True)
        assert r.returncode == 1
        assert len(r.stderr.splitlines()) == 1 and '--compare' in r.stderr
        assert not (tmp_path / 'out' / 'report.md').exists()


def test_report_refuses_an_unfinished_run(tmp_path):
    fake(tmp_path)
    r = report(tmp_path, 'unfinished.json', 'threadirqs.json')
    assert r.returncode == 1
    assert 'did not finish' in r.stderr
    assert not (tmp_path / 'out' / 'report.md').exists()


def test_report_refuses_incomplete_input(tmp_path):
    fake(tmp_path)
    r = report(tmp_path, 'no_t1.json')
    assert r.returncode == 1
    assert "missing 't1'" in r.stderr
    assert not (tmp_path / 'out' / 'report.md').exists()


SOCKPERF = """sockperf: [Total Run] RunTime=3.000 sec; Warm up time=400 msec; SentMessages=1305
sockperf: \x1b[2;35m====> avg-rtt=2127.910 (std-dev=1911.421)\x1b[0m
sockperf: \x1b[2;35mTotal 855 observations\x1b[0m; each percentile contains 8.55 observations
sockperf: ---> percentile 99.000 = 8012.386
sockperf: ---> percentile 90.000 = 3434.000
sockperf: ---> percentile 50.000 = 1979.472
"""


def test_sockperf_statistics_are_read():
    s = guest_bench.Bench.sockperf_stats(SOCKPERF)
    assert s == {'p50_us': 1979.472, 'p99_us': 8012.386, 'mean_us': 2127.91,
                 'observations': 855}


def test_sockperf_without_statistics_fails():
    try:
        guest_bench.Bench.sockperf_stats('sockperf: No valid observations found.')
    except guest_bench.BenchError as e:
        assert 'no statistics' in str(e)
    else:
        raise AssertionError('no BenchError')


def test_cpu_split_shares():
    a = {'cpu0': [100, 0, 50, 800, 0, 10, 40, 0]}
    b = {'cpu0': [110, 0, 60, 860, 0, 10, 60, 0]}
    s = guest_bench.Bench.cpu_split(a, b)['cpu0']
    assert s['usr'] == 10 and s['sys'] == 10 and s['softirq'] == 20 and s['idle'] == 60


def test_epoll_shim_sets_the_params_it_is_given(tmp_path):
    """the shim must really set EPIOCSPARAMS on the server's epoll fd: read
    them back with EPIOCGPARAMS (this host's kernel has both since 6.9)"""
    so = tmp_path / 'epoll_shim.so'
    subprocess.run(['gcc', '-O2', '-Wall', '-shared', '-fPIC', '-o', str(so),
                    str(BENCH / 'epoll_shim.c'), '-ldl'], check=True)
    prog = ('import fcntl, select, struct\n'
            'ep = select.epoll()\n'      # epoll_create1(), which the shim wraps
            'buf = fcntl.ioctl(ep.fileno(), 0x80088a02, bytes(8))\n'   # EPIOCGPARAMS
            'print(*struct.unpack("IHBB", buf))\n')
    env = {'PATH': '/usr/bin:/bin', 'LD_PRELOAD': str(so), 'EPOLL_BUSY_POLL_USECS': '50',
           'EPOLL_BUSY_POLL_BUDGET': '16', 'EPOLL_PREFER_BUSY_POLL': '1'}
    r = subprocess.run([PY, '-c', prog], env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ['50', '16', '1', '0']
    assert 'epoll_shim: epoll fd' in r.stderr
    # and without the variables it leaves the fd alone
    env = {'PATH': '/usr/bin:/bin', 'LD_PRELOAD': str(so)}
    r = subprocess.run([PY, '-c', prog], env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ['0', '0', '0', '0']


def test_tap_host_runs_generators_refuses_others_and_cancels(tmp_path):
    """bench/tap_host.py: what the tap boot's guest asks of the host"""
    import json
    import os
    import time
    ns = f'knapid-tap-test-{os.getpid()}'
    subprocess.run(['ip', 'netns', 'add', ns], check=True)
    host = subprocess.Popen([PY, str(BENCH / 'tap_host.py'), str(tmp_path), ns])
    try:
        def req(n, argv, timeout=30):
            (tmp_path / f'req-{n}.tmp').write_text(json.dumps({'argv': argv, 'timeout': timeout}))
            os.replace(tmp_path / f'req-{n}.tmp', tmp_path / f'req-{n}.json')

        def rc(n, secs=20):
            end = time.monotonic() + secs
            while not (tmp_path / f'rc-{n}').exists():
                assert time.monotonic() < end, f'no rc-{n}'
                time.sleep(0.05)
            return int((tmp_path / f'rc-{n}').read_text())

        req(1, ['iperf3', '--version'])
        req(2, ['sh', '-c', 'true'])
        req(3, ['iperf3', '-s', '-p', '5299'])      # never ends by itself
        assert rc(1) == 0 and 'iperf' in (tmp_path / 'out-1.log').read_text()
        assert rc(2) == 126 and 'not a load generator' in (tmp_path / 'out-2.log').read_text()
        time.sleep(1)
        assert not (tmp_path / 'rc-3').exists()
        (tmp_path / 'cancel-3').touch()
        assert rc(3) != 0
        (tmp_path / 'stop').touch()
        assert host.wait(10) == 0
    finally:
        host.kill()
        subprocess.run(['ip', 'netns', 'del', ns])


class FakeBench(guest_bench.Bench):
    """set_mode() without a guest: records the commands and napi-set calls,
    answers napi-get as a kernel that keeps what it was set to"""
    def __init__(self, tmp_path, napi_threaded):
        spec = tmp_path / 'Documentation/netlink/specs'
        spec.mkdir(parents=True)
        (spec / 'netdev.yaml').write_text('name: napi-threaded\n' if napi_threaded else 'x\n')
        self.ksrc, self.sut, self.napi = str(tmp_path), 'eth0', 9
        self.threaded = self.has_napi_threaded = None
        self.cmds, self.napi_state = [], 'disabled'
        self.knapid_policy = 'other'

    def run(self, cmd, ns=None, cpu=None, timeout=60, env=None):
        self.cmds.append(' '.join(str(c) for c in cmd))
        return ''

    def ynl(self, kind, op, attrs):
        if op == 'napi-set':
            self.cmds.append(f'napi-set {attrs}')
            self.napi_state = attrs['threaded']
            return None
        return {'id': self.napi, 'threaded': self.napi_state,
                **({'pid': 4242} if self.napi_state != 'disabled' else {})}

    def napi_thread_pids(self):
        return {'napi/eth0-9': 4242}


def test_modes_set_the_napi_thread_over_netlink_and_pin_it(tmp_path, monkeypatch):
    # sabotage caught: busypoll mapped to 'enabled' or 'disabled', the
    # readback or the pinning dropped, the sysfs path taken on 7.3
    monkeypatch.setattr(guest_bench, 'KNAPID', str(tmp_path / 'no-knapid'))
    b = FakeBench(tmp_path, napi_threaded=True)
    b.set_mode('busypoll')
    assert b.cmds == ["napi-set {'id': 9, 'threaded': 'busy-poll'}", 'taskset -pc 0 4242']
    b.cmds.clear()
    b.set_mode('threaded')
    b.set_mode('threaded')          # no second napi-set for the same mode
    assert b.cmds == ["napi-set {'id': 9, 'threaded': 'enabled'}", 'taskset -pc 0 4242']
    b.cmds.clear()
    b.set_mode('softirq')
    assert b.cmds == ["napi-set {'id': 9, 'threaded': 'disabled'}"]


def test_modes_on_a_kernel_without_napi_set_threaded(tmp_path, monkeypatch):
    monkeypatch.setattr(guest_bench, 'KNAPID', str(tmp_path / 'no-knapid'))
    b = FakeBench(tmp_path, napi_threaded=False)
    b.set_mode('threaded')
    assert b.cmds == ['sh -c echo 1 > /sys/class/net/eth0/threaded', 'taskset -pc 0 4242']
    try:
        b.set_mode('busypoll')
    except guest_bench.BenchError as e:
        assert 'no threaded busy-poll' in str(e)
    else:
        raise AssertionError('busypoll accepted on a kernel without it')


def tap_boot_bench(tmp_path, monkeypatch, boot):
    """a Bench for a tap boot with the guest's commands stubbed; its set-up,
    setup_tap, table1 (modes, nic_only) and table3 calls land in the list"""
    args = guest_bench.parse_args(['--out', str(tmp_path), '--ksrc', str(tmp_path),
                                   '--shim', 'x.so', '--boot', boot])
    monkeypatch.setattr(guest_bench.os, 'sched_setaffinity', lambda pid, cpus: None)
    b = guest_bench.Bench(args)
    calls = []

    def setup_tap():
        b.topology, b.pinning = 'tap topology', 'tap pinning'
        calls.append('setup_tap')

    monkeypatch.setattr(b, 'setup_tap', setup_tap)
    monkeypatch.setattr(b, 'setup', lambda: calls.append('setup'))
    monkeypatch.setattr(b, 'run', lambda *a, **k: '')
    monkeypatch.setattr(b, 'read', lambda path: 'cmdline')
    monkeypatch.setattr(b, 'set_mode', lambda mode: None)
    monkeypatch.setattr(b, 'table1', lambda modes, nic_only=False: calls.append((tuple(modes), nic_only)))
    monkeypatch.setattr(b, 'table3', lambda **k: calls.append('t3'))
    return b, calls


def test_a_tap_2_boot_runs_as_the_tap_boot(tmp_path, monkeypatch):
    """guest_bench --boot tap-2: the tap boot's path (host generator, NIC
    rows only), its own result file, meta.boot tap-2"""
    import json
    b, calls = tap_boot_bench(tmp_path, monkeypatch, 'tap-2')
    monkeypatch.setattr(b, 'main_modes', lambda: ['softirq', 'knapid'])
    with pytest.raises(guest_bench.BenchError, match='is bench/tap_host.py serving'):
        b.main()            # the tap boot's check: there is no OUT/host
    (tmp_path / 'host').mkdir()
    b.main()
    assert calls == ['setup_tap', (('softirq', 'knapid'), True)]
    res = json.loads((tmp_path / 'result-tap-2.json').read_text())
    assert res['meta']['boot'] == 'tap-2' and res['complete'] is True
    assert 'done' in (tmp_path / 'progress-tap-2.log').read_text()
    b.progress.close()


CYCLICTEST_OUT = '000001 5900\n000009 100\n# Histogram Overflows: 00000\n# Max Latencies: 04200\n'


def test_table1_reads_cyclictest_on_the_quiet_guest_each_round(tmp_path, monkeypatch):
    """before each round's modes, cyclictest once with no flood and no mode
    set; its max lands in t2_idle, the flooded ones in t2"""
    # sabotage caught: the quiet measurement dropped or not recorded, a
    # flood started for it, or it taken after a mode was set
    args = guest_bench.parse_args(['--out', str(tmp_path), '--ksrc', str(tmp_path),
                                   '--shim', 'x.so', '--boot', 'ab', '--rounds', '2'])
    b = guest_bench.Bench(args)
    b.res = {'calibration': {}, 't1': [], 't2': [], 't2_idle': []}
    events = []

    def no_flood(*a, **k):
        raise AssertionError('a flood under the quiet cyclictest')

    monkeypatch.setattr(b, 'set_mode', lambda mode: events.append(mode))
    monkeypatch.setattr(b, 'ping', lambda: {'samples_us': [100.0]})
    monkeypatch.setattr(b, 'ping_pong', lambda test, *a: {'test': test, 'p50_us': 100})
    monkeypatch.setattr(b, 'iperf', lambda test, rate=None: {
        'test': test, 'bps': 1e9, 'cpu': {'cpu0': {'idle': 50.0}}})
    monkeypatch.setattr(b, 'cyclictest', lambda: events.append('flood') or {'max_us': 9000})
    monkeypatch.setattr(b, 'run_cyclictest', lambda: events.append('quiet') or CYCLICTEST_OUT)
    monkeypatch.setattr(b, 'iperf_server', no_flood)
    monkeypatch.setattr(b, 'gen_spawn', no_flood)
    monkeypatch.setattr(b, 'meters', lambda: 'm0')
    monkeypatch.setattr(b, 'meter_delta', lambda m0: {'sched': {'ctxt': 7}})
    monkeypatch.setattr(b, 'save', lambda: None)
    b.table1(['softirq', 'knapid'])
    b.progress.close()
    rounds = [events[i:] for i, e in enumerate(events) if e == 'quiet']
    assert len(rounds) == 2
    # the quiet one comes after calibration's softirq and before any mode of its round
    for r in rounds:
        assert r[1] in ('softirq', 'knapid') and r.count('flood') >= 2
    assert b.res['t2_idle'] == [
        {'round': r, 'max_us': 4200, 'p99_us': 9, 'overflows': 0, 'samples': 6000,
         'sched': {'ctxt': 7}} for r in range(2)]
    assert [t['max_us'] for t in b.res['t2']] == [9000] * 4


def test_loads_are_checked():
    assert guest_bench.loads_arg('20%,40%,MAX') == ('20%', '40%', 'MAX')
    for bad in ('30', '0%', '150%', 'max', '40%,'):
        try:
            guest_bench.loads_arg(bad)
        except guest_bench.argparse.ArgumentTypeError:
            continue
        raise AssertionError(f'{bad!r} accepted')


def test_knapidbatch_mode_makes_the_knapid_threads_batch_and_back(tmp_path, monkeypatch):
    # sabotage caught: knapidbatch run as knapid (no chrt), the threads
    # left SCHED_BATCH for the next mode, the readback dropped
    knapid = tmp_path / 'knapid_enabled'
    knapid.write_text('0\n')
    monkeypatch.setattr(guest_bench, 'KNAPID', str(knapid))
    b = FakeBench(tmp_path, napi_threaded=True)
    policy = {11: guest_bench.os.SCHED_OTHER, 12: guest_bench.os.SCHED_OTHER}

    def run(cmd, ns=None, cpu=None, timeout=60, env=None):
        b.cmds.append(' '.join(str(c) for c in cmd))
        if cmd[0] == 'chrt':
            policy[cmd[-1]] = guest_bench.os.SCHED_BATCH if cmd[1] == '-b' else guest_bench.os.SCHED_OTHER
        return ''

    monkeypatch.setattr(b, 'run', run)
    monkeypatch.setattr(b, 'knapid_pids', lambda: [11, 12])
    monkeypatch.setattr(guest_bench.os, 'sched_getscheduler', lambda pid: policy[pid])
    b.set_mode('knapidbatch')
    assert knapid.read_text().strip() == '1'
    assert b.cmds == ['chrt -b -p 0 11', 'chrt -b -p 0 12', "napi-set {'id': 9, 'threaded': 'disabled'}"]
    b.cmds.clear()
    b.set_mode('knapid')
    assert b.cmds == ['chrt -o -p 0 11', 'chrt -o -p 0 12'] and knapid.read_text().strip() == '1'
    b.cmds.clear()
    b.set_mode('softirq')
    assert b.cmds == [] and knapid.read_text().strip() == '0'
    # a kernel that does not keep the policy: the mode fails, not measures
    monkeypatch.setattr(guest_bench.os, 'sched_getscheduler', lambda pid: guest_bench.os.SCHED_OTHER)
    with pytest.raises(guest_bench.BenchError, match='is not SCHED_BATCH'):
        b.set_mode('knapidbatch')


def test_a_tapbatch_boot_runs_softirq_knapid_and_knapidbatch_on_the_tap(tmp_path, monkeypatch):
    b, calls = tap_boot_bench(tmp_path, monkeypatch, 'tapbatch-2')
    (tmp_path / 'host').mkdir()
    b.main()
    assert calls == ['setup_tap', (('softirq', 'knapid', 'knapidbatch'), True)]
    b.progress.close()


def tap_record(mode, rnd, test, bps, idle, irqs, ctxt, pkts, net_rx, thr):
    return {'round': rnd, 'mode': mode, 'test': test, 'bps': bps, 'retransmits': 0, 'secs': 3.0,
            'cpu': {'cpu0': {'usr': 1, 'sys': 90 - idle, 'irq': 0, 'softirq': 9, 'idle': idle, 'steal': 0},
                    'cpu1': {'usr': 1, 'sys': 1, 'irq': 0, 'softirq': 0, 'idle': 98, 'steal': 0}},
            'threads': thr, 'irqs': irqs, 'rx_packets': pkts,
            'sched': {'ctxt': ctxt, 'net_rx': net_rx, 'net_rx_cpu0': net_rx}}


def test_tap_ratios_reads_a_tapbatch_boot_and_profiles_per_interrupt(tmp_path):
    # sabotage caught: knapidbatch's rows read as knapid's, the counts not
    # divided by the interrupts, a tapbatch boot refused as report.py does
    import json
    t1 = []
    for rnd in range(3):
        for mode, bps, irqs, ctxt, thr in (('softirq', 4.0e9, 10000, 3000, {}),
                                           ('knapid', 3.6e9, 8000, 17600, {'knapid/0': 24.0}),
                                           ('knapidbatch', 4.2e9, 4000, 2000, {'knapid/0': 15.0})):
            t1.append(tap_record(mode, rnd, 'iperf_max', bps, 10, irqs, ctxt, 3 * irqs, irqs, thr))
            t1.append(tap_record(mode, rnd, 'iperf_50', bps / 2, 50, irqs, ctxt, 3 * irqs, irqs, thr))
            t1.append(tap_record(mode, rnd, 'iperf_5', bps / 20, 96 if mode == 'softirq' else 97,
                                 irqs, ctxt, 3 * irqs, irqs, thr))
    doc = {'meta': {'boot': 'tapbatch'}, 'calibration': {}, 't1': t1, 't2': [], 'complete': True}
    (tmp_path / 'result-tapbatch.json').write_text(json.dumps(doc))
    r = subprocess.run([PY, str(BENCH / 'tap_ratios.py'), '--profile', str(tmp_path / 'result-tapbatch.json')],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert 'max throughput knapid/softirq 0.90, knapidbatch/softirq 1.05, knapidbatch/knapid 1.17' in out
    assert 'CPU0 busy at 5% knapid/softirq 0.75 (3.00 vs 4.00%)' in out
    assert '  knapid at the maximum (3 rounds): ctxt/irq 2.20 (2.20-2.20), rx pkts/irq 3.00' in out
    assert '  knapidbatch at the maximum (3 rounds): ctxt/irq 0.50' in out and 'poller CPU0 % 15.00' in out
    assert '  softirq at the maximum (3 rounds): ctxt/irq 0.30' in out and 'poller CPU0 % 0.00' in out
    doc['complete'] = False
    (tmp_path / 'result-tapbatch.json').write_text(json.dumps(doc))
    r = subprocess.run([PY, str(BENCH / 'tap_ratios.py'), str(tmp_path / 'result-tapbatch.json')],
                       capture_output=True, text=True)
    assert r.returncode != 0 and 'did not finish' in r.stderr
