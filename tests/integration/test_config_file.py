#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_config_file.py: the --config file, adversarially (issue 14), on the real binary.

Each case runs dpdk-rps on a looping capture (net_pcap infinite_rx, three workers) and waits
on telemetry (/rps/config generation, reloads_ok, reloads_failed, watch_events, watch_armed)
with a timeout, never on a sleep. Every run ends with SIGINT: exit 0, a summary where
received = processed + dropped, every mbuf back.

  fifo     a FIFO at the config path: refused at start (exit 2, "not a regular file (a
           FIFO)"); put there under a running process, each SIGHUP is refused and counted
           while the old map keeps steering, and SIGINT ends the process within a second.
           (Before: open() waited for a writer, the control thread hung, so did SIGINT.)
  partial  a file created and half-written (the map "2" = lcore 1 of "2-3"), held open: the
           watcher saw it and did not arm a reload; once closed, the whole file is applied,
           one generation. (Before: applied 5 ms after IN_CREATE, the map became lcore 1.)
  symlink  the exact Kubernetes ConfigMap layout (FILE -> ..data/FILE, ..data -> ..TS);
           three updates as kubelet's AtomicWriter makes them (new ..TS folder, ..data_tmp
           renamed over ..data, old folder removed): each noticed, one generation each, the
           third (a bad file) refused with the old map running. (Before: never noticed.)
  queues   a queue1 line on a 1-queue port, and a map of an lcore EAL did not enable beside
           --map: refused at start with FILE:LINE (exit 2), as a reload refuses them.
           (Before: accepted at start, then every reload failed.)
  modes    sshd's StrictModes: a file writable by others, a grandparent folder writable by
           others, a folder reached through a symlink writable by its group: each refused
           at start (exit 2) naming it; opened under a running process, SIGHUP refused
           with the old map on, applied once closed; another user's file (as root)
           refused; --strict-modes off: applied, one WARNING per load (start, SIGHUP).
           (Before: applied with a warning; the grandparent not even warned about.)
  hostile  reloads of 'metrics = 9100]' (killed the process: a NULL dereference), a bad
           rss_key and hash_seed (their values were quoted into /rps/config's
           last_reload_result), section headers holding one ('[hash_seed = X]' was quoted
           whole as an unknown section): each refused with FILE:LINE, no secret anywhere.
  settings every setting the file shares with the command line, set off its default: the
           running values in /rps/config are the file's (hash_seed too: it was drawn before
           the file was read), but where the command line said otherwise; a reload applies
           the live ones and names the restart ones whose value differs from the running
           one, in the settings table's order.

usage: test_config_file.py PATH/TO/dpdk-rps {fifo|partial|symlink|queues|modes|settings|hostile}
"""
import os
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rpstest  # noqa: E402

LCORES = '0@0,(1-3)@1'
STOP_WITHIN = 1.0


def conf(mapping, extra=''):
    return '[dataplane]\nreorder_safe = on\n%s[map]\ndefault = %s\n' % (extra, mapping)


def write(path, text, mode=None):
    with open(path, 'w') as f:
        f.write(text)
    if mode is not None:
        os.chmod(path, mode)


def replace(path, text):
    write(path + '.tmp', text)
    os.rename(path + '.tmp', path)


class Run:
    """dpdk-rps on tmp/in.pcap (looping) with --config PATH, until stop()."""

    def __init__(self, binary, tmp, tag, config, app=()):
        self.prefix = rpstest.unique_prefix()
        self.summary = os.path.join(tmp, tag + '_summary.json')
        self.tag = tag
        eal = rpstest.eal_args(self.prefix, lcores=LCORES, vdevs=[rpstest.pcap_vdev(
            rx=os.path.join(tmp, 'in.pcap'), infinite_rx=True)])
        cmd = [binary] + eal + ['--', '--config', config, '--summary-json', self.summary] + \
            list(app)
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     stdin=subprocess.DEVNULL, start_new_session=True)
        self.out = self.err = ''
        self.stop_s = None

    def tel(self, cmd):
        r = rpstest.telemetry(self.prefix, cmd)
        return r[0].get(cmd.split(',')[0]) if r else None

    def config(self):
        c = self.tel('/rps/config') or {}
        if isinstance(c.get('last_reload_result'), list):  # a long text comes in pieces
            c['last_reload_result'] = ''.join(c['last_reload_result'])
        return c

    def lcores(self):
        m = self.tel('/rps/map')
        return ','.join(str(l) for l in m['queue0']['lcores']) if m else None

    def wait(self, pred, what, timeout=20.0):
        """Poll /rps/config until pred(config) holds; the config, or None after timeout."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self.proc.poll() is None:
            c = self.config()
            if c and pred(c):
                return c
            time.sleep(0.02)
        print('%s: timed out waiting for %s' % (self.tag, what), flush=True)
        return None

    def processed(self):
        s = self.tel('/rps/stats')
        return s['processed'] if s else 0

    def keeps_processing(self):
        """The workers still process: /rps/stats processed rises (with a timeout)."""
        p0 = self.processed()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.processed() > p0:
                return True
            time.sleep(0.02)
        return False

    def stop(self, F):
        """SIGINT; the summary checks. Records how long the exit took (stop_s)."""
        self.proc.send_signal(signal.SIGINT)
        t0 = time.monotonic()
        try:
            out, err = self.proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            out, err = self.proc.communicate()
            F.fail('%s: SIGINT did not end the process in 20 s (killed)' % self.tag)
        self.stop_s = time.monotonic() - t0
        rpstest.remove_runtime_dir(self.prefix)
        self.out, self.err = out.decode(errors='replace'), err.decode(errors='replace')
        s = rpstest.check_stopped(F, self.proc, self.err, self.summary, self.tag)
        if s is not None:
            print('%s: exit %s in %.2f s after SIGINT; rx %d = processed %d + dropped %d' % (
                self.tag, self.proc.returncode, self.stop_s, s['rx_packets'], s['processed'],
                rpstest.dropped_total(s)), flush=True)
        return s


