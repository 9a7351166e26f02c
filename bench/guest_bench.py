#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""In the guest of `make bench`: the seeds' benchmark tables, side by side.

Topology: two virtio-net-pci NICs (MSI-X, one queue pair each) wired back to
back through a QEMU hub. The system under test (SUT) owns the first, in netns
bench-sut with 192.0.2.1, on vCPU 0: its NIC's vectors, the per-NAPI thread
when there is one, and every server are pinned there (knapid/0 is per CPU).
The load generator owns the second, in netns bench-gen with 192.0.2.2, on
vCPU 1 (vectors and clients). Traffic never leaves the guest.

Modes alternate inside one boot, rotated each round, so every figure can be a
median over interleaved rounds. The threadirqs column needs its own boot
(--boot threadirqs), which measures softirq again as its reference. On a
kernel whose napi-set takes `threaded` (7.3), the per-NAPI thread is set
over netlink and a fourth mode, threaded busy poll, joins Tables 1-2 and
Table 3 (case busypoll20); main-2 and main-3 repeat the main boot, tap-2
and tap-3 the tap boot. The tapbatch boots are the tap boot's rows for
softirq, knapid and knapidbatch (knapid with its threads SCHED_BATCH, which
an interrupt's wake-up does not preempt the running task for), the one
attempt the knapid-design review asked for against knapid's cost at the
maximum: a context switch pair per interrupt that finds the CPU busy.

usage: guest_bench.py --out DIR --ksrc LINUX --shim epoll_shim.so
                      [--boot main|main-2|main-3|threadirqs|tap|tap-2|tap-3|ab|profile|
                              tapbatch|tapbatch-2|tapbatch-3]
                      [--quick] [--rounds N] [--secs S] [--t3-rounds N]
                      [--loads 20%,40%,MAX]
Writes DIR/result-BOOT.json and DIR/progress-BOOT.log; exits non-zero, with
the reason, if any measurement fails (no partial table).
"""

import argparse
import json
import math
import os
import re
import signal
import statistics
import subprocess
import sys
import time
import traceback

KNAPID = '/proc/sys/net/core/knapid_enabled'
# the tap boot and its repeats, which run exactly as it does
TAP_BOOTS = ('tap', 'tap-2', 'tap-3')
# the tap boot's rows for softirq, knapid and knapidbatch, three times
TAPBATCH_BOOTS = ('tapbatch', 'tapbatch-2', 'tapbatch-3')
SUT_NS, GEN_NS = 'bench-sut', 'bench-gen'
VA_NS, VB_NS, LO_NS = 'bench-va', 'bench-vb', 'bench-lo'
SUT_IP, GEN_IP = '192.0.2.1', '192.0.2.2'
VA_IP, VB_IP = '198.51.100.1', '198.51.100.2'
SUT_CPU, GEN_CPU = 0, 1
PP_PORT, IPERF_PORT, T3_PORT = 11111, 5201, 11112
# the generator is emulated as fast as the SUT: made to take a reply for
# every request it would saturate first (measured: 14,208 of 32,238 replies
# dropped at 40% of MAX, SUT vCPU 16% busy, one debug round with a kernel
# build on the host alongside); every 10th request is answered
# and timed, so the SUT's receive path is what the load saturates
T3_REPLY_EVERY = 10

# seed 001's cases: per-NAPI (defer-hard-irqs, gro-flush-timeout ns,
# irq-suspend-timeout ns) and the epoll context's (busy_poll_usecs,
# prefer_busy_poll, full busy); budget 64 throughout
CASES = {
    'base':       ((0, 0, 0), None),
    'defer20':    ((100, 20000, 0), None),
    'defer200':   ((100, 200000, 0), None),
    'napibusy':   ((100, 200000, 0), (64, 1, 0)),
    'fullbusy':   ((100, 5000000, 0), (1000, 1, 1)),
    'suspend0':   ((0, 0, 20000000), (0, 1, 0)),
    'suspend20':  ((100, 20000, 20000000), (0, 1, 0)),
    'suspend200': ((100, 200000, 20000000), (0, 1, 0)),
}
# the SUT's NAPI in threaded busy poll (napi-set threaded busy-poll, 7.3
# only) with suspend20's parameters
CASES['busypoll20'] = CASES['suspend20']
KNAPID_CASES = ('suspend0', 'suspend20', 'suspend200')
# softirq: NET_RX softirq; knapid: the knapid/N threads; threaded: the SUT
# NAPI's own thread (sysfs on 6.12, napi-set threaded enabled on 7.3);
# busypoll: that thread in threaded busy poll (7.3); threadirqs: softirq
# with the threadirqs boot parameter (its own boot); knapidbatch: knapid with
# the knapid/N threads SCHED_BATCH (no wake-up preemption)
MODES = ('softirq', 'knapid', 'threaded', 'busypoll', 'threadirqs', 'knapidbatch')


class BenchError(Exception):
    pass


class HostProc:
    """A load generator's command running natively on the host, in the tap's
    netns, started by bench/tap_host.py from a request file in OUT/host/:
    req-N.json {"argv", "timeout"} in; out-N.log, then rc-N, back; cancel-N
    asks the host to kill it."""

    def __init__(self, d, n, argv, timeout):
        self.d, self.n, self.argv = d, n, argv
        self.path = lambda what: os.path.join(d, f'{what}-{n}')
        tmp = self.path('req') + '.tmp'
        with open(tmp, 'w') as f:
            json.dump({'argv': argv, 'timeout': timeout}, f)
        os.replace(tmp, self.path('req') + '.json')
        self.rc = None

    def poll(self):
        if self.rc is None and os.path.exists(self.path('rc')):
            self.rc = int(self.read_rc())
        return self.rc

    def read_rc(self):
        with open(self.path('rc')) as f:
            return f.read().strip()

    def wait(self, timeout):
        end = time.monotonic() + timeout
        while self.poll() is None:
            if time.monotonic() > end:
                raise subprocess.TimeoutExpired(self.argv, timeout)
            time.sleep(0.02)
        return self.rc

    def output(self):
        with open(self.path('out') + '.log', errors='replace') as f:
            return f.read()

    def stop(self):
        if self.poll() is None:
            open(self.path('cancel'), 'w').close()
            self.wait(30)


class Bench:
    def __init__(self, args):
        self.out = args.out
        self.boot = args.boot
        self.tap = args.boot in TAP_BOOTS + TAPBATCH_BOOTS
        self.quick = args.quick
        self.ksrc = args.ksrc
        self.shim = args.shim
        self.commit = args.commit
        self.t0 = time.monotonic()
        self.progress = open(os.path.join(self.out, f'progress-{self.boot}.log'), 'a')
        if self.quick:
            self.rounds, self.secs, self.ping_n = 5, 2, 2000
            self.t3_loads, self.t3_secs = ('40%', 'MAX'), 2
        else:
            self.rounds, self.secs, self.ping_n = 7, 5, 2000
            self.t3_loads, self.t3_secs = ('20%', '40%', '60%', '80%', 'MAX'), 3
        # Table 3 is the long one (11 cases x the loads): 5 rounds in both
        self.t3_rounds = 5
        self.ping_interval = 0.002
        if args.rounds:
            self.rounds = self.t3_rounds = args.rounds
        if args.secs:
            self.secs = self.t3_secs = args.secs
        self.commands = set()
        self.napi_vals = None
        self.threaded = self.has_napi_threaded = None
        self.knapid_policy = 'other'
        if args.t3_rounds:
            self.t3_rounds = args.t3_rounds
        if args.loads:
            self.t3_loads = args.loads
        # the tap boot's generator runs on the host: requests go through here
        self.host_dir, self.host_n = None, 0

    # -- plumbing ---------------------------------------------------------

    def log(self, msg):
        line = f'[bench {self.boot} +{time.monotonic() - self.t0:5.0f}s] {msg}'
        print(line, flush=True)
        self.progress.write(line + '\n')
        self.progress.flush()

    def argv(self, cmd, ns=None, cpu=None):
        pre = []
        if ns:
            pre += ['ip', 'netns', 'exec', ns]
        if cpu is not None:
            pre += ['taskset', '-c', str(cpu)]
        # every distinct command line, for the report's commands.txt
        self.commands.add(' '.join(pre + [str(c) for c in cmd]))
        return pre + [str(c) for c in cmd]

    def run(self, cmd, ns=None, cpu=None, timeout=60, env=None):
        argv = self.argv(cmd, ns, cpu)
        try:
            p = subprocess.run(argv, capture_output=True, text=True,
                               timeout=timeout, env=env, errors='replace')
        except subprocess.TimeoutExpired:
            raise BenchError(f'{" ".join(argv)}: no exit after {timeout}s')
        if p.returncode:
            raise BenchError(f'{" ".join(argv)}: exit {p.returncode}: '
                             f'{(p.stderr or p.stdout)[-600:]}')
        return p.stdout

    def spawn(self, cmd, ns=None, cpu=None, env=None, log=None):
        argv = self.argv(cmd, ns, cpu)
        f = open(log, 'w') if log else subprocess.DEVNULL
        return subprocess.Popen(argv, stdout=f, stderr=subprocess.STDOUT,
                                env=env, start_new_session=True)

    def gen_spawn(self, cmd, timeout, log=None):
        """a command of the load generator: in netns bench-gen on vCPU 1,
        or, in the tap boot, native on the host (bench/tap_host.py); the
        host's output goes to LOG when it ends"""
        if not self.host_dir:
            return self.spawn(cmd, ns=GEN_NS, cpu=GEN_CPU, log=log)
        argv = [str(c) for c in cmd]
        self.commands.add('host: ' + ' '.join(argv))
        self.host_n += 1
        p = HostProc(self.host_dir, self.host_n, argv, timeout)
        p.log = log
        return p

    def gen_run(self, cmd, timeout):
        if not self.host_dir:
            return self.run(cmd, ns=GEN_NS, cpu=GEN_CPU, timeout=timeout)
        p = self.gen_spawn(cmd, timeout)
        try:
            rc = p.wait(timeout + 30)
        except subprocess.TimeoutExpired:
            raise BenchError(f'host: {" ".join(p.argv)}: no exit after {timeout}s')
        out = p.output()
        if rc:
            raise BenchError(f'host: {" ".join(p.argv)}: exit {rc}: {out[-600:]}')
        return out

    @staticmethod
    def stop(p):
        if isinstance(p, HostProc):
            p.stop()
            if getattr(p, 'log', None):
                with open(p.log, 'w') as f:
                    f.write(p.output())
            return
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGTERM)
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()

    def wait_listen(self, ns, port, udp=False, tmo=20):
        flag = '-uln' if udp else '-tln'
        end = time.monotonic() + tmo
        while time.monotonic() < end:
            out = subprocess.run(['ip', 'netns', 'exec', ns, 'ss', '-H', flag,
                                  f'sport = :{port}'], capture_output=True,
                                 text=True).stdout
            if out.strip():
                return
            time.sleep(0.1)
        raise BenchError(f'nothing listens on port {port} in {ns} after {tmo}s')

    @staticmethod
    def write(path, val):
        with open(path, 'w') as f:
            f.write(f'{val}\n')

    @staticmethod
    def read(path):
        with open(path) as f:
            return f.read().strip()

    # -- topology ---------------------------------------------------------

    def virtio_netdevs(self):
        devs = []
        for d in sorted(os.listdir('/sys/class/net')):
            drv = f'/sys/class/net/{d}/device/driver'
            if os.path.exists(drv) and os.path.basename(os.readlink(drv)) == 'virtio_net':
                devs.append(d)
        return devs

    @staticmethod
    def irq_of(name):
        for line in open('/proc/interrupts'):
            f = line.split()
            if f and f[-1] == name:
                return int(f[0].rstrip(':'))
        raise BenchError(f'no {name} vector in /proc/interrupts (MSI-X off?)')

    @staticmethod
    def irq_count(irq):
        for line in open('/proc/interrupts'):
            f = line.split()
            if f and f[0] == f'{irq}:':
                return sum(int(x) for x in f[1:] if x.isdigit())
        raise BenchError(f'irq {irq} vanished from /proc/interrupts')

    def ns(self, name):
        subprocess.run(['ip', 'netns', 'del', name], capture_output=True)
        self.run(['ip', 'netns', 'add', name])
        self.run(['sysctl', '-qw', 'net.ipv6.conf.all.disable_ipv6=1',
                  'net.ipv6.conf.default.disable_ipv6=1'], ns=name)
        self.run(['ip', 'link', 'set', 'lo', 'up'], ns=name)

    def pin_nic(self, dev, cpu):
        """both vectors of DEV's virtio device onto CPU, into self.irqs"""
        v = os.path.basename(os.readlink(f'/sys/class/net/{dev}/device'))
        self.virtio[dev] = v
        for q in ('input.0', 'output.0'):
            irq = self.irq_of(f'{v}-{q}')
            self.irqs[(dev, q)] = irq
            self.write(f'/proc/irq/{irq}/smp_affinity_list', cpu)
            got = self.read(f'/proc/irq/{irq}/smp_affinity_list')
            if got != str(cpu):
                raise BenchError(f'irq {irq} ({v}-{q}) affinity {got}, wanted {cpu}')

    def nic_into_ns(self, dev, name, ip):
        self.ns(name)
        self.run(['ip', 'link', 'set', dev, 'netns', name])
        self.run(['ip', 'addr', 'add', f'{ip}/24', 'dev', dev], ns=name)
        self.run(['ip', 'link', 'set', dev, 'up'], ns=name)

    def find_sut_napi(self):
        self.sut_ifindex = int(self.run(['cat', f'/sys/class/net/{self.sut}/ifindex'], ns=SUT_NS))
        napis = self.ynl('--dump', 'napi-get', {'ifindex': self.sut_ifindex})
        if len(napis) != 1:
            raise BenchError(f'expected one NAPI on {self.sut}, napi-get says {napis}')
        self.napi = napis[0]['id']

    def sut_pinning(self, generator):
        return (f'SUT vCPU {SUT_CPU}: irqs {self.irqs[(self.sut, "input.0")]}/'
                f'{self.irqs[(self.sut, "output.0")]} ({self.virtio[self.sut]} input/output), '
                f'every server, the per-NAPI thread (threaded mode), knapid/{SUT_CPU}; '
                f'{generator}; cyclictest SCHED_FIFO 90 on vCPU {SUT_CPU}; '
                f'NAPI threads at SCHED_OTHER')

    def setup(self):
        if os.cpu_count() < 2:
            raise BenchError(f'needs 2 vCPUs, the guest has {os.cpu_count()}')
        devs = self.virtio_netdevs()
        if len(devs) < 2:
            raise BenchError(f'needs two virtio-net NICs on one QEMU hub, found {devs}')
        self.sut, self.gen = devs[0], devs[1]
        self.virtio = {}
        self.irqs = {}
        self.pin_nic(self.sut, SUT_CPU)
        self.pin_nic(self.gen, GEN_CPU)
        macs = {d: self.read(f'/sys/class/net/{d}/address') for d in devs[:2]}
        for name, dev, ip, peer, pdev in ((SUT_NS, self.sut, SUT_IP, GEN_IP, self.gen),
                                          (GEN_NS, self.gen, GEN_IP, SUT_IP, self.sut)):
            self.nic_into_ns(dev, name, ip)
            self.run(['ip', 'neigh', 'replace', peer, 'dev', dev, 'lladdr',
                      macs[pdev], 'nud', 'permanent'], ns=name)
        # request-response without a NIC: a veth pair and a loopback
        self.ns(VA_NS)
        self.ns(VB_NS)
        self.ns(LO_NS)
        self.run(['ip', 'link', 'add', 'veth-a', 'netns', VA_NS, 'type', 'veth',
                  'peer', 'name', 'veth-b', 'netns', VB_NS])
        for ns, dev, ip in ((VA_NS, 'veth-a', VA_IP), (VB_NS, 'veth-b', VB_IP)):
            self.run(['ip', 'addr', 'add', f'{ip}/24', 'dev', dev], ns=ns)
            self.run(['ip', 'link', 'set', dev, 'up'], ns=ns)
        self.find_sut_napi()
        self.run(['ping', '-q', '-c', 3, '-i', 0.2, '-w', 20, SUT_IP], ns=GEN_NS)
        self.run(['ping', '-q', '-c', 3, '-i', 0.2, '-w', 20, VA_IP], ns=VB_NS)
        self.topology = (
            f'two virtio-net-pci NICs (MSI-X, one queue pair each) on one QEMU hub; '
            f'SUT {self.sut} ({self.virtio[self.sut]}, NAPI {self.napi}) {SUT_IP} in netns {SUT_NS}; '
            f'load generator {self.gen} ({self.virtio[self.gen]}) {GEN_IP} in netns {GEN_NS}; '
            f'veth pair {VA_IP} ({VA_NS}) - {VB_IP} ({VB_NS}); lo in {LO_NS}')
        self.pinning = self.sut_pinning(
            f'generator vCPU {GEN_CPU}: irqs {self.irqs[(self.gen, "input.0")]}/'
            f'{self.irqs[(self.gen, "output.0")]}, every client')
        self.log(self.topology)
        self.log(self.pinning)

    def spec(self):
        return os.path.join(self.ksrc, 'Documentation/netlink/specs/netdev.yaml')

    def ynl(self, kind, op, attrs):
        # the CLI moved to pyynl/ (7.3); 6.12 has it in tools/net/ynl/
        cli = os.path.join(self.ksrc, 'tools/net/ynl/pyynl/cli.py')
        if not os.path.exists(cli):
            cli = os.path.join(self.ksrc, 'tools/net/ynl/cli.py')
        out = self.run(['/usr/bin/python3', cli,
                        '--spec', self.spec(), '--no-schema', '--output-json', kind, op, '--json',
                        json.dumps(attrs)], ns=SUT_NS, timeout=120)
        return json.loads(out) if out.strip() else None

    def napi_set(self, defer, gro, suspend):
        if self.napi_vals == (defer, gro, suspend):
            return
        self.ynl('--do', 'napi-set', {'id': self.napi, 'defer-hard-irqs': defer,
                                      'gro-flush-timeout': gro,
                                      'irq-suspend-timeout': suspend})
        got = self.ynl('--do', 'napi-get', {'id': self.napi})
        have = (got.get('defer-hard-irqs'), got.get('gro-flush-timeout'),
                got.get('irq-suspend-timeout'))
        if have != (defer, gro, suspend):
            raise BenchError(f'napi-set {defer}/{gro}/{suspend} reads back as {have}')
        self.napi_vals = (defer, gro, suspend)

    # -- modes ------------------------------------------------------------

    def threads_named(self, pattern):
        """{comm: pid} of the tasks whose comm matches the regex PATTERN"""
        pids = {}
        for pid in os.listdir('/proc'):
            if pid.isdigit():
                try:
                    comm = self.read(f'/proc/{pid}/comm')
                except OSError:
                    continue
                if re.fullmatch(pattern, comm):
                    pids[comm] = int(pid)
        return pids

    def napi_thread_pids(self):
        """the SUT's NAPI threads: napi/DEV-ID for RX, napi/DEV-0 for TX"""
        pids = self.threads_named(re.escape(f'napi/{self.sut}-') + r'.*')
        if f'napi/{self.sut}-{self.napi}' not in pids:
            raise BenchError(f'threaded mode on, but no napi/{self.sut}-{self.napi} thread')
        return pids

    def napi_threaded(self):
        """whether napi-set takes a per-NAPI 'threaded' (7.3: disabled,
        enabled, busy-poll); 6.12 has the per-device sysfs switch only"""
        if self.has_napi_threaded is None:
            self.has_napi_threaded = 'name: napi-threaded' in open(self.spec()).read()
        return self.has_napi_threaded

    def set_threaded(self, want):
        """the SUT NAPI's own thread: 'disabled', 'enabled' or 'busy-poll',
        pinned to the SUT's vCPU (where the servers run) when it has one"""
        if want == self.threaded:
            return
        if not self.napi_threaded():
            if want == 'busy-poll':
                raise BenchError('mode busypoll, but napi-set has no threaded busy-poll here')
            val = 1 if want == 'enabled' else 0
            self.run(['sh', '-c', f'echo {val} > /sys/class/net/{self.sut}/threaded'], ns=SUT_NS)
            if val:
                for pid in self.napi_thread_pids().values():
                    self.run(['taskset', '-pc', SUT_CPU, pid])
        else:
            self.ynl('--do', 'napi-set', {'id': self.napi, 'threaded': want})
            got = self.ynl('--do', 'napi-get', {'id': self.napi})
            if got.get('threaded', 'disabled') != want:
                raise BenchError(f'napi-set threaded {want} reads back as {got}')
            if want != 'disabled':
                if not got.get('pid'):
                    raise BenchError(f'threaded {want}, but napi-get names no thread: {got}')
                self.run(['taskset', '-pc', SUT_CPU, got['pid']])
        self.threaded = want

    def knapid_pids(self):
        return list(self.threads_named(r'knapid/\d+').values())

    def set_knapid_policy(self, policy):
        """the knapid/N threads' policy: 'batch' (SCHED_BATCH) or 'other'
        (SCHED_OTHER, as they start), read back"""
        if policy == self.knapid_policy:
            return
        pids = self.knapid_pids()
        if not pids:
            raise BenchError(f'knapid threads as SCHED_{policy.upper()}, but there is no knapid/N thread')
        want = os.SCHED_BATCH if policy == 'batch' else os.SCHED_OTHER
        for pid in pids:
            self.run(['chrt', '-b' if policy == 'batch' else '-o', '-p', 0, pid])
            if os.sched_getscheduler(pid) != want:
                raise BenchError(f'chrt: knapid thread {pid} is not SCHED_{policy.upper()}')
        self.knapid_policy = policy

    def set_mode(self, mode):
        if mode not in MODES:
            raise BenchError(f'unknown mode {mode}')
        knapid = 1 if mode in ('knapid', 'knapidbatch') else 0
        if os.path.exists(KNAPID):
            self.write(KNAPID, knapid)
        elif knapid:
            raise BenchError(f'mode {mode}, but this kernel has no {KNAPID}')
        self.set_knapid_policy('batch' if mode == 'knapidbatch' else 'other')
        self.set_threaded({'threaded': 'enabled', 'busypoll': 'busy-poll'}.get(mode, 'disabled'))
        if mode == 'threadirqs' and 'threadirqs' not in self.read('/proc/cmdline'):
            raise BenchError('mode threadirqs, but the kernel was booted without it')
        self.mode = mode

    # -- meters -----------------------------------------------------------

    @staticmethod
    def cpu_ticks():
        t = {}
        for line in open('/proc/stat'):
            f = line.split()
            if re.fullmatch(r'cpu\d+', f[0]):
                t[f[0]] = [int(x) for x in f[1:9]]
        return t

    @staticmethod
    def cpu_split(a, b):
        res = {}
        for cpu in sorted(b):
            d = [y - x for x, y in zip(a[cpu], b[cpu])]
            tot = sum(d) or 1
            usr, nice, sys_, idle, iow, irq, sirq, steal = d
            res[cpu] = {'usr': 100 * (usr + nice) / tot, 'sys': 100 * sys_ / tot,
                        'irq': 100 * irq / tot, 'softirq': 100 * sirq / tot,
                        'idle': 100 * (idle + iow) / tot, 'steal': 100 * steal / tot}
        return res

    @staticmethod
    def thread_ticks():
        t = {}
        for pid in os.listdir('/proc'):
            if not pid.isdigit():
                continue
            try:
                stat = open(f'/proc/{pid}/stat').read()
            except OSError:
                continue
            comm = stat[stat.index('(') + 1:stat.rindex(')')]
            if re.match(r'(knapid|ksoftirqd|napi|irq)/', comm):
                f = stat[stat.rindex(')') + 2:].split()
                t[comm] = int(f[11]) + int(f[12])
        return t

    def meters(self):
        return (time.monotonic(), self.cpu_ticks(), self.thread_ticks(),
                self.irq_count(self.irqs[(self.sut, 'input.0')]), *self.sut_counters(),
                self.irq_count(self.irqs[(self.sut, 'output.0')]), self.sched_counts())

    def meter_delta(self, m0):
        m1 = self.meters()
        secs = m1[0] - m0[0]
        hz = os.sysconf('SC_CLK_TCK')
        threads = {k: round(100 * (v - m0[2].get(k, 0)) / hz / secs, 2)
                   for k, v in m1[2].items() if v - m0[2].get(k, 0) > 0}
        return {'secs': secs, 'cpu': self.cpu_split(m0[1], m1[1]), 'threads': threads,
                'irqs': m1[3] - m0[3], 'rx_packets': m1[4] - m0[4],
                'udp_in': m1[5] - m0[5], 'irqs_tx': m1[6] - m0[6],
                # context switches and NET_RX softirqs, all CPUs
                'sched': {k: v - m0[7][k] for k, v in m1[7].items()}}

    def sut_counters(self):
        """packets the SUT's NIC took, datagrams its sockets got"""
        out = self.run(['sh', '-c', f'cat /sys/class/net/{self.sut}/statistics/rx_packets '
                        '/proc/net/snmp'], ns=SUT_NS).splitlines()
        udp = [line.split() for line in out if line.startswith('Udp:')]
        return int(out[0]), int(udp[1][udp[0].index('InDatagrams')])

    # -- Table 1 and 2 ----------------------------------------------------

    def ping(self):
        out = self.gen_run(['ping', '-n', '-c', self.ping_n, '-i', self.ping_interval,
                            '-W', 2, SUT_IP], timeout=self.ping_n * self.ping_interval * 4 + 60)
        samples = [round(float(x) * 1000, 1) for x in re.findall(r'time=([\d.]+) ms', out)]
        if len(samples) < self.ping_n * 0.9:
            raise BenchError(f'ping: {len(samples)} replies of {self.ping_n}')
        return {'test': 'ping', 'samples_us': samples, 'lost': self.ping_n - len(samples)}

    @staticmethod
    def sockperf_stats(out):
        out = re.sub(r'\x1b\[[0-9;]*m', '', out)
        pct = dict(re.findall(r'percentile (\d+\.\d+) = +([\d.]+)', out))
        avg = re.search(r'avg-(?:rtt|latency)=([\d.]+)', out)
        obs = re.search(r'Total (\d+) observations', out)
        if not (avg and obs and '50.000' in pct and '99.000' in pct):
            raise BenchError(f'sockperf printed no statistics: {out[-400:]}')
        return {'p50_us': float(pct['50.000']), 'p99_us': float(pct['99.000']),
                'mean_us': float(avg.group(1)), 'observations': int(obs.group(1))}

    def ping_pong(self, test, srv_ns, cli_ns, ip):
        srv = self.spawn(['sockperf', 'server', '-i', ip, '-p', PP_PORT], ns=srv_ns, cpu=SUT_CPU)
        try:
            self.wait_listen(srv_ns, PP_PORT, udp=True)
            c0 = self.sched_counts()
            cmd = ['sockperf', 'ping-pong', '-i', ip, '-p', PP_PORT, '-t', self.secs,
                   '-m', 64, '--full-rtt']
            out = self.gen_run(cmd, timeout=self.secs + 60) if cli_ns == GEN_NS else \
                self.run(cmd, ns=cli_ns, cpu=GEN_CPU, timeout=self.secs + 60)
            c1 = self.sched_counts()
        finally:
            self.stop(srv)
        # what each round trip cost the scheduler: context switches and
        # NET_RX softirqs (all CPUs), per message sent
        sent = re.search(r'\[Total Run\].*?SentMessages=(\d+)', out)
        n = int(sent.group(1)) if sent else 0
        per = {f'{k}_per_rt': (c1[k] - c0[k]) / n if n else None for k in c0}
        return {'test': test, **self.sockperf_stats(out), **per}

    @staticmethod
    def sched_counts():
        c = {}
        for line in open('/proc/stat'):
            if line.startswith('ctxt '):
                c['ctxt'] = int(line.split()[1])
        for line in open('/proc/softirqs'):
            f = line.split()
            if f and f[0] == 'NET_RX:':
                c['net_rx'] = sum(int(x) for x in f[1:])
                c['net_rx_cpu0'] = int(f[1 + SUT_CPU])
        return c

    def profile(self):
        """why knapid costs request-response latency: the scheduler's work
        per round trip, softirq against knapid, interleaved"""
        for r in range(self.rounds):
            for i, mode in enumerate(('softirq', 'knapid')[r % 2:] + ('softirq', 'knapid')[:r % 2]):
                self.set_mode(mode)
                for test, a, b, ip in (('pp_virtio', SUT_NS, GEN_NS, SUT_IP),
                                       ('pp_veth', VA_NS, VB_NS, VA_IP),
                                       ('pp_lo', LO_NS, LO_NS, '127.0.0.1')):
                    rec = self.ping_pong(test, a, b, ip)
                    self.res['t1'].append({'round': r, 'mode': mode, **rec})
                    if rec['ctxt_per_rt'] is None:
                        raise BenchError(f'{test}: sockperf printed no message count')
                    self.log(f'round {r + 1} {mode} {test}: p50 {rec["p50_us"]:.0f} us, '
                             f'{rec["ctxt_per_rt"]:.2f} context switches and '
                             f'{rec["net_rx_per_rt"]:.2f} NET_RX softirqs per round trip')
                self.save()

    def iperf_server(self):
        srv = self.spawn(['iperf3', '-s', '-1', '-B', SUT_IP, '-p', IPERF_PORT],
                         ns=SUT_NS, cpu=SUT_CPU)
        self.wait_listen(SUT_NS, IPERF_PORT)
        return srv

    def iperf_client(self, secs, rate=None):
        cmd = ['iperf3', '-c', SUT_IP, '-p', IPERF_PORT, '-t', secs, '-J']
        if rate:
            cmd += ['-b', int(rate)]
        res = json.loads(self.gen_run(cmd, timeout=secs + 60))
        if 'error' in res:
            raise BenchError(f'iperf3: {res["error"]}')
        end = res['end']
        return end['sum_received']['bits_per_second'], end['sum_sent'].get('retransmits', 0)

    def iperf(self, test, rate=None):
        srv = self.iperf_server()
        try:
            m0 = self.meters()
            bps, retr = self.iperf_client(self.secs, rate)
            d = self.meter_delta(m0)
            srv.wait(30)
        finally:
            self.stop(srv)
        return {'test': test, 'bps': bps, 'retransmits': retr, 'secs': d['secs'],
                'cpu': {'cpu0': d['cpu']['cpu0'], 'cpu1': d['cpu']['cpu1']},
                'threads': d['threads'], 'irqs': d['irqs'], 'rx_packets': d['rx_packets'],
                'sched': d['sched']}

    def run_cyclictest(self):
        return self.run(['cyclictest', '-m', '-q', '-p', 90, '-t', 1, '-a', SUT_CPU,
                         '-i', 500, '-D', self.secs, '-h', 20000], timeout=self.secs + 60)

    def cyclictest_quiet(self):
        """cyclictest() without the flood, on the quiet guest: the floor of
        what TCG itself does to its latency"""
        m0 = self.meters()
        out = self.run_cyclictest()
        return {**self.cyclictest_stats(out), 'sched': self.meter_delta(m0)['sched']}

    def cyclictest(self):
        """cyclictest SCHED_FIFO 90 on the SUT's CPU while iperf3 floods its NIC"""
        srv = self.iperf_server()
        flood = self.gen_spawn(['iperf3', '-c', SUT_IP, '-p', IPERF_PORT, '-t', self.secs + 3,
                                '-J'], timeout=self.secs + 60,
                               log=os.path.join(self.out, 'flood.json'))
        try:
            time.sleep(1)
            m0 = self.meters()
            out = self.run_cyclictest()
            # what ran beside it: context switches, NET_RX softirqs (on
            # its CPU: the idle-CPU inline rounds in knapid mode), the
            # SUT NIC's interrupts
            d = self.meter_delta(m0)
            if flood.wait(self.secs + 60):
                raise BenchError('the iperf3 flood under cyclictest failed')
            srv.wait(30)
        finally:
            self.stop(flood)
            self.stop(srv)
        with open(os.path.join(self.out, 'flood.json')) as f:
            flood_bps = json.load(f)['end']['sum_received']['bits_per_second']
        return {**self.cyclictest_stats(out), 'flood_bps': flood_bps,
                'secs': d['secs'], 'sched': d['sched'], 'irqs_rx': d['irqs'],
                'irqs_tx': d['irqs_tx']}

    @staticmethod
    def cyclictest_stats(out):
        hist = [(int(a), int(b)) for a, b in re.findall(r'^(\d{6}) (\d+)', out, re.M)]
        over = int(re.search(r'# Histogram Overflows: (\d+)', out).group(1))
        mx = int(re.search(r'# Max Latencies: (\d+)', out).group(1))
        n = sum(c for _, c in hist) + over
        acc, p99 = 0, None
        for us, c in hist:
            acc += c
            if acc >= 0.99 * n:
                p99 = us
                break
        return {'max_us': mx, 'p99_us': p99 if p99 is not None else 20000,
                'overflows': over, 'samples': n}

    def table1(self, modes, nic_only=False):
        """NIC_ONLY: the rows of the tap boot, which has no veth or lo
        request-response (they do not involve the generator)"""
        self.set_mode('softirq')
        cal = []
        for i in range(3):
            cal.append(self.iperf('iperf_max')['bps'])
            self.log(f'calibration {i + 1}/3: softirq iperf3 max {cal[-1] / 1e9:.3f} Gbit/s')
        mx = statistics.median(cal)
        self.res['calibration'].update({'iperf_max_softirq_bps': cal,
                                        'rates_bps': {'50%': mx * 0.5, '5%': mx * 0.05}})
        for r in range(self.rounds):
            # no traffic, so no mode to set: what cyclictest's max is
            # without NET_RX, to read the flooded ones against
            idle = self.cyclictest_quiet()
            self.res['t2_idle'].append({'round': r, **idle})
            self.log(f'round {r + 1}/{self.rounds} no flood: cyclictest max {idle["max_us"]} us, '
                     f'p99 {idle["p99_us"]} us')
            for i in range(len(modes)):
                mode = modes[(i + r) % len(modes)]
                self.set_mode(mode)
                tag = {'round': r, 'mode': mode}
                recs = [self.ping(),
                        self.ping_pong('pp_virtio', SUT_NS, GEN_NS, SUT_IP)]
                if not nic_only:
                    recs += [self.ping_pong('pp_veth', VA_NS, VB_NS, VA_IP),
                             self.ping_pong('pp_lo', LO_NS, LO_NS, '127.0.0.1')]
                recs += [self.iperf('iperf_max'),
                         self.iperf('iperf_50', mx * 0.5),
                         self.iperf('iperf_5', mx * 0.05)]
                self.res['t1'] += [{**tag, **x} for x in recs]
                t2 = {**tag, **self.cyclictest()}
                self.res['t2'].append(t2)
                p = recs[0]['samples_us']
                self.log(f'round {r + 1}/{self.rounds} {mode}: ping p50 '
                         f'{statistics.median(p):.0f} us, pp p50 {recs[1]["p50_us"]:.0f} us, '
                         f'iperf3 {recs[-3]["bps"] / 1e9:.3f} Gbit/s, CPU0 busy at 5% '
                         f'{100 - recs[-1]["cpu"]["cpu0"]["idle"]:.1f}%, cyclictest max '
                         f'{t2["max_us"]} us')
                self.save()

    # -- Table 3 ----------------------------------------------------------

    def epoll_server(self, case):
        (defer, gro, suspend), ep = CASES[case]
        self.napi_set(defer, gro, suspend)
        env = dict(os.environ, LD_PRELOAD=self.shim)
        if ep:
            env.update(EPOLL_BUSY_POLL_USECS=str(ep[0]), EPOLL_BUSY_POLL_BUDGET='64',
                       EPOLL_PREFER_BUSY_POLL=str(ep[1]), EPOLL_FULLBUSY=str(ep[2]))
        conns = os.path.join(self.out, 'conns.txt')
        self.write(conns, f'U:{SUT_IP}:{T3_PORT}')
        log = os.path.join(self.out, 'epoll-server.log')
        srv = self.spawn(['sockperf', 'server', '-F', 'e', '-f', conns, '--timeout=-1'],
                         ns=SUT_NS, cpu=SUT_CPU, env=env, log=log)
        want = []
        if ep:
            want.append('epoll_shim: epoll fd')
        if ep and ep[2]:
            want.append('epoll_shim: epoll_wait() loops')
        try:
            self.wait_listen(SUT_NS, T3_PORT, udp=True)
            end = time.monotonic() + 10
            while not all(w in open(log).read() for w in want):
                if time.monotonic() > end or srv.poll() is not None:
                    raise BenchError(f'{case}: the epoll server did not take the shim\'s '
                                     f'settings ({want})')
                time.sleep(0.1)
        except BenchError as e:
            self.stop(srv)
            raise BenchError(f'{e}; server log: {open(log).read()[-400:]}')
        return srv

    def under_load(self, case, mps):
        """one open-loop load against the running epoll server"""
        flog = os.path.join(self.out, 'full-log.csv')
        m0 = self.meters()
        out = self.run(['sockperf', 'under-load', '-i', SUT_IP, '-p', T3_PORT,
                        '-t', self.t3_secs, '-m', 64, f'--reply-every={T3_REPLY_EVERY}',
                        '--full-rtt', f'--mps={mps}', '--full-log', flog],
                       ns=GEN_NS, cpu=GEN_CPU, timeout=self.t3_secs + 60)
        d = self.meter_delta(m0)
        out = re.sub(r'\x1b\[[0-9;]*m', '', out)
        tot = re.search(r'\[Total Run\] RunTime=([\d.]+) sec', out)
        if not tot:
            raise BenchError(f'sockperf under-load printed no totals: {out[-400:]}')
        with open(flog) as f:
            rtt = sorted(float(x) for x in re.findall(r'^\d+, [\d.]+, [\d.]+, ([\d.]+)',
                                                     f.read(), re.M))
        os.unlink(flog)
        if not rtt:
            raise BenchError(f'{case} at {mps}: no replies')

        def q(p):  # nearest rank
            return rtt[max(0, math.ceil(p * len(rtt)) - 1)]
        drop = re.search(r'# dropped messages = (\d+)', out)
        # served: the datagrams the server's socket got, per second of load
        return {'achieved_mps': d['udp_in'] / float(tot.group(1)),
                'mean_us': statistics.fmean(rtt), 'p50_us': q(0.5), 'p95_us': q(0.95),
                'p99_us': q(0.99), 'cpu_busy': 100 - d['cpu']['cpu0']['idle'],
                # both vectors of the SUT's NIC: RX (what suspension
                # masks) and TX completions
                'irqs': d['irqs'] + d['irqs_tx'], 'irqs_rx': d['irqs'],
                'irqs_tx': d['irqs_tx'], 'requests': d['rx_packets'],
                'irq_per_req': (d['irqs'] + d['irqs_tx']) / max(1, d['rx_packets']),
                'dropped': int(drop.group(1)) if drop else 0,
                # context switches and NET_RX softirqs (all CPUs, CPU0)
                'sched': d['sched']}

    def case_loads(self, case, knapid, loads):
        """every load of LOADS [(name, mps or None)] against one server"""
        self.set_mode('knapid' if knapid else 'busypoll' if case == 'busypoll20' else 'softirq')
        srv = self.epoll_server(case)
        try:
            return [(name, mps, self.under_load(case, mps or 'max')) for name, mps in loads]
        finally:
            self.stop(srv)

    def table3(self, only=None):
        """ONLY: these knapid=0 cases alone (the napitx0 boot)"""
        self.set_mode('softirq')
        cal = [x[2]['achieved_mps'] for x in self.case_loads('base', 0, [('MAX', None)] * 3)]
        self.log('calibration: base MAX ' + ', '.join(f'{x:.0f}' for x in cal) + ' requests/s')
        mx = statistics.median(cal)
        self.res['calibration']['t3_base_max_mps'] = cal
        loads = [(ld, None if ld == 'MAX' else int(mx * int(ld[:-1]) / 100))
                 for ld in self.t3_loads]
        if only:
            cases = [(c, 0) for c in only]
        else:
            cases = [(c, 0) for c in CASES if c != 'busypoll20' or self.napi_threaded()]
            cases += [(c, 1) for c in KNAPID_CASES]
        for r in range(self.t3_rounds):
            for i in range(len(cases)):
                case, knapid = cases[(i + r) % len(cases)]
                recs = self.case_loads(case, knapid, loads)
                for load, target, rec in recs:
                    self.res['t3'].append({'round': r, 'case': case, 'knapid': knapid,
                                           'load': load, 'target_mps': target, **rec})
                self.log(f'round {r + 1}/{self.t3_rounds} {case}{"+knapid" if knapid else ""}: '
                         + ', '.join(f'{ld} p99 {x["p99_us"]:.0f} us, {x["irq_per_req"]:.3f} irq/req'
                                     for ld, _, x in recs))
                self.save()
        self.napi_set(0, 0, 0)

    # -- the run ----------------------------------------------------------

    def save(self):
        self.res['commands'] = sorted(self.commands)
        tmp = os.path.join(self.out, f'result-{self.boot}.json.tmp')
        with open(tmp, 'w') as f:
            json.dump(self.res, f)
        os.replace(tmp, os.path.join(self.out, f'result-{self.boot}.json'))

    def setup_tap(self):
        """one virtio NIC, on a tap into a netns of the host where the load
        generator runs natively (bench/tap_host.py, bench/topology-probe.sh)"""
        devs = self.virtio_netdevs()
        if len(devs) != 1:
            raise BenchError(f'expected one virtio-net NIC on a tap, found {devs}')
        self.sut = devs[0]
        self.virtio, self.irqs = {}, {}
        self.pin_nic(self.sut, SUT_CPU)
        self.nic_into_ns(self.sut, SUT_NS, SUT_IP)
        self.find_sut_napi()
        v = self.virtio[self.sut]
        self.topology = (
            f'one virtio-net-pci NIC (MSI-X, one queue pair) on a tap device in a network '
            f'namespace of the host; SUT {self.sut} ({v}, NAPI {self.napi}) {SUT_IP} in netns '
            f'{SUT_NS}; load generator native on the host, {GEN_IP} on the tap')
        self.pinning = self.sut_pinning(f'the harness in the guest on vCPU {GEN_CPU}, '
                                        f'the host generator unpinned')
        self.log(self.topology)
        self.log(self.pinning)

    def tap_serve(self):
        """The SUT of bench/topology-probe.sh: serves until the host writes
        OUT/stop; for every OUT/start-NAME it writes OUT/meter-NAME.json,
        the SUT's meters from start-NAME to stop-NAME."""
        self.setup_tap()
        if os.path.exists(KNAPID):
            self.write(KNAPID, 0)
        conns = os.path.join(self.out, 'conns.txt')
        self.write(conns, f'U:{SUT_IP}:{T3_PORT}')
        srvs = [self.spawn(['sockperf', 'server', '-F', 'e', '-f', conns, '--timeout=-1'],
                           ns=SUT_NS, cpu=SUT_CPU),
                self.spawn(['sockperf', 'server', '-i', SUT_IP, '-p', PP_PORT],
                           ns=SUT_NS, cpu=SUT_CPU),
                self.spawn(['iperf3', '-s', '-B', SUT_IP, '-p', IPERF_PORT],
                           ns=SUT_NS, cpu=SUT_CPU)]
        for port, udp in ((T3_PORT, True), (PP_PORT, True), (IPERF_PORT, False)):
            self.wait_listen(SUT_NS, port, udp=udp)
        self.write(os.path.join(self.out, 'ready'), 1)
        self.log(f'serving on {self.sut} {SUT_IP}')
        end = time.monotonic() + 1800
        started = {}
        try:
            while time.monotonic() < end and not os.path.exists(os.path.join(self.out, 'stop')):
                for f in os.listdir(self.out):
                    if f.startswith('start-') and f[6:] not in started:
                        started[f[6:]] = self.meters()
                    elif f.startswith('stop-') and f[5:] in started:
                        d = self.meter_delta(started.pop(f[5:]))
                        with open(os.path.join(self.out, f'meter-{f[5:]}.json'), 'w') as o:
                            json.dump(d, o)
                        os.unlink(os.path.join(self.out, f))
                time.sleep(0.05)
        finally:
            for p in srvs:
                self.stop(p)
        self.log('done')

    def main_modes(self):
        return ['softirq', 'knapid', 'threaded'] + (['busypoll'] if self.napi_threaded() else [])

    def main(self):
        if self.boot == 'serve':
            return self.tap_serve()
        if self.tap:
            os.sched_setaffinity(0, {GEN_CPU})
            self.host_dir = os.path.join(self.out, 'host')
            if not os.path.isdir(self.host_dir):
                raise BenchError(f'no {self.host_dir}: is bench/tap_host.py serving?')
            self.setup_tap()
            self.run(['ping', '-q', '-c', 3, '-i', 0.2, '-w', 20, GEN_IP], ns=SUT_NS)
        else:
            self.setup()
        self.res = {'meta': {'kernel': os.uname().release, 'boot': self.boot,
                             'commit': self.commit,
                             'cmdline': self.read('/proc/cmdline'), 'accel': 'TCG',
                             'vcpus': os.cpu_count(), 'quick': self.quick,
                             'rounds': self.rounds, 'secs': self.secs,
                             't3_rounds': self.t3_rounds, 't3_reply_every': T3_REPLY_EVERY,
                             't3_secs': self.t3_secs, 'ping_per_round': self.ping_n,
                             'ping_interval_s': self.ping_interval,
                             'started': time.strftime('%FT%TZ', time.gmtime()),
                             'topology': self.topology, 'pinning': self.pinning},
                    'calibration': {}, 't1': [], 't2': [], 't2_idle': [], 't3': [],
                    'complete': False}
        if self.boot == 'threadirqs':
            self.table1(['softirq', 'threadirqs'])
        elif self.boot == 'ab':
            self.table1(['softirq', 'knapid'])
        elif self.boot == 'profile':
            self.profile()
        elif self.boot in TAPBATCH_BOOTS:
            self.table1(['softirq', 'knapid', 'knapidbatch'], nic_only=True)
        elif self.tap:
            self.table1(self.main_modes(), nic_only=True)
        elif self.boot == 'napitx0':
            # virtio_net.napi_tx=0: TX completions without their own NAPI
            # and interrupt; does suspension then cover the whole NIC?
            if 'virtio_net.napi_tx=0' not in self.read('/proc/cmdline'):
                raise BenchError('boot napitx0, but the kernel was booted without virtio_net.napi_tx=0')
            self.table3(only=('base', 'defer20', 'fullbusy', 'suspend20'))
        else:
            self.table1(self.main_modes())
            self.table3()
        self.set_mode('softirq')
        self.res['meta']['finished'] = time.strftime('%FT%TZ', time.gmtime())
        self.res['complete'] = True
        self.save()
        self.log('done')


