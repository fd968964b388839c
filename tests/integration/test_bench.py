# SPDX-License-Identifier: BSD-3-Clause
"""test_bench.py BENCH RPS PCAP: smoke run of both benchmark modes (no thresholds).

1. dpdk-rps-bench --quick: every mode runs and reports figures, the event devices
   (event_dsw, event_sw) among them, the JSON is complete and consistent (median within
   min..max, ratios to io_limit, distributor, event_dsw and event_sw agree with the medians,
   every run listed), every packet is accounted for in every mode (taken = delivered +
   throttled), the latency run took samples, and the memory figures are there. With two
   runs the modes take turns (rss run 1, event_dsw run 1, rss run 2...). Bad options exit 2
   naming the option.
   --dispatchers 2 (three lcores on two CPUs): a row per dispatcher under every mode, printed
   and in the JSON, and the packets add up (each dispatcher's taken = delivered + throttled,
   the dispatchers' delivered = the total); tools/bench_model.py reads both files. A
   --dispatchers that leaves no worker, or is not a number in range, exits 2 naming it.
2. tools/bench_binary.py --quick: the real binary on the looped capture, through its own
   summary; every run accounted for.
Performance is never asserted here: figures on a shared 2-core box prove nothing. So 2.
runs beside 1., and the runs of bad options (and --cold demote) go two at a time
(rpstest.run_all()): nothing checked depends on timing.
"""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rpstest  # noqa: E402

MODES = ['io_limit', 'rss', 'jhash', 'toeplitz', 'distributor', 'event_dsw', 'event_sw',
         'event_dsw_jhash', 'single_core', 'e2e_stages']
ONE_DISPATCHER = ('distributor', 'event_dsw', 'event_sw',
                  'event_dsw_jhash')   # skipped with --dispatchers 2



def ratio_rounding(num, den):
    """How far a ratio of two medians the JSON gives to 6 decimals (%.6f, +-5e-7 each) may
    be from the ratio the bench computed unrounded: tiny in a real run, larger when a smoke
    run's peer delivered almost nothing (an ASan smoke run's peer at 0.0004 Mpps: the 3
    decimals it once had made that 0.000). None where the peer rounds to nothing: no check."""
    if den <= 5e-7:
        return None
    return (num + 5e-7) / (den - 5e-7) - num / den

def run_bench(bench, args, timeout=120, lcores='0@0,1@1'):
    prefix = rpstest.unique_prefix()
    eal = rpstest.eal_args(prefix, lcores=lcores, mem_mb=1024)
    try:
        return subprocess.run([bench] + eal + ['--'] + args, capture_output=True, text=True,
                              timeout=timeout)
    finally:
        rpstest.remove_runtime_dir(prefix)