def start_refused(binary, tmp, config, app=()):
    """A run that must not start: (exit code or None when it hung, stderr)."""
    prefix = rpstest.unique_prefix()
    eal = rpstest.eal_args(prefix, lcores=LCORES, vdevs=[rpstest.pcap_vdev(
        rx=os.path.join(tmp, 'in.pcap'), infinite_rx=True)])
    r = rpstest.run_rps(binary, eal, ['--config', config] + list(app), timeout=20,
                        stop_signal=signal.SIGINT, signal_after=15, prefix=prefix)
    return r


def ready(F, run):
    info = rpstest.wait_ready(run.prefix)
    return F.check(info is not None, '%s: never ready' % run.tag)


def case_fifo(F, binary, tmp):
    fifo = os.path.join(tmp, 'fifo.conf')
    os.mkfifo(fifo)
    r = start_refused(binary, tmp, fifo)
    F.check(r.rc == 2 and '%s: not a regular file (a FIFO)' % fifo in r.stderr,
            'start on a FIFO: exit %s (timed out %s), expected 2 and "not a regular file"'
            % (r.rc, r.timed_out), r)
    print('start on a FIFO: exit %s in %.2f s' % (r.rc, r.elapsed), flush=True)

    cfg = os.path.join(tmp, 'rps.conf')
    write(cfg, conf('0xe'))
    run = Run(binary, tmp, 'fifo', cfg)
    try:
        if not ready(F, run):
            return
        os.unlink(cfg)
        os.mkfifo(cfg)
        for n in (1, 2):  # the second shows the control thread still answers
            run.proc.send_signal(signal.SIGHUP)
            c = run.wait(lambda c: c['reloads_failed'] >= n, 'refused reload %d' % n)
            F.check(c is not None and '%s: not a regular file (a FIFO)' % cfg in
                    c['last_reload_result'] and c['generation'] == 1 and
                    c['reloads_ok'] == 0, 'SIGHUP %d with a FIFO: /rps/config %s' % (n, c))
        F.check(run.lcores() == '1,2,3', 'the old map changed: %s' % run.lcores())
        F.check(run.keeps_processing(), 'the workers stopped processing')
    finally:
        s = run.stop(F)  # with the FIFO still there
    F.check(s is not None and run.stop_s <= STOP_WITHIN,
            'SIGINT with a FIFO at the config path: exit took %.2f s (at most %.1f)' % (
                run.stop_s, STOP_WITHIN))


