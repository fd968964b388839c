#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_stall.py: a worker that stops draining its backlog (--stall-timeout).

The test hook RPS_TEST_WORKER_STALL=W:P:MS makes worker W stop polling its backlog for MS ms
once it has dequeued P packets, whatever the machine's speed.

recover: 3 workers (lcores 1-3), 30 flows x 2000 packets read by an RX lcore paced to 50 us
  per packet (RPS_TEST_RX_DELAY_NS: 3 s of traffic on any machine), --stall-timeout 300;
  worker 0 stops for 600 ms after 2000 packets. Then: worker 0 was declared stalled once and
  came back once (summary: stalls 1, recoveries 1, health ok); buckets left it before it had
  drained them (failover_moves > 0); the other workers dropped nothing (the traffic not aimed
  at the fault kept flowing); on the wire (one TX queue per worker) flows that started on
  worker 0 went out on another worker during the stall and on worker 0 again at the end (its
  buckets returned after the hold-down); exit 0, rx_packets == processed + dropped, every
  mbuf back in the pool.

recover, 2 RX lcores: the same with the flows split over two RX queues, each polled by its
  own RX lcore (--rx-lcores 0,1): the failover and the return hold on both queues' maps.

stuck: worker 0 stops for an hour after 500 packets of a short capture: the process still
  exits (status 1, within the hold-down and a margin), its backlog counted as dropped
  `stranded`, accounting exact, worker 0 reported stalled.

stuck, health off: the same without --stall-timeout, stopped by SIGINT: nothing declares the
  worker stalled, and the stop still ends within the exit's deadline and a margin (status 1),
  the worker's progress reported each second, its backlog counted `stranded`. The deadline
  is 10 s; the test hook RPS_TEST_EXIT_WAIT_S sets it to 2 s here: the same wait, reports
  and give-up (health.c), 8 s sooner.

