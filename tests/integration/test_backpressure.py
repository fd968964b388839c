#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_backpressure.py: a replayed capture comes out complete and in order (--backpressure).

A capture of 12,000 packets (60 flows, generated markers) read once by net_pcap, with the
default backlog, into 1, 3 and 5 workers that are slower than the source on any machine
(test hook RPS_TEST_WORKER_DELAY_NS: 20 us per packet). With --backpressure auto (on for a
net_pcap input) every packet is processed and each worker's TX file holds its flows complete
and in input order: no drop of any reason, rx_paused > 0 (the RX lcore did wait), exit 0,
every mbuf back in the pool. The control, --backpressure off with 3 workers, drops packets as
backlog_full: the condition the option removes is real.

usage: test_backpressure.py PATH/TO/dpdk-rps
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rpstest  # noqa: E402

NPKT = 12000


def run(F, binary, tmp, inp, frames, nw, mode):
    ctx = '%d worker(s), backpressure %s' % (nw, mode)
    lcores = list(range(1, nw + 1))
    mask = hex(sum(1 << l for l in lcores))
    res, tx = rpstest.run_pcap(binary, tmp, inp, nw,
                               ['--map', mask, '--tx-port', '0', '--stages', 'parse,output',
                                '--backpressure', mode, '--exit-when-idle', '300'],
                               lcores='0@0,(1-%d)@1' % nw, timeout=120,
                               tag='bp%d%s' % (nw, mode), env={rpstest.WORKER_DELAY: '20000'})
    s = rpstest.check_exit(F, res, ctx)
    if s is None:
        return None
    F.check(s['mempool']['in_use_at_exit'] == 0, '%s: mbufs leaked: %s' % (ctx, s['mempool']))
    F.check(s['rx_packets'] == NPKT, '%s: rx_packets %d of %d' % (ctx, s['rx_packets'], NPKT))
    print('%s: processed %d, dropped %d %s, rx_paused %d' % (
        ctx, s['processed'], rpstest.dropped_total(s),
        {k: v for k, v in s['dropped'].items() if v}, s['rx_lcore']['rx_paused']), flush=True)
    if mode == 'off':
        return s
    F.check(s['backpressure'] is True, '%s: summary says backpressure %s' % (
        ctx, s['backpressure']))
    F.check(rpstest.dropped_total(s) == 0, '%s: dropped %s' % (ctx, s['dropped']), res)
    F.check(s['rx_lcore']['rx_paused'] > 0, '%s: the RX lcore never waited: the workers were '
            'not slower than the source, the test shows nothing' % ctx)
    outs = {os.path.basename(p): rpstest.read_pcap(p).frames for p in tx}
    F.extend(rpstest.check_outputs(frames, outs, exact=True), ctx)
    return s


def main():
    binary = rpstest.binary_from_argv()
    F = rpstest.Failures('test_backpressure')
    with rpstest.TempDir('backpressure') as tmp:
        rpstest.skip_without_hooks(binary, tmp, rpstest.WORKER_DELAY)
        inp, frames = rpstest.write_input(tmp, flows=60, packets_per_flow=NPKT // 60, seed=5,
                                          frag_datagrams=0, non_ip=0)
        for nw in (1, 3, 5):
            run(F, binary, tmp, inp, frames, nw, 'auto')
        s = run(F, binary, tmp, inp, frames, 3, 'off')
        if s is not None:
            F.check(s['dropped'].get('backlog_full', 0) > 0, 'backpressure off: no '
                    'backlog_full drop: the workers kept up and the test shows nothing')
    return F.report()


if __name__ == '__main__':
    sys.exit(main())
