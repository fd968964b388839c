#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_respond_veth.py: real tools talk to the respond stage over a veth pair.

A network namespace rpsns-PID holds one end of a veth pair (vn-PID: 198.18.0.2/24,
2001:db8::2/64); the other end (vr-PID) stays in the root namespace, where dpdk-rps reads and
writes it through net_af_packet with two queue pairs (one TX queue per worker for the
replies) and answers for 198.18.0.1 / 2001:db8::1, UDP echo on port 7. From inside the
namespace the kernel's own ARP and neighbour discovery resolve our MAC, `ping` and
`ping -6` (or, where iputils ping is not installed, an equivalent raw-socket client) must
get every echo answered, and a UDP client must get 200 datagrams back byte for byte over
IPv4 and over IPv6. Then SIGINT: exit 0, and the summary JSON must count the replies
(icmp_echo_replies, icmp6_echo_replies, udp_echo_replies exactly what was sent;
arp_replies, nd_replies at least 1), refuse nothing (refused_* 0: these are no reflector
requests; --respond-rate 0, as the client may ask faster than the default limit), drop
nothing, and account for every packet (rx_packets == processed + sum(dropped)).

Nothing leaves the pair: IPv6 is off and IPv4 forwarding is off on vr-PID, and the
namespace has no other interface than lo. The namespace and the pair are removed in every
case. Needs root and `ip netns`; exits 77 (meson: skipped) without them.

