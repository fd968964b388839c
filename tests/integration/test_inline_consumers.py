#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_inline_consumers.py: --consumer-mode inline, consumers in the path of an inline pair,
with DPDK's own dpdk-testpmd as the consumers (a net_memif client each with two queues,
--port-topology=loop: what it receives on a queue it sends back on the same one).

An inline pair of two net_pcap ports (--forward 0:1): port 0 replays A, port 1 B (A with
every address and port swapped: the other direction), two workers, two consumers (one per
worker, as the mode needs), dpdk-rps starting once both are connected (--consumer-wait):

- pass: both consumers forward everything back (io): A leaves by port 1 and B by port 0,
  byte for byte, every flow of each direction in order (markers); each consumer returned
  what it was delivered; rx = processed, nothing dropped; the summary's and /rps-style JSON
  counts (inline, returned, verdict_dropped 0).
- filter and verdict: --consumer-filter 0=udp with consumer 1 receiving and returning
  nothing (testpmd rxonly): what the filter refuses (TCP, VLAN-tagged UDP: tcpdump's 'udp')
  crosses past both consumers, whole and in order; the UDP flows of consumer 1's worker stop,
  whole (its verdict), consumer 0's cross whole and in order; consumer 1's delivered all
  counted verdict_dropped, consumer 0's returned what crossed; delivered = what tcpdump
  keeps, filtered the rest; nothing dropped by dpdk-rps.
- closed: consumer 1 a client that opens one queue each way, refused (rejected, "Needs as
  many rings each way"): absent; --consumer-fail closed (the default): its worker's packets
  dropped consumer_absent (per consumer and in the totals), the others cross.
- open: consumer 1 never started, --consumer-fail open: every flow crosses whole and in
  order, consumer 1's share counted fail_open consumer_absent and processed; the log says
  which is in force.
- tx port: no pair, RX port 0 and --tx-port 1, consumer 0 opening one queue each way and
  consumer 1 never started, --consumer-fail open: what consumer 0 returns and what fails
  open past consumer 1 leave by port 1, every flow in order.
- Refusals (exit 2 naming the option): inline without --forward or --tx-port; group 0 with fewer
  consumers than workers; --consumer-fail without inline; a bad value.

In a sanitizer build (RPSTEST_SANITIZE set by meson) only the parts whose code paths the
others do not run: pass, live, bypass and open (the send and return paths, the fail-open
hand-over); the refusals, the filter with a verdict and fail closed are counters and set-up.

usage: test_inline_consumers.py PATH/TO/dpdk-rps
"""
import json
import os
import shutil
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rpstest  # noqa: E402
import test_forward  # noqa: E402  (swapped(): a frame's other direction)

LCORES = '0@0,(1-2)@1'    # RX lcore 0, workers 1 and 2: one consumer each
FLOWS, PER_FLOW = 48, 12  # each consumer's share fits its rings (rsize=11) at once


def testpmd(tmp, tag, sock, mode='io', queues=2):
    """A dpdk-testpmd memif client of @p sock: @p mode forwarding, each queue back on itself."""
    prefix = rpstest.unique_prefix()
    cmd = ['dpdk-testpmd', '--no-huge', '-m', '256', '--no-pci', '-l', '0,1',
           '--file-prefix', prefix, '--log-level', 'lib.eal:warning',
           '--vdev', 'net_memif0,role=client,id=0,socket=%s,socket-abstract=no,rsize=11' % sock,
           '--', '--forward-mode=%s' % mode, '--port-topology=loop', '--rxq=%d' % queues,
           '--txq=%d' % queues, '--total-num-mbufs=8192', '--disable-link-check',
           '--no-flush-rx', '--stats-period', '1']
    log = open(os.path.join(tmp, '%s.log' % tag), 'w')
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                         start_new_session=True)
    p.prefix, p.log = prefix, log.name
    return p


def testpmd_stop(p):
    p.send_signal(2)
    try:
        p.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, 9)
        p.wait()
    rpstest.remove_runtime_dir(p.prefix)


class Pair:
    """The capture of each direction, A in by port 0, B in by port 1."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.a = rpstest.gen_traffic.generate_frames(flows=FLOWS, packets_per_flow=PER_FLOW,
                                                     seed=41, frag_datagrams=0, non_ip=0)
        self.b = [test_forward.swapped(f) for f in self.a]
        self.pa, self.pb = os.path.join(tmp, 'a.pcap'), os.path.join(tmp, 'b.pcap')
        rpstest.write_pcap(self.pa, self.a)
        rpstest.write_pcap(self.pb, self.b)

    def run(self, tag, present, extra=(), mode='io', queues=2, wait_ms=20000, live=None,
            env=None):
        """dpdk-rps on the pair with 2 inline consumers and testpmd at those of @p present.
        @p live: a dict: the captures loop, /rps/consumers is read into live['seen'] once
        both consumers returned packets (or after 10 s), then SIGINT.
        @return (RunResult, frames out by port 0, frames out by port 1)."""
        tmp = self.tmp
        sock = os.path.join(tmp, tag + '-c%u.sock')
        txa = [os.path.join(tmp, '%s_txa%d.pcap' % (tag, i)) for i in range(2)]
        txb = [os.path.join(tmp, '%s_txb%d.pcap' % (tag, i)) for i in range(2)]
        prefix = rpstest.unique_prefix()
        eal = rpstest.eal_args(prefix, lcores=LCORES, vdevs=[
            rpstest.pcap_vdev(rx=self.pa, tx=txa, name='net_pcap0',
                              infinite_rx=live is not None),
            rpstest.pcap_vdev(rx=self.pb, tx=txb, name='net_pcap1',
                              infinite_rx=live is not None)])
        app = ['--forward', '0:1', '--consumers', '2', '--consumer-mode', 'inline',
               '--consumer-socket', sock, '--consumer-wait', str(wait_ms)] + \
            (['--exit-when-idle', '600'] if live is None else []) + list(extra)
        clients, done = {}, threading.Event()

        def returned():
            r = rpstest.telemetry(prefix, '/rps/consumers')
            try:
                k = r[0]['/rps/consumers']['consumers']
            except (IndexError, KeyError, TypeError):
                return None
            return k if all(k[c]['returned'] > 0 for c in ('0', '1')) else None

        def start_clients():
            rpstest.wait_for(lambda: all(os.path.exists(sock % c) for c in range(2)),
                             timeout=30)
            for c in present:
                clients[c] = testpmd(tmp, '%s-c%d' % (tag, c), sock % c,
                                     mode[c] if isinstance(mode, dict) else mode,
                                     queues[c] if isinstance(queues, dict) else queues)
            if live is not None:
                live['seen'] = rpstest.wait_for(returned, timeout=10)
                done.set()

        t = threading.Thread(target=start_clients)
        t.start()
        stop = {} if live is None else dict(stop_signal=2, signal_after=30, stop_event=done)
        r = rpstest.run_rps(rpstest.BINARY, eal, app, timeout=90, prefix=prefix, env=env,
                            summary_path=os.path.join(tmp, tag + '_summary.json'), **stop)
        t.join()
        for p in clients.values():
            testpmd_stop(p)
        out0 = [f for p in txa if os.path.exists(p) for f in rpstest.read_pcap(p).frames]
        out1 = [f for p in txb if os.path.exists(p) for f in rpstest.read_pcap(p).frames]
        return r, out0, out1


def flows_of(frames):
    """{flow id: [sequence numbers in the order they come]} of the marked frames."""
    got = {}
    for f in frames:
        m = rpstest.marker(f)
        if m is not None:
            got.setdefault(m[0], []).append(m[1])
    return got


def check_whole_in_order(F, ctx, sent, out, where):
    """Every flow of @p out is one of @p sent's, whole and in order. @return its flows."""
    want = flows_of(sent)
    got = flows_of(out)
    bad = [fl for fl, seqs in got.items() if seqs != want.get(fl)]
    F.check(not bad, '%s: %s: %d flow(s) not whole or not in order, e.g. %s' % (
        ctx, where, len(bad), [(fl, got[fl][:6], len(want.get(fl, []))) for fl in bad[:2]]))
    F.check(sorted(out) == sorted(f for f in sent if rpstest.marker(f) and
                                  rpstest.marker(f)[0] in got),
            '%s: %s: the frames out are not those of their flows byte for byte' % (ctx, where))
    return set(got)


def consumers(s):
    return s.get('consumers', []) if s else []


def part_pass(F, pair):
    ctx = 'pass'
    r, out0, out1 = pair.run('pass', (0, 1))
    s = rpstest.check_exit(F, r, ctx)
    if s is None:
        return
    F.check(sorted(out1) == sorted(pair.a) and sorted(out0) == sorted(pair.b),
            '%s: %d of A out by port 1, %d of B by port 0, not %d each' % (
                ctx, len(out1), len(out0), len(pair.a)))
    check_whole_in_order(F, ctx, pair.a, out1, 'A by port 1')
    check_whole_in_order(F, ctx, pair.b, out0, 'B by port 0')
    k = consumers(s)
    F.check(len(k) == 2 and all(c['inline'] and c['returned'] == c['delivered'] > 0 and
                                c['verdict_dropped'] == 0 for c in k),
            '%s: consumers %s' % (ctx, k))
    F.check(s['rx_packets'] == s['processed'] == 2 * len(pair.a) and
            rpstest.dropped_total(s) == 0 and
            sum(c['delivered'] for c in k) == s['processed'],
            '%s: rx %d processed %d dropped %s' % (ctx, s['rx_packets'], s['processed'],
                                                 s['dropped']))
    F.check('consumer 0 in the path: returned %d, dropped by its verdict 0' % k[0]['returned']
            in r.stdout, '%s: no summary line for consumer 0 in the path' % ctx, r)
    print('%s: %d + %d frames crossed byte for byte and in order through 2 testpmd '
          'consumers in the path (returned %s)' % (ctx, len(out1), len(out0),
                                                    [c['returned'] for c in k]), flush=True)


def part_live(F, pair):
    """On looping captures: both consumers' returns cross while dpdk-rps runs (seen in
    /rps/consumers), not only at exit; SIGINT: exit 0, accounting exact."""
    ctx = 'live'
    live = {}
    r, out0, out1 = pair.run('live', (0, 1), live=live)
    s = rpstest.check_exit(F, r, ctx)
    seen = live.get('seen')
    F.check(seen is not None and all(seen[c]['inline'] == 1 for c in ('0', '1')),
            '%s: /rps/consumers never showed both consumers returning while running: %s' % (
                ctx, seen))
    if s is not None:
        k = consumers(s)
        F.check(len(k) == 2 and all(c['returned'] > 0 for c in k) and
                len(out0) + len(out1) == sum(c['returned'] for c in k),
                '%s: consumers %s, %d frames out' % (ctx, k, len(out0) + len(out1)))
    print('%s: returned while running: %s' % (
        ctx, seen and {c: seen[c]['returned'] for c in seen}), flush=True)


def part_bypass(F, pair):
    """--bypass-after 1K on a paced replay (test hook RPS_TEST_RX_DELAY_NS, 2,500 packets a
    second: a flow's packets spread over the hold): each flow's later packets skip the
    consumers and go straight out; every flow still crosses whole and in order (the switch
    waits for what the consumer holds); delivered + bypassed = processed."""
    ctx = 'bypass'
    if not rpstest.hooks_built(rpstest.BINARY, pair.tmp):
        F.skip(ctx, 'the replay is paced by a test hook (RPS_TEST_RX_DELAY_NS): %s' %
               rpstest.NO_HOOKS)
        return
    r, out0, out1 = pair.run('bypass', (0, 1), extra=['--bypass-after', '1K'],
                             env={'RPS_TEST_RX_DELAY_NS': '400000'})
    s = rpstest.check_exit(F, r, ctx)
    if s is None:
        return
    F.check(sorted(out1) == sorted(pair.a) and sorted(out0) == sorted(pair.b),
            '%s: %d of A out by port 1, %d of B by port 0, not %d each' % (
                ctx, len(out1), len(out0), len(pair.a)))
    check_whole_in_order(F, ctx, pair.a, out1, 'A by port 1')
    check_whole_in_order(F, ctx, pair.b, out0, 'B by port 0')
    k = consumers(s)
    w = s.get('workers', [])
    fb = sum(x.get('flows_bypassed', 0) for x in w)
    by = sum(x.get('bypassed', 0) for x in w)
    delivered = sum(c['delivered'] for c in k)
    F.check(fb > 0 and by > 0 and delivered + by == s['processed'] == s['rx_packets'] and
            all(c['returned'] == c['delivered'] for c in k) and rpstest.dropped_total(s) == 0,
            '%s: flows_bypassed %d, bypassed %d, delivered %d, processed %d, consumers %s' % (
                ctx, fb, by, delivered, s['processed'], k))
    print('%s: %d flows bypassed after 1 KiB: %d packets straight out, %d through the '
          'consumers; every flow whole and in order' % (ctx, fb, by, delivered), flush=True)


def part_filter(F, pair):
    """Group 0's filter 'udp' in the path, consumer 1 returning nothing (rxonly): what the
    filter refuses (TCP, VLAN-tagged UDP, as tcpdump reads 'udp') goes past the consumers
    and crosses whole, in order; the UDP flows of consumer 1's worker stop; delivered is
    what tcpdump keeps, filtered the rest."""
    ctx = 'filter'
    keep = {}
    for name, path in (('a', pair.pa), ('b', pair.pb)):
        out = os.path.join(pair.tmp, 'filter-%s.pcap' % name)
        subprocess.run(['tcpdump', '-r', path, '-w', out, 'udp'], check=True,
                       capture_output=True, timeout=60)
        keep[name] = rpstest.read_pcap(out).frames
    r, out0, out1 = pair.run('filter', (0, 1), mode={0: 'io', 1: 'rxonly'},
                             extra=['--consumer-filter', '0=udp'])
    s = rpstest.check_exit(F, r, ctx)
    if s is None:
        return
    k = consumers(s)
    if not F.check(len(k) == 2, '%s: consumers %s' % (ctx, k)):
        return
    udp = set(keep['a']) | set(keep['b'])
    fa = check_whole_in_order(F, ctx, pair.a, out1, 'A by port 1')
    fb = check_whole_in_order(F, ctx, pair.b, out0, 'B by port 0')
    rest_a = [f for f in pair.a if f not in udp]
    rest_b = [f for f in pair.b if f not in udp]
    F.check(sorted(f for f in out1 if f not in udp) == sorted(rest_a) and
            sorted(f for f in out0 if f not in udp) == sorted(rest_b) and rest_a,
            '%s: of what the filter refuses, %d of %d (A) and %d of %d (B) crossed' % (
                ctx, len([f for f in out1 if f not in udp]), len(rest_a),
                len([f for f in out0 if f not in udp]), len(rest_b)))
    got_udp = [f for f in out0 + out1 if f in udp]
    F.check(fa == fb and 0 < len(got_udp) < len(udp),
            '%s: %d of the %d UDP frames crossed (consumer 1 returns none of its own)' % (
                ctx, len(got_udp), len(udp)))
    c0, c1 = k
    F.check(c0['delivered'] + c1['delivered'] == len(keep['a']) + len(keep['b']) and
            c0['filtered'] + c1['filtered'] == 2 * len(pair.a) - len(udp) and
            c0['returned'] == c0['delivered'] == len(got_udp) and
            c1['verdict_dropped'] == c1['delivered'] > 0 and c0['filter'] == 'udp',
            '%s: consumers %s; tcpdump keeps %d' % (ctx, k, len(udp)))
    F.check(s['processed'] == s['rx_packets'] and rpstest.dropped_total(s) == 0,
            '%s: processed %d of %d, dropped %s' % (ctx, s['processed'], s['rx_packets'],
                                                     s['dropped']))
    print('%s: the %d frames the filter refused crossed past the consumers, whole and in '
          'order; %d of %d UDP frames crossed (consumer 1 returns none)' % (
              ctx, len(rest_a) + len(rest_b), len(got_udp), len(udp)), flush=True)


def part_absent(F, pair, fail):
    """Consumer 1 absent: closed drops its worker's packets, open forwards them. (closed:
    a client that opens one queue each way is there, and refused: it could not return both
    ways; open: none is started.)"""
    ctx = 'fail %s' % fail
    extra = ['--consumer-fail', fail] if fail == 'open' else []
    if fail == 'open':
        r, out0, out1 = pair.run('fail' + fail, (0,), extra=extra, wait_ms=1500)
    else:
        r, out0, out1 = pair.run('fail' + fail, (0, 1), queues={0: 2, 1: 1}, wait_ms=1500)
    s = rpstest.check_exit(F, r, ctx)
    if s is None:
        return
    k = consumers(s)
    if not F.check(len(k) == 2, '%s: consumers %s' % (ctx, k)):
        return
    fa = check_whole_in_order(F, ctx, pair.a, out1, 'A by port 1')
    fb = check_whole_in_order(F, ctx, pair.b, out0, 'B by port 0')
    F.check(fa == fb, '%s: %d flows crossed one way, %d the other' % (ctx, len(fa), len(fb)))
    c0, c1 = k
    want = 'forwarded directly (--consumer-fail open)' if fail == 'open' else \
        'dropped (--consumer-fail closed)'
    F.check('a packet whose consumer is absent or full is ' + want in r.stdout + r.stderr,
            '%s: the log does not say which fail mode is in force' % ctx, r)
    if fail == 'open':
        F.check(len(out1) == len(pair.a) and len(out0) == len(pair.b),
                '%s: %d + %d frames crossed, not all %d' % (ctx, len(out1), len(out0),
                                                            2 * len(pair.a)))
        F.check(c1['fail_open']['consumer_absent'] > 0 and c1['delivered'] == 0 and
                c0['returned'] == c0['delivered'] and
                c0['returned'] + c1['fail_open']['consumer_absent'] == s['processed'] ==
                s['rx_packets'] and rpstest.dropped_total(s) == 0,
                '%s: consumers %s, processed %d, dropped %s' % (ctx, k, s['processed'],
                                                                s['dropped']))
    else:
        F.check(c1['clients']['rejected'] >= 1 and c0['clients']['rejected'] == 0 and
                'Needs as many rings each way as offered' in r.stdout + r.stderr,
                '%s: the one-queue client not refused naming why: clients %s' % (
                    ctx, [c['clients'] for c in k]), r)
        F.check(c1['dropped']['consumer_absent'] > 0 and
                c1['dropped']['consumer_absent'] == s['dropped']['consumer_absent'] ==
                2 * len(pair.a) - c0['delivered'] and c1['fail_open']['consumer_absent'] == 0
                and len(out0) + len(out1) == c0['returned'] == c0['delivered'],
                '%s: consumers %s, out %d, dropped %s' % (ctx, k, len(out0) + len(out1),
                                                          s['dropped']))
    print('%s: consumer 1 absent: %d frames crossed, consumer 1 fail_open %d, dropped %d' % (
        ctx, len(out0) + len(out1), c1['fail_open']['consumer_absent'],
        c1['dropped']['consumer_absent']), flush=True)


def part_tx_port(F, pair):
    """In the path without a pair: RX port 0 replays A, --tx-port 1 sends what consumer 0
    (one queue each way) returns and, --consumer-fail open, what consumer 1 (never started)
    cannot take: every frame out by port 1, each flow in order."""
    ctx = 'tx port'
    tmp = pair.tmp
    sock = os.path.join(tmp, 'txp-c%u.sock')
    tx = [os.path.join(tmp, 'txp_tx%d.pcap' % i) for i in range(2)]
    prefix = rpstest.unique_prefix()
    eal = rpstest.eal_args(prefix, lcores=LCORES, vdevs=[
        rpstest.pcap_vdev(rx=pair.pa, name='net_pcap0'),
        rpstest.pcap_vdev(tx=tx, name='net_pcap1')])
    app = ['--rx-port', '0', '--tx-port', '1', '--consumers', '2', '--consumer-mode',
           'inline', '--consumer-fail', 'open', '--consumer-socket', sock,
           '--consumer-wait', '1500', '--exit-when-idle', '600']
    clients = {}

    def start_clients():
        rpstest.wait_for(lambda: all(os.path.exists(sock % c) for c in range(2)), timeout=30)
        clients[0] = testpmd(tmp, 'txp-c0', sock % 0, 'io', 1)

    t = threading.Thread(target=start_clients)
    t.start()
    r = rpstest.run_rps(rpstest.BINARY, eal, app, timeout=90, prefix=prefix,
                        summary_path=os.path.join(tmp, 'txp_summary.json'))
    t.join()
    for p in clients.values():
        testpmd_stop(p)
    s = rpstest.check_exit(F, r, ctx)
    if s is None:
        return
    out = [f for p in tx if os.path.exists(p) for f in rpstest.read_pcap(p).frames]
    F.check(sorted(out) == sorted(pair.a), '%s: %d frames out by port 1, not the %d of A' % (
        ctx, len(out), len(pair.a)))
    check_whole_in_order(F, ctx, pair.a, out, 'A by port 1')
    k = consumers(s)
    F.check(len(k) == 2 and k[0]['returned'] == k[0]['delivered'] > 0 and
            k[1]['delivered'] == 0 and k[1]['fail_open']['consumer_absent'] > 0 and
            k[0]['delivered'] + k[1]['fail_open']['consumer_absent'] == s['processed'] ==
            s['rx_packets'] and rpstest.dropped_total(s) == 0,
            '%s: consumers %s, processed %d, dropped %s' % (ctx, k, s['processed'],
                                                          s['dropped']))
    print('%s: %d frames in by port 0 and out by --tx-port 1 in order: %d returned by '
          'consumer 0, %d failed open past consumer 1' % (
              ctx, len(out), k[0]['returned'], k[1]['fail_open']['consumer_absent']),
          flush=True)


def part_refusals(F, pair):
    tmp = pair.tmp
    cases = [
        ('inline without --forward', ['--consumers', '2', '--consumer-mode', 'inline'],
         '--consumer-mode inline: needs --forward A:B'),
        ('fewer consumers than workers', ['--forward', '0:1', '--consumers', '1',
                                          '--consumer-mode', 'inline'],
         'group 0 has 1 consumer(s) for 2 workers'),
        ('--consumer-fail without inline', ['--forward', '0:1', '--consumers', '2',
                                            '--consumer-fail', 'open'],
         '--consumer-fail: only with --consumer-mode inline'),
        ('--consumer-mode without --consumers', ['--consumer-mode', 'inline'],
         '--consumer-mode: only with --consumers K'),
        ('a bad mode', ['--forward', '0:1', '--consumers', '2', '--consumer-mode', 'both'],
         '--consumer-mode'),
    ]
    for what, app, want in cases:
        prefix = rpstest.unique_prefix()
        eal = rpstest.eal_args(prefix, lcores=LCORES, vdevs=[
            rpstest.pcap_vdev(rx=pair.pa, tx=[os.path.join(tmp, 'r0.pcap')] * 2,
                              name='net_pcap0'),
            rpstest.pcap_vdev(rx=pair.pb, tx=[os.path.join(tmp, 'r1.pcap')] * 2,
                              name='net_pcap1')])
        if '--consumers' in app:
            app = app + ['--consumer-socket', os.path.join(tmp, 'r-c%u.sock')]
        r = rpstest.run_rps(rpstest.BINARY, eal, app, timeout=30, prefix=prefix)
        F.check(r.rc == 2 and want in r.stderr, '%s: exit %s, expected 2 and "%s"' % (
            what, r.rc, want), r)
    print('refusals: %d cases exit 2 naming the option' % len(cases), flush=True)


def main():
    rpstest.BINARY = rpstest.binary_from_argv()
    if shutil.which('dpdk-testpmd') is None:
        print('SKIP: dpdk-testpmd not installed')
        return rpstest.SKIP
    F = rpstest.Failures('test_inline_consumers')
    with rpstest.TempDir('rps-inline-') as tmp:
        pair = Pair(tmp)
        sanitized = os.environ.get('RPSTEST_SANITIZE', 'none') not in ('', 'none')
        for name, part in (('refusals', lambda: part_refusals(F, pair)),
                           ('pass', lambda: part_pass(F, pair)),
                           ('live', lambda: part_live(F, pair)),
                           ('bypass', lambda: part_bypass(F, pair)),
                           ('filter', lambda: part_filter(F, pair)),
                           ('closed', lambda: part_absent(F, pair, 'closed')),
                           ('open', lambda: part_absent(F, pair, 'open')),
                           ('tx port', lambda: part_tx_port(F, pair))):
            if sanitized and name in ('refusals', 'closed', 'filter'):
                continue
            t0 = time.monotonic()
            part()
            print('-- %s: %.1f s' % (name, time.monotonic() - t0), flush=True)
    return F.report()


if __name__ == '__main__':
    sys.exit(main())
