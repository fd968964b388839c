# SPDX-License-Identifier: BSD-3-Clause
"""rpstest.py: shared helpers for the integration tests that run the real dpdk-rps binary.

- read_pcap(): classic pcap reader (either byte order, microsecond or nanosecond magic),
  optionally seeing a file the way libpcap (and so the net_pcap PMD) delivers it.
- steering_key(): the fields dpdk-rps hashes (lib/rps/hash.c): two packets with the same key
  must reach the same worker. Frames without an IP flow have their layer-2 key (l2_key());
  None only for runts.
- marker(): the (flow id, sequence) that tools/gen_traffic.py writes into each flow packet.
- toeplitz_flows(), flow_frame(): random IPv4 TCP/UDP flows with their Toeplitz hash (what
  a NIC's RSS computes) and their marked frames.
- run_rps(): start the binary with a timeout and a unique --file-prefix, collect the exit
  code, output and summary JSON (after_ready: the stop signal that long after ready).
- write_input(): the generated capture tmp/in.pcap a run reads.
- check_exit(): exit 0, a summary, exact accounting, recorded in a Failures.
- tap_skip(), send_on_iface(), start_logged(), wait_ready_log(), sigint_wait(), end_logged():
  runs on net_tap or a veth pair, written to from the kernel side, logging to a file.
- check_*(): the assertions the tests share; each returns a list of problems (empty = ok).
"""

import atexit
import collections
import glob
import itertools
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

SRC_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(SRC_ROOT / 'tools'))
import gen_traffic  # noqa: E402  (tools/gen_traffic.py, the generator the tests feed)


def telemetry_source(root):
    """The program's telemetry.c under the source tree root, wherever under app/ it lives:
    the one table that registers every /rps/ command (each command is in a tel_*.c beside it)."""
    found = sorted(glob.glob(os.path.join(root, 'app', '**', 'telemetry.c'), recursive=True))
    if len(found) != 1:
        raise RuntimeError('expected one app/**/telemetry.c, found %r' % found)
    return found[0]


# --------------------------------------------------------------------------- children

# Every process a test starts, so that none outlives it. Tests start dpdk-rps in its own
# session (start_new_session) to signal it alone; meson's timeout then SIGTERMs the test
# but not that session, and a busy-polling dpdk-rps left behind slowed every later test
# (load 35 on 2 CPUs, seen in a run of the suite). On exit, SIGTERM or SIGINT the test
# kills whatever it started that still runs (its whole session, when it has one).
_children = []
_popen_init = subprocess.Popen.__init__


def _tracked_init(self, *args, **kwargs):
    _popen_init(self, *args, **kwargs)
    _children.append((self, bool(kwargs.get('start_new_session'))))


def kill_children():
    """SIGKILL every process this test started that is still running."""
    for p, own_session in _children:
        if p.returncode is not None:
            continue
        try:
            if p.poll() is not None:
                continue
            if own_session:
                os.killpg(p.pid, signal.SIGKILL)
            else:
                p.kill()
            p.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            pass


def _on_term(sig, frame):
    kill_children()
    signal.signal(sig, signal.SIG_DFL)
    os.kill(os.getpid(), sig)


subprocess.Popen.__init__ = _tracked_init
atexit.register(kill_children)
for _sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    if signal.getsignal(_sig) in (signal.SIG_DFL, signal.default_int_handler):
        signal.signal(_sig, _on_term)


# --------------------------------------------------------------------------- pcap

PCAP_MAGICS = {
    b'\xd4\xc3\xb2\xa1': ('<', False),
    b'\xa1\xb2\xc3\xd4': ('>', False),
    b'\x4d\x3c\xb2\xa1': ('<', True),
    b'\xa1\xb2\x3c\x4d': ('>', True),
}
LIBPCAP_MAX_SNAPLEN = 262144   # MAXIMUM_SNAPLEN, also max_snaplen_for_dlt(DLT_EN10MB)


@dataclass
class Record:
    ts_sec: int
    ts_frac: int        # microseconds, or nanoseconds when the file says so
    wire_len: int       # original length from the record header
    data: bytes         # the captured bytes


@dataclass
class Pcap:
    path: str
    endian: str
    nsec: bool
    snaplen: int
    linktype: int       # the whole 32-bit field (upper bits: FCS info)
    records: list = field(default_factory=list)
    truncated: bool = False   # the file ends inside a record header or body
    error: str = ''           # why a libpcap-style read stopped early, if it did

    @property
    def frames(self):
        return [r.data for r in self.records]


def read_pcap(path, libpcap=False):
    """Read a classic pcap file.

    libpcap=False: every complete record as stored.
    libpcap=True: what libpcap 1.10's pcap_next_ex() hands out, i.e. what net_pcap delivers:
    records whose caplen exceeds 262144 end the read with an error, records longer than the
    file's effective snaplen (0 or > 262144 mean 262144) are cut to it, and a truncated
    last record is an error that ends the read.
    """
    with open(path, 'rb') as f:
        buf = f.read()
    if len(buf) < 24 or buf[:4] not in PCAP_MAGICS:
        raise ValueError('%s: not a classic pcap file' % path)
    e, nsec = PCAP_MAGICS[buf[:4]]
    _, _, _, _, snaplen, linktype = struct.unpack(e + 'HHiIII', buf[4:24])
    p = Pcap(path=str(path), endian=e, nsec=nsec, snaplen=snaplen, linktype=linktype)
    eff_snap = snaplen if 0 < snaplen <= LIBPCAP_MAX_SNAPLEN else LIBPCAP_MAX_SNAPLEN
    off = 24
    while off < len(buf):
        if off + 16 > len(buf):
            p.truncated = True
            p.error = 'truncated record header'
            break
        sec, frac, caplen, wire = struct.unpack(e + 'IIII', buf[off:off + 16])
        if libpcap and caplen > LIBPCAP_MAX_SNAPLEN:
            p.error = 'invalid packet capture length %d' % caplen
            break
        if off + 16 + caplen > len(buf):
            p.truncated = True
            p.error = 'truncated record body'
            break
        data = buf[off + 16:off + 16 + caplen]
        if libpcap and caplen > eff_snap:
            data = data[:eff_snap]
        p.records.append(Record(sec, frac, wire, data))
        off += 16 + caplen
    return p


def write_pcap(path, frames):
    """Write frames as a microsecond pcap (the generator's writer)."""
    gen_traffic.write_pcap(path, frames)