def check_bench(bench, tmp):
    problems = []
    out = os.path.join(tmp, 'bench.json')
    p = run_bench(bench, ['--quick', '--json', out])
    if p.returncode != 0:
        return ['dpdk-rps-bench --quick exited %d: %s' % (p.returncode, p.stderr[-2000:])]
    d = json.load(open(out))
    for key in ('command', 'date', 'machine', 'dpdk', 'config', 'results', 'latency',
                'memory'):
        if key not in d:
            problems.append('bench JSON lacks %r' % key)
    rows = {r['mode']: r for r in d.get('results', [])}
    for m in MODES:
        r = rows.get(m)
        if r is None:
            problems.append('mode %s missing' % m)
            continue
        if m not in p.stdout:
            problems.append('mode %s not in the printed table' % m)
        if not r['median_mpps'] > 0 or not r['cycles_per_pkt'] > 0:
            problems.append('%s: no figures: %r' % (m, r))
        if not r['min_mpps'] <= r['median_mpps'] <= r['max_mpps']:
            problems.append('%s: median outside min..max: %r' % (m, r))
        if m != 'io_limit' and r['ratio_io_limit'] is not None:
            want = r['median_mpps'] / rows['io_limit']['median_mpps']
            if abs(r['ratio_io_limit'] - want) > 0.01:
                problems.append('%s: ratio_io_limit %r, medians say %.3f'
                                % (m, r['ratio_io_limit'], want))
        # every packet taken is delivered or throttled, in the total and in each run
        x = (r.get('per_dispatcher') or [{}])[0]
        runs = r.get('runs') or []
        if len(runs) != 1 or runs[0].get('delivered') != r['runs_delivered'][0]:
            problems.append('%s: runs %r' % (m, runs))
        elif not x.get('runs_rx') or x['runs_rx'][0] != runs[0]['rx'] or \
                runs[0]['rx'] != runs[0]['delivered'] + runs[0]['throttled'] or \
                x['runs_delivered'][0] != runs[0]['delivered']:
            problems.append('%s: taken %r != delivered %r + throttled %r' % (
                m, runs[0]['rx'], runs[0]['delivered'], runs[0]['throttled']))
    # single_core times each stage of the pipeline: a figure per stage, in pipeline order
    sc = rows.get('single_core', {})
    stages = sc.get('stage_cycles') or {}
    if list(stages) != ['parse', 'validate', 'reassemble', 'flow', 'output']:
        problems.append('single_core stage_cycles: %r' % stages)
    elif not all(v >= 0 for v in stages.values()) or not stages['parse'] > 0:
        problems.append('single_core stage_cycles not figures: %r' % stages)
    if 'cycles/pkt per stage' not in p.stdout:
        problems.append('the per-stage line is not printed')
    for m in ('rss', 'jhash', 'toeplitz'):
        for peer in ONE_DISPATCHER:
            key = 'ratio_' + peer
            if m not in rows or peer not in rows:
                continue
            if rows[m].get(key) is None:
                problems.append('%s has no %s' % (m, key))
            elif ratio_rounding(rows[m]['median_mpps'], rows[peer]['median_mpps']) is None:
                if not rows[m]['median_mpps'] > 0:
                    problems.append('%s and its peer %s both delivered nothing' % (m, peer))
            elif abs(rows[m][key] - rows[m]['median_mpps'] / rows[peer]['median_mpps']) > \
                    0.01 + ratio_rounding(rows[m]['median_mpps'], rows[peer]['median_mpps']):
                problems.append('%s: %s %r, medians say %.3f' % (
                    m, key, rows[m][key], rows[m]['median_mpps'] / rows[peer]['median_mpps']))
    if not d.get('config', {}).get('interleaved'):
        problems.append('config does not say the runs interleave')
    if d.get('config', {}).get('slots') != 32:
        problems.append('config slots %r, want 32 (the default, as the binary)' %
                        d.get('config', {}).get('slots'))
    lat = d.get('latency', {})
    if not lat.get('samples', 0) > 0 or not lat['p50_ns'] <= lat['p99_ns'] <= lat['p999_ns']:
        problems.append('latency run: %r' % {k: lat.get(k) for k in
                                             ('samples', 'p50_ns', 'p99_ns', 'p999_ns')})
    if sum(c for _, c in lat.get('histogram', [])) != lat.get('samples'):
        problems.append('latency histogram does not add up to its samples')
    mem = d.get('memory', {})
    if not mem.get('bytes_per_worker', 0) > 0 or not mem.get('bytes_per_flow', 0) > 0:
        problems.append('memory figures missing: %r' % mem)
    # --cold demote needs CLDEMOTE: run where the CPU has it, refused (exit 2, named) where not;
    # then bad input: exit 2, the option named, nothing run. Two at a time: each is a
    # start-up and an exit (or a 0.1 s run), nothing checked depends on timing.
    has_demote = 'cldemote' in open('/proc/cpuinfo').read().split()
    bads = ((['--modes', 'warp'], '--modes'), (['--runs', '0'], '--runs'),
            (['--cold', 'tepid'], '--cold'), (['--frames', '32'], '--frames'),
            (['--dispatchers', '0'], '--dispatchers'),
            (['--dispatchers', 'two'], '--dispatchers'),
            (['--dispatchers', '99'], '--dispatchers'),
            (['--dispatchers', '2'], '--dispatchers'),   # 2 lcores: no worker
            (['--slots', '48'], '--slots'))
    cold = ['--cold', 'demote', '--modes', 'rss', '--flows', '64', '--runs', '1',
            '--duration', '0.1', '--latency', 'off']
    done = rpstest.run_all([lambda a=a: run_bench(bench, a, timeout=60)
                            for a in [cold] + [b for b, _ in bads]])
    q = done[0]
    if has_demote and q.returncode != 0:
        problems.append('--cold demote on a CLDEMOTE CPU: exit %d, %r' % (q.returncode,
                                                                          q.stderr[-300:]))
    if not has_demote and (q.returncode != 2 or 'CLDEMOTE' not in q.stderr):
        problems.append('--cold demote without CLDEMOTE: exit %d, %r' % (q.returncode,
                                                                         q.stderr[-300:]))
    for (bad, name), q in zip(bads, done[1:]):
        if q.returncode != 2 or name not in q.stderr:
            problems.append('%s: exit %d, stderr %r' % (' '.join(bad), q.returncode,
                                                         q.stderr[-300:]))
    return problems + check_interleave(bench, tmp) + check_dispatchers(bench, tmp, out)