def case_partial(F, binary, tmp):
    cfg = os.path.join(tmp, 'rps.conf')
    write(cfg, conf('0xe'))
    run = Run(binary, tmp, 'partial', cfg)
    try:
        if not ready(F, run):
            return
        c0 = run.config()
        e0 = c0.get('watch_events', 0)
        os.unlink(cfg)  # the writer creates the file anew (IN_CREATE)
        c = run.wait(lambda c: c.get('watch_events', 0) >= e0 + 1, 'the unlink seen')
        e1 = c['watch_events'] if c else e0
        whole = conf('2-3')
        part = whole[:whole.index('2-3') + 1]  # "... default = 2": hex 2, lcore 1
        f = open(cfg, 'w')
        try:
            f.write(part)
            f.flush()
            os.fsync(f.fileno())
            # the watcher has read the creation and the write (or, before the fix, reloaded)
            c = run.wait(lambda c: c['generation'] != c0['generation'] or
                         c.get('watch_events', 0) >= e1 + 2, 'the creation seen')
            F.check(c is not None and c['generation'] == c0['generation'] and
                    c.get('watch_armed') == 0,
                    'a created, half-written file was applied or armed: /rps/config %s, map %s'
                    % (c, run.lcores()))
            F.check(run.lcores() == '1,2,3', 'half-written file: map %s' % run.lcores())
            f.write(whole[len(part):])
        finally:
            f.close()
        c = run.wait(lambda c: c['generation'] > c0['generation'] and
                     c.get('watch_armed') == 0, 'the closed file applied')
        F.check(c is not None and c['generation'] == c0['generation'] + 1 and
                c['reloads_ok'] == c0['reloads_ok'] + 1 and run.lcores() == '2,3',
                'closed file: /rps/config %s, map %s (want one generation, lcores 2,3)' % (
                    c, run.lcores()))
        F.check(run.keeps_processing(), 'the workers stopped processing')
    finally:
        run.stop(F)


def configmap_update(cm, ts, text):
    """Kubernetes' AtomicWriter: a new timestamped folder, ..data_tmp -> it renamed over
    ..data, the old folder removed."""
    old = os.readlink(os.path.join(cm, '..data'))
    os.mkdir(os.path.join(cm, ts))
    write(os.path.join(cm, ts, 'rps.conf'), text, 0o644)
    os.symlink(ts, os.path.join(cm, '..data_tmp'))
    os.rename(os.path.join(cm, '..data_tmp'), os.path.join(cm, '..data'))
    shutil.rmtree(os.path.join(cm, old))


def case_symlink(F, binary, tmp):
    cm = os.path.join(tmp, 'configmap')
    ts = '..2026_12_04_00_00_00.000000001'
    os.makedirs(os.path.join(cm, ts))
    write(os.path.join(cm, ts, 'rps.conf'), conf('0xe'), 0o644)
    os.symlink(ts, os.path.join(cm, '..data'))
    os.symlink('..data/rps.conf', os.path.join(cm, 'rps.conf'))
    cfg = os.path.join(cm, 'rps.conf')
    run = Run(binary, tmp, 'symlink', cfg)
    try:
        if not ready(F, run):
            return
        c0 = run.config()
        print('watching %s names along the chain' % c0.get('watch_names'), flush=True)
        steps = [('..2026_12_04_00_00_01.000000002', conf('2-3'), '2,3', True),
                 ('..2026_12_04_00_00_02.000000003', conf('1-1'), '1', True),
                 ('..2026_12_04_00_00_03.000000004', conf('1-3', 'backlog = lots\n'), '1',
                  False)]
        gen, ok, failed = c0['generation'], c0['reloads_ok'], c0['reloads_failed']
        for i, (ts, text, want, good) in enumerate(steps):
            configmap_update(cm, ts, text)
            c = run.wait(lambda c: c['reloads_ok'] + c['reloads_failed'] > ok + failed and
                         c.get('watch_armed') == 0, 'ConfigMap update %d noticed' % (i + 1))
            if not F.check(c is not None, 'ConfigMap update %d never noticed' % (i + 1)):
                break
            gen, ok, failed = gen + good, ok + good, failed + (not good)
            F.check(c['generation'] == gen and c['reloads_ok'] == ok and
                    c['reloads_failed'] == failed and run.lcores() == want,
                    'ConfigMap update %d: /rps/config %s, map %s (want generation %d, '
                    'lcores %s)' % (i + 1, c, run.lcores(), gen, want))
            if not good:
                F.check('%s:3: backlog' % cfg in c['last_reload_result'],
                        'bad ConfigMap update: %s' % c['last_reload_result'])
        F.check(run.keeps_processing(), 'the workers stopped processing')
    finally:
        run.stop(F)