def write_input(tmp, **gen):
    """The input capture of a run: gen_traffic.generate_frames(**gen) written to
    tmp/in.pcap. Returns (its path, the frames)."""
    path = os.path.join(tmp, 'in.pcap')
    frames = gen_traffic.generate_frames(**gen)
    write_pcap(path, frames)
    return path, frames


# --------------------------------------------------------------------------- steering key

VLAN_TPIDS = (0x8100, 0x88A8, 0x9100)
MAX_VLAN = 4            # RPS_HASH_MAX_VLAN
MAX_V6EXT = 8           # RPS_HASH_MAX_V6EXT
V6_EXT = (0, 43, 44, 60)
PORT_PROTOS = (6, 17, 33, 50, 51, 132, 136)   # TCP UDP DCCP ESP AH SCTP UDP-Lite


@dataclass
class L3Info:
    family: int         # 4 or 6
    l2_len: int
    l3_len: int
    proto: int          # transport protocol after options / extension headers
    is_frag: bool
    src: bytes
    dst: bytes


def parse_l3(frame):
    """Mirror of rps_flow_key_extract() up to the transport header; None = not a flow."""
    if len(frame) < 14:
        return None
    etype = struct.unpack_from('!H', frame, 12)[0]
    off = 14
    tags = 0
    while etype in VLAN_TPIDS:
        if tags == MAX_VLAN or off + 4 > len(frame):
            return None
        etype = struct.unpack_from('!H', frame, off + 2)[0]
        off += 4
        tags += 1
    if etype == 0x0800:
        if off + 20 > len(frame) or frame[off] >> 4 != 4:
            return None
        ihl = (frame[off] & 0x0F) * 4
        if ihl < 20 or off + ihl > len(frame):
            return None
        frag = struct.unpack_from('!H', frame, off + 6)[0] & 0x3FFF  # MF | offset
        return L3Info(4, off, ihl, frame[off + 9], frag != 0, frame[off + 12:off + 16],
                      frame[off + 16:off + 20])
    if etype == 0x86DD:
        if off + 40 > len(frame) or frame[off] >> 4 != 6:
            return None
        nh = frame[off + 6]
        l3 = 40
        is_frag = False
        for _ in range(MAX_V6EXT):
            if nh not in V6_EXT:
                break
            if off + l3 + 8 > len(frame):
                break               # chain cut short: addresses only
            ext = frame[off + l3:off + l3 + 8]
            if nh == 44:
                if struct.unpack_from('!H', ext, 2)[0] & 0xFFF9:
                    is_frag = True
                l3 += 8
            else:
                l3 += (ext[1] + 1) * 8
            nh = ext[0]
        return L3Info(6, off, min(l3, 0xFFFF), nh, is_frag, frame[off + 8:off + 24],
                      frame[off + 24:off + 40])
    return None


def l2_key(frame):
    """Mirror of rps_hash_l2_key(): what dpdk-rps hashes for a frame without an IP flow
    (non-IP, or an IP header cut short): dst MAC, src MAC, the EtherType after up to MAX_VLAN
    complete tags, the outer VLAN ID. None for a frame shorter than an Ethernet header."""
    if len(frame) < 14:
        return None
    etype = struct.unpack_from('!H', frame, 12)[0]
    off, vid = 14, 0
    for tags in range(MAX_VLAN):
        if etype not in VLAN_TPIDS or off + 4 > len(frame):
            break
        if tags == 0:
            vid = struct.unpack_from('!H', frame, off)[0] & 0x0FFF
        etype = struct.unpack_from('!H', frame, off + 2)[0]
        off += 4
    return frame[0:12] + struct.pack('!HH', etype, vid)


def steering_key(frame):
    """The bytes dpdk-rps hashes for a frame: family + src + dst + (4 bytes after the IP
    header or zeros); for a frame without an IP flow (not IP, or the IP header cut short)
    b'\\0' + l2_key(). Equal keys must go to the same worker. None: a runt (shorter than an
    Ethernet header: the program sends all of those to one worker)."""
    l3 = parse_l3(frame)
    if l3 is None:
        k = l2_key(frame)
        return None if k is None else b'\0' + k
    ports = b'\0\0\0\0'
    if not l3.is_frag and l3.proto in PORT_PROTOS:
        p = l3.l2_len + l3.l3_len
        if p + 4 <= len(frame):
            ports = frame[p:p + 4]
    return bytes([l3.family]) + l3.src + l3.dst + ports


def marker(frame):
    """(flow id, seq) from a generated non-fragmented TCP/UDP packet, else None."""
    l3 = parse_l3(frame)
    if l3 is None or l3.is_frag or l3.proto not in (6, 17):
        return None
    p = l3.l2_len + l3.l3_len
    if l3.proto == 6:
        if p + 20 > len(frame):
            return None
        p += (frame[p + 12] >> 4) * 4
    else:
        p += 8
    if frame[p:p + 4] != gen_traffic.MARKER_MAGIC or p + 12 > len(frame):
        return None
    return struct.unpack_from('!II', frame, p + 4)


def wire_order(tx):
    """The marked packets of the TX files tx (one per queue) as they left: (timestamp in ns,
    queue index, marker()) by timestamp, then queue, file order within those."""
    wire = []
    for q, path in enumerate(tx):
        p = read_pcap(path)
        scale = 1 if p.nsec else 1000
        for r in p.records:
            mk = marker(r.data)
            if mk is not None:
                wire.append((r.ts_sec * 10**9 + r.ts_frac * scale, q, mk))
    wire.sort(key=lambda x: (x[0], x[1]))
    return wire


# --------------------------------------------------------------------------- running

@dataclass
class RunResult:
    cmd: list
    rc: int             # None when killed after the timeout
    stdout: str
    stderr: str
    elapsed: float
    summary: dict       # None when no (valid) summary JSON was written
    summary_error: str = ''
    timed_out: bool = False
    signalled_at: float = None  # seconds from the start to stop_signal; None: never sent
    ready: bool = None          # after_ready: whether it said it was ready before the signal

    def describe(self, tail=3000):
        return ('command: %s\nexit code: %s%s, %.1f s\n--- stdout (tail) ---\n%s\n'
                '--- stderr (tail) ---\n%s\n' % (
                    ' '.join(_shq(c) for c in self.cmd), self.rc,
                    ' (timed out, killed)' if self.timed_out else '', self.elapsed,
                    self.stdout[-tail:], self.stderr[-tail:]))


