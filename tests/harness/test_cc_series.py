"""cc-series.py: To:/Cc: from get_maintainer.pl (a stub here) and the
people of the commit a Fixes: tag names (its authors and signers, from
git history or the pinned list); `check` fails on a file that lacks one."""
import pathlib
import subprocess
import sys

import pytest

CC = pathlib.Path(__file__).parent.parent.parent / 'scripts' / 'cc-series.py'
# the stub names a maintainer, a reviewer and a list for every patch
STUB = r'''#!/usr/bin/perl
print "Ann Maint <ann\@example.org> (maintainer:NETWORKING [GENERAL])\n";
print "Rob Rev <rob\@example.org> (reviewer:NETWORKING [GENERAL])\n";
print "netdev\@vger.kernel.org (open list:NETWORKING [GENERAL])\n";
'''
PATCH = '''From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: A U Thor <author@example.org>
Date: Thu, 26 Nov 2026 00:15:39 +0000
Subject: [PATCH net {n}/1] net: a fix with a long subject that git folds
 onto a second line

Text.

{fixes}Signed-off-by: A U Thor <author@example.org>
---
 net/core/dev.c | 1 +
'''
COVER = '''From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: A U Thor <author@example.org>
Date: Thu, 26 Nov 2026 00:15:39 +0000
Subject: [PATCH net 0/1] net: a series

Blurb.
'''


@pytest.fixture
def series(tmp_path):
    tree = tmp_path / 'tree'
    (tree / 'scripts').mkdir(parents=True)
    (tree / 'scripts/get_maintainer.pl').write_text(STUB)
    authors = tmp_path / 'authors'
    authors.write_text('# comment\n0123456789abcdef0123 "net: the blamed commit" '
                       'Eve Blamed <eve@example.org>, Co Dev <co@example.org>, '
                       'Ack Er <acker@example.org>\n')
    d = tmp_path / 'net'
    d.mkdir()
    (d / '0000-cover-letter.patch').write_text(COVER)
    (d / '0001-fix.patch').write_text(PATCH.format(
        n=1, fixes='Fixes: 0123456789ab ("net: the blamed commit")\n'))
    (d / 'series').write_text('0001-fix.patch\n')
    return tree, authors, d


def run(mode, tree, authors, d):
    r = subprocess.run([sys.executable, str(CC), mode, str(tree), str(authors), str(d)],
                       capture_output=True, text=True, check=False)
    return r.returncode, r.stdout + r.stderr


def test_write_then_check_passes(series):
    assert run('write', *series)[0] == 0
    rc, out = run('check', *series)
    assert rc == 0, out
    fix = (series[2] / '0001-fix.patch').read_text()
    head = fix.partition('\n\n')[0]
    assert 'To: Ann Maint <ann@example.org>\nCc: Rob Rev <rob@example.org>,' in head
    assert 'Eve Blamed <eve@example.org>' in head and 'Co Dev <co@example.org>' in head
    # the folded subject stays whole, the body untouched
    assert 'Subject: [PATCH net 1/1] net: a fix with a long subject that git folds\n onto' in head
    assert fix.endswith(PATCH.format(
        n=1, fixes='Fixes: 0123456789ab ("net: the blamed commit")\n').partition('\n\n')[2])
    cover = (series[2] / '0000-cover-letter.patch').read_text().partition('\n\n')[0]
    assert 'eve@example.org' in cover and 'ann@example.org' in cover


def test_write_twice_is_stable(series):
    run('write', *series)
    once = (series[2] / '0001-fix.patch').read_text()
    run('write', *series)
    assert (series[2] / '0001-fix.patch').read_text() == once


def test_patch_without_cc_fails(series):
    rc, out = run('check', *series)
    assert rc == 1
    assert '0001-fix.patch: not sent to Ann Maint <ann@example.org>' in out


@pytest.mark.parametrize('who', ['Co Dev <co@example.org>', 'Ack Er <acker@example.org>'],
                         ids=['co-author', 'acker'])
def test_missing_person_of_fixes_target_fails(series, who):
    """The target's authors and, as get_maintainer.pl --fixes adds them,
    its ackers must be Cc'd."""
    run('write', *series)
    p = series[2] / '0001-fix.patch'
    p.write_text(p.read_text().replace(who, 'x@example.org'))
    rc, out = run('check', *series)
    assert rc == 1 and who in out, out


def test_unknown_fixes_commit_is_an_error(series):
    p = series[2] / '0001-fix.patch'
    p.write_text(p.read_text().replace('0123456789ab', 'fedcba987654'))
    rc, out = run('write', *series)
    assert rc != 0 and 'fedcba987654 has no line in the authors file' in out


def test_fixes_without_quoted_subject_is_an_error(series):
    p = series[2] / '0001-fix.patch'
    p.write_text(p.read_text().replace('("net: the blamed commit")', 'net: the blamed commit'))
    rc, out = run('write', *series)
    assert rc != 0 and 'does not quote its subject' in out, out


def test_fixes_subject_must_match(series):
    p = series[2] / '0001-fix.patch'
    p.write_text(p.read_text().replace('net: the blamed commit', 'net: another commit'))
    rc, out = run('write', *series)
    assert rc != 0 and 'that commit is "net: the blamed commit"' in out, out


def test_fixes_target_from_history(series):
    """A tree with history: the target's trailers come from git."""
    tree, authors, d = series
    env = {'GIT_AUTHOR_NAME': 'Hist Author', 'GIT_AUTHOR_EMAIL': 'hist@example.org',
           'GIT_COMMITTER_NAME': 'C', 'GIT_COMMITTER_EMAIL': 'c@example.org',
           'HOME': str(tree), 'PATH': '/usr/bin:/bin'}
    subprocess.run(['git', 'init', '-q', str(tree)], check=True, env=env)
    subprocess.run(['git', '-C', str(tree), 'commit', '-q', '--allow-empty', '-m',
                    'net: from history\n\nText.\n\nSigned-off-by: Hist Author '
                    '<hist@example.org>\nReviewed-by: Re Viewer <rv@example.org>\n'
                    'Tested-by: Not Added <tester@example.org>'], check=True, env=env)
    sha = subprocess.run(['git', '-C', str(tree), 'rev-parse', 'HEAD'], check=True,
                         capture_output=True, text=True, env=env).stdout.strip()
    p = d / '0001-fix.patch'
    p.write_text(p.read_text().replace('0123456789ab ("net: the blamed commit")',
                                       f'{sha[:12]} ("net: from history")'))
    assert run('write', *series)[0] == 0
    head = p.read_text().partition('\n\n')[0]
    assert 'rv@example.org' in head and 'hist@example.org' in head, head
    assert 'tester@example.org' not in head and 'eve@example.org' not in head, head
