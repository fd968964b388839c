#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench_plot.py: turn the benchmark JSON into figures and the tables of docs/benchmarks.md.

Reads the JSON of dpdk-rps-bench (--bench), optionally of a run with several dispatchers
(--dispatchers, dpdk-rps-bench --dispatchers K) and of tools/bench_binary.py (--binary);
writes PNGs into --img-dir and replaces everything between the lines
`<!-- BEGIN GENERATED -->` and `<!-- END GENERATED -->` of --doc with tables made from
the same data, with the machine, the date and the commands that produced them.

Figures: mpps_<frame>.png (median Mpps per mode per flow count, min-max error bars, one
per frame size), cycles_per_pkt.png (dispatcher cycles per packet), latency.png (the
latency histogram with p50/p99/p99.9), binary.png (the real binary, per configuration).
Tables: the modes side by side, latency, memory, K dispatchers against one, the model of
C cores (tools/bench_model.py), the binary. Missing keys, modes or sections are skipped, not
errors.

Needs matplotlib: Debian's python3-matplotlib, for /usr/bin/python3 (hence the shebang).
usage: /usr/bin/python3 tools/bench_plot.py [--bench docs/data/bench.json]
           [--dispatchers docs/data/bench_k2.json] [--binary docs/data/bench_binary.json] [--img-dir docs/img] [--doc docs/benchmarks.md]
Exit 0 ok, 1 unreadable input, 2 usage or matplotlib missing.
"""

import argparse
import bisect
import datetime
import itertools
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_model  # noqa: E402

BEGIN = '<!-- BEGIN GENERATED -->'
END = '<!-- END GENERATED -->'
# Known modes, in the order figures and tables show them; others follow, sorted.
MODE_ORDER = ['io_limit', 'rss', 'toeplitz', 'jhash', 'distributor', 'event_dsw', 'event_sw',
              'single_core', 'e2e_stages']
PALETTE = ['#4c72b0', '#dd8452', '#55a868', '#c44e52', '#8172b3', '#937860', '#da8bc3',
           '#8c8c8c', '#ccb974', '#64b5cd']
BINARY_ORDER = ['io_ceiling', 'steering_only', 'single_core', 'rps_1worker', 'rps_3workers']


def load_json(path, what):
    """The JSON document at path, or None when path is None; exit 1 if unreadable."""
    if not path:
        return None
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        sys.exit('bench_plot: cannot read the %s JSON %s: %s' % (what, path, e))


def num(x):
    """x as a float, or None when it is missing or not a number."""
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else None


def fmt(x, spec='%.2f', none='–'):
    x = num(x)
    return none if x is None else spec % x


def sort_modes(modes):
    known = [m for m in MODE_ORDER if m in modes]
    return known + sorted(m for m in modes if m not in MODE_ORDER)


def frame_key(f):
    """Sort numeric frame sizes first, by size; labels such as 'mix' after."""
    return (0, f, '') if num(f) is not None else (1, 0, str(f))


def series_label(r, multi_workers):
    """A result's series name: its mode, plus its worker count when results mix them."""
    label = str(r.get('mode', '?'))
    if multi_workers:
        label += ' ×%s%s' % (r.get('workers', '?'), '*' if r.get('oversubscribed') else '')
    return label


def bench_results(bench):
    """The usable results of dpdk-rps-bench: a mode, a flow count, a frame, a median."""
    out = []
    for r in (bench or {}).get('results') or []:
        if isinstance(r, dict) and 'mode' in r and num(r.get('median_mpps')) is not None:
            out.append(r)
    return out


def colors_for(labels):
    """A fixed colour per mode, so a mode looks the same in every figure."""
    known = {m: PALETTE[i % len(PALETTE)] for i, m in enumerate(MODE_ORDER)}
    extra = itertools.cycle(PALETTE[len(MODE_ORDER):] + PALETTE[:len(MODE_ORDER)])
    out = {}
    for lab in labels:
        base = lab.split(' ×')[0]
        out[lab] = known.get(base) or next(extra)
    return out


# --------------------------------------------------------------------------- figures

def grouped_bars(ax, groups, series, value, err=None, colors=None, annotate=True):
    """Bars: one cluster per group, one bar per series. value(g, s) -> float or None;
    err(g, s) -> (low, high) absolute or None."""
    n = max(1, len(series))
    width = 0.8 / n
    for i, s in enumerate(series):
        xs, ys, lo, hi = [], [], [], []
        for j, g in enumerate(groups):
            v = value(g, s)
            if v is None:
                continue
            xs.append(j - 0.4 + width * (i + 0.5))
            ys.append(v)
            e = err(g, s) if err else None
            lo.append(max(0.0, v - e[0]) if e else 0.0)
            hi.append(max(0.0, e[1] - v) if e else 0.0)
        if not xs:
            continue
        bars = ax.bar(xs, ys, width, label=s, color=(colors or {}).get(s),
                      yerr=[lo, hi] if err else None, capsize=2 if err else 0,
                      error_kw={'elinewidth': 0.8, 'ecolor': '#333333'})
        if annotate:
            ax.bar_label(bars, labels=['%.0f' % y if y >= 100 else '%.3g' % y for y in ys],
                         fontsize=6, rotation=90, padding=2)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels([str(g) for g in groups])
    ax.grid(axis='y', alpha=0.3)
    ax.set_axisbelow(True)