usage: test_respond_veth.py PATH/TO/dpdk-rps
"""

import array
import fcntl
import json
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rpstest  # noqa: E402

SKIP = 77
PID = os.getpid()
NS = 'rpsns-%d' % PID
VR = ('vr-%d' % PID)[:15]
VN = ('vn-%d' % PID)[:15]
SELF4, PEER4 = '198.18.0.1', '198.18.0.2'
SELF6, PEER6 = '2001:db8::1', '2001:db8::2'
ECHO_PORT = 7
PINGS = 20
DATAGRAMS = 200
READY_TIMEOUT = 30.0
STOP_WITHIN = 15.0

# The client run inside the namespace: UDP echo, and a raw-socket ping for machines without
# iputils ping. Prints one JSON object.
CLIENT = r'''
import json, os, socket, struct, sys, time

def csum(b):
    if len(b) % 2:
        b += b'\0'
    s = sum(struct.unpack('!%dH' % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff

def udp(family, addr, port, count):
    s = socket.socket(family, socket.SOCK_DGRAM)
    s.settimeout(1.0)
    ok = lost = bad = 0
    t0 = time.monotonic()
    for i in range(count):
        n = 1 + (i * 37) % 1400
        payload = (b'rps-echo %6d ' % i + os.urandom(n))[:n]
        s.sendto(payload, (addr, port))
        try:
            while True:
                data, frm = s.recvfrom(4096)
                if frm[1] == port:
                    break
        except socket.timeout:
            lost += 1
            if lost == 5:   # nothing comes back: do not wait out every datagram
                break
            continue
        if data == payload:
            ok += 1
        else:
            bad += 1
    dt = time.monotonic() - t0
    return {'sent': i + 1, 'ok': ok, 'lost': lost, 'mismatch': bad, 'seconds': dt}

def ping(family, addr, count, interval):
    v6 = family == socket.AF_INET6
    s = socket.socket(family, socket.SOCK_RAW,
                      socket.IPPROTO_ICMPV6 if v6 else socket.IPPROTO_ICMP)
    ident = os.getpid() & 0xffff
    got = 0
    for seq in range(1, count + 1):
        body = struct.pack('!HH', ident, seq) + bytes(range(56))
        t = 128 if v6 else 8
        msg = struct.pack('!BBH', t, 0, 0) + body
        if not v6:  # the kernel fills the ICMPv6 checksum itself
            msg = struct.pack('!BBH', t, 0, csum(msg)) + body
        s.sendto(msg, (addr, 0))
        deadline = time.monotonic() + 1.0
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            s.settimeout(left)
            try:
                data = s.recv(4096)
            except socket.timeout:
                break
            if not v6:
                data = data[(data[0] & 15) * 4:]
            if len(data) >= 8 and data[0] == (129 if v6 else 0) and \
               struct.unpack('!HH', data[4:8]) == (ident, seq) and data[8:] == body[4:]:
                got += 1
                break
        time.sleep(interval)
    return {'transmitted': count, 'received': got}

mode, addr = sys.argv[1], sys.argv[2]
fam = socket.AF_INET6 if ':' in addr else socket.AF_INET
if mode == 'udp':
    r = udp(fam, addr, int(sys.argv[3]), int(sys.argv[4]))
else:
    r = ping(fam, addr, int(sys.argv[3]), float(sys.argv[4]))
print(json.dumps(r))
'''


def sh(*cmd, check=True, timeout=30):
    r = subprocess.run(list(cmd), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       stdin=subprocess.DEVNULL, timeout=timeout)
    out = r.stdout.decode(errors='replace')
    if check and r.returncode != 0:
        raise RuntimeError('%s: exit %d: %s' % (' '.join(cmd), r.returncode, out.strip()))
    return r.returncode, out


def in_ns(*cmd, **kw):
    return sh('ip', 'netns', 'exec', NS, *cmd, **kw)


def sysctl(path, value):
    """Write /proc/sys/PATH (slash-separated, so interface names stay whole)."""
    with open('/proc/sys/' + path, 'w') as f:
        f.write(str(value))


def disable_tx_checksum(ifname):
    """ethtool -K IF tx off, by ioctl: a veth otherwise hands af_packet locally sent UDP
    with only the pseudo-header sum in the checksum field (CHECKSUM_PARTIAL), which the
    validate stage would rightly drop."""
    ev = array.array('I', [0x17, 0])                     # ETHTOOL_STXCSUM, off
    ifr = struct.pack('16sP', ifname.encode(), ev.buffer_info()[0]).ljust(40, b'\0')
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        fcntl.ioctl(s.fileno(), 0x8946, ifr)              # SIOCETHTOOL


def setup():
    """The namespace and the pair; raises on failure."""
    sh('ip', 'netns', 'add', NS)
    sh('ip', 'link', 'add', VR, 'type', 'veth', 'peer', 'name', VN)
    disable_tx_checksum(VN)
    # the root namespace's end: no IPv6 (no kernel chatter), never forward what arrives
    sysctl('net/ipv6/conf/%s/disable_ipv6' % VR, 1)
    sysctl('net/ipv4/conf/%s/forwarding' % VR, 0)
    sh('ip', 'link', 'set', VN, 'netns', NS)
    sh('ip', 'link', 'set', VR, 'up')
    in_ns('ip', 'link', 'set', 'lo', 'up')
    in_ns('sysctl', '-qw', 'net.ipv6.conf.%s.accept_dad=0' % VN, check=False)
    in_ns('ip', 'addr', 'add', PEER4 + '/24', 'dev', VN)
    in_ns('ip', 'addr', 'add', PEER6 + '/64', 'dev', VN, 'nodad')
    in_ns('ip', 'link', 'set', VN, 'up')


def teardown():
    sh('ip', 'netns', 'del', NS, check=False)
    sh('ip', 'link', 'del', VR, check=False)   # gone with the namespace, normally


def can_run():
    if os.geteuid() != 0:
        return 'not root'
    if shutil.which('ip') is None:
        return 'no ip command (iproute2)'
    rc, out = sh('ip', 'netns', 'list', check=False)
    if rc != 0:
        return '`ip netns` unavailable: %s' % out.strip()
    return None


def ping_tool(F, family, addr):
    """(transmitted, received) from iputils ping, or from the raw-socket client."""
    if shutil.which('ping') is not None:
        args = ['ping'] + (['-6'] if family == 6 else ['-4']) + [
            '-c', str(PINGS), '-i', '0.05', '-W', '1', addr]
        rc, out = in_ns(*args, check=False, timeout=60)
        print('$ ip netns exec %s %s\n%s' % (NS, ' '.join(args), out.strip()), flush=True)
        m = re.search(r'(\d+) packets transmitted, (\d+) (?:packets )?received', out)
        if not F.check(m is not None, 'ping -%d: no statistics line (exit %d)' % (family, rc)):
            return 0, 0
        return int(m.group(1)), int(m.group(2))
    print('note: iputils ping is not installed; using the raw-socket client', flush=True)
    rc, out = in_ns(sys.executable, '-c', CLIENT, 'ping', addr, str(PINGS), '0.05',
                    check=False, timeout=120)
    print('ping -%d (raw socket): %s' % (family, out.strip()), flush=True)
    try:
        r = json.loads(out.strip().splitlines()[-1])
    except (ValueError, IndexError):
        F.fail('ping -%d client failed (exit %d): %s' % (family, rc, out.strip()))
        return 0, 0
    return r['transmitted'], r['received']


def udp_echo(F, addr):
    rc, out = in_ns(sys.executable, '-c', CLIENT, 'udp', addr, str(ECHO_PORT),
                    str(DATAGRAMS), check=False, timeout=DATAGRAMS * 1.5 + 30)
    try:
        r = json.loads(out.strip().splitlines()[-1])
    except (ValueError, IndexError):
        F.fail('UDP client for %s failed (exit %d): %s' % (addr, rc, out.strip()))
        return 0
    rate = r['sent'] / r['seconds'] if r['seconds'] > 0 else 0.0
    print('udp echo %s: %d sent, %d echoed intact, %d lost, %d changed; %.0f requests/s '
          '(one at a time; a rough figure)' % (addr, r['sent'], r['ok'], r['lost'],
                                              r['mismatch'], rate), flush=True)
    F.check(r['ok'] == DATAGRAMS, 'udp echo %s: %d of %d datagrams came back intact '
            '(%d lost, %d changed; the client stops after 5 losses)' % (
                addr, r['ok'], DATAGRAMS, r['lost'], r['mismatch']))
    return r['sent']


def check_summary(F, s, sent):
    if not F.extend(rpstest.check_accounting(s), 'summary'):
        return
    tot = {k: sum(w.get(k, 0) for w in s['workers'])
           for k in ('arp_replies', 'icmp_echo_replies', 'icmp6_echo_replies', 'nd_replies',
                     'udp_echo_replies')}
    print('summary: rx %d processed %d tx %d dropped %d; replies %s' % (
        s['rx_packets'], s['processed'], s['tx_packets'], rpstest.dropped_total(s), tot),
        flush=True)
    F.check(len(s['workers']) == 2, '%d worker entries, expected 2' % len(s['workers']))
    F.check(s.get('config', {}).get('stages') ==
            'parse,validate,reassemble,flow,respond,output',
            'config.stages is %r' % s.get('config', {}).get('stages'))
    F.check(tot['arp_replies'] >= 1, 'arp_replies %d, expected >= 1 (the namespace had to '
            'resolve %s)' % (tot['arp_replies'], SELF4))
    F.check(tot['nd_replies'] >= 1, 'nd_replies %d, expected >= 1 (the namespace had to '
            'resolve %s)' % (tot['nd_replies'], SELF6))
    for k, n in (('icmp_echo_replies', sent['ping4']), ('icmp6_echo_replies', sent['ping6']),
                 ('udp_echo_replies', sent['udp'])):
        F.check(tot[k] == n, '%s %d, expected %d (one per request sent)' % (k, tot[k], n))
    answered = sum(tot.values())
    F.check(s['tx_packets'] >= answered, 'tx_packets %d < %d replies' % (
        s['tx_packets'], answered))
    F.check(rpstest.dropped_total(s) == 0, 'dropped %s, expected nothing on this link' % {
        k: v for k, v in s['dropped'].items() if v})
    # real tools from a unicast neighbour: nothing is a reflector request
    refused = {k: sum(w.get(k, 0) for w in s['workers'])
               for k in s['workers'][0] if k.startswith('refused_')} if s['workers'] else {}
    F.check(refused and not any(refused.values()), 'refused %s, expected none' % refused)


def on_term(signum, frame):
    raise SystemExit('killed by signal %d' % signum)


def main():
    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGHUP, on_term)
    binary = rpstest.binary_from_argv()
    why = can_run()
    if why is not None:
        print('SKIP: %s' % why)
        return SKIP
    F = rpstest.Failures('test_respond_veth')
    prefix = rpstest.unique_prefix()
    proc = None
    sent = None
    with rpstest.TempDir('respond') as tmp:
        summary_path = os.path.join(tmp, 'summary.json')
        log_path = os.path.join(tmp, 'dpdk-rps.log')
        try:
            try:
                setup()
            except (RuntimeError, OSError) as e:
                print('SKIP: cannot set up the namespace and veth pair: %s' % e)
                return SKIP
            eal = rpstest.eal_args(prefix, lcores='0@0,(1-2)@1',
                                   vdevs=['net_af_packet0,iface=%s,qpairs=2' % VR])
            app = ['--map', '0x6', '--stages', 'parse,validate,reassemble,flow,respond,output',
                   '--respond-ip', SELF4, '--respond-ip6', SELF6,
                   '--udp-echo-port', str(ECHO_PORT), '--summary-json', summary_path,
                   # the UDP client asks one at a time, faster than the default 1000
                   # replies/s on a quiet machine: no limit here (test_respond_reflect
                   # tests it)
                   '--respond-rate', '0']
            proc = rpstest.start_logged([binary] + eal + ['--'] + app, log_path)
            if not rpstest.wait_ready_log(proc, log_path, READY_TIMEOUT, settle=0.3):
                F.fail('dpdk-rps did not start (exit %s)' % proc.poll())
            else:
                sent = {}
                tx, rx = ping_tool(F, 4, SELF4)
                F.check(tx == PINGS and rx == PINGS, 'ping %s: %d of %d answered' % (
                    SELF4, rx, tx))
                sent['ping4'] = tx
                tx, rx = ping_tool(F, 6, SELF6)
                F.check(tx == PINGS and rx == PINGS, 'ping -6 %s: %d of %d answered' % (
                    SELF6, rx, tx))
                sent['ping6'] = tx
                sent['udp'] = udp_echo(F, SELF4) + udp_echo(F, SELF6)
            rc, dt = rpstest.sigint_wait(proc, STOP_WITHIN)
            print('dpdk-rps: exit %s, %.1f s after SIGINT' % (rc, dt), flush=True)
            ok = F.check(rc == 0, 'dpdk-rps exit code %s after SIGINT, expected 0' % rc)
            if ok and F.check(os.path.exists(summary_path), 'no summary JSON written'):
                with open(summary_path) as f:
                    s = json.load(f)
                if sent is not None:
                    check_summary(F, s, sent)
        finally:
            rpstest.end_logged(F, proc, prefix, log_path)
            teardown()
    return F.report()


if __name__ == '__main__':
    sys.exit(main())
