#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_metrics.py: --metrics serves the counters to real Prometheus clients.

1. Bad values: --metrics 99999, host:abc, ... and the config file's metrics = 99999 exit 2
   naming the option (or FILE:LINE); a port another socket holds exits 2 saying it is in
   use, before any port is set up.
2. Live: a looping capture through three workers, --metrics 0 (a free port, read from
   /rps/info). /metrics is fetched with curl several times and parsed with
   prometheus_client's parser (python3-prometheus-client): every per-lcore counter of
   lib/rps/rps_counters.h with its help text, every drop reason per lcore, the gauges; no
   series twice; counters never go down between scrapes; the processed sum lies between
   /rps/stats read just before and just after. OpenMetrics when asked (Accept), with its
   parser; 404, 405, HEAD; docs/grafana-dashboard.json uses only series the page has.
3. Exact: a finite capture with malformed packets and a one-packet backlog (drops of several
   reasons), over [::1] when the host has IPv6: once traffic has stopped, a scrape equals the
   exit summary exactly (rx, processed and drops per lcore and reason, tx, port). Again
   without steering (--map 0): the RX lcore is listed once.
4. Shutdown: scrapes in a loop (curl and http.client) while SIGINT arrives, at a different
   moment each run: exit 0, the summary exact, no mbuf leaked.
5. Slow clients (test_metrics.py BINARY slow, integration-metrics-slow-clients): 200
   connections each send half a request line and then nothing; a normal scrape still answers
   within 1 s (it took 50 s when the server took 32 clients at once), every silent
   connection is closed by the server within its timeout (5 s) plus a margin, and a scrape
   after that still answers. Needs no test hook.