def _shq(s):
    s = str(s)
    if s and all(c.isalnum() or c in '-_./=,:@' for c in s):
        return s
    return "'" + s.replace("'", "'\\''") + "'"


_run_counter = itertools.count()


def unique_prefix():
    return 'rpsit_%d_%d_%d' % (os.getpid(), next(_run_counter), time.monotonic_ns() % 100000)


def remove_runtime_dir(prefix):
    """Remove the DPDK runtime directory a run with --file-prefix PREFIX left behind."""
    assert prefix.startswith('rpsit_')
    shutil.rmtree('/var/run/dpdk/%s' % prefix, ignore_errors=True)
    if os.environ.get('XDG_RUNTIME_DIR'):
        shutil.rmtree(os.path.join(os.environ['XDG_RUNTIME_DIR'], 'dpdk', prefix),
                      ignore_errors=True)


def drain(proc):
    """Read a Popen's stdout and stderr (PIPEs) all along, in threads: a process that logs a
    line per reload would otherwise block on a full pipe (64 KiB), and its control thread
    with it, while the test reads nothing until the end. stop() then returns what was read."""
    import threading
    proc._drained = ([], [])
    proc._drainers = [threading.Thread(target=lambda f, b: b.extend(iter(f.readline, b'')),
                                       args=(f, b), daemon=True)
                      for f, b in zip((proc.stdout, proc.stderr), proc._drained)]
    for t in proc._drainers:
        t.start()
    return proc


def stop(proc, prefix, timeout=30.0):
    """SIGINT a dpdk-rps started with Popen(start_new_session=True), wait for it (SIGKILL its
    process group after timeout) and remove its runtime directory. Returns (stdout, stderr)
    as bytes; proc.returncode is its exit status."""
    proc.send_signal(signal.SIGINT)
    if hasattr(proc, '_drained'):
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        for t in proc._drainers:
            t.join(10)
        remove_runtime_dir(prefix)
        return b''.join(proc._drained[0]), b''.join(proc._drained[1])
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
    remove_runtime_dir(prefix)
    return out, err


TELEMETRY = 'dpdk-telemetry.py'


def telemetry(prefix, *cmds):
    """Run commands through dpdk-telemetry.py on the process of --file-prefix PREFIX: the
    replies (dicts {command: value}), in order; fewer when some did not answer. A callback
    that failed answers {"cmd": null}."""
    p = subprocess.run([TELEMETRY, '-f', prefix], input='\n'.join(cmds) + '\n',
                       capture_output=True, text=True, timeout=30)
    out = [json.loads(line) for line in p.stdout.splitlines() if line.startswith('{')]
    return out[-len(cmds):] if len(out) >= len(cmds) else out


