#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""forward_bench.py: inline forwarding (--forward 0:1) against dpdk-testpmd's io forwarding.

Both programs forward between the same two ports, what arrives on one leaving by the other,
and take turns run by run (A B C D A B C D ...). Every run's figure is printed with the
command line that reproduces it, then the medians and the ratio to testpmd.

1. null: two net_null vdevs (64-byte frames; RX hands out mbufs as fast as it is polled,
   TX frees them). Mpps forwarded = what both ports transmitted (DPDK's own /ethdev/stats of
   ports 0 and 1 read over the telemetry socket, the same query for both programs) over a
   window of SECONDS after a 1 s warm-up. net_null never writes its packets: every frame is
   the same non-IP frame, one flow, so dpdk-rps steers all of it to one worker.
     testpmd_1c  testpmd --lcores 0@0,1@1 --nb-cores 1: one forwarding lcore on CPU 1 (the
                 main lcore on CPU 0 waits on stdin)
     testpmd_2c  testpmd --lcores 0@0,1@0,2@1 --nb-cores 2: a forwarding lcore per
                 direction, one on each CPU
     rps_1w      dpdk-rps --lcores 0@0,1@1 --map 0x2: RX lcore on CPU 0, a worker on CPU 1
     rps_2w      dpdk-rps --lcores 0@0,(1-2)@1 --map 0x6: 2 workers sharing CPU 1
   (one RX queue a port for both: --rx-queues 1, --rxq 1).
   net_ring is not measured: a ring port delivers only what someone enqueues, which needs a
   second process or a loop seeded from inside the program, whose cost would be the figure.
2. tcp: Linux TCP between two network namespaces over two veth pairs whose root-namespace
   ends are net_af_packet ports 0 and 1 (as tests/integration/test_forward_tcp.py sets them
   up: offloads off, rps_cpus of all four ends on CPU 0, net.core.wmem_default 2 MiB, put
   back after); iperf3 --bidir -P 4 unpaced for SECONDS; Mbit/s each way (what the
   receivers got).
     testpmd_1c  as above, qpairs=1
     rps_1w      as above, qpairs=1
     rps_2w      as above, qpairs=2 (a TX queue per worker on each port)
   iperf3, the kernel's softirqs and the forwarding lcores share the machine's CPUs.

Needs root (namespaces, telemetry socket under /var/run/dpdk), dpdk-testpmd, and for tcp
iperf3 and ethtool. Addresses: 198.18.82.0/24 only; nothing leaves the machine. Busy-polling
lcores: run nothing else on the CPUs (flock /tmp/rps-polling.lock python3 ...).

usage: forward_bench.py [--runs N] [--seconds S] [--parts null,tcp] [--testpmd PATH]
                        [--json FILE] PATH/TO/dpdk-rps
