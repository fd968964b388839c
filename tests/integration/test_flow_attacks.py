#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_flow_attacks.py BINARY: the flow table under attack (issue 13), replayed captures.

1. Hash flooding: 4096 IPv6 TCP SYNs to one ip:port whose flow keys were solved (below, by
   Gaussian elimination over GF(2): CRC is linear) to share one CRC32C, the flow table's old
   hash. With the test hook RPS_TEST_FLOW_HASH=crc32c (the old hash) the worker's
   flow_bucket_max is 4096: the capture really is an attack, every lookup walked a chain of
   thousands. With the default keyed hash (SipHash, random key) the same flows spread as
   random ones do: flow_bucket_max stays small (the cost is counted, not timed).
2. SYN flood: a flow table of 64 (--flow-table-size 64) holding 8 established connections,
   then 3000 SYNs from spoofed sources with 20 new legitimate connections (handshake and
   data) among them, then data on the first 8. Every legitimate connection must be in the
   table, established, with all its packets; the flood is evicted (flows_evicted), nothing
   is dropped (flow_table_full 0: before issue 13 the flood filled the table and the new
   connections were dropped), accounting exact.

usage: test_flow_attacks.py PATH/TO/dpdk-rps
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rpstest  # noqa: E402

G = rpstest.gen_traffic
FLOW_HASH = 'RPS_TEST_FLOW_HASH'
ETH4 = G.eth_header(b'\x02\x00\x00\x00\x00\x02', b'\x02\x00\x00\x00\x00\x01', [], 0x0800)
ETH6 = G.eth_header(b'\x02\x00\x00\x00\x00\x02', b'\x02\x00\x00\x00\x00\x01', [], 0x86DD)
SYN, ACK, PSH = 0x02, 0x10, 0x08

# ---- CRC32C-colliding flows (the solver of bench/crc_collide.c, in Python) ----

_T = []
for _i in range(256):
    _c = _i
    for _ in range(8):
        _c = (_c >> 1) ^ (0x82F63B78 if _c & 1 else 0)
    _T.append(_c)


def crc32c0(data):
    """rte_hash_crc(data, len, 0): CRC32C, initial value 0, no final inversion (linear)."""
    c = 0
    for b in data:
        c = _T[(c ^ b) & 0xFF] ^ (c >> 8)
    return c


# The flow table's 40-byte key (lib/stages/flow.c): family, proto, pad(2), port[2],
# addr[2][16], the lower endpoint first. Sources 2001:db8:1::/64 sort before the
# destination 2001:db8:ffff::1, so the source is endpoint 0.
SRC_PREFIX = bytes.fromhex('20010db800010000')
DST6 = bytes.fromhex('20010db8ffff00000000000000000001')
DPORT = 443


