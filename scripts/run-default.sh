#!/bin/sh
# run-default.sh: set up, build, and run dpdk-rps on its embedded default: the bundled
# multi-flow capture replayed in a loop through net_pcap, the live table every second,
# until Ctrl-C. Extra arguments are passed to dpdk-rps after "--".
set -eu
cd "$(dirname "$0")/.."
sh scripts/bootstrap.sh
# a build as a user makes it: without the test hooks (scripts/run-tests.sh turns them on)
sh scripts/build.sh build -Dtest_hooks=false
cap="$PWD/build/tools/default.pcap"
# Hugepages when some are free and mounted, otherwise plain memory.
mem="--no-huge -m 512"
if [ "$(awk '/HugePages_Free/ {print $2}' /proc/meminfo)" -gt 0 ] 2>/dev/null &&
	grep -q hugetlbfs /proc/mounts; then
	mem="-m 512"
fi
# Three lcores: RX on the first CPU, two workers (sharing the second CPU on a 2-core box).
if [ "$(nproc)" -ge 3 ]; then lcores="-l 0-2"; else lcores="--lcores 0@0,(1-2)@1"; fi
# shellcheck disable=SC2086
exec build/app/dpdk-rps $mem --no-pci --file-prefix rps-default $lcores \
	--vdev "net_pcap0,rx_pcap=$cap,infinite_rx=1" -- --map 0x6 --stats-interval 1 "$@"
