"""The KTAP verdict must fail on every way a test run can go wrong."""
import pathlib
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).parent
FIX = HERE / 'fixtures'
VERDICT = HERE.parent.parent / 'scripts' / 'ktap-verdict.py'


def run(*files, expect=None, allow=None, tmp_path=None):
    args = [sys.executable, str(VERDICT)]
    if expect is not None:
        p = tmp_path / 'expect'
        p.write_text('\n'.join(expect) + '\n')
        args += ['--expect', str(p)]
    if allow is not None:
        p = tmp_path / 'allow'
        p.write_text('\n'.join(allow) + '\n')
        args += ['--allow-skips', str(p)]
    args += [str(FIX / f) for f in files]
    r = subprocess.run(args, capture_output=True, text=True)
    return r.returncode, r.stdout.strip().splitlines()


def test_pass_counts_leaves(tmp_path):
    rc, out = run('pass.ktap', expect=['nsim-pair 2', 'queues.py 2', 'plain -'],
                  tmp_path=tmp_path)
    assert rc == 0, out
    assert out[-1] == '5 passed, 0 failed, 0 skipped'


def test_nested_not_ok_fails(tmp_path):
    rc, out = run('nested-fail.ktap', tmp_path=tmp_path)
    assert rc == 1
    assert 'FAIL: queues.py: queues.addremove_queues' in out
    assert out[-1] == '2 passed, 1 failed, 0 skipped'


def test_toplevel_not_ok_fails(tmp_path):
    rc, out = run('toplevel-fail.ktap', tmp_path=tmp_path)
    assert rc == 1
    assert any(line.startswith('FAIL: second') for line in out)
    assert out[-1] == '1 passed, 1 failed, 0 skipped'


def test_missing_expected_test_fails(tmp_path):
    rc, out = run('pass.ktap', expect=['nsim-pair 2', 'queues.py 2', 'plain -', 'knapid.py 3'],
                  tmp_path=tmp_path)
    assert rc == 1
    assert 'MISSING: expected test knapid.py did not report' in out


# a bare "stats.py" allows stats.py to skip as a whole, not any of its cases
@pytest.mark.parametrize('allow', [[], ['stats.py | no stats']])
def test_unexpected_skip_fails(tmp_path, allow):
    rc, out = run('skip.ktap', allow=allow, tmp_path=tmp_path)
    assert rc == 1
    assert any(line.startswith('unexpected SKIP: stats.py: stats.check_fec') for line in out)


def test_allowed_skip_passes(tmp_path):
    rc, out = run('skip.ktap', allow=['stats.py: stats.check_fec | netdevsim has no FEC'],
                  tmp_path=tmp_path)
    assert rc == 0, out
    assert out[-1] == '2 passed, 0 failed, 1 skipped'


def test_short_plan_fails(tmp_path):
    rc, out = run('short-plan.ktap', tmp_path=tmp_path)
    assert rc == 1
    assert 'PLAN: 1..3 announced, 2 results seen' in out


def test_no_results_fails(tmp_path):
    empty = tmp_path / 'empty.ktap'
    empty.write_text('TAP version 13\n')
    r = subprocess.run([sys.executable, str(VERDICT), str(empty)], capture_output=True, text=True)
    assert r.returncode == 1
    assert 'NO RESULTS' in r.stdout


def test_documents_are_summed(tmp_path):
    rc, out = run('pass.ktap', 'toplevel-fail.ktap', tmp_path=tmp_path)
    assert rc == 1
    assert out[-1] == '6 passed, 1 failed, 0 skipped'


@pytest.mark.parametrize('line,ok', [
    ('ok 1 a', True),
    ('not ok 1 a', False),
    ('not ok 12 - a b # exit code 2', False),
])
def test_result_line_forms(tmp_path, line, ok):
    f = tmp_path / 'one.ktap'
    f.write_text(f'TAP version 13\n1..1\n{line.replace(" 12 ", " 1 ")}\n')
    r = subprocess.run([sys.executable, str(VERDICT), str(f)], capture_output=True, text=True)
    assert (r.returncode == 0) == ok


def test_nested_short_plan_fails(tmp_path):
    # "1..5" and then only two nested results: three cases went missing
    rc, out = run('nested-short-plan.ktap', tmp_path=tmp_path)
    assert rc == 1
    assert 'PLAN: napi_config.py: 1..5 announced, 2 nested results seen' in out


