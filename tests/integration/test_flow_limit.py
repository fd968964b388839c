# SPDX-License-Identifier: BSD-3-Clause
"""test_flow_limit.py BINARY: the kernel's flow limit protects mice from an elephant.

One elephant (UDP, 4000-byte payloads: 39 of every 40 packets) and 300 mice (one small UDP
packet each) go to two workers running the full pipeline. The overload is made, not hoped
for: the test hook RPS_TEST_WORKER_DELAY_NS (app/test_hooks.c) makes every worker spend
20 us per packet (50 kpps at most) while the RX lcore reads the capture as fast as net_pcap
can (millions of packets a second), on any machine. A binary built without the hooks makes
the test SKIP with that reason. Per-flow
packet counts come from --flows-json. With a backlog of 1024, the mice (300) plus the 129
elephant packets the limit needs to learn from fit in the half the limit keeps free, so with
the limit on no mouse can be lost whatever the scheduling; without it the backlog
overflows as soon as the RX lcore outruns the worker by 10%.
1. --flow-limit off: the backlog fills (backlog_full) and mice are lost with the elephant —
   the run really is overloaded, so the next check can fail;
2. --flow-limit on: flow_limit drops the elephant while the backlog is over half full, and
   every mouse packet is processed; no backlog_full; accounting exact.
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rpstest  # noqa: E402

G = rpstest.gen_traffic
ROUNDS = 300           # 40 packets each: 39 elephant, 1 mouse (its own flow)
PER_ROUND = 40
DELAY_NS = 20000       # per packet in every worker: the RX lcore is always faster


def frames():
    eth = G.eth_header(b'\x02\x00\x00\x00\x00\x02', b'\x02\x00\x00\x00\x00\x01', [], 0x0800)
    dst = bytes([198, 19, 0, 1])

    def udp(src, sport, payload):
        seg = G.udp_datagram(False, src, dst, sport, 9, payload)
        return eth + G.ipv4_header(src, dst, 17, len(seg), 1) + seg

    out = []
    for r in range(ROUNDS):
        for k in range(PER_ROUND - 1):
            out.append(udp(bytes([198, 18, 0, 1]), 5000, bytes(4000)))
        out.append(udp(bytes([198, 18, 1 + r // 250, r % 250 + 1]), 6000 + r, bytes(32)))
    return out


def run(F, binary, tmp, inp, limit):
    tag = 'limit-' + limit
    fj = os.path.join(tmp, tag + '.json')
    res, _ = rpstest.run_pcap(binary, tmp, inp, 0,
                              # a fixed seed: with a random one, a mouse shares the
                              # elephant's flow-limit bucket (hash & 4095) in ~4% of runs
                              # and is limited with it, as in the kernel
                              ['--map', '0x6', '--backpressure', 'off', '--backlog', '1024', '--flow-limit', limit,
                               '--hash-seed', '1',
                               '--idle-sleep', '0', '--exit-when-idle', '400',
                               '--flows-json', fj],
                              lcores='0@0,(1-2)@1', timeout=120, tag=tag,
                              env={rpstest.WORKER_DELAY: str(DELAY_NS)})
    s = rpstest.check_exit(F, res, tag)
    if s is None:
        return None
    F.check(s['rx_packets'] == ROUNDS * PER_ROUND,
            '%s: rx_packets %d' % (tag, s['rx_packets']))
    with open(fj) as f:
        flows = json.load(f)['flows']
    mice = sum(fl['packets'] for fl in flows if fl['sport'] != 5000)
    elephant = sum(fl['packets'] for fl in flows if fl['sport'] == 5000)
    d = s['dropped']
    print('%s: elephant %d/%d, mice %d/%d, backlog_full %d, flow_limit %d' % (
        tag, elephant, ROUNDS * (PER_ROUND - 1), mice, ROUNDS, d.get('backlog_full', 0),
        d.get('flow_limit', 0)), flush=True)
    return mice, d


def main():
    binary = rpstest.binary_from_argv()
    F = rpstest.Failures('test_flow_limit')
    with rpstest.TempDir('flowlimit') as tmp:
        # no way to overload a worker on purpose without it
        rpstest.skip_without_hooks(binary, tmp, rpstest.WORKER_DELAY)
        inp = os.path.join(tmp, 'in.pcap')
        rpstest.write_pcap(inp, frames())
        r = run(F, binary, tmp, inp, 'off')
        if r is not None:
            mice, d = r
            F.check(d.get('backlog_full', 0) > 0 and mice < ROUNDS,
                    'limit off: no overload (backlog_full %d, mice %d of %d): the test cannot '
                    'show what the limit does' % (d.get('backlog_full', 0), mice, ROUNDS))
            F.check(d.get('flow_limit', 0) == 0, 'limit off: flow_limit %d' % d.get(
                'flow_limit', 0))
        r = run(F, binary, tmp, inp, 'on')
        if r is not None:
            mice, d = r
            F.check(d.get('flow_limit', 0) > 0, 'limit on: nothing limited')
            F.check(mice == ROUNDS, 'limit on: %d of %d mouse packets processed' % (
                mice, ROUNDS))
            F.check(d.get('backlog_full', 0) == 0, 'limit on: backlog_full %d' % d.get(
                'backlog_full', 0))
    return F.report()


if __name__ == '__main__':
    sys.exit(main())
