#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_backlog_full.py: tiny backlogs overflow, and every lost packet is counted.

--backlog 1 --burst 32 with three workers (all on one CPU) and many flows: the RX lcore
must drop packets as backlog_full (> 0), rx_packets == processed + dropped exactly,
rx_packets == the capture, the TX files hold tx_packets == processed packets, each worker's
file matches its processed count, and what came out is still steered by key and, per key
and per flow, a subsequence of the input order (drops may leave gaps, never reorder).

Then the other end: deep backlogs when the capture ends. Workers slowed to 20 ms a packet
(test hook RPS_TEST_WORKER_DELAY_NS) behind 4096-packet backlogs get the whole capture at
once; --exit-when-idle 100 must wait for them to drain before it stops the RX lcore (its
backlogs_empty()), so the exit finds them idle: exit 0, everything processed, nothing
stranded, though the exit gives up on a worker still busy 1 s after the stop here
(RPS_TEST_EXIT_WAIT_S=1) and the drain takes about 2 s.

usage: test_backlog_full.py PATH/TO/dpdk-rps
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rpstest  # noqa: E402

WORKERS = [1, 2, 3]


def main():
    binary = rpstest.binary_from_argv()
    F = rpstest.Failures('test_backlog_full')
    with rpstest.TempDir('backlog') as tmp:
        inp, frames = rpstest.write_input(tmp, flows=500, packets_per_flow=8, seed=21,
                                          frag_datagrams=16, non_ip=16)
        ctx = '--backlog 1 --burst 32'
        res, tx = rpstest.run_pcap(binary, tmp, inp, len(WORKERS),
                                   ['--map', '0xe', '--tx-port', '0', '--stages', 'output', '--backpressure', 'off', '--backlog', '1',
                                    '--burst', '32', '--hash-seed', '3',
                                    '--exit-when-idle', '500'],
                                   lcores='0@0,(1-3)@1', timeout=120, tag='backlog')
        s = rpstest.check_exit(F, res, ctx, strict=True)
        if s is None:
            return F.report()
        print('%s: rx %d processed %d tx %d dropped %s' % (
            ctx, s['rx_packets'], s['processed'], s['tx_packets'], s['dropped']), flush=True)
        F.check(s['rx_packets'] == len(frames), '%s: rx_packets %d != %d input packets' % (
            ctx, s['rx_packets'], len(frames)), res)
        F.check(s['dropped'].get('backlog_full', 0) > 0,
                '%s: dropped.backlog_full is %s, expected > 0' % (
                    ctx, s['dropped'].get('backlog_full')), res)
        outs, counts = {}, []
        for p in tx:
            fr = rpstest.read_pcap(p).frames if os.path.exists(p) else []
            F.check(os.path.exists(p), '%s: TX file %s missing' % (ctx, p))
            outs[os.path.basename(p)] = fr
            counts.append(len(fr))
        F.check(sum(counts) == s['tx_packets'] == s['processed'],
                '%s: TX files %d packets, tx_packets %d, processed %d must be equal' % (
                    ctx, sum(counts), s['tx_packets'], s['processed']))
        F.extend(rpstest.check_workers_vs_files(s, WORKERS, counts), ctx)
        for w in rpstest.worker_table(s, WORKERS):
            if w is None:
                continue
            if 'backlog_hwm' in w:
                F.check(w['backlog_hwm'] <= 1, '%s: lcore %s backlog_hwm %s > --backlog 1'
                        % (ctx, w.get('lcore'), w['backlog_hwm']))
            if 'received_rps' in w:
                F.check(w['received_rps'] >= w.get('processed', 0),
                        '%s: lcore %s processed %s more than it received (%s)' % (
                            ctx, w.get('lcore'), w.get('processed'), w['received_rps']))
        F.extend(rpstest.check_outputs(frames, outs, exact=False), ctx)
        deep_at_end(F, binary, tmp)
    return F.report()


def deep_at_end(F, binary, tmp):
    ctx = 'deep backlogs at the end'
    if not rpstest.hooks_built(binary, tmp):
        F.skip(ctx, '%s is %s (slow workers: RPS_TEST_WORKER_DELAY_NS, RPS_TEST_EXIT_WAIT_S)'
               % (binary, rpstest.NO_HOOKS))
        return
    inp, frames = rpstest.write_input(tmp, flows=30, packets_per_flow=10, seed=22,
                                      frag_datagrams=0, non_ip=0)
    res, _ = rpstest.run_pcap(binary, tmp, inp, 0,
                              ['--map', '0xe', '--backpressure', 'off', '--backlog', '4096',
                               '--exit-when-idle', '100'],
                              lcores='0@0,(1-3)@1', timeout=60, tag='deep',
                              env={rpstest.WORKER_DELAY: '20000000',
                                   'RPS_TEST_EXIT_WAIT_S': '1'})
    s = rpstest.check_exit(F, res, ctx, strict=True)
    if s is None:
        return
    print('%s: rx %d processed %d in %.1f s; dropped %s' % (
        ctx, s['rx_packets'], s['processed'], res.elapsed,
        {k: v for k, v in s['dropped'].items() if v}), flush=True)
    F.check(s['rx_packets'] == s['processed'] == len(frames), '%s: rx %d, processed %d of %d: '
            'the RX lcore stopped before the backlogs drained' % (
                ctx, s['rx_packets'], s['processed'], len(frames)))


if __name__ == '__main__':
    sys.exit(main())
