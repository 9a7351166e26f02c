#!/usr/bin/env python3
"""Judge one patch's `checkpatch.pl --strict --show-types` output.

usage: checkpatch-verdict.py TREE [KNOWN_COMMITS [PATCH]] < checkpatch-output

Exit 0 when the patch is clean: no ERROR, no WARNING, and no crashed helper
(a Python traceback from spdxcheck.py is a check that did not run). The one
exemption: LONG_LINE in a file whose header says it is generated (YNL's
"Do not edit directly, auto-generated from:"), because generated files must
be byte-identical to what the unmodified upstream generator emits. And with
KNOWN_COMMITS (patches/upstream-commits: "SHA1 SUBJECT" lines),
UNKNOWN_COMMIT_ID for a Fixes: tag whose id and subject match a line of it:
the base trees are tarballs without history, so checkpatch cannot look the
upstream commit up, and the file records it. And with PATCH,
FILE_PATH_CHANGES when every file the patch adds already matches an F:
pattern of a MAINTAINERS section of TREE (THE REST's catch-all aside):
checkpatch asks whether MAINTAINERS needs updating, and it does not. Each
exempted warning is printed, so an exemption is never silent.
"""
import pathlib
import re
import sys

REPORT = re.compile(r'^(ERROR|WARNING|CHECK):([A-Z0-9_]+):')
WHERE = re.compile(r'^#\d+: FILE: ([^:]+):')
GENERATED = re.compile(r'auto-generated|Do not edit directly')
UNKNOWN_ID = re.compile(r"Unknown commit id '([0-9a-f]{12,40})'")
FIXES = re.compile(r'Fixes: ([0-9a-f]{12,40}) \("(.*)"\)')


def known_commit(known, lines, i):
    """The UNKNOWN_COMMIT_ID report at lines[i] names a Fixes: tag whose id
    and subject are those of a line of KNOWN (a dict sha -> subject)."""
    m = UNKNOWN_ID.search(lines[i])
    if not m:
        return None
    for nxt in lines[i + 1:i + 4]:
        f = FIXES.search(nxt)
        if f and f.group(1) == m.group(1):
            for sha, subject in known.items():
                if sha.startswith(f.group(1)) and subject == f.group(2):
                    return f'{sha[:12]} ("{subject}")'
    return None


def generated(tree, path, cache={}):
    if path not in cache:
        try:
            with open(pathlib.Path(tree) / path, errors='replace') as f:
                head = ''.join(f.readline() for _ in range(5))
        except OSError:
            head = ''
        cache[path] = bool(GENERATED.search(head))
    return cache[path]


def maintained(tree, path):
    """PATH matches an F: pattern of TREE's MAINTAINERS (not "*" or "*/")."""
    import fnmatch
    with open(pathlib.Path(tree) / 'MAINTAINERS', errors='replace') as f:
        for line in f:
            if not line.startswith('F:\t'):
                continue
            pat = line[3:].strip()
            if pat in ('*', '*/'):
                continue
            if pat.endswith('/') and path.startswith(pat):
                return True
            if fnmatch.fnmatchcase(path, pat):
                return True
    return False


def added_files(patch):
    """The files PATCH creates."""
    with open(patch, errors='replace') as f:
        text = f.read()
    return re.findall(r'^diff --git a/\S+ b/(\S+)\nnew file mode', text, re.M)


def judge(tree, lines, known=None, patch=None):
    """Return (failures, exempted): lists of (level, type, file)."""
    failures, exempted = [], []
    for i, line in enumerate(lines):
        m = REPORT.match(line)
        if not m or m.group(1) == 'CHECK':
            continue
        level, kind = m.groups()
        path = None
        for nxt in lines[i + 1:i + 3]:
            w = WHERE.match(nxt)
            if w:
                path = w.group(1)
                break
        if kind == 'LONG_LINE' and path and generated(tree, path):
            exempted.append((level, kind, path))
        elif kind == 'FILE_PATH_CHANGES' and patch and added_files(patch) and \
                all(maintained(tree, a) for a in added_files(patch)):
            exempted.append((level, kind, ', '.join(added_files(patch))))
        elif kind == 'UNKNOWN_COMMIT_ID' and known and known_commit(known, lines, i):
            exempted.append((level, kind, known_commit(known, lines, i)))
        else:
            failures.append((level, kind, path))
    return failures, exempted


def main():
    if len(sys.argv) not in (2, 3, 4):
        print(__doc__, file=sys.stderr)
        return 2
    known = {}
    if len(sys.argv) >= 3:
        with open(sys.argv[2]) as f:
            for line in f:
                if line.strip() and not line.startswith('#'):
                    sha, _, subject = line.strip().partition(' ')
                    known[sha] = subject
    lines = sys.stdin.read().splitlines()
    patch = sys.argv[3] if len(sys.argv) == 4 else None
    failures, exempted = judge(sys.argv[1], lines, known, patch)
    for level, kind, what in exempted:
        if kind == 'FILE_PATH_CHANGES':
            print(f'exempt: {level}:{kind}: {what} already in MAINTAINERS')
        elif kind == 'UNKNOWN_COMMIT_ID':
            print(f'exempt: {level}:{kind} for {what} (upstream, listed in {sys.argv[2]}; the base has no history)')
        else:
            print(f'exempt: {level}:{kind} in {what} (generated file, left as the generator emits it)')
    crashed = any(line.startswith('Traceback') for line in lines)
    totals = any(line.startswith('total: ') for line in lines)
    if crashed:
        print('a checkpatch helper crashed: the check did not run')
    if not totals:
        print('checkpatch printed no totals: it did not finish')
    for level, kind, path in failures:
        print(f'fails: {level}:{kind}' + (f' in {path}' if path else ''))
    return 1 if failures or crashed or not totals else 0


if __name__ == '__main__':
    sys.exit(main())