def loads_arg(text):
    """--loads: percentages of base MAX (1-100) or MAX, comma-separated"""
    loads = tuple(text.split(','))
    for ld in loads:
        if not (ld == 'MAX' or re.fullmatch(r'[1-9][0-9]?%|100%', ld)):
            raise argparse.ArgumentTypeError(f'{ld!r}: a load is N% (1-100) or MAX')
    return loads


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--out', required=True)
    ap.add_argument('--ksrc', required=True)
    ap.add_argument('--shim', required=True)
    ap.add_argument('--commit', default=None, help='the harness commit, for the report')
    # ab: Table 1 and 2 for softirq and knapid only, to compare two kernels
    # tap: Tables 1 and 2 on the NIC only, the generator native on the host
    # (through bench/tap_host.py)
    # serve: serve bench/topology-probe.sh's host-side load generator
    # profile: context switches and NET_RX softirqs per round trip
    # main-2, main-3: the main boot again, for the spread between boots;
    # tap-2, tap-3: the tap boot again, likewise
    # tapbatch, tapbatch-2, tapbatch-3: the tap boot's rows for softirq,
    # knapid and knapid with SCHED_BATCH threads
    # napitx0: Table 3's base, defer20, fullbusy and suspend20 with
    # virtio_net.napi_tx=0 (TX completions on no interrupt of their own)
    ap.add_argument('--boot', choices=('main', 'main-2', 'main-3', 'threadirqs', 'ab') + TAP_BOOTS
                    + TAPBATCH_BOOTS + ('serve', 'profile', 'napitx0'), default='main')
    ap.add_argument('--quick', action='store_true')
    ap.add_argument('--rounds', type=int, help='override the rounds (debugging)')
    ap.add_argument('--secs', type=int, help='override the seconds per measurement (debugging)')
    ap.add_argument('--t3-rounds', type=int, help='Table 3\'s rounds (default 5)')
    ap.add_argument('--loads', type=loads_arg, help='Table 3\'s loads, e.g. 20%%,40%%,MAX')
    ap.add_argument('--only', choices=('t1', 't3'), help='one table (debugging)')
    return ap.parse_args(argv)


def main():
    args = parse_args()
    b = Bench(args)
    try:
        if args.only:
            b.setup()
            b.res = {'meta': {}, 'calibration': {}, 't1': [], 't2': [], 't3': []}
            b.table1(b.main_modes()) if args.only == 't1' else b.table3()
            b.save()
        else:
            b.main()
    except Exception as e:  # noqa: BLE001 -- every failure must say why
        traceback.print_exc()
        b.log(f'FAILED: {e}' if isinstance(e, BenchError) else f'FAILED: {type(e).__name__}: {e}')
        sys.exit(1)


if __name__ == '__main__':
    main()
