#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_systemd_unit.py: dpdk-rps@.service is sandboxed, verified, and says why not more.

The unit meson configures and installs (build/systemd/dpdk-rps@.service, the file `meson
install` copies), as instance dpdk-rps@test.service with its ExecStart= pointed at the built
binary (verify checks that the binary exists):
  - `systemd-analyze verify` prints nothing and exits 0;
  - `systemd-analyze security --offline=yes` rates it at most MAX_EXPOSURE (7.3 MEDIUM
    before the sandbox), and the settings the sandbox is about are met (✓): no new
    privileges, read-only system, no home, private /tmp, no CAP_SYS_ADMIN, no exotic
    socket families, read-only kernel tunables, no @privileged system calls...;
  - every setting the rating still marks (✗) is explained in the unit's comments (the
    capability, the address family, the system call group or the setting's name);
  - EAL's runtime folder is the unit's RuntimeDirectory= (owner-only) and the one DPDK's
    tools look in for the unit's --file-prefix: /run/dpdk/dpdk-rps-%i, EAL being told
    RUNTIME_DIRECTORY=/run.
Exits 77 (meson: skipped) when systemd-analyze is not installed.

usage: test_systemd_unit.py PATH/TO/dpdk-rps@.service PATH/TO/dpdk-rps
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

SKIP = 77
MAX_EXPOSURE = 3.0
# settings of `systemd-analyze security` that must be met (✓)
MUST_PASS = [
    'NoNewPrivileges=', 'ProtectSystem=', 'ProtectHome=', 'PrivateTmp=', 'PrivateMounts=',
    'ProtectKernelTunables=', 'ProtectKernelModules=', 'ProtectKernelLogs=',
    'ProtectControlGroups=', 'ProtectClock=', 'ProtectProc=', 'RestrictRealtime=',
    'RestrictSUIDSGID=', 'LockPersonality=', 'SystemCallArchitectures=', 'UMask=',
    'CapabilityBoundingSet=~CAP_SYS_ADMIN', 'CapabilityBoundingSet=~CAP_SYS_PTRACE',
    'CapabilityBoundingSet=~CAP_(DAC_*|FOWNER|IPC_OWNER)', 'CapabilityBoundingSet=~CAP_SYS_TIME',
    'RestrictAddressFamilies=~…', 'SystemCallFilter=~@privileged', 'SystemCallFilter=~@mount',
    'SystemCallFilter=~@raw-io', 'SystemCallFilter=~@module', 'RestrictNamespaces=~user',
]


def alternatives(token):
    """'CAP_NET_(BIND_SERVICE|BROADCAST|RAW)' -> the names it stands for."""
    m = re.match(r'^(.*)\(([^)]*)\)(.*)$', token)
    if not m:
        return [token]
    return [m.group(1) + a + m.group(3) for a in m.group(2).split('|')]


def security_table(out):
    """{setting: passed} and the overall exposure from `systemd-analyze security` output."""
    rows = {}
    for line in out.splitlines():
        m = re.match(r'^([✓✗])\s+(\S+)\s', line)
        if m:
            rows[m.group(2)] = m.group(1) == '✓'
    m = re.search(r'Overall exposure level for \S+: ([0-9.]+) (\S+)', out)
    return rows, (float(m.group(1)), m.group(2)) if m else None


def explained(name, comments):
    """Whether the unit's comments name the setting marked ✗."""
    if '=~' in name:
        token = name.split('=~', 1)[1]
        return any(a in comments for a in alternatives(token))
    return any(n and n in comments for n in name.split('/'))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    unit_in, binary = (os.path.abspath(a) for a in sys.argv[1:3])
    if shutil.which('systemd-analyze') is None:
        print('SKIP: systemd-analyze not installed')
        return SKIP
    text = open(unit_in).read()
    errs = []
    with tempfile.TemporaryDirectory(prefix='rps-unit-') as tmp:
        unit = os.path.join(tmp, 'dpdk-rps@test.service')
        m = re.search(r'^ExecStart=(\S+)', text, re.M)
        if not m:
            print('FAIL: %s has no ExecStart=' % unit_in)
            return 1
        with open(unit, 'w') as f:
            f.write(text.replace(m.group(1), binary, 1))
        # --man=no: Documentation= names pages that are installed, not here
        p = subprocess.run(['systemd-analyze', 'verify', '--man=no', unit], capture_output=True,
                           text=True, timeout=60)
        out = (p.stdout + p.stderr).strip()
        if p.returncode != 0 or out:
            errs.append('systemd-analyze verify: exit %d\n%s' % (p.returncode, out))
        p = subprocess.run(['systemd-analyze', 'security', '--offline=yes', '--no-pager', unit],
                           capture_output=True, text=True, timeout=60)
        rows, overall = security_table(p.stdout)
        if overall is None:
            print('FAIL: systemd-analyze security --offline=yes: exit %d, no rating\n%s%s' % (
                p.returncode, p.stdout[-2000:], p.stderr[-2000:]))
            return 1
    print('systemd-analyze security --offline=yes: %.1f %s' % overall)
    if overall[0] > MAX_EXPOSURE:
        errs.append('exposure %.1f %s, expected at most %.1f' % (overall + (MAX_EXPOSURE,)))
    for name in MUST_PASS:
        if name not in rows:
            errs.append('%s: not in the rating (systemd-analyze renamed it?)' % name)
        elif not rows[name]:
            errs.append('%s: not met' % name)
    comments = '\n'.join(line for line in text.splitlines() if line.lstrip().startswith('#'))
    marked = sorted(n for n, ok in rows.items() if not ok)
    for name in marked:
        if not explained(name, comments):
            errs.append('%s: marked by the rating and not explained in the unit' % name)
    print('marked, explained in the unit: %s' % ', '.join(marked))

    def setting(key):
        return re.findall(r'^%s=(.*)$' % key, text, re.M)

    prefix = re.search(r'^ExecStart=.*--file-prefix (\S+)', text, re.M)
    if setting('RuntimeDirectory') != ['dpdk/%s' % (prefix.group(1) if prefix else '?')]:
        errs.append('RuntimeDirectory=%s is not EAL\'s folder dpdk/<--file-prefix> (%s)' % (
            setting('RuntimeDirectory'), prefix.group(1) if prefix else 'no --file-prefix'))
    if setting('RuntimeDirectoryMode') != ['0700']:
        errs.append('RuntimeDirectoryMode=%s, expected 0700' % setting('RuntimeDirectoryMode'))
    if 'RUNTIME_DIRECTORY=/run' not in setting('Environment'):
        errs.append('EAL is not told RUNTIME_DIRECTORY=/run (Environment=%s)' % setting(
            'Environment'))
    if errs:
        print('FAIL:\n' + '\n'.join(errs))
        return 1
    print('test_systemd_unit: verified, exposure %.1f <= %.1f' % (overall[0], MAX_EXPOSURE))
    return 0


if __name__ == '__main__':
    sys.exit(main())
