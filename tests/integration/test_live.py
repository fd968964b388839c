#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_live.py: live control of the real binary under traffic.

dpdk-rps runs on a looping capture (net_pcap infinite_rx) with three workers and --config.
Once it is ready (/rps/info) and traffic reaches the workers, every other /rps/ command is
queried through dpdk-telemetry.py, in one batch, and its JSON checked. (The polling that
follows uses the socket itself: rpstest.telemetry_socket(), not a Python start-up each
time.) Then:
a valid config (new map) applied by SIGHUP shows up in /rps/map with a new generation and
the traffic follows it (the dropped worker stops processing); that save and its SIGHUP are
one reload (issue 38: the file watch applied the save again 100 ms later, generation 3), and
a SIGHUP a second later, the file unchanged, makes no generation (reloads_unchanged, "ok
(unchanged since generation 2)"); an invalid config written by
replacing the file (inotify) is refused with FILE:LINE in /rps/config, generation and map
unchanged; a good file replaced again applies; a restart-only key is reported; then a storm
of 2000 SIGHUPs (and as many file writes) alternating maps under traffic. SIGINT: exit 0, accounting exact, no mbuf
leaked, flows_migrated > 0.

usage: test_live.py PATH/TO/dpdk-rps
"""
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rpstest  # noqa: E402



# polling through the socket itself; the one batch of every command goes through
# dpdk-telemetry.py (below)
tel = rpstest.telemetry_socket


def one(prefix, cmd):
    r = tel(prefix, cmd)
    key = cmd.split(',')[0]
    return r[0].get(key) if r else None


def write_conf(path, body, replace=False):
    if replace:
        tmp = path + '.new'
        with open(tmp, 'w') as f:
            f.write(body)
        os.rename(tmp, path)
    else:
        with open(path, 'w') as f:
            f.write(body)


def conf(mask, extra=''):
    return '[dataplane]\nreorder_safe = on\n%s\n[map]\ndefault = %s\n' % (extra, mask)


def wait_for(pred, timeout=10.0):
    return rpstest.wait_for(pred, timeout, step=0.02)


def main():
    binary = rpstest.binary_from_argv()
    F = rpstest.Failures('test_live')
    with rpstest.TempDir('live') as tmp:
        inp, _ = rpstest.write_input(tmp, flows=200, packets_per_flow=4, seed=3, frag_datagrams=4,
                                     non_ip=4)
        cfg = os.path.join(tmp, 'rps.conf')
        write_conf(cfg, conf('0xe'))
        prefix = rpstest.unique_prefix()
        summary = os.path.join(tmp, 'summary.json')
        eal = rpstest.eal_args(prefix, lcores='0@0,(1-3)@1',
                               vdevs=[rpstest.pcap_vdev(rx=inp, infinite_rx=True)])
        cmd = [binary] + eal + ['--', '--config', cfg, '--summary-json', summary,
                                '--backlog', '4096']
        proc = rpstest.drain(subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                stdin=subprocess.DEVNULL, start_new_session=True))
        try:
            info = rpstest.wait_ready_socket(prefix, 15)
            if not F.check(info is not None,
                           'never ready: no /rps/info with ready 1 (telemetry socket?)'):
                raise RuntimeError('no telemetry')
            F.check(info['worker_lcores'] == [1, 2, 3], '/rps/info workers %s' %
                    info['worker_lcores'])
            F.check(info['config_generation'] == 1 and info['driver'] == 'net_pcap',
                    '/rps/info %s' % info)
            # the CPU paths chosen at start, for this binary on this CPU
            cpu_flags = open('/proc/cpuinfo').read().split('\nflags')[1].split('\n')[0].split()
            F.check(info.get('build_cpu', '').split(' ')[0] in ('native', 'generic') and
                    info.get('toeplitz_impl') in ('gfni', 'gfni-ool', 'softrss') and
                    info.get('idle_wait') == ('umwait' if 'waitpkg' in cpu_flags else 'sleep') and
                    info.get('flow_hash_impl') == ('avx2-x4' if 'avx2' in cpu_flags
                                                   else 'scalar'),
                    '/rps/info CPU paths %s' % {k: info.get(k) for k in (
                        'build_cpu', 'toeplitz_impl', 'idle_wait', 'flow_hash_impl',
                        'cpu_flags')})
            F.check(('gfni' in cpu_flags) == ('gfni' in info.get('cpu_flags', '').split()),
                    '/rps/info cpu_flags %r' % info.get('cpu_flags'))
            # traffic through the workers before the one batch of every command
            rpstest.wait_traffic(prefix)
            replies = rpstest.telemetry(prefix, '/rps/stats', '/rps/workers', '/rps/map',
                                        '/rps/flows,5', '/rps/config')
            F.check(len(replies) == 5, 'expected 5 telemetry replies, got %d' % len(replies))
            if len(replies) == 5:
                st, wk, mp, fl, cf = (r[k] for r, k in zip(replies, (
                    '/rps/stats', '/rps/workers', '/rps/map', '/rps/flows', '/rps/config')))
                F.check(st['rx_packets'] > 0 and 'dropped_backlog_full' in st and
                        'worker_1' in st and 'backlog_hwm' in st['worker_1'],
                        '/rps/stats: %s' % list(st)[:12])
                ws = wk.get('workers', {})
                F.check(sorted(ws) == ['1', '2', '3'] and 'pps' in ws['1'] and
                        'dropped_backlog_full' in ws['1'] and 'dropped_flow_limit' in ws['1']
                        and wk['nb_workers'] == 3 and 'next' not in wk,
                        '/rps/workers: %s' % wk)
                F.check(mp['queue0']['lcores'] == [1, 2, 3] and mp['queue0']['mask'] == 'e' and
                        mp['queue0']['weights'] == [1, 1, 1] and
                        sum(mp['queue0']['buckets']) == mp['queue0']['table_size'] and
                        mp['generation'] == 1 and mp['reorder_safe'] == 1, '/rps/map: %s' % mp)
                flows = {k: v for k, v in fl.items() if k.isdigit()}
                F.check(isinstance(fl, dict) and 1 <= len(flows) <= 5 and
                        fl.get('first') == 0 and 'next' not in fl and
                        all('packets' in v and 'src' in v for v in flows.values()),
                        '/rps/flows,5: %s' % fl)
                # each flow's two directions, nested, summing to its totals
                F.check(all(isinstance(v.get(d), dict) and
                            set(v[d]) == {'packets', 'bytes', 'flags'}
                            for v in flows.values() for d in ('orig', 'reply')) and
                        all(v['orig']['packets'] + v['reply']['packets'] == v['packets'] and
                            v['orig']['bytes'] + v['reply']['bytes'] == v['bytes']
                            for v in flows.values()),
                        '/rps/flows,5: orig and reply: %s' % fl)
                # /rps/flow of the busiest flow, by its tuple either way: the lcore that has
                # it in /rps/flows, its entry there with both counts; a bad tuple refused
                top = max(flows.values(), key=lambda v: v['packets'], default=None)
                if top is not None:
                    proto = {6: 'tcp', 17: 'udp'}.get(top['proto'], str(top['proto']))
                    fwd, back, bad = (r.get('/rps/flow') for r in rpstest.telemetry(
                        prefix,
                        '/rps/flow,%s,%s,%d,%s,%d' % (proto, top['src'], top['sport'],
                                                      top['dst'], top['dport']),
                        '/rps/flow,%s,%s,%d,%s,%d' % (proto, top['dst'], top['dport'],
                                                      top['src'], top['sport']),
                        '/rps/flow,tcp,198.18.0.1,1,nothing,2'))
                    F.check(isinstance(fwd, dict) and fwd['lcore'] == top['lcore'] and
                            fwd['steered_by'] == 'map' and fwd['rule'] == -1 and
                            fwd['bucket_lcore'] == top['lcore'] and
                            list(fwd['flow']) == [str(top['lcore'])] and
                            fwd['flow'][str(top['lcore'])]['packets'] >= top['packets'] and
                            fwd['flow_unanswered'] == [] and fwd['flow_tables'] == 3,
                            '/rps/flow of %s: %s' % (top, fwd))
                    F.check(isinstance(back, dict) and list(back.get('flow', {})) ==
                            [str(top['lcore'])], '/rps/flow reversed: %s' % back)
                    F.check(bad is None, '/rps/flow with a bad address: %s' % bad)
                # every listed flow: /rps/flow names the lcore that has it
                for v in flows.values():
                    proto = {6: 'tcp', 17: 'udp'}.get(v['proto'], str(v['proto']))
                    r = rpstest.telemetry(prefix, '/rps/flow,%s,%s,%d,%s,%d' % (
                        proto, v['src'], v['sport'], v['dst'], v['dport']))
                    got = r[0].get('/rps/flow') if r else None
                    F.check(isinstance(got, dict) and got['lcore'] == v['lcore'] and
                            str(v['lcore']) in got['flow'],
                            '/rps/flow of %s: %s' % (v, got))
                F.check(cf['generation'] == 1 and cf['config_file'] == cfg and
                        cf['backlog'] == 4096 and cf['flow_limit'] == 0,
                        '/rps/config: %s' % cf)

            # a valid config by SIGHUP: map 0x6 (lcores 1,2), flow limit on (live), generation 2
            write_conf(cfg, conf('0x6', 'flow_limit = on'))
            os.kill(proc.pid, signal.SIGHUP)
            mp = wait_for(lambda: (lambda m: m if m and m['generation'] >= 2 else None)(
                one(prefix, '/rps/map')))
            F.check(mp is not None and mp['queue0']['lcores'] == [1, 2],
                    'after SIGHUP /rps/map: %s' % mp)
            cf = one(prefix, '/rps/config')
            F.check(cf is not None and cf['flow_limit'] == 1,
                    'after SIGHUP flow_limit = on: /rps/config %s' % cf)
            # one save and its SIGHUP: one reload, once the watch is quiet too
            time.sleep(0.5)     # past the watch's 100 ms: a reload for the save would be done
            cf = wait_for(lambda: (lambda c: c if c and c['watch_armed'] == 0 else None)(
                one(prefix, '/rps/config')))
            F.check(cf is not None and cf['generation'] == 2 and cf['reloads_ok'] == 1,
                    'save + SIGHUP: not one reload: /rps/config %s' % cf)
            # a SIGHUP with the file as applied: nothing to do, no generation
            unchanged = cf['reloads_unchanged'] if cf else 0
            os.kill(proc.pid, signal.SIGHUP)
            cf = wait_for(lambda: (lambda c: c if c and c['reloads_unchanged'] > unchanged
                                   else None)(one(prefix, '/rps/config')))
            F.check(cf is not None and cf['generation'] == 2 and cf['reloads_ok'] == 1 and
                    cf['last_reload_result'] == 'ok (unchanged since generation 2)',
                    'SIGHUP, file unchanged: /rps/config %s' % cf)
            # lcore 3 drains what it had: its buckets move once it has (reorder_safe), then
            # its backlog stays empty and its count still
            F.check(rpstest.wait_worker_drained(prefix, 3),
                    'lcore 3 still busy 10 s after the map without it: /rps/worker,3 %s' %
                    one(prefix, '/rps/worker,3'))
            w3a = one(prefix, '/rps/worker,3')['processed']
            time.sleep(1.0)
            w3b = one(prefix, '/rps/worker,3')['processed']
            # lcore 1's rate, the control thread's per second: a loaded machine (a sanitizer
            # build beside other work) can leave one second's sample at 0
            w1 = 0
            for _ in range(4):
                w1 = one(prefix, '/rps/workers')['workers']['1']['pps']
                if w1 > 0:
                    break
                time.sleep(0.5)
            F.check(w3a == w3b and w1 > 0, 'traffic does not follow the map: lcore 3 '
                    'processed %d -> %d, lcore 1 pps %d' % (w3a, w3b, w1))

            # an invalid file, by replacing it (inotify): refused, nothing changes
            F.check(wait_for(lambda: (lambda c: c and c['watch_armed'] == 0)(
                one(prefix, '/rps/config'))), 'a reload for the file still pending')
            gen = one(prefix, '/rps/config')['generation']
            write_conf(cfg, '[dataplane]\nreorder_safe = on\nbacklog = lots\n[map]\n'
                       'default = 0x2\n', replace=True)
            cf = wait_for(lambda: (lambda c: c if c and 'refused' in c['last_reload_result']
                                   else None)(one(prefix, '/rps/config')))
            F.check(cf is not None and (cfg + ':3:') in cf['last_reload_result'] and
                    cf['generation'] == gen, 'invalid config: /rps/config %s' % cf)
            mp = one(prefix, '/rps/map')
            F.check(mp['generation'] == gen and mp['queue0']['lcores'] == [1, 2],
                    'invalid config changed the map: %s' % mp)
            # a map naming an lcore that is no worker is refused too
            write_conf(cfg, conf('0x10'), replace=True)
            cf = wait_for(lambda: (lambda c: c if c and 'lcore 4' in c['last_reload_result']
                                   else None)(one(prefix, '/rps/config')))
            F.check(cf is not None and cf['generation'] == gen,
                    'map with a non-worker lcore: /rps/config %s' % cf)

            # a good file by replacement, with a restart-only key changed
            write_conf(cfg, conf('0xe', 'burst = 32'), replace=True)
            # (the generation moves on a moment before the reload's result is written: wait
            # for the result of this one, after the refusals' 'refused: ...')
            cf = wait_for(lambda: (lambda c: c if c and c['generation'] > gen and
                                   c['last_reload_result'].startswith('ok') else None)(
                one(prefix, '/rps/config')))
            F.check(cf is not None and 'needs a restart for: burst' in
                    cf['last_reload_result'], 'restart-only key: /rps/config %s' % cf)

            # a reload storm under traffic
            before = one(prefix, '/rps/config')['generation']
            masks = ['0x6', '0xe', '0xa', '0xc', '0x2']
            t0 = time.monotonic()
            for i in range(2000):
                write_conf(cfg, conf(masks[i % len(masks)]))
                os.kill(proc.pid, signal.SIGHUP)
                time.sleep(0.002)
            sent = time.monotonic() - t0
            # SIGHUPs that arrive during a reload coalesce, so how many generations a storm
            # makes depends on the machine's speed (601 in 4.5 s here, 39 in an ASan CI
            # run): what must hold is that the last file written wins, nothing is refused
            mp = wait_for(lambda: (lambda m: m if m and m['queue0']['lcores'] == [1] else
                                   None)(one(prefix, '/rps/map')), 15)
            cf = one(prefix, '/rps/config')
            F.check(mp is not None and cf is not None and cf['generation'] > before + 1 and
                    cf['reloads_failed'] == 2,
                    'storm: the last file (map 0x2) did not win: %s, %s' % (mp, cf))
            print('storm: 2000 SIGHUPs in %.1f s, %d generations applied, the last file won '
                  '%.1f s after the first' % (sent, cf['generation'] - before,
                                             time.monotonic() - t0), flush=True)
        except (RuntimeError, KeyError, TypeError, subprocess.TimeoutExpired) as e:
            F.fail('live control: %r' % e)
        finally:
            out, err = rpstest.stop(proc, prefix)
        s = rpstest.check_stopped(F, proc, err, summary, 'after the storm')
        if s is not None:
            try:
                F.check(s['rx_lcore']['flows_migrated'] > 0, 'no bucket ever migrated: %s' %
                        s['rx_lcore']['flows_migrated'])
                print('after the storm: rx %d processed %d dropped %s flows_migrated %d '
                      'migrations_deferred %d' % (s['rx_packets'], s['processed'],
                                                  {k: v for k, v in s['dropped'].items() if v},
                                                  s['rx_lcore']['flows_migrated'],
                                                  s['rx_lcore']['migrations_deferred']))
            except KeyError as e:
                F.fail('summary: %r' % e)
    return F.report()


if __name__ == '__main__':
    sys.exit(main())
