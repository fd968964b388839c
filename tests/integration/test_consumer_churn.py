#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_consumer_churn.py: no consumer can crash or stall dpdk-rps.

A looping capture at full rate, --consumers 2 on 2 workers. Consumer 1 is a steady
dpdk-testpmd memif client (rxonly) for the whole run. At consumer 0's socket, for
RPS_CHURN_SECONDS (12 by default; scripts/soak.sh runs it for minutes), one round after
another takes each of these once (FIRST), then picks among them at random:
  - dpdk-testpmd connecting and SIGKILLed at a random moment (0.2-2.5 s in),
  - dpdk-testpmd with its standard input closed (it connects and quits at once),
  - 6 clients at once that connect and close (one gets the slot, the others are refused),
  - a client that sends INIT and then nothing (sent away when its handshake times out),
  - a client that sends garbage after HELLO.
Checked: dpdk-rps runs throughout and exits 0 on SIGINT with rx = processed + dropped;
consumer 1 stays connected (no reconnect) and keeps receiving (its delivered count grows
in every third of the run); the stalled clients are told 'Handshake timed out' within
3 s; consumer 0's clients add up (accepted = refused + aborted + timeouts + rejected +
connects, connects = disconnects) with each kind of end seen.

DPDK 22.11's own memif server died here within seconds (SIGSEGV in a worker inside
librte_net_memif, or a PANIC on EAL's interrupt thread).

