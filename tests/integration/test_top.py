#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_top.py: tools/dpdk-rps-top, the live view, on a running dpdk-rps, in a real terminal.

dpdk-rps runs three workers on one CPU over a looping capture: the bundled one plus copies of
some of its IPv4 packets with a wrong header checksum or TTL 0 (dropped by the validate stage
on the workers, so drop reasons keep growing). dpdk-rps-top runs in a detached tmux session
(160x50); the test reads the screen with `tmux capture-pane`, polling until a condition holds
(bounded, never a fixed sleep).

- A frame shows the header (version, uptime, generation, ready, RX rate), one row per worker
  lcore, each with Mpps > 0 once two frames have passed, a column per drop reason counted
  (bad_ip_checksum, ttl_zero) whose values add up to the row's DROPPED, and hot buckets.
- Shrunk to 30x6 it draws what fits (lines cut; the status line says the workers have no
  room) and the full frame again at 160x50.
- q quits: exit status 0, no traceback, the terminal restored (the frame is gone).
- SIGINT (C-c in the pane): the same.
- --once prints one frame as plain text: parsed, one row per worker, rates > 0, the drop
  columns adding up; --once on a prefix where nothing runs: exit 1, "cannot connect".
- dpdk-rps stopped by SIGINT while dpdk-rps-top watches: it prints "dpdk-rps exited" and
  exits 0 with the terminal restored; dpdk-rps exits 0.
- Rule-steered packets are the worker's that got them (issue 38): all-UDP traffic and
  --rule 'udp -> worker 2' over --map 1-3; --once shows lcore 3 (worker 2) alone with a rate,
  no hot bucket with a packet (none reached its owner), and under RULES rule 0 on lcore 3 at
  a rate above 0. Before, the buckets counted the rule's packets and the view credited them
  to the buckets' owners, lcores 1 and 2 included.

Without tmux the test prints SKIP and exits 77.

