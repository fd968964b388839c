#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_telemetry_limits.py: every /rps/ reply fits DPDK 22.11's telemetry limits.

DPDK 22.11 prints a telemetry reply into 16 KiB and silently leaves out what does not fit
(13 of 16 workers in /rps/stats), caps dicts at 256 entries and arrays at 512, and cuts
strings at 127 characters (the comma lists of /rps/map at 32 workers). dpdk-rps runs with 32
workers on one CPU (--lcores '0@0,(1-32)@1', --map 1-32) and a 4096-bucket table on a
looping capture, and every /rps/ command, every page of it, is asked through both a raw
client of the socket (rpstest.Telemetry) and dpdk-telemetry.py:

- every reply is valid JSON under 16 KiB, neither null nor an "error";
- /rps/stats and /rps/workers, page by page along "next", hold each of the 32 workers
  exactly once; /rps/worker,L for each holds every counter and drop reason;
- /rps/map's queue0 lists lcores 1-32 as arrays, buckets per lcore summing to 4096;
- /rps/buckets,0,FIRST along "next" covers buckets 0..4095 once, their lcores as /rps/map
  counts them; /rps/flows,64 pages along "next";
- parameters out of range answer null; SIGINT: exit 0, accounting exact.

usage: test_telemetry_limits.py PATH/TO/dpdk-rps
"""
import collections
import json
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rpstest  # noqa: E402

WORKERS = list(range(1, 33))
TABLE = 4096
MAX_OUTPUT = 16384  # DPDK 22.11's MAX_OUTPUT_LEN


def counter_names():
    """Every per-lcore counter and dropped_<reason> (lib/rps/rps_counters.h)."""
    hdr = open(os.path.join(rpstest.SRC_ROOT, 'lib', 'rps', 'rps_counters.h')).read()
    hdr = hdr[:hdr.index('#define RPS_PORT_COUNTERS')]  # per port: /rps/ports, not per lcore
    drops = re.findall(r'^\s*X\(\w+, (\w+), "', hdr, re.M)
    ctrs = re.findall(r'^\s*X\((\w+), "', hdr, re.M)
    return ctrs + ['dropped_' + d for d in drops] + ['dropped_total']


class RawClient:
    """One connection to the socket, as a monitoring agent holds it."""
    name = 'socket'

    def __init__(self, prefix):
        self.t = rpstest.Telemetry(prefix)

    def query(self, cmds):
        """[(value, problem)] for each command; problem '' when the reply is sound."""
        out = []
        for c in cmds:
            raw, _ = self.t.query_raw(c)
            if not raw:
                out.append((None, 'no reply'))
                continue
            if len(raw) >= MAX_OUTPUT:
                out.append((None, 'reply of %d bytes' % len(raw)))
                continue
            try:
                v = json.loads(raw.decode())
            except ValueError as e:
                out.append((None, 'invalid JSON (%s): %r' % (e, raw[-200:])))
                continue
            key = c.split(',')[0]
            if not isinstance(v, dict) or list(v) != [key]:
                out.append((None, 'reply %r' % (raw[:200],)))
                continue
            out.append((v[key], ''))
        return out

    def close(self):
        self.t.close()


class ScriptClient:
    """dpdk-telemetry.py, the commands on its stdin."""
    name = 'dpdk-telemetry.py'

    def __init__(self, prefix):
        self.prefix = prefix

    def query(self, cmds):
        p = subprocess.run([rpstest.TELEMETRY, '-f', self.prefix],
                           input='\n'.join(cmds) + '\n', capture_output=True, text=True,
                           timeout=60)
        lines = [l for l in p.stdout.splitlines() if l.strip()]
        replies = []
        for line in lines:
            try:
                replies.append(json.loads(line))
            except ValueError:
                replies.append(line)   # "Error in reply: ..." and the like
        replies = replies[-len(cmds):]
        if len(replies) != len(cmds):
            return [(None, '%d lines for %d commands: %r' % (len(replies), len(cmds),
                                                             p.stdout[-300:]))] * len(cmds)
        out = []
        for c, r in zip(cmds, replies):
            key = c.split(',')[0]
            if not isinstance(r, dict) or list(r) != [key]:
                out.append((None, 'not a JSON reply: %r' % (r if isinstance(r, str)
                                                            else r)[:300]))
            else:
                out.append((r[key], ''))
        return out

    def close(self):
        pass


def sound(F, ctx, value, problem):
    """A reply that is JSON, not null, not an error. Returns it or None."""
    if not F.check(problem == '', '%s: %s' % (ctx, problem)):
        return None
    if not F.check(isinstance(value, dict), '%s: reply %r' % (ctx, value)):
        return None
    if not F.check('error' not in value, '%s: %r' % (ctx, value)):
        return None
    return value


def walk(F, client, ctx, make, total_of):
    """Every page of a paged command: make(FIRST) is the command. The raw client follows
    "next" page by page; dpdk-telemetry.py asks page 0, then every page "next" implies in
    one run, and the chain of "next" is checked. Returns [(first, reply)] or None."""
    v, prob = client.query([make(0)])[0]
    rep = sound(F, '%s %s %s' % (client.name, ctx, make(0)), v, prob)
    if rep is None:
        return None
    pages = [(0, rep)]
    if isinstance(client, RawClient):
        while 'next' in pages[-1][1] and len(pages) < 1000:
            nxt = pages[-1][1]['next']
            if not F.check(isinstance(nxt, int) and nxt > pages[-1][0],
                           '%s %s: next %r after %d' % (client.name, ctx, nxt, pages[-1][0])):
                return None
            v, prob = client.query([make(nxt)])[0]
            rep = sound(F, '%s %s %s' % (client.name, ctx, make(nxt)), v, prob)
            if rep is None:
                return None
            pages.append((nxt, rep))
    elif 'next' in rep:
        step, total = rep['next'], total_of(rep)
        firsts = list(range(step, total, step))
        got = client.query([make(f) for f in firsts])
        for f, (v, prob) in zip(firsts, got):
            rep = sound(F, '%s %s %s' % (client.name, ctx, make(f)), v, prob)
            if rep is None:
                return None
            pages.append((f, rep))
        chain = [p[1].get('next') for p in pages]
        F.check(chain == firsts + [None], '%s %s: "next" along the pages %s, expected %s'
                % (client.name, ctx, chain, firsts + [None]))
    for first, rep in pages:
        F.check(rep.get('first') == first, '%s %s: page %d says first %r' % (
            client.name, ctx, first, rep.get('first')))
    return pages


def check_once(F, ctx, seen):
    c = collections.Counter(seen)
    F.check(sorted(c) == WORKERS and set(c.values()) == {1},
            '%s: workers seen %s, expected each of %d..%d once' % (
                ctx, dict(c), WORKERS[0], WORKERS[-1]))


def check_client(F, client, names):
    n = client.name
    r = client.query(['/rps/info', '/rps/config', '/rps/stats', '/rps/workers', '/rps/map',
                      '/rps/buckets,0', '/rps/flows', '/rps/flows,5'] +
                     ['/help,/rps/%s' % c for c in ('info', 'stats', 'workers', 'worker',
                                                    'map', 'buckets', 'flows', 'config')])
    labels = ['/rps/info', '/rps/config', '/rps/stats', '/rps/workers', '/rps/map',
              '/rps/buckets,0', '/rps/flows', '/rps/flows,5'] + ['/help'] * 8
    for (v, prob), label in zip(r, labels):
        sound(F, '%s %s' % (n, label), v, prob)
    info = r[0][0]
    if isinstance(info, dict):
        F.check(info.get('worker_lcores') == WORKERS, '%s /rps/info worker_lcores %r' % (
            n, info.get('worker_lcores')))
    hot = r[5][0]
    if isinstance(hot, dict) and 'bucket' in hot:
        F.check(len(hot['bucket']) == 32 and len(set(hot['bucket'])) == 32 and
                hot.get('table_size') == TABLE, '%s /rps/buckets,0: %d hottest, table %s' % (
                    n, len(hot['bucket']), hot.get('table_size')))

    # /rps/stats: global counters and a page of worker summaries
    pages = walk(F, client, '/rps/stats', lambda f: '/rps/stats,%d' % f,
                 lambda rep: rep['nb_workers'])
    if pages:
        seen = [int(k[len('worker_'):]) for _, p in pages for k in p if k.startswith('worker_')]
        check_once(F, '%s /rps/stats' % n, seen)
        F.check(all(p['nb_workers'] == 32 and p['rx_packets'] > 0 for _, p in pages),
                '%s /rps/stats: nb_workers / rx_packets %s' % (
                    n, [(p.get('nb_workers'), p.get('rx_packets')) for _, p in pages]))
        F.check(all('backlog_hwm' in w and 'received_rps' in w for _, p in pages
                    for k, w in p.items() if k.startswith('worker_')),
                '%s /rps/stats: a worker summary lacks backlog_hwm or received_rps' % n)
        print('%s: /rps/stats %d pages (%s), %d workers' % (
            n, len(pages), [f for f, _ in pages], len(seen)), flush=True)

    # /rps/workers: pages of the per-worker view
    pages = walk(F, client, '/rps/workers', lambda f: '/rps/workers,%d' % f,
                 lambda rep: rep['nb_workers'])
    if pages:
        seen = [int(k) for _, p in pages for k in p.get('workers', {})]
        check_once(F, '%s /rps/workers' % n, seen)
        F.check(all(w.get('health') == 'ok' and 'buckets' in w for _, p in pages
                    for w in p.get('workers', {}).values()),
                '%s /rps/workers: a worker not ok or without buckets' % n)
        owned = sum(w['buckets'] for _, p in pages for w in p.get('workers', {}).values())
        F.check(owned == TABLE, '%s /rps/workers: buckets owned sum to %d, not %d' % (
            n, owned, TABLE))
        print('%s: /rps/workers %d pages, %d workers, %d buckets owned' % (
            n, len(pages), len(seen), owned), flush=True)

    # /rps/worker,L: one worker, every counter
    r = client.query(['/rps/worker,%d' % l for l in WORKERS])
    bad = []
    for l, (v, prob) in zip(WORKERS, r):
        rep = sound(F, '%s /rps/worker,%d' % (n, l), v, prob)
        if rep is None:
            continue
        missing = [k for k in names + ['backlog_depth', 'backlog_hwm', 'health', 'buckets',
                                        'pps'] if k not in rep]
        if rep.get('lcore') != l or missing:
            bad.append((l, rep.get('lcore'), missing[:5]))
    F.check(not bad, '%s /rps/worker: (lcore, says, missing) %s' % (n, bad[:4]))
    print('%s: /rps/worker,1..32: %d counters each' % (n, len(names)), flush=True)

    # /rps/map: arrays, buckets per lcore summing to the table
    pages = walk(F, client, '/rps/map', lambda f: '/rps/map,%d' % f,
                 lambda rep: rep['nb_queues'])
    counts = None
    if pages:
        q0 = pages[0][1].get('queue0')
        if F.check(isinstance(q0, dict) and all(isinstance(q0.get(k), list) for k in (
                'lcores', 'weights', 'buckets')), '%s /rps/map queue0 %r' % (n, q0)):
            F.check(q0['lcores'] == WORKERS and q0['weights'] == [1] * 32 and
                    len(q0['buckets']) == 32 and sum(q0['buckets']) == TABLE and
                    q0['table_size'] == TABLE and q0['nb_lcores'] == 32,
                    '%s /rps/map queue0: lcores %s weights %s buckets %s (sum %d) table %s' % (
                        n, q0['lcores'], q0['weights'], q0['buckets'], sum(q0['buckets']),
                        q0.get('table_size')))
            counts = dict(zip(q0['lcores'], q0['buckets']))
            print('%s: /rps/map queue0: %d lcores, buckets sum %d' % (
                n, len(q0['lcores']), sum(q0['buckets'])), flush=True)

    # /rps/buckets,0,FIRST: every bucket once, owned as /rps/map says
    pages = walk(F, client, '/rps/buckets', lambda f: '/rps/buckets,0,%d' % f,
                 lambda rep: rep['table_size'])
    if pages:
        buckets = [b for _, p in pages for b in p.get('bucket', [])]
        lcores = [l for _, p in pages for l in p.get('lcore', [])]
        F.check(buckets == list(range(TABLE)), '%s /rps/buckets pages: %d buckets, %d '
                'distinct, expected 0..%d' % (n, len(buckets), len(set(buckets)), TABLE - 1))
        if counts is not None:
            F.check(dict(collections.Counter(lcores)) == counts,
                    '%s /rps/buckets: owners %s, /rps/map %s' % (
                        n, dict(collections.Counter(lcores)), counts))
        owners = pages[0][1]
        F.check(dict(zip(owners.get('owners', []), owners.get('owned', []))) ==
                (counts or {}), '%s /rps/buckets owners %s owned %s' % (
                    n, owners.get('owners'), owners.get('owned')))
        print('%s: /rps/buckets,0: %d pages, %d buckets' % (n, len(pages), len(buckets)),
              flush=True)

    # /rps/flows,64: the top 64, a page at a time
    pages = walk(F, client, '/rps/flows', lambda f: '/rps/flows,64,%d' % f,
                 lambda rep: 64)
    if pages:
        ranks = [int(k) for _, p in pages for k in p if k.isdigit()]
        F.check(ranks == list(range(len(ranks))) and len(ranks) <= 64,
                '%s /rps/flows,64: ranks %s' % (n, ranks))
        print('%s: /rps/flows,64: %d pages, %d flows' % (n, len(pages), len(ranks)),
              flush=True)

    # out of range: an error reply, never a page of something else
    r = client.query(['/rps/worker,99', '/rps/worker,0', '/rps/stats,32', '/rps/workers,32',
                      '/rps/map,1', '/rps/buckets,0,4096', '/rps/flows,65', '/rps/flows,8,8',
                      '/rps/stats,x'])
    # a null reply, not a missing one: a reply that never came (or was not JSON) is a failure
    F.check(all(p == '' for _, p in r), '%s: out of range parameters: %s' % (
        n, [p for _, p in r if p]))
    F.check(all(v is None for v, _ in r), '%s: out of range parameters answered %s' % (
        n, [v if v is None else sorted(v)[:3] for v, _ in r]))


def main():
    binary = rpstest.binary_from_argv()
    F = rpstest.Failures('test_telemetry_limits')
    names = counter_names()
    if len(names) < 60:
        print('parsed only %d counter names: parser broken' % len(names))
        return 1
    with rpstest.TempDir('tel_limits') as tmp:
        inp, _ = rpstest.write_input(tmp, flows=512, packets_per_flow=4, seed=15, frag_datagrams=0,
                                     non_ip=0)
        prefix = rpstest.unique_prefix()
        summary = os.path.join(tmp, 'summary.json')
        eal = rpstest.eal_args(prefix, lcores='0@0,(1-32)@1', mem_mb=1024,
                               vdevs=[rpstest.pcap_vdev(rx=inp, infinite_rx=True)])
        cmd = [binary] + eal + ['--', '--map', '1-32', '--table-size', str(TABLE),
                                '--summary-json', summary, '--backlog', '256',
                                '--flow-table-size', '4096', '--frag-max', '64']
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                stdin=subprocess.DEVNULL, start_new_session=True)
        err = b''
        try:
            info = rpstest.wait_ready(prefix, timeout=60)
            if F.check(info is not None, 'never ready (telemetry socket?)'):
                # traffic on every worker before looking
                t0 = time.monotonic()
                while time.monotonic() - t0 < 20:
                    v = rpstest.telemetry(prefix, '/rps/info', '/rps/stats')
                    st = v[-1].get('/rps/stats') if len(v) == 2 else None
                    if st and st.get('processed', 0) > 20000:
                        break
                    time.sleep(0.2)
                for c in (RawClient(prefix), ScriptClient(prefix)):
                    try:
                        check_client(F, c, names)
                    finally:
                        c.close()
        except (OSError, KeyError, TypeError, subprocess.TimeoutExpired) as e:
            F.fail('%r' % e)
        finally:
            _, err = rpstest.stop(proc, prefix)
        text = err.decode(errors='replace')
        F.check('cannot register' not in text, ' / '.join(
            l for l in text.splitlines() if 'cannot register' in l))
        rpstest.check_stopped(F, proc, err, summary, 'exit')
    return F.report()


if __name__ == '__main__':
    sys.exit(main())