def case_queues(F, binary, tmp):
    bad = os.path.join(tmp, 'queues.conf')
    write(bad, '[dataplane]\nreorder_safe = on\n[map]\ndefault = 0xe\nqueue1 = 0x6\n')
    r = start_refused(binary, tmp, bad)
    want = '%s:5: queue1: port 0 has 1 RX queue(s)' % bad
    F.check(r.rc == 2 and want in r.stderr, 'queue1 on a 1-queue port at start: exit %s, '
            'expected 2 and "%s"' % (r.rc, want), r)
    print('queue1 at start: exit %s' % r.rc, flush=True)
    # a file map that --map hides at start would be applied by the first reload
    write(bad, '[map]\nqueue0 = 0x10\n')
    r = start_refused(binary, tmp, bad, ['--map', '0xe'])
    want = '%s:2: map of queue 0 (0x10): lcore 4 is not enabled in EAL' % bad
    F.check(r.rc == 2 and want in r.stderr, 'lcore 4 in the file beside --map: exit %s, '
            'expected 2 and "%s"' % (r.rc, want), r)
    print('lcore 4 beside --map at start: exit %s' % r.rc, flush=True)

    cfg = os.path.join(tmp, 'rps.conf')
    write(cfg, conf('0xe'))
    run = Run(binary, tmp, 'queues', cfg)
    try:
        if not ready(F, run):
            return
        write(cfg, '[dataplane]\nreorder_safe = on\n[map]\ndefault = 0x6\nqueue1 = 0x6\n')
        run.proc.send_signal(signal.SIGHUP)
        c = run.wait(lambda c: c['reloads_failed'] >= 1 and c.get('watch_armed') == 0,
                     'the reload refused')
        want = '%s:5: queue1: port 0 has 1 RX queue(s)' % cfg
        F.check(c is not None and want in c['last_reload_result'] and c['generation'] == 1,
                'reload with queue1: /rps/config %s' % c)
        F.check(run.lcores() == '1,2,3', 'the old map changed: %s' % run.lcores())
        F.check(run.keeps_processing(), 'the workers stopped processing')
    finally:
        run.stop(F)


def warnings(err, path):
    """The owner/mode warnings about path in a run's log (--strict-modes off)."""
    return [line for line in err.splitlines() if 'config %s (' % path in line and
            'controls the steering' in line]


def case_modes(F, binary, tmp):
    """sshd's StrictModes: refused at start (exit 2) and on reload (the old map runs on),
    for the file, every folder above it and each symlink hop; --strict-modes off warns."""
    d = os.path.join(tmp, 'etc')
    os.makedirs(os.path.join(d, 'sub'), 0o700)
    cfg = os.path.join(d, 'sub', 'rps.conf')
    write(cfg, conf('0xe'), 0o644)
    link = os.path.join(tmp, 'link.conf')
    os.symlink(cfg, link)
    opened = [('file 0666', cfg, lambda: os.chmod(cfg, 0o666),
               'file %s is writable by others (mode 0666)' % cfg),
              # the grandparent: before the fix only the parent folder was looked at
              ('grandparent 0777', cfg, lambda: os.chmod(d, 0o777),
               'folder %s is writable by others (mode 0777)' % d),
              ('through a symlink, folder 0775', link, lambda: os.chmod(d, 0o775),
               'folder %s is writable by its group (mode 0775)' % d)]
    for what, path, open_up, want in opened:
        os.chmod(d, 0o755)
        os.chmod(cfg, 0o644)
        open_up()
        r = start_refused(binary, tmp, path)
        F.check(r.rc == 2 and want in r.stderr and '%s: not applied' % path in r.stderr,
                '%s: exit %s, expected 2 and "%s"' % (what, r.rc, want), r)
        print('%s: start refused, exit %s' % (what, r.rc), flush=True)
    os.chmod(d, 0o755)
    os.chmod(cfg, 0o644)

    # a running process: the file opened to others, a SIGHUP refused, the old map on
    run = Run(binary, tmp, 'modes_reload', link)
    try:
        if ready(F, run):
            write(cfg, conf('2-3'), 0o666)
            run.proc.send_signal(signal.SIGHUP)
            want = 'file %s is writable by others (mode 0666)' % cfg
            c = run.wait(lambda c: want in c['last_reload_result'], 'the refused reload')
            F.check(c is not None and c['generation'] == 1 and c['reloads_ok'] == 0,
                    'reload of a 0666 file: /rps/config %s' % c)
            F.check(run.lcores() == '1,2,3', 'the old map changed: %s' % run.lcores())
            F.check(run.keeps_processing(), 'the workers stopped processing')
            os.chmod(cfg, 0o644)  # closed again: the same file applies
            run.proc.send_signal(signal.SIGHUP)
            c = run.wait(lambda c: c['reloads_ok'] >= 1, 'the reload once closed')
            F.check(c is not None and c['generation'] == 2 and run.lcores() == '2,3',
                    'reload once closed: /rps/config %s, map %s' % (c, run.lcores()))
            if os.geteuid() == 0:  # another user's file (only root can make one)
                os.chown(cfg, 65534, 65534)
                run.proc.send_signal(signal.SIGHUP)
                c = run.wait(lambda c: 'owned by uid 65534' in c['last_reload_result'],
                             'the chowned file refused')
                F.check(c is not None and c['generation'] == 2,
                        'reload of another user\'s file: /rps/config %s' % c)
                os.chown(cfg, 0, 0)
    finally:
        run.stop(F)
    print('reload: refused while open, applied once closed', flush=True)

    # --strict-modes off: applied, one warning per load
    write(cfg, conf('0xe'), 0o666)
    os.chmod(d, 0o777)
    run = Run(binary, tmp, 'modes_off', cfg, ['--strict-modes', 'off'])
    try:
        if ready(F, run):
            # the file as last applied: a SIGHUP finds nothing to do (reloads_unchanged),
            # but the file is read, so its folder and mode are looked at again
            run.proc.send_signal(signal.SIGHUP)
            c = run.wait(lambda c: c['reloads_ok'] + c.get('reloads_unchanged', 0) >= 1,
                         'the SIGHUP reload')
            F.check(c is not None, '--strict-modes off: the SIGHUP never read the file')
    finally:
        run.stop(F)
    os.chmod(d, 0o755)
    w = warnings(run.err, cfg)
    F.check(len(w) == 2 and '(start)' in w[0] and '(SIGHUP)' in w[1] and
            all('file %s is writable by others (mode 0666)' % cfg in x and
                'folder %s is writable by others (mode 0777)' % d in x for x in w),
            '--strict-modes off, file 0666 in a folder 0777: want one warning at start and '
            'one at the reload, got %s' % w)
    print('--strict-modes off: %d warning(s): %s' % (len(w), w[:1]), flush=True)


