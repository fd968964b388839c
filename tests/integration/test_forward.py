#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_forward.py: an inline pair (--forward A:B): what arrives on one port leaves on the
other, unchanged, both directions of a connection on one worker.

Two net_pcap ports, each with one TX file per worker (its TX queues). Port 0 replays A, a
generated capture (IPv4/IPv6, TCP/UDP, VLAN and QinQ tags, fragments, ARP and other non-IP
frames); port 1 replays B, the same frames with every address swapped (MACs, IPs, ports)
less every third one: the replies of A's conversations, fewer than their requests, so that
the two directions of a conversation count differently.

1. --forward 0:1, 3 workers: exit 0; rx == processed == tx, nothing dropped; port 1's files
   hold exactly A and port 0's exactly B, byte for byte (L2-transparent: tags, ARP and
   non-IP frames pass, fragments are not reassembled); per flow in order in one file; every
   conversation's two directions went out of the same worker's queue (symmetric steering,
   the default for pairs, as the log says). The flow table (--flows-json) holds one entry
   per conversation, its two directions' packets and bytes those of A and of B (orig: the
   side whose packet the table saw first, either), the totals their sums.
2. The same from the configuration file (forward = 0:1): the same outputs. The control:
   with symmetric = off in the file, replies leave from other workers than their
   conversations' (so check 1 can fail), and the log warns what that breaks.
   Per port (the summary's "ports"): each port's received is its capture's frame count,
   received = processed + dropped (all reasons), and forwarded is what the other port's TX
   files hold; each names the other as "to".
3. Live: /rps/ports (telemetry) while the run is up, once both captures went through, says
   the same per port, and the summary written at the SIGINT that follows agrees with it;
   /rps/info names the pair ("pairs": ["0:1"]) and the symmetric hash it steers by
   ("symmetric": "sort", turned on for the pair).
4. Drops by port: port 1's capture with truncated frames (parse drops them) and a slow worker
   behind a 16-packet backlog (backlog_full, test hooks): each port's drops are its own
   (truncated only on port 1), received = processed + dropped, forwarded = the other
   port's TX files.
5. Timely: with the RX lcore paced (2 ms a packet), each side's packets leave spread over
   the replay (TX timestamps), not in bunches when a queue's buffer fills or at exit.
6. Refused with exit 2 and the reason: a port paired with itself, a port in two pairs,
   --tx-port on a paired port, a pair whose port has fewer TX queues than workers (the count
   it needs is in the message, and how to get it: net_pcap's tx_pcap= per queue; for two
   net_af_packet ports on lo, as root, "add qpairs=3 to its --vdev").

usage: test_forward.py PATH/TO/dpdk-rps
"""

import collections
import ipaddress
import json
import os
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rpstest  # noqa: E402

WORKERS = [1, 2, 3]
LCORES = '0@0,(1-3)@1'


def swapped(frame):
    """The frame with source and destination swapped at every layer it has: MACs, IPv4 or
    IPv6 addresses, TCP/UDP ports (not in a non-first fragment)."""
    f = bytearray(frame)
    if len(f) < 14:
        return bytes(f)
    f[0:6], f[6:12] = frame[6:12], frame[0:6]
    l3 = rpstest.parse_l3(frame)
    if l3 is None:
        return bytes(f)
    o = l3.l2_len
    if l3.family == 4:
        f[o + 12:o + 16], f[o + 16:o + 20] = frame[o + 16:o + 20], frame[o + 12:o + 16]
        first = struct.unpack_from('!H', frame, o + 6)[0] & 0x1FFF == 0
    else:
        f[o + 8:o + 24], f[o + 24:o + 40] = frame[o + 24:o + 40], frame[o + 8:o + 24]
        first = not l3.is_frag
    p = o + l3.l3_len
    if first and l3.proto in (6, 17) and p + 4 <= len(frame):
        f[p:p + 2], f[p + 2:p + 4] = frame[p + 2:p + 4], frame[p:p + 2]
    return bytes(f)


def run(binary, tmp, tag, a_path, b_path, app, ntx=len(WORKERS), env=None):
    prefix = rpstest.unique_prefix()
    txa = [os.path.join(tmp, '%s_a%d.pcap' % (tag, i)) for i in range(ntx)]
    txb = [os.path.join(tmp, '%s_b%d.pcap' % (tag, i)) for i in range(ntx)]
    eal = rpstest.eal_args(prefix, lcores=LCORES, vdevs=[
        rpstest.pcap_vdev(rx=a_path, tx=txa, name='net_pcap0'),
        rpstest.pcap_vdev(rx=b_path, tx=txb, name='net_pcap1')])
    res = rpstest.run_rps(binary, eal, app, timeout=60, prefix=prefix, env=env,
                          summary_path=os.path.join(tmp, tag + '.json'))
    return res, txa, txb


def frames_in(files):
    return sum(len(rpstest.read_pcap(p).frames) for p in files)


def check_ports(F, ctx, ports, want):
    """@ports: the summary's "ports" or /rps/ports' (dropped by reason in "dropped" or as
    dropped_<reason>); @want: {port: (received, forwarded, to)}."""
    if not isinstance(ports, dict):
        F.fail('%s: no per-port counters: %r' % (ctx, ports))
        return
    for port, (rx, fwd, to) in want.items():
        p = ports.get(str(port))
        if not isinstance(p, dict):
            F.fail('%s: port %d missing from %s' % (ctx, port, sorted(ports)))
            continue
        if isinstance(p.get('dropped'), dict):
            drops = sum(p['dropped'].values())
        else:
            drops = sum(v for k, v in p.items()
                        if k.startswith('dropped_') and k != 'dropped_total')
        F.check(p.get('received') == rx and p.get('forwarded') == fwd and p.get('to') == to,
                '%s: port %d received %r forwarded %r to %r, expected %d, %d (the other '
                'port\'s TX files) and %d' % (ctx, port, p.get('received'), p.get('forwarded'),
                                              p.get('to'), rx, fwd, to))
        F.check(p.get('received') == p.get('processed', -1) + drops and
                drops == p.get('dropped_total'),
                '%s: port %d received %r != processed %r + dropped %d (dropped_total %r)' % (
                    ctx, port, p.get('received'), p.get('processed'), drops,
                    p.get('dropped_total')))
    F.check('other' not in ports, '%s: packets counted for no RX port: %r' % (
        ctx, ports.get('other')))


def drops_by_port(F, binary, tmp, app, a_frames, b_frames):
    """Truncated frames on port 1 only (parse drops them), then backlog_full on both (a slow
    worker behind a 16-packet backlog, test hooks): each port's drops are its own."""
    cut = [f[:24] for f in b_frames if rpstest.parse_l3(f) is not None][:7]
    bad_b = cut + b_frames
    bp = os.path.join(tmp, 'b_cut.pcap')
    rpstest.write_pcap(bp, bad_b)
    runs = [('drops truncated', None, '4096')]
    if rpstest.hooks_built(binary, tmp):
        runs.append(('drops backlog_full', {'RPS_TEST_WORKER_DELAY_NS': '100000'}, '16'))
    else:
        F.skip('drops backlog_full', '%s is %s (a slow worker: RPS_TEST_WORKER_DELAY_NS)' % (
            binary, rpstest.NO_HOOKS))
    for ctx, env, backlog in runs:
        res, txa, txb = run(binary, tmp, 'drops', os.path.join(tmp, 'a.pcap'), bp,
                            app + ['--forward', '0:1', '--stages', 'parse,flow,output',
                                   '--backlog', backlog, '--backpressure', 'off'], env=env)
        s = rpstest.check_exit(F, res, ctx, strict=True)
        if s is None:
            continue
        ports = s.get('ports') or {}
        check_ports(F, ctx, ports, {0: (len(a_frames), frames_in(txb), 1),
                                    1: (len(bad_b), frames_in(txa), 0)})
        d0, d1 = (ports.get(p, {}).get('dropped', {}) for p in ('0', '1'))
        for r in s['dropped']:
            F.check(d0.get(r, 0) + d1.get(r, 0) == s['dropped'][r], '%s: %s on the ports '
                    '%r + %r, in total %r' % (ctx, r, d0.get(r), d1.get(r), s['dropped'][r]))
        if env is None:
            F.check(d0.get('truncated') == 0 and d1.get('truncated') == len(cut),
                    '%s: truncated on port 0 %r, port 1 %r; expected 0 and %d' % (
                        ctx, d0.get('truncated'), d1.get('truncated'), len(cut)))
        else:
            F.check(d0.get('backlog_full', 0) > 0 and d1.get('backlog_full', 0) > 0,
                    '%s: backlog_full %r and %r: expected some on both ports' % (
                        ctx, d0.get('backlog_full'), d1.get('backlog_full')))
        print('%s: port 0 %s, port 1 %s' % (ctx, {k: v for k, v in d0.items() if v},
                                            {k: v for k, v in d1.items() if v}), flush=True)


def conversation_split(txa, txb):
    """({flow id: its 0 -> 1 queue}, reply packets that left from another worker's queue)."""
    worker_of = collections.defaultdict(set)
    for i, p in enumerate(txb):
        for fr in rpstest.read_pcap(p).frames:
            mk = rpstest.marker(fr)
            if mk is not None:
                worker_of[mk[0]].add(i)
    split = 0
    for i, p in enumerate(txa):
        for fr in rpstest.read_pcap(p).frames:
            mk = rpstest.marker(fr)
            if mk is not None and i not in worker_of[mk[0]]:
                split += 1
    return worker_of, split


def check_pair(F, ctx, res, a_frames, b_frames, txa, txb):
    s = rpstest.check_exit(F, res, ctx, strict=True)
    if s is None:
        return None
    n = len(a_frames) + len(b_frames)
    F.check(s['rx_packets'] == n and s['processed'] == n and s['tx_packets'] == n,
            '%s: rx %d processed %d tx %d, expected %d each' % (
                ctx, s['rx_packets'], s['processed'], s['tx_packets'], n), res)
    out_b = {os.path.basename(p): rpstest.read_pcap(p).frames for p in txb}
    out_a = {os.path.basename(p): rpstest.read_pcap(p).frames for p in txa}
    # what came in on port 0 (A) leaves on port 1 and the other way, unchanged, in order
    F.extend(rpstest.check_outputs(a_frames, out_b, exact=True), ctx + ', 0 -> 1')
    F.extend(rpstest.check_outputs(b_frames, out_a, exact=True), ctx + ', 1 -> 0')
    # both directions of a conversation from the same worker's queue
    worker_of, split = conversation_split(txa, txb)
    F.check(len(worker_of) > 10 and split == 0, '%s: %d reply packets left from another '
            'worker than their conversation\'s (flows seen: %d)' % (ctx, split,
                                                                    len(worker_of)))
    print('%s: %d + %d frames through, %d conversations on one worker each' % (
        ctx, len(a_frames), len(b_frames), len(worker_of)), flush=True)
    check_ports(F, ctx + ' summary', s.get('ports'),
                {0: (len(a_frames), frames_in(txb), 1), 1: (len(b_frames), frames_in(txa), 0)})
    return s


def live_ports(F, binary, tmp, a_path, b_path, app, a_frames, b_frames):
    """/rps/ports while the run is up, once both captures went through, then the summary."""
    prefix = rpstest.unique_prefix()
    txa = [os.path.join(tmp, 'live_a%d.pcap' % i) for i in range(len(WORKERS))]
    txb = [os.path.join(tmp, 'live_b%d.pcap' % i) for i in range(len(WORKERS))]
    summary = os.path.join(tmp, 'live.json')
    eal = rpstest.eal_args(prefix, lcores=LCORES, vdevs=[
        rpstest.pcap_vdev(rx=a_path, tx=txa, name='net_pcap0'),
        rpstest.pcap_vdev(rx=b_path, tx=txb, name='net_pcap1')])
    cmd = [binary] + eal + ['--'] + app + ['--summary-json', summary]
    proc = rpstest.drain(subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                          stdin=subprocess.DEVNULL, start_new_session=True))
    n = len(a_frames) + len(b_frames)

    def drained():
        r = rpstest.telemetry_socket(prefix, '/rps/ports')
        ports = (r[0].get('/rps/ports') or {}).get('ports') if r else None
        if not isinstance(ports, dict):
            return None
        got = [p for p in ports.values() if isinstance(p, dict)]
        done = sum(p.get('received', 0) for p in got) == n and all(
            p.get('received') == p.get('processed', 0) + p.get('dropped_total', 0) and
            p.get('forwarded') == p.get('processed') for p in got)
        return ports if done else None
    try:
        ports = rpstest.wait_for(drained, timeout=30)
        r = rpstest.telemetry_socket(prefix, '/rps/info')
        info = r[0].get('/rps/info') if r else None
    finally:
        out, err = rpstest.stop(proc, prefix)
    F.check(isinstance(info, dict) and info.get('pairs') == ['0:1'] and
            info.get('symmetric') == 'sort', 'live: /rps/info does not name the pair 0:1 and '
            'the symmetric hash: %r' % info)
    if ports is None:
        F.fail('live: /rps/ports never showed both captures through (%d frames); output: %s'
               % (n, (out + err).decode(errors='replace')[-800:]))
        return
    want = {0: (len(a_frames), frames_in(txb), 1), 1: (len(b_frames), frames_in(txa), 0)}
    check_ports(F, 'live /rps/ports', ports, want)
    F.check(proc.returncode == 0, 'live: exit %s after SIGINT' % proc.returncode)
    try:
        with open(summary) as f:
            s = json.load(f)
    except (OSError, ValueError) as e:
        F.fail('live: no summary JSON: %s' % e)
        return
    check_ports(F, 'live summary', s.get('ports'), want)
    for port in ('0', '1'):
        F.check(all(s['ports'][port].get(k) == ports[port].get(k)
                    for k in ('received', 'processed', 'forwarded', 'dropped_total')),
                'live: port %s in /rps/ports %r and in the summary %r disagree' % (
                    port, ports[port], s['ports'].get(port)))
    print('live: /rps/ports %s' % {k: (v['received'], v['processed'], v['forwarded'],
                                        v['dropped_total']) for k, v in ports.items()},
          flush=True)


