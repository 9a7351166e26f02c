"""make stress: its report, its test list and its stream checker."""
import os
import pathlib
import socket
import subprocess
import sys
import time

TOP = pathlib.Path(__file__).parent.parent.parent
REPORT = TOP / 'scripts' / 'stress-report.py'
SEQ = TOP / 'tests' / 'stress' / 'seqstream.py'


def fake_run(tmp_path, drop_result=False):
    boot = tmp_path / 'run' / 'boot-0'
    boot.mkdir(parents=True)
    (boot / 'tests.list').write_text('stress-a 2 60 true\nstress-b - 60 true\n')
    (boot / 'append').write_text('threaded_napi=off\n')
    ktap = ['TAP version 13', '1..2', '# RUN stress-a', '# stress-a: exit code 0 after 12s',
            'ok 1 stress-a']
    if not drop_result:
        ktap += ['# stress-b: exit code 1 after 3s', 'not ok 2 stress-b # exit code 1']
    (boot / 'results.ktap').write_text('\n'.join(ktap) + '\n')
    (boot / 'stress-a.log').write_text('TAP version 13\n1..2\nok 1 one\nnot ok 2 two\n')
    (boot / 'counts.tsv').write_text('a.sh\tpart one\tswitches\t1000\n')
    (boot / 'splats.txt').write_text('splat scan: clean (console.log)\n')
    (boot / 'kmemleak-status').write_text('ok\n')
    (boot / 'console.log').write_text('guest: kernel 6.12.117-knapid+, 2 CPUs, cmdline: x\n')
    (tmp_path / 'run' / 'verdict.txt').write_text('not ok 2 stress-b\n1 passed, 2 failed, 0 skipped\n')


