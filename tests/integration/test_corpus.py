#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_corpus.py: dpdk-rps on real-world captures, malformed ones included.

1. all-ethernet.pcap (every corpus file concatenated: 7697 records, the largest 80156 bytes,
   which net_pcap hands over as a multi-segment mbuf) through two workers, one TX file
   each: exit 0; rx_packets == 7697 (what libpcap, and so net_pcap, delivers from the file);
   rx == processed + dropped; TX files hold tx_packets == processed packets; each worker's
   file matches its processed count; every steering key in one file only, in input order;
   nothing lost but records over 65535 bytes (see corpus_run()).
   Then all-ethernet.pcap again through the full stage pipeline (and once more with respond):
   exit 0, accounting exact, every mbuf back in the pool.
2. Every other *.pcap of the corpus, one dpdk-rps process per file through the full stage
   pipeline: the same clean-run checks (rx_packets
   compared with what libpcap delivers from that file: records longer than the file's
   snaplen come out cut to it). RPSTEST_CORPUS=subset runs a fixed subset instead (every
   8th file by name plus every file with a record over 9000 bytes; RPSTEST_CORPUS=subset-b
   the other eighth, 4 files on: the two builds take one each), RPSTEST_CORPUS=quarter
   every 4th file plus those, RPSTEST_CORPUS=half every 2nd;
   RPSTEST_CORPUS_SHARD=I/N runs every Nth of those files from the Ith, part 1 in shard 0 only.

Output comparison is on the first 16128 bytes of a frame: net_pcap's pcap writer stores at
most that much of a multi-segment packet (RTE_ETH_PCAP_SNAPLEN).

