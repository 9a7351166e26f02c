#!/usr/bin/env python3
"""A TCP stream in which every byte is checked.

usage: seqstream.py recv ADDR PORT STATEDIR NAME
       seqstream.py send ADDR PORT STATEDIR NAME SECONDS

The sender writes blocks of 64 KiB, each the block's number (8 bytes, big
endian) followed by a fixed pattern, until STATEDIR/stop appears or SECONDS
have passed; then it closes the connection and writes the blocks and bytes
it sent to STATEDIR/NAME.sent ("BLOCKS BYTES").

The receiver checks every block as it completes: a lost, repeated,
reordered or corrupted byte fails at once, with the offset. It keeps the
bytes verified so far in STATEDIR/NAME.progress (rewritten at most every
0.1 s, so a test can see the stream move) and at the end writes
STATEDIR/NAME.recv: "ok BLOCKS BYTES", or "bad OFFSET WHY".

Both exit 0 on success, 1 on a check or connection failure; neither runs
for longer than SECONDS + 120 (the receiver gives up when nothing arrives
for 60 s).
"""
import os
import socket
import sys
import time

BLOCK = 65536
PATTERN = bytes((i * 7 + 13) & 0xff for i in range(BLOCK - 8))


def block(n):
    return n.to_bytes(8, 'big') + PATTERN


def family(addr):
    return socket.AF_INET6 if ':' in addr else socket.AF_INET


def write(path, text):
    tmp = f'{path}.tmp'
    with open(tmp, 'w') as f:
        f.write(text + '\n')
    os.replace(tmp, path)


def recv(addr, port, state, name):
    srv = socket.socket(family(addr), socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind((addr, port))
    srv.listen(1)
    srv.settimeout(60)
    write(f'{state}/{name}.progress', '0')
    conn, _ = srv.accept()
    conn.settimeout(60)
    buf = bytearray()
    blocks = 0
    last = 0.0
    result = None
    while result is None:
        try:
            data = conn.recv(1 << 20)
        except OSError as e:
            result = f'bad {blocks * BLOCK + len(buf)} recv: {e}'
            break
        if not data:
            if buf:
                result = f'bad {blocks * BLOCK} stream ended inside a block ({len(buf)} bytes)'
            else:
                result = f'ok {blocks} {blocks * BLOCK}'
            break
        buf += data
        while len(buf) >= BLOCK:
            if buf[:BLOCK] != block(blocks):
                got = int.from_bytes(buf[:8], 'big')
                first = next(i for i in range(BLOCK) if buf[i] != block(blocks)[i])
                result = (f'bad {blocks * BLOCK + first} block {blocks} differs at byte '
                          f'{first} (its number field says {got})')
                break
            del buf[:BLOCK]
            blocks += 1
        now = time.monotonic()
        if now - last >= 0.1:
            write(f'{state}/{name}.progress', str(blocks * BLOCK + len(buf)))
            last = now
    write(f'{state}/{name}.progress', str(blocks * BLOCK))
    write(f'{state}/{name}.recv', result)
    return 0 if result.startswith('ok') else 1


def send(addr, port, state, name, secs):
    s = socket.socket(family(addr), socket.SOCK_STREAM)
    s.settimeout(60)
    deadline = time.monotonic() + secs
    for _ in range(100):
        try:
            s.connect((addr, port))
            break
        except OSError:
            time.sleep(0.1)
    else:
        write(f'{state}/{name}.sent', '0 0 connect failed')
        return 1
    n = 0
    rc = 0
    try:
        while time.monotonic() < deadline and not os.path.exists(f'{state}/stop'):
            s.sendall(block(n))
            n += 1
        s.shutdown(socket.SHUT_WR)
        # wait for the receiver to close: every byte is in
        s.settimeout(120)
        s.recv(1)
    except OSError as e:
        print(f'seqstream {name}: send: {e}', file=sys.stderr)
        rc = 1
    write(f'{state}/{name}.sent', f'{n} {n * BLOCK}')
    return rc


def main():
    if len(sys.argv) < 6 or sys.argv[1] not in ('recv', 'send') or \
            (sys.argv[1] == 'send' and len(sys.argv) != 7):
        sys.exit(__doc__)
    addr, port, state, name = sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
    if sys.argv[1] == 'recv':
        sys.exit(recv(addr, port, state, name))
    sys.exit(send(addr, port, state, name, float(sys.argv[6])))


if __name__ == '__main__':
    main()