usage: test_top.py PATH/TO/dpdk-rps PATH/TO/dpdk-rps-top PATH/TO/default.pcap
"""
import os
import re
import shlex
import shutil
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rpstest  # noqa: E402

WORKERS = [1, 2, 3]
REASONS = ['bad_ip_checksum', 'ttl_zero']
WAIT = 90.0          # seconds for a condition on a busy 2-CPU machine


def capture(src, dst):
    """The frames of src, then for every 16th untagged IPv4 frame a copy with a wrong header
    checksum and one with TTL 0 (checksum right): dropped as bad_ip_checksum and ttl_zero."""
    frames = rpstest.read_pcap(src, libpcap=True).frames
    bad = []
    v4 = [f for f in frames if len(f) >= 34 and f[12:14] == b'\x08\x00' and f[14] == 0x45]
    for f in v4[::16]:
        b = bytearray(f)
        b[24] ^= 0xFF                                # the checksum's first byte
        bad.append(bytes(b))
        t = bytearray(f)
        t[22] = 0                                    # TTL
        t[24:26] = b'\0\0'
        t[24:26] = struct.pack('!H', rpstest.gen_traffic.inet_checksum(bytes(t[14:34])))
        bad.append(bytes(t))
    rpstest.write_pcap(dst, frames + bad)
    return len(bad)


class Tmux:
    """A tmux server of its own (-L), a session per start(), killed by close()."""

    def __init__(self, name):
        self.base = ['tmux', '-L', name, '-f', '/dev/null']
        self.n = 0
        self.target = None
        self.env = dict(os.environ, TERM=os.environ.get('TERM') or 'xterm')
        self.env.pop('TMUX', None)

    def cmd(self, *args, check=True):
        return subprocess.run(self.base + list(args), capture_output=True, text=True,
                              env=self.env, timeout=30, check=check)

    def start(self, shell_cmd, cols=160, rows=50):
        """Run shell_cmd in a new session; when it ends the pane prints [exit N] and stays.
        (Sessions are not killed one by one: the server would exit with its last one, racing
        the next new-session.)"""
        self.n += 1
        self.target = 'top%d' % self.n
        self.cmd('new-session', '-d', '-s', self.target, '-x', str(cols), '-y', str(rows),
                 '%s; echo "[exit $?]"; exec sleep 3600' % shell_cmd)

    def screen(self):
        p = self.cmd('capture-pane', '-p', '-t', self.target, check=False)
        return '\n'.join(line.rstrip() for line in p.stdout.splitlines()).strip('\n')

    def wait(self, pred, timeout=WAIT):
        """Poll the screen until pred(screen) is true: (True, screen) or (False, last)."""
        last = ['']

        def probe():
            last[0] = self.screen()
            return pred(last[0])
        return bool(rpstest.wait_for(probe, timeout=timeout, step=0.1)), last[0]

    def close(self):
        subprocess.run(self.base + ['kill-server'], capture_output=True, env=self.env,
                       timeout=30)


def parse_frame(text):
    """The worker table of a frame: ({lcore: {'mpps', 'dropped', reason: n}}, reason names),
    the RX rate, and whether the hot buckets have rows."""
    lines = text.splitlines()
    rows, reasons = {}, []
    rx = None
    for i, line in enumerate(lines):
        m = re.match(r'^RX (\S+) Mpps', line)
        if m and m.group(1) != '-':
            rx = float(m.group(1))
        if line.startswith('LCORE'):
            cols = line.split()
            reasons = cols[6:]                 # LCORE Mpps BUSY% BACKLOG HEALTH DROPPED ...
            for row in lines[i + 1:]:
                f = row.split()
                if len(f) < 6 or not f[0].isdigit():
                    break
                r = {'mpps': float(f[1]) if f[1] != '-' else None,
                     'busy': float(f[2]) if f[2] != '-' else None, 'health': f[4],
                     'dropped': int(f[5])}
                for name, v in zip(reasons, f[6:]):
                    r[name] = int(v)
                rows[int(f[0])] = r
    hot = []
    if 'QUEUE BUCKET' in text:   # its rows, up to the blank line before RULES (if any)
        for ln in lines[[j for j, ln in enumerate(lines) if ln.startswith('QUEUE')][0] + 1:]:
            if not re.match(r'^\s*\d+\s+\d+\s+\d+\s', ln):
                break
            hot.append(ln)
    return rows, reasons, rx, hot


def frame_ok(text):
    """A frame with every worker at Mpps > 0, both drop columns and hot buckets."""
    if 'LCORE' not in text:
        return False
    rows, reasons, rx, hot = parse_frame(text)
    return (sorted(rows) == WORKERS and all(r['mpps'] for r in rows.values()) and
            all(n in reasons for n in REASONS) and
            any(r[REASONS[0]] for r in rows.values()) and rx and len(hot) >= 3)


def check_frame(F, text, ctx):
    rows, reasons, rx, hot = parse_frame(text)
    head = text.splitlines()[0] if text else ''
    F.check(re.match(r'^dpdk-rps-top  \S+  pid \d+  dpdk-rps \d+\.\d+\.\d+  up \S+  '
                     r'generation 1  ready', head), '%s: header %r' % (ctx, head))
    F.check(sorted(rows) == WORKERS, '%s: worker rows %s, not %s' % (ctx, sorted(rows), WORKERS))
    F.check(rx and rx > 0, '%s: RX rate %s' % (ctx, rx))
    for lc, r in rows.items():
        F.check(r['mpps'] and r['mpps'] > 0, '%s: lcore %d Mpps %s' % (ctx, lc, r['mpps']))
        # BUSY% is busy_cycles over tsc_hz (/rps/info): '-' when either is missing
        F.check(r['busy'] is not None and 0 <= r['busy'] <= 100,
                '%s: lcore %d BUSY%% %s' % (ctx, lc, r['busy']))
        F.check(r['health'] == 'ok', '%s: lcore %d health %s' % (ctx, lc, r['health']))
        F.check(sum(r.get(n, 0) for n in reasons) == r['dropped'],
                '%s: lcore %d: the reasons %s do not add up to DROPPED %d' % (
                    ctx, lc, {n: r.get(n) for n in reasons}, r['dropped']))
    F.check(all(n in reasons for n in REASONS), '%s: drop columns %s' % (ctx, reasons))
    F.check(len(hot) == 5, '%s: %d hot bucket rows' % (ctx, len(hot)))


def parse_rules(text):
    """The RULES rows of a frame: [(rule, lcore, kpps, packets, match)]."""
    lines = text.splitlines()
    at = [j for j, ln in enumerate(lines) if ln.split()[:2] == ['RULE', 'LCORE']]
    out = []
    for ln in lines[at[0] + 1:] if at else []:
        f = ln.split(None, 4)
        if len(f) < 5 or not f[0].isdigit():
            break
        out.append((int(f[0]), int(f[1]) if f[1].isdigit() else None,
                    float(f[2]) if f[2] != '-' else None, int(f[3]), f[4]))
    return out


def ruled(F, binary, top, tmp):
    """All-UDP traffic steered by a rule to worker 2 (lcore 3): --once credits it to lcore 3,
    under RULES, and no bucket counted a packet of it."""
    frames = [f for f in rpstest.gen_traffic.generate_frames(flows=64, packets_per_flow=8,
                                                             seed=7)
              if (lambda k: k is not None and k.proto == 17 and not k.is_frag)(
                  rpstest.parse_l3(f))]
    inp = os.path.join(tmp, 'udp.pcap')
    rpstest.write_pcap(inp, frames)
    prefix = rpstest.unique_prefix()
    eal = rpstest.eal_args(prefix, lcores='0@0,(1-3)@1',
                           vdevs=[rpstest.pcap_vdev(rx=inp, infinite_rx=True)])
    proc = rpstest.drain(subprocess.Popen(
        [binary] + eal + ['--', '--map', '1-3', '--stats-interval', '0', '--rule',
                          'udp -> worker 2'], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL, start_new_session=True))
    try:
        if not F.check(rpstest.wait_ready(prefix, timeout=60) is not None,
                       'rules: dpdk-rps not ready in 60 s'):
            return
        p = subprocess.run([sys.executable, top, '-f', prefix, '--once', '--interval', '0.5'],
                           capture_output=True, text=True, timeout=120)
        F.check(p.returncode == 0 and p.stderr == '', 'rules --once: exit %d, stderr %r' % (
            p.returncode, p.stderr))
        rows, _, _, hot = parse_frame(p.stdout)
        rules = parse_rules(p.stdout)
        print('rules: %d UDP frames looped, --once:\n%s' % (len(frames), p.stdout), flush=True)
        F.check(sorted(rows) == WORKERS and rows[3]['mpps'] and
                not rows[1]['mpps'] and not rows[2]['mpps'],
                'rules: not lcore 3 alone with a rate: %s' % rows)
        F.check(hot and all(int(h.split()[4]) == 0 for h in hot),
                'rules: hot buckets with packets (the rule\'s, credited to the buckets\' '
                'owners):\n%s' % '\n'.join(hot))
        F.check(len(rules) == 1 and rules[0][:2] == (0, 3) and rules[0][2] and
                rules[0][3] > 0 and rules[0][4] == 'udp',
                'rules: RULES rows %s, want rule 0 on lcore 3 at a rate' % rules)
    finally:
        out, err = rpstest.stop(proc, prefix)
        F.check(proc.returncode == 0, 'rules: dpdk-rps exit %s\n%s' % (
            proc.returncode, err.decode(errors='replace')[-2000:]))


def main():
    binary, top, pcap = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3]
    if shutil.which('tmux') is None:
        print('SKIP: tmux is not installed (scripts/bootstrap.sh installs it)')
        return rpstest.SKIP
    F = rpstest.Failures('test_top')
    tmux = Tmux('rpstop_%d_%d' % (os.getpid(), time.monotonic_ns() % 100000))
    proc = None
    with rpstest.TempDir('top') as tmp:
        inp = os.path.join(tmp, 'in.pcap')
        nbad = capture(pcap, inp)
        prefix = rpstest.unique_prefix()
        eal = rpstest.eal_args(prefix, lcores='0@0,(1-3)@1',
                               vdevs=[rpstest.pcap_vdev(rx=inp, infinite_rx=True)])
        cmd = [binary] + eal + ['--', '--map', '1-3', '--stats-interval', '0']
        topcmd = '%s %s -f %s' % (shlex.quote(sys.executable), shlex.quote(top), prefix)
        try:
            proc = rpstest.drain(subprocess.Popen(
                cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                start_new_session=True))
            info = rpstest.wait_ready(prefix, timeout=60)
            if not F.check(info is not None, 'dpdk-rps not ready in 60 s'):
                raise RuntimeError('not ready')

            # 1. the live view; a small terminal; q
            tmux.start(topcmd)
            ok, s = tmux.wait(frame_ok)
            F.check(ok, 'no frame with %d workers at Mpps > 0, columns %s and hot buckets in '
                    '%.0f s:\n%s' % (len(WORKERS), REASONS, WAIT, s))
            if ok:
                check_frame(F, s, 'tmux')
                print('a frame (tmux 160x50, %d bad packets in the capture of dpdk-rps):\n%s\n'
                      % (nbad, s))
            tmux.cmd('resize-window', '-t', tmux.target, '-x', '30', '-y', '6')
            # the header fills it: the status line says there is no room for the workers
            ok, s = tmux.wait(lambda s: s.startswith('dpdk-rps-top  rpsit') and
                              s.splitlines()[-1].startswith('no room for the %d workers' %
                                                            len(WORKERS)))
            F.check(ok and '[exit' not in s, 'at 30x6, not a frame cut to it:\n%s' % s)
            tmux.cmd('resize-window', '-t', tmux.target, '-x', '160', '-y', '50')
            ok, s = tmux.wait(frame_ok)
            F.check(ok and '[exit' not in s, 'back at 160x50, no full frame:\n%s' % s)
            tmux.cmd('send-keys', '-t', tmux.target, 'q')
            ok, s = tmux.wait(lambda s: '[exit' in s, 30)
            F.check(ok and s.strip() == '[exit 0]',
                    'after q: not "[exit 0]" alone on a restored screen:\n%s' % s)

            # 2. SIGINT
            tmux.start(topcmd)
            ok, s = tmux.wait(lambda s: 'LCORE' in s)
            F.check(ok, 'second start: no frame:\n%s' % s)
            tmux.cmd('send-keys', '-t', tmux.target, 'C-c')
            ok, s = tmux.wait(lambda s: '[exit' in s, 30)
            F.check(ok and s.strip() == '[exit 0]',
                    'after C-c: not "[exit 0]" alone on a restored screen:\n%s' % s)

            # 3. --once: plain text, one frame
            p = subprocess.run([sys.executable, top, '-f', prefix, '--once', '--interval',
                                '0.5'], capture_output=True, text=True, timeout=120)
            F.check(p.returncode == 0 and p.stderr == '', '--once: exit %d, stderr %r' % (
                p.returncode, p.stderr))
            F.check(p.stdout.count('dpdk-rps-top  ') == 1 and '\x1b' not in p.stdout,
                    '--once: not one plain-text frame:\n%s' % p.stdout)
            check_frame(F, p.stdout, '--once')
            q = subprocess.run([sys.executable, top, '-f', 'rpsit_nothing_here', '--once'],
                               capture_output=True, text=True, timeout=60)
            F.check(q.returncode == 1 and 'cannot connect' in q.stderr,
                    '--once with nothing running: exit %d, %r' % (q.returncode, q.stderr))

            # 4. dpdk-rps stops while dpdk-rps-top watches
            tmux.start(topcmd)
            ok, s = tmux.wait(lambda s: 'LCORE' in s)
            F.check(ok, 'third start: no frame:\n%s' % s)
            out, err = rpstest.stop(proc, prefix)
            F.check(proc.returncode == 0, 'dpdk-rps: exit %s\n%s' % (
                proc.returncode, err.decode(errors='replace')[-2000:]))
            proc = None
            ok, s = tmux.wait(lambda s: '[exit' in s, 60)
            F.check(ok and re.fullmatch(r'dpdk-rps exited \(pid \d+, --file-prefix %s\)\n'
                                        r'\[exit 0\]' % prefix, s.strip()),
                    'after dpdk-rps stopped: not "dpdk-rps exited", [exit 0] on a restored '
                    'screen:\n%s' % s)
        except RuntimeError:
            pass
        finally:
            tmux.close()
            if proc is not None:
                rpstest.stop(proc, prefix)
        # 5. rule-steered packets: the worker's that got them
        ruled(F, binary, top, tmp)
    return F.report()


if __name__ == '__main__':
    sys.exit(main())
