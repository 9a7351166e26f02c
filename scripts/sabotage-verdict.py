#!/usr/bin/env python3
"""Say how each case that a sabotage must break reported in the guest's KTAP.

usage: sabotage-verdict.py --cases FILE KTAP_FILE...

FILE: one case per line, named as scripts/ktap-verdict.py names it: "TEST:
CASE" for a nested case (TEST is the name of the test list line), "TEST"
for a test without nested cases. The KTAP is parsed by ktap-verdict.py's
own parser. Prints one line per case, tab-separated:

    failed|passed|skipped|missing   CASE   DETAIL

"failed" is what a sabotage must cause; DETAIL says what the test printed
just before the failure, or for a missing case how its test ended. Exit code
0 when every case failed, 1 otherwise.
"""
import argparse
import importlib.util
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location('ktap_verdict', os.path.join(here, 'ktap-verdict.py'))
ktap = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ktap)


def results(documents):
    """{name: [Result, ...]} of every result, nested ones as "TEST: CASE";
    and {test name: top-level Result}."""
    by_name, tests = {}, {}
    for lines in documents:
        _, top = ktap.parse(lines)
        for r in top:
            tests[r.name] = r
            by_name.setdefault(r.name, []).append(r)
            for k in r.kids:
                by_name.setdefault(f'{r.name}: {k.name}', []).append(k)
    return by_name, tests


def status(case, by_name, tests):
    found = by_name.get(case, [])
    failed = [r for r in found if not r.ok and not r.skipped]
    if failed:
        said = [c.lstrip('# ') for c in failed[0].context[-1:]]
        return 'failed', ' | '.join(said) or failed[0].comment
    if any(r.ok and not r.skipped for r in found):
        return 'passed', ''
    if found:
        return 'skipped', found[0].comment
    test = tests.get(case.split(': ', 1)[0])
    if test is None:
        return 'missing', 'its test did not report'
    how = 'ok' if test.ok else 'not ok'
    return 'missing', f'{test.name}: {how}' + (f' ({test.comment})' if test.comment else '')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--cases', required=True, help='file: one expected failing case per line')
    ap.add_argument('ktap', nargs='*')
    a = ap.parse_args()
    with open(a.cases) as f:
        cases = [line.strip() for line in f if line.strip()]
    documents = []
    for p in a.ktap:
        with open(p, errors='replace') as f:
            documents.append(f.readlines())
    by_name, tests = results(documents)
    caught = True
    for case in cases:
        st, detail = status(case, by_name, tests)
        caught = caught and st == 'failed'
        print(f'{st}\t{case}\t{detail}'.replace('\n', ' '))
    return 0 if caught and cases else 1


if __name__ == '__main__':
    sys.exit(main())
