#!/bin/sh
# bootstrap.sh: install the Debian packages dpdk-rps needs, only those missing.
# Used by the README's two commands and by .ci/run. Safe to run again.
set -eu
PKGS="gcc clang pkg-config meson ninja-build python3 libdpdk-dev dpdk dpdk-dev libnuma-dev
libcunit1-dev libpcap-dev tcpdump iproute2 libclang-rt-14-dev libinih-dev iputils-ping libsystemd-dev
libmicrohttpd-dev python3-prometheus-client curl python3-scapy mandoc tmux iperf3 ethtool"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "bootstrap: installing$missing" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	if ! command -v sudo >/dev/null 2>&1; then
		echo "bootstrap: not root and no sudo: run as root, or install as root:$missing" >&2
		exit 1
	fi
	SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
echo "bootstrap: apt-get update (refreshing the package lists)" >&2
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
