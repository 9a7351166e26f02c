#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""In the guest of `make bench TIER=vt`: what knapid is for, on the clock
the guest runs on.

Under QEMU's icount mode the guest's clock advances with the instructions
it executes, so host load drops out of every time it measures; traffic
must then stay inside the guest. 7.3's netdevsim does: a linked pair
moves each packet to its peer and schedules the peer's NAPI from an
hrtimer 5 us later (a hard interrupt on the sender's CPU).

Topology: netdevsim pair, vt-a (192.0.2.1, the receiver) and vt-b
(192.0.2.2, the sender); every server and client runs on vCPU 0. RPS on
both devices steers what they receive to vCPU 1, the CPU under test, where
only cyclictest and the CPU-bound task run: its receive work arrives by
RPS IPI, an interrupt that finds it busy or idle, as a NIC's would. In
threaded and busypoll modes the pair's NAPI threads are pinned to vCPU 1
too (RPS to their own CPU keeps the backlog in them). Otherwise the
netdevsim NAPIs themselves run on vCPU 0, where the peer's timer fires.
A veth pair (vt-va 198.51.100.1, vt-vb 198.51.100.2) and vt-a's lo carry
request-response without a device NAPI: the path of containers, where a
task's own transmit raises the round.

Per round, modes rotated (softirq; knapid; threaded: napi-set threaded
enabled on the pair's NAPIs; busypoll: napi-set threaded busy-poll),
each thread pinned to vCPU 1:
- quiet: cyclictest alone (the floor of this boot);
- flood: an iperf3 TCP flood b -> a beside cyclictest SCHED_FIFO 90 on
  vCPU 1: max, p99, p99.9; where vCPU 1's time went (/proc/stat, the
  knapid, ksoftirqd and napi threads);
- fair: the same flood beside a CPU-bound task at nice 0 on vCPU 1: the
  work it gets done against the same task alone in that round (the share
  of vCPU 1 it keeps), with the polling thread at nice 0 and at nice 19
  (knapid, threaded, busypoll), and the CPU time charged to it; the
  flood's throughput;
- fifo: the same CPU-bound task at SCHED_FIFO 10, the polling threads at
  nice 0: its share, and what the flood still gets through;
- rate: a TCP stream at a fixed 1 Gbit/s, and the flood above at the
  maximum: the guest CPU time (both vCPUs, virtual time under icount)
  spent per MB received;
- rr: sockperf ping-pong over the pair (client and server on vCPU 0, the
  receive work on vCPU 1), and over veth and lo (server on vCPU 1, client
  on vCPU 0), p50 and p99, and the context switches per round trip.

usage: vt_guest.py --out DIR --boot NAME --ksrc LINUX [--rounds N] [--secs S]
Writes DIR/vt-NAME.json and DIR/progress-NAME.log; exits non-zero, with
the reason, if a measurement fails.
"""

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from guest_bench import Bench, BenchError  # noqa: E402

KNAPID = '/proc/sys/net/core/knapid_enabled'
NSIM = '/sys/bus/netdevsim'
NS_A, NS_B = 'vt-a', 'vt-b'
IP_A, IP_B = '192.0.2.1', '192.0.2.2'
NS_VA, NS_VB = 'vt-va', 'vt-vb'
IP_VA, IP_VB = '198.51.100.1', '198.51.100.2'
ID_A, ID_B = 871, 872
APP_CPU, TEST_CPU = 0, 1
IPERF_PORT, PP_PORT = 5201, 11111
MODES = ('softirq', 'knapid', 'threaded', 'busypoll')
# napi-set's "threaded" for each mode
THREADED = {'threaded': 'enabled', 'busypoll': 'busy-poll'}
# request-response paths: (server netns, client netns, address, server CPU)
PATHS = {'pair': (NS_A, NS_B, IP_A, APP_CPU), 'veth': (NS_VA, NS_VB, IP_VA, TEST_CPU),
         'lo': (NS_A, NS_A, '127.0.0.1', TEST_CPU)}
RATE = '1G'
FIFO_PRIO = 10


def sh(cmd, timeout=60):
    """run a shell command, its stdout; BenchError when it fails"""
    p = subprocess.run(['sh', '-c', cmd], capture_output=True, text=True,
                       timeout=timeout, errors='replace')
    if p.returncode:
        raise BenchError(f'{cmd}: exit {p.returncode}: {(p.stderr or p.stdout)[-400:]}')
    return p.stdout


def in_ns(ns, cpu, argv):
    return ['ip', 'netns', 'exec', ns, 'taskset', '-c', str(cpu)] + [str(a) for a in argv]


def wait_listen(port, proto, secs=20, ns=NS_A):
    """poll until a socket of netns NS listens on PORT (PROTO tcp or udp)"""
    flag = '-ltn' if proto == 'tcp' else '-lun'
    end = time.monotonic() + secs
    while time.monotonic() < end:
        out = subprocess.run(['ip', 'netns', 'exec', ns, 'ss', '-H', flag, f'sport = :{port}'],
                             capture_output=True, text=True).stdout
        if out.strip():
            return
        time.sleep(0.05)
    raise BenchError(f'nothing listens on {proto} port {port} in {ns} after {secs}s')


def hist_stats(out):
    """cyclictest -h output: Bench.cyclictest_stats plus p99.9"""
    st = Bench.cyclictest_stats(out)
    hist = [(int(a), int(b)) for a, b in re.findall(r'^(\d{6}) (\d+)', out, re.M)]
    n, acc, p999 = st['samples'], 0, None
    for us, c in hist:
        acc += c
        if acc >= 0.999 * n:
            p999 = us
            break
    st['p999_us'] = p999 if p999 is not None else st['max_us']
    return st


def task_run_ns(proc='/proc'):
    """{(tid, start time): run time in ns (schedstat's first field)} of every
    task of the guest; BenchError if none could be read (no schedstat)"""
    tasks = {}
    for pid in os.listdir(proc):
        if not pid.isdigit():
            continue
        try:
            tids = os.listdir(f'{proc}/{pid}/task')
        except OSError:
            continue
        for tid in tids:
            try:
                with open(f'{proc}/{pid}/task/{tid}/schedstat') as f:
                    run = int(f.read().split()[0])
                with open(f'{proc}/{pid}/task/{tid}/stat') as f:
                    # the fields after "(comm)"; start time is field 22
                    start = f.read().rpartition(')')[2].split()[19]
            except (OSError, ValueError, IndexError):
                continue
            tasks[(tid, start)] = run
    if not tasks:
        raise BenchError(f'no task run time in {proc}/*/task/*/schedstat')
    return tasks


def run_secs(t0, t1, children):
    """CPU seconds the tasks ran between two task_run_ns() reads: what those
    alive at the second ran since the first (all of it for one born in
    between), plus CHILDREN, the reaped children's CPU seconds (a process
    that started and ended in between, cyclictest or the CPU-bound task)"""
    return sum(max(0, v - t0.get(k, 0)) for k, v in t1.items()) / 1e9 + children


def children_secs():
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def thread_secs():
    """{comm: CPU seconds} of the knapid, ksoftirqd and napi threads"""
    hz = os.sysconf('SC_CLK_TCK')
    return {k: v / hz for k, v in Bench.thread_ticks().items()}


class Vt:
    def __init__(self, args):
        self.out, self.boot, self.ksrc = args.out, args.boot, args.ksrc
        self.rounds, self.secs = args.rounds, args.secs
        self.logf = open(os.path.join(self.out, f'progress-{self.boot}.log'), 'w')
        self.res = {'boot': self.boot, 'cmdline': open('/proc/cmdline').read().strip(),
                    'secs': self.secs, 'rounds': self.rounds, 'records': []}
        self.devs = {}
        self.napi_ids = {}
        self.threaded = {}
        self.thread_pid = {}

    def log(self, msg):
        line = f'[{time.monotonic():9.1f}] {msg}'
        print(line, flush=True)
        self.logf.write(line + '\n')
        self.logf.flush()

    # -- setup --------------------------------------------------------------

    def setup(self):
        sh('modprobe -q netdevsim || true')
        if not os.path.exists(f'{NSIM}/new_device'):
            raise BenchError('no netdevsim')
        if not os.path.exists(KNAPID):
            raise BenchError(f'no {KNAPID}: a kernel without knapid')
        for ns in (NS_A, NS_B):
            sh(f'ip netns del {ns} 2>/dev/null; ip netns add {ns}')
        for nid, ns, ip in ((ID_A, NS_A, IP_A), (ID_B, NS_B, IP_B)):
            sh(f'echo "{nid} 1 1" > {NSIM}/new_device; udevadm settle 2>/dev/null; true')
            dev = os.listdir(f'{NSIM}/devices/netdevsim{nid}/net')[0]
            sh(f'ip link set {dev} netns {ns} && ip -n {ns} link set {dev} up && '
               f'ip -n {ns} link set lo up && ip -n {ns} addr add {ip}/24 dev {dev}')
            # no IPv6: its timers would send their own packets meanwhile
            sh(f'ip netns exec {ns} sysctl -qw net.ipv6.conf.all.disable_ipv6=1')
            self.devs[ns] = dev
        ia = sh(f'ip netns exec {NS_A} cat /sys/class/net/{self.devs[NS_A]}/ifindex').strip()
        ib = sh(f'ip netns exec {NS_B} cat /sys/class/net/{self.devs[NS_B]}/ifindex').strip()
        sh(f'exec 3</run/netns/{NS_A} 4</run/netns/{NS_B}; '
           f'echo "3:{ia} 4:{ib}" > {NSIM}/link_device')
        for ns in (NS_A, NS_B):
            sh(f'ip netns exec {ns} sh -c "echo {1 << TEST_CPU:x} > '
               f'/sys/class/net/{self.devs[ns]}/queues/rx-0/rps_cpus"')
        sh(f'ip netns exec {NS_B} ping -c 3 -i 0.2 -W 2 {IP_A} > /dev/null')
        for ns in (NS_A, NS_B):
            got = self.ynl(ns, '--dump', 'napi-get', {'ifindex': int(ia if ns == NS_A else ib)})
            if not got or len(got) != 1:
                raise BenchError(f'{self.devs[ns]}: napi-get lists {got}, want one NAPI')
            self.napi_ids[ns] = got[0]['id']
            self.threaded[ns] = got[0].get('threaded', 'disabled')
        for ns in (NS_VA, NS_VB):
            sh(f'ip netns del {ns} 2>/dev/null; ip netns add {ns}; ip -n {ns} link set lo up; '
               f'ip netns exec {ns} sysctl -qw net.ipv6.conf.all.disable_ipv6=1')
        sh(f'ip link add vt-va netns {NS_VA} type veth peer name vt-vb netns {NS_VB}')
        for ns, dev, ip in ((NS_VA, 'vt-va', IP_VA), (NS_VB, 'vt-vb', IP_VB)):
            sh(f'ip -n {ns} addr add {ip}/24 dev {dev} && ip -n {ns} link set {dev} up')
        sh(f'ip netns exec {NS_VB} ping -c 3 -i 0.2 -W 2 {IP_VA} > /dev/null')
        self.log(f'netdevsim pair {self.devs[NS_A]} ({NS_A}, {IP_A}, NAPI '
                 f'{self.napi_ids[NS_A]}) - {self.devs[NS_B]} ({NS_B}, {IP_B}, NAPI '
                 f'{self.napi_ids[NS_B]}); veth {IP_VA} ({NS_VA}) - {IP_VB} ({NS_VB})')

    def ynl(self, ns, kind, op, attrs):
        """the YNL CLI of the tree in netns NS; its JSON answer"""
        cli = os.path.join(self.ksrc, 'tools/net/ynl/pyynl/cli.py')
        spec = os.path.join(self.ksrc, 'Documentation/netlink/specs/netdev.yaml')
        p = subprocess.run(['ip', 'netns', 'exec', ns, '/usr/bin/python3', cli, '--spec', spec,
                            '--no-schema', '--output-json', kind, op, '--json',
                            json.dumps(attrs)], capture_output=True, text=True,
                           # virtual time: while the CLI waits for its files
                           # over 9p, icount's clock jumps to the next timer,
                           # so a loaded host makes a call last minutes
                           timeout=900)
        if p.returncode:
            raise BenchError(f'ynl {kind} {op} {attrs} in {ns}: exit {p.returncode}: '
                             f'{(p.stderr or p.stdout)[-400:]}')
        return json.loads(p.stdout) if p.stdout.strip() else None

    def teardown(self):
        for ns in (NS_A, NS_B, NS_VA, NS_VB):
            subprocess.run(['ip', 'netns', 'del', ns], capture_output=True)
        for nid in (ID_A, ID_B):
            subprocess.run(['sh', '-c', f'echo {nid} > {NSIM}/del_device'], capture_output=True)

    def set_mode(self, mode, nice=0):
        """MODE with the polling threads (knapid/1, or the pair's NAPI
        threads, pinned to vCPU 1) at NICE; their pids"""
        if mode not in MODES:
            raise BenchError(f'unknown mode {mode}')
        sh(f'echo {1 if mode == "knapid" else 0} > {KNAPID}')
        want = THREADED.get(mode, 'disabled')
        pids = []
        for ns in (NS_A, NS_B):
            nid = self.napi_ids[ns]
            # the YNL CLI costs seconds of virtual time a call: only on a
            # change (a thread keeps its pid until threaded is disabled)
            if self.threaded[ns] != want:
                self.ynl(ns, '--do', 'napi-set', {'id': nid, 'threaded': want})
                self.threaded[ns] = want
                if want != 'disabled':
                    got = self.ynl(ns, '--do', 'napi-get', {'id': nid})
                    if got.get('threaded') != want or not got.get('pid'):
                        raise BenchError(f'napi-set threaded {want} on NAPI {nid} reads '
                                         f'back as {got}')
                    self.thread_pid[ns] = got['pid']
                    sh(f'taskset -pc {TEST_CPU} {got["pid"]} > /dev/null')
            if want != 'disabled':
                pids.append(self.thread_pid[ns])
        if mode == 'knapid':
            pids = [int(sh(f'pgrep -x knapid/{TEST_CPU}').split()[0])]
        for pid in pids:
            sh(f'renice -n {nice} -p {pid} > /dev/null')
        return pids

    # -- meters -------------------------------------------------------------

    @staticmethod
    def meters():
        return (time.monotonic(), Bench.cpu_ticks(), thread_secs(), task_run_ns(),
                children_secs())

    @staticmethod
    def delta(m0):
        t1, cpu1, thr1, run1, ch1 = Vt.meters()
        secs = t1 - m0[0]
        split = Bench.cpu_split(m0[1], cpu1)[f'cpu{TEST_CPU}']
        threads = {k: round(100 * (v - m0[2].get(k, 0)) / secs, 2)
                   for k, v in thr1.items() if v - m0[2].get(k, 0) > 0}
        # CPU seconds of both vCPUs (virtual time under icount): what every
        # task ran, plus the interrupt and softirq time that
        # CONFIG_IRQ_TIME_ACCOUNTING takes out of the tasks' (it is the only
        # count of the softirqs an interrupt runs in the idle task). Idle
        # time cannot be used: under icount the guest's clock jumps to the
        # next timer when both vCPUs idle, so the tick and NO_HZ's idle
        # time saw a 1 Gbit/s stream's vCPUs 100% idle
        hz = os.sysconf('SC_CLK_TCK')
        irq = sum(cpu1[c][5] + cpu1[c][6] - m0[1][c][5] - m0[1][c][6] for c in cpu1) / hz
        run = run_secs(m0[3], run1, ch1 - m0[4])
        busy = run + irq
        return {'secs': round(secs, 3), 'cpu': split, 'threads': threads,
                'task_cpu_secs': round(run, 4), 'irq_cpu_secs': round(irq, 4),
                'busy_cpu_secs': round(busy, 4)}

    # -- the flood ----------------------------------------------------------

    def flood(self, secs, rate=None):
        """iperf3 server in vt-a and a TCP flood from vt-b (at RATE, or as
        fast as it goes), both on vCPU 0, for SECS (+2 s of start);
        (server, client) processes"""
        srv = subprocess.Popen(in_ns(NS_A, APP_CPU, ['iperf3', '-s', '-1', '-p', IPERF_PORT]),
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_listen(IPERF_PORT, 'tcp')
        cli = subprocess.Popen(in_ns(NS_B, APP_CPU, ['iperf3', '-c', IP_A, '-p', IPERF_PORT,
                                                      '-t', secs + 2, '-J'] +
                                     (['-b', rate] if rate else [])),
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        time.sleep(1)
        return srv, cli

    def flood_end(self, srv, cli):
        try:
            out, _ = cli.communicate(timeout=self.secs + 120)
            srv.wait(30)
        finally:
            for p in (cli, srv):
                if p.poll() is None:
                    p.kill()
        if cli.returncode:
            raise BenchError(f'iperf3 flood: exit {cli.returncode}')
        return json.loads(out)['end']['sum_received']['bits_per_second']

    # -- the measurements ---------------------------------------------------

    def cyclictest(self):
        out = sh(f'cyclictest -m -q -p 90 -t 1 -a {TEST_CPU} -i 500 -D {self.secs} -h 20000',
                 timeout=self.secs + 120)
        return hist_stats(out)

    def quiet(self):
        return {'test': 'quiet', **self.cyclictest()}

    def flood_rt(self, mode):
        srv, cli = self.flood(self.secs)
        m0 = self.meters()
        try:
            st = self.cyclictest()
            d = self.delta(m0)
        finally:
            bps = self.flood_end(srv, cli)
        return {'test': 'flood', 'mode': mode, **st, **d, 'flood_bps': bps}

    def hog(self, fifo=False):
        """a CPU-bound task on vCPU 1 for SECS (at SCHED_FIFO FIFO_PRIO if
        FIFO): (loops it ran, the CPU seconds the kernel charged to it)"""
        chrt = f'chrt -f {FIFO_PRIO} ' if fifo else ''
        out = sh('%staskset -c %d python3 -c "import time\n'
                 'end, n = time.monotonic() + %d, 0\n'
                 'while time.monotonic() < end:\n    n += 1\n'
                 'print(n, time.process_time())"' % (chrt, TEST_CPU, self.secs),
                 timeout=self.secs + 120)
        n, cpu = out.split()[-2:]
        return int(n), float(cpu)

    def hog_alone(self):
        """the CPU-bound task without traffic: its loops per second are
        this round's 100%"""
        n, cpu = self.hog()
        return {'test': 'hog_alone', 'loops': n, 'cpu_secs': cpu}

    def fair(self, mode, nice, alone, fifo=False):
        """the share of vCPU 1 the CPU-bound task (at SCHED_FIFO if FIFO)
        keeps beside the flood: its loops against ALONE's (work done,
        whoever the kernel charged NET_RX to: without IRQ_TIME_ACCOUNTING a
        softirq that interrupts it is charged to it), and the CPU time
        charged to it"""
        self.set_mode(mode, nice)
        srv, cli = self.flood(self.secs)
        m0 = self.meters()
        try:
            n, cpu = self.hog(fifo)
            d = self.delta(m0)
        finally:
            bps = self.flood_end(srv, cli)
        return {'test': 'fifo' if fifo else 'fair', 'mode': mode, 'nice': nice,
                'hog_pct': round(100 * n / alone['loops'], 2),
                'charged_pct': round(100 * cpu / d['secs'], 2), **d, 'flood_bps': bps}

    def rate(self, mode):
        """a TCP stream at RATE for SECS: the guest CPU time it costs"""
        srv, cli = self.flood(self.secs, RATE)
        m0 = self.meters()
        try:
            time.sleep(self.secs)
            d = self.delta(m0)
        finally:
            bps = self.flood_end(srv, cli)
        return {'test': 'rate', 'mode': mode, 'rate': RATE, **d, 'flood_bps': bps}

    def rr(self, mode, path):
        """sockperf ping-pong over PATH (PATHS)"""
        srv_ns, cli_ns, ip, srv_cpu = PATHS[path]
        srv = subprocess.Popen(in_ns(srv_ns, srv_cpu, ['sockperf', 'server', '-i', ip,
                                                       '-p', PP_PORT]),
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_listen(PP_PORT, 'udp', ns=srv_ns)
            c0 = Bench.sched_counts()['ctxt']
            out = sh(' '.join(in_ns(cli_ns, APP_CPU, ['sockperf', 'ping-pong', '-i', ip,
                                                       '-p', PP_PORT, '-t', self.secs,
                                                       '-m', 64, '--full-rtt'])),
                     timeout=self.secs + 120)
            c1 = Bench.sched_counts()['ctxt']
        finally:
            srv.kill()
            srv.wait()
        st = Bench.sockperf_stats(out)
        sent = re.search(r'\[Total Run\].*?SentMessages=(\d+)', out)
        n = int(sent.group(1)) if sent else 0
        return {'test': 'rr', 'mode': mode, 'path': path, **st,
                'ctxt_per_rt': round((c1 - c0) / n, 3) if n else None}

    def run(self):
        self.setup()
        try:
            for r in range(self.rounds):
                self.one_round(r)
        finally:
            self.set_mode('softirq')
            self.teardown()
        path = os.path.join(self.out, f'vt-{self.boot}.json')
        with open(path, 'w') as f:
            json.dump(self.res, f, indent=1)
        self.log(f'wrote {path}')

    def add(self, r, rec):
        self.res['records'].append({'round': r, **rec})
        return rec

    def one_round(self, r):
        # the floor and the CPU-bound task alone, no thread polling
        self.set_mode('softirq')
        q = self.add(r, self.quiet())
        self.log(f'round {r + 1}/{self.rounds} quiet: cyclictest max {q["max_us"]} us, '
                 f'p99 {q["p99_us"]} us')
        alone = self.add(r, self.hog_alone())
        self.log(f'round {r + 1} the CPU-bound task alone: {alone["loops"]} loops')
        for mode in MODES[r % len(MODES):] + MODES[:r % len(MODES)]:
            self.set_mode(mode)
            f = self.add(r, self.flood_rt(mode))
            self.log(f'round {r + 1} {mode}: flood {f["flood_bps"] / 1e9:.2f} Gbit/s, '
                     f'cyclictest max {f["max_us"]} p99.9 {f["p999_us"]} us; '
                     f'threads {f["threads"]}')
            for nice in ((0,) if mode == 'softirq' else (0, 19)):
                h = self.add(r, self.fair(mode, nice, alone))
                self.log(f'round {r + 1} {mode} nice {nice}: the CPU-bound task did '
                         f'{h["hog_pct"]}% of its work alone (charged '
                         f'{h["charged_pct"]}% of vCPU {TEST_CPU}); threads {h["threads"]}')
            h = self.add(r, self.fair(mode, 0, alone, fifo=True))
            self.log(f'round {r + 1} {mode}: at SCHED_FIFO the CPU-bound task did '
                     f'{h["hog_pct"]}% of its work alone; flood {h["flood_bps"] / 1e9:.2f} '
                     f'Gbit/s')
            self.set_mode(mode)
            c = self.add(r, self.rate(mode))
            self.log(f'round {r + 1} {mode}: {c["flood_bps"] / 1e9:.2f} Gbit/s at {RATE} '
                     f'cost {c["busy_cpu_secs"]} CPU s')
            for path in PATHS:
                p = self.add(r, self.rr(mode, path))
                self.log(f'round {r + 1} {mode}: ping-pong over {path} p50 {p.get("p50_us")} '
                         f'us, {p["ctxt_per_rt"]} context switches per round trip')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n', 1)[0])
    ap.add_argument('--out', required=True)
    ap.add_argument('--boot', required=True)
    ap.add_argument('--ksrc', required=True)
    ap.add_argument('--rounds', type=int, default=3)
    ap.add_argument('--secs', type=int, default=3)
    args = ap.parse_args()
    try:
        Vt(args).run()
    except (BenchError, subprocess.TimeoutExpired, OSError) as e:
        traceback.print_exc()
        print(f'vt_guest: {e}', file=sys.stderr)
        sys.exit(1)


if __name__ == '__main__':
    main()
