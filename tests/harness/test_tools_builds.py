"""scripts/tools-builds.sh (make lint's tools-builds, netdev CI's
build_tools) on a fake kernel tree: the selftests are built at the base and
after each commit that touches tools/ or the uapi headers; a commit fails when it
adds a warning, leaves a file git status shows, breaks the build or
touches a kselftest target the check does not build. `make` is a stub:
`headers` does nothing, the selftests build prints a gcc warning for each
line holding "WARN" in a target's .c files, writes each .c file's program
next to it (skipped, as make does, when it exists) and fails on "BREAK"."""
import os
import pathlib
import subprocess

import pytest

from fake_tree import commit, git

TOP = pathlib.Path(__file__).parent.parent.parent
SCRIPT = TOP / 'scripts' / 'tools-builds.sh'

FAKE_MAKE = r'''#!/usr/bin/env python3
import pathlib, sys
d = pathlib.Path(sys.argv[sys.argv.index('-C') + 1])
if 'headers' in sys.argv:
    sys.exit(0)
with open(d.parents[3] / 'make-calls', 'a') as f:
    f.write('selftests\n')
targets = next(a.split('=', 1)[1] for a in sys.argv if a.startswith('TARGETS=')).split()
for t in targets:
    for src in sorted((d / t).glob('*.c')):
        text = src.read_text()
        if src.with_suffix('').exists():
            continue  # built already: make prints nothing for it
        if 'BREAK' in text:
            print(f'{src.name}:1:1: error: broken', file=sys.stderr)
            print(f'make[1]: *** [{src.stem}] Error 1', file=sys.stderr)
            continue
        for n, line in enumerate(text.splitlines(), 1):
            if 'WARN' in line:
                print(f'{src.name}:{n}:3: warning: {line.strip()} [-Wfake]', file=sys.stderr)
        src.with_suffix('').write_text('program\n')
# the kselftest Makefile: exit 0 unless every target failed
sys.exit(0)
'''

GITIGNORE = 'busy_poller\n'


@pytest.fixture
def work(tmp_path):
    w = tmp_path / 'work'
    tree = w / 'linux'
    tree.mkdir(parents=True)
    git(tree, 'init', '-q')
    # Debian's top-level .gitignore, whose last block ignores every new file
    commit(tree, 'base', {'.gitignore': '*.o\n/*\n!/debian/\n', 'net/core/dev.c': 'int a;\n',
                          'tools/testing/selftests/net/busy_poller.c': 'WARN old\n',
                          'tools/testing/selftests/net/.gitignore': GITIGNORE})
    git(tree, 'tag', 'base')
    bin_dir = tmp_path / 'bin'
    bin_dir.mkdir()
    (bin_dir / 'make').write_text(FAKE_MAKE)
    (bin_dir / 'make').chmod(0o755)
    return w


