"""make bench's report and its parsers, on recorded or generated data."""
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).parent
FIX = HERE / 'fixtures'
BENCH = HERE.parent.parent / 'bench'
PY = '/usr/bin/python3'   # the one with matplotlib
sys.path.insert(0, str(BENCH))

import guest_bench  # noqa: E402


def fake(tmp_path):
    subprocess.run([PY, str(FIX / 'bench_fake.py'), str(tmp_path)], check=True)


def report(tmp_path, *files):
    return subprocess.run([PY, str(BENCH / 'report.py'), str(tmp_path / 'out')]
                          + [str(tmp_path / f) for f in files], capture_output=True, text=True)


def test_report_has_goals_tables_and_plots(tmp_path):
    fake(tmp_path)
    r = report(tmp_path, 'main.json', 'threadirqs.json')
    assert r.returncode == 0, r.stderr
    md = (tmp_path / 'out' / 'report.md').read_text()
    goals = md.split('## Goals')[1].split('## Table 1')[0]
    assert goals.count('| yes |') + goals.count('| no |') == 10
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
    assert goals.count(', tap boot)') == 1 and goals.count('softirq, tap boot') == 2
    tap = md.split('## Table 1b and 2b')[1]
    assert '### Table 1b' in tap and '### Table 2b' in tap
    assert 'ping-pong virtio' in tap and 'ping-pong veth' not in tap
    assert (tmp_path / 'out' / 't1b_tap.png').stat().st_size > 1000


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
