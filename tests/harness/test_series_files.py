"""The checks of the series as files: check-new-files.py (a patch that
creates a file the base already has, the .gitignore that stopped `git am` on
a real 6.12 tree) and check-series-files.py (counts, numbering and [PATCH n/N]
subjects against the series files), on small made-up trees and series, and
check-series-files.py on the committed patches/."""
import pathlib
import subprocess

TOP = pathlib.Path(__file__).parent.parent.parent
NEW_FILES = TOP / 'scripts' / 'check-new-files.py'
SERIES_FILES = TOP / 'scripts' / 'check-series-files.py'


def git(repo, *args):
    return subprocess.run(['git', '-C', str(repo), *args], check=True,
                          capture_output=True, text=True).stdout


def base_repo(tmp_path):
    """A base tree with a dotfile, committed the way fetch-base.sh does."""
    repo = tmp_path / 'base'
    (repo / 'tools').mkdir(parents=True)
    (repo / '.gitignore').write_text('/*\n')      # ignores everything, as Debian's
    (repo / 'tools' / '.gitignore').write_text('a.out\n')
    (repo / 'tools' / 'lib.sh').write_text('one\n')
    git(tmp_path, 'init', '-q', str(repo))
    git(repo, 'add', '-A', '-f')
    git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.invalid',
        'commit', '-q', '-m', 'base')
    git(repo, 'tag', 'tarball')
    return repo


def patch_of(repo, tmp_path, name, change):
    """A format-patch file of CHANGE (a function editing the tree), made on
    a scratch branch and undone."""
    git(repo, 'checkout', '-q', '-b', name)
    change(repo)
    git(repo, 'add', '-A', '-f')
    git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.invalid',
        'commit', '-q', '-m', name)
    out = tmp_path / f'{name}.patch'
    out.write_text(git(repo, 'format-patch', '--stdout', '-1'))
    git(repo, 'checkout', '-q', '-')
    return out


def run(*args):
    return subprocess.run([*map(str, args)], capture_output=True, text=True)


def test_patch_creating_a_file_the_base_has_fails(tmp_path):
    # made on a base without the dotfile, as the old fetch-base made it:
    # the patch creates tools/.gitignore, which every real tree has
    bare = tmp_path / 'bare'
    (bare / 'tools').mkdir(parents=True)
    (bare / 'tools' / 'lib.sh').write_text('one\n')
    git(tmp_path, 'init', '-q', str(bare))
    git(bare, 'add', '-A')
    git(bare, '-c', 'user.name=t', '-c', 'user.email=t@example.invalid',
        'commit', '-q', '-m', 'bare')
    p = patch_of(bare, tmp_path, 'creates-gitignore',
                 lambda r: (r / 'tools' / '.gitignore').write_text('busy_poller\n'))
    repo = base_repo(tmp_path)
    r = run(NEW_FILES, repo, 'tarball', p)
    assert r.returncode == 1
    assert 'creates tools/.gitignore, which the tree already has' in r.stdout


def test_patch_modifying_existing_and_creating_new_passes(tmp_path):
    repo = base_repo(tmp_path)
    p1 = patch_of(repo, tmp_path, 'modify', lambda r: (
        (r / 'tools' / '.gitignore').write_text('a.out\nbusy_poller\n'),
        (r / 'tools' / 'new.sh').write_text('new\n')))
    r = run(NEW_FILES, repo, 'tarball', p1)
    assert r.returncode == 0, r.stdout
    # a second patch of the series creating the same file again fails
    r = run(NEW_FILES, repo, 'tarball', p1, p1)
    assert r.returncode == 1
    assert 'creates tools/new.sh' in r.stdout


def test_patch_changing_a_missing_file_fails(tmp_path):
    repo = base_repo(tmp_path)
    p = patch_of(repo, tmp_path, 'edit-lib', lambda r: (r / 'tools' / 'lib.sh').write_text('two\n'))
    git(repo, 'rm', '-q', 'tools/lib.sh')
    git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.invalid',
        'commit', '-q', '-m', 'drop')
    r = run(NEW_FILES, repo, 'HEAD', p)
    assert r.returncode == 1
    assert 'changes tools/lib.sh, which the tree does not have' in r.stdout


