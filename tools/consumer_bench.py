#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""consumer_bench.py: Mpps delivered to K consumers (--consumers K), against testpmd.

Issue 28: what dpdk-rps hands to 1, 2 and 4 consumers over memif on this machine, against
dpdk-testpmd io-forwarding the same source port into a memif server port with one client.
The configurations take turns run by run (A B C D A B C D ...); every run's figure is
printed with the command lines that reproduce it, then the medians and the ratio to
testpmd. Every run goes into --json.

Source: net_pcap looping (infinite_rx=1) a generated capture of FLOWS 64-byte UDP/IPv4
frames, one per flow (net_null's frames are all the same one flow: dpdk-rps would steer all
of it to one worker, so one consumer). The PMD copies each record into a fresh mbuf on the
lcore that polls it, for both programs.

Consumers: dpdk-testpmd memif clients in --forward-mode=rxonly (receive, free), one forwarding
lcore each. Mpps delivered = what the clients received: the sum of their memif ports'
ipackets (DPDK's /ethdev/stats,0 over each client's telemetry socket) across a window of
SECONDS after a 1 s warm-up. dpdk-rps's exit summary gives the drops by reason (a client
that did not keep up: consumer_full) and the accounting check.

  testpmd      testpmd --lcores 0@0,1@1: io forwarding pcap -> memif server on CPU 1 (the
               main lcore on CPU 0 waits on stdin); its client's rxonly lcore on CPU 0
  rps_kK       dpdk-rps --lcores '0@0,(1-K)@1' --consumers K: the RX lcore on CPU 0, K
               workers on CPU 1 (--map, one consumer each: K = workers), --stages output
               (steering and delivery only); each client's rxonly lcore on CPU 0
  rps_kK_wW    --workers W: W workers for every K (K <= W), so that a consumer fed by
               several workers takes them through its one shared queue (docs/consumers.md):
               --workers 2 --consumers 1,2 is a shared queue against a queue each
Placement on 2 CPUs: CPU 1 does the forwarding (testpmd's loop, dpdk-rps's workers); CPU 0
polls the source for dpdk-rps (its RX lcore) and runs the clients (--client-cpu 1: with the
forwarding instead). dpdk-rps has 1 + 2K busy-polling threads on the two CPUs, testpmd's
ceiling 2. Where a client shares its CPU with a busy thread, the two take turns of
milliseconds and what it gets is bounded by its ring (--rsize: the clients' memif rings,
log2 of their slots) per turn; --backlog is dpdk-rps's.

Needs root (the telemetry sockets under /var/run/dpdk) and dpdk-testpmd. Busy-polling
lcores: run nothing else on the CPUs (flock /tmp/rps-polling.lock python3 ...).

usage: consumer_bench.py [--runs N] [--seconds S] [--consumers 1,2,4] [--workers W] [--rsize 10]
                         [--backlog 1000] [--client-cpu 0|1] [--testpmd PATH]
                         [--json FILE] PATH/TO/dpdk-rps
