#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_flows.py: the flow stage, end to end, with 1..6 workers.

A generated capture with known flows goes through the default pipeline
(parse,validate,reassemble,flow,output) and --flows-json. For every generated TCP/UDP flow
the flow table's packets and bytes must equal the capture's, each flow must be tracked by
exactly one worker, and out_of_order and retransmit must stay 0 (steering never reorders a
flow). Accounting and the mempool must be exact.

Each run takes the whole capture and stops 100 ms after it (--exit-when-idle: nothing
arrives once net_pcap has read the file, and idle waits for empty backlogs too), with a
backlog above the capture's size: nothing depends on timing, so the six runs go two at a
time (rpstest.run_all()) and are checked afterwards, in order.

usage: test_flows.py PATH/TO/dpdk-rps
"""

import ipaddress
import json
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rpstest  # noqa: E402


def flow_key(family, proto, src, sport, dst, dport):
    """Direction-independent key: both directions of a connection are one flow."""
    a, b = (src, sport), (dst, dport)
    return (family, proto) + (a + b if a <= b else b + a)


def expected_flows(frames):
    flows = {}
    for fr in frames:
        l3 = rpstest.parse_l3(fr)
        if l3 is None or l3.is_frag or l3.proto not in (6, 17):
            continue
        if rpstest.marker(fr) is None:
            continue
        p = l3.l2_len + l3.l3_len
        sport, dport = struct.unpack_from('!HH', fr, p)
        src = str(ipaddress.ip_address(l3.src))
        dst = str(ipaddress.ip_address(l3.dst))
        k = flow_key(l3.family, l3.proto, src, sport, dst, dport)
        pk, by = flows.get(k, (0, 0))
        flows[k] = (pk + 1, by + len(fr))
    return flows


def main():
    binary = rpstest.binary_from_argv()
    F = rpstest.Failures('test_flows')
    with rpstest.TempDir('flows') as tmp:
        inp, frames = rpstest.write_input(tmp, flows=300, packets_per_flow=12, seed=11,
                                          frag_datagrams=10, non_ip=8)
        want = expected_flows(frames)

        def launch(workers):
            lcores = '0@0,(1-%d)@1' % workers if workers > 1 else '0@0,1@1'
            mask = hex(((1 << workers) - 1) << 1)
            res, _ = rpstest.run_pcap(binary, tmp, inp, 0,
                                      ['--map', mask, '--exit-when-idle', '100',
                                       '--backlog', '8192', '--flows-json', flows_json(workers)],
                                      lcores=lcores, timeout=120, tag='flows%d' % workers)
            return res

        def flows_json(workers):
            return os.path.join(tmp, 'flows_%d.json' % workers)

        # every run first, two at a time (each a whole capture, nothing depends on timing),
        # then their checks in order
        done = rpstest.run_all([lambda w=w: launch(w) for w in range(1, 7)])
        for workers, res in zip(range(1, 7), done):
            ctx = '%d worker(s)' % workers
            fj = flows_json(workers)
            s = rpstest.check_exit(F, res, ctx)
            if s is None:
                continue
            F.check(s['rx_packets'] == len(frames), '%s: rx_packets %d != %d' % (
                ctx, s['rx_packets'], len(frames)))
            F.check(rpstest.dropped_total(s) == 0, '%s: drops %s' % (ctx, s['dropped']))
            F.check(s['mempool']['in_use_at_exit'] == 0, '%s: %s mbufs leaked' % (
                ctx, s['mempool']['in_use_at_exit']))
            ooo = sum(w['out_of_order'] for w in s['workers'])
            rtx = sum(w['retransmit'] for w in s['workers'])
            F.check(ooo == 0, '%s: out_of_order %d, expected 0' % (ctx, ooo))
            F.check(rtx == 0, '%s: retransmit %d, expected 0' % (ctx, rtx))
            F.check(len(s['workers']) == workers, '%s: %d workers in the summary' % (
                ctx, len(s['workers'])))
            try:
                with open(fj) as f:
                    got_list = json.load(f)['flows']
            except (OSError, ValueError, KeyError) as e:
                F.fail('%s: --flows-json: %s' % (ctx, e))
                continue
            got, where = {}, {}
            for fl in got_list:
                k = flow_key(fl['family'], fl['proto'], fl['src'], fl['sport'], fl['dst'],
                             fl['dport'])
                if k in got:
                    F.fail('%s: flow %s tracked twice (lcores %s and %s)' % (
                        ctx, k, where[k], fl['lcore']))
                got[k] = (fl['packets'], fl['bytes'])
                where[k] = fl['lcore']
            created = sum(w['flows_created'] for w in s['workers'])
            F.check(created == len(got_list), '%s: flows_created %d != %d flows dumped' % (
                ctx, created, len(got_list)))
            bad = [k for k in want if got.get(k) != want[k]]
            F.check(not bad, '%s: %d of %d flows differ, e.g. %s: want %s, got %s' % (
                ctx, len(bad), len(want), bad[0] if bad else None,
                want[bad[0]] if bad else None, got.get(bad[0]) if bad else None))
            if workers > 1:
                used = {where[k] for k in want if k in where}
                F.check(len(used) > 1, '%s: every flow on one worker' % ctx)
    return F.report()


if __name__ == '__main__':
    sys.exit(main())