def report(tmp_path):
    r = subprocess.run([sys.executable, str(REPORT), str(tmp_path), 'quick', '600', '1'],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_report_has_verdict_tests_counts_and_splats(tmp_path):
    fake_run(tmp_path)
    md = report(tmp_path)
    assert '**1 passed, 2 failed, 0 skipped**' in md
    assert '| 0: threaded_napi=off | stress-a | ok, 1/2 cases passed | 12 s |' in md
    assert '| a.sh | part one | switches | 1000 |' in md
    assert 'splat scan: clean' in md and 'kmemleak: ok' in md
    assert '## Failures' in md


def test_report_names_a_test_that_did_not_report(tmp_path):
    fake_run(tmp_path, drop_result=True)
    assert '| stress-b | did not report, 0/0 cases passed | - |' in report(tmp_path)


def test_report_leaves_out_a_boot_group_only_emptied(tmp_path):
    """ONLY= can leave a boot group without tests: it never boots, so the
    report lists neither its tests nor a missing splat scan"""
    fake_run(tmp_path)
    empty = tmp_path / 'run' / 'boot-1'
    empty.mkdir()
    (empty / 'tests.list').write_text('')
    (empty / 'append').write_text('nohz_full=1\n')
    md = report(tmp_path)
    assert 'boot 0: splat scan: clean' in md
    assert 'boot 1' not in md and 'nohz_full' not in md and 'did not finish' not in md


def test_stress_list_parses_and_names_existing_scripts():
    names = set()
    for line in (TOP / 'tests' / 'stress' / 'stress.list').read_text().splitlines():
        line = line.removeprefix('@full ')
        if not line.strip() or line.startswith('#') or line.startswith('['):
            continue
        name, cases, tmo, cmd = line.split(None, 3)
        assert name not in names
        names.add(name)
        assert cases.isdigit() and tmo.isdigit(), line
        for word in cmd.split():
            if word.startswith('tests/'):
                assert (TOP / word).exists(), word
    assert len(names) >= 14


def stream(tmp_path, corrupt=False):
    """seqstream over lo; with corrupt, a fake sender flips one byte"""
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        port = s.getsockname()[1]
    recv = subprocess.Popen([sys.executable, str(SEQ), 'recv', '127.0.0.1', str(port),
                             str(tmp_path), 'x'])
    for _ in range(100):
        if (tmp_path / 'x.progress').exists():
            break
        time.sleep(0.05)
    time.sleep(0.2)
    if corrupt:
        sys.path.insert(0, str(SEQ.parent))
        import seqstream
        data = bytearray(seqstream.block(0) + seqstream.block(1))
        data[70000] ^= 1
        with socket.create_connection(('127.0.0.1', port)) as c:
            c.sendall(data)
    else:
        subprocess.run([sys.executable, str(SEQ), 'send', '127.0.0.1', str(port),
                        str(tmp_path), 'x', '0.5'], check=True, timeout=60)
    assert recv.wait(timeout=60) == (1 if corrupt else 0)
    return (tmp_path / 'x.recv').read_text().split()


def test_seqstream_verifies_every_byte(tmp_path):
    got = stream(tmp_path)
    sent = (tmp_path / 'x.sent').read_text().split()
    assert got[0] == 'ok' and got[1:] == sent and int(sent[0]) > 0


def test_seqstream_finds_a_flipped_byte(tmp_path):
    got = stream(tmp_path, corrupt=True)
    assert got[:2] == ['bad', '70000'], got
    assert os.path.exists(tmp_path / 'x.progress')


LIST_ONLY = TOP / 'scripts' / 'list-only.py'


def list_only(names, text):
    return subprocess.run([sys.executable, str(LIST_ONLY), *names], input=text,
                          capture_output=True, text=True)


def test_list_only_keeps_the_named_tests_in_their_boot_groups():
    text = ('# c\nstress-a 1 60 true\nstress-b 1 60 true\n[boot | -netdev x]\nstress-c 1 60 t\n'
            '[boot threaded_napi=on]\nboot-on 2 600 t\n[boot threaded_napi=off]\nboot-off 2 600 t\n')
    r = list_only(['stress-b', 'boot-off'], text)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ['stress-b 1 60 true', '[boot threaded_napi=off]', 'boot-off 2 600 t']
    r = list_only(['stress-c'], text)
    assert r.stdout.splitlines() == ['[boot | -netdev x]', 'stress-c 1 60 t']


def test_list_only_refuses_a_name_not_in_the_list():
    r = list_only(['stress-a', 'stress-typo'], 'stress-a 1 60 true\n')
    assert r.returncode == 2 and 'not in the list: stress-typo' in r.stderr and 'stress-a' in r.stderr
    assert r.stdout == ''


def test_stress_only_with_a_bad_name_stops_before_any_guest():
    env = dict(os.environ, ONLY='stress-sysctl no-such-test', WORK='/nonexistent')
    r = subprocess.run([str(TOP / 'scripts' / 'stress.sh')], env=env, capture_output=True, text=True)
    assert r.returncode != 0 and 'not in the list: no-such-test' in r.stderr


def test_the_full_campaign_splits_into_parts_that_cover_it():
    """the parts a long campaign is run in: every test of the full list in
    exactly one part, each with the boot line of its group"""
    full = '\n'.join(line.removeprefix('@full ') for line in
                     (TOP / 'tests' / 'stress' / 'stress.list').read_text().splitlines())
    names = [s.split()[0] for s in full.splitlines()
             if s.strip() and not s.startswith(('#', '['))]
    seen = []
    for part in (names[:2], names[2:4], names[4:]):
        r = list_only(part, full)
        assert r.returncode == 0, r.stderr
        seen += [s.split()[0] for s in r.stdout.splitlines() if not s.startswith('[')]
    assert sorted(seen) == sorted(names)


def test_stress_never_overwrites_an_earlier_runs_results(tmp_path):
    """a part's directory is named after its base and tests (two parts of
    one day do not share one), and an existing one is refused, not emptied"""
    # sabotage caught: the old rm -rf of the directory, a name without the
    # part's tests or the base
    env = dict(os.environ, BASE='7.3', ONLY='stress-sysctl  boot-off', WORK='/nonexistent',
               STRESS_RESULTS=str(tmp_path))
    stress = [str(TOP / 'scripts' / 'stress.sh')]
    # the first run (no kernel under WORK: it fails at once) makes the directory
    r = subprocess.run(stress, env=env, capture_output=True, text=True, timeout=50)
    names = os.listdir(tmp_path)
    assert r.returncode != 0 and len(names) == 1, (names, r.stderr)
    name = names[0]
    assert f'results in {tmp_path}/{name}' in r.stderr, r.stderr
    assert name.endswith('-7.3-part-stress-sysctl+boot-off'), name
    (tmp_path / name / 'report.md').write_text('the earlier part\n')
    r = subprocess.run(stress, env=env, capture_output=True, text=True, timeout=50)
    assert r.returncode != 0 and "holds an earlier run's results" in r.stderr, r.stderr
    assert (tmp_path / name / 'report.md').read_text() == 'the earlier part\n'
    assert os.listdir(tmp_path) == [name]
