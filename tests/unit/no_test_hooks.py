#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""no_test_hooks.py PATH/TO/dpdk-rps: a build without -Dtest_hooks=true (the default: what a
user builds, installs or packages) carries no test hook. app/test_hooks.c is left out of it
and app.h's stubs stand in, so the binary must hold no RPS_TEST_* variable name (nothing reads
one from the environment) and none of the hooks' log lines ("test hook: ..."). Registered in
the unit suite only for builds without the hooks (tests/meson.build): the clang tree of
scripts/run-tests.sh, built with the default options, runs it."""
import sys

LEAKS = (b'RPS_TEST_', b'test hook: ')


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    path = sys.argv[1]
    data = open(path, 'rb').read()
    bad = []
    for word in LEAKS:
        at = data.find(word)
        if at >= 0:
            end = at
            while end < len(data) and end - at < 60 and 32 <= data[end] < 127:
                end += 1
            bad.append('%r at offset %d (%r)' % (word.decode(), at, data[at:end].decode()))
    if bad:
        print('FAIL: %s was built without the test hooks but carries them: %s' % (
            path, '; '.join(bad)))
        return 1
    print('%s: no test hook (%d bytes, no %s)' % (
        path, len(data), ', '.join(repr(w.decode()) for w in LEAKS)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
