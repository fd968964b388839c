#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_idle.py: idle workers sleep in the kernel and the RX lcore wakes them (rps_wake.h).

1. idle: 4 workers on a port that receives nothing (net_ring, nobody writes its ring), the
   default --idle-sleep: from IDLE_SETTLE_S after ready (past the first second of idle,
   whose shorter naps cost about a third of a CPU), the process's CPU time over 2 s
   (/proc/PID/stat) stays under IDLE_MAX of one CPU (tools/idle_bench.py measured 3.5 to
   4%), while the same run with --idle-sleep 0 (pure polling), the control, burns over
   POLL_MIN: the reading can tell the two apart. /rps/workers says each worker sleeps.
   Then, with every lcore asleep: a reload by SIGHUP (a new map) is applied within
   REACT_S, and SIGINT ends the run within REACT_S: exit 0, the summary written, each
   worker's idle_sleeps > 0.
2. stress: 64 flows x 300 packets through 4 workers, the RX lcore pausing 0 to 3 ms (random)
   after every 40 packets (RPS_TEST_RX_GAP): long enough for every worker to fall asleep
   between bursts, many times. Every packet comes out (rx == processed, nothing dropped),
   every flow in order on one worker's file, and the RX lcore woke workers (wakeups > 50).
   This is a stress of the wake-up's races (the sanitizers' and the order check's), not the
   check of a lost wake-up: a worker that is never kicked still wakes by itself every
   10 ms, and --exit-when-idle waits for every backlog to empty, so these checks pass
   without any kick; the wake run (3.) is the one that fails then.

