#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_cli.py: bad command lines are refused with exit code 2 and a message naming the
argument; --help exits 0 and lists every option; a bad EAL argument fails non-zero.

Every bad command line is otherwise valid (EAL with four lcores and a net_pcap port), so
the one wrong argument is what the program must complain about.

usage: test_cli.py PATH/TO/dpdk-rps
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rpstest  # noqa: E402

OPTIONS = ['--rx-port', '--tx-port', '--map', '--hash', '--hash-seed', '--backlog', '--burst',
           '--stats-interval', '--duration', '--exit-when-idle', '--summary-json',
           '--rx-queues', '--mbufs', '--help']

# (app arguments, what stderr must mention, why[, TX files of the port: default 3])
USAGE_ERRORS = [
    (['--bogus-option'], ['--bogus-option'], 'unknown option'),
    (['--map', '0x20'], ['--map', 'lcore 5'], 'lcore 5 not enabled in EAL'),
    (['--map', '10-12'], ['--map'], 'lcores 10-12 not enabled in EAL'),
    (['--map', '0x3'], ['--map', 'lcore 0'], 'map includes the RX (main) lcore 0'),
    (['--map', '0-2'], ['--map', 'lcore 0'], 'list map includes the RX lcore 0'),
    (['--map', 'xyz'], ['--map'], 'junk map'),
    (['--map', ''], ['--map'], 'empty map'),
    (['--map', '1-'], ['--map'], 'open range'),
    (['--map', '3-1'], ['--map'], 'reversed range'),
    (['--map', '0x1g'], ['--map'], 'bad hex digit'),
    (['--burst', '0'], ['--burst'], 'burst 0'),
    (['--burst', '513'], ['--burst'], 'burst above 512'),
    (['--burst', 'abc'], ['--burst'], 'burst not a number'),
    (['--burst', '-1'], ['--burst'], 'negative burst'),
    (['--backlog', '0'], ['--backlog'], 'backlog 0'),
    (['--backlog', 'abc'], ['--backlog'], 'backlog not a number'),
    (['--hash', 'foo'], ['--hash'], 'unknown hash mode'),
    (['--stages', 'output,parse'], ['--stages', 'parse'], 'stages out of order'),
    (['--stages', 'parse,bogus'], ['--stages', 'bogus'], 'unknown stage'),
    (['--stages', 'parse,parse'], ['--stages'], 'repeated stage'),
    (['--stages', 'flow,output'], ['--stages', 'flow'], 'stage without parse'),
    (['--stages', 'parse,respond,output'], ['--stages', 'respond-ip'], 'respond without an address'),
    (['--respond-ip', '300.1.2.3'], ['--respond-ip'], 'bad IPv4 address'),
    (['--respond-ip6', 'zz::1'], ['--respond-ip6'], 'bad IPv6 address'),
    (['--respond-ip', '198.18.0.1/33'], ['--respond-ip'], 'prefix length above 32'),
    (['--respond-ip', '198.18.0.1/'], ['--respond-ip'], 'empty prefix length'),
    (['--respond-rate', '100000001'], ['--respond-rate'], 'respond rate too high'),
    (['--respond-burst', '0'], ['--respond-burst'], 'respond burst 0'),
    (['--flow-table-size', '10'], ['--flow-table-size'], 'flow table too small'),
    (['--frag-timeout', '0'], ['--frag-timeout'], 'frag timeout 0'),
    (['--frag-mbufs', '15'], ['--frag-mbufs', '16..'], 'frag budget below two datagrams'),
    (['--mtu', '67'], ['--mtu'], 'MTU below the IPv4 minimum'),
    (['--mtu', '20000'], ['--mtu'], 'MTU too large'),
    (['--reorder-safe', 'maybe'], ['--reorder-safe'], 'bad reorder-safe'),
    (['--config', '/nonexistent/rps.conf'], ['/nonexistent/rps.conf'], 'missing config file'),
    (['--hash-seed', 'abc'], ['--hash-seed'], 'seed not a number'),
    (['--rx-port', '9'], ['--rx-port', '9'], 'no such RX port'),
    (['--rx-port', 'abc'], ['--rx-port'], 'RX port not a number'),
    (['--tx-port', '9'], ['--tx-port', '9'], 'no such TX port'),
    (['--stats-interval', '-1'], ['--stats-interval'], 'negative stats interval'),
    (['--stats-interval', 'abc'], ['--stats-interval'], 'stats interval not a number'),
    (['--duration', 'abc'], ['--duration'], 'duration not a number'),
    (['--duration', '-1'], ['--duration'], 'negative duration'),
    (['--exit-when-idle', 'abc'], ['--exit-when-idle'], 'idle time not a number'),
    (['--mbufs', 'abc'], ['--mbufs'], 'mbufs not a number'),
    (['--rx-queues', 'abc'], ['--rx-queues'], 'rx queues not a number'),
    (['--map', '1000-1001'], ['--map', '1000'], 'lcore above RTE_MAX_LCORE'),
    (['--rx-queues', '2'], ['--rx-queues'], 'more RX queues than the port has'),
    (['--tx-port', '0', '--map', '1-3'], ['--tx-port'], 'one TX queue, three workers', 1),
    (['--burst'], ['--burst'], 'missing argument'),
    (['--tx-port', '0', 'stray'], ['stray'], 'stray positional argument'),
]


