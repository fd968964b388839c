#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_example_consumer.py: examples/consumer (dpdk-rps-example-consumer) as dpdk-rps's two
consumers (--consumers 2, 2 workers), started before dpdk-rps (they wait for its sockets).

- dpdk-rps runs twice, one run after the other, under the same two consumers: each run
  replays a generated capture once both are connected (--consumer-wait) and exits, so the
  server goes away under consumers that were receiving, and they re-attach to the next run.
  Each consumer says connected and disconnected once per run, is still running after each,
  exits 0 at SIGINT and writes --json: the two consumers' flows are disjoint, their union
  is every flow of the capture with exact packet and byte counts (twice: the 5-tuples
  computed here from the frames), each consumer's total equals what dpdk-rps delivered to
  it over both runs (--summary-json consumers), nothing dropped, nothing untracked.
- --bypass-after 1500 (the consumers ask dpdk-rps to bypass each flow they counted 1500
  bytes of, a control frame back on their ring), on a replay paced by a test hook: dpdk-rps
  applied every request they sent (bypass_requests, none refused), the flows' later
  packets skipped the consumers (bypassed), delivered + bypassed = processed = rx, and each
  consumer's count of a flow stops short of the flow's bytes for the flows it asked about.
- Bad arguments: exit 2 naming the option.
- --help, alone and after "--" (no EAL options): the usage on stdout, exit 0, and EAL never
  started (no "EAL:" line: started without --no-huge, it would log, and fail where the
  machine has no hugepages).

