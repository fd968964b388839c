#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_startup.py: signals at any moment of start-up, and readiness.

dpdk-rps takes SIGINT, SIGTERM and SIGHUP from before main() (the executable's
.preinit_array). Start-up time t = 0 is when /proc/PID/status shows the three caught
(SigCgt): before that only the dynamic loader runs. For each signal and each delay of 0, 10,
50, 200 and 600 ms after t:

- SIGHUP is never fatal: it is applied once dpdk-rps is ready (a reload of its --config,
  which is as it started: /rps/config reloads_unchanged becomes 1, nothing to change), the
  process keeps steering, and a later SIGINT stops it cleanly;
- SIGINT and SIGTERM end the process within a second, exit 0: with the summary (accounting
  holds, no mbuf left) once EAL is up, or saying "start-up interrupted by ..." before.

Readiness: /rps/info ready goes from 0 to 1, the log says "ready:", and a process started with
$NOTIFY_SOCKET sends READY=1 (then STOPPING=1) on that datagram socket, as systemd's
Type=notify expects (where dpdk-rps was built with libsystemd; else the test says so).

usage: test_startup.py PATH/TO/dpdk-rps
"""

import os
import signal
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rpstest  # noqa: E402

DELAYS_MS = (0, 10, 50, 200, 600)
STOP_WITHIN = 1.0
CAUGHT = (1 << (signal.SIGHUP - 1)) | (1 << (signal.SIGINT - 1)) | (1 << (signal.SIGTERM - 1))
CONFIG = '[dataplane]\nhash = jhash\n[map]\nqueue0 = 1-2\n'


def sig_caught(pid):
    try:
        with open('/proc/%d/status' % pid) as f:
            for line in f:
                if line.startswith('SigCgt:'):
                    return int(line.split()[1], 16)
    except (FileNotFoundError, ProcessLookupError):
        return None
    return 0


def start(binary, tmp, tag, env=None, config=True):
    prefix = rpstest.unique_prefix()
    inp = os.path.join(tmp, 'in.pcap')
    conf = os.path.join(tmp, 'rps.conf')
    summary = os.path.join(tmp, tag + '.json')
    eal = rpstest.eal_args(prefix, lcores='0@0,(1-2)@1',
                           vdevs=[rpstest.pcap_vdev(rx=inp, infinite_rx=True)])
    cmd = [binary] + eal + ['--'] + (['--config', conf] if config else ['--map', '0x6']) + \
        ['--summary-json', summary]
    if os.path.exists(summary):
        os.unlink(summary)
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, start_new_session=True, env=env)
    # t = 0: the handlers are in (only the dynamic loader runs before)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        c = sig_caught(proc.pid)
        if c is None or c & CAUGHT == CAUGHT:
            break
    return proc, prefix, summary


def finish(proc, prefix, timeout):
    try:
        out, err = proc.communicate(timeout=timeout)
        hung = False
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        hung = True
    rpstest.remove_runtime_dir(prefix)
    return out.decode(errors='replace'), err.decode(errors='replace'), hung


def wait_ready(prefix, timeout=20):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        r = rpstest.telemetry_socket(prefix, '/rps/info', '/rps/config')
        if len(r) == 2 and r[0].get('/rps/info') and r[0]['/rps/info'].get('ready') == 1:
            return r[0]['/rps/info'], r[1].get('/rps/config')
        time.sleep(0.02)
    return None, None


def check_summary(F, ctx, proc, err, summary, out):
    if rpstest.check_stopped(F, proc, err, summary, ctx) is not None:
        F.check('dpdk-rps summary' in out, '%s: no summary on stdout' % ctx)


def hup_case(F, binary, tmp, ms):
    ctx = 'SIGHUP at %d ms' % ms
    proc, prefix, summary = start(binary, tmp, 'hup%d' % ms)
    time.sleep(ms / 1000)
    proc.send_signal(signal.SIGHUP)
    info, cfg = wait_ready(prefix)
    alive = proc.poll() is None
    # the reload is taken up by the control thread once it runs
    deadline = time.monotonic() + 5
    while alive and cfg is not None and \
            cfg.get('reloads_ok', 0) + cfg.get('reloads_unchanged', 0) < 1 and \
            time.monotonic() < deadline:
        time.sleep(0.02)
        r = rpstest.telemetry_socket(prefix, '/rps/config')
        cfg = r[0].get('/rps/config') if r else cfg
    proc.send_signal(signal.SIGINT)
    t0 = time.monotonic()
    out, err, hung = finish(proc, prefix, 10)
    took = time.monotonic() - t0
    print('%s: alive %s, ready %s, reloads_ok %s unchanged %s, exit %s' % (
        ctx, alive, info is not None and info.get('ready'), cfg and cfg.get('reloads_ok'),
        cfg and cfg.get('reloads_unchanged'), proc.returncode), flush=True)
    if not F.check(alive and proc.returncode == 0 and not hung,
                   '%s: fatal (exit %s, hung %s): %s' % (ctx, proc.returncode, hung,
                                                        err[-800:])):
        return
    F.check(info is not None, '%s: never ready (/rps/info ready)' % ctx)
    # the file is as it started: taken up, nothing to change
    F.check(cfg is not None and cfg.get('reloads_unchanged') == 1 and
            cfg.get('reloads_ok') == 0 and cfg.get('reloads_failed') == 0,
            '%s: the SIGHUP was not applied once ready: %s' % (ctx, cfg and {
                k: cfg.get(k) for k in ('reloads_ok', 'reloads_unchanged', 'reloads_failed',
                                        'last_reload_result')}))
    F.check('config reload' in err or 'applied' in err, '%s: no reload in the log' % ctx)
    F.check(took <= STOP_WITHIN + 1, '%s: SIGINT after ready took %.2f s' % (ctx, took))
    check_summary(F, ctx, proc, err, summary, out)


def stop_case(F, binary, tmp, sig, ms):
    ctx = '%s at %d ms' % (signal.Signals(sig).name, ms)
    proc, prefix, summary = start(binary, tmp, 'stop%d_%d' % (sig, ms))
    time.sleep(ms / 1000)
    proc.send_signal(sig)
    t0 = time.monotonic()
    out, err, hung = finish(proc, prefix, 10)
    took = time.monotonic() - t0
    interrupted = 'start-up interrupted by' in err
    print('%s: exit %s after %.2f s, %s' % (ctx, proc.returncode, took,
                                             'interrupted in start-up' if interrupted else
                                             'summary'), flush=True)
    if not F.check(proc.returncode == 0 and not hung, '%s: exit %s (hung %s): %s' % (
            ctx, proc.returncode, hung, err[-800:])):
        return
    F.check(took <= STOP_WITHIN, '%s: exited %.2f s after the signal, expected within %.1f s'
            % (ctx, took, STOP_WITHIN))
    if 'dpdk-rps summary' in out:
        check_summary(F, ctx, proc, err, summary, out)
    else:
        F.check(interrupted, '%s: neither a summary nor "start-up interrupted": %s' % (
            ctx, err[-500:]))


def hup_without_config(F, binary, tmp):
    """SIGHUP with no --config: refused in the log and /rps/config, the process unharmed."""
    ctx = 'SIGHUP without --config'
    proc, prefix, summary = start(binary, tmp, 'noconf', config=False)
    info = rpstest.wait_ready_socket(prefix)
    proc.send_signal(signal.SIGHUP)
    cfg = None
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        r = rpstest.telemetry_socket(prefix, '/rps/config')
        cfg = r[0].get('/rps/config') if r else None
        if cfg and cfg.get('reloads_failed', 0) >= 1:
            break
        time.sleep(0.02)
    alive = proc.poll() is None
    proc.send_signal(signal.SIGINT)
    out, err, hung = finish(proc, prefix, 10)
    print('%s: ready %s, alive %s, %s, exit %s' % (
        ctx, info is not None, alive, cfg and cfg.get('last_reload_result'), proc.returncode),
        flush=True)
    F.check(alive and cfg is not None and cfg.get('reloads_failed') == 1 and
            'no --config' in cfg.get('last_reload_result', ''),
            '%s: %s' % (ctx, cfg and {k: cfg.get(k) for k in (
                'reloads_ok', 'reloads_failed', 'last_reload_result')}))
    check_summary(F, ctx, proc, err, summary, out)


def notify_case(F, binary, tmp):
    path = os.path.join(tmp, 'notify.sock')
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(20)
    env = dict(os.environ, NOTIFY_SOCKET=path)
    proc, prefix, summary = start(binary, tmp, 'notify', env=env)
    msgs = []
    try:
        msgs.append(sock.recv(4096).decode())
        info, _ = wait_ready(prefix, timeout=5)
        F.check(info is not None and info.get('ready') == 1,
                'notify: /rps/info ready %r after READY=1' % (info and info.get('ready')))
        proc.send_signal(signal.SIGINT)
        msgs.append(sock.recv(4096).decode())
    except socket.timeout:
        pass
    out, err, hung = finish(proc, prefix, 10)
    sock.close()
    print('notify: %r, exit %s' % (msgs, proc.returncode), flush=True)
    F.check(proc.returncode == 0 and not hung, 'notify: exit %s' % proc.returncode)
    F.check('ready:' in err, 'notify: no "ready:" log line')
    if 'built without libsystemd' in err:  # the warning of notify.c
        print('notify: dpdk-rps was built without libsystemd: no sd_notify to check')
        return
    F.check(len(msgs) == 2 and msgs[0].startswith('READY=1') and 'STOPPING=1' in msgs[1],
            'notify: expected READY=1 then STOPPING=1, got %r' % msgs)


def main():
    binary = rpstest.binary_from_argv()
    F = rpstest.Failures('test_startup')
    with rpstest.TempDir('startup') as tmp:
        rpstest.write_pcap(os.path.join(tmp, 'in.pcap'), rpstest.gen_traffic.generate_frames(
            flows=64, packets_per_flow=4, seed=9, non_ip=4))
        with open(os.path.join(tmp, 'rps.conf'), 'w') as f:
            f.write(CONFIG)
        notify_case(F, binary, tmp)
        hup_without_config(F, binary, tmp)
        for ms in DELAYS_MS:
            hup_case(F, binary, tmp, ms)
        for sig in (signal.SIGINT, signal.SIGTERM):
            for ms in DELAYS_MS:
                stop_case(F, binary, tmp, sig, ms)
    return F.report()


if __name__ == '__main__':
    sys.exit(main())