6. Docs (test_metrics.py BINARY docs, integration-metrics-docs; issue 38): every metric name
   README.md and docs/*.md write (dpdk_rps_..., a * or a trailing _ a pattern) is a series
   of a live /metrics page, as the page writes it (a counter with its _total), the pages of
   two runs: three workers steering, and one with a consumer (no client) and a steering
   rule, whose families only appear then; and no rps_NAME where dpdk_rps_NAME[_total] is a
   series (docs/rules.md said rps_rule_hits for dpdk_rps_rule_hits_total). Needs no test
   hook.

usage: test_metrics.py PATH/TO/dpdk-rps [slow|docs]
"""

import http.client
import json
import os
import re
import select
import signal
import socket
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rpstest  # noqa: E402

try:
    import prometheus_client  # noqa: F401
except ImportError:
    # Debian's python3-prometheus-client installs for the system python; a python3 of
    # pyenv or a venv earlier in PATH does not see it
    sys.path.append('/usr/lib/python3/dist-packages')
try:
    from prometheus_client.parser import text_string_to_metric_families as parse_text
    from prometheus_client.openmetrics.parser import \
        text_string_to_metric_families as parse_om
except ImportError as e:
    sys.exit('FAIL: prometheus_client is missing (%s): scripts/bootstrap.sh installs '
             'python3-prometheus-client' % e)

WORKERS = ['1', '2', '3']
SHUTDOWN_RUNS = 4
CURL = 'curl'


def counters_of_header():
    """{counter: help} and [drop reasons] from lib/rps/rps_counters.h."""
    hdr = open(os.path.join(rpstest.SRC_ROOT, 'lib', 'rps', 'rps_counters.h')).read()
    hdr = hdr[:hdr.index('#define RPS_PORT_COUNTERS')]  # the per-port ones have a port label
    reasons = re.findall(r'^\s*X\(\w+, (\w+), "', hdr, re.M)
    counters = dict(re.findall(r'^\s*X\((\w+), "((?:[^"\\]|\\.)*)"\)', hdr, re.M))
    return counters, reasons


def curl(url, accept=None, extra=()):
    """GET url with curl: (status, content type, body)."""
    cmd = [CURL, '-sS', '-g', '-m', '10', '-o', '-', '-w', '\n%{http_code} %{content_type}']
    if accept:
        cmd += ['-H', 'Accept: ' + accept]
    p = subprocess.run(cmd + list(extra) + [url], capture_output=True, text=True, timeout=20)
    if p.returncode != 0:
        return None, None, p.stderr
    body, _, tail = p.stdout.rpartition('\n')
    code, _, ctype = tail.partition(' ')
    return int(code), ctype, body


class Scrape:
    """A parsed page: families by name and {(sample name, labels): value}."""

    def __init__(self, text, om=False):
        self.text = text
        self.families = {f.name: f for f in (parse_om if om else parse_text)(text)}
        self.values = {}
        self.dups = []
        for f in self.families.values():
            for s in f.samples:
                k = (s.name, tuple(sorted(s.labels.items())))
                if k in self.values:
                    self.dups.append(k)
                self.values[k] = s.value

    def get(self, name, **labels):
        return self.values.get((name, tuple(sorted(labels.items()))))

    def series(self, name):
        """{labels dict as a sorted tuple: value} of one sample name."""
        return {k[1]: v for k, v in self.values.items() if k[0] == name}

    def total(self, name, **match):
        return sum(v for lab, v in self.series(name).items()
                   if all(dict(lab).get(a) == b for a, b in match.items()))

    def kind(self, name):
        f = self.families.get(name)
        return f.type if f else None


def scrape(F, url, ctx, accept=None):
    code, ctype, body = curl(url, accept)
    if not F.check(code == 200, '%s: curl %s: %s %s' % (ctx, url, code, body[-300:]
                                                     if body else '')):
        return None
    om = accept is not None
    want = 'application/openmetrics-text' if om else 'text/plain; version=0.0.4'
    F.check(ctype.startswith(want), '%s: Content-Type %r, expected %s' % (ctx, ctype, want))
    try:
        s = Scrape(body, om=om)
    except Exception as e:  # the parser's own errors are ValueError, TypeError, ...
        F.fail('%s: the %s parser refused the page: %r\n%s' % (
            ctx, 'OpenMetrics' if om else 'Prometheus', e, body[:2000]))
        return None
    F.check(not s.dups, '%s: series given twice: %s' % (ctx, s.dups[:5]))
    return s


def start(binary, rx, lcores, app, infinite=False, env=None):
    prefix = rpstest.unique_prefix()
    eal = rpstest.eal_args(prefix, lcores=lcores,
                           vdevs=[rpstest.pcap_vdev(rx=rx, infinite_rx=infinite)])
    proc = subprocess.Popen([binary] + eal + ['--'] + app, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                            start_new_session=True,
                            env=dict(os.environ, **env) if env else None)
    return proc, prefix


def stats(prefix):
    r = rpstest.telemetry_socket(prefix, '/rps/stats')
    return r[0].get('/rps/stats') if r else None


# ------------------------------------------------------------------------- 1. bad values

def bad_values(F, binary, tmp):
    def go(app, conf):
        return rpstest.run_until_idle(binary, tmp, app, conf=conf)

    rpstest.check_usage_errors(F, go, [
        (['--metrics', '99999'], None, ['--metrics 99999', 'out of range']),
        (['--metrics', 'host:abc'], None, ['--metrics host:abc', 'not a number']),
        (['--metrics', 'host:9100'], None, ['--metrics host:9100', 'not a numeric']),
        (['--metrics', '1.2.3.4'], None, ['--metrics 1.2.3.4', 'expected PORT']),
        (['--metrics', '::1:9100'], None, ['--metrics ::1:9100', 'brackets']),
        # a bracket without a colon: a NULL dereference (exit 139) before the fix
        (['--metrics', '9100]'], None, ['--metrics 9100]', 'brackets']),
        (['--metrics', ''], None, ['--metrics', 'empty']),
        (['--metrics'], None, ['--metrics', 'needs an argument']),
        ([], '[dataplane]\nmetrics = 99999\n', ['bad.conf:2', 'metrics', 'out of range']),
        ([], '[dataplane]\nmetrics = 9100]\n', ['bad.conf:2', 'metrics', 'brackets']),
    ])
    # a port in use: another socket listens there
    holder = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    holder.bind(('127.0.0.1', 0))
    holder.listen(1)
    port = holder.getsockname()[1]
    try:
        for app, conf, words in (
                (['--metrics', '127.0.0.1:%d' % port], None,
                 ['--metrics 127.0.0.1:%d' % port, 'Address already in use']),
                (['--metrics', str(port)], None, ['--metrics 127.0.0.1:%d' % port, 'in use']),
                ([], '[dataplane]\nmetrics = %d\n' % port,
                 ['bad.conf', 'metrics = 127.0.0.1:%d' % port, 'in use'])):
            r = go(app, conf)
            label = 'port in use: %s' % (' '.join(app) or 'config metrics = %d' % port)
            print('%-60s exit %s' % (label, r.rc), flush=True)
            if F.check(r.rc == 2, '%s: exit %s, expected 2' % (label, r.rc), r):
                missing = [w for w in words if w not in r.stderr]
                F.check(not missing, '%s: stderr does not mention %s: %r' % (
                    label, missing, r.stderr[-600:]))
                F.check('RPS: ready' not in r.stderr and 'RPS: port 0 (' not in r.stderr,
                        '%s: refused only after setting up the ports' % label, r)
    finally:
        holder.close()


# ------------------------------------------------------------------------- 2. live

def check_page(F, s, ctx, counters, reasons, lcores, workers):
    """The contents every page must have."""
    for c, desc in counters.items():
        gauge = c in ('flows_active', 'flow_bucket_max', 'elephants_active')
        fam = s.families.get('dpdk_rps_' + c)
        if not F.check(fam is not None, '%s: no family dpdk_rps_%s' % (ctx, c)):
            continue
        F.check(fam.type == ('gauge' if gauge else 'counter'), '%s: dpdk_rps_%s is a %s' % (
            ctx, c, fam.type))
        F.check(fam.documentation == desc.replace('\\"', '"'),
                '%s: dpdk_rps_%s help %r, rps_counters.h says %r' % (
                    ctx, c, fam.documentation, desc))
        name = 'dpdk_rps_%s%s' % (c, '' if gauge else '_total')
        missing = [l for l in lcores if s.get(name, lcore=l) is None]
        F.check(not missing, '%s: %s has no sample for lcore %s' % (ctx, name, missing))
    F.check(s.kind('dpdk_rps_dropped') == 'counter', '%s: no counter dpdk_rps_dropped' % ctx)
    for l in lcores:
        for r in reasons:
            v = s.get('dpdk_rps_dropped_total', lcore=l, reason=r)
            rx_side = r in ('backlog_full', 'mbuf_budget', 'flow_limit') and l not in workers
            if workers and rx_side:
                F.check(v is None, '%s: dropped{lcore=%s,reason=%s} on the RX lcore: it '
                        'belongs to the workers' % (ctx, l, r))
            else:
                F.check(v is not None, '%s: no dropped_total{lcore=%s,reason=%s}' % (
                    ctx, l, r))
    for w in workers:
        for g in ('dpdk_rps_backlog_depth', 'dpdk_rps_backlog_hwm', 'dpdk_rps_backlog_capacity',
                  'dpdk_rps_worker_buckets', 'dpdk_rps_worker_stalls_total'):
            F.check(s.get(g, lcore=w) is not None, '%s: no %s{lcore=%s}' % (ctx, g, w))
        health = [s.get('dpdk_rps_worker_health', lcore=w, state=st)
                  for st in ('ok', 'stalled', 'recovering')]
        F.check(sorted(health) == [0, 0, 1], '%s: worker_health of lcore %s not one-hot: %s'
                % (ctx, w, health))
    for g in ('dpdk_rps_imbalance', 'dpdk_rps_config_generation', 'dpdk_rps_ready',
              'dpdk_rps_uptime_seconds', 'dpdk_rps_rebalance_runs_total',
              'dpdk_rps_buckets_moved_total'):
        F.check(s.get(g) is not None, '%s: no %s' % (ctx, g))
    F.check(s.get('dpdk_rps_ready') == 1, '%s: dpdk_rps_ready %s' % (ctx, s.get('dpdk_rps_ready')))
    F.check((s.get('dpdk_rps_config_generation') or 0) >= 1, '%s: config_generation %s' % (
        ctx, s.get('dpdk_rps_config_generation')))
    for p in ('ipackets', 'imissed', 'ierrors', 'rx_nombuf'):
        F.check(s.get('dpdk_rps_port_%s_total' % p, port='0') is not None,
                '%s: no dpdk_rps_port_%s_total{port="0"}' % (ctx, p))
    budget = {p: s.get('dpdk_rps_mbuf_budget', part=p)
              for p in ('pool', 'reserve', 'worker_share', 'backlog_cap', 'frag_budget')}
    F.check(None not in budget.values() and budget['pool'] >= budget['reserve'] +
            max(1, len(workers)) * budget['worker_share'],
            '%s: dpdk_rps_mbuf_budget %s: the shares do not fit the pool' % (ctx, budget))
    F.check(len(s.series('dpdk_rps_build_info')) == 1, '%s: no dpdk_rps_build_info' % ctx)
    roles = {dict(k)['lcore']: dict(k)['role'] for k in s.series('dpdk_rps_lcore_info')}
    F.check(sorted(roles) == sorted(lcores), '%s: dpdk_rps_lcore_info lists %s, expected %s'
            % (ctx, sorted(roles), sorted(lcores)))


def monotonic(F, a, b, ctx):
    """Every counter sample of a is in b, not smaller."""
    down = []
    for k, v in a.values.items():
        fam = k[0][:-len('_total')] if k[0].endswith('_total') else None
        if fam is None or a.kind(fam) != 'counter':
            continue
        w = b.values.get(k)
        if w is None or w < v:
            down.append((k, v, w))
    F.check(not down, '%s: %d counters went down or vanished, e.g. %s' % (
        ctx, len(down), down[:3]))


def live(F, binary, tmp, counters, reasons):
    inp = os.path.join(tmp, 'loop.pcap')
    rpstest.write_pcap(inp, rpstest.gen_traffic.generate_frames(
        flows=128, packets_per_flow=4, seed=3, non_ip=4))
    proc, prefix = start(binary, inp, '0@0,(1-3)@1', ['--map', '1-3', '--metrics', '0'],
                         infinite=True)
    ctx = 'live'
    try:
        info = rpstest.wait_ready_socket(prefix)
        if not F.check(info is not None, '%s: never ready' % ctx):
            return
        where = info.get('metrics', '')
        print('%s: /rps/info metrics = %r' % (ctx, where), flush=True)
        if not F.check(re.match(r'^127\.0\.0\.1:[1-9][0-9]*$', where or ''),
                       '%s: /rps/info metrics %r: expected 127.0.0.1:PORT' % (ctx, where)):
            return
        url = 'http://%s/metrics' % where
        pages = []
        # at least 4 scrapes, and until processed has risen (a busy shared CPU can hold the
        # workers back for a while): at most 30
        for i in range(30):
            if len(pages) >= 4 and pages[-1].total('dpdk_rps_processed_total') > \
                    pages[0].total('dpdk_rps_processed_total'):
                break
            before = stats(prefix)
            s = scrape(F, url, '%s scrape %d' % (ctx, i))
            after = stats(prefix)
            # a /rps/stats that did not answer is a failure, not the end of the checks
            if not F.check(before is not None and after is not None,
                           '%s scrape %d: /rps/stats did not answer (before %s, after %s)' % (
                               ctx, i, before is not None, after is not None)) or s is None:
                return
            pages.append(s)
            got = s.total('dpdk_rps_processed_total')
            print('%s scrape %d: %d lines, processed %d (telemetry %d..%d)' % (
                ctx, i, s.text.count('\n'), got, before['processed'], after['processed']),
                flush=True)
            F.check(before['processed'] <= got <= after['processed'],
                    '%s scrape %d: processed %d not within /rps/stats %d..%d' % (
                        ctx, i, got, before['processed'], after['processed']))
            rx = s.get('dpdk_rps_rx_packets_total', lcore='0')
            F.check(before['rx_packets'] <= rx <= after['rx_packets'],
                    '%s scrape %d: rx_packets %s not within /rps/stats %d..%d' % (
                        ctx, i, rx, before['rx_packets'], after['rx_packets']))
            time.sleep(0.1)
        check_page(F, pages[-1], ctx, counters, reasons, ['0'] + WORKERS, WORKERS)
        # docs/grafana-dashboard.json asks only for series the page has
        dash = json.load(open(os.path.join(rpstest.SRC_ROOT, 'docs', 'grafana-dashboard.json')))
        exprs = [t['expr'] for p in dash['panels'] for t in p['targets']]
        names = set(re.findall(r'dpdk_rps_\w+', ' '.join(exprs)))
        have = {k[0] for k in pages[-1].values}
        F.check(len(names) > 10 and names <= have, '%s: the Grafana dashboard uses %s, which '
                '/metrics does not have' % (ctx, sorted(names - have)))
        for i in range(1, len(pages)):
            monotonic(F, pages[i - 1], pages[i], '%s scrapes %d..%d' % (ctx, i - 1, i))
        F.check(pages[-1].total('dpdk_rps_processed_total') >
                pages[0].total('dpdk_rps_processed_total'),
                '%s: processed did not rise across scrapes under traffic' % ctx)
        F.check(pages[-1].get('dpdk_rps_uptime_seconds') >
                pages[0].get('dpdk_rps_uptime_seconds'), '%s: uptime did not rise' % ctx)
        # OpenMetrics, as Prometheus asks for it
        om = scrape(F, url, ctx + ' OpenMetrics', accept='application/openmetrics-text;'
                    'version=1.0.0,text/plain;version=0.0.4;q=0.5,*/*;q=0.1')
        if om is not None:
            F.check(om.text.endswith('# EOF\n'), '%s: OpenMetrics page without # EOF' % ctx)
            F.check(om.kind('dpdk_rps_processed') == 'counter' and
                    om.kind('dpdk_rps_build') == 'info',
                    '%s: OpenMetrics types: processed %s, build %s' % (
                        ctx, om.kind('dpdk_rps_processed'), om.kind('dpdk_rps_build')))
            check_page(F, om, ctx + ' OpenMetrics', counters, reasons, ['0'] + WORKERS,
                       WORKERS)
        # the rest of HTTP
        base = 'http://%s' % where
        for path, extra, want in (('/nothing', (), 404), ('/metrics', ('-X', 'POST', '-d', 'x'),
                                                         405),
                                  ('/', (), 200), ('/metrics', ('-I',), 200)):
            code, _, _ = curl(base + path, extra=extra)
            F.check(code == want, '%s: %s %s: HTTP %s, expected %d' % (
                ctx, ' '.join(extra), path, code, want))
    finally:
        out, err = rpstest.stop(proc, prefix)
    F.check(proc.returncode == 0, '%s: exit %s: %s' % (ctx, proc.returncode,
                                                      err.decode(errors='replace')[-1500:]))


