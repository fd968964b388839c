#!/bin/sh
# try-inline.sh: dpdk-rps as an inline pair (--forward 0:1) between two network namespaces,
# over veths: ping and iperf3 both ways across it, then what crossed and what dpdk-rps
# counted. Everything it makes is removed on any exit. Needs root, iproute2, ethtool, iperf3;
# sends nothing outside the two namespaces (198.18.0.1 and 198.18.0.2).
# The topology and each command by hand: docs/inline.md#try-it.
# DPDK_RPS=PATH runs that binary; otherwise build/app/dpdk-rps, built (as
# scripts/run-default.sh does) when it is missing. Exit 0 when everything crossed.
set -eu
case ${DPDK_RPS:-} in "" | /*) ;; *) DPDK_RPS=$PWD/$DPDK_RPS ;; esac
cd "$(dirname "$0")/.."
if [ "$(id -u)" -ne 0 ]; then
	echo "try-inline.sh: run it as root (network namespaces, AF_PACKET)" >&2
	exit 1
fi
for t in ip ethtool iperf3 ping ss; do
	if ! command -v $t >/dev/null 2>&1; then
		echo "try-inline.sh: no $t (scripts/bootstrap.sh installs it)" >&2
		exit 1
	fi
done
rps=${DPDK_RPS:-$PWD/build/app/dpdk-rps}
if [ -z "${DPDK_RPS:-}" ] && [ ! -x "$rps" ]; then
	sh scripts/bootstrap.sh
	sh scripts/build.sh build -Dtest_hooks=false
fi

# What this run made, removed by cleanup() on any exit: a name already there is refused
# below, never removed.
made=""
pid=""
tmp=$(mktemp -d)
cleanup() {
	rc=$?
	trap - EXIT INT TERM HUP
	if [ -n "$pid" ]; then
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	fi
	for s in $made; do
		# iperf3 and anything else still running in it, then the namespace: its eth0 goes
		# with it, and so the other end of the veth
		ip netns pids "rps-$s" 2>/dev/null | xargs -r kill 2>/dev/null || true
		ip netns del "rps-$s" 2>/dev/null || true
		ip link del "rps$s" 2>/dev/null || true
	done
	rm -rf "$tmp"
	if [ "$rc" -ne 0 ]; then
		echo "try-inline.sh: failed (exit $rc); the namespaces and veths are removed" >&2
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP
for s in a b; do
	if [ -e "/run/netns/rps-$s" ] || ip link show "rps$s" >/dev/null 2>&1; then
		echo "try-inline.sh: rps-$s or rps$s is there already (ip netns del rps-$s;" \
			"ip link del rps$s)" >&2
		exit 1
	fi
done

# Two namespaces, rps-a (198.18.0.1/24) and rps-b (198.18.0.2/24), each with an eth0 whose
# other end stays here (rpsa, rpsb) as dpdk-rps's port 0 and port 1. Offloads off (AF_PACKET
# must hand over whole frames with their checksums), every veth end's receive work on CPU 0
# (rps_cpus: the kernel itself does not reorder a flow), the kernel's own IPv6 off on the
# ports (it would talk to the namespaces behind dpdk-rps's back).
n=1
for s in a b; do
	ip netns add "rps-$s"
	made="$made $s"
	ip link add "rps$s" type veth peer name eth0 netns "rps-$s"
	ethtool -K "rps$s" tx off tso off gso off gro off >/dev/null
	ip netns exec "rps-$s" ethtool -K eth0 tx off tso off gso off gro off >/dev/null
	echo 1 >"/sys/class/net/rps$s/queues/rx-0/rps_cpus"
	ip netns exec "rps-$s" sh -c 'echo 1 > /sys/class/net/eth0/queues/rx-0/rps_cpus'
	sysctl -qw "net.ipv6.conf.rps$s.disable_ipv6=1"
	ip link set "rps$s" up
	ip netns exec "rps-$s" ip addr add "198.18.0.$n/24" dev eth0
	ip netns exec "rps-$s" ip link set eth0 up
	ip netns exec "rps-$s" ip link set lo up
	n=$((n + 1))
done

# dpdk-rps: RX lcore 0, workers on lcores 1 and 2 (one CPU for both where there are only
# two), each with a TX queue on both ports: qpairs=2. At most 60 s.
if [ "$(nproc)" -ge 3 ]; then lcores="-l 0-2"; else lcores="--lcores 0@0,(1-2)@1"; fi
echo "== dpdk-rps --forward 0:1 between rpsa (port 0) and rpsb (port 1)"
# shellcheck disable=SC2086
"$rps" --no-huge -m 512 --no-pci --file-prefix "rps-try-$$" $lcores \
	--vdev net_af_packet0,iface=rpsa,qpairs=2 --vdev net_af_packet1,iface=rpsb,qpairs=2 \
	-- --forward 0:1 --map 1-2 --duration 60 >"$tmp/rps.log" 2>&1 &
pid=$!
i=0
until grep -q '^RPS: ready' "$tmp/rps.log"; do
	i=$((i + 1))
	if [ $i -gt 300 ] || ! kill -0 "$pid" 2>/dev/null; then
		echo "try-inline.sh: dpdk-rps did not start:" >&2
		tail -n 20 "$tmp/rps.log" >&2
		exit 1
	fi
	sleep 0.1
done
grep '^RPS: ready' "$tmp/rps.log"

echo "== ping rps-a -> rps-b, then rps-b -> rps-a"
ip netns exec rps-a ping -c 3 -i 0.2 -W 2 198.18.0.2 | tail -n 2
ip netns exec rps-b ping -c 3 -i 0.2 -W 2 198.18.0.1 | tail -n 2

# Paced (4 streams of 20 Mbit/s each way), as integration-forward-tcp does: see
# docs/inline.md#try-it for what unpaced runs did.
echo "== iperf3 rps-a <-> rps-b, both ways at once (--bidir), 3 s"
ip netns exec rps-b iperf3 -s -1 -p 5201 >/dev/null 2>&1 &
i=0
until ip netns exec rps-b ss -Hltn 'sport = :5201' | grep -q .; do
	i=$((i + 1))
	if [ $i -gt 50 ]; then
		echo "try-inline.sh: iperf3 -s did not start" >&2
		exit 1
	fi
	sleep 0.1
done
if ! ip netns exec rps-a iperf3 -c 198.18.0.2 -p 5201 --bidir -P 4 -b 20M -t 3 -f m \
	>"$tmp/iperf.log" 2>&1; then
	cat "$tmp/iperf.log" >&2
	exit 1
fi
# the totals: [SUM][TX-C] is rps-a -> rps-b, [SUM][RX-C] rps-b -> rps-a
grep -E '^\[SUM\].*(sender|receiver)$' "$tmp/iperf.log"
if ! awk '/^\[SUM\].*receiver$/ { n++; if ($(NF - 2) + 0 > 0) ok++ }
	END { exit !(n == 2 && ok == 2) }' "$tmp/iperf.log"; then
	echo "try-inline.sh: a direction received nothing:" >&2
	cat "$tmp/iperf.log" >&2
	exit 1
fi

echo "== what dpdk-rps counted (SIGINT; its exit summary, drop reasons at 0 left out)"
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
pid=""
awk '/^dpdk-rps summary/ { on = 1 } on && !/^ +[a-z_0-9]+ +0$/' "$tmp/rps.log"
if [ "$rc" -ne 0 ]; then
	echo "try-inline.sh: dpdk-rps exited $rc:" >&2
	tail -n 20 "$tmp/rps.log" >&2
	exit 1
fi
echo "== done: removing rps-a, rps-b and their veths"
