#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_frag_flood.py BINARY: a flood of fragments that never complete cannot hold the pool.

The capture interleaves
  - FLOOD datagrams of which only the first 3 of 4 fragments are sent (they never complete),
  - NORMAL_FLOWS unfragmented UDP flows of NORMAL_PKTS packets each,
  - COMPLETE whole fragmented IPv4 datagrams, COMPLETE_V6 IPv6 ones with hop-by-hop and
    destination-options headers before the fragment header, and one IPv4 datagram whose
    UDP checksum (over the whole datagram) is wrong.
It runs with --map 0 (the RX lcore processes every packet itself: no backlog, so nothing
depends on how fast a worker is), a small --mbufs 4096, and --frag-timeout 600000 so that
nothing expires during the run: what reassembly holds is bounded by its budget alone.

Without a budget, reassembly keeps every flood fragment (up to --frag-max datagrams of 8)
until the pool is empty: net_pcap then loses packets (rx_nombuf), unfragmented ones too.
With it, the pool of 4096 leaves reassembly 4096 - (RX ring + TX ring + bursts + caches) =
640 mbufs; the oldest datagrams are evicted (frag_evicted) and checked here:
  - every frame of the capture was received: port rx_nombuf == imissed == 0;
  - every unfragmented packet was processed (per flow, from --flows-json);
  - every complete datagram was reassembled (IPv6 ones with extension headers too), the one
    with the bad checksum dropped as bad_l4_checksum;
  - the flood went as frag_evicted (and frag_timeout for what was held at exit), nothing
    else was dropped, and rx_packets == processed + dropped.
The same checks hold in a second run with 2 workers and the default pool, which now adds
--frag-mbufs (default --frag-max, 4096) per worker, against a flood of 7-of-8-fragment
datagrams (21,000 fragments; the old default pool had 16,384 mbufs in all). Backpressure
(--backpressure on, auto's choice for a file input) holds the RX lcore while a backlog is
full, so the backlogs drop nothing, unfragmented packets included, whatever the workers'
speed. (The RX lcore used to pause after every 500 packets, RPS_TEST_RX_GAP, from before
backpressure: 2.4 s of silences in which the backlogs emptied; now they may also be full,
which the pool must hold besides the fragments.)

The third run is issue 25's: a pool too small for what the options ask (--mbufs 16384,
--backlog 16384: backlogs alone could hold 32,768), 2 workers slowed to 20 us a packet
(RPS_TEST_WORKER_DELAY_NS) so that their backlogs fill, and first 8,192 datagrams of which 7
of 8 fragments are sent, then the rest of the capture. Before the mbuf budgets the flooded
worker's backlog took the whole pool and the RX lcore found no mbuf (rx_nombuf 27,600,
768 of 2,000 unfragmented packets through); now each worker holds at most its share
(the rings cut to fit, backpressure waits on them) and the same checks hold, with the
summary's mempool split fitting the pool. The fourth run is the same without backpressure:
what a cut ring refuses is counted as mbuf_budget (never backlog_full), and still no
rx_nombuf.

