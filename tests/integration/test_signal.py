#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_signal.py: SIGINT, SIGTERM and --duration stop a never-ending run cleanly.

net_pcap replays a capture forever (infinite_rx=1, no TX), two workers consume. Half a
second after it says it is ready (/rps/info ready) the test sends SIGINT (then, in a second
run with --stats-interval 1, SIGTERM): the stop lands on a running data path however slow
the start-up; a third run stops itself with --duration 2. Each must exit 0 within a few seconds of being told to stop, write the summary
JSON and print the summary, have received packets (rx_packets > 0), account for every one of them
(rx == processed + dropped), and leave no mbuf in use at exit (mempool.in_use_at_exit == 0,
when the summary reports it).

usage: test_signal.py PATH/TO/dpdk-rps
"""

import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rpstest  # noqa: E402

STOP_WITHIN = 5.0      # seconds allowed between the stop request and the exit
AFTER_READY = 0.5      # the signal, this long after the process said it is ready


def check_run(F, ctx, res, stop_at):
    print('%s: exit %s after %.1f s' % (ctx, res.rc, res.elapsed), flush=True)
    if res.rc is not None and res.rc < 0:
        F.fail('%s: killed by signal %d (handler not installed, or crashed)' % (ctx, -res.rc),
               res)
        return
    if not F.check(res.rc == 0, '%s: exit code %s, expected 0' % (ctx, res.rc), res):
        return
    F.check(res.elapsed <= stop_at + STOP_WITHIN, '%s: exited %.1f s after the stop request, '
            'expected within %.0f s' % (ctx, res.elapsed - stop_at, STOP_WITHIN), res)
    if not F.check(res.summary is not None, '%s: %s' % (ctx, res.summary_error), res):
        return
    s = res.summary
    if not F.extend(rpstest.check_accounting(s), ctx, res):
        return
    print('%s: rx %d processed %d dropped %s' % (ctx, s['rx_packets'], s['processed'],
                                                 s['dropped']), flush=True)
    F.check(s['rx_packets'] > 0, '%s: rx_packets is 0' % ctx, res)
    F.check(str(s['rx_packets']) in res.stdout, '%s: the summary on stdout does not show '
            'rx_packets %d' % (ctx, s['rx_packets']), res)
    F.check(s['tx_packets'] == 0, '%s: tx_packets %d without --tx-port' % (
        ctx, s['tx_packets']))
    F.check(len(s['workers']) == 2, '%s: %d worker entries, expected 2' % (
        ctx, len(s['workers'])))
    mp = s.get('mempool')
    if isinstance(mp, dict) and 'in_use_at_exit' in mp:
        F.check(mp['in_use_at_exit'] == 0, '%s: mempool.in_use_at_exit is %s, expected 0 '
                '(mbufs leaked)' % (ctx, mp['in_use_at_exit']), res)
    else:
        print('%s: note: summary has no mempool.in_use_at_exit' % ctx)


def main():
    binary = rpstest.binary_from_argv()
    F = rpstest.Failures('test_signal')
    with rpstest.TempDir('signal') as tmp:
        # single-segment frames only: infinite_rx refuses multi-segment mbufs
        inp, _ = rpstest.write_input(tmp, flows=64, packets_per_flow=4, seed=9, frag_datagrams=4,
                                     non_ip=4)
        app = ['--map', '0x6', '--hash-seed', '1']
        # SIGTERM with the live table running, so its thread has to stop too
        for sig, name, extra in ((signal.SIGINT, 'SIGINT', []),
                                 (signal.SIGTERM, 'SIGTERM', ['--stats-interval', '1'])):
            prefix = rpstest.unique_prefix()
            eal = rpstest.eal_args(prefix, lcores='0@0,(1-2)@1',
                                   vdevs=[rpstest.pcap_vdev(rx=inp, infinite_rx=True)])
            res = rpstest.run_rps(binary, eal, app + extra, timeout=60,
                                  summary_path=os.path.join(tmp, name + '.json'),
                                  stop_signal=sig, signal_after=AFTER_READY, prefix=prefix,
                                  after_ready=True)
            if not F.check(res.ready and res.signalled_at is not None,
                           '%s: never ready, or gone before the signal' % name, res):
                continue
            check_run(F, name, res, res.signalled_at)
        prefix = rpstest.unique_prefix()
        eal = rpstest.eal_args(prefix, lcores='0@0,(1-2)@1',
                               vdevs=[rpstest.pcap_vdev(rx=inp, infinite_rx=True)])
        res = rpstest.run_rps(binary, eal, app + ['--duration', '2'], timeout=30,
                              summary_path=os.path.join(tmp, 'duration.json'), prefix=prefix)
        # --duration counts from the start of forwarding; allow EAL start-up on top
        check_run(F, '--duration 2', res, 2.0 + 3.0)
        F.check(res.rc != 0 or res.elapsed >= 2.0, '--duration 2: exited after %.1f s, '
                'before the duration' % res.elapsed, res)
    return F.report()


if __name__ == '__main__':
    sys.exit(main())
