#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_respond_reflect.py BINARY: the respond stage is not a reflector.

A generated capture mixes legitimate requests (ARP, ICMP echo, ICMPv6 echo, neighbour
solicitations and UDP echo from unicast sources in 198.18.1.0/24 and 2001:db8::1:0/112)
with requests that would make dpdk-rps reflect traffic at someone else: broadcast or
multicast Ethernet sources and link-layer addresses, our own address, loopback, a directed
broadcast of --respond-ip's default /24, multicast, ::1, IPv4-mapped and -compatible
sources, UDP echo from the ports of echo, chargen, DNS, NTP, SSDP, memcached (...), IPv4
source routes and malformed options. Each kind of reflector request comes from sources of
its own (198.18.2-6.x, 2001:db8::2-3:x), so a reply to one is recognisable on the wire.
Through net_pcap (one worker; its replies go to the RX port's TX queue, a tx_pcap file):
1. --respond-rate 0 (no limit): every legitimate request is answered, exactly once, with a
   reply to its source; no reply goes to any other address; each refusal counter holds
   exactly the number of requests of its kind; accounting exact, nothing dropped.
2. --respond-rate 2 --respond-burst 20: the first 20 echoes are answered and at most
   2 per second of the run's duration more (bounds from the summary's own duration, not
   from the machine's speed); the rest count as refused_rate_limit; ARP and ND are not
   limited; the other refusals are the same as in run 1.
"""

import os
import random
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rpstest  # noqa: E402

G = rpstest.gen_traffic
SELF4, SELF6 = bytes([198, 18, 0, 1]), bytes.fromhex('20010db8' + '00' * 11 + '01')
BCAST = b'\xff' * 6
US = b'\x02\x00\x00\x00\x00\xaa'          # the Ethernet destination of unicast requests
ECHO_PORT = 7
N_ARP, N_ICMP, N_ICMP6, N_NS, N_UDP = 20, 100, 50, 10, 30
COPIES = 4                                   # of each reflector request
REFUSALS = ('refused_mac_src', 'refused_src_self', 'refused_src_martian', 'refused_udp_port',
            'refused_source_route', 'refused_ip_options', 'refused_rate_limit')


def v4(a, b, c, d):
    return bytes([a, b, c, d])


def v6(group, n):
    """2001:db8::GROUP:N"""
    return bytes.fromhex('20010db8' + '00' * 8) + struct.pack('!HH', group, n)


def mac(n):
    return bytes([0x02, 0, 0, 0, n >> 8 & 0xff, n & 0xff])


def pad(frame):
    return frame + bytes(60 - len(frame)) if len(frame) < 60 else frame


def icmp4(smac, src, ident, options=b''):
    body = struct.pack('!HH', ident, 1) + bytes(range(32))
    msg = struct.pack('!BBH', 8, 0, 0) + body
    msg = struct.pack('!BBH', 8, 0, G.inet_checksum(msg)) + body
    return pad(G.eth_header(US, smac, [], 0x0800) +
               G.ipv4_header(src, SELF4, 1, len(msg), ident, options) + msg)


def icmp6_msg(src, dst, msg):
    c = G.inet_checksum(src + dst + struct.pack('!IxxxB', len(msg), 58) + msg)
    return msg[:2] + struct.pack('!H', c) + msg[4:]


def echo6(smac, src, ident):
    msg = icmp6_msg(src, SELF6, struct.pack('!BBHHH', 128, 0, 0, ident, 1) + bytes(24))
    return G.eth_header(US, smac, [], 0x86dd) + G.ipv6_header(src, SELF6, 58, len(msg)) + msg


def ns(smac, src, slla):
    dst = bytes.fromhex('ff02' + '00' * 9 + '01ff') + SELF6[13:]
    msg = struct.pack('!BBHI', 135, 0, 0, 0) + SELF6 + bytes([1, 1]) + slla
    msg = icmp6_msg(src, dst, msg)
    return (G.eth_header(b'\x33\x33' + dst[12:], smac, [], 0x86dd) +
            G.ipv6_header(src, dst, 58, len(msg), hop_limit=255) + msg)


def arp(smac, sha, spa):
    body = struct.pack('!HHBBH', 1, 0x0800, 6, 4, 1) + sha + spa + bytes(6) + SELF4
    return pad(G.eth_header(BCAST, smac, [], 0x0806) + body)


def udp4(smac, src, sport):
    seg = G.udp_datagram(False, src, SELF4, sport, ECHO_PORT, b'echo me %5d' % sport)
    return pad(G.eth_header(US, smac, [], 0x0800) + G.ipv4_header(src, SELF4, 17, len(seg), 7) +
               seg)


def udp6(smac, src, sport):
    seg = G.udp_datagram(True, src, SELF6, sport, ECHO_PORT, b'echo me %5d' % sport)
    return G.eth_header(US, smac, [], 0x86dd) + G.ipv6_header(src, SELF6, 17, len(seg)) + seg


def capture():
    """(frames, legitimate sources by reply kind, {refusal: count}, addresses that must
    never receive a reply)"""
    legit = {'arp': set(), 'icmp': set(), 'icmp6': set(), 'nd': set(), 'udp': set()}
    out = []
    for i in range(1, N_ARP + 1):
        src = v4(198, 18, 1, 200 + i % 50)
        out.append(arp(mac(i), mac(i), src))
        legit['arp'].add(src)
    for i in range(1, N_ICMP + 1):
        out.append(icmp4(mac(i), v4(198, 18, 1, i), i))
        legit['icmp'].add(v4(198, 18, 1, i))
    for i in range(1, N_ICMP6 + 1):
        out.append(echo6(mac(i), v6(1, i), i))
        legit['icmp6'].add(v6(1, i))
    for i in range(1, N_NS + 1):
        out.append(ns(mac(i), v6(1, 100 + i), mac(i)))
        legit['nd'].add(v6(1, 100 + i))
    for i in range(1, N_UDP + 1):
        src = v4(198, 18, 1, 150 + i) if i % 2 else v6(1, 150 + i)
        out.append((udp4 if i % 2 else udp6)(mac(i), src, 40000 + i))
        legit['udp'].add(src)
    n_legit = len(out)

    lsrr = b'\x83\x07\x04' + v4(198, 18, 9, 9) + b'\x01'          # loose source route
    ssrr = b'\x89\x07\x04' + v4(198, 18, 9, 9) + b'\x00'          # strict source route
    bad_opt = b'\x07\x09\x04\x00' + bytes(4)                      # RR running past the header
    m1 = b'\x01\x00\x5e\x00\x00\x01'
    m6 = b'\x33\x33\x00\x00\x00\x01'
    reflect = [
        # (refusal, frame maker(copy k), the address a reply would go to)
        ('refused_mac_src', lambda k: icmp4(BCAST, v4(198, 18, 2, k), 1000 + k),
         lambda k: v4(198, 18, 2, k)),
        ('refused_mac_src', lambda k: echo6(m6, v6(2, k), 1000 + k), lambda k: v6(2, k)),
        ('refused_mac_src', lambda k: arp(m1, mac(k), v4(198, 18, 2, 100 + k)),
         lambda k: v4(198, 18, 2, 100 + k)),
        ('refused_mac_src', lambda k: arp(mac(k), BCAST, v4(198, 18, 2, 150 + k)),
         lambda k: v4(198, 18, 2, 150 + k)),
        ('refused_mac_src', lambda k: ns(mac(k), v6(2, 100 + k), m6), lambda k: v6(2, 100 + k)),
        ('refused_mac_src', lambda k: udp4(BCAST, v4(198, 18, 2, 200 + k), 40000),
         lambda k: v4(198, 18, 2, 200 + k)),
        ('refused_src_self', lambda k: icmp4(mac(k), SELF4, 2000 + k), lambda k: SELF4),
        ('refused_src_self', lambda k: echo6(mac(k), SELF6, 2000 + k), lambda k: SELF6),
        ('refused_src_self', lambda k: udp4(mac(k), SELF4, 40000 + k), lambda k: SELF4),
        ('refused_src_martian', lambda k: icmp4(mac(k), v4(127, 0, 0, k), 3000 + k),
         lambda k: v4(127, 0, 0, k)),
        ('refused_src_martian', lambda k: icmp4(mac(k), v4(198, 18, 0, 255), 3100 + k),
         lambda k: v4(198, 18, 0, 255)),
        ('refused_src_martian', lambda k: icmp4(mac(k), v4(198, 18, 0, 0), 3150 + k),
         lambda k: v4(198, 18, 0, 0)),
        ('refused_src_martian', lambda k: icmp4(mac(k), v4(224, 0, 0, k), 3200 + k),
         lambda k: v4(224, 0, 0, k)),
        ('refused_src_martian', lambda k: udp4(mac(k), v4(255, 255, 255, 255), 40000 + k),
         lambda k: v4(255, 255, 255, 255)),
        ('refused_src_martian', lambda k: arp(mac(k), mac(k), v4(127, 0, 0, 100 + k)),
         lambda k: v4(127, 0, 0, 100 + k)),
        ('refused_src_martian', lambda k: echo6(mac(k), bytes(15) + b'\x01', 3300 + k),
         lambda k: bytes(15) + b'\x01'),
        ('refused_src_martian', lambda k: echo6(mac(k), bytes(10) + b'\xff\xff' +
                                                v4(198, 18, 3, k), 3400 + k),
         lambda k: bytes(10) + b'\xff\xff' + v4(198, 18, 3, k)),
        ('refused_src_martian', lambda k: echo6(mac(k), bytes(12) + v4(198, 18, 3, 50 + k),
                                                3500 + k),
         lambda k: bytes(12) + v4(198, 18, 3, 50 + k)),
        ('refused_src_martian', lambda k: ns(mac(k), bytes(15) + b'\x01', mac(k)),
         lambda k: bytes(15) + b'\x01'),
        ('refused_source_route', lambda k: icmp4(mac(k), v4(198, 18, 5, k), 5000 + k, lsrr),
         lambda k: v4(198, 18, 5, k)),
        ('refused_source_route', lambda k: icmp4(mac(k), v4(198, 18, 5, 50 + k), 5100 + k,
                                                 ssrr),
         lambda k: v4(198, 18, 5, 50 + k)),
        ('refused_ip_options', lambda k: icmp4(mac(k), v4(198, 18, 6, k), 6000 + k, bad_opt),
         lambda k: v4(198, 18, 6, k)),
    ]
    for port in (0, 7, 13, 17, 19, 37, 53, 123, 161, 1900, 11211):
        reflect.append(('refused_udp_port',
                        lambda k, p=port: udp4(mac(k), v4(198, 18, 4, k), p),
                        lambda k: v4(198, 18, 4, k)))
        reflect.append(('refused_udp_port',
                        lambda k, p=port: udp6(mac(k), v6(3, k), p), lambda k: v6(3, k)))
    expect = {r: 0 for r in REFUSALS}
    never = set()
    for reason, make, victim in reflect:
        for k in range(1, COPIES + 1):
            out.append(make(k))
            expect[reason] += 1
            never.add(victim(k))
    # legitimate and reflector requests interleaved, the same way every time
    order = list(range(len(out)))
    random.Random(13).shuffle(order)
    frames = [out[i] for i in order]
    print('capture: %d legitimate requests, %d reflector requests' % (
        n_legit, len(out) - n_legit), flush=True)
    return frames, legit, expect, never


def reply_dest(frame):
    """(kind, destination address) of a reply frame, or (None, None)."""
    et = struct.unpack('!H', frame[12:14])[0]
    if et == 0x0806 and len(frame) >= 42 and frame[20:22] == b'\x00\x02':
        return 'arp', frame[38:42]
    if et == 0x0800 and len(frame) >= 34:
        ihl = (frame[14] & 15) * 4
        proto = frame[23]
        if proto == 1 and frame[14 + ihl] == 0:
            return 'icmp', frame[30:34]
        if proto == 17:
            return 'udp', frame[30:34]
    if et == 0x86dd and len(frame) >= 62:
        nh, t = frame[20], frame[54]
        if nh == 58 and t == 129:
            return 'icmp6', frame[38:54]
        if nh == 58 and t == 136:
            return 'nd', frame[38:54]
        if nh == 17:
            return 'udp', frame[38:54]
    return None, None


def totals(s):
    t = {}
    for w in s['workers']:
        for k, v in w.items():
            if isinstance(v, int):
                t[k] = t.get(k, 0) + v
    return t


def run(F, binary, tmp, inp, nframes, tag, rate, burst=None):
    app = ['--stages', 'parse,validate,respond', '--respond-ip', '198.18.0.1',
           '--respond-ip6', '2001:db8::1', '--udp-echo-port', str(ECHO_PORT),
           '--respond-rate', str(rate), '--exit-when-idle', '300']
    if burst is not None:
        app += ['--respond-burst', str(burst)]
    res, tx = rpstest.run_pcap(binary, tmp, inp, 1, app, lcores='0@0,1@1', timeout=60,
                               tag=tag)
    got = rpstest.check_pcap_run(F, res, tx, nframes, tag)
    if got is None:
        return None
    s, outs, _ = got
    replies = outs[os.path.basename(tx[0])]
    return s, totals(s), replies


def check_replies(F, tag, replies, legit, never, limited):
    """Every reply goes to a legitimate source, at most once (exactly once unless limited)."""
    seen = {k: [] for k in legit}
    for fr in replies:
        kind, dst = reply_dest(fr)
        if not F.check(kind is not None, '%s: a frame on the wire is no reply: %s' % (
                tag, fr[:64].hex())):
            continue
        F.check(dst not in never, '%s: %s reply sent to %s, a reflector request\'s source' % (
            tag, kind, dst.hex()))
        F.check(dst in legit[kind], '%s: %s reply to %s, which asked nothing' % (
            tag, kind, dst.hex()))
        seen[kind].append(dst)
    for kind, srcs in legit.items():
        F.check(len(seen[kind]) == len(set(seen[kind])), '%s: duplicate %s replies' % (
            tag, kind))
        if not limited or kind in ('arp', 'nd'):
            F.check(set(seen[kind]) == srcs, '%s: %d of %d %s requests answered' % (
                tag, len(set(seen[kind]) & srcs), len(srcs), kind))
    return {k: len(v) for k, v in seen.items()}


def main():
    binary = rpstest.binary_from_argv()
    F = rpstest.Failures('test_respond_reflect')
    frames, legit, expect, never = capture()
    echoes = len(legit['icmp']) + len(legit['icmp6']) + len(legit['udp'])
    with rpstest.TempDir('reflect') as tmp:
        inp = os.path.join(tmp, 'in.pcap')
        rpstest.write_pcap(inp, frames)

        r = run(F, binary, tmp, inp, len(frames), 'unlimited', 0)
        if r is not None:
            s, t, replies = r
            n = check_replies(F, 'unlimited', replies, legit, never, False)
            print('unlimited: replies %s; refusals %s' % (n, {k: t.get(k) for k in REFUSALS}),
                  flush=True)
            for k in ('arp', 'icmp', 'icmp6', 'nd', 'udp'):
                c = 'nd_replies' if k == 'nd' else '%s_replies' % (
                    k if k == 'arp' else {'icmp': 'icmp_echo', 'icmp6': 'icmp6_echo',
                                          'udp': 'udp_echo'}[k])
                F.check(t.get(c) == len(legit[k]), 'unlimited: %s %s, expected %d' % (
                    c, t.get(c), len(legit[k])))
            for k, v in expect.items():
                F.check(t.get(k) == v, 'unlimited: %s %s, expected %d' % (k, t.get(k), v))
            F.check(s['tx_packets'] == len(replies) == sum(len(v) for v in legit.values()),
                    'unlimited: tx_packets %d, %d frames on the wire' % (
                        s['tx_packets'], len(replies)))

        burst, rate = 20, 2
        r = run(F, binary, tmp, inp, len(frames), 'limited', rate, burst)
        if r is not None:
            s, t, replies = r
            n = check_replies(F, 'limited', replies, legit, never, True)
            answered = n['icmp'] + n['icmp6'] + n['udp']
            most = burst + int(rate * s['duration_s']) + 1
            print('limited: %d of %d echoes answered in %.3f s (at least %d, at most %d); '
                  'refusals %s' % (answered, echoes, s['duration_s'], burst, most,
                                   {k: t.get(k) for k in REFUSALS}), flush=True)
            F.check(burst <= answered <= most, 'limited: %d echoes answered, expected %d..%d'
                    % (answered, burst, most))
            F.check(t.get('refused_rate_limit') == echoes - answered,
                    'limited: refused_rate_limit %s, expected %d' % (
                        t.get('refused_rate_limit'), echoes - answered))
            F.check(t.get('arp_replies') == N_ARP and t.get('nd_replies') == N_NS,
                    'limited: ARP %s / ND %s replies, expected %d / %d (never limited)' % (
                        t.get('arp_replies'), t.get('nd_replies'), N_ARP, N_NS))
            for k, v in expect.items():
                if k != 'refused_rate_limit':
                    F.check(t.get(k) == v, 'limited: %s %s, expected %d' % (k, t.get(k), v))
    return F.report()


if __name__ == '__main__':
    sys.exit(main())