def fig_mpps(plt, results, img_dir, subtitle):
    """mpps_<frame>.png for every frame size: median Mpps per mode per flow count."""
    written = []
    multi = len({(r.get('workers'), bool(r.get('oversubscribed'))) for r in results}) > 1
    for frame in sorted({r.get('frame') for r in results}, key=frame_key):
        rs = [r for r in results if r.get('frame') == frame]
        flows = sorted({r.get('flows') for r in rs}, key=frame_key)
        labels = sort_modes({series_label(r, multi) for r in rs})
        idx = {(r.get('flows'), series_label(r, multi)): r for r in rs}

        def val(g, s, idx=idx):
            r = idx.get((g, s))
            return num(r.get('median_mpps')) if r else None

        def err(g, s, idx=idx):
            r = idx.get((g, s))
            lo, hi = (num(r.get('min_mpps')), num(r.get('max_mpps'))) if r else (None, None)
            return (lo, hi) if lo is not None and hi is not None else None

        fig, ax = plt.subplots(figsize=(max(7, 1.2 * len(flows) * max(1, len(labels)) / 3),
                                        4.5))
        grouped_bars(ax, flows, labels, val, err, colors_for(labels))
        ax.set_xlabel('flows')
        ax.set_ylabel('Mpps (median; bars: min–max)')
        ax.set_title('Throughput per mode, %s-byte frames\n%s' % (frame, subtitle),
                     fontsize=10)
        ax.legend(fontsize=8, ncol=min(4, len(labels)), loc='upper center',
                  bbox_to_anchor=(0.5, -0.13), frameon=False)
        ax.margins(y=0.12)
        name = 'mpps_%s.png' % str(frame).replace(' ', '_')
        save(plt, fig, img_dir, name)
        written.append((name, 'Throughput per mode and flow count, %s-byte frames' % frame))
    return written


def fig_cycles(plt, results, img_dir, subtitle):
    """cycles_per_pkt.png: dispatcher cycles per packet, one panel per frame size."""
    rs = [r for r in results if num(r.get('cycles_per_pkt')) is not None]
    if not rs:
        return []
    from matplotlib.patches import Patch
    multi = len({(r.get('workers'), bool(r.get('oversubscribed'))) for r in rs}) > 1
    frames = sorted({r.get('frame') for r in rs}, key=frame_key)
    fig, axes = plt.subplots(len(frames), 1, figsize=(8, 3.6 * len(frames)), squeeze=False)
    for ax, frame in zip(axes[:, 0], frames):
        fr = [r for r in rs if r.get('frame') == frame]
        modes = sort_modes({series_label(r, multi) for r in fr})
        flows = sorted({r.get('flows') for r in fr}, key=frame_key)
        idx = {(series_label(r, multi), r.get('flows')): r for r in fr}
        cmap = plt.get_cmap('viridis')
        flow_colors = {f: cmap(i / max(1, len(flows) - 1) * 0.85)
                       for i, f in enumerate(flows)}

        def val(g, s, idx=idx):
            r = idx.get((g, s))
            return num(r.get('cycles_per_pkt')) if r else None

        grouped_bars(ax, modes, flows, val, colors=flow_colors)
        # The steering part of each bar, hatched, when the bench measured it.
        width = 0.8 / max(1, len(flows))
        steer = [(j - 0.4 + width * (i + 0.5), num(idx[(m, f)].get('steer_cycles_per_pkt')))
                 for i, f in enumerate(flows) for j, m in enumerate(modes) if (m, f) in idx]
        steer = [(x, y) for x, y in steer if y is not None]
        if steer:
            ax.bar([x for x, _ in steer], [y for _, y in steer], width, fill=False,
                   hatch='////', edgecolor='white', linewidth=0)
        ax.set_ylabel('TSC cycles / packet')
        ax.set_title('%s-byte frames' % frame, fontsize=9)
        handles, _ = ax.get_legend_handles_labels()
        if steer:
            handles.append(Patch(facecolor='#777777', edgecolor='white', hatch='////',
                                 label='of which steering'))
        ax.legend(handles=handles, title='flows', fontsize=7, title_fontsize=7,
                  ncol=len(handles))
        ax.margins(y=0.15)
    fig.suptitle('Dispatcher cycles per packet (median run)\n%s' % subtitle, fontsize=10)
    name = 'cycles_per_pkt.png'
    save(plt, fig, img_dir, name)
    return [(name, 'Dispatcher cycles per packet per mode')]


