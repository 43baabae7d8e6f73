#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
"""Write the seed corpora of fuzz_xen_hcall and fuzz_linux_ioctl.

Each seed follows the input layout described at the top of its target:
a few valid call sequences and a few malformed ones.
usage: gen-abi-seeds.py [CORPUS_DIR]   (default: test/fuzz/corpus)
"""
import os
import struct
import sys

EV_INSTRUCTIONS, EV_CYCLES, EV_TSC = 1, 2, 5
USER = 0x1
MAX = 16


def control(counters, version=1):
    """struct pmuvirt_control: counters are (event, period, flags)."""
    b = struct.pack('<4I', version, len(counters), 0, 0)
    for i in range(MAX):
        ev, per, fl = counters[i] if i < len(counters) else (0, 0, 0)
        b += struct.pack('<QQII', ev, per, fl, 0)
    return b


CTL = control([(EV_INSTRUCTIONS, 0, USER), (EV_CYCLES, 1000, USER), (EV_TSC, 0, 0)])


def step(kind, arg, kernel=False):
    """A step record: kind 0 switch to a, 1 to b, 2 to none, 3 invalidate, 4+ events."""
    return bytes([1 | (kind << 2) | (0x80 if kernel else 0), arg])


EVENTS = step(4, 10)                    # 1024 instructions in user mode
CYCLES = step(4, (1 << 5) | 12)         # 4096 cycles


# Xen: records are op 0, command byte, the argument.
def hcall(cmd, body, version=1, size=None):
    arg = struct.pack('<II', version, 8 + len(body) if size is None else size) + body
    return bytes([0, cmd]) + arg


def arm(mask, remaining, period, reserved=0):
    rem = [0] * MAX
    per = [0] * MAX
    for i in range(MAX):
        if mask & (1 << i):
            rem[i], per[i] = remaining, period
    return hcall(3, struct.pack('<II', mask, reserved) + struct.pack('<16Q', *rem) +
                 struct.pack('<16Q', *per))


QUERY = hcall(1, bytes(480))
SET = hcall(2, struct.pack('<iI', -1, 0) + CTL)
MAP = hcall(4, struct.pack('<4IQ', 0, 0, 0, 4, 0x1000))
READ = hcall(5, struct.pack('<II', 0, 0) + bytes(8 * MAX))
TAKE = hcall(6, struct.pack('<II', 0, 0) + bytes(4 * MAX))


RAW = 0x4


def set_policy(action, events, raw=(), domid=0x7ff0, version=1):
    """SET_POLICY: raw entries are (match, mask, flags)."""
    b = struct.pack('<II', domid, 0) + struct.pack('<6I', version, action, events, len(raw), 0, 0)
    for i in range(32):
        m, k, f = raw[i] if i < len(raw) else (0, 0, 0)
        b += struct.pack('<QQII', m, k, f, 0)
    return hcall(7, b)


def set_ctl(counters):
    return hcall(2, struct.pack('<iI', -1, 0) + control(counters))


def map_phys(nr_frames, dom_frames, width, gfns, flags=0, reserved=0):
    """MAP_PHYS, then the domain's frame count and address width, then the guest frames."""
    return hcall(10, struct.pack('<4IQ2I', 0, 0, 0, nr_frames, 0x2000, flags, reserved)) + \
        bytes([(dom_frames - 1) | ((width - 32) << 3)]) + \
        b''.join(struct.pack('<Q', g) for g in gfns)


UNMAP_PHYS = hcall(11, struct.pack('<II', 0, 0))


def fnv1a(b):
    h = 0x811c9dc5
    for x in b:
        h = ((h ^ x) * 0x01000193) & 0xffffffff
    return h


def restore(counters, counts, periods=(), next_ovf=(), pending=(), op=0x04):
    """The pseudo-command FUZZ_RESTORE: a struct pmuvirt_saved_ctx.

    op 0x24 keeps the header and check good under mutation, 0x64 the
    structure too (fuzz_xen_hcall.c)."""
    def arr(fmt, vals):
        return b''.join(struct.pack(fmt, vals[i] if i < len(vals) else 0) for i in range(MAX))
    blob = struct.pack('<4I', 0x504d5653, 1, 872, 0) + control(counters) + arr('<Q', counts) + \
        arr('<Q', periods) + arr('<Q', next_ovf) + arr('<I', pending) + struct.pack('<I', 0)
    blob += struct.pack('<I', fnv1a(blob))
    return bytes([op, 0x80]) + struct.pack('<IH', 0x52455354, len(blob)) + blob