# ------------------------------------------------------------------------- 3. exact

def with_malformed(frames, n=30):
    """frames with, after each of the first n untagged IPv4 TCP frames, a copy with a broken
    header checksum (bad_ip_checksum) and one cut inside the IPv4 header (truncated)."""
    out, k = [], 0
    for f in frames:
        out.append(f)
        if k < n and len(f) > 40 and f[12:14] == b'\x08\x00' and f[23] == 6:
            g = bytearray(f)
            g[24] ^= 0x5a                  # the IPv4 header checksum
            out += [bytes(g), f[:14 + 12]]  # Ethernet + 12 bytes of the IPv4 header
            k += 1
    return out, k


def exact(F, binary, tmp, counters, reasons, steering):
    frames = rpstest.gen_traffic.generate_frames(flows=300, packets_per_flow=6, seed=11,
                                                 frag_datagrams=4, non_ip=8)
    frames, nbad = with_malformed(frames)
    inp = os.path.join(tmp, 'finite.pcap')
    rpstest.write_pcap(inp, frames)
    summary = os.path.join(tmp, 'exact.json')
    if os.path.exists(summary):
        os.unlink(summary)
    try:
        s6 = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
        s6.bind(('::1', 0))
        s6.close()
        addr = '[::1]:0'
    except OSError:
        addr = '0'                         # no IPv6 loopback on this host
    app = ['--metrics', addr, '--summary-json', summary]
    if steering:
        # backlog_full drops too (with the test hook, workers slower than the RX lcore)
        app += ['--map', '1-3', '--backpressure', 'off', '--backlog', '16']
        lcores, workers = ['0'] + WORKERS, WORKERS
    else:
        app += ['--map', '0']
        lcores, workers = ['0'], []
    ctx = 'exact (%s, %s)' % ('3 workers, --backlog 16' if steering else '--map 0', addr)
    proc, prefix = start(binary, inp, '0@0,(1-3)@1' if steering else '0@0', app,
                         env={rpstest.WORKER_DELAY: '1000'} if steering else None)
    page = None
    try:
        info = rpstest.wait_ready_socket(prefix)
        if not F.check(info is not None, '%s: never ready' % ctx):
            return
        url = 'http://%s/metrics' % info.get('metrics')
        # the capture is finite: wait until every packet is accounted for
        deadline = time.monotonic() + 30
        st = None
        while time.monotonic() < deadline:
            st = stats(prefix)
            if st and st['rx_packets'] == len(frames) and \
                    st['processed'] + st['dropped_total'] == st['rx_packets']:
                break
            time.sleep(0.1)
        if not F.check(st and st['rx_packets'] == len(frames) and
                       st['processed'] + st['dropped_total'] == st['rx_packets'],
                       '%s: traffic never settled: %s' % (ctx, st)):
            return
        page = scrape(F, url, ctx)
        again = scrape(F, url, ctx + ' again')
        if page is not None and again is not None:
            check_page(F, page, ctx, counters, reasons, lcores, workers)
            for name in ('dpdk_rps_processed_total', 'dpdk_rps_dropped_total',
                         'dpdk_rps_rx_packets_total'):
                F.check(page.series(name) == again.series(name),
                        '%s: %s changed after traffic stopped' % (ctx, name))
    finally:
        out, err = rpstest.stop(proc, prefix)
    s = rpstest.check_stopped(F, proc, err, summary, ctx)
    if s is None or page is None:
        return
    print('%s: rx %d processed %d dropped %s' % (ctx, s['rx_packets'], s['processed'],
                                                 {k: v for k, v in s['dropped'].items() if v}),
          flush=True)
    if steering:
        F.check(s['dropped']['backlog_full'] > 0,
                '%s: no backlog_full drops with workers slowed down' % ctx)
    else:
        # nothing but the malformed frames is dropped without steering: exactly them
        F.check(s['dropped']['bad_ip_checksum'] == nbad and s['dropped']['truncated'] == nbad
                and s['dropped_total'] == 2 * nbad,
                '%s: expected %d bad_ip_checksum and %d truncated drops, nothing else: %s' % (
                    ctx, nbad, nbad, s['dropped']))
    eq = [('rx_packets', page.get('dpdk_rps_rx_packets_total', lcore='0'), s['rx_packets']),
          ('processed', page.total('dpdk_rps_processed_total'), s['processed']),
          ('tx_packets', page.total('dpdk_rps_tx_packets_total'), s['tx_packets']),
          ('dropped', page.total('dpdk_rps_dropped_total'), s['dropped_total']),
          ('port ipackets', page.get('dpdk_rps_port_ipackets_total', port='0'),
           s['port']['ipackets'])]
    eq += [('dropped %s' % r, page.total('dpdk_rps_dropped_total', reason=r), v)
           for r, v in s['dropped'].items()]
    for w in s['workers'] if steering else []:
        l = str(w['lcore'])
        eq.append(('lcore %s processed' % l, page.get('dpdk_rps_processed_total', lcore=l),
                   w['processed']))
        eq += [('lcore %s dropped %s' % (l, r),
                page.get('dpdk_rps_dropped_total', lcore=l, reason=r), v)
               for r, v in w['dropped'].items()]
    bad = [(what, got, want) for what, got, want in eq if got != want]
    F.check(not bad, '%s: the last scrape differs from the exit summary: %s' % (ctx, bad[:6]))
    print('%s: %d values of the last scrape equal the summary' % (ctx, len(eq) - len(bad)),
          flush=True)


