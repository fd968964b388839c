#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_table.py: the indirection table (RETA) of each RX queue on the real binary.

A generated capture holds IPv4 TCP and UDP flows (198.18.0.0/15) that cover every bucket of
a 128-bucket table under Toeplitz with --rss-key set to Microsoft's 6d5a56da..., packets of
varied lengths. Three workers (lcores 1-3), one net_pcap TX file each, --stages output.

- --hash toeplitz --map 1:2,2:1,3:1 (table 128): the summary JSON's buckets.queues[0].lcore
  is rps_map_fill() of those weights (64/32/32 buckets, interleaved); every packet reached
  the owner of bucket toeplitz(tuple) >> 25 (the top 7 bits); per bucket packets and bytes as computed here,
  their sums rx_packets and the capture's bytes.
- --table-size 16 --map 1-3: bucket b -> lcore 1 + b % 3 (6/5/5), packets follow it.
- A live run (infinite_rx, --config with table_size = 64 and queue0 = 1:3,2:1): /rps/map
  (table_size, weights, buckets per lcore), /rps/buckets (the 32 hottest by pps, a page
  from FIRST, errors for a FIRST past the table and a queue that does not exist); a reload
  to table_size = 256, map 1-3 (86/85/85); reloads with table_size = 3 and with 3 workers
  in 2 buckets refused, the 256 table kept. SIGINT: exit 0, accounting exact.
- Bad values exit 2 naming the option; table_size = 100 in a file names FILE:LINE.

The two runs of the whole capture stop 100 ms after it (--exit-when-idle: nothing arrives
once net_pcap has read the file; idle waits for empty backlogs too), with a backlog above
its size: nothing depends on timing, so they go side by side (rpstest.run_all()).

usage: test_table.py PATH/TO/dpdk-rps
"""

import collections
import os
import random
import signal
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rpstest  # noqa: E402

gt = rpstest.gen_traffic
LCORES = '0@0,(1-3)@1'
WORKERS = [1, 2, 3]
MS_KEY = rpstest.MS_KEY
toeplitz = rpstest.toeplitz
MIN_FLOWS = 400             # and more until every bucket of 128 has one


# ----------------------------------------------------------------- models



def map_fill(size, workers, weights=None):
    """lib/rps/map.c rps_map_fill(): shares by largest remainder (ties: the earlier
    worker), at least one each, interleaved by smooth weighted round robin."""
    nb = len(workers)
    weights = weights or [1] * nb
    total = sum(weights)
    cnt = [size * w // total for w in weights]
    rem = [size * w % total for w in weights]
    for _ in range(size - sum(cnt)):
        best = 0
        for i in range(1, nb):
            if rem[i] > rem[best]:
                best = i
        cnt[best] += 1
        rem[best] = 0
    for i in range(nb):
        if cnt[i] == 0:
            big = 0
            for j in range(1, nb):
                if cnt[j] > cnt[big]:
                    big = j
            cnt[big] -= 1
            cnt[i] = 1
    cur = [0] * nb
    table = []
    for _ in range(size):
        pick = 0
        for i in range(nb):
            cur[i] += cnt[i]
            if cur[i] > cur[pick]:
                pick = i
        table.append(workers[pick])
        cur[pick] -= size
    return table


def owners_text(table):
    """lcore:count for each lcore owning buckets, by lcore."""
    c = collections.Counter(table)
    return ','.join('%d:%d' % (l, c[l]) for l in sorted(c))


def map_text(q):
    """/rps/map's queue: its aligned arrays lcores, weights, buckets as 'lcore:buckets'
    and 'lcore:weight' texts (the format they had as strings)."""
    return (','.join('%d:%d' % x for x in zip(q['lcores'], q['buckets'])),
            ','.join('%d:%d' % x for x in zip(q['lcores'], q['weights'])))


# ----------------------------------------------------------------- traffic

def v4_addr(rng):
    return bytes([198, 18 + rng.randrange(2), rng.randrange(256), rng.randrange(1, 255)])


def build(rng):
    """Frames (IPv4 TCP/UDP, unique through their markers) and each one's Toeplitz hash."""
    flows = []
    seen = set()
    while len(flows) < MIN_FLOWS or len(seen) < 128:
        src, dst = v4_addr(rng), v4_addr(rng)
        sp, dp = rng.randrange(1024, 65536), rng.choice((53, 80, 443, rng.randrange(1, 65536)))
        h = toeplitz(MS_KEY, src + dst + struct.pack('!HH', sp, dp))
        seen.add(rpstest.bucket(h, 128))
        flows.append((rng.choice((6, 17)), src, dst, sp, dp, h, rng.randrange(1, 7)))
    order = [f for f, fl in enumerate(flows) for _ in range(fl[6])]
    rng.shuffle(order)
    seq = collections.Counter()
    frames, hashes = [], []
    for f in order:
        proto, src, dst, sp, dp, h, _ = flows[f]
        payload = gt.marker(f, seq[f]) + bytes(rng.randrange(0, 400))
        if proto == 6:
            l4 = gt.tcp_segment(False, src, dst, sp, dp, 1000 + 500 * seq[f], 1, payload)
        else:
            l4 = gt.udp_datagram(False, src, dst, sp, dp, payload)
        l3 = gt.ipv4_header(src, dst, proto, len(l4), seq[f])
        frames.append(gt.eth_header(b'\x02\0\0\0\0\x01', b'\x02\0\0\0\0\x02', [], 0x0800) +
                      l3 + l4)
        hashes.append(h)
        seq[f] += 1
    return frames, hashes


