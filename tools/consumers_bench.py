#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""consumers_bench.py: the dpdk-rps binary delivering to memif consumers, one queue per
worker (--consumers 2 on 2 workers) against two workers sharing one consumer's queue
(--consumers 1), on the same endless replay (net_pcap infinite_rx, 256 flows of 64..128-byte
frames), the consumers dpdk-testpmd memif clients in rxonly mode. Runs alternate (2 1 2 1
...); each prints its figures (delivered Mpps over the run, consumer_full and backlog
drops a second) with the command that reproduces it, then the medians.

With backpressure off (a NIC's default) a consumer that cannot keep up loses packets
(consumer_full); --backpressure on shows what is delivered when nothing may be lost.

usage: consumers_bench.py [--rps build/app/dpdk-rps] [--runs 3] [--seconds 4]
                          [--backpressure off|on]
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests',
                                'integration'))
import rpstest  # noqa: E402


def testpmd(tmp, sock, tag):
    prefix = rpstest.unique_prefix()
    cmd = ['dpdk-testpmd', '--no-huge', '-m', '256', '--no-pci', '-l', '0,1',
           '--file-prefix', prefix, '--log-level', 'lib.eal:warning',
           '--vdev', 'net_memif0,role=client,id=0,socket=%s,socket-abstract=no,rsize=11' % sock,
           '--', '--forward-mode=rxonly', '--rxq=1', '--txq=1', '--total-num-mbufs=8192',
           '--disable-link-check', '--no-flush-rx']
    log = open(os.path.join(tmp, tag + '.log'), 'w')
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=log, stderr=subprocess.STDOUT,
                         start_new_session=True)
    p.prefix = prefix
    return p


def stop(p):
    try:
        p.communicate(b'\n', timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, 9)
        p.wait()
    rpstest.remove_runtime_dir(p.prefix)


def one(binary, tmp, inp, k, seconds, backpressure, n):
    sock = os.path.join(tmp, 'r%d-c%%u.sock' % n)
    prefix = rpstest.unique_prefix()
    eal = rpstest.eal_args(prefix, lcores='0@0,(1-2)@1',
                           vdevs=[rpstest.pcap_vdev(rx=inp, infinite_rx=True)])
    app = ['--consumers', str(k), '--consumer-socket', sock, '--consumer-wait', '20000',
           '--backpressure', backpressure, '--duration', str(seconds)]
    clients = []

    def start():
        rpstest.wait_for(lambda: all(os.path.exists(sock % c) for c in range(k)), timeout=30)
        for c in range(k):
            clients.append(testpmd(tmp, sock % c, 'r%d-c%d' % (n, c)))

    t = threading.Thread(target=start)
    t.start()
    r = rpstest.run_rps(binary, eal, app, timeout=seconds + 60,
                        summary_path=os.path.join(tmp, 'r%d.json' % n), prefix=prefix)
    t.join()
    for p in clients:
        stop(p)
    s = r.summary
    if r.rc != 0 or s is None:
        print('run %d: exit %s\n%s' % (n, r.rc, r.stderr[-800:]))
        return None
    delivered = sum(c['delivered'] for c in s['consumers'])
    full = sum(c['dropped']['consumer_full'] for c in s['consumers'])
    backlog = s['dropped'].get('backlog_full', 0)
    el = s.get('duration_s') or seconds
    print('%-28s delivered %6.3f Mpps  consumer_full %8.0f/s  backlog_full %8.0f/s\n'
          '    %s %s -- %s' % ('consumers %d (2 workers%s)' % (
              k, ', sharing' if k == 1 else ''), delivered / el / 1e6, full / el,
              backlog / el, binary, ' '.join(eal), ' '.join(app)))
    return delivered / el / 1e6


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--rps', default='build/app/dpdk-rps')
    ap.add_argument('--runs', type=int, default=3)
    ap.add_argument('--seconds', type=int, default=4)
    ap.add_argument('--backpressure', default='off', choices=('off', 'on'))
    a = ap.parse_args()
    if shutil.which('dpdk-testpmd') is None:
        sys.exit('dpdk-testpmd is not installed')
    with tempfile.TemporaryDirectory(prefix='rps-cbench-') as tmp:
        inp = os.path.join(tmp, 'in.pcap')
        rpstest.write_pcap(inp, rpstest.gen_traffic.generate_frames(
            flows=256, packets_per_flow=8, seed=28, frag_datagrams=0, non_ip=0))
        got = {2: [], 1: []}
        n = 0
        for _ in range(a.runs):
            for k in (2, 1):
                v = one(os.path.abspath(a.rps), tmp, inp, k, a.seconds, a.backpressure, n)
                n += 1
                if v is not None:
                    got[k].append(v)
                time.sleep(0.5)
        for k in (2, 1):
            if got[k]:
                print('median, --consumers %d: %.3f Mpps delivered (%d runs)' % (
                    k, statistics.median(got[k]), len(got[k])))


if __name__ == '__main__':
    main()