def latency_buckets(lat):
    """The latency histogram as [(low_ns, high_ns, count)] plus the overflow bucket
    (low, high, count) or None.

    dpdk-rps-bench lists only non-empty buckets, each as [upper_bound_ns, count]: fixed-width
    buckets (`bucket_ns`, else the smallest gap between bounds) and a last, overflow bucket
    whose bound is max_ns (from `overflow_ns`, else from the last regular bound). Bounds
    that grow by a constant ratio are read as contiguous log buckets instead.
    """
    hist = [(num(b[0]), num(b[1])) for b in lat.get('histogram') or []
            if isinstance(b, (list, tuple)) and len(b) == 2]
    hist = sorted((b, c) for b, c in hist if b is not None and c is not None and b > 0 and c > 0)
    if not hist:
        return [], None
    up = [b for b, _ in hist]
    ratios = [b / a for a, b in zip(up, up[1:])]
    if len(up) >= 3 and 'bucket_ns' not in lat and ratios[0] > 1.05 and \
            max(ratios[:-1]) - min(ratios[:-1]) < 0.01 * ratios[0]:
        edges = [up[0] / ratios[0]] + up
        return [(edges[i], up[i], c) for i, (_, c) in enumerate(hist)], None
    gaps = [b - a for a, b in zip(up, up[1:]) if b > a]
    w = num(lat.get('bucket_ns')) or (min(gaps[:-1] or gaps) if gaps else up[0])
    over = None
    mx = num(lat.get('max_ns'))
    last, lc = hist[-1]
    start = num(lat.get('overflow_ns'))
    # A regular bucket's bound lies above every sample in it, so only the overflow bucket's
    # bound can equal max_ns.
    if len(hist) > 1 and (last > start if start is not None else last == mx):
        over = (start if start is not None else hist[-2][0], last, lc)
        hist = hist[:-1]
    return [(b - w, b, c) for b, c in hist], over


def log_rebin(buckets, per_decade=20):
    """Spread fixed-width buckets over log-spaced bins (uniformly within each bucket),
    so a log time axis shows a histogram rather than a comb: ([edges], [counts])."""
    lo = max(min(b[0] for b in buckets), 1.0)
    hi = max(b[1] for b in buckets)
    k0 = math.floor(math.log10(lo) * per_decade)
    k1 = math.ceil(math.log10(hi) * per_decade)
    edges = [10 ** (k / per_decade) for k in range(k0, k1 + 1)]
    counts = [0.0] * (len(edges) - 1)
    for a, b, c in buckets:
        a = max(a, lo)
        i = max(0, bisect.bisect_right(edges, a) - 1)
        while i < len(counts) and edges[i] < b:
            overlap = min(b, edges[i + 1]) - max(a, edges[i])
            if overlap > 0:
                counts[i] += c * overlap / (b - a)
            i += 1
    return edges, counts


def fig_latency(plt, lat, img_dir, subtitle):
    """latency.png: the histogram on a log time axis, percentiles marked."""
    buckets, over = latency_buckets(lat or {})
    if not buckets and not over:
        return []
    fig, ax = plt.subplots(figsize=(8, 5))
    if buckets:
        edges, counts = log_rebin(buckets)
        ax.stairs(counts, edges, fill=True, color='#4c72b0', alpha=0.85,
                  label='packets per bin (20 bins a decade)')
    if over:
        ax.bar(over[0], over[2], width=over[1] - over[0], align='edge', color='#c44e52',
               alpha=0.35, hatch='//', edgecolor='#c44e52',
               label='overflow: %d packets, %.0f–%.0f ns' % (over[2], over[0], over[1]))
    ax.set_xscale('log')
    ax.set_yscale('log')
    ax.set_ylim(bottom=0.5)
    ax.set_xlabel('latency, ns (RX lcore to worker)')
    ax.set_ylabel('packets (log scale)')
    ax.legend(fontsize=7, loc='upper center', bbox_to_anchor=(0.5, -0.14), ncol=2,
              frameon=False)
    ax.set_xlim(right=max(max(e for _, e, _ in buckets + ([over] if over else [])),
                          num(lat.get('max_ns')) or 0) * 1.6)
    marks = {}          # value -> ([labels], colour of the first): equal marks share a line
    for key, label, color in (('p50_ns', 'p50', '#55a868'), ('p99_ns', 'p99', '#dd8452'),
                              ('p999_ns', 'p99.9', '#c44e52'), ('max_ns', 'max', '#333333')):
        v = num(lat.get(key))
        if v is not None and v > 0:
            marks.setdefault(v, ([], color))[0].append(label)
    for v, (labels, color) in marks.items():
        ax.axvline(v, color=color, linestyle='--', linewidth=1)
        ax.text(v, 0.97, '%s %.0f ns' % (' = '.join(labels), v), color=color, rotation=90,
                va='top', ha='center', fontsize=8, transform=ax.get_xaxis_transform(),
                bbox={'facecolor': 'white', 'edgecolor': 'none', 'alpha': 0.85, 'pad': 1})
    what = ', '.join(s for s in (
        str(lat.get('mode')) if lat.get('mode') else '',
        '%s flows' % lat['flows'] if 'flows' in lat else '',
        '%s B' % lat['frame'] if 'frame' in lat else '',
        'load %s%%' % lat['load_pct'] if 'load_pct' in lat else '',
        '%s Mpps' % fmt(lat.get('rate_mpps'), '%.2f') if 'rate_mpps' in lat else '',
        '%s samples' % lat['samples'] if 'samples' in lat else '') if s)
    ax.set_title('Latency histogram: %s\n%s' % (what, subtitle), fontsize=10)
    ax.grid(alpha=0.3, which='both')
    ax.set_axisbelow(True)
    name = 'latency.png'
    save(plt, fig, img_dir, name)
    return [(name, 'Latency histogram')]


