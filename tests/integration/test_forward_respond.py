#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_forward_respond.py: the respond stage on an inline pair and on several RX ports: a
request is answered on the port it came in on, from that port's MAC, by the worker's own TX
queue there; everything else passes as without it.

Two net_pcap ports, each with one TX file per worker (its TX queues). Port 0 replays A:
generated traffic (IPv4/IPv6, TCP/UDP, tags, fragments, ARP for other addresses) with ARP
requests, ICMP echo and ICMPv6 echo requests for --respond-ip / --respond-ip6 put in between;
port 1 replays B: the same traffic with every address swapped, and a few requests of its own.

1. --forward 0:1 --stages parse,flow,respond,output, 3 workers: exit 0; port 0's files hold
   exactly the replies to A's requests (Ethernet source port 0's MAC as the log names it,
   destination the requester's; addresses swapped; ARP sender port 0's MAC; IPv4 header,
   ICMP and ICMPv6 checksums valid) and B's traffic unchanged; port 1's files the replies to
   B's requests (from port 1's MAC) and A's traffic unchanged, in order per flow. Accounting
   exact: rx == processed == tx, nothing dropped, arp/icmp/icmp6 replies == the requests.
2. The control: without respond in --stages, every request crosses the pair unchanged (A's
   whole capture leaves on port 1, B's on port 0).
3. Two plain --rx-port ports (no pair, no --tx-port): each answers its own requests from its
   own MAC on its own TX files; the rest is consumed.
4. Refused with exit 2 and the count it needs: respond on an RX port whose PMD has fewer TX
   queues than workers.

usage: test_forward_respond.py PATH/TO/dpdk-rps
"""

import collections
import os
import random
import re
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rpstest  # noqa: E402
import test_forward as TF  # noqa: E402
import test_respond_reflect as RR  # noqa: E402  (its request builders)

G = rpstest.gen_traffic
SELF4, SELF6 = RR.SELF4, RR.SELF6
RESPOND = ['--respond-ip', '198.18.0.1', '--respond-ip6', '2001:db8::1', '--respond-rate', '0']
NTX = 3


def requests(side, n_arp, n_icmp, n_icmp6):
    """Requests for us from side @p side's own sources (198.18.1+side.x, 2001:db8::1+side:x)."""
    out = []
    for i in range(1, n_arp + 1):
        out.append(RR.arp(RR.mac(0x100 * side + i), RR.mac(0x100 * side + i),
                          RR.v4(198, 18, 1 + side, i)))
    for i in range(1, n_icmp + 1):
        out.append(RR.icmp4(RR.mac(0x100 * side + 0x40 + i), RR.v4(198, 18, 1 + side, 100 + i),
                            0x100 * side + i))
    for i in range(1, n_icmp6 + 1):
        out.append(RR.echo6(RR.mac(0x100 * side + 0x80 + i), RR.v6(1 + side, i),
                            0x100 * side + i))
    return out


def mix(ordinary, reqs, seed):
    """ordinary frames with reqs put in at random places, each list's order kept."""
    total = len(ordinary) + len(reqs)
    slots = set(random.Random(seed).sample(range(total), len(reqs)))
    o, r = iter(ordinary), iter(reqs)
    return [next(r) if i in slots else next(o) for i in range(total)]


def reply(req, port_mac):
    """The reply respond builds for @p req on a port of MAC @p port_mac."""
    f = bytearray(req)
    et = struct.unpack_from('!H', req, 12)[0]
    if et == 0x0806:
        a = 14
        f[0:6], f[6:12] = req[a + 8:a + 14], port_mac
        f[a + 7] = 2
        f[a + 18:a + 28] = req[a + 8:a + 18]                   # tha, tpa = sha, spa
        f[a + 8:a + 14], f[a + 14:a + 18] = port_mac, SELF4
        return bytes(f)
    f[0:6], f[6:12] = req[6:12], port_mac
    if et == 0x0800:
        ihl = (req[14] & 15) * 4
        tot = struct.unpack_from('!H', req, 16)[0]
        f[26:30], f[30:34] = req[30:34], req[26:30]
        f[22] = 64
        f[24:26] = b'\0\0'
        f[24:26] = struct.pack('!H', G.inet_checksum(bytes(f[14:14 + ihl])))
        l4 = 14 + ihl
        f[l4], f[l4 + 2:l4 + 4] = 0, b'\0\0'
        f[l4 + 2:l4 + 4] = struct.pack('!H', G.inet_checksum(bytes(f[l4:14 + tot])))
        return bytes(f[:14 + tot])
    # IPv6 echo
    plen = struct.unpack_from('!H', req, 18)[0]
    f[22:38], f[38:54] = req[38:54], req[22:38]
    f[21] = 64
    f[54], f[56:58] = 129, b'\0\0'
    f[56:58] = struct.pack('!H', G.l4_checksum(True, bytes(f[22:38]), bytes(f[38:54]), 58,
                                               bytes(f[54:54 + plen])))
    return bytes(f[:54 + plen])


def checksums_ok(fr):
    """Whether a reply's IPv4 header, ICMP or ICMPv6 checksum is right (ARP: no checksum)."""
    et = struct.unpack_from('!H', fr, 12)[0]
    if et == 0x0800:
        ihl = (fr[14] & 15) * 4
        tot = struct.unpack_from('!H', fr, 16)[0]
        return (G.inet_checksum(fr[14:14 + ihl]) == 0 and
                G.inet_checksum(fr[14 + ihl:14 + tot]) == 0)
    if et == 0x86dd:
        plen = struct.unpack_from('!H', fr, 18)[0]
        return G.l4_checksum(True, fr[22:38], fr[38:54], 58, fr[54:54 + plen]) == 0
    return et == 0x0806


def port_macs(res):
    """{port: MAC} from the log's 'respond: port P answers from its MAC M'."""
    out = {}
    for m in re.finditer(r'respond: port (\d+) answers from its MAC ([0-9A-Fa-f:]{17})',
                         res.stdout + res.stderr):
        out[int(m.group(1))] = bytes.fromhex(m.group(2).replace(':', ''))
    return out


def totals(s):
    t = collections.Counter()
    for w in s['workers']:
        for k, v in w.items():
            if isinstance(v, int):
                t[k] += v
    return t


def split_replies(F, ctx, files, want):
    """{file: frames that are not replies}; checks the replies in @p files are exactly
    @p want (a list of frames), each valid."""
    rest, got = {}, collections.Counter()
    want_c = collections.Counter(want)
    for p in files:
        frames = rpstest.read_pcap(p).frames
        rest[os.path.basename(p)] = [fr for fr in frames if fr not in want_c]
        for fr in frames:
            if fr in want_c:
                got[fr] += 1
                F.check(checksums_ok(fr), '%s: a reply with a bad checksum: %s' % (
                    ctx, fr[:64].hex()))
    F.check(got == want_c, '%s: %d of %d expected replies on the wire, %d missing' % (
        ctx, sum((got & want_c).values()), len(want), sum((want_c - got).values())))
    return rest


def check_counts(F, ctx, s, n_in, n_arp, n_icmp, n_icmp6, n_tx):
    t = totals(s)
    F.check(s['rx_packets'] == n_in and s['processed'] == n_in and s['tx_packets'] == n_tx,
            '%s: rx %d processed %d tx %d, expected %d %d %d' % (
                ctx, s['rx_packets'], s['processed'], s['tx_packets'], n_in, n_in, n_tx))
    F.check(rpstest.dropped_total(s) == 0, '%s: dropped %s' % (ctx, s['dropped']))
    got = (t['arp_replies'], t['icmp_echo_replies'], t['icmp6_echo_replies'])
    F.check(got == (n_arp, n_icmp, n_icmp6), '%s: arp/icmp/icmp6 replies %s, expected %s' % (
        ctx, got, (n_arp, n_icmp, n_icmp6)))
    refused = sum(v for k, v in t.items() if k.startswith('refused_'))
    F.check(refused == 0, '%s: %d requests refused' % (ctx, refused))
    print('%s: rx %d, tx %d, replies arp %d icmp %d icmp6 %d' % (
        ctx, s['rx_packets'], s['tx_packets'], *got), flush=True)


def main():
    binary = rpstest.binary_from_argv()
    F = rpstest.Failures('test_forward_respond')
    with rpstest.TempDir('fwd_respond') as tmp:
        a_ord = rpstest.gen_traffic.generate_frames(flows=32, packets_per_flow=8, seed=11)
        b_ord = [TF.swapped(f) for f in a_ord]
        a_req, b_req = requests(0, 8, 20, 10), requests(1, 4, 6, 0)
        for fr in a_ord + b_ord:  # the ordinary traffic asks us nothing (its ARP: 198.19/16)
            l3 = rpstest.parse_l3(fr)
            assert l3 is None or l3.proto not in (1, 58), 'generated traffic has ICMP'
        a_in, b_in = mix(a_ord, a_req, 1), mix(b_ord, b_req, 2)
        a_path, b_path = os.path.join(tmp, 'a.pcap'), os.path.join(tmp, 'b.pcap')
        rpstest.write_pcap(a_path, a_in)
        rpstest.write_pcap(b_path, b_in)
        app = ['--map', '0xe', '--exit-when-idle', '200', '--backlog', '4096']
        n_in = len(a_in) + len(b_in)

        # 1. the pair: replies on the port asked, the rest across
        ctx = 'pair + respond'
        res, txa, txb = TF.run(binary, tmp, 'pair', a_path, b_path, app + RESPOND + [
            '--forward', '0:1', '--stages', 'parse,flow,respond,output'], ntx=NTX)
        s = rpstest.check_exit(F, res, ctx, strict=True)
        macs = port_macs(res)
        if s is not None and F.check(len(macs) == 2 and macs[0] != macs[1], '%s: the log '
                                     'names the ports\' MACs %s' % (ctx, macs), res):
            rest_a = split_replies(F, ctx + ', port 0', txa, [reply(r, macs[0]) for r in a_req])
            rest_b = split_replies(F, ctx + ', port 1', txb, [reply(r, macs[1]) for r in b_req])
            F.extend(rpstest.check_outputs(a_ord, rest_b, exact=True), ctx + ', 0 -> 1')
            F.extend(rpstest.check_outputs(b_ord, rest_a, exact=True), ctx + ', 1 -> 0')
            check_counts(F, ctx, s, n_in, 12, 26, 10, n_in)

        # 2. the control: no respond stage, every request crosses the pair as it came
        ctx = 'pair, no respond (control)'
        res, txa, txb = TF.run(binary, tmp, 'ctl', a_path, b_path, app + [
            '--forward', '0:1', '--stages', 'parse,flow,output'], ntx=NTX)
        s = rpstest.check_exit(F, res, ctx, strict=True)
        if s is not None:
            out_a = {os.path.basename(p): rpstest.read_pcap(p).frames for p in txa}
            out_b = {os.path.basename(p): rpstest.read_pcap(p).frames for p in txb}
            F.extend(rpstest.check_outputs(a_in, out_b, exact=True), ctx + ', 0 -> 1')
            F.extend(rpstest.check_outputs(b_in, out_a, exact=True), ctx + ', 1 -> 0')
            check_counts(F, ctx, s, n_in, 0, 0, 0, n_in)

        # 3. two plain RX ports: each answers its own, the rest is consumed
        ctx = 'two --rx-port + respond'
        res, txa, txb = TF.run(binary, tmp, 'rx2', a_path, b_path, app + RESPOND + [
            '--rx-port', '0', '--rx-port', '1', '--stages', 'parse,respond'], ntx=NTX)
        s = rpstest.check_exit(F, res, ctx, strict=True)
        macs = port_macs(res)
        if s is not None and F.check(len(macs) == 2, '%s: the log names the ports\' MACs %s' % (
                ctx, macs), res):
            rest_a = split_replies(F, ctx + ', port 0', txa, [reply(r, macs[0]) for r in a_req])
            rest_b = split_replies(F, ctx + ', port 1', txb, [reply(r, macs[1]) for r in b_req])
            F.check(not any(rest_a.values()) and not any(rest_b.values()), '%s: %d frames '
                    'sent that are no replies' % (ctx, sum(map(len, rest_a.values())) +
                                                  sum(map(len, rest_b.values()))))
            check_counts(F, ctx, s, n_in, 12, 26, 10, len(a_req) + len(b_req))

        # 4. a port without a TX queue per worker
        TF.refused(F, binary, tmp, 'respond, 1 TX queue', app + RESPOND + [
            '--rx-port', '0', '--rx-port', '1', '--stages', 'parse,respond'], 1,
            'answers on every RX port from each worker\'s own TX queue there: it needs 3')
    return F.report()


if __name__ == '__main__':
    sys.exit(main())
