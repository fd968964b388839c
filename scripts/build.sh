#!/bin/sh
# build.sh [DIR [meson options...]]: configure (once) and build dpdk-rps into DIR (default build).
# BUILD_TARGETS="t1 t2": build only those ninja targets (the fuzz tree needs its harnesses only).
set -eu
cd "$(dirname "$0")/.."
dir=${1:-build}
[ $# -gt 0 ] && shift
if [ ! -f "$dir/build.ninja" ]; then
	meson setup "$dir" "$@" >/dev/null
elif [ $# -gt 0 ]; then
	meson setup --reconfigure "$dir" "$@" >/dev/null
fi
# shellcheck disable=SC2086
ninja -C "$dir" ${BUILD_TARGETS:-} >/dev/null
