#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_tap_queues.py: net_tap's queue limits are refused with a clear error, never an abort.

DPDK's net_tap before 24.11 passes the file descriptor of every RX and every TX queue to
secondary processes, at start, through an array of RTE_MP_MAX_FD_NUM (8) entries
(tap_mp_req_on_rxtx): more than 8 RX + TX queues overflow it and the process aborts with
'stack smashing detected' (exit 134). It also wants as many RX queues as TX queues. So at
most 4 queue pairs work. The runs, on net_tap (iface rpstq-PID) as RX and TX port:
  - 8 lcores, --map 0xfe (7 workers, one TX queue each) with the default RX queues, and with
    --rx-queues 7: exit 2 (not 134), stderr names the port, the PMD, the queues asked and
    the 4 queue pairs that work, and nothing aborted;
  - 4 workers and --rx-queues 4 (4 queue pairs): it starts, takes frames written from the
    kernel side on every RX queue it polls, and stops cleanly with every packet accounted for.
The lcores are 8 threads on 2 CPUs (--lcores '0@0,(1-7)@1', the same 8 lcores as -l 0-7 on
a machine with 8 CPUs). Needs root and /dev/net/tun; exits 77 (meson: skipped) without them.

usage: test_tap_queues.py PATH/TO/dpdk-rps
"""

import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rpstest  # noqa: E402
import gen_traffic  # noqa: E402  (tools/, on the path rpstest set)

SKIP = 77
IFACE = ('rpstq-%d' % os.getpid())[:15]
LCORES8 = '0@0,(1-7)@1'
LCORES5 = '0@0,(1-4)@1'


def tap_eal(prefix, lcores):
    return rpstest.eal_args(prefix, lcores=lcores, vdevs=['net_tap0,iface=%s' % IFACE])


def refused(F, binary, app, want, ctx):
    """A run that net_tap cannot start: exit 2 with every word of want in stderr, no abort."""
    prefix = rpstest.unique_prefix()
    r = rpstest.run_rps(binary, tap_eal(prefix, LCORES8), app, timeout=60, prefix=prefix)
    print('%s: exit %s' % (ctx, r.rc), flush=True)
    F.check(r.rc == 2, '%s: exit %s, expected 2 (134 is the abort: stack smashing)' % (
        ctx, r.rc), r)
    F.check('stack smashing' not in r.stderr, '%s: aborted: stack smashing' % ctx)
    missing = [w for w in want if w not in r.stderr]
    F.check(not missing, '%s: stderr does not say %s: %r' % (ctx, missing, r.stderr[-800:]))


def four_pairs(F, binary, tmp):
    """4 workers transmitting on the port and 4 RX queues: runs, and takes traffic."""
    prefix = rpstest.unique_prefix()
    summary_path = os.path.join(tmp, 'summary.json')
    cmd = [binary] + tap_eal(prefix, LCORES5) + [
        '--', '--map', '0x1e', '--tx-port', '0', '--rx-queues', '4',
        '--summary-json', summary_path]
    print('$ %s' % ' '.join(cmd), flush=True)
    proc = rpstest.drain(subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                          stdin=subprocess.DEVNULL, start_new_session=True))
    info = rpstest.wait_ready(prefix, timeout=30)
    if not F.check(info is not None, '4 queue pairs: not ready (exit %s)' % proc.poll()):
        out, err = rpstest.stop(proc, prefix)
        print(err.decode(errors='replace')[-3000:])
        return
    sent = gen_traffic.generate_frames(flows=64, packets_per_flow=4, seed=25,
                                       frag_datagrams=0, non_ip=0)
    rpstest.send_on_iface(IFACE, sent)

    def rx_seen():
        r = rpstest.telemetry(prefix, '/rps/stats')
        st = r[0].get('/rps/stats') if r else None
        return st if st and st.get('rx_packets', 0) >= len(sent) else None

    F.check(rpstest.wait_for(rx_seen, timeout=15, step=0.1) is not None,
            '4 queue pairs: fewer than the %d frames written were received' % len(sent))
    out, err = rpstest.stop(proc, prefix)
    err = err.decode(errors='replace')
    F.check('4 RX queue(s)' in err, '4 queue pairs: the log does not say 4 RX queues: %r'
            % err[-1500:])
    summ = rpstest.check_stopped(F, proc, err, summary_path, '4 queue pairs')
    if summ is not None:
        print('4 queue pairs: rx %d processed %d tx %d' % (
            summ['rx_packets'], summ['processed'], summ['tx_packets']), flush=True)
        F.check(summ['rx_packets'] >= len(sent), '4 queue pairs: rx_packets %d < %d sent' % (
            summ['rx_packets'], len(sent)))


def main():
    binary = rpstest.binary_from_argv()
    if rpstest.tap_skip():
        return SKIP
    F = rpstest.Failures('test_tap_queues')
    with rpstest.TempDir('tapq') as tmp:
        # 7 workers transmitting: 7 TX queues, more than the 4 queue pairs net_tap starts
        words = ['--rx-port 0', 'net_tap', '7 TX', 'at most 4 queue pairs']
        refused(F, binary, ['--map', '0xfe', '--tx-port', '0'], words + ['16 RX'],
                'net_tap, 7 workers, default RX queues')
        refused(F, binary, ['--map', '0xfe', '--tx-port', '0', '--rx-queues', '7'],
                words + ['7 RX'], 'net_tap, 7 workers, --rx-queues 7')
        # not the TX port, one idle TX queue: the pair rule alone, and its way out
        refused(F, binary, ['--map', '0xfe'], ['--rx-port 0', 'net_tap', 'try --rx-queues 1'],
                'net_tap, 16 RX queues against 1 TX queue')
        four_pairs(F, binary, tmp)
    return F.report()


if __name__ == '__main__':
    sys.exit(main())
