#!/usr/bin/env python3
"""report.md of a make stress run (scripts/stress.sh).

usage: stress-report.py OUTDIR SCALE SECONDS EXIT_CODE

Reads what scripts/check.sh left in OUTDIR/run: per boot group
(boot-N/) the test list, the KTAP (results.ktap, host.ktap), the counts
the tests recorded (counts.tsv: SCRIPT, PART, WHAT, VALUE per line), the
splat scan and the kmemleak status; and the verdict (verdict.txt).
Writes the report to stdout: the verdict, per boot its tests with result
and wall time, every count, splats and leaks. A boot that left no KTAP is
reported as such: nothing is left out silently.
"""
import glob
import os
import re
import sys

RESULT = re.compile(r'^(ok|not ok) (\d+) (\S+)(?: # (.*))?$')
TIME = re.compile(r'^# (\S+): exit code (\d+) after (\d+)s$')


def read(path, default=''):
    try:
        with open(path, errors='replace') as f:
            return f.read()
    except OSError:
        return default


def main():
    out, scale, secs, rc = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    run = os.path.join(out, 'run')
    boots = sorted(glob.glob(os.path.join(run, 'boot-*')), key=lambda d: int(d.rsplit('-', 1)[1]))
    # a boot group ONLY= left without tests never booted (check.sh skips it)
    boots = [b for b in boots if read(f'{b}/tests.list').strip()]
    kernel = '?'
    for b in boots:
        m = re.search(r'^guest: kernel (\S+), (\d+) CPUs', read(f'{b}/console.log'), re.M)
        if m:
            kernel = f'{m.group(1)}, {m.group(2)} vCPUs'
            break
    verdict = read(os.path.join(run, 'verdict.txt')).strip().splitlines()
    p = print
    p(f'# make stress{" QUICK=1" if scale == "quick" else ""}: {os.path.basename(out)}\n')
    p(f'- kernel {kernel}, the stress flavour (configs/debug.config + configs/stress.config: '
      f'lockdep, kmemleak, DEBUG_OBJECTS_TIMERS/_FREE, KASAN generic inline)')
    p('- QEMU TCG (vng --disable-kvm), 3 GiB; scale ' + scale)
    p(f'- wall time {secs} s ({secs / 60:.0f} min); exit code {rc}')
    p(f'- verdict: **{verdict[-1] if verdict else "none (the run stopped before judging)"}**')
    p(f'- commands: commands.txt; raw logs: run/boot-N/ (console.log, dmesg.txt, <test>.log, counts.tsv)\n')

    p('## Tests\n')
    p('| boot | test | result | wall time |')
    p('|---|---|---|---|')
    for b in boots:
        n = b.rsplit('-', 1)[1]
        append = read(f'{b}/append').strip() or '(default)'
        if read(f'{b}/qemu').strip():
            append += ' + QEMU devices (' + str(read(f'{b}/qemu').count('-device')) + ' NICs)'
        names = [line.split()[0] for line in read(f'{b}/tests.list').splitlines() if line.strip()]
        ktap = read(f'{b}/results.ktap').splitlines()
        results = {}
        times = {}
        nested = {}
        for line in ktap:
            m = TIME.match(line)
            if m:
                times[m.group(1)] = int(m.group(3))
                continue
            m = RESULT.match(line)
            if m:
                results[m.group(3)] = (m.group(1), m.group(4) or '')
        # nested case counts per test, from its own log
        for name in names:
            log = read(f'{b}/{name}.log').splitlines()
            cases = [line for line in log if re.match(r'^(ok|not ok) \d+ ', line)]
            bad = [line for line in cases if line.startswith('not ok')]
            nested[name] = (len(cases), bad)
        for name in names:
            ok, why = results.get(name, ('did not report', ''))
            cases, bad = nested[name]
            t = times.get(name)
            res = f'{ok}{" (" + why + ")" if why else ""}, {cases - len(bad)}/{cases} cases passed'
            p(f'| {n}: {append} | {name} | {res} | {f"{t} s" if t is not None else "-"} |')
    p()
    p('## Counts\n')
    p('| test | part | what | count |')
    p('|---|---|---|---|')
    for b in boots:
        for line in read(f'{b}/counts.tsv').splitlines():
            f = line.split('\t')
            if len(f) == 4:
                p(f'| {f[0]} | {f[1]} | {f[2]} | {f[3]} |')
    p()
    p('## Splats and leaks (must be none)\n')
    for b in boots:
        n = b.rsplit('-', 1)[1]
        splats = read(f'{b}/splats.txt', 'no splat scan (the boot did not finish)').strip()
        leak = read(f'{b}/kmemleak-status', 'no kmemleak status').strip().splitlines()
        p(f'- boot {n}: {splats.splitlines()[0] if splats else "no splat scan"}; kmemleak: '
          f'{leak[0] if leak else "no status"}')
        for line in splats.splitlines()[1:11]:
            p(f'  - {line}')
    # everything ktap-verdict.py said besides its last line (not ok, MISSING,
    # CASES, PLAN, unexpected SKIP ...)
    failures = verdict[:-1]
    if failures:
        p('\n## Failures\n')
        for line in failures[:50]:
            p(f'- {line}')


if __name__ == '__main__':
    main()
