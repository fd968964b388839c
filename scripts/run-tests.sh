#!/bin/sh
# run-tests.sh: set up, build and run every dpdk-rps test. Four builds:
#   build        gcc, -Werror, test hooks: unit + integration tests
#   build-clang  clang, -Werror, -Dcpu=generic (x86-64-v2): unit tests. Proves the code is
#                clang-clean and that nothing needs an instruction beyond the baseline: an
#                unguarded CPU-specific builtin fails this build on any CI machine. Its other
#                options are the defaults, test hooks off: unit-no-test-hooks checks that
#                such a build carries none
#   build-asan   gcc with ASan+UBSan, test hooks: unit + integration tests
#   build-fuzz   clang with libFuzzer+ASan+UBSan: each harness for FUZZ_SECONDS (16)
# Ends with "N passed, N failed, N skipped" and exits non-zero if anything failed. A test
# that cannot set up its condition here (no root for a network namespace) exits 77: SKIP,
# listed with the reason it printed.
#
# run-tests.sh --quick: for the edit loop, build/ only: its unit tests and the integration
# tests of the 'quick' suite (tests/integration/meson.build), a few minutes; same last line.
set -u
cd "$(dirname "$0")/.."
sh scripts/bootstrap.sh || { echo "bootstrap failed"; echo "0 passed, 1 failed"; exit 1; }

# 2 MiB hugepages for the integration tests' runs (tests/integration/rpstest.py): as root,
# reserve what is missing of 1024 free pages and mount a private hugetlbfs; put both back at
# the end. Not root, or RPSTEST_NO_HUGE=1: the runs use --no-huge memory (slower start-up).
HP=/sys/kernel/mm/hugepages/hugepages-2048kB
huge_nr0= huge_dir=
huge_setup() {
	[ "${RPSTEST_NO_HUGE:-0}" = 1 ] && return 0
	[ "$(id -u)" = 0 ] && [ -w "$HP/nr_hugepages" ] || return 0
	huge_nr0=$(cat "$HP/nr_hugepages")
	free=$(cat "$HP/free_hugepages")
	[ "$free" -lt 1024 ] && echo $((huge_nr0 + 1024 - free)) >"$HP/nr_hugepages" 2>/dev/null
	huge_dir=$(mktemp -d /tmp/rps-tests-huge.XXXXXX) || return 0
	if mount -t hugetlbfs -o pagesize=2M nodev "$huge_dir" 2>/dev/null; then
		export RPSTEST_HUGE_DIR="$huge_dir"
	else
		rmdir "$huge_dir"
		huge_dir=
	fi
	echo "hugepages for the tests: $(cat "$HP/free_hugepages") free${huge_dir:+, $huge_dir}"
}
huge_undo() {
	[ -n "${bg:-}" ] && kill "$bg" 2>/dev/null
	if [ -n "$huge_dir" ]; then umount "$huge_dir" && rmdir "$huge_dir"; fi
	[ -n "$huge_nr0" ] && echo "$huge_nr0" >"$HP/nr_hugepages" 2>/dev/null
	return 0
}
trap huge_undo EXIT
trap 'exit 130' INT TERM
huge_setup

DIRS="build build-clang build-asan build-fuzz"
for d in $DIRS; do rm -f "$d/meson-logs/testlog.json" "$d/meson-logs/timinglog.json"; done
fail_build=0
# each phase's start time, so that a slow CI run says where its time went
phase() { echo "== $(date -u +%T) $*"; }
phase "build (gcc)"
# The test hooks (app/test_hooks.c, inert unless an RPS_TEST_* variable is set; off by default,
# so a user's build has none) let tests make their conditions (an overloaded worker) instead
# of depending on the machine's speed.
sh scripts/build.sh build -Dtest_hooks=true || fail_build=$((fail_build + 1))
if [ "${1:-}" = "--quick" ]; then
	DIRS="build"
	[ -f build/build.ninja ] && meson test -C build --suite unit --suite quick \
		--print-errorlogs --num-processes 2