# allow the TSC and raw event 0xc0 with any unit mask but 0x01
RAW_POLICY = set_policy(0, 1 << EV_TSC, [(0xc0, 0xff, 0), (0x1c0, 0xffff, 1)])


SAMPLE = 0x8
KERNEL = 0x2
EV_BRANCHES = 3


def prof_start(counters, domains=(0,), pages=16, high_water=50, flags=0, fmt=0, active=0,
               reserved=0):
    """PROF_START: counters are (event, period, flags); domains at most 32."""
    doms = list(domains) + [0] * (32 - len(domains))
    return hcall(16, struct.pack('<6Ii3I', flags, len(domains), pages, high_water, 0, 0, -1,
                                 fmt, active, reserved) + struct.pack('<32H', *doms) +
                 control(counters))


def prof_simple(cmd, flags=0, reserved=0):
    """PROF_STOP (17), PROF_RELEASE (20) and PROF_UNMAP (21)."""
    return hcall(cmd, struct.pack('<II', flags, reserved))


PROF_MAP = hcall(18, struct.pack('<4IQQ', 8, 128, 0, 0, 0x1000, 0x2000))
PROF_TAIL = hcall(19, struct.pack('<IIQ', 8, 0, 0x3000))
SESSION = prof_start([(EV_BRANCHES, 5000, USER | KERNEL | SAMPLE)], domains=(0, 3))


def xen_seed(sel, running, records):
    return bytes([sel, 1 if running else 0]) + CTL + b''.join(records)


XEN = {
    'valid-running': xen_seed(2, True, [EVENTS, arm(2, 5, 100), CYCLES, READ, TAKE,
                                        QUERY, MAP, SET, EVENTS, READ]),
    'valid-suspended': xen_seed(0, False, [arm(2, 1, 50), step(0, 0), CYCLES, TAKE,
                                           step(1, 0), READ]),
    'valid-amd': xen_seed(5, True, [arm(2, 3, 7), CYCLES, step(2, 0), TAKE, step(0, 0),
                                    CYCLES, TAKE]),
    'bad-version': xen_seed(2, True, [hcall(3, bytes(264), version=2), READ]),
    'bad-size': xen_seed(2, True, [hcall(5, bytes(136), size=136), READ]),
    'bad-reserved': xen_seed(3, True, [hcall(6, struct.pack('<II', 0, 1) + bytes(64))]),
    'bad-arm-amode': xen_seed(2, True, [arm(1, 1, 1), arm(4, 1, 1), arm(8, 1, 1)]),
    'bad-arm-range': xen_seed(0, True, [arm(2, 1, 1 << 63), arm(2, 0, 10),
                                        arm(2, 10, 0)]),
    'bad-arm-reserved': xen_seed(1, True, [arm(2, 1, 1, reserved=1)]),
    'policy-raw': xen_seed(2, True, [RAW_POLICY, set_ctl([(0x1c0, 0, USER | RAW)]),
                                     set_ctl([(0x2c0, 0, USER | RAW)]),
                                     set_ctl([(EV_TSC, 0, 0), (0xc4, 0, USER | RAW)]), READ]),
    'policy-deny': xen_seed(3, True, [set_policy(1, 1 << EV_CYCLES, [(0xc0, 0xff, 0)]), SET,
                                      set_ctl([(0x3c, 0, USER | RAW)]), EVENTS, READ]),
    'bad-policy': xen_seed(2, True, [set_policy(2, 0), set_policy(0, 1),
                                     set_policy(0, 0, [(0x1c0, 0xff, 0)]), SET]),
    'map-phys': xen_seed(2, True, [map_phys(2, 2, 36, [0x1000, 0x1001]), UNMAP_PHYS,
                                   map_phys(1, 1, 48, [0xfffffffff]), READ]),
    'bad-map-phys': xen_seed(2, True, [map_phys(2, 2, 36, [0x1000, 0x1000]),
                                       map_phys(2, 2, 36, [0x1000, 1 << 24]),
                                       map_phys(3, 2, 36, [1, 2]),
                                       map_phys(1, 1, 36, [1], flags=1),
                                       map_phys(1, 1, 36, [1], reserved=1)]),
    'restore': xen_seed(2, True, [restore([(EV_TSC, 0, 0)], [123456]),
                                  restore([(EV_CYCLES, 1000, 0x23)], [5000], [1000], [5500], [2]),
                                  READ]),
    # a count near 2^64 whose next notification wraps past it
    'restore-wrap': xen_seed(2, True, [restore([(EV_INSTRUCTIONS, 1000, USER)], [2**64 - 1500],
                                               [1000], [2**64 - 500], [0], op=0x24),
                                       restore([(EV_TSC, 0, 0), (EV_INSTRUCTIONS, 100, USER)],
                                               [7, 2**64 - 30], [0, 100], [0, 50], [0, 3],
                                               op=0x64), READ]),
    'bad-restore': xen_seed(2, True, [restore([(EV_INSTRUCTIONS, 0, 0x2)], [99]),
                                      restore([(EV_CYCLES, 1000, 0x3)], [5000], [1000], [5500]),
                                      restore([(EV_TSC, 0, 0)], [1], [5])]),
    'bad-command': xen_seed(2, True, [bytes([0x04, 0x80]) + struct.pack('<IH', 9, 16) +
                                      struct.pack('<II', 1, 16) + bytes(8)]),
    'prof-session': xen_seed(2, True, [EVENTS, SESSION, PROF_MAP, PROF_TAIL, CYCLES, READ,
                                       prof_simple(17), prof_simple(20), TAKE]),
    'prof-active': xen_seed(2, True, [prof_start([(EV_CYCLES, 5000, USER | SAMPLE)],
                                                 domains=(0, 3), active=2), PROF_MAP,
                                      prof_simple(21), prof_simple(17), prof_simple(20)]),
    'prof-busy': xen_seed(3, True, [set_ctl([(EV_BRANCHES, 0, USER)] * 4), SESSION,
                                    set_ctl([(EV_INSTRUCTIONS, 0, USER)]), SESSION]),
    'prof-bad': xen_seed(2, True, [prof_start([(EV_CYCLES, 0, USER | SAMPLE)]),
                                   prof_start([(EV_TSC, 100, SAMPLE)]),
                                   prof_start([(EV_CYCLES, 100, USER | SAMPLE)], pages=3),
                                   prof_start([(EV_CYCLES, 100, USER | SAMPLE)], domains=(1, 1)),
                                   prof_start([(EV_CYCLES, 100, USER | SAMPLE)], high_water=0),
                                   prof_start([(EV_CYCLES, 100, USER | SAMPLE)], flags=1),
                                   prof_start([(EV_CYCLES, 100, USER | SAMPLE)], active=2),
                                   prof_start([(EV_CYCLES, 100, USER | SAMPLE)], reserved=1),
                                   prof_simple(21, flags=1),
                                   prof_simple(17, reserved=1), prof_simple(20, flags=2)]),
}