"""

import argparse
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_traffic  # noqa: E402
# a run's DPDK telemetry socket, a command line as text, a median (0 for none)
from forward_bench import Telemetry, med, show  # noqa: E402

EAL = ['--no-huge', '--no-pci', '--log-level', 'lib.eal:warning']
FLOWS = 1024


def capture(path):
    """FLOWS 64-byte (60 + FCS) UDP/IPv4 frames, one per flow."""
    frames = []
    for f in range(FLOWS):
        src = bytes([198, 18, f >> 8, f & 0xff])
        dst = bytes([198, 19, 0, 1])
        l4 = gen_traffic.udp_datagram(False, src, dst, 1024 + f, 5201, bytes(18))
        frames.append(gen_traffic.eth_header(b'\x02\0\0\0\0\x01', b'\x02\0\0\0\0\x02', [],
                                             0x0800) +
                      gen_traffic.ipv4_header(src, dst, 17, len(l4), f) + l4)
    gen_traffic.write_pcap(path, frames)


_seq = [0]


def prefix_for(name):
    _seq[0] += 1
    return 'consbench_%s_%d_%d' % (name, os.getpid(), _seq[0])


class Proc:
    """One DPDK process, its output in a log file; stop() ends it the way it expects."""

    def __init__(self, cmd, prefix, tmp, is_rps):
        self.cmd, self.prefix, self.is_rps = cmd, prefix, is_rps
        self.log = os.path.join(tmp, prefix + '.log')
        self.logf = open(self.log, 'w')
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=self.logf,
                                  stderr=subprocess.STDOUT, start_new_session=True)
        self.tel = None

    def text(self):
        with open(self.log) as f:
            return f.read()

    def wait_for(self, what, timeout=30.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.p.poll() is not None:
                raise RuntimeError('%s exited %d: %s' % (self.cmd[0], self.p.returncode,
                                                         self.text()[-1500:]))
            if what in self.text():
                return
            time.sleep(0.05)
        raise RuntimeError('%s: no %r within %.0f s: %s' % (self.cmd[0], what, timeout,
                                                             self.text()[-1500:]))

    def telemetry(self):
        self.tel = Telemetry(self.prefix)
        return self.tel

    def stop(self):
        if self.tel:
            self.tel.close()
        try:
            if self.p.poll() is None:
                if self.is_rps:
                    self.p.send_signal(signal.SIGINT)
                else:
                    self.p.stdin.write(b'\n')     # testpmd: "Press enter to exit"
                    self.p.stdin.flush()
            self.p.wait(timeout=20)
        except (subprocess.TimeoutExpired, BrokenPipeError):
            try:
                os.killpg(self.p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.p.wait()
        self.logf.close()
        shutil.rmtree('/var/run/dpdk/%s' % self.prefix, ignore_errors=True)
        return self.p.returncode


def client_cmd(a, prefix, sock):
    # main lcore (waits on stdin) and the rxonly forwarding lcore on --client-cpu
    lcores = '0@{0},1@{0}'.format(a.client_cpu)
    return [a.testpmd] + EAL + ['-m', '256', '--file-prefix', prefix, '--lcores',
                                lcores, '--vdev',
                                'net_memif0,role=client,socket=%s,id=0,socket-abstract=no,'
                                'rsize=%d' % (sock, a.rsize), '--', '--forward-mode=rxonly', '--auto-start',
                                '--nb-cores', '1', '--rxq', '1', '--txq', '1',
                                '--total-num-mbufs', '16384']


def server_cmd(a, cfg, prefix, pcap, sock, summary):
    src = 'net_pcap0,rx_pcap=%s,infinite_rx=1' % pcap
    if cfg['kind'] == 'testpmd':
        return [a.testpmd] + EAL + [
            '-m', '1024', '--file-prefix', prefix, '--lcores', '0@0,1@1',
            '--vdev', src + ',tx_pcap=/dev/null',
            '--vdev', 'net_memif0,role=server,socket=%s,id=0,socket-abstract=no,'
            'zero-copy=no' % (sock % 0),
            '--', '--forward-mode=io', '--auto-start', '--nb-cores', '1', '--rxq', '1',
            '--txq', '1', '--total-num-mbufs', '32768']
    k, w = cfg['k'], cfg['workers']
    lcores = '0@0,1@1' if w == 1 else '0@0,(1-%d)@1' % w
    return [a.binary] + EAL + [
        '-m', '1024', '--file-prefix', prefix, '--lcores', lcores, '--vdev', src, '--',
        '--map', hex(((1 << w) - 1) << 1), '--consumers', str(k), '--consumer-socket',
        sock, '--consumer-wait', '20000', '--stages', 'output',
        '--backlog', str(a.backlog), '--hash', 'jhash',
        '--hash-seed', '28', '--summary-json', summary]


def one_run(a, cfg, tmp, pcap):
    """Start the server, then its clients (once it takes clients), measure, stop the
    clients first (a memif client whose server goes away can crash: docs/consumers.md)."""
    name = cfg['name']
    sp = prefix_for(name)
    sock = os.path.join(tmp, sp + '-c%u.sock')
    summary = os.path.join(tmp, sp + '.json')
    server = Proc(server_cmd(a, cfg, sp, pcap, sock, summary), sp, tmp, cfg['kind'] == 'rps')
    clients = []
    r = {'config': name, 'k': cfg['k'], 'server_cmd': show(server.cmd), 'client_cmds': []}
    try:
        # a client's hello before the server's port start is refused for good (testpmd
        # does not retry): wait for the line that follows the start
        server.wait_for('worker(s), map ' if cfg['kind'] == 'rps' else
                        'Checking link statuses')
        for c in range(cfg['k']):
            while not os.path.exists(sock % c):
                time.sleep(0.05)
        time.sleep(0.3)
        for c in range(cfg['k']):
            cp = prefix_for('%s_c%d' % (name, c))
            clients.append(Proc(client_cmd(a, cp, sock % c), cp, tmp, False))
            r['client_cmds'].append(show(clients[-1].cmd))
        for cl in clients:
            cl.wait_for('Checking link statuses')
            cl.telemetry()
        time.sleep(1.0)                       # warm-up, and --consumer-wait's settle
        t0 = time.monotonic()
        s0 = [cl.tel.query('/ethdev/stats,0')['ipackets'] for cl in clients]
        time.sleep(a.seconds)
        s1 = [cl.tel.query('/ethdev/stats,0')['ipackets'] for cl in clients]
        t1 = time.monotonic()
    finally:
        r['client_exit'] = [cl.stop() for cl in clients]
        r['exit'] = server.stop()
    r['per_client_mpps'] = [(y - x) / (t1 - t0) / 1e6 for x, y in zip(s0, s1)]
    r['mpps'] = sum(r['per_client_mpps'])
    if os.path.exists(summary):
        with open(summary) as f:
            s = json.load(f)
        r['dropped'] = {k: v for k, v in s['dropped'].items() if v}
        r['accounted'] = s['rx_packets'] == s['processed'] + s['dropped_total']
        r['rx_packets'] = s['rx_packets']
        r['delivered'] = [c['delivered'] for c in s.get('consumers', [])]
    if r['exit'] == 0 and all(x == 0 for x in r['client_exit']):
        for p in [server] + clients:
            os.unlink(p.log)
    return r


def machine():
    cpu = ''
    with open('/proc/cpuinfo') as f:
        for line in f:
            if line.startswith('model name'):
                cpu = line.split(':', 1)[1].strip()
                break
    return {'cpu': cpu, 'nproc': os.cpu_count(), 'kernel': platform.release(),
            'loadavg': os.getloadavg()}


def report(a, configs, runs):
    m = {c['name']: med([r['mpps'] for r in runs if r['config'] == c['name']])
         for c in configs}
    base = m.get('testpmd', 0.0)
    print('\n| configuration | lcores (CPU) | Mpps delivered (runs) | median | of testpmd |\n'
          '|---|---|---|---:|---:|')
    for c in configs:
        if c['kind'] == 'testpmd':
            where = 'io 1@1; client rxonly @%d' % a.client_cpu
        else:
            where = 'RX 0@0, %d worker%s @1; %d client%s rxonly @%d' % (
                c['workers'], 's' if c['workers'] > 1 else '', c['k'],
                's' if c['k'] > 1 else '', a.client_cpu)
        xs = ', '.join('%.2f' % r['mpps'] for r in runs if r['config'] == c['name'])
        print('| %s | %s | %s | %.2f | %.2f |' % (c['name'], where, xs, m[c['name']],
                                                  m[c['name']] / base if base else 0))
    return m


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--runs', type=int, default=3)
    ap.add_argument('--seconds', type=float, default=4.0)
    ap.add_argument('--consumers', default='1,2,4')
    ap.add_argument('--workers', type=int, default=0,
                    help='workers for every K (K <= W: consumers share queues); default K')
    ap.add_argument('--testpmd', default='dpdk-testpmd')
    ap.add_argument('--rsize', type=int, default=10,
                    help="the clients' memif rings: log2 of their slots, 1..14 (default 10)")
    ap.add_argument('--backlog', type=int, default=1000,
                    help="dpdk-rps's --backlog (default 1000, its default)")
    ap.add_argument('--client-cpu', type=int, choices=(0, 1), default=0,
                    help='the CPU of every client (default 0)')
    ap.add_argument('--json')
    ap.add_argument('binary')
    a = ap.parse_args()
    if os.geteuid() != 0:
        print('consumer_bench.py: needs root (the telemetry sockets)')
        return 2
    if shutil.which(a.testpmd) is None:
        print('consumer_bench.py: missing %s' % a.testpmd)
        return 2
    try:
        ks = [int(k) for k in a.consumers.split(',')]
    except ValueError:
        ks = []
    if not ks or any(k < 1 or k > 16 for k in ks):
        print('consumer_bench.py: --consumers: a list of counts 1..16, not %r' % a.consumers)
        return 2
    if a.workers and (a.workers > 16 or any(k > a.workers for k in ks)):
        print('consumer_bench.py: --workers %d: 1..16 and at least every K of --consumers'
              % a.workers)
        return 2
    configs = [{'name': 'testpmd', 'kind': 'testpmd', 'k': 1, 'workers': 1}] + \
        [{'name': 'rps_k%d' % k + ('_w%d' % a.workers if a.workers else ''), 'kind': 'rps',
          'k': k, 'workers': a.workers or k} for k in ks]
    print('$ %s' % show([sys.executable] + sys.argv), flush=True)
    out = {'argv': sys.argv, 'machine': machine(), 'flows': FLOWS, 'seconds': a.seconds,
           'workers': a.workers,
           'rsize': a.rsize, 'backlog': a.backlog, 'client_cpu': a.client_cpu, 'runs': []}
    print('machine: %s' % out['machine'], flush=True)
    with tempfile.TemporaryDirectory(prefix='consbench-') as tmp:
        pcap = os.path.join(tmp, 'flows.pcap')
        capture(pcap)
        for n in range(a.runs):
            for cfg in configs:
                r = one_run(a, cfg, tmp, pcap)
                out['runs'].append(r)
                print('run %d %-8s %6.2f Mpps (%s) exit %d, clients %s%s%s\n  $ %s%s' % (
                    n + 1, cfg['name'], r['mpps'],
                    ' + '.join('%.2f' % x for x in r['per_client_mpps']), r['exit'],
                    r['client_exit'],
                    ', dropped %s' % r['dropped'] if r.get('dropped') else '',
                    '' if r.get('accounted', True) else ', NOT ACCOUNTED',
                    r['server_cmd'], ''.join('\n  $ ' + c for c in r['client_cmds'])),
                    flush=True)
    out['median'] = report(a, configs, out['runs'])
    if a.json:
        with open(a.json, 'w') as f:
            json.dump(out, f, indent=1)
    bad = [r for r in out['runs'] if r['exit'] != 0 or r.get('accounted') is False or
           any(x != 0 for x in r['client_exit']) or min(r['per_client_mpps']) <= 0]
    for r in bad:
        print('run failed: %s exit %d, clients %s, accounted %s, per client %s' % (
            r['server_cmd'], r['exit'], r['client_exit'], r.get('accounted'),
            r['per_client_mpps']))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
