#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_rx_cksum.py: dpdk-rps asks the port for RX checksum offload, and validate trusts it.

dpdk-rps runs on net_tap (iface rpsck-PID), a PMD that offers RX checksum offload
(IPv4, TCP, UDP) and, once it is enabled, gives every mbuf its verdict. The test writes
frames into the tap interface from the kernel side (an AF_PACKET socket: nothing is routed,
nothing leaves the interface): IPv4/UDP and IPv6/TCP with correct checksums, IPv4/UDP with a
wrong UDP checksum, IPv4 with a wrong header checksum. Then SIGINT, and:
  - the start-up log says the port verifies checksums (`checksums verified by the port: ipv4
    tcp udp`);
  - the workers counted every checksum as verified by the port (cksum_hw at least what was
    sent, cksum_sw 0): without the offload requested net_tap gives no verdict and every sum
    is made in software;
  - the bad frames are dropped by reason, exactly (bad_l4_checksum, bad_ip_checksum), the
    good ones are not, and every packet is accounted for.
The kernel may add its own frames on the interface (IPv6 router solicitations, MLD): they
count in rx and processed, not in the drops checked. First, without --rx-queues,
dpdk-rps asks for the 16 RX queues net_tap offers against one TX queue: net_tap refuses,
and the error must say --rx-queues 1. Needs root and /dev/net/tun; exits 77 (meson: skipped)
without them.

