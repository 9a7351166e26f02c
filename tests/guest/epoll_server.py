#!/usr/bin/env python3
"""An epoll server like busy_poller that can stall or work between waits.

usage: epoll_server.py ADDR PORT stall|work MS OUT

Accepts one TCP connection on ADDR:PORT and waits for it with epoll_wait()
on a context with prefer_busy_poll (busy polling 20 ms per wait, budget
64, as busy_poller -u 20000 -P 1 -g 64), writing what it reads to OUT.

  stall  after the first epoll_wait() that returned data it calls it no
         more, prints "stalled" and exits on SIGUSR1 (at most 60 s later)
  work   it spins MS milliseconds after each epoll_wait() that returned
         data (an application processing what it read; 0 for none) and
         exits at the end of the stream
"""
import select
import signal
import socket
import sys
import time

from epoll_hold import busy_epoll


def main():
    addr, port, mode, work, out = sys.argv[1:6]
    work = float(work) / 1000
    signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGUSR1])
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((addr, int(port)))
    ls.listen(1)
    ls.settimeout(60)
    conn, _ = ls.accept()
    conn.setblocking(False)
    ep = busy_epoll(20000)
    ep.register(conn.fileno(), select.EPOLLIN)
    calls = 0
    eof = False
    with open(out, 'wb') as f:
        while not eof:
            if not ep.poll(60):
                return 'no data in 60 s'
            calls += 1
            while True:
                try:
                    b = conn.recv(65536)
                except BlockingIOError:
                    break
                eof = not b
                if eof:
                    break
                f.write(b)
            f.flush()
            if mode == 'stall':
                print('stalled', flush=True)
                signal.sigtimedwait([signal.SIGUSR1], 60)
                break
            end = time.monotonic() + work
            while not eof and time.monotonic() < end:
                pass
    print(calls, 'epoll_wait() calls with data')
    return 0


if __name__ == '__main__':
    sys.exit(main())
