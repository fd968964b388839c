#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_rebalance.py: the automatic rebalancer on the real binary.

A skewed capture: 128 light TCP flows, one in each bucket of the default 128-bucket table,
and 16 heavy flows (12 times the packets of a light one), each alone in a bucket owned by
worker lcore 1 (buckets, the hash's top 7 bits, are predicted with Toeplitz in Python: --hash
toeplitz, --rss-key Microsoft's key; the mask 1-4 fills bucket b with lcore 1 + b % 4). Worker 1 gets 224 of every 320
packets: max/mean worker load 2.8.

dpdk-rps loops the capture (net_pcap infinite_rx), with --check-order and the flow stage.
Each run measures max/mean worker load over a window of WINDOW_S (1 s: hundreds of
thousands of packets on a loaded 2-CPU machine, at least MIN_WINDOW or no ratio at all);
the counters are read on a telemetry client held on the socket (milliseconds a query).
1. --rebalance off (the control): the measured max/mean stays above 2, over a window from
   0.5 s after ready (the skew is the capture's: it is there from the first packet).
2. rebalance = on in a config file, 200 ms intervals: buckets_moved > 0 and rebalance_runs > 0; over a
   window once the moves have stopped (buckets_moved unchanged for STABLE_S, 1 s: five
   intervals, where the next plan would come after two), max/mean worker load < 1.25;
   nothing dropped over the whole run
   (frames of 1.2 KB keep the RX lcore, which copies them, no faster than the one busy
   worker even before the moves); /rps/buckets shows the moved
   buckets' new owners and their moves; reordered == 0 and out_of_order == 0 over the whole
   run; accounting exact; every mbuf back. Then a reload of the same map with
   rebalance = off: applied, the rebalanced table kept, the rebalancer stopped (no run in
   0.8 s: four intervals).

usage: test_rebalance.py PATH/TO/dpdk-rps
"""
import os
import random
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rpstest  # noqa: E402

gt = rpstest.gen_traffic
# Everything on one CPU, as test_reorder: the RX lcore gets no more CPU than a worker, so
# once balanced the workers keep up; before, lcore 1 cannot (the overload to be fixed).
LCORES = '(0-4)@1'
WORKERS = [1, 2, 3, 4]
TABLE = 128
HEAVY = 16
HEAVY_WEIGHT = 12
ROUNDS = 20
MS_KEY = rpstest.MS_KEY
toeplitz = rpstest.toeplitz




def addr(rng):
    return bytes([198, 18 + rng.randrange(2), rng.randrange(256), rng.randrange(1, 255)])


def flows(rng):
    """[(src, dst, sport, dport, weight)]: one light flow per bucket, HEAVY heavy flows in
    distinct buckets of lcore 1 (bucket % 4 == 0)."""
    light, heavy = {}, {}
    while len(light) < TABLE or len(heavy) < HEAVY:
        src, dst = addr(rng), addr(rng)
        sp, dp = rng.randrange(1024, 65536), rng.randrange(1, 1024)
        b = rpstest.bucket(toeplitz(MS_KEY, src + dst + sp.to_bytes(2, 'big') +
                                    dp.to_bytes(2, 'big')), TABLE)
        if b not in light:
            light[b] = (src, dst, sp, dp, 1)
        elif b % 4 == 0 and b not in heavy and len(heavy) < HEAVY:
            heavy[b] = (src, dst, sp, dp, HEAVY_WEIGHT)
    return list(light.values()) + list(heavy.values())


def capture(rng, path):
    fl = flows(rng)
    seq = [0] * len(fl)
    frames = []
    for _ in range(ROUNDS):
        order = [i for i, f in enumerate(fl) for _ in range(f[4])]
        rng.shuffle(order)
        for i in order:
            src, dst, sp, dp, _ = fl[i]
            # large frames: the RX lcore (which copies them out of the capture) is then
            # no faster than one worker, so even the skewed start is served without loss
            payload = gt.marker(i, seq[i] & 0xffff) + bytes(1200)
            # consecutive segments: the flow stage counts a gap as out_of_order
            l4 = gt.tcp_segment(False, src, dst, sp, dp, 1000 + len(payload) * seq[i], 1,
                                payload)
            l3 = gt.ipv4_header(src, dst, 6, len(l4), seq[i] & 0xffff)
            eth = gt.eth_header(b'\x02\0\0\0\0\x01', b'\x02\0\0\0\0\x02', [], 0x0800)
            frames.append(eth + l3 + l4)
            seq[i] += 1
    rpstest.write_pcap(path, frames)
    return len(frames)


def processed(c):
    """({lcore: processed}, /rps/stats) from telemetry client c; (None, None) without."""
    w, _ = c.query('/rps/workers')
    st, _ = c.query('/rps/stats')
    if w is None or st is None:  # not registered yet: EAL answers before dpdk-rps is up
        return None, None
    return {int(k): v['processed'] for k, v in w['workers'].items()}, st


# A ratio over a window needs traffic in it: with none, max/mean is no measure at all (it
# used to read 0.0 and pass "< 1.25"). 1000 packets a worker on average over the 1 s window
# (the loaded machine moves hundreds of thousands), so one heavy flow's burst more or less
# moves the ratio by little.
MIN_WINDOW = 1000 * len(WORKERS)
WINDOW_S = 1.0
STABLE_S = 1.0


def ratio(before, after):
    """(max/mean of the packets each worker processed in the window, per worker), or
    (None, per worker) when fewer than MIN_WINDOW packets flowed."""
    d = [after[l] - before[l] for l in WORKERS]
    if sum(d) < MIN_WINDOW:
        return None, d
    return max(d) / (sum(d) / len(d)), d


# at most 6 moves a plan (the default is 8): the 12 the skew needs take two plans
MOVES = 6
CONF = ('[dataplane]\nrebalance = %s\nrebalance_interval_ms = 200\n'
        'rebalance_holddown_ms = 2000\nrebalance_threshold = 10\n'
        'rebalance_moves = ' + str(MOVES) + '\n[map]\ndefault = 1-4\n')


def reload_keeps_table(F, proc, c, conf):
    """A reload with the same map keeps the rebalanced table; rebalance = off is live."""
    mp, _ = c.query('/rps/map')
    with open(conf + '.new', 'w') as f:
        f.write(CONF % 'off')
    os.rename(conf + '.new', conf)
    os.kill(proc.pid, signal.SIGHUP)
    deadline = time.monotonic() + 10
    after = None
    while time.monotonic() < deadline:
        time.sleep(0.05)
        after, _ = c.query('/rps/map')
        if mp and after and after['generation'] > mp['generation']:
            break
    if not F.check(mp and after and after['generation'] > mp['generation'],
                   'reload: not applied (%s -> %s)' % (mp, after)):
        return
    F.check(after['queue0']['buckets'] == mp['queue0']['buckets'],
            'reload with the same map: the rebalanced table was replaced: %s -> %s' % (
                mp['queue0']['buckets'], after['queue0']['buckets']))
    _, s0 = processed(c)
    time.sleep(0.8)
    _, s1 = processed(c)
    F.check(s0 is not None and s1 is not None and s1['rebalance_runs'] == s0['rebalance_runs'],
            'rebalance = off on reload: the rebalancer still runs')
    print('reload (same map, rebalance = off): generation %d, table kept (%s)' % (
        after['generation'], after['queue0']['buckets']), flush=True)


def run(F, binary, tmp, inp, on, idle_queue=False):
    """idle_queue: a second RX queue that never receives (the test hook RPS_TEST_RX_QUEUES=1
    leaves it unpolled): it must block nothing."""
    tag = ('rebalance_on' if on else 'rebalance_off') + ('_idleq' if idle_queue else '')
    prefix = rpstest.unique_prefix()
    summary = os.path.join(tmp, tag + '.json')
    vdev = rpstest.pcap_vdev(rx=inp, infinite_rx=True)
    if idle_queue:
        vdev += ',rx_pcap=' + inp
    eal = rpstest.eal_args(prefix, lcores=LCORES, mem_mb=1024, vdevs=[vdev])
    app = ['--hash', 'toeplitz', '--rss-key', MS_KEY.hex(), '--stages', 'parse,flow',
           '--check-order',
           '--backlog', '32768', '--summary-json', summary]
    conf = os.path.join(tmp, tag + '.conf')
    if on:  # through the config file, which the run then reloads
        with open(conf, 'w') as f:
            f.write(CONF % 'on')
        app += ['--config', conf]
    else:
        app += ['--map', '1-4', '--rebalance', 'off', '--rebalance-interval', '200']
    proc = rpstest.drain(subprocess.Popen([binary] + eal + ['--'] + app, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                            start_new_session=True,
                            env=dict(os.environ, RPS_TEST_RX_QUEUES='1') if idle_queue
                            else None))
    result = None
    c = None
    try:
        if not F.check(rpstest.wait_ready_socket(prefix, timeout=30) is not None,
                       '%s: never ready' % tag):
            return None
        c = rpstest.Telemetry(prefix)
        if on:
            # let the rebalancer see two intervals over the threshold and move (two plans),
            # until buckets_moved has not changed for STABLE_S
            deadline = time.monotonic() + 20
            moved, since = 0, time.monotonic()
            while time.monotonic() < deadline:
                time.sleep(0.1)
                _, st = processed(c)
                if st is None:
                    continue
                if st['buckets_moved'] != moved:
                    moved, since = st['buckets_moved'], time.monotonic()
                elif moved > 0 and time.monotonic() - since >= STABLE_S:
                    break
        else:
            time.sleep(0.5)
        b0, st0 = processed(c)
        time.sleep(WINDOW_S)
        b1, st1 = processed(c)
        bk, _ = c.query('/rps/buckets,0')
        bk = {'/rps/buckets': bk} if bk is not None else None
        if b0 is not None and b1 is not None:
            r, d = ratio(b0, b1)
            print('%s: window per worker %s, max/mean %s, buckets_moved %d, '
                  'rebalance_runs %d' % (tag, d, r and '%.3f' % r, st1['buckets_moved'],
                                         st1['rebalance_runs']), flush=True)
            if F.check(r is not None, '%s: %d packets in the window, fewer than %d: no '
                       'ratio to measure' % (tag, sum(d), MIN_WINDOW)):
                result = (r, d, st1, bk, st1['dropped_total'] - st0['dropped_total'])
        if on:
            reload_keeps_table(F, proc, c, conf)
    finally:
        if c is not None:
            c.close()
        out, err = rpstest.stop(proc, prefix)
    s = rpstest.check_stopped(F, proc, err, summary, tag)
    if s is None or not F.check(result is not None, '%s: no telemetry' % tag):
        return None
    reordered = sum(w['reordered'] for w in s['workers'])
    ooo = sum(w['out_of_order'] for w in s['workers'])
    F.check(reordered == 0, '%s: reordered %d' % (tag, reordered))
    F.check(ooo == 0, '%s: out_of_order %d' % (tag, ooo))
    q = s['buckets']['queues'][0]
    F.check(sum(q['packets']) == s['rx_packets'],
            '%s: bucket packets %d != rx %d' % (tag, sum(q['packets']), s['rx_packets']))
    # each plan the rebalancer carried out, as it logged it
    s['plans'] = [int(m.group(1)) for m in re.finditer(
        r'rebalance: moved (\d+) bucket', err.decode(errors='replace'))]
    s['_stderr'] = err.decode(errors='replace')
    print('%s: rx %d processed %d reordered %d out_of_order %d flows_migrated %d '
          'migrations_deferred %d; plans %s; rebalance %s' % (
              tag, s['rx_packets'], s['processed'], reordered, ooo,
              s['rx_lcore']['flows_migrated'], s['rx_lcore']['migrations_deferred'],
              s['plans'], s['buckets']['rebalance']), flush=True)
    return result, s


def main():
    binary = rpstest.binary_from_argv()
    F = rpstest.Failures('test_rebalance')
    with rpstest.TempDir('rebalance') as tmp:
        if not rpstest.hooks_built(binary, tmp):
            # the idle-queue run leaves a queue unpolled with RPS_TEST_RX_QUEUES
            print('SKIP: %s is %s (RPS_TEST_RX_QUEUES)' % (binary, rpstest.NO_HOOKS))
            return rpstest.SKIP
        inp = os.path.join(tmp, 'skewed.pcap')
        n = capture(random.Random(11), inp)
        print('capture: %d packets, %d flows' % (n, TABLE + HEAVY), flush=True)

        off = run(F, binary, tmp, inp, False)
        if off is not None:
            (r, d, st, bk, _), s = off
            F.check(r > 2.0, 'rebalance off: max/mean %.2f, the capture is not skewed' % r)
            F.check(st['buckets_moved'] == 0, 'rebalance off: moved %d' % st['buckets_moved'])
            F.check(s['buckets']['rebalance']['buckets_moved'] == 0, 'off: moved in summary')

        on = run(F, binary, tmp, inp, True)
        if on is not None:
            (r, d, st, bk, lost), s = on
            F.check(r < 1.25, 'rebalance on: max/mean %.3f >= 1.25 (per worker %s)' % (r, d))
            F.check(lost == 0, 'rebalance on: %d packets dropped once balanced' % lost)
            F.check(rpstest.dropped_total(s) == 0, 'rebalance on: dropped %s' % s['dropped'])
            F.check(st['buckets_moved'] > 0 and st['rebalance_runs'] > 0,
                    'rebalance on: nothing moved (%s)' % st)
            q = s['buckets']['queues'][0]
            owners = {l: q['lcore'].count(l) for l in WORKERS}
            F.check(sum(q['moves']) == s['buckets']['rebalance']['buckets_moved'],
                    'moves per bucket %d != buckets_moved %s' % (
                        sum(q['moves']), s['buckets']['rebalance']))
            F.check(owners[1] < TABLE // 4, 'lcore 1 still owns %d buckets' % owners[1])
            rb = s['buckets']['rebalance']
            F.check(rb['moves'] == MOVES and rb['threshold_pct'] == 10 and
                    rb['interval_ms'] == 200 and rb['holddown_ms'] == 2000,
                    'the config file\'s rebalance settings: %s' % rb)
            F.check(len(s['plans']) == rb['rebalance_acted'] and
                    sum(s['plans']) == rb['buckets_moved'] and
                    max(s['plans'], default=0) == MOVES,
                    'plans %s: expected at least one of exactly %d (rebalance_moves), none '
                    'larger, adding up to %s' % (s['plans'], MOVES, rb))
            # the workers' busy cycles, shared among their buckets
            F.check(all(w['busy_cycles'] > 0 for w in s['workers']) and
                    all(c > 0 for c, p in zip(q['cycles'], q['packets']) if p > 1000),
                    'busy cycles: workers %s, buckets without cycles %d' % (
                        [w['busy_cycles'] for w in s['workers']],
                        sum(1 for c, p in zip(q['cycles'], q['packets']) if p > 1000 and c == 0)))
            # /rps/buckets: the hottest buckets, with their owners and moves
            b = bk['/rps/buckets'] if bk else None
            if F.check(b is not None and b['table_size'] == TABLE, '/rps/buckets: %s' % bk):
                F.check(len(b['bucket']) == 32 and len(b['lcore']) == 32,
                        '/rps/buckets: %d rows' % len(b['bucket']))
                F.check(b['pps'] == sorted(b['pps'], reverse=True), '/rps/buckets order')
                hot = set(b['bucket'][:HEAVY])
                F.check(all(x % 4 == 0 for x in hot),
                        '/rps/buckets: the 16 hottest are not the heavy ones: %s' % sorted(hot))
                moved_hot = [x for x, m in zip(b['bucket'], b['moves']) if m > 0]
                F.check(len(moved_hot) >= 8, '/rps/buckets: %d hot buckets moved' % len(moved_hot))
                F.check(b['buckets_moved'] == st['buckets_moved'], '/rps/buckets moved')
                print('owners %s; hottest buckets %s -> lcores %s, moves %s' % (
                    owners, b['bucket'][:HEAVY], b['lcore'][:HEAVY], b['moves'][:HEAVY]))

        # a second RX queue that receives nothing contributes nothing and blocks nothing
        # (its counters never reach its map's size: the whole sample used to be refused)
        idle = run(F, binary, tmp, inp, True, idle_queue=True)
        if idle is not None:
            (r, d, st, bk, lost), s = idle
            F.check('(RPS_TEST_RX_QUEUES)' in s.get('_stderr', ''),
                    'idle queue: the log does not say RPS_TEST_RX_QUEUES was applied')
            F.check(len(s['buckets']['queues']) == 2, 'idle queue: %d queues' % len(
                s['buckets']['queues']))
            F.check(st['rebalance_runs'] > 0 and st['buckets_moved'] > 0,
                    'idle queue: the rebalancer never ran (rebalance_runs %d, '
                    'buckets_moved %d)' % (st['rebalance_runs'], st['buckets_moved']))
            F.check(r < 1.25, 'idle queue: max/mean %.3f >= 1.25 (per worker %s)' % (r, d))
    return F.report()


if __name__ == '__main__':
    sys.exit(main())
