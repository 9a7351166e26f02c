#!/usr/bin/env python3
"""usage: check-amends.py REPO BASE SERIES_COUNT...

For each series (the commits BASE..HEAD of git repository REPO, split by
the patch counts given, in order), list the lines each patch removes or
changes that an earlier patch of the same series added: `git blame` of the
parent, for every line a patch's diff deletes. Such a patch either fixes
the earlier one (then it belongs in it, `git rebase -i` fixup) or is a
separate logical step that reworks it; the list is for a reviewer to tell
which. Prints one line per (patch, earlier patch, file) with the number of
lines, and a summary per series. Exits 0 (it reports, it does not judge)."""
import collections
import re
import subprocess
import sys


def git(repo, *args):
    return subprocess.run(['git', '-C', repo, *args], check=True,
                          capture_output=True, text=True, errors='replace').stdout


def removed_ranges(repo, commit):
    """{path: [(start, count), ...]} of the parent's lines the commit removes"""
    out = git(repo, 'diff', '-U0', '--no-renames', f'{commit}^', commit)
    ranges = collections.defaultdict(list)
    path = None
    for line in out.splitlines():
        if line.startswith('--- '):
            path = None if line == '--- /dev/null' else line[6:]
        m = re.match(r'@@ -(\d+)(?:,(\d+))? \+', line)
        if m and path:
            start, count = int(m.group(1)), int(m.group(2) if m.group(2) is not None else 1)
            if count:
                ranges[path].append((start, count))
    return ranges


def blame_commits(repo, commit, path, start, count):
    out = git(repo, 'blame', '--porcelain', '-L', f'{start},+{count}', f'{commit}^', '--', path)
    shas = []
    for line in out.splitlines():
        m = re.match(r'^([0-9a-f]{40}) \d+ \d+', line)
        if m:
            shas.append(m.group(1))
    return shas


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    repo, base, counts = sys.argv[1], sys.argv[2], [int(c) for c in sys.argv[3:]]
    commits = git(repo, 'rev-list', '--reverse', f'{base}..HEAD').split()
    if sum(counts) != len(commits):
        sys.exit(f'{base}..HEAD has {len(commits)} commits, the counts add up to {sum(counts)}')
    subject = {c: git(repo, 'log', '-1', '--format=%s', c).strip() for c in commits}
    pos = 0
    for n, count in enumerate(counts, 1):
        series = commits[pos:pos + count]
        index = {c: i + 1 for i, c in enumerate(series)}
        pos += count
        hits = 0
        for c in series:
            per = collections.Counter()
            for path, ranges in removed_ranges(repo, c).items():
                for start, cnt in ranges:
                    for sha in blame_commits(repo, c, path, start, cnt):
                        if sha in index and sha != c:
                            per[(sha, path)] += 1
            for (sha, path), lines in sorted(per.items(), key=lambda kv: index[kv[0][0]]):
                hits += 1
                print(f'series {n} patch {index[c]} ({subject[c]}) changes {lines} line(s) '
                      f'of {path} that patch {index[sha]} ({subject[sha]}) added')
        print(f'series {n}: {count} patches, {hits} (patch, earlier patch, file) pairs')


if __name__ == '__main__':
    main()