def fig_binary(plt, binary, img_dir):
    """binary.png: the real binary, median processed Mpps per configuration and source."""
    rs = [r for r in (binary or {}).get('results') or []
          if num(r.get('median_mpps')) is not None]
    if not rs:
        return []
    configs = [c for c in BINARY_ORDER if any(r.get('config') == c for r in rs)]
    configs += sorted({r.get('config') for r in rs} - set(configs))
    srcs = []
    for r in rs:
        s = '%s %s' % (r.get('source'), r.get('frame'))
        if s not in srcs:
            srcs.append(s)
    idx = {(r.get('config'), '%s %s' % (r.get('source'), r.get('frame'))): r for r in rs}

    def val(g, s):
        r = idx.get((g, s))
        return num(r.get('median_mpps')) if r else None

    def err(g, s):
        r = idx.get((g, s))
        lo, hi = (num(r.get('min_mpps')), num(r.get('max_mpps'))) if r else (None, None)
        return (lo, hi) if lo is not None and hi is not None else None

    colors = {s: PALETTE[i % len(PALETTE)] for i, s in enumerate(srcs)}
    fig, ax = plt.subplots(figsize=(9, 4.8))
    grouped_bars(ax, configs, srcs, val, err, colors)
    # rx Mpps as a tick over each bar: the gap down to the bar is what was dropped.
    width = 0.8 / max(1, len(srcs))
    rx = [(j - 0.4 + width * (i + 0.5), num(idx[(c, s)].get('rx_median_mpps')))
          for i, s in enumerate(srcs) for j, c in enumerate(configs) if (c, s) in idx]
    rx = [(x, y) for x, y in rx if y is not None]
    if rx:
        ax.scatter([x for x, _ in rx], [y for _, y in rx], marker='_', s=140, color='black',
                   linewidths=1.5, label='rx Mpps (packets taken from the port)', zorder=3)
    labels = []
    for c in configs:
        r = next(r for r in rs if r.get('config') == c)
        labels.append('%s\nmap %s, %s%s' % (
            c, r.get('map'), 'output' if r.get('stages') == 'output' else 'all stages',
            '\n%s workers on 1 CPU' % r.get('workers') if r.get('oversubscribed') else ''))
    ax.set_xticklabels(labels, fontsize=7)
    ax.set_ylabel('processed Mpps (median; bars: min–max)')
    m = (binary or {}).get('machine') or {}
    cfg = (binary or {}).get('config') or {}
    ax.set_title('dpdk-rps binary: processed packets per second\n%s, %s runs × %s s' % (
        m.get('cpu', '?'), cfg.get('runs', '?'), cfg.get('duration_s', '?')), fontsize=10)
    ax.legend(fontsize=8)
    ax.margins(y=0.12)
    name = 'binary.png'
    save(plt, fig, img_dir, name)
    return [(name, 'The dpdk-rps binary per configuration')]


def fig_kdisp(plt, bench, kdisp, img_dir):
    """kdisp.png: busy cycles per packet of each of K dispatchers against one dispatcher's,
    per mode (1024 flows, 64-byte frames when present)."""
    if bench is None or kdisp is None:
        return []
    modes, series = [], {}
    k = (kdisp.get('config') or {}).get('dispatchers', '?')
    for r in kdisp.get('results') or []:
        one = None
        for o in bench_results(bench):
            if (o.get('mode') == r.get('mode') and o.get('flows') == r.get('flows') and
                    o.get('frame') == r.get('frame')):
                one = o
        if one is None or not r.get('per_dispatcher'):
            continue
        p0 = (one.get('per_dispatcher') or [{}])[0]
        thr = max(num(p.get('throttled_pct')) or 0 for p in r['per_dispatcher'])
        # a dispatcher whose workers refuse most bursts takes the cheaper drop path
        label = '%s\n%s flows, %s B%s' % (r.get('mode'), r.get('flows'), r.get('frame'),
                                          '\n%.0f%% throttled: not comparable' % thr
                                          if thr > 50 else '')
        modes.append(label)
        series.setdefault('one dispatcher', {})[label] = (
            num(p0.get('busy_cycles_per_pkt')) or num(one.get('cycles_per_pkt')))
        for p in r['per_dispatcher']:
            name = 'dispatcher %s of %s' % (p.get('dispatcher'), k)
            series.setdefault(name, {})[label] = num(p.get('busy_cycles_per_pkt'))
    if not modes:
        return []
    fig, ax = plt.subplots(figsize=(8.5, 4.2))
    names = list(series)
    grouped_bars(ax, modes, names, lambda g, s_: series[s_].get(g), colors=colors_for(names))
    ax.set_ylabel('busy cycles per packet')
    m = kdisp.get('machine') or {}
    ax.set_title('%s dispatchers against one: cycles per packet of each\n%s' % (
        k, m.get('cpu', '')), fontsize=10)
    ax.legend(fontsize=8)
    name = 'kdisp.png'
    save(plt, fig, img_dir, name)
    return [(name, 'Busy cycles per packet of each of %s dispatchers against one' % k)]


def save(plt, fig, img_dir, name):
    fig.tight_layout()
    # No Software/date metadata: the same data gives the same file.
    fig.savefig(os.path.join(img_dir, name), dpi=110, metadata={'Software': None})
    plt.close(fig)