def wait_ready(prefix, timeout=20.0):
    """Wait until the dpdk-rps of --file-prefix PREFIX says it is ready (/rps/info ready: ports
    up, workers launched, reloads taken). Returns its /rps/info, or None after timeout."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        r = telemetry(prefix, '/rps/info')
        info = r[0].get('/rps/info') if r else None
        if info and info.get('ready') == 1:
            return info
        time.sleep(0.05)
    return None


def telemetry_socket(prefix, *cmds, timeout=10.0):
    """telemetry() without dpdk-telemetry.py: the same commands through the telemetry socket
    itself, on one connection, the same replies ({command: value}, in order; fewer when some
    did not answer: no socket yet, the process gone). Each dpdk-telemetry.py is a Python
    start-up, over a second behind pyenv's python3 shim on a loaded 2-CPU machine: tests
    that poll (readiness, a counter reaching a value) spent most of their time there. Use
    telemetry() where dpdk-telemetry.py itself is under test."""
    import socket
    out = []
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.settimeout(timeout)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                s.connect(telemetry_path(prefix))
                break
            except BlockingIOError:
                # a listen backlog of 1: EAGAIN until the thread accepted the one before
                if time.monotonic() > deadline:
                    return out
                time.sleep(0.01)
        greeting = json.loads(s.recv(1 << 16).decode())
        size = max(int(greeting.get('max_output_len', 0)), 1 << 16)
        for cmd in cmds:
            s.send(cmd.encode())
            r = s.recv(size)
            if not r:
                break
            out.append(json.loads(r.decode()))
    except (OSError, ValueError):
        pass
    finally:
        s.close()
    return out


def wait_traffic(prefix, timeout=10.0):
    """Wait until the workers of the dpdk-rps of --file-prefix PREFIX have processed a packet
    (/rps/stats processed > 0, through telemetry_socket()): traffic flows. Returns
    /rps/stats, or None after timeout."""
    def flowing():
        r = telemetry_socket(prefix, '/rps/stats')
        st = r[0].get('/rps/stats') if r else None
        return st if st and st.get('processed', 0) > 0 else None
    return wait_for(flowing, timeout)

# Microsoft's RSS key, the default of --rss-key and of most NICs.
MS_KEY = bytes.fromhex('6d5a56da255b0ec24167253d43a38fb0d0ca2bcbae7b30b477cb2da38030f20c'
                       '6a42b73bbeac01fa')


def bucket(h, size):
    """The bucket of 32-bit hash h in a table of size (a power of two) buckets: its top
    log2(size) bits, as dpdk-rps indexes its maps (rps_map_bucket())."""
    return (h * size) >> 32


def toeplitz(key, data):
    """The Toeplitz hash of data (bytes, network order) under key (MSB first)."""
    k = int.from_bytes(key, 'big')
    kbits = len(key) * 8
    h = 0
    for i in range(len(data) * 8):
        if data[i // 8] >> (7 - i % 8) & 1:
            h ^= (k >> (kbits - 32 - i)) & 0xFFFFFFFF
    return h



# ------------------------------------------------------------------ packet builders

def toeplitz_flows(rng, n, key=MS_KEY):
    """n random IPv4 TCP/UDP flows in 198.18.0.0/15: (proto, src, dst, sport, dport, hash),
    the hash Toeplitz with key over the addresses and ports (what a NIC's RSS computes)."""
    out = []
    for _ in range(n):
        src = bytes([198, 18 + rng.randrange(2), rng.randrange(256), rng.randrange(1, 255)])
        dst = bytes([198, 18 + rng.randrange(2), rng.randrange(256), rng.randrange(1, 255)])
        sp, dp = rng.randrange(1024, 65536), rng.choice((53, 80, 443))
        h = toeplitz(key, src + dst + struct.pack('!HH', sp, dp))
        out.append((rng.choice((6, 17)), src, dst, sp, dp, h))
    return out


def flow_frame(fl, f, seq):
    """Packet seq of flow fl (a toeplitz_flows() tuple), marked as flow f (marker())."""
    proto, src, dst, sp, dp, _ = fl
    payload = gen_traffic.marker(f, seq) + bytes(20)
    if proto == 6:
        l4 = gen_traffic.tcp_segment(False, src, dst, sp, dp, 1000 + 100 * seq, 1, payload)
    else:
        l4 = gen_traffic.udp_datagram(False, src, dst, sp, dp, payload)
    return (gen_traffic.eth_header(b'\x02\0\0\0\0\x01', b'\x02\0\0\0\0\x02', [], 0x0800) +
            gen_traffic.ipv4_header(src, dst, proto, len(l4), seq) + l4)

def pcap_vdev(rx=None, tx=(), infinite_rx=False, name='net_pcap0'):
    """--vdev value for net_pcap: one rx_pcap (one RX queue), one TX queue per tx file."""
    parts = [name]
    if rx is not None:
        parts.append('rx_pcap=%s' % rx)
        if infinite_rx:
            parts.append('infinite_rx=1')
    parts += ['tx_pcap=%s' % t for t in tx]
    return ','.join(parts)


# 2 MiB hugepages for the runs, when scripts/run-tests.sh (as root) reserved some and mounted a
# private hugetlbfs for them (RPSTEST_HUGE_DIR). On --no-huge memory every 4 KiB page of the
# pool, the flow tables and the rings is faulted in one by one at start and again when rte_free
# zeroes it at exit: 0.8 s of a 1.4 s run here; on hugepages the same run takes 0.6 s.
# --huge-unlink: the files go at once, so a killed run leaves no page behind (and no secondary
# process can attach: test_pdump mounts its own). Without the folder, or with too few free
# pages for its cap (another test may hold them), the run uses --no-huge as before.
HUGE_DIR = os.environ.get('RPSTEST_HUGE_DIR') or None
HUGE_FREE = '/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages'


def huge_usable(mem_mb):
    """Whether a run capped at mem_mb could have it all in 2 MiB pages under HUGE_DIR now."""
    if HUGE_DIR is None or not os.path.ismount(HUGE_DIR):
        return False
    try:
        with open(HUGE_FREE) as f:
            free = int(f.read())
    except (OSError, ValueError):
        return False
    return free * 2 >= mem_mb + 128


def eal_args(prefix, lcores='0@0,(1-3)@1', vdevs=(), mem_mb=512, extra=(), no_huge=False):
    """EAL arguments for one run. no_huge: always --no-huge memory (a test that reads the
    process's RSS: hugetlbfs pages are not in it)."""
    if not no_huge and huge_usable(mem_mb):
        # --socket-limit: the same cap as -m on --no-huge memory, with nothing allocated
        # up front (-m would fault in and zero all of it at start)
        mem = ['--socket-limit', str(mem_mb), '--huge-dir', HUGE_DIR, '--huge-unlink']
    else:
        mem = ['--no-huge', '-m', str(mem_mb)]
    a = mem + ['--no-pci', '--file-prefix', prefix,
               '--lcores', lcores, '--log-level', 'lib.eal:warning']
    for v in vdevs:
        a += ['--vdev', v]
    return a + list(extra)


# Test hooks (app/test_hooks.c, builds with -Dtest_hooks=true): conditions made, not hoped for.
# The default build has none and reads no RPS_TEST_* variable: a test that needs one asks
# hooks_built() (or skip_without_hooks()) before it relies on it, and is skipped without.
WORKER_DELAY = 'RPS_TEST_WORKER_DELAY_NS'
NO_HOOKS = 'built without -Dtest_hooks=true'
SKIP = 77   # meson: skipped
_hooks = {}


def hooks_built(binary, tmp):
    """Whether binary has the test hooks: a short run on a tiny capture with
    RPS_TEST_RX_HOLD naming a file that does not exist (nothing held), whose hook says so in
    the log ("test hook: ... (RPS_TEST_RX_HOLD)"); a build without the hooks says nothing.
    A probe that does not exit 0 counts as hooks present, so that the test runs and fails
    on its own checks instead of being skipped. Asked once per binary."""
    key = os.path.realpath(binary)
    if key not in _hooks:
        inp = os.path.join(tmp, 'probe.pcap')
        write_pcap(inp, gen_traffic.generate_frames(flows=2, packets_per_flow=5, seed=1,
                                                    frag_datagrams=0, non_ip=0))
        res, _ = run_pcap(binary, tmp, inp, 0, ['--exit-when-idle', '100'], tag='probe',
                          timeout=30, env={'RPS_TEST_RX_HOLD': '/nonexistent'})
        if res.rc != 0:
            print('hooks_built: the probe run exited %s: %s' % (res.rc, res.stderr[-500:]),
                  flush=True)
        _hooks[key] = res.rc != 0 or '(RPS_TEST_RX_HOLD)' in res.stderr
    return _hooks[key]


def skip_without_hooks(binary, tmp, what):
    """Exit 77 (meson: skipped), saying why, when binary lacks the test hooks; what: the
    hooks the test needs (their variables)."""
    if not hooks_built(binary, tmp):
        print('SKIP: %s is %s (the test needs %s)' % (binary, NO_HOOKS, what), flush=True)
        sys.exit(SKIP)


def run_rps(binary, eal, app, timeout=60.0, summary_path=None, stop_signal=None,
            signal_after=None, prefix=None, env=None, after_ready=False, stop_event=None):
    """Run dpdk-rps EAL -- APP. With summary_path, --summary-json is added and the file read.

    stop_signal/signal_after: send that signal once the process has run that many seconds
    (after_ready, with prefix: that many seconds after it said it is ready, so that a slow
    start on a loaded machine does not turn the stop into a start-up interruption).
    stop_event: a threading.Event the test's own thread sets once it has seen what it
    waited for; the signal goes then, signal_after being the most it waits.
    env: variables added to the environment (test hooks: WORKER_DELAY).
    The process gets its own session; on timeout its group is killed. The DPDK runtime
    directory of the run's --file-prefix is removed afterwards.
    """
    app = list(app)
    if summary_path is not None:
        app += ['--summary-json', str(summary_path)]
        try:
            os.unlink(summary_path)
        except FileNotFoundError:
            pass
    cmd = [str(binary)] + list(eal) + ['--'] + app
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, start_new_session=True,
                            env=dict(os.environ, **env) if env else None)
    timed_out = False
    signalled_at, ready = None, None
    try:
        if stop_signal is not None:
            if stop_event is not None or (after_ready and prefix is not None):
                drain(proc)  # read its output meanwhile: a full pipe would block it
                if after_ready and prefix is not None:
                    ready = wait_ready(prefix, timeout=timeout / 2) is not None
                if stop_event is not None:
                    stop_event.wait(signal_after)
                else:
                    time.sleep(signal_after)
                if proc.poll() is None:
                    proc.send_signal(stop_signal)
                    signalled_at = time.monotonic() - t0
                proc.wait(timeout=max(1.0, timeout / 2))
                for t in proc._drainers:
                    t.join()
                out, err = (b''.join(b) for b in proc._drained)
            else:
                try:
                    out, err = proc.communicate(timeout=signal_after)
                except subprocess.TimeoutExpired:
                    proc.send_signal(stop_signal)
                    signalled_at = time.monotonic() - t0
                    out, err = proc.communicate(timeout=max(1.0, timeout - signal_after))
        else:
            out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        if hasattr(proc, '_drainers'):  # its pipes are read by drain()'s threads
            proc.wait()
            for t in proc._drainers:
                t.join()
            out, err = (b''.join(b) for b in proc._drained)
        else:
            out, err = proc.communicate()
    elapsed = time.monotonic() - t0
    if prefix is not None:
        remove_runtime_dir(prefix)
    summary, serr = None, ''
    if summary_path is not None:
        try:
            with open(summary_path) as f:
                summary = json.load(f)
        except FileNotFoundError:
            serr = 'summary JSON %s was not written' % summary_path
        except (OSError, ValueError) as e:
            serr = 'summary JSON %s is not valid JSON: %s' % (summary_path, e)
    return RunResult(cmd=cmd, rc=None if timed_out else proc.returncode,
                     stdout=out.decode(errors='replace'), stderr=err.decode(errors='replace'),
                     elapsed=elapsed, summary=summary, summary_error=serr,
                     timed_out=timed_out, signalled_at=signalled_at, ready=ready)


