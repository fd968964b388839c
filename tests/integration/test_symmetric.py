#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_symmetric.py: --hash toeplitz and --symmetric on the real binary.

A generated capture holds both directions of many TCP and UDP connections over IPv4 and
IPv6 (some VLAN-tagged, so the reference path hashes them too), plus pairs of flows whose
Toeplitz hashes under the default key are equal although their tuples differ (found with a
Python model of the hash: Toeplitz is linear, so x and x ^ d collide for any d in the kernel
of the key's matrix). Three workers, one net_pcap TX file each, --stages output.

- --hash toeplitz --symmetric (sorted tuple) with a fixed non-symmetric key, --symmetric
  (jhash on net_pcap), --hash toeplitz --symmetric-xor (the 6d5a key) and a --config file
  with hash = toeplitz, symmetric = on and the same key: every connection, both directions,
  in one file; the file places every flow as the command line does.
- --hash jhash and --hash toeplitz without --symmetric: some connections split (so the
  check above can fail).
- --hash toeplitz --rss-key MS_KEY: every colliding pair in one file (a hash that is not
  bit-exact Toeplitz with that key would split about two thirds of them), which jhash does
  not do.
- Every run: exit 0, rx_packets == packets in the capture, nothing dropped, accounting
  exact, outputs byte-identical to the input, each flow complete and in order.
- Bad values exit 2 naming the option (--rss-key zz, a wrong length, a non-symmetric key
  with --symmetric-xor, --symmetric with --hash rss or with --symmetric-xor); bad config
  keys give FILE:LINE.

Each run takes the whole capture and stops 100 ms after it (--exit-when-idle: nothing
arrives once net_pcap has read the file, and idle waits for empty backlogs too), with a
backlog above the capture's size: nothing depends on timing, so the runs go two at a time
(rpstest.run_all()) and are checked afterwards, in order.

usage: test_symmetric.py PATH/TO/dpdk-rps
"""

import collections
import os
import random
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rpstest  # noqa: E402

gt = rpstest.gen_traffic
LCORES = '0@0,(1-3)@1'
WORKERS = [1, 2, 3]
CONNECTIONS = 240           # both directions, half IPv6, half UDP
PER_DIRECTION = 3
PAIRS = 120                 # Toeplitz-colliding flow pairs
MS_KEY = rpstest.MS_KEY
# a fixed key that does not repeat a 16-bit pattern: --symmetric must sort to be symmetric
SORT_KEY = bytes((i * 73 + 41) & 0xff for i in range(40))
toeplitz = rpstest.toeplitz


# ----------------------------------------------------------------- Toeplitz in Python



def kernel_vector(key, nbytes, bits, rng):
    """A non-zero difference d over the given bit positions of an nbytes tuple with
    toeplitz(key, d) == 0 (Gaussian elimination over GF(2)), as bytes."""
    cols = []
    for b in bits:
        v = bytearray(nbytes)
        v[b // 8] |= 0x80 >> (b % 8)
        cols.append(toeplitz(key, bytes(v)))
    # rows: each column's image with the set of bits combined into it
    basis = {}                   # pivot bit of the image -> (image, combination)
    kernel = []
    for j, c in enumerate(cols):
        comb = 1 << j
        while c:
            p = c.bit_length() - 1
            if p not in basis:
                basis[p] = (c, comb)
                break
            c ^= basis[p][0]
            comb ^= basis[p][1]
        if c == 0:
            kernel.append(comb)
    d = 0
    while d == 0:
        for v in kernel:
            if rng.random() < 0.5:
                d ^= v
    out = bytearray(nbytes)
    for j, b in enumerate(bits):
        if d >> j & 1:
            out[b // 8] |= 0x80 >> (b % 8)
    return bytes(out)


# ----------------------------------------------------------------- traffic

def frame(v6, proto, src, dst, sport, dport, fid, seq, tcp_seq, vlan):
    payload = gt.marker(fid, seq) + bytes(20)
    if proto == 6:
        l4 = gt.tcp_segment(v6, src, dst, sport, dport, tcp_seq, 1, payload)
    else:
        l4 = gt.udp_datagram(v6, src, dst, sport, dport, payload)
    if v6:
        l3 = gt.ipv6_header(src, dst, proto, len(l4))
    else:
        l3 = gt.ipv4_header(src, dst, proto, len(l4), seq)
    tags = [(0x8100, 100)] if vlan else []
    eth = gt.eth_header(b'\x02\0\0\0\0\x01', b'\x02\0\0\0\0\x02', tags,
                        0x86DD if v6 else 0x0800)
    return eth + l3 + l4


def v4_addr(rng):
    return bytes([198, 18 + rng.randrange(2), rng.randrange(256), rng.randrange(1, 255)])


def v6_addr(rng):
    return b'\x20\x01\x0d\xb8' + bytes(rng.randrange(256) for _ in range(12))


def build(rng):
    """Frames, {connection: [flow ids]} and [(flow id, flow id)] colliding pairs."""
    flows = []                   # (v6, proto, src, dst, sport, dport, vlan)
    conns = {}
    for c in range(CONNECTIONS):
        v6, proto = c % 2 == 1, (6, 17)[(c // 2) % 2]
        a, b = (v6_addr(rng), v6_addr(rng)) if v6 else (v4_addr(rng), v4_addr(rng))
        sp, dp = rng.randrange(1024, 65536), rng.choice((80, 443, 53, rng.randrange(1, 65536)))
        vlan = c % 5 == 0
        conns[c] = [len(flows), len(flows) + 1]
        flows.append((v6, proto, a, b, sp, dp, vlan))
        flows.append((v6, proto, b, a, dp, sp, vlan))
    pairs = []
    for i in range(PAIRS):
        v6, proto = i % 2 == 1, (6, 17)[(i // 2) % 2]
        alen = 16 if v6 else 4
        n = 2 * alen + 4
        # vary the low 16 bits of both addresses and both ports
        bits = [b for base in (alen - 2, 2 * alen - 2) for b in range(base * 8, base * 8 + 16)]
        bits += list(range(2 * alen * 8, n * 8))
        a, b = (v6_addr(rng), v6_addr(rng)) if v6 else (v4_addr(rng), v4_addr(rng))
        x = a + b + struct.pack('!HH', rng.randrange(1024, 65536), rng.randrange(1, 1024))
        y = bytes(p ^ q for p, q in zip(x, kernel_vector(MS_KEY, n, bits, rng)))
        assert x != y and toeplitz(MS_KEY, x) == toeplitz(MS_KEY, y)
        ids = []
        for t in (x, y):
            sp, dp = struct.unpack('!HH', t[2 * alen:])
            ids.append(len(flows))
            flows.append((v6, proto, t[:alen], t[alen:2 * alen], sp, dp, False))
        pairs.append(tuple(ids))
    # interleave: each flow's packets in order, flows shuffled together
    order = [f for f in range(len(flows)) for _ in range(PER_DIRECTION)]
    rng.shuffle(order)
    seq = collections.Counter()
    frames, owner = [], []
    for f in order:
        v6, proto, src, dst, sp, dp, vlan = flows[f]
        frames.append(frame(v6, proto, src, dst, sp, dp, f, seq[f], 1000 + 100 * seq[f], vlan))
        owner.append(f)
        seq[f] += 1
    return frames, owner, conns, pairs


# ----------------------------------------------------------------- runs

def launch(binary, tmp, inp, tag, extra):
    app = ['--map', '1-3', '--tx-port', '0', '--stages', 'output', '--exit-when-idle', '100',
           '--backlog', '8192', '--hash-seed', '7'] + list(extra)
    return rpstest.run_pcap(binary, tmp, inp, len(WORKERS), app, lcores=LCORES,
                            timeout=120, tag=tag)


def check_run(F, run, frames, owner, tag, extra):
    """One run's checks; returns {flow id: set of TX file indexes} or None."""
    res, tx = run
    ctx = '%s (%s)' % (tag, ' '.join(extra))
    r = rpstest.check_pcap_run(F, res, tx, len(frames), ctx)
    if r is None:
        return None
    s, outs, counts = r
    print('%s: rx %d processed %d, per worker %s' % (ctx, s['rx_packets'], s['processed'],
                                                     counts), flush=True)
    F.extend(rpstest.check_workers_vs_files(s, WORKERS, counts), ctx)
    F.extend(rpstest.check_outputs(frames, outs, exact=rpstest.dropped_total(s) == 0), ctx)
    flow_of = {fr: owner[i] for i, fr in enumerate(frames)}
    where = collections.defaultdict(set)
    for i, path in enumerate(tx):
        for fr in outs[os.path.basename(path)]:
            where[flow_of[fr]].add(i)
    return where


def together(where, groups):
    """Groups (lists of flow ids) whose packets are not all in one file."""
    return [g for g in groups if len(set().union(*(where[f] for f in g))) != 1]


def bad_values(F, binary, tmp):
    """Exit 2 naming the option; config mistakes with FILE:LINE."""
    tx = [os.path.join(tmp, 'bad_w%d.pcap' % i) for i in range(3)]

    def go(app, conf=None):
        return rpstest.run_until_idle(binary, tmp, app, conf, lcores=LCORES, tx=tx)

    sym_ms = ['--symmetric-xor', '--rss-key', MS_KEY.hex()]
    cases = [
        (['--hash', 'toeplitz', '--rss-key', 'zz'], None, ['--rss-key', 'secret: not shown']),
        (['--hash', 'toeplitz', '--rss-key', '6d5a' * 10], None, ['--rss-key', '20 bytes']),
        (['--rss-key', '6d5a' * 27], None, ['--rss-key', '54 bytes']),
        (['--rss-key', '6d:5a:'], None, ['--rss-key']),
        (sym_ms, None, ['--rss-key', 'not symmetric']),
        (['--hash', 'toeplitzz'], None, ['--hash', 'toeplitz']),
        ([], '[dataplane]\nhash = toeplitz\nsymmetric = perhaps\n',
         ['bad.conf:3', 'symmetric']),
        ([], '[dataplane]\nrss_key = 6d5a\n', ['bad.conf:2', 'rss_key', '2 bytes']),
        ([], '[dataplane]\nsymmetric = xor\nrss_key = %s\n' % MS_KEY.hex(),
         ['bad.conf:3', 'not symmetric']),
        (['--symmetric-xor'], '[dataplane]\nrss_key = %s\n' % MS_KEY.hex(),
         ['rss_key', 'bad.conf', '--symmetric-xor', 'not symmetric']),
        (['--symmetric', '--hash', 'rss'], None, ['--hash rss', '--symmetric']),
        (['--symmetric', '--symmetric-xor'], None, ['--symmetric', '--symmetric-xor']),
    ]
    rpstest.check_usage_errors(F, go, cases)
    # two good runs of the whole capture, side by side (their own TX files)
    tx2 = [os.path.join(tmp, 'good_w%d.pcap' % i) for i in range(3)]
    r1, r = rpstest.run_all([
        # a good symmetric key (ethtool spelling, 52 bytes) with --symmetric-xor is accepted
        lambda: go(['--symmetric-xor', '--hash', 'toeplitz', '--rss-key',
                    ':'.join(['6d', '5a'] * 26)]),
        # --symmetric takes any key (the sort gives the symmetry); the key is never echoed
        lambda: rpstest.run_until_idle(binary, tmp, ['--symmetric', '--hash', 'toeplitz',
                                                     '--rss-key', MS_KEY.hex()],
                                       lcores=LCORES, tx=tx2)])
    F.check(r1.rc == 0, 'a symmetric 52-byte key with --symmetric-xor: exit %s' % r1.rc, r1)
    F.check(r.rc == 0, 'the Microsoft key with --symmetric: exit %s' % r.rc, r)
    F.check(MS_KEY.hex() not in r.stdout + r.stderr, 'the RSS key was printed', r)


def main():
    binary = rpstest.binary_from_argv()
    F = rpstest.Failures('test_symmetric')
    # the Python model against the first Microsoft verification vector
    assert toeplitz(MS_KEY, bytes([66, 9, 149, 187, 161, 142, 100, 80]) +
                    struct.pack('!HH', 2794, 1766)) == 0x51ccc178
    rng = random.Random(6)
    with rpstest.TempDir('symmetric') as tmp:
        inp = os.path.join(tmp, 'in.pcap')
        frames, owner, conns, pairs = build(rng)
        rpstest.write_pcap(inp, frames)
        groups = list(conns.values())
        print('input: %d packets, %d connections (both directions), %d colliding pairs'
              % (len(frames), len(groups), len(pairs)), flush=True)

        conf = os.path.join(tmp, 'sym.conf')
        with open(conf, 'w') as f:
            f.write('[dataplane]\nhash = toeplitz\nsymmetric = on\nrss_key = %s\n'
                    % SORT_KEY.hex())
        runs = [('tz_sym', ['--hash', 'toeplitz', '--symmetric', '--rss-key', SORT_KEY.hex()]),
                ('jhash_sym', ['--symmetric']),
                ('tz_xor', ['--hash', 'toeplitz', '--symmetric-xor']),
                ('conf_sym', ['--config', conf]),
                ('jhash', ['--hash', 'jhash']),
                ('tz', ['--hash', 'toeplitz', '--rss-key', MS_KEY.hex()])]
        # every run first, two at a time (each a whole capture, nothing depends on timing),
        # then their checks in order
        done = rpstest.run_all([lambda r=r: launch(binary, tmp, inp, *r) for r in runs])
        got = {tag: check_run(F, run, frames, owner, tag, extra)
               for (tag, extra), run in zip(runs, done)}

        sym = {}
        for tag in ('tz_sym', 'jhash_sym', 'tz_xor'):
            w = got[tag]
            if w is not None:
                split = together(w, groups)
                F.check(not split, '%s: %d of %d connections split across workers, e.g. '
                        'flows %s in files %s' % (tag, len(split), len(groups),
                                                  split[:1], [w[f] for f in split[0]]
                                                  if split else None))
                sym[tag] = w
        w = got['conf_sym']
        if w is not None and 'tz_sym' in sym:
            diff = [f for f in w if w[f] != sym['tz_sym'][f]]
            F.check(not diff, 'config hash = toeplitz, symmetric = on places %d flows '
                    'unlike --hash toeplitz --symmetric' % len(diff))

        for tag in ('jhash', 'tz'):
            w = got[tag]
            if w is None:
                continue
            split = together(w, groups)
            print('%s: %d of %d connections split' % (tag, len(split), len(groups)))
            F.check(split, '%s: no connection split without --symmetric: the symmetry '
                    'checks above could not fail' % tag)
            apart = together(w, [list(p) for p in pairs])
            print('%s: %d of %d Toeplitz-colliding pairs split' % (tag, len(apart), len(pairs)))
            if tag == 'tz':
                F.check(not apart, 'tz: %d of %d flow pairs with equal Toeplitz hashes '
                        '(default key) reached different workers: the hash is not '
                        'bit-exact Toeplitz' % (len(apart), len(pairs)))
            else:
                F.check(apart, 'jhash: every Toeplitz-colliding pair on one worker: the '
                        'collision check could not fail')
        bad_values(F, binary, tmp)
    return F.report()


if __name__ == '__main__':
    sys.exit(main())
