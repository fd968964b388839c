#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""gen_traffic.py: deterministic test traffic for dpdk-rps, written as a classic pcap file.

The capture is a seeded mix of IPv4/IPv6 x TCP/UDP flows (some 802.1Q-tagged, some QinQ,
a few IPv4 flows with IP options, a few IPv6 flows with a hop-by-hop or destination-options
header), UDP datagrams cut into 2-3 IP fragments, and ARP frames. Addresses come only from
the benchmarking ranges 198.18.0.0/15 and 2001:db8::/32. Every non-fragmented TCP/UDP packet
starts its L4 payload with a 12-byte marker b'RPS1' + flow id (u32 BE) + the packet's
sequence number within its flow (u32 BE, from 0), so a checker can tell which flow a packet
belongs to and whether a flow's packets stayed in order. All IPv4 header, TCP and UDP
checksums are valid. Packets of different flows are interleaved by a seeded shuffle that
keeps each flow's own order. The same arguments always give the same bytes.

Command line: gen_traffic.py -o OUT.pcap [--flows N] [--packets-per-flow K] [--seed S] ...
As a module: generate_packets() (frames with what they are), generate_frames() (bytes only)
and write_pcap().
"""

import argparse
import random
import struct
import sys
from dataclasses import dataclass

MARKER_MAGIC = b'RPS1'
MARKER_LEN = 12
FRAG_MAGIC = b'FRAG'           # start of the UDP payload of a fragmented datagram
MIN_FRAME = 60                 # Ethernet minimum without FCS

ETH_P_IPV4 = 0x0800
ETH_P_IPV6 = 0x86DD
ETH_P_ARP = 0x0806
ETH_P_8021Q = 0x8100
ETH_P_8021AD = 0x88A8

IPPROTO_HOPOPTS = 0
IPPROTO_TCP = 6
IPPROTO_UDP = 17
IPPROTO_FRAGMENT = 44
IPPROTO_DSTOPTS = 60

PCAP_MAGIC_USEC = 0xA1B2C3D4
LINKTYPE_ETHERNET = 1
PCAP_SNAPLEN = 262144
TS_START = 1_700_000_000       # fixed, so the file is byte-for-byte reproducible


@dataclass
class Packet:
    """One generated frame and what it is."""
    frame: bytes
    kind: str          # 'flow', 'frag' or 'arp'
    flow: int          # flow id (kind 'flow'), datagram id ('frag'), frame index ('arp')
    seq: int           # sequence within the flow / fragment index / 0


@dataclass
class _Flow:
    fid: int
    v6: bool
    proto: int
    src: bytes
    dst: bytes
    sport: int
    dport: int
    tags: list          # [(tpid, tci), ...] outermost first
    smac: bytes
    dmac: bytes
    ip_options: bytes   # IPv4 only
    ext: tuple          # IPv6 only: (next-header type of the extension, bytes) or None
    tcp_seq: int
    ip_id: int


# --------------------------------------------------------------------------- checksums

def inet_checksum(data: bytes) -> int:
    """RFC 1071 ones'-complement sum, returned complemented (ready to store).

    The data as one big-endian integer is the sum of its 16-bit words times powers of
    0x10000, and 0x10000 = 1 mod 0xFFFF: it has the words' sum modulo 0xFFFF, which the
    end-around carry folds to, except that a non-zero sum folds to 0xFFFF, not 0."""
    if len(data) % 2:
        data += b'\0'
    x = int.from_bytes(data, 'big')
    s = x % 0xFFFF
    if s == 0 and x:
        s = 0xFFFF
    return (~s) & 0xFFFF


def _pseudo_header(v6: bool, src: bytes, dst: bytes, proto: int, length: int) -> bytes:
    if v6:
        return src + dst + struct.pack('!IxxxB', length, proto)
    return src + dst + struct.pack('!xBH', proto, length)


def l4_checksum(v6: bool, src: bytes, dst: bytes, proto: int, segment: bytes) -> int:
    """TCP/UDP checksum of a segment whose checksum field is zero."""
    c = inet_checksum(_pseudo_header(v6, src, dst, proto, len(segment)) + segment)
    if proto == IPPROTO_UDP and c == 0:
        c = 0xFFFF
    return c


# --------------------------------------------------------------------------- headers

def eth_header(dmac: bytes, smac: bytes, tags, ethertype: int) -> bytes:
    """Ethernet header with VLAN tags [(tpid, tci), ...] (outermost first)."""
    h = dmac + smac
    for tpid, tci in tags:
        h += struct.pack('!HH', tpid, tci)
    return h + struct.pack('!H', ethertype)


def ipv4_header(src: bytes, dst: bytes, proto: int, payload_len: int, ident: int,
                options: bytes = b'', flags_frag: int = 0, ttl: int = 64) -> bytes:
    assert len(options) % 4 == 0 and len(options) <= 40
    ihl = 5 + len(options) // 4
    total = ihl * 4 + payload_len
    h = struct.pack('!BBHHHBBH4s4s', 0x40 | ihl, 0, total, ident & 0xFFFF, flags_frag,
                    ttl, proto, 0, src, dst) + options
    return h[:10] + struct.pack('!H', inet_checksum(h)) + h[12:]


def ipv6_header(src: bytes, dst: bytes, next_header: int, payload_len: int,
                flow_label: int = 0, hop_limit: int = 64) -> bytes:
    return struct.pack('!IHBB16s16s', (6 << 28) | (flow_label & 0xFFFFF), payload_len,
                       next_header, hop_limit, src, dst)


def tcp_segment(v6, src, dst, sport, dport, seq, ack, payload, flags=0x18) -> bytes:
    h = struct.pack('!HHIIBBHHH', sport, dport, seq & 0xFFFFFFFF, ack & 0xFFFFFFFF,
                    5 << 4, flags, 65535, 0, 0)
    c = l4_checksum(v6, src, dst, IPPROTO_TCP, h + payload)
    return h[:16] + struct.pack('!H', c) + h[18:] + payload


def udp_datagram(v6, src, dst, sport, dport, payload) -> bytes:
    h = struct.pack('!HHHH', sport, dport, 8 + len(payload), 0)
    c = l4_checksum(v6, src, dst, IPPROTO_UDP, h + payload)
    return h[:6] + struct.pack('!H', c) + payload


def marker(flow_id: int, seq: int) -> bytes:
    return MARKER_MAGIC + struct.pack('!II', flow_id, seq)


# --------------------------------------------------------------------------- flows

def _v4_addr(rng, second_octet: int) -> bytes:
    return bytes([198, second_octet, rng.randrange(256), rng.randrange(1, 255)])


def _v6_addr(rng) -> bytes:
    return b'\x20\x01\x0d\xb8' + bytes(rng.randrange(256) for _ in range(12))


def _mac(rng) -> bytes:
    return bytes([0x02]) + bytes(rng.randrange(256) for _ in range(5))


def _tags(rng, vlan_share: float, qinq_share: float):
    r = rng.random()
    if r < qinq_share:
        return [(ETH_P_8021AD, rng.randrange(1, 4095)), (ETH_P_8021Q, rng.randrange(1, 4095))]
    if r < qinq_share + vlan_share:
        return [(ETH_P_8021Q, (rng.randrange(8) << 13) | rng.randrange(1, 4095))]
    return []


def _ip_options(rng) -> bytes:
    """Router Alert (RFC 2113) and/or NOP padding, a multiple of 4 bytes."""
    kind = rng.randrange(3)
    if kind == 0:
        return b'\x94\x04\x00\x00'
    if kind == 1:
        return b'\x01\x01\x01\x00'                      # NOP NOP NOP EOL
    return b'\x94\x04\x00\x00' + b'\x01' * 7 + b'\x00'  # RA + NOPs + EOL: 12 bytes


def _v6_ext(rng, nh: int):
    """A hop-by-hop (0) or destination-options (60) header carrying PadN, 8 or 16 bytes."""
    typ = IPPROTO_HOPOPTS if rng.random() < 0.5 else IPPROTO_DSTOPTS
    units = rng.randrange(2)                     # Hdr Ext Len: 8 * (units + 1) bytes
    total = 8 * (units + 1)
    padn = bytes([1, total - 4]) + bytes(total - 4)   # one PadN option filling the rest
    return typ, bytes([nh, units]) + padn


def _make_flows(rng, n, ipv6_share, vlan_share, qinq_share):
    flows, seen = [], set()
    for fid in range(n):
        v6 = rng.random() < ipv6_share
        proto = IPPROTO_TCP if rng.random() < 0.5 else IPPROTO_UDP
        while True:
            if v6:
                src, dst = _v6_addr(rng), _v6_addr(rng)
            else:
                src, dst = _v4_addr(rng, 18), _v4_addr(rng, 19)
            sport = rng.randrange(1024, 65536)
            # high ports that no common dissector claims, so tshark shows the payload as data
            dport = rng.choice((5201, 9000, 12345, 40000, rng.randrange(20000, 65536)))
            if (src, dst, sport, dport) not in seen:
                seen.add((src, dst, sport, dport))
                break
        flows.append(_Flow(fid=fid, v6=v6, proto=proto, src=src, dst=dst, sport=sport,
                           dport=dport, tags=_tags(rng, vlan_share, qinq_share),
                           smac=_mac(rng), dmac=_mac(rng), ip_options=b'', ext=None,
                           tcp_seq=rng.randrange(1 << 32), ip_id=rng.randrange(1 << 16)))
    # "a few" flows with IPv4 options / IPv6 extension headers: about 6 %, at least 2 each
    # when there are flows of that family.
    for v6 in (False, True):
        fam = [f for f in flows if f.v6 == v6]
        chosen = [f for f in fam if rng.random() < 0.06]
        for f in fam:
            if len(chosen) >= min(2, len(fam)):
                break
            if f not in chosen:
                chosen.append(f)
        for f in chosen:
            if v6:
                f.ext = _v6_ext(rng, f.proto)
            else:
                f.ip_options = _ip_options(rng)
    return flows


# 0..255 repeated past the longest filler (a 9600-byte frame) plus the largest start
_RAMP = bytes(range(256)) * 40


def _flow_packet(f: _Flow, seq: int, payload_len: int) -> bytes:
    # the filler: bytes (fid * 7 + seq * 13 + i) & 0xFF, a slice of a repeated 0..255 ramp
    start = (f.fid * 7 + seq * 13) & 0xFF
    payload = marker(f.fid, seq) + _RAMP[start:start + payload_len - MARKER_LEN]
    assert len(payload) == payload_len
    if f.proto == IPPROTO_TCP:
        l4 = tcp_segment(f.v6, f.src, f.dst, f.sport, f.dport, f.tcp_seq, 1, payload)
        f.tcp_seq = (f.tcp_seq + len(payload)) & 0xFFFFFFFF
    else:
        l4 = udp_datagram(f.v6, f.src, f.dst, f.sport, f.dport, payload)
    if f.v6:
        if f.ext:
            typ, ext = f.ext
            l3 = ipv6_header(f.src, f.dst, typ, len(ext) + len(l4), flow_label=f.fid) + ext
        else:
            l3 = ipv6_header(f.src, f.dst, f.proto, len(l4), flow_label=f.fid)
        etype = ETH_P_IPV6
    else:
        flags = 0x4000 if f.proto == IPPROTO_TCP else 0    # DF on TCP
        l3 = ipv4_header(f.src, f.dst, f.proto, len(l4), f.ip_id, f.ip_options, flags)
        f.ip_id = (f.ip_id + 1) & 0xFFFF
        etype = ETH_P_IPV4
    return eth_header(f.dmac, f.smac, f.tags, etype) + l3 + l4


def _flow_overhead(f: _Flow) -> int:
    """Bytes of a flow packet before its L4 payload."""
    n = 14 + 4 * len(f.tags)
    n += (40 + (len(f.ext[1]) if f.ext else 0)) if f.v6 else 20 + len(f.ip_options)
    return n + (20 if f.proto == IPPROTO_TCP else 8)


def _fragments(rng, did: int, v6: bool, vlan_share: float, qinq_share: float):
    """A UDP datagram of one datagram id cut into 2 or 3 IP fragments."""
    if v6:
        src, dst = _v6_addr(rng), _v6_addr(rng)
    else:
        src, dst = _v4_addr(rng, 18), _v4_addr(rng, 19)
    tags = _tags(rng, vlan_share, qinq_share)
    smac, dmac = _mac(rng), _mac(rng)
    nfrag = rng.choice((2, 3))
    piece = 8 * rng.randrange(40, 120)              # 320..952 bytes per non-last fragment
    last = rng.randrange(16, piece)
    body = FRAG_MAGIC + struct.pack('!I', did)
    body += bytes((did * 31 + i) & 0xFF for i in range(piece * (nfrag - 1) + last - 8 - len(body)))
    dgram = udp_datagram(v6, src, dst, rng.randrange(1024, 65536),
                         rng.choice((9999, 12000, 33434)), body)
    ident = rng.randrange(1, 1 << 16) if not v6 else rng.randrange(1, 1 << 32)
    frames = []
    for i in range(nfrag):
        chunk = dgram[i * piece:(i + 1) * piece] if i < nfrag - 1 else dgram[i * piece:]
        more = i < nfrag - 1
        off8 = i * piece // 8
        if v6:
            fh = struct.pack('!BBHI', IPPROTO_UDP, 0, (off8 << 3) | int(more), ident)
            l3 = ipv6_header(src, dst, IPPROTO_FRAGMENT, len(fh) + len(chunk)) + fh
            etype = ETH_P_IPV6
        else:
            l3 = ipv4_header(src, dst, IPPROTO_UDP, len(chunk), ident,
                             flags_frag=(0x2000 if more else 0) | off8)
            etype = ETH_P_IPV4
        frames.append(eth_header(dmac, smac, tags, etype) + l3 + chunk)
    return frames


def _arp(rng, i: int, vlan_share: float) -> bytes:
    smac = _mac(rng)
    sip, tip = _v4_addr(rng, 18), _v4_addr(rng, 19)
    op = 1 + (i % 2)
    tha = b'\0' * 6 if op == 1 else _mac(rng)
    dmac = b'\xff' * 6 if op == 1 else tha
    body = struct.pack('!HHBBH', 1, ETH_P_IPV4, 6, 4, op) + smac + sip + tha + tip
    tags = [(ETH_P_8021Q, rng.randrange(1, 4095))] if rng.random() < vlan_share else []
    return eth_header(dmac, smac, tags, ETH_P_ARP) + body


def _pad(frame: bytes) -> bytes:
    return frame + bytes(MIN_FRAME - len(frame)) if len(frame) < MIN_FRAME else frame


# --------------------------------------------------------------------------- tunnels

VXLAN_PORT = 4789
GENEVE_PORT = 6081
GTPU_PORT = 2152
IPPROTO_IPIP = 4
IPPROTO_IPV6 = 41
IPPROTO_GRE = 47
ETH_P_TEB = 0x6558             # transparent Ethernet bridging (GRE, NVGRE, GENEVE)


def vxlan_header(vni: int) -> bytes:
    """RFC 7348: flags (I), reserved, VNI, reserved."""
    return struct.pack('!BxxxI', 0x08, (vni & 0xFFFFFF) << 8)


def geneve_header(vni: int, proto: int = ETH_P_TEB, options: bytes = b'') -> bytes:
    """RFC 8926, version 0; options is a multiple of 4 bytes."""
    assert len(options) % 4 == 0 and len(options) <= 252
    return struct.pack('!BBHI', len(options) // 4, 0, proto, (vni & 0xFFFFFF) << 8) + options


def gtpu_header(teid: int, payload_len: int, seq=None) -> bytes:
    """GTPv1-U G-PDU (type 255); with seq, the S flag and the optional word."""
    if seq is None:
        return struct.pack('!BBHI', 0x30, 255, payload_len, teid)
    return struct.pack('!BBHIHBB', 0x32, 255, payload_len + 4, teid, seq & 0xFFFF, 0, 0)


def gre_header(proto: int, key=None, csum=False, seq=None) -> bytes:
    """RFC 2784/2890 version 0: checksum (zero here), key and sequence when given. NVGRE is
    gre_header(ETH_P_TEB, key=VSID << 8)."""
    flags = (0x8000 if csum else 0) | (0x2000 if key is not None else 0) | \
        (0x1000 if seq is not None else 0)
    h = struct.pack('!HH', flags, proto)
    if csum:
        h += bytes(4)
    if key is not None:
        h += struct.pack('!I', key & 0xFFFFFFFF)
    if seq is not None:
        h += struct.pack('!I', seq & 0xFFFFFFFF)
    return h


def encapsulate(inner: bytes, kind: str, outer_src: bytes, outer_dst: bytes,
                sport: int = 49152, ident: int = 0, dport=None) -> bytes:
    """Wrap an Ethernet frame in one tunnel over Ethernet + IPv4 (4-byte addresses) or IPv6
    (16-byte). kind: 'vxlan', 'geneve', 'gtpu' (the inner IP packet), 'gre' (inner IP,
    protocol 0x0800/0x86DD, with key and sequence), 'nvgre' (inner Ethernet), 'ipip'
    (protocol 4 or 41 after the inner IP version). sport: the outer UDP source port (a
    tunnel's flow entropy; keep it fixed for one outer flow). dport: the UDP port (VXLAN's
    may differ). Outer IPv4 and UDP checksums are valid."""
    v6 = len(outer_src) == 16
    etype = struct.unpack_from('!H', inner, 12)[0]
    ip = inner[14:]
    inner_v6 = etype == ETH_P_IPV6
    if kind in ('vxlan', 'geneve', 'gtpu'):
        if kind == 'vxlan':
            payload = vxlan_header(0x123) + inner
        elif kind == 'geneve':
            payload = geneve_header(0x456, ETH_P_TEB, b'\x01\x02\x03\x04' * 2) + inner
        else:
            payload = gtpu_header(0x789, len(ip), seq=ident) + ip
        port = dport or {'vxlan': VXLAN_PORT, 'geneve': GENEVE_PORT, 'gtpu': GTPU_PORT}[kind]
        proto = IPPROTO_UDP
        body = udp_datagram(v6, outer_src, outer_dst, sport, port, payload)
    elif kind == 'gre':
        proto = IPPROTO_GRE
        body = gre_header(ETH_P_IPV6 if inner_v6 else ETH_P_IPV4, key=0x1234, seq=ident) + ip
    elif kind == 'nvgre':
        proto = IPPROTO_GRE
        body = gre_header(ETH_P_TEB, key=0x5678 << 8) + inner
    elif kind == 'ipip':
        proto = IPPROTO_IPV6 if inner_v6 else IPPROTO_IPIP
        body = ip
    else:
        raise ValueError('unknown tunnel kind %r' % kind)
    dmac, smac = b'\x02\0\0\0\0\x02', b'\x02\0\0\0\0\x01'
    if v6:
        return eth_header(dmac, smac, (), ETH_P_IPV6) + \
            ipv6_header(outer_src, outer_dst, proto, len(body)) + body
    return eth_header(dmac, smac, (), ETH_P_IPV4) + \
        ipv4_header(outer_src, outer_dst, proto, len(body), ident) + body


# --------------------------------------------------------------------------- API

def generate_packets(flows=256, packets_per_flow=8, seed=1, frag_datagrams=8, non_ip=16,
                     vlan_share=0.1, qinq_share=0.05, ipv6_share=0.4, size=None):
    """The capture as a list of Packet, in capture order.

    size: length of every flow frame in bytes (grown to what the headers and the marker
    need when smaller); None picks a seeded length per packet between the minimum and 600.
    """
    for name, v in (('flows', flows), ('packets_per_flow', packets_per_flow),
                    ('frag_datagrams', frag_datagrams), ('non_ip', non_ip)):
        if v < 0:
            raise ValueError('%s must be >= 0' % name)
    for name, v in (('vlan_share', vlan_share), ('qinq_share', qinq_share),
                    ('ipv6_share', ipv6_share)):
        if not 0.0 <= v <= 1.0:
            raise ValueError('%s must be within 0..1' % name)
    if vlan_share + qinq_share > 1.0:
        raise ValueError('vlan_share + qinq_share must be <= 1')
    if size is not None and not MIN_FRAME <= size <= 9600:
        raise ValueError('size must be within %d..9600' % MIN_FRAME)
    if flows >= 1 << 32 or packets_per_flow >= 1 << 32:
        raise ValueError('flows and packets_per_flow must fit 32 bits')

    rng = random.Random(seed)
    flow_list = _make_flows(rng, flows, ipv6_share, vlan_share, qinq_share)
    queues = []          # one list of Packet per "stream" (flow, datagram, ARP frame)
    for f in flow_list:
        q = []
        for s in range(packets_per_flow):
            need = _flow_overhead(f) + MARKER_LEN
            if size is not None:
                total = max(size, need)
            else:
                total = max(MIN_FRAME, need + rng.randrange(0, 600 - need))
            frame = _flow_packet(f, s, max(MARKER_LEN, total - _flow_overhead(f)))
            q.append(Packet(frame=frame, kind='flow', flow=f.fid, seq=s))
        queues.append(q)
    for d in range(frag_datagrams):
        frames = _fragments(rng, d, v6=(d % 2 == 1), vlan_share=vlan_share,
                            qinq_share=qinq_share)
        queues.append([Packet(frame=_pad(fr), kind='frag', flow=d, seq=i)
                       for i, fr in enumerate(frames)])
    for i in range(non_ip):
        queues.append([Packet(frame=_pad(_arp(rng, i, vlan_share)), kind='arp', flow=i,
                              seq=0)])

    # Seeded interleaving that keeps every stream's own order.
    order = [qi for qi, q in enumerate(queues) for _ in q]
    rng.shuffle(order)
    pos = [0] * len(queues)
    out = []
    for qi in order:
        out.append(queues[qi][pos[qi]])
        pos[qi] += 1
    return out


def generate_frames(**kwargs):
    """The capture as a list of frames (bytes); same arguments as generate_packets()."""
    return [p.frame for p in generate_packets(**kwargs)]


def write_pcap(path, frames, ts_start=TS_START, ts_step_us=10, snaplen=PCAP_SNAPLEN):
    """Write frames as a classic little-endian microsecond pcap (linktype 1)."""
    with open(path, 'wb') as f:
        f.write(struct.pack('<IHHiIII', PCAP_MAGIC_USEC, 2, 4, 0, 0, snaplen,
                            LINKTYPE_ETHERNET))
        for i, fr in enumerate(frames):
            us = i * ts_step_us
            f.write(struct.pack('<IIII', ts_start + us // 1_000_000, us % 1_000_000,
                                len(fr), len(fr)))
            f.write(fr)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('-o', '--output', required=True, help='pcap file to write')
    ap.add_argument('--flows', type=int, default=256, help='TCP/UDP flows (default 256)')
    ap.add_argument('--packets-per-flow', type=int, default=8, help='default 8')
    ap.add_argument('--seed', type=int, default=1, help='random seed (default 1)')
    ap.add_argument('--frag-datagrams', type=int, default=8,
                    help='UDP datagrams sent as 2-3 IP fragments, IPv4 and IPv6 (default 8)')
    ap.add_argument('--non-ip', type=int, default=16, help='ARP frames (default 16)')
    ap.add_argument('--vlan-share', type=float, default=0.1,
                    help='share of flows with one 802.1Q tag (default 0.1)')
    ap.add_argument('--qinq-share', type=float, default=0.05,
                    help='share of flows with 802.1ad + 802.1Q tags (default 0.05)')
    ap.add_argument('--ipv6-share', type=float, default=0.4,
                    help='share of IPv6 flows (default 0.4)')
    ap.add_argument('--size', type=int, default=None,
                    help='length of every flow frame in bytes (default: varied)')
    ap.add_argument('-q', '--quiet', action='store_true', help='print nothing')
    a = ap.parse_args(argv)
    try:
        pkts = generate_packets(flows=a.flows, packets_per_flow=a.packets_per_flow,
                                seed=a.seed, frag_datagrams=a.frag_datagrams,
                                non_ip=a.non_ip, vlan_share=a.vlan_share,
                                qinq_share=a.qinq_share, ipv6_share=a.ipv6_share,
                                size=a.size)
    except ValueError as e:
        ap.error(str(e))
    write_pcap(a.output, [p.frame for p in pkts])
    if not a.quiet:
        print('%s: %d packets (%d flow, %d fragments, %d ARP)' % (
            a.output, len(pkts), sum(p.kind == 'flow' for p in pkts),
            sum(p.kind == 'frag' for p in pkts), sum(p.kind == 'arp' for p in pkts)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
