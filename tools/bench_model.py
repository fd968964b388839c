#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench_model.py: how many packets C cores steer and process, from measured cycles per role.

Reads the JSON of dpdk-rps-bench (--json) and prints markdown: the cycles per packet of each
role as measured there, the predicted throughput of C cores split into K dispatchers and C-K
workers, and (with several files) K dispatchers against one.

Roles, all TSC cycles per packet, read from the first file (flows --flows, frame --frame):
  dispatcher   one RX queue's dispatcher, all of its loop (rx, hash, map, group, enqueue):
               `rss` (the NIC's hash) and `jhash` (hashed from cold headers)
  handoff      the ring alone (the `handoff` probe): enqueue (already in the dispatcher's
               figure) + dequeue (added to the worker's)
  worker       the stages (`single_core`'s steer part: parse, validate, reassemble, flow,
               free) + the dequeue
Every figure is a busy one where the file has it: cycles of the loop iterations that took
packets and kept their CPU (the worst dispatcher's), so that a CPU lent to another thread
(an oversubscribed or shared machine) does not count.
For C cores the split is the K that maximises min(K * f_disp, (C - K) * f_worker), with
f = tsc_hz / cycles: the dispatchers' capacity against the workers'. The table says what
that gives for each C and against a 100 GbE link of 64-byte frames (148.8 Mpps), and how
many cores the link needs.

The model assumes cores scale: each dispatcher its own RX queue (RSS spreads flows over
queues), no shared cache lines between dispatchers, each worker as fast as one alone. The same
command measures it for real on a machine with cores: run the benchmark with real lcores,
one per CPU, e.g. (10 cores: 2 dispatchers, 8 workers)

  build/bench/dpdk-rps-bench -m 4096 --no-pci --lcores 0-9 -- --dispatchers 2 \\
      --modes rss,jhash,single_core,e2e_stages --flows 1024 --frames 64 --json k2.json
  tools/bench_model.py k2.json

and the "measured" table puts the e2e_stages figure (K dispatchers feeding C-K workers that
run the stages) next to the prediction for that split. On a box with fewer CPUs than lcores
the runs are marked oversubscribed and prove nothing about scaling.

usage: tools/bench_model.py BENCH.json [MORE.json ...] [--flows N] [--frame N]
                            [--cores 16,32,64] [--line-mpps 148.8]
Exit 0 ok, 1 unreadable input or missing figures, 2 usage.
"""

import argparse
import json
import sys

LINE_MPPS = 148.8       # 100 GbE, 64-byte frames (84 bytes on the wire with preamble and gap)
GOAL_RATIO = 1.10       # issue #16: K dispatchers' per-dispatcher cycles within 10% of one's


def num(x):
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else None


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise SystemExit('bench_model: cannot read %s: %s' % (path, e))


def dispatchers_of(doc):
    cfg = (doc or {}).get('config') or {}
    return int(cfg.get('dispatchers') or 1)


def pick(doc, mode, flows, frame):
    """The result of mode at (flows, frame), else at the nearest flow count of that frame."""
    rs = [r for r in (doc or {}).get('results') or []
          if r.get('mode') == mode and r.get('frame') == frame]
    if not rs:
        return None
    exact = [r for r in rs if r.get('flows') == flows]
    return exact[0] if exact else min(rs, key=lambda r: abs((r.get('flows') or 0) - flows))


def busy(r, key):
    """The worst dispatcher's busy figure of result r (busy_<key>: the loop iterations that
    took packets and kept their CPU, so a CPU lent to another thread does not count), else
    the result's own <key> (a file from before --dispatchers)."""
    vals = [num(p.get('busy_' + key)) for p in r.get('per_dispatcher') or []]
    vals = [v for v in vals if v]
    return max(vals) if vals else num(r.get(key))


def disp_cycles(r):
    """A dispatcher's cycles per packet in result r: all of its loop."""
    return busy(r, 'cycles_per_pkt')


def roles(doc, flows, frame):
    """{role: (cycles, where from)} from one bench JSON."""
    out = {}
    for mode in ('rss', 'jhash'):
        r = pick(doc, mode, flows, frame)
        c = disp_cycles(r) if r else None
        if c:
            out['dispatcher_' + mode] = (c, '`%s`, %s flows, %s B, %d dispatcher(s)' % (
                mode, r.get('flows'), r.get('frame'), dispatchers_of(doc)))
    ho = doc.get('handoff') or {}
    enq, deq = num(ho.get('enqueue_cycles_per_pkt')), num(ho.get('dequeue_cycles_per_pkt'))
    if enq is not None and deq is not None:
        out['handoff'] = (enq + deq, 'probe: enqueue %.1f + dequeue %.1f, bursts of %s' % (
            enq, deq, ho.get('burst', '?')))
    s = pick(doc, 'single_core', flows, frame)
    stage = busy(s, 'steer_cycles_per_pkt') if s else None
    if stage:
        out['stages'] = (stage, '`single_core` steer part, %s flows, %s B' % (
            s.get('flows'), s.get('frame')))
        out['worker'] = (stage + (deq or 0.0), 'stages + dequeue' if deq is not None else
                         'stages (the file has no handoff probe: dequeue not counted)')
    return out


def best_split(cores, f_disp, f_worker):
    """(K, predicted Mpps) maximising min(K * f_disp, (C - K) * f_worker); ties: fewer K.
    The minimum of a rising and a falling line peaks where they cross, at
    K = C * f_worker / (f_disp + f_worker): the best whole K is on one side of it."""
    x = cores * f_worker / (f_disp + f_worker)
    best = (1, -1.0)
    for k in sorted({min(max(int(x), 1), cores - 1), min(max(int(x) + 1, 1), cores - 1)}):
        v = min(k * f_disp, (cores - k) * f_worker)
        if v > best[1] + 1e-9:
            best = (k, v)
    return best


def cores_for(target, f_disp, f_worker, limit=100000):
    """The fewest cores whose best split reaches target Mpps, and its K; (None, None) past
    limit."""
    for c in range(2, limit + 1):
        k, v = best_split(c, f_disp, f_worker)
        if v >= target:
            return c, k
    return None, None


def model_lines(doc, flows, frame, cores, line_mpps):
    """The markdown of the roles and of the prediction, or raise ValueError."""
    hz = num(((doc or {}).get('machine') or {}).get('tsc_hz'))
    rl = roles(doc, flows, frame)
    if not hz or 'worker' not in rl or not any(k.startswith('dispatcher_') for k in rl):
        raise ValueError('needs machine.tsc_hz, single_core and rss or jhash results '
                         '(at %s-byte frames)' % frame)
    m = doc.get('machine') or {}
    cfg = doc.get('config') or {}
    lines = ['Measured on: %s, TSC %.2f GHz, %s lcores, %d dispatcher(s)%s; %s.' % (
        m.get('cpu', '?'), hz / 1e9, m.get('lcores', '?'), dispatchers_of(doc),
        ', oversubscribed' if cfg.get('oversubscribed') else '', doc.get('date', '?')), '',
        '| role | cycles/pkt | Mpps per core | from |', '|---|---:|---:|---|']
    names = {'dispatcher_rss': 'dispatcher per RX queue, `rss`',
             'dispatcher_jhash': 'dispatcher per RX queue, `jhash`',
             'handoff': 'ring handoff (enqueue + dequeue)',
             'stages': 'worker stages', 'worker': 'worker (stages + dequeue)'}
    for key in ('dispatcher_rss', 'dispatcher_jhash', 'handoff', 'stages', 'worker'):
        if key in rl:
            c, src = rl[key]
            lines.append('| %s | %.1f | %.1f | %s |' % (names[key], c, hz / c / 1e6, src))
    f_worker = hz / rl['worker'][0] / 1e6
    lines += ['', 'Predicted Mpps for C cores, K dispatchers + C-K workers (the K that '
              'maximises min(K × dispatcher Mpps, (C-K) × worker Mpps)); 100 GbE = %.1f Mpps '
              'of 64-byte frames:' % line_mpps, '',
              '| hash | cores | dispatchers | workers | dispatchers Mpps | workers Mpps | '
              'predicted Mpps | of 100 GbE |', '|---|---:|---:|---:|---:|---:|---:|---:|']
    need = []
    for key in ('dispatcher_rss', 'dispatcher_jhash'):
        if key not in rl:
            continue
        f_disp = hz / rl[key][0] / 1e6
        mode = key.split('_', 1)[1]
        for c in cores:
            k, v = best_split(c, f_disp, f_worker)
            lines.append('| `%s` | %d | %d | %d | %.1f | %.1f | %.1f | %.1f%% |' % (
                mode, c, k, c - k, k * f_disp, (c - k) * f_worker, v, 100 * v / line_mpps))
        c, k = cores_for(line_mpps, f_disp, f_worker)
        if c:
            need.append('`%s`: %d cores (%d dispatchers + %d workers)' % (mode, c, k, c - k))
    if need:
        lines += ['', '100 GbE of 64-byte frames needs ' + '; '.join(need) + '.']
    return lines, rl, hz


def measured_lines(docs, rl, hz, frame=64):
    """e2e_stages results of every file (at the model's frame size) against the prediction
    for their own split."""
    if 'dispatcher_rss' not in rl:
        return []
    f_disp = hz / rl['dispatcher_rss'][0] / 1e6
    f_worker = hz / rl['worker'][0] / 1e6
    rows = []
    for path, doc in docs:
        for r in doc.get('results') or []:
            if r.get('mode') != 'e2e_stages' or num(r.get('median_mpps')) is None or \
                    r.get('frame') != frame:
                continue
            k = int(r.get('dispatchers') or dispatchers_of(doc))
            w = int(r.get('workers') or 0)
            pred = min(k * f_disp, w * f_worker)
            rows.append('| %s | %s | %s | %d | %d%s | %.1f | %.3f | %.2f |' % (
                path, r.get('flows'), r.get('frame'), k, w,
                ' (oversubscribed)' if r.get('oversubscribed') else '', pred,
                r['median_mpps'], r['median_mpps'] / pred if pred else 0))
    if not rows:
        return []
    return ['', 'Measured `e2e_stages` (K dispatchers, `rss`, feeding workers that run the '
            'stages) against the prediction for the same split (oversubscribed runs share '
            'CPUs and cannot match it):', '',
            '| file | flows | frame | dispatchers | workers | predicted Mpps | measured Mpps | '
            'measured / predicted |', '|---|---:|---:|---:|---:|---:|---:|---:|'] + rows


def kdisp_lines(docs, flows, frame):
    """Per-dispatcher cycles of every file with K > 1 against the K = 1 file's, per mode."""
    base = [(p, d) for p, d in docs if dispatchers_of(d) == 1]
    many = [(p, d) for p, d in docs if dispatchers_of(d) > 1]
    if not many:
        return []
    lines = ['| mode | flows | frame | dispatchers | dispatcher | lcore | Mpps | cycles/pkt | '
             'steer | busy cycles/pkt | busy steer | throttled % | descheduled % | '
             'busy / one dispatcher\'s |',
             '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|']
    verdicts = []
    for _, doc in many:
        for r in doc.get('results') or []:
            if r.get('mode') not in ('io_limit', 'rss', 'jhash', 'toeplitz', 'e2e_stages'):
                continue
            if frame is not None and r.get('frame') != frame:
                continue
            one = None
            for _, b in base:
                o = pick(b, r['mode'], r.get('flows'), r.get('frame'))
                if o and o.get('flows') == r.get('flows'):
                    one = o
            ref = None
            if one:
                p0 = (one.get('per_dispatcher') or [{}])[0]
                ref = num(p0.get('busy_cycles_per_pkt')) or num(one.get('cycles_per_pkt'))
            worst = 0.0
            # a dispatcher whose workers refuse most bursts takes the cheaper drop path:
            # its cycles are not those of one that places its packets
            ref_thr = num((one or {}).get('throttled_pct')) or 0
            thr = max([num(p.get('throttled_pct')) or 0
                       for p in r.get('per_dispatcher') or []] + [ref_thr])
            for p in r.get('per_dispatcher') or []:
                busy = num(p.get('busy_cycles_per_pkt'))
                rat = busy / ref if busy and ref else None
                worst = max(worst, rat or 0)
                lines.append('| `%s` | %s | %s | %s | %s | %s | %.2f | %.1f | %.1f | %.1f | %.1f | '
                             '%.2f | %.1f | %s |' % (
                                 r['mode'], r.get('flows'), r.get('frame'),
                                 r.get('dispatchers'), p.get('dispatcher'), p.get('lcore'),
                                 num(p.get('median_mpps')) or 0,
                                 num(p.get('cycles_per_pkt')) or 0,
                                 num(p.get('steer_cycles_per_pkt')) or 0, busy or 0,
                                 num(p.get('busy_steer_cycles_per_pkt')) or 0,
                                 num(p.get('throttled_pct')) or 0,
                                 num(p.get('descheduled_pct')) or 0,
                                 '%.2f' % rat if rat else '–'))
            if ref and r['mode'] in ('rss', 'jhash') and worst:
                verdicts.append('`%s` %s flows: worst %.2f× (%s)' % (
                    r['mode'], r.get('flows'), worst,
                    ('not comparable: %.0f%% throttled, the workers are the limit' % thr)
                    if thr > 50 else 'met' if worst <= GOAL_RATIO else 'not met'))
    if verdicts:
        lines += ['', 'Goal (issue #16): each of K dispatchers within %d%% of one '
                  'dispatcher\'s cycles per packet (busy cycles, against the one-dispatcher '
                  'file\'s): %s.' % (round((GOAL_RATIO - 1) * 100), '; '.join(verdicts))]
    return lines


def report(docs, flows=1024, frame=64, cores=(16, 32, 64), line_mpps=LINE_MPPS,
           heading='###'):
    """The whole markdown report over [(path, doc)], as lines (tools/bench_plot.py puts it
    in docs/benchmarks.md); ValueError when the first doc lacks a figure the model needs."""
    lines, rl, hz = model_lines(docs[0][1], flows, frame, cores, line_mpps)
    lines += measured_lines(docs, rl, hz, frame)
    k = kdisp_lines(docs, flows, frame)
    if k:
        lines += ['', '%s K dispatchers' % heading, ''] + k
    return lines


def main(argv=None):
    ap = argparse.ArgumentParser(
        description=__doc__.split('\nusage:')[0],
        epilog='Measure for real on a machine with cores (one lcore per CPU): '
               'build/bench/dpdk-rps-bench -m 4096 --no-pci --lcores 0-9 -- --dispatchers 2 '
               '--modes rss,jhash,single_core,e2e_stages --flows 1024 --frames 64 '
               '--json k2.json; then tools/bench_model.py k2.json',
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('bench', nargs='+', help='dpdk-rps-bench --json files; the first gives '
                    'the model its cycles, every file with --dispatchers > 1 is compared '
                    'with the one-dispatcher files')
    ap.add_argument('--flows', type=int, default=1024, help='flow count to read (1024)')
    ap.add_argument('--frame', type=int, default=64, help='frame size to read (64)')
    ap.add_argument('--cores', default='16,32,64', help='core counts (16,32,64)')
    ap.add_argument('--line-mpps', type=float, default=LINE_MPPS,
                    help='the link, Mpps (148.8: 100 GbE, 64-byte frames)')
    a = ap.parse_args(argv)
    try:
        cores = [int(c) for c in a.cores.split(',')]
        if any(c < 2 for c in cores):
            raise ValueError
    except ValueError:
        ap.error('--cores: a list of core counts >= 2')
    docs = [(p, load(p)) for p in a.bench]
    try:
        lines = report(docs, a.flows, a.frame, cores, a.line_mpps)
    except ValueError as e:
        print('bench_model: %s: %s' % (a.bench[0], e), file=sys.stderr)
        return 1
    print('\n'.join(lines))
    return 0


if __name__ == '__main__':
    sys.exit(main())