def colliding_flows(n):
    """n distinct (src, sport) whose flow keys to [DST6]:443 share one CRC32C."""
    base = bytearray(40)
    base[0], base[1] = 6, 6
    base[6:8] = DPORT.to_bytes(2, 'big')
    base[8:16] = SRC_PREFIX
    base[24:40] = DST6
    free = [4 * 8 + b for b in range(16)] + [16 * 8 + b for b in range(64)]
    items = []
    for bit in free:
        v = bytearray(40)
        v[bit // 8] = 1 << (bit % 8)
        items.append([crc32c0(v), int.from_bytes(v, 'big')])
    for b in range(32):
        piv = next((it for it in items if it[0] >> b & 1), None)
        if piv is None:
            continue
        items.remove(piv)
        for it in items:
            if it[0] >> b & 1:
                it[0] ^= piv[0]
                it[1] ^= piv[1]
    basis = [it[1] for it in items]
    assert len(basis) >= 12 and all(it[0] == 0 for it in items)
    want = crc32c0(base)
    out = []
    for k in range(n):
        v = int.from_bytes(base, 'big')
        for i, vec in enumerate(basis):
            if k >> i & 1:
                v ^= vec
        key = v.to_bytes(40, 'big')
        assert crc32c0(key) == want
        out.append((key[8:24], int.from_bytes(key[4:6], 'big')))
    return out


def tcp6(src, dst, sport, dport, seq, ack, flags, payload=b''):
    seg = G.tcp_segment(True, src, dst, sport, dport, seq, ack, payload, flags)
    return ETH6 + G.ipv6_header(src, dst, 6, len(seg)) + seg


def tcp4(src, dst, sport, dport, seq, ack, flags, payload=b''):
    seg = G.tcp_segment(False, src, dst, sport, dport, seq, ack, payload, flags)
    return ETH4 + G.ipv4_header(src, dst, 6, len(seg), 1) + seg


def run(F, binary, tmp, frames, tag, extra, env=None):
    inp = os.path.join(tmp, tag + '.pcap')
    fj = os.path.join(tmp, tag + '_flows.json')
    rpstest.write_pcap(inp, frames)
    res, _ = rpstest.run_pcap(binary, tmp, inp, 0,
                              ['--map', '0x2', '--backlog', '8192', '--exit-when-idle', '400',
                               '--flows-json', fj] + extra,
                              lcores='0@0,1@1', timeout=120, tag=tag, env=env or {})
    print('%s: exit %s in %.1f s' % (tag, res.rc, res.elapsed), flush=True)
    if not F.check(res.rc == 0 and res.summary is not None,
                   '%s: exit %s, %s' % (tag, res.rc, res.summary_error), res):
        return None, None
    s = res.summary
    F.extend(rpstest.check_accounting(s), tag, res)
    F.check(s['rx_packets'] == len(frames), '%s: rx_packets %d != %d' % (
        tag, s['rx_packets'], len(frames)))
    F.check(rpstest.dropped_total(s) == 0, '%s: drops %s' % (tag, s['dropped']), res)
    with open(fj) as f:
        flows = json.load(f)['flows']
    return s, flows


def hash_flood(F, binary, tmp):
    n = 4096
    frames = [tcp6(src, DST6, sport, DPORT, 1000 + i, 0, SYN)
              for i, (src, sport) in enumerate(colliding_flows(n))]
    s, _ = run(F, binary, tmp, frames, 'crc32c', [], env={FLOW_HASH: 'crc32c'})
    if s is not None:
        w = s['workers'][0]
        print('crc32c: flows_created %d, flow_bucket_max %d' % (w['flows_created'],
                                                                 w['flow_bucket_max']))
        F.check(w['flows_created'] == n, 'crc32c: flows_created %d' % w['flows_created'])
        F.check(w['flow_bucket_max'] == n,
                'crc32c: flow_bucket_max %d, expected %d: the crafted flows do not collide '
                'under the old hash, the test shows nothing' % (w['flow_bucket_max'], n))
    s, _ = run(F, binary, tmp, frames, 'siphash', [])
    if s is not None:
        w = s['workers'][0]
        print('siphash: flows_created %d, flow_bucket_max %d' % (w['flows_created'],
                                                                  w['flow_bucket_max']))
        F.check(w['flows_created'] == n, 'siphash: flows_created %d' % w['flows_created'])
        # 4096 flows in 8192 buckets of a random hash: a handful share one; never 32
        F.check(w['flow_bucket_max'] <= 32,
                'siphash: flow_bucket_max %d: the crafted flows still collide' %
                w['flow_bucket_max'])


def syn_flood(F, binary, tmp):
    srv = bytes([198, 19, 0, 1])

    def cli(i):
        return bytes([198, 18, 0, 1 + i])

    def handshake(i, port):
        c = cli(i)
        return [tcp4(c, srv, port, 80, 100, 0, SYN),
                tcp4(srv, c, 80, port, 900, 101, SYN | ACK),
                tcp4(c, srv, port, 80, 101, 901, ACK),
                tcp4(c, srv, port, 80, 101, 901, ACK | PSH, b'GET / HTTP/1.0\r\n\r\n')]

    legit = {}          # (client ip, port) -> packets
    frames = []
    for i in range(8):
        frames += handshake(i, 40000 + i)
        legit[(i, 40000 + i)] = 4
    opened = 0
    for k in range(3000):
        src = bytes([198, 18, 128 + k // 250, k % 250 + 1])
        frames.append(tcp4(src, srv, 1024 + k, 80, k * 7919, 0, SYN))
        if k % 150 == 75 and opened < 20:
            frames += handshake(8 + opened, 41000 + opened)
            legit[(8 + opened, 41000 + opened)] = 4
            opened += 1
    for i in range(8):
        frames.append(tcp4(cli(i), srv, 40000 + i, 80, 119, 901, ACK | PSH, b'more'))
        legit[(i, 40000 + i)] += 1
    s, flows = run(F, binary, tmp, frames, 'synflood', ['--flow-table-size', '64'])
    if s is None:
        return
    w = s['workers'][0]
    print('synflood: flows_created %d, flows_evicted %d, flow_table_full %d' % (
        w['flows_created'], w['flows_evicted'], s['dropped'].get('flow_table_full', 0)))
    F.check(s['dropped'].get('flow_table_full', 0) == 0, 'synflood: flow_table_full %d' %
            s['dropped'].get('flow_table_full', 0))
    F.check(w['flows_created'] == 3000 + len(legit), 'synflood: flows_created %d' %
            w['flows_created'])
    F.check(w['flows_evicted'] == w['flows_created'] - 64, 'synflood: flows_evicted %d' %
            w['flows_evicted'])
    got = {}
    for fl in flows:
        if fl['dst'] == '198.19.0.1' and fl['src'].startswith('198.18.0.'):
            got[(int(fl['src'].split('.')[3]) - 1, fl['sport'])] = fl
    for k, pk in sorted(legit.items()):
        fl = got.get(k)
        if not F.check(fl is not None, 'synflood: legitimate connection %s lost its slot' %
                       (k,)):
            continue
        F.check(fl['state'] == 'established' and fl['packets'] == pk,
                'synflood: connection %s: %s, %d packets (expected established, %d)' % (
                    k, fl['state'], fl['packets'], pk))


def main():
    binary = rpstest.binary_from_argv()
    F = rpstest.Failures('test_flow_attacks')
    with rpstest.TempDir('flowattacks') as tmp:
        # without the control (the crc32c run) the SipHash run shows nothing: the whole
        # test skips
        rpstest.skip_without_hooks(binary, tmp, FLOW_HASH + '=crc32c, the hash flood\'s '
                                   'control')
        hash_flood(F, binary, tmp)
        syn_flood(F, binary, tmp)
    return F.report()


if __name__ == '__main__':
    sys.exit(main())