def run_all(calls, jobs=2):
    """Call each of calls (functions of no argument), up to jobs of them at once; their
    results, in order. Only for runs whose checks do not depend on timing (a whole capture
    through net_pcap, --exit-when-idle after it, a backlog above its size or backpressure),
    as the corpus shards: such a run is mostly dpdk-rps's start-up and exit, one thread each,
    so two side by side on 2 CPUs take about the time of one. Check the results afterwards,
    in order, from the calling thread."""
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(max_workers=jobs) as ex:
        return list(ex.map(lambda f: f(), calls))


def run_pcap(binary, tmp, rx, ntx, app, lcores='0@0,(1-3)@1', timeout=120.0, tag='run',
             infinite_rx=False, **kw):
    """Run with net_pcap0 reading rx and writing ntx files tmp/TAG_w{i}.pcap.

    Returns (RunResult, [tx paths])."""
    prefix = unique_prefix()
    tx = [os.path.join(tmp, '%s_w%d.pcap' % (tag, i)) for i in range(ntx)]
    for t in tx:
        if os.path.exists(t):
            os.unlink(t)
    eal = eal_args(prefix, lcores=lcores,
                   vdevs=[pcap_vdev(rx=rx, tx=tx, infinite_rx=infinite_rx)])
    res = run_rps(binary, eal, app, timeout=timeout,
                  summary_path=os.path.join(tmp, '%s_summary.json' % tag), prefix=prefix,
                  **kw)
    return res, tx


# --------------------------------------------------------------------------- checks

def dropped_total(summary):
    d = summary.get('dropped', {})
    return sum(v for v in d.values() if isinstance(v, int))


def check_accounting(s):
    """rx_packets == processed + sum(dropped); the keys exist and are counts."""
    errs = []
    for k in ('rx_packets', 'processed', 'tx_packets', 'dropped', 'workers'):
        if k not in s:
            errs.append('summary has no "%s" key' % k)
    if errs:
        return errs
    if not isinstance(s['dropped'], dict):
        return ['summary "dropped" is not an object: %r' % (s['dropped'],)]
    for k, v in s['dropped'].items():
        if not isinstance(v, int) or v < 0:
            errs.append('dropped.%s is not a count: %r' % (k, v))
    for k in ('rx_packets', 'processed', 'tx_packets'):
        if not isinstance(s[k], int) or s[k] < 0:
            errs.append('%s is not a count: %r' % (k, s[k]))
    if errs:
        return errs
    d = dropped_total(s)
    if s['rx_packets'] != s['processed'] + d:
        errs.append('accounting: rx_packets %d != processed %d + dropped %d (%s)' % (
            s['rx_packets'], s['processed'], d, s['dropped']))
    wsum = sum(w.get('processed', 0) for w in s['workers'])
    if s['workers'] and wsum != s['processed']:
        errs.append('sum of workers[].processed %d != processed %d' % (wsum, s['processed']))
    errs += check_port_accounting(s)
    errs += check_stage_counts(s)
    return errs


def check_stage_counts(s):
    """Each lcore's stages (the summary's workers[].stages, by name): none lets out more
    than it took in (a stage drops, absorbs fragments or answers, never adds); in pipeline
    order (by what they took in, most first, and of those that took in as many the ones
    that let all out first) each took in what the one before let out; and on a worker the
    first took in every packet the worker dequeued (received_rps)."""
    errs = []
    for w in s.get('workers', []):
        st = w.get('stages') or {}
        for name, c in st.items():
            if c.get('out', 0) > c.get('in', 0):
                errs.append('lcore %s: stage %s let out %d of %d in' % (
                    w.get('lcore'), name, c['out'], c['in']))
        order = sorted(st.items(), key=lambda kv: (-kv[1].get('in', 0), -kv[1].get('out', 0)))
        for (a, ca), (b, cb) in zip(order, order[1:]):
            if ca.get('out', 0) != cb.get('in', 0):
                errs.append('lcore %s: stage %s let out %d, the next (%s) took in %d' % (
                    w.get('lcore'), a, ca.get('out', 0), b, cb.get('in', 0)))
        first = max((c.get('in', 0) for c in st.values()), default=None)
        if first is not None and w.get('received_rps', 0) > 0 and \
                first != w['received_rps']:
            errs.append('lcore %s: its first stage took in %d, it received %d' % (
                w.get('lcore'), first, w['received_rps']))
    return errs


