#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_guides.py: the guides can be followed as written. A guide that drifts from the program
fails here.

1. Every runnable block of README.md and docs/*.md runs and exits 0. A runnable block is a
   fenced block whose info string is `sh` and has the word `runnable`:

       ```sh runnable [root] [timeout=S]

   Each runs with `bash -e` in a fresh, empty folder, with the build's programs first on PATH
   (dpdk-rps, dpdk-rps-bench, dpdk-rps-example-consumer, dpdk-rps-top: a folder of links to
   them, as an install's bin/), RPS_SRC the source tree and DPDK_RPS the dpdk-rps under test
   (scripts/try-inline.sh runs that one), for at most S seconds (default 30). As root every
   block runs in network and mount namespaces of its own (unshare; a tmpfs on /run, sysfs
   remounted): EAL's runtime folders, /run/rps, `ip netns` names and veths cannot meet
   another run's, and nothing it makes can outlive it. A block marked `root` needs root
   (namespaces, veths, /run) and is skipped without it.
   A block fails when it exits non-zero, runs past its time, leaves a process running (in
   its session), or, as root, leaves a network namespace or an interface behind. The
   failure names FILE:LINE and shows the end of the block's output and of the *.log files it
   wrote. A word in a ```sh block's info string other than these (`runable`, `timout=5`)
   is an error too, so that a misspelt mark cannot quietly take a block out of the test.
   Root without namespaces of its own (a container that may not mount): SKIP.
2. Every command line of a code block (runnable or not: the NIC examples too) that runs
   dpdk-rps, dpdk-rps-bench or dpdk-rps-example-consumer names only options their --help
   lists (the ones after `--`), and every scripts/... or tools/... file a block names exists.

usage: test_guides.py SOURCE_ROOT PATH/TO/dpdk-rps PATH/TO/dpdk-rps-bench
                      PATH/TO/dpdk-rps-example-consumer PATH/TO/dpdk-rps-top
RPSTEST_GUIDES=FILE[:LINE] runs only the runnable blocks of that file (or at that line);
RPSTEST_GUIDES_SHOW=1 prints the output of the blocks that passed too.
"""
import glob
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rpstest  # noqa: E402  (kills what a test started, at any exit)

DEFAULT_TIMEOUT = 30
# the least a working extractor finds: fewer means the parser broke, not that the guides
# got shorter
MIN_RUNNABLE = 6
MIN_COMMANDS = 20
TAIL = 40


def guide_files(root):
    return ['README.md'] + sorted(os.path.relpath(p, root)
                                  for p in glob.glob(os.path.join(root, 'docs', '*.md')))


class Block:
    def __init__(self, path, line, info, lines, fenced):
        self.path, self.line, self.info, self.lines, self.fenced = path, line, info, lines, fenced
        words = info.split()
        self.runnable = fenced and words[:1] == ['sh'] and 'runnable' in words
        self.root = 'root' in words
        self.timeout = DEFAULT_TIMEOUT
        for w in words:
            if w.startswith('timeout='):
                self.timeout = int(w.split('=', 1)[1])

    @property
    def where(self):
        return '%s:%d' % (self.path, self.line)

    @property
    def text(self):
        return '\n'.join(self.lines) + '\n'


def blocks(path, text):
    """Every code block of a markdown file: fenced (``` or ~~~) and indented (4 spaces after
    a blank line, outside a fence). Block.line is the line of the fence or the first line."""
    out = []
    lines = text.split('\n')
    i = 0
    prev_blank = True
    while i < len(lines):
        ln = lines[i]
        m = re.match(r'^( {0,3})(```+|~~~+)(.*)$', ln)
        if m:
            fence, info, start = m.group(2), m.group(3).strip(), i
            body = []
            i += 1
            while i < len(lines) and not lines[i].lstrip().startswith(fence):
                body.append(lines[i][len(m.group(1)):])
                i += 1
            out.append(Block(path, start + 1, info, body, True))
            i += 1
            prev_blank = False
            continue
        if prev_blank and ln.startswith('    ') and ln.strip():
            start, body = i, []
            while i < len(lines) and (lines[i].startswith('    ') or not lines[i].strip()):
                body.append(lines[i][4:])
                i += 1
            while body and not body[-1].strip():
                body.pop()
            out.append(Block(path, start + 1, '', body, False))
            prev_blank = True
            continue
        prev_blank = not ln.strip()
        i += 1
    return out


# --------------------------------------------------------------------------- options

def help_options(programs):
    """{program name: set of its options}, from each one's --help."""
    opts = {}
    p = subprocess.run([programs['dpdk-rps'], '--help'], capture_output=True, text=True,
                       timeout=60)
    opts['dpdk-rps'] = set(re.findall(r'^\s+(--[a-z0-9-]+)', p.stdout, re.M)) | {
        '--help', '--help-table'}
    # these two parse their options after EAL's initialisation
    for name in ('dpdk-rps-bench', 'dpdk-rps-example-consumer'):
        prefix = rpstest.unique_prefix()
        p = subprocess.run([programs[name], '--no-huge', '-m', '64', '--no-pci', '-l', '0',
                            '--file-prefix', prefix, '--log-level', 'lib.eal:error', '--',
                            '--help'], capture_output=True, text=True, timeout=60)
        rpstest.remove_runtime_dir(prefix)
        opts[name] = set(re.findall(r'^  (--[a-z0-9-]+)', p.stdout, re.M)) | {'--help'}
    return opts


def command_lines(block):
    """The block's logical lines (continuations joined, prompts taken off), each with the
    markdown line it starts on."""
    out, cur, first = [], '', None
    base = block.line + (1 if block.fenced else 0)
    for k, ln in enumerate(block.lines):
        s = ln.strip()
        if s.startswith('$ '):
            s = s[2:]
        if first is None:
            first = base + k
        if s.endswith('\\'):
            cur += s[:-1] + ' '
            continue
        out.append((first, cur + s))
        cur, first = '', None
    if cur:
        out.append((first, cur))
    return out


def split_words(line):
    try:
        lex = shlex.shlex(line, posix=True, punctuation_chars=';&|()<>')
        lex.whitespace_split = True
        lex.commenters = '#'
        return list(lex)
    except ValueError:
        return line.split()


def check_options(files_blocks, opts, root):
    """Problems with the option names and the bundled files the code blocks give, and how
    many program command lines were checked."""
    errs, seen = [], 0
    for b in files_blocks:
        for lineno, line in command_lines(b):
            where = '%s:%d' % (b.path, lineno)
            words = split_words(line)
            for w in words:
                w = w.replace('"$RPS_SRC"/', '').replace('$RPS_SRC/', '')
                if re.match(r'^(scripts|tools)/[A-Za-z0-9_.-]+$', w) and \
                        not os.path.exists(os.path.join(root, w)):
                    errs.append('%s: %s: no such file in the source tree' % (where, w))
            for k, w in enumerate(words):
                prog = os.path.basename(w.split('=')[-1])
                if prog not in opts:
                    continue
                seen += 1
                rest = words[k + 1:]
                for j, x in enumerate(rest):
                    if x in (';', '&', '&&', '|', '||', ')', '>', '<', '>>'):
                        rest = rest[:j]
                        break
                if '--' not in rest:
                    continue    # EAL options only, or a synopsis
                for x in rest[rest.index('--') + 1:]:
                    name = x.split('=')[0]
                    if re.match(r'^--[a-z]', name) and name not in opts[prog]:
                        errs.append('%s: %s: %s is not an option of %s (%s --help)' % (
                            where, line if len(line) < 100 else line[:97] + '...', name,
                            prog, prog))
    return errs, seen


# --------------------------------------------------------------------------- running

def bin_dir(tmp, programs):
    """A folder of links to the programs, as an install's bin/."""
    d = os.path.join(tmp, 'bin')
    os.mkdir(d)
    for name, path in programs.items():
        os.symlink(os.path.abspath(path), os.path.join(d, name))
    return d


# Under root, the block's own network and mount namespaces: a tmpfs on /run (EAL's runtime
# folders, /run/rps, ip netns), sysfs for the new network namespace; after it, what it left
# of namespaces and interfaces, for the runner to report.
UNSHARE = ['unshare', '--net', '--mount', '--propagation', 'private', '--']
SETUP = 'mount -t tmpfs tmpfs /run && mount -t sysfs sysfs /sys && ip link set lo up'
ISOLATE = SETUP + r''' || exit 125
bash -e "$1"
rc=$?
# a deleted namespace goes, with its veths, a moment later (the kernel's cleanup_net)
i=0
while :; do
    { ip netns list; ip -o link show | awk -F': ' '$2 != "lo" { print "interface " $2 }'; } >"$2"
    [ -s "$2" ] && [ $i -lt 30 ] || break
    i=$((i + 1))
    sleep 0.1
done
exit $rc
'''


def tail_of(text, n=TAIL):
    lines = text.rstrip('\n').split('\n')
    return '\n'.join(lines[-n:])


def run_block(b, tmp, env, is_root):
    """Run one runnable block; None if it passed, else what went wrong."""
    base = tempfile.mkdtemp(prefix='guide_', dir=tmp)
    work = os.path.join(base, 'work')
    os.mkdir(work)
    script = os.path.join(base, 'block.sh')
    with open(script, 'w') as f:
        f.write(b.text)
    left = os.path.join(base, 'left')
    env = dict(env)
    if is_root:
        cmd = UNSHARE + ['sh', '-c', ISOLATE, 'isolate', script, left]
    else:
        run = os.path.join(base, 'run')
        os.mkdir(run, 0o700)
        env['XDG_RUNTIME_DIR'] = run    # EAL's runtime folders of a user
        cmd = ['bash', '-e', script]
    out = os.path.join(base, 'output')
    t0 = time.monotonic()
    with open(out, 'w') as o:
        p = subprocess.Popen(cmd, cwd=work, env=env, stdin=subprocess.DEVNULL, stdout=o,
                             stderr=subprocess.STDOUT, start_new_session=True)
        timed_out = False
        try:
            p.wait(timeout=b.timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
    dt = time.monotonic() - t0
    problems = []
    # whatever of its process group still runs: the block left it behind (or timed out)
    still = subprocess.run(['ps', '-o', 'pid=,args=', '--sid', str(p.pid)], capture_output=True,
                           text=True).stdout.strip()
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    p.wait()
    if timed_out:
        problems.append('ran past its %d s' % b.timeout)
    elif p.returncode == 125 and is_root:
        problems.append('could not set up its namespaces (exit 125)')
    elif p.returncode != 0:
        problems.append('exit %d' % p.returncode)
    if still and not timed_out:
        problems.append('left running:\n    ' + still.replace('\n', '\n    '))
    if is_root and os.path.exists(left):
        with open(left) as f:
            leftover = f.read().strip()
        if leftover and not timed_out:
            problems.append('left behind:\n    ' + leftover.replace('\n', '\n    '))
    print('%s: %s in %.1f s' % (b.where, 'FAIL' if problems else 'ok', dt), flush=True)
    if os.environ.get('RPSTEST_GUIDES_SHOW') and not problems:
        print(open(out, errors='replace').read(), flush=True)
    if not problems:
        return None
    msg = ['%s: %s' % (b.where, '; '.join(problems)),
           '--- its output (last %d lines; block.sh line 1 is %s:%d):' % (
               TAIL, b.path, b.line + 1),
           tail_of(open(out, errors='replace').read())]
    for log in sorted(glob.glob(os.path.join(work, '*.log'))):
        msg += ['--- %s (last 15 lines):' % os.path.basename(log),
                tail_of(open(log, errors='replace').read(), 15)]
    return '\n'.join(msg)


def main():
    if len(sys.argv) != 6:
        print(__doc__)
        return 2
    root = os.path.abspath(sys.argv[1])
    programs = {'dpdk-rps': sys.argv[2], 'dpdk-rps-bench': sys.argv[3],
                'dpdk-rps-example-consumer': sys.argv[4], 'dpdk-rps-top': sys.argv[5]}
    is_root = os.geteuid() == 0
    if is_root:
        # as root the blocks run in namespaces of their own: can they here (a container
        # without the right to mount, say)?
        r = None
        if shutil.which('unshare') and shutil.which('ip'):
            r = subprocess.run(UNSHARE + ['sh', '-c', SETUP], capture_output=True, text=True)
        if r is None or r.returncode != 0:
            print('SKIP: root, but no network and mount namespaces of its own for the blocks '
                  '(unshare, ip, mount): %s' % (r.stderr.strip() if r else 'no unshare or ip'))
            return rpstest.SKIP

    all_blocks = []
    for f in guide_files(root):
        with open(os.path.join(root, f)) as fh:
            all_blocks += blocks(f, fh.read())
    runnable = [b for b in all_blocks if b.runnable]
    errs = ['%s: ```%s: %s is not a word of the mark (```sh runnable [root] [timeout=S])' % (
        b.where, b.info, w) for b in all_blocks if b.info.split()[:1] == ['sh']
        for w in b.info.split()[1:]
        if w not in ('runnable', 'root') and not re.match(r'^timeout=[0-9]+$', w)]
    if len(runnable) < MIN_RUNNABLE:
        errs.append('found only %d runnable blocks (```sh runnable): the extractor is broken'
                    % len(runnable))

    opts = help_options(programs)
    for name, s in opts.items():
        if len(s) < 5:
            errs.append('%s --help: only %d options parsed' % (name, len(s)))
    bad, ncmd = check_options(all_blocks, opts, root)
    errs += bad
    if ncmd < MIN_COMMANDS:
        errs.append('found only %d command lines of the programs in the guides: the parser '
                    'is broken' % ncmd)
    print('options: %d command lines of %s in %d code blocks of %d files checked, %d problems'
          % (ncmd, ', '.join(sorted(opts)), len(all_blocks), len(guide_files(root)), len(bad)),
          flush=True)

    only = os.environ.get('RPSTEST_GUIDES')
    if only:
        runnable = [b for b in runnable if b.where == only or b.path == only]
    env = dict(os.environ)
    skipped = ran = 0
    t0 = time.monotonic()
    with rpstest.TempDir('guides') as tmp:
        env['PATH'] = bin_dir(tmp, programs) + os.pathsep + env.get('PATH', '')
        env['RPS_SRC'] = root
        env['DPDK_RPS'] = os.path.abspath(programs['dpdk-rps'])
        for b in runnable:
            if b.root and not is_root:
                print('%s: SKIP (needs root)' % b.where, flush=True)
                skipped += 1
                continue
            ran += 1
            e = run_block(b, tmp, env, is_root)
            if e:
                errs.append(e)
    print('blocks: %d run, %d skipped, in %.1f s' % (ran, skipped, time.monotonic() - t0))
    if errs:
        print('test_guides: FAIL\n' + '\n'.join(errs))
        return 1
    if ran == 0:
        print('SKIP: no runnable block could run here')
        return rpstest.SKIP
    print('test_guides: ok')
    return 0


if __name__ == '__main__':
    sys.exit(main())
