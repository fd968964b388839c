#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_forward_tcp.py: Linux TCP both ways through an inline pair, and nothing else between.

Two network namespaces, rpsfa-PID (198.18.80.1/24) and rpsfb-PID (198.18.80.2/24), each with
one end of a veth pair; the other ends stay in the root namespace, where dpdk-rps holds them
as net_af_packet ports 0 and 1 with --forward 0:1. Nothing else connects the namespaces: ARP
goes through dpdk-rps too. The veths' checksum and segmentation offloads are off (the
frames AF_PACKET hands over must be whole and summed), the receive work of all four veth
ends on one CPU (the kernel's own RPS, rps_cpus), and the AF_PACKET sockets' send buffer
large enough for their TX ring (wmem_default, put back after), so the kernel's side does not
reorder by itself.

0. The respond stage on the pair (a run of its own, so the figures below are without it):
   a ping from each namespace to --respond-ip (198.18.80.254) is answered, and the
   namespace's neighbour entry for it is the MAC of the port on its own side (the root
   namespace's end of its veth): each side answered by its own port; a to b still crosses.
1. ping from a to b: every echo answered (ARP resolved through the pair).
2. iperf3 --bidir, 4 streams each way, paced (20 Mbit/s a stream): both directions complete;
   while it runs, the map is rewritten by SIGHUP every 0.2 s (workers 1,2 / 1 / 2);
   dpdk-rps dropped nothing, its --check-order counted no packet reaching its worker out of
   order, and the senders' reorder counters (nstat TcpExtTCPSACKReorder, TcpExtTCPTSReorder)
   did not rise in either namespace (their retransmission counters are printed).
3. The same iperf3 unpaced through dpdk-rps: both directions move (the figures printed, not
   asserted: speed claims come from benchmarks; tools/forward_bench.py puts them beside
   dpdk-testpmd's io forwarding over the same veths).
Then SIGINT (after each run): exit 0, rx == processed + dropped.

With the argument `inline` (integration-forward-tcp-inline) instead: two dpdk-testpmd memif
clients in the path (--consumer-mode inline, io forwarding, each queue sent back on itself),
ping, then iperf3 --bidir paced with --bypass-after 1M: nothing dropped, each consumer
returned all it was delivered, --check-order 0, every data connection bypassed past
its first MiB (the consumers' deliveries stop growing while the connections go on), no
reorder event; then, with --consumer-fail open, consumer 1 SIGKILLed a second into a paced
iperf3: the connections complete both ways, consumer 1's packets forwarded directly
(fail_open). With a third argument `remaps` (test_forward_tcp.py BINARY inline remaps), first
the same paced iperf3 with the map rewritten every 0.2 s and no bypass, no reorder event
asserted: not in the suite, as beside two CPU hogs Linux TCP saw reordering under those
remaps in 1 run of 2 (a consumer sharing the workers' CPU, docs/consumers.md#limits).

Needs root, `ip netns`, iperf3 and ethtool; exits 77 (skipped) without them. The namespaces
and veths are removed in every case.

usage: test_forward_tcp.py PATH/TO/dpdk-rps [inline]
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rpstest  # noqa: E402  (it puts tools/ on the path)
import veth_pair  # noqa: E402

PID = os.getpid() % 100000
NS = ('rpsfa%d' % PID, 'rpsfb%d' % PID)
HOST = ('rfa%d' % PID, 'rfb%d' % PID)        # root-namespace ends: the DPDK ports
PEER = ('rfan%d' % PID, 'rfbn%d' % PID)      # namespace ends
ADDR = ('198.18.80.1', '198.18.80.2')
RESPOND_ADDR = '198.18.80.254'
LCORES = '0@0,(1-2)@1'
REORDER = ('TcpExtTCPSACKReorder', 'TcpExtTCPTSReorder')
# printed: what a rise of REORDER came with (a delay shows as loss probes and timeouts, a
# reordering as fast retransmits, DSACKs and the receiver's out-of-order queue)
DIAG = ('TcpRetransSegs', 'TcpExtTCPLossProbes', 'TcpExtTCPTimeouts', 'TcpExtTCPFastRetrans',
        'TcpExtTCPDSACKRecv', 'TcpExtTCPOFOQueue')
MAPS = ('0x6', '0x2', '0x4')
KERNEL_CPUS = '1'                            # rps_cpus: CPU 0, the RX lcore's


# the namespaces, veths and the kernel settings that keep its side from reordering:
# tools/veth_pair.py (also tools/forward_bench.py's)
PAIR = veth_pair.VethPair(NS, HOST, PEER, ADDR, KERNEL_CPUS)
in_ns = PAIR.in_ns
setup = PAIR.setup
teardown = PAIR.teardown


def nstat(i):
    """Namespace i's counters (nstat -az --json) as {name: value}, or a string saying why
    they cannot be read: output that is not nstat's JSON, or without a counter of REORDER.
    (Unreadable output once made empty dicts, so zero deltas: the reorder check passed
    whatever TCP saw.)"""
    r = in_ns(i, 'nstat', '-az', '--json', check=False)
    try:
        d = json.loads(r.stdout)
    except ValueError:
        return 'nstat in %s: not JSON (exit %s): %r %r' % (NS[i], r.returncode,
                                                           r.stdout[:200], r.stderr[:200])
    c = next(iter(d.values()), None) if isinstance(d, dict) else None
    missing = [k for k in REORDER if not isinstance((c or {}).get(k), int)]
    if not isinstance(c, dict) or missing:
        return 'nstat in %s: no counter %s in %r' % (NS[i], missing, r.stdout[:200])
    return c


def iperf(seconds, rate=None, streams=4):
    """iperf3 --bidir from a to b; (a->b Mbit/s, b->a Mbit/s, error or None)."""
    return PAIR.iperf(seconds, 5301, rate=rate, streams=streams)


def vdevs(qpairs=2):
    return PAIR.vdevs(qpairs)


def main():
    binary = rpstest.binary_from_argv()
    if os.geteuid() != 0:
        print('SKIP: not root (namespaces and AF_PACKET need it)')
        return rpstest.SKIP
    for tool in ('iperf3', 'ethtool', 'nstat'):
        if shutil.which(tool) is None:
            print('SKIP: no %s' % tool)
            return rpstest.SKIP
    F = rpstest.Failures('test_forward_tcp')
    with rpstest.TempDir('forward_tcp') as tmp:
        try:
            try:
                teardown()
                setup()
            except (RuntimeError, OSError) as e:
                print('SKIP: cannot set up the namespaces and veths: %s' % e)
                return rpstest.SKIP
            if len(sys.argv) > 2 and sys.argv[2] == 'inline':
                if shutil.which('dpdk-testpmd') is None:
                    print('SKIP: no dpdk-testpmd')
                    return rpstest.SKIP
                # remaps with consumers in the path: by hand (`inline-remaps`), not in the
                # suite: beside CPU hogs Linux TCP saw reordering 1 run in 2 (docs/consumers.md#limits)
                if len(sys.argv) > 3 and sys.argv[3] == 'remaps':
                    inline_run(F, binary, tmp, 'remaps')
                inline_run(F, binary, tmp, 'bypass')
                inline_run(F, binary, tmp, 'open')
            else:
                respond_run(F, binary, tmp)
                rule_run(F, binary, tmp)
                run(F, binary, tmp)
        finally:
            teardown()
    return F.report()


def stop_rps(F, proc, prefix, log, summary, ctx):
    """SIGINT: exit 0 and a summary whose accounting holds; the summary, or None."""
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    rpstest.remove_runtime_dir(prefix)
    F.check(proc.returncode == 0, '%s: exit %s; log: %s' % (ctx, proc.returncode,
                                                             open(log).read()[-1500:]))
    if not os.path.exists(summary):
        F.fail('%s: no summary' % ctx)
        return None
    with open(summary) as f:
        s = json.load(f)
    F.extend(rpstest.check_accounting(s), ctx + ': summary')
    return s


def respond_run(F, binary, tmp):
    """Each namespace pings --respond-ip: answered by the port on its own side."""
    prefix = rpstest.unique_prefix()
    summary = os.path.join(tmp, 'respond.json')
    cmd = [binary] + rpstest.eal_args(prefix, lcores=LCORES, vdevs=vdevs(), mem_mb=1024) + \
        ['--', '--forward', '0:1', '--map', '0x6', '--stages', 'parse,flow,respond,output',
         '--respond-ip', RESPOND_ADDR, '--respond-rate', '0', '--summary-json', summary]
    log = os.path.join(tmp, 'dpdk-rps-respond.log')
    proc = rpstest.start_logged(cmd, log)
    try:
        if not F.check(rpstest.wait_ready_socket(prefix) is not None, 'respond: not ready'):
            return
        for i in range(2):
            r = in_ns(i, 'ping', '-c', '5', '-i', '0.1', '-W', '2', RESPOND_ADDR, check=False)
            F.check(' 5 received' in r.stdout, 'respond: ping %s from %s: %s' % (
                RESPOND_ADDR, NS[i], r.stdout[-200:]))
            neigh = in_ns(i, 'ip', 'neigh', 'show', RESPOND_ADDR, check=False).stdout.split()
            with open('/sys/class/net/%s/address' % HOST[i]) as f:
                port_mac = f.read().strip()
            got = neigh[neigh.index('lladdr') + 1] if 'lladdr' in neigh else None
            print('respond: %s resolved %s to %s (port %d, %s: %s)' % (
                NS[i], RESPOND_ADDR, got, i, HOST[i], port_mac), flush=True)
            F.check(got == port_mac, 'respond: %s has %s at %s, expected port %d\'s MAC %s' % (
                NS[i], RESPOND_ADDR, got, i, port_mac))
        r = in_ns(0, 'ping', '-c', '3', '-i', '0.1', '-W', '2', ADDR[1], check=False)
        F.check(' 3 received' in r.stdout, 'respond: ping %s across: %s' % (
            ADDR[1], r.stdout[-200:]))
    finally:
        s = stop_rps(F, proc, prefix, log, summary, 'respond')
    if s is not None:
        echo = sum(w.get('icmp_echo_replies', 0) for w in s['workers'])
        arp = sum(w.get('arp_replies', 0) for w in s['workers'])
        F.check(echo == 10 and arp >= 2, 'respond: %d echo replies (10 expected), %d ARP '
                'replies (2 at least)' % (echo, arp))


def all_flows(prefix):
    """Every flow /rps/flows,64 lists, page by page: [(lcore, flow)], or None."""
    out, first = [], 0
    while True:
        r = rpstest.telemetry(prefix, '/rps/flows,64,%d' % first)
        try:
            fl = r[0]['/rps/flows']
        except (IndexError, KeyError, TypeError):
            return None
        out += [(v['lcore'], v) for k, v in fl.items() if k.isdigit()]
        if 'next' not in fl:
            return out
        first = fl['next']


def rule_run(F, binary, tmp):
    """A rule on a pair takes the connection (issue: it split them): with
    'tcp dport 5301 -> worker 1', iperf3 -P 4 --bidir's connections to port 5301 each sit in
    one flow entry with both directions counted (orig and reply), all on worker 1's lcore
    (2), while the sender's half alone would match the rule."""
    ctx = 'rule on a pair'
    prefix = rpstest.unique_prefix()
    summary = os.path.join(tmp, 'rule_summary.json')
    flows_json = os.path.join(tmp, 'rule_flows.json')
    cmd = [binary] + rpstest.eal_args(prefix, lcores=LCORES, vdevs=vdevs(), mem_mb=1024) + \
        ['--', '--forward', '0:1', '--map', '0x6', '--rule', 'tcp dport 5301 -> worker 1',
         '--summary-json', summary, '--flows-json', flows_json]
    log = os.path.join(tmp, 'dpdk-rps-rule.log')
    proc = rpstest.start_logged(cmd, log)
    seen = {}
    try:
        if not F.check(rpstest.wait_ready_socket(prefix) is not None, '%s: not ready' % ctx):
            return
        in_ns(0, 'ping', '-c', '3', '-i', '0.1', '-W', '2', ADDR[1], check=False)
        import threading

        def sample():
            time.sleep(2.5)
            seen['flows'] = all_flows(prefix)
            # /rps/flow of a server-to-client half (sport 5301): the rule, worker 1's lcore
            for _, f in seen['flows'] or []:
                if f.get('proto') == 6 and f.get('dport') == 5301:
                    r = rpstest.telemetry(prefix, '/rps/flow,tcp,%s,5301,%s,%d' % (
                        f['dst'], f['src'], f['sport']))
                    seen['lookup'] = r[0].get('/rps/flow') if r else None
                    break
        t = threading.Thread(target=sample)
        t.start()
        ab, ba, err = iperf(5, rate='20M')
        t.join()
        F.check(err is None and ab > 40 and ba > 40,
                '%s: iperf3: a->b %.1f, b->a %.1f Mbit/s, error %s' % (ctx, ab, ba, err))
    finally:
        s = stop_rps(F, proc, prefix, log, summary, ctx)
    flows = [(lc, f) for lc, f in (seen.get('flows') or [])
             if f.get('proto') in ('tcp', 6) and 5301 in (f.get('sport'), f.get('dport'))]
    look = seen.get('lookup')
    F.check(isinstance(look, dict) and look['steered_by'] == 'rule' and look['rule'] == 0 and
            look['lcore'] == 2 and list(look['flow']) == ['2'] and
            look['flow']['2']['orig_packets'] > 0 and look['flow']['2']['reply_packets'] > 0,
            '%s: /rps/flow of a reply half: %s' % (ctx, look))
    conns = {}
    for lc, f in flows:
        key = tuple(sorted([(f['src'], f['sport']), (f['dst'], f['dport'])]))
        conns.setdefault(key, []).append((lc, f['orig']['packets'], f['reply']['packets']))
    split = {k: v for k, v in conns.items() if len(v) != 1 or v[0][1] == 0 or v[0][2] == 0}
    off = {k: v for k, v in conns.items() if any(lc != 2 for lc, _, _ in v)}
    F.check(len(conns) >= 8 and not split and not off,
            '%s: %d connections to 5301 in /rps/flows; split or one-way: %s; not on lcore 2: '
            '%s' % (ctx, len(conns), split, off))
    if s is not None:
        hits = [r.get('hits', 0) for r in s.get('rules', [])]
        F.check(hits and hits[0] > 0, '%s: rule hits %s' % (ctx, hits))
    # after the run, --flows-json has every connection (those that closed: 'removed'), each
    # with the worker that carried it: the same ones, none split
    try:
        with open(flows_json) as f:
            fj = json.load(f)
        ended = [(x['lcore'], x) for x in fj.get('flows', []) + fj.get('removed', [])
                 if x.get('proto') == 6 and 5301 in (x.get('sport'), x.get('dport'))]
    except (OSError, ValueError) as e:
        F.fail('%s: --flows-json: %s' % (ctx, e))
        ended = []
    after = {}
    for lc, x in ended:
        key = tuple(sorted([(x['src'], x['sport']), (x['dst'], x['dport'])]))
        after.setdefault(key, []).append((lc, x['orig']['packets'], x['reply']['packets']))
    F.check(set(after) >= set(conns) and len(after) >= 8 and
            all(len(v) == 1 and v[0][0] == 2 and v[0][1] > 0 and v[0][2] > 0
                for v in after.values()),
            '%s: --flows-json after the run: %d connections (%d live ones seen): %s' % (
                ctx, len(after), len(conns), after))
    print('%s: %d connections, each one entry with both directions on lcore 2; after the '
          'run --flows-json has all %d' % (ctx, len(conns), len(after)), flush=True)


def run(F, binary, tmp):
    cfg = os.path.join(tmp, 'fwd.conf')
    with open(cfg, 'w') as f:
        f.write('[map]\ndefault = 0x6\n')
    prefix = rpstest.unique_prefix()
    summary = os.path.join(tmp, 'summary.json')
    cmd = [binary] + rpstest.eal_args(prefix, lcores=LCORES, vdevs=vdevs(), mem_mb=1024) + \
        ['--', '--forward', '0:1', '--config', cfg, '--summary-json', summary, '--check-order']
    log = os.path.join(tmp, 'dpdk-rps.log')
    proc = rpstest.start_logged(cmd, log)
    try:
        if not F.check(rpstest.wait_ready_socket(prefix) is not None, 'not ready'):
            return
        r = in_ns(0, 'ping', '-c', '10', '-i', '0.1', '-W', '2', ADDR[1], check=False)
        F.check(' 10 received' in r.stdout, 'ping %s: %s' % (ADDR[1], r.stdout[-200:]))
        before = [nstat(i) for i in range(2)]
        # paced, with the map rewritten every 0.2 s meanwhile
        import threading
        stop = threading.Event()
        reloads = [0]

        def remap():
            k = 0
            while not stop.wait(0.2):
                k += 1
                with open(cfg, 'w') as f:
                    f.write('[map]\ndefault = %s\n' % MAPS[k % len(MAPS)])
                os.kill(proc.pid, signal.SIGHUP)
                reloads[0] += 1
        t = threading.Thread(target=remap)
        t.start()
        ab, ba, err = iperf(4, rate='20M')
        stop.set()
        t.join()
        after = [nstat(i) for i in range(2)]
        print('paced: a->b %.1f Mbit/s, b->a %.1f Mbit/s, %d map rewrites; error %s' % (
            ab, ba, reloads[0], err), flush=True)
        F.check(err is None and ab > 40 and ba > 40, 'paced iperf3 --bidir: a->b %.1f, '
                'b->a %.1f Mbit/s (4 x 20 expected each way), error %s' % (ab, ba, err))
        F.check(reloads[0] >= 10, 'only %d map rewrites during the run' % reloads[0])
        # Measured on the 2-vCPU guest: with only the namespace ends' receive work on one CPU
        # these rose in about 1 run of 4, with a steady map too (a sender moving between CPUs
        # fed the AF_PACKET ring from two softirqs); with the root-namespace ends' as well, 0
        # in 14 runs quiet or beside nice-19 spinners but 1 in 5 beside a nice-0 CPU hog, and
        # only with map rewrites (frames left in a TX ring past a move); with the send buffer
        # holding the ring too, 0 in 7 beside the hog
        for i in range(2):
            bad = [x for x in (before[i], after[i]) if isinstance(x, str)]
            if bad:
                F.fail('%s: the reorder counters cannot be read: %s' % (NS[i], bad[0]))
                continue
            print('%s: %s' % (NS[i], ', '.join('%s +%d' % (k, after[i].get(k, 0) -
                                                          before[i].get(k, 0))
                                               for k in REORDER + DIAG)))
            for k in REORDER:
                d = after[i].get(k, 0) - before[i].get(k, 0)
                F.check(d == 0, '%s: %s rose by %d: a flow crossed dpdk-rps out of order' % (
                    NS[i], k, d))
        tel = rpstest.Telemetry(prefix)
        st, _ = tel.query('/rps/stats')
        tel.close()
        F.check(st is not None and st['dropped_total'] == 0, 'paced: dropped %s' % (
            st and {k: v for k, v in st.items() if k.startswith('dropped') and v}))
        # unpaced: both directions move
        ab, ba, err = iperf(3)
        print('unpaced through dpdk-rps: a->b %.0f Mbit/s, b->a %.0f Mbit/s' % (ab, ba),
              flush=True)
        F.check(err is None and ab > 0 and ba > 0, 'unpaced iperf3: error %s' % err)
    finally:
        s = stop_rps(F, proc, prefix, log, summary, 'forward')
        if s is not None:
            late = [w.get('reordered') for w in s.get('workers', [])]
            F.check(late and all(x == 0 for x in late), 'forward: --check-order: packets '
                    'reached their worker after a later packet of their flow: %s' % late)


def consumer_client(tmp, sock, tag):
    """dpdk-testpmd as a memif client in the path: io forwarding, two queues each way,
    each sent back on itself."""
    prefix = rpstest.unique_prefix()
    cmd = ['dpdk-testpmd', '--no-huge', '-m', '256', '--no-pci', '--lcores', '0@0,1@1',
           '--file-prefix', prefix, '--log-level', 'lib.eal:warning',
           '--vdev', 'net_memif0,role=client,id=0,socket=%s,socket-abstract=no' % sock,
           '--', '--forward-mode=io', '--port-topology=loop', '--rxq=2', '--txq=2',
           '--total-num-mbufs=8192', '--disable-link-check', '--stats-period', '1']
    log = open(os.path.join(tmp, tag + '.log'), 'w')
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                         start_new_session=True)
    p.prefix = prefix
    return p


def consumer_stop(p, sig=signal.SIGINT):
    if p.poll() is None:
        os.killpg(p.pid, sig)
    try:
        p.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
    rpstest.remove_runtime_dir(p.prefix)


def inline_run(F, binary, tmp, mode):
    """Two testpmd consumers in the path, paced iperf3. remaps: the map rewritten every
    0.2 s, no reorder; bypass: --bypass-after 1M, every data connection past the consumers
    after its first MiB, no reorder; open: consumer 1 killed, its connections go on
    directly (--consumer-fail open)."""
    fail = 'open' if mode == 'open' else 'closed'
    ctx = 'inline, %s' % mode
    cfg = os.path.join(tmp, 'inl.conf')
    with open(cfg, 'w') as f:
        f.write('[map]\ndefault = 0x6\n')
    sock = os.path.join(tmp, 'inl-%s-c%%u.sock' % mode)
    prefix = rpstest.unique_prefix()
    summary = os.path.join(tmp, 'inl_%s.json' % mode)
    cmd = [binary] + rpstest.eal_args(prefix, lcores=LCORES, vdevs=vdevs(), mem_mb=1024) + \
        ['--', '--forward', '0:1', '--config', cfg, '--summary-json', summary,
         '--check-order', '--consumers', '2', '--consumer-mode', 'inline',
         '--consumer-fail', fail, '--consumer-socket', sock, '--consumer-wait', '20000'] + \
        (['--bypass-after', '1M'] if mode == 'bypass' else [])
    log = os.path.join(tmp, 'inl-%s.log' % mode)
    proc = rpstest.start_logged(cmd, log)
    clients = []
    try:
        if not F.check(rpstest.wait_for(lambda: all(os.path.exists(sock % c) for c in (0, 1)),
                                        timeout=30), '%s: no consumer sockets' % ctx):
            return
        clients = [consumer_client(tmp, sock % c, 'inl-%s-c%d' % (mode, c)) for c in (0, 1)]
        if not F.check(rpstest.wait_ready_socket(prefix) is not None, '%s: not ready' % ctx):
            return
        r = in_ns(0, 'ping', '-c', '10', '-i', '0.1', '-W', '2', ADDR[1], check=False)
        F.check(' 10 received' in r.stdout, '%s: ping %s: %s' % (ctx, ADDR[1],
                                                               r.stdout[-200:]))
        before = [nstat(i) for i in range(2)]
        import threading
        stop = threading.Event()
        reloads = [0]

        def remap():
            k = 0
            while not stop.wait(0.2):
                k += 1
                with open(cfg, 'w') as f:
                    f.write('[map]\ndefault = %s\n' % MAPS[k % len(MAPS)])
                os.kill(proc.pid, signal.SIGHUP)
                reloads[0] += 1

        def kill_one():
            if not stop.wait(1.0):
                consumer_stop(clients[1], signal.SIGKILL)
        def delivered():
            r = rpstest.telemetry(prefix, '/rps/consumers')
            try:
                return sum(c['delivered'] for c in
                           r[0]['/rps/consumers']['consumers'].values())
            except (IndexError, KeyError, TypeError, AttributeError):
                return None

        samples = []

        def sample():
            # the consumers' deliveries 2 s and 3.5 s into the run (--bypass-after 1M: by
            # then every data connection is past 1 MiB and bypassed)
            for at in (2.0, 1.5):
                if stop.wait(at):
                    return
                samples.append(delivered())
        t = threading.Thread(target={'remaps': remap, 'open': kill_one}.get(mode, stop.wait))
        t.start()
        ts = threading.Thread(target=sample)
        ts.start()
        ab, ba, err = iperf(4, rate='20M')
        stop.set()
        t.join()
        ts.join()
        after = [nstat(i) for i in range(2)]
        print('%s: paced through 2 consumers in the path: a->b %.1f Mbit/s, b->a %.1f Mbit/s, '
              '%d map rewrites; error %s' % (ctx, ab, ba, reloads[0], err), flush=True)
        # (open: the connections complete; the killed consumer took what it held with it,
        # and TCP's recovery from that loss is slow on a loaded machine: seen at 6 Mbit/s
        # beside two CPU hogs at nice 19)
        F.check(err is None and (ab > 40 and ba > 40 if fail == 'closed' else ab > 0 and
                                 ba > 0),
                '%s: paced iperf3 --bidir: a->b %.1f, b->a %.1f Mbit/s (4 x 20 expected each '
                'way), error %s' % (ctx, ab, ba, err))
        if mode == 'remaps':
            F.check(reloads[0] >= 10, '%s: only %d map rewrites' % (ctx, reloads[0]))
        if mode == 'bypass':
            F.check(len(samples) == 2 and None not in samples and
                    samples[1] - samples[0] < 200,
                    '%s: --bypass-after 1M: the consumers\' deliveries still grew in the '
                    'run\'s last 1.5 s: %s' % (ctx, samples))
            print('%s: --bypass-after 1M: consumers\' deliveries at 2 s and 3.5 s: %s' % (
                ctx, samples), flush=True)
        if fail == 'closed':
            for i in range(2):
                bad = [x for x in (before[i], after[i]) if isinstance(x, str)]
                if bad:
                    F.fail('%s: %s: the reorder counters cannot be read: %s' % (ctx, NS[i],
                                                                               bad[0]))
                    continue
                print('%s: %s: %s' % (ctx, NS[i], ', '.join(
                    '%s +%d' % (k, after[i].get(k, 0) - before[i].get(k, 0))
                    for k in REORDER + DIAG)))
                for k in REORDER:
                    d = after[i].get(k, 0) - before[i].get(k, 0)
                    F.check(d == 0, '%s: %s: %s rose by %d: a flow crossed out of order' % (
                        ctx, NS[i], k, d))
    finally:
        s = stop_rps(F, proc, prefix, log, summary, ctx)
        for p in clients:
            consumer_stop(p)

    if s is None:
        return
    k = s.get('consumers', [])
    if not F.check(len(k) == 2, '%s: consumers %s' % (ctx, k)):
        return
    late = [w.get('reordered') for w in s.get('workers', [])]
    F.check(late and all(x == 0 for x in late), '%s: --check-order: %s' % (ctx, late))
    if fail == 'closed':
        fb = sum(w.get('flows_bypassed', 0) for w in s.get('workers', []))
        F.check(rpstest.dropped_total(s) == 0 and (fb >= 8 if mode == 'bypass' else fb == 0) and
                all(c['returned'] == c['delivered'] > 0 and c['verdict_dropped'] == 0
                    for c in k), '%s: dropped %s, flows_bypassed %d, consumers %s' % (
                        ctx, {x: v for x, v in s['dropped'].items() if v}, fb, k))
    else:
        F.check(k[1]['fail_open']['consumer_absent'] > 0 and k[0]['returned'] > 0,
                '%s: consumer 1 killed: consumers %s' % (ctx, k))
    print('%s: consumers returned %s, fail_open %s, dropped %s' % (
        ctx, [c['returned'] for c in k], [c['fail_open'] for c in k],
        {x: v for x, v in s['dropped'].items() if v}), flush=True)


if __name__ == '__main__':
    sys.exit(main())
