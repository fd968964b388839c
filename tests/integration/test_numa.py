#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_numa.py: NUMA placement as the real binary reports it, against this machine's sysfs.

dpdk-rps starts (--log-level rps:debug) with three workers and a config file that gives RX
queue 0 a map of its own; the file is then changed (seen by inotify, and by a SIGHUP).
Checked against /sys/devices/system/node (the kernel's own CPU-to-node table), not against
dpdk-rps itself:
- every processing lcore has its line: its CPUs, EAL's socket and libnuma's node, both the
  node sysfs gives those CPUs, its state asked on that socket; on one node, the kernel puts
  that state on node 0;
- the start summary lists the workers by the sockets sysfs says they are on;
- each distinct queue map is checked at start and again at the accepted reload: on the RX
  port's socket (or an unknown one) a debug line, off it a warning naming how many workers;
- the RX lcore gets a warning exactly when it is on another socket than the port;
- on a machine of one node, no NUMA warning at all.

usage: test_numa.py PATH/TO/dpdk-rps
"""
import glob
import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rpstest  # noqa: E402

LCORES = '0@0,(1-3)@1'        # lcore -> CPU
CPU = {0: 0, 1: 1, 2: 1, 3: 1}
WARNINGS = ('cross the interconnect', 'crosses the interconnect', 'more than one node',
            'but libnuma', 'where EAL has no memory', 'but its state is on node')


def cpu_nodes():
    """{cpu: node} from sysfs; {} when the kernel shows no nodes."""
    nodes = {}
    for d in glob.glob('/sys/devices/system/node/node[0-9]*'):
        node = int(d.rsplit('node', 1)[1])
        with open(os.path.join(d, 'cpulist')) as f:
            text = f.read().strip()
        for part in filter(None, text.split(',')):
            lo, _, hi = part.partition('-')
            for c in range(int(lo), int(hi or lo) + 1):
                nodes[c] = node
    return nodes


def run(binary, tmp):
    """Start, change queue 0's map from 1-2 to 3, SIGHUP, stop. Returns (rc, output)."""
    cfg = os.path.join(tmp, 'rps.conf')
    with open(cfg, 'w') as f:
        f.write('[map]\ndefault = 1-3\nqueue0 = 1-2\n')
    prefix = rpstest.unique_prefix()
    eal = rpstest.eal_args(prefix, lcores=LCORES, vdevs=['net_null0'],
                           extra=['--log-level', 'rps:debug'])
    cmd = [binary] + eal + ['--', '--config', cfg, '--rx-queues', '4']
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    head = b''
    try:
        # "RX lcore(s) 0, 3 worker(s), ..." comes once the signal handlers are installed
        for line in iter(proc.stderr.readline, b''):
            head += line
            if b'RPS: RX lcore(s) ' in line:
                break
        time.sleep(0.5)      # the control thread sets up its file watch
        with open(cfg, 'w') as f:
            f.write('[map]\ndefault = 1-3\nqueue0 = 3-3\n')
        os.kill(proc.pid, signal.SIGHUP)
        time.sleep(1.5)      # the control thread polls every 100 ms
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    except (subprocess.TimeoutExpired, ProcessLookupError):
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, err = proc.communicate()
    finally:
        rpstest.remove_runtime_dir(prefix)
    return proc.returncode, (head + err + out).decode(errors='replace')


def main():
    binary = rpstest.binary_from_argv()
    F = rpstest.Failures('test_numa')
    nodes = cpu_nodes()
    with rpstest.TempDir('numa') as tmp:
        rc, log = run(binary, tmp)
    F.check(rc == 0, 'exit code %s\n%s' % (rc, log[-3000:]))
    F.check('generation 2 applied' in log and 'refused' not in log,
            'the reload was not applied:\n%s' % log[-3000:])

    lines = re.findall(r'NUMA: (RX|worker) lcore (\d+): cpus ([\d,-]+), EAL socket (-?\d+), '
                       r'libnuma node (-?\d+); state asked on socket (-?\d+), is on node '
                       r'(-?\d+)', log)
    seen = {int(l[1]): l for l in lines}
    F.check(sorted(seen) == [0, 1, 2, 3], 'lcore lines for %s, not 0-3:\n%s' % (
        sorted(seen), log[-3000:]))
    for lcore, (role, _, cpus, eal, node, asked, mem) in seen.items():
        F.check(role == ('RX' if lcore == 0 else 'worker'), 'lcore %d is "%s"' % (lcore, role))
        F.check(cpus == str(CPU[lcore]), 'lcore %d: cpus %s, --lcores says %d' % (
            lcore, cpus, CPU[lcore]))
        if nodes:
            want = nodes[CPU[lcore]]
            F.check(int(eal) == want and int(node) == want and int(asked) == want,
                    'lcore %d on CPU %d: EAL socket %s, libnuma node %s, asked %s; sysfs '
                    'says node %d' % (lcore, CPU[lcore], eal, node, asked, want))
            if len(set(nodes.values())) == 1:
                F.check(int(mem) in (want, -1, -38),    # -EPERM, -ENOSYS: kernel won't say
                        'lcore %d: state on node %s, the only node is %d' % (lcore, mem, want))

    m = re.search(r'NUMA: (\d+) node\(s\); RX lcore 0 on socket (-?\d+), port 0 on '
                  r'(socket (\d+)|an unknown socket); workers: (.*)', log)
    if not F.check(m is not None, 'no NUMA summary line:\n%s' % log[-3000:]) or not nodes:
        return F.report()
    n0, n1 = nodes[0], nodes[1]
    port = int(m.group(4)) if m.group(4) is not None else -1
    F.check(m.group(5) == 'lcores 1-3 on socket %d' % n1, 'workers: %s, sysfs puts CPU 1 '
            'on node %d' % (m.group(5), n1))

    # Each distinct map once per occasion: queue 0's own, then queues 1-3 sharing the default.
    off = port >= 0 and port != n1
    # The new file is seen twice (inotify, then SIGHUP): two generations, the same maps.
    reloads = re.findall(r'NUMA \((generation \d+, [a-zA-Z ]+)\): the map of RX queue 0', log)
    F.check(reloads, 'no NUMA check at the reload:\n%s' % log[-3000:])
    for when, q0, n in [('start', '1-2', 2)] + [(w, '3', 1) for w in reloads]:
        for q, lcores, count, also in ((0, q0, n, ''),
                                       (1, '1-3', 3, ' (and 2 more with the same map)')):
            head = 'NUMA (%s): the map of RX queue %d%s' % (when, q, also)
            if off:
                want = "%s has %d worker(s) off the RX port's socket (lcores %s on socket %d" % (
                    head, count, lcores, n1)
            else:
                want = '%s: lcores %s on socket %d' % (head, lcores, n1)
            F.check(want in log, 'missing "%s":\n%s' % (want, log[-3000:]))
    rx_warn = 'NUMA: RX lcore 0 is on socket'
    F.check((rx_warn in log) == (port >= 0 and port != n0),
            'RX lcore on node %d, port on %d: warning %s' % (n0, port, rx_warn in log))
    if len(set(nodes.values())) == 1:
        bad = [l for l in log.splitlines() if any(w in l for w in WARNINGS)]
        F.check(not bad, 'NUMA warnings on a machine of one node: %s' % bad)
    return F.report()


if __name__ == '__main__':
    sys.exit(main())