# --------------------------------------------------------------------------- tables

def ratio(r, key, base, results):
    """The result's ratio to another mode: the JSON's value when it has the key (null
    shows as –), else computed from that mode's median at the same flows and frame."""
    if key in r:
        return num(r[key])
    for o in results:
        if (o.get('mode') == base and o.get('flows') == r.get('flows') and
                o.get('frame') == r.get('frame') and o.get('workers') == r.get('workers')):
            d = num(o.get('median_mpps'))
            return num(r.get('median_mpps')) / d if d else None
    return None


def table_bench(results):
    multi = len({(r.get('workers'), bool(r.get('oversubscribed'))) for r in results}) > 1
    steer = any('steer_cycles_per_pkt' in r for r in results)
    lines = ['| frame | flows | mode | median Mpps | min–max | cycles/pkt |%s × io_limit | '
             '× distributor | throttled %% |' % (' steer cycles/pkt |' if steer else ''),
             '|---|---:|---|---:|---:|---:|%s---:|---:|---:|' % ('---:|' if steer else '')]
    order = {m: i for i, m in enumerate(sort_modes({r.get('mode') for r in results}))}
    for r in sorted(results, key=lambda r: (frame_key(r.get('frame')),
                                            frame_key(r.get('flows')),
                                            order.get(r.get('mode'), 99),
                                            r.get('workers') or 0)):
        lines.append('| %s | %s | `%s` | %s | %s–%s | %s |%s %s | %s | %s |' % (
            r.get('frame', '?'), r.get('flows', '?'), series_label(r, multi),
            fmt(r.get('median_mpps'), '%.3f'), fmt(r.get('min_mpps'), '%.3f'),
            fmt(r.get('max_mpps'), '%.3f'), fmt(r.get('cycles_per_pkt'), '%.1f'),
            ' %s |' % fmt(r.get('steer_cycles_per_pkt'), '%.1f') if steer else '',
            fmt(ratio(r, 'ratio_io_limit', 'io_limit', results)),
            fmt(ratio(r, 'ratio_distributor', 'distributor', results)),
            fmt(r.get('throttled_pct'), '%.2f')))
    return lines


def table_stages(results):
    """Cycles per packet of each stage (single_core rows with stage_cycles): the median over
    bursts, median of the runs (min of the runs)."""
    rows = [r for r in results if isinstance(r.get('stage_cycles'), dict) and r['stage_cycles']]
    if not rows:
        return []
    names = []
    for r in rows:
        for n in r['stage_cycles']:
            if n not in names:
                names.append(n)
    lines = ['| frame | flows | %s | all stages |' % ' | '.join('`%s`' % n for n in names),
             '|---:|---:|%s---:|' % ('---:|' * len(names))]
    for r in sorted(rows, key=lambda r: (frame_key(r.get('frame')), frame_key(r.get('flows')))):
        mins = r.get('stage_cycles_min') or {}
        cells = ['%s (%s)' % (fmt(r['stage_cycles'].get(n), '%.1f'), fmt(mins.get(n), '%.1f'))
                 for n in names]
        lines.append('| %s | %s | %s | %s (%s) |' % (
            r.get('frame', '?'), r.get('flows', '?'), ' | '.join(cells),
            fmt(r.get('stages_cycles_per_pkt'), '%.1f'),
            fmt(r.get('stages_cycles_per_pkt_min'), '%.1f')))
    return lines


VARIANT_KEYS = (('recycle', '--recycle', {True: 'on', False: 'off'}),
                ('rx_cksum', '--rx-cksum', None))


def variant_cell(variants):
    """The (flows, frame) the settings-compared table shows: 1024 flows of 64-byte frames
    where the first variant file has them, else its first row's."""
    rows = [r for _, d in variants[:1] for r in d.get('results') or []
            if r.get('mode') in ('single_core', 'e2e_stages')]
    if any(r.get('flows') == 1024 and r.get('frame') == 64 for r in rows):
        return 1024, 64
    return (rows[0].get('flows'), rows[0].get('frame')) if rows else (None, None)


def table_variants(bench, bench_path, variants):
    """The same cells under other settings (each variant file is a dpdk-rps-bench --json of
    single_core and e2e_stages run with one setting changed) against the main file's."""
    variants = list(variants)
    flows, frame = variant_cell(variants)
    rows = []
    for path, doc in [(bench_path, bench)] + list(variants):
        if doc is None:
            continue
        cfg = doc.get('config') or {}
        got = {r.get('mode'): r for r in doc.get('results') or []
               if r.get('flows') == flows and r.get('frame') == frame}
        sc, e2e = got.get('single_core'), got.get('e2e_stages')
        if sc is None and e2e is None:
            continue
        sets = []
        for key, opt, names in VARIANT_KEYS:
            v = cfg.get(key, True if key == 'recycle' else 'sw')
            sets.append('`%s %s`' % (opt, names[v] if names else v))
        rat = None
        if sc and e2e and num(sc.get('median_mpps')):
            rat = num(e2e.get('median_mpps')) / num(sc.get('median_mpps'))
        rows.append('| %s | `%s` | %s | %s | %s | %s |' % (
            ' '.join(sets), os.path.basename(path or '?'),
            fmt((sc or {}).get('median_mpps'), '%.3f'),
            fmt((sc or {}).get('stages_cycles_per_pkt'), '%.1f'),
            fmt((e2e or {}).get('median_mpps'), '%.3f'), fmt(rat)))
    if len(rows) < 2:
        return []
    return ['| settings | file | `single_core` Mpps | stages cycles/pkt | `e2e_stages` Mpps | '
            '`e2e_stages` / `single_core` |', '|---|---|---:|---:|---:|---:|'] + rows


