#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_docs.py: the README documents every drop reason, every per-lcore counter, every
stage, every option and every /rps/ telemetry command that the code defines (read from
lib/rps/rps_counters.h, dpdk-rps --help and app/telemetry.c), so the manual cannot fall
behind the code; its option table is the one the settings table generates (dpdk-rps
--help-table markdown, tools/settings_docs.py).

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
    # every /rps/ telemetry command registered in app/telemetry.c, in the Telemetry table
    tel = open(root + '/app/observability/telemetry.c').read()
    cmds = re.findall(r'^\s*\{ "(/rps/\w+)", tel_', tel, re.M)
    table = readme[readme.index('\n## Telemetry\n'):]
    table = table[:table.index('\n\n', table.index('| command |'))]
    missing += [c for c in cmds if not re.search(r'^\| `%s[`,]' % re.escape(c), table, re.M)]
    if len(names) < 30 or len(opts) < 14 or len(cmds) < 8:
        print('test_docs: parsed only %d names, %d options and %d telemetry commands: '
              'parser broken' % (len(names), len(opts), len(cmds)))
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
    print('test_docs: %d counters/reasons/stages, %d options and %d telemetry commands '
          'documented; the option table matches the settings table' % (
              len(names), len(opts), len(cmds)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
