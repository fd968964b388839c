#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_rss_queues.py: a multi-queue RSS port with a map per queue, as operators run it.

A NIC picks each packet's RX queue from the low bits of its Toeplitz hash
(queue = RETA[hash & (reta_size - 1)]); dpdk-rps's per-queue maps must then spread each
queue's flows over all of that queue's workers, which they do only by indexing their table
with other bits (the top ones). Here the NIC is played in Python: 4096 uniform TCP/UDP flows
(198.18.0.0/15) are hashed with Microsoft's key (given as rss_key: the key dpdk-rps programs into a NIC and
uses for --hash toeplitz), and split into one capture per queue by a round-robin RETA of 64,
128 or 512 entries over 2 queues. The captures feed net_pcap's two RX queues; dpdk-rps hashes
with --hash toeplitz (the hash the NIC computed), with disjoint maps queue0 = 1-2 and
queue1 = 3-4 (--check-order on). For each RETA size: every worker of every queue's map gets
its share (within 0.5-1.5x its queue's mean: 0 for half of them when the table used the low
bits), nothing dropped or reordered, every packet accounted for.

usage: test_rss_queues.py PATH/TO/dpdk-rps
"""
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rpstest  # noqa: E402

FLOWS = 4096
QUEUES = 2
MAPS = {0: [1, 2], 1: [3, 4]}
# the key the capture was split with (the default key is random at each start)
CONF = ('[dataplane]\nhash = toeplitz\nrss_key = %s\n[map]\nqueue0 = 1-2\nqueue1 = 3-4\n'
        % rpstest.MS_KEY.hex())


def flows(rng):
    return rpstest.toeplitz_flows(rng, FLOWS)


frame = rpstest.flow_frame


def run(F, binary, tmp, fls, reta):
    ctx = 'RETA %d' % reta
    # the NIC: queue = RETA[hash & (reta - 1)], RETA filled round robin over the queues
    per_q = [[] for _ in range(QUEUES)]
    for f, fl in enumerate(fls):
        q = (fl[5] & (reta - 1)) % QUEUES
        for seq in range(2):
            per_q[q].append(frame(fl, f, seq))
    paths = []
    for q in range(QUEUES):
        p = os.path.join(tmp, 'reta%d_q%d.pcap' % (reta, q))
        rpstest.write_pcap(p, per_q[q])
        paths.append(p)
    cfg = os.path.join(tmp, 'rss.conf')
    with open(cfg, 'w') as fh:
        fh.write(CONF)
    prefix = rpstest.unique_prefix()
    vdev = 'net_pcap0,' + ','.join('rx_pcap=%s' % p for p in paths)
    eal = rpstest.eal_args(prefix, lcores='0@0,(1-4)@1', vdevs=[vdev])
    res = rpstest.run_rps(binary, eal, ['--config', cfg, '--check-order', '--backlog', '8192',
                                        '--exit-when-idle', '500'],
                          timeout=120, summary_path=os.path.join(tmp, 'rss.json'),
                          prefix=prefix)
    s = rpstest.check_exit(F, res, ctx)
    if s is None:
        return
    total = sum(len(x) for x in per_q)
    F.check(s['rx_packets'] == total, '%s: rx_packets %d of %d' % (ctx, s['rx_packets'], total))
    F.check(rpstest.dropped_total(s) == 0, '%s: dropped %s' % (ctx, s['dropped']))
    reordered = sum(w.get('reordered', 0) for w in s['workers'])
    F.check(reordered == 0, '%s: reordered %d' % (ctx, reordered))
    for q, lcores in MAPS.items():
        got = [w['processed'] if w else 0 for w in rpstest.worker_table(s, lcores)]
        mean = len(per_q[q]) / len(lcores)
        print('%s: queue %d (%d packets): lcores %s processed %s (mean %.0f)' % (
            ctx, q, len(per_q[q]), lcores, got, mean), flush=True)
        for lc, n in zip(lcores, got):
            F.check(0.5 * mean <= n <= 1.5 * mean, '%s: queue %d: lcore %d processed %d, '
                    'outside 0.5-1.5x of the queue\'s mean %.0f' % (ctx, q, lc, n, mean))


def main():
    binary = rpstest.binary_from_argv()
    F = rpstest.Failures('test_rss_queues')
    fls = flows(random.Random(11))
    with rpstest.TempDir('rssq') as tmp:
        for reta in (64, 128, 512):
            run(F, binary, tmp, fls, reta)
    return F.report()


if __name__ == '__main__':
    sys.exit(main())