"""

import argparse
import json
import os
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import veth_pair  # noqa: E402  (the namespaces, veths and kernel settings)

EAL = ['--no-huge', '-m', '1024', '--no-pci', '--log-level', 'lib.eal:warning']
NULL_VDEVS = ['net_null0,size=64', 'net_null1,size=64']
NS = ('rpsfwba', 'rpsfwbb')
HOST = ('rfwba', 'rfwbb')          # root-namespace ends: the DPDK ports
PEER = ('rfwban', 'rfwbbn')        # namespace ends
ADDR = ('198.18.82.1', '198.18.82.2')
KERNEL_CPUS = '1'                  # rps_cpus: CPU 0 (as test_forward_tcp.py)

# --- the two programs ---------------------------------------------------------------------

def rps_cmd(binary, prefix, vdevs, lcores, fmap, summary):
    # net_null has 16 RX queues: one polled, as testpmd's --rxq 1; net_af_packet's qpairs
    # are a fanout group (the kernel spreads frames over them): every one polled
    rxq = ['--rx-queues', '1'] if vdevs[0].startswith('net_null') else []
    return [binary] + EAL + ['--file-prefix', prefix, '--lcores', lcores] + \
        [a for v in vdevs for a in ('--vdev', v)] + \
        ['--', '--forward', '0:1', '--map', fmap] + rxq + ['--summary-json', summary]


def testpmd_cmd(testpmd, prefix, vdevs, cores):
    lcores = '0@0,1@1' if cores == 1 else '0@0,1@0,2@1'
    return [testpmd] + EAL + ['--file-prefix', prefix, '--lcores', lcores] + \
        [a for v in vdevs for a in ('--vdev', v)] + \
        ['--', '--forward-mode=io', '--auto-start', '--nb-cores', str(cores), '--rxq', '1',
         '--txq', '1', '--total-num-mbufs', '32768']


class Telemetry:
    """DPDK's telemetry socket of a run, held open."""

    def __init__(self, prefix, timeout=20.0):
        path = '/var/run/dpdk/%s/dpdk_telemetry.v2' % prefix
        deadline = time.monotonic() + timeout
        while True:
            self.s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            self.s.settimeout(10)
            try:
                self.s.connect(path)
                break
            except (FileNotFoundError, ConnectionRefusedError, BlockingIOError):
                self.s.close()
                if time.monotonic() > deadline:
                    raise RuntimeError('no telemetry socket at %s' % path)
                time.sleep(0.05)
        self.s.recv(1 << 16)

    def query(self, cmd):
        self.s.send(cmd.encode())
        return json.loads(self.s.recv(1 << 20).decode()).get(cmd.split(',')[0])

    def tx_rx(self):
        """(opackets, ipackets) of ports 0 and 1 together, and the time they were read."""
        a, b = self.query('/ethdev/stats,0'), self.query('/ethdev/stats,1')
        return a['opackets'] + b['opackets'], a['ipackets'] + b['ipackets'], time.monotonic()

    def close(self):
        self.s.close()


class Run:
    """One program running: started, waited for, measured, stopped."""

    def __init__(self, cmd, prefix, is_rps):
        self.cmd, self.prefix, self.is_rps = cmd, prefix, is_rps
        self.log = '/tmp/%s.log' % prefix
        self.logf = open(self.log, 'w')
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=self.logf,
                                  stderr=subprocess.STDOUT, start_new_session=True)
        self.tel = None
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.p.poll() is not None:
                raise RuntimeError('%s exited %d: %s' % (cmd[0], self.p.returncode,
                                                         self.tail()))
            with open(self.log) as f:
                text = f.read()
            # testpmd's stdout is a file, block-buffered: its last line before forwarding
            # starts ('Press enter to exit') shows only at exit; the link check is the line
            # before it, then ports start (the 1 s warm-up of each run covers that)
            if ('RPS: ready: ' if is_rps else 'Checking link statuses') in text:
                self.tel = Telemetry(prefix)
                if not is_rps:
                    time.sleep(0.5)
                return
            time.sleep(0.05)
        self.stop()
        raise RuntimeError('%s did not start: %s' % (cmd[0], self.tail()))

    def tail(self):
        with open(self.log) as f:
            return f.read()[-1500:]

    def stop(self):
        if self.tel:
            self.tel.close()
        try:
            if self.is_rps:
                self.p.send_signal(signal.SIGINT)
            else:
                self.p.stdin.write(b'\n')     # testpmd: "Press enter to exit"
                self.p.stdin.flush()
            self.p.wait(timeout=20)
        except (subprocess.TimeoutExpired, BrokenPipeError):
            os.killpg(self.p.pid, signal.SIGKILL)
            self.p.wait()
        self.logf.close()
        shutil.rmtree('/var/run/dpdk/%s' % self.prefix, ignore_errors=True)
        return self.p.returncode


_seq = [0]


def prefix_for(name):
    _seq[0] += 1
    return 'fwdbench_%s_%d_%d' % (name, os.getpid(), _seq[0])


def start(a, cfg, vdevs):
    """cfg: (name, kind, lcores/cores, map). Returns the Run, and the summary path (rps)."""
    name, kind, arg, fmap = cfg
    prefix = prefix_for(name)
    if kind == 'rps':
        summary = '/tmp/%s.json' % prefix
        return Run(rps_cmd(a.binary, prefix, vdevs, arg, fmap, summary), prefix, True), summary
    return Run(testpmd_cmd(a.testpmd, prefix, vdevs, arg), prefix, False), None


