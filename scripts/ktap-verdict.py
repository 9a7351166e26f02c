#!/usr/bin/env python3
"""Judge KTAP/TAP output ourselves (6.12's kselftest runner exits 0 on failure).

usage: ktap-verdict.py [--expect FILE] [--allow-skips FILE] KTAP_FILE...

The run fails on:
  - any "not ok" (top level or nested) that is not a SKIP, "# TODO" included,
  - any SKIP or XFAIL not listed in the allowed-skips file ("test: case" for
    a nested case; a bare test name only for the whole test skipping),
  - any expected test that did not report, or whose number of nested
    results differs from what --expect pins ("NAME CASES" per line, CASES a
    number or "-" for a test without nested results),
  - a top-level plan ("1..N") that does not match the results seen, or a
    nested plan that does not match the nested results of its document.
Leaves are counted: a top-level test with nested results counts its nested
results, otherwise itself. The last line printed is always
"N passed, N failed, N skipped"; the exit code is 1 when anything failed.
"""
import argparse
import re
import sys

RESULT = re.compile(r'^(?P<indent>(?:#\s*|\s+)?)(?P<ok>ok|not ok)\s+(?P<num>\d+)\s*(?:-\s*)?'
                    r'(?P<name>[^#]*?)\s*(?:#\s*(?P<directive>\S+)\s*(?P<reason>.*))?$')
CONTEXT = 3           # diagnostic lines shown with a failure
PLAN = re.compile(r'^1\.\.(\d+)')
# a test's own KTAP, indented like its results: "# 1..N", "# KTAP version 1"
NESTED_PLAN = re.compile(r'^(?:#\s*|\s+)1\.\.(\d+)')
NESTED_VERSION = re.compile(r'^(?:#\s*|\s+)K?TAP version')


class Result:
    def __init__(self, ok, name, directive, reason, nested):
        self.ok = ok
        self.name = name
        self.directive = (directive or '').upper()
        self.reason = reason or ''
        # the comment as printed, for messages: "exit code 1", "TODO why"
        self.comment = f'{directive or ""} {self.reason}'.strip()
        self.nested = nested
        self.kids = []        # nested results (top level only)
        self.context = []     # the diagnostic lines printed just before it
        self.plans = []       # [plan or None, results seen] per nested document

    @property
    def skipped(self):
        # an expected failure did not pass either: it needs an allowed-skips
        # entry like a SKIP; "not ok N name # TODO" is a plain failure
        return self.directive in ('SKIP', 'XFAIL')


def parse(lines):
    """Return (plans, top-level results); each top-level result carries the
    nested results and nested plans printed before it."""
    plans = []
    top = []
    pending = []          # nested results seen before their parent's line
    docs = []             # nested documents seen before their parent's line
    recent = []           # diagnostic lines since the last result
    for raw in lines:
        line = raw.rstrip('\n')
        m = PLAN.match(line)
        if m:
            plans.append(int(m.group(1)))
            continue
        if NESTED_VERSION.match(line):
            docs.append([None, 0])
            continue
        m = NESTED_PLAN.match(line)
        if m:
            # the plan comes first (or last) in its document
            if docs and docs[-1][0] is None:
                docs[-1][0] = int(m.group(1))
            else:
                docs.append([int(m.group(1)), 0])
            continue
        m = RESULT.match(line)
        if not m:
            if line.lstrip('# ').strip():
                recent = (recent + [line.strip()])[-CONTEXT:]
            continue
        r = Result(m.group('ok') == 'ok', m.group('name').strip(), m.group('directive'),
                   m.group('reason'), bool(m.group('indent')))
        r.context, recent = recent, []
        if r.nested:
            pending.append(r)
            if not docs:
                docs.append([None, 0])
            docs[-1][1] += 1
        else:
            r.kids, r.plans = pending, docs
            top.append(r)
            pending, docs = [], []
    return plans, top