def case_hostile(F, binary, tmp):
    """Reloads of values that crashed the process or echoed a secret: each refused with
    FILE:LINE, the old map running, no secret in /rps/config or the log."""
    cfg = os.path.join(tmp, 'rps.conf')
    write(cfg, conf('0xe'))
    secret = 'c0ffee' * 13 + 'zz'  # 80 characters: a 40-byte key's length, not hex
    bad = [('metrics = 9100]', 'metrics', 'brackets'),  # exit 139 before the fix
           ('rss_key = ' + secret, 'rss_key', 'secret: not shown'),
           ('hash_seed = 0xc0ffeec0ffee', 'hash_seed', 'secret: not shown'),
           ('rss_key: ' + secret, "'rss_key ...'", 'expected'),
           # a section header is quoted by its first word (issue 37: echoed whole)
           ('[hash_seed = 0xc0ffeec0ffee]', 'unknown section [hash_seed ...]', 'expected'),
           ('[map] rss_key: ' + secret, "unexpected ' rss_key ...' after [map]", 'after')]
    run = Run(binary, tmp, 'hostile', cfg)
    try:
        if not ready(F, run):
            return
        for n, (line, key, word) in enumerate(bad, 1):
            replace(cfg, conf('2-3', line + '\n'))
            run.proc.send_signal(signal.SIGHUP)
            where = '%s:3: %s' % (cfg, key)
            c = run.wait(lambda c: where in c['last_reload_result'],
                         'reload of %r refused' % line)
            res = c['last_reload_result'] if c else ''
            F.check(c is not None and word in res and 'c0ffee' not in res.lower() and
                    c['generation'] == 1,
                    'reload of %r: /rps/config %s' % (line, c))
            F.check(run.proc.poll() is None, 'the process died at %r' % line)
            print('reload %-24.24s refused: %s' % (line, res[-70:]), flush=True)
        F.check(run.lcores() == '1,2,3', 'the old map changed: %s' % run.lcores())
        F.check(run.keeps_processing(), 'the workers stopped processing')
    finally:
        run.stop(F)
    F.check('c0ffee' not in (run.err + run.out).lower(), 'a secret in the log: %s' % [
        line for line in (run.err + run.out).splitlines() if 'c0ffee' in line.lower()])


