#!/bin/sh
# build.sh [DIR [meson options...]]: configure (once) and build dpdk-rps into DIR (default build).
set -eu
cd "$(dirname "$0")/.."
dir=${1:-build}
[ $# -gt 0 ] && shift
if [ ! -f "$dir/build.ninja" ]; then
	meson setup "$dir" "$@" >/dev/null
elif [ $# -gt 0 ]; then
	meson setup --reconfigure "$dir" "$@" >/dev/null
fi
ninja -C "$dir" >/dev/null
