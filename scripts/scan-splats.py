#!/usr/bin/env python3
"""Scan guest console / dmesg logs for kernel splats.

usage: scan-splats.py LOG...
Prints every splat found with the lines around it and exits 1 if there is
any; exits 0 and says so when the logs are clean. A missing or empty log is
an error (a run whose log we cannot read is not clean).
"""
import re
import sys

# most specific first: a lockdep or RCU report also says "WARNING:"
PATTERNS = [
    ('lockdep', re.compile(r'possible circular locking|possible recursive locking|'
                           r'inconsistent lock state|lock held when returning|'
                           r'possible irq lock inversion|bad unlock balance')),
    ('RCU', re.compile(r'suspicious RCU usage|rcu_sched self-detected stall|'
                       r'rcu: INFO: rcu_\w+ (self-)?detected stall')),
    ('soft lockup', re.compile(r'soft lockup')),
    ('hung task', re.compile(r' blocked for more than ')),
    # a leaked device reference: the netdev (or netns) can never be freed
    ('netdev refcount leak', re.compile(r'unregister_netdevice: waiting for \S+ to become free')),
    ('KASAN', re.compile(r'KASAN:')),
    ('ref_tracker', re.compile(r'ref_tracker: ')),
    ('refcount', re.compile(r'refcount_t: ')),
    ('kernel panic', re.compile(r'Kernel panic - not syncing')),
    # __warn() prints "------------[ cut here ]------------" and then
    # "WARNING: CPU: N PID: N at ..."; lockdep, RCU and the other debug
    # reports start their message with "WARNING: " too.  A line that merely
    # contains the word ("virtme-ng-init: WARNING: ...") is not a report.
    ('WARNING', re.compile(r'\]\s+(\[\s*[CT]\d+\]\s+)?(WARNING: |-+\[ cut here \]-+$)')),
    # "BUG: ..." (NULL pointer, KFENCE, sleeping function...), BUG_ON()'s
    # "kernel BUG at file:line!"
    ('BUG', re.compile(r'\bBUG:|\] kernel BUG at ')),
    ('oops', re.compile(r'\] Oops: ')),
    ('oops RIP', re.compile(r'\] RIP: ')),
    ('call trace', re.compile(r'\] Call Trace:')),
    ('kmemleak', re.compile(r'unreferenced object 0x')),
]
# Only kernel lines count (they carry a printk timestamp): test output that
# happens to say "WARNING:" is not a splat.
KERNEL_LINE = re.compile(r'\[\s*\d+\.\d{6}\]')
# Lines user space wrote to /dev/kmsg carry a timestamp too: virtme-ng-init
# (e.g. "virtme-ng-init: WARNING: failed to run: systemd-tmpfiles" in a root
# without systemd) and the kselftest runner.  They are never kernel splats.
USER_LINE = re.compile(r'\[\s*\d+\.\d{6}\]\s+(virtme-ng-init|virtme-init|kselftest|'
                       r'run-tests|guest-main)\b')
CONTEXT_BEFORE = 2
CONTEXT_AFTER = 25


def scan(lines):
    """Return [(kind, index)] of the first line of each splat."""
    hits = []
    last = -CONTEXT_AFTER
    for i, line in enumerate(lines):
        kernel = KERNEL_LINE.search(line) and not USER_LINE.search(line)
        for kind, rx in PATTERNS:
            # kmemleak's report file has no timestamps; its marker is unique
            if (kernel or kind == 'kmemleak') and rx.search(line):
                # lines inside the report we printed already belong to it:
                # its Oops, RIP and Call Trace, and the WARNING: line after
                # "cut here"
                inside = i - last < CONTEXT_AFTER and (
                    kind in ('oops', 'oops RIP', 'call trace') or
                    (kind == 'WARNING' and hits and hits[-1][0] == 'WARNING'))
                if not inside:
                    hits.append((kind, i))
                    last = i
                break
    return hits


def main(paths):
    if not paths:
        print(__doc__, file=sys.stderr)
        return 2
    total = 0
    for path in paths:
        try:
            with open(path, errors='replace') as f:
                lines = f.read().splitlines()
        except OSError as e:
            print(f'splat scan: cannot read {path}: {e}')
            return 1
        if not lines:
            print(f'splat scan: {path} is empty: the guest left no log to check')
            return 1
        for kind, i in scan(lines):
            total += 1
            print(f'--- splat ({kind}) in {path} line {i + 1}:')
            for line in lines[max(0, i - CONTEXT_BEFORE):i + CONTEXT_AFTER]:
                print('    ' + line)
    if total:
        print(f'splat scan: {total} splat(s) found')
        return 1
    print(f'splat scan: clean ({", ".join(paths)})')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