# ----------------------------------------------------------------- captures through the table

def launch(binary, tmp, inp, tag, extra):
    # the key the buckets were computed with (the default key is random at each start)
    app = ['--hash', 'toeplitz', '--rss-key', MS_KEY.hex(), '--tx-port', '0',
           '--stages', 'output', '--exit-when-idle', '100', '--backlog', '8192'] + list(extra)
    return rpstest.run_pcap(binary, tmp, inp, len(WORKERS), app, lcores=LCORES,
                            timeout=60, tag=tag)


def table_run(F, run, frames, hashes, tag, size, extra, want_table, want_counts):
    """One run of the whole capture; checks the table, where packets went, bucket counters."""
    res, tx = run
    ctx = '%s (%s)' % (tag, ' '.join(extra))
    r = rpstest.check_pcap_run(F, res, tx, len(frames), ctx)
    if r is None:
        return
    s, outs, counts = r
    F.extend(rpstest.check_workers_vs_files(s, WORKERS, counts), ctx)
    F.extend(rpstest.check_outputs(frames, outs, exact=True), ctx)
    b = s.get('buckets')
    if not F.check(isinstance(b, dict) and isinstance(b.get('queues'), list) and
                   len(b['queues']) == 1, '%s: summary "buckets" is %r' % (ctx, b)):
        return
    q = b['queues'][0]
    F.check(b.get('table_size') == size and q.get('size') == size and q.get('queue') == 0,
            '%s: buckets.table_size %s, queues[0].size %s, expected %d' % (
                ctx, b.get('table_size'), q.get('size'), size))
    lc = q.get('lcore')
    if not F.check(isinstance(lc, list) and len(lc) == size and
                   all(isinstance(q.get(k), list) and len(q[k]) == size
                       for k in ('packets', 'bytes', 'cycles', 'moves')),
                   '%s: queues[0] arrays missing or not %d long: %s' % (
                       ctx, size, {k: len(v) if isinstance(v, list) else v
                                   for k, v in q.items()})):
        return
    got_counts = collections.Counter(lc)
    F.check(dict(got_counts) == want_counts, '%s: buckets per lcore %s, expected %s' % (
        ctx, dict(sorted(got_counts.items())), want_counts))
    F.check(lc == want_table, '%s: table %s, expected (rps_map_fill) %s' % (
        ctx, lc, want_table))
    print('%s: table %d, buckets per lcore %s, packets per worker %s' % (
        ctx, size, dict(sorted(got_counts.items())), counts), flush=True)

    # every packet on the owner of its bucket, in the table the program reports
    bucket_of = {fr: rpstest.bucket(h, size) for fr, h in zip(frames, hashes)}
    wrong = []
    for i, path in enumerate(tx):
        for fr in outs[os.path.basename(path)]:
            bk = bucket_of.get(fr)
            if bk is not None and lc[bk] != WORKERS[i]:
                wrong.append((bk, lc[bk], WORKERS[i]))
    F.check(not wrong, '%s: %d packets not on their bucket\'s owner; e.g. bucket %s owned '
            'by lcore %s reached lcore %s' % ((ctx, len(wrong)) + (wrong[0] if wrong else
                                                                   (None,) * 3)))
    # per bucket packets and bytes, as counted here
    pk, by = [0] * size, [0] * size
    for fr, h in zip(frames, hashes):
        pk[rpstest.bucket(h, size)] += 1
        by[rpstest.bucket(h, size)] += len(fr)
    F.check(sum(q['packets']) == s['rx_packets'], '%s: bucket packets sum %d != rx_packets %d'
            % (ctx, sum(q['packets']), s['rx_packets']))
    F.check(sum(q['bytes']) == sum(len(fr) for fr in frames),
            '%s: bucket bytes sum %d != %d bytes in the capture' % (
                ctx, sum(q['bytes']), sum(len(fr) for fr in frames)))
    badp = [k for k in range(size) if q['packets'][k] != pk[k]]
    badb = [k for k in range(size) if q['bytes'][k] != by[k]]
    F.check(not badp, '%s: %d buckets count other packets than the capture gives; e.g. '
            'bucket %s: %s, expected %s' % (ctx, len(badp), badp[:1],
                                            [q['packets'][k] for k in badp[:1]],
                                            [pk[k] for k in badp[:1]]))
    F.check(not badb, '%s: %d buckets count other bytes than the capture gives; e.g. '
            'bucket %s: %s, expected %s' % (ctx, len(badb), badb[:1],
                                            [q['bytes'][k] for k in badb[:1]],
                                            [by[k] for k in badb[:1]]))
    F.check(all(m == 0 for m in q['moves']), '%s: buckets moved without --rebalance: %s'
            % (ctx, q['moves']))


