"""make sabotage's per-case verdict: only a "not ok" case counts as caught."""
import pathlib
import subprocess
import sys

SCRIPT = pathlib.Path(__file__).parent.parent.parent / 'scripts' / 'sabotage-verdict.py'

KTAP = """TAP version 13
1..2
# RUN knapid.sh (- cases, timeout 3600s): $KSFT/net/knapid.sh
# TAP version 13
# 1..3
# ok 1 softirq mode: traffic intact
# # md5 mismatch
# not ok 2 knapid mode: traffic intact
# ok 3 rt: prio # SKIP no chrt
not ok 1 knapid.sh # exit code 1
# RUN plain (- cases, timeout 60s): true
ok 2 plain
"""


def run(tmp_path, *cases, ktap=KTAP):
    (tmp_path / 'cases').write_text(''.join(c + '\n' for c in cases))
    (tmp_path / 'r.ktap').write_text(ktap)
    r = subprocess.run([sys.executable, str(SCRIPT), '--cases', str(tmp_path / 'cases'),
                        str(tmp_path / 'r.ktap')], capture_output=True, text=True)
    return r.returncode, [line.split('\t') for line in r.stdout.splitlines()]


def test_failed_case_is_caught(tmp_path):
    rc, out = run(tmp_path, 'knapid.sh: knapid mode: traffic intact')
    assert rc == 0
    assert out == [['failed', 'knapid.sh: knapid mode: traffic intact', 'md5 mismatch']]


def test_passing_skipped_and_missing_cases_are_not(tmp_path):
    rc, out = run(tmp_path, 'knapid.sh: knapid mode: traffic intact',
                  'knapid.sh: softirq mode: traffic intact', 'knapid.sh: rt: prio',
                  'knapid.sh: renamed case', 'other.sh: a case', 'plain')
    assert rc == 1
    assert [o[0] for o in out] == ['failed', 'passed', 'skipped', 'missing', 'missing', 'passed']
    assert out[3][2] == 'knapid.sh: not ok (exit code 1)'
    assert out[4][2] == 'its test did not report'


def test_no_ktap_at_all_is_not_caught(tmp_path):
    rc, out = run(tmp_path, 'knapid.sh: knapid mode: traffic intact', ktap='')
    assert rc == 1
    assert out[0][0] == 'missing'
