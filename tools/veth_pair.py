# SPDX-License-Identifier: BSD-3-Clause
"""veth_pair.py: two network namespaces, each behind a veth pair whose root-namespace end a
DPDK program holds as a net_af_packet port, and Linux TCP (iperf3) between them.

Shared by tests/integration/test_forward_tcp.py and tools/forward_bench.py. Needs root, `ip`,
`ethtool` and iperf3. The kernel's side is set up so that it does not reorder by itself:

* the veths' checksum and segmentation offloads off (AF_PACKET must hand over whole, summed
  frames);
* every veth end's receive work on one CPU (the kernel's RPS, rps_cpus): a veth hands a frame
  to the backlog of the CPU its sender runs on, so a sender that moves between CPUs has two
  softirqs deliver one flow in parallel, out of order, into AF_PACKET's ring or the
  namespace's socket;
* net.core.wmem_default large enough for net_af_packet's TX ring (512 frames of 2 KiB), put
  back by teardown(): with the default 208 KiB the kernel takes about 90 frames and leaves the
  rest in the ring (sendto: ENOBUFS) until that socket's next send, while the PMD has reported
  them sent; a worker's frames could then leave after a newer packet of their flow sent by
  the worker its bucket moved to (a remap).
"""
import json
import os
import subprocess
import time

WMEM = '/proc/sys/net/core/wmem_default'
WMEM_RING = 2 * 1024 * 1024


def sh(*cmd, check=True):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    if check and r.returncode != 0:
        raise RuntimeError('%s: %s' % (' '.join(cmd), r.stderr.strip()))
    return r


class VethPair:
    """Namespaces ns[i] with address addr[i]/24 on peer[i]; host[i] stays in the root
    namespace (net_af_packet port i)."""

    def __init__(self, ns, host, peer, addr, kernel_cpus='1'):
        self.ns, self.host, self.peer, self.addr = ns, host, peer, addr
        self.kernel_cpus = kernel_cpus      # rps_cpus mask of every veth end
        self.saved_wmem = []

    def in_ns(self, i, *cmd, check=True):
        return sh('ip', 'netns', 'exec', self.ns[i], *cmd, check=check)

    def setup(self):
        with open(WMEM) as f:
            self.saved_wmem.append(f.read().strip())
        if int(self.saved_wmem[0]) < WMEM_RING:
            with open(WMEM, 'w') as f:
                f.write(str(WMEM_RING))
        for i in range(2):
            sh('ip', 'netns', 'add', self.ns[i])
            sh('ip', 'link', 'add', self.host[i], 'type', 'veth', 'peer', 'name', self.peer[i])
            sh('ip', 'link', 'set', self.peer[i], 'netns', self.ns[i])
            sh('sysctl', '-q', '-w', 'net.ipv6.conf.%s.disable_ipv6=1' % self.host[i])
            sh('ethtool', '-K', self.host[i], 'tx', 'off', 'tso', 'off', 'gso', 'off', 'gro',
               'off', check=False)
            sh('ip', 'link', 'set', self.host[i], 'up')
            self.in_ns(i, 'sysctl', '-q', '-w', 'net.ipv6.conf.all.disable_ipv6=1')
            self.in_ns(i, 'ethtool', '-K', self.peer[i], 'tx', 'off', 'tso', 'off', 'gso',
                       'off', 'gro', 'off', check=False)
            self.in_ns(i, 'ip', 'addr', 'add', self.addr[i] + '/24', 'dev', self.peer[i])
            self.in_ns(i, 'ip', 'link', 'set', self.peer[i], 'up')
            self.in_ns(i, 'ip', 'link', 'set', 'lo', 'up')
            for q in os.listdir('/sys/class/net/%s/queues' % self.host[i]):
                if q.startswith('rx-'):
                    sh('sh', '-c', 'echo %s > /sys/class/net/%s/queues/%s/rps_cpus' % (
                        self.kernel_cpus, self.host[i], q))
                    self.in_ns(i, 'sh', '-c', 'echo %s > /sys/class/net/%s/queues/%s/rps_cpus'
                               % (self.kernel_cpus, self.peer[i], q))

    def teardown(self):
        if self.saved_wmem:
            with open(WMEM, 'w') as f:
                f.write(self.saved_wmem.pop())
        for i in range(2):
            sh('ip', 'netns', 'del', self.ns[i], check=False)
            sh('ip', 'link', 'del', self.host[i], check=False)

    def vdevs(self, qpairs):
        return ['net_af_packet%d,iface=%s,qpairs=%d' % (i, self.host[i], qpairs)
                for i in range(2)]

    def iperf(self, seconds, port, rate=None, streams=4):
        """iperf3 --bidir from ns[0] to ns[1]: (a->b Mbit/s, b->a Mbit/s as received, error
        or None)."""
        srv = subprocess.Popen(['ip', 'netns', 'exec', self.ns[1], 'iperf3', '-s', '-1', '-p',
                                str(port)], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
        time.sleep(0.3)
        cmd = ['ip', 'netns', 'exec', self.ns[0], 'iperf3', '-c', self.addr[1], '-p',
               str(port), '-t', str(seconds), '--bidir', '-P', str(streams), '-J']
        if rate:
            cmd += ['-b', rate]
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds + 30)
        except subprocess.TimeoutExpired:
            srv.kill()
            srv.wait()
            return 0.0, 0.0, 'iperf3 did not finish within %d s' % (seconds + 30)
        try:
            srv.wait(timeout=10)
        except subprocess.TimeoutExpired:
            srv.kill()
            srv.wait()
        try:
            j = json.loads(r.stdout)
        except ValueError:
            return 0.0, 0.0, 'no JSON from iperf3: %s' % r.stderr.strip()[-300:]
        e = j.get('end', {})
        return (e.get('sum_received', {}).get('bits_per_second', 0) / 1e6,
                e.get('sum_received_bidir_reverse', {}).get('bits_per_second', 0) / 1e6,
                j.get('error'))
