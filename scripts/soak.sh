#!/bin/sh
# soak.sh [-d BUILD_DIR] [SOAK_SECONDS [OVERLOAD_SECONDS]]: the long forms of the soak and
# sustained-overload tests (tests/integration/test_soak.py; the test suite runs 18 s and 8 s).
# Default: the ASan build (build-asan), a 600 s soak and a 300 s overload. Prints the RSS,
# latency, reload and accounting figures the README's "Reliability" section quotes.
set -eu
cd "$(dirname "$0")/.."
dir=build-asan
if [ "${1:-}" = "-d" ]; then
	dir=$2
	shift 2
fi
soak=${1:-600}
overload=${2:-300}
[ -x "$dir/app/dpdk-rps" ] || { echo "soak: build $dir first (scripts/run-tests.sh)" >&2; exit 2; }
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
rc=0
python3 tests/integration/test_soak.py "$dir/app/dpdk-rps" soak --seconds "$soak" || rc=1
python3 tests/integration/test_soak.py "$dir/app/dpdk-rps" overload --seconds "$overload" || rc=1
exit $rc