The test needs the test hooks (-Dtest_hooks=true): without them it skips, whole.
"""

import json
import os
import random
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rpstest  # noqa: E402

G = rpstest.gen_traffic
FLOOD = 3000
NORMAL_FLOWS = 200
NORMAL_PKTS = 10
COMPLETE = 100
COMPLETE_V6 = 20
MBUFS = 4096
BUDGET_FLOOD = 8192      # issue 25: never-completing datagrams before the legitimate traffic
BUDGET_MBUFS = 16384     # ... with a pool that the backlogs alone could take twice over
BUDGET_BACKLOG = 16384
DST4 = bytes([198, 19, 0, 1])
DST6 = bytes.fromhex('20010db8000000000000000000000001')
ETH4 = G.eth_header(b'\x02\x00\x00\x00\x00\x02', b'\x02\x00\x00\x00\x00\x01', [], 0x0800)
ETH6 = G.eth_header(b'\x02\x00\x00\x00\x00\x02', b'\x02\x00\x00\x00\x00\x01', [], 0x86DD)


def frags4(src, ident, sport, payload, bad=False, send=4, k=4):
    """The fragments (k equal ones) of one UDP datagram over IPv4; the first @send."""
    seg = G.udp_datagram(False, src, DST4, sport, 9, payload)
    if bad:
        seg = seg[:6] + bytes([seg[6] ^ 0x5a, seg[7]]) + seg[8:]
    step = len(seg) // k
    out = []
    for i in range(send):
        part = seg[i * step:(i + 1) * step] if i < k - 1 else seg[(k - 1) * step:]
        ff = (0x2000 if i < k - 1 else 0) | (i * step // 8)
        out.append(ETH4 + G.ipv4_header(src, DST4, 17, len(part), ident, flags_frag=ff) + part)
    return out


def frags6(src, ident, sport, payload):
    """4 fragments of a UDP datagram over IPv6, each with a hop-by-hop header and an 16-byte
    destination-options header before its fragment header."""
    seg = G.udp_datagram(True, src, DST6, sport, 9, payload)
    hbh = bytes([60, 0, 1, 4, 0, 0, 0, 0])                      # next: dst options
    dst = bytes([44, 1, 1, 12]) + bytes(12)                     # next: fragment
    step = len(seg) // 4
    out = []
    for i in range(4):
        part = seg[i * step:(i + 1) * step] if i < 3 else seg[3 * step:]
        fh = struct.pack('!BBHI', 17, 0, (i * step) | (1 if i < 3 else 0), ident)
        body = hbh + dst + fh + part
        out.append(ETH6 + G.ipv6_header(src, DST6, 0, len(body)) + body)
    return out


def frames(workers=False, flood_first=0):
    """The capture; for the run with workers the flood is 7 of 8 fragments from 2 sources:
    21,000 fragments, more than the old default pool (16,384). flood_first: that many more
    such datagrams before everything else (not shuffled)."""
    rng = random.Random(13)
    first = []
    for i in range(flood_first):
        src = bytes([198, 18, 0, 2 + (i & 1)])
        first += frags4(src, 50000 + i, 5000, bytes(504), send=7, k=8)
    units = []   # lists of frames that stay together, shuffled as units
    for i in range(FLOOD):
        src = bytes([198, 18, 0, 2 + (i & 1 if workers else 0)])
        for f in (frags4(src, i + 1, 5000, bytes(504), send=7, k=8) if workers else
                  frags4(src, i + 1, 5000, bytes(1016), send=3)):
            units.append([f])
    for k in range(NORMAL_FLOWS):
        src = bytes([198, 18, 1 + k // 250, k % 250 + 1])
        for _ in range(NORMAL_PKTS):
            seg = G.udp_datagram(False, src, DST4, 7000 + k, 9, bytes(64))
            units.append([ETH4 + G.ipv4_header(src, DST4, 17, len(seg), 1) + seg])
    for k in range(COMPLETE):
        units.append(frags4(bytes([198, 18, 2, 1]), 20000 + k, 6000 + k, bytes(1016)))
    units.append(frags4(bytes([198, 18, 2, 1]), 30000, 6999, bytes(1016), bad=True))
    for k in range(COMPLETE_V6):
        src = bytes.fromhex('20010db8000000000000000000000002')
        units.append(frags6(src, 40000 + k, 6500 + k, bytes(1016)))
    rng.shuffle(units)
    return first + [f for u in units for f in u]


def check_run(F, res, fr, tag, flood_frags, fj):
    if not F.check(res.rc == 0 and res.summary is not None,
                   '%s: exit %s, %s' % (tag, res.rc, res.summary_error), res):
        return
    s = res.summary
    d = s['dropped']
    port = s.get('port', {})
    print('%s: rx %d of %d frames, processed %d, dropped %s, port %s' % (
        tag, s['rx_packets'], len(fr), s['processed'], {k: v for k, v in d.items() if v},
        port), flush=True)
    F.extend(rpstest.check_accounting(s), tag, res)
    F.check(port.get('rx_nombuf', -1) == 0 and port.get('imissed', -1) == 0,
            '%s: packets lost at the PMD: %s (the pool ran out)' % (tag, port), res)
    F.check(s['rx_packets'] == len(fr), '%s: rx_packets %d of %d frames' % (
        tag, s['rx_packets'], len(fr)))
    with open(fj) as f:
        flows = json.load(f)['flows']
    per_port = {}
    for fl in flows:
        if fl.get('dport') == 9:
            per_port[fl['sport']] = per_port.get(fl['sport'], 0) + fl['packets']
    normal = sum(min(per_port.get(7000 + k, 0), NORMAL_PKTS) for k in range(NORMAL_FLOWS))
    F.check(normal == NORMAL_FLOWS * NORMAL_PKTS,
            '%s: unfragmented packets processed: %d of %d' % (tag, normal,
                                                             NORMAL_FLOWS * NORMAL_PKTS))
    whole = sum(1 for k in range(COMPLETE) if per_port.get(6000 + k) == 1)
    whole6 = sum(1 for k in range(COMPLETE_V6) if per_port.get(6500 + k) == 1)
    F.check(whole == COMPLETE, '%s: complete IPv4 datagrams through: %d of %d' % (
        tag, whole, COMPLETE))
    F.check(whole6 == COMPLETE_V6,
            '%s: complete IPv6 datagrams (extension headers) through: %d of %d' % (
                tag, whole6, COMPLETE_V6))
    F.check(d.get('bad_l4_checksum', 0) == 1 and 6999 not in per_port,
            '%s: datagram with a bad UDP checksum: bad_l4_checksum %d' % (
                tag, d.get('bad_l4_checksum', 0)))
    F.check(d.get('frag_evicted', 0) > 0, '%s: nothing evicted' % tag)
    F.check(d.get('frag_evicted', 0) + d.get('frag_timeout', 0) == flood_frags,
            '%s: flood fragments: frag_evicted %d + frag_timeout %d != %d' % (
                tag, d.get('frag_evicted', 0), d.get('frag_timeout', 0), flood_frags))
    others = {k: v for k, v in d.items()
              if v and k not in ('frag_evicted', 'frag_timeout', 'bad_l4_checksum')}
    F.check(not others, '%s: other drops: %s' % (tag, others))


def check_budget(F, res, tag, workers=2):
    """The summary's pool split: each worker's share fits beside the RX lcores' reserve, and
    the backlog rings were cut below --backlog to fit it."""
    m = (res.summary or {}).get('mempool', {})
    keys = ('size', 'reserve', 'worker_share', 'backlog_cap', 'frag_budget')
    if not F.check(all(isinstance(m.get(k), int) for k in keys),
                   '%s: summary mempool has no pool split: %s' % (tag, m), res):
        return
    print('%s: pool %s' % (tag, m), flush=True)
    F.check(m['reserve'] + workers * m['worker_share'] <= m['size'],
            '%s: reserve %d + %d x share %d > pool %d' % (
                tag, m['reserve'], workers, m['worker_share'], m['size']))
    F.check(m['backlog_cap'] < BUDGET_BACKLOG and m['frag_budget'] < 4096,
            '%s: backlog_cap %d, frag_budget %d: not cut to fit the pool' % (
                tag, m['backlog_cap'], m['frag_budget']))
    F.check('mbuf_budget' in res.stderr and 'cut to' in res.stderr,
            '%s: no start-up warning that the budgets were cut' % tag, res)


def main():
    binary = rpstest.binary_from_argv()
    F = rpstest.Failures('test_frag_flood')
    with rpstest.TempDir('fragflood') as tmp:
        if not rpstest.hooks_built(binary, tmp):
            # the runs with workers pace or slow them with test hooks: all or nothing
            print('SKIP: %s is %s (RPS_TEST_WORKER_DELAY_NS)' % (
                binary, rpstest.NO_HOOKS))
            return rpstest.SKIP
        inp = os.path.join(tmp, 'in.pcap')
        fr = frames()
        rpstest.write_pcap(inp, fr)
        fj = os.path.join(tmp, 'flows.json')
        res, _ = rpstest.run_pcap(binary, tmp, inp, 0,
                                  ['--map', '0', '--mbufs', str(MBUFS),
                                   '--frag-timeout', '600000', '--exit-when-idle', '300',
                                   '--flows-json', fj],
                                  lcores='0@0', timeout=120, tag='pool4096')
        check_run(F, res, fr, 'pool4096', FLOOD * 3, fj)

        # 2 workers, the default pool. --backpressure on (auto's choice for a file, said
        # here): a full backlog holds the RX lcore instead of dropping, so every
        # unfragmented packet must be processed however slow the workers.
        inp = os.path.join(tmp, 'in_w.pcap')
        fr = frames(workers=True)
        rpstest.write_pcap(inp, fr)
        fj = os.path.join(tmp, 'flows_w.json')
        res, _ = rpstest.run_pcap(binary, tmp, inp, 0,
                                  ['--map', '0x6', '--frag-timeout', '600000',
                                   '--backpressure', 'on', '--exit-when-idle', '300',
                                   '--flows-json', fj],
                                  lcores='0@0,(1-2)@1', timeout=120, tag='workers')
        check_run(F, res, fr, 'workers', FLOOD * 7, fj)

        # issue 25: a pool smaller than the backlogs, slow workers, the flood first
        inp = os.path.join(tmp, 'in_b.pcap')
        fr = frames(workers=True, flood_first=BUDGET_FLOOD)
        rpstest.write_pcap(inp, fr)
        budget = ['--map', '0x6', '--mbufs', str(BUDGET_MBUFS), '--backlog',
                  str(BUDGET_BACKLOG), '--frag-timeout', '600000', '--exit-when-idle', '300']
        slow = {'RPS_TEST_WORKER_DELAY_NS': '20000'}
        fj = os.path.join(tmp, 'flows_b.json')
        res, _ = rpstest.run_pcap(binary, tmp, inp, 0, budget + ['--flows-json', fj],
                                  lcores='0@0,(1-2)@1', timeout=120, tag='budget', env=slow)
        check_run(F, res, fr, 'budget', (FLOOD + BUDGET_FLOOD) * 7, fj)
        check_budget(F, res, 'budget')

        # the same without backpressure: the cut rings refuse, counted as mbuf_budget
        res, _ = rpstest.run_pcap(binary, tmp, inp, 0, budget + ['--backpressure', 'off'],
                                  lcores='0@0,(1-2)@1', timeout=120, tag='budget_drop',
                                  env=slow)
        tag = 'budget, no backpressure'
        if F.check(res.rc == 0 and res.summary is not None,
                   '%s: exit %s, %s' % (tag, res.rc, res.summary_error), res):
            s = res.summary
            d = s['dropped']
            print('%s: rx %d of %d frames, processed %d, dropped %s, port %s' % (
                tag, s['rx_packets'], len(fr), s['processed'],
                {k: v for k, v in d.items() if v}, s.get('port')), flush=True)
            F.extend(rpstest.check_accounting(s), tag, res)
            F.check(s.get('rx_nombuf', -1) == 0 and s.get('imissed', -1) == 0 and
                    s['rx_packets'] == len(fr),
                    '%s: rx_packets %d of %d frames, rx_nombuf %s, imissed %s' % (
                        tag, s['rx_packets'], len(fr), s.get('rx_nombuf'),
                        s.get('imissed')), res)
            F.check(d.get('mbuf_budget', 0) > 0 and d.get('backlog_full', -1) == 0,
                    '%s: refusals of the cut rings: mbuf_budget %s, backlog_full %s' % (
                        tag, d.get('mbuf_budget'), d.get('backlog_full')))
            per_worker = sum(w['dropped'].get('mbuf_budget', 0) for w in s['workers'])
            F.check(per_worker == d.get('mbuf_budget'),
                    '%s: workers[].dropped.mbuf_budget add up to %d, not %s' % (
                        tag, per_worker, d.get('mbuf_budget')))
            check_budget(F, res, tag)
    return F.report()


if __name__ == '__main__':
    sys.exit(main())
