#!/usr/bin/env python3
"""An epoll server that keeps finding events without consuming them.

usage: epoll_hold.py PORT STATEDIR [--conns N] [--fork] [--pipes] [--secs S]

Accepts one TCP connection, sets prefer_busy_poll on its epoll context
(EPIOCSPARAMS, busy_poll_usecs 0, budget 64) and then calls epoll_wait()
in a loop without ever reading: the socket stays readable, so every call
returns the event and eventpoll calls napi_suspend_irqs() for the socket's
NAPI each time. The number of calls that returned events goes to
STATEDIR/events after each one. Stops when STATEDIR/stop appears or after
S seconds (default 120).

  --conns N  accept N connections, each in an epoll context of its own
             (N contexts suspending the same NAPI), polled in turn
  --fork     once set up, fork: the child polls the same (inherited)
             epoll contexts too and counts into STATEDIR/events.child;
             the parent exits after it
  --pipes    no TCP (PORT is ignored): the context watches a pipe and a
             unix socket pair, both kept readable, so prefer_busy_poll
             runs on a context without a NAPI
"""
import argparse
import fcntl
import os
import select
import socket
import struct
import sys
import time

# struct epoll_params: busy_poll_usecs, busy_poll_budget, prefer_busy_poll, pad
EPOLL_PARAMS = 'IHBB'
# _IOW(0x8A, 0x01, struct epoll_params) in the generic ioctl encoding that
# x86 and arm64, the guests' architectures, use
EPIOCSPARAMS = (1 << 30) | (struct.calcsize(EPOLL_PARAMS) << 16) | (0x8A << 8) | 0x01


def busy_epoll(usecs=0, budget=64):
    """An epoll context with prefer_busy_poll, busy polling USECS per wait."""
    ep = select.epoll()
    fcntl.ioctl(ep.fileno(), EPIOCSPARAMS,
                struct.pack(EPOLL_PARAMS, usecs, budget, 1, 0))
    return ep


def count(path, n):
    with open(f'{path}.tmp', 'w') as f:
        f.write(f'{n}\n')
    os.replace(f'{path}.tmp', path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('port', type=int)
    ap.add_argument('state')
    ap.add_argument('--conns', type=int, default=1)
    ap.add_argument('--fork', action='store_true')
    ap.add_argument('--pipes', action='store_true')
    ap.add_argument('--secs', type=float, default=120)
    args = ap.parse_args()
    keep = []
    eps = []
    if args.pipes:
        rd, wr = os.pipe()
        os.write(wr, b'x')
        a, b = socket.socketpair()
        b.send(b'x')
        ep = busy_epoll()
        ep.register(rd, select.EPOLLIN)
        ep.register(a.fileno(), select.EPOLLIN)
        keep += [wr, a, b]
        eps.append(ep)
    else:
        srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        srv.bind(('0.0.0.0', args.port))
        srv.listen(args.conns)
        srv.settimeout(60)
        for _ in range(args.conns):
            conn, _ = srv.accept()
            ep = busy_epoll()
            ep.register(conn.fileno(), select.EPOLLIN)
            keep.append(conn)
            eps.append(ep)
    out = f'{args.state}/events'
    child = 0
    if args.fork:
        child = os.fork()
        if child == 0:
            out = f'{args.state}/events.child'
    events = 0
    deadline = time.monotonic() + args.secs
    while time.monotonic() < deadline and not os.path.exists(f'{args.state}/stop'):
        for ep in eps:
            if ep.poll(0.2):
                events += 1
                count(out, events)
        time.sleep(0.01)
    for ep in eps:
        ep.close()
    # the parent goes last: whoever waits for it knows both are done
    if child:
        os.waitpid(child, 0)
    return 0


if __name__ == '__main__':
    sys.exit(main())
