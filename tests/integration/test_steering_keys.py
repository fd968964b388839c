#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_steering_keys.py BINARY: steering an attacker cannot aim (docs/steering-keys.md).

Generated captures, four workers (lcores 1-4), --stages parse, per-worker counts from the
summary JSON:
1. 3000 crafted TCP flows 198.18.x.y:(i ^ 0x4000) -> 198.19.0.1:80 whose tuples' 16-bit
   words all XOR to one value: what a Toeplitz key repeating one 16-bit pattern (6d5a, the
   old --symmetric) hashes. --hash toeplitz --symmetric-xor (that mode, kept opt-in) puts
   all 3000 on one worker, so the check below can fail; --hash toeplitz --symmetric (sorted
   tuple, random key) and --symmetric (sorted jhash) give every worker at least 15 %.
2. 2000 non-IP frames (ARP and LLDP) from 2000 source MACs: before, all had hash 0 and one
   worker; now hashed on MACs + EtherType + VLAN ID, every worker at least 15 %, with jhash
   and with --hash toeplitz. One station's frames stay on one worker (the accounting and
   the 2 workers x 1 station check).
3. Secrets: with --hash-seed and --rss-key given, neither is in the summary JSON (nor on
   stdout/stderr); without them the summary says "random". The summary and --flows-json are
   0600, written through a symlink planted at their path without following it (the link's
   target is unchanged, the path becomes a regular file), with no temporary left behind.
   A live run's /rps/config gives the owner the seed and key (the runtime directory that
   holds the telemetry socket is checked to be closed to others).
4. One number syntax: --backlog 065536 (octal to strtoul), --backlog ' 5' and backlog =
   065536 in a file all exit 2 naming the option or FILE:LINE; 0x hex is accepted and read as
   hex (--backlog 0x1000 starts with backlog 4096).

The runs of 1. and 2. and the one of 3.'s files each take a whole capture and stop 100 ms
after it (--exit-when-idle: nothing arrives once net_pcap has read the file, and idle waits
for empty backlogs too), with a backlog above the capture's size: nothing depends on timing,
so they go two at a time (rpstest.run_all()) and are checked afterwards, in order.
"""

import json
import os
import stat
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rpstest  # noqa: E402

G = rpstest.gen_traffic
LCORES = '0@0,(1-4)@1'
WORKERS = 4
XOR_FLOWS = 3000
MACS = 2000
MIN_SHARE = 0.15
SEED = 2718281828
KEY = bytes((i * 151 + 7) & 0xff for i in range(40))


def xor_frames():
    """The XOR-collapsing set: every tuple's 16-bit words XOR to one value."""
    eth = G.eth_header(b'\x02\0\0\0\0\x02', b'\x02\0\0\0\0\x01', [], 0x0800)
    dst = bytes([198, 19, 0, 1])
    out = []
    for i in range(1, XOR_FLOWS + 1):
        src = bytes([198, 18, i >> 8, i & 0xff])
        seg = G.tcp_segment(False, src, dst, i ^ 0x4000, 80, 1, 0, b'', flags=0x02)
        out.append(eth + G.ipv4_header(src, dst, 6, len(seg), i) + seg)
    # the model: the XOR of the words really is one value
    words = set()
    for f in out[:50]:
        t = f[26:38]
        x = 0
        for k in range(0, 12, 2):
            x ^= int.from_bytes(t[k:k + 2], 'big')
        words.add(x)
    assert len(words) == 1
    return out


def non_ip_frames():
    """ARP requests and LLDP frames, one station (source MAC) each."""
    out = []
    for i in range(MACS):
        smac = bytes([0x02, 0, 0, i >> 8, i & 0xff, 1])
        if i % 2:
            body = bytes([0, 1, 8, 0, 6, 4, 0, 1]) + smac + bytes([198, 18, 0, 1]) + \
                bytes(6) + bytes([198, 18, 0, 2])
            out.append(G.eth_header(b'\xff' * 6, smac, [], 0x0806) + body + bytes(18))
        else:
            out.append(G.eth_header(b'\x01\x80\xc2\x00\x00\x0e', smac, [], 0x88CC) +
                       bytes(46))
    return out


def shares(s):
    return [w['processed'] for w in s['workers']]


def launch(binary, tmp, inp, tag, extra):
    res, _ = rpstest.run_pcap(binary, tmp, inp, 0,
                              ['--map', '1-4', '--stages', 'parse', '--backlog', '8192',
                               '--exit-when-idle', '100'] + list(extra),
                              lcores=LCORES, timeout=60, tag=tag)
    return res


def run(F, res, tag, extra, n):
    s = rpstest.check_exit(F, res, tag)
    if s is None:
        return None, res
    F.check(s['rx_packets'] == n and rpstest.dropped_total(s) == 0,
            '%s: rx %d of %d, dropped %d' % (tag, s['rx_packets'], n, rpstest.dropped_total(s)))
    print('%s (%s): per worker %s' % (tag, ' '.join(extra), shares(s)), flush=True)
    return s, res


