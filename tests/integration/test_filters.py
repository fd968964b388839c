#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_filters.py: --consumer-filter and the file's [consumers] filter.G, with DPDK's own
dpdk-testpmd as the consumers (a net_memif client each, io forwarding into a net_pcap
capture) and tcpdump as the judge of what each expression accepts.

- broker: three groups (--consumers 1,1,1 on two workers), three filters on the command
  line ('tcp', 'ip6 and udp', 'arp or vlan': libpcap's own semantics, where a VLAN-tagged
  TCP segment is not 'tcp'); a generated capture of IPv4/IPv6 TCP and UDP, 802.1Q, QinQ and
  ARP replayed once the consumers are connected: each group's capture is, frame for frame
  and byte for byte, what `tcpdump -r INPUT -w - EXPR` keeps (the same multiset), each flow
  in order; each consumer's filtered = input - what tcpdump keeps and delivered = its
  capture; rx = processed, nothing dropped (a packet no group takes is consumed).
- reload: groups 1,1 with the file's filter.0 = tcp and filter.1 = udp, the replay paced
  (test hook RPS_TEST_RX_DELAY_NS); while it runs the file changes filter.1 to 'tcp or udp'
  (the control thread sees the file change): group 0's capture is still exactly tcpdump's
  'tcp' (nothing lost, every flow in order), group 1 has every UDP frame in order and, of
  each TCP flow it got, a whole tail of it (the switch is per burst, a flow on one worker);
  then a bad expression: refused naming FILE:LINE: filter.1 and libpcap's message, the
  running filter unchanged (/rps/consumers, the TCP tails reach the end).