def table_binary(binary):
    lines = ['| source | frame | configuration | map | stages | workers | median Mpps | '
             'min–max | rx Mpps | drop % | drops (all runs) |',
             '|---|---|---|---|---|---|---:|---:|---:|---:|---|']
    for r in (binary or {}).get('results') or []:
        drops = ', '.join('%s %d' % kv for kv in sorted((r.get('drops') or {}).items(),
                                                         key=lambda kv: -kv[1]))
        for k, n in sorted((r.get('port_drops') or {}).items()):
            drops += '%sport %s %d' % (', ' if drops else '', k, n)
        lines.append('| %s | %s | `%s` | `%s` | %s | %s%s | %s | %s–%s | %s | %s | %s |' % (
            r.get('source', '?'), r.get('frame', '?'), r.get('config', '?'), r.get('map', '?'),
            'output only' if r.get('stages') == 'output' else 'default pipeline',
            r.get('workers', '?'), ' (oversubscribed)' if r.get('oversubscribed') else '',
            fmt(r.get('median_mpps'), '%.3f'), fmt(r.get('min_mpps'), '%.3f'),
            fmt(r.get('max_mpps'), '%.3f'), fmt(r.get('rx_median_mpps'), '%.3f'),
            fmt(r.get('drop_pct'), '%.2f'), drops or '–'))
    return lines


def measured_date(doc, path):
    if doc and doc.get('date'):
        return str(doc['date'])
    try:
        t = os.path.getmtime(path)
    except (OSError, TypeError):
        return 'unknown'
    return datetime.datetime.fromtimestamp(t).astimezone().strftime('%Y-%m-%d %H:%M:%S %z')


def machine_line(doc):
    m = (doc or {}).get('machine') or {}
    parts = [str(m['cpu']) if m.get('cpu') else None,
             '%s lcores' % m['lcores'] if 'lcores' in m else None,
             '%s CPUs' % m['nproc'] if 'nproc' in m else None,
             'TSC %.2f GHz' % (m['tsc_hz'] / 1e9) if num(m.get('tsc_hz')) else None,
             'kernel %s' % m['kernel'] if m.get('kernel') else None,
             '%s GiB' % m['mem_gib'] if 'mem_gib' in m else None]
    dpdk = (doc or {}).get('dpdk')
    if dpdk:
        parts.append(str(dpdk) if 'DPDK' in str(dpdk) else 'DPDK %s' % dpdk)
    return ', '.join(p for p in parts if p) or 'unknown'


def render_model(bench, bench_path, kdisp, kdisp_path):
    """K dispatchers against one, and the model of C cores (tools/bench_model.py)."""
    if bench is None:
        return []
    docs = [(bench_path, bench)] + ([(kdisp_path, kdisp)] if kdisp is not None else [])
    out = []
    if kdisp is not None:
        cfg = kdisp.get('config') or {}
        k = bench_model.kdisp_lines(docs, None, None)
        if k:
            out += ['### K dispatchers (`dpdk-rps-bench --dispatchers %s`)' % cfg.get(
                'dispatchers', '?'), '',
                    '* Machine: %s' % machine_line(kdisp),
                    '* Measured: %s' % measured_date(kdisp, kdisp_path),
                    '* Command: `%s`' % kdisp.get('command', '?'),
                    '* Settings: %s' % ', '.join('%s %s' % (a, json.dumps(v).strip('"'))
                                                 for a, v in cfg.items()), '',
                    'Each dispatcher\'s figures (median of the runs); busy: cycles of the '
                    'loop iterations that took packets and kept their CPU (an iteration '
                    'longer than 200 us lost it to another thread); descheduled: the share '
                    'of its loop its CPU ran another thread; the last column: busy cycles '
                    'over the one-dispatcher run\'s (`%s`, same mode, flows and frame).'
                    % bench_path, ''] + k + ['']
    try:
        model, rl, hz = bench_model.model_lines(bench, 1024, 64, (16, 32, 64),
                                                bench_model.LINE_MPPS)
        model += bench_model.measured_lines(docs, rl, hz)
    except ValueError as e:
        print('bench_plot: no model: %s' % e, file=sys.stderr)
        return out
    out += ['### Model: cycles per role and C cores (`tools/bench_model.py`)', ''] + \
        model + ['']
    return out


