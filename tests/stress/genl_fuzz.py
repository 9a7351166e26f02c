#!/usr/bin/env python3
"""make stress, part 3: napi-set and napi-get under hostile input.

MESSAGES netdev-genl messages (100,000 in the full run) against a
netdevsim device with 2 NAPIs, with a second device in another network
namespace. Well-formed requests go through the selftests' YNL library
(lib.py's NetdevFamily); malformed ones are built by hand on a raw
generic netlink socket (unknown, zero and other-netns ids, out-of-range
and wrong-width values, truncated messages and attributes, duplicated
attributes, NLA_F_NESTED garbage, unknown attribute types and commands,
messages of 58 to 175 KiB).

Each kind of message has the kernel's answer written next to it: the
errno and what the extended ack must carry (a message, the offending
attribute's offset or the missing attribute). The values of every NAPI
are read back after each rejected message and must be what the accepted
ones left (a model kept here); the other namespace's NAPIs at the end
of each phase.

Phases: as root; as nobody (no CAP_NET_ADMIN: every napi-set is refused
with EPERM once the family and command are found, napi-get answers as
for root); as root while another process takes the device down and up
(napi-set and napi-get of its NAPIs may then also get ENOENT).

usage: genl_fuzz.py   (STRESS_SCALE=slice|quick|full; KSFT: the installed
kselftests; counts to OUTDIR)
"""
import errno
import json
import os
import random
import socket
import struct
import subprocess
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stresslib import Ktap, record, scaled  # noqa: E402

KSFT = os.environ.get('KSFT', os.path.join(os.path.dirname(__file__), '../../work/kselftest'))
sys.path.insert(0, os.path.join(KSFT, 'net'))
from lib.py import NetdevFamily, NetdevSimDev, NetNS, NlError, ip  # noqa: E402
try:  # the YNL library of the installed selftests: 6.12, then 7.3's pyynl
    from net.lib.ynl.lib.ynl import NlMsgs  # noqa: E402
except ImportError:
    from net.lib.ynl.pyynl.lib.ynl import NlMsgs  # noqa: E402

MESSAGES = scaled(1500, 10000, 100000)
NLM_F_REQUEST, NLM_F_ACK, NLM_F_DUMP = 1, 4, 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3
NLA_F_NESTED = 0x8000
SOL_NETLINK, NETLINK_EXT_ACK, NETLINK_CAP_ACK, NETLINK_GENERIC = 270, 11, 10, 16
S32_MAX, U32_MAX, KTIME_MAX, U64_MAX = (1 << 31) - 1, (1 << 32) - 1, (1 << 63) - 1, (1 << 64) - 1
NO_REPLY = 'no reply'
# The napi-set the 6.12 series adds caps irq-suspend-timeout at KTIME_MAX
# and says in the extended ack why an id is not found; 7.3's is upstream's:
# it stores any u64 as given and points only at the id.
SERIES_NAPI_SET = os.environ.get('KBASE', '6.12') == '6.12'
NOT_FOUND_ACK = 'msg+offs' if SERIES_NAPI_SET else 'offs'


def nla(atype, payload):
    hdr = struct.pack('HH', 4 + len(payload), atype)
    return hdr + payload + b'\0' * (-len(payload) % 4)


class Raw:
    """A generic netlink socket for hand-made messages."""

    def __init__(self, family_id):
        self.fid = family_id
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
        self.sock.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
        self.sock.setsockopt(SOL_NETLINK, NETLINK_CAP_ACK, 1)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
        self.sock.settimeout(10)
        self.seq = random.randrange(1 << 20)

    def msg(self, cmd, attrs, dump=False, nl_len=None, genl=None):
        self.seq += 1
        body = (genl if genl is not None else struct.pack('BBH', cmd, 1, 0)) + attrs
        flags = NLM_F_REQUEST | NLM_F_ACK | (NLM_F_DUMP if dump else 0)
        length = 16 + len(body) if nl_len is None else nl_len
        return struct.pack('IHHII', length, self.fid, flags, self.seq, 0) + body

    def send(self, data):
        """(errno, extack) of the answer; NO_REPLY when the kernel sends none
        (found out with a napi-get of an unknown id right behind it)"""
        seq = self.seq
        self.sock.send(data)
        probe = self.msg(ops['napi-get'], nla(A['id'], struct.pack('I', U32_MAX)))
        self.sock.send(probe)
        answer = None
        while True:
            for m in NlMsgs(self.sock.recv(1 << 20)):
                if m.nl_type not in (NLMSG_ERROR, NLMSG_DONE):
                    continue
                if m.nl_seq == seq and answer is None:
                    answer = (-m.error, m.extack or {})
                elif m.nl_seq == self.seq:
                    return answer if answer is not None else (NO_REPLY, {})


