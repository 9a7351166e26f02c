#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The host side of make bench's tap boot: runs the load generator's
commands natively on the host, in the network namespace of the guest's tap,
when bench/guest_bench.py --boot tap asks for them.

usage: tap_host.py DIR NETNS

The guest writes DIR/req-N.json ({"argv": [...], "timeout": secs}); this
starts `ip netns exec NETNS timeout -k 5 SECS ARGV...` with its output in
DIR/out-N.log, and writes DIR/rc-N (the exit status) when it ends.
DIR/cancel-N kills it. Runs until DIR/stop exists or it is killed; a
request for anything but the generator's tools is refused (exit 126).
"""

import json
import os
import subprocess
import sys
import time

TOOLS = ('ping', 'iperf3', 'sockperf')


def write_rc(d, n, rc):
    tmp = os.path.join(d, f'rc-{n}.tmp')
    with open(tmp, 'w') as f:
        f.write(f'{rc}\n')
    os.replace(tmp, os.path.join(d, f'rc-{n}'))


def main():
    if len(sys.argv) != 3:
        print(__doc__.split('\n\n')[1], file=sys.stderr)
        return 2
    d, ns = sys.argv[1:]
    running = {}
    seen = set()
    while not os.path.exists(os.path.join(d, 'stop')):
        for f in os.listdir(d):
            if not (f.startswith('req-') and f.endswith('.json')) or f in seen:
                continue
            seen.add(f)
            n = f[4:-5]
            with open(os.path.join(d, f)) as r:
                req = json.load(r)
            argv, tmo = [str(a) for a in req['argv']], int(req['timeout'])
            log = open(os.path.join(d, f'out-{n}.log'), 'w')
            if argv[0] not in TOOLS:
                log.write(f'tap_host.py: {argv[0]} is not a load generator ({", ".join(TOOLS)})\n')
                log.close()
                write_rc(d, n, 126)
                continue
            running[n] = (subprocess.Popen(['ip', 'netns', 'exec', ns, 'timeout', '-k', '5',
                                            str(tmo)] + argv, stdout=log,
                                           stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL),
                          log)
        for n, (p, log) in list(running.items()):
            if p.poll() is None and os.path.exists(os.path.join(d, f'cancel-{n}')):
                p.terminate()
                p.wait()
            if p.poll() is not None:
                log.close()
                write_rc(d, n, p.returncode)
                del running[n]
        time.sleep(0.02)
    for p, _ in running.values():
        p.kill()
    return 0


if __name__ == '__main__':
    sys.exit(main())