def check_port_accounting(s):
    """Each RX port's packets end in one counter too: received == processed + dropped_total,
    its drops by reason summing to dropped_total; over the ports (when none is "other"),
    received is rx_packets and each reason's drops the summary's: a drop counted for no
    port (a consumer's, a stage's) shows as a port that does not add up."""
    errs = []
    ports = {k: v for k, v in (s.get('ports') or {}).items() if k != 'other'}
    for name, p in sorted(ports.items()):
        by_reason = sum(p.get('dropped', {}).values())
        if p['received'] != p['processed'] + p['dropped_total'] or \
                by_reason != p['dropped_total']:
            errs.append('port %s: received %d != processed %d + dropped %d (by reason %s)' % (
                name, p['received'], p['processed'], p['dropped_total'],
                {k: v for k, v in p.get('dropped', {}).items() if v}))
    if ports and 'other' not in (s.get('ports') or {}):
        rx = sum(p['received'] for p in ports.values())
        if rx != s['rx_packets']:
            errs.append('ports received %d in all, rx_packets %d' % (rx, s['rx_packets']))
        for r, v in s['dropped'].items():
            pv = sum(p.get('dropped', {}).get(r, 0) for p in ports.values())
            if pv != v:
                errs.append('dropped.%s %d, the ports\' %d' % (r, v, pv))
    return errs


def is_subsequence(sub, seq):
    it = iter(seq)
    return all(any(x == y for y in it) for x in sub)


def check_outputs(in_frames, out_frames_per_file, exact, summary=None):
    """Steering and order checks over the TX files of one run.

    in_frames: the frames the program received, in order.
    out_frames_per_file: {name: [frames in file order]}.
    exact: no packet was dropped, so the outputs must hold every input frame.
    Checks: outputs are a sub-multiset of the input (equal when exact); every steering key
    (frames without an IP flow by their layer-2 key; None = runts, one group) in one
    file only; within each key the output order is a
    subsequence of the input order (equal when exact); per marker flow the sequence numbers
    increase (and are 0..K-1 complete when exact).
    """
    errs = []
    in_count = collections.Counter(in_frames)
    out_count = collections.Counter()
    for fr in out_frames_per_file.values():
        out_count.update(fr)
    extra = out_count - in_count
    if extra:
        errs.append('%d output frames are not in the input (or appear more often than in '
                    'it); first: %s' % (sum(extra.values()), next(iter(extra)).hex()[:120]))
    if exact:
        missing = in_count - out_count
        if missing:
            errs.append('%d input frames are missing from the outputs; first: %s' % (
                sum(missing.values()), next(iter(missing)).hex()[:120]))

    key_files = collections.defaultdict(set)
    in_by_key = collections.defaultdict(list)
    for fr in in_frames:
        in_by_key[steering_key(fr)].append(fr)
    for name, frames in out_frames_per_file.items():
        by_key = collections.defaultdict(list)
        for fr in frames:
            k = steering_key(fr)
            key_files[k].add(name)
            by_key[k].append(fr)
        for k, got in by_key.items():
            want = in_by_key.get(k, [])
            if exact and got != want:
                errs.append('%s: key %s: the %d output frames differ from the %d input frames '
                            'of that key, in order' % (name, _kname(k), len(got), len(want)))
            elif not exact and not is_subsequence(got, want):
                errs.append('%s: key %s: output order is not a subsequence of input order'
                            % (name, _kname(k)))
    split = {k: f for k, f in key_files.items() if len(f) > 1}
    if split:
        k, f = next(iter(split.items()))
        errs.append('%d steering keys reached more than one output file; e.g. %s in %s' % (
            len(split), _kname(k), sorted(f)))

    in_flows = collections.defaultdict(list)
    for fr in in_frames:
        m = marker(fr)
        if m:
            in_flows[m[0]].append(m[1])
    out_flows = collections.defaultdict(list)
    flow_files = collections.defaultdict(set)
    for name, frames in out_frames_per_file.items():
        for fr in frames:
            m = marker(fr)
            if m:
                out_flows[m[0]].append(m[1])
                flow_files[m[0]].add(name)
    bad_order = [f for f, s in out_flows.items() if any(a >= b for a, b in zip(s, s[1:]))]
    if bad_order:
        f = bad_order[0]
        errs.append('%d flows out of order; e.g. flow %d: %s' % (len(bad_order), f,
                                                                  out_flows[f][:20]))
    multi = [f for f, n in flow_files.items() if len(n) > 1]
    if multi:
        errs.append('%d flows spread over several files; e.g. flow %d in %s' % (
            len(multi), multi[0], sorted(flow_files[multi[0]])))
    if exact:
        incomplete = [f for f in in_flows if out_flows.get(f) != in_flows[f]]
        if incomplete:
            f = incomplete[0]
            errs.append('%d flows incomplete or reordered; e.g. flow %d: in %s, out %s' % (
                len(incomplete), f, in_flows[f][:12], out_flows.get(f, [])[:12]))
    return errs


def _kname(k):
    if k is None:
        return 'runt'
    if k[0] == 0:
        return 'L2 %s' % k[1:].hex()
    return 'v%d %s' % (k[0], k[1:].hex())


def worker_table(summary, lcores):
    """Summary worker entries for the given lcores, in that order (missing -> None)."""
    by = {w.get('lcore'): w for w in summary.get('workers', [])}
    return [by.get(l) for l in lcores]


def check_workers_vs_files(summary, lcores, files_counts, field='processed'):
    """workers[lcore i].<field> == packets in file i, for worker index i. 'processed' when
    every processed packet is transmitted; 'tx_packets' when stages also finish packets
    (reassembly absorbs fragments, respond answers)."""
    errs = []
    for i, (l, w) in enumerate(zip(lcores, worker_table(summary, lcores))):
        if w is None:
            errs.append('summary has no worker entry for lcore %d' % l)
            continue
        if w.get(field) != files_counts[i]:
            errs.append('worker %d (lcore %d): %s %s but its TX file holds %d packets'
                        % (i, l, field, w.get(field), files_counts[i]))
    return errs


# --------------------------------------------------------------------------- test plumbing

