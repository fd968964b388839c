#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""settings_docs.py: the option and key tables of docs/configuration.md and the man pages'
option and key lists are generated from the settings table (lib/control/settings.c) by
`dpdk-rps --help-table FORMAT`; this puts them between their marker lines, or with --check says
which file differs.

In a markdown file, the table's links are made to work from where the file is: a link to a
section (`(#hashes)`) points at the guide under docs/ that has that heading (tools/doclinks.py),
and a path (`(docs/benchmarks.md#handoff-tax)`, written from the source root) is made
relative to the file. The key table ("markdown-keys") is the option table's rows that have a
configuration key, one row per key.

usage: settings_docs.py [--check] PATH/TO/dpdk-rps [SOURCE_ROOT]
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import doclinks  # noqa: E402

# file, format, begin marker, end marker
BLOCKS = [
    ('docs/configuration.md', 'markdown',
     '<!-- settings: dpdk-rps --help-table markdown (tools/settings_docs.py); do not edit -->',
     '<!-- /settings -->'),
    ('docs/configuration.md', 'markdown-keys',
     '<!-- settings: dpdk-rps --help-table markdown, keys (tools/settings_docs.py); do not '
     'edit -->',
     '<!-- /settings -->'),
    ('man/dpdk-rps.8', 'mdoc',
     '.\\" settings: dpdk-rps --help-table mdoc (tools/settings_docs.py); do not edit',
     '.\\" /settings'),
    ('man/dpdk-rps.conf.5', 'mdoc-conf',
     '.\\" settings: dpdk-rps --help-table mdoc-conf (tools/settings_docs.py); do not edit',
     '.\\" /settings'),
]


def help_table(binary, fmt):
    p = subprocess.run([binary, '--help-table', fmt], capture_output=True, text=True)
    if p.returncode != 0 or not p.stdout:
        raise RuntimeError('%s --help-table %s: exit %d: %s' % (binary, fmt, p.returncode,
                                                               p.stderr))
    return p.stdout


def cells(row):
    """The cells of a markdown table row (an escaped \\| stays in its cell)."""
    return [c.strip() for c in re.split(r'(?<!\\)\|', row.strip())[1:-1]]


def key_table(markdown):
    """One row per configuration key of the option table: key, section, live or restart, the
    option, the default."""
    out = ['| key | section | applied | option | default |', '|---|---|---|---|---|']
    for row in markdown.splitlines()[2:]:
        opt, key, default = cells(row)[:3]
        m = re.match(r'^`(?:\[(\w+)\] )?(\w+)` \((live|restart)\)$', key)
        if not key:
            continue
        if not m:
            raise RuntimeError('--help-table markdown: cannot read the key cell %r' % key)
        out.append('| `%s` | `[%s]` | %s | %s | %s |' % (
            m.group(2), m.group(1) or 'dataplane', m.group(3), opt, default))
    return '\n'.join(out) + '\n'


def relink(text, root, name):
    """@text's links made to work from the markdown file @name: a section link to the doc
    under docs/ (or README.md) that has the heading, a path from the source root made
    relative to @name's folder. A section no doc has stays as it is (and the docs test's
    link check fails on it)."""
    here = os.path.dirname(name)
    found = {}
    for doc in doclinks.doc_files(root):
        for a in doclinks.anchors(open(os.path.join(root, doc)).read()):
            found.setdefault(a, doc)
    own = doclinks.anchors(open(os.path.join(root, name)).read())

    def fix(m):
        target = m.group(2)
        if re.match(r'^[a-z][a-z0-9+.-]*:', target):
            return m.group(0)
        path, _, anchor = target.partition('#')
        if not path:
            if anchor in own or anchor not in found:
                return m.group(0)
            path = found[anchor]
        path = os.path.relpath(path, here or '.')
        return '[%s](%s%s)' % (m.group(1), path, '#' + anchor if anchor else '')
    return doclinks.LINK.sub(fix, text)


def generated(binary, fmt, root=None, name=None):
    """The block of file @name (relative to @root) in format @fmt."""
    if fmt == 'markdown-keys':
        return key_table(help_table(binary, 'markdown'))
    text = help_table(binary, fmt)
    if name is not None and name.endswith('.md'):
        text = relink(text, root, name)
    return text


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
        want = generated(binary, fmt, root, name)
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
    if not args or args[0].startswith('-'):
        print(__doc__)
        return 2
    binary = args[0]
    root = args[1] if len(args) > 1 else os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))
    if only_check:
        bad = check(binary, root)
        print('\n'.join(bad) if bad else 'settings blocks match the table')
        return 1 if bad else 0
    if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        print('settings_docs.py: %s: not an executable dpdk-rps\n%s' % (binary, __doc__))
        return 2
    for name, fmt, begin, end in BLOCKS:
        path = os.path.join(root, name)
        head, _, tail = split(open(path).read(), begin, end, path)
        text = head + generated(binary, fmt, root, name) + tail  # before the file is opened:
        with open(path, 'w') as f:                               # a failure leaves it whole
            f.write(text)
    print('rewrote the settings blocks of %s' % ', '.join(sorted({b[0] for b in BLOCKS})))
    return 0


if __name__ == '__main__':
    sys.exit(main())
