"""Helpers of the stress campaign's python parts: the scale, counts for
the report (OUTDIR/counts.tsv, as tests/stress/lib.sh's record writes
them), and KTAP output."""
import os
import sys

# "slice" (the few minutes make check runs), "quick" (make stress QUICK=1)
# or "full" (make stress)
SCALE = os.environ.get('STRESS_SCALE', 'slice')
if SCALE not in ('slice', 'quick', 'full'):
    sys.exit(f"STRESS_SCALE must be slice, quick or full, not '{SCALE}'")


def scaled(slice_, quick, full):
    return {'slice': slice_, 'quick': quick, 'full': full}[SCALE]


def record(part, what, value):
    script = os.path.basename(sys.argv[0])
    with open(os.path.join(os.environ.get('OUTDIR', '/tmp'), 'counts.tsv'), 'a') as f:
        f.write(f'{script}\t{part}\t{what}\t{value}\n')
    print(f'# count: {part}: {what} = {value}', flush=True)


class Ktap:
    """KTAP output: the header and plan, one result per case, and an exit
    code that says whether any case failed."""

    def __init__(self, plan):
        self.n = 0
        self.failed = 0
        print('TAP version 13')
        print(f'1..{plan}', flush=True)

    @staticmethod
    def diag(msg):
        for line in str(msg).splitlines():
            print(f'# {line}')
        sys.stdout.flush()

    def result(self, ok, name):
        self.n += 1
        if not ok:
            self.failed += 1
        print(f'{"ok" if ok else "not ok"} {self.n} {name}', flush=True)

    def exit(self):
        print(f'# Totals: pass:{self.n - self.failed} fail:{self.failed} xfail:0 xpass:0 skip:0 error:0')
        sys.exit(1 if self.failed else 0)
