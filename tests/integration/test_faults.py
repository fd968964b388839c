#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_faults.py: the packet pool runs dry; the TX port stops accepting. Both made by test
hooks (app/test_hooks.c), so they happen on any machine, and both watched live through a
telemetry client held on the socket while the process runs.

nombuf: 30,000 packets paced at 50 us (RPS_TEST_RX_DELAY_NS), --mbufs 1024 (less than one
  backlog), worker 0 stops for 800 ms after 2,000 packets (RPS_TEST_WORKER_STALL): its
  backlog takes every mbuf and the PMD finds none for the next packet. Then: /rps/stats shows
  port.rx_nombuf > 0 and the pool nearly empty while it happens (live, not only at exit);
  RX resumes when the worker frees its mbufs (rx_packets grows after); every packet of the
  capture is either seen by dpdk-rps or counted in rx_nombuf (ipackets + rx_nombuf ==
  30,000), nothing dpdk-rps saw is dropped, exit 0, every mbuf back in the pool. The
  packets not received stand beside rx_packets = processed + dropped: rx_nombuf > 0 in the
  summary JSON (top level and rx_ports[]), the summary's "not received" line and a line of
  the live table (--stats-interval 1); in the stuck_tx run they are 0 there.

stuck_tx: 30,000 packets paced at 50 us (1.5 s: 0.8 s stuck, then the recovery over more
  than ten thousand packets), two workers transmitting on a net_ring port whose rings nobody
  drains (each holds 1,024) until RPS_TEST_RING_DRAIN starts emptying them after 800 ms.
  Then: while stuck, the workers keep taking packets and count the refused ones as tx_failed
  (nothing blocks: no backlog_full, backlogs keep moving); once the rings drain, TX resumes
  (the TX port's opackets passes the rings' capacity) and tx_failed almost stops (< 10% of
  what the workers take after that point, allowing a descheduled drain thread);
  tx_packets + tx_failed == rx_packets; exit 0; every mbuf back in the pool.

