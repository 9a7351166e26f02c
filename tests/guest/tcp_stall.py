#!/usr/bin/env python3
"""One TCP stream and its longest stall, as its receiver sees it.

  tcp_stall.py recv PORT SECS    accept one connection, read until the
                                 sender closes (at most SECS + 30 s), print
                                 "BYTES SECS MAXGAP_MS": the bytes read, the
                                 time from the first byte to the last, and
                                 the longest time between two reads that
                                 returned data
  tcp_stall.py send ADDR PORT SECS   write to ADDR:PORT for SECS seconds,
                                 then close

Exit code 0 when the stream ran, 1 otherwise (the reason on stderr).
"""
import socket
import sys
import time

CHUNK = 64 << 10


def recv(port: int, secs: float) -> int:
    srv = socket.create_server(("0.0.0.0", port), reuse_port=False)
    srv.settimeout(secs + 30)
    try:
        conn, _ = srv.accept()
    except OSError as err:
        print(f"tcp_stall: no connection on port {port}: {err}",
              file=sys.stderr)
        return 1
    conn.settimeout(secs + 30)
    total = 0
    first = last = None
    maxgap = 0.0
    deadline = time.monotonic() + secs + 30
    while time.monotonic() < deadline:
        try:
            data = conn.recv(CHUNK)
        except OSError as err:
            print(f"tcp_stall: receive failed: {err}", file=sys.stderr)
            return 1
        now = time.monotonic()
        if not data:
            break
        if last is not None:
            maxgap = max(maxgap, now - last)
        else:
            first = now
        last = now
        total += len(data)
    if first is None:
        print("tcp_stall: the stream carried no data", file=sys.stderr)
        return 1
    print(f"{total} {last - first:.3f} {maxgap * 1000:.1f}")
    return 0


def send(addr: str, port: int, secs: float) -> int:
    buf = b"\0" * CHUNK
    end = time.monotonic() + secs
    try:
        with socket.create_connection((addr, port), timeout=secs + 30) as s:
            while time.monotonic() < end:
                s.sendall(buf)
    except OSError as err:
        print(f"tcp_stall: send to {addr}:{port} failed: {err}",
              file=sys.stderr)
        return 1
    return 0


def main() -> int:
    args = sys.argv[1:]
    if len(args) == 3 and args[0] == "recv":
        return recv(int(args[1]), float(args[2]))
    if len(args) == 4 and args[0] == "send":
        return send(args[1], int(args[2]), float(args[3]))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
