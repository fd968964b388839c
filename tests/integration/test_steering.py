#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_steering.py: dpdk-rps with three workers keeps flows together and in order.

Runs with --stages output (steering alone, so outputs must be byte-identical to the input).
Feeds a generated capture (TCP/UDP over IPv4/IPv6, VLAN/QinQ, IP options, IPv6 extension
headers, fragments, ARP) through net_pcap with one TX file per worker, and checks:
exit 0; rx_packets == packets in the capture; rx == processed + dropped with nothing
dropped; the TX files hold tx_packets == processed packets, byte-identical to the input
(as a multiset per file); every steering key (non-IP frames: their layer-2 key) in exactly one file, in
input order; every marker flow complete and in order; workers[].processed == its file's
count; more than one worker used. Then the same run again (same --hash-seed: same
key -> file assignment), with --map 1-3 (list syntax: same workers, same assignment), and
with --hash jhash and --hash rss (net_pcap gives no RSS hash, so the same as auto: same
assignment), with --map 00000000,0000000e (32-bit groups), with --burst 1 and 512 (same
assignment each time), and with another seed (assignment changes). Last, a capture of 3000-byte frames (multi-segment
mbufs) through the same checks.

usage: test_steering.py PATH/TO/dpdk-rps
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rpstest  # noqa: E402

LCORES = '0@0,(1-3)@1'
WORKERS = [1, 2, 3]
GEN = dict(flows=300, packets_per_flow=10, seed=11, frag_datagrams=12, non_ip=20)
JUMBO = dict(flows=60, packets_per_flow=5, seed=12, frag_datagrams=4, non_ip=4, size=3000)


def steer_run(F, binary, tmp, inp, frames, tag, map_arg, seed, extra=()):
    app = ['--map', map_arg, '--tx-port', '0', '--stages', 'output', '--exit-when-idle', '500',
           '--backlog', '8192', '--hash-seed', str(seed)] + list(extra)
    res, tx = rpstest.run_pcap(binary, tmp, inp, len(WORKERS), app, lcores=LCORES,
                               timeout=120, tag=tag)
    ctx = '%s (--map %s --hash-seed %d%s)' % (tag, map_arg, seed,
                                             ''.join(' ' + e for e in extra))
    r = rpstest.check_pcap_run(F, res, tx, len(frames), ctx)
    if r is None:
        return None
    s, outs, counts = r
    print('%s: rx %d processed %d tx %d, per worker %s' % (
        ctx, s['rx_packets'], s['processed'], s['tx_packets'], counts), flush=True)
    F.check(sum(counts) == s['tx_packets'] == s['processed'],
            '%s: packets in TX files %d, tx_packets %d, processed %d must be equal' % (
                ctx, sum(counts), s['tx_packets'], s['processed']))
    F.extend(rpstest.check_workers_vs_files(s, WORKERS, counts), ctx)
    F.check(len(s['workers']) == len(WORKERS), '%s: %d worker entries in the summary, '
            'expected %d' % (ctx, len(s['workers']), len(WORKERS)))
    F.check(sum(1 for c in counts if c) > 1, '%s: only one worker got traffic: %s'
            % (ctx, counts))
    F.extend(rpstest.check_outputs(frames, outs, exact=rpstest.dropped_total(s) == 0), ctx)
    # key -> worker index
    assign = {}
    for i, path in enumerate(tx):
        for fr in outs[os.path.basename(path)]:
            assign[rpstest.steering_key(fr)] = i
    return assign


def main():
    binary = rpstest.binary_from_argv()
    F = rpstest.Failures('test_steering')
    with rpstest.TempDir('steering') as tmp:
        inp = os.path.join(tmp, 'in.pcap')
        frames = rpstest.gen_traffic.generate_frames(**GEN)
        rpstest.write_pcap(inp, frames)
        print('input: %d packets, %d steering keys' % (
            len(frames), len({rpstest.steering_key(f) for f in frames})), flush=True)

        a = steer_run(F, binary, tmp, inp, frames, 'run1', '0xe', 7)
        b = steer_run(F, binary, tmp, inp, frames, 'run2', '0xe', 7)
        if a is not None and b is not None:
            diff = [k for k in a if a[k] != b.get(k)]
            F.check(not diff, 'same --hash-seed 7, different assignment for %d of %d keys'
                    % (len(diff), len(a)))
        c = steer_run(F, binary, tmp, inp, frames, 'list', '1-3', 7)
        if a is not None and c is not None:
            diff = [k for k in a if a[k] != c.get(k)]
            F.check(not diff, '--map 1-3 and --map 0xe (same seed) assign %d of %d keys '
                    'differently' % (len(diff), len(a)))
        # net_pcap delivers no RSS hash, so auto (the default) and jhash must agree
        j = steer_run(F, binary, tmp, inp, frames, 'jhash', '0xe', 7, ['--hash', 'jhash'])
        if a is not None and j is not None:
            diff = [k for k in a if a[k] != j.get(k)]
            F.check(not diff, '--hash jhash and --hash auto on a port without RSS hash '
                    'assign %d of %d keys differently' % (len(diff), len(a)))
        # other spellings of the same map and other burst sizes: same workers, same seed,
        # so the same assignment
        for tag, map_arg, extra in (('groups', '00000000,0000000e', []),
                                    ('rss', '0xe', ['--hash', 'rss']),
                                    ('burst1', '0xe', ['--burst', '1']),
                                    ('burst512', '0xe', ['--burst', '512'])):
            x = steer_run(F, binary, tmp, inp, frames, tag, map_arg, 7, extra)
            if a is not None and x is not None:
                diff = [k for k in a if a[k] != x.get(k)]
                F.check(not diff, '%s: --map %s %s assigns %d of %d keys differently from '
                        '--map 0xe' % (tag, map_arg, ' '.join(extra), len(diff), len(a)))
        d = steer_run(F, binary, tmp, inp, frames, 'seed8', 'e', 8)
        if a is not None and d is not None:
            diff = [k for k in a if k is not None and a[k] != d.get(k)]
            F.check(diff, '--hash-seed 8 assigns every key like --hash-seed 7: the seed has '
                    'no effect')
        # 3000-byte frames: multi-segment mbufs (net_pcap chains 2 KiB mbufs), on ports set
        # to a jumbo MTU (at net_pcap's default 1500 they are tx_too_big: test_tx_mtu)
        jumbo_in = os.path.join(tmp, 'jumbo.pcap')
        jumbo = rpstest.gen_traffic.generate_frames(**JUMBO)
        rpstest.write_pcap(jumbo_in, jumbo)
        steer_run(F, binary, tmp, jumbo_in, jumbo, 'jumbo', '0xe', 7, extra=['--mtu', '9000'])
    return F.report()


if __name__ == '__main__':
    sys.exit(main())
