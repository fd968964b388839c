#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_inner.py: --inner spreads the flows of one tunnel over the workers.

The capture (generated here) holds many TCP/UDP flows (IPv4 and IPv6, with the generator's
markers) carried by tunnels, each kind ONE outer flow (same outer addresses and, for UDP,
the same source port: what a NIC's RSS sees as one flow): VXLAN over IPv4, VXLAN on port
8472, GENEVE over IPv6, GTP-U over IPv4, GRE (key, sequence) over IPv6, NVGRE over IPv4,
IP-in-IP over IPv4; plus one outer flow of VXLAN frames with the I flag clear (malformed).
Three workers, --stages output, one TX file per worker:
- without --inner: every tunnel's packets land on one worker; inner_hashed and
  inner_fallback stay 0;
- with --inner --vxlan-port 4789 --vxlan-port 8472: each tunnel's inner flows spread over
  more than one worker, every inner flow on exactly one worker in its order; the malformed
  tunnel stays on one worker; inner_hashed == the tunnelled packets, inner_fallback == the
  malformed ones;
- with --inner --hash toeplitz --symmetric (default VXLAN port only): the same, with the
  8472 tunnel now a plain UDP flow on one worker (neither counter);
- with inner = on and vxlan_port = 4789,8472 in a --config file: as the second run.
Each run: exit 0, rx_packets == packets in the capture, processed + dropped == rx with
nothing dropped, TX files byte-identical to the input (as multisets), workers[].processed
and received_rps == the files' counts.

usage: test_inner.py PATH/TO/dpdk-rps
"""

import collections
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rpstest  # noqa: E402

gen = rpstest.gen_traffic
LCORES = '0@0,(1-3)@1'
WORKERS = [1, 2, 3]
FLOWS_PER_TUNNEL = 40
PACKETS_PER_FLOW = 6
BAD_PACKETS = 30

V4 = [bytes([198, 18, 200, i]) for i in range(2)]
V6 = [bytes.fromhex('20010db8' + '00' * 10 + 'ee0%d' % i) for i in range(2)]
# (name, kind, outer addresses, UDP port or None)
TUNNELS = [
    ('vxlan4', 'vxlan', V4, None),
    ('vxlan8472', 'vxlan', V4, 8472),
    ('geneve6', 'geneve', V6, None),
    ('gtpu4', 'gtpu', V4, None),
    ('gre6', 'gre', V6, None),
    ('nvgre4', 'nvgre', V4, None),
    ('ipip4', 'ipip', V4, None),
]


def build():
    """Frames in capture order and, per frame, (tunnel name, inner flow, seq)."""
    streams, meta = [], {}
    for t, (name, kind, addr, port) in enumerate(TUNNELS):
        inner = gen.generate_packets(flows=FLOWS_PER_TUNNEL, packets_per_flow=PACKETS_PER_FLOW,
                                     seed=100 + t, frag_datagrams=0, non_ip=0, vlan_share=0,
                                     qinq_share=0, ipv6_share=0.4)
        q = []
        for i, p in enumerate(inner):
            fr = gen.encapsulate(p.frame, kind, addr[0], addr[1], sport=50000 + t, ident=i,
                                 dport=port)
            meta[fr] = (name, p.flow, p.seq)
            q.append(fr)
        streams.append(q)
    # malformed: VXLAN with the I flag clear, one outer flow
    bad = gen.generate_packets(flows=5, packets_per_flow=BAD_PACKETS // 5, seed=99,
                               frag_datagrams=0, non_ip=0, vlan_share=0, qinq_share=0)
    q = []
    for i, p in enumerate(bad):
        fr = bytearray(gen.encapsulate(p.frame, 'vxlan', V4[1], V4[0], sport=40000, ident=i))
        fr[14 + 20 + 8] = 0                    # VXLAN flags
        fr[14 + 20 + 6:14 + 20 + 8] = b'\0\0'  # no UDP checksum (it would be stale)
        fr = bytes(fr)
        meta[fr] = ('bad', p.flow, p.seq)
        q.append(fr)
    streams.append(q)
    # a seeded interleaving of the tunnels that keeps each one's own order
    order = [i for i, q in enumerate(streams) for _ in q]
    random.Random(5).shuffle(order)
    pos = [0] * len(streams)
    frames = []
    for i in order:
        frames.append(streams[i][pos[i]])
        pos[i] += 1
    return frames, meta


def run(F, binary, tmp, inp, frames, meta, tag, extra):
    app = ['--map', '1-3', '--tx-port', '0', '--stages', 'output', '--exit-when-idle', '500',
           '--backlog', '8192', '--hash-seed', '7'] + list(extra)
    res, tx = rpstest.run_pcap(binary, tmp, inp, len(WORKERS), app, lcores=LCORES,
                               timeout=120, tag=tag)
    ctx = '%s (%s)' % (tag, ' '.join(extra) or 'no --inner')
    r = rpstest.check_pcap_run(F, res, tx, len(frames), ctx)
    if r is None:
        return None
    s, outs, counts = r
    print('%s: per worker %s, inner_hashed %s, inner_fallback %s' % (
        ctx, counts, s['rx_lcore'].get('inner_hashed'), s['rx_lcore'].get('inner_fallback')),
        flush=True)
    F.check(sum(counts) == s['tx_packets'] == s['processed'] == len(frames),
            '%s: TX files %d, tx_packets %d, processed %d, capture %d must be equal' % (
                ctx, sum(counts), s['tx_packets'], s['processed'], len(frames)))
    F.extend(rpstest.check_workers_vs_files(s, WORKERS, counts), ctx)
    F.extend(rpstest.check_workers_vs_files(s, WORKERS, counts, field='received_rps'), ctx)
    # byte-identical (rpstest.check_outputs() groups by the outer key, which --inner splits)
    got = collections.Counter()
    for fr in outs.values():
        got.update(fr)
    F.check(got == collections.Counter(frames), '%s: the TX files do not hold exactly the '
            'input frames' % ctx)
    # where each tunnel's packets and each inner flow went, and in what order
    tunnel_workers = collections.defaultdict(set)
    flow_workers = collections.defaultdict(set)
    flow_seqs = collections.defaultdict(list)
    for w, path in enumerate(tx):
        for fr in outs[os.path.basename(path)]:
            m = meta.get(fr)
            if not F.check(m is not None, '%s: a frame in %s is not from the capture'
                           % (ctx, path)):
                return None
            tunnel_workers[m[0]].add(w)
            flow_workers[m[:2]].add(w)
            flow_seqs[m[:2]].append(m[2])
    split = [k for k, ws in flow_workers.items() if len(ws) != 1]
    F.check(not split, '%s: %d inner flows reached more than one worker, e.g. %s'
            % (ctx, len(split), split[:3]))
    disorder = [k for k, q in flow_seqs.items() if q != sorted(q)]
    F.check(not disorder, '%s: %d inner flows out of order, e.g. %s'
            % (ctx, len(disorder), disorder[:3]))
    return s, {k: sorted(v) for k, v in tunnel_workers.items()}


def main():
    binary = rpstest.binary_from_argv()
    F = rpstest.Failures('test_inner')
    with rpstest.TempDir('inner') as tmp:
        inp = os.path.join(tmp, 'in.pcap')
        frames, meta = build()
        rpstest.write_pcap(inp, frames)
        per = collections.Counter(m[0] for m in meta.values())
        print('input: %d packets: %s' % (len(frames), dict(per)), flush=True)
        names = [t[0] for t in TUNNELS]

        r = run(F, binary, tmp, inp, frames, meta, 'outer', [])
        if r is not None:
            s, tw = r
            for name in names + ['bad']:
                F.check(len(tw.get(name, ())) == 1, 'without --inner, tunnel %s reached '
                        'workers %s: one outer flow must reach one worker' % (name, tw.get(name)))
            F.check(s['rx_lcore']['inner_hashed'] == 0 and s['rx_lcore']['inner_fallback'] == 0,
                    'without --inner: inner_hashed %d inner_fallback %d, expected 0' % (
                        s['rx_lcore']['inner_hashed'], s['rx_lcore']['inner_fallback']))

        r = run(F, binary, tmp, inp, frames, meta, 'inner',
                ['--inner', '--vxlan-port', '4789', '--vxlan-port', '8472'])
        if r is not None:
            s, tw = r
            for name in names:
                F.check(len(tw.get(name, ())) > 1, 'with --inner, the %d inner flows of tunnel '
                        '%s all reached workers %s' % (FLOWS_PER_TUNNEL, name, tw.get(name)))
            F.check(len(tw.get('bad', ())) == 1, 'with --inner, the malformed tunnel reached '
                    'workers %s: it must fall back to its one outer flow' % tw.get('bad'))
            tunnelled = sum(per[n] for n in names)
            F.check(s['rx_lcore']['inner_hashed'] == tunnelled,
                    '--inner: inner_hashed %d, expected %d' % (s['rx_lcore']['inner_hashed'],
                                                             tunnelled))
            F.check(s['rx_lcore']['inner_fallback'] == per['bad'],
                    '--inner: inner_fallback %d, expected %d' % (
                        s['rx_lcore']['inner_fallback'], per['bad']))
            F.check(s['rx_lcore']['hash_computed'] == len(frames),
                    '--inner: hash_computed %d, expected every packet (%d)' % (
                        s['rx_lcore']['hash_computed'], len(frames)))

        r = run(F, binary, tmp, inp, frames, meta, 'toeplitz_sym',
                ['--inner', '--hash', 'toeplitz', '--symmetric'])
        if r is not None:
            s, tw = r
            for name in names:
                if name == 'vxlan8472':
                    F.check(len(tw.get(name, ())) == 1, 'port 8472 without --vxlan-port 8472 '
                            'reached workers %s: it is one plain UDP flow' % tw.get(name))
                else:
                    F.check(len(tw.get(name, ())) > 1, 'toeplitz --symmetric --inner: tunnel '
                            '%s reached only workers %s' % (name, tw.get(name)))
            want = sum(per[n] for n in names if n != 'vxlan8472')
            F.check(s['rx_lcore']['inner_hashed'] == want,
                    'toeplitz --inner: inner_hashed %d, expected %d' % (
                        s['rx_lcore']['inner_hashed'], want))
            F.check(s['rx_lcore']['inner_fallback'] == per['bad'],
                    'toeplitz --inner: inner_fallback %d, expected %d' % (
                        s['rx_lcore']['inner_fallback'], per['bad']))
        # the same from the configuration file: inner = on, vxlan_port = a list
        conf = os.path.join(tmp, 'inner.conf')
        with open(conf, 'w') as f:
            f.write('[dataplane]\ninner = on\nvxlan_port = 4789,8472\n')
        r = run(F, binary, tmp, inp, frames, meta, 'config', ['--config', conf])
        if r is not None:
            s, tw = r
            F.check(all(len(tw.get(n, ())) > 1 for n in names) and
                    s['rx_lcore']['inner_hashed'] == sum(per[n] for n in names) and
                    s['rx_lcore']['inner_fallback'] == per['bad'],
                    'inner = on, vxlan_port = 4789,8472 in the file: tunnels on workers %s, '
                    'inner_hashed %d, inner_fallback %d' % (
                        tw, s['rx_lcore']['inner_hashed'], s['rx_lcore']['inner_fallback']))
    return F.report()


if __name__ == '__main__':
    sys.exit(main())
