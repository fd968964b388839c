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
5. What adds up (issue 38): the pair with reassemble and respond, port 0 also sending UDP
   datagrams of 4000-11000 bytes in fragments (reassembled, then re-fragmented to port 1's
   1500-byte MTU) and a few unfragmentable DF frames (tx_too_big). The summary's line
   "processed P = forwarded F + consumed C + frags_absorbed A;  tx_packets T = forwarded F -
   tx_fragmented R + tx_fragments N;  answers Q among forwarded" adds up, and each of its
   terms is the JSON's counter (F the ports' forwarded, Q the replies); runs 1-3 check it too
   (consumed in 3). Its drop reasons are those not 0 (tx_too_big alone); with --verbose
   every reason.

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
import test_tx_mtu as TM  # noqa: E402  (its fragmented datagrams)

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


RECONCILE = re.compile(
    r'^  processed (\d+) = forwarded (\d+) \+ consumed (\d+) \+ frags_absorbed (\d+);  '
    r'tx_packets (\d+) = forwarded (\d+) - tx_fragmented (\d+) \+ tx_fragments (\d+);  '
    r'answers (\d+) among forwarded$', re.M)


def check_reconcile(F, ctx, res, s):
    """The summary's line that takes processed and tx_packets apart: its terms add up to
    both, and each is the summary JSON's counter. Returns the JSON's totals."""
    t = totals(s)
    m = RECONCILE.search(res.stdout)
    if not F.check(m is not None, '%s: no "processed = forwarded + ..." line in the summary'
                   % ctx, res):
        return t
    p, f, c, a, tx, f2, r, n, q = map(int, m.groups())
    fwd = sum(v['forwarded'] for v in s['ports'].values())
    answers = sum(t[k] for k in ('arp_replies', 'icmp_echo_replies', 'icmp6_echo_replies',
                                 'nd_replies', 'udp_echo_replies'))
    F.check(p == f + c + a and tx == f2 - r + n and f == f2,
            '%s: the printed terms do not add up: %s' % (ctx, m.group(0).strip()))
    want = (s['processed'], fwd, t['consumed'], t['frags_absorbed'], s['tx_packets'],
            t['tx_fragmented'], t['tx_fragments'], answers)
    F.check((p, f, c, a, tx, r, n, q) == want, '%s: printed %s, the JSON says %s' % (
        ctx, (p, f, c, a, tx, r, n, q), want))
    F.check('WARNING' not in res.stdout, '%s: a warning in the summary' % ctx, res)
    print('%s: %s' % (ctx, m.group(0).strip()), flush=True)
    return t


def printed_reasons(res):
    """The drop reasons the text summary lists under its first line: {reason: count}."""
    return {m.group(1): int(m.group(2))
            for m in re.finditer(r'^    ([a-z_0-9]+) +(\d+)$', res.stdout, re.M)}


def big_frames(rng):
    """Port 0's extra traffic: TM's fragmented datagrams and DF frames above the MTU.
    Returns (frames, datagrams, DF frames)."""
    frames, n = [], 12
    for i in range(n):
        frames += TM.datagram(rng, i)[1]
    eth4 = G.eth_header(b'\x02\0\0\0\0\x02', b'\x02\0\0\0\0\x01', [], 0x0800)
    for i in range(3):
        src, dst = bytes([198, 18, 2, i + 1]), bytes([198, 19, 2, i + 1])
        seg = G.udp_datagram(False, src, dst, 6000 + i, 7000, bytes(3000))
        frames.append(eth4 + G.ipv4_header(src, dst, 17, len(seg), 1, flags_frag=0x4000) +
                      seg)
    return frames, n, 3


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
            check_reconcile(F, ctx, res, s)
            F.check(printed_reasons(res) == {}, '%s: the summary lists drop reasons at 0: %s'
                    % (ctx, printed_reasons(res)))

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
            check_reconcile(F, ctx, res, s)

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
            t = check_reconcile(F, ctx, res, s)
            F.check(t['consumed'] == n_in - len(a_req) - len(b_req), '%s: consumed %d, '
                    'expected %d' % (ctx, t['consumed'], n_in - len(a_req) - len(b_req)))

        # 4. a port without a TX queue per worker
        TF.refused(F, binary, tmp, 'respond, 1 TX queue', app + RESPOND + [
            '--rx-port', '0', '--rx-port', '1', '--stages', 'parse,respond'], 1,
            'answers on every RX port from each worker\'s own TX queue there: it needs 3')

        # 5. fragments absorbed and re-fragmented, answers, drops: the line adds up
        big, n_dgram, n_df = big_frames(random.Random(5))
        c_path = os.path.join(tmp, 'c.pcap')
        rpstest.write_pcap(c_path, mix(a_in, big, 3))
        for verbose in ([], ['--verbose']):
            ctx = 'pair + reassemble + respond%s' % (' --verbose' if verbose else '')
            res, _, _ = TF.run(binary, tmp, 'big', c_path, b_path, app + RESPOND + verbose + [
                '--forward', '0:1', '--stages', 'parse,reassemble,flow,respond,output'],
                ntx=NTX)
            s = rpstest.check_exit(F, res, ctx, strict=True)
            if s is None:
                continue
            t = check_reconcile(F, ctx, res, s)
            # (the generated traffic has fragments of its own, datagrams of both sizes)
            F.check(t['frags_reassembled'] >= n_dgram and t['frags_absorbed'] > 0 and
                    t['tx_fragmented'] >= n_dgram and t['tx_fragments'] > t['tx_fragmented'],
                    '%s: reassembled %d, absorbed %d, re-fragmented %d into %d: the test '
                    'needs %d datagrams reassembled and re-fragmented' % (
                        ctx, t['frags_reassembled'], t['frags_absorbed'], t['tx_fragmented'],
                        t['tx_fragments'], n_dgram))
            F.check(s['dropped']['tx_too_big'] == n_df and rpstest.dropped_total(s) == n_df,
                    '%s: dropped %s, expected tx_too_big %d alone' % (ctx, {
                        k: v for k, v in s['dropped'].items() if v}, n_df))
            want = dict(s['dropped']) if verbose else {'tx_too_big': n_df}
            F.check(printed_reasons(res) == want, '%s: the summary lists the drop reasons %s, '
                    'expected %s' % (ctx, printed_reasons(res), want))
    return F.report()


if __name__ == '__main__':
    sys.exit(main())
