#!/usr/bin/env python3
"""usage: list-only.py NAME... < LIST > LIST

A test list of tests/check.list's format (NAME CASES TIMEOUT COMMAND;
"[boot ...]" starts a guest; "#" comments) cut down to the tests NAMEd:
each keeps the "[boot ...]" line of its group, a group left empty goes, and
comments go. Exits 2, naming the list's tests, when a NAME is not in it,
so a campaign split into parts (make stress ONLY=...) cannot drop one by
a typo."""
import sys


def main(names):
    if not names:
        sys.exit(__doc__)
    want = set(names)
    out, boot, seen, known = [], None, set(), []
    for line in sys.stdin.read().splitlines():
        s = line.strip()
        if not s or s.startswith('#'):
            continue
        if s.startswith('['):
            boot = line
            continue
        name = s.split()[0]
        known.append(name)
        if name in want:
            if boot is not None:
                out.append(boot)
                boot = None
            out.append(line)
            seen.add(name)
    missing = [n for n in names if n not in seen]
    if missing:
        print(f'list-only.py: not in the list: {" ".join(missing)}; its tests: {" ".join(known)}',
              file=sys.stderr)
        sys.exit(2)
    print('\n'.join(out))


if __name__ == '__main__':
    main(sys.argv[1:])