# ------------------------------------------------------------------------- 4. shutdown

def poll_http(where, stop, counts, k):
    """Scrape with http.client as fast as possible; count (complete, refused, cut)."""
    host, _, port = where.rpartition(':')
    while not stop.is_set():
        try:
            c = http.client.HTTPConnection(host, int(port), timeout=5)
            c.request('GET', '/metrics')
            r = c.getresponse()
            body = r.read().decode()
            c.close()
            if r.status == 200 and body.rstrip().endswith('dpdk_rps_buckets_moved_total 0'):
                counts[k][0] += 1
            else:
                counts[k][2] += 1
        except (ConnectionError, http.client.HTTPException, socket.timeout, OSError):
            counts[k][1] += 1
            time.sleep(0.01)


def poll_curl(url, stop, counts, k):
    while not stop.is_set():
        code, _, _ = curl(url)
        counts[k][0 if code == 200 else 1] += 1


def shutdown(F, binary, tmp):
    inp = os.path.join(tmp, 'loop2.pcap')
    rpstest.write_pcap(inp, rpstest.gen_traffic.generate_frames(
        flows=64, packets_per_flow=4, seed=9, non_ip=4))
    for n in range(SHUTDOWN_RUNS):
        ctx = 'shutdown run %d' % n
        summary = os.path.join(tmp, 'shutdown.json')
        if os.path.exists(summary):
            os.unlink(summary)
        proc, prefix = start(binary, inp, '0@0,(1-2)@1', ['--map', '1-2', '--metrics', '0',
                                                          '--summary-json', summary],
                             infinite=True)
        stop = threading.Event()
        counts = [[0, 0, 0] for _ in range(3)]
        threads = []
        try:
            info = rpstest.wait_ready_socket(prefix)
            if not F.check(info is not None, '%s: never ready' % ctx):
                continue
            where = info.get('metrics')
            threads = [threading.Thread(target=poll_http, args=(where, stop, counts, k),
                                        daemon=True) for k in range(2)]
            threads.append(threading.Thread(target=poll_curl, daemon=True, args=(
                'http://%s/metrics' % where, stop, counts, 2)))
            for t in threads:
                t.start()
            # once a scrape has come back (a busy shared CPU may delay the first), SIGINT
            # at a different moment each run
            deadline = time.monotonic() + 10
            while sum(c[0] for c in counts) == 0 and time.monotonic() < deadline:
                time.sleep(0.01)
            time.sleep(0.05 + 0.11 * n)
        finally:
            t0 = time.monotonic()
            out, err = rpstest.stop(proc, prefix, timeout=20)
            took = time.monotonic() - t0
            stop.set()
            for t in threads:
                t.join(10)
        print('%s: exit %s in %.2f s; complete %d, refused %d, cut %d' % (
            ctx, proc.returncode, took, sum(c[0] for c in counts), sum(c[1] for c in counts),
            sum(c[2] for c in counts)), flush=True)
        if rpstest.check_stopped(F, proc, err, summary, ctx) is not None:
            F.check(sum(c[0] for c in counts) > 0, '%s: no scrape got a page' % ctx)
            F.check(took < 10, '%s: took %.1f s to stop' % (ctx, took))