usage: test_consumer_churn.py PATH/TO/dpdk-rps
"""
import json
import os
import random
import shutil
import signal
import socket
import struct
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rpstest  # noqa: E402

LCORES = '0@0,(1-2)@1'
SECONDS = float(os.environ.get('RPS_CHURN_SECONDS', '12'))
MSG = 128


def testpmd(sock, stdin_closed=False):
    """A dpdk-testpmd memif client of @p sock in rxonly mode (stdin_closed: it quits as soon
    as it has started)."""
    prefix = rpstest.unique_prefix()
    cmd = ['dpdk-testpmd', '--no-huge', '-m', '256', '--no-pci', '-l', '0,1',
           '--file-prefix', prefix, '--log-level', 'lib.eal:warning',
           '--vdev', 'net_memif0,role=client,id=0,socket=%s,socket-abstract=no' % sock,
           '--', '--forward-mode=rxonly', '--port-topology=loop', '--total-num-mbufs=8192',
           '--disable-link-check', '--no-flush-rx']
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL if stdin_closed else subprocess.PIPE,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True)
    p.prefix = prefix
    return p


def kill(p):
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    p.wait()
    rpstest.remove_runtime_dir(p.prefix)


def raw(sock):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.settimeout(5.0)
    s.connect(sock)
    return s


def disconnect_reason(s, within):
    """The reason of the DISCONNECT that comes within @p within seconds, or None."""
    s.settimeout(within)
    try:
        while True:
            m = s.recv(MSG)
            if len(m) < 2:
                return None
            if struct.unpack_from('<H', m)[0] == 8:
                return m[6:102].split(b'\0')[0].decode(errors='replace')
    except OSError:
        return None


def stalled_client(sock, out):
    """HELLO, INIT, then nothing: the server must send it away when its time is up."""
    t0 = time.monotonic()
    s = raw(sock)
    try:
        s.recv(MSG)  # HELLO (or Already connected, when the slot is taken)
        init = struct.pack('<HHIB24s32s', 3, 0x0200, 0, 0, b'', b'churn-stalled')
        s.send(init.ljust(MSG, b'\0'))
        reason = disconnect_reason(s, 5.0)
        out.append((reason, time.monotonic() - t0))
    except OSError as e:
        out.append(('error %s' % e, time.monotonic() - t0))
    finally:
        s.close()


def garbage_client(sock):
    s = raw(sock)
    try:
        s.recv(MSG)
        s.send(struct.pack('<H', 0x55) + os.urandom(MSG - 2))
        disconnect_reason(s, 2.0)
    except OSError:
        pass
    finally:
        s.close()


# Every kind once first, the quick ones first, so that each kind of end comes within the
# run however slow the machine (under ASan a round of 9 random picks once missed 'many');
# then random picks.
FIRST = ['many', 'garbage', 'stdin', 'kill', 'stalled']
KINDS = ['kill', 'kill', 'stdin', 'many', 'stalled', 'garbage']


def churn(sock, stop, log, stalled):
    rng = random.Random(37)
    rounds = 0
    while not stop.is_set():
        what = FIRST[rounds] if rounds < len(FIRST) else rng.choice(KINDS)
        rounds += 1
        log[what] = log.get(what, 0) + 1
        if what == 'kill':
            p = testpmd(sock)
            time.sleep(rng.uniform(0.2, 2.5))
            kill(p)
        elif what == 'stdin':
            p = testpmd(sock, stdin_closed=True)
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                pass
            kill(p)
        elif what == 'many':
            socks = []
            for _ in range(6):
                try:
                    socks.append(raw(sock))
                except OSError:
                    pass
            time.sleep(0.05)
            for s in socks:
                s.close()
        elif what == 'stalled':
            stalled_client(sock, stalled)
        else:
            garbage_client(sock)
        time.sleep(0.05)


def consumers(prefix):
    r = rpstest.telemetry(prefix, '/rps/consumers')
    try:
        return r[0]['/rps/consumers']['consumers']
    except (IndexError, KeyError, TypeError):
        return None


def main():
    binary = rpstest.binary_from_argv()
    if shutil.which('dpdk-testpmd') is None:
        print('SKIP: dpdk-testpmd not installed')
        return rpstest.SKIP
    F = rpstest.Failures('test_consumer_churn')
    with rpstest.TempDir('rps-churn-') as tmp:
        inp, _ = rpstest.write_input(tmp, flows=64, packets_per_flow=8, seed=5,
                                          frag_datagrams=0, non_ip=0)
        sock = os.path.join(tmp, 'c%u.sock')
        prefix = rpstest.unique_prefix()
        eal = rpstest.eal_args(prefix, lcores=LCORES,
                               vdevs=[rpstest.pcap_vdev(rx=inp, infinite_rx=True)])
        app = ['--consumers', '2', '--consumer-socket', sock]
        summary = os.path.join(tmp, 'summary.json')
        logp = os.path.join(tmp, 'rps.log')
        stop, log, stalled, samples = threading.Event(), {}, [], []
        proc = rpstest.start_logged([str(binary)] + eal + ['--'] + app +
                                    ['--summary-json', summary], logp)
        steady = None
        try:
            rpstest.wait_for(lambda: all(os.path.exists(sock % c) for c in (0, 1)),
                             timeout=30)
            steady = testpmd(sock % 1)
            F.check(rpstest.wait_ready_log(proc, logp, timeout=60, settle=1.0),
                    'dpdk-rps not ready with consumer 1 connected')
            t = threading.Thread(target=churn, args=(sock % 0, stop, log, stalled))
            t.start()
            t0 = time.monotonic()
            while time.monotonic() - t0 < SECONDS and proc.poll() is None:
                time.sleep(SECONDS / 6)
                samples.append(consumers(prefix))
            stop.set()
            t.join()
            alive = proc.poll() is None
            rc, took = rpstest.sigint_wait(proc, 30)
        finally:
            stop.set()
            if steady is not None:
                kill(steady)
            rpstest.end_logged(F, proc, prefix, logp)
        F.check(alive, 'dpdk-rps ended during the churn: exit %s' % proc.returncode)
        F.check(rc == 0, 'exit %s after SIGINT (%.1f s)' % (rc, took))
        try:
            with open(summary) as f:
                s = json.load(f)
        except (OSError, ValueError) as e:
            F.fail('summary: %s' % e)
            return F.report()
        F.extend(rpstest.check_accounting(s), 'churn')
        print('churn: %s' % ', '.join('%s %d' % kv for kv in sorted(log.items())))
        ok = [x for x in samples if x is not None and '1' in x]
        F.check(len(ok) == len(samples) and len(ok) >= 5,
                'telemetry answered %d of %d samples during the churn' % (len(ok),
                                                                            len(samples)))
        d1 = [x['1']['delivered'] for x in ok]
        thirds = [d1[0], d1[len(d1) // 2], d1[-1]] if d1 else []
        F.check(len(thirds) == 3 and thirds[0] < thirds[1] < thirds[2] and
                all(x['1']['connected'] == 1 and x['1']['reconnects'] == 0 for x in ok),
                'consumer 1 (steady) kept receiving and stayed connected: delivered %s' % d1)
        bad = [x for x in stalled if x[0] != 'Handshake timed out' or x[1] > 3.5]
        F.check(stalled and not bad,
                'stalled clients sent away in time: %d, wrong: %s' % (len(stalled), bad[:3]))
        cons = s.get('consumers', [])
        if not F.check(len(cons) == 2, 'summary consumers %r' % cons):
            return F.report()
        c0, c1 = cons[0]['clients'], cons[1]
        ends = c0['refused'] + c0['aborted'] + c0['timeouts'] + c0['rejected'] + c0['connects']
        F.check(c0['accepted'] == ends and c0['connects'] == c0['disconnects'],
                'consumer 0 clients add up: %r' % c0)
        F.check(all(c0[k] > 0 for k in ('refused', 'aborted', 'timeouts', 'rejected',
                                        'connects')),
                'consumer 0: every kind of end seen: %r' % c0)
        F.check(c1['connected'] is True and c1['reconnects'] == 0 and c1['delivered'] > 0,
                'consumer 1 at exit: %r' % c1)
        print('churn: %.0f s, consumer 0: %r; consumer 1 delivered %d, dpdk-rps rx %d' % (
            SECONDS, c0, c1['delivered'], s['rx_packets']))
    return F.report()


if __name__ == '__main__':
    sys.exit(main())