# ----------------------------------------------------------------- live: telemetry and reloads

tel = rpstest.telemetry_socket


def one(prefix, cmd):
    """The reply value of one command; KeyError when there was no reply at all."""
    r = tel(prefix, cmd)
    if not r:
        raise KeyError('no telemetry reply to %s' % cmd)
    return r[0][cmd.split(',')[0]]


def wait_for(pred, timeout=10.0):
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        try:
            v = pred()
        except KeyError:
            v = None
        if v:
            return v
        time.sleep(0.02)
    return None


def check_columns(F, ctx, rep, n_max):
    """/rps/buckets reply: the columns are arrays of one length <= n_max. Returns it."""
    cols = ('bucket', 'lcore', 'packets', 'bytes', 'pps', 'cycles', 'moves')
    if not F.check(isinstance(rep, dict) and all(isinstance(rep.get(c), list) for c in cols),
                   '%s: reply %r' % (ctx, rep)):
        return None
    lens = {c: len(rep[c]) for c in cols}
    F.check(len(set(lens.values())) == 1 and lens['bucket'] <= n_max,
            '%s: column lengths %s (at most %d, all equal)' % (ctx, lens, n_max))
    return lens['bucket']


def check_page(F, ctx, rep, first, table):
    n = check_columns(F, ctx, rep, 64)
    if n is None:
        return
    want = list(range(first, min(first + 64, len(table))))
    F.check(rep['bucket'] == want and rep.get('table_size') == len(table) and
            rep.get('view') == 'page', '%s: buckets %s, table_size %s, view %s; expected '
            'buckets %d..%d of %d' % (ctx, rep['bucket'], rep.get('table_size'),
                                      rep.get('view'), want[0], want[-1], len(table)))
    F.check(rep['lcore'] == [table[b] for b in want], '%s: lcores %s, expected %s' % (
        ctx, rep['lcore'], [table[b] for b in want]))
    nxt = first + 64 if first + 64 < len(table) else None
    F.check(rep.get('first') == first and rep.get('next') == nxt, '%s: first %r next %r, '
            'expected %d and %r' % (ctx, rep.get('first'), rep.get('next'), first, nxt))


