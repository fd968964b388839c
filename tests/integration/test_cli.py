#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_cli.py: bad command lines are refused with exit code 2 and a message naming the
argument; --help exits 0 and lists every option; a bad EAL argument fails non-zero.

Two EAL failures a newcomer meets first say what to do in one dpdk-rps line:
- -l 0-N on a machine of N CPUs (one lcore more than there are CPUs): exit 2, "-l 0-N: this
  machine has CPUs ...; ... use --lcores '...'" and not EAL's usage; the --lcores it names
  runs (exit 0).
- no hugepage memory (--huge-dir on an empty folder, no --no-huge: EAL says EACCES whatever
  hugepages the machine has): "EAL found no hugepage memory to use (--huge-dir ... is not a
  hugetlbfs mount): run with --no-huge -m 512 ..., or reserve 2 MiB hugepages: echo 512 >
  .../nr_hugepages", exit 1.

Every bad command line is otherwise valid (EAL with four lcores and a net_pcap port), so
the one wrong argument is what the program must complain about.

usage: test_cli.py PATH/TO/dpdk-rps
"""

import os
import re
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
        check_lcores_beyond_cpus(F, binary, inp)
        check_no_hugepages(F, binary, tmp, inp)
        prefix = rpstest.unique_prefix()
        r = rpstest.run_rps(binary, rpstest.eal_args(prefix, vdevs=[rpstest.pcap_vdev(
            rx=os.path.join(tmp, 'does-not-exist.pcap'))]), ['--exit-when-idle', '200'],
            timeout=30, prefix=prefix)
        F.check(r.rc is not None and r.rc > 0, 'missing rx_pcap file: exit code %s, '
                'expected non-zero' % r.rc, r)
        print('%-36s exit %s' % ('missing rx_pcap file', r.rc), flush=True)
    return F.report()


def detected_cpus():
    """The CPUs EAL 22.11 finds (those with a topology in sysfs: eal_cpu_detected())."""
    base = '/sys/devices/system/cpu'
    return sorted(int(d[3:]) for d in os.listdir(base) if re.fullmatch(r'cpu\d+', d) and
                  os.path.exists(os.path.join(base, d, 'topology', 'core_id')))


def check_lcores_beyond_cpus(F, binary, inp):
    """-l 0-N, one lcore on a CPU past the machine's: dpdk-rps's own line, exit 2, not EAL's
    usage; the --lcores it suggests runs."""
    cpus = detected_cpus()
    n = max(cpus) + 1
    if n >= 127:
        print('-l beyond the CPUs: %d CPUs, past RTE_MAX_LCORE: skipped' % n, flush=True)
        return
    lcores = '0-%d' % n
    prefix = rpstest.unique_prefix()
    eal = ['--no-huge', '-m', '512', '--no-pci', '--file-prefix', prefix, '-l', lcores,
           '--vdev', rpstest.pcap_vdev(rx=inp)]
    r = rpstest.run_rps(binary, eal, ['--map', '1-%d' % n, '--exit-when-idle', '200'],
                        timeout=30, prefix=prefix)
    want = 'dpdk-rps: -l %s: this machine has CPUs ' % lcores
    m = re.search(r"use --lcores '([^']+)'", r.stderr)
    ok = F.check(r.rc == 2 and want in r.stderr and m is not None, '-l %s on %d CPUs: exit '
                 '%s, expected 2 with "%s...use --lcores \'...\'"' % (lcores, len(cpus), r.rc,
                                                                  want), r)
    ok &= F.check('Usage:' not in r.stdout + r.stderr and 'EAL common options' not in
                  r.stdout + r.stderr, '-l %s: EAL\'s usage printed' % lcores, r)
    print('%-36s exit %s %s' % ('-l %s on %d CPUs' % (lcores, len(cpus)), r.rc,
                                'ok' if ok else 'FAIL'), flush=True)
    if m is None:
        return
    # what it says to do works: the same lcores, the workers sharing the CPUs
    prefix = rpstest.unique_prefix()
    eal = rpstest.eal_args(prefix, lcores=m.group(1), vdevs=[rpstest.pcap_vdev(rx=inp)])
    r = rpstest.run_rps(binary, eal, ['--map', '1-%d' % n, '--exit-when-idle', '200'],
                        timeout=60, prefix=prefix)
    ok = F.check(r.rc == 0, "--lcores '%s' (the suggestion): exit %s, expected 0" % (
        m.group(1), r.rc), r)
    print("%-36s exit %s %s" % ("--lcores '%s'" % m.group(1), r.rc, 'ok' if ok else 'FAIL'),
          flush=True)


def check_no_hugepages(F, binary, tmp, inp):
    """EAL without --no-huge and with no hugepage memory it can use (--huge-dir on a folder
    that is not a hugetlbfs mount: so whatever the machine has reserved): one dpdk-rps line
    naming --no-huge -m 512 and how to reserve hugepages."""
    empty = os.path.join(tmp, 'not-hugetlbfs')
    os.makedirs(empty, exist_ok=True)
    prefix = rpstest.unique_prefix()
    eal = ['--huge-dir', empty, '--no-pci', '--file-prefix', prefix,
           '--lcores', '0@0,(1-3)@1', '--vdev', rpstest.pcap_vdev(rx=inp)]
    r = rpstest.run_rps(binary, eal, ['--map', '1-3', '--exit-when-idle', '200'], timeout=30,
                        prefix=prefix)
    ours = [ln for ln in r.stderr.splitlines() if ln.startswith('dpdk-rps: ')]
    want = ['EAL found no hugepage memory to use', '--huge-dir %s is not a hugetlbfs mount'
            % empty, '--no-huge -m 512',
            'echo 512 > /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages']
    missing = [w for w in want if not ours or w not in ours[-1]]
    ok = F.check(r.rc == 1 and len(ours) == 1 and not missing, 'no hugepages: exit %s, '
                 'expected 1 with one dpdk-rps line saying %s; its lines: %s' % (
                     r.rc, missing, ours), r)
    print('%-36s exit %s %s' % ('no hugepages (--huge-dir empty)', r.rc,
                                'ok' if ok else 'FAIL'), flush=True)


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
