#!/bin/sh
# flaky.sh [-b] [-d BUILD_DIR] [-s SUITE] [-t TEST]... N: run a test suite N times in a row and
# print each test's pass rate, to find tests whose outcome depends on the machine.
#   -b        with a busy neighbour: a spinning process pinned on the last CPU all along
#   -d DIR    the build tree (default build; build-asan for the sanitizer build)
#   -s SUITE  meson suite (default integration)
#   -t TEST   only this test (repeatable), e.g. -t integration-flow-limit
# Builds nothing: run scripts/run-tests.sh (or scripts/build.sh build -Dtest_hooks=true)
# first: without the test hooks the tests that need one skip. Exits non-zero when any test
# failed at least once. The output of every failed run of a test is kept in
# DIR/meson-logs/flaky-failures.txt (overwritten at each start).
set -eu
cd "$(dirname "$0")/.."
busy=0 dir=build suite=integration tests=""
while getopts bd:s:t: o; do
	case $o in
	b) busy=1 ;;
	d) dir=$OPTARG ;;
	s) suite=$OPTARG ;;
	t) tests="$tests $OPTARG" ;;
	*) sed -n '2,11p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
n=${1:?usage: flaky.sh [-b] [-d BUILD_DIR] [-s SUITE] [-t TEST]... N}
[ -f "$dir/build.ninja" ] || { echo "flaky: $dir is not a build tree" >&2; exit 2; }
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
out=$(mktemp -d)
spin=""
if [ "$busy" = 1 ]; then
	cpu=$(($(nproc) - 1))
	taskset -c "$cpu" sh -c 'while :; do :; done' &
	spin=$!
	echo "flaky: busy loop (pid $spin) pinned on CPU $cpu" >&2
fi
trap '[ -n "$spin" ] && kill "$spin" 2>/dev/null; rm -rf "$out"' EXIT INT TERM
fails="$dir/meson-logs/flaky-failures.txt"
mkdir -p "$dir/meson-logs"
: >"$fails"
i=1
while [ "$i" -le "$n" ]; do
	# shellcheck disable=SC2086
	meson test -C "$dir" --suite "$suite" --num-processes 2 --timeout-multiplier 3 \
		$tests >/dev/null 2>&1 || true
	cp "$dir/meson-logs/testlog.json" "$out/run$i.json"
	python3 - "$out/run$i.json" "$i" >>"$fails" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    t = json.loads(line)
    if t['result'] not in ('OK', 'EXPECTEDFAIL', 'SKIP'):
        print('===== run %s: %s: %s\n%s\n%s' % (sys.argv[2], t['name'], t['result'],
                                              t.get('stdout', '')[-6000:],
                                              t.get('stderr', '')[-2000:]))
PY
	echo "flaky: run $i of $n done" >&2
	i=$((i + 1))
done
python3 - "$out" "$n" "$dir" "$busy" <<'PY'
import glob, json, os, sys
out, n, d, busy = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4] == '1'
tally = {}
for f in sorted(glob.glob(os.path.join(out, 'run*.json'))):
    for line in open(f):
        t = json.loads(line)
        ok, skip = t['result'] in ('OK', 'EXPECTEDFAIL'), t['result'] == 'SKIP'
        r = tally.setdefault(t['name'].split(' / ')[-1], [0, 0, 0])
        r[0 if ok else 2 if skip else 1] += 1
print('%s, %d run(s)%s' % (d, n, ', busy neighbour on one CPU' if busy else ''))
print('%-34s %6s %6s %6s' % ('test', 'pass', 'fail', 'skip'))
bad = 0
for name in sorted(tally):
    p, f, s = tally[name]
    bad += f > 0
    print('%-34s %3d/%-2d %6d %6d' % (name, p, n, f, s))
sys.exit(1 if bad else 0)
PY
