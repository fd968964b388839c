#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_pdump.py: DPDK's own capture and inspection tools against a running dpdk-rps.

1. dpdk-dumpcap: dpdk-rps replays the bundled capture in a loop (net_pcap, infinite_rx=1)
   through two workers that transmit on the same port (two tx_pcap queues into /dev/null), with
   2 MiB hugepages. `dpdk-dumpcap --file-prefix P -i 0 -c N -f udp -w F.pcapng` must exit 0
   having written at least N packets (it stops at the end of the ring burst that reached N,
   so fewer than N + 32), every one of them IPv4 or IPv6 UDP without a VLAN tag (what the
   BPF filter `udp` matches: the input has TCP, ARP and tagged frames too, so a filter not
   applied fails), both directions present over the captures (the pcapng's epb_flags: RX and
   TX callbacks),
   read back by our own pcapng reader and cross-checked by tshark or scapy where installed.
   Steering goes on meanwhile (/rps/stats rx_packets rises). Then 15 more captures are
   started and stopped: DPDK 22.11's pdump freed a stopped capture's mempool while an lcore
   could still be copying into it, which crashed dpdk-rps within ten (app/observability/pdump.c now waits
   for a grace period); dpdk-rps must survive them all. SIGINT then exits 0 with
   rx_packets == processed + sum(dropped) and no mbuf of our pool left in use.
   dpdk-pdump too, against the same dpdk-rps: `dpdk-pdump -- --pdump
   'port=0,queue=*,rx-dev=rx.pcap,tx-dev=tx.pcap'` runs until both files hold packets, then
   SIGINT must end it with exit 0 and two pcap files our reader reads: RX frames that are
   frames of the input, TX frames too (every worker forwards what it processed), while
   /rps/stats rx_packets goes on rising.
2. dpdk-dumpcap on an inline pair (--forward 0:1; port 0 loops the bundled capture, port 1
   replays generated flows once): once port 1's replay is through (/rps/ports), `-i 1`
   captures only port 0's frames, forwarded unchanged, outbound, and `-i 0` only port 0's own
   frames inbound; exit 0 and the accounting.
