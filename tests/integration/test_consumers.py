#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_consumers.py: --consumers over memif, with DPDK's own dpdk-testpmd as the consumers
(a net_memif client each, io forwarding into a net_pcap capture).

- Groups 2,1 on 4 workers (workers 0 and 2 share consumer 0's one memif queue, 1 and 3
  consumer 1's; all four share group 1's consumer 2), dpdk-rps replaying a generated capture
  once all are connected (--consumer-wait): every frame lands in exactly one of group 0's
  captures and in consumer 2's, byte for byte, every flow at one consumer of group 0 and in
  order everywhere (markers); rx = processed (group 0's) with nothing dropped; each
  consumer's delivered equals its capture and what its workers received; the workers'
  consumer_delivered is a copy per group; the live lines and the summary give each
  consumer's group, workers, connected, reconnects 0.
- Every /rps/ command and /metrics asked with two consumers connected on a looping capture:
  each answers, and no "Invalid port_id" in the log (issue 38: consumers were ethdev ports
  once and /rps/stats read port 65535's stats; with dpdk-rps's own memif server it no longer
  happens, the assertion keeps it so).
- --forward 0:1 with 2 consumers on 4 workers: each side forwarded byte for byte, the
  consumers get both directions, each conversation's two at one consumer, in order.
- Backpressure with a consumer connected but never reading (testpmd -i), --duration 1: the
  workers wait (RX pauses), and at exit give up a second after RX stopped: consumer_full
  only for what was in flight, exit 0 in seconds, no worker stuck.
- Consumer 1 absent (one testpmd): consumer 0 gets its worker's flows, consumer 1's packets
  are counted consumer_absent (per worker and per consumer), accounting exact, exit 0.
- A consumer killed mid-run (SIGKILL) and a new one started at its socket, on an endless
  replay paced to 5,000 packets/s (test hook RPS_TEST_RX_DELAY_NS): dpdk-rps keeps running, counts the gap consumer_absent and one reconnect, the new
  one receives, the other consumer is undisturbed, /rps/consumers says so live; exit 0 after SIGINT, accounting exact.
- The clean exits (groups 2,1; forward; consumer 1 absent) leave no consumer socket (PATH,
  PATH~) and print nothing about one: no "Failed to remove socket file", which DPDK 22.11's net_memif
  server printed at every exit before consumers moved to lib/memif.
- Refusals: --consumers with --tx-port, more consumers than workers (in any group), more
  than 4 groups, a template without %u, --consumer-wait without --consumers: exit 2 naming
  the option or FILE:LINE.

usage: test_consumers.py PATH/TO/dpdk-rps [core|more]: core (integration-consumers, in the quick
suite) is the refusals, the groups and the absent consumer; more
(integration-consumers-more) the rest; neither: all.
"""
import glob
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rpstest  # noqa: E402
import test_forward  # noqa: E402  (swapped(): a frame's other direction)

LCORES = '0@0,(1-2)@1'     # RX lcore 0, workers 1 and 2 (worker 0 = lcore 1)
BACKLOG = 256              # check_stuck's backlogs: what may be left in them at exit
LCORES4 = '0@0,(1-4)@1'    # RX lcore 0, workers 1-4: two per consumer, sharing its queue
# few enough that a consumer's whole share fits its memif ring (rsize=11: 2048 slots) even
# if it polled only once: the counts below are exact, not a race against testpmd
FLOWS, PER_FLOW = 48, 12


def testpmd(tmp, tag, sock, interactive=False, memif_args=''):
    """Start a dpdk-testpmd memif client of socket @p sock forwarding into tmp/TAG.pcap
    (interactive: connected, but it never starts forwarding: it reads nothing)."""
    out = os.path.join(tmp, '%s.pcap' % tag)
    if os.path.exists(out):
        os.unlink(out)
    prefix = rpstest.unique_prefix()
    cmd = ['dpdk-testpmd', '--no-huge', '-m', '256', '--no-pci', '-l', '0,1',
           '--file-prefix', prefix, '--log-level', 'lib.eal:warning',
           '--vdev', 'net_memif0,role=client,id=0,socket=%s,socket-abstract=no,rsize=11%s' % (
               sock, memif_args),
           '--vdev', 'net_pcap0,rx_pcap=%s,tx_pcap=%s' % (os.path.join(tmp, 'empty.pcap'), out),
           '--', '--forward-mode=io', '--rxq=1', '--txq=1', '--total-num-mbufs=8192',
           '--disable-link-check', '--no-flush-rx'] + (['-i'] if interactive else [])
    log = open(os.path.join(tmp, '%s.log' % tag), 'w')
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=log, stderr=subprocess.STDOUT,
                         start_new_session=True)
    p.out, p.log, p.prefix = out, log.name, prefix
    return p


def testpmd_stop(p):
    """End testpmd (Enter, as its prompt asks) so that it closes its capture."""
    try:
        p.communicate(b'quit\n', timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, 9)
        p.wait()
    rpstest.remove_runtime_dir(p.prefix)
    return rpstest.read_pcap(p.out).frames if os.path.exists(p.out) else None


def run(binary, tmp, inp, tag, present, wait_ms, extra=(), lcores=LCORES, consumers='2',
        vdevs=None, interactive=False, queries=None, stop_after=None, env=None, during=None):
    """dpdk-rps on inp (or the ports of vdevs) with --consumers CONSUMERS and testpmd
    consumers for the indexes in present. With a dict @p queries, every /rps/ command's
    reply is put there, asked once every consumer connected and traffic flows. stop_after:
    SIGINT that many seconds after it is ready (an endless replay), or once the queries
    are answered. env: variables for dpdk-rps (test hooks); during: called with the run's
    --file-prefix once the clients are started (a reload while it runs).
    Returns (RunResult-like dict, {index: frames})."""
    total = sum(int(k) for k in consumers.split(','))
    sock = os.path.join(tmp, tag + '-c%u.sock')
    prefix = rpstest.unique_prefix()
    summary = os.path.join(tmp, tag + '_summary.json')
    eal = rpstest.eal_args(prefix, lcores=lcores,
                           vdevs=vdevs or [rpstest.pcap_vdev(rx=inp)])
    app = ['--consumers', consumers, '--consumer-socket', sock, '--consumer-wait',
           str(wait_ms), '--exit-when-idle', '1000'] + list(extra)
    clients = {}

    def start_clients():
        try:
            ask()
        finally:
            if queries is not None:
                done.set()

    def ask():
        # the servers' sockets exist once dpdk-rps created them
        rpstest.wait_for(lambda: all(os.path.exists(sock % c) for c in range(total)),
                         timeout=30)
        for c in present:
            clients[c] = testpmd(tmp, '%s-c%d' % (tag, c), sock % c, interactive)
        if during is not None:
            during(prefix)
        if queries is not None:
            def connected():
                r = rpstest.telemetry(prefix, '/rps/consumers')
                k = r[0].get('/rps/consumers') if r else None
                return k and all(v.get('connected') for v in k['consumers'].values())
            rpstest.wait_for(connected, timeout=30)
            rpstest.wait_traffic(prefix)
            # (/rps/worker takes an lcore: the first worker's; /rps/flow a tuple)
            params = {'/rps/worker': ',1', '/rps/flow': ',udp,198.18.0.1,1000,198.18.0.2,53'}
            cmds = [c + params.get(c, '')
                    for r in rpstest.telemetry(prefix, '/') for c in r.get('/', [])
                    if c.startswith('/rps/')]
            for r in rpstest.telemetry(prefix, *cmds):
                queries.update(r)
            where = (queries.get('/rps/info') or {}).get('metrics')
            if where:
                queries['/metrics'] = urllib.request.urlopen(
                    'http://%s/metrics' % where, timeout=10).read().decode()

    done = threading.Event()
    t = threading.Thread(target=start_clients)
    t.start()
    stop = dict(stop_signal=signal.SIGINT, signal_after=stop_after, after_ready=True,
                stop_event=done if queries is not None else None) \
        if stop_after is not None else {}
    r = rpstest.run_rps(binary, eal, app, timeout=90, summary_path=summary, prefix=prefix,
                        env=env, **stop)
    t.join()
    time.sleep(0.3)
    caps = {c: testpmd_stop(p) for c, p in clients.items()}
    return r, caps, clients


def check_clean_exit(F, ctx, r, tmp, tag):
    """After an exit 0: no word about the consumer sockets (DPDK 22.11's net_memif server,
    before lib/memif, printed "Failed to remove socket file: PATH~" at every clean exit), and
    the sockets gone, PATH and PATH~ alike."""
    out = r.stdout + r.stderr
    left = sorted(glob.glob(os.path.join(tmp, tag + '-c*.sock*')))
    said = [ln for ln in out.splitlines() if 'Failed to remove socket' in ln]
    F.check(not said and not left, '%s: at exit: %s; sockets left: %s' % (ctx, said[:3], left))


def check_shared_groups(F, binary, tmp, inp, frames):
    """4 workers, --consumers 2,1: group 0's consumers 0 and 1 are fed by workers 0 and 2,
    and 1 and 3, each pair sharing its consumer's one queue; group 1's consumer 2 by all
    four. Every frame reaches one consumer of group 0 and consumer 2, byte for byte, each
    flow at one consumer of group 0 and in order everywhere; one mbuf with a reference per
    group; the packet's own accounting is group 0's."""
    # and a steering rule: every UDP flow to consumer 1 (the 2nd of group 0: worker 1)
    # a fixed seed: the 21 TCP flows over the 4 workers 6/6/5/4 (a random seed left a worker
    # none of them about once in a hundred runs, failing the every-worker check below)
    r, caps, clients = run(binary, tmp, inp, 'shared', (0, 1, 2), 30000,
                           ['--stats-interval', '1', '--rule', 'udp -> consumer 1',
                            '--hash-seed', '3'],
                           lcores=LCORES4, consumers='2,1')
    ctx = '4 workers, groups 2,1'
    s = rpstest.check_exit(F, r, ctx)
    if s is None:
        return
    check_clean_exit(F, ctx, r, tmp, 'shared')
    # the live table: a line per consumer with its group, delivered never above the final
    live = {}
    for line in r.stdout.splitlines():
        m = re.match(r'\s+consumer (\d+) \(group (\d)\): delivered (\d+) \([0-9.]+ Mpps\)  '
                     r'dropped consumer_absent (\d+)  consumer_full (\d+)  connected '
                     r'(yes|no)  reconnects (\d+)$', line)
        if m:
            live.setdefault((int(m.group(1)), int(m.group(2))), []).append(int(m.group(3)))
    F.check(sorted(live) == [(0, 0), (1, 0), (2, 1)], '%s: live consumer lines for %s, not '
            'consumers 0 and 1 of group 0 and 2 of group 1:\n%s' % (
                ctx, sorted(live), r.stdout[-1500:]))
    for (c, _), seen in live.items():
        final = s['consumers'][c]['delivered'] if c < len(s['consumers']) else -1
        F.check(seen == sorted(seen) and seen[-1] <= final and max(seen) > 0,
                '%s: consumer %d live delivered %s, final %d' % (ctx, c, seen, final))
    F.check(rpstest.dropped_total(s) == 0, '%s: dropped %s' % (ctx, s['dropped']))
    F.check(s['rx_packets'] == s['processed'] == len(frames), '%s: rx_packets %d processed '
            '%d of %d' % (ctx, s['rx_packets'], s['processed'], len(frames)))
    for c in (0, 1, 2):
        F.check(caps.get(c) is not None, '%s: consumer %d wrote no capture (%s)' % (
            ctx, c, clients[c].log if c in clients else '-'))
    if F.items:
        return
    # group 0: every frame in exactly one capture, byte for byte (the multisets match);
    # group 1: every frame in consumer 2's
    F.check(sorted(caps[0] + caps[1]) == sorted(frames), '%s: group 0 (consumers 0 and 1) '
            'holds %d frames, not the %d replayed byte for byte' % (
                ctx, len(caps[0]) + len(caps[1]), len(frames)))
    F.check(sorted(caps[2]) == sorted(frames), '%s: group 1 (consumer 2) holds %d frames, '
            'not the %d replayed byte for byte' % (ctx, len(caps[2]), len(frames)))
    c0 = in_order(F, ctx, caps[0], 'consumer 0')
    c1 = in_order(F, ctx, caps[1], 'consumer 1')
    c2 = in_order(F, ctx, caps[2], 'consumer 2')
    F.check(not set(c0) & set(c1) and len(c0) + len(c1) == len(c2) == FLOWS and c0 and c1,
            '%s: group 0 split the %d flows %d/%d, %d in both' % (
                ctx, len(c2), len(c0), len(c1), len(set(c0) & set(c1))))
    udp = {rpstest.marker(f)[0] for f in frames if rpstest.parse_l3(f).proto == 17}
    nudp = sum(1 for f in frames if rpstest.parse_l3(f).proto == 17)
    rules = s.get('rules', [])
    F.check(udp and udp <= set(c1) and not udp & set(c0) and len(rules) == 1 and
            rules[0].get('hits') == nudp,
            '%s: rule udp -> consumer 1: %d UDP flows, %d at consumer 1, %d at consumer 0; '
            'rules %r (%d UDP frames)' % (ctx, len(udp), len(udp & set(c1)),
                                          len(udp & set(c0)), rules, nudp))
    cons = s.get('consumers', [])
    F.check([(k['consumer'], k['group'], k['workers']) for k in cons] ==
            [(0, 0, 2), (1, 0, 2), (2, 1, 4)], '%s: consumers %r' % (ctx, cons))
    workers = sorted(s['workers'], key=lambda w: w['lcore'])
    F.check(len(workers) == 4 and all(w['received_rps'] > 0 for w in workers),
            '%s: every one of the 4 workers had flows: %s' % (
                ctx, [w['received_rps'] for w in workers]))
    if len(cons) != 3 or len(workers) != 4:
        return
    for c in (0, 1, 2):
        k = cons[c]
        # group 0's consumer c is fed by workers c and c + 2: either may have sent the
        # other's packets (whichever held the lock); what they received is its delivered
        mine = [workers[c], workers[c + 2]] if c < 2 else workers
        F.check(k['delivered'] == len(caps[c]) == sum(w['received_rps'] for w in mine),
                '%s: consumer %d delivered %d, its capture %d, its workers received %s' % (
                    ctx, c, k['delivered'], len(caps[c]), [w['received_rps'] for w in mine]))
        F.check(k['dropped'] == {'consumer_absent': 0, 'consumer_full': 0} and
                k['connected'] is True and k['reconnects'] == 0,
                '%s: consumer %d: %r' % (ctx, c, k))
    F.check(sum(w['consumer_delivered'] for w in workers) == 2 * len(frames),
            '%s: consumer_delivered %s, not a copy per group' % (
                ctx, [w['consumer_delivered'] for w in workers]))
    print('4 workers, groups 2,1: %d frames, %d flows: group 0 %d and %d, group 1 all, in '
          'order, accounting exact; the %d UDP flows at consumer 1 by the rule' % (
              len(frames), FLOWS, len(caps[0]), len(caps[1]), len(udp)))


def in_order(F, ctx, frames, where_name):
    """Every frame has a marker, each flow's in order. @return {flow: count}."""
    last, count = {}, {}
    for fr in frames:
        m = rpstest.marker(fr)
        if m is None:
            F.fail('%s: %s got a frame without a marker' % (ctx, where_name))
            continue
        flow, seq = m
        if flow in last and seq <= last[flow]:
            F.fail('%s: flow %d out of order at %s (%d after %d)' % (
                ctx, flow, where_name, seq, last[flow]))
        last[flow] = seq
        count[flow] = count.get(flow, 0) + 1
    return count


def check_forward(F, binary, tmp, frames):
    """--forward 0:1 with --consumers 2 on 4 workers (two share each consumer): port 0
    replays A, port 1 B (A's frames with every address and port swapped: the other
    direction). Each side leaves by the other port, unchanged; the consumers see both
    directions, each conversation's two at one consumer (symmetric steering), each
    direction's flow in order; the forward is the packets' own accounting."""
    ctx = 'forward + consumers'
    a = frames
    b = [test_forward.swapped(f) for f in frames]
    pa, pb = os.path.join(tmp, 'fwd_a.pcap'), os.path.join(tmp, 'fwd_b.pcap')
    rpstest.write_pcap(pa, a)
    rpstest.write_pcap(pb, b)
    txa = [os.path.join(tmp, 'fwd_txa%d.pcap' % i) for i in range(4)]
    txb = [os.path.join(tmp, 'fwd_txb%d.pcap' % i) for i in range(4)]
    vdevs = [rpstest.pcap_vdev(rx=pa, tx=txa, name='net_pcap0'),
             rpstest.pcap_vdev(rx=pb, tx=txb, name='net_pcap1')]
    r, caps, clients = run(binary, tmp, None, 'fwd', (0, 1), 30000,
                           ['--forward', '0:1'], lcores=LCORES4, vdevs=vdevs)
    s = rpstest.check_exit(F, r, ctx)
    if s is None:
        return
    check_clean_exit(F, ctx, r, tmp, 'fwd')
    if any(caps.get(c) is None for c in (0, 1)):
        F.fail('%s: a consumer wrote no capture' % ctx)
        return
    out_a = [f for p in txb for f in rpstest.read_pcap(p).frames]  # A leaves by port 1
    out_b = [f for p in txa for f in rpstest.read_pcap(p).frames]
    F.check(sorted(out_a) == sorted(a) and sorted(out_b) == sorted(b),
            '%s: forwarded %d of A by port 1 and %d of B by port 0, not %d each' % (
                ctx, len(out_a), len(out_b), len(a)))
    F.check(sorted(caps[0] + caps[1]) == sorted(a + b), '%s: the consumers hold %d frames, '
            'not the %d of both directions byte for byte' % (
                ctx, len(caps[0]) + len(caps[1]), 2 * len(a)))
    set_a = set(a)
    where = {}
    for c in (0, 1):
        for side, name in ((set_a, 'A'), (None, 'B')):
            part = [f for f in caps[c] if (f in set_a) == (side is not None)]
            for flow in in_order(F, ctx, part, 'consumer %d, direction %s' % (c, name)):
                where.setdefault(flow, set()).add((c, name))
    split = [fl for fl, at in where.items() if len({c for c, _ in at}) != 1 or len(at) != 2]
    F.check(len(where) == FLOWS and not split, '%s: %d conversations, %d not both '
            'directions at one consumer' % (ctx, len(where), len(split)))
    F.check(s['rx_packets'] == s['processed'] == 2 * len(a) and
            rpstest.dropped_total(s) == 0, '%s: rx %d processed %d dropped %s' % (
                ctx, s['rx_packets'], s['processed'], s['dropped']))
    cons = s.get('consumers', [])
    F.check(len(cons) == 2 and all(cons[c]['delivered'] == len(caps[c]) and
                                   cons[c]['workers'] == 2 for c in range(len(cons))),
            '%s: consumers %r, captures %s' % (ctx, cons, [len(caps[c]) for c in (0, 1)]))
    print('forward + consumers: %d frames each way forwarded; consumers got %d and %d, '
          'every conversation both ways at one, in order' % (
              len(a), len(caps[0]), len(caps[1])))


def check_stuck(F, binary, tmp, inp):
    """Backpressure with a consumer that is connected but never reads (testpmd interactive,
    forwarding never started), both workers sharing it, an endless replay, --duration 1: the
    workers wait for it (nothing counted consumer_full while RX runs: RX pauses instead),
    and at exit a second after RX stopped they give up, count what is left consumer_full
    and finish: exit 0, no worker given up on, accounting exact."""
    ctx = 'backpressure, a consumer that never reads'
    vdevs = [rpstest.pcap_vdev(rx=inp, infinite_rx=True)]
    r, caps, clients = run(binary, tmp, None, 'stuck', (0,), 30000,
                           ['--backpressure', 'on', '--duration', '1', '--backlog',
                            str(BACKLOG)], consumers='1',
                           vdevs=vdevs, interactive=True)
    s = rpstest.check_exit(F, r, ctx)
    if s is None:
        return
    k = (s.get('consumers') or [{}])[0]
    full = k.get('dropped', {}).get('consumer_full', -1)
    F.check(k.get('workers') == 2 and k.get('connected') is True and full > 0 and
            k['dropped']['consumer_absent'] == 0 and
            s['dropped']['consumer_full'] == full, '%s: consumer %r, drops %s' % (
                ctx, k, s['dropped']))
    F.check(s['dropped'].get('stranded', 0) == 0 and r.elapsed < 15,
            '%s: %.1f s, stranded %s' % (ctx, r.elapsed, s['dropped'].get('stranded')))
    # waited, not dropped, while RX ran: what was dropped is at most what was in flight at
    # the end (the shared ring, the two backlogs, the bursts), the RX lcore paused meanwhile
    # (--duration counts from the start, the wait for the consumer included: on a loaded
    # machine RX may run too briefly to fill the backlogs, and has no reason to pause)
    paused = s['rx_lcore']['rx_paused']
    bound = 2 * 8 * 32 + 2 * BACKLOG + 4 * 32
    F.check(full <= bound and (paused > 0 or s['rx_packets'] <= bound),
            '%s: %d consumer_full (RX paused %d times, %d received): dropped while RX ran' % (
                ctx, full, paused, s['rx_packets']))
    print('%s: waited (RX paused %d times), %d consumer_full at exit, exit 0 in %.1f s' % (
        ctx, paused, full, r.elapsed))


def check_absent(F, binary, tmp, inp, frames):
    r, caps, clients = run(binary, tmp, inp, 'absent', (0,), 3000)
    ctx = 'consumer 1 absent'
    s = rpstest.check_exit(F, r, ctx)
    if s is None:
        return
    check_clean_exit(F, ctx, r, tmp, 'absent')
    F.check('--consumer-wait 3000: consumer(s) 1 still not connected' in r.stderr + r.stdout,
            '%s: no warning naming consumer 1' % ctx)
    workers = sorted(s['workers'], key=lambda w: w['lcore'])
    cons = s.get('consumers', [])
    if caps.get(0) is None or len(cons) != 2 or len(workers) != 2:
        F.fail('%s: capture %s, consumers %r' % (ctx, caps.get(0) is not None, cons))
        return
    k0, k1 = cons
    F.check(k0['delivered'] == len(caps[0]) == workers[0]['received_rps'],
            '%s: consumer 0 delivered %d, capture %d, its worker received %d' % (
                ctx, k0['delivered'], len(caps[0]), workers[0]['received_rps']))
    F.check(k1['delivered'] == 0 and k1['connected'] is False, '%s: consumer 1 %r' % (ctx, k1))
    F.check(k1['dropped']['consumer_absent'] == workers[1]['received_rps'] > 0,
            '%s: consumer 1 consumer_absent %d, its worker received %d' % (
                ctx, k1['dropped']['consumer_absent'], workers[1]['received_rps']))
    F.check(s['dropped']['consumer_absent'] == k1['dropped']['consumer_absent'] and
            rpstest.dropped_total(s) == k1['dropped']['consumer_absent'],
            '%s: drops %s' % (ctx, s['dropped']))
    F.check(k0['delivered'] + k1['dropped']['consumer_absent'] == len(frames),
            '%s: %d delivered + %d absent != %d' % (
                ctx, k0['delivered'], k1['dropped']['consumer_absent'], len(frames)))
    print('consumer 1 absent: consumer 0 got %d, %d counted consumer_absent, exit 0' % (
        k0['delivered'], k1['dropped']['consumer_absent']))


def check_telemetry_log(F, binary, tmp, inp):
    """Every /rps/ command and /metrics asked while two consumers are connected and the
    capture loops (issue 38): each answers, /rps/stats with the workers' counters, and nothing
    in the log
    names an invalid port (consumers are no ethdev ports: before dpdk-rps had its own memif
    server, /rps/stats read the stats of port 65535 and EAL logged "Invalid port_id=65535")."""
    ctx = 'telemetry with consumers'
    replies = {}
    r, caps, clients = run(binary, tmp, inp, 'tel', (0, 1), 30000,
                           ['--metrics', '0'], queries=replies, stop_after=20,
                           vdevs=[rpstest.pcap_vdev(rx=inp, infinite_rx=True)])
    s = rpstest.check_exit(F, r, ctx)
    if s is None:
        return
    F.check('dpdk_rps_consumer_delivered_total' in (replies.get('/metrics') or ''),
            '%s: no /metrics page with the consumers' % ctx)
    st = replies.get('/rps/stats')
    F.check(isinstance(st, dict) and st.get('processed', 0) > 0 and 'nb_workers' in st,
            '%s: /rps/stats %r' % (ctx, st))
    F.check(len(replies) >= 10 and None not in replies.values(), '%s: %d commands, those '
            'that did not answer: %s' % (ctx, len(replies),
                                         [c for c, v in replies.items() if v is None]))
    bad = [ln for ln in (r.stdout + r.stderr).splitlines() if 'Invalid port_id' in ln]
    F.check(not bad, '%s: the log names an invalid port: %s' % (ctx, bad[:3]))
    print('%s: %d /rps/ commands asked, %d lines naming an invalid port; consumers got %s' % (
        ctx, len(replies), len(bad), {c: len(v or []) for c, v in caps.items()}), flush=True)


def check_reconnect(F, binary, tmp, inp):
    """A consumer killed mid-run (SIGKILL, as a crash) and a new one started at its socket:
    dpdk-rps keeps running, counts consumer 1's packets absent meanwhile and one reconnect,
    the new consumer receives, consumer 0 is not disturbed."""
    ctx = 'reconnect'
    if not rpstest.hooks_built(binary, tmp):
        F.skip(ctx, '%s is %s (the replay is paced by RPS_TEST_RX_DELAY_NS)' % (
            binary, rpstest.NO_HOOKS))
        return
    sock = os.path.join(tmp, 're-c%u.sock')
    prefix = rpstest.unique_prefix()
    eal = rpstest.eal_args(prefix, lcores=LCORES,
                           vdevs=[rpstest.pcap_vdev(rx=inp, infinite_rx=True)])
    app = ['--consumers', '2', '--consumer-socket', sock, '--consumer-wait', '20000']
    clients, tel = {}, {}

    def consumer1():
        # /rps/consumers live: consumer 1's entry, or None
        r = rpstest.telemetry(prefix, '/rps/consumers')
        try:
            return r[0]['/rps/consumers']['consumers']['1']
        except (IndexError, KeyError, TypeError):
            return None

    def script():
        # each step waits for what the last one made (at most 10 s): the old consumer 1
        # receiving; it gone and its packets counted absent; the new one receiving
        try:
            rpstest.wait_for(lambda: all(os.path.exists(sock % c) for c in (0, 1)),
                             timeout=30)
            clients['c0'] = testpmd(tmp, 're-c0', sock % 0)
            clients['old'] = testpmd(tmp, 're-c1-old', sock % 1)
            rpstest.wait_for(lambda: (lambda c: c and c['delivered'] > 0)(consumer1()))
            os.killpg(clients['old'].pid, 9)
            clients['old'].wait()
            rpstest.remove_runtime_dir(clients['old'].prefix)
            tel['gone'] = rpstest.wait_for(lambda: (lambda c: c and c['connected'] == 0 and
                                                    c['dropped_consumer_absent'] > 0 and
                                                    c)(consumer1())) or consumer1()
            clients['new'] = testpmd(tmp, 're-c1-new', sock % 1)
            d0 = (tel['gone'] or {}).get('delivered', 0)
            tel['back'] = rpstest.wait_for(lambda: (lambda c: c and c['connected'] == 1 and
                                                    c['delivered'] > d0 and
                                                    c)(consumer1())) or consumer1()
        finally:
            done.set()

    done = threading.Event()
    t = threading.Thread(target=script)
    t.start()
    r = rpstest.run_rps(binary, eal, app, timeout=90, stop_signal=signal.SIGINT,
                        signal_after=30.0, stop_event=done, prefix=prefix,
                        env={'RPS_TEST_RX_DELAY_NS': '200000'},
                        summary_path=os.path.join(tmp, 're_summary.json'))
    t.join()
    c0 = testpmd_stop(clients['c0'])
    new = testpmd_stop(clients['new'])
    s = rpstest.check_exit(F, r, ctx)
    if s is None:
        return
    gone, back = tel.get('gone'), tel.get('back')
    F.check(gone is not None and gone['connected'] == 0 and gone['reconnects'] == 0 and
            gone['dropped_consumer_absent'] > 0 and
            gone['socket'] == sock % 1,
            '%s: /rps/consumers with consumer 1 gone: %r' % (ctx, gone))
    F.check(back is not None and back['connected'] == 1 and back['reconnects'] == 1,
            '%s: /rps/consumers with consumer 1 back: %r' % (ctx, back))
    cons = s.get('consumers', [])
    if len(cons) != 2:
        F.fail('%s: summary consumers %r' % (ctx, cons))
        return
    k0, k1 = cons
    F.check(k0['reconnects'] == 0 and k0['connected'] is True and
            k0['dropped']['consumer_absent'] == 0 and k0['delivered'] > 0,
            '%s: consumer 0 disturbed: %r' % (ctx, k0))
    F.check(k1['reconnects'] == 1 and k1['connected'] is True,
            '%s: consumer 1 after the restart: %r' % (ctx, k1))
    F.check(k1['dropped']['consumer_absent'] > 0,
            '%s: consumer 1 counted nothing absent while it was gone: %r' % (ctx, k1))
    F.check(new is not None and len(new) > 0,
            '%s: the new consumer 1 received nothing (%s)' % (ctx, clients['new'].log))
    F.check(c0 is not None and len(c0) > 0, '%s: consumer 0 captured nothing' % ctx)
    F.check(s['dropped']['consumer_absent'] == k1['dropped']['consumer_absent'],
            '%s: consumer_absent %d overall, %d at consumer 1' % (
                ctx, s['dropped']['consumer_absent'], k1['dropped']['consumer_absent']))
    print('reconnect: consumer 1 killed and restarted: %d absent meanwhile, 1 reconnect, '
          'the new one got %d; consumer 0 delivered %d (%d full), exit 0' % (
              k1['dropped']['consumer_absent'], len(new or []), k0['delivered'],
              k0['dropped']['consumer_full']))


def connect_as(user, path):
    """Connect to the unix socket @p path as @p user: 'ok' or the error's name."""
    code = ('import socket,sys\ns=socket.socket(socket.AF_UNIX,socket.SOCK_SEQPACKET)\n'
            'try:\n s.connect(sys.argv[1]); print("ok")\n'
            'except OSError as e:\n import errno; print(errno.errorcode.get(e.errno, e))\n')
    r = subprocess.run(['setpriv', '--reuid', str(user), '--regid', str(user), '--clear-groups',
                        sys.executable, '-c', code, path], capture_output=True, text=True,
                       timeout=30)
    return r.stdout.strip() or r.stderr.strip()[-200:]


def check_access(F, binary, tmp, inp):
    """Who may connect: under umask 000 the socket is still 0600 (another user gets
    EACCES); with --consumer-group it is 0660 and of that group; with consumer_secret a
    client without it is refused (counted rejected) and one with it receives."""
    ctx = 'access'
    if os.geteuid() != 0:
        print('%s: skipped (not root: cannot connect as another user)' % ctx)
        return
    sock = os.path.join(tmp, 'acc-c%u.sock')
    cfg = os.path.join(tmp, 'acc.conf')
    with open(cfg, 'w') as f:
        f.write('[dataplane]\nconsumer_secret = s3cret\n')
    os.chmod(cfg, 0o600)
    prefix = rpstest.unique_prefix()
    eal = rpstest.eal_args(prefix, lcores=LCORES,
                           vdevs=[rpstest.pcap_vdev(rx=inp, infinite_rx=True)])
    app = ['--config', cfg, '--consumers', '1', '--consumer-socket', sock,
           '--consumer-wait', '30000']
    seen = {}

    def consumer0():
        r = rpstest.telemetry(prefix, '/rps/consumers')
        try:
            return r[0]['/rps/consumers']['consumers']['0']
        except (IndexError, KeyError, TypeError):
            return None

    def script():
        # each step waits for the last one's effect (at most 10 s): the client without the
        # secret refused, then the one with it receiving
        try:
            rpstest.wait_for(lambda: os.path.exists(sock % 0), timeout=30)
            st = os.stat(sock % 0)
            seen['mode'] = st.st_mode & 0o7777
            seen['nobody'] = connect_as(65534, sock % 0)
            seen['wrong'] = testpmd(tmp, 'acc-wrong', sock % 0, memif_args=',secret=wrong')
            rpstest.wait_for(lambda: (lambda c: c and c['clients_rejected'] > 0)(consumer0()))
            seen['right'] = testpmd(tmp, 'acc-right', sock % 0, memif_args=',secret=s3cret')
            rpstest.wait_for(lambda: (lambda c: c and c['delivered'] > 0)(consumer0()))
        finally:
            done.set()

    done = threading.Event()
    old = os.umask(0)
    try:
        t = threading.Thread(target=script)
        t.start()
        r = rpstest.run_rps(binary, eal, app, timeout=90, stop_signal=signal.SIGINT,
                            signal_after=30.0, stop_event=done, prefix=prefix,
                            summary_path=os.path.join(tmp, 'acc_summary.json'))
        t.join()
    finally:
        os.umask(old)
    got = [testpmd_stop(seen[k]) for k in ('wrong', 'right') if k in seen]
    s = rpstest.check_exit(F, r, ctx)
    F.check(seen.get('mode') == 0o600 and seen.get('nobody') == 'EACCES',
            '%s: under umask 000 the socket is %s, another user: %s' % (
                ctx, oct(seen.get('mode', 0)), seen.get('nobody')))
    F.check('s3cret' not in r.stdout + r.stderr, '%s: the secret in the output' % ctx)
    if s is None:
        return
    k = s['consumers'][0]
    F.check(k['clients']['rejected'] >= 1 and k['clients']['connects'] == 1 and
            k['delivered'] > 0 and len(got) == 2 and got[1],
            '%s: the client without the secret refused, the one with it served: %r' % (ctx, k))
    # --consumer-group: 0660, of that group
    prefix = rpstest.unique_prefix()
    sock = os.path.join(tmp, 'grp-c%u.sock')
    eal = rpstest.eal_args(prefix, lcores=LCORES, vdevs=[rpstest.pcap_vdev(rx=inp)])

    def script2():
        # the server binds (0600), then gives the socket its group and mode: a stat in
        # between sees 0600 and root's group, so wait for the mode (the last seen counts)
        def given():
            try:
                st = os.stat(sock % 0)
            except FileNotFoundError:
                return False
            seen['gmode'], seen['gid'] = st.st_mode & 0o7777, st.st_gid
            return seen['gmode'] == 0o660
        rpstest.wait_for(given, timeout=30)

    t = threading.Thread(target=script2)
    t.start()
    r = rpstest.run_rps(binary, eal, ['--consumers', '1', '--consumer-socket', sock,
                                      '--consumer-group', 'daemon', '--consumer-wait', '1500',
                                      '--exit-when-idle', '500'],
                        timeout=60, prefix=prefix)
    t.join()
    F.check(r.rc == 0 and seen.get('gmode') == 0o660 and seen.get('gid') == 1,
            '%s: --consumer-group daemon: rc %s, mode %s, gid %s' % (
                ctx, r.rc, oct(seen.get('gmode', 0)), seen.get('gid')))
    print('%s: 0600 under umask 000 (nobody: %s), a wrong secret refused, the right one '
          'served; --consumer-group: 0660 gid 1' % (ctx, seen.get('nobody')))


def check_refusals(F, binary, tmp, inp):
    prefix = rpstest.unique_prefix()
    eal = rpstest.eal_args(prefix, lcores=LCORES, vdevs=[rpstest.pcap_vdev(rx=inp)])
    cases = [
        (['--consumers', '3'], '--consumers 3: more consumers than workers'),
        (['--consumers', '2', '--tx-port', '0'], '--consumers 2: the consumers take'),
        (['--consumers', '2', '--consumer-socket', '/tmp/x.sock'], '--consumer-socket'),
        (['--consumer-wait', '100'], '--consumer-wait: only with --consumers'),
        (['--consumers', '17'], '--consumers'),
        (['--consumers', '1,3'], '--consumers 1,3: group 1 has more consumers (3) than '
         'workers (2)'),
        (['--consumers', '1,1,1,1,1'], '--consumers 1,1,1,1,1: at most 4 groups'),
    ]
    # the file's keys as the options, refused naming FILE:LINE
    for i, (text, want) in enumerate([
            ('consumers = 3', '%s:3: consumers = 3: more consumers than workers'),
            ('consumers = 17', '--config: %s:3: consumers: expected 1..16 consumers in each '
             'group'),
            ('consumers = 2,3', '%s:3: consumers = 2,3: group 1 has more consumers'),
            ('consumer_wait_ms = 100', '%s:3: consumer_wait_ms: only with'),
            ('consumers = 2\nconsumer_socket = /tmp/x.sock',
             '--config: %s:4: consumer_socket: expected a path with exactly one %%u')]):
        cfg = os.path.join(tmp, 'refuse%d.conf' % i)
        with open(cfg, 'w') as f:
            f.write('; consumers from the file\n[dataplane]\n%s\n' % text)
        cases.append((['--config', cfg], want % cfg))
    # a path that exists (a stale socket, another dpdk-rps): refused, and left as it was
    taken = os.path.join(tmp, 'taken-c%u.sock')
    with open(taken % 1, 'w') as f:
        f.write('not ours\n')
    cases.append((['--consumers', '2', '--consumer-socket', taken],
                  '--consumers: consumer 1: cannot listen at %s (Address already in use): '
                  'in use by another process' % (taken % 1)))
    # characters a DPDK memif client's vdev arguments would split the path at
    for bad in ('c%u.sock,id=5', 'c%u=x.sock'):
        cases.append((['--consumers', '1', '--consumer-socket', os.path.join(tmp, bad)],
                      "--consumer-socket %s: a ',' or '=' in the path" % os.path.join(tmp, bad)))
    # a folder others may write to (no sticky bit): they could replace the socket
    opendir = os.path.join(tmp, 'open')
    os.mkdir(opendir)
    os.chmod(opendir, 0o777)
    cases.append((['--consumers', '1', '--consumer-socket', os.path.join(opendir, 'c%u.sock')],
                  '--consumers: consumer 0: its socket %s: ' % os.path.join(opendir, 'c0.sock')))
    for app, want in cases:
        r = rpstest.run_rps(binary, eal, app, timeout=30, prefix=prefix)
        F.check(r.rc == 2 and ('dpdk-rps: ' + want) in r.stderr,
                'refusal %s: rc %s, stderr %s' % (app, r.rc, r.stderr[-300:]))
    # consumer 0's socket, published before consumer 1's was refused, is gone with it
    F.check(open(taken % 1).read() == 'not ours\n' and not os.path.exists(taken % 0) and
            not os.path.exists(taken % 1 + '~') and not os.path.exists(taken % 0 + '~'),
            'refused start: consumer sockets left behind or the existing file touched: %s'
            % sorted(os.listdir(tmp)))
    print('refusals: %d cases exit 2 naming the option or FILE:LINE' % len(cases))


# integration-consumers (in the quick suite): the groups and an absent consumer's drops;
# integration-consumers-more: the rest
PARTS = {'core': ('refusals', 'groups', 'absent'),
         'more': ('telemetry', 'forward', 'stuck', 'reconnect', 'access')}


def main():
    binary = rpstest.binary_from_argv()
    mode = sys.argv[2] if len(sys.argv) > 2 else None
    if mode is not None and mode not in PARTS:
        print('usage: test_consumers.py PATH/TO/dpdk-rps [%s]' % '|'.join(PARTS))
        return 2
    want = PARTS[mode] if mode else PARTS['core'] + PARTS['more']
    if shutil.which('dpdk-testpmd') is None:
        print('SKIP: dpdk-testpmd not installed')
        return rpstest.SKIP
    F = rpstest.Failures('test_consumers')
    with rpstest.TempDir('rps-consumers-') as tmp:
        frames = rpstest.gen_traffic.generate_frames(flows=FLOWS, packets_per_flow=PER_FLOW,
                                                     seed=28, frag_datagrams=0, non_ip=0)
        inp = os.path.join(tmp, 'in.pcap')
        rpstest.write_pcap(inp, frames)
        rpstest.write_pcap(os.path.join(tmp, 'empty.pcap'), [])
        parts = [('refusals', lambda: check_refusals(F, binary, tmp, inp)),
                 ('groups', lambda: check_shared_groups(F, binary, tmp, inp, frames)),
                 ('absent', lambda: check_absent(F, binary, tmp, inp, frames)),
                 ('telemetry', lambda: check_telemetry_log(F, binary, tmp, inp)),
                 ('forward', lambda: check_forward(F, binary, tmp, frames)),
                 ('stuck', lambda: check_stuck(F, binary, tmp, inp)),
                 ('reconnect', lambda: check_reconnect(F, binary, tmp, inp)),
                 ('access', lambda: check_access(F, binary, tmp, inp))]
        for name, part in parts:
            if name in want:
                t0 = time.monotonic()
                part()
                print('-- %s: %.1f s' % (name, time.monotonic() - t0), flush=True)
    return F.report()


if __name__ == '__main__':
    sys.exit(main())
