"""tests/guest/run-tests.sh, the in-guest runner, on a fake test list."""
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).parent
FIX = HERE / 'fixtures'
TOP = HERE.parent.parent
RUNNER = TOP / 'tests' / 'guest' / 'run-tests.sh'
VERDICT = TOP / 'scripts' / 'ktap-verdict.py'


def test_runner_ktap(tmp_path):
    r = subprocess.run(['bash', str(RUNNER), str(FIX / 'runner.list'), str(tmp_path)],
                       capture_output=True, text=True, timeout=120)
    out = r.stdout.splitlines()
    results = [line for line in out if not line.startswith('#')]
    assert results == [
        'TAP version 13',
        '1..6',
        'ok 1 pass',
        'ok 2 nested',
        'not ok 3 fail # exit code 3',
        'ok 4 skip # SKIP SKIP: no such device',
        'not ok 5 slow # TIMEOUT 1s',
        # a line in the old format (NAME TIMEOUT COMMAND)
        'not ok 6 old # bad list line',
    ], r.stdout
    # test output is indented, so nested KTAP stays nested
    assert '# ok 1 first' in out
    assert '# broken' in out
    assert any(line.startswith('# slow: exit code 124 after') for line in out)
    assert (tmp_path / 'fail.log').read_text() == 'broken\n'

    ktap = tmp_path / 'results.ktap'
    ktap.write_text(r.stdout)
    v = subprocess.run([sys.executable, str(VERDICT), str(ktap)], capture_output=True, text=True)
    lines = v.stdout.splitlines()
    assert v.returncode == 1
    assert any(line.startswith('FAIL: fail ') for line in lines)
    assert any(line.startswith('FAIL: slow ') for line in lines)
    assert any(line.startswith('unexpected SKIP: skip ') for line in lines)
    assert any(line.startswith('FAIL: old ') for line in lines)
    assert lines[-1] == '3 passed, 4 failed, 1 skipped'


def test_runner_timeout_from_settings(tmp_path):
    # TIMEOUT "-": the timeout= of the settings file next to the program, as
    # kselftest/runner.sh applies it; 45 s when there is none
    ksft = tmp_path / 'ksft'
    (ksft / 'net').mkdir(parents=True)
    (ksft / 'plain').mkdir()
    (ksft / 'net' / 'settings').write_text('timeout=1\n')
    for d in ('net', 'plain'):
        prog = ksft / d / 'slow.sh'
        prog.write_text('#!/bin/bash\nsleep 3\n')
        prog.chmod(0o755)
    lst = tmp_path / 'list'
    lst.write_text('short - - X=1 $KSFT/net/slow.sh\nlong - - $KSFT/plain/slow.sh\n')
    out = tmp_path / 'out'
    out.mkdir()
    r = subprocess.run(['bash', str(RUNNER), str(lst), str(out)], capture_output=True,
                       text=True, timeout=120, env={'KSFT': str(ksft), 'PATH': '/usr/bin:/bin'})
    lines = r.stdout.splitlines()
    assert 'not ok 1 short # TIMEOUT 1s' in lines, r.stdout
    assert 'ok 2 long' in lines, r.stdout
    assert any(line.startswith('# RUN long (- cases, timeout 45s)') for line in lines)