def finish(run, summary):
    """Stop; for dpdk-rps also its summary's accounting. Returns (exit code, summary)."""
    rc = run.stop()
    s = None
    if summary and os.path.exists(summary):
        with open(summary) as f:
            s = json.load(f)
        os.unlink(summary)
    if rc == 0:
        os.unlink(run.log)
    return rc, s


def show(cmd):
    return ' '.join(shlex.quote(c) for c in cmd)


# --- part 1: net_null pair ----------------------------------------------------------------

NULL_CONFIGS = [
    ('testpmd_1c', 'testpmd', 1, None),
    ('rps_1w', 'rps', '0@0,1@1', '0x2'),
    ('testpmd_2c', 'testpmd', 2, None),
    ('rps_2w', 'rps', '0@0,(1-2)@1', '0x6'),
]


def null_run(a, cfg):
    run, summary = start(a, cfg, NULL_VDEVS)
    try:
        time.sleep(1.0)                       # warm-up: pools, caches, the idle backoff
        tx0, rx0, t0 = run.tel.tx_rx()
        time.sleep(a.seconds)
        tx1, rx1, t1 = run.tel.tx_rx()
    finally:
        rc, s = finish(run, summary)
    r = {'config': cfg[0], 'mpps': (tx1 - tx0) / (t1 - t0) / 1e6,
         'rx_mpps': (rx1 - rx0) / (t1 - t0) / 1e6, 'exit': rc, 'cmd': show(run.cmd)}
    if s is not None:
        r['dropped'] = {k: v for k, v in s['dropped'].items() if v}
        r['accounted'] = s['rx_packets'] == s['processed'] + s['dropped_total']
    return r


# --- part 2: Linux TCP over veths through net_af_packet -----------------------------------

TCP_CONFIGS = [
    ('testpmd_1c', 'testpmd', 1, None),
    ('rps_1w', 'rps', '0@0,1@1', '0x2'),
    ('rps_2w', 'rps', '0@0,(1-2)@1', '0x6'),
]


PAIR = veth_pair.VethPair(NS, HOST, PEER, ADDR, KERNEL_CPUS)
in_ns = PAIR.in_ns


def veth_setup():
    PAIR.teardown()
    PAIR.setup()


veth_teardown = PAIR.teardown


def iperf(seconds):
    """iperf3 --bidir -P 4 from a to b: (a->b, b->a Mbit/s as received, error or None)."""
    return PAIR.iperf(seconds, 5302)


def tcp_run(a, cfg):
    qpairs = 2 if cfg[0] == 'rps_2w' else 1
    vdevs = ['net_af_packet%d,iface=%s,qpairs=%d' % (i, HOST[i], qpairs) for i in range(2)]
    run, summary = start(a, cfg, vdevs)
    try:
        time.sleep(1.0)
        # ARP through the forwarder first, so that the timed run starts with both neighbours
        in_ns(0, 'ping', '-c', '2', '-i', '0.2', '-W', '2', ADDR[1], check=False)
        ab, ba, err = iperf(a.seconds)
    finally:
        rc, s = finish(run, summary)
    r = {'config': cfg[0], 'ab': ab, 'ba': ba, 'error': err, 'exit': rc,
         'cmd': show(run.cmd)}
    if s is not None:
        r['dropped'] = {k: v for k, v in s['dropped'].items() if v}
        r['accounted'] = s['rx_packets'] == s['processed'] + s['dropped_total']
    return r


# --- report -------------------------------------------------------------------------------

def med(xs):
    return statistics.median(xs) if xs else 0.0