def case_settings(F, binary, tmp):
    cfg = os.path.join(tmp, 'settings.conf')
    values = {'hash': 'jhash', 'hash_seed': 7, 'inner': 1, 'backlog': 2048, 'burst': 32,
              'flow_table_size': 4096, 'reorder_safe': 1, 'flow_limit': 1, 'table_size': 64,
              'rebalance_interval_ms': 500, 'rebalance_threshold': 20, 'rebalance_moves': 4,
              'rebalance_holddown_ms': 2000, 'idle_sleep_us': 20, 'idle_spin_us': 50,
              'respond_rate': 500, 'respond_burst': 10, 'stats_interval': 0}
    text = '[dataplane]\n' + ''.join(
        '%s = %s\n' % (k, {1: 'on'}.get(v, v) if k in ('inner', 'reorder_safe', 'flow_limit')
                       else v) for k, v in values.items()) + '[map]\ndefault = 0xe\n'
    write(cfg, text)
    run = Run(binary, tmp, 'settings', cfg, ['--burst', '16', '--idle-spin', '70'])
    try:
        if not ready(F, run):
            return
        c = run.config()
        want = dict(values, burst=16, idle_spin_us=70)  # the command line wins
        if c.get('hash_seed') == 'hidden':  # a runtime directory others can reach
            del want['hash_seed']
        got = {k: c.get(k) for k in want}
        F.check(got == want, 'start: /rps/config %s, want %s' % (
            {k: v for k, v in got.items() if want[k] != v},
            {k: v for k, v in want.items() if got[k] != v}))
        F.check(c.get('hash_seed_source') == 'configured', 'hash_seed_source %s' %
                c.get('hash_seed_source'))
        print('settings at start: %d values as the file and the command line say' % len(want),
              flush=True)
        # backlog, idle_sleep_us and consumers need a restart; rebalance_moves is live. burst and
        # idle_spin_us are named too: the file's value is not the running one (the command
        # line's), as a reload has always reported them
        replace(cfg, text.replace('backlog = 2048', 'backlog = 1024').replace(
            'idle_sleep_us = 20', 'idle_sleep_us = 30').replace('rebalance_moves = 4',
                                                                 'rebalance_moves = 6')
                + '[dataplane]\nconsumers = 2\n')
        run.proc.send_signal(signal.SIGHUP)
        c = run.wait(lambda c: c['reloads_ok'] >= 1 and c['rebalance_moves'] == 6,
                     'the reload')
        F.check(c is not None and c['last_reload_result'] ==
                'ok; needs a restart for: backlog, burst, idle_sleep_us, idle_spin_us, '
                'consumers' and
                c['backlog'] == 2048 and c['idle_sleep_us'] == 20,
                'reload: /rps/config %s' % c)
        print('reload: %s' % (c or {}).get('last_reload_result'), flush=True)
        # the rebalancer on without reorder_safe: refused as at start, nothing applied (the
        # generation may still move: the file watch's reload of the file before)
        replace(cfg, text.replace('reorder_safe = on', 'reorder_safe = off') +
                '[dataplane]\nrebalance = on\n')
        run.proc.send_signal(signal.SIGHUP)
        want = 'rebalance = on needs reorder_safe = on'
        c = run.wait(lambda c: want in c['last_reload_result'], 'the refused reload')
        F.check(c is not None and c['reorder_safe'] == 1 and c['rebalance'] == 0,
                'reload of rebalance = on, reorder_safe = off: /rps/config %s' % c)
        print('reload of rebalance = on, reorder_safe = off: %s' % (
            (c or {}).get('last_reload_result')), flush=True)
    finally:
        run.stop(F)


CASES = {'fifo': case_fifo, 'partial': case_partial, 'symlink': case_symlink,
         'queues': case_queues, 'modes': case_modes, 'settings': case_settings,
         'hostile': case_hostile}


def main():
    binary = rpstest.binary_from_argv()
    if len(sys.argv) < 3 or sys.argv[2] not in CASES:
        sys.exit('usage: %s PATH/TO/dpdk-rps {%s}' % (sys.argv[0], '|'.join(CASES)))
    name = sys.argv[2]
    F = rpstest.Failures('test_config_file ' + name)
    with rpstest.TempDir('config_' + name) as tmp:
        rpstest.write_pcap(os.path.join(tmp, 'in.pcap'), rpstest.gen_traffic.generate_frames(
            flows=64, packets_per_flow=4, seed=14))
        try:
            CASES[name](F, binary, tmp)
        except (KeyError, TypeError, OSError, subprocess.TimeoutExpired) as e:
            F.fail('%s: %r' % (name, e))
    return F.report()


if __name__ == '__main__':
    sys.exit(main())