# ------------------------------------------------------------------------- 5. slow clients

SLOW_CLIENTS = 200
SLOW_TIMEOUT_S = 5        # METRICS_TIMEOUT_S of app/observability/metrics.c
SCRAPE_WITHIN_S = 1.0


def timed_scrape(where, timeout):
    """GET /metrics with http.client: (seconds, HTTP status or None, body or the error)."""
    host, _, port = where.rpartition(':')
    t0 = time.monotonic()
    try:
        c = http.client.HTTPConnection(host.strip('[]'), int(port), timeout=timeout)
        try:
            c.request('GET', '/metrics')
            r = c.getresponse()
            body = r.read().decode(errors='replace')
        finally:
            c.close()
        return time.monotonic() - t0, r.status, body
    except (OSError, http.client.HTTPException) as e:
        return time.monotonic() - t0, None, repr(e)


def closed_by_peer(s):
    """Whether the server has closed s (EOF or reset); s is non-blocking."""
    try:
        return s.recv(64) == b''
    except BlockingIOError:
        return False
    except OSError:
        return True


def slow_clients(F, binary, tmp):
    inp = os.path.join(tmp, 'loop5.pcap')
    rpstest.write_pcap(inp, rpstest.gen_traffic.generate_frames(
        flows=16, packets_per_flow=4, seed=5, non_ip=0))
    proc, prefix = start(binary, inp, '0@0,(1-2)@1', ['--map', '1-2', '--metrics', '0'],
                         infinite=True)
    ctx = 'slow clients'
    socks = []
    try:
        info = rpstest.wait_ready_socket(prefix)
        if not F.check(info is not None and info.get('metrics'), '%s: never ready' % ctx):
            return
        where = info['metrics']
        host, _, port = where.rpartition(':')
        took, code, body = timed_scrape(where, 10)
        print('%s: a scrape before: HTTP %s in %.3f s' % (ctx, code, took), flush=True)
        if not F.check(code == 200, '%s: the first scrape: %s %s' % (ctx, code, body[-300:])):
            return
        # SLOW_CLIENTS connections, each with half a request line and then silence
        for _ in range(SLOW_CLIENTS):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setblocking(False)
            s.connect_ex((host, int(port)))
            socks.append(s)
        waiting, sent = list(socks), 0
        deadline = time.monotonic() + 2
        while waiting and time.monotonic() < deadline:
            _, ready, _ = select.select([], waiting, [], 0.1)
            for s in ready:
                waiting.remove(s)
                try:
                    s.send(b'GET /metrics HT')
                    sent += 1
                except OSError:
                    pass
        print('%s: %d connections, %d sent half a request line (%d never connected)' % (
            ctx, SLOW_CLIENTS, sent, len(waiting)), flush=True)
        time.sleep(0.2)             # the server has seen them
        took, code, body = timed_scrape(where, 10)
        print('%s: a scrape with %d slow clients: HTTP %s in %.3f s' % (
            ctx, SLOW_CLIENTS, code, took), flush=True)
        F.check(code == 200 and took < SCRAPE_WITHIN_S,
                '%s: a scrape with %d connections holding half a request: HTTP %s after '
                '%.2f s, expected 200 within %.1f s (%s)' % (
                    ctx, SLOW_CLIENTS, code, took, SCRAPE_WITHIN_S, body[-200:]))
        # the server closes every silent connection once its timeout has passed
        t0 = time.monotonic()
        open_ = list(socks)
        while open_ and time.monotonic() < t0 + SLOW_TIMEOUT_S + 5:
            open_ = [s for s in open_ if not closed_by_peer(s)]
            time.sleep(0.1)
        print('%s: %d of %d slow connections closed by the server within %.1f s' % (
            ctx, SLOW_CLIENTS - len(open_), SLOW_CLIENTS, time.monotonic() - t0), flush=True)
        F.check(not open_, '%s: %d of the %d silent connections still open %d s after the '
                'scrape (the server closes them after %d s)' % (
                    ctx, len(open_), SLOW_CLIENTS, SLOW_TIMEOUT_S + 5, SLOW_TIMEOUT_S))
        took, code, body = timed_scrape(where, 10)
        print('%s: a scrape after: HTTP %s in %.3f s' % (ctx, code, took), flush=True)
        F.check(code == 200 and took < SCRAPE_WITHIN_S,
                '%s: the scrape after the slow clients were closed: HTTP %s after %.2f s' % (
                    ctx, code, took))
    finally:
        for s in socks:
            s.close()
        out, err = rpstest.stop(proc, prefix)
    F.check(proc.returncode == 0, '%s: exit %s: %s' % (ctx, proc.returncode,
                                                      err.decode(errors='replace')[-1500:]))