# Linux: records are op 0 | request << 2, then the argument.
def attach(flags=1, signo=0, caps=0, reserved=(0, 0, 0), ctl=CTL, size=432, version=1):
    return bytes([0]) + struct.pack('<8I', size, version, flags, signo, caps,
                                    *reserved) + ctl


def counts(req, reserved=0, size=152, version=1):
    return bytes([req << 2]) + struct.pack('<6I', size, version, 0, 0, 0, reserved) + \
        bytes(8 * MAX)


READ_C, DETACH_C, RESUME_C = counts(1), counts(2), counts(3)


def lx_seed(sel, records):
    return bytes([sel, 0]) + b''.join(records)


LINUX = {
    'valid-cycle': lx_seed(2, [attach(), EVENTS, READ_C, CYCLES, RESUME_C, step(1, 0),
                               EVENTS, step(0, 0), READ_C, DETACH_C]),
    'valid-signo64': lx_seed(3, [attach(signo=64, flags=0), CYCLES, RESUME_C, DETACH_C,
                                 attach(), READ_C]),
    'valid-amd': lx_seed(5, [attach(), CYCLES, step(2, 0), READ_C, DETACH_C]),
    'bad-signo': lx_seed(2, [attach(signo=65), READ_C]),
    'bad-flags': lx_seed(2, [attach(flags=0x80000000), attach(flags=2)]),
    'bad-caps': lx_seed(2, [attach(caps=1)]),
    'bad-reserved': lx_seed(2, [attach(reserved=(0, 0, 1)), attach(), counts(1, reserved=1)]),
    'bad-header': lx_seed(2, [attach(size=424), attach(version=2), attach(),
                              counts(1, size=144), counts(2, version=0)]),
    'bad-twice': lx_seed(2, [attach(), attach(), DETACH_C, DETACH_C]),
    'bad-control': lx_seed(0, [attach(ctl=control([(EV_TSC, 100, 0)])),
                               attach(ctl=control([(EV_CYCLES, 1 << 62, USER)]))]),
}


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), 'corpus')
    for target, seeds in (('fuzz_xen_hcall', XEN), ('fuzz_linux_ioctl', LINUX)):
        d = os.path.join(top, target)
        os.makedirs(d, exist_ok=True)
        for name, data in seeds.items():
            with open(os.path.join(d, name), 'wb') as f:
                f.write(data)


if __name__ == '__main__':
    main()