def live(F, binary, tmp, frames):
    inp = os.path.join(tmp, 'live.pcap')
    rpstest.write_pcap(inp, frames)
    cfg = os.path.join(tmp, 'table.conf')
    # The workers are the lcores of the file's maps at start: default = 1-3 makes lcore 3 a
    # worker, so that the reload to 1-3 below can use it; queue0 (the one RX queue) 1:3,2:1.
    with open(cfg, 'w') as f:
        f.write('[dataplane]\ntable_size = 64\n[map]\ndefault = 1-3\nqueue0 = 1:3,2:1\n')
    t64 = map_fill(64, [1, 2], [3, 1])
    t256 = map_fill(256, [1, 2, 3])
    prefix = rpstest.unique_prefix()
    summary = os.path.join(tmp, 'live_summary.json')
    eal = rpstest.eal_args(prefix, lcores=LCORES,
                           vdevs=[rpstest.pcap_vdev(rx=inp, infinite_rx=True)])
    cmd = [binary] + eal + ['--', '--config', cfg, '--summary-json', summary,
                            '--backlog', '4096']
    proc = rpstest.drain(subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, start_new_session=True))

    def reload(body):
        with open(cfg, 'w') as f:
            f.write(body)
        os.kill(proc.pid, signal.SIGHUP)

    try:
        info = wait_for(lambda: (lambda i: i if i and i.get('ready') == 1 else None)(
            one(prefix, '/rps/info')), 15)
        if not F.check(info is not None, 'live: no /rps/info reply with ready 1 (telemetry '
                       'socket?)'):
            raise RuntimeError('no telemetry')
        F.check(info['worker_lcores'] == WORKERS, 'live: /rps/info workers %s' %
                info['worker_lcores'])
        mp = one(prefix, '/rps/map')
        q0 = mp['queue0']
        F.check(q0['table_size'] == 64 and q0['weights'] == [3, 1] and
                q0['buckets'] == [48, 16] and q0['lcores'] == [1, 2] and
                map_text(q0) == ('1:48,2:16', '1:3,2:1'),
                'live: /rps/map queue0 %s; expected table_size 64, weights 1:3,2:1, '
                'buckets 1:48,2:16' % q0)
        print('live: /rps/map queue0 table_size %s weights %s buckets %s' % (
            q0['table_size'], q0['weights'], q0['buckets']), flush=True)

        # the hottest buckets, once a rate interval (1 s) has given them a pps
        hot = wait_for(lambda: (lambda r: r if r and any(r.get('pps') or []) else None)(
            one(prefix, '/rps/buckets,0')), 10)
        F.check(hot is not None, 'live: /rps/buckets,0 never showed a bucket with pps > 0: '
                '%r' % (tel(prefix, '/rps/buckets,0'),))
        n = check_columns(F, 'live: /rps/buckets,0', hot, 32) if hot else None
        if n is not None:
            F.check(n == 32 and hot.get('table_size') == 64 and hot.get('view') == 'hottest'
                    and hot.get('owners') == [1, 2] and hot.get('owned') == [48, 16],
                    'live: /rps/buckets,0: %d buckets, table_size %s, view %s, owners %s' % (
                        n, hot.get('table_size'), hot.get('view'),
                        list(zip(hot.get('owners', []), hot.get('owned', [])))))
            pps = hot['pps']
            F.check(all(a >= b for a, b in zip(pps, pps[1:])),
                    'live: /rps/buckets,0 not sorted by pps descending: %s' % pps)
            F.check(len(set(hot['bucket'])) == n and all(0 <= b < 64 for b in hot['bucket']),
                    'live: /rps/buckets,0 buckets %s' % hot['bucket'])
            F.check(all(t64[b] == l for b, l in zip(hot['bucket'], hot['lcore'])),
                    'live: /rps/buckets,0 lcores %s of buckets %s, table %s' % (
                        hot['lcore'], hot['bucket'], t64))
            print('live: /rps/buckets,0: %d hottest, pps %s..%s' % (n, pps[0], pps[-1]),
                  flush=True)
        r = tel(prefix, '/rps/buckets,0,60', '/rps/buckets,0,0', '/rps/buckets,0,64',
                '/rps/buckets,7', '/rps/buckets,0,x')
        if F.check(len(r) == 5, 'live: expected 5 /rps/buckets replies, got %r' % r):
            check_page(F, 'live: /rps/buckets,0,60', r[0]['/rps/buckets'], 60, t64)
            check_page(F, 'live: /rps/buckets,0,0', r[1]['/rps/buckets'], 0, t64)
            for cmdl, rep in zip(('/rps/buckets,0,64', '/rps/buckets,7', '/rps/buckets,0,x'),
                                 r[2:]):
                F.check(rep == {'/rps/buckets': None}, 'live: %s: expected the error reply '
                        '{"/rps/buckets": null}, got %r' % (cmdl, rep))
            print('live: /rps/buckets pages 60 (%s buckets), 0 (%s); 0,64 / 7 / 0,x -> %s'
                  % (len(r[0]['/rps/buckets'].get('bucket', []))
                     if r[0]['/rps/buckets'] else None,
                     len(r[1]['/rps/buckets'].get('bucket', []))
                     if r[1]['/rps/buckets'] else None,
                     [list(x.values())[0] for x in r[2:]]), flush=True)

        # a reload: table_size 256, every worker
        gen1 = mp['generation']
        reload('[dataplane]\ntable_size = 256\n[map]\ndefault = 1-3\n')
        # (the new maps are published a moment before the generation moves on: wait for
        # both)
        mp = wait_for(lambda: (lambda m: m if m['queue0']['table_size'] == 256 and
                               m['generation'] > gen1 else None)(one(prefix, '/rps/map')))
        F.check(mp is not None and map_text(mp['queue0']) == ('1:86,2:85,3:85', '1:1,2:1,3:1')
                and mp['generation'] > gen1,
                'live: after the reload to table_size 256, map 1-3: /rps/map %s' % mp)
        # (and the result is written a moment after the generation: the first reload's is in
        # once reloads_ok counts it)
        cf = wait_for(lambda: (lambda c: c if c['reloads_ok'] >= 1 else None)(
            one(prefix, '/rps/config')))
        F.check(cf is not None and cf['last_reload_result'] == 'ok',
                'live: reload to 256: /rps/config %s' % (cf or one(prefix, '/rps/config')))
        print('live: reload -> table_size %s buckets %s generation %s' % (
            mp and mp['queue0']['table_size'], mp and mp['queue0']['buckets'],
            mp and mp['generation']), flush=True)
        pg = one(prefix, '/rps/buckets,0,192')
        check_page(F, 'live: after the reload /rps/buckets,0,192', pg, 192, t256)
        gen = one(prefix, '/rps/config')['generation']

        # refused: not a power of two (FILE:LINE), then 3 workers in 2 buckets
        for body, want in (
                ('[dataplane]\ntable_size = 3\n[map]\ndefault = 1-3\n',
                 [cfg + ':2:', 'table_size', 'power of two']),
                ('[dataplane]\ntable_size = 2\n[map]\ndefault = 1-3\n',
                 ['table_size', '3 workers', 'do not fit', '2 buckets'])):
            reload(body)
            cf = wait_for(lambda: (lambda c: c if want[-1] in c['last_reload_result']
                                   else None)(one(prefix, '/rps/config')))
            label = 'live: reload with %s' % body.split('\n')[1]
            if F.check(cf is not None, '%s: not refused: /rps/config %s' % (
                    label, one(prefix, '/rps/config'))):
                res = cf['last_reload_result']
                F.check(res.startswith('refused') and all(w in res for w in want) and
                        cf['generation'] == gen, '%s: generation %s (was %d), result %r, '
                        'expected it to mention %s' % (label, cf['generation'], gen, res,
                                                       want))
                print('%s: %s' % (label, res), flush=True)
            mp = one(prefix, '/rps/map')
            F.check(mp['generation'] == gen and mp['queue0']['table_size'] == 256 and
                    map_text(mp['queue0'])[0] == '1:86,2:85,3:85',
                    '%s: the running map changed: %s' % (label, mp))
        time.sleep(0.3)
    except (RuntimeError, KeyError, TypeError, subprocess.TimeoutExpired) as e:
        F.fail('live: %r' % e)
    finally:
        out, err = rpstest.stop(proc, prefix)
    text = err.decode(errors='replace')
    F.check('cannot register' not in text, 'live: %s' % ' / '.join(
        l for l in text.splitlines() if 'cannot register' in l))
    s = rpstest.check_stopped(F, proc, err, summary, 'live')
    if s is None:
        return
    try:
        b = s['buckets']
        q = b['queues'][0]
        F.check(b['table_size'] == 256 and q['size'] == 256 and q.get('lcore') == t256,
                'live: summary buckets: table_size %s, queue size %s, lcore %s' % (
                    b['table_size'], q['size'], q.get('lcore')))
        print('live: SIGINT exit %s, rx %d processed %d dropped %s, summary table %d' % (
            proc.returncode, s['rx_packets'], s['processed'],
            {k: v for k, v in s['dropped'].items() if v}, b['table_size']), flush=True)
    except (KeyError, TypeError, IndexError) as e:
        F.fail('live: summary: %r' % e)