usage: test_rx_cksum.py PATH/TO/dpdk-rps
"""

import json
import os
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rpstest  # noqa: E402

SKIP = 77
IFACE = ('rpsck-%d' % os.getpid())[:15]
GOOD4, GOOD6, BAD_L4, BAD_IP = 100, 60, 20, 20
READY_TIMEOUT = 30.0
STOP_WITHIN = 15.0
SRC_MAC = bytes.fromhex('020000000001')
DST_MAC = bytes.fromhex('020000000002')
csum = rpstest.gen_traffic.inet_checksum


def ipv4_udp(i, bad_l4=False, bad_ip=False):
    src, dst = bytes([198, 18, 7, 1 + i % 200]), bytes([198, 18, 8, 1])
    payload = b'rx-cksum %5d ' % i + bytes(range(i % 40))
    udp_len = 8 + len(payload)
    ph = src + dst + struct.pack('!BBH', 0, 17, udp_len)
    udp = struct.pack('!HHHH', 1024 + i, 9, udp_len, 0) + payload
    ck = csum(ph + udp) or 0xffff
    if bad_l4:
        ck = ck ^ 0x5a5a or 1
    udp = udp[:6] + struct.pack('!H', ck) + udp[8:]
    hdr = struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + udp_len, i, 0, 64, 17, 0, src, dst)
    ipck = csum(hdr)
    if bad_ip:
        ipck ^= 0x00ff
    hdr = hdr[:10] + struct.pack('!H', ipck) + hdr[12:]
    return DST_MAC + SRC_MAC + b'\x08\x00' + hdr + udp


def ipv6_tcp(i):
    src = bytes.fromhex('20010db8000700000000000000000000')[:15] + bytes([1 + i % 200])
    dst = bytes.fromhex('20010db8000800000000000000000001')
    payload = b'rx-cksum6 %5d' % i
    tcp = struct.pack('!HHIIBBHHH', 2048 + i, 80, 1000 * i, 1, 5 << 4, 0x18, 65535, 0, 0)
    seg = tcp + payload
    ph = src + dst + struct.pack('!IxxxB', len(seg), 6)
    ck = csum(ph + seg)
    seg = seg[:16] + struct.pack('!H', ck) + seg[18:]
    hdr = struct.pack('!IHBB', 6 << 28, len(seg), 6, 64) + src + dst
    return DST_MAC + SRC_MAC + b'\x86\xdd' + hdr + seg


def frames():
    out = [ipv4_udp(i) for i in range(GOOD4)]
    out += [ipv6_tcp(i) for i in range(GOOD6)]
    out += [ipv4_udp(1000 + i, bad_l4=True) for i in range(BAD_L4)]
    out += [ipv4_udp(2000 + i, bad_ip=True) for i in range(BAD_IP)]
    return out


def wait_link(iface, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with open('/sys/class/net/%s/operstate' % iface) as f:
                if f.read().strip() in ('up', 'unknown'):
                    return True
        except OSError:
            pass
        time.sleep(0.05)
    return False


def main():
    binary = rpstest.binary_from_argv()
    if rpstest.tap_skip():
        return SKIP
    F = rpstest.Failures('test_rx_cksum')
    prefix = rpstest.unique_prefix()
    proc = None
    with rpstest.TempDir('rxcksum') as tmp:
        summary_path = os.path.join(tmp, 'summary.json')
        log_path = os.path.join(tmp, 'dpdk-rps.log')
        try:
            eal = rpstest.eal_args(prefix, lcores='0@0,(1-2)@1',
                                   vdevs=['net_tap0,iface=%s' % IFACE])
            # every RX queue net_tap offers (16) against one TX queue: refused, with the way out
            p = subprocess.run([binary] + eal + ['--', '--map', '0x6'], capture_output=True,
                               text=True, timeout=60, stdin=subprocess.DEVNULL)
            rpstest.remove_runtime_dir(prefix)
            F.check(p.returncode != 0 and 'try --rx-queues 1' in p.stderr,
                    'net_tap with 16 RX queues: exit %d, no --rx-queues hint: %r' % (
                        p.returncode, p.stderr[-600:]))
            # net_tap wants as many RX queues as TX queues: one of each
            app = ['--map', '0x6', '--rx-queues', '1', '--summary-json', summary_path]
            proc = rpstest.start_logged([binary] + eal + ['--'] + app, log_path)
            if not rpstest.wait_ready_log(proc, log_path, READY_TIMEOUT):
                F.fail('dpdk-rps did not start (exit %s)' % proc.poll())
                return F.report()
            if not wait_link(IFACE):
                F.fail('%s did not come up' % IFACE)
                return F.report()
            sent = frames()
            rpstest.send_on_iface(IFACE, sent)
            # the workers have taken them when processed stops growing
            time.sleep(1.0)
            rc, dt = rpstest.sigint_wait(proc, STOP_WITHIN)
            print('dpdk-rps: exit %s, %.1f s after SIGINT' % (rc, dt))
            F.check(rc == 0, 'exit %s after SIGINT, expected 0' % rc)
            with open(log_path, errors='replace') as f:
                log_text = f.read()
            F.check('checksums verified by the port: ipv4 tcp udp' in log_text,
                    'the start-up log does not say the port verifies checksums')
            if not F.check(os.path.exists(summary_path), 'no summary JSON written'):
                return F.report()
            with open(summary_path) as f:
                summ = json.load(f)
            F.extend(rpstest.check_accounting(summ), 'summary')
            tot = {k: sum(w.get(k, 0) for w in summ['workers'])
                   for k in ('cksum_hw', 'cksum_sw')}
            drops = summ.get('dropped', {})
            print('summary: rx %d processed %d dropped %s; %s' % (
                summ['rx_packets'], summ['processed'],
                {k: v for k, v in drops.items() if v}, tot), flush=True)
            F.check(summ['rx_packets'] >= len(sent), 'rx_packets %d < %d frames sent' % (
                summ['rx_packets'], len(sent)))
            # every good frame: IP and L4 verdicts; bad L4: both; bad IP: the IP one
            want_hw = 2 * (GOOD4 + BAD_L4) + GOOD6 + BAD_IP
            F.check(tot['cksum_hw'] >= want_hw, 'cksum_hw %d, expected at least %d (the port '
                    'verified every checksum)' % (tot['cksum_hw'], want_hw))
            F.check(tot['cksum_sw'] == 0, 'cksum_sw %d, expected 0 (no sum in software with '
                    'the offload on)' % tot['cksum_sw'])
            F.check(drops.get('bad_l4_checksum', 0) == BAD_L4, 'bad_l4_checksum %s, expected '
                    '%d' % (drops.get('bad_l4_checksum'), BAD_L4))
            F.check(drops.get('bad_ip_checksum', 0) == BAD_IP, 'bad_ip_checksum %s, expected '
                    '%d' % (drops.get('bad_ip_checksum'), BAD_IP))
        finally:
            rpstest.end_logged(F, proc, prefix, log_path)
    return F.report()


if __name__ == '__main__':
    sys.exit(main())