def test_nested_plans_per_document_pass(tmp_path):
    # two nested documents, the second with its plan at the end
    rc, out = run('nested-two-docs.ktap', tmp_path=tmp_path)
    assert rc == 0, out
    assert out[-1] == '3 passed, 0 failed, 0 skipped'


def test_nested_not_ok_todo_fails(tmp_path):
    rc, out = run('nested-todo.ktap', tmp_path=tmp_path)
    assert rc == 1
    assert ('FAIL: busy_poll_test.sh: busy_poll suspend in knapid mode '
            '(TODO not implemented yet)') in out
    assert out[-1] == '1 passed, 1 failed, 0 skipped'


def test_unexpected_xfail_fails(tmp_path):
    # an XFAIL is no pass: like a SKIP it must be listed in allowed-skips
    rc, out = run('nested-xfail.ktap', allow=[], tmp_path=tmp_path)
    assert rc == 1
    assert 'unexpected XFAIL: stats.py: stats.check_fec (netdevsim has no FEC stats)' in out
    assert out[-1] == '1 passed, 1 failed, 1 skipped'


def test_allowed_xfail_passes(tmp_path):
    rc, out = run('nested-xfail.ktap', allow=['stats.py: stats.check_fec | no FEC'],
                  tmp_path=tmp_path)
    assert rc == 0, out
    assert out[-1] == '1 passed, 0 failed, 1 skipped'


def test_bare_name_allows_whole_test_skip(tmp_path):
    rc, out = run('toplevel-skip.ktap', allow=['knapid.sh | knapid configured out'],
                  tmp_path=tmp_path)
    assert rc == 0, out
    assert out[-1] == '0 passed, 0 failed, 1 skipped'
    rc, out = run('toplevel-skip.ktap', allow=[], tmp_path=tmp_path)
    assert rc == 1


def test_dropped_case_fails(tmp_path):
    # queues.py is pinned at 3 cases and reported 2, with a plan that agrees
    rc, out = run('pass.ktap', expect=['nsim-pair 2', 'queues.py 3', 'plain -'],
                  tmp_path=tmp_path)
    assert rc == 1
    assert 'CASES: queues.py reported 2 cases, 3 expected' in out
    assert out[-1] == '5 passed, 1 failed, 0 skipped'


def test_cases_where_none_expected_fail(tmp_path):
    rc, out = run('pass.ktap', expect=['nsim-pair -', 'queues.py 2', 'plain -'],
                  tmp_path=tmp_path)
    assert rc == 1
    assert 'CASES: nsim-pair reported 2 cases, 0 expected' in out


def test_expect_names_with_spaces(tmp_path):
    f = tmp_path / 'lint.ktap'
    f.write_text('TAP version 13\n1..1\nok 1 checkpatch 0001-a.patch\n')
    e = tmp_path / 'expect'
    e.write_text('checkpatch 0001-a.patch -\n')
    r = subprocess.run([sys.executable, str(VERDICT), '--expect', str(e), str(f)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout


def test_expect_without_cases_is_an_error(tmp_path):
    e = tmp_path / 'expect'
    e.write_text('nsim-pair\n')
    r = subprocess.run([sys.executable, str(VERDICT), '--expect', str(e), str(FIX / 'pass.ktap')],
                       capture_output=True, text=True)
    assert r.returncode == 2
    assert 'not "NAME CASES"' in r.stderr


def test_failure_shows_what_the_test_printed_before_it(tmp_path):
    # the tail of a CI log must say why a case failed
    p = tmp_path / 'ctx.ktap'
    p.write_text('TAP version 13\n1..1\n# # server eni1 in ns1\n# TAP version 13\n'
                 '# 1..2\n# ok 1 first\n# # round 3: no data\n# # lost 1 of 25\n'
                 '# # held in 24 of 25 rounds\n# # one more line\n'
                 '# not ok 2 shared: held\nnot ok 1 t.sh\n')
    r = subprocess.run([sys.executable, str(VERDICT), str(p)], capture_output=True, text=True)
    out = r.stdout.splitlines()
    assert r.returncode == 1
    i = out.index('FAIL: t.sh: shared: held')
    # the last three diagnostic lines, nothing from before the previous result
    assert out[i + 1:i + 4] == ['    | # # lost 1 of 25', '    | # # held in 24 of 25 rounds',
                                '    | # # one more line']
    assert not any('server eni1' in o for o in out)
