#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_docs.py: the README documents every drop reason, every per-lcore counter, every
stage and every option that the code defines (read from lib/rps/rps_counters.h and from
dpdk-rps --help), so the manual cannot fall behind the code; its option table is the one the
settings table generates (dpdk-rps --help-table markdown, tools/settings_docs.py).

usage: test_docs.py PATH/TO/dpdk-rps SOURCE_ROOT
"""
import os
import re
import subprocess
import sys


def main():
    binary, root = sys.argv[1], sys.argv[2]
    readme = open(root + '/README.md').read()
    hdr = open(root + '/lib/rps/rps_counters.h').read()
    names = re.findall(r'^\s*X\(\w+, (\w+), "', hdr, re.M)          # drop reasons
    names += re.findall(r'^\s*X\((\w+), "', hdr, re.M)              # counters
    stages = hdr[hdr.index('#define RPS_STAGE_LIST'):]
    names += re.findall(r'X\([A-Z]+, (\w+)\)', stages[:stages.index('\n\n')])  # stages
    helptext = subprocess.run([binary, '--help'], capture_output=True, text=True).stdout
    opts = re.findall(r'^\s+(--[a-z0-9-]+)', helptext, re.M)
    missing = [n for n in names if '`%s`' % n not in readme and '`%s.' % n not in readme
               and ' `%s`' % n not in readme]
    missing += [o for o in opts if '`%s' % o not in readme]
    if len(names) < 30 or len(opts) < 14:
        print('test_docs: parsed only %d names and %d options: parser broken' % (
            len(names), len(opts)))
        return 1
    if missing:
        print('test_docs: not in README.md: %s' % ', '.join(missing))
        return 1
    sys.path.insert(0, os.path.join(root, 'tools'))
    import settings_docs  # noqa: E402
    bad = settings_docs.check(binary, root, ['README.md'])
    if bad:
        print('test_docs: %s\n(run tools/settings_docs.py %s to regenerate it)' % (
            '\n'.join(bad), binary))
        return 1
    print('test_docs: %d counters/reasons/stages and %d options documented; the option '
          'table matches the settings table' % (len(names), len(opts)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