usage: test_example_consumer.py PATH/TO/dpdk-rps PATH/TO/dpdk-rps-example-consumer
"""
import ipaddress
import json
import os
import signal
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rpstest  # noqa: E402

LCORES = '0@0,(1-2)@1'     # RX lcore 0, workers 1 and 2
# each consumer's share (about half) fits its memif ring (1024 slots) even if it polled
# only once: the counts are exact, not a race against the consumer
FLOWS, PER_FLOW = 48, 12
RUNS = 2                   # dpdk-rps runs, one after the other, under the same consumers
PROG = 'dpdk-rps-example-consumer'


def flow_of(frame):
    """The 5-tuple examples/consumer counts frame under (its parser, mirrored), or None."""
    l3 = rpstest.parse_l3(frame)
    if l3 is None:
        return None
    sport = dport = 0
    off = l3.l2_len + l3.l3_len
    if not l3.is_frag and l3.proto in (6, 17) and off + 4 <= len(frame):
        sport, dport = struct.unpack_from('!HH', frame, off)
    addr = ipaddress.IPv4Address if l3.family == 4 else ipaddress.IPv6Address
    return (l3.family, str(addr(l3.src)), str(addr(l3.dst)), l3.proto, sport, dport)


def start_consumer(binary, tmp, c, sock, extra=()):
    prefix = rpstest.unique_prefix()
    out = os.path.join(tmp, 'c%d.json' % c)
    log = os.path.join(tmp, 'c%d.log' % c)
    cmd = [binary] + rpstest.eal_args(prefix, lcores='0@0', mem_mb=256) + [
        '--', '--socket', sock, '--json', out, '--top', '3'] + list(extra)
    with open(log, 'w') as f:
        p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=f, stderr=subprocess.STDOUT,
                             start_new_session=True)
    p.prefix, p.out, p.logpath = prefix, out, log
    return p


def log_count(p, what):
    with open(p.logpath) as f:
        return f.read().count('dpdk-rps-example-consumer: ' + what)


def stop_consumer(p):
    """SIGINT (as a user would), the exit code; SIGKILL after 30 s."""
    if p.poll() is None:
        p.send_signal(signal.SIGINT)
    try:
        p.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
    rpstest.remove_runtime_dir(p.prefix)
    with open(p.logpath) as f:
        p.log = f.read()
    return p.returncode


def check_run(F, rps, consumer, tmp, inp, frames):
    """Two dpdk-rps runs, one after the other, the same two consumers up all along: each run
    replays the capture once both are connected and exits (the server going away under
    consumers that are receiving), the consumers re-attach to the second."""
    ctx = 'two example consumers'
    sock = os.path.join(tmp, 'c%u.sock')
    cons = [start_consumer(consumer, tmp, c, sock % c) for c in (0, 1)]
    runs = []
    for run in range(RUNS):
        prefix = rpstest.unique_prefix()
        eal = rpstest.eal_args(prefix, lcores=LCORES, vdevs=[rpstest.pcap_vdev(rx=inp)])
        # one seed for both runs: each flow goes to the same worker, so the same consumer
        app = ['--consumers', '2', '--consumer-socket', sock, '--consumer-wait', '30000',
               '--exit-when-idle', '500', '--hash', 'jhash', '--hash-seed', '28']
        r = rpstest.run_rps(rps, eal, app, timeout=60, prefix=prefix,
                            summary_path=os.path.join(tmp, 'summary%d.json' % run))
        runs.append(rpstest.check_exit(F, r, '%s, run %d' % (ctx, run)))
        # each consumer notices the server gone (its next 10 ms poll slice) and lives on
        F.check(rpstest.wait_for(lambda: all(log_count(p, 'disconnected from') > run
                                             for p in cons), timeout=10),
                '%s: after run %d, disconnections logged %s' % (
                    ctx, run, [log_count(p, 'disconnected from') for p in cons]))
        F.check(all(p.poll() is None for p in cons), '%s: after run %d, consumer exits %s' % (
            ctx, run, [p.poll() for p in cons]))
    rcs = [stop_consumer(p) for p in cons]
    got = []
    for c, p in enumerate(cons):
        F.check(rcs[c] == 0, '%s: consumer %d exit %s: %s' % (ctx, c, rcs[c], p.log[-2000:]))
        said = p.log.count('dpdk-rps-example-consumer: connected to %s\n' % (sock % c))
        gone = p.log.count('dpdk-rps-example-consumer: disconnected from %s' % (sock % c))
        F.check(said == RUNS and gone == RUNS, '%s: consumer %d said connected %d times, '
                'disconnected %d, not %d: %s' % (ctx, c, said, gone, RUNS, p.log[-2000:]))
        try:
            with open(p.out) as f:
                got.append(json.load(f))
        except (OSError, ValueError) as e:
            F.fail('%s: consumer %d --json: %s (%s)' % (ctx, c, e, p.log[-2000:]))
    if any(s is None for s in runs) or len(got) != 2:
        return
    for s in runs:
        F.check(rpstest.dropped_total(s) == 0, '%s: dropped %s' % (ctx, s['dropped']))

    want = {}
    for fr in frames:
        k = flow_of(fr)
        if k is None:
            continue
        e = want.setdefault(k, [0, 0])
        e[0] += RUNS
        e[1] += RUNS * len(fr)
    seen = {}
    for c, j in enumerate(got):
        F.check(j['untracked_packets'] == 0 and j['other_packets'] == 0,
                '%s: consumer %d untracked %d, not IP %d' % (
                    ctx, c, j['untracked_packets'], j['other_packets']))
        F.check(len(j['flow_list']) == j['flows'], '%s: consumer %d lists %d flows, says %d'
                % (ctx, c, len(j['flow_list']), j['flows']))
        F.check(sum(f['packets'] for f in j['flow_list']) == j['packets'] and
                sum(f['bytes'] for f in j['flow_list']) == j['bytes'],
                '%s: consumer %d: flows do not add up to its totals' % (ctx, c))
        F.check(j['connects'] == RUNS, '%s: consumer %d connected %d times, not %d' % (
            ctx, c, j['connects'], RUNS))
        for f in j['flow_list']:
            k = (f['family'], f['src'], f['dst'], f['proto'], f['sport'], f['dport'])
            if k in seen:
                F.fail('%s: flow %s at consumer %d and consumer %d' % (ctx, k, seen[k][0], c))
            seen[k] = (c, f['packets'], f['bytes'])
    F.check(len(want) == FLOWS, '%s: the capture has %d flows, not %d' % (
        ctx, len(want), FLOWS))
    missing = [k for k in want if k not in seen]
    extra = [k for k in seen if k not in want]
    wrong = [(k, want[k], seen[k][1:]) for k in want
             if k in seen and list(seen[k][1:]) != want[k]]
    F.check(not missing and not extra and not wrong,
            '%s: missing %s, extra %s, miscounted %s' % (ctx, missing[:3], extra[:3], wrong[:3]))
    F.check(all(j['flows'] > 0 for j in got), '%s: a consumer got no flow: %s' % (
        ctx, [j['flows'] for j in got]))
    delivered = [0, 0]
    for s in runs:
        k = s.get('consumers', [])
        F.check(len(k) == 2, '%s: summary consumers %r' % (ctx, k))
        for c in range(min(2, len(k))):
            delivered[c] += k[c]['delivered']
    for c in range(2):
        F.check(delivered[c] == got[c]['packets'],
                '%s: dpdk-rps delivered %d to consumer %d over %d runs, it counted %d' % (
                    ctx, delivered[c], c, RUNS, got[c]['packets']))
    print('%s: %d runs of %d frames, %d flows: %d + %d flows, %d + %d packets, counts exact, '
          'each consumer re-attached (connect retries %d, %d)' % (
              ctx, RUNS, len(frames), len(want), got[0]['flows'], got[1]['flows'],
              got[0]['packets'], got[1]['packets'], got[0]['connect_retries'],
              got[1]['connect_retries']))


def check_bypass(F, rps, consumer, tmp, inp, frames):
    """The consumers ask for each flow's bypass after 1500 bytes; dpdk-rps applies it."""
    ctx = 'bypass requests'
    if not rpstest.hooks_built(rps, tmp):
        F.skip(ctx, 'the replay is paced by a test hook (RPS_TEST_RX_DELAY_NS): %s' %
               rpstest.NO_HOOKS)
        return
    sock = os.path.join(tmp, 'b%u.sock')
    cons = [start_consumer(consumer, tmp, c, sock % c, ['--bypass-after', '1500'])
            for c in (0, 1)]
    prefix = rpstest.unique_prefix()
    eal = rpstest.eal_args(prefix, lcores=LCORES, vdevs=[rpstest.pcap_vdev(rx=inp)])
    app = ['--consumers', '2', '--consumer-socket', sock, '--consumer-wait', '30000',
           '--exit-when-idle', '500']
    r = rpstest.run_rps(rps, eal, app, timeout=60, prefix=prefix,
                        env={'RPS_TEST_RX_DELAY_NS': '400000'},
                        summary_path=os.path.join(tmp, 'bsummary.json'))
    s = rpstest.check_exit(F, r, ctx)
    rcs = [stop_consumer(p) for p in cons]
    got = []
    for c, p in enumerate(cons):
        F.check(rcs[c] == 0, '%s: consumer %d exit %s: %s' % (ctx, c, rcs[c], p.log[-2000:]))
        try:
            with open(p.out) as f:
                got.append(json.load(f))
        except (OSError, ValueError) as e:
            F.fail('%s: consumer %d --json: %s' % (ctx, c, e))
    if s is None or len(got) != 2:
        return
    w = s.get('workers', [])
    req = sum(x.get('bypass_requests', 0) for x in w)
    bad = sum(x.get('bypass_requests_refused', 0) for x in w)
    by = sum(x.get('bypassed', 0) for x in w)
    sent = sum(j['bypass_requests'] for j in got)
    delivered = sum(k['delivered'] for k in s.get('consumers', []))
    F.check(sent > 0 and req == sent and bad == 0, '%s: the consumers sent %d requests, '
            'dpdk-rps applied %d and refused %d' % (ctx, sent, req, bad))
    F.check(by > 0 and delivered + by == s['processed'] == s['rx_packets'] and
            rpstest.dropped_total(s) == 0,
            '%s: bypassed %d, delivered %d, processed %d, rx %d, dropped %s' % (
                ctx, by, delivered, s['processed'], s['rx_packets'], s['dropped']))
    want = {}
    for fr in frames:
        k = flow_of(fr)
        if k is not None:
            want[k] = want.get(k, 0) + len(fr)
    short = [f for j in got for f in j['flow_list']
             if f['bytes'] >= 1500 and f['bytes'] < want.get(
                 (f['family'], f['src'], f['dst'], f['proto'], f['sport'], f['dport']), 0)]
    F.check(len(short) > 0, '%s: no flow stopped reaching its consumer once asked' % ctx)
    print('%s: %d requests sent and applied, %d packets bypassed, %d delivered; %d flows '
          'stopped short at their consumer' % (ctx, sent, by, delivered, len(short)),
          flush=True)


