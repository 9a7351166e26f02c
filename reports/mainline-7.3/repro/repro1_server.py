#!/usr/bin/env python3
# scratch: epoll server with EPIOCSPARAMS that stalls after the first
# epoll_wait() that returned data, and reports the napi_watchdog timers
# pending 4 ms and 200 ms into the stall (from /proc/timer_list)
import fcntl, os, re, select, socket, struct, sys, time
addr, port, usecs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
EPIOCSPARAMS = 0x40088a01
def watchdogs():
    txt = open('/proc/timer_list').read()
    # "napi_watchdog, S:01\n # expires at A-B nsecs [in X to Y nsecs]"
    return [int(m.group(1)) for m in re.finditer(r'napi_watchdog.*\n.*\[in (-?\d+) to', txt)]
ls = socket.socket(); ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind((addr, port)); ls.listen(1)
print("listening", flush=True)
c, _ = ls.accept(); c.setblocking(False)
ep = select.epoll()
fcntl.ioctl(ep.fileno(), EPIOCSPARAMS, struct.pack('IHBB', usecs, 64, 1, 0))
ep.register(c.fileno(), select.EPOLLIN)
got = 0
while True:
    ev = ep.poll(5)
    if not ev:
        print("no data in 5 s"); sys.exit(1)
    d = c.recv(65536)
    got += len(d)
    if got:
        t0 = time.monotonic()
        while time.monotonic() < t0 + 0.004:
            pass
        w4 = watchdogs()
        time.sleep(0.196)
        w200 = watchdogs()
        print("stall: watchdogs at 4 ms (ns left):", w4, "at 200 ms:", w200, flush=True)
        held = any(x > 1_000_000_000 for x in w200)
        print("HELD" if held else "ENDED", flush=True)
        time.sleep(1.8)
        break
