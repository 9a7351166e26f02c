"""The splat gate must catch every kind of kernel report, and only those."""
import pathlib
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).parent
FIX = HERE / 'fixtures'
SCAN = HERE.parent.parent / 'scripts' / 'scan-splats.py'


def scan(*files):
    r = subprocess.run([sys.executable, str(SCAN)] + [str(FIX / f) for f in files],
                       capture_output=True, text=True)
    return r.returncode, r.stdout


def test_clean_log_passes():
    rc, out = scan('dmesg-clean.txt')
    assert rc == 0, out
    assert 'clean' in out


@pytest.mark.parametrize('fixture,kind', [
    ('dmesg-warning.txt', 'WARNING'),
    # a WARNING: CPU: report whose cut-here line was lost
    ('dmesg-warning-bare.txt', 'WARNING'),
    ('dmesg-lockdep.txt', 'lockdep'),
    ('dmesg-rcu.txt', 'RCU'),
    ('kmemleak.txt', 'kmemleak'),
    ('console-hung.txt', 'hung task'),
    ('console-softlockup.txt', 'soft lockup'),
    # a device whose last reference never goes away
    ('dmesg-netdev-leak.txt', 'netdev refcount leak'),
    ('dmesg-bug-null.txt', 'BUG'),
    ('dmesg-kfence.txt', 'BUG'),
    # BUG_ON(): "kernel BUG at", with the console cut before the RIP line
    ('console-bug-on.txt', 'BUG'),
    # an oops whose console kept only the registers: no BUG, no Call Trace
    ('console-oops-rip.txt', 'oops RIP'),
    ('console-panic.txt', 'kernel panic'),
    ('dmesg-refcount.txt', 'refcount'),
    ('dmesg-ref-tracker.txt', 'ref_tracker'),
])
def test_splat_fails(fixture, kind):
    rc, out = scan('dmesg-clean.txt', fixture)
    assert rc == 1, out
    assert f'splat ({kind})' in out


def test_warning_report_is_one_splat():
    rc, out = scan('dmesg-warning.txt')
    assert rc == 1
    # the RIP and Call Trace lines belong to the WARNING's report
    assert out.count('--- splat') == 1
    assert 'napi_complete_done' in out


def test_userspace_kmsg_lines_pass():
    # virtme-ng-init writes this in a root without systemd (containers,
    # debootstrap chroots); the kselftest runner writes to /dev/kmsg too
    rc, out = scan('dmesg-clean.txt', 'dmesg-userspace-warning.txt')
    assert rc == 0, out


def test_real_warning_after_userspace_warning_fails():
    rc, out = scan('dmesg-userspace-warning.txt', 'dmesg-warning.txt')
    assert rc == 1, out
    assert out.count('--- splat') == 1
    assert 'napi_complete_done' in out


def test_missing_log_fails(tmp_path):
    r = subprocess.run([sys.executable, str(SCAN), str(tmp_path / 'nope.txt')],
                       capture_output=True, text=True)
    assert r.returncode == 1


def test_empty_log_fails(tmp_path):
    empty = tmp_path / 'empty.txt'
    empty.write_text('')
    r = subprocess.run([sys.executable, str(SCAN), str(empty)], capture_output=True, text=True)
    assert r.returncode == 1


@pytest.mark.parametrize('fixture', ['dmesg-bug-null.txt', 'dmesg-kfence.txt', 'console-bug-on.txt'])
def test_oops_report_is_one_splat(fixture):
    # the Oops, RIP and Call Trace lines belong to the BUG's report
    rc, out = scan(fixture)
    assert rc == 1
    assert out.count('--- splat') == 1, out
