#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_reorder.py: remaps under traffic never reorder a flow when reorder_safe is on, and do
when it is off (the reason the feature exists).

dpdk-rps runs with --check-order (every packet is stamped by the RX lcore with its flow
bucket's sequence number; workers count stamps that arrive after a later one) on a looping
capture, the RX lcore and three workers time-sliced on one CPU. Three runs:
1. reorder_safe off, no remap: reordered == 0 (the measurement itself is sound);
2. reorder_safe on, 150 remaps by SIGHUP 10 ms apart: reordered == 0, flows_migrated > 0,
   migrations_deferred > 0;
3. reorder_safe off, the same remaps: reordered > 0.
Each run: exit 0, accounting exact, every mbuf back in the pool. The remaps start once
traffic has reached the workers (/rps/stats), and traffic goes on 0.5 s after the last.
At 10 ms apart (20 ms before) as many flows migrate (about 7000), more migrations are
deferred, and reorder_safe off still reorders thousands of packets.

usage: test_reorder.py PATH/TO/dpdk-rps
"""
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rpstest  # noqa: E402

INTERVAL = 0.01     # between remaps (the docstring says why 10 ms keeps the margins)
MASKS = ['0x6', '0xe', '0xa', '0xc', '0x2', '0x8', '0x4']


def run(F, binary, tmp, inp, safe, remaps, tag):
    cfg = os.path.join(tmp, tag + '.conf')
    body = '[dataplane]\nreorder_safe = %s\n[map]\ndefault = %%s\n' % ('on' if safe else 'off')
    with open(cfg, 'w') as f:
        f.write(body % '0xe')
    prefix = rpstest.unique_prefix()
    summary = os.path.join(tmp, tag + '.json')
    # The RX lcore shares one CPU with the workers, so the workers keep up on average
    # (a bucket moves only once its old worker drained it: under sustained overload a busy
    # bucket keeps its worker, as in Linux RFS) while time slicing still leaves deep
    # backlogs behind every remap.
    eal = rpstest.eal_args(prefix, lcores='(0-3)@1',
                           vdevs=[rpstest.pcap_vdev(rx=inp, infinite_rx=True)])
    cmd = [binary] + eal + ['--', '--config', cfg, '--check-order', '--backlog', '4096',
                            '--stages', 'parse,output', '--summary-json', summary]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        F.check(rpstest.wait_ready_socket(prefix) is not None, '%s: never ready' % tag)
        # traffic through the workers before the first remap
        rpstest.wait_traffic(prefix)
        t0 = time.monotonic()
        for i in range(remaps):
            with open(cfg, 'w') as f:
                f.write(body % MASKS[i % len(MASKS)])
            os.kill(proc.pid, signal.SIGHUP)
            time.sleep(INTERVAL)
        sent = time.monotonic() - t0
        time.sleep(0.5)
    finally:
        out, err = rpstest.stop(proc, prefix)
    s = rpstest.check_stopped(F, proc, err, summary, tag)
    if s is None:
        return None
    reordered = sum(w['reordered'] for w in s['workers'])
    print('%s: %d remaps in %.1f s; rx %d processed %d reordered %d flows_migrated %d '
          'migrations_deferred %d' % (
        tag, remaps, sent, s['rx_packets'], s['processed'], reordered,
        s['rx_lcore']['flows_migrated'],
        s['rx_lcore']['migrations_deferred']), flush=True)
    return s, reordered


def main():
    binary = rpstest.binary_from_argv()
    F = rpstest.Failures('test_reorder')
    with rpstest.TempDir('reorder') as tmp:
        inp, _ = rpstest.write_input(tmp, flows=64, packets_per_flow=16, seed=9, frag_datagrams=0,
                                     non_ip=0)
        r = run(F, binary, tmp, inp, safe=False, remaps=0, tag='off-still')
        if r:
            F.check(r[1] == 0, 'no remap, reorder_safe off: reordered %d, expected 0' % r[1])
        r = run(F, binary, tmp, inp, safe=True, remaps=150, tag='on-remaps')
        if r:
            s, n = r
            F.check(n == 0, 'reorder_safe on: reordered %d, expected 0' % n)
            F.check(s['rx_lcore']['flows_migrated'] > 0, 'reorder_safe on: nothing migrated')
            F.check(s['rx_lcore']['migrations_deferred'] > 0,
                    'reorder_safe on: no migration was ever deferred (test too gentle)')
        r = run(F, binary, tmp, inp, safe=False, remaps=150, tag='off-remaps')
        if r:
            F.check(r[1] > 0, 'reorder_safe off with remaps: reordered 0 - the test cannot '
                    'show what the feature prevents')
    return F.report()


if __name__ == '__main__':
    sys.exit(main())
