#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_rx_lcores.py: several RX lcores (--rx-lcores) and several RX ports (--rx-port twice,
or the file's rx_port = 0, 1).

The NIC is played as in test_rss_queues.py: flows hashed with Microsoft's Toeplitz key, one
capture per RX queue by a round-robin RETA of 128. Five lcores time-sliced on the box's CPUs
(--lcores '0@0,(1-4)@1'): RX lcores 0 and 1, workers 2, 3 and 4, each worker with one backlog
per RX lcore.
1. One port, 4 queues, per-queue maps sharing workers (queue0 = 2-3, queue1 = 3-4,
   queue2 = 2-4, queue3 = 2 and 4): queues 0 and 2 on RX lcore 0, 1 and 3 on RX lcore 1 (the
   pairs dealt round robin). Every packet received, none dropped, accounting exact; every
   flow on one worker of its queue's map, in order (the TX file of each worker); reordered
   0; each RX lcore received exactly its queues' captures and its backlogs (summary
   rx_lcores[].backlogs) took what it enqueued.
2. Two ports, one queue each: port 0 on RX lcore 0, port 1 on RX lcore 1; the same checks.
3. The 4-queue port looping, the RX lcores from the file (rx_lcores), remaps of [map] default
   and table_size reloads by SIGHUP under traffic, the consumed mbufs freed by the workers
   (--recycle-mbufs off; runs 1 and 2 transmit, and every other test hands them back to
   their RX lcore): reordered 0, flows moved, no reload refused, accounting exact, every
   mbuf back.
