"""scripts/check.sh end to end, with stubs for the guest and the lint step.

RUN_GUEST and LINT replace scripts/run-guest.sh and scripts/lint-series.sh;
WORK points at a temporary directory. No kernel is built or booted.
"""
import os
import pathlib
import re
import subprocess

HERE = pathlib.Path(__file__).parent
FIX = HERE / 'fixtures'
CHECK = HERE.parent.parent / 'scripts' / 'check.sh'
VERDICT_LINE = re.compile(r'^(\d+) passed, (\d+) failed, (\d+) skipped$')

LIST = """\
# two boot groups
alpha   3    10   true
beta    -    10   true
[boot threaded_napi=off]
gamma   2    10   true
"""


def check(tmp_path, mode='clean', test_list=LIST, config='CONFIG_DEBUG_KMEMLEAK=y\n',
          **extra_env):
    """Run check.sh; return (exit code, stdout lines, results directory).
    config: the kernel .config the guest booted."""
    work = tmp_path / 'work'
    for kernel in ('debug', 'nothreaded'):
        (work / f'build-{kernel}').mkdir(parents=True)
        (work / f'build-{kernel}' / '.config').write_text(config)
    listfile = tmp_path / 'check.list'
    listfile.write_text(test_list)
    env = dict(os.environ, WORK=str(work),
               RUN_GUEST=str(FIX / 'stub-guest.sh'), STUB_GUEST_MODE=mode,
               LINT=str(FIX / 'stub-lint.sh'))
    env.pop('GUEST_APPEND', None)
    env.update(extra_env)
    r = subprocess.run(['bash', str(CHECK), 'debug', str(listfile)], env=env,
                       capture_output=True, text=True, timeout=300)
    return r.returncode, r.stdout.strip().splitlines(), work / 'results' / 'check-debug'


def assert_failed(rc, out):
    """check.sh failed, and its verdict line counts the failure."""
    assert rc != 0, out
    assert verdict(out)[1] > 0, out


def verdict(out):
    """The counts of the last line, which must be the verdict line."""
    m = VERDICT_LINE.match(out[-1] if out else '')
    assert m, out
    return tuple(int(n) for n in m.groups())


def test_clean_run_passes(tmp_path):
    rc, out, res = check(tmp_path, 'clean')
    assert rc == 0, out
    passed, failed, skipped = verdict(out)
    assert failed == 0 and skipped == 0
    assert (res / 'boot-0' / 'host.ktap').read_text().count('\nok ') == 3


def test_crash_fails(tmp_path):
    rc, out, res = check(tmp_path, 'crash')
    assert_failed(rc, out)
    assert 'MISSING: expected test beta did not report' in out
    host = (res / 'boot-0' / 'host.ktap').read_text()
    assert 'not ok 1 guest-completed-0' in host
    assert 'not ok 2 splat-scan-0' in host
    assert 'Kernel panic - not syncing' in host


def test_timeout_before_done_fails(tmp_path):
    rc, out, res = check(tmp_path, 'timeout')
    assert_failed(rc, out)
    assert 'not ok 1 guest-completed-0' in (res / 'boot-0' / 'host.ktap').read_text()


def test_hang_after_done_marker_fails(tmp_path):
    # every test passed and the done marker is there, but the guest never
    # exited: run-guest.sh's exit code 124 must fail the boot
    rc, out, res = check(tmp_path, 'hang')
    assert_failed(rc, out)
    host = (res / 'boot-0' / 'host.ktap').read_text()
    assert 'not ok 1 guest-completed-0 # exit code 124' in host
    assert 'exited with code 124' in host


def test_early_stop_still_ends_with_verdict(tmp_path):
    # check.sh dies before any guest boots ("no tests in LIST"): the last
    # line is still the verdict, with the stop counted as a failure
    rc, out, res = check(tmp_path, 'clean', test_list='# no tests\n')
    assert_failed(rc, out)
    assert 'FAIL: check-completed (stopped early with exit code 1)' in out


def test_lint_step_that_died_fails(tmp_path):
    # the lint step printed nothing: every patch of the series is missing
    rc, out, res = check(tmp_path, 'clean', STUB_LINT_MODE='crash')
    assert_failed(rc, out)
    assert any(line.startswith('MISSING: expected test checkpatch napi-config/0001-') for line in out)


def test_lint_runs_beside_the_guests(tmp_path):
    # the lint step waits for the first guest's results: it passes only if
    # check.sh started it before that guest and waited for it after
    marker = tmp_path / 'work' / 'results' / 'check-debug' / 'boot-0' / 'results.ktap'
    rc, out, res = check(tmp_path, 'clean', STUB_LINT_MODE='after-guest',
                         STUB_LINT_WAIT_FOR=str(marker))
    assert rc == 0, out
    assert not any(line.startswith('FAIL: ') for line in out), out


