#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench_binary.py: measure the real dpdk-rps binary, configuration by configuration.

The second benchmark mode (the first is dpdk-rps-bench, which times the steering code in
isolation): run build/app/dpdk-rps itself on virtual devices for a fixed --duration, read
the --summary-json it writes, and report processed Mpps (processed / duration_s) as the
median, min and max of several runs, with rx Mpps and drops by reason.

Sources: net_null (64 and 512-byte frames; its payloads are never written, so every packet
is the same non-IP frame and all of them steer to one worker) and net_pcap looping the
bundled capture (infinite_rx=1). Configurations per source:
  io_ceiling     --map 0   --stages output   no steering, no processing: the binary's I/O limit
  steering_only  --map 0x2 --stages output   1 RX lcore + 1 worker that only frees
  single_core    --map 0                     default stages on the RX lcore ("without RPS")
  rps_1worker    --map 0x2                   1 RX lcore + 1 worker, default stages
  rps_3workers   --map 0xe, lcores (1-3)@1   3 workers sharing one CPU: oversubscribed
Runs go one at a time (busy-polling lcores must not share the two CPUs with another run).

usage: bench_binary.py --rps build/app/dpdk-rps --pcap build/tools/default.pcap
                       [--runs 5] [--duration 3] [--json out.json] [--quick]
