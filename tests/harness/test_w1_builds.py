"""scripts/w1-builds.sh (make lint's w1-builds) on a fake kernel tree: a
commit that adds a warning to a file it touches fails, one that moves or
keeps the old warnings passes, and only files the debug build compiles are
built. `make` is a stub that prints a gcc warning for each line of the
source holding "WARN", with the path gcc gives under O= (../linux/...)."""
import os
import pathlib
import subprocess

import pytest

from fake_tree import commit, git

TOP = pathlib.Path(__file__).parent.parent.parent
W1 = TOP / 'scripts' / 'w1-builds.sh'

FAKE_MAKE = r'''#!/usr/bin/env python3
import os, pathlib, sys
tree = None
for i, a in enumerate(sys.argv):
    if a == '-C':
        tree = pathlib.Path(sys.argv[i + 1])
w1 = 'W=1' in sys.argv
out = pathlib.Path(next(a[2:] for a in sys.argv if a.startswith('O=')))
i386 = 'ARCH=i386' in sys.argv
if 'allnoconfig' in sys.argv:
    # the fragments' options, and the 32-bit one i386 selects
    frags = next(a.split('=', 1)[1] for a in sys.argv if a.startswith('KCONFIG_ALLCONFIG='))
    lines = [line for line in pathlib.Path(frags).read_text().splitlines()
             if line.startswith('CONFIG_')]
    out.mkdir(parents=True, exist_ok=True)
    # FAKE_I386_DROPS: an option i386's Kconfig drops
    drops = os.environ.get('FAKE_I386_DROPS', '-') if i386 else '-'
    lines = [line for line in lines if not line.startswith(drops + '=')]
    (out / '.config').write_text(''.join(line + '\n' for line in lines) +
                                 ('CONFIG_X86_32=y\n' if i386 else ''))
    sys.exit(0)
if 'olddefconfig' in sys.argv:
    # Kconfig drops what the tree does not declare (a file "Kconfig")
    kconfig = tree / 'Kconfig'
    known = (kconfig.read_text().split() if kconfig.exists() else []) + ['X86_32']
    lines = (out / '.config').read_text().splitlines()
    keep = [line for line in lines
            if any(f'CONFIG_{k}=' in line or f'CONFIG_{k} ' in line for k in known)]
    (out / '.config').write_text(''.join(line + '\n' for line in keep))
    sys.exit(0)
log = pathlib.Path(tree).parent / 'make-calls'
with open(log, 'a') as f:
    f.write(out.name + ' ' + ' '.join(a for a in sys.argv[1:] if a.endswith('.o') or a == 'W=1') + '\n')
for a in sys.argv[1:]:
    if not a.endswith('.o'):
        continue
    src = a[:-2] + '.c'
    print(f'  CC      {a}')
    if not (tree / src).exists():
        print(f"make[3]: *** No rule to make target '{a}'.  Stop.", file=sys.stderr)
        sys.exit(2)
    if 'BREAK' in (tree / src).read_text():
        print(f'../linux/{src}:1:1: error: broken', file=sys.stderr)
        sys.exit(2)
    for n, line in enumerate((tree / src).read_text().splitlines(), 1):
        if 'WARN32' in line and not i386:
            continue
        if 'WARN' in line and w1:
            print(f'../linux/{src}:{n}:5: warning: {line.strip()} [-Wfake]', file=sys.stderr)
        if 'KDOC' in line and w1:
            print(f'Warning: {tree}/{src}:{n} {line.strip()}', file=sys.stderr)
        if 'OBJTOOL' in line:
            print(f'{a}: warning: objtool: {line.strip()}', file=sys.stderr)
'''


@pytest.fixture
def work(tmp_path):
    w = tmp_path / 'work'
    tree = w / 'linux'
    tree.mkdir(parents=True)
    git(tree, 'init', '-q')
    commit(tree, 'base', {'Kconfig': 'NET\n', 'net/core/dev.c': 'int a;\nWARN old\n', 'net/core/other.c': 'int b;\n',
                          'tools/x.c': 'WARN\n'})
    git(tree, 'tag', 'base')
    b = w / 'build-debug'
    (b / 'net/core').mkdir(parents=True)
    (b / '.config').write_text('CONFIG_NET=y\nCONFIG_THREADED_NAPI=y\n')
    (b / 'net/core/dev.o').write_text('')
    (b / 'net/core/other.o').write_text('')
    bin_dir = tmp_path / 'bin'
    bin_dir.mkdir()
    (bin_dir / 'make').write_text(FAKE_MAKE)
    (bin_dir / 'make').chmod(0o755)
    return w