usage: test_stall.py PATH/TO/dpdk-rps
"""
import functools
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rpstest  # noqa: E402

WORKERS = [1, 2, 3]


def flows_by_queue(tx):
    """Per flow id, the TX queue of each of its packets in file order of timestamps."""
    per = {}
    for _, q, (fid, _) in rpstest.wire_order(tx):
        per.setdefault(fid, []).append(q)
    return per


@functools.lru_cache(maxsize=None)
def recover_frames():
    """The capture of both recover runs (made once: 60,000 frames take a while in Python)."""
    return tuple(rpstest.gen_traffic.generate_frames(
        flows=30, packets_per_flow=2000, seed=9, frag_datagrams=0, non_ip=0))


def recover(F, binary, tmp, rx_lcores=1):
    """rx_lcores 2: the flows split over two RX queues, one per RX lcore (lcores 0 and 1 on
    CPU 0), workers on lcores 2-4: the failover moves the stalled worker's buckets off both
    queues' maps."""
    ctx = 'recover' if rx_lcores == 1 else 'recover, 2 RX lcores'
    frames = recover_frames()
    # The buckets return a hold-down (1 s) after the recovery (~0.75 s in): the traffic must
    # still flow then whatever the scheduler does. The RX delay is a floor on its duration:
    # 60,000 packets x 50 us on one RX lcore, 30,000 x 100 us on each of two: 3 s either way.
    # (50 us on each of two RX lcores gave 1.5 s, and flows ended before they could return
    # when the two lcores sharing CPU 0 were not slowed by each other.)
    env = {'RPS_TEST_WORKER_STALL': '0:2000:600',
           'RPS_TEST_RX_DELAY_NS': '50000' if rx_lcores == 1 else '100000'}
    app = ['--tx-port', '0', '--stages', 'parse,output', '--backlog', '1024',
           '--stall-timeout', '300', '--exit-when-idle', '300']
    tag = 'recover%d' % rx_lcores
    if rx_lcores == 1:
        inp = os.path.join(tmp, 'in.pcap')
        rpstest.write_pcap(inp, frames)
        res, tx = rpstest.run_pcap(binary, tmp, inp, len(WORKERS), ['--map', '0xe'] + app,
                                   lcores='0@0,(1-3)@1', timeout=60, tag=tag, env=env)
        workers = WORKERS
    else:
        qs = [os.path.join(tmp, 'in_q%d.pcap' % q) for q in range(2)]
        for q, path in enumerate(qs):  # a flow on one queue, as a NIC's RSS would
            rpstest.write_pcap(path, [f for f in frames if rpstest.marker(f)[0] % 2 == q])
        workers = [2, 3, 4]
        tx = [os.path.join(tmp, '%s_w%d.pcap' % (tag, i)) for i in range(len(workers))]
        prefix = rpstest.unique_prefix()
        vdev = 'net_pcap0,' + ','.join(['rx_pcap=%s' % q for q in qs] +
                                       ['tx_pcap=%s' % t for t in tx])
        eal = rpstest.eal_args(prefix, lcores='(0-1)@0,(2-4)@1', vdevs=[vdev])
        res = rpstest.run_rps(binary, eal, ['--rx-lcores', '0,1', '--map', '2-4'] + app,
                              timeout=60, summary_path=os.path.join(tmp, tag + '.json'),
                              prefix=prefix, env=env)
    s = rpstest.check_exit(F, res, ctx)
    if s is None:
        return None
    F.check(s['rx_packets'] == 60000, '%s: rx_packets %d of 60000' % (ctx, s['rx_packets']))
    F.check(s['mempool']['in_use_at_exit'] == 0, '%s: mbufs leaked: %s' % (ctx, s['mempool']))
    w = rpstest.worker_table(s, workers)
    print('%s: health %s, failover_moves %d, flows_migrated %d, dropped %s' % (
        ctx, [(x['health'], x['stalls'], x['recoveries']) for x in w],
        s['rx_lcore']['failover_moves'], s['rx_lcore']['flows_migrated'], s['dropped']),
        flush=True)
    F.check((w[0]['stalls'], w[0]['recoveries'], w[0]['health']) == (1, 1, 'ok'),
            '%s: worker 0: stalls %s, recoveries %s, health %s; expected 1, 1, ok' % (
                ctx, w[0]['stalls'], w[0]['recoveries'], w[0]['health']), res)
    for i in (1, 2):
        F.check(w[i]['stalls'] == 0 and sum(w[i]['dropped'].values()) == 0,
                '%s: healthy worker %d: stalls %s, dropped %s' % (
                    ctx, i, w[i]['stalls'], w[i]['dropped']))
    F.check(s['rx_lcore']['failover_moves'] > 0, '%s: no failover move' % ctx, res)
    per = flows_by_queue(tx)
    started0 = [f for f, qs in per.items() if qs[0] == 0]
    moved = [f for f in started0 if any(q != 0 for q in per[f])]
    back = [f for f in moved if per[f][-1] == 0]
    print('%s: %d flows started on worker 0, %d went elsewhere during the stall, %d ended on '
          'it again' % (ctx, len(started0), len(moved), len(back)), flush=True)
    F.check(len(started0) > 0 and len(moved) == len(started0),
            '%s: flows of worker 0 that never left it: %s' % (
                ctx, sorted(set(started0) - set(moved))[:10]))
    F.check(len(back) == len(moved), '%s: flows not returned to worker 0 after the hold-down: '
            '%s' % (ctx, sorted(set(moved) - set(back))[:10]))
    return s


def stuck_input(tmp):
    """The capture and hooks of the stuck cases: worker 0 stops for an hour after 500 of
    10,000 packets paced at 20 us."""
    inp = os.path.join(tmp, 'in_stuck.pcap')
    if not os.path.exists(inp):
        rpstest.write_pcap(inp, rpstest.gen_traffic.generate_frames(
            flows=20, packets_per_flow=500, seed=10, frag_datagrams=0, non_ip=0))
    return inp, {'RPS_TEST_WORKER_STALL': '0:500:3600000', 'RPS_TEST_RX_DELAY_NS': '20000'}


def stuck(F, binary, tmp):
    ctx = 'stuck'
    inp, env = stuck_input(tmp)
    res, _ = rpstest.run_pcap(binary, tmp, inp, len(WORKERS),
                              ['--map', '0xe', '--tx-port', '0', '--stages', 'parse,output',
                               '--backlog', '4096', '--stall-timeout', '300',
                               '--exit-when-idle', '300'],
                              lcores='0@0,(1-3)@1', timeout=60, tag='stuck', env=env)
    print('%s: exit %s in %.1f s' % (ctx, res.rc, res.elapsed), flush=True)
    if not F.check(res.rc == 1, '%s: exit %s, expected 1 (a worker given up on)' % (
            ctx, res.rc), res):
        return
    if not F.check(res.summary is not None, '%s: %s' % (ctx, res.summary_error), res):
        return
    s = res.summary
    F.extend(rpstest.check_accounting(s), ctx, res)
    F.check(s['rx_packets'] == 10000, '%s: rx_packets %d of 10000' % (ctx, s['rx_packets']))
    w = rpstest.worker_table(s, WORKERS)
    stranded = s['dropped'].get('stranded', 0)
    print('%s: stranded %d, worker 0 %s, failover_moves %d' % (
        ctx, stranded, w[0]['health'], s['rx_lcore']['failover_moves']), flush=True)
    F.check(stranded > 0, '%s: nothing counted stranded' % ctx, res)
    F.check(w[0]['health'] == 'stalled' and w[0]['stalls'] == 1,
            '%s: worker 0 health %s stalls %s' % (ctx, w[0]['health'], w[0]['stalls']))
    F.check('still stalled at exit' in res.stderr, '%s: no log line for the stuck worker' % ctx,
            res)


