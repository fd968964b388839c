#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_man.py: the manual pages man/dpdk-rps.8, man/dpdk-rps.conf.5, man/dpdk-rps-bench.1
and man/dpdk-rps-top.1 are clean and complete, so that they cannot fall behind the code.

- `mandoc -T lint -W warning` finds nothing in any page (warnings fail; style notes,
  such as a manual referenced but not installed here, do not).
- dpdk-rps.8, as rendered, names every option `dpdk-rps --help` prints, every /rps/
  telemetry command of app/observability/telemetry.c, the signals and the exit statuses.
- dpdk-rps.conf.5, as rendered, names every key of the settings table
  (lib/control/settings.c; queueN included) and both sections; config/dpdk-rps.conf sets or
  mentions no key the parser lacks.
- The option list of dpdk-rps.8 and the key list of dpdk-rps.conf.5 are the ones the settings
  table generates (dpdk-rps --help-table mdoc|mdoc-conf, tools/settings_docs.py).
- The example of dpdk-rps.conf.5 is a file dpdk-rps accepts (a 0.2 s run on net_null).
- dpdk-rps-bench.1, as rendered, names every option and every mode `dpdk-rps-bench --help`
  lists; dpdk-rps-top.1 every option, long and short, of `tools/dpdk-rps-top --help`; both
  have an EXIT STATUS section.

usage: test_man.py PATH/TO/dpdk-rps SOURCE_ROOT PATH/TO/dpdk-rps-bench
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rpstest  # noqa: E402