def check_refusals(F, consumer, tmp):
    cases = [
        (['--seconds', 'x'], '--seconds'), (['--top', '-1'], '--top'),
        (['--max-flows', '0'], '--max-flows'), (['--bogus'], "unknown option '--bogus'"),
        (['--json'], '--json: needs an argument'), ([], '--socket: required'),
        (['--socket', '/tmp/a,b'], '--socket'),
    ]
    for extra, want in cases:
        prefix = rpstest.unique_prefix()
        args = ['--socket', os.path.join(tmp, 'none.sock')] if extra[:1] != ['--socket'] \
            and want != '--socket: required' else []
        cmd = [consumer] + rpstest.eal_args(prefix, lcores='0@0', mem_mb=64,
                                            no_huge=True) + ['--'] + args + extra
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
        rpstest.remove_runtime_dir(prefix)
        F.check(p.returncode == 2 and ('dpdk-rps-example-consumer: ' + want) in p.stderr,
                'refusal %s: rc %s, stderr %s' % (extra, p.returncode, p.stderr[-300:]))
    print('refusals: %d cases exit 2 naming the option' % len(cases))


def check_help(F, consumer):
    for args in (['--help'], ['--', '--help'], ['-h']):
        p = subprocess.run([consumer] + args, capture_output=True, text=True, timeout=30,
                           stdin=subprocess.DEVNULL)
        F.check(p.returncode == 0 and '--socket PATH' in p.stdout and
                'EAL:' not in p.stdout + p.stderr,
                '%s %s: exit %s, expected 0 with the usage and no EAL; stdout %s, stderr %s' % (
                    PROG, ' '.join(args), p.returncode, p.stdout[-300:], p.stderr[-300:]))
    print('--help: the usage, exit 0, without EAL')


def main():
    rps = rpstest.binary_from_argv()
    if len(sys.argv) < 3 or not os.access(sys.argv[2], os.X_OK):
        sys.exit('usage: %s PATH/TO/dpdk-rps PATH/TO/dpdk-rps-example-consumer' % sys.argv[0])
    consumer = sys.argv[2]
    F = rpstest.Failures('test_example_consumer')
    with rpstest.TempDir('rps-example-consumer-') as tmp:
        frames = rpstest.gen_traffic.generate_frames(flows=FLOWS, packets_per_flow=PER_FLOW,
                                                     seed=28, frag_datagrams=0, non_ip=0)
        inp = os.path.join(tmp, 'in.pcap')
        rpstest.write_pcap(inp, frames)
        check_help(F, consumer)
        check_refusals(F, consumer, tmp)
        check_run(F, rps, consumer, tmp, inp, frames)
        check_bypass(F, rps, consumer, tmp, inp, frames)
    return F.report()


if __name__ == '__main__':
    sys.exit(main())
