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


KNOWN_NONE = '/dev/null'
KNOWN = '3fcbecbdeb048dfd1bea824f4276717fed02d10e net: Add control functions for irq suspension\n'
UNKNOWN_ID = ["WARNING:UNKNOWN_COMMIT_ID: Unknown commit id '3fcbecbdeb04', maybe rebased or not pulled?",
              '#25: ']


def run_with(tree, lines, *extra):
    r = subprocess.run([sys.executable, str(VERDICT), str(tree), *map(str, extra)],
                       input='\n'.join(lines), capture_output=True, text=True)
    return r.returncode, r.stdout


def test_fixes_of_a_listed_upstream_commit_is_exempt(tree, tmp_path):
    (tmp_path / 'known').write_text('# upstream\n' + KNOWN)
    lines = UNKNOWN_ID + ['Fixes: 3fcbecbdeb04 ("net: Add control functions for irq suspension")',
                          'total: 0 errors, 1 warnings, 0 checks, 40 lines checked']
    rc, out = run_with(tree, lines, tmp_path / 'known')
    assert rc == 0, out
    assert 'exempt: WARNING:UNKNOWN_COMMIT_ID for 3fcbecbdeb04' in out
    # without the list, or with another subject, it fails
    assert run(tree, lines)[0] == 1
    bad = [line.replace('control functions', 'knobs') for line in lines]
    assert run_with(tree, bad, tmp_path / 'known')[0] == 1


def test_new_file_maintainers_covers_is_exempt(tree, tmp_path):
    (tree / 'MAINTAINERS').write_text('THE REST\nF:\t*\nF:\t*/\n\nNETWORKING\n'
                                      'F:\ttools/testing/selftests/net/\n')
    patch = tmp_path / 'p.patch'
    lines = ['WARNING:FILE_PATH_CHANGES: added, moved or deleted file(s), does MAINTAINERS need updating?',
             '#92: ', 'new file mode 100755',
             'total: 0 errors, 1 warnings, 0 checks, 40 lines checked']
    patch.write_text('diff --git a/tools/testing/selftests/net/x.sh b/tools/testing/selftests/net/x.sh\n'
                     'new file mode 100755\n')
    rc, out = run_with(tree, lines, KNOWN_NONE, patch)
    assert rc == 0, out
    assert 'tools/testing/selftests/net/x.sh already in MAINTAINERS' in out
    # a file only THE REST's catch-all matches still fails
    patch.write_text('diff --git a/lib/x.c b/lib/x.c\nnew file mode 100644\n')
    assert run_with(tree, lines, KNOWN_NONE, patch)[0] == 1