# ------------------------------------------------------------------------- 6. docs

def page_names(text):
    """The series names of a /metrics page (0.0.4): its samples', and each # TYPE line's
    (the sample name there too, _total included)."""
    names = set()
    for line in text.splitlines():
        m = re.match(r'^# TYPE ([a-zA-Z_:][\w:]*) ', line) or \
            re.match(r'^([a-zA-Z_:][\w:]*)[{ ]', line)
        if m:
            names.add(m.group(1))
    return names


def doc_names_checked(have, files):
    """[(file, name, why)] for each metric name of @p files (path: text) that /metrics does
    not write: a dpdk_rps_ name no series has (a * or a trailing _: no series matches), or
    an rps_ name written without the dpdk_ of its series."""
    import fnmatch
    bad = []
    for path, text in files.items():
        for m in re.finditer(r'(?<![\w-])(?:dpdk_)?rps_[a-z0-9_*]+', text):
            name = m.group(0)
            if name.startswith('dpdk_rps_'):
                pat = name + '*' if name.endswith('_') else name
                if not (fnmatch.filter(have, pat) if '*' in pat else pat in have):
                    bad.append((path, name, 'no such series on /metrics'))
            elif any('dpdk_' + name + sfx in have for sfx in ('', '_total', '_info')):
                bad.append((path, name, 'its series is dpdk_%s%s' % (name, next(
                    sfx for sfx in ('', '_total', '_info') if 'dpdk_' + name + sfx in have))))
    return bad


