#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_shutdown.py: a process that monitoring agents poll stops cleanly.

DPDK 22.11 cannot unregister telemetry commands and its telemetry threads outlive
rte_eal_cleanup(), so a /rps/ query that arrives while dpdk-rps stops used to read what
teardown had freed (SIGSEGV in most runs with three pollers). Now the commands refuse once
shutdown begins and teardown waits for those in flight (app/observability/telemetry.c).

RUNS times: dpdk-rps replays a capture forever through a worker; once ready, three
clients poll /rps/stats, /rps/map, /rps/workers, /rps/buckets,0 and /rps/flows,5 as fast as
they can over DPDK's telemetry socket; SIGINT lands mid-poll, 0.1 s to 0.29 s after ready (a
different moment each run: the clients answer hundreds of queries a second, so each stop
meets them mid-poll). Each run must exit 0 within STOP_MAX_S with the summary, accounting
exact and no mbuf left. Readiness is asked on the telemetry socket itself every 10 ms
(rpstest.wait_ready_socket(), not a dpdk-telemetry.py started each time): the run starts
polling as soon as it may.

The worker has CPU 1 to itself (the RX lcore has CPU 0). Every SHARED_EVERY-th run is the
deliberate hard case: two workers pinned on CPU 1, each descheduled while the other runs
(mid-snapshot, mid-burst), which must still stop within the same bound. (Every run used to
pin two workers on one CPU, and one in some hundreds hung at exit: a telemetry read spun on
a descheduled worker's snapshot and the stop waited for it without a deadline.)

usage: test_shutdown.py PATH/TO/dpdk-rps [RUNS]
"""

import json
import os
import socket
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rpstest  # noqa: E402

RUNS = 20
POLLERS = 3
STOP_MAX_S = 10      # from SIGINT to exit
SHARED_EVERY = 5     # runs with two workers on one CPU: 4, 9, 14, 19
CMDS = ('/rps/stats', '/rps/map', '/rps/workers', '/rps/buckets,0', '/rps/flows,5',
        '/rps/info', '/rps/config')


def runtime_dir(prefix):
    base = os.environ.get('XDG_RUNTIME_DIR') if os.getuid() != 0 else None
    return os.path.join(base, 'dpdk', prefix) if base else '/var/run/dpdk/%s' % prefix


def poller(path, stop, counts, bad, k):
    """Poll until stop is set or the process goes away; count replies and refusals. A reply
    that is not one JSON object {command: value} goes to bad: a socket that closes as the
    process exits ends the poll, a malformed reply is a failure."""
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        s.settimeout(5)
        s.connect(path)
        s.recv(16384)                      # the greeting
        i = k
        while not stop.is_set():
            cmd = CMDS[i % len(CMDS)]
            s.send(cmd.encode())
            i += 1
            r = s.recv(1 << 17)
            if not r:
                break
            try:
                v = json.loads(r.decode())
            except ValueError as e:
                bad.append('%s: %s: %r' % (cmd, e, r[:200]))
                continue
            if not isinstance(v, dict) or list(v) != [cmd.split(',')[0]]:
                bad.append('%s: %r' % (cmd, r[:200]))
                continue
            counts[k][0 if v[cmd.split(',')[0]] is not None else 1] += 1
    except OSError:
        pass


def one_run(F, binary, tmp, inp, n):
    ctx = 'run %d' % n
    prefix = rpstest.unique_prefix()
    summary = os.path.join(tmp, 'shutdown.json')
    if os.path.exists(summary):
        os.unlink(summary)
    shared = n % SHARED_EVERY == SHARED_EVERY - 1
    ctx += ' (two workers on CPU 1)' if shared else ''
    eal = rpstest.eal_args(prefix, lcores='0@0,(1-2)@1' if shared else '0@0,1@1',
                           vdevs=[rpstest.pcap_vdev(rx=inp, infinite_rx=True)])
    proc = subprocess.Popen([binary] + eal + ['--', '--map', '0x6' if shared else '0x2',
                                              '--summary-json', summary],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    stop = threading.Event()
    counts = [[0, 0] for _ in range(POLLERS)]
    bad = []
    threads = []
    try:
        if not F.check(rpstest.wait_ready_socket(prefix) is not None, '%s: never ready' % ctx):
            return
        path = os.path.join(runtime_dir(prefix), 'dpdk_telemetry.v2')
        threads = [threading.Thread(target=poller, args=(path, stop, counts, bad, k), daemon=True)
                   for k in range(POLLERS)]
        for t in threads:
            t.start()
        time.sleep(0.1 + 0.01 * n)      # mid-poll, a different moment each run
    finally:
        t_stop = time.monotonic()
        out, err = rpstest.stop(proc, prefix, timeout=20)
        took = time.monotonic() - t_stop
        stop.set()
        for t in threads:
            t.join(5)
    out, err = out.decode(errors='replace'), err.decode(errors='replace')
    answered = sum(c[0] for c in counts)
    print('%s: exit %s %.2f s after SIGINT, %d replies, %d refused' % (
        ctx, proc.returncode, took, answered, sum(c[1] for c in counts)), flush=True)
    F.check(not bad, '%s: %d malformed telemetry replies, e.g. %s' % (ctx, len(bad), bad[:2]))
    F.check(took < STOP_MAX_S, '%s: stopped %.1f s after SIGINT (at most %d s)' % (
        ctx, took, STOP_MAX_S))
    if rpstest.check_stopped(F, proc, err, summary, ctx) is not None:
        F.check(answered > 0, '%s: no poller got a reply: the test polled nothing' % ctx)
        F.check('dpdk-rps summary' in out, '%s: no summary on stdout' % ctx)


def main():
    binary = rpstest.binary_from_argv()
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else RUNS
    F = rpstest.Failures('test_shutdown')
    with rpstest.TempDir('shutdown') as tmp:
        inp, _ = rpstest.write_input(tmp, flows=64, packets_per_flow=4, seed=9, non_ip=4)
        for n in range(runs):
            one_run(F, binary, tmp, inp, n)
    return F.report()


if __name__ == '__main__':
    sys.exit(main())