def check_interleave(bench, tmp):
    """Two runs of two modes: they take turns, each run is in the JSON, the median is theirs;
    the rings on pointers (--slots 64) here, 32-bit slots in the other runs."""
    out = os.path.join(tmp, 'bench_turns.json')
    p = run_bench(bench, ['--modes', 'rss,event_dsw', '--runs', '2', '--duration', '0.02',
                          '--flows', '64', '--frames', '64', '--pool', '8192', '--latency',
                          'off', '--handoff', 'off', '--slots', '64', '--json', out])
    if p.returncode != 0:
        return ['--runs 2 exited %d: %s' % (p.returncode, p.stderr[-2000:])]
    d = json.load(open(out))
    rows = {r['mode']: r for r in d.get('results', [])}
    problems = [] if d.get('config', {}).get('slots') == 64 else [
        '--slots 64: config slots %r' % d.get('config', {}).get('slots')]
    for m, seqs in (('rss', [0, 2]), ('event_dsw', [1, 3])):
        runs = rows.get(m, {}).get('runs') or []
        if [x.get('seq') for x in runs] != seqs or [x.get('run') for x in runs] != [0, 1]:
            problems.append('--runs 2: %s ran at %r, want %r' % (m, [x.get('seq') for x in runs],
                                                               seqs))
            continue
        mpps = [x['mpps'] for x in runs]
        if mpps != rows[m]['runs_mpps'] or \
                abs(rows[m]['median_mpps'] - sum(mpps) / 2) > 0.002 or \
                any(x['rx'] != x['delivered'] + x['throttled'] for x in runs):
            problems.append('--runs 2: %s runs %r against %r' % (m, runs, rows[m]))
    return problems


def check_dispatchers(bench, tmp, one_json):
    """--dispatchers 2 on lcores 0@0,1@1,2@1: shape and accounting, never speed."""
    problems = []
    out = os.path.join(tmp, 'bench_k2.json')
    p = run_bench(bench, ['--quick', '--dispatchers', '2', '--latency', 'off', '--json', out],
                  lcores='0@0,1@1,2@1')
    if p.returncode != 0:
        return ['--dispatchers 2 exited %d: %s' % (p.returncode, p.stderr[-2000:])]
    d = json.load(open(out))
    cfg = d.get('config', {})
    if cfg.get('dispatchers') != 2 or cfg.get('workers') != 1 or not cfg.get('oversubscribed'):
        problems.append('--dispatchers 2 config: %r' % cfg)
    rows = {r['mode']: r for r in d.get('results', [])}
    want = [m for m in MODES if m not in ONE_DISPATCHER]
    if sorted(rows) != sorted(want):
        problems.append('--dispatchers 2 modes: %s, want %s' % (sorted(rows), sorted(want)))
    for m in ONE_DISPATCHER:
        if '# %s skipped' % m not in p.stdout:
            problems.append('--dispatchers 2 does not say %s was skipped' % m)
    for m in want:
        r = rows.get(m)
        if r is None:
            continue
        per = r.get('per_dispatcher') or []
        if r.get('dispatchers') != 2 or [x.get('dispatcher') for x in per] != [0, 1] or \
                [x.get('lcore') for x in per] != [0, 1]:
            problems.append('%s: per-dispatcher rows %r' % (m, per))
            continue
        for x in per:
            for key in ('median_mpps', 'cycles_per_pkt', 'steer_cycles_per_pkt',
                        'busy_cycles_per_pkt', 'busy_steer_cycles_per_pkt', 'throttled_pct',
                        'descheduled_pct'):
                if not isinstance(x.get(key), (int, float)) or x[key] < 0:
                    problems.append('%s dispatcher %s: %s = %r' % (m, x['dispatcher'], key,
                                                                   x.get(key)))
            if not 0 <= x.get('descheduled_pct', -1) <= 100:
                problems.append('%s dispatcher %s: descheduled_pct %r' % (
                    m, x['dispatcher'], x.get('descheduled_pct')))
            if not x['runs_rx'][0] > 0:
                problems.append('%s dispatcher %s took nothing' % (m, x['dispatcher']))
            if m in ('rss', 'jhash', 'toeplitz', 'e2e_stages') and \
                    x['runs_rx'][0] != x['runs_delivered'][0] + x['runs_throttled'][0]:
                problems.append('%s dispatcher %s: rx %d != delivered %d + throttled %d' % (
                    m, x['dispatcher'], x['runs_rx'][0], x['runs_delivered'][0],
                    x['runs_throttled'][0]))
            line = 'dispatcher %d (lcore %d):' % (x['dispatcher'], x['lcore'])
            if line not in p.stdout.split('\n%s ' % m, 1)[-1]:
                problems.append('%s: %r not printed under it' % (m, line))
        total = sum(x['runs_delivered'][0] for x in per)
        if total != r['runs_delivered'][0]:
            problems.append('%s: dispatchers delivered %d, total %d' % (
                m, total, r['runs_delivered'][0]))
    # the model reads both files (one dispatcher, then two) and compares them
    tool = Path(__file__).resolve().parents[2] / 'tools' / 'bench_model.py'
    q = subprocess.run([sys.executable, str(tool), one_json, out, '--flows', '64'],
                       capture_output=True, text=True, timeout=60)
    if q.returncode != 0 or '| `rss` | 64 |' not in q.stdout or \
            '### K dispatchers' not in q.stdout:
        problems.append('bench_model.py: exit %d, %r' % (q.returncode,
                                                         (q.stdout + q.stderr)[-600:]))
    return problems


