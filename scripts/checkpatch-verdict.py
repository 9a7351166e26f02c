#!/usr/bin/env python3
"""Judge one patch's `checkpatch.pl --strict --show-types` output.

usage: checkpatch-verdict.py TREE < checkpatch-output

Exit 0 when the patch is clean: no ERROR, no WARNING, and no crashed helper
(a Python traceback from spdxcheck.py is a check that did not run). The one
exemption: LONG_LINE in a file whose header says it is generated (YNL's
"Do not edit directly, auto-generated from:"), because generated files must
be byte-identical to what the unmodified upstream generator emits. Each
exempted warning is printed, so the exemption is never silent.
"""
import pathlib
import re
import sys

REPORT = re.compile(r'^(ERROR|WARNING|CHECK):([A-Z0-9_]+):')
WHERE = re.compile(r'^#\d+: FILE: ([^:]+):')
GENERATED = re.compile(r'auto-generated|Do not edit directly')


def generated(tree, path, cache={}):
    if path not in cache:
        try:
            with open(pathlib.Path(tree) / path, errors='replace') as f:
                head = ''.join(f.readline() for _ in range(5))
        except OSError:
            head = ''
        cache[path] = bool(GENERATED.search(head))
    return cache[path]


def judge(tree, lines):
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
        else:
            failures.append((level, kind, path))
    return failures, exempted


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    lines = sys.stdin.read().splitlines()
    failures, exempted = judge(sys.argv[1], lines)
    for level, kind, path in exempted:
        print(f'exempt: {level}:{kind} in {path} (generated file, left as the generator emits it)')
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
