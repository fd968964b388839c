#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""idle_bench.py: what an idle dpdk-rps costs, and what its sleeping adds to a ping.

1. Idle CPU: `dpdk-rps --lcores '0@0,(1-4)@1' -- --map 0x1e` (an RX lcore and 4 workers) on
   a port that receives nothing, for each --idle-sleep given (default: 50, the default, and 0,
   pure polling), on net_ring (nothing writes its ring), net_af_packet and net_tap (each on an
   interface no one sends on): the process's CPU time over SECONDS, as a share of one CPU.
2. Latency: `ping` from a network namespace over a veth pair to dpdk-rps's respond stage
   (net_af_packet, 4 workers) and over a net_tap interface moved into the namespace, p50 and
   p99 of COUNT pings 10 ms apart, against the kernel
   answering over a second veth pair from the same namespace (the path's own floor).

Needs root (namespaces, net_tap). Prints one markdown table per part and the command.
Nothing leaves the machine: the namespace has only its veth ends and lo.

usage: idle_bench.py [--seconds S] [--count N] [--sleeps 50,0] PATH/TO/dpdk-rps
"""

import argparse
import os
import re
import signal
import subprocess
import sys
import time

NS = 'rpsidle'
VA, VB = 'ria-h', 'ria-n'      # dpdk-rps's pair: host end (net_af_packet), namespace end
KA, KB = 'rik-h', 'rik-n'      # the kernel's pair
IDLE_IF = 'rii-h', 'rii-n'     # an idle pair for the idle-CPU run on net_af_packet
TAP = 'rit0'                   # the net_tap interface of the ping run, moved into NS
LCORES = '0@0,(1-4)@1'


def sh(*cmd, check=True):
    return subprocess.run(cmd, check=check, capture_output=True, text=True)


def setup():
    teardown()
    sh('ip', 'netns', 'add', NS)
    for h, n, net in ((VA, VB, '198.18.70'), (KA, KB, '198.18.71')):
        sh('ip', 'link', 'add', h, 'type', 'veth', 'peer', 'name', n)
        sh('ip', 'link', 'set', n, 'netns', NS)
        sh('sysctl', '-q', '-w', 'net.ipv6.conf.%s.disable_ipv6=1' % h)
        sh('ip', 'link', 'set', h, 'up')
        sh('ip', 'netns', 'exec', NS, 'ip', 'addr', 'add', net + '.2/24', 'dev', n)
        sh('ip', 'netns', 'exec', NS, 'ip', 'link', 'set', n, 'up')
    sh('ip', 'addr', 'add', '198.18.71.1/24', 'dev', KA)   # the kernel answers here
    sh('ip', 'link', 'add', IDLE_IF[0], 'type', 'veth', 'peer', 'name', IDLE_IF[1])
    for i in IDLE_IF:
        sh('sysctl', '-q', '-w', 'net.ipv6.conf.%s.disable_ipv6=1' % i)
        sh('ip', 'link', 'set', i, 'up')
    sh('ip', 'netns', 'exec', NS, 'ip', 'link', 'set', 'lo', 'up')


def teardown():
    sh('ip', 'netns', 'del', NS, check=False)
    for i in (VA, KA, IDLE_IF[0]):
        sh('ip', 'link', 'del', i, check=False)


def cpu_s(pid):
    with open('/proc/%d/stat' % pid) as f:
        v = f.read().rsplit(')', 1)[1].split()
    return (int(v[11]) + int(v[12])) / os.sysconf('SC_CLK_TCK')


def start(binary, prefix, vdev, app):
    cmd = [binary, '--no-huge', '-m', '512', '--no-pci', '--file-prefix', prefix,
           '--lcores', LCORES, '--log-level', 'lib.eal:warning', '--vdev', vdev, '--'] + app
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         start_new_session=True)
    deadline = time.monotonic() + 30
    out = ''
    while time.monotonic() < deadline:
        line = p.stdout.readline()
        if not line:
            break
        out += line
        if 'RPS: ready: ' in line:
            return p, cmd
    p.kill()
    raise RuntimeError('dpdk-rps did not start: %s\n%s' % (' '.join(cmd), out[-2000:]))


def stop(p):
    p.send_signal(signal.SIGINT)
    try:
        p.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()


def idle_cpu(binary, vdev, sleep_us, seconds):
    p, cmd = start(binary, 'rpsidle_cpu', vdev, ['--map', '0x1e', '--rx-queues', '1',
                                                  '--idle-sleep', str(sleep_us)])
    try:
        if vdev.startswith('net_tap'):
            # the kernel's own IPv6 frames on a new interface would keep the port busy
            sh('sysctl', '-q', '-w', 'net.ipv6.conf.riitap0.disable_ipv6=1', check=False)
        time.sleep(1.5)     # past the first second of idle (rps_idle.h's deeper sleeps)
        c0, t0 = cpu_s(p.pid), time.monotonic()
        time.sleep(seconds)
        return (cpu_s(p.pid) - c0) / (time.monotonic() - t0), cmd
    finally:
        stop(p)


def pings(addr, count):
    r = sh('ip', 'netns', 'exec', NS, 'ping', '-n', '-c', str(count),
           '-i', '0.01', '-W', '1', addr, check=False)
    t = sorted(float(m) for m in re.findall(r'time=([0-9.]+) ms', r.stdout))
    if not t:
        return None
    return t[len(t) // 2] * 1000, t[min(len(t) - 1, (len(t) * 99) // 100)] * 1000, len(t)


def tap_into_ns():
    """net_tap: its interface moved into the namespace once dpdk-rps runs (the PMD keeps its
    queue fds); the RX lcore sleeps on the tap's RX interrupts."""
    sh('ip', 'link', 'set', TAP, 'netns', NS)
    sh('ip', 'netns', 'exec', NS, 'ip', 'addr', 'add', '198.18.72.2/24', 'dev', TAP)
    sh('ip', 'netns', 'exec', NS, 'ip', 'link', 'set', TAP, 'up')


def ping_row(a, name, vdev, extra, sleep_us, addr, prepare):
    """One row of the ping table: dpdk-rps's respond stage on vdev, pinged at addr."""
    p, _ = start(a.binary, 'rpsidle_ping', vdev,
                 ['--map', '0x1e'] + extra + ['--idle-sleep', str(sleep_us), '--stages',
                                              'parse,validate,flow,respond,output',
                                              '--respond-ip', addr, '--respond-rate', '0'])
    try:
        if prepare is not None:
            prepare()
        time.sleep(0.5)
        r = pings(addr, a.count)
    finally:
        stop(p)
    print('| dpdk-rps respond, %s, --idle-sleep %d | %s |' % (
        name, sleep_us, '%.0f | %.0f | %d/%d' % (r[0], r[1], r[2], a.count) if r else
        '- | - | 0'), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--seconds', type=float, default=5.0)
    ap.add_argument('--count', type=int, default=500)
    ap.add_argument('--sleeps', default='50,0')
    ap.add_argument('binary')
    a = ap.parse_args()
    sleeps = [int(x) for x in a.sleeps.split(',')]
    print('$ %s' % ' '.join(sys.argv))
    setup()
    try:
        print('\n| port | --idle-sleep | CPU (of one) |\n|---|---|---|')
        for name, vdev in (('net_ring', 'net_ring0'),
                           ('net_af_packet', 'net_af_packet0,iface=%s,qpairs=4' % IDLE_IF[0]),
                           ('net_tap', 'net_tap0,iface=riitap0')):
            for s in sleeps:
                share, _ = idle_cpu(a.binary, vdev, s, a.seconds)
                print('| %s | %d | %.1f%% |' % (name, s, 100 * share), flush=True)
        print('\n| path | p50 (us) | p99 (us) | answered |\n|---|---|---|---|')
        k = pings('198.18.71.1', a.count)
        print('| kernel, veth | %.0f | %.0f | %d/%d |' % (k[0], k[1], k[2], a.count)
              if k else '| kernel, veth | - | - | 0 |', flush=True)
        for s in sleeps:
            ping_row(a, 'net_tap', 'net_tap0,iface=%s' % TAP, ['--rx-queues', '4'], s,
                     '198.18.72.1', tap_into_ns)
        for s in sleeps:
            ping_row(a, 'net_af_packet', 'net_af_packet0,iface=%s,qpairs=4' % VA, [], s,
                     '198.18.70.1', None)
    finally:
        teardown()
    return 0


if __name__ == '__main__':
    sys.exit(main())
