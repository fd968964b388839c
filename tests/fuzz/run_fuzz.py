#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""run_fuzz.py HARNESS SEEDS SECONDS: seed a corpus and run a libFuzzer harness for a bounded
time. SEEDS is a folder of real-world captures (each packet a seed: the stage harnesses), or
a list of text files joined by ':' (each file a seed, and each line of a .txt file a seed:
the control harnesses). Exit status is the harness's: non-zero on any crash, ASan/UBSan
report, leak or accounting failure."""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import seed_corpus  # noqa: E402


def main():
    exe, pcaps, secs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with tempfile.TemporaryDirectory(prefix='rps-fuzz-') as tmp:
        seeds, work = os.path.join(tmp, 'seeds'), os.path.join(tmp, 'work')
        os.makedirs(work)
        if os.path.isdir(pcaps):
            sys.argv = ['seed_corpus', pcaps, seeds]
            seed_corpus.main()
        else:
            os.makedirs(seeds)
            n = 0
            for path in pcaps.split(':'):
                data = open(path, 'rb').read()
                items = [data] + (data.splitlines() if path.endswith('.txt') else [])
                for item in items:
                    with open(os.path.join(seeds, 'seed%04d' % n), 'wb') as f:
                        f.write(item)
                    n += 1
            print('%d seeds from %s' % (n, pcaps), flush=True)
        env = dict(os.environ, UBSAN_OPTIONS='halt_on_error=1:print_stacktrace=1',
                   ASAN_OPTIONS='detect_leaks=0:abort_on_error=1')
        # libFuzzer exits 77 on a finding by default: meson's SKIP. 1 makes it a failure.
        cmd = [exe, '-max_total_time=%d' % secs, '-timeout=10', '-rss_limit_mb=4096',
               '-error_exitcode=1', '-timeout_exitcode=1',
               '-print_final_stats=1', work, seeds]
        print(' '.join(cmd), flush=True)
        return subprocess.call(cmd, env=env, cwd=tmp)


if __name__ == '__main__':
    sys.exit(main())