def side_counts(frames):
    """{(family, proto, src, sport, dst, dport): (packets, bytes)} of the generator's TCP
    and UDP flows in @frames (not fragments: the flow stage does not track them), one
    direction each as the frames have it."""
    out = {}
    for fr in frames:
        l3 = rpstest.parse_l3(fr)
        if l3 is None or l3.is_frag or l3.proto not in (6, 17) or rpstest.marker(fr) is None:
            continue
        sport, dport = struct.unpack_from('!HH', fr, l3.l2_len + l3.l3_len)
        k = (l3.family, l3.proto, str(ipaddress.ip_address(l3.src)), sport,
             str(ipaddress.ip_address(l3.dst)), dport)
        pk, by = out.get(k, (0, 0))
        out[k] = (pk + 1, by + len(fr))
    return out


def check_conversations(F, ctx, path, a_frames, b_frames):
    """--flows-json: one entry per conversation, each direction what its capture held."""
    a, b = side_counts(a_frames), side_counts(b_frames)
    try:
        with open(path) as f:
            flows = json.load(f)['flows']
    except (OSError, ValueError, KeyError) as e:
        F.fail('%s: --flows-json: %s' % (ctx, e))
        return
    seen, bad, both = set(), [], 0
    for fl in flows:
        k = (fl['family'], fl['proto'], fl['src'], fl['sport'], fl['dst'], fl['dport'])
        rk = (k[0], k[1], k[4], k[5], k[2], k[3])
        fwd = k in a or rk in b  # orig is A's side
        ak, bk = (k, rk) if fwd else (rk, k)
        if ak not in a:
            continue  # not one of the generator's conversations
        if ak in seen:
            bad.append('%s: two entries' % (ak,))
            continue
        seen.add(ak)
        want_o, want_r = (a[ak], b.get(bk, (0, 0))) if fwd else (b.get(bk, (0, 0)), a[ak])
        got_o = (fl['orig']['packets'], fl['orig']['bytes'])
        got_r = (fl['reply']['packets'], fl['reply']['bytes'])
        if got_o != want_o or got_r != want_r or \
                (fl['packets'], fl['bytes']) != (got_o[0] + got_r[0], got_o[1] + got_r[1]):
            bad.append('%s: orig %s reply %s total %s, want orig %s reply %s' % (
                k, got_o, got_r, (fl['packets'], fl['bytes']), want_o, want_r))
        both += want_o[0] != want_r[0]
    F.check(not bad and len(seen) == len(a), '%s: %d of %d conversations in --flows-json, '
            '%d wrong, e.g. %s' % (ctx, len(seen), len(a), len(bad), bad[:2]))
    # the check can tell orig from reply only where their counts differ
    F.check(both > len(a) // 2, '%s: only %d conversations whose directions differ' % (
        ctx, both))
    print('%s: %d conversations, one entry each, both directions exact' % (ctx, len(seen)),
          flush=True)