3. dpdk-proc-info (a net_null port: DPDK 22.11's dpdk-proc-info crashes attaching to a
   primary that runs net_pcap, testpmd's too): --stats, --xstats and --show-mempool must
   exit 0 and show port 0 receiving and our mbuf pool; dpdk-rps then exits 0, accounting
   intact.

Secondary processes cannot attach to --no-huge memory, so the test needs 2 MiB hugepages:
as root it reserves what is missing (nr_hugepages) and mounts a private hugetlbfs for
--huge-dir, and puts both back at the end; otherwise it uses free pages on a writable
hugetlbfs mount if there are enough. When neither works it prints SKIP with the reason and
exits 77, as it does without dpdk-dumpcap.

usage: test_pdump.py PATH/TO/dpdk-rps PATH/TO/default.pcap
"""

import collections
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rpstest  # noqa: E402

HP = '/sys/kernel/mm/hugepages/hugepages-2048kB'
NEED_PAGES = 256          # 512 MiB: dpdk-rps -m 256 and the tools' own pools
MEM_MB = 256
CAPTURE = 200             # dumpcap -c
DUMPCAP_BURST = 32        # dumpcap writes whole ring bursts: it may pass -c by up to this
PDUMP_MIN = 100           # frames dpdk-pdump must write in each direction
CYCLES = 15               # captures started and stopped against one dpdk-rps
READY_TIMEOUT = 60.0


class Skip(Exception):
    pass


# --------------------------------------------------------------------------- hugepages

class Hugepages:
    """2 MiB pages and a hugetlbfs folder for --huge-dir; undo() puts back what it changed."""

    def __init__(self):
        self.dir = None
        self.mounted = None
        self.nr_before = None

    @staticmethod
    def _read(name):
        with open(os.path.join(HP, name)) as f:
            return int(f.read())

    def setup(self, need):
        if not os.path.isdir(HP):
            raise Skip('no 2 MiB hugepages in this kernel (%s missing)' % HP)
        free = self._read('free_hugepages')
        root = os.geteuid() == 0
        if free < need:
            if not root:
                raise Skip('%d free 2 MiB hugepages, %d needed, and not root to reserve '
                           'them (secondary processes cannot attach to --no-huge memory)'
                           % (free, need))
            nr = self._read('nr_hugepages')
            try:
                with open(os.path.join(HP, 'nr_hugepages'), 'w') as f:
                    f.write(str(nr + need - free))
            except OSError as e:
                raise Skip('cannot reserve 2 MiB hugepages (%s/nr_hugepages: %s)' % (HP, e))
            self.nr_before = nr
            free = self._read('free_hugepages')
            if free < need:
                raise Skip('the kernel gave %d free 2 MiB hugepages of %d asked (memory '
                           'fragmented or short)' % (free, need))
        if root:
            self.dir = tempfile.mkdtemp(prefix='rps-huge-')
            p = subprocess.run(['mount', '-t', 'hugetlbfs', '-o', 'pagesize=2M', 'nodev',
                                self.dir], capture_output=True, text=True)
            if p.returncode != 0:
                os.rmdir(self.dir)
                self.dir = None
                raise Skip('cannot mount hugetlbfs: %s' % p.stderr.strip())
            self.mounted = self.dir
            return self.dir
        with open('/proc/mounts') as f:
            for line in f:
                dev, mnt, fstype, opts = line.split()[:4]
                if fstype == 'hugetlbfs' and 'pagesize=1024M' not in opts and \
                        os.access(mnt, os.W_OK):
                    self.dir = mnt
                    return mnt
        raise Skip('%d free 2 MiB hugepages but no writable hugetlbfs mount, and not root '
                   'to mount one' % free)

    def undo(self):
        if self.mounted:
            if subprocess.run(['umount', self.mounted], capture_output=True).returncode:
                subprocess.run(['umount', '-l', self.mounted], capture_output=True)
            try:
                os.rmdir(self.mounted)
            except OSError:
                pass
            self.mounted = None
        if self.nr_before is not None:
            try:
                with open(os.path.join(HP, 'nr_hugepages'), 'w') as f:
                    f.write(str(self.nr_before))
            except OSError as e:
                print('warning: could not restore nr_hugepages to %d: %s' % (self.nr_before, e))
            self.nr_before = None


# --------------------------------------------------------------------------- pcapng

def read_pcapng(path):
    """Every Enhanced Packet Block of a pcapng file: [(data, direction)], direction 1 inbound,
    2 outbound, 0 not said (epb_flags bits 0-1). Raises ValueError on a malformed file."""
    with open(path, 'rb') as f:
        buf = f.read()
    if len(buf) < 28 or buf[:4] != b'\x0a\x0d\x0d\x0a':
        raise ValueError('%s: not a pcapng file (%d bytes)' % (path, len(buf)))
    e, off, out = '<', 0, []
    while off < len(buf):
        if off + 12 > len(buf):
            raise ValueError('%s: truncated block at %d' % (path, off))
        if buf[off:off + 4] == b'\x0a\x0d\x0d\x0a':          # section header: byte order
            bom = buf[off + 8:off + 12]
            e = '<' if bom == b'\x4d\x3c\x2b\x1a' else '>'
        btype, blen = struct.unpack_from(e + 'II', buf, off)
        if blen < 12 or blen % 4 or off + blen > len(buf) or \
                struct.unpack_from(e + 'I', buf, off + blen - 4)[0] != blen:
            raise ValueError('%s: bad block length %d at %d' % (path, blen, off))
        if btype == 6:                                          # enhanced packet block
            caplen = struct.unpack_from(e + 'I', buf, off + 20)[0]
            data = buf[off + 28:off + 28 + caplen]
            o, end, direction = off + 28 + ((caplen + 3) & ~3), off + blen - 4, 0
            while o + 4 <= end:
                code, olen = struct.unpack_from(e + 'HH', buf, o)
                if code == 0:
                    break
                if code == 2 and olen == 4:
                    direction = struct.unpack_from(e + 'I', buf, o + 4)[0] & 3
                o += 4 + ((olen + 3) & ~3)
            out.append((data, direction))
        off += blen
    return out


def cross_check(path, frames):
    """Read the file again with tshark or scapy where one is installed: the same frames.
    Returns (reader name, [problems])."""
    if shutil.which('tshark'):
        p = subprocess.run(['tshark', '-r', path, '-T', 'fields', '-e', 'frame.cap_len'],
                           capture_output=True, text=True, timeout=60)
        if p.returncode != 0:
            return 'tshark', ['tshark -r %s: exit %d: %s' % (path, p.returncode, p.stderr)]
        lens = [int(x) for x in p.stdout.split()]
        want = [len(f) for f in frames]
        return 'tshark', [] if lens == want else [
            'tshark reads %d frames (lengths %s...), our reader %d (%s...)' % (
                len(lens), lens[:5], len(want), want[:5])]
    try:
        from scapy.utils import rdpcap   # Debian's python3-scapy
    except ImportError:
        return 'our reader only (no tshark, no scapy for %s)' % sys.executable, []
    pkts = [bytes(p) for p in rdpcap(path)]
    return 'scapy', [] if pkts == frames else [
        'scapy reads %d frames, our reader %d, or their bytes differ' % (len(pkts),
                                                                         len(frames))]


def is_bpf_udp(frame):
    """What libpcap's `udp` matches: an untagged IPv4 or IPv6 packet whose protocol is UDP
    (fragments included: non-first IPv4 fragments carry the protocol too)."""
    if len(frame) < 14 or struct.unpack_from('!H', frame, 12)[0] not in (0x0800, 0x86DD):
        return False
    l3 = rpstest.parse_l3(frame)
    return l3 is not None and l3.proto == 17


# --------------------------------------------------------------------------- runs

def start(binary, hdir, prefix, vdev, app, summary, tmp, extra_vdevs=()):
    eal = ['-m', str(MEM_MB), '--huge-dir', hdir, '--no-pci', '--file-prefix', prefix,
           '--lcores', '0@0,(1-2)@1', '--log-level', 'lib.eal:warning', '--vdev', vdev]
    for v in extra_vdevs:
        eal += ['--vdev', v]
    cmd = [binary] + eal + ['--'] + app + ['--summary-json', summary]
    out = open(os.path.join(tmp, prefix + '.out'), 'w+b')
    proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, cwd=tmp,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    return proc, out, cmd


def finish(proc, out, prefix, summary, what, errs):
    """SIGINT, wait; exit 0 and the accounting, else problems into errs."""
    rpstest.stop(proc, prefix)
    out.seek(0)
    log = out.read().decode(errors='replace')
    out.close()
    if proc.returncode != 0:
        errs.append('%s: dpdk-rps exit %s, expected 0\n%s' % (what, proc.returncode, log[-3000:]))
        return None
    try:
        import json
        with open(summary) as f:
            s = json.load(f)
    except (OSError, ValueError) as e:
        errs.append('%s: no summary JSON: %s' % (what, e))
        return None
    errs += ['%s: %s' % (what, x) for x in rpstest.check_accounting(s)]
    in_use = s.get('mempool', {}).get('in_use_at_exit')
    if in_use != 0:
        errs.append('%s: mempool.in_use_at_exit %r, expected 0 (leaked mbufs)' % (what, in_use))
    return s


def rx_packets(prefix):
    r = rpstest.telemetry(prefix, '/rps/stats')
    st = r[0].get('/rps/stats') if r else None
    return st.get('rx_packets') if isinstance(st, dict) else None


def run_dumpcap(binary, pcap, hdir, tmp, errs):
    dumpcap = shutil.which('dpdk-dumpcap')
    frames_in = rpstest.read_pcap(pcap).frames
    not_udp = sum(1 for f in frames_in if not is_bpf_udp(f))
    if not_udp < len(frames_in) // 5:
        errs.append('input %s: only %d of %d frames are not UDP: the filter would not be '
                    'tested' % (pcap, not_udp, len(frames_in)))
        return
    prefix = rpstest.unique_prefix()
    summary = os.path.join(tmp, 'dumpcap_summary.json')
    # A secondary process re-probes net_pcap from the devargs the primary kept, cut to 63
    # characters (ETH_PCAP_ARG_MAXLEN), and re-opens its files relative to its own folder,
    # tx_pcap ones for writing (truncated): short relative names in tmp, where both run,
    # and the TX files are links to /dev/null.
    os.symlink(pcap, os.path.join(tmp, 'in.pcap'))
    for i in range(2):
        os.symlink('/dev/null', os.path.join(tmp, 'null%d' % i))
    args = 'rx_pcap=in.pcap,infinite_rx=1,tx_pcap=null0,tx_pcap=null1'
    assert len(args) <= 63
    vdev = 'net_pcap0,' + args
    proc, out, cmd = start(binary, hdir, prefix, vdev, ['--map', '1-2', '--tx-port', '0'],
                           summary, tmp)
    try:
        if rpstest.wait_ready(prefix, READY_TIMEOUT) is None:
            errs.append('dumpcap run: dpdk-rps not ready within %.0f s' % READY_TIMEOUT)
            return
        before = rx_packets(prefix)
        capfile = os.path.join(tmp, 'capture.pcapng')
        dcmd = [dumpcap, '--file-prefix', prefix, '-i', '0', '-c', str(CAPTURE), '-f', 'udp',
                '-w', capfile]
        t0 = time.monotonic()
        p = subprocess.run(dcmd, capture_output=True, text=True, timeout=120, cwd=tmp)
        took = time.monotonic() - t0
        after = rx_packets(prefix)
        if p.returncode != 0:
            errs.append('%s: exit %d\n%s%s' % (' '.join(dcmd), p.returncode, p.stdout,
                                               p.stderr))
            return
        try:
            recs = read_pcapng(capfile)
        except (OSError, ValueError) as e:
            errs.append('dumpcap output: %s' % e)
            return
        frames = [d for d, _ in recs]
        dirs = collections.Counter(d for _, d in recs)
        if not CAPTURE <= len(frames) < CAPTURE + DUMPCAP_BURST:
            errs.append('dumpcap -c %d wrote %d packets' % (CAPTURE, len(frames)))
        bad = [f for f in frames if not is_bpf_udp(f)]
        if bad:
            errs.append('%d of %d captured packets do not match the filter udp (first: %s)'
                        % (len(bad), len(frames), bad[0][:40].hex()))
        reader, problems = cross_check(capfile, frames)
        errs += problems
        if before is None or after is None or after <= before:
            errs.append('/rps/stats rx_packets %s before and %s after the capture: steering '
                        'did not go on' % (before, after))
        # Stopping a capture is where DPDK 22.11 raced (pdump.c): dumpcap frees its mempool
        # on the reply while an lcore may still be in the callback. Start and stop it again
        # and again; dpdk-rps must survive every one.
        # Both directions must show up, though not necessarily in the first capture: its 200
        # packets take well under a second, and on a loaded machine the workers (which
        # transmit) may not run in it while the RX lcore does. Over all 16 captures they do.
        dirs_all = collections.Counter(dirs)
        for i in range(CYCLES):
            q = subprocess.run(dcmd[:5] + ['-c', '32', '-w', capfile + '.%d' % i], cwd=tmp,
                               capture_output=True, text=True, timeout=60)
            if q.returncode != 0 or proc.poll() is not None:
                errs.append('capture %d of %d: dumpcap exit %d, dpdk-rps %s%s' % (
                    i + 1, CYCLES, q.returncode, 'running' if proc.poll() is None else
                    'exited %s (crashed?)' % proc.returncode, q.stderr[-1000:]))
                break
            try:
                dirs_all.update(d for _, d in read_pcapng(capfile + '.%d' % i))
            except (OSError, ValueError) as e:
                errs.append('capture %d of %d: %s' % (i + 1, CYCLES, e))
            os.unlink(capfile + '.%d' % i)
        else:
            print('dumpcap: %d more captures started and stopped, dpdk-rps still running'
                  % CYCLES)
        if dirs_all[2] == 0 and proc.poll() is None:
            # a 32-packet capture fills from one RX burst before a worker's TX burst comes
            # along more often than not on a busy machine: one long capture sees both
            q = subprocess.run(dcmd[:5] + ['-c', '4096', '-w', capfile + '.long'], cwd=tmp,
                               capture_output=True, text=True, timeout=60)
            try:
                dirs_all.update(d for _, d in read_pcapng(capfile + '.long'))
            except (OSError, ValueError) as e:
                errs.append('the long capture: exit %d: %s' % (q.returncode, e))
        if dirs_all[1] == 0 or dirs_all[2] == 0:
            errs.append('capture directions over %d captures %s: expected both RX (1) and '
                        'TX (2)' % (CYCLES + 1, dict(dirs_all)))
        run_pdump(prefix, tmp, frames_in, proc, errs)
        m = re.findall(r'(\d+)/(\d+)', p.stdout + p.stderr)
        print('dumpcap: %d packets in %.2f s (%d RX, %d TX; %d RX, %d TX over all %d '
              'captures), all udp, read back by %s; dumpcap says received/dropped %s; '
              'rx_packets %s -> %s' % (
                  len(frames), took, dirs[1], dirs[2], dirs_all[1], dirs_all[2], CYCLES + 1,
                  reader,
                  '/'.join(m[-1]) if m else '?', before, after))
    finally:
        s = finish(proc, out, prefix, summary, 'dumpcap run', errs)
        if s is not None:
            print('dumpcap run: dpdk-rps exit 0, rx_packets %d = processed %d + dropped %d' % (
                s['rx_packets'], s['processed'], rpstest.dropped_total(s)))


def run_pdump(prefix, tmp, frames_in, proc, errs):
    """dpdk-pdump (the older tool: pcap files through its own net_pcap ports) against the
    running dpdk-rps: RX and TX of port 0 until each file holds PDUMP_MIN frames, SIGINT."""
    pdump = shutil.which('dpdk-pdump')
    if pdump is None:
        print('dpdk-pdump: SKIP: dpdk-pdump is not installed')
        return
    rxf, txf = os.path.join(tmp, 'pdump_rx.pcap'), os.path.join(tmp, 'pdump_tx.pcap')
    cmd = [pdump, '--file-prefix', prefix, '-l', '0', '--log-level', 'lib.eal:warning', '--',
           '--pdump', 'port=0,queue=*,rx-dev=%s,tx-dev=%s' % (rxf, txf)]
    before = rx_packets(prefix)
    log = open(os.path.join(tmp, 'pdump.out'), 'w+')
    p = subprocess.Popen(cmd, cwd=tmp, stdout=log, stderr=subprocess.STDOUT,
                         stdin=subprocess.DEVNULL)

    def size(path):
        try:
            return os.path.getsize(path)
        except OSError:
            return 0
    # net_pcap's TX flushes the pcap dumper after every burst: the files grow while it runs
    # (at the replay's full rate: stop as soon as both hold enough, by size, not by reading)
    want = 24 + PDUMP_MIN * (16 + 1514)
    rpstest.wait_for(lambda: p.poll() is not None or min(size(rxf), size(txf)) >= want,
                     timeout=60, step=0.05)
    exited_early = p.poll()
    if exited_early is None:
        p.send_signal(signal.SIGINT)
    try:
        rc = p.wait(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        rc = p.wait()
        errs.append('dpdk-pdump: still running 30 s after SIGINT (killed)')
    log.seek(0)
    out = log.read()
    log.close()
    after = rx_packets(prefix)
    if exited_early is not None or rc != 0:
        errs.append('%s: exit %s%s\n%s' % (' '.join(cmd), rc, ' before SIGINT' if
                                           exited_early is not None else '', out[-2000:]))
        return
    if proc.poll() is not None:
        errs.append('dpdk-pdump: dpdk-rps exited %s meanwhile' % proc.returncode)
        return
    try:
        rx, tx = rpstest.read_pcap(rxf).frames, rpstest.read_pcap(txf).frames
    except (OSError, ValueError, struct.error) as e:
        errs.append('dpdk-pdump output: %s' % e)
        return
    known = set(frames_in)
    for name, got in (('RX', rx), ('TX', tx)):
        if len(got) < PDUMP_MIN:
            errs.append('dpdk-pdump %s file: %d frames, expected at least %d'
                        % (name, len(got), PDUMP_MIN))
    strange = [f for f in rx if f not in known]
    if strange:
        errs.append('dpdk-pdump RX file: %d of %d frames are not frames of the input (first: %s)'
                    % (len(strange), len(rx), strange[0][:40].hex()))
    if before is None or after is None or after <= before:
        errs.append('dpdk-pdump: /rps/stats rx_packets %s before and %s after: steering did not '
                    'go on' % (before, after))
    print('dpdk-pdump: exit 0 on SIGINT, %d RX and %d TX frames in two pcap files, RX frames '
          'all from the input; rx_packets %s -> %s' % (len(rx), len(tx), before, after))


def run_proc_info(binary, hdir, tmp, errs):
    procinfo = shutil.which('dpdk-proc-info')
    if procinfo is None:
        print('proc-info: SKIP: dpdk-proc-info is not installed')
        return
    prefix = rpstest.unique_prefix()
    summary = os.path.join(tmp, 'procinfo_summary.json')
    proc, out, cmd = start(binary, hdir, prefix, 'net_null0', ['--map', '1-2',
                           '--rx-queues', '1'], summary, tmp)
    try:
        if rpstest.wait_ready(prefix, READY_TIMEOUT) is None:
            errs.append('proc-info run: dpdk-rps not ready within %.0f s' % READY_TIMEOUT)
            return
        res = {}
        for opt in ('--stats', '--xstats', '--show-mempool'):
            p = subprocess.run([procinfo, '--file-prefix', prefix, '--', opt], cwd=tmp,
                               capture_output=True, text=True, timeout=60)
            res[opt] = p.stdout
            if p.returncode != 0:
                errs.append('dpdk-proc-info -- %s: exit %d\n%s%s' % (
                    opt, p.returncode, p.stdout[-2000:], p.stderr[-2000:]))
                return
        m = re.search(r'NIC statistics for port 0.*?RX-packets:\s*(\d+)', res['--stats'], re.S)
        if not m or int(m.group(1)) == 0:
            errs.append('dpdk-proc-info --stats: no RX-packets > 0 for port 0:\n%s'
                        % res['--stats'][-2000:])
        x = re.search(r'^rx_good_packets:\s*(\d+)', res['--xstats'], re.M)
        if not x or int(x.group(1)) == 0:
            errs.append('dpdk-proc-info --xstats: no rx_good_packets > 0:\n%s'
                        % res['--xstats'][-2000:])
        if 'mempool <rps_pool_' not in res['--show-mempool']:
            errs.append('dpdk-proc-info --show-mempool: no rps_pool_ mempool:\n%s'
                        % res['--show-mempool'][-2000:])
        print('proc-info: port 0 RX-packets %s, rx_good_packets %s, mempool rps_pool_ shown'
              % (m.group(1) if m else '?', x.group(1) if x else '?'))
    finally:
        s = finish(proc, out, prefix, summary, 'proc-info run', errs)
        if s is not None:
            print('proc-info run: dpdk-rps exit 0, rx_packets %d = processed %d + dropped %d'
                  % (s['rx_packets'], s['processed'], rpstest.dropped_total(s)))



def run_dumpcap_pair(binary, pcap, hdir, tmp, errs):
    """An inline pair (--forward 0:1): port 0 loops the bundled capture, port 1 replays
    generated flows once. Once port 1's replay is through, `dumpcap -i 1` sees only port 0's
    frames, forwarded unchanged, outbound, and `dumpcap -i 0` port 0's own frames inbound.
    (With both ports looping, a short capture of port 1 was all its own RX bursts on a busy
    machine: which direction it caught was chance.)"""
    dumpcap = shutil.which('dpdk-dumpcap')
    a_frames = set(rpstest.read_pcap(pcap).frames)
    b_list = rpstest.gen_traffic.generate_frames(flows=32, packets_per_flow=8, seed=31,
                                                 frag_datagrams=0, non_ip=0)
    rpstest.write_pcap(os.path.join(tmp, 'b.pcap'), b_list)
    if not os.path.exists(os.path.join(tmp, 'in.pcap')):
        os.symlink(pcap, os.path.join(tmp, 'in.pcap'))
    for i in range(4):
        if not os.path.exists(os.path.join(tmp, 'pn%d' % i)):
            os.symlink('/dev/null', os.path.join(tmp, 'pn%d' % i))
    vdevs = ['net_pcap0,rx_pcap=in.pcap,infinite_rx=1,tx_pcap=pn0,tx_pcap=pn1',
             'net_pcap1,rx_pcap=b.pcap,tx_pcap=pn2,tx_pcap=pn3']
    assert all(len(v.split(',', 1)[1]) <= 63 for v in vdevs)
    prefix = rpstest.unique_prefix()
    summary = os.path.join(tmp, 'pair_summary.json')
    proc, out, cmd = start(binary, hdir, prefix, vdevs[0], ['--map', '1-2', '--forward', '0:1'],
                           summary, tmp, extra_vdevs=vdevs[1:])
    try:
        if rpstest.wait_ready(prefix, READY_TIMEOUT) is None:
            errs.append('pair: dpdk-rps not ready within %.0f s' % READY_TIMEOUT)
            return

        def port1_through():
            r = rpstest.telemetry(prefix, '/rps/ports')
            ports = (r[0].get('/rps/ports') or {}).get('ports') if r else None
            p1 = ports.get('1') if isinstance(ports, dict) else None
            return isinstance(p1, dict) and p1.get('received') == len(b_list)
        if not rpstest.wait_for(port1_through, timeout=30):
            errs.append('pair: port 1 never received its %d frames (/rps/ports)' % len(b_list))
            return
        seen = {}
        for port, want_dir, want, what in ((1, 2, a_frames, "port 0's, forwarded unchanged"),
                                           (0, 1, a_frames, "its own")):
            capfile = os.path.join(tmp, 'pair%d.pcapng' % port)
            q = subprocess.run([dumpcap, '--file-prefix', prefix, '-i', str(port), '-c', '64',
                                '-w', capfile], cwd=tmp, capture_output=True, text=True,
                               timeout=60)
            if q.returncode != 0 or proc.poll() is not None:
                errs.append('pair: dumpcap -i %d exit %d, dpdk-rps %s%s' % (
                    port, q.returncode, 'running' if proc.poll() is None else 'exited %s' %
                    proc.returncode, q.stderr[-1000:]))
                return
            try:
                recs = read_pcapng(capfile)
            except (OSError, ValueError) as e:
                errs.append('pair: %s' % e)
                return
            dirs = collections.Counter(d for _, d in recs)
            alien = sum(1 for data, _ in recs if data not in want)
            seen[port] = (len(recs), dict(dirs))
            if len(recs) < 64 or dirs[want_dir] != len(recs) or alien:
                errs.append('pair: dumpcap -i %d: %d packets, directions %s, %d not of the '
                            'input expected; expected only %s frames %s' % (
                                port, len(recs), dict(dirs), alien, what,
                                'outbound (2)' if want_dir == 2 else 'inbound (1)'))
        print('pair: dumpcap -i 1 after port 1\'s replay: %d packets %s, all port 0\'s forwarded '
              'unchanged; -i 0: %d packets %s, all its own' % (
                  seen[1][0], seen[1][1], seen[0][0], seen[0][1]))
    finally:
        s = finish(proc, out, prefix, summary, 'pair run', errs)
        if s is not None:
            print('pair run: dpdk-rps exit 0, rx_packets %d = processed %d + dropped %d' % (
                s['rx_packets'], s['processed'], rpstest.dropped_total(s)))


def main():
    binary, pcap = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    if shutil.which('dpdk-dumpcap') is None:
        print('SKIP: dpdk-dumpcap is not installed (Debian package dpdk)')
        return rpstest.SKIP
    if os.environ.get('RPSTEST_SANITIZE', 'none') != 'none':
        # a secondary process maps the primary's memory at the primary's addresses; in an
        # ASan primary those overlap what ASan reserves (EAL: Cannot reserve ... please use
        # '--base-virtaddr'), and dumpcap then crashes: the plain build runs this test
        print('SKIP: a sanitizer build (%s): DPDK secondary processes cannot map an ASan '
              'primary\'s memory; the plain build runs this test'
              % os.environ['RPSTEST_SANITIZE'])
        return rpstest.SKIP
    hp = Hugepages()
    errs = []
    with tempfile.TemporaryDirectory(prefix='rps-pdump-') as tmp:
        try:
            try:
                hdir = hp.setup(NEED_PAGES)
            except Skip as e:
                print('SKIP: %s' % e)
                return rpstest.SKIP
            print('hugepages: %s, %d free of %d' % (hdir, hp._read('free_hugepages'),
                                                     hp._read('nr_hugepages')))
            run_dumpcap(binary, pcap, hdir, tmp, errs)
            run_dumpcap_pair(binary, pcap, hdir, tmp, errs)
            run_proc_info(binary, hdir, tmp, errs)
        finally:
            hp.undo()
    if errs:
        print('FAIL:\n' + '\n'.join(errs))
        return 1
    print('test_pdump: ok')
    return 0


if __name__ == '__main__':
    sys.exit(main())