else
# The other three trees build in the background at the lowest CPU priority (nice 19) while
# the gcc tests run: those tests mostly wait (paced traffic, timers, exits), leaving about
# 60% of 2 CPUs idle, and a nice-19 compiler takes only what they leave (CFS weight 15 against
# 1024). Each tree's failure is counted in build-bg.fail, its output in build-bg.log.
rm -f build-bg.fail
(
	bgfail=0
	CC=clang nice -n 19 sh scripts/build.sh build-clang -Dcpu=generic || bgfail=$((bgfail + 1))
	nice -n 19 sh scripts/build.sh build-asan -Db_sanitize=address,undefined -Db_lundef=false \
		-Dtest_hooks=true || bgfail=$((bgfail + 1))
	# the fuzz tree: its four harnesses only (each compiles the library sources it fuzzes)
	BUILD_TARGETS="tests/fuzz/fuzz_chain tests/fuzz/fuzz_flow tests/fuzz/fuzz_config tests/fuzz/fuzz_params" \
		CC=clang nice -n 19 sh scripts/build.sh build-fuzz -Dfuzz=enabled \
		-Dfuzz_seconds="${FUZZ_SECONDS:-16}" -Db_sanitize=address,undefined \
		-Db_lundef=false || bgfail=$((bgfail + 1))
	echo "$bgfail" >build-bg.fail
) >build-bg.log 2>&1 </dev/null &
bg=$!
phase "tests: build (gcc)"
# the 'sanitizer' suite (the soak, the consumers' churn) runs in build-asan only; the
# 'timing' suite once the background builds are done (below)
[ -f build/build.ninja ] && meson test -C build --print-errorlogs --num-processes 2 \
	--no-suite sanitizer --no-suite timing
phase "waiting for the clang, ASan and fuzz builds (build-bg.log)"
wait "$bg"
cat build-bg.log
fail_build=$((fail_build + $(cat build-bg.fail 2>/dev/null || echo 3)))
phase "tests: build (gcc), the timing suite"
# what time and the kernel do (sleeping lcores, stalls, the rebalancer, Linux TCP's reorder
# counters) with no compiler beside them: the tests start dpdk-rps in sessions of their
# own, and Linux shares a CPU between sessions (autogroups) by the sessions' nice, so a
# compiler at nice 19 still took an equal share and those checks failed now and then
[ -f build/build.ninja ] && meson test -C build --print-errorlogs --num-processes 2 \
	--suite timing --logbase timinglog

# DPDK's EAL keeps some allocations until exit by design; UBSan findings are fatal.
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"

phase "tests: build-clang (unit)"
[ -f build-clang/build.ninja ] && meson test -C build-clang --suite unit --print-errorlogs
phase "tests: build-asan"
# the 'timing' and 'plain' suites (tests/integration/meson.build) run in the plain build only;
# the wake path (integration-wake) and the consumers (integration-consumers, -consumer-churn)
# are in neither
[ -f build-asan/build.ninja ] && meson test -C build-asan --print-errorlogs --num-processes 2 \
	--timeout-multiplier 3 --no-suite timing --no-suite plain
phase "tests: build-fuzz"
# each fuzzer is one single-threaded process for a fixed time: two at once on 2 CPUs
[ -f build-fuzz/build.ninja ] && meson test -C build-fuzz --no-rebuild --suite fuzz \
	--print-errorlogs --num-processes 2
fi
phase "done"

python3 - "$fail_build" $DIRS <<'PY'
import json, os, sys
passed = failed = skipped = 0
for d in sys.argv[2:]:
    log = os.path.join(d, "meson-logs", "testlog.json")
    if not os.path.exists(log):
        failed += 1
        print(f"{d}: no test log (build failed?)")
        continue
    timing = os.path.join(d, "meson-logs", "timinglog.json")  # the plain tree's timing suite
    lines = list(open(log)) + (list(open(timing)) if os.path.exists(timing) else [])
    for line in lines:
        t = json.loads(line)
        if t["result"] in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif t["result"] == "SKIP":
            skipped += 1
            why = [l for l in t.get("stdout", "").splitlines() if l.startswith("SKIP")]
            print(f"SKIPPED: {d}: {t['name']}: {why[-1] if why else 'no reason given'}")
        else:
            failed += 1
            print(f"FAILED: {d}: {t['name']} ({t['result']})")
failed += int(sys.argv[1])
print(f"{passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed else 0)
PY