usage: test_corpus.py PATH/TO/dpdk-rps CORPUS_DIR
"""

import collections
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rpstest  # noqa: E402

WORKERS = [1, 2]
LCORES = '0@0,(1-2)@1'
PMD_TX_SNAPLEN = 16128          # RTE_ETHER_MAX_JUMBO_FRAME_LEN in drivers/net/pcap
TX_MAX_FRAME = 1500 + 14 + 8   # net_pcap's MTU + Ethernet + two VLAN tags: larger frames, not parsed
                               # (--stages output), are dropped as tx_too_big
ALL = 'all-ethernet.pcap'
ALL_PACKETS = 7697


def cut(frames):
    return [f[:PMD_TX_SNAPLEN] for f in frames]


def corpus_run(F, binary, tmp, path, tag, expect_rx=None, idle_ms=300, quiet=False,
               extra=(), identity=True):
    """Run one capture through two workers; returns (ok, summary or None).

    identity: --stages output, so steering alone is checked and every frame must come out
    unchanged; otherwise the default stage pipeline runs (packets are validated, trimmed,
    reassembled, dropped with reasons) and the run must be clean: exit 0, accounting exact,
    every mbuf back in the pool, TX files holding exactly the transmitted packets."""
    name = os.path.basename(path)
    delivered = rpstest.read_pcap(path, libpcap=True).frames
    if expect_rx is None:
        expect_rx = len(delivered)
    app = ['--map', '0x6', '--tx-port', '0', '--exit-when-idle', str(idle_ms),
           '--backlog', '8192', '--hash-seed', '5'] + list(extra)
    if identity:
        app += ['--stages', 'output']
    res, tx = rpstest.run_pcap(binary, tmp, path, len(WORKERS), app, lcores=LCORES,
                               timeout=120, tag=tag)
    nfail = len(F.items)
    if res.rc is not None and res.rc < 0:
        F.fail('%s: killed by signal %d' % (name, -res.rc), res)
        return False, None
    if not F.check(res.rc == 0, '%s: exit code %s, expected 0' % (name, res.rc), res):
        return False, None
    if not F.check(res.summary is not None, '%s: %s' % (name, res.summary_error), res):
        return False, None
    s = res.summary
    if not F.extend(rpstest.check_accounting(s), name, res):
        return False, s
    F.check(s['rx_packets'] == expect_rx, '%s: rx_packets %d, expected %d (records net_pcap '
            'delivers from the file)' % (name, s['rx_packets'], expect_rx), res)
    outs, counts = {}, []
    for p in tx:
        fr = rpstest.read_pcap(p).frames if os.path.exists(p) else []
        F.check(os.path.exists(p), '%s: TX file %s missing' % (name, p))
        outs[os.path.basename(p)] = cut(fr)
        counts.append(len(fr))
    # processed = transmitted + fragments absorbed into reassembled datagrams, where a
    # packet re-fragmented to the TX port's MTU (tx_fragmented) left as tx_fragments frames
    absorbed = sum(w.get('frags_absorbed', 0) for w in s['workers'])
    refrag = sum(w.get('tx_fragmented', 0) for w in s['workers'])
    frags = sum(w.get('tx_fragments', 0) for w in s['workers'])
    F.check(sum(counts) == s['tx_packets'] == s['processed'] - absorbed - refrag + frags,
            '%s: TX files %d frames, tx_packets %d, processed %d - frags_absorbed %d - '
            'tx_fragmented %d + tx_fragments %d must be equal' % (
                name, sum(counts), s['tx_packets'], s['processed'], absorbed, refrag, frags),
            res)
    F.extend(rpstest.check_workers_vs_files(s, WORKERS, counts, field='tx_packets'), name)
    F.check(s['mempool']['in_use_at_exit'] == 0, '%s: %s mbufs not back in the pool at exit'
            % (name, s['mempool']['in_use_at_exit']), res)
    if not identity:
        if not quiet:
            print('%s (stages %s): exit 0 in %.1f s; rx %d processed %d dropped %s' % (
                name, s['config']['stages'], res.elapsed, s['rx_packets'], s['processed'],
                {k: v for k, v in s['dropped'].items() if v}), flush=True)
        return len(F.items) == nfail, s
    F.extend(rpstest.check_outputs(cut(delivered), outs,
                                   exact=rpstest.dropped_total(s) == 0), name)
    # Only records net_pcap cannot hand over intact may go missing: its RX path keeps the
    # length of a record over 65535 bytes in a uint16_t, so such an mbuf chain holds fewer
    # bytes than its pkt_len says (the program may drop it, e.g. as bad_mbuf); and frames
    # above what the TX port sends (MTU 1500 + Ethernet + two tags: not parsed here, so not
    # re-fragmented), dropped as tx_too_big. Everything else must come out; with --backlog
    # above the file's size nothing overflows.
    out_all = collections.Counter()
    for fr in outs.values():
        out_all.update(fr)
    missing = collections.Counter(cut(delivered)) - out_all
    allowed = collections.Counter(f[:PMD_TX_SNAPLEN] for f in delivered
                                  if len(f) > TX_MAX_FRAME)
    F.check(s['dropped'].get('tx_too_big', 0) <= sum(1 for f in delivered
                                                     if len(f) > TX_MAX_FRAME),
            '%s: tx_too_big %d, more than the %d frames above %d bytes' % (
                name, s['dropped'].get('tx_too_big', 0),
                sum(1 for f in delivered if len(f) > TX_MAX_FRAME), TX_MAX_FRAME))
    lost = missing - allowed
    F.check(not lost, '%s: %d records of at most 65535 bytes did not come out (sizes %s); '
            'dropped %s' % (name, sum(lost.values()), sorted(len(f) for f in lost)[:10],
                            s['dropped']), res)
    F.check(s['dropped'].get('backlog_full', 0) == 0, '%s: backlog_full %d with --backlog '
            '8192' % (name, s['dropped'].get('backlog_full', 0)))
    if not quiet:
        print('%s: exit 0 in %.1f s; rx %d processed %d tx %d dropped %s; per worker %s' % (
            name, res.elapsed, s['rx_packets'], s['processed'], s['tx_packets'],
            s['dropped'], counts), flush=True)
    return len(F.items) == nfail, s


def main():
    binary = rpstest.binary_from_argv()
    if len(sys.argv) < 3:
        sys.exit('usage: %s PATH/TO/dpdk-rps CORPUS_DIR' % sys.argv[0])
    corpus = sys.argv[2]
    if not os.path.isfile(os.path.join(corpus, ALL)):
        sys.exit('%s: no %s' % (corpus, ALL))
    F = rpstest.Failures('test_corpus')
    with rpstest.TempDir('corpus') as tmp:
        allp = os.path.join(corpus, ALL)
        F.check(len(rpstest.read_pcap(allp, libpcap=True).records) == ALL_PACKETS,
                '%s does not hold %d records' % (ALL, ALL_PACKETS))
        shard = os.environ.get('RPSTEST_CORPUS_SHARD', '0/1')
        part1 = shard.split('/')[0] == '0'
        if part1:
            corpus_run(F, binary, tmp, allp, 'all', expect_rx=ALL_PACKETS, idle_ms=500)
            corpus_run(F, binary, tmp, allp, 'allstages', expect_rx=ALL_PACKETS, idle_ms=500,
                       identity=False)
            corpus_run(F, binary, tmp, allp, 'allrespond', expect_rx=ALL_PACKETS, idle_ms=500,
                       identity=False, extra=['--stages', 'parse,validate,reassemble,flow,'
                                              'respond,output', '--respond-ip', '198.18.0.1',
                                              '--respond-ip6', '2001:db8::1',
                                              '--udp-echo-port', '7'])

        files = sorted(f for f in os.listdir(corpus) if f.endswith('.pcap') and f != ALL)
        mode = os.environ.get('RPSTEST_CORPUS', 'all')
        if mode in ('subset', 'subset-b', 'quarter', 'half'):
            big = {f for f in files if any(len(r.data) > 9000 for r in rpstest.read_pcap(
                os.path.join(corpus, f)).records)}
            every = {'subset': 8, 'subset-b': 8, 'quarter': 4, 'half': 2}[mode]
            first = 4 if mode == 'subset-b' else 0  # the other eighth: subset's and its, a quarter
            files = [f for i, f in enumerate(files) if i % every == first or f in big]
        i, n = (int(x) for x in shard.split('/'))
        files = files[i::n]
        t0 = time.monotonic()
        bad = []
        for f in files:
            # every file alone through the full default pipeline: state starts empty. The pool
            # is sized to the file (creating it is most of a short run's start-up: 16384
            # mbufs took 0.56 s of a 2.1 s run): twice the mbufs its records need (2 KiB
            # segments) plus 1024, so no file can run it dry, at least 2048
            path = os.path.join(corpus, f)
            segs = sum(max(1, -(-len(r.data) // 2048)) for r in rpstest.read_pcap(path).records)
            # --exit-when-idle 20: with the whole file in the pool and the backlog, RX comes
            # back empty only at the end of the file, so any wait finds the same end
            ok, _ = corpus_run(F, binary, tmp, path, 'one', idle_ms=20, quiet=True,
                               extra=['--mbufs', str(max(2048, 2 * segs + 1024))],
                               identity=False)
            if not ok:
                bad.append(f)
        print('%d single-file runs (%s) in %.1f s; %d failed%s' % (
            len(files), mode, time.monotonic() - t0, len(bad),
            (': ' + ', '.join(bad[:20])) if bad else ''), flush=True)
    return F.report()


if __name__ == '__main__':
    sys.exit(main())