def refused(F, binary, tmp, ctx, app, ntx, want):
    res, _, _ = run(binary, tmp, 'bad', os.path.join(tmp, 'a.pcap'),
                    os.path.join(tmp, 'b.pcap'), app, ntx=ntx)
    out = res.stdout + res.stderr
    F.check(res.rc == 2 and want in out, '%s: exit %s, expected 2 with "%s"; output: %s' % (
        ctx, res.rc, want, out[-600:]))


def refused_af_packet(F, binary, app):
    """A pair of net_af_packet ports (on lo: refused before anything is sent) with one queue
    pair each, 3 workers: the message names the vdev argument that gives them 3."""
    if os.geteuid() != 0:
        print('queues (net_af_packet): not root (AF_PACKET sockets): skipped', flush=True)
        return
    prefix = rpstest.unique_prefix()
    eal = rpstest.eal_args(prefix, lcores=LCORES, vdevs=['net_af_packet0,iface=lo',
                                                         'net_af_packet1,iface=lo'])
    res = rpstest.run_rps(binary, eal, app + ['--forward', '0:1'], timeout=60, prefix=prefix)
    want = 'port 0 (net_af_packet) has 1 TX queues; an inline pair needs one per worker on ' \
        'each of its ports: 3 (net_af_packet: add qpairs=3 to its --vdev)'
    out = res.stdout + res.stderr
    F.check(res.rc == 2 and want in out, 'queues (net_af_packet): exit %s, expected 2 with '
            '"%s"; output: %s' % (res.rc, want, out[-600:]))
    print('queues (net_af_packet): exit %s' % res.rc, flush=True)