def run(work, i386='0'):
    env = dict(os.environ, WORK=str(work), BASE='7.3', LINT_RESULTS=str(work / 'lint-results'), W1_FLAVOURS='debug', W1_I386=i386,
               PATH=f'{work.parent / "bin"}:{os.environ["PATH"]}')
    r = subprocess.run([str(W1)], check=False, env=env, capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def test_moved_and_kept_warnings_pass(work):
    tree = work / 'linux'
    commit(tree, 'move the old warning', {'net/core/dev.c': 'int a;\nint c;\n\nWARN old\n'})
    commit(tree, 'tools only', {'tools/x.c': 'WARN\nWARN new\n'})
    rc, out = run(work)
    assert rc == 0, out
    assert 'patch 1/2: W=1 net/core/dev.c (debug): 1 warnings, none new' in out
    assert 'patch 2/2: no C file of the kernel build' in out


def test_new_warning_fails_and_is_shown(work):
    tree = work / 'linux'
    commit(tree, 'fine', {'net/core/other.c': 'int b;\nint d;\n'})
    commit(tree, 'adds one', {'net/core/dev.c': 'int a;\nWARN old\nWARN old\nWARN new\n'})
    rc, out = run(work)
    assert rc == 1, out
    assert 'patch 2/2: new W=1 warnings in net/core/dev.c: adds one' in out
    # the multiset: a second copy of the old warning is new too
    assert out.count('  debug net/core/dev.c: warning: WARN old [-Wfake]') == 1
    assert '  debug net/core/dev.c: warning: WARN new [-Wfake]' in out


def test_builds_with_w1_before_and_after(work):
    tree = work / 'linux'
    commit(tree, 'touch dev', {'net/core/dev.c': 'int a;\nWARN old\nint e;\n'})
    rc, out = run(work)
    assert rc == 0, out
    calls = (work / 'w1' / 'make-calls').read_text().splitlines()
    assert calls.count('build-debug W=1 net/core/dev.o') == 2, calls


def test_file_the_debug_build_does_not_compile_is_skipped(work):
    tree = work / 'linux'
    (work / 'build-debug/net/core/other.o').unlink()
    commit(tree, 'only other', {'net/core/other.c': 'WARN new\n'})
    rc, out = run(work)
    assert rc == 0, out
    assert 'patch 1/1: no C file of the kernel build' in out


def test_new_file_is_built_after_only_and_its_warnings_are_new(work):
    tree = work / 'linux'
    (work / 'build-debug/net/core/new.o').write_text('')
    commit(tree, 'adds new.c', {'net/core/new.c': 'int x;\nWARN in a new file\n'})
    rc, out = run(work)
    assert rc == 1, out
    assert 'patch 1/1: new W=1 warnings in net/core/new.c: adds new.c' in out
    assert 'before it failed' not in out
    calls = (work / 'w1' / 'make-calls').read_text().splitlines()
    assert calls == ['build-debug W=1 net/core/new.o'], calls


def test_kernel_doc_and_objtool_warnings_count(work):
    tree = work / 'linux'
    commit(tree, 'kdoc', {'net/core/dev.c': 'int a;\nWARN old\n/* KDOC no description */\n'})
    commit(tree, 'objtool', {'net/core/other.c': 'int b;\n/* OBJTOOL unreachable */\n'})
    rc, out = run(work)
    assert rc == 1, out
    assert '  debug net/core/dev.c: warning: /* KDOC no description */' in out
    assert '  debug net/core/other.o: warning: objtool: /* OBJTOOL unreachable */' in out


def test_a_failing_build_fails_and_shows_why(work):
    tree = work / 'linux'
    commit(tree, 'breaks dev', {'net/core/dev.c': 'int a;\nBREAK\n'})
    rc, out = run(work)
    assert rc == 1, out
    assert 'patch 1/1: the W=1 build failed: breaks dev' in out
    assert 'the debug build failed' in out and 'error: broken' in out


def test_deleted_files_are_not_built(work):
    tree = work / 'linux'
    git(tree, 'rm', '-q', 'net/core/other.c')
    git(tree, 'commit', '-q', '-m', 'drop other')
    rc, out = run(work)
    assert rc == 0, out
    assert 'patch 1/1: no C file of the kernel build: drop other' in out


FAKE_CONFIGURE = r'''#!/bin/sh
# configure-kernel.sh nothreaded: the debug .config with knapid off
mkdir -p "$WORK/build-$1"
printf 'CONFIG_NET=y\n# CONFIG_THREADED_NAPI is not set\n' > "$WORK/build-$1/.config"
'''


def test_a_flavour_kconfig_makes_the_same_is_not_built_again(work, tmp_path):
    """Before the series declares CONFIG_THREADED_NAPI, debug and nothreaded
    are one kernel: built once, its warnings counted for both, so that the
    commit adding the option finds none new in the second flavour."""
    top = tmp_path / 'top' / 'scripts'
    top.mkdir(parents=True)
    for name in ('w1-builds.sh', 'common.sh'):
        (top / name).write_text((TOP / 'scripts' / name).read_text())
        (top / name).chmod(0o755)
    (top / 'configure-kernel.sh').write_text(FAKE_CONFIGURE)
    (top / 'configure-kernel.sh').chmod(0o755)
    tree = work / 'linux'
    commit(tree, 'touch dev', {'net/core/dev.c': 'int a;\nWARN old\nint e;\n'})
    commit(tree, 'add the option', {'Kconfig': 'NET\nTHREADED_NAPI\n',
                                    'net/core/dev.c': 'int a;\nWARN old\nint f;\n'})
    env = dict(os.environ, WORK=str(work), BASE='7.3', LINT_RESULTS=str(work / 'lint-results'), W1_FLAVOURS='debug nothreaded', W1_I386='0',
               PATH=f'{work.parent / "bin"}:{os.environ["PATH"]}')
    r = subprocess.run([str(top / 'w1-builds.sh')], check=False, env=env, capture_output=True, text=True)
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    assert 'patch 2/2: W=1 net/core/dev.c (debug nothreaded): 2 warnings, none new: add the option' in out
    calls = (work / 'w1' / 'make-calls').read_text().splitlines()
    # patch 1 before and after: debug only; patch 2 before is patch 1 after
    # (the same tree and files: replayed); patch 2 after: both
    assert calls.count('build-debug W=1 net/core/dev.o') == 3, calls
    assert calls.count('build-nothreaded W=1 net/core/dev.o') == 1, calls


def test_i386_builds_the_series_files_at_the_base_and_the_top(work):
    """NIPA's build_32bit, reduced: every file the series touched, with
    W=1 for i386, once at the base and once at the top"""
    tree = work / 'linux'
    commit(tree, 'touch dev', {'net/core/dev.c': 'int a;\nWARN old\nint e;\n'})
    commit(tree, 'touch other', {'net/core/other.c': 'int b;\nint g;\n'})
    rc, out = run(work, i386='1')
    assert rc == 0, out
    assert 'i386: W=1 net/core/dev.c net/core/other.c at the base and the top: ' \
        '1 warnings, none new' in out
    calls = (work / 'w1' / 'make-calls').read_text().splitlines()
    assert calls.count('build-i386 W=1 net/core/dev.o net/core/other.o') == 2, calls
    assert (work / 'w1' / 'build-i386' / 'config.top').read_text().count('CONFIG_X86_32=y') == 1


def test_i386_only_warning_fails(work):
    tree = work / 'linux'
    commit(tree, 'a 32-bit warning', {'net/core/dev.c': 'int a;\nWARN old\n/* WARN32 cast */\n'})
    rc, out = run(work, i386='1')
    assert rc == 1, out
    assert 'patch 1/1: W=1 net/core/dev.c (debug): 1 warnings, none new' in out
    assert 'i386: new W=1 warnings at the top of the series in net/core/dev.c' in out
    assert '  i386 net/core/dev.c: warning: /* WARN32 cast */ [-Wfake]' in out


def test_i386_config_that_drops_an_option_fails(work, monkeypatch):
    """an option of the fragments that i386's Kconfig drops stops the step
    (the build would test another kernel than the one asked for)"""
    tree = work / 'linux'
    commit(tree, 'touch dev', {'net/core/dev.c': 'int a;\n'})
    monkeypatch.setenv('FAKE_I386_DROPS', 'CONFIG_THREADED_NAPI')
    rc, out = run(work, i386='1')
    assert rc != 0, out
    assert 'CONFIG_THREADED_NAPI' in out, out
    assert 'the i386 configuration drops options of the fragments' in out, out


def test_a_second_run_replays_each_build_and_judges_again(work):
    """the output of a build is kept by its inputs (the tree, the files,
    the .configs): a second run builds nothing and gives the same verdicts,
    the new warning included"""
    tree = work / 'linux'
    commit(tree, 'touch dev', {'net/core/dev.c': 'int a;\nWARN old\nint e;\n'})
    commit(tree, 'adds one', {'net/core/dev.c': 'int a;\nWARN old\nWARN new\n'})
    rc, first = run(work)
    assert rc == 1, first
    built = len((work / 'w1' / 'make-calls').read_text().splitlines())
    rc, out = run(work)
    assert rc == 1, out
    assert len((work / 'w1' / 'make-calls').read_text().splitlines()) == built
    assert 'patch 1/2: W=1 net/core/dev.c (debug): 1 warnings, none new: touch dev' in out
    assert 'patch 2/2: new W=1 warnings in net/core/dev.c: adds one' in out
    assert '  debug net/core/dev.c: warning: WARN new [-Wfake]' in out
    assert '4 of the builds replayed' in out
    # another tree is another input: that commit is built again
    git(tree, 'reset', '-q', '--hard', 'HEAD~1')
    commit(tree, 'adds none', {'net/core/dev.c': 'int a;\nWARN old\nint g;\n'})
    rc, out = run(work)
    assert rc == 0, out
    assert len((work / 'w1' / 'make-calls').read_text().splitlines()) == built + 1
    assert '3 of the builds replayed' in out


def test_a_failed_build_is_not_kept(work):
    tree = work / 'linux'
    commit(tree, 'breaks dev', {'net/core/dev.c': 'int a;\nBREAK\n'})
    for _ in range(2):
        rc, out = run(work)
        assert rc == 1, out
        assert 'patch 1/1: the W=1 build failed: breaks dev' in out
    calls = (work / 'w1' / 'make-calls').read_text().splitlines()
    # each run: before (replayed in the second) and the failed after
    assert calls.count('build-debug W=1 net/core/dev.o') == 3, calls