def render(bench, bench_path, binary, binary_path, figures, doc_dir, img_dir, generator,
           kdisp=None, kdisp_path=None, variants=()):
    """The markdown that goes between the markers."""
    rel = os.path.relpath(img_dir, doc_dir or '.')
    fig = {name: (os.path.join(rel, name), alt) for name, alt in figures}
    inputs = ' and '.join('`%s`' % p for p, d in ((bench_path, bench), (kdisp_path, kdisp),
                                                   (binary_path, binary)) if d is not None)
    out = ['', '_Generated by `%s` on %s from %s: do not edit by hand; rerun it._' % (
        generator, datetime.datetime.now().astimezone().strftime('%Y-%m-%d %H:%M %z'),
        inputs), '']
    results = bench_results(bench)
    if bench is not None:
        cfg = bench.get('config') or {}
        out += ['### Steering modes side by side (`dpdk-rps-bench`)', '',
                '* Machine: %s' % machine_line(bench),
                '* Measured: %s' % measured_date(bench, bench_path),
                '* Command: `%s`' % bench.get('command', '?')]
        if cfg:
            out.append('* Settings: %s' % ', '.join('%s %s' % (k, json.dumps(v).strip('"'))
                                                   for k, v in cfg.items()))
        out.append('')
        for name in [n for n, _ in figures if n.startswith('mpps_')]:
            out += ['![%s](%s)' % (fig[name][1], fig[name][0]), '']
        if 'cycles_per_pkt.png' in fig:
            out += ['![%s](%s)' % (fig['cycles_per_pkt.png'][1], fig['cycles_per_pkt.png'][0]),
                    '']
        if results:
            out += ['Median of the runs; min–max over the runs; cycles/pkt: the dispatcher\'s '
                    'TSC cycles per packet in the median run (steer: the part spent '
                    'steering, when measured); × io_limit and × distributor: '
                    'median Mpps over that mode\'s at the same flows and frame; throttled: '
                    'packets the dispatcher could not place because workers were behind.', '']
            out += table_bench(results) + ['']
            stages = table_stages(results)
            if stages:
                out += ['#### Cycles per stage (`single_core`)', '',
                        'TSC cycles per received packet in each stage of the pipeline, '
                        'timed around each stage call over a burst: the median over the '
                        'bursts of a run, median of the runs (min of the runs in '
                        'brackets); `output` is the benchmark\'s sink (cold action and '
                        'free).', ''] + stages + ['']
            vt = table_variants(bench, bench_path, variants)
            if vt:
                out += ['#### Settings compared (%s flows, %s-byte frames)' %
                        variant_cell(list(variants)), '',
                        'The same two modes with one setting changed: `--recycle off` is the '
                        'handoff before the return ring (workers free into their own '
                        'mempool cache, the dispatcher allocates from the shared ring); '
                        '`--rx-cksum hw` gives the mbufs the checksum verdict a NIC with RX '
                        'checksum offload delivers (mlx5, ice, i40e), so `validate` trusts it '
                        'instead of summing every packet (net_pcap gives none). '
                        '`e2e_stages` / `single_core` is the handoff tax: one dispatcher and '
                        'one worker against the same stages on one core.', ''] + vt + ['']
        lat = bench.get('latency')
        if isinstance(lat, dict) and any(k in lat for k in ('p50_ns', 'p99_ns', 'p999_ns')):
            out += ['#### Latency', '']
            if 'latency.png' in fig:
                out += ['![%s](%s)' % (fig['latency.png'][1], fig['latency.png'][0]), '']
            out += ['| mode | flows | frame | load | rate Mpps | samples | p50 ns | p99 ns | '
                    'p99.9 ns | max ns |', '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
                    '| `%s` | %s | %s | %s%% | %s | %s | %s | %s | %s | %s |' % (
                        lat.get('mode', '?'), lat.get('flows', '?'), lat.get('frame', '?'),
                        lat.get('load_pct', '?'), fmt(lat.get('rate_mpps'), '%.3f'),
                        lat.get('samples', '?'), fmt(lat.get('p50_ns'), '%.0f'),
                        fmt(lat.get('p99_ns'), '%.0f'), fmt(lat.get('p999_ns'), '%.0f'),
                        fmt(lat.get('max_ns'), '%.0f')), '']
        mem = bench.get('memory')
        if isinstance(mem, dict) and mem:
            out += ['#### Memory', '', '| what | bytes |', '|---|---:|']
            if 'bytes_per_worker' in mem:
                out.append('| per worker | %s |' % mem['bytes_per_worker'])
            for k, v in (mem.get('worker_detail') or {}).items():
                out.append('| per worker: `%s` | %s |' % (k, v))
            if 'bytes_per_flow' in mem:
                out.append('| per flow | %s |' % mem['bytes_per_flow'])
            for k, v in mem.items():
                if k not in ('bytes_per_worker', 'worker_detail', 'bytes_per_flow'):
                    out.append('| `%s` | %s |' % (k, v))
            out.append('')
    if 'kdisp.png' in fig:
        kd = render_model(bench, bench_path, kdisp, kdisp_path)
        if kd and kd[0].startswith('### K dispatchers'):
            kd[1:1] = ['', '![%s](%s)' % (fig['kdisp.png'][1], fig['kdisp.png'][0])]
        out += kd
    else:
        out += render_model(bench, bench_path, kdisp, kdisp_path)
    if binary is not None:
        cfg = binary.get('config') or {}
        out += ['### The dpdk-rps binary (`tools/bench_binary.py`)', '',
                '* Machine: %s' % machine_line(binary),
                '* Measured: %s' % measured_date(binary, binary_path),
                '* Command: `%s`' % binary.get('command', '?'),
                '* %s runs of %s s per configuration, one at a time; Mpps = processed / '
                'duration_s from `--summary-json`; rx Mpps: packets taken from the port; '
                'drop %%: dropped / rx over all runs' % (cfg.get('runs', '?'),
                                                       cfg.get('duration_s', '?'))]
        for n in binary.get('notes') or []:
            out.append('* %s' % n)
        out.append('')
        if 'binary.png' in fig:
            out += ['![%s](%s)' % (fig['binary.png'][1], fig['binary.png'][0]), '']
        out += table_binary(binary) + ['', 'Each configuration\'s command line '
                                           '(`summary.json`: the file each run writes):', '']
        for r in binary.get('results') or []:
            out += ['* %s %s `%s`: `%s`' % (r.get('source'), r.get('frame'), r.get('config'),
                                              r.get('cmd', '?'))]
        out.append('')
    return '\n'.join(out)


