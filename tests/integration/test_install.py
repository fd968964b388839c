#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_install.py: `meson install` into a DESTDIR gives a working installation.

- Every file is where the build options say: bin/dpdk-rps, bin/dpdk-rps-bench and
  bin/dpdk-rps-top (executable; it answers --help), the man
  pages, <sysconfdir>/dpdk-rps/dpdk-rps.conf, the systemd unit dpdk-rps@.service,
  librps (shared and static), its headers under include/rps/ and the pkg-config file rps.pc.
- A build with the default options (no -Dtest_hooks=true) installs a dpdk-rps with no
  RPS_TEST_* name in it.
- The installed dpdk-rps replays the bundled capture (the README's quick start, once rather
  than in a loop) with the installed example configuration: exit 0, every packet of the
  capture received, rx_packets == processed + sum(dropped). The installed bench answers
  --help.
- The installed unit is Type=notify, reloads with SIGHUP, reads
  <sysconfdir>/dpdk-rps/%i.conf, starts the installed binary and is sandboxed
  (integration-systemd-unit runs systemd-analyze verify and security on it).
- examples/embed/ builds with its Makefile against the installed tree (PKG_CONFIG_PATH,
  -Wall -Wextra -Werror), links the installed librps.so and runs: every packet on the worker
  its hash names, both directions of each flow together.

usage: test_install.py PATH/TO/build PATH/TO/default.pcap SOURCE_ROOT
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rpstest  # noqa: E402


def options(build):
    p = subprocess.run(['meson', 'introspect', build, '--buildoptions'], capture_output=True,
                       text=True, check=True)
    return {o['name']: o['value'] for o in json.loads(p.stdout)}


def under(dest, prefix, path):
    """Where PATH (relative to prefix, or absolute) of an install into DEST lies."""
    return os.path.join(dest, os.path.join(prefix, path).lstrip('/'))


def check_unit(unit, sysconfdir, bindir, errs, notes):
    text = open(unit).read()
    for want in ('Type=notify', 'ExecReload=/bin/kill -HUP $MAINPID',
                 'ExecStart=%s/dpdk-rps ' % bindir,
                 '--config %s/dpdk-rps/%%i.conf' % sysconfdir, 'NoNewPrivileges=yes',
                 'ProtectSystem=strict', 'ProtectHome=yes', 'PrivateTmp=yes',
                 'CapabilityBoundingSet=', 'RuntimeDirectory=dpdk/dpdk-rps-%i'):
        if want not in text:
            errs.append('%s: no "%s"' % (unit, want))
    notes.append('unit: the sandbox in place (systemd-analyze: integration-systemd-unit)')


def build_embed(src, dest_prefix, libdir, tmp, errs):
    """examples/embed with its Makefile against the installed rps.pc; returns its output."""
    pcdir = os.path.join(libdir, 'pkgconfig')
    pc = open(os.path.join(pcdir, 'rps.pc')).read()
    m = re.search(r'^prefix=(.*)$', pc, re.M)
    if m and not m.group(1).startswith('${pcfiledir}'):
        # a build tree configured before pkgconfig.relocatable was the default: point a copy
        # of the file at the DESTDIR (the installed file says where it will be, not is)
        pcdir = os.path.join(tmp, 'pkgconfig')
        os.makedirs(pcdir)
        with open(os.path.join(pcdir, 'rps.pc'), 'w') as f:
            f.write(pc.replace('prefix=' + m.group(1), 'prefix=' + dest_prefix, 1))
    work = os.path.join(tmp, 'embed')
    os.makedirs(work)
    for f in ('embed.c', 'Makefile'):
        shutil.copy(os.path.join(src, 'examples', 'embed', f), work)
    env = dict(os.environ, PKG_CONFIG_PATH=pcdir)
    p = subprocess.run(['make', '-C', work], capture_output=True, text=True, env=env,
                       timeout=120)
    if p.returncode != 0:
        errs.append('examples/embed: make failed (%d)\n%s%s' % (p.returncode, p.stdout,
                                                                 p.stderr[-3000:]))
        return None
    env['LD_LIBRARY_PATH'] = libdir
    if 'address' in os.environ.get('RPSTEST_SANITIZE', 'none'):
        # the installed librps of an ASan build needs the ASan runtime loaded first
        asan = subprocess.run(['gcc', '-print-file-name=libasan.so'], capture_output=True,
                              text=True).stdout.strip()
        env['LD_PRELOAD'] = asan
    ldd = subprocess.run(['ldd', os.path.join(work, 'embed')], capture_output=True, text=True,
                         env=env).stdout
    lib = re.search(r'librps\.so\.\d+ => (\S+)', ldd)
    if not lib or not os.path.realpath(lib.group(1)).startswith(os.path.realpath(libdir)):
        errs.append('examples/embed does not link the installed librps.so:\n%s' % ldd)
    p = subprocess.run([os.path.join(work, 'embed')], capture_output=True, text=True, env=env,
                       timeout=60)
    flows = len(re.findall(r'^flow \d+ ', p.stdout, re.M))
    if p.returncode != 0 or flows != 12 or '\nok: ' not in p.stdout:
        errs.append('examples/embed: exit %d, %d flow lines\n%s%s' % (
            p.returncode, flows, p.stdout, p.stderr[-2000:]))
        return None
    return p.stdout


