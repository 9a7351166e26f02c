#!/usr/bin/env python3
"""usage: check-series-files.py PATCHES_DIR

Check that patches/<base> reads as postable series: the top-level `series`
names each series directory with its patch count and, optionally, the
netdev tree it is for ("net" or "net-next": its subjects then read
"[PATCH net n/N]"); each directory's `series`
lists exactly its NNNN-*.patch files, numbered 0001..N in order; patch n has
the subject "[PATCH n/N] ..." (or "[PATCH] ..." when N is 1), its cover
letter "[PATCH 0/N] ..." with a subject and text of its own (not git's
template) wrapped at 75 columns; netdev takes at most 15 patches a series.
Prints one line per problem and exits 1 if there is any."""
import os
import re
import sys

MAX_PATCHES = 15  # Documentation/process/maintainer-netdev.rst
# a mail's text, as a commit message's (checkpatch's 75 for those)
COVER_WIDTH = 75
# git's shortlog of the series, where the letter's own text ends
SHORTLOG = re.compile(r'^\S.* \(\d+\):$')
# tag lines keep their length, as in commit messages (Fixes: with a subject)
TAG = re.compile(r'^[A-Z][A-Za-z-]+: ')


def long_lines(text):
    """(line number, line) of a cover letter's text (after its headers,
    before git's shortlog) wider than COVER_WIDTH; a line holding a URL and a
    tag line (Fixes: ...) may be"""
    head, _, body = text.partition('\n\n')
    n = head.count('\n') + 3
    body = body.split('\n')
    for i, line in enumerate(body):
        # the shortlog: "Name (N):" with the first subject indented below
        if SHORTLOG.match(line) and i + 1 < len(body) and body[i + 1].startswith('  '):
            return
        if len(line) > COVER_WIDTH and '://' not in line and not TAG.match(line):
            yield n, line
        n += 1


def lines(path):
    with open(path) as f:
        return [l.strip() for l in f if l.strip() and not l.lstrip().startswith('#')]


def subject(path):
    with open(path) as f:
        head = f.read().partition('\n\n')[0]
    m = re.search(r'^Subject: (.*(?:\n .*)*)', head, re.M)
    return re.sub(r'\n ', ' ', m.group(1)) if m else None


def check(top):
    problems = []
    if not os.path.isfile(os.path.join(top, 'series')):
        return [f'{top}/series: missing']
    for entry in lines(os.path.join(top, 'series')):
        fields = entry.split()
        if len(fields) not in (2, 3) or not fields[1].isdigit() or \
           (len(fields) == 3 and fields[2] not in ('net', 'net-next')):
            problems.append(f'series: "{entry}" is not "DIRECTORY COUNT [net|net-next]"')
            continue
        d, count = fields[0], int(fields[1])
        tag = 'PATCH' if len(fields) == 2 else f'PATCH {fields[2]}'
        where = os.path.join(top, d)
        if not os.path.isfile(os.path.join(where, 'series')):
            problems.append(f'{d}/series: missing')
            continue
        listed = lines(os.path.join(where, 'series'))
        present = sorted(f for f in os.listdir(where)
                         if re.match(r'[0-9]{4}-.*\.patch$', f) and not f.startswith('0000-'))
        if listed != present:
            problems.append(f'{d}/series lists {listed} but the directory has {present}')
        if len(listed) != count:
            problems.append(f'{d}: series counts {count} patches, {d}/series lists {len(listed)}')
        if len(listed) > MAX_PATCHES:
            problems.append(f'{d}: {len(listed)} patches, netdev takes at most {MAX_PATCHES} a series')
        n_total = len(listed)
        for i, p in enumerate(listed, 1):
            if not p.startswith(f'{i:04d}-'):
                problems.append(f'{d}/{p}: is number {i} in {d}/series')
            path = os.path.join(where, p)
            if not os.path.isfile(path):
                continue
            s = subject(path)
            want = f'[{tag}]' if n_total == 1 else f'[{tag} {i:0{len(str(n_total))}d}/{n_total}]'
            if not s or not s.startswith(want + ' '):
                problems.append(f'{d}/{p}: subject "{s}" does not start with "{want}"')
        cover = os.path.join(where, '0000-cover-letter.patch')
        if n_total > 1:
            if not os.path.isfile(cover):
                problems.append(f'{d}: no cover letter (0000-cover-letter.patch)')
                continue
            s = subject(cover)
            want = f'[{tag} {0:0{len(str(n_total))}d}/{n_total}]'
            if not s or not s.startswith(want + ' '):
                problems.append(f'{d}/0000-cover-letter.patch: subject "{s}" does not start with "{want}"')
            with open(cover) as f:
                text = f.read()
            if '*** SUBJECT HERE ***' in text or '*** BLURB HERE ***' in text:
                problems.append(f'{d}/0000-cover-letter.patch: still git\'s template')
            if '{{' in text:
                problems.append(f'{d}/0000-cover-letter.patch: has a {{...}} placeholder left')
            for n, line in long_lines(text):
                problems.append(f'{d}/0000-cover-letter.patch:{n}: {len(line)} columns, '
                                f'the text is wrapped at {COVER_WIDTH}')
    return problems


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    problems = check(sys.argv[1])
    for p in problems:
        print(p)
    sys.exit(1 if problems else 0)


if __name__ == '__main__':
    main()
