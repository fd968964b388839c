#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_tx_mtu.py: what leaves the TX port is sendable.

The reassemble stage turns fragments into one datagram, which may be far above the TX port's
MTU (8 fragments of 1514 bytes make an 11,874-byte frame). The output stage must re-fragment
it to the port's MTU (net_pcap's: 1500), and drop what cannot be fragmented as tx_too_big.

Input: 40 UDP datagrams of 4000-11000 bytes (IPv4 and IPv6, some behind a VLAN tag), each cut
into fragments of at most 1500 bytes of IP, plus 5 IPv4 frames of 3000 bytes with DF set
(unfragmentable, what a jumbo-frame sender would pass) and 20 small packets.
Checks: every output frame's IP packet is at most 1500 bytes; each datagram reassembled (here,
in Python) from the output fragments is byte-identical to the original (addresses, ports,
payload); the 5 DF frames are dropped as tx_too_big and nothing else is dropped;
tx_packets counts frames, processed counts input packets, rx == processed + dropped; every mbuf (indirect ones included) back at exit.

usage: test_tx_mtu.py PATH/TO/dpdk-rps
"""
import os
import random
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rpstest  # noqa: E402

gt = rpstest.gen_traffic
MTU = 1500
DATAGRAMS = 40
DF_FRAMES = 5
SMALL = 20


def datagram(rng, i):
    v6 = i % 2 == 1
    tags = [(0x8100, 100)] if i % 4 == 0 else []
    if v6:
        src = bytes.fromhex('20010db8000000000000000000000001')[:14] + bytes([i, 1])
        dst = bytes.fromhex('20010db8000000000000000000000002')[:14] + bytes([i, 2])
    else:
        src, dst = bytes([198, 18, 1, i + 1]), bytes([198, 19, 1, i + 1])
    body = bytes(rng.randrange(256) for _ in range(rng.randrange(4000, 11000)))
    dgram = gt.udp_datagram(v6, src, dst, 5000 + i, 7000, body)
    eth = gt.eth_header(b'\x02\0\0\0\0\x02', b'\x02\0\0\0\0\x01', tags,
                        0x86DD if v6 else 0x0800)
    piece = (MTU - (48 if v6 else 20)) // 8 * 8
    frames = []
    for k in range(0, len(dgram), piece):
        chunk, more = dgram[k:k + piece], k + piece < len(dgram)
        if v6:
            fh = struct.pack('!BBHI', 17, 0, (k // 8) << 3 | int(more), 1000 + i)
            l3 = gt.ipv6_header(src, dst, 44, len(fh) + len(chunk)) + fh
        else:
            l3 = gt.ipv4_header(src, dst, 17, len(chunk), 1000 + i,
                                flags_frag=(0x2000 if more else 0) | k // 8)
        frames.append(eth + l3 + chunk)
    return (v6, src, dst, 5000 + i, dgram), frames


def parse_out(frame):
    """(v6, src, dst, ident, offset, more, l3_len, payload) of an output IP frame."""
    off, et = 12, struct.unpack('!H', frame[12:14])[0]
    while et == 0x8100:
        off += 4
        et = struct.unpack('!H', frame[off:off + 2])[0]
    off += 2
    if et == 0x0800:
        ihl = (frame[off] & 15) * 4
        total, ident, ff = struct.unpack('!HHH', frame[off + 2:off + 8])
        return (False, frame[off + 12:off + 16], frame[off + 16:off + 20], ident,
                (ff & 0x1fff) * 8, bool(ff & 0x2000), total, frame[off + ihl:off + total],
                bool(ff & 0x4000))
    assert et == 0x86DD, hex(et)
    plen, nh = struct.unpack('!HB', frame[off + 4:off + 7])
    src, dst = frame[off + 8:off + 24], frame[off + 24:off + 40]
    if nh != 44:
        return (True, src, dst, None, 0, False, 40 + plen, frame[off + 40:off + 40 + plen],
                False)
    fo, ident = struct.unpack('!HI', frame[off + 42:off + 48])
    return (True, src, dst, ident, (fo >> 3) * 8, bool(fo & 1), 40 + plen,
            frame[off + 48:off + 40 + plen], False)


def main():
    binary = rpstest.binary_from_argv()
    F = rpstest.Failures('test_tx_mtu')
    rng = random.Random(5)
    originals, frames = [], []
    for i in range(DATAGRAMS):
        o, fr = datagram(rng, i)
        originals.append(o)
        frames += fr
    eth4 = gt.eth_header(b'\x02\0\0\0\0\x02', b'\x02\0\0\0\0\x01', [], 0x0800)
    for i in range(DF_FRAMES):
        src, dst = bytes([198, 18, 2, i + 1]), bytes([198, 19, 2, i + 1])
        seg = gt.udp_datagram(False, src, dst, 6000 + i, 7000, bytes(3000))
        frames.append(eth4 + gt.ipv4_header(src, dst, 17, len(seg), 1, flags_frag=0x4000) +
                      seg)
    for i in range(SMALL):
        src, dst = bytes([198, 18, 3, i + 1]), bytes([198, 19, 3, i + 1])
        seg = gt.udp_datagram(False, src, dst, 8000 + i, 7000, bytes(100))
        frames.append(eth4 + gt.ipv4_header(src, dst, 17, len(seg), 1) + seg)
    with rpstest.TempDir('txmtu') as tmp:
        inp = os.path.join(tmp, 'in.pcap')
        rpstest.write_pcap(inp, frames)
        res, tx = rpstest.run_pcap(binary, tmp, inp, 2,
                                   ['--map', '0x6', '--tx-port', '0', '--exit-when-idle', '500',
                                    '--backlog', '4096', '--hash-seed', '3'],
                                   lcores='0@0,(1-2)@1', timeout=60, tag='mtu')
        s = rpstest.check_exit(F, res, 'mtu')
        if s is None:
            return F.report()
        d = s['dropped']
        print('rx %d processed %d tx_packets %d dropped %s' % (
            s['rx_packets'], s['processed'], s['tx_packets'],
            {k: v for k, v in d.items() if v}), flush=True)
        F.check(d.get('tx_too_big') == DF_FRAMES, 'tx_too_big %s, expected %d (the DF frames)'
                % (d.get('tx_too_big'), DF_FRAMES))
        F.check(rpstest.dropped_total(s) == DF_FRAMES, 'dropped %s' % d)
        # every input packet counts once: absorbed fragments when their datagram completes
        F.check(s['processed'] == len(frames) - DF_FRAMES, 'processed %d, expected %d' % (
            s['processed'], len(frames) - DF_FRAMES))
        done = sum(w.get('frags_reassembled', 0) for w in s['workers'])
        F.check(done == DATAGRAMS, 'frags_reassembled %d, expected %d: the test needs the '
                'datagrams reassembled (then above the MTU)' % (done, DATAGRAMS))
        out = [f for p in tx for f in rpstest.read_pcap(p).frames]
        F.check(s['tx_packets'] == len(out), 'tx_packets %d, %d frames in the TX files' % (
            s['tx_packets'], len(out)))
        big = [len(f) for f in out if parse_out(f)[6] > MTU]
        F.check(not big, '%d output frames above the MTU, e.g. %s bytes' % (
            len(big), big[:3]))
        # reassemble the output fragments here, compare with the originals
        parts = {}
        for f in out:
            v6, src, dst, ident, off, more, _, pl, _ = parse_out(f)
            if ident is None or (not more and off == 0):
                continue
            parts.setdefault((v6, src, dst, ident), []).append((off, more, pl))
        rebuilt = {}
        for key, ps in parts.items():
            ps.sort()
            data, ok = b'', True
            for off, _, pl in ps:
                ok &= off == len(data)
                data += pl
            ok &= not ps[-1][1]
            rebuilt[(key[0], key[1], key[2])] = data if ok else None
        bad = 0
        for v6, src, dst, sport, dgram in originals:
            got = rebuilt.get((v6, src, dst))
            if got is None or got[8:] != dgram[8:] or got[:4] != dgram[:4]:
                bad += 1
        F.check(bad == 0, '%d of %d datagrams not byte-identical after re-fragmentation' % (
            bad, DATAGRAMS))
        F.check(s['mempool']['in_use_at_exit'] == 0, 'mbufs left: %s' % s['mempool'])
    return F.report()


if __name__ == '__main__':
    sys.exit(main())