def main():
    build, pcap, src = (os.path.abspath(a) for a in sys.argv[1:4])
    opt = options(build)
    prefix = opt['prefix']
    errs, notes = [], []
    with tempfile.TemporaryDirectory(prefix='rps-install-') as tmp:
        dest = os.path.join(tmp, 'dest')
        p = subprocess.run(['meson', 'install', '-C', build, '--destdir', dest, '--no-rebuild',
                            '--quiet'], capture_output=True, text=True, timeout=300)
        if p.returncode != 0:
            print('FAIL: meson install: exit %d\n%s%s' % (p.returncode, p.stdout, p.stderr))
            return 1
        bindir = under(dest, prefix, opt['bindir'])
        libdir = under(dest, prefix, opt['libdir'])
        sysconf = os.path.join(prefix, opt['sysconfdir'])
        unitdir = opt['systemdunitdir'] or os.path.join(prefix, 'lib/systemd/system')
        files = {
            'binary': os.path.join(bindir, 'dpdk-rps'),
            'bench': os.path.join(bindir, 'dpdk-rps-bench'),
            'top': os.path.join(bindir, 'dpdk-rps-top'),
            'man8': under(dest, prefix, os.path.join(opt['mandir'], 'man8', 'dpdk-rps.8')),
            'man5': under(dest, prefix, os.path.join(opt['mandir'], 'man5', 'dpdk-rps.conf.5')),
            'config': under(dest, sysconf, 'dpdk-rps/dpdk-rps.conf'),
            'unit': under(dest, unitdir, 'dpdk-rps@.service'),
            'shared lib': os.path.join(libdir, 'librps.so'),
            'static lib': os.path.join(libdir, 'librps.a'),
            'header': under(dest, prefix, os.path.join(opt['includedir'], 'rps', 'rps_steer.h')),
            'pkg-config': os.path.join(libdir, 'pkgconfig', 'rps.pc'),
        }
        missing = ['%s (%s)' % (k, os.path.relpath(v, dest)) for k, v in files.items()
                   if not os.path.exists(v)]
        if missing:
            print('FAIL: not installed: %s' % ', '.join(missing))
            return 1

        # the quick start, on the installed binary and the installed example configuration
        frames = len(rpstest.read_pcap(pcap, libpcap=True).records)
        rprefix = rpstest.unique_prefix()
        env = {'LD_LIBRARY_PATH': libdir}
        r = rpstest.run_rps(files['binary'],
                            rpstest.eal_args(rprefix, lcores='0@0,(1-2)@1',
                                             vdevs=[rpstest.pcap_vdev(rx=pcap)]),
                            ['--config', files['config'], '--exit-when-idle', '300'],
                            timeout=120, summary_path=os.path.join(tmp, 'summary.json'),
                            prefix=rprefix, env=env)
        if r.rc != 0 or r.summary is None:
            errs.append('installed dpdk-rps: %s\n%s' % (r.summary_error, r.describe()))
        else:
            errs += rpstest.check_accounting(r.summary)
            if r.summary['rx_packets'] != frames:
                errs.append('installed dpdk-rps received %d packets of the %d in %s' % (
                    r.summary['rx_packets'], frames, pcap))
            notes.append('installed dpdk-rps: exit 0, rx_packets %d = processed %d + dropped '
                         '%d, workers %s' % (r.summary['rx_packets'], r.summary['processed'],
                                             rpstest.dropped_total(r.summary),
                                             [w['lcore'] for w in r.summary['workers']]))
        # the test hooks: a build of the default options installs a dpdk-rps without them
        hooked = b'RPS_TEST_' in open(files['binary'], 'rb').read()
        if hooked and not opt['test_hooks']:
            errs.append('installed dpdk-rps: RPS_TEST_* in a build without -Dtest_hooks=true')
        notes.append('installed dpdk-rps: %s' % (
            'with the test hooks (this tree: -Dtest_hooks=true; a build to install leaves them '
            'off, the default)' if hooked else 'no test hook'))
        b = subprocess.run([files['bench'], '--help'], capture_output=True, text=True,
                           timeout=60, env=dict(os.environ, **env))
        if b.returncode != 0 or 'Usage' not in b.stdout + b.stderr:
            errs.append('installed dpdk-rps-bench --help: exit %d\n%s' % (b.returncode,
                                                                         b.stderr[-1000:]))
        t = subprocess.run([sys.executable, files['top'], '--help'], capture_output=True,
                           text=True, timeout=60)
        if not os.access(files['top'], os.X_OK) or t.returncode != 0 or \
                '--file-prefix' not in t.stdout:
            errs.append('installed dpdk-rps-top: mode %o, --help exit %d\n%s' % (
                os.stat(files['top']).st_mode & 0o777, t.returncode, t.stderr[-1000:]))
        check_unit(files['unit'], sysconf, os.path.join(prefix, opt['bindir']), errs, notes)
        out = build_embed(src, under(dest, prefix, ''), libdir, tmp, errs)
        if out is not None:
            notes.append('examples/embed: built against the DESTDIR, ' + out.splitlines()[-1])
    if errs:
        print('FAIL:\n' + '\n'.join(errs))
        return 1
    print('test_install: %d files installed where expected\n%s' % (len(files),
                                                                  '\n'.join(notes)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
