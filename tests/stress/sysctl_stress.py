#!/usr/bin/env python3
"""make stress, part 4: net.core.knapid_enabled under bad input.

1. Bad values (-1, 2, 256, abc, an empty line, 4 KiB of digits and of
   letters, 1abc, 2^31, -2^31-1), written from mode 0 and from mode 1,
   ROUNDS times each: every write is refused with EINVAL and the mode
   stays what it was. A zero-length write changes nothing either way.
2. Concurrent writers, one pinned to each online CPU, each doing WRITES
   writes of random good (0, 1) and bad values: every good write
   succeeds, every bad one is refused with EINVAL, the mode ends as 0 or
   1, and knapid/<cpu> is still there for every online CPU.
3. No IPI storm: function call interrupts (CAL in /proc/interrupts) during
   the bad writes of 1, against an idle interval as long; and during the
   concurrent writers at most one per CPU and good write (a switch kicks
   each CPU with NAPIs queued once).

usage: sysctl_stress.py   (STRESS_SCALE=slice|quick|full; counts to OUTDIR)
"""
import errno
import os
import random
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stresslib import Ktap, record, scaled  # noqa: E402

SYSCTL = '/proc/sys/net/core/knapid_enabled'
ROUNDS = scaled(2, 20, 200)
WRITES = scaled(300, 3000, 30000)
BAD = [b'-1\n', b'2\n', b'256\n', b'abc\n', b'\n', b'1' * 4096, b'a' * 4096,
       b'1abc\n', b'2147483648\n', b'-2147483649\n']
GOOD = [b'0\n', b'1\n']


def mode():
    with open(SYSCTL) as f:
        return f.read().strip()


def write(value):
    """0 when the write was taken, else its errno"""
    fd = os.open(SYSCTL, os.O_WRONLY)
    try:
        os.write(fd, value)
        return 0
    except OSError as e:
        return e.errno
    finally:
        os.close(fd)


def cal_irqs():
    with open('/proc/interrupts') as f:
        for line in f:
            fields = line.split()
            if fields and fields[0] == 'CAL:':
                return sum(int(x) for x in fields[1:] if x.isdigit())
    return 0


def online_cpus():
    return sorted(os.sched_getaffinity(0))


def show(value):
    text = value.decode()
    if len(text) > 16:
        return f'{len(text)} x {text[0]!r}'
    return repr(text)


def bad_values(ktap):
    part = 'sysctl: bad values'
    wrong = []
    writes = 0
    by_errno = {}
    # the IPIs counted are those during the bad writes alone: setting the
    # start mode is a real switch (a static key flip may IPI every CPU)
    cal, secs = 0, 0.0
    for _ in range(ROUNDS):
        for start in (b'0\n', b'1\n'):
            if write(start):
                wrong.append(f'could not set {start!r}')
            for value in BAD:
                before = mode()
                cal0, t0 = cal_irqs(), time.monotonic()
                err = write(value)
                cal += cal_irqs() - cal0
                secs += time.monotonic() - t0
                writes += 1
                by_errno[errno.errorcode.get(err, 'accepted')] = \
                    by_errno.get(errno.errorcode.get(err, 'accepted'), 0) + 1
                after = mode()
                if err != errno.EINVAL or after != before:
                    wrong.append(f'{show(value)} from mode {before}: '
                                 f'{os.strerror(err) if err else "accepted"}, mode now {after}')
            before = mode()
            err = write(b'')
            if mode() != before:
                wrong.append(f'a zero-length write changed the mode ({err})')
    # the same time spent idle, in as many slices
    idle = 0
    for _ in range(writes):
        cal0 = cal_irqs()
        time.sleep(secs / writes)
        idle += cal_irqs() - cal0
    for w in wrong[:10]:
        Ktap.diag(w)
    record(part, 'bad writes', writes)
    for name, n in sorted(by_errno.items()):
        record(part, f'refused with {name}' if name != 'accepted' else 'accepted', n)
    record(part, 'function call IPIs (same time idle)', f'{cal} ({idle})')
    ktap.result(not wrong, f'{writes} bad writes refused with EINVAL, mode unchanged')
    # a storm: more IPIs than an idle interval plus one per 100 writes
    ktap.result(cal <= idle + max(20, writes // 100),
                f'bad writes send no IPIs ({cal} function call IPIs, {idle} idle)')


def writer(cpu, seed, out):
    os.sched_setaffinity(0, {cpu})
    rnd = random.Random(seed)
    good = bad = wrong = 0
    for _ in range(WRITES):
        value = rnd.choice(GOOD + BAD)
        err = write(value)
        if value in GOOD:
            good += 1
            wrong += err != 0
        else:
            bad += 1
            wrong += err != errno.EINVAL
    with open(out, 'w') as f:
        f.write(f'{good} {bad} {wrong}\n')


def concurrent(ktap):
    part = 'sysctl: concurrent writers'
    cpus = online_cpus()
    saved = mode()
    cal0, t0 = cal_irqs(), time.monotonic()
    pids = []
    for cpu in cpus:
        pid = os.fork()
        if pid == 0:
            try:
                writer(cpu, cpu * 7919 + 1, f'/tmp/sysctl-writer-{os.getppid()}-{cpu}')
            finally:
                os._exit(0)
        pids.append(pid)
    for pid in pids:
        os.waitpid(pid, 0)
    secs = time.monotonic() - t0
    cal = cal_irqs() - cal0
    good = bad = wrong = 0
    for cpu in cpus:
        path = f'/tmp/sysctl-writer-{os.getpid()}-{cpu}'
        with open(path) as f:
            g, b, w = (int(x) for x in f.read().split())
        os.unlink(path)
        good, bad, wrong = good + g, bad + b, wrong + w
    final = mode()
    threads = subprocess.run(['pgrep', '-c', '^knapid/'], capture_output=True, text=True).stdout.strip()
    write(saved.encode() + b'\n')
    record(part, 'writers (one per CPU)', len(cpus))
    record(part, 'good writes', good)
    record(part, 'bad writes', bad)
    record(part, 'writes with the wrong outcome', wrong)
    record(part, 'seconds', f'{secs:.1f}')
    record(part, 'function call IPIs', cal)
    Ktap.diag(f'{len(cpus)} writers, {good} good and {bad} bad writes in {secs:.1f} s, '
              f'{wrong} with the wrong outcome; mode {final}, {threads} knapid threads, '
              f'{cal} function call IPIs')
    ktap.result(wrong == 0 and final in ('0', '1') and threads == str(len(cpus)),
                f'{len(cpus)} concurrent writers: good writes taken, bad ones refused, '
                f'mode 0 or 1, knapid threads intact')
    ktap.result(cal <= len(cpus) * good + max(20, int(secs * 50)),
                f'concurrent writers: no IPI storm ({cal} function call IPIs for {good} switches)')


def main():
    if not os.path.exists(SYSCTL):
        print(f'no {SYSCTL}: a kernel without CONFIG_THREADED_NAPI', file=sys.stderr)
        sys.exit(1)
    ktap = Ktap(4)
    bad_values(ktap)
    concurrent(ktap)
    ktap.exit()


if __name__ == '__main__':
    main()