def run(work):
    env = dict(os.environ, WORK=str(work), BASE='7.3', LINT_RESULTS=str(work / 'lint-results'),
               PATH=f'{work.parent / "bin"}:{os.environ["PATH"]}')
    r = subprocess.run([str(SCRIPT)], check=False, env=env, capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def calls(work):
    return (work / 'tools-builds' / 'make-calls').read_text().splitlines()


def test_builds_the_base_and_each_commit_touching_tools_or_uapi(work):
    tree = work / 'linux'
    commit(tree, 'kernel only', {'net/core/dev.c': 'int a;\nint b;\n'})
    commit(tree, 'a kernel header', {'include/linux/netdevice.h': 'int c;\n'})
    commit(tree, 'a uapi header', {'include/uapi/linux/netdev.h': 'int c;\n'})
    commit(tree, 'move the warning', {'tools/testing/selftests/net/busy_poller.c': 'int x;\nWARN old\n'})
    rc, out = run(work)
    assert rc == 0, out
    assert 'base: 1 warnings' in out
    assert 'patch 1/4: no tools/ or uapi file: kernel only' in out
    assert 'patch 2/4: no tools/ or uapi file: a kernel header' in out
    assert 'patch 3/4: selftests built, 1 warnings, nothing new: a uapi header' in out
    assert 'patch 4/4: selftests built, 1 warnings, nothing new: move the warning' in out
    assert len(calls(work)) == 3, calls(work)


def test_new_warning_fails_and_is_shown(work):
    tree = work / 'linux'
    commit(tree, 'adds one', {'tools/testing/selftests/drivers/net/t.c': 'WARN new\n',
                              'tools/testing/selftests/drivers/net/.gitignore': 't\n'})
    rc, out = run(work)
    assert rc == 1, out
    assert 'patch 1/1: new warnings or files in the selftests\' build: adds one' in out
    assert '  t.c: warning: WARN new [-Wfake]' in out


def test_program_missing_from_gitignore_fails(work):
    """the build leaves a file git status shows: the .gitignore trap"""
    tree = work / 'linux'
    commit(tree, 'adds a program', {'tools/testing/selftests/net/newprog.c': 'int main;\n'})
    rc, out = run(work)
    assert rc == 1, out
    assert '  status ?? tools/testing/selftests/net/newprog' in out
    commit(tree, 'ignores it', {'tools/testing/selftests/net/.gitignore': GITIGNORE + 'newprog\n'})
    rc, out = run(work)
    assert 'patch 2/2: selftests built, 1 warnings, nothing new: ignores it' in out


def test_every_build_starts_clean_so_old_warnings_are_printed_again(work):
    """a program built at the base would print no warning at the next
    build without git clean -x: each build counts the old one"""
    tree = work / 'linux'
    commit(tree, 'one', {'tools/testing/selftests/net/lib.sh': 'x\n'})
    rc, out = run(work)
    assert rc == 0, out
    assert 'patch 1/1: selftests built, 1 warnings, nothing new: one' in out


def test_a_broken_program_fails_the_commit(work):
    tree = work / 'linux'
    commit(tree, 'breaks', {'tools/testing/selftests/net/busy_poller.c': 'BREAK\n'})
    rc, out = run(work)
    assert rc == 1, out
    assert 'patch 1/1: the selftests\' build failed: breaks' in out
    assert 'error: broken' in out


def test_a_target_outside_the_list_fails(work):
    tree = work / 'linux'
    commit(tree, 'elsewhere', {'tools/testing/selftests/bpf/t.sh': 'x\n'})
    rc, out = run(work)
    assert rc == 1, out
    assert 'touches selftests outside KSFT_TARGETS' in out and ': bpf: elsewhere' in out


def test_a_build_without_warnings_counts_none(work):
    tree = work / 'linux'
    commit(tree, 'drop the warning', {'tools/testing/selftests/net/busy_poller.c': 'int x;\n'})
    rc, out = run(work)
    assert rc == 0, out
    assert 'patch 1/1: selftests built, 0 warnings, nothing new: drop the warning' in out


def test_shared_dirs_and_nested_targets_are_listed(work):
    """lib/ and kselftest/ are built with the targets; a target's subdir is
    the target's (drivers/net/virtio_net is one too)"""
    tree = work / 'linux'
    commit(tree, 'shared', {'tools/testing/selftests/lib/py/x.py': 'x\n',
                            'tools/testing/selftests/kselftest/ktap.sh': 'x\n',
                            'tools/testing/selftests/net/lib/y.sh': 'x\n',
                            'tools/testing/selftests/drivers/net/virtio_net/z.sh': 'x\n'})
    rc, out = run(work)
    assert rc == 0, out
    assert 'outside KSFT_TARGETS' not in out


def test_a_target_whose_new_files_git_ignores_stops_the_check(work):
    """the positive control of the status check: were a new file in a
    target ignored, no missing .gitignore line could ever show"""
    tree = work / 'linux'
    commit(tree, 'ignores all', {'tools/testing/selftests/net/.gitignore': '*\n'})
    git(tree, 'tag', '-f', 'base')
    commit(tree, 'adds a program', {'tools/testing/selftests/net/newprog.c': 'int main;\n'})
    rc, out = run(work)
    assert rc != 0, out
    assert 'git ignores new files in tools/testing/selftests/net' in out
    assert 'the untracked-file check could not fail' in out
    assert not (work / 'tools-builds' / 'make-calls').exists()


def test_a_second_run_replays_each_build_and_judges_again(work):
    """a build's output is kept by the tree it built: a second run builds
    nothing and fails the same commit; a failed build is built again"""
    tree = work / 'linux'
    commit(tree, 'adds one', {'tools/testing/selftests/drivers/net/t.c': 'WARN new\n',
                              'tools/testing/selftests/drivers/net/.gitignore': 't\n'})
    commit(tree, 'breaks', {'tools/testing/selftests/net/busy_poller.c': 'BREAK\n'})
    rc, first = run(work)
    assert rc == 1, first
    built = len(calls(work))
    rc, out = run(work)
    assert rc == 1, out
    assert 'patch 1/2: new warnings or files in the selftests\' build: adds one' in out
    assert '  t.c: warning: WARN new [-Wfake]' in out
    assert 'patch 2/2: the selftests\' build failed: breaks' in out
    assert '2 of the builds replayed' in out
    # the base and patch 1 replayed, the failed patch 2 built again
    assert len(calls(work)) == built + 1, calls(work)