def main():
    binary = rpstest.binary_from_argv()
    F = rpstest.Failures('test_cli')
    with rpstest.TempDir('cli') as tmp:
        inp, _ = rpstest.write_input(tmp, flows=8, packets_per_flow=2, frag_datagrams=0, non_ip=1)

        def run(app, ntx=3, timeout=30):
            prefix = rpstest.unique_prefix()
            vdevs = [rpstest.pcap_vdev(rx=inp, tx=[os.path.join(tmp, 'o%d.pcap' % i)
                                                   for i in range(ntx)])]
            eal = rpstest.eal_args(prefix, lcores='0@0,(1-3)@1', vdevs=vdevs)
            return rpstest.run_rps(binary, eal, ['--exit-when-idle', '200'] + app,
                                   timeout=timeout, prefix=prefix)

        for app, words, why, *ntx in USAGE_ERRORS:
            r = run(app, ntx=ntx[0] if ntx else 3)
            ok = F.check(r.rc == 2, '%s: %s: exit code %s, expected 2' % (
                why, ' '.join(app), r.rc), r)
            missing = [w for w in words if w not in r.stderr]
            ok &= F.check(not missing, '%s: %s: stderr does not mention %s' % (
                why, ' '.join(app), missing), r)
            print('%-36s %-28s exit %s %s' % (why, ' '.join(repr(a) if a == '' else a
                                                          for a in app), r.rc,
                                               'ok' if ok else 'FAIL'), flush=True)

        # --help: alone, after EAL arguments, and after a bare "--".
        prefix = rpstest.unique_prefix()
        for cmd, label in (([binary, '--help'], 'dpdk-rps --help'),
                           ([binary] + rpstest.eal_args(prefix) + ['--', '--help'],
                            'dpdk-rps EAL -- --help'),
                           ([binary, '--', '--help'], 'dpdk-rps -- --help')):
            r = _run_plain(cmd, timeout=30)
            F.check(r.rc == 0, '%s: exit code %s, expected 0' % (label, r.rc), r)
            missing = [o for o in OPTIONS if o not in r.stdout]
            F.check(not missing, '%s: help text does not mention %s' % (label, missing), r)
            print('%-36s exit %s, %d/%d options listed' % (
                label, r.rc, len(OPTIONS) - len(missing), len(OPTIONS)), flush=True)
        rpstest.remove_runtime_dir(prefix)

        # bad EAL arguments: non-zero, not a crash, no hang
        for eal_extra, why in ((['--bogus-eal-flag'], 'unknown EAL option'),
                               (['--lcores', 'garbage'], 'bad --lcores')):
            prefix = rpstest.unique_prefix()
            eal = rpstest.eal_args(prefix, lcores='0@0,(1-3)@1',
                                   vdevs=[rpstest.pcap_vdev(rx=inp)])
            if eal_extra[0] == '--lcores':
                i = eal.index('--lcores')
                eal[i + 1] = eal_extra[1]
            else:
                eal += eal_extra
            r = rpstest.run_rps(binary, eal, ['--exit-when-idle', '200'], timeout=30,
                                prefix=prefix)
            F.check(r.rc is not None and r.rc > 0, '%s: exit code %s, expected a non-zero '
                    'exit (not a signal)' % (why, r.rc), r)
            print('%-36s exit %s' % (why, r.rc), flush=True)
        prefix = rpstest.unique_prefix()
        r = rpstest.run_rps(binary, rpstest.eal_args(prefix, vdevs=[rpstest.pcap_vdev(
            rx=os.path.join(tmp, 'does-not-exist.pcap'))]), ['--exit-when-idle', '200'],
            timeout=30, prefix=prefix)
        F.check(r.rc is not None and r.rc > 0, 'missing rx_pcap file: exit code %s, '
                'expected non-zero' % r.rc, r)
        print('%-36s exit %s' % ('missing rx_pcap file', r.rc), flush=True)
    return F.report()


def _run_plain(cmd, timeout):
    """Run a command line as is (no EAL arguments, no "--")."""
    import subprocess
    import time
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=timeout,
                           stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as e:
        return rpstest.RunResult(cmd=cmd, rc=None, stdout=(e.stdout or b'').decode(
            errors='replace'), stderr=(e.stderr or b'').decode(errors='replace'),
            elapsed=time.monotonic() - t0, summary=None, timed_out=True)
    return rpstest.RunResult(cmd=cmd, rc=p.returncode,
                             stdout=p.stdout.decode(errors='replace'),
                             stderr=p.stderr.decode(errors='replace'),
                             elapsed=time.monotonic() - t0, summary=None)


if __name__ == '__main__':
    sys.exit(main())