def check_spread(F, s, tag, n):
    if s is None:
        return
    per = shares(s)
    F.check(len(per) == WORKERS and min(per) >= MIN_SHARE * n,
            '%s: per worker %s: a worker below %d %% of %d' % (tag, per, MIN_SHARE * 100, n))


def check_summary_file(F, path, tag, secrets):
    st = os.lstat(path)
    F.check(stat.S_ISREG(st.st_mode), '%s: %s is not a regular file' % (tag, path))
    F.check(stat.S_IMODE(st.st_mode) == 0o600,
            '%s: %s has mode %o, expected 600' % (tag, path, stat.S_IMODE(st.st_mode)))
    with open(path) as f:
        text = f.read()
    for name, value in secrets:
        F.check(value not in text, '%s: the %s (%s) is in %s' % (tag, name, value, path))


def secrets_run(binary, tmp, inp):
    """The run whose summary and flows JSON secrets_check() checks; the caller sets the
    umask (022: a file created without a mode of its own would be 0644)."""
    victim = os.path.join(tmp, 'victim.txt')
    with open(victim, 'w') as f:
        f.write('untouched\n')
    os.chmod(victim, 0o644)
    summary = os.path.join(tmp, 'link_summary.json')
    flows = os.path.join(tmp, 'link_flows.json')
    for p in (summary, flows):
        if os.path.lexists(p):
            os.unlink(p)
        os.symlink(victim, p)
    prefix = rpstest.unique_prefix()
    eal = rpstest.eal_args(prefix, lcores=LCORES, vdevs=[rpstest.pcap_vdev(rx=inp)])
    return rpstest.run_rps(binary, eal, ['--map', '1-4', '--stages', 'parse,flow',
                                         '--exit-when-idle', '100', '--hash', 'toeplitz',
                                         '--hash-seed', str(SEED), '--rss-key', KEY.hex(),
                                         '--summary-json', summary, '--flows-json', flows],
                           timeout=60, prefix=prefix)


def secrets_check(F, tmp, r):
    """Summary and flows JSON: secrets kept out, 0600, symlinks replaced, not followed."""
    victim = os.path.join(tmp, 'victim.txt')
    summary = os.path.join(tmp, 'link_summary.json')
    flows = os.path.join(tmp, 'link_flows.json')
    if not F.check(r.rc == 0, 'secrets run: exit %s' % r.rc, r):
        return
    with open(victim) as f:
        F.check(f.read() == 'untouched\n', 'a symlink at the output path was followed')
    secrets = [('jhash seed', str(SEED)), ('jhash seed (hex)', '%x' % SEED),
               ('RSS key', KEY.hex()), ('RSS key (bytes)', KEY.hex()[:16])]
    check_summary_file(F, summary, 'summary', secrets)
    check_summary_file(F, flows, 'flows', secrets)
    for name, value in secrets:
        F.check(value not in r.stdout + r.stderr, 'the %s is printed on stdout/stderr' % name,
                r)
    left = [n for n in os.listdir(tmp) if n.startswith('link_summary.json.') or
            n.startswith('link_flows.json.')]
    F.check(not left, 'temporaries left behind: %s' % left)
    with open(summary) as f:
        c = json.load(f)['config']
    F.check(c.get('hash_seed') == 'configured' and c.get('rss_key') == 'configured',
            'summary config names the secrets\' source: %r' % {k: c.get(k) for k in
                                                              ('hash_seed', 'rss_key')})


def live(F, binary, tmp, inp):
    """/rps/config tells the owner the seed and key (the telemetry socket is in EAL's
    runtime directory, 0700), with where they came from."""
    prefix = rpstest.unique_prefix()
    eal = rpstest.eal_args(prefix, lcores=LCORES,
                           vdevs=[rpstest.pcap_vdev(rx=inp, infinite_rx=True)])
    cmd = [binary] + eal + ['--', '--map', '1-4', '--stages', 'parse', '--symmetric',
                            '--hash', 'toeplitz', '--hash-seed', str(SEED),
                            '--rss-key', KEY.hex()]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        if not F.check(rpstest.wait_ready_socket(prefix) is not None, 'live: never ready'):
            return
        r = rpstest.telemetry_socket(prefix, '/rps/config')
        c = r[0].get('/rps/config') if r else None
        want = {'hash_seed': SEED, 'rss_key': KEY.hex(), 'hash_seed_source': 'configured',
                'rss_key_source': 'configured', 'symmetric': 'sort'}
        F.check(c is not None and all(c.get(k) == v for k, v in want.items()),
                'live: /rps/config %r, expected %r' % (
                    c and {k: c.get(k) for k in want}, want))
        for d in ('/var/run/dpdk/' + prefix,
                  os.path.join(os.environ.get('XDG_RUNTIME_DIR', '/nonexistent'), 'dpdk',
                               prefix)):
            if os.path.isdir(d):
                mode = stat.S_IMODE(os.stat(d).st_mode)
                print('live: runtime dir %s mode %o' % (d, mode), flush=True)
                F.check(mode & 0o077 == 0, 'live: runtime dir %s is mode %o: others could '
                        'reach the telemetry socket' % (d, mode))
    finally:
        err = rpstest.stop(proc, prefix)
    F.check(KEY.hex().encode() not in err[0] + err[1], "live: the RSS key is printed")