def render(page):
    """The page as text: mandoc's ASCII output without its overstrike (bold, underline)."""
    p = subprocess.run(['mandoc', '-T', 'ascii', page], capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError('mandoc -T ascii %s: exit %d: %s' % (page, p.returncode, p.stderr))
    return re.sub(r'.\x08', '', p.stdout)


def lint(page):
    p = subprocess.run(['mandoc', '-T', 'lint', '-W', 'warning', page], capture_output=True,
                       text=True)
    out = (p.stdout + p.stderr).strip()
    return [] if p.returncode == 0 and not out else [
        'mandoc -T lint -W warning %s: exit %d\n%s' % (page, p.returncode, out)]


def has_word(text, word):
    return re.search(r'(?<![\w-])%s(?![\w-])' % re.escape(word), text) is not None


def example_config(text):
    """The indented block of the EXAMPLES section of the rendered dpdk-rps.conf.5."""
    sec = text[text.index('\nEXAMPLES\n'):]
    sec = sec[:re.search(r'\n[A-Z][A-Z ]+\n', sec[10:]).start() + 10]
    lines = [ln.strip() for ln in sec.splitlines()[2:]]
    return '\n'.join(lines).strip() + '\n'


def bench_help(bench):
    """dpdk-rps-bench --help (after EAL's initialisation, which it needs first): its options
    and its modes."""
    prefix = rpstest.unique_prefix()
    p = subprocess.run([bench, '--no-huge', '-m', '64', '--no-pci', '-l', '0',
                        '--file-prefix', prefix, '--log-level', 'lib.eal:error', '--',
                        '--help'], capture_output=True, text=True, timeout=60)
    text = p.stdout[p.stdout.find('Usage: dpdk-rps-bench'):]
    if p.returncode != 0 or 'Options:' not in text:
        raise RuntimeError('dpdk-rps-bench --help: exit %d\n%s%s' % (p.returncode, p.stdout,
                                                                     p.stderr))
    opts = re.findall(r'^  (--[a-z0-9-]+)', text, re.M)
    modes = re.findall(r'^ {20,}([a-z0-9_]+) {2,}\S', text, re.M)
    return opts, modes


def top_help(top):
    """tools/dpdk-rps-top --help: every option, short and long."""
    p = subprocess.run([sys.executable, top, '--help'], capture_output=True, text=True,
                       timeout=60)
    if p.returncode != 0:
        raise RuntimeError('dpdk-rps-top --help: exit %d\n%s' % (p.returncode, p.stderr))
    text = p.stdout[p.stdout.index('\noptions:\n'):]
    return re.findall(r'(?:^  |, )(--?[a-z0-9][a-z0-9-]*)', text, re.M)


def check_tools(root, bench):
    """The errors of dpdk-rps-bench.1 and dpdk-rps-top.1: lint, and what each tool's --help
    lists that its page does not name."""
    errs = []
    for page, (opts, extra), least in (
            ('dpdk-rps-bench.1', bench_help(bench), 20),
            ('dpdk-rps-top.1', (top_help(os.path.join(root, 'tools', 'dpdk-rps-top')), []),
             10)):
        path = os.path.join(root, 'man', page)
        errs += lint(path)
        text = render(path)
        if len(opts) + len(extra) < least:
            errs.append('%s: parsed only %d options and %d modes from --help: parser broken'
                        % (page, len(opts), len(extra)))
        missing = [w for w in opts + extra if not has_word(text, w)]
        missing += [w for w in ('EXIT STATUS', 'SEE ALSO') if '\n%s\n' % w not in text]
        if missing:
            errs.append('not in %s: %s' % (page, ', '.join(missing)))
    return errs


def main():
    binary, root, bench = sys.argv[1], sys.argv[2], sys.argv[3]
    if shutil.which('mandoc') is None:
        print('SKIP: mandoc is not installed (scripts/bootstrap.sh installs it)')
        return rpstest.SKIP
    man8 = os.path.join(root, 'man', 'dpdk-rps.8')
    man5 = os.path.join(root, 'man', 'dpdk-rps.conf.5')
    errs = lint(man8) + lint(man5) + check_tools(root, bench)
    t8, t5 = render(man8), render(man5)

    helptext = subprocess.run([binary, '--help'], capture_output=True, text=True).stdout
    opts = re.findall(r'^\s+(--[a-z0-9-]+)', helptext, re.M)
    tel = open(rpstest.telemetry_source(root)).read()
    cmds = re.findall(r'^\s*\{ "(/rps/\w+)", tel_', tel, re.M)
    cfg = open(os.path.join(root, 'lib', 'control', 'settings.c')).read()
    keys = [(None, k) for k in re.findall(r'\.key = "(\w+)"', cfg)]
    if len(opts) < 40 or len(cmds) < 7 or len(keys) < 25:
        print('test_man: parsed only %d options, %d telemetry commands, %d keys: parser '
              'broken' % (len(opts), len(cmds), len(keys)))
        return 1

    missing = [o for o in opts if not has_word(t8, o)]
    missing += [c for c in cmds if not has_word(t8, c)]
    missing += [w for w in ('SIGHUP', 'SIGINT', 'SIGTERM', 'EXIT STATUS', 'FILES')
                if w not in t8]
    exits = t8[t8.index('\nEXIT STATUS\n'):]
    missing += ['exit status %s' % n for n in '012'
                if not re.search(r'^\s+%s\s' % n, exits, re.M)]
    if missing:
        errs.append('not in dpdk-rps.8: %s' % ', '.join(missing))
    missing = [k for _, k in keys if not has_word(t5, k)]
    missing += [w for w in ('queueN', '[dataplane]', '[map]') if w not in t5]
    if missing:
        errs.append('not in dpdk-rps.conf.5: %s' % ', '.join(missing))
    sys.path.insert(0, os.path.join(root, 'tools'))
    import settings_docs  # noqa: E402
    errs += settings_docs.check(binary, root, ['man/dpdk-rps.8', 'man/dpdk-rps.conf.5'])
    known = {k for _, k in keys} | {'queue%d' % q for q in range(64)}
    example = open(os.path.join(root, 'config', 'dpdk-rps.conf')).read()
    unknown = sorted({k for k in re.findall(r'^[;#]?\s*([a-z_0-9]+)\s*=', example, re.M)}
                     - known)
    if unknown:
        errs.append('config/dpdk-rps.conf has keys the parser does not know: %s' %
                    ', '.join(unknown))
    # the example's "; live" and "; restart" notes say what the settings table says
    table = subprocess.run([binary, '--help-table', 'markdown'], capture_output=True,
                           text=True).stdout
    when = dict(re.findall(r'\| `(?:\[map\] )?([a-z_0-9]+)` \((live|restart)\) \|', table))
    notes = re.findall(r'^[;#]?\s*([a-z_0-9]+)\s*=\s*\S+\s*;\s*(live|restart)\b', example, re.M)
    wrong = ['%s (example: %s, table: %s)' % (k, w, when[k]) for k, w in notes
             if k in when and when[k] != w]
    if len(when) < 25 or len(notes) < 20:
        errs.append('parsed only %d keys of --help-table markdown and %d notes of '
                    'config/dpdk-rps.conf: parser broken' % (len(when), len(notes)))
    if wrong:
        errs.append('config/dpdk-rps.conf says live/restart unlike the settings table: %s' %
                    ', '.join(wrong))

    with tempfile.TemporaryDirectory(prefix='rps-man-') as tmp:
        conf = os.path.join(tmp, 'example.conf')
        with open(conf, 'w') as f:
            f.write(example_config(t5))
        prefix = rpstest.unique_prefix()
        r = rpstest.run_rps(binary, rpstest.eal_args(prefix, lcores='0@0,(1-3)@1',
                                                      vdevs=['net_null0'], mem_mb=256),
                            ['--config', conf, '--duration', '0.2'], timeout=60,
                            prefix=prefix)
        if r.rc != 0:
            errs.append("dpdk-rps.conf.5's example is refused:\n%s\n%s" % (
                open(conf).read(), r.describe()))

    if errs:
        print('FAIL:\n' + '\n'.join(errs))
        return 1
    print('test_man: the four pages lint clean; dpdk-rps.8 has %d options and %d telemetry '
          'commands, dpdk-rps.conf.5 %d keys; its example runs; dpdk-rps-bench.1 and '
          'dpdk-rps-top.1 name every option of their --help' % (len(opts), len(cmds),
                                                                len(keys)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