def test_check_lint_no_leaves_the_lint_step_out(tmp_path):
    # make stress's run: a lint step that would die is never started, and
    # no lint result is expected; without CHECK_LINT=no the same run fails
    rc, out, res = check(tmp_path, 'clean', STUB_LINT_MODE='crash', CHECK_LINT='no')
    assert rc == 0, out
    assert not (res / 'lint.log').exists()
    assert 'checkpatch' not in (res / 'expected').read_text()
    (tmp_path / 'with-lint').mkdir()
    rc, out, res = check(tmp_path / 'with-lint', 'clean', STUB_LINT_MODE='crash')
    assert_failed(rc, out)


def test_lint_failure_beside_the_guests_fails_with_its_log(tmp_path):
    rc, out, res = check(tmp_path, 'clean', STUB_LINT_MODE='fail')
    assert_failed(rc, out)
    assert 'stub lint: a check failed' in (res / 'lint.log').read_text()


def test_failing_guest_runner_still_ends_with_verdict(tmp_path):
    # run-guest.sh dies (here: it cannot even be run)
    rc, out, res = check(tmp_path, 'clean', RUN_GUEST=str(tmp_path / 'no-such-runner'))
    assert_failed(rc, out)
    assert 'not ok 1 guest-completed-0 # exit code 127' in (res / 'boot-0' / 'host.ktap').read_text()


def test_kmemleak_refused_fails(tmp_path):
    # kmemleak disabled: the guest could not scan, so no leak report is no news
    rc, out, res = check(tmp_path, 'clean', STUB_KMEMLEAK_STATUS=(
        'kmemleak refused scan 1: echo: write error: Operation not permitted'))
    assert_failed(rc, out)
    host = (res / 'boot-0' / 'host.ktap').read_text()
    assert 'not ok 3 kmemleak-0' in host
    assert 'Operation not permitted' in host


def test_kmemleak_status_missing_fails(tmp_path):
    rc, out, res = check(tmp_path, 'clean', STUB_KMEMLEAK_STATUS='-')
    assert rc != 0
    assert 'not ok 3 kmemleak-1' in (res / 'boot-1' / 'host.ktap').read_text()


def test_kmemleak_missing_from_ktap_fails(tmp_path):
    # kmemleak-N is expected like guest-completed-N
    assert 'kmemleak-1' in check(tmp_path, 'clean')[2].joinpath('expected').read_text()


def test_kernel_without_kmemleak_passes(tmp_path):
    rc, out, res = check(tmp_path, 'clean', config='# CONFIG_DEBUG_KMEMLEAK is not set\n',
                         STUB_KMEMLEAK_STATUS='-')
    assert rc == 0, out
    host = (res / 'boot-0' / 'host.ktap').read_text()
    assert 'ok 3 kmemleak-0' in host
    assert 'no CONFIG_DEBUG_KMEMLEAK=y' in host


def test_dropped_case_fails(tmp_path):
    # alpha and gamma are pinned at 3 and 2 cases; the guests report one
    # fewer each, with plans that agree
    rc, out, res = check(tmp_path, 'drop')
    assert rc != 0
    assert 'CASES: alpha reported 2 cases, 3 expected' in out
    assert 'CASES: gamma reported 1 cases, 2 expected' in out
    assert verdict(out)[1] == 2


def test_check_list_format():
    # every test of tests/check.list is "NAME CASES TIMEOUT COMMAND"
    top = HERE.parent.parent
    for line in (top / 'tests' / 'check.list').read_text().splitlines():
        line = line.strip()
        if not line or line.startswith('#') or line.startswith('[boot'):
            continue
        fields = line.split(None, 3)
        assert len(fields) == 4, line
        assert fields[1] == '-' or fields[1].isdigit(), line
        # "-": a kselftest, run with its directory's settings timeout
        assert fields[2].isdigit() or (fields[2] == '-' and '$KSFT/' in fields[3]), line
        # the kselftests run from the install, never from the source tree
        assert '$KSRC' not in fields[3], line


def test_verdict_that_fails_still_ends_with_verdict_line(tmp_path):
    # a list line without CASES makes the expected file unreadable for
    # ktap-verdict.py (exit code 2): check.sh still ends with a verdict line
    rc, out, res = check(tmp_path, 'clean', test_list='alpha\n')
    assert rc != 0
    assert out[-1] == '0 passed, 1 failed, 0 skipped'
    assert 'ktap-verdict.py failed with exit code 2' in out


def test_boot_group_flavour(tmp_path):
    # "[boot@nothreaded ...]" boots the nothreaded kernel for that group only
    test_list = LIST + """\
[boot@nothreaded threaded_napi=on | -device e1000]
delta   1    10   true
"""
    rc, out, res = check(tmp_path, 'clean', test_list=test_list)
    assert rc == 0, out
    kernels = [(res / f'boot-{b}' / 'stub-flavour').read_text().strip() for b in range(3)]
    assert kernels == ['debug', 'debug', 'nothreaded']
    assert (res / 'boot-2' / 'append').read_text().strip() == 'threaded_napi=on'
    assert (res / 'boot-2' / 'qemu').read_text().strip() == '-device e1000'
    assert (res / 'boot-1' / 'stub-flavour').exists()