--quick: 1 run of 0.5 s of two configurations (single_core, rps_1worker) on the capture:
a smoke test for CI. Exit 0 ok, 1 dpdk-rps failed (the message says how), 2 usage.
"""

import argparse
import json
import os
import platform
import shlex
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time

EAL_BASE = ['--no-huge', '-m', '1024', '--no-pci', '--log-level=lib.eal:error']
LCORES_1W = '0@0,1@1'
LCORES_3W = '0@0,(1-3)@1'
HASH_SEED = '1'                 # same flow -> worker assignment on every run

# name, --map, --stages (None = the default pipeline), workers, --lcores, oversubscribed
CONFIGS = [
    ('io_ceiling', '0', 'output', 0, LCORES_1W, False),
    ('steering_only', '0x2', 'output', 1, LCORES_1W, False),
    ('single_core', '0', None, 0, LCORES_1W, False),
    ('rps_1worker', '0x2', None, 1, LCORES_1W, False),
    ('rps_3workers', '0xe', None, 3, LCORES_3W, True),
]
QUICK_CONFIGS = ('single_core', 'rps_1worker')

NOTE_NULL = ('net_null never writes its packets: every frame is the same non-IP frame, so '
             'all packets hash to one flow and steer to one worker (rps_3workers uses only '
             'one of its three); net_null also has 16 RX queues, all polled')
NOTE_PCAP = ('net_pcap copies every record of the looped capture into a fresh mbuf on the '
             'RX lcore (infinite_rx=1): the capture has 256 flows of IPv4/IPv6 TCP/UDP, '
             'VLAN, QinQ, fragments and ARP')
NOTE_RING = ('net_ring is not measured: a ring port needs a second process or a loop '
             'seeded from inside the program to deliver packets')


class BenchError(Exception):
    """dpdk-rps did not run as expected; the message says what happened."""


def pcap_avg_frame(path):
    """Average captured length of the records of a classic pcap file (None if unreadable)."""
    try:
        with open(path, 'rb') as f:
            buf = f.read()
    except OSError:
        return None
    endian = {b'\xd4\xc3\xb2\xa1': '<', b'\xa1\xb2\xc3\xd4': '>',
              b'\x4d\x3c\xb2\xa1': '<', b'\xa1\xb2\x3c\x4d': '>'}.get(buf[:4])
    if endian is None:
        return None
    off, n, total = 24, 0, 0
    while off + 16 <= len(buf):
        caplen = struct.unpack_from(endian + 'I', buf, off + 8)[0]
        off += 16 + caplen
        n += 1
        total += caplen
    return round(total / n, 1) if n else None


def sources(pcap):
    """(name, frame, --vdev, note) of every traffic source."""
    src = [('net_null', 64, 'net_null0,size=64', NOTE_NULL),
           ('net_null', 512, 'net_null0,size=512', NOTE_NULL)]
    if pcap:
        avg = pcap_avg_frame(pcap)
        note = NOTE_PCAP if avg is None else '%s (%g bytes a frame on average)' % (NOTE_PCAP, avg)
        src.append(('net_pcap', 'mix', 'net_pcap0,rx_pcap=%s,infinite_rx=1' % pcap, note))
    return src


def machine():
    cpu = ''
    try:
        with open('/proc/cpuinfo') as f:
            for line in f:
                if line.startswith('model name'):
                    cpu = line.split(':', 1)[1].strip()
                    break
    except OSError:
        pass
    mem_kb = 0
    try:
        with open('/proc/meminfo') as f:
            mem_kb = int(f.readline().split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return {'cpu': cpu, 'nproc': os.cpu_count(), 'kernel': platform.release(),
            'mem_gib': round(mem_kb / 2**20, 1), 'hostname': platform.node()}


def dpdk_version():
    try:
        r = subprocess.run(['pkg-config', '--modversion', 'libdpdk'], capture_output=True,
                           text=True, timeout=10)
        return r.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def remove_runtime_dir(prefix):
    """Remove the DPDK runtime directory that a run with --file-prefix PREFIX leaves."""
    assert prefix.startswith('rpsbench')
    for base in ('/var/run/dpdk', os.path.join(os.environ.get('XDG_RUNTIME_DIR', ''), 'dpdk')):
        if base.startswith('/'):
            shutil.rmtree(os.path.join(base, prefix), ignore_errors=True)


def build_cmd(binary, prefix, vdev, cfg, duration, summary):
    name, cmap, stages, _, lcores, _ = cfg
    n = EAL_BASE.index('--no-pci') + 1
    eal = EAL_BASE[:n] + ['--file-prefix', prefix, '--lcores', lcores] + EAL_BASE[n:] + \
        ['--vdev', vdev]
    app = ['--map', cmap]
    if stages:
        app += ['--stages', stages]
    app += ['--hash-seed', HASH_SEED, '--duration', '%g' % duration, '--summary-json', summary]
    return [binary] + eal + ['--'] + app


def run_once(cmd, prefix, summary, duration):
    """Run one dpdk-rps; return its summary JSON as a dict, or raise BenchError."""
    try:
        os.unlink(summary)
    except FileNotFoundError:
        pass
    timeout = duration + 60
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        proc.communicate()
        raise BenchError('dpdk-rps did not stop within %g s (--duration %g): %s' % (
            timeout, duration, shlex.join(cmd)))
    finally:
        remove_runtime_dir(prefix)
    tail = '\n'.join(out.decode(errors='replace').rstrip().splitlines()[-15:]) or '(none)'
    if proc.returncode != 0:
        raise BenchError('dpdk-rps exited with status %d: %s\n--- its last output:\n%s' % (
            proc.returncode, shlex.join(cmd), tail))
    try:
        with open(summary) as f:
            s = json.load(f)
    except (OSError, ValueError) as e:
        raise BenchError('dpdk-rps exited 0 but its summary JSON is unreadable (%s): %s\n'
                         '--- its last output:\n%s' % (e, shlex.join(cmd), tail))
    for key in ('duration_s', 'rx_packets', 'processed', 'dropped_total'):
        if key not in s:
            raise BenchError('summary JSON of %s lacks "%s"' % (shlex.join(cmd), key))
    if not s['duration_s'] > 0:
        raise BenchError('summary JSON of %s has duration_s %r' % (shlex.join(cmd),
                                                                      s['duration_s']))
    return s


def measure(binary, source, cfg, runs, duration, tmp, prefix):
    """Run one configuration `runs` times; return its result record."""
    sname, frame, vdev, note = source
    name, cmap, stages, workers, lcores, oversub = cfg
    summary = os.path.join(tmp, 'summary.json')
    cmd = build_cmd(binary, prefix, vdev, cfg, duration, summary)
    mpps, rx_mpps, sums = [], [], []
    for i in range(runs):
        s = run_once(cmd, prefix, summary, duration)
        mpps.append(s['processed'] / s['duration_s'] / 1e6)
        rx_mpps.append(s['rx_packets'] / s['duration_s'] / 1e6)
        sums.append(s)
        print('  %-9s %-4s %-13s run %d/%d: %7.3f Mpps processed, %7.3f Mpps rx' % (
            sname, frame, name, i + 1, runs, mpps[-1], rx_mpps[-1]), flush=True)
    rx_total = sum(s['rx_packets'] for s in sums)
    drops, port_drops = {}, {}
    for s in sums:
        for reason, n in s.get('dropped', {}).items():
            if n:
                drops[reason] = drops.get(reason, 0) + n
        for key in ('imissed', 'ierrors', 'rx_nombuf'):
            n = s.get('port', {}).get(key, 0)
            if n:
                port_drops[key] = port_drops.get(key, 0) + n
    # Per-worker share of the median run: shows whether steering spread the load.
    med = sorted(range(runs), key=lambda k: mpps[k])[runs // 2]
    ms = sums[med]
    per_worker = [round(w.get('processed', 0) / ms['duration_s'] / 1e6, 3)
                  for w in ms.get('workers', [])]
    shown = [c if c != summary else 'summary.json' for c in cmd]
    return {
        'source': sname, 'frame': frame, 'config': name, 'map': cmap,
        'stages': stages or ms.get('config', {}).get('stages', 'default'),
        'workers': workers, 'oversubscribed': oversub,
        'rx_queues': ms.get('config', {}).get('rx_queues'),
        'runs': runs, 'duration_s': duration,
        'runs_mpps': [round(x, 3) for x in mpps],
        'median_mpps': round(statistics.median(mpps), 3),
        'min_mpps': round(min(mpps), 3), 'max_mpps': round(max(mpps), 3),
        'rx_runs_mpps': [round(x, 3) for x in rx_mpps],
        'rx_median_mpps': round(statistics.median(rx_mpps), 3),
        'drop_pct': round(100.0 * sum(s['dropped_total'] for s in sums) / rx_total, 2)
        if rx_total else 0.0,
        'drops': drops, 'port_drops': port_drops,
        'per_worker_mpps': per_worker,
        'workers_busy': sum(1 for w in ms.get('workers', []) if w.get('processed', 0)),
        'invariant_ok': all(s['rx_packets'] == s['processed'] + s['dropped_total']
                            for s in sums),
        'note': note,
        'cmd': shlex.join(shown),
    }


def print_table(results):
    hdr = '%-9s %-5s %-14s %-5s %-7s %3s %9s %17s %8s %7s  %s' % (
        'source', 'frame', 'config', 'map', 'stages', 'wk', 'Mpps', 'min-max', 'rx Mpps',
        'drop %', 'drops')
    print('\n' + hdr + '\n' + '-' * len(hdr))
    for r in results:
        drops = ', '.join('%s %d' % kv for kv in sorted(r['drops'].items(),
                                                         key=lambda kv: -kv[1]))
        print('%-9s %-5s %-14s %-5s %-7s %3s %9.3f %17s %8.3f %7.2f  %s' % (
            r['source'], r['frame'], r['config'], r['map'],
            'output' if r['stages'] == 'output' else 'default',
            '%d%s' % (r['workers'], '*' if r['oversubscribed'] else ''),
            r['median_mpps'], '%.3f-%.3f' % (r['min_mpps'], r['max_mpps']),
            r['rx_median_mpps'], r['drop_pct'], drops or '-'))
    print('(wk: worker lcores; * = oversubscribed, 3 workers share CPU 1; Mpps = processed '
          'packets / duration_s, median of the runs; drops summed over the runs)\n')
    print('Commands (summary.json: the file each run writes):')
    for r in results:
        print('  %s %s/%s:\n    %s' % (r['source'], r['frame'], r['config'], r['cmd']))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--rps', default='build/app/dpdk-rps', help='the dpdk-rps binary')
    ap.add_argument('--pcap', default='build/tools/default.pcap',
                    help='capture net_pcap loops (default build/tools/default.pcap)')
    ap.add_argument('--runs', type=int, default=5, help='runs per configuration (default 5)')
    ap.add_argument('--duration', type=float, default=3.0,
                    help='seconds per run (default 3)')
    ap.add_argument('--json', help='write the results here')
    ap.add_argument('--hugepages', action='store_true',
                    help='run dpdk-rps on hugepages (-m 1024) instead of --no-huge')
    ap.add_argument('--quick', action='store_true',
                    help='1 run x 0.5 s of single_core and rps_1worker on the capture')
    a = ap.parse_args(argv)
    if a.hugepages:
        EAL_BASE[:3] = ['-m', '1024']
    if a.runs < 1 or not a.duration > 0:
        ap.error('--runs must be >= 1 and --duration > 0')
    if not (os.path.isfile(a.rps) and os.access(a.rps, os.X_OK)):
        print('bench_binary: %s is not an executable (build it: sh scripts/build.sh build)'
              % a.rps, file=sys.stderr)
        return 2
    if a.pcap and not os.path.isfile(a.pcap):
        print('bench_binary: capture %s not found' % a.pcap, file=sys.stderr)
        return 2
    # Paths as given, so the printed commands are the ones a reader can paste.
    binary = a.rps if os.sep in a.rps else os.path.join('.', a.rps)
    srcs, cfgs, runs, duration = sources(a.pcap), CONFIGS, a.runs, a.duration
    if a.quick:
        srcs = [s for s in srcs if s[0] == 'net_pcap'] or srcs[:1]
        cfgs = [c for c in CONFIGS if c[0] in QUICK_CONFIGS]
        runs, duration = 1, 0.5
    n = len(srcs) * len(cfgs) * runs
    print('bench_binary: %d sources x %d configurations x %d runs of %g s (about %.0f s)' % (
        len(srcs), len(cfgs), runs, duration, n * (duration + 1.0)), flush=True)
    prefix = 'rpsbench%d' % os.getpid()
    results = []
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix='rpsbench') as tmp:
        try:
            for src in srcs:
                for cfg in cfgs:
                    results.append(measure(binary, src, cfg, runs, duration, tmp, prefix))
        except BenchError as e:
            print('bench_binary: FAILED: %s' % e, file=sys.stderr)
            return 1
        finally:
            remove_runtime_dir(prefix)
    print_table(results)
    notes = sorted({r['note'] for r in results})
    if not any(r['source'] == 'net_ring' for r in results):
        notes.append(NOTE_RING)
    if a.json:
        doc = {'command': shlex.join([os.path.relpath(sys.argv[0])] + sys.argv[1:]
                                     if argv is None else ['bench_binary.py'] + list(argv)),
               'date': time.strftime('%Y-%m-%d %H:%M:%S %z'),
               'machine': machine(), 'dpdk': dpdk_version(),
               'config': {'runs': runs, 'duration_s': duration, 'quick': a.quick,
                          'hash_seed': int(HASH_SEED), 'eal': ' '.join(EAL_BASE)},
               'notes': notes, 'elapsed_s': round(time.monotonic() - t0, 1),
               'results': results}
        d = os.path.dirname(a.json)
        if d:
            os.makedirs(d, exist_ok=True)
        with open(a.json, 'w') as f:
            json.dump(doc, f, indent=1)
            f.write('\n')
        print('bench_binary: wrote %s' % a.json)
    return 0


if __name__ == '__main__':
    sys.exit(main())
