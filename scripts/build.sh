#!/bin/sh
# build.sh [DIR [meson options...]]: configure (once) and build dpdk-rps into DIR (default build).
# BUILD_TARGETS="t1 t2": build only those ninja targets (the fuzz tree needs its harnesses only).
set -eu
cd "$(dirname "$0")/.."
dir=${1:-build}
[ $# -gt 0 ] && shift
# quiet when it works; when a step fails, the end of its output (a compiler or linker error
# would otherwise go unseen in CI's log: only "build failed" would show)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
step() {
	if ! "$@" >"$log" 2>&1; then
		echo "build.sh: failed: $*" >&2
		tail -n 60 "$log" >&2
		exit 1
	fi
}
if [ ! -f "$dir/build.ninja" ]; then
	step meson setup "$dir" "$@"
elif [ $# -gt 0 ]; then
	step meson setup --reconfigure "$dir" "$@"
fi
# shellcheck disable=SC2086
step ninja -C "$dir" ${BUILD_TARGETS:-}
