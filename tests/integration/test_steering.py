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

Every run takes its whole capture and stops 100 ms after it (--exit-when-idle: once net_pcap
has read the file nothing more arrives, and idle also waits for every backlog to be empty),
with a backlog above the capture's size: nothing in the checks depends on timing, so the
runs go two at a time (rpstest.run_all()) and are checked afterwards, in order.

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


def launch(binary, tmp, inp, tag, map_arg, seed, extra=()):
    app = ['--map', map_arg, '--tx-port', '0', '--stages', 'output', '--exit-when-idle', '100',
           '--backlog', '8192', '--hash-seed', str(seed)] + list(extra)
    return rpstest.run_pcap(binary, tmp, inp, len(WORKERS), app, lcores=LCORES,
                            timeout=120, tag=tag)


def steer_check(F, run, frames, tag, map_arg, seed, extra=()):
    res, tx = run
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


# (tag, --map, --hash-seed, more options), the first the reference
RUNS = [('run1', '0xe', 7, []),
        ('run2', '0xe', 7, []),
        ('list', '1-3', 7, []),
        # net_pcap delivers no RSS hash, so auto (the default) and jhash must agree
        ('jhash', '0xe', 7, ['--hash', 'jhash']),
        # other spellings of the same map and other burst sizes: same workers, same seed,
        # so the same assignment
        ('groups', '00000000,0000000e', 7, []),
        ('rss', '0xe', 7, ['--hash', 'rss']),
        ('burst1', '0xe', 7, ['--burst', '1']),
        ('burst512', '0xe', 7, ['--burst', '512']),
        ('seed8', 'e', 8, [])]


def main():
    binary = rpstest.binary_from_argv()
    F = rpstest.Failures('test_steering')
    with rpstest.TempDir('steering') as tmp:
        inp = os.path.join(tmp, 'in.pcap')
        frames = rpstest.gen_traffic.generate_frames(**GEN)
        rpstest.write_pcap(inp, frames)
        print('input: %d packets, %d steering keys' % (
            len(frames), len({rpstest.steering_key(f) for f in frames})), flush=True)

        # 3000-byte frames: multi-segment mbufs (net_pcap chains 2 KiB mbufs), on ports set
        # to a jumbo MTU (at net_pcap's default 1500 they are tx_too_big: test_tx_mtu)
        jumbo_in = os.path.join(tmp, 'jumbo.pcap')
        jumbo = rpstest.gen_traffic.generate_frames(**JUMBO)
        rpstest.write_pcap(jumbo_in, jumbo)

        # every run first, two at a time (each a whole capture, nothing depends on timing),
        # then their checks in order
        runs = rpstest.run_all(
            [lambda r=r: launch(binary, tmp, inp, *r) for r in RUNS] +
            [lambda: launch(binary, tmp, jumbo_in, 'jumbo', '0xe', 7, ['--mtu', '9000'])])
        got = {r[0]: steer_check(F, run, frames, *r) for r, run in zip(RUNS, runs)}
        steer_check(F, runs[-1], jumbo, 'jumbo', '0xe', 7, ['--mtu', '9000'])

        a = got['run1']
        b = got['run2']
        if a is not None and b is not None:
            diff = [k for k in a if a[k] != b.get(k)]
            F.check(not diff, 'same --hash-seed 7, different assignment for %d of %d keys'
                    % (len(diff), len(a)))
        c = got['list']
        if a is not None and c is not None:
            diff = [k for k in a if a[k] != c.get(k)]
            F.check(not diff, '--map 1-3 and --map 0xe (same seed) assign %d of %d keys '
                    'differently' % (len(diff), len(a)))
        j = got['jhash']
        if a is not None and j is not None:
            diff = [k for k in a if a[k] != j.get(k)]
            F.check(not diff, '--hash jhash and --hash auto on a port without RSS hash '
                    'assign %d of %d keys differently' % (len(diff), len(a)))
        for tag, map_arg, _, extra in RUNS[4:8]:
            x = got[tag]
            if a is not None and x is not None:
                diff = [k for k in a if a[k] != x.get(k)]
                F.check(not diff, '%s: --map %s %s assigns %d of %d keys differently from '
                        '--map 0xe' % (tag, map_arg, ' '.join(extra), len(diff), len(a)))
        d = got['seed8']
        if a is not None and d is not None:
            diff = [k for k in a if k is not None and a[k] != d.get(k)]
            F.check(diff, '--hash-seed 8 assigns every key like --hash-seed 7: the seed has '
                    'no effect')
    return F.report()


if __name__ == '__main__':
    sys.exit(main())