def u32(v):
    return struct.pack('I', v)


def u64(v):
    return struct.pack('Q', v)


class Fuzz:
    def __init__(self, nl, raw, ids, other_ids, ifindex):
        self.nl, self.raw = nl, raw
        self.ids, self.other_ids, self.ifindex = ids, other_ids, ifindex
        self.model = {i: self.values(nl.napi_get({'id': i})) for i in ids}
        # every NAPI id this netns can see, and the other netns's
        self.known = {n['id'] for n in nl.napi_get({}, dump=True)} | set(ids) | set(other_ids)
        self.counts = {}
        self.wrong = []
        self.flapping = False

    @staticmethod
    def values(napi):
        return (napi['defer-hard-irqs'], napi['gro-flush-timeout'], napi['irq-suspend-timeout'])

    def unknown_id(self):
        while True:
            i = random.choice((0, random.randrange(1, 1 << 16), random.randrange(1 << 32)))
            if i not in self.known:
                return i

    def good_attrs(self):
        """random valid values: (attrs bytes, {index in values: value})"""
        out, new = b'', {}
        if random.random() < 0.6:
            new[0] = random.choice((0, 1, 2, 100, S32_MAX, random.randrange(S32_MAX)))
            out += nla(A['defer-hard-irqs'], u32(new[0]))
        if random.random() < 0.6:
            new[1] = random.choice((0, 20000, U32_MAX, U64_MAX, random.randrange(1 << 40)))
            out += nla(A['gro-flush-timeout'], u64(new[1]) if new[1] > U32_MAX or
                       random.random() < 0.5 else u32(new[1]))
        if random.random() < 0.6:
            new[2] = random.choice((0, 20000000, KTIME_MAX, random.randrange(1 << 40)))
            out += nla(A['irq-suspend-timeout'], u64(new[2]) if new[2] > U32_MAX or
                       random.random() < 0.5 else u32(new[2]))
        return out, new

    def set_msg(self, attrs, **kw):
        return self.raw.msg(ops['napi-set'], attrs, **kw)

    # The kinds of message, one method each: (self, the id of one of our
    # NAPIs, valid value attributes, {index in values: value} of those) ->
    # (name, message, errno, what the extack must carry, {id: {index:
    # value}} the message sets when it is taken). case() picks one.
    def case_unknown_id(self, nid, good, new):
        return 'set: unknown or zero id', self.set_msg(nla(A['id'], u32(self.unknown_id())) + good), \
            errno.ENOENT, NOT_FOUND_ACK, {}

    def case_other_netns_id(self, nid, good, new):
        return 'set: id of another netns', self.set_msg(nla(A['id'], u32(random.choice(self.other_ids))) + good), \
            errno.ENOENT, NOT_FOUND_ACK, {}

    def case_no_id(self, nid, good, new):
        return 'set: no id', self.set_msg(good), errno.EINVAL, 'miss', {}

    def case_defer_above_s32(self, nid, good, new):
        bad = nla(A['defer-hard-irqs'], u32(random.randrange(S32_MAX + 1, U32_MAX + 1)))
        return 'set: defer-hard-irqs above S32_MAX', self.set_msg(nla(A['id'], u32(nid)) + good + bad), \
            errno.ERANGE, 'msg+offs', {}

    def case_suspend_above_ktime(self, nid, good, new):
        value = random.randrange(KTIME_MAX + 1, U64_MAX + 1)
        bad = nla(A['irq-suspend-timeout'], u64(value))
        msg = self.set_msg(nla(A['id'], u32(nid)) + good + bad)
        if not SERIES_NAPI_SET:  # the last of duplicated attributes wins
            return 'set: irq-suspend-timeout above KTIME_MAX (taken)', msg, 0, '', {nid: {**new, 2: value}}
        return 'set: irq-suspend-timeout above KTIME_MAX', msg, errno.ERANGE, 'msg+offs', {}

    def case_u32_width(self, nid, good, new):
        name = random.choice(('id', 'defer-hard-irqs'))
        width = random.choice((0, 1, 2, 3, 5, 8, 16))
        return f'set: {name} of {width} bytes', self.set_msg(
            nla(A['id'], u32(nid)) + nla(A[name], os.urandom(width))), errno.EINVAL, 'msg+offs', {}

    def case_uint_width(self, nid, good, new):
        name = random.choice(('gro-flush-timeout', 'irq-suspend-timeout'))
        width = random.choice((0, 1, 2, 3, 5, 6, 7, 9, 16))
        return f'set: {name} of {width} bytes', self.set_msg(
            nla(A['id'], u32(nid)) + nla(A[name], os.urandom(width))), errno.EINVAL, 'msg+offs', {}

    def case_unknown_type(self, nid, good, new):
        # 0, the first type past the family's last (7.3 has threaded after
        # irq-suspend-timeout), or any other it does not know
        atype = random.choice((0, max(A.values()) + 1, random.randrange(max(A.values()) + 1, 0x4000)))
        return 'set: unknown attribute type', self.set_msg(
            nla(A['id'], u32(nid)) + nla(atype, os.urandom(random.randrange(9))) + good), \
            errno.EINVAL, 'msg+offs', {}

    def case_get_only_attr(self, nid, good, new):
        name = random.choice(('ifindex', 'irq', 'pid'))
        return f'set: {name}, not an attribute of napi-set', self.set_msg(
            nla(A['id'], u32(nid)) + nla(A[name], u32(1)) + good), errno.EINVAL, 'msg+offs', {}

    def case_nested_garbage(self, nid, good, new):
        return 'set: NLA_F_NESTED garbage', self.set_msg(
            nla(A['id'], u32(nid)) + nla(A[random.choice(VALUE_ATTRS)] | NLA_F_NESTED,
                                         os.urandom(random.randrange(4, 40)))), errno.EINVAL, 'msg+offs', {}

    def case_truncated_attr(self, nid, good, new):
        body = nla(A['id'], u32(nid)) + good
        cut = nla(A['defer-hard-irqs'], u32(1))
        claim = struct.pack('HH', len(cut) + random.randrange(1, 64), A['defer-hard-irqs'])
        return 'set: last attribute truncated', self.set_msg(body + claim + cut[4:]), errno.EINVAL, 'msg', {}

    def case_truncated_genl(self, nid, good, new):
        return 'set: generic netlink header truncated', self.set_msg(
            b'', genl=struct.pack('BB', ops['napi-set'], 1)), errno.EINVAL, '', {}

    def case_nlmsg_len_beyond(self, nid, good, new):
        attrs = nla(A['id'], u32(nid)) + good
        length = len(self.set_msg(attrs)) + random.randrange(4, 4096)
        return 'set: nlmsg_len beyond the message', self.set_msg(attrs, nl_len=length), NO_REPLY, '', {}

    def case_duplicated(self, nid, good, new):
        good2, new2 = self.good_attrs()
        return 'set: duplicated attributes (the last one counts)', self.set_msg(
            nla(A['id'], u32(nid)) + good + nla(A['id'], u32(nid)) + good2), 0, '', {nid: {**new, **new2}}

    def case_duplicated_bad(self, nid, good, new):
        return 'set: duplicated defer-hard-irqs, the second out of range', self.set_msg(
            nla(A['id'], u32(nid)) + nla(A['defer-hard-irqs'], u32(1)) +
            nla(A['defer-hard-irqs'], u32(U32_MAX))), errno.ERANGE, 'msg+offs', {}

    def case_huge(self, nid, good, new):
        size = random.choice((65536, 100000, 200000))
        pad = b''.join(nla(A['irq'] if random.random() < 0.5 else 0x3ff0, os.urandom(60000))
                       for _ in range(size // 60004))
        return f'set: {len(pad) // 1024} KiB of attributes', self.set_msg(nla(A['id'], u32(nid)) + pad), \
            errno.EINVAL, 'msg+offs', {}

    def case_unknown_cmd(self, nid, good, new):
        cmd = random.choice((0, 255, random.randrange(max(ops.values()) + 1, 255)))
        return 'unknown command', self.raw.msg(cmd, nla(A['id'], u32(nid))), errno.EOPNOTSUPP, '', {}

    def case_get_unknown_id(self, nid, good, new):
        # napi-get names the attribute only (NL_SET_BAD_ATTR)
        return 'get: unknown id', self.raw.msg(ops['napi-get'], nla(A['id'], u32(self.unknown_id()))), \
            errno.ENOENT, 'offs', {}

    def case_get_dump_ifindex0(self, nid, good, new):
        return 'get: dump of ifindex 0', self.raw.msg(ops['napi-get'], nla(A['ifindex'], u32(0)), dump=True), \
            errno.ERANGE, 'msg+offs', {}

    def case(self):
        nid = random.choice(self.ids)
        good, new = self.good_attrs()
        return random.choice(CASES)(self, nid, good, new)

    def check_extack(self, want, ext):
        if not want:
            return True
        ok = True
        if 'msg' in want:
            ok &= bool(ext.get('msg'))
        if 'offs' in want:
            ok &= 'bad-attr-offs' in ext
        if 'miss' in want:
            ok &= ext.get('miss-type') == A['id']
        return ok

    def readback(self, context):
        try:
            got = {n['id']: self.values(n) for n in self.nl.napi_get({'ifindex': self.ifindex}, dump=True)}
        except NlError as e:
            got = {'error': e.error}
        if self.flapping and not got:
            return
        if got != self.model:
            self.wrong.append(f'{context}: values {got}, expected {self.model}')
            self.model = {i: v for i, v in got.items() if i in self.model} or self.model

    def well_formed(self):
        nid = random.choice(self.ids)
        _, new = self.good_attrs()
        names = ('defer-hard-irqs', 'gro-flush-timeout', 'irq-suspend-timeout')
        req = {'id': nid, **{names[i]: v for i, v in new.items()}}
        try:
            if random.random() < 0.5:
                self.nl.napi_set(req)
                m = list(self.model[nid])
                for i, v in new.items():
                    m[i] = v
                self.model[nid] = tuple(m)
                kind, err = 'YNL: napi-set', 0
            else:
                got = self.values(self.nl.napi_get({'id': nid}))
                kind, err = 'YNL: napi-get', 0
                if got != self.model[nid]:
                    self.wrong.append(f'napi-get {nid}: {got}, expected {self.model[nid]}')
        except NlError as e:
            kind, err = 'YNL: napi-set or napi-get', e.error
            if not (self.flapping and err == errno.ENOENT):
                self.wrong.append(f'{req}: {os.strerror(err)}')
        self.count(kind, err)

    def count(self, kind, err):
        key = (kind, errno.errorcode.get(err, 'ok') if err != NO_REPLY else NO_REPLY)
        self.counts[key] = self.counts.get(key, 0) + 1

    def run(self, n, unprivileged=False):
        for i in range(n):
            if not unprivileged and random.random() < 0.2:
                self.well_formed()
                continue
            name, data, want, ext_want, sets = self.case()
            if unprivileged and name.startswith('set:') and want not in (NO_REPLY,) and \
                    name != 'set: generic netlink header truncated':
                want, ext_want, sets = errno.EPERM, '', {}
            err, ext = self.raw.send(data)
            # while the device is down its NAPIs are not found: what is
            # checked after the lookup (napi-set's values) gets ENOENT
            if self.flapping and err == errno.ENOENT and \
                    (want in (0, errno.ENOENT) or name.startswith('set: irq-suspend-timeout above')):
                want, ext_want, sets = errno.ENOENT, '', {}
            self.count(name, err)
            if err != want or (err == want and not self.check_extack(ext_want, ext)):
                self.wrong.append(f'{name}: got {errno.errorcode.get(err, err)} {ext}, '
                                  f'expected {errno.errorcode.get(want, want)} with {ext_want or "anything"}')
            for nid, new in sets.items():
                m = list(self.model[nid])
                for j, v in new.items():
                    m[j] = v
                self.model[nid] = tuple(m)
            if not unprivileged and err != 0:
                self.readback(name)
            if i % 2000 == 0:
                print(f'# {i}/{n} messages, {len(self.wrong)} wrong answers', flush=True)


CASES = [m for name, m in vars(Fuzz).items() if name.startswith('case_')]


def other_values(ns):
    """{id: values} of the NAPIs in NS, from a child in that netns"""
    code = ('import json,sys; sys.path.insert(0, sys.argv[1]); from lib.py import NetdevFamily; '
            'nl = NetdevFamily(); print(json.dumps([[n["id"], n["defer-hard-irqs"], n["gro-flush-timeout"], '
            'n["irq-suspend-timeout"]] for n in nl.napi_get({}, dump=True)]))')
    out = subprocess.run(['ip', 'netns', 'exec', ns.name, sys.executable, '-c', code,
                          os.path.join(KSFT, 'net')], capture_output=True, text=True, check=True).stdout
    return {i: tuple(v) for i, *v in json.loads(out)}


def unprivileged_child(fz, n):
    """run n messages as nobody in a child; returns its counts and wrong answers"""
    rd, wr = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(rd)
        rc = 1
        try:
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            fz.raw = Raw(fz.raw.fid)
            fz.counts, fz.wrong = {}, []
            fz.run(n, unprivileged=True)
            os.write(wr, json.dumps([[list(k), v] for k, v in fz.counts.items()] + [fz.wrong]).encode())
            rc = 0
        except BaseException:
            traceback.print_exc()
        finally:
            os._exit(rc)
    os.close(wr)
    data = b''
    while chunk := os.read(rd, 1 << 16):
        data += chunk
    _, status = os.waitpid(pid, 0)
    if status != 0 or not data:
        return {}, [f'the unprivileged child failed (wait status {status}), see its traceback above']
    out = json.loads(data)
    return {tuple(k): v for k, v in out[:-1]}, out[-1]


def main():
    global ops, A, VALUE_ATTRS
    ktap = Ktap(4)
    nl = NetdevFamily()
    ops = {name: op.req_value for name, op in nl.ops.items()}
    A = {name: a.value for name, a in nl.attr_sets['napi'].attrs.items()}
    VALUE_ATTRS = ('id', 'defer-hard-irqs', 'gro-flush-timeout', 'irq-suspend-timeout')
    raw = Raw(nl.nlproto.family_id)
    other_ns = NetNS()
    dev = other = None
    try:
        dev = NetdevSimDev(queue_count=2)
        other = NetdevSimDev(queue_count=2, ns=other_ns)
        ifname = dev.nsims[0].ifname
        ip(f'link set dev {ifname} up')
        ip(f'link set dev {other.nsims[0].ifname} up', ns=other_ns)
        ifindex = dev.nsims[0].ifindex
        ids = sorted(n['id'] for n in nl.napi_get({'ifindex': ifindex}, dump=True))
        other_before = other_values(other_ns)
        fz = Fuzz(nl, raw, ids, sorted(other_before), ifindex)
        Ktap.diag(f'{ifname} (ifindex {ifindex}) NAPIs {ids}; NAPIs {sorted(other_before)} '
                  f'in netns {other_ns.name}; {MESSAGES} messages in three phases')
        parts = {'root': MESSAGES // 2, 'nobody': MESSAGES // 5}
        parts['root, device going down and up'] = MESSAGES - sum(parts.values())
        results = {}
        for phase, n in parts.items():
            t0 = time.monotonic()
            fz.counts, fz.wrong = {}, []
            flapper = None
            if phase == 'nobody':
                fz.counts, fz.wrong = unprivileged_child(fz, n)
            elif phase.startswith('root, device'):
                stop = f'/tmp/fuzz-stop-{os.getpid()}'
                flapper = subprocess.Popen(
                    ['bash', '-c', f'for i in $(seq 100000); do [ -e {stop} ] && break; '
                     f'ip link set dev {ifname} down; ip link set dev {ifname} up; done'])
                fz.flapping = True
                try:
                    fz.run(n)
                finally:
                    open(stop, 'w').close()
                    flapper.wait(timeout=120)
                    os.unlink(stop)
                ip(f'link set dev {ifname} up')
                fz.flapping = False
                fz.readback('after the flapping')
            else:
                fz.run(n)
            if other_values(other_ns) != other_before:
                fz.wrong.append(f'the NAPIs of netns {other_ns.name} changed: {other_values(other_ns)}')
            secs = time.monotonic() - t0
            sent = sum(fz.counts.values())
            for w in fz.wrong[:10]:
                Ktap.diag(w)
            record(f'netdev-genl fuzz, {phase}', 'messages', sent)
            record(f'netdev-genl fuzz, {phase}', 'wrong answers or values', len(fz.wrong))
            record(f'netdev-genl fuzz, {phase}', 'seconds', f'{secs:.0f}')
            by_errno = {}
            for (kind, err), c in sorted(fz.counts.items()):
                by_errno[err] = by_errno.get(err, 0) + c
                print(f'#   {phase}: {kind}: {err} x{c}')
            for err, c in sorted(by_errno.items()):
                record(f'netdev-genl fuzz, {phase}', f'answered {err}', c)
            results[phase] = (sent, len(fz.wrong))
            ktap.result(not fz.wrong and sent == n,
                        f'netdev-genl fuzz, {phase}: {n} messages, every answer and value as expected')
        ktap.result(other_values(other_ns) == other_before,
                    'the other namespace\'s NAPIs never changed')
    finally:
        for d in (dev, other):
            if d:
                d.remove()
        # the last references: NetNS deletes the netns when it goes
        other = other_ns = None
    ktap.exit()


if __name__ == '__main__':
    main()