def load_names(path):
    if not path:
        return {}
    names = {}
    with open(path) as f:
        for line in f:
            line = line.split('#', 1)[0].strip() if not line.startswith('#') else ''
            if line:
                name, _, why = line.partition('|')
                names[name.strip()] = why.strip()
    return names


def load_expect(path):
    """--expect: {name: number of nested results}. A line is "NAME CASES"
    (the name may contain spaces), CASES a number or "-" (none)."""
    expect = {}
    if not path:
        return expect
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith('#'):
                continue
            fields = line.rsplit(None, 1)
            if len(fields) != 2 or not (fields[1] == '-' or fields[1].isdigit()):
                raise ValueError(f'{path}:{n}: not "NAME CASES": {line}')
            expect[fields[0]] = 0 if fields[1] == '-' else int(fields[1])
    return expect


def judge(documents, expect=None, allowed_skips=()):
    """documents: one list of lines per KTAP file (each has its own plan);
    expect: {name: number of nested results} of the tests that must report."""
    passed = failed = skipped = 0
    problems = []
    cases = {}            # nested results per top-level name
    for lines in documents:
        plans, top = parse(lines)
        p, f, s, probs = judge_one(plans, top, allowed_skips)
        passed, failed, skipped = passed + p, failed + f, skipped + s
        problems += probs
        for r in top:
            cases[r.name] = cases.get(r.name, 0) + len(r.kids)
    seen = set(cases)
    for name, want in (expect or {}).items():
        if name not in seen:
            failed += 1
            problems.append(f'MISSING: expected test {name} did not report')
        elif cases[name] != want:
            failed += 1
            problems.append(f'CASES: {name} reported {cases[name]} cases, {want} expected')
    if not seen:
        failed += 1
        problems.append('NO RESULTS: no test reported at all')
    return passed, failed, skipped, problems


def judge_one(plans, top, allowed_skips):
    passed = failed = skipped = 0
    problems = []

    def leaf(name, r):
        nonlocal passed, failed, skipped
        if r.skipped:
            skipped += 1
            # exact names only: "test: case" for a case; a bare test name
            # covers the test skipping as a whole, not its cases
            if name not in allowed_skips:
                failed += 1
                problems.append(f'unexpected {r.directive}: {name} '
                                f'({r.reason or "no reason given"})')
        elif r.ok:
            passed += 1
        else:
            failed += 1
            # with what the test printed just before, so that the tail of
            # a CI log says why
            problems.append(f'FAIL: {name}' + (f' ({r.comment})' if r.comment else '') +
                            ''.join(f'\n    | {c}' for c in r.context))

    for r in top:
        kids = r.kids
        for plan, seen in r.plans:
            if plan is not None and plan != seen:
                failed += 1
                problems.append(f'PLAN: {r.name}: 1..{plan} announced, {seen} nested results seen')
        if kids:
            for k in kids:
                leaf(f'{r.name}: {k.name}', k)
            if not r.ok and not r.skipped and all(k.ok or k.skipped for k in kids):
                failed += 1
                problems.append(f'FAIL: {r.name} (test failed after its cases passed)')
            elif r.skipped and not any(k.skipped for k in kids):
                leaf(r.name, r)
        else:
            leaf(r.name, r)

    if plans and plans[0] != len(top):
        failed += 1
        problems.append(f'PLAN: 1..{plans[0]} announced, {len(top)} results seen')
    return passed, failed, skipped, problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--expect', help='file: "NAME CASES" of the tests that must report')
    ap.add_argument('--allow-skips', help='file: "name | reason" of tests allowed to SKIP')
    ap.add_argument('ktap', nargs='+')
    a = ap.parse_args()
    documents = []
    for p in a.ktap:
        with open(p, errors='replace') as f:
            documents.append(f.readlines())
    try:
        expect = load_expect(a.expect)
    except ValueError as e:
        ap.error(str(e))
    passed, failed, skipped, problems = judge(documents, expect, load_names(a.allow_skips))
    for p in problems:
        print(p)
    print(f'{passed} passed, {failed} failed, {skipped} skipped')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