usage: test_faults.py PATH/TO/dpdk-rps
"""
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rpstest  # noqa: E402


def start(binary, tmp, tag, vdevs, app, env, lcores='0@0,(1-2)@1'):
    prefix = rpstest.unique_prefix()
    summary = os.path.join(tmp, tag + '.json')
    eal = rpstest.eal_args(prefix, lcores=lcores, vdevs=vdevs)
    cmd = [binary] + eal + ['--'] + app + ['--summary-json', summary]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, start_new_session=True,
                            env=dict(os.environ, **env))
    return proc, prefix, summary


def watch(proc, prefix, timeout=60.0):
    """Poll /rps/stats every 20 ms until the process exits: the replies, in order."""
    seen = []
    if rpstest.wait_ready_socket(prefix) is None:
        return seen
    try:
        tel = rpstest.Telemetry(prefix)
    except OSError:
        return seen
    deadline = time.monotonic() + timeout
    while proc.poll() is None and time.monotonic() < deadline:
        v, _ = tel.query('/rps/stats')
        if v is None:
            break
        seen.append(v)
        time.sleep(0.02)
    tel.close()
    return seen


def finish(F, proc, prefix, summary, ctx, timeout=60.0):
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        out, err = rpstest.stop(proc, prefix)
        F.fail('%s: did not exit by itself within %.0f s' % (ctx, timeout))
    rpstest.remove_runtime_dir(prefix)
    text = out.decode(errors='replace')
    print(text[-1500:], flush=True)
    return rpstest.check_stopped(F, proc, err, summary, ctx), text


def received(v):
    return sum(w.get('received_rps', 0) for k, w in v.items() if k.startswith('worker_'))


LIVE = re.compile(r'^\[ *[0-9.]+s\] rx .* not received: rx_nombuf (\d+)  imissed (\d+)$', re.M)
SUMMARY = re.compile(r'^  not received \(outside rx_packets\): rx_nombuf (\d+)  imissed (\d+)$',
                     re.M)


def not_received(F, s, out, ctx, dry):
    """rx_nombuf and imissed beside rx_packets = processed + dropped: in the summary JSON, the
    summary text and (dry only, with --stats-interval) the live table; non-zero when the
    pool ran dry, 0 in a run where it did not."""
    if s is None:
        return
    port = s.get('port', {})
    F.check(s.get('rx_nombuf') == port.get('rx_nombuf') and
            s.get('imissed') == port.get('imissed') and
            [p.get('rx_nombuf') for p in s.get('rx_ports', [])] == [port.get('rx_nombuf')],
            '%s: summary JSON rx_nombuf %s, imissed %s, rx_ports %s: not the port\'s %s' % (
                ctx, s.get('rx_nombuf'), s.get('imissed'), s.get('rx_ports'), port))
    text = SUMMARY.findall(out)
    F.check(text == [(str(s.get('rx_nombuf')), str(s.get('imissed')))],
            '%s: summary text "not received" line %s, JSON rx_nombuf %s imissed %s' % (
                ctx, text, s.get('rx_nombuf'), s.get('imissed')))
    if dry:
        F.check((s.get('rx_nombuf') or 0) > 0, '%s: summary rx_nombuf %s' % (
            ctx, s.get('rx_nombuf')))
        live = [int(a) for a, _ in LIVE.findall(out)]
        print('%s: live table rx_nombuf %s' % (ctx, live), flush=True)
        F.check(any(v > 0 for v in live) and max(live) <= s['rx_nombuf'],
                '%s: the live table never showed rx_nombuf > 0 (lines: %s)' % (ctx, live))
    else:
        F.check(s.get('rx_nombuf') == 0 and s.get('imissed') == 0,
                '%s: rx_nombuf %s, imissed %s in a run whose pool never ran dry' % (
                    ctx, s.get('rx_nombuf'), s.get('imissed')))


def nombuf(F, binary, tmp):
    ctx = 'nombuf'
    n = 30000
    inp = os.path.join(tmp, 'nombuf.pcap')
    rpstest.write_pcap(inp, rpstest.gen_traffic.generate_frames(
        flows=30, packets_per_flow=n // 30, seed=5, frag_datagrams=0, non_ip=0))
    env = {'RPS_TEST_WORKER_STALL': '0:2000:800', 'RPS_TEST_RX_DELAY_NS': '50000'}
    proc, prefix, summary = start(
        binary, tmp, ctx, [rpstest.pcap_vdev(rx=inp)],
        ['--map', '0x6', '--mbufs', '1024', '--backlog', '4096', '--backpressure', 'off',
         '--idle-sleep', '1000', '--exit-when-idle', '300', '--stats-interval', '1'], env)
    seen = watch(proc, prefix)
    s, out = finish(F, proc, prefix, summary, ctx)
    not_received(F, s, out, ctx, dry=True)
    dry = [i for i, v in enumerate(seen) if v.get('port', {}).get('rx_nombuf', 0) > 0]
    print('%s: %d live polls, rx_nombuf first seen at poll %s' % (
        ctx, len(seen), dry[0] if dry else None), flush=True)
    if F.check(dry, '%s: no /rps/stats reply showed port.rx_nombuf > 0 while running '
               '(polls: %d; last %s)' % (ctx, len(seen), seen[-1] if seen else None)):
        first = seen[dry[0]]
        pool = first.get('mempool', {})
        print('%s: live at that poll: port %s mempool %s' % (ctx, first['port'], pool))
        F.check(pool.get('available', 1 << 30) <= pool.get('size', 0) // 4,
                '%s: the pool was not nearly empty when rx_nombuf rose: %s' % (ctx, pool))
        if s is not None:
            F.check(s['rx_packets'] > first['rx_packets'],
                    '%s: RX did not resume once the worker freed its mbufs: %d at the first '
                    'rx_nombuf, %d at exit' % (ctx, first['rx_packets'], s['rx_packets']))
    if s is None:
        return
    port = s.get('port', {})
    print('%s: summary rx %d processed %d port %s' % (ctx, s['rx_packets'], s['processed'],
                                                     port), flush=True)
    F.check(port.get('rx_nombuf', 0) > 0, '%s: the pool never ran dry: %s' % (ctx, port))
    F.check(port.get('ipackets', 0) + port.get('rx_nombuf', 0) == n,
            '%s: ipackets %s + rx_nombuf %s != %d packets in the capture: lost uncounted'
            % (ctx, port.get('ipackets'), port.get('rx_nombuf'), n))
    F.check(rpstest.dropped_total(s) == 0, '%s: dpdk-rps dropped what it saw: %s'
            % (ctx, s['dropped']))


def stuck_tx(F, binary, tmp):
    ctx = 'stuck_tx'
    n, ring = 30000, 1024
    inp = os.path.join(tmp, 'stuck.pcap')
    rpstest.write_pcap(inp, rpstest.gen_traffic.generate_frames(
        flows=30, packets_per_flow=n // 30, seed=6, frag_datagrams=0, non_ip=0))
    env = {'RPS_TEST_RING_DRAIN': 'net_ring0:800', 'RPS_TEST_RX_DELAY_NS': '50000'}
    proc, prefix, summary = start(
        binary, tmp, ctx, [rpstest.pcap_vdev(rx=inp), 'net_ring0'],
        ['--map', '0x6', '--tx-port', '1', '--stages', 'parse,output',
         '--exit-when-idle', '300'], env)
    seen = watch(proc, prefix)
    s, out = finish(F, proc, prefix, summary, ctx)
    not_received(F, s, out, ctx, dry=False)
    failing = [i for i, v in enumerate(seen) if v.get('dropped_tx_failed', 0) > 0]
    resumed = [i for i, v in enumerate(seen)
               if v.get('tx_port', {}).get('opackets', 0) > 2 * ring + 1000]
    print('%s: %d live polls, tx_failed first at %s, TX resumed at %s' % (
        ctx, len(seen), failing[0] if failing else None, resumed[0] if resumed else None))
    if not F.check(failing, '%s: no reply showed tx_failed > 0 while the rings were full '
                   '(last %s)' % (ctx, seen[-1] if seen else None)):
        return
    stuck = seen[failing[0]]
    later = [v for v in seen[failing[0] + 1:] if v.get('dropped_tx_failed', 0) >
             stuck['dropped_tx_failed']]
    F.check(later and received(later[-1]) > received(stuck),
            '%s: the workers stopped taking packets while TX was stuck' % ctx)
    if F.check(resumed, '%s: TX never resumed after the drain (last %s)' % (
            ctx, seen[-1].get('tx_port') if seen else None)) and s is not None:
        r = seen[resumed[0]]
        took = s['rx_packets'] - received(r)
        failed = s['dropped']['tx_failed'] - r['dropped_tx_failed']
        print('%s: after TX resumed: %d taken, %d more tx_failed' % (ctx, took, failed))
        F.check(took > 0 and failed * 10 < took,
                '%s: after TX resumed %d of %d packets still failed' % (ctx, failed, took))
    if s is None:
        return
    d = s['dropped']
    print('%s: summary rx %d tx %d tx_failed %d' % (ctx, s['rx_packets'], s['tx_packets'],
                                                   d['tx_failed']), flush=True)
    F.check(s['rx_packets'] == n, '%s: rx_packets %d != %d' % (ctx, s['rx_packets'], n))
    F.check(d['tx_failed'] > 0, '%s: no tx_failed at exit' % ctx)
    F.check(d['backlog_full'] == 0 and d['stranded'] == 0,
            '%s: a stuck TX port blocked the workers: %s' % (ctx, d))
    F.check(s['tx_packets'] + d['tx_failed'] == s['rx_packets'],
            '%s: tx_packets %d + tx_failed %d != rx_packets %d' % (
                ctx, s['tx_packets'], d['tx_failed'], s['rx_packets']))


def main():
    binary = rpstest.binary_from_argv()
    F = rpstest.Failures('test_faults')
    with rpstest.TempDir('faults') as tmp:
        if not rpstest.hooks_built(binary, tmp):
            print('SKIP: %s: the faults need the test hooks' % rpstest.NO_HOOKS)
            return rpstest.SKIP
        nombuf(F, binary, tmp)
        stuck_tx(F, binary, tmp)
    return F.report()


if __name__ == '__main__':
    sys.exit(main())