def make_series(top, counts, subjects=None, cover=True):
    """patches/<base> with one directory per series and its patches"""
    top.mkdir(parents=True, exist_ok=True)
    lines = ['# test series']
    for d, n in counts:
        lines.append(f'{d} {n}')
        (top / d).mkdir()
        names = []
        width = len(str(n))
        for i in range(1, n + 1):
            name = f'{i:04d}-patch-{i}.patch'
            subj = (subjects or {}).get((d, i), f'[PATCH {i:0{width}d}/{n}] net: change {i}')
            (top / d / name).write_text(f'From: t <t@example.invalid>\nSubject: {subj}\n\nbody\n')
            names.append(name)
        (top / d / 'series').write_text('\n'.join(names) + '\n')
        if cover:
            (top / d / '0000-cover-letter.patch').write_text(
                f'Subject: [PATCH {0:0{width}d}/{n}] net: the series\n\ntext\n')
    (top / 'series').write_text('\n'.join(lines) + '\n')
    return top


def test_consistent_series_pass(tmp_path):
    top = make_series(tmp_path / 'p', [('one', 3), ('two', 12)])
    r = run(SERIES_FILES, top)
    assert r.returncode == 0, r.stdout


def test_wrong_count_numbering_and_subject_fail(tmp_path):
    top = make_series(tmp_path / 'p', [('one', 3)],
                      subjects={('one', 2): '[PATCH 2/44] net: change 2'})
    (top / 'series').write_text('one 4\n')
    r = run(SERIES_FILES, top)
    assert r.returncode == 1
    assert 'one: series counts 4 patches, one/series lists 3' in r.stdout
    assert 'does not start with "[PATCH 2/3]"' in r.stdout


def test_more_than_15_patches_and_template_cover_fail(tmp_path):
    top = make_series(tmp_path / 'p', [('big', 16)])
    (top / 'big' / '0000-cover-letter.patch').write_text(
        'Subject: [PATCH 00/16] *** SUBJECT HERE ***\n\n*** BLURB HERE ***\n')
    r = run(SERIES_FILES, top)
    assert r.returncode == 1
    assert 'netdev takes at most 15' in r.stdout
    assert "still git's template" in r.stdout



def test_cover_letter_text_wider_than_75_columns_fails(tmp_path):
    top = make_series(tmp_path / 'p', [('one', 2)])
    cover = top / 'one' / '0000-cover-letter.patch'
    wide = 'word ' * 16 + 'end'                    # 83 columns
    cover.write_text('Subject: [PATCH 0/2] net: the series\n\ntext\n' + wide + '\n'
                     'https://example.invalid/' + 'x' * 80 + '\n'
                     'Fixes: 0123456789ab ("net: ' + 'a long subject ' * 5 + '")\n'
                     'Changes since v1 (3):\n' + wide + '\n\n'
                     't (2):\n  net: change 1\n\n ' + 'a' * 90 + ' | 2 +\n')
    r = run(SERIES_FILES, top)
    assert r.returncode == 1
    # the URL, the tag line and the diffstat below the shortlog are not
    # counted; a "(3):" line that is not the shortlog does not end the text
    assert r.stdout == ('one/0000-cover-letter.patch:4: 83 columns, the text is wrapped at 75\n'
                        'one/0000-cover-letter.patch:8: 83 columns, the text is wrapped at 75\n')


def test_tree_field_sets_the_subject_prefix(tmp_path):
    # "DIR COUNT net": the subjects must read [PATCH net n/N]
    top = make_series(tmp_path / 'p', [('fixes', 2)],
                      subjects={('fixes', 1): '[PATCH net 1/2] net: fix 1'})
    (top / 'series').write_text('fixes 2 net\n')
    r = run(SERIES_FILES, top)
    assert r.returncode == 1
    assert 'fixes/0002-patch-2.patch: subject "[PATCH 2/2] net: change 2" ' \
        'does not start with "[PATCH net 2/2]"' in r.stdout
    assert '0000-cover-letter.patch: subject "[PATCH 0/2] net: the series" ' \
        'does not start with "[PATCH net 0/2]"' in r.stdout
    assert 'fixes/0001' not in r.stdout
    (top / 'series').write_text('fixes 2 bpf\n')
    r = run(SERIES_FILES, top)
    assert 'is not "DIRECTORY COUNT [net|net-next]"' in r.stdout


def test_committed_series_are_consistent():
    for base in ('6.12', '7.3'):
        r = run(SERIES_FILES, TOP / 'patches' / base)
        assert r.returncode == 0, (base, r.stdout)