3. wake (`test_idle.py BINARY wake`, integration-wake, in the quick suite and the ASan
   run): the one check a lost wake-up fails. A sleeping worker wakes by itself every 10 ms
   (RPS_WAKE_IDLE_US), so in the stress run above a kick that never comes only delays its
   packets by 10 ms: every packet still comes out, in order. Here the test hook
   RPS_TEST_SELF_WAKE_MS stretches that self-wake to SELF_WAKE_MS, and the RX lcore pauses
   GAP_MS after each burst of 32 (RPS_TEST_RX_GAP, --burst 32), so every worker sleeps in
   the kernel before each burst arrives. Each burst's packets must all leave (TX pcap
   timestamps) within BURST_SPREAD_MAX of each other, far below SELF_WAKE_MS: a worker the
   RX lcore does not kick holds its share of a burst until its own wake-up, seconds later
   (fails with the kick of the last worker skipped in rx_loop.c's wake_workers()). Then
   /rps/workers on a live run: busy_percent is 0, cpu_ms flat and the state sleeping for
   workers asleep on an idle port, and busy_percent over BUSY_MIN for workers slower than
   an endless replay (RPS_TEST_WORKER_DELAY_NS), their cpu_ms growing.

4. tap (`test_idle.py BINARY tap`, integration-idle-tap; needs root and /dev/net/tun): the
   same on net_tap, whose RX queues have interrupts: the log says the RX lcore sleeps on
   them after a second of idle, the whole process then idles under TAP_IDLE_MAX of one CPU,
   frames written into the interface in bursts 1.2 s apart all arrive (the interrupt wakes
   the RX lcore, which wakes the workers), and a reload and SIGINT while every lcore sleeps
   take effect within REACT_S.

usage: test_idle.py PATH/TO/dpdk-rps [wake|tap]
"""

import json
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rpstest  # noqa: E402

LCORES = '0@0,(1-4)@1'
WORKERS = [1, 2, 3, 4]
IDLE_MAX = 0.10        # of one CPU, sleeping past RPS_IDLE_DEEP_MS (4% measured, benchmarks.md)
IDLE_SETTLE_S = 1.5    # after ready: past --idle-spin and RPS_IDLE_DEEP_MS (1 s) of naps
POLL_MIN = 0.35        # of one CPU, polling: 5 lcores spin (200% on an idle 2-CPU machine)
REACT_S = 1.0          # a reload or a stop while asleep takes effect within this
TAP_IDLE_MAX = 0.05    # of one CPU, every lcore asleep on net_tap (0.7% measured)
TAP_IFACE = 'rpsidle%d' % (os.getpid() % 100000)
SELF_WAKE_MS = 3000    # wake: a sleeping worker's own wake-up, stretched (test hook)
GAP_MS = 150           # wake: the RX lcore's pause after each burst: every worker sleeps
WAKE_BURST = 32        # wake: --burst, and the packets between pauses
BURST_SPREAD_MAX = 0.5  # wake: s between a burst's first and last packet out, at most
BUSY_MIN = 90          # wake: busy_percent of a worker slower than its source, at least


def cpu_seconds(pid):
    """utime + stime of the process, in seconds."""
    with open('/proc/%d/stat' % pid) as f:
        fields = f.read().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')


def idle_share(pid, seconds=2.0):
    c0, t0 = cpu_seconds(pid), time.monotonic()
    time.sleep(seconds)
    return (cpu_seconds(pid) - c0) / (time.monotonic() - t0)


def start(binary, tmp, tag, app, env=None, vdev='net_ring0'):
    prefix = rpstest.unique_prefix()
    eal = rpstest.eal_args(prefix, lcores=LCORES, vdevs=[vdev])
    summary = os.path.join(tmp, tag + '.json')
    cmd = [binary] + eal + ['--'] + app + ['--summary-json', summary]
    print('$ ' + ' '.join(cmd), flush=True)
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, env=dict(os.environ, **(env or {})),
                            start_new_session=True)
    return proc, prefix, summary


def stop(proc, prefix):
    try:
        out, _ = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
    rpstest.remove_runtime_dir(prefix)
    return out


def idle_run(F, binary, tmp):
    cfg = os.path.join(tmp, 'idle.conf')
    with open(cfg, 'w') as f:
        f.write('[map]\ndefault = 0x1e\n')
    proc, prefix, summary = start(binary, tmp, 'idle', ['--config', cfg])
    out = ''
    try:
        if not F.check(rpstest.wait_ready_socket(prefix) is not None,
                       'idle: not ready within 20 s'):
            return
        # the RX lcore naps up to --idle-sleep for its first second of idle (about a third of
        # a CPU) and up to 1 ms after it (RPS_IDLE_DEEP_MIN_US): measure the steady state
        time.sleep(IDLE_SETTLE_S)
        share = idle_share(proc.pid)
        print('idle: %.1f%% of one CPU with the default --idle-sleep' % (100 * share),
              flush=True)
        F.check(share < IDLE_MAX, 'idle: %.1f%% of one CPU, expected under %.0f%%' % (
            100 * share, 100 * IDLE_MAX))
        tel = rpstest.Telemetry(prefix)
        wk, _ = tel.query('/rps/workers')
        states = {k: v.get('state') for k, v in (wk or {}).get('workers', {}).items()}
        F.check(sorted(states) == ['1', '2', '3', '4'] and
                all(s == 'sleeping' for s in states.values()),
                'idle: /rps/workers states %s, expected every worker sleeping' % states)
        reload_and_stop(F, 'idle', proc, prefix, cfg, tel)
        tel.close()
    finally:
        out = stop(proc, prefix)
    s = None
    if os.path.exists(summary):
        with open(summary) as f:
            s = json.load(f)
    if not F.check(s is not None, 'idle: no summary; output:\n' + out[-3000:]):
        return
    for w in s['workers']:
        F.check(w['idle_sleeps'] > 0, 'idle: worker %d never slept' % w['lcore'])

    # the control: pure polling burns CPU, so the reading above can fail
    proc, prefix, summary = start(binary, tmp, 'poll', ['--map', '0x1e', '--idle-sleep', '0'])
    try:
        if F.check(rpstest.wait_ready_socket(prefix) is not None, 'poll: not ready'):
            share = idle_share(proc.pid, 1.0)
            print('poll (control): %.1f%% of one CPU with --idle-sleep 0' % (100 * share),
                  flush=True)
            F.check(share > POLL_MIN, 'poll (control): %.1f%% of one CPU with --idle-sleep 0,'
                    ' expected over %.0f%%: the reading cannot tell sleeping from polling' % (
                        100 * share, 100 * POLL_MIN))
        os.kill(proc.pid, signal.SIGINT)
    finally:
        stop(proc, prefix)


def stress_run(F, binary, tmp):
    inp, frames = rpstest.write_input(tmp, flows=64, packets_per_flow=300, seed=29,
                                      frag_datagrams=0, non_ip=0)
    env = {'RPS_TEST_RX_GAP': '40:3:random'}
    res, tx = rpstest.run_pcap(binary, tmp, inp, len(WORKERS),
                               ['--map', '0x1e', '--tx-port', '0', '--exit-when-idle', '300',
                                '--backlog', '8192'],
                               lcores=LCORES, tag='stress', env=env, timeout=120)
    s = rpstest.check_exit(F, res, 'stress', strict=True)
    if s is None:
        return
    rx = s['rx_lcore']
    print('stress: rx %d processed %d; wakeups %d, coalesced %d; worker sleeps %s' % (
        s['rx_packets'], s['processed'], rx['wakeups'], rx['wakeups_coalesced'],
        [w['idle_sleeps'] for w in s['workers']]), flush=True)
    F.check(s['rx_packets'] == len(frames), 'stress: rx_packets %d of %d' % (
        s['rx_packets'], len(frames)))
    F.check(rpstest.dropped_total(s) == 0, 'stress: dropped %s' % s['dropped'])
    F.check(rx['wakeups'] > 50, 'stress: %d wake-ups: the workers hardly slept between '
            'bursts, the race was not exercised' % rx['wakeups'])
    outs = {os.path.basename(p): rpstest.read_pcap(p).frames for p in tx}
    F.extend(rpstest.check_outputs(frames, outs, exact=True), 'stress')


def wake_run(F, binary, tmp):
    """Bursts of WAKE_BURST packets GAP_MS apart, each worker asleep before each, its own
    wake-up stretched to SELF_WAKE_MS: every burst leaves within BURST_SPREAD_MAX."""
    nb = 12
    frames = rpstest.gen_traffic.generate_frames(flows=48, packets_per_flow=nb * WAKE_BURST // 48,
                                                 seed=31, frag_datagrams=0, non_ip=0)
    inp = os.path.join(tmp, 'wake.pcap')
    rpstest.write_pcap(inp, frames)
    index = {rpstest.marker(f): i for i, f in enumerate(frames)}
    env = {'RPS_TEST_RX_GAP': '%d:%d' % (WAKE_BURST, GAP_MS),
           'RPS_TEST_SELF_WAKE_MS': str(SELF_WAKE_MS)}
    res, tx = rpstest.run_pcap(binary, tmp, inp, len(WORKERS),
                               ['--map', '0x1e', '--tx-port', '0', '--burst', str(WAKE_BURST),
                                '--exit-when-idle', '300', '--backlog', '4096'],
                               lcores=LCORES, tag='wake', env=env, timeout=60)
    F.check('(RPS_TEST_SELF_WAKE_MS)' in res.stderr, 'wake: the self-wake hook did not say '
            'it took effect:\n' + res.stderr[-1500:])
    s = rpstest.check_exit(F, res, 'wake', strict=True)
    if s is None:
        return
    wire = rpstest.wire_order(tx)
    if not F.check(len(wire) == len(frames), 'wake: %d of %d packets out' % (
            len(wire), len(frames))) or not wire:
        return
    per = {}
    for ts, q, mk in wire:
        per.setdefault(index[mk] // WAKE_BURST, []).append((ts, q))
    spread = {b: (max(t for t, _ in v) - min(t for t, _ in v)) / 1e9 for b, v in per.items()}
    worst = max(spread, key=spread.get)
    late = sorted({q for t, q in per[worst] if t - min(x for x, _ in per[worst]) >
                   BURST_SPREAD_MAX * 1e9})
    rx = s['rx_lcore']
    print('wake: %d bursts %d ms apart, self-wake %d ms; the slowest burst (%d) left over '
          '%.3f s (median %.3f s); wakeups %d, coalesced %d, worker sleeps %s' % (
              len(per), GAP_MS, SELF_WAKE_MS, worst, spread[worst],
              sorted(spread.values())[len(spread) // 2], rx['wakeups'],
              rx['wakeups_coalesced'], [w['idle_sleeps'] for w in s['workers']]), flush=True)
    F.check(spread[worst] < BURST_SPREAD_MAX, 'wake: burst %d took %.3f s to leave, expected '
            'under %.1f s (a sleeping worker wakes by itself after %d ms here): worker(s) '
            '%s (TX queue index) were not woken when their packets were queued: a lost '
            'wake-up' % (
                worst, spread[worst], BURST_SPREAD_MAX, SELF_WAKE_MS, late))
    # each worker slept before (nearly) every burst, so each burst woke each worker it fed
    F.check(rx['wakeups'] >= len(per), 'wake: %d wake-ups for %d bursts: the workers did not '
            'sleep between bursts, the test did not test the wake-up' % (
                rx['wakeups'], len(per)))


def workers_now(tel):
    wk, _ = tel.query('/rps/workers')
    return (wk or {}).get('workers', {})


def busy_run(F, binary, tmp):
    """/rps/workers' busy_percent and cpu_ms: 0 and flat for workers asleep on an idle port;
    over BUSY_MIN for workers slower than an endless replay (RPS_TEST_WORKER_DELAY_NS: every
    dequeue finds a full backlog: --backpressure off, or a full one would pause the RX lcore
    for all), their cpu_ms growing by their share of the process's CPU
    time (/proc). busy_percent counts from the start: --idle-spin 0 and a self-wake of
    SELF_WAKE_MS keep the empty polls before the traffic to a few."""
    for tag, vdev, env in (
            ('asleep', 'net_ring0', {}),
            ('busy', rpstest.pcap_vdev(rx=os.path.join(tmp, 'wake.pcap'), infinite_rx=True),
             {rpstest.WORKER_DELAY: '50000', 'RPS_TEST_SELF_WAKE_MS': str(SELF_WAKE_MS)})):
        proc, prefix, summary = start(binary, tmp, tag, ['--map', '0x1e', '--idle-spin', '0',
                                                    '--backpressure', 'off'],
                                      env=env, vdev=vdev)
        try:
            if not F.check(rpstest.wait_ready_socket(prefix) is not None,
                           '%s: not ready' % tag):
                continue
            tel = rpstest.Telemetry(prefix)
            time.sleep(0.5)     # asleep, or saturated
            c0 = cpu_seconds(proc.pid)
            w0 = workers_now(tel)
            time.sleep(0.5)
            w1 = workers_now(tel)
            c1 = cpu_seconds(proc.pid)
            tel.close()
            if not F.check(sorted(w0) == sorted(w1) == ['1', '2', '3', '4'],
                           '%s: /rps/workers %s' % (tag, w1)):
                continue
            busy = {k: w1[k]['busy_percent'] for k in w1}
            state = {k: w1[k].get('state') for k in w1}
            cpu = {k: w1[k]['cpu_ms'] - w0[k]['cpu_ms'] for k in w1}
            proc_ms = (c1 - c0) * 1000
            print('%s: busy_percent %s; cpu_ms +%s over 0.5 s, the process +%.0f ms; '
                  'states %s' % (tag, busy, cpu, proc_ms, state), flush=True)
            if tag == 'asleep':
                F.check(all(v == 'sleeping' for v in state.values()), 'asleep: /rps/workers '
                        'states %s, expected every worker sleeping' % state)
                F.check(all(b == 0 for b in busy.values()) and
                        all(0 <= c <= 50 for c in cpu.values()),
                        'asleep: busy_percent %s, cpu_ms +%s in 0.5 s: expected 0 and flat for '
                        'workers asleep' % (busy, cpu))
            else:
                F.check(all(b >= BUSY_MIN for b in busy.values()), 'busy: busy_percent %s, '
                        'expected over %d for workers that find a full backlog at every poll'
                        % (busy, BUSY_MIN))
                # the workers share CPU 1, the RX lcore polls on CPU 0: a part of the
                # process's time, and no more than it (clock ticks: 10 ms each thread)
                F.check(all(c > 0 for c in cpu.values()) and
                        0.1 * proc_ms <= sum(cpu.values()) <= proc_ms + 50,
                        'busy: cpu_ms +%s in 0.5 s (sum %d ms), the process +%.0f ms: expected '
                        'each growing, together a part of the process\'s' % (
                            cpu, sum(cpu.values()), proc_ms))
        finally:
            try:
                os.kill(proc.pid, signal.SIGINT)
            except ProcessLookupError:
                pass
            stop(proc, prefix)


def reload_and_stop(F, ctx, proc, prefix, cfg, tel):
    """With every lcore asleep: a new map by SIGHUP, applied within REACT_S; then SIGINT,
    exit 0 within REACT_S."""
    with open(cfg, 'w') as f:
        f.write('[map]\ndefault = 0x6\n')
    t0 = time.monotonic()
    os.kill(proc.pid, signal.SIGHUP)
    applied = None
    while time.monotonic() - t0 < 10:
        mp, _ = tel.query('/rps/map')
        if mp and mp.get('generation', 0) >= 2:
            applied = time.monotonic() - t0
            F.check(mp['queue0']['lcores'] == [1, 2], '%s: after the reload /rps/map %s' % (
                ctx, mp))
            break
        time.sleep(0.01)
    print('%s: reload applied after %s s' % (
        ctx, 'never' if applied is None else '%.3f' % applied), flush=True)
    F.check(applied is not None and applied < REACT_S, '%s: the reload took %s s, expected '
            'under %.1f s' % (ctx, applied, REACT_S))
    time.sleep(0.3)     # asleep again
    t0 = time.monotonic()
    os.kill(proc.pid, signal.SIGINT)
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass
    took = time.monotonic() - t0
    print('%s: SIGINT to exit %.3f s' % (ctx, took), flush=True)
    F.check(proc.returncode == 0, '%s: exit code %s after SIGINT' % (ctx, proc.returncode))
    F.check(took < REACT_S, '%s: exit %.2f s after SIGINT, expected under %.1f s' % (
        ctx, took, REACT_S))


def tap_checks(F, proc, prefix, cfg):
    """The tap run's checks while it runs; returns frames written."""
    sent = 0
    # the kernel's own IPv6 frames on the new interface (DAD, router solicitations) would
    # keep the port from being idle: IPv6 off on it, then a second of idle, after which the
    # RX lcore sleeps on interrupts
    subprocess.run(['sysctl', '-q', '-w', 'net.ipv6.conf.%s.disable_ipv6=1' % TAP_IFACE],
                   capture_output=True)
    time.sleep(1.5)
    share = idle_share(proc.pid, 1.5)
    print('tap: %.1f%% of one CPU idle' % (100 * share), flush=True)
    F.check(share < TAP_IDLE_MAX, 'tap: %.1f%% of one CPU idle, expected under %.0f%%: '
            'is the RX lcore asleep on interrupts?' % (100 * share, 100 * TAP_IDLE_MAX))
    frames = rpstest.gen_traffic.generate_frames(flows=20, packets_per_flow=10, seed=3,
                                                 frag_datagrams=0, non_ip=0)
    tel = rpstest.Telemetry(prefix)
    for i in range(0, len(frames), 70):     # bursts 1.2 s apart: asleep before each
        rpstest.send_on_iface(TAP_IFACE, frames[i:i + 70])
        sent += len(frames[i:i + 70])
        time.sleep(1.2)

    def arrived():
        st, _ = tel.query('/rps/stats')
        return st is not None and st['rx_packets'] >= sent and \
            st['processed'] + st['dropped_total'] >= sent
    F.check(rpstest.wait_for(arrived, timeout=5), 'tap: %d frames written, not all '
            'received and handled 5 s later: /rps/stats %s' % (
                sent, tel.query('/rps/stats')[0]))
    reload_and_stop(F, 'tap', proc, prefix, cfg, tel)
    tel.close()
    return sent


def tap_run(F, binary, tmp):
    cfg = os.path.join(tmp, 'tap.conf')
    with open(cfg, 'w') as f:
        f.write('[map]\ndefault = 0x1e\n')
    proc, prefix, summary = start(binary, tmp, 'tap', ['--config', cfg, '--rx-queues', '1'],
                                  vdev='net_tap0,iface=%s' % TAP_IFACE)
    out = ''
    sent = 0
    ready = False
    try:
        ready = rpstest.wait_ready_socket(prefix) is not None
        if ready:
            sent = tap_checks(F, proc, prefix, cfg)
        else:
            proc.send_signal(signal.SIGINT)
    finally:
        out = stop(proc, prefix)
    if not F.check(ready, 'tap: not ready; output:\n' + out[-3000:]):
        return
    F.check('sleeps on RX interrupts' in out, 'tap: the log does not say the RX lcore sleeps '
            'on RX interrupts:\n' + out[-2000:])
    s = None
    if os.path.exists(summary):
        with open(summary) as f:
            s = json.load(f)
    if F.check(s is not None, 'tap: no summary'):
        F.extend(rpstest.check_accounting(s), 'tap')
        F.check(s['rx_packets'] >= sent, 'tap: rx_packets %d of %d written' % (
            s['rx_packets'], sent))
        F.check(s['rx_lcore']['wakeups'] > 0, 'tap: no worker was woken')


def main():
    binary = rpstest.binary_from_argv()
    if len(sys.argv) > 2 and sys.argv[2] == 'tap':
        if rpstest.tap_skip():
            return rpstest.SKIP
        F = rpstest.Failures('test_idle tap')
        with rpstest.TempDir('idle_tap') as tmp:
            tap_run(F, binary, tmp)
        return F.report()
    if len(sys.argv) > 2 and sys.argv[2] == 'wake':
        F = rpstest.Failures('test_idle wake')
        with rpstest.TempDir('wake') as tmp:
            rpstest.skip_without_hooks(binary, tmp, 'RPS_TEST_SELF_WAKE_MS, RPS_TEST_RX_GAP, '
                                       'RPS_TEST_WORKER_DELAY_NS')
            wake_run(F, binary, tmp)
            busy_run(F, binary, tmp)
        return F.report()
    F = rpstest.Failures('test_idle')
    with rpstest.TempDir('idle') as tmp:
        if not rpstest.hooks_built(binary, tmp):
            print('SKIP: ' + rpstest.NO_HOOKS)
            return rpstest.SKIP
        idle_run(F, binary, tmp)
        stress_run(F, binary, tmp)
    return F.report()


if __name__ == '__main__':
    sys.exit(main())