- refusals (exit 2): a bad expression (the group and libpcap's message), a group that does
  not exist, a second filter for a group, G=EXPR malformed, a filter without --consumers,
  the file's filter.G with a bad expression or an unknown key (FILE:LINE).

usage: test_filters.py PATH/TO/dpdk-rps
"""
import os
import shutil
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rpstest  # noqa: E402
import test_consumers  # noqa: E402  (testpmd(), testpmd_stop(), in_order())

LCORES = '0@0,(1-2)@1'    # RX lcore 0, workers 1 and 2: each consumer fed by both
FLOWS, PER_FLOW = 48, 12  # a consumer's share fits its memif ring (rsize=11) at once
BROKER = ('tcp', 'ip6 and udp', 'arp or vlan')


def tcpdump_keeps(tmp, inp, expr):
    """The frames of @p inp that tcpdump's reading of @p expr keeps, in order."""
    out = os.path.join(tmp, 'tcpdump.pcap')
    subprocess.run(['tcpdump', '-r', inp, '-w', out, expr], check=True,
                   capture_output=True, timeout=60)
    return rpstest.read_pcap(out).frames


def consumers_of(s):
    return s.get('consumers', []) if s else []


def part_broker(F, binary, tmp, inp, frames):
    ctx = 'broker'
    extra = ['--consumer-filter', '0=' + BROKER[0], '--consumer-filter', '1=' + BROKER[1],
             '--consumer-filter', '2=' + BROKER[2]]
    r, caps, clients = test_consumers.run(binary, tmp, inp, 'broker', (0, 1, 2), 30000,
                                          extra, lcores=LCORES, consumers='1,1,1')
    s = rpstest.check_exit(F, r, ctx)
    if s is None:
        return
    k = consumers_of(s)
    F.check(rpstest.dropped_total(s) == 0 and s['rx_packets'] == s['processed'] ==
            len(frames), '%s: rx %d processed %d dropped %s, of %d' % (
                ctx, s['rx_packets'], s['processed'], s['dropped'], len(frames)))
    for g, expr in enumerate(BROKER):
        want = tcpdump_keeps(tmp, inp, expr)
        got = caps.get(g)
        if not F.check(got is not None, '%s: consumer %d wrote no capture (%s)' % (
                ctx, g, clients[g].log if g in clients else '-')):
            continue
        F.check(0 < len(want) < len(frames) and sorted(got) == sorted(want),
                "%s: group %d '%s': %d frames, tcpdump keeps %d of the %d" % (
                    ctx, g, expr, len(got), len(want), len(frames)))
        test_consumers.in_order(F, ctx, [f for f in got if rpstest.marker(f)],
                                'consumer %d' % g)
        F.check(len(k) == 3 and k[g]['filter'] == expr and
                k[g]['filtered'] == len(frames) - len(want) and
                k[g]['delivered'] == len(got),
                '%s: consumer %d: %s (tcpdump keeps %d)' % (ctx, g, k[g] if len(k) > g else
                                                            None, len(want)))
        F.check("group %d filter '%s': filtered %d" % (g, expr, len(frames) - len(want))
                in r.stdout, '%s: no summary line for group %d' % (ctx, g), r)
    print('%s: three groups, each got exactly what tcpdump keeps of %d frames (%s)' % (
        ctx, len(frames), ', '.join('%s: %d' % (e, k[g]['delivered'])
                                    for g, e in enumerate(BROKER) if len(k) > g)),
          flush=True)


def write_conf(path, f0, f1):
    tmp = path + '.new'
    with open(tmp, 'w') as f:
        f.write('; the consumer groups\' filters\n[consumers]\nfilter.0 = %s\nfilter.1 = %s\n'
                % (f0, f1))
    os.rename(tmp, path)  # the control thread sees the file change and reloads it


def part_reload(F, binary, tmp, inp, frames):
    ctx = 'reload'
    cfg = os.path.join(tmp, 'filters.conf')
    write_conf(cfg, 'tcp', 'udp')
    seen = {}

    def reloads(prefix):
        """Once group 1 receives: the good change, then a bad one."""
        def config():
            r = rpstest.telemetry_socket(prefix, '/rps/config')
            return r[0].get('/rps/config') if r else None

        def receiving():
            r = rpstest.telemetry_socket(prefix, '/rps/consumers')
            k = r[0].get('/rps/consumers') if r else None
            return k if k and k['consumers']['1']['delivered'] > 20 else None

        if rpstest.wait_for(receiving, timeout=30) is None:
            return
        write_conf(cfg, 'tcp', 'tcp or udp')
        seen['ok'] = rpstest.wait_for(lambda: (config() or {}).get('reloads_ok', 0) >= 1 and
                                      config(), timeout=10)
        write_conf(cfg, 'tcp', 'tcp or')
        seen['bad'] = rpstest.wait_for(lambda: (config() or {}).get('reloads_failed', 0) >= 1
                                       and config(), timeout=10)
        r = rpstest.telemetry_socket(prefix, '/rps/consumers')
        seen['consumers'] = r[0].get('/rps/consumers') if r else None

    r, caps, clients = test_consumers.run(
        binary, tmp, inp, 'reload', (0, 1), 30000, ['--config', cfg], lcores=LCORES,
        consumers='1,1', env={'RPS_TEST_RX_DELAY_NS': '3000000'}, during=reloads)
    s = rpstest.check_exit(F, r, ctx)
    if s is None:
        return
    ok, bad = seen.get('ok'), seen.get('bad')
    F.check(ok is not None and ok['reloads_ok'] == 1, '%s: the change was not applied: %s' % (
        ctx, ok))
    F.check(bad is not None and bad['reloads_failed'] == 1 and
            '%s:4: filter.1: ' % cfg in bad['last_reload_result'] and
            'syntax error' in bad['last_reload_result'],
            '%s: the bad expression: %s' % (ctx, bad and bad.get('last_reload_result')))
    k = (seen.get('consumers') or {}).get('consumers', {})
    F.check(k.get('1', {}).get('filter') == 'tcp or udp' and k.get('0', {}).get('filter') ==
            'tcp', '%s: after the refused reload the filters are %s' % (
                ctx, {c: v.get('filter') for c, v in k.items()}))
    F.check(rpstest.dropped_total(s) == 0 and s['rx_packets'] == s['processed'] ==
            len(frames), '%s: rx %d processed %d dropped %s' % (
                ctx, s['rx_packets'], s['processed'], s['dropped']))
    if caps.get(0) is None or caps.get(1) is None:
        F.fail('%s: a consumer wrote no capture' % ctx)
        return
    # group 0's filter never changed: exactly tcpdump's, each flow in order
    tcp = tcpdump_keeps(tmp, inp, 'tcp')
    F.check(sorted(caps[0]) == sorted(tcp), '%s: group 0 (tcp, unchanged) got %d frames, '
            'tcpdump keeps %d' % (ctx, len(caps[0]), len(tcp)))
    test_consumers.in_order(F, ctx, caps[0], 'consumer 0')
    # group 1: every UDP frame, and of each TCP flow a whole tail
    udp = tcpdump_keeps(tmp, inp, 'udp')
    tcp_set = set(tcp)
    got_udp = [f for f in caps[1] if f not in tcp_set]
    F.check(sorted(got_udp) == sorted(udp), '%s: group 1 got %d of the %d UDP frames' % (
        ctx, len(got_udp), len(udp)))
    test_consumers.in_order(F, ctx, caps[1], 'consumer 1')
    by_flow = {}
    for f in tcp:
        by_flow.setdefault(rpstest.marker(f)[0], []).append(f)
    got_tcp = {}
    for f in caps[1]:
        if f in tcp_set:
            got_tcp.setdefault(rpstest.marker(f)[0], []).append(f)
    tails = [fl for fl, fs in got_tcp.items() if fs != by_flow[fl][len(by_flow[fl]) - len(fs):]]
    F.check(got_tcp and not tails and sum(map(len, got_tcp.values())) < len(tcp),
            '%s: group 1 got %d TCP frames of %d flows (of %d), not whole tails: %s' % (
                ctx, sum(map(len, got_tcp.values())), len(got_tcp), len(tcp), tails[:3]))
    kk = consumers_of(s)
    F.check(len(kk) == 2 and kk[1]['filtered'] == len(frames) - len(caps[1]) and
            kk[0]['filtered'] == len(frames) - len(tcp),
            '%s: filtered %s' % (ctx, [c.get('filtered') for c in kk]))
    print('%s: group 0 (tcp) exactly tcpdump\'s %d; group 1 udp then tcp or udp: %d UDP, '
          '%d TCP frames as whole tails of %d flows; the bad expression refused' % (
              ctx, len(tcp), len(got_udp), sum(map(len, got_tcp.values())), len(got_tcp)),
          flush=True)


def part_refusals(F, binary, tmp, inp):
    prefix = rpstest.unique_prefix()
    eal = rpstest.eal_args(prefix, lcores=LCORES, vdevs=[rpstest.pcap_vdev(rx=inp)])
    sock = ['--consumer-socket', os.path.join(tmp, 'ref-c%u.sock')]
    cases = [
        (['--consumers', '1,1', '--consumer-filter', '1=tcp prot 80'] + sock,
         "--consumer-filter 1='tcp prot 80': can't parse filter expression: syntax error"),
        (['--consumers', '1,1', '--consumer-filter', '2=tcp'] + sock,
         "--consumer-filter 2='tcp': no consumer group 2 (--consumers 1,1 has 2: 0..1)"),
        (['--consumers', '1,1', '--consumer-filter', '1=tcp', '--consumer-filter', '1=udp'],
         '--consumer-filter 1=udp: group 1 has a filter already'),
        (['--consumers', '1', '--consumer-filter', 'tcp'], '--consumer-filter tcp: expected '
         'G=EXPR'),
        (['--consumer-filter', '0=tcp'], '--consumer-filter: only with --consumers'),
    ]
    for i, (text, want) in enumerate([
            ('filter.1 = udp port', '%s:4: filter.1: '),
            ('filter.4 = udp', "--config: %s:4: [consumers]: unknown key 'filter.4'"),
            ('filters.1 = udp', "--config: %s:4: [consumers]: unknown key 'filters.1'")]):
        cfg = os.path.join(tmp, 'refuse%d.conf' % i)
        with open(cfg, 'w') as f:
            f.write('[dataplane]\nconsumers = 1,1\n[consumers]\n%s\n' % text)
        cases.append((['--config', cfg] + sock, want % cfg))
    for app, want in cases:
        r = rpstest.run_rps(binary, eal, app, timeout=30, prefix=prefix)
        F.check(r.rc == 2 and ('dpdk-rps: ' + want) in r.stderr,
                'refusal %s: rc %s, stderr %s' % (app, r.rc, r.stderr[-300:]))
    print('refusals: %d cases exit 2 naming the group and the option or FILE:LINE' %
          len(cases), flush=True)


def main():
    binary = rpstest.binary_from_argv()
    for tool in ('dpdk-testpmd', 'tcpdump'):
        if shutil.which(tool) is None:
            print('SKIP: %s not installed' % tool)
            return rpstest.SKIP
    F = rpstest.Failures('test_filters')
    with rpstest.TempDir('rps-filters-') as tmp:
        frames = rpstest.gen_traffic.generate_frames(flows=FLOWS, packets_per_flow=PER_FLOW,
                                                     seed=28, frag_datagrams=0)
        inp = os.path.join(tmp, 'in.pcap')
        rpstest.write_pcap(inp, frames)
        rpstest.write_pcap(os.path.join(tmp, 'empty.pcap'), [])
        sanitized = os.environ.get('RPSTEST_SANITIZE', 'none') not in ('', 'none')
        parts = [('refusals', lambda: part_refusals(F, binary, tmp, inp)),
                 ('broker', lambda: part_broker(F, binary, tmp, inp, frames)),
                 ('reload', lambda: part_reload(F, binary, tmp, inp, frames))]
        for name, part in parts:
            if sanitized and name != 'broker':
                continue
            if name == 'reload' and not rpstest.hooks_built(binary, tmp):
                print('-- reload: skipped (%s is %s: the replay is paced by '
                      'RPS_TEST_RX_DELAY_NS)' % (binary, rpstest.NO_HOOKS), flush=True)
                continue
            t0 = time.monotonic()
            part()
            print('-- %s: %.1f s' % (name, time.monotonic() - t0), flush=True)
    return F.report()


if __name__ == '__main__':
    sys.exit(main())
