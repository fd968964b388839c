#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_egress_order.py: after a remap storm every flow leaves the TX port in order.

--check-order proves a flow's packets reach their workers in order; this checks the wire.
Each worker transmits on its own TX queue, which net_pcap writes to its own file with a
nanosecond timestamp taken as the packet is written. A bucket moves only once its old worker
has handed the bucket's packets to its TX queue (the worker flushes each burst before it
reports it done), so merging the files by timestamp must give every flow in sequence.

A capture of 16 flows x 7000 packets (generated markers: flow id, sequence) read once by an
RX lcore paced to 5 us per packet (test hook RPS_TEST_RX_DELAY_NS: 0.56 s of traffic on any
machine) into 3 workers slowed to 10 us per packet (RPS_TEST_WORKER_DELAY_NS: a map with one
or two workers cannot keep up, so backlogs are deep at every remap), with a 100 ms silence
after every 8000 packets (RPS_TEST_RX_GAP: every backlog drains, 10x what the slowest run
needs, so a move deferred while its old worker was behind completes at the latest there and
flows do change worker whatever the machine's speed); 40 remaps by SIGHUP, 40 ms apart, from
readiness on. Per flow, in timestamp order, the sequence must only grow (backlog_full drops
leave gaps). reorder_safe on: never out of order; off (the control): some.

The capture lasts about 2.8 s (the pacing, 13 silences, the slowed workers), longer than the
40 remaps take (about 2 s; each run prints both): every remap still falls on traffic, as
with the 10000 packets per flow of before, whose last 2 s came after the last remap and
checked nothing more. The run stops 100 ms after the capture (--exit-when-idle: nothing
arrives once net_pcap has read it; the silences are RX busy, not idle).

usage: test_egress_order.py PATH/TO/dpdk-rps
"""
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rpstest  # noqa: E402

MASKS = ['0xe', '0x6', '0xa', '0xc', '0x2', '0x8', '0x4']
FLOWS, PER_FLOW = 16, 7000
WORKERS = 3
REMAPS = 40


def run(F, binary, tmp, inp, safe, tag):
    cfg = os.path.join(tmp, tag + '.conf')
    body = '[dataplane]\nreorder_safe = %s\n[map]\ndefault = %%s\n' % ('on' if safe else 'off')
    with open(cfg, 'w') as f:
        f.write(body % MASKS[0])
    prefix = rpstest.unique_prefix()
    summary = os.path.join(tmp, tag + '.json')
    tx = [os.path.join(tmp, '%s_q%d.pcap' % (tag, i)) for i in range(WORKERS)]
    eal = rpstest.eal_args(prefix, lcores='0@0,(1-3)@1',
                           vdevs=[rpstest.pcap_vdev(rx=inp, tx=tx)])
    cmd = [binary] + eal + ['--', '--config', cfg, '--tx-port', '0', '--backlog', '1024',
                            '--stages', 'parse,output', '--exit-when-idle', '100',
                            '--summary-json', summary]
    env = dict(os.environ, **{rpstest.WORKER_DELAY: '10000', 'RPS_TEST_RX_DELAY_NS': '5000',
                              'RPS_TEST_RX_GAP': '8000:100'})
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, start_new_session=True, env=env)
    try:
        F.check(rpstest.wait_ready_socket(prefix) is not None, '%s: never ready' % tag)
        t0 = time.monotonic()
        for i in range(REMAPS):
            with open(cfg, 'w') as f:
                f.write(body % MASKS[(i + 1) % len(MASKS)])
            if proc.poll() is not None:
                break
            os.kill(proc.pid, signal.SIGHUP)
            time.sleep(0.04)
        remapping = time.monotonic() - t0
        out, err = proc.communicate(timeout=60)
        print('%s: %d remaps in %.2f s; the run (its traffic, then 100 ms idle) ended %.2f s '
              'after the first' % (tag, i + 1, remapping, time.monotonic() - t0), flush=True)
    except subprocess.TimeoutExpired:
        out, err = rpstest.stop(proc, prefix)
    finally:
        rpstest.remove_runtime_dir(prefix)
    s = rpstest.check_stopped(F, proc, err, summary, tag)
    if s is None:
        return None
    # the wire: every TX file's records by timestamp, then per flow in that order
    wire = rpstest.wire_order(tx)
    last, back, moves = {}, 0, 0
    for _, q, (fid, seq) in wire:
        if fid in last:
            pq, pseq = last[fid]
            moves += pq != q
            if seq <= pseq:
                back += 1
        last[fid] = (q, seq)
    print('%s: rx %d, on the wire %d packets, %d queue changes of a flow, %d out of order; '
          'flows_migrated %d, migrations_deferred %d' % (
              tag, s['rx_packets'], len(wire), moves, back, s['rx_lcore']['flows_migrated'],
              s['rx_lcore']['migrations_deferred']), flush=True)
    F.check(moves > 0, '%s: no flow changed TX queue (%d packets deferred): the silences '
            'should have let the moves complete' % (tag, s['rx_lcore']['migrations_deferred']))
    F.check(s['rx_packets'] == FLOWS * PER_FLOW, '%s: rx_packets %d of %d' % (
        tag, s['rx_packets'], FLOWS * PER_FLOW))
    return back


def main():
    binary = rpstest.binary_from_argv()
    F = rpstest.Failures('test_egress_order')
    with rpstest.TempDir('egress') as tmp:
        rpstest.skip_without_hooks(binary, tmp, 'RPS_TEST_WORKER_DELAY_NS, RPS_TEST_RX_DELAY_NS, '
                                   'RPS_TEST_RX_GAP')
        inp, _ = rpstest.write_input(tmp, flows=FLOWS, packets_per_flow=PER_FLOW, seed=4,
                                     frag_datagrams=0, non_ip=0)
        on = run(F, binary, tmp, inp, True, 'on')
        if on is not None:
            F.check(on == 0, 'reorder_safe on: %d packets left after a later one of their '
                    'flow' % on)
        off = run(F, binary, tmp, inp, False, 'off')
        if off is not None:
            F.check(off > 0, 'reorder_safe off: nothing out of order on the wire: the test '
                    'cannot show what the reorder-safe moves prevent')
    return F.report()


if __name__ == '__main__':
    sys.exit(main())
