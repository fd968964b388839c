#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_move_drain.py: a remap takes effect on workers that never catch up.

A bucket moves off its old worker only once that worker has processed the bucket's last
packet. Workers slower than the source on any machine (test hook RPS_TEST_WORKER_DELAY_NS:
20 us per packet) always have a deep backlog, with a packet of nearly every bucket in it, so
without the RX lcore's move drain (rx_loop.c, moves_check()) a map that leaves out a worker
never takes effect: its buckets' moves wait for ever. dpdk-rps runs on a looping capture
(net_pcap infinite_rx) with three slowed workers, reorder_safe on and --check-order; once
lcore 3's backlog is deep, SIGHUP applies a map without it. Check: lcore 3 drains and stops
(its count still and its backlog empty over three reads) within 10 s, /rps/stats counts a
move drain, lcores 1 and 2 go on, and at SIGINT: exit 0, the accounting exact, nothing
reordered, no mbuf leaked.

usage: test_move_drain.py PATH/TO/dpdk-rps
"""
import os
import signal
import subprocess
import sys
import json

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rpstest  # noqa: E402


def conf(mask):
    return '[dataplane]\nreorder_safe = on\n[map]\ndefault = %s\n' % mask


def one(prefix, cmd):
    r = rpstest.telemetry_socket(prefix, cmd)
    return r[0].get(cmd.split(',')[0]) if r else None


def main():
    binary = rpstest.binary_from_argv()
    F = rpstest.Failures('test_move_drain')
    with rpstest.TempDir('move_drain') as tmp:
        if not rpstest.hooks_built(binary, tmp):
            print('SKIP: %s' % rpstest.NO_HOOKS)
            return rpstest.SKIP
        inp, _ = rpstest.write_input(tmp, flows=256, packets_per_flow=4, seed=11,
                                     frag_datagrams=0, non_ip=0)
        cfg = os.path.join(tmp, 'rps.conf')
        with open(cfg, 'w') as f:
            f.write(conf('0xe'))
        prefix = rpstest.unique_prefix()
        summary = os.path.join(tmp, 'summary.json')
        eal = rpstest.eal_args(prefix, lcores='0@0,(1-3)@1',
                               vdevs=[rpstest.pcap_vdev(rx=inp, infinite_rx=True)])
        cmd = [binary] + eal + ['--', '--config', cfg, '--summary-json', summary,
                                '--check-order', '--backpressure', 'off']
        env = dict(os.environ, **{rpstest.WORKER_DELAY: '20000'})
        proc = rpstest.drain(subprocess.Popen(cmd, stdout=subprocess.PIPE,
                                              stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                              start_new_session=True, env=env))
        try:
            info = rpstest.wait_ready_socket(prefix, 20)
            if not F.check(info is not None, 'never ready: no /rps/info with ready 1'):
                raise RuntimeError('no telemetry')
            # the workers never catch up: lcore 3's backlog deep, packets dropped for it
            deep = rpstest.wait_for(lambda: (lambda w: w if w and w['backlog_depth'] > 256
                                             else None)(one(prefix, '/rps/worker,3')),
                                    timeout=10, step=0.05)
            F.check(deep is not None, 'lcore 3 never had a deep backlog: the workers are not '
                    'slower than the source, the test shows nothing: %s' %
                    one(prefix, '/rps/worker,3'))
            with open(cfg, 'w') as f:
                f.write(conf('0x6'))
            os.kill(proc.pid, signal.SIGHUP)
            mp = rpstest.wait_for(lambda: (lambda m: m if m and m['generation'] >= 2 else None)(
                one(prefix, '/rps/map')), timeout=10)
            F.check(mp is not None and mp['queue0']['lcores'] == [1, 2],
                    'after SIGHUP /rps/map: %s' % mp)
            F.check(rpstest.wait_worker_drained(prefix, 3),
                    'lcore 3 still busy 10 s after the map without it (its moves wait for '
                    'ever): /rps/worker,3 %s, /rps/stats move_drains %s' % (
                        one(prefix, '/rps/worker,3'),
                        (one(prefix, '/rps/stats') or {}).get('move_drains')))
            st = one(prefix, '/rps/stats') or {}
            F.check(st.get('move_drains', 0) >= 1, 'no move drain counted: /rps/stats '
                    'move_drains %s, migrations_deferred %s' % (
                        st.get('move_drains'), st.get('migrations_deferred')))
            w1 = one(prefix, '/rps/workers')['workers']
            p1 = (w1['1']['processed'], w1['2']['processed'])
            ok = rpstest.wait_for(lambda: (lambda w: w['1']['processed'] > p1[0] and
                                           w['2']['processed'] > p1[1])(
                one(prefix, '/rps/workers')['workers']), timeout=5)
            F.check(ok, 'lcores 1 and 2 stopped after the move: %s' %
                    one(prefix, '/rps/workers'))
            print('move drains %d, migrations deferred %d, flows migrated %d' % (
                st.get('move_drains', -1), st.get('migrations_deferred', -1),
                st.get('flows_migrated', -1)), flush=True)
        finally:
            _, err = rpstest.stop(proc, prefix)
        F.check(proc.returncode == 0, 'exit %s: %s' % (proc.returncode, err[-2000:]))
        if os.path.exists(summary):
            with open(summary) as f:
                s = json.load(f)
            F.extend(rpstest.check_accounting(s), 'summary')
            F.check(s['mempool']['in_use_at_exit'] == 0, 'mbufs leaked: %s' % s['mempool'])
            F.check(s['rx_lcore']['move_drains'] >= 1, 'summary: move_drains %d' %
                    s['rx_lcore']['move_drains'])
            reordered = sum(w['reordered'] for w in s['workers'])
            F.check(reordered == 0, 'reordered %d across the move drain' % reordered)
        else:
            F.fail('no summary JSON')
    return F.report()


if __name__ == '__main__':
    sys.exit(main())