def report_null(runs):
    print('\n| net_null pair | lcores (CPU) | Mpps forwarded (runs) | median | of testpmd_1c '
          '| of testpmd_2c |\n|---|---|---|---:|---:|---:|')
    m = {c[0]: med([r['mpps'] for r in runs if r['config'] == c[0]]) for c in NULL_CONFIGS}
    for name, kind, arg, fmap in NULL_CONFIGS:
        where = {'testpmd_1c': 'forwarding 1@1 (main 0@0 waits)',
                 'testpmd_2c': 'forwarding 1@0, 2@1 (main 0@0 waits)',
                 'rps_1w': 'RX 0@0, worker 1@1',
                 'rps_2w': 'RX 0@0, workers 1@1, 2@1'}[name]
        xs = ', '.join('%.2f' % r['mpps'] for r in runs if r['config'] == name)
        print('| %s | %s | %s | %.2f | %.2f | %.2f |' % (
            name, where, xs, m[name], m[name] / m['testpmd_1c'] if m['testpmd_1c'] else 0,
            m[name] / m['testpmd_2c'] if m['testpmd_2c'] else 0))
    return m


def report_tcp(runs):
    print('\n| veth pair, TCP | a->b Mbit/s (runs) | b->a Mbit/s (runs) | median a->b / b->a '
          '| of testpmd |\n|---|---|---|---:|---:|')
    m = {}
    for c in TCP_CONFIGS:
        rs = [r for r in runs if r['config'] == c[0] and not r['error']]
        m[c[0]] = (med([r['ab'] for r in rs]), med([r['ba'] for r in rs]))
    base = m.get('testpmd_1c', (0.0, 0.0))
    for c in TCP_CONFIGS:
        rs = [r for r in runs if r['config'] == c[0]]
        ab, ba = m[c[0]]
        print('| %s | %s | %s | %.0f / %.0f | %.2f / %.2f |' % (
            c[0], ', '.join('%.0f' % r['ab'] for r in rs),
            ', '.join('%.0f' % r['ba'] for r in rs), ab, ba,
            ab / base[0] if base[0] else 0, ba / base[1] if base[1] else 0))
    return m


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--runs', type=int, default=3)
    ap.add_argument('--seconds', type=float, default=4.0)
    ap.add_argument('--parts', default='null,tcp')
    ap.add_argument('--testpmd', default='dpdk-testpmd')
    ap.add_argument('--json')
    ap.add_argument('binary')
    a = ap.parse_args()
    if os.geteuid() != 0:
        print('forward_bench.py: needs root (namespaces, the telemetry sockets)')
        return 2
    parts = a.parts.split(',')
    need = [a.testpmd] + (['iperf3', 'ethtool'] if 'tcp' in parts else [])
    missing = [t for t in need if shutil.which(t) is None]
    if missing:
        print('forward_bench.py: missing %s' % ', '.join(missing))
        return 2
    print('$ %s' % show([sys.executable] + sys.argv), flush=True)
    out = {'argv': sys.argv, 'null': [], 'tcp': []}
    if 'null' in parts:
        for k in range(a.runs):
            for cfg in NULL_CONFIGS:
                r = null_run(a, cfg)
                out['null'].append(r)
                print('null run %d %-10s %6.2f Mpps (rx %.2f) exit %d %s\n  $ %s' % (
                    k + 1, cfg[0], r['mpps'], r['rx_mpps'], r['exit'],
                    'dropped %s' % r['dropped'] if r.get('dropped') else '', r['cmd']),
                    flush=True)
        out['null_median'] = report_null(out['null'])
    if 'tcp' in parts:
        veth_setup()
        try:
            for k in range(a.runs):
                for cfg in TCP_CONFIGS:
                    r = tcp_run(a, cfg)
                    out['tcp'].append(r)
                    print('tcp run %d %-10s a->b %5.0f b->a %5.0f Mbit/s exit %d %s%s\n'
                          '  $ %s' % (k + 1, cfg[0], r['ab'], r['ba'], r['exit'],
                                      'error %s ' % r['error'] if r['error'] else '',
                                      'dropped %s' % r['dropped'] if r.get('dropped') else '',
                                      r['cmd']), flush=True)
        finally:
            veth_teardown()
        out['tcp_median'] = report_tcp(out['tcp'])
    if a.json:
        with open(a.json, 'w') as f:
            json.dump(out, f, indent=1)
    bad = [r for r in out['null'] + out['tcp'] if r['exit'] != 0 or r.get('accounted') is False]
    for r in bad:
        print('run failed: %s exit %d accounted %s' % (r['cmd'], r['exit'], r.get('accounted')))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