def docs_names(F, binary, tmp):
    inp = os.path.join(tmp, 'loop.pcap')
    rpstest.write_pcap(inp, rpstest.gen_traffic.generate_frames(
        flows=32, packets_per_flow=4, seed=3, non_ip=4))
    runs = [('steering', ['--map', '1-3']),
            ('a consumer and a rule', ['--map', '1-3', '--consumers', '1', '--consumer-socket',
                                       os.path.join(tmp, 'c%u.sock'), '--rule',
                                       'udp -> worker 1'])]
    have = set()
    for ctx, app in runs:
        proc, prefix = start(binary, inp, '0@0,(1-3)@1', app + ['--metrics', '0'],
                             infinite=True)
        try:
            info = rpstest.wait_ready_socket(prefix)
            if F.check(info is not None and info.get('metrics'), '%s: never ready, or no '
                       'metrics address: %s' % (ctx, info)):
                s = scrape(F, 'http://%s/metrics' % info['metrics'], ctx)
                if s is not None:
                    have |= page_names(s.text)
        finally:
            out, err = rpstest.stop(proc, prefix)
        F.check(proc.returncode == 0, '%s: exit %s: %s' % (
            ctx, proc.returncode, err.decode(errors='replace')[-1500:]))
    if not F.check(len(have) > 60 and 'dpdk_rps_consumer_delivered_total' in have and
                   'dpdk_rps_rule_hits_total' in have, 'the pages have %d series names: %s'
                   % (len(have), sorted(have)[:20])):
        return
    root = rpstest.SRC_ROOT
    files = {'README.md': open(os.path.join(root, 'README.md')).read()}
    for name in sorted(os.listdir(os.path.join(root, 'docs'))):
        if name.endswith('.md'):
            files['docs/' + name] = open(os.path.join(root, 'docs', name)).read()
    bad = doc_names_checked(have, files)
    for path, name, why in bad:
        F.fail('%s: %s: %s' % (path, name, why))
    print('docs: %d files, %d series names on the two pages, %d names the docs write that '
          '/metrics does not' % (len(files), len(have), len(bad)), flush=True)


