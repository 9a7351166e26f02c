#!/usr/bin/env python3
# scratch: busy-polling epoll server (EPIOCSPARAMS usecs 20, prefer 1) that
# reads until the connection ends or fails, for at most 30 s
import fcntl, select, socket, struct, sys, time
addr, port = sys.argv[1], int(sys.argv[2])
ls = socket.socket(); ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind((addr, port)); ls.listen(1)
print("listening", flush=True)
c, _ = ls.accept(); c.setblocking(False)
ep = select.epoll()
fcntl.ioctl(ep.fileno(), 0x40088a01, struct.pack('IHBB', 20, 64, 1, 0))
ep.register(c.fileno(), select.EPOLLIN)
end = time.monotonic() + 30
n = 0
while time.monotonic() < end:
    if ep.poll(1):
        try:
            d = c.recv(65536)
        except OSError:
            break
        if not d:
            break
        n += len(d)
print("received", n, flush=True)