class Failures:
    """Collects failed checks; report() prints them and returns the exit status: 1 when a
    check failed, else SKIP (77) when a part could not run here (skip()), else 0."""

    def __init__(self, name):
        self.name = name
        self.items = []
        self.skipped = []
        self.t0 = time.monotonic()

    def skip(self, part, why):
        """Part @p part of the test cannot run here (@p why): the others still run, and
        the test ends SKIP, not OK, saying so."""
        print('%s: skipped: %s' % (part, why), flush=True)
        self.skipped.append('%s: %s' % (part, why))

    def check(self, cond, msg, run=None):
        if not cond:
            self.fail(msg, run)
        return bool(cond)

    def fail(self, msg, run=None):
        text = 'FAIL: %s' % msg
        if run is not None:
            text += '\n' + run.describe()
        print(text, flush=True)
        self.items.append(msg)

    def extend(self, errs, context, run=None):
        for i, e in enumerate(errs):
            self.fail('%s: %s' % (context, e), run if i == 0 else None)
        return not errs

    def report(self):
        dt = time.monotonic() - self.t0
        if self.items:
            print('%s: %d check(s) failed (%.1f s)' % (self.name, len(self.items), dt))
            return 1
        if self.skipped:
            print('SKIP: %s: the checks that ran passed, but not every part ran: %s (%.1f s)'
                  % (self.name, '; '.join(self.skipped), dt))
            return SKIP
        print('%s: all checks passed (%.1f s)' % (self.name, dt))
        return 0


def check_exit(F, res, ctx, strict=False):
    """A run that should exit 0 with its summary: prints how it ended, records exit code,
    summary and accounting failures in F. Returns the summary, or None when there is none
    to check (exit code not 0, or no summary) or, when strict, its accounting is off."""
    print('%s: exit %s in %.1f s' % (ctx, res.rc, res.elapsed), flush=True)
    if not F.check(res.rc == 0, '%s: exit code %s, expected 0' % (ctx, res.rc), res):
        return None
    if not F.check(res.summary is not None, '%s: %s' % (ctx, res.summary_error), res):
        return None
    if not F.extend(check_accounting(res.summary), ctx, res) and strict:
        return None
    return res.summary


def check_pcap_run(F, res, tx, nframes, ctx):
    """The checks every run of a whole capture through net_pcap shares: exit 0, a summary,
    exact accounting, every packet received and none dropped, every TX file written.

    Returns (summary, {tx file name: frames}, [frames per TX file, in tx order]), or None
    when the run cannot be checked further (the failures are recorded in F)."""
    s = check_exit(F, res, ctx, strict=True)
    if s is None:
        return None
    F.check(s['rx_packets'] == nframes, '%s: rx_packets %d != %d packets in the capture'
            % (ctx, s['rx_packets'], nframes), res)
    F.check(dropped_total(s) == 0, '%s: packets dropped: %s' % (ctx, s['dropped']), res)
    outs = {}
    for path in tx:
        if not F.check(os.path.exists(path), '%s: TX file %s missing' % (ctx, path)):
            return None
        outs[os.path.basename(path)] = read_pcap(path).frames
    return s, outs, [len(outs[os.path.basename(p)]) for p in tx]


def check_stopped(F, proc, err, summary_path, ctx):
    """The checks every run stopped with rpstest.stop() shares: exit 0 (else the end of its
    stderr), a summary JSON, exact accounting, every mbuf back in the pool. Returns the
    summary, or None when the run cannot be checked further (failures are in F). err: bytes
    or str."""
    if isinstance(err, bytes):
        err = err.decode(errors='replace')
    if not F.check(proc.returncode == 0, '%s: exit %s%s: %s' % (
            ctx, proc.returncode, ' (%s)' % signal.Signals(-proc.returncode).name
            if proc.returncode is not None and proc.returncode < 0 else '', err[-2000:])):
        return None
    try:
        with open(summary_path) as f:
            s = json.load(f)
    except (OSError, ValueError) as e:
        F.fail('%s: summary JSON %s: %r' % (ctx, summary_path, e))
        return None
    F.extend(check_accounting(s), ctx)
    F.check(s['mempool']['in_use_at_exit'] == 0, '%s: mbufs leaked: %s' % (ctx, s['mempool']))
    return s


def run_until_idle(binary, tmp, app, conf=None, lcores='0@0,(1-3)@1', tx=()):
    """Run on tmp/in.pcap until idle (200 ms), with CONF (text, optional) written to
    tmp/bad.conf and given first as --config; TX files tx (paths). Returns the RunResult."""
    prefix = unique_prefix()
    eal = eal_args(prefix, lcores=lcores, vdevs=[pcap_vdev(rx=os.path.join(tmp, 'in.pcap'),
                                                           tx=tx)])
    if conf is not None:
        path = os.path.join(tmp, 'bad.conf')
        with open(path, 'w') as f:
            f.write(conf)
        app = ['--config', path] + list(app)
    return run_rps(binary, eal, ['--exit-when-idle', '200'] + list(app), timeout=30,
                   prefix=prefix)


def check_usage_errors(F, go, cases):
    """Each case (app, conf, words): go(app, conf) must exit 2 with every word in stderr
    (the option, or FILE:LINE for a config mistake)."""
    for app, conf, want in cases:
        r = go(app, conf)
        label = ' '.join(app) + (' + config %r' % conf if conf else '')
        if F.check(r.rc == 2, '%s: exit code %s, expected 2' % (label, r.rc), r):
            missing = [w for w in want if w not in r.stderr]
            F.check(not missing, '%s: stderr does not mention %s: %r' % (
                label, missing, r.stderr[-600:]))
        print('bad value %-60.60s exit %s' % (label, r.rc), flush=True)


def binary_from_argv():
    if len(sys.argv) < 2:
        sys.exit('usage: %s PATH/TO/dpdk-rps [...]' % sys.argv[0])
    b = sys.argv[1]
    if not os.access(b, os.X_OK):
        sys.exit('%s: not an executable' % b)
    return b


class TempDir:
    """Temporary directory, removed at exit unless RPSTEST_KEEP is set."""

    def __init__(self, name):
        self.path = tempfile.mkdtemp(prefix='rpstest_%s_' % name)

    def __enter__(self):
        return self.path

    def __exit__(self, *exc):
        if os.environ.get('RPSTEST_KEEP'):
            print('kept %s' % self.path)
        else:
            shutil.rmtree(self.path, ignore_errors=True)


# --------------------------------------------------------------------------- telemetry socket

def telemetry_path(prefix):
    """The telemetry socket of the dpdk-rps of --file-prefix PREFIX."""
    base = os.environ.get('XDG_RUNTIME_DIR') if os.getuid() != 0 else None
    d = os.path.join(base, 'dpdk', prefix) if base else '/var/run/dpdk/%s' % prefix
    return os.path.join(d, 'dpdk_telemetry.v2')


