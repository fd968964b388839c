#!/bin/sh
# build-bg.sh: the clang, ASan and fuzz trees of scripts/run-tests.sh, built while the gcc
# tests run, at the lowest priority: nice 19, and (run by setsid, in a session of its own)
# its autogroup at nice 19 too, so that it takes only the CPU the tests leave (see
# run-tests.sh). Writes the number of trees that failed to build-bg.fail.
cd "$(dirname "$0")/.."
# Linux without autogroups (or a kernel that refuses it): nice 19 alone
echo 19 >/proc/self/autogroup 2>/dev/null || true
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
