#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_docs.py: the guides under docs/ document what the code defines, their generated parts
are in sync, and every link between them resolves, so the docs cannot fall behind the code.

- docs/operations.md's Counters section names every drop reason and per-lcore counter
  (lib/rps/rps_counters.h); docs/design.md's Stages table every stage.
- docs/configuration.md names every option of `dpdk-rps --help`, and its option and key
  tables are the ones the settings table generates (dpdk-rps --help-table markdown,
  tools/settings_docs.py).
- docs/telemetry.md's command table has a row for every /rps/ command registered in the
  program's telemetry.c.
- Every relative link of README.md and docs/*.md leads to a file that exists, and every
  #anchor to a heading of it (tools/doclinks.py).
- README.md is a front page: at most 300 lines.
- README.md, docs/ and the man pages name no issue numbers and have no "Not yet" sections;
  each guide (GUIDES) ends with a "## Limits" section.

usage: test_docs.py PATH/TO/dpdk-rps SOURCE_ROOT
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rpstest  # noqa: E402

README_MAX_LINES = 300
# the guides a user follows: each ends with its Limits
GUIDES = ['docs/user-guide.md', 'docs/inline.md', 'docs/consumers.md', 'docs/rules.md',
          'docs/tuning.md']


def section(text, heading, path):
    """The part of @text from the line @heading to the next heading of the same level."""
    level = heading.split(' ')[0]
    m = re.search(r'^%s$' % re.escape(heading), text, re.M)
    if m is None:
        raise RuntimeError('%s: no section %r' % (path, heading))
    rest = text[m.end():]
    n = re.search(r'^%s ' % level, rest, re.M)
    return rest[:n.start()] if n else rest


def mentions(text, name):
    return '`%s`' % name in text or '`%s.' % name in text


# What tel_config.c's secrets_visible() does, as every doc that says it words it.
SECRETS_RULE = 'closed to group and others'


def secrets_rule(conf, security, keys):
    """The docs that say when /rps/config shows the jhash seed and the Toeplitz key say the
    same: to the owner, while EAL's runtime directory is closed to group and others, `hidden`
    otherwise. Returns the errors."""
    errs = []
    said = {}
    for opt in ('--hash-seed', '--rss-key'):
        row = re.search(r'^\| `%s [^\n]*' % opt, conf, re.M)
        said['docs/configuration.md, the %s row' % opt] = row.group(0) if row else ''
    para = [p for p in security.split('\n\n') if 'secret' in p and '/rps/config' in p]
    said['docs/security.md, where it says /rps/config shows the secrets'] = '\n'.join(para)
    said['docs/steering-keys.md'] = keys
    for where, text in said.items():
        flat = ' '.join(text.split())
        if not ('`/rps/config`' in flat and SECRETS_RULE in flat and '`hidden`' in flat):
            errs.append('%s does not say when /rps/config shows the secrets as the others '
                        'do ("%s", `hidden` otherwise)' % (where, SECRETS_RULE))
    return errs


def main():
    binary, root = sys.argv[1], sys.argv[2]

    def read(name):
        return open(os.path.join(root, name)).read()

    hdr = read('lib/rps/rps_counters.h')
    counters = re.findall(r'^\s*X\(\w+, (\w+), "', hdr, re.M)          # drop reasons
    counters += re.findall(r'^\s*X\((\w+), "', hdr, re.M)              # counters
    stages = hdr[hdr.index('#define RPS_STAGE_LIST'):]
    stages = re.findall(r'X\([A-Z]+, (\w+)\)', stages[:stages.index('\n\n')])
    helptext = subprocess.run([binary, '--help'], capture_output=True, text=True).stdout
    opts = re.findall(r'^\s+(--[a-z0-9-]+)', helptext, re.M)
    cmds = re.findall(r'^\s*\{ "(/rps/\w+)", tel_', open(rpstest.telemetry_source(root)).read(), re.M)
    if len(counters) < 30 or len(stages) < 6 or len(opts) < 14 or len(cmds) < 8:
        print('test_docs: parsed only %d counters and reasons, %d stages, %d options and %d '
              'telemetry commands: parser broken' % (len(counters), len(stages), len(opts),
                                                      len(cmds)))
        return 1

    errs = []
    ops = section(read('docs/operations.md'), '## Counters', 'docs/operations.md')
    missing = [n for n in counters if not mentions(ops, n)]
    if missing:
        errs.append('not in the Counters section of docs/operations.md: %s' %
                    ', '.join(missing))
    design = section(read('docs/design.md'), '## Stages', 'docs/design.md')
    missing = [s for s in stages if not re.search(r'^\| `%s` \|' % s, design, re.M)]
    if missing:
        errs.append('not in the Stages table of docs/design.md: %s' % ', '.join(missing))
    # the application context's parts (struct rps_app in app/app.h): a row each in the
    # "Who writes what" table, which says who writes it and how its readers synchronise
    app_h = read('app/app.h')
    body = app_h[app_h.index('struct rps_app {'):]
    parts = re.findall(r'^\tstruct rps_app_\w+ (\w+);', body[:body.index('\n};')], re.M)
    who = section(read('docs/design.md'), '## Who writes what', 'docs/design.md')
    missing = [p for p in parts if '(`%s`,' % p not in who]
    if len(parts) < 8 or missing:
        errs.append('parts of struct rps_app (app/app.h) not in the "Who writes what" table '
                    'of docs/design.md: %s (%d parsed)' % (', '.join(missing), len(parts)))
    conf = read('docs/configuration.md')
    missing = [o for o in opts if '`%s' % o not in conf]
    if missing:
        errs.append('not in docs/configuration.md: %s' % ', '.join(missing))
    # when /rps/config shows the steering secrets: the same rule wherever the docs say it
    # (issue 38: configuration.md said the key was never printed, security.md that
    # /rps/config shows it when the runtime directory is closed to others)
    errs += secrets_rule(conf, read('docs/security.md'), read('docs/steering-keys.md'))
    tel = section(read('docs/telemetry.md'), '## Commands', 'docs/telemetry.md')
    missing = [c for c in cmds if not re.search(r'^\| `%s[`,]' % re.escape(c), tel, re.M)]
    if missing:
        errs.append('not in the command table of docs/telemetry.md: %s' % ', '.join(missing))

    sys.path.insert(0, os.path.join(root, 'tools'))
    import settings_docs  # noqa: E402
    import doclinks  # noqa: E402
    bad = settings_docs.check(binary, root, ['docs/configuration.md'])
    if bad:
        errs.append('%s\n(run tools/settings_docs.py %s to regenerate it)' % (
            '\n'.join(bad), binary))
    files = doclinks.doc_files(root)
    nlinks = sum(len(doclinks.links(read(f))) for f in files)
    if nlinks < 50:
        errs.append('found only %d links in %d files: the link parser is broken' % (
            nlinks, len(files)))
    bad = doclinks.broken(root, files)
    if bad:
        errs.append('links that lead nowhere:\n  %s' % '\n  '.join(bad))
    lines = read('README.md').count('\n')
    if lines > README_MAX_LINES:
        errs.append('README.md has %d lines: the front page keeps to %d, the rest goes in '
                    'a guide under docs/' % (lines, README_MAX_LINES))
    # the pages speak of the product: no issue numbers, no "Not yet"; each guide ends with
    # what it does not do
    pages = files + [os.path.join('man', m) for m in sorted(os.listdir(os.path.join(root, 'man')))
                     if re.match(r'.*\.[0-9]$', m)]
    for f in pages:
        for n, line in enumerate(read(f).splitlines(), 1):
            if re.search(r'\bissues?\s+#?[0-9]+|^#+ Not yet', line, re.I):
                errs.append('%s:%d: speaks of the tracker, not the product: %s' % (
                    f, n, line.strip()[:100]))
    for g in GUIDES:
        heads = re.findall(r'^## .*$', read(g), re.M)
        if not heads or heads[-1] != '## Limits':
            errs.append('%s: a guide ends with "## Limits" (its last section is %r)' % (
                g, heads[-1] if heads else None))

    if errs:
        print('test_docs: FAIL\n' + '\n'.join(errs))
        return 1
    print('test_docs: %d counters and reasons, %d stages, %d options and %d telemetry '
          'commands documented; the option and key tables match the settings table; %d links '
          'in %d files resolve; README.md %d lines' % (
              len(counters), len(stages), len(opts), len(cmds), nlinks, len(files), lines))
    return 0


if __name__ == '__main__':
    sys.exit(main())
