#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_telemetry_safety.py: the telemetry socket's access, /rps/flows's cost to the data
path, and a shutdown that no telemetry command can hold up (app/observability/telemetry.c, issue 25).

sockets: EAL's sockets (dpdk_telemetry.v2, and mp_socket, which the capture tools use) are
  owner-only from the moment they exist: a run started under umask 000 and stopped right
  after EAL's initialisation (RPS_TEST_START_PAUSE_MS, 1.5 s: the checks take milliseconds)
  finds both without any group or other bit, before the ports are set up and again once
  ready; the process's umask is its own
  again after EAL's initialisation (/proc/PID/status). A runtime directory made beforehand
  with mode 0777, or owned by another user, or inside a dpdk/ folder of mode 0777
  (RUNTIME_DIRECTORY), is refused: exit 2, the message naming the directory, its owner and
  mode. What the docs say of /rps/config's secrets holds: with EAL's own 0700 directory it
  shows hash_seed and rss_key; with one made beforehand 0755 (accepted: others can only
  read and search it) both are "hidden".

flows: /rps/flows asks the workers for snapshots (each walks the worker's flow table) only
  for a few seconds, and never waits long for them. Worker 0 is stopped for 2 s
  (RPS_TEST_WORKER_STALL): a /rps/flows during the stall (milliseconds after its log line,
  on a client already connected) answers within 0.5 s (the wait is bounded at 100 ms; it
  was 1.5 s) and names the worker in "stale". Then a client polls it every 0.2 s for 2 s:
  the workers take snapshots ("flow_snapshots" in /rps/workers, read on the same client);
  once the polling stops their counts stop rising within the window and a margin (they went
  on for 60 s).

stall: worker 0 stops for an hour in the middle of writing its snapshot
  (RPS_TEST_SNAP_STALL, sequence count odd). /rps/flows answers within 0.5 s without its
  flows ("unavailable": its lcore) where it used to spin forever; stopped while clients
  poll, the process gives the worker up (after 10 s; 2 s here: the test hook
  RPS_TEST_EXIT_WAIT_S shortens the same wait) and exits (status 1) where it used to
  hang. And a command still running at exit (RPS_TEST_TEL_HOLD=/rps/config:60000): the
  stop waits for it 2 s, says so, leaves what it reads in place, and exits (status 1).

usage: test_telemetry_safety.py PATH/TO/dpdk-rps sockets|flows|stall
"""
import os
import pwd
import re
import shutil
import stat
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rpstest  # noqa: E402

FLOWS_WINDOW_S = 3      # the workers snapshot while /rps/flows was asked this recently
LATENCY_MAX_S = 0.5     # a /rps/flows reply, at most (the code waits 100 ms at most)
# The exit's deadline for a worker still running (health.c, 10 s), shortened by the test hook
EXIT_WAIT_S = 2


def runtime_dir(prefix):
    return os.path.dirname(rpstest.telemetry_path(prefix))


def logged(proc, text):
    """Whether stderr (read by rpstest.drain()) has text so far."""
    return text.encode() in b''.join(list(proc._drained[1]))


def start(binary, prefix, eal_extra, app, env=None, umask=None, lcores='0@0,1@1',
          inp=None, infinite=False):
    eal = rpstest.eal_args(prefix, lcores=lcores,
                           vdevs=[rpstest.pcap_vdev(rx=inp, infinite_rx=infinite)],
                           extra=eal_extra)
    e = dict(os.environ)
    e.update(env or {})
    return rpstest.drain(subprocess.Popen(
        [binary] + eal + ['--'] + app, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL, start_new_session=True, env=e,
        preexec_fn=(lambda: os.umask(umask)) if umask is not None else None))


def ready(F, proc, prefix, ctx):
    """Wait until ready; on failure say what the process logged."""
    return F.check(rpstest.wait_ready_socket(prefix, timeout=30) is not None,
                   '%s: never ready: %s' % (
                       ctx, b''.join(list(proc._drained[1]))[-1500:].decode(errors='replace')))


def proc_umask(pid):
    try:
        with open('/proc/%d/status' % pid) as f:
            for line in f:
                if line.startswith('Umask:'):
                    return int(line.split()[1], 8)
    except OSError:
        pass
    return None


def socket_modes(F, prefix, ctx):
    """The two sockets: each a socket, no bit for group or others. Returns their modes."""
    modes = {}
    for name in ('dpdk_telemetry.v2', 'mp_socket'):
        path = os.path.join(runtime_dir(prefix), name)
        try:
            st = os.lstat(path)
        except OSError as e:
            F.fail('%s: %s: %s' % (ctx, path, e))
            continue
        modes[name] = '%o' % stat.S_IMODE(st.st_mode)
        F.check(stat.S_ISSOCK(st.st_mode) and st.st_uid == os.geteuid() and
                st.st_mode & 0o077 == 0, '%s: %s is mode %o (uid %d): group or others '
                'could connect' % (ctx, path, stat.S_IMODE(st.st_mode), st.st_uid))
    return modes


def secrets_shown(F, prefix, ctx, shown):
    """/rps/config's hash_seed and rss_key: values when @p shown, else both "hidden"."""
    r = rpstest.telemetry_socket(prefix, '/rps/config')
    c = r[0].get('/rps/config') if r else None
    got = (c or {}).get('hash_seed'), (c or {}).get('rss_key')
    if shown:
        ok = isinstance(got[0], int) and isinstance(got[1], str) and \
            re.fullmatch(r'[0-9a-f:]{80,}', got[1] or '') is not None
    else:
        ok = got == ('hidden', 'hidden')
    F.check(ok, '%s: /rps/config hash_seed %r, rss_key %r: expected %s' % (
        ctx, got[0], got[1], 'their values' if shown else '"hidden"'))
    print('%s: /rps/config secrets %s' % (ctx, 'shown' if got[0] != 'hidden' else 'hidden'),
          flush=True)


def sockets(F, binary, tmp, inp):
    # 1. born owner-only, under umask 000, before anything of dpdk-rps ran
    prefix = rpstest.unique_prefix()
    summary = os.path.join(tmp, 'sockets.json')
    proc = start(binary, prefix, [], ['--map', '0x2', '--summary-json', summary],
                 env={'RPS_TEST_START_PAUSE_MS': '1500'}, umask=0, inp=inp, infinite=True)
    try:
        paused = rpstest.wait_for(lambda: logged(proc, 'start-up paused'), timeout=30)
        if F.check(paused, 'sockets: the start-up pause was never logged'):
            early = socket_modes(F, prefix, 'sockets, right after EAL init')
            F.check(not logged(proc, 'start-up resumed'),
                    'sockets: looked too late (start-up had resumed)')
            d = os.stat(runtime_dir(prefix))
            F.check(d.st_uid == os.geteuid() and d.st_mode & 0o022 == 0,
                    'sockets: runtime dir mode %o uid %d' % (stat.S_IMODE(d.st_mode),
                                                            d.st_uid))
            print('sockets: during the pause %s, runtime dir %o, process umask %s' % (
                early, stat.S_IMODE(d.st_mode), oct(proc_umask(proc.pid) or 0)), flush=True)
            if ready(F, proc, prefix, 'sockets'):
                late = socket_modes(F, prefix, 'sockets, once ready')
                secrets_shown(F, prefix, 'sockets, runtime dir 0700', True)
                um = proc_umask(proc.pid)
                F.check(um == 0, 'sockets: the process umask is %s once ready, not the '
                        '000 it was started with' % (oct(um) if um is not None else None))
                print('sockets: once ready %s, process umask %s' % (late, oct(um or 0)),
                      flush=True)
    finally:
        out, err = rpstest.stop(proc, prefix, timeout=20)
    rpstest.check_stopped(F, proc, err, summary, 'sockets')

    # 2. a runtime directory group and others can read and search (0755, as a systemd
    # RuntimeDirectory= may be): accepted, the secrets hidden
    prefix = rpstest.unique_prefix()
    d = runtime_dir(prefix)
    os.makedirs(os.path.dirname(d), exist_ok=True)
    os.mkdir(d)
    os.chmod(d, 0o755)
    proc = start(binary, prefix, [], ['--map', '0x2'], inp=inp, infinite=True)
    try:
        if ready(F, proc, prefix, 'runtime dir 0755'):
            secrets_shown(F, prefix, 'runtime dir 0755', False)
    finally:
        out, err = rpstest.stop(proc, prefix, timeout=20)
        shutil.rmtree(d, ignore_errors=True)
    F.check(proc.returncode == 0, 'runtime dir 0755: exit %s' % proc.returncode)

    # 3. a runtime directory others could write to, or someone else's, or in a folder others
    # could rename it in (EAL's dpdk/ under RUNTIME_DIRECTORY): refused, exit 2
    base = os.path.join(tmp, 'rtbase')
    cases = [('mode 0777', 0o777, None, None)]
    if os.geteuid() == 0:
        cases.append(('owned by nobody', 0o700, pwd.getpwnam('nobody').pw_uid, None))
    cases.append(('in a dpdk/ of mode 0777', 0o777, None, base))
    for ctx, mode, uid, rtbase in cases:
        prefix = rpstest.unique_prefix()
        d = runtime_dir(prefix) if rtbase is None else os.path.join(rtbase, 'dpdk')
        os.makedirs(os.path.dirname(d), exist_ok=True)
        os.mkdir(d)
        os.chmod(d, mode)
        if uid is not None:
            os.chown(d, uid, -1)
        try:
            eal = rpstest.eal_args(prefix, lcores='0@0,1@1', vdevs=[rpstest.pcap_vdev(rx=inp)])
            r = rpstest.run_rps(binary, eal, ['--map', '0x2', '--exit-when-idle', '100'],
                                timeout=60, prefix=prefix,
                                env={'RUNTIME_DIRECTORY': rtbase} if rtbase else None)
        finally:
            shutil.rmtree(d, ignore_errors=True)
        owner = str(uid if uid is not None else os.geteuid())
        want = [d, 'mode %o' % mode, owner]
        print('runtime dir %s: exit %s: %s' % (ctx, r.rc, r.stderr.strip().splitlines()[-1:]),
              flush=True)
        if F.check(r.rc == 2, 'runtime dir %s: exit %s, expected 2' % (ctx, r.rc), r):
            F.check(all(w in r.stderr for w in want) and 'ready' not in r.stderr,
                    'runtime dir %s: stderr does not say %s: %r' % (ctx, want,
                                                                    r.stderr[-800:]))


def brief(fl):
    """A /rps/flows reply without its flows: its other keys and how many flows (by lcore)."""
    if not isinstance(fl, dict):
        return fl
    b = {k: v for k, v in fl.items() if not k.isdigit()}
    b['flows_of_lcore'] = {}
    for k, v in fl.items():
        if k.isdigit():
            b['flows_of_lcore'][v['lcore']] = b['flows_of_lcore'].get(v['lcore'], 0) + 1
    return b


def worker_snapshots(tel):
    """flow_snapshots of each worker ({lcore: count}), from /rps/workers (which takes none),
    asked on telemetry client tel."""
    ws, _ = tel.query('/rps/workers')
    if not ws:
        return None
    return {k: v.get('flow_snapshots') for k, v in ws['workers'].items()}


def flows(F, binary, tmp, inp, nframes):
    prefix = rpstest.unique_prefix()
    summary = os.path.join(tmp, 'flows.json')
    # worker 0 (lcore 1) stops for 2 s once it has 50 packets; lcore 2 shares CPU 0 with the
    # RX lcore, which idles once the capture is read. The stall is there to be met by one
    # query on a client already connected: milliseconds after its log line
    proc = start(binary, prefix, [], ['--map', '0x6', '--summary-json', summary,
                                      '--flow-timeout', '3600'],
                 env={'RPS_TEST_WORKER_STALL': '0:50:2000'}, lcores='0@0,1@1,2@0', inp=inp)
    tel = None
    try:
        if not ready(F, proc, prefix, 'flows'):
            return
        tel = rpstest.Telemetry(prefix)
        stalled = rpstest.wait_for(lambda: logged(proc, 'worker lcore 1 stops for'), timeout=20)
        if not F.check(stalled, 'flows: worker 0 never stalled'):
            return
        before = worker_snapshots(tel)
        F.check(before is not None and set(before.values()) == {0},
                'flows: snapshots before anyone asked: %s' % before)
        fl, dt = tel.query('/rps/flows,10')
        print('flows: first /rps/flows during the stall: %.3f s, stale %s' % (
            dt, fl.get('stale') if fl else None), flush=True)
        F.check(fl is not None and dt < LATENCY_MAX_S,
                'flows: /rps/flows took %.3f s with a worker stalled (at most %.1f s): %s' % (
                    dt, LATENCY_MAX_S, brief(fl)))
        F.check(fl is not None and fl.get('stale') == [1],
                'flows: the stalled worker (lcore 1) is not named stale: %s' % brief(fl))
        # the stall ends, every packet processed
        done = rpstest.wait_for(lambda: (lambda v: v and v.get('processed') == nframes)(
            tel.query('/rps/stats')[0]), timeout=30)
        F.check(done, 'flows: the capture was not all processed')
        # a client polls for 2 s
        lat = []
        t_end = time.monotonic() + 2
        while time.monotonic() < t_end:
            fl, dt = tel.query('/rps/flows,10')
            lat.append(dt)
            time.sleep(0.2)
        last_query = time.monotonic()
        flowsn = len([k for k in (fl or {}) if k.isdigit()])
        during = worker_snapshots(tel)
        print('flows: polled %d times, max %.3f s, %d flows; snapshots %s' % (
            len(lat), max(lat), flowsn, during), flush=True)
        F.check(max(lat) < LATENCY_MAX_S, 'flows: a /rps/flows took %.3f s' % max(lat))
        F.check(flowsn == 10 and fl.get('stale') == [] and fl.get('unavailable') == [],
                'flows: the last reply %s' % brief(fl))
        F.check(during is not None and all(v and v >= 2 for v in during.values()),
                'flows: workers did not snapshot while polled: %s' % during)
        # polling stopped: the counts must settle within the window and a margin, and stay
        quiet_s, deadline = 2.5, last_query + FLOWS_WINDOW_S + 1.5 + 2.5
        prev, since, settled = during, time.monotonic(), None
        while time.monotonic() < deadline:
            time.sleep(0.25)
            cur = worker_snapshots(tel)
            if cur != prev:
                prev, since = cur, time.monotonic()
            elif time.monotonic() - since >= quiet_s:
                settled = time.monotonic() - last_query
                break
        print('flows: snapshots after polling stopped %s, settled %s s after the last query'
              % (prev, '%.1f' % (since - last_query) if settled else 'never'), flush=True)
        F.check(settled is not None, 'flows: the workers still snapshot %.1f s after the '
                'last /rps/flows: %s, then %s' % (deadline - last_query, during, prev))
    finally:
        if tel is not None:
            tel.close()
        out, err = rpstest.stop(proc, prefix, timeout=20)
    rpstest.check_stopped(F, proc, err, summary, 'flows')


def poll_flows(prefix, stop, lat):
    try:
        tel = rpstest.Telemetry(prefix, timeout=30)
    except OSError:
        return
    while not stop.is_set():
        v, dt = tel.query('/rps/flows,5')
        lat.append((v is not None, dt))
        if v is None:               # refused once the stop began (or timed out)
            if dt >= 29:
                break
            time.sleep(0.05)
    tel.close()


def stall(F, binary, tmp, inp, nframes):
    # 1. worker 0 (lcore 1) stopped in the middle of its first snapshot, for an hour
    prefix = rpstest.unique_prefix()
    summary = os.path.join(tmp, 'stall.json')
    proc = start(binary, prefix, [], ['--map', '0x6', '--summary-json', summary,
                                      '--flow-timeout', '3600'],
                 env={'RPS_TEST_SNAP_STALL': '0:3600000',
                      'RPS_TEST_EXIT_WAIT_S': str(EXIT_WAIT_S)},
                 lcores='0@0,1@1,2@0', inp=inp)
    stop, lat, threads = threading.Event(), [], []
    t_stop = None
    try:
        if not ready(F, proc, prefix, 'stall'):
            return
        tel = rpstest.Telemetry(prefix, timeout=10)
        done = rpstest.wait_for(lambda: (lambda v: v and v.get('processed') == nframes)(
            tel.query('/rps/stats')[0]), timeout=30)
        F.check(done, 'stall: the capture was not all processed')
        tel.query('/rps/flows,5')      # asks: worker 0 enters its snapshot and stops there
        inside = rpstest.wait_for(lambda: logged(proc, 'inside its flow snapshot'), timeout=10)
        if F.check(inside, 'stall: worker 0 never stopped inside its snapshot'):
            fl, dt = tel.query('/rps/flows,5')
            print('stall: /rps/flows with worker 0 stopped mid-snapshot: %.3f s, '
                  'unavailable %s, %d flows' % (dt, fl.get('unavailable') if fl else None,
                                               len([k for k in fl or {} if k.isdigit()])),
                  flush=True)
            F.check(fl is not None and dt < LATENCY_MAX_S and fl.get('unavailable') == [1]
                    and all(fl[k]['lcore'] == 2 for k in fl if k.isdigit()),
                    'stall: /rps/flows took %.3f s: %s' % (dt, brief(fl)))
        tel.close()
        threads = [threading.Thread(target=poll_flows, args=(prefix, stop, lat), daemon=True)
                   for _ in range(2)]
        for t in threads:
            t.start()
        rpstest.wait_for(lambda: len(lat) >= 4, timeout=10)
        t_stop = time.monotonic()
    finally:
        out, err = rpstest.stop(proc, prefix, timeout=30)
        took = time.monotonic() - t_stop if t_stop else 0
        stop.set()
        for t in threads:
            t.join(35)
    err = err.decode(errors='replace')
    slow = [round(dt, 3) for ok, dt in lat if dt >= LATENCY_MAX_S]
    print('stall: exit %s %.1f s after SIGINT; %d polls during the stop, %d slow %s' % (
        proc.returncode, took, len(lat), len(slow), slow[:5]), flush=True)
    F.check(proc.returncode == 1 and took < EXIT_WAIT_S + 10, 'stall: exit %s %.1f s after '
            'SIGINT, expected 1 within %d s (the worker given up on after %d s): %s' % (
                proc.returncode, took, EXIT_WAIT_S + 10, EXIT_WAIT_S, err[-1500:]))
    F.check('still running %d s after the stop' % EXIT_WAIT_S in err,
            'stall: the worker was not given up on: %s' % err[-1500:])
    F.check(len(lat) >= 4 and not slow, 'stall: /rps/flows replies over %.1f s while '
            'stopping: %s' % (LATENCY_MAX_S, slow[:5]))

    # 2. a command still running at exit
    prefix = rpstest.unique_prefix()
    summary = os.path.join(tmp, 'hold.json')
    proc = start(binary, prefix, [], ['--map', '0x2', '--summary-json', summary],
                 env={'RPS_TEST_TEL_HOLD': '/rps/config:60000'}, inp=inp, infinite=True)
    took = None
    try:
        if not ready(F, proc, prefix, 'hold'):
            return
        t = threading.Thread(target=lambda: rpstest.telemetry(prefix, '/rps/config'),
                             daemon=True)
        t.start()
        held = rpstest.wait_for(lambda: logged(proc, '/rps/config held'), timeout=10)
        F.check(held, 'hold: /rps/config was never held')
        t_stop = time.monotonic()
    finally:
        out, err = rpstest.stop(proc, prefix, timeout=20)
        took = time.monotonic() - t_stop if t_stop else 0
    out, err = out.decode(errors='replace'), err.decode(errors='replace')
    print('hold: exit %s %.1f s after SIGINT; %s' % (
        proc.returncode, took, [ln for ln in err.splitlines() if 'in flight' in ln][:1]),
        flush=True)
    F.check(proc.returncode == 1 and took < 10,
            'hold: exit %s %.1f s after SIGINT with a command in flight, expected 1 within '
            '10 s: %s' % (proc.returncode, took, err[-1500:]))
    F.check('still in flight' in err and 'dpdk-rps summary' in out,
            'hold: no word of the command in flight, or no summary: %s' % err[-1500:])


def main():
    binary = rpstest.binary_from_argv()
    part = sys.argv[2] if len(sys.argv) > 2 else ''
    if part not in ('sockets', 'flows', 'stall'):
        sys.exit('usage: %s PATH/TO/dpdk-rps sockets|flows|stall' % sys.argv[0])
    F = rpstest.Failures('test_telemetry_safety ' + part)
    with rpstest.TempDir('tel_safety') as tmp:
        if not rpstest.hooks_built(binary, tmp):
            print('SKIP: %s (the test hooks make the conditions)' % rpstest.NO_HOOKS)
            return rpstest.SKIP
        inp, frames = rpstest.write_input(tmp, flows=64, packets_per_flow=20, seed=25,
                                          frag_datagrams=0, non_ip=0)
        if part == 'sockets':
            sockets(F, binary, tmp, inp)
        elif part == 'flows':
            flows(F, binary, tmp, inp, len(frames))
        else:
            stall(F, binary, tmp, inp, len(frames))
    return F.report()


if __name__ == '__main__':
    sys.exit(main())