# The exit's deadline for a worker still running (health.c EXIT_WAIT_S, 10 s), cut by the
# test hook RPS_TEST_EXIT_WAIT_S: the same loop gives up, reporting each second meanwhile.
EXIT_WAIT_S = 2
STOP_MARGIN_S = 8       # a loaded machine's start of the give-up, teardown and exit (ASan)


def stuck_no_health(F, binary, tmp):
    """The same stuck worker with the health check off (no --stall-timeout): nothing declares
    it stalled, yet a stop must end. SIGINT 1 s after ready (the 0.2 s capture read): exit 1
    within EXIT_WAIT_S (2 s under the hook) and a margin from the signal, progress reported
    each second (0 processed), the worker given up on as running EXIT_WAIT_S s after the
    stop, its backlog counted stranded, accounting exact."""
    ctx = 'stuck, health off'
    inp, env = stuck_input(tmp)
    env = dict(env, RPS_TEST_EXIT_WAIT_S=str(EXIT_WAIT_S))
    res, _ = rpstest.run_pcap(binary, tmp, inp, len(WORKERS),
                              ['--map', '0xe', '--tx-port', '0', '--stages', 'parse,output',
                               '--backlog', '4096'],
                              lcores='0@0,(1-3)@1', timeout=60, tag='stuck_nh', env=env,
                              stop_signal=signal.SIGINT, signal_after=1.0, after_ready=True)
    took = res.elapsed - res.signalled_at if res.signalled_at is not None else None
    print('%s: exit %s in %.1f s, %s s after SIGINT (1 s after ready)' % (
        ctx, res.rc, res.elapsed, took and '%.1f' % took), flush=True)
    if not F.check(res.rc == 1, '%s: exit %s, expected 1 (a worker given up on)' % (
            ctx, res.rc), res):
        return
    F.check(took is not None and took < EXIT_WAIT_S + STOP_MARGIN_S,
            '%s: %s s from SIGINT to exit: the stop took more than %d s and a margin' % (
                ctx, took and '%.1f' % took, EXIT_WAIT_S), res)
    if not F.check(res.summary is not None, '%s: %s' % (ctx, res.summary_error), res):
        return
    s = res.summary
    F.extend(rpstest.check_accounting(s), ctx, res)
    stranded = s['dropped'].get('stranded', 0)
    reports = [l for l in res.stderr.splitlines() if 'still running' in l and
               'after the stop:' in l]
    print('%s: stranded %d; %d progress report(s), last: %s' % (
        ctx, stranded, len(reports), reports[-1] if reports else None), flush=True)
    F.check(stranded > 0, '%s: nothing counted stranded' % ctx, res)
    F.check(reports and ' 0 processed in the last second' in reports[-1],
            '%s: no progress report saying the worker processed nothing' % ctx, res)
    F.check('still running %d s after the stop at exit' % EXIT_WAIT_S in res.stderr,
            '%s: no log line giving up on the worker' % ctx, res)


def main():
    binary = rpstest.binary_from_argv()
    F = rpstest.Failures('test_stall')
    with rpstest.TempDir('stall') as tmp:
        rpstest.skip_without_hooks(binary, tmp, 'RPS_TEST_WORKER_STALL, RPS_TEST_RX_DELAY_NS, '
                                   'RPS_TEST_EXIT_WAIT_S')
        recover(F, binary, tmp)
        recover(F, binary, tmp, rx_lcores=2)
        stuck(F, binary, tmp)
        stuck_no_health(F, binary, tmp)
    return F.report()


if __name__ == '__main__':
    sys.exit(main())
