#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""settings_docs.py: the README's option table and the man pages' option and key lists are
generated from the settings table (lib/control/settings.c) by `dpdk-rps --help-table FORMAT`;
this puts them between their marker lines, or with --check says which file differs.

usage: settings_docs.py [--check] PATH/TO/dpdk-rps [SOURCE_ROOT]
"""
import os
import subprocess
import sys

# file, format, begin marker, end marker
BLOCKS = [
    ('README.md', 'markdown',
     '<!-- settings: dpdk-rps --help-table markdown (tools/settings_docs.py); do not edit -->',
     '<!-- /settings -->'),
    ('man/dpdk-rps.8', 'mdoc',
     '.\\" settings: dpdk-rps --help-table mdoc (tools/settings_docs.py); do not edit',
     '.\\" /settings'),
    ('man/dpdk-rps.conf.5', 'mdoc-conf',
     '.\\" settings: dpdk-rps --help-table mdoc-conf (tools/settings_docs.py); do not edit',
     '.\\" /settings'),
]


def generated(binary, fmt):
    p = subprocess.run([binary, '--help-table', fmt], capture_output=True, text=True)
    if p.returncode != 0 or not p.stdout:
        raise RuntimeError('%s --help-table %s: exit %d: %s' % (binary, fmt, p.returncode,
                                                               p.stderr))
    return p.stdout


def split(text, begin, end, path):
    """The text before the block (through its begin line), the block, the rest."""
    i = text.find(begin + '\n')
    j = text.find('\n' + end + '\n', i)
    if i < 0 or j < 0:
        raise RuntimeError('%s: no block between %r and %r' % (path, begin, end))
    i += len(begin) + 1
    return text[:i], text[i:j + 1], text[j + 1:]


def check(binary, root, names=None):
    """The files (of @names, default all) whose block differs from the generated text, each
    with its first difference."""
    bad = []
    for name, fmt, begin, end in BLOCKS:
        if names is not None and name not in names:
            continue
        path = os.path.join(root, name)
        _, block, _ = split(open(path).read(), begin, end, path)
        want = generated(binary, fmt)
        if block != want:
            a, b = block.splitlines(), want.splitlines()
            n = next((k for k in range(min(len(a), len(b))) if a[k] != b[k]),
                     min(len(a), len(b)))
            bad.append('%s: the settings block differs from dpdk-rps --help-table %s at its '
                       'line %d:\n  file:      %r\n  generated: %r' % (
                           name, fmt, n + 1, a[n] if n < len(a) else '(end)',
                           b[n] if n < len(b) else '(end)'))
    return bad


def main():
    args = sys.argv[1:]
    only_check = bool(args) and args[0] == '--check'
    if only_check:
        args = args[1:]
    if not args:
        print(__doc__)
        return 2
    binary = args[0]
    root = args[1] if len(args) > 1 else os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))
    if only_check:
        bad = check(binary, root)
        print('\n'.join(bad) if bad else 'settings blocks match the table')
        return 1 if bad else 0
    for name, fmt, begin, end in BLOCKS:
        path = os.path.join(root, name)
        head, _, tail = split(open(path).read(), begin, end, path)
        with open(path, 'w') as f:
            f.write(head + generated(binary, fmt) + tail)
    print('rewrote the settings blocks of %s' % ', '.join(b[0] for b in BLOCKS))
    return 0


if __name__ == '__main__':
    sys.exit(main())
