#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""seed_corpus.py PCAP_DIR OUT_DIR: turn every packet of the real-world captures into a
fuzzer seed in the harness's input format (len_hi len_lo split bytes), plus seeds of
consecutive packets (fragments, both directions of a flow)."""
import glob
import os
import struct
import sys


def packets(path):
    d = open(path, 'rb').read()
    if len(d) < 24:
        return
    magic = struct.unpack_from('<I', d)[0]
    end = '<' if magic in (0xA1B2C3D4, 0xA1B23C4D) else '>'
    off = 24
    while off + 16 <= len(d):
        cl = struct.unpack_from(end + 'I', d, off + 8)[0]
        off += 16
        if cl > len(d) - off:
            return
        yield d[off:off + cl]
        off += cl


def rec(p, split=0):
    p = p[:1023]
    return struct.pack('!HB', len(p), split) + p


def main():
    src, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    n = 0
    for f in sorted(glob.glob(os.path.join(src, '*.pcap'))):
        if os.path.basename(f) == 'all-ethernet.pcap':
            continue
        pk = list(packets(f))
        for i in range(0, min(len(pk), 64), 4):
            group = pk[i:i + 4]
            data = b''.join(rec(p, (i * 7) % 60 if j == 0 else 0) for j, p in enumerate(group))
            with open(os.path.join(out, 'seed_%05d' % n), 'wb') as fh:
                fh.write(data)
            n += 1
    print('%d seeds in %s' % (n, out))


if __name__ == '__main__':
    main()