class Telemetry:
    """A client of DPDK's telemetry socket held open (as a monitoring agent does), so that
    each query's latency is dpdk-rps's, not a Python start-up's. query() returns (value,
    seconds); value is None when the command failed or the socket went away."""

    def __init__(self, prefix, timeout=20.0):
        self.prefix, self.timeout = prefix, timeout
        self._connect()

    def _connect(self):
        import socket
        deadline = time.monotonic() + self.timeout
        while True:
            self.s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            self.s.settimeout(self.timeout)
            try:
                self.s.connect(telemetry_path(self.prefix))
                break
            except BlockingIOError:
                # DPDK's telemetry listens with a backlog of 1: clients connecting at the
                # same moment get EAGAIN until its thread has accepted the one before
                self.s.close()
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.01)
        self.s.recv(1 << 16)        # the greeting

    def query(self, cmd):
        r, dt = self.query_raw(cmd)
        if not r:
            return None, dt
        try:
            return json.loads(r.decode()).get(cmd.split(',')[0]), dt
        except ValueError:
            return None, dt

    def query_raw(self, cmd):
        """The reply's bytes as they came (None when the socket failed or closed), and
        seconds."""
        t0 = time.monotonic()
        try:
            self.s.send(cmd.encode())
            r = self.s.recv(1 << 20)
        except TimeoutError:
            # No answer within the timeout (a loaded machine: 32 polling lcores on 2 CPUs
            # took a reply past 5 s once). Its late reply would answer the next query:
            # start a new connection instead, so replies never shift by one.
            dt = time.monotonic() - t0
            self.s.close()
            try:
                self._connect()
            except OSError:
                pass
            return None, dt
        except OSError:
            return None, time.monotonic() - t0
        return r, time.monotonic() - t0

    def close(self):
        self.s.close()


def wait_ready_socket(prefix, timeout=20.0):
    """wait_ready() without a Python start-up per try: /rps/info asked every 10 ms on a
    client of the telemetry socket (dpdk-telemetry.py takes 0.2 s or more a try on a loaded
    machine, and noticed readiness seconds late where start-up is slow). Its /rps/info, or
    None after timeout."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            tel = Telemetry(prefix, timeout=2)
        except OSError:             # no socket yet
            time.sleep(0.01)
            continue
        try:
            while time.monotonic() < deadline:
                r, _ = tel.query_raw('/rps/info')
                if not r:           # closed (it exited) or no answer: connect again
                    break
                try:
                    info = json.loads(r.decode()).get('/rps/info')
                except ValueError:
                    info = None
                if isinstance(info, dict) and info.get('ready') == 1:
                    return info
                time.sleep(0.01)
        finally:
            tel.close()
        time.sleep(0.01)
    return None


# --------------------------------------------------------------------------- kernel-side runs

def tap_skip():
    """True, with a 'SKIP: ' line saying why, where a net_tap run written to from the kernel
    side (AF_PACKET) cannot run: it needs root and /dev/net/tun. The caller exits 77."""
    if os.geteuid() != 0:
        why = 'not root (net_tap and AF_PACKET need it)'
    elif not os.path.exists('/dev/net/tun'):
        why = 'no /dev/net/tun (net_tap needs it)'
    else:
        return False
    print('SKIP: ' + why)
    return True


def send_on_iface(iface, frames):
    """Turn IPv6 off on iface (fewer frames of the kernel's own on it), then write frames
    into it from the kernel side through an AF_PACKET socket (nothing is routed)."""
    import socket
    subprocess.run(['sysctl', '-q', '-w', 'net.ipv6.conf.%s.disable_ipv6=1' % iface],
                   capture_output=True)
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((iface, 0))
    for fr in frames:
        s.send(fr)
    s.close()


def start_logged(cmd, log_path):
    """Print and start cmd in its own session, stdout and stderr into the file log_path."""
    print('$ %s' % ' '.join(cmd), flush=True)
    with open(log_path, 'wb') as log:
        return subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)


def wait_ready_log(proc, log_path, timeout=30.0, settle=0.0):
    """Until the log of a start_logged() dpdk-rps says its lcores run ('RPS: ready: '), then
    settle seconds more. True when ready; False once it exited or after timeout."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return False
        with open(log_path, errors='replace') as f:
            if 'RPS: ready: ' in f.read():
                time.sleep(settle)
                return True
        time.sleep(0.1)
    return False


def sigint_wait(proc, within):
    """SIGINT (unless it already exited), then SIGKILL its session after within seconds.
    Returns (exit status, or None when it had to be killed; seconds it took)."""
    t0 = time.monotonic()
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=within)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        return None, time.monotonic() - t0
    return proc.returncode, time.monotonic() - t0


def end_logged(F, proc, prefix, log_path):
    """The finally of a start_logged() run: SIGKILL it if it still runs, remove its runtime
    directory, and print the log's tail when anything failed."""
    if proc is not None and proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    remove_runtime_dir(prefix)
    if F.items and os.path.exists(log_path):
        with open(log_path, errors='replace') as f:
            print('--- dpdk-rps output (tail) ---\n%s' % f.read()[-4000:])


def rss_kib(pid):
    """The resident set size of process pid in KiB (None once it is gone)."""
    try:
        with open('/proc/%d/status' % pid) as f:
            for line in f:
                if line.startswith('VmRSS:'):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def wait_for(fn, timeout=10.0, step=0.02):
    """Call fn until it returns something true; that value, or None after timeout."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        v = fn()
        if v:
            return v
        time.sleep(step)
    return None


def wait_worker_drained(prefix, lcore, timeout=10.0, reads=3):
    """Whether worker lcore drained and stopped within timeout: its backlog empty and its
    processed count unchanged over reads reads in a row, 0.2 s apart (one quiet 0.2 s was
    seen once under ASan while a remap's buckets had not all moved yet)."""
    last, still = [None], [0]

    def drained():
        r = telemetry_socket(prefix, '/rps/worker,%d' % lcore)
        w = r[0].get('/rps/worker') if r else None
        was, last[0] = last[0], w and w['processed']
        quiet = w is not None and w['backlog_depth'] == 0 and was == w['processed']
        still[0] = still[0] + 1 if quiet else 0
        return still[0] >= reads

    return wait_for(drained, timeout=timeout, step=0.2) is not None
