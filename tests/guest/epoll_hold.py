#!/usr/bin/env python3
"""An epoll server that keeps finding events without consuming them.

usage: epoll_hold.py PORT STATEDIR

Accepts one TCP connection, sets prefer_busy_poll on its epoll context
(EPIOCSPARAMS, busy_poll_usecs 0, budget 64) and then calls epoll_wait()
in a loop without ever reading: the socket stays readable, so every call
returns the event and eventpoll calls napi_suspend_irqs() for the socket's
NAPI each time. The number of calls that returned events goes to
STATEDIR/events after each one. Stops when STATEDIR/stop appears or after
120 s.
"""
import fcntl
import os
import select
import socket
import struct
import sys
import time

EPIOCSPARAMS = 0x40088a01       # _IOW(0x8A, 0x01, struct epoll_params)


def main():
    port, state = int(sys.argv[1]), sys.argv[2]
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(('0.0.0.0', port))
    srv.listen(1)
    srv.settimeout(60)
    conn, _ = srv.accept()
    ep = select.epoll()
    # struct epoll_params: busy_poll_usecs, busy_poll_budget, prefer_busy_poll, pad
    fcntl.ioctl(ep.fileno(), EPIOCSPARAMS, struct.pack('IHBB', 0, 64, 1, 0))
    ep.register(conn.fileno(), select.EPOLLIN)
    events = 0
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not os.path.exists(f'{state}/stop'):
        if ep.poll(0.2):
            events += 1
            with open(f'{state}/events.tmp', 'w') as f:
                f.write(f'{events}\n')
            os.replace(f'{state}/events.tmp', f'{state}/events')
        time.sleep(0.01)
    ep.close()
    conn.close()
    return 0


if __name__ == '__main__':
    sys.exit(main())
