#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_checker.py: self-test of the generator and of rpstest's checks, without dpdk-rps.

The other integration tests trust rpstest to notice a broken run, so this one feeds it runs
that are right and runs that are wrong on purpose (a packet moved to another worker's file,
two packets of a flow swapped, a packet lost, a foreign packet) and expects it to tell them
apart. It also checks what the generator promises: determinism, address ranges, checksums,
markers, fragments, tags, minimum size. Takes no arguments (an argument is ignored).
"""

import collections
import os
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rpstest  # noqa: E402
from rpstest import gen_traffic as gt  # noqa: E402


def fake_steer(frames, nworkers, seed=7):
    """Split frames over files the way a correct RPS would: by a hash of the key."""
    import zlib
    out = {'w%d' % i: [] for i in range(nworkers)}
    for fr in frames:
        k = rpstest.steering_key(fr)
        w = 0 if k is None else (zlib.crc32(k, seed) * nworkers) >> 32
        out['w%d' % w].append(fr)
    return out


def check_generator(F, tmp):
    kw = dict(flows=120, packets_per_flow=6, seed=3, frag_datagrams=10, non_ip=9)
    pkts = gt.generate_packets(**kw)
    frames = [p.frame for p in pkts]
    F.check(frames == gt.generate_frames(**kw), 'generator is not deterministic')
    F.check(frames != gt.generate_frames(**dict(kw, seed=4)), 'seed has no effect')
    F.check(len(frames) == 120 * 6 + sum(p.kind == 'frag' for p in pkts) + 9,
            'unexpected packet count %d' % len(frames))
    nfrag = collections.Counter(p.flow for p in pkts if p.kind == 'frag')
    F.check(len(nfrag) == 10 and all(2 <= n <= 3 for n in nfrag.values()),
            'fragment datagrams: %s' % dict(nfrag))
    F.check(all(len(f) >= 60 for f in frames), 'a frame is shorter than 60 bytes')

    # per-flow order kept, interleaved
    seqs = collections.defaultdict(list)
    for p in pkts:
        seqs[(p.kind, p.flow)].append(p.seq)
    F.check(all(s == sorted(s) for s in seqs.values()), 'a flow is out of order')
    F.check([p.flow for p in pkts if p.kind == 'flow'][:6] != [0] * 6,
            'flows are not interleaved')

    feats = collections.Counter()
    for p in pkts:
        fr = p.frame
        l3 = rpstest.parse_l3(fr)
        if p.kind == 'arp':
            k = rpstest.steering_key(fr)
            F.check(l3 is None and k is not None and k[0] == 0 and k[1:] == rpstest.l2_key(fr),
                    'ARP frame has an IP key or no layer-2 key')
            et = struct.unpack_from('!H', fr, 12)[0]
            feats['arp_vlan' if et == 0x8100 else 'arp'] += 1
            continue
        F.check(l3 is not None, 'IP frame without a key: %s' % fr.hex())
        if l3 is None:
            continue
        off = l3.l2_len
        tags = (off - 14) // 4
        feats['tags%d' % tags] += 1
        if tags == 2:
            F.check(fr[12:14] == b'\x88\xa8' and fr[16:18] == b'\x81\x00', 'QinQ TPIDs')
        if l3.family == 4:
            F.check(l3.src[:2] in (b'\xc6\x12', b'\xc6\x13') and
                    l3.dst[:2] in (b'\xc6\x12', b'\xc6\x13'), 'IPv4 address out of range')
            F.check(gt.inet_checksum(fr[off:off + l3.l3_len]) == 0, 'bad IPv4 checksum')
            if l3.l3_len > 20:
                feats['ip_options'] += 1
        else:
            F.check(l3.src[:4] == b'\x20\x01\x0d\xb8' and l3.dst[:4] == b'\x20\x01\x0d\xb8',
                    'IPv6 address out of range')
            nh = fr[off + 6]
            if nh in (0, 60):
                feats['v6ext%d' % nh] += 1
        feats['v%d' % l3.family] += 1
        if p.kind == 'frag':
            F.check(l3.is_frag and rpstest.marker(fr) is None, 'fragment misparsed')
            feats['frag%d' % l3.family] += 1
            continue
        F.check(not l3.is_frag, 'flow packet is a fragment')
        F.check(rpstest.marker(fr) == (p.flow, p.seq), 'marker %s != %s' % (
            rpstest.marker(fr), (p.flow, p.seq)))
        seg = fr[off + l3.l3_len:]
        F.check(gt.l4_checksum(l3.family == 6, l3.src, l3.dst, l3.proto, seg) in (0, 0xFFFF)
                and gt.inet_checksum(gt._pseudo_header(l3.family == 6, l3.src, l3.dst,
                                                        l3.proto, len(seg)) + seg) == 0,
                'bad L4 checksum in flow %d' % p.flow)
        feats['tcp' if l3.proto == 6 else 'udp'] += 1
    for need in ('v4', 'v6', 'tcp', 'udp', 'tags1', 'tags2', 'ip_options', 'frag4', 'frag6',
                 'arp'):
        F.check(feats[need] > 0, 'generated capture has no %s packet (%s)' % (need,
                                                                            dict(feats)))
    F.check(feats['v6ext0'] + feats['v6ext60'] > 0, 'no IPv6 extension header')

    # fragments reassemble to a UDP datagram with a valid checksum
    by = collections.defaultdict(list)
    for p in pkts:
        if p.kind == 'frag':
            by[p.flow].append(p.frame)
    for did, frs in by.items():
        l3 = rpstest.parse_l3(frs[0])
        data = b''
        for fr in frs:
            x = rpstest.parse_l3(fr)
            s = x.l2_len + x.l3_len
            if x.family == 4:
                tot = struct.unpack_from('!H', fr, x.l2_len + 2)[0]
                data += fr[s:x.l2_len + tot]
            else:
                plen = struct.unpack_from('!H', fr, x.l2_len + 4)[0]
                data += fr[s:x.l2_len + 40 + plen]
        ok = (struct.unpack_from('!H', data, 4)[0] == len(data) and
              gt.inet_checksum(gt._pseudo_header(l3.family == 6, l3.src, l3.dst, 17,
                                                 len(data)) + data) == 0)
        F.check(ok, 'fragmented datagram %d does not reassemble to a valid UDP datagram'
                % did)

    # --size and the CLI; the pcap round trip
    fixed = gt.generate_frames(flows=20, packets_per_flow=2, frag_datagrams=0, non_ip=0,
                               size=200)
    F.check(all(len(f) == 200 for f in fixed), '--size 200 not honoured')
    path = os.path.join(tmp, 'cli.pcap')
    cli = os.path.join(rpstest.SRC_ROOT, 'tools', 'gen_traffic.py')
    r = subprocess.run([sys.executable, cli, '-o', path, '--flows', '120',
                        '--packets-per-flow', '6', '--seed', '3', '--frag-datagrams', '10',
                        '--non-ip', '9', '-q'], capture_output=True, text=True)
    F.check(r.returncode == 0, 'gen_traffic.py failed: %s' % r.stderr)
    if r.returncode == 0:
        pc = rpstest.read_pcap(path)
        F.check(pc.frames == frames and pc.linktype == 1 and not pc.nsec and pc.endian == '<',
                'CLI output differs from generate_frames() or has the wrong header')
        F.check(all(r.wire_len == len(r.data) for r in pc.records), 'caplen != len')
    r = subprocess.run([sys.executable, cli, '-o', path, '--flows', '-1'],
                       capture_output=True, text=True)
    F.check(r.returncode == 2, 'gen_traffic.py --flows -1 should exit 2, got %d' % r.returncode)
    return frames


def check_reader(F, tmp, frames):
    # big-endian nanosecond file, and a truncated last record
    path = os.path.join(tmp, 'be_ns.pcap')
    with open(path, 'wb') as f:
        f.write(struct.pack('>IHHiIII', 0xA1B23C4D, 2, 4, 0, 0, 100, 1))
        for i, fr in enumerate(frames[:5]):
            f.write(struct.pack('>IIII', 10, 999_999_999 - i, len(fr), len(fr) + 4) + fr)
        f.write(struct.pack('>IIII', 11, 0, 80, 80) + b'x' * 10)
    p = rpstest.read_pcap(path)
    F.check(p.nsec and p.endian == '>' and p.frames == frames[:5] and p.truncated and
            p.records[0].ts_frac == 999_999_999 and p.records[0].wire_len == len(frames[0]) + 4,
            'big-endian nanosecond pcap misread')
    q = rpstest.read_pcap(path, libpcap=True)
    F.check([len(x) for x in q.frames] == [min(100, len(x)) for x in frames[:5]],
            'libpcap view does not cut records to the snaplen')


def check_checks(F, frames):
    good = fake_steer(frames, 3)
    F.check(all(good.values()), 'fake steering left a worker empty')
    F.extend(rpstest.check_outputs(frames, good, exact=True), 'correct split rejected')

    def expect_fail(name, out, exact=True):
        errs = rpstest.check_outputs(frames, out, exact=exact)
        F.check(errs, 'checker accepted a broken run: %s' % name)

    # a packet moved to another file
    bad = {k: list(v) for k, v in good.items()}
    idx = next(i for i, fr in enumerate(bad['w0']) if rpstest.marker(fr))
    bad['w1'].append(bad['w0'].pop(idx))
    expect_fail('packet on the wrong worker', bad)
    expect_fail('packet on the wrong worker (lossy mode)', bad, exact=False)
    # two packets of one flow swapped
    bad = {k: list(v) for k, v in good.items()}
    w = bad['w2']
    first = rpstest.marker(next(fr for fr in w if rpstest.marker(fr)))[0]
    pos = [i for i, fr in enumerate(w) if (rpstest.marker(fr) or (None,))[0] == first]
    w[pos[0]], w[pos[1]] = w[pos[1]], w[pos[0]]
    expect_fail('flow reordered', bad)
    expect_fail('flow reordered (lossy mode)', bad, exact=False)
    # fragments reordered (no markers: caught by the per-key order check)
    bad = {k: list(v) for k, v in good.items()}
    for name, w in bad.items():
        fi = [i for i, fr in enumerate(w) if rpstest.parse_l3(fr) and
              rpstest.parse_l3(fr).is_frag]
        keys = collections.defaultdict(list)
        for i in fi:
            keys[rpstest.steering_key(w[i])].append(i)
        pair = next((v for v in keys.values() if len(v) >= 2), None)
        if pair:
            w[pair[0]], w[pair[1]] = w[pair[1]], w[pair[0]]
            break
    expect_fail('fragments reordered', bad, exact=False)
    # one packet lost: fails exact, passes lossy
    bad = {k: list(v) for k, v in good.items()}
    bad['w1'].pop(3)
    expect_fail('packet lost', bad)
    F.extend(rpstest.check_outputs(frames, bad, exact=False), 'lossy run rejected')
    # a duplicated packet, a foreign packet, a corrupted packet
    bad = {k: list(v) for k, v in good.items()}
    bad['w0'].append(bad['w0'][-1])
    expect_fail('packet duplicated', bad, exact=False)
    bad = {k: list(v) for k, v in good.items()}
    fr = bytearray(bad['w0'][0])
    fr[-1] ^= 0xFF
    bad['w0'][0] = bytes(fr)
    expect_fail('packet corrupted', bad, exact=False)
    # non-IP frames of one station split over two files
    # (every generated ARP frame has its own source MAC, so its own layer-2 key: the input
    # gets a second frame of one station, which the broken run puts in another file)
    w, arp = next((w, fr) for w in sorted(good) for fr in good[w]
                  if rpstest.steering_key(fr)[0] == 0)
    frames.append(arp)
    bad = {k: list(v) for k, v in good.items()}
    bad['w1' if w != 'w1' else 'w0'].append(arp)
    expect_fail('non-IP split', bad, exact=False)
    frames.pop()

    s = {'rx_packets': 10, 'processed': 7, 'tx_packets': 7,
         'dropped': {'backlog_full': 3, 'tx_failed': 0},
         'workers': [{'lcore': 1, 'processed': 3}, {'lcore': 2, 'processed': 4}]}
    F.extend(rpstest.check_accounting(s), 'consistent summary rejected')
    F.check(rpstest.check_accounting(dict(s, processed=8)), 'broken accounting accepted')
    F.check(rpstest.check_accounting({'rx_packets': 1}), 'summary without keys accepted')
    F.extend(rpstest.check_workers_vs_files(s, [1, 2], [3, 4]), 'worker/file match rejected')
    F.check(rpstest.check_workers_vs_files(s, [1, 2], [4, 3]), 'worker/file mismatch accepted')


def main():
    F = rpstest.Failures('test_checker')
    with rpstest.TempDir('checker') as tmp:
        frames = check_generator(F, tmp)
        check_reader(F, tmp, frames)
        check_checks(F, frames)
    return F.report()


if __name__ == '__main__':
    sys.exit(main())