def numbers(F, binary, tmp):
    def go(app, conf=None):
        return rpstest.run_until_idle(binary, tmp, ['--map', '1-4', '--stages', 'parse'] +
                                      list(app), conf, lcores=LCORES)

    rpstest.check_usage_errors(F, go, [
        (['--backlog', '065536'], None, ['--backlog', '065536', 'not a number']),
        (['--backlog', ' 5'], None, ['--backlog', 'not a number']),
        (['--hash-seed', '5 '], None, ['--hash-seed']),
        (['--burst', '+8'], None, ['--burst']),
        (['--duration', ' 1'], None, ['--duration']),
        ([], '[dataplane]\nbacklog = 065536\n', ['bad.conf:2', 'backlog']),
    ])
    # hex is read as hex: the start-up line says backlog 4096. (0x1000, not 0x10000: a
    # 65536-packet backlog sizes the mbuf pool to all of -m 512, seconds of start-up on a
    # loaded 2-CPU machine for a check of the number's syntax.)
    r = go(['--backlog', '0x1000', '--hash-seed', '0'])
    F.check(r.rc == 0 and ', backlog 4096,' in r.stderr,
            '--backlog 0x1000 --hash-seed 0: exit %s, not started with backlog 4096' % r.rc, r)


def main():
    binary = rpstest.binary_from_argv()
    F = rpstest.Failures('test_steering_keys')
    with rpstest.TempDir('steering_keys') as tmp:
        xin = os.path.join(tmp, 'xor.pcap')
        rpstest.write_pcap(xin, xor_frames())
        nin = os.path.join(tmp, 'in.pcap')
        rpstest.write_pcap(nin, non_ip_frames())

        # every run first, two at a time (each a whole capture, nothing depends on timing),
        # then their checks in order
        runs = [(xin, 'xor', ['--hash', 'toeplitz', '--symmetric-xor'], XOR_FLOWS),
                (xin, 'sorted_tz', ['--hash', 'toeplitz', '--symmetric'], XOR_FLOWS),
                (xin, 'sorted_jhash', ['--symmetric'], XOR_FLOWS),
                (xin, 'plain_tz', ['--hash', 'toeplitz'], XOR_FLOWS),
                (nin, 'nonip_jhash', [], MACS),
                (nin, 'nonip_tz', ['--hash', 'toeplitz'], MACS),
                (nin, 'nonip_sym', ['--symmetric'], MACS)]
        # and the run of 3.'s output files, under umask 022 (all of them: their summaries
        # are checked 0600 too)
        old = os.umask(0o022)
        try:
            done = rpstest.run_all([lambda r=r: launch(binary, tmp, *r[:3]) for r in runs] +
                                   [lambda: secrets_run(binary, tmp, xin)])
        finally:
            os.umask(old)
        got = {r[1]: run(F, res, *r[1:]) for r, res in zip(runs, done)}

        # 1. the XOR set: one worker with the 6d5a key, spread when sorted with a random key
        s, _ = got['xor']
        if s is not None:
            F.check(max(shares(s)) == XOR_FLOWS, 'xor: the crafted flows did not collapse '
                    'on one worker (%s): the spread checks could not fail' % shares(s))
        for tag in ('sorted_tz', 'sorted_jhash', 'plain_tz'):
            s, res = got[tag]
            check_spread(F, s, tag, XOR_FLOWS)
            if s is not None:
                c = s['config']
                F.check(c.get('hash_seed') == 'random' and c.get('rss_key') == 'random',
                        '%s: summary config %r' % (tag, {k: c.get(k) for k in
                                                         ('hash_seed', 'rss_key')}))
                check_summary_file(F, os.path.join(tmp, tag + '_summary.json'), tag, [])

        # 2. non-IP frames from many stations
        for tag in ('nonip_jhash', 'nonip_tz', 'nonip_sym'):
            s, _ = got[tag]
            check_spread(F, s, tag, MACS)

        # 3. secrets and output files; 4. numbers
        secrets_check(F, tmp, done[-1])
        live(F, binary, tmp, xin)
        numbers(F, binary, tmp)
    return F.report()


if __name__ == '__main__':
    sys.exit(main())