# ----------------------------------------------------------------- bad values

def bad_values(F, binary, tmp):
    """Exit 2 naming the option; a config mistake with FILE:LINE."""
    def go(app, conf=None):
        return rpstest.run_until_idle(binary, tmp, app, conf, lcores=LCORES)

    cases = [
        (['--map', '1:0'], None, ['--map', '1:0']),
        (['--map', '1:5000'], None, ['--map', '1:5000']),
        (['--table-size', '100'], None, ['--table-size', 'power of two']),
        (['--table-size', '8192'], None, ['--table-size', 'power of two']),
        (['--rebalance', 'on', '--reorder-safe', 'off'], None, ['--rebalance', '--reorder-safe']),
        (['--rebalance', 'maybe'], None, ['--rebalance', 'on or off']),
        (['--rebalance-threshold', '0'], None, ['--rebalance-threshold']),
        (['--rebalance-moves', '0'], None, ['--rebalance-moves']),
        ([], '[dataplane]\ntable_size = 100\n', ['bad.conf:2', 'table_size', 'power of two']),
        # 3 workers cannot share 2 buckets: a usage error, at start as on reload
        (['--map', '1-3', '--table-size', '2'], None, ['--table-size', '3 workers', '2 buckets']),
        (['--map', '1-3'], '[dataplane]\ntable_size = 2\n', ['table_size', '3 workers']),
    ]
    rpstest.check_usage_errors(F, go, cases)