4. Usage errors: RX lcores without the main lcore, a worker that is an RX lcore, more RX
   lcores than queues, a malformed list; bad rx_port lists in the file (FILE:LINE and what
   is wrong, both in one run's message).

Runs 1 and 2 (three: 2 ports from the command line and from the file) each take their whole
captures and stop 100 ms after them (--exit-when-idle: nothing arrives once net_pcap has
read the files; idle needs every RX lcore to have found its queues empty and every backlog
empty), with backlogs above the captures' size: nothing depends on timing, so they go two
at a time (rpstest.run_all()) and are checked afterwards, in order. Run 3 starts its remaps
once traffic has reached the workers.

usage: test_rx_lcores.py PATH/TO/dpdk-rps
"""
import os
import random
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rpstest  # noqa: E402

LCORES = '0@0,(1-4)@1'
WORKERS = [2, 3, 4]
QUEUES = 4
RETA = 128
MAPS = {0: [2, 3], 1: [3, 4], 2: [2, 3, 4], 3: [2, 4]}
MAP_CONF = '[map]\nqueue0 = 2-3\nqueue1 = 3-4\nqueue2 = 2-4\nqueue3 = 2:1,4:1\n'
HASH_CONF = '[dataplane]\nhash = toeplitz\nrss_key = %s\n' % rpstest.MS_KEY.hex()


flows = rpstest.toeplitz_flows


frame = rpstest.flow_frame


def split(fls, queues, per_flow, base=0):
    """The NIC: queue = RETA[hash & (RETA - 1)], RETA round robin over the queues.
    Returns ([frames per queue], {steering key: queue})."""
    per_q = [[] for _ in range(queues)]
    key_q = {}
    for f, fl in enumerate(fls):
        q = (fl[5] & (RETA - 1)) % queues
        for seq in range(per_flow):
            fr = frame(fl, base + f, seq)
            per_q[q].append(fr)
            key_q[rpstest.steering_key(fr)] = q
    return per_q, key_q


def write_queues(tmp, tag, per_q):
    paths = []
    for q, frames in enumerate(per_q):
        p = os.path.join(tmp, '%s_q%d.pcap' % (tag, q))
        rpstest.write_pcap(p, frames)
        paths.append(p)
    return paths


def check_rx_lcores(F, s, ctx, want_rx):
    """summary rx_lcores: one entry per RX lcore with the packets of its queues; each
    pair's backlog took what its RX lcore enqueued and its worker processed it all."""
    rxl = s.get('rx_lcores', [])
    if not F.check([r['lcore'] for r in rxl] == sorted(want_rx),
                   '%s: rx_lcores %s, expected lcores %s' % (
                       ctx, [r.get('lcore') for r in rxl], sorted(want_rx))):
        return
    for r in rxl:
        F.check(r['rx_packets'] == want_rx[r['lcore']], '%s: RX lcore %d received %d, its '
                'queues hold %d' % (ctx, r['lcore'], r['rx_packets'], want_rx[r['lcore']]))
        enq = sum(b['enqueued'] for b in r['backlogs'])
        F.check(enq == r['enqueued'], '%s: RX lcore %d enqueued %d, its backlogs took %d'
                % (ctx, r['lcore'], r['enqueued'], enq))
        F.check(all(b['done'] == b['enqueued'] and b['depth'] == 0 for b in r['backlogs']),
                '%s: RX lcore %d: a backlog not drained: %s' % (ctx, r['lcore'],
                                                                r['backlogs']))
        F.check(len(r['backlogs']) == len(WORKERS), '%s: RX lcore %d has %d backlogs' % (
            ctx, r['lcore'], len(r['backlogs'])))
    print('%s: per RX lcore %s' % (ctx, [(r['lcore'], r['rx_packets'], [
        b['enqueued'] for b in r['backlogs']]) for r in rxl]), flush=True)


def check_static(F, res, tx, per_q, key_q, q_rx, ctx):
    """A whole capture, every flow on one worker of its queue's map, in order."""
    frames = [fr for q in per_q for fr in q]
    r = rpstest.check_pcap_run(F, res, tx, len(frames), ctx)
    if r is None:
        return
    s, outs, counts = r
    print('%s: rx %d processed %d, per worker %s' % (ctx, s['rx_packets'], s['processed'],
                                                      counts), flush=True)
    F.extend(rpstest.check_workers_vs_files(s, WORKERS, counts), ctx)
    # every flow in one file, in order (check_outputs reads each key's order in frames:
    # a flow lives in one queue, so the concatenation keeps it)
    F.extend(rpstest.check_outputs(frames, outs, exact=True), ctx)
    reordered = sum(w.get('reordered', 0) for w in s['workers'])
    F.check(reordered == 0, '%s: reordered %d' % (ctx, reordered))
    wrong = 0
    for i, path in enumerate(tx):
        for fr in outs[os.path.basename(path)]:
            q = key_q.get(rpstest.steering_key(fr))
            if q is not None and WORKERS[i] not in MAPS.get(q, WORKERS):
                wrong += 1
    F.check(wrong == 0, '%s: %d packets on a worker outside their queue\'s map' % (ctx, wrong))
    want = {}
    for q, frs in enumerate(per_q):
        want[q_rx[q]] = want.get(q_rx[q], 0) + len(frs)
    check_rx_lcores(F, s, ctx, want)


def one_port(binary, tmp, fls):
    """Runs the capture; returns the function that checks the run."""
    per_q, key_q = split(fls, QUEUES, 3)
    paths = write_queues(tmp, 'one', per_q)
    cfg = os.path.join(tmp, 'one.conf')
    with open(cfg, 'w') as fh:
        fh.write(HASH_CONF + MAP_CONF)
    prefix = rpstest.unique_prefix()
    tx = [os.path.join(tmp, 'one_w%d.pcap' % i) for i in range(len(WORKERS))]
    vdev = 'net_pcap0,' + ','.join(['rx_pcap=%s' % p for p in paths] +
                                   ['tx_pcap=%s' % t for t in tx])
    eal = rpstest.eal_args(prefix, lcores=LCORES, vdevs=[vdev])
    res = rpstest.run_rps(binary, eal, [
        '--config', cfg, '--rx-lcores', '0,1', '--tx-port', '0', '--stages', 'output',
        '--check-order', '--backlog', '8192', '--exit-when-idle', '100'],
        timeout=120, summary_path=os.path.join(tmp, 'one.json'), prefix=prefix)
    # pair q (port 0, queue q) -> RX lcore q mod 2: lcores 0 and 1
    return lambda F: check_static(F, res, tx, per_q, key_q, {q: q % 2 for q in range(QUEUES)},
                                  '4 queues, 2 RX lcores')


def two_ports(binary, tmp, fls, from_file=False):
    """Runs the captures; returns the function that checks the run."""
    half = len(fls) // 2
    name = 'two_file' if from_file else 'two'
    q0, k0 = split(fls[:half], 1, 3)
    q1, k1 = split(fls[half:], 1, 3, base=half)
    p0 = write_queues(tmp, name + '_p0', q0)[0]
    p1 = write_queues(tmp, name + '_p1', q1)[0]
    prefix = rpstest.unique_prefix()
    tx = [os.path.join(tmp, '%s_w%d.pcap' % (name, i)) for i in range(len(WORKERS))]
    vdevs = ['net_pcap0,rx_pcap=%s,' % p0 + ','.join('tx_pcap=%s' % t for t in tx),
             'net_pcap1,rx_pcap=%s' % p1]
    eal = rpstest.eal_args(prefix, lcores=LCORES, vdevs=vdevs)
    if from_file:  # both ports from the file's list (rx_port = 0, 1)
        cfg = os.path.join(tmp, 'two.conf')
        with open(cfg, 'w') as fh:
            fh.write('[dataplane]\nrx_port = 0, 1\nrx_lcores = 0-1\n[map]\ndefault = 2-4\n')
        ports = ['--config', cfg]
    else:
        ports = ['--rx-port', '0', '--rx-port', '1', '--rx-lcores', '0-1', '--map', '2-4']
    tag = '2 ports%s, 2 RX lcores' % (' (rx_port = 0, 1)' if from_file else '')
    res = rpstest.run_rps(binary, eal, ports + [
        '--tx-port', '0', '--stages', 'output', '--check-order', '--backlog', '8192',
        '--exit-when-idle', '100'],
        timeout=120, summary_path=os.path.join(tmp, name + '.json'), prefix=prefix)

    def check(F):
        key_q = {}  # the map is the same for both: any worker
        check_static(F, res, tx, [q0[0], q1[0]], key_q, {0: 0, 1: 1}, tag)
        if res.summary is not None:
            F.check(res.summary['port']['ipackets'] == len(q0[0]) + len(q1[0]),
                    '2 ports: the ports received %d, expected %d (both summed)' % (
                        res.summary['port']['ipackets'], len(q0[0]) + len(q1[0])))
    return check


def remaps(F, binary, tmp, fls):
    per_q, _ = split(fls, QUEUES, 16)
    paths = write_queues(tmp, 'loop', per_q)
    cfg = os.path.join(tmp, 'loop.conf')
    # the RX lcores from the file this time (rx_lcores, restart): a reload that keeps them
    # needs no restart
    body = HASH_CONF + 'rx_lcores = 0-1\ntable_size = %d\n[map]\ndefault = %s\n'
    masks = ['2-3', '2-4', '3-4', '4-4', '2:1,4:1', '3-3', '2-2']
    sizes = [128, 256, 64]
    with open(cfg, 'w') as fh:
        fh.write(body % (128, '2-4'))
    prefix = rpstest.unique_prefix()
    summary = os.path.join(tmp, 'loop.json')
    vdev = 'net_pcap0,' + ','.join('rx_pcap=%s' % p for p in paths) + ',infinite_rx=1'
    eal = rpstest.eal_args(prefix, lcores=LCORES, vdevs=[vdev])
    cmd = [binary] + eal + ['--', '--config', cfg, '--check-order', '--recycle-mbufs', 'off',
                            '--backlog', '4096', '--stages', 'parse,output',
                            '--summary-json', summary]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    rpstest.drain(proc)
    n = 60
    try:
        F.check(rpstest.wait_ready_socket(prefix) is not None, 'remaps: never ready')
        # traffic through the workers before the first remap
        rpstest.wait_traffic(prefix)
        for i in range(n):
            with open(cfg, 'w') as fh:
                fh.write(body % (sizes[(i // 10) % len(sizes)], masks[i % len(masks)]))
            os.kill(proc.pid, signal.SIGHUP)
            time.sleep(0.03)
        time.sleep(0.5)
    finally:
        out, err = rpstest.stop(proc, prefix)
    s = rpstest.check_stopped(F, proc, err, summary, 'remaps')
    if s is None:
        return
    errs = err.decode(errors='replace')
    F.check('need a restart' not in errs and 'refused' not in errs,
            'remaps: a reload was refused or wants a restart: %s' % [
                ln for ln in errs.splitlines() if 'restart' in ln or 'refused' in ln][:3])
    reordered = sum(w['reordered'] for w in s['workers'])
    rxl = s.get('rx_lcores', [])
    print('remaps: rx %d processed %d reordered %d flows_migrated %d deferred %d; per RX '
          'lcore rx %s' % (s['rx_packets'], s['processed'], reordered,
                           s['rx_lcore']['flows_migrated'],
                           s['rx_lcore']['migrations_deferred'],
                           [r['rx_packets'] for r in rxl]), flush=True)
    F.check(reordered == 0, 'remaps on 2 RX lcores: reordered %d, expected 0' % reordered)
    F.check(s['rx_lcore']['flows_migrated'] > 0, 'remaps: nothing migrated')
    F.check(len(rxl) == 2 and all(r['rx_packets'] > 0 for r in rxl),
            'remaps: an RX lcore received nothing: %s' % [r.get('rx_packets') for r in rxl])
    F.check(sum(r['rx_packets'] for r in rxl) == s['rx_packets'],
            'remaps: RX lcores received %d in all, rx_packets %d' % (
                sum(r['rx_packets'] for r in rxl), s['rx_packets']))


def usage(F, binary, tmp):
    per_q, _ = split(flows(random.Random(3), 8), 1, 1)
    inp = write_queues(tmp, 'usage', per_q)[0]
    cases = [
        (['--rx-lcores', '1'], ['must include the EAL main lcore']),
        (['--rx-lcores', '0,1', '--map', '1-3'], ['is an RX lcore']),
        (['--rx-lcores', '0,1'], ['each RX lcore needs a queue']),
        (['--rx-lcores', '0,,1'], ['expected a list of lcores']),
        (['--rx-lcores', '0,9'], ['not enabled in EAL']),
    ]
    # rx_port's list in the file: each error names the file and line, and what is wrong
    for k, (value, words) in enumerate((('0,0', 'port 0 given twice'),
                                        ('0,', 'expected a port or a list'),
                                        ('0,99', 'rx_port:'),
                                        ('0,1,2,3,4,5,6,7,8', 'at most 8'))):
        cfg = os.path.join(tmp, 'usage%d.conf' % k)
        with open(cfg, 'w') as fh:
            fh.write('[dataplane]\nrx_port = %s\n' % value)
        cases.append((['--config', cfg], ['%s:2: ' % cfg, words]))

    def go(app):
        prefix = rpstest.unique_prefix()
        eal = rpstest.eal_args(prefix, lcores=LCORES, vdevs=[rpstest.pcap_vdev(rx=inp)])
        return rpstest.run_rps(binary, eal, app + ['--exit-when-idle', '100'], timeout=30,
                               prefix=prefix)

    # two at a time: each exits at start-up, nothing depends on timing
    done = rpstest.run_all([lambda app=app: go(app) for app, _ in cases])
    for (app, words), res in zip(cases, done):
        missing = [w for w in words if w not in res.stderr]
        F.check(res.rc == 2 and not missing, 'usage %s: exit %s, expected 2 with %s: %s' % (
            app, res.rc, ' and '.join('"%s"' % w for w in missing or words),
            res.stderr[-400:]))


def main():
    binary = rpstest.binary_from_argv()
    F = rpstest.Failures('test_rx_lcores')
    fls = flows(random.Random(16), 1024)
    with rpstest.TempDir('rxlc') as tmp:
        # the three whole-capture runs two at a time (nothing in them depends on timing),
        # then their checks in order
        for check in rpstest.run_all([lambda: one_port(binary, tmp, fls),
                                      lambda: two_ports(binary, tmp, fls),
                                      lambda: two_ports(binary, tmp, fls, from_file=True)]):
            check(F)
        remaps(F, binary, tmp, fls[:256])
        usage(F, binary, tmp)
    return F.report()


if __name__ == '__main__':
    sys.exit(main())
