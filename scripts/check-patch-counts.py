#!/usr/bin/env python3
"""usage: check-patch-counts.py [--top DIR] [--base BASE] [FILE...]

Fail when the prose states a patch count the series do not have. The counts
come from DIR/patches/BASE/series ("DIRECTORY COUNT" lines), for BASE or
every base patches/ has: each series' count and each base's total are the
only numbers a text may give as a count of patches. The texts are FILEs
(relative to DIR), by default README.md, docs/*.md and the cover letters
patches/BASE/*/0000-cover-letter.patch.

A count is a number written right before "patch" or "patches", with a space,
a hyphen or a line break between: "the 43 patches", "9 patches",
"a 28-patch series". Not counts: a patch number or range ("patch 5",
"patches 1-3", "patch 5/9", "[PATCH 0/8]"), a number with a word between it
and "patches" ("5 kernel patches", a part of a series), a limit ("at most 15
patches", "up to 15 patches"), the second number of a range ("1-40
patches") and a year ("a 2019 patch set"). The table rows of docs/measured-times.md are dated records of
their commit: a count there is the series as it was then, and is not checked.

Prints FILE:LINE: and the phrase for each stale count; exits 1 if there is
any."""
import argparse
import glob
import os
import re
import sys

# a number (not the tail of 1,000 or 1.5 or 1-40 or 5/9) then "patch(es)"
COUNT = re.compile(r'(?<![\d.,/-])(\d+)(?:[ \t]*\n[ \t]*|[ \t]+|-)patch(?:es)?\b', re.I)
# a limit, not a count: "at most 15 patches"
LIMIT = re.compile(r'\b(?:at most|up to|no more than|more than|fewer than|than)\s+$', re.I)
# files whose table rows are dated history
HISTORY = ('docs/measured-times.md',)


def series_counts(top, base):
    path = os.path.join(top, 'patches', base, 'series')
    counts = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith('#'):
                continue
            fields = line.split()
            if len(fields) not in (2, 3) or not fields[1].isdigit():
                raise SystemExit(f'{path}: "{line}" is not "DIRECTORY COUNT [TREE]"')
            counts[fields[0]] = int(fields[1])
    if not counts:
        raise SystemExit(f'{path}: no series')
    return counts


def bases_of(top):
    """The bases patches/ has series for (patches/BASE/series)."""
    return sorted(os.path.basename(os.path.dirname(p))
                  for p in glob.glob(os.path.join(top, 'patches', '*', 'series')))


def default_files(top, bases):
    files = ['README.md']
    files += sorted(os.path.relpath(p, top) for p in glob.glob(os.path.join(top, 'docs', '*.md')))
    for base in bases:
        files += sorted(os.path.relpath(p, top) for p in
                        glob.glob(os.path.join(top, 'patches', base, '*', '0000-cover-letter.patch')))
    return [f for f in files if os.path.isfile(os.path.join(top, f))]


def stale_counts(text, allowed, history=False):
    """(line number, count, phrase) of each count in TEXT not in ALLOWED"""
    lines = text.split('\n')
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    found = []
    for m in COUNT.finditer(text):
        n = int(m.group(1))
        if n in allowed or 1900 <= n <= 2099:
            continue
        lineno = next(i for i in range(len(lines)) if starts[i + 1] > m.start()) + 1
        line = lines[lineno - 1]
        if LIMIT.search(line[:m.start() - starts[lineno - 1]]):
            continue
        if history and line.lstrip().startswith('|'):
            continue
        phrase = ' '.join(text[max(m.start() - 20, starts[lineno - 1]):m.end()].split())
        found.append((lineno, n, phrase))
    return found


def check(top, base=None, files=None):
    """BASE: one base, else every base patches/ has (the counts of all of
    them are allowed, since the README and docs speak of every base)."""
    bases = [base] if base else bases_of(top)
    counts = {}
    allowed = set()
    for b in bases:
        c = series_counts(top, b)
        allowed |= set(c.values()) | {sum(c.values())}
        counts.update({f'{b}/{d}': n for d, n in c.items()})
    problems = []
    for f in files if files is not None else default_files(top, bases):
        with open(os.path.join(top, f), encoding='utf-8', errors='replace') as fh:
            text = fh.read()
        for lineno, n, phrase in stale_counts(text, allowed, f in HISTORY):
            have = ', '.join(f'{c} ({d})' for d, c in counts.items())
            problems.append(f'{f}:{lineno}: "{phrase}" states {n} patches; '
                            f'the series files have {have}')
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[1])
    ap.add_argument('--top', default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument('--base', default=None)
    ap.add_argument('files', nargs='*')
    args = ap.parse_args()
    problems = check(args.top, args.base, args.files or None)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
