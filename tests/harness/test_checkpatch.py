"""The checkpatch gate: WARNING/ERROR fail, a crashed helper fails, and only
LONG_LINE in a generated file is exempt (and said so)."""
import pathlib
import subprocess
import sys

import pytest

VERDICT = pathlib.Path(__file__).parent.parent.parent / 'scripts' / 'checkpatch-verdict.py'
GEN_HEADER = ('// SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause)\n'
              '/* Do not edit directly, auto-generated from: */\n'
              '/*\tDocumentation/netlink/specs/netdev.yaml */\n')


def long_line(path):
    return [f'WARNING:LONG_LINE: line length of 105 exceeds 100 columns',
            f'#97: FILE: {path}:97:',
            '+\t[NETDEV_A_NAPI_DEFER_HARD_IRQS] = NLA_POLICY_FULL_RANGE(...),', '']


def run(tree, lines):
    r = subprocess.run([sys.executable, str(VERDICT), str(tree)], input='\n'.join(lines),
                       capture_output=True, text=True)
    return r.returncode, r.stdout


@pytest.fixture
def tree(tmp_path):
    (tmp_path / 'net/core').mkdir(parents=True)
    (tmp_path / 'net/core/netdev-genl-gen.c').write_text(GEN_HEADER)
    (tmp_path / 'net/core/dev.c').write_text('// SPDX-License-Identifier: GPL-2.0-or-later\n')
    return tmp_path


CLEAN_TOTAL = 'total: 0 errors, 0 warnings, 0 checks, 40 lines checked'


def test_clean_patch_passes(tree):
    assert run(tree, [CLEAN_TOTAL])[0] == 0


def test_long_line_in_generated_file_is_exempt_and_said(tree):
    rc, out = run(tree, long_line('net/core/netdev-genl-gen.c') +
                  ['total: 0 errors, 1 warnings, 0 checks, 40 lines checked'])
    assert rc == 0, out
    assert 'exempt: WARNING:LONG_LINE in net/core/netdev-genl-gen.c' in out


def test_long_line_in_handwritten_file_fails(tree):
    rc, out = run(tree, long_line('net/core/dev.c') +
                  ['total: 0 errors, 1 warnings, 0 checks, 40 lines checked'])
    assert rc == 1, out


def test_other_warning_in_generated_file_fails(tree):
    rc, out = run(tree, ['WARNING:SPACING: missing space', '#3: FILE: net/core/netdev-genl-gen.c:3:',
                         'total: 0 errors, 1 warnings, 0 checks, 40 lines checked'])
    assert rc == 1, out


def test_error_fails(tree):
    rc, _ = run(tree, ['ERROR:CODE_INDENT: code indent should use tabs', '#9: FILE: net/core/dev.c:9:',
                       'total: 1 errors, 0 warnings, 0 checks, 40 lines checked'])
    assert rc == 1


def test_crashed_helper_fails(tree):
    rc, out = run(tree, ['Traceback (most recent call last):', '    import git',
                         "ModuleNotFoundError: No module named 'git'", CLEAN_TOTAL])
    assert rc == 1
    assert 'crashed' in out


def test_no_totals_fails(tree):
    assert run(tree, [''])[0] == 1