def write_doc(path, body):
    """Replace the text between the markers of path (created, or the markers appended,
    when missing); the rest of the file is kept byte for byte."""
    try:
        with open(path) as f:
            text = f.read()
    except FileNotFoundError:
        text = '# Benchmarks\n\n%s\n%s\n' % (BEGIN, END)
    b, e = text.find(BEGIN), text.find(END)
    if b < 0 or e < 0 or e < b:
        print('bench_plot: %s has no %s ... %s pair: appending one' % (path, BEGIN, END),
              file=sys.stderr)
        text = text.rstrip('\n') + '\n\n%s\n%s\n' % (BEGIN, END)
        b, e = text.find(BEGIN), text.find(END)
    text = text[:b + len(BEGIN)] + '\n\n' + body.strip('\n') + '\n\n' + text[e:]
    with open(path, 'w') as f:
        f.write(text)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--bench', default='docs/data/bench.json',
                    help='dpdk-rps-bench --json output (default docs/data/bench.json)')
    ap.add_argument('--dispatchers', metavar='JSON',
                    help='dpdk-rps-bench --dispatchers K --json output (optional): the K '
                    'dispatchers table, against --bench\'s one')
    ap.add_argument('--binary', help='tools/bench_binary.py --json output (optional)')
    ap.add_argument('--variant', metavar='JSON', action='append', default=[],
                    help='dpdk-rps-bench --json output of single_core and e2e_stages with one '
                    'setting changed (repeatable, optional): the settings-compared table')
    ap.add_argument('--img-dir', default='docs/img', help='where the PNGs go')
    ap.add_argument('--doc', default='docs/benchmarks.md',
                    help='markdown file whose generated region is rewritten')
    ap.add_argument('--no-doc', action='store_true', help='write the figures only')
    ap.add_argument('--generator', default='sh scripts/bench.sh',
                    help='the command named as the generator in the document')
    a = ap.parse_args(argv)
    try:
        import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot as plt
    except ImportError:
        print('bench_plot: matplotlib is missing: apt-get install python3-matplotlib, and '
              'run this with /usr/bin/python3 (now: %s)' % sys.executable, file=sys.stderr)
        return 2
    bench_path = a.bench if a.bench and os.path.exists(a.bench) else None
    if a.bench and not bench_path:
        print('bench_plot: %s not found: no dpdk-rps-bench figures' % a.bench,
              file=sys.stderr)
    bench = load_json(bench_path, 'dpdk-rps-bench')
    binary = load_json(a.binary, 'bench_binary')
    kdisp = load_json(a.dispatchers, 'dpdk-rps-bench --dispatchers')
    variants = [(v, d) for v, d in ((v, load_json(v, 'dpdk-rps-bench variant'))
                                    for v in a.variant) if d is not None]
    if bench is None and binary is None:
        print('bench_plot: nothing to plot (no --bench file and no --binary)', file=sys.stderr)
        return 1
    os.makedirs(a.img_dir, exist_ok=True)
    figures = []
    results = bench_results(bench)
    if bench is not None:
        m = bench.get('machine') or {}
        cfg = bench.get('config') or {}
        sub = '%s; %s runs × %s s, %s worker(s)%s' % (
            m.get('cpu', '?'), cfg.get('runs', '?'), cfg.get('duration_s', '?'),
            cfg.get('workers', '?'), ', oversubscribed' if cfg.get('oversubscribed') else '')
        figures += fig_mpps(plt, results, a.img_dir, sub)
        figures += fig_cycles(plt, results, a.img_dir, sub)
        if isinstance(bench.get('latency'), dict):
            figures += fig_latency(plt, bench['latency'], a.img_dir, m.get('cpu', ''))
    figures += fig_kdisp(plt, bench, kdisp, a.img_dir)
    figures += fig_binary(plt, binary, a.img_dir)
    for name, _ in figures:
        print('bench_plot: wrote %s' % os.path.join(a.img_dir, name))
    if not a.no_doc:
        write_doc(a.doc, render(bench, bench_path, binary, a.binary, figures,
                                os.path.dirname(a.doc), a.img_dir, a.generator, kdisp,
                                a.dispatchers, variants))
        print('bench_plot: updated %s' % a.doc)
    return 0


if __name__ == '__main__':
    sys.exit(main())