def main():
    binary = rpstest.binary_from_argv()
    F = rpstest.Failures('test_forward')
    with rpstest.TempDir('forward') as tmp:
        a_frames = rpstest.gen_traffic.generate_frames(flows=48, packets_per_flow=12, seed=7)
        b_frames = [swapped(f) for i, f in enumerate(a_frames) if i % 3 != 2]
        a_path, b_path = os.path.join(tmp, 'a.pcap'), os.path.join(tmp, 'b.pcap')
        rpstest.write_pcap(a_path, a_frames)
        rpstest.write_pcap(b_path, b_frames)
        app = ['--map', '0xe', '--exit-when-idle', '200', '--backlog', '4096']

        fj = os.path.join(tmp, 'flows.json')
        res, txa, txb = run(binary, tmp, 'cli', a_path, b_path,
                            app + ['--forward', '0:1', '--flows-json', fj])
        if check_pair(F, 'cli', res, a_frames, b_frames, txa, txb) is not None:
            check_conversations(F, 'cli', fj, a_frames, b_frames)
        F.check('symmetric steering' in res.stdout + res.stderr, 'cli: the log does not say '
                'the pair steers symmetrically')

        cfg = os.path.join(tmp, 'fwd.conf')
        with open(cfg, 'w') as f:
            f.write('[dataplane]\nforward = 0:1\n')
        res, txa, txb = run(binary, tmp, 'file', a_path, b_path, app + ['--config', cfg])
        check_pair(F, 'config file', res, a_frames, b_frames, txa, txb)

        # the control: symmetric = off splits conversations, so the check above can fail
        with open(cfg, 'w') as f:
            f.write('[dataplane]\nforward = 0:1\nsymmetric = off\n')
        res, txa, txb = run(binary, tmp, 'asym', a_path, b_path, app + ['--config', cfg])
        if rpstest.check_exit(F, res, 'asymmetric (control)', strict=True) is not None:
            flows, split = conversation_split(txa, txb)
            print('asymmetric (control): %d reply packets on another worker than their '
                  'conversation' % split, flush=True)
            F.check(split > 0, 'asymmetric (control): every conversation still on one '
                    'worker: the symmetric check cannot tell')
            F.check('symmetric = off' in res.stdout + res.stderr, 'asymmetric: no warning '
                    'about what an asymmetric hash breaks on a pair')

        # live: /rps/ports with the run still up, then the summary at SIGINT
        live_ports(F, binary, tmp, a_path, b_path,
                   ['--map', '0xe', '--backlog', '4096', '--forward', '0:1'], a_frames,
                   b_frames)

        drops_by_port(F, binary, tmp, app[:-2], a_frames, b_frames)

        # timely: the RX lcore paced to 2 ms a packet (a 0.6 s replay each way, test
        # hooks): the packets must leave as they come, not when a queue's buffer fills or
        # at exit
        small_a, small_b = a_frames[:150], b_frames[:150]
        sa, sb = os.path.join(tmp, 'sa.pcap'), os.path.join(tmp, 'sb.pcap')
        rpstest.write_pcap(sa, small_a)
        rpstest.write_pcap(sb, small_b)
        paced = rpstest.hooks_built(binary, tmp)
        if paced:
            res, txa, txb = run(binary, tmp, 'paced', sa, sb, app + ['--forward', '0:1'],
                                env={'RPS_TEST_RX_DELAY_NS': '2000000'})
        else:
            F.skip('paced', '%s is %s (a paced source: RPS_TEST_RX_DELAY_NS)' % (
                binary, rpstest.NO_HOOKS))
        if paced and rpstest.check_exit(F, res, 'paced', strict=True) is not None:
            for side, tx in (('0 -> 1', txb), ('1 -> 0', txa)):
                ts = sorted(t for t, _, _ in rpstest.wire_order(tx))
                span = (ts[-1] - ts[0]) / 1e9 if len(ts) > 1 else 0.0
                print('paced %s: %d packets left over %.2f s' % (side, len(ts), span),
                      flush=True)
                # 150 packets of each side, interleaved, 2 ms apart: about 0.6 s
                F.check(len(ts) > 100 and span > 0.3, 'paced %s: %d packets left within '
                        '%.3f s of each other: held back, not sent as they came' % (
                            side, len(ts), span))

        refused(F, binary, tmp, 'self', app + ['--forward', '1:1'], 3, 'paired with itself')
        refused(F, binary, tmp, 'twice', app + ['--forward', '0:1', '--forward', '1:0'], 3,
                'a port in two pairs')
        refused(F, binary, tmp, 'tx-port', app + ['--forward', '0:1', '--tx-port', '1'], 3,
                '--tx-port is for the RX ports in no pair')
        refused(F, binary, tmp, 'queues', app + ['--forward', '0:1'], 1,
                'needs one per worker on each of its ports: 3 (net_pcap: one tx_pcap=')
        refused_af_packet(F, binary, app)
    return F.report()


if __name__ == '__main__':
    sys.exit(main())
