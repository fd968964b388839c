#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_no_steering.py: with --map 0 the RX lcore processes every packet itself.

One TX file (queue 0): it must hold every input packet, byte for byte, in input order;
rx_packets == packets in the capture == processed == tx_packets, nothing dropped. Also an
empty capture (with and without workers): exit 0, all counters zero.

usage: test_no_steering.py PATH/TO/dpdk-rps
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rpstest  # noqa: E402


def main():
    binary = rpstest.binary_from_argv()
    F = rpstest.Failures('test_no_steering')
    with rpstest.TempDir('nosteer') as tmp:
        inp, frames = rpstest.write_input(tmp, flows=200, packets_per_flow=8, seed=5,
                                          frag_datagrams=10, non_ip=12)
        for lcores in ('0@0', '0@0,(1-3)@1'):
            ctx = '--map 0, --lcores %s' % lcores
            res, tx = rpstest.run_pcap(binary, tmp, inp, 1,
                                       ['--map', '0', '--tx-port', '0', '--stages', 'output', '--exit-when-idle',
                                        '500'], lcores=lcores, timeout=90, tag='nosteer')
            s = rpstest.check_exit(F, res, ctx, strict=True)
            if s is None:
                continue
            F.check(s['rx_packets'] == len(frames), '%s: rx_packets %d != %d input packets'
                    % (ctx, s['rx_packets'], len(frames)), res)
            F.check(rpstest.dropped_total(s) == 0, '%s: dropped %s' % (ctx, s['dropped']))
            out = rpstest.read_pcap(tx[0]).frames if os.path.exists(tx[0]) else []
            F.check(len(out) == s['tx_packets'] == s['processed'],
                    '%s: TX file %d packets, tx_packets %d, processed %d must be equal' % (
                        ctx, len(out), s['tx_packets'], s['processed']))
            if out != frames:
                first = next((i for i, (x, y) in enumerate(zip(out, frames)) if x != y),
                             min(len(out), len(frames)))
                F.fail('%s: TX file is not the input in order (%d vs %d packets, first '
                       'difference at packet %d)' % (ctx, len(out), len(frames), first))
            F.extend(rpstest.check_outputs(frames, {'w0': out}, exact=True), ctx)

        # an empty capture: nothing to do, still a clean exit and a zero summary
        empty = os.path.join(tmp, 'empty.pcap')
        rpstest.write_pcap(empty, [])
        for map_arg in ('0', '0xe'):
            ctx = 'empty capture, --map %s' % map_arg
            ntx = 1 if map_arg == '0' else 3
            res, tx = rpstest.run_pcap(binary, tmp, empty, ntx,
                                       ['--map', map_arg, '--tx-port', '0', '--stages', 'output',
                                        '--exit-when-idle', '300'],
                                       lcores='0@0,(1-3)@1', timeout=60, tag='empty')
            s = rpstest.check_exit(F, res, ctx)
            if s is None:
                continue
            F.check(s.get('rx_packets') == 0 and s.get('processed') == 0 and
                    s.get('tx_packets') == 0, '%s: non-zero counters %s' % (ctx, s), res)
            F.check(all(not os.path.exists(p) or not rpstest.read_pcap(p).records
                        for p in tx), '%s: a TX file has packets' % ctx)
    return F.report()


if __name__ == '__main__':
    sys.exit(main())