def check_variant(bench, tmp):
    """--rx-cksum hw is recorded and a bad value refused; bench_plot.py puts a variant file
    in the settings-compared table (where matplotlib is installed)."""
    problems = []
    out = os.path.join(tmp, 'bench_cksum_hw.json')
    p = run_bench(bench, ['--quick', '--modes', 'single_core,e2e_stages', '--rx-cksum', 'hw',
                          '--latency', 'off', '--handoff', 'off', '--flows', '1024',
                          '--json', out])
    if p.returncode != 0:
        return ['--rx-cksum hw exited %d: %s' % (p.returncode, p.stderr[-2000:])]
    d = json.load(open(out))
    if (d.get('config') or {}).get('rx_cksum') != 'hw':
        problems.append('config.rx_cksum is %r, not hw' % (d.get('config') or {}).get('rx_cksum'))
    if 'rx checksums verified by the NIC' not in p.stdout:
        problems.append('the settings line does not say the checksums were verified')
    q = run_bench(bench, ['--quick', '--rx-cksum', 'maybe'])
    if q.returncode == 0 or "bad value 'maybe' for --rx-cksum" not in q.stderr:
        problems.append('--rx-cksum maybe: exit %d, %r' % (q.returncode, q.stderr[-300:]))
    plot = Path(__file__).resolve().parents[2] / 'tools' / 'bench_plot.py'
    if subprocess.run(['/usr/bin/python3', '-c', 'import matplotlib'],
                      capture_output=True).returncode != 0:
        print('bench_plot.py not run: no matplotlib for /usr/bin/python3')
        return problems
    # the main file at 1024 flows, so that both rows have the same cell
    base = os.path.join(tmp, 'bench_base.json')
    p = run_bench(bench, ['--quick', '--modes', 'single_core,e2e_stages', '--latency', 'off',
                          '--handoff', 'off', '--flows', '1024', '--json', base])
    doc = os.path.join(tmp, 'benchmarks.md')
    r = subprocess.run(['/usr/bin/python3', str(plot), '--bench', base, '--variant', out,
                        '--img-dir', os.path.join(tmp, 'img'), '--doc', doc],
                       capture_output=True, text=True, timeout=120)
    text = open(doc).read() if os.path.exists(doc) else ''
    if p.returncode != 0 or r.returncode != 0 or \
            '| `--recycle on` `--rx-cksum hw` | `bench_cksum_hw.json` |' not in text or \
            '| `--recycle on` `--rx-cksum sw` | `bench_base.json` |' not in text:
        problems.append('bench_plot.py --variant: exit %d, %r' % (
            r.returncode, (r.stdout + r.stderr)[-600:] + text[-600:]))
    return problems


def check_binary(rps, pcap, tmp):
    out = os.path.join(tmp, 'binary.json')
    tool = Path(__file__).resolve().parents[2] / 'tools' / 'bench_binary.py'
    p = subprocess.run([sys.executable, str(tool), '--rps', rps, '--pcap', pcap, '--quick',
                        '--json', out], capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        return ['bench_binary.py --quick exited %d: %s' % (p.returncode,
                                                           (p.stdout + p.stderr)[-2000:])]
    d = json.load(open(out))
    problems = []
    if len(d.get('results', [])) < 2:
        problems.append('bench_binary: %d results' % len(d.get('results', [])))
    for r in d.get('results', []):
        if not r.get('median_mpps', 0) > 0:
            problems.append('bench_binary %s: no figure' % r.get('config'))
    return problems


def main():
    bench, rps, pcap = sys.argv[1:4]
    with tempfile.TemporaryDirectory() as tmp:
        # the real binary's runs beside the benchmark's: figures are never asserted, only
        # that each mode and run reports (median > 0, counts that add up)
        bench_problems, binary_problems = rpstest.run_all([
            lambda: check_bench(bench, tmp) + check_variant(bench, tmp),
            lambda: check_binary(rps, pcap, tmp)])
        problems = bench_problems + binary_problems
    for p in problems:
        print('FAIL:', p)
    print('bench smoke: %s' % ('ok' if not problems else '%d problems' % len(problems)))
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
