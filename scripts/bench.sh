#!/bin/sh
# bench.sh [dpdk-rps-bench options...]: regenerate every benchmark figure and table: build,
# run dpdk-rps-bench (the steering modes side by side, K dispatchers against one, and
# single_core and e2e_stages with --recycle off and with --rx-cksum hw) and
# tools/bench_binary.py (the real binary), then draw docs/img/*.png and rewrite the generated
# part of docs/benchmarks.md (with the model of C cores, tools/bench_model.py).
# Arguments go to dpdk-rps-bench after its --json option. Environment:
#   BUILD_DIR    build directory (default build)
#   DOCS         where data/, img/ and benchmarks.md live (default docs)
#   BINARY_ARGS  options for bench_binary.py (default "--runs 5 --duration 2")
#   DISPATCHERS  K of the K-dispatchers run (default 2)
#   K_LCORES     its --lcores (default: K dispatchers and K workers, as many workers per
#                dispatcher as the one-dispatcher run has; lcore i on CPU i mod nproc, so
#                one lcore per CPU where there are CPUs enough)
# Busy-polling runs: nothing else heavy should run on the machine meanwhile.
set -eu
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
DOCS=${DOCS:-docs}
BINARY_ARGS=${BINARY_ARGS:---runs 5 --duration 2}
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

# matplotlib for the figures: Debian's, for /usr/bin/python3.
if ! /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
	echo "bench: installing python3-matplotlib" >&2
	export DEBIAN_FRONTEND=noninteractive
	$SUDO apt-get install -y -qq python3-matplotlib >/dev/null ||
		{ $SUDO apt-get update -qq && $SUDO apt-get install -y -qq python3-matplotlib >/dev/null; }
fi

sh scripts/bootstrap.sh
# what users run: without the test hooks (their checks sit in the RX and worker loops)
sh scripts/build.sh "$BUILD_DIR" -Dtest_hooks=false
bench="$BUILD_DIR/bench/dpdk-rps-bench"
if [ ! -x "$bench" ]; then
	echo "bench: $bench was not built (is bench/ in the tree and in meson.build?)" >&2
	exit 1
fi
mkdir -p "$DOCS/data" "$DOCS/img"

# 2 MiB hugepages when we can have them (a NIC dataplane runs on them: with 4 KiB pages
# every mbuf of a large pool costs a TLB miss); otherwise --no-huge, recorded in the JSON.
EAL_MEM="--no-huge -m 2048"
HUGE_FLAG=""
hp=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
if [ "$(id -u)" -eq 0 ] && [ -w "$hp" ]; then
	[ "$(cat "$hp")" -ge 1024 ] || echo 1024 > "$hp" || true
	mkdir -p /dev/hugepages
	mount | grep -q ' /dev/hugepages ' || mount -t hugetlbfs nodev /dev/hugepages || true
	if [ "$(cat "$hp")" -ge 1024 ] && mount | grep -q ' /dev/hugepages '; then
		EAL_MEM="-m 1536"
		HUGE_FLAG="--hugepages"
	fi
fi

echo "bench: $bench (steering modes side by side; EAL memory: $EAL_MEM)" >&2
# shellcheck disable=SC2086
"$bench" $EAL_MEM --no-pci --file-prefix rpsbench --lcores 0@0,1@1 \
	--log-level=lib.eal:error -- --json "$DOCS/data/bench.json" "$@"
rm -rf /var/run/dpdk/rpsbench

# K dispatchers feeding the same worker(s) (docs/benchmarks.md, "K dispatchers"), compared
# there with the one-dispatcher figures above; the model reads both.
DISPATCHERS=${DISPATCHERS:-2}
if [ -z "${K_LCORES:-}" ]; then
	ncpu=$(nproc)
	K_LCORES=""
	i=0
	while [ "$i" -lt $((2 * DISPATCHERS)) ]; do
		K_LCORES="$K_LCORES${K_LCORES:+,}$i@$((i % ncpu))"
		i=$((i + 1))
	done
fi
echo "bench: $bench --dispatchers $DISPATCHERS (lcores $K_LCORES)" >&2
# shellcheck disable=SC2086
"$bench" $EAL_MEM --no-pci --file-prefix rpsbench --lcores "$K_LCORES" \
	--log-level=lib.eal:error -- --dispatchers "$DISPATCHERS" --modes io_limit,rss,jhash,e2e_stages \
	--flows 1024 --frames 64 --latency off --handoff off --json "$DOCS/data/bench_k$DISPATCHERS.json" "$@"
rm -rf /var/run/dpdk/rpsbench

# The same cells with one setting changed (docs/benchmarks.md, "Settings compared"): the
# handoff before the return ring, and the checksum verdict a NIC with RX offload gives.
VARIANTS=""
for v in "recycle_off:--recycle off" "cksum_hw:--rx-cksum hw"; do
	name=${v%%:*}
	echo "bench: $bench ${v#*:} (single_core, e2e_stages)" >&2
	# shellcheck disable=SC2086
	"$bench" $EAL_MEM --no-pci --file-prefix rpsbench --lcores 0@0,1@1 \
		--log-level=lib.eal:error -- --modes single_core,e2e_stages --flows 1024 --frames 64 \
		--latency off --handoff off ${v#*:} --json "$DOCS/data/bench_$name.json" "$@"
	rm -rf /var/run/dpdk/rpsbench
	VARIANTS="$VARIANTS --variant $DOCS/data/bench_$name.json"
done

# Burst size sweep of the dispatchers (docs/benchmarks.md, "Burst and ring sizes").
: > "$DOCS/data/burst_sweep.txt"
for b in 16 32 64 128; do
	# shellcheck disable=SC2086
	"$bench" $EAL_MEM --no-pci --file-prefix rpsbench --lcores 0@0,1@1 \
		--log-level=lib.eal:error -- --modes io_limit,rss,jhash,distributor --flows 1024 \
		--frames 64 --burst "$b" --backlog 2048 --latency off --handoff off \
		>> "$DOCS/data/burst_sweep.txt"
	rm -rf /var/run/dpdk/rpsbench
done

echo "bench: tools/bench_binary.py (the dpdk-rps binary)" >&2
# shellcheck disable=SC2086
python3 tools/bench_binary.py --rps "$BUILD_DIR/app/dpdk-rps" \
	--pcap "$BUILD_DIR/tools/default.pcap" $HUGE_FLAG $BINARY_ARGS --json "$DOCS/data/bench_binary.json"

# shellcheck disable=SC2086
/usr/bin/python3 tools/bench_plot.py --bench "$DOCS/data/bench.json" \
	--dispatchers "$DOCS/data/bench_k$DISPATCHERS.json" $VARIANTS \
	--binary "$DOCS/data/bench_binary.json" --img-dir "$DOCS/img" \
	--doc "$DOCS/benchmarks.md" --generator "sh scripts/bench.sh${*:+ $*}"