def main():
    binary = rpstest.binary_from_argv()
    F = rpstest.Failures('test_table')
    # the Python model against the first Microsoft verification vector (IPv4 with ports)
    assert toeplitz(MS_KEY, bytes([66, 9, 149, 187, 161, 142, 100, 80]) +
                    struct.pack('!HH', 2794, 1766)) == 0x51ccc178
    # the fill model: what rps_map.h promises
    assert map_fill(16, [1, 2, 3]) == [1 + b % 3 for b in range(16)]
    assert collections.Counter(map_fill(128, [1, 2, 3], [2, 1, 1])) == {1: 64, 2: 32, 3: 32}
    rng = random.Random(11)
    with rpstest.TempDir('table') as tmp:
        inp = os.path.join(tmp, 'in.pcap')
        frames, hashes = build(rng)
        rpstest.write_pcap(inp, frames)
        print('input: %d packets, %d buckets of 128 hit' % (
            len(frames), len({rpstest.bucket(h, 128) for h in hashes})), flush=True)

        # both whole-capture runs side by side (nothing in them depends on timing), then
        # their checks
        weighted, size16 = ['--map', '1:2,2:1,3:1'], ['--map', '1-3', '--table-size', '16']
        runs = rpstest.run_all([lambda: launch(binary, tmp, inp, 'weighted', weighted),
                                lambda: launch(binary, tmp, inp, 'size16', size16)])
        table_run(F, runs[0], frames, hashes, 'weighted', 128, weighted,
                  map_fill(128, [1, 2, 3], [2, 1, 1]), {1: 64, 2: 32, 3: 32})
        table_run(F, runs[1], frames, hashes, 'size16', 16, size16,
                  [1 + b % 3 for b in range(16)], {1: 6, 2: 5, 3: 5})
        live(F, binary, tmp, frames[:800])
        bad_values(F, binary, tmp)
    return F.report()


if __name__ == '__main__':
    sys.exit(main())
