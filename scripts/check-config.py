#!/usr/bin/env python3
"""Fail loudly when an option a config fragment asks for is not in .config.

usage: check-config.py [--free=CONFIG_X]... DOTCONFIG FRAGMENT...
Kconfig silently drops options whose dependencies are unmet; this catches it.
An option given with --free is left to Kconfig (a flavour where its
dependencies are meant to drop it, checked elsewhere).
"""
import re
import sys

SET = re.compile(r'^(CONFIG_\w+)=(.*)$')
UNSET = re.compile(r'^# (CONFIG_\w+) is not set$')


def parse(path):
    want = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            m = SET.match(line)
            if m:
                want[m.group(1)] = m.group(2)
                continue
            m = UNSET.match(line)
            if m:
                want[m.group(1)] = 'n'
    return want


def main(argv):
    free = {a.split('=', 1)[1] for a in argv[1:] if a.startswith('--free=')}
    argv = [argv[0]] + [a for a in argv[1:] if not a.startswith('--free=')]
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    have = parse(argv[1])
    # later fragments override earlier ones, as in the merged fragment file
    want = {}
    for frag in argv[2:]:
        for opt, val in parse(frag).items():
            if opt not in free:
                want[opt] = (val, frag)
    bad = 0
    for opt, (val, frag) in want.items():
        got = have.get(opt, 'n')
        if got != val:
            print(f'config: {frag}: {opt}={val} requested, .config has {opt}={got}',
                  file=sys.stderr)
            bad += 1
    if bad:
        print(f'config: {bad} requested option(s) dropped (unmet dependencies?)',
              file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