def main():
    binary = rpstest.binary_from_argv()
    F = rpstest.Failures('test_metrics')
    if sys.argv[2:] == ['slow']:
        with rpstest.TempDir('metrics_slow') as tmp:
            slow_clients(F, binary, tmp)
        return F.report()
    if sys.argv[2:] == ['docs']:
        with rpstest.TempDir('metrics_docs') as tmp:
            docs_names(F, binary, tmp)
        return F.report()
    counters, reasons = counters_of_header()
    if len(counters) < 30 or len(reasons) < 10:
        print('FAIL: parsed %d counters and %d reasons from rps_counters.h' % (
            len(counters), len(reasons)))
        return 1
    with rpstest.TempDir('metrics') as tmp:
        if not rpstest.hooks_built(binary, tmp):
            # the exact run's backlog_full drops come from workers slowed by a hook
            print('SKIP: %s is %s (RPS_TEST_WORKER_DELAY_NS)' % (binary, rpstest.NO_HOOKS))
            return rpstest.SKIP
        rpstest.write_pcap(os.path.join(tmp, 'in.pcap'), rpstest.gen_traffic.generate_frames(
            flows=8, packets_per_flow=2, frag_datagrams=0, non_ip=1))
        bad_values(F, binary, tmp)
        live(F, binary, tmp, counters, reasons)
        exact(F, binary, tmp, counters, reasons, steering=True)
        exact(F, binary, tmp, counters, reasons, steering=False)
        shutdown(F, binary, tmp)
    return F.report()


if __name__ == '__main__':
    sys.exit(main())
