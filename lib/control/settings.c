/* SPDX-License-Identifier: BSD-3-Clause */
/* settings.c: the table of settings (rps_settings.h) and the value checks both parsers use. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <rte_common.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>

#include "rps_hash.h"
#include "rps_map.h"
#include "rps_number.h"
#include "rps_settings.h"

#define DATAPLANE "dataplane"

const struct rps_setting rps_settings[RPS_SET_NB] = {
	[RPS_SET_RX_PORT] = {
		.name = "rx-port", .flag = "rx-port", .metavar = "P",
		.key = "rx_port", .section = DATAPLANE, .syntax = "P",
		.type = RPS_SETTING_U32, .when = RPS_SETTING_RESTART,
		.lo = 0, .hi = RTE_MAX_ETHPORTS - 1, .what = "a port id ", .unit = "",
		.def = "0",
		.help = "port to poll, every RX queue of it; repeatable for several ports "
			"(default 0)",
		.doc = "port to poll, every RX queue of it. Repeat it for several ports (`--rx-port 0 "
			"--rx-port 1`, at most 8): their queues are numbered on in that order "
			"(`queueN` in the file). In the file, a list: `rx_port = 0,1`",
	},
	[RPS_SET_RX_QUEUES] = {
		.name = "rx-queues", .flag = "rx-queues", .metavar = "N",
		.type = RPS_SETTING_U32, .when = RPS_SETTING_START,
		.lo = 1, .hi = RTE_MAX_QUEUES_PER_PORT, .what = "", .unit = " queues",
		.def = "all the port has, at most 16",
		.help = "RX queues to set up and poll on each port (default: all the port has, at most 16)",
		.doc = "RX queues to set up and poll on each `--rx-port`",
	},
	[RPS_SET_RX_LCORES] = {
		.name = "rx-lcores", .flag = "rx-lcores", .metavar = "LIST",
		.key = "rx_lcores", .section = DATAPLANE, .syntax = "LIST",
		.type = RPS_SETTING_TEXT, .when = RPS_SETTING_RESTART,
		.def = "the EAL main lcore",
		.help = "RX lcores, a list (0,1 or 0-1) that includes the EAL main lcore: the "
			"(port, queue) pairs are dealt to them round robin, each lcore a "
			"backlog per worker (default: the main lcore alone)",
		.doc = "RX lcores, a list of lcores and ranges as EAL's `-l` (`0,1`, `0-1`; no hex, "
			"no weights) that includes the EAL main lcore. Every (port, queue) pair is polled "
			"by one of them: pair `N` (ports in `--rx-port` order, then queues) by the "
			"`N mod count`-th lcore of the list. Each RX lcore has its own "
			"single-producer backlog to every worker (`--backlog` packets each); "
			"workers poll theirs in turn. Not with `--map 0`",
	},
	[RPS_SET_MAP] = {
		.name = "map", .flag = "map", .metavar = "M",
		.key = "default", .section = "map", .syntax = "MAP",
		.type = RPS_SETTING_TEXT, .when = RPS_SETTING_LIVE,
		.def = "every EAL lcore but the RX lcores",
		.help = "worker lcores: hex mask as rps_cpus (fe, 0xfe, ff,ffffffff) or list (1-3,5), "
			"optionally weighted (1:2,2:1,3:1 gives lcore 1 half the table); "
			"0 = no steering, the RX lcore processes (default: every EAL lcore but the "
			"RX lcores)",
		.doc = "worker lcores: hex as in `rps_cpus` (`fe`, `0xfe`, `ff,ffffffff`: "
			"comma-separated 32-bit groups, most significant first) or a list (`1-3,5`; a "
			"value containing `-` or `:` is a list, so a single lcore 5 is `5-5`, `5:1` or "
			"hex `20`), optionally weighted (`1:2,2:1,3:1`: lcore 1 gets twice the buckets "
			"of 2 and 3). `0` = no steering. In the file, `[map]` `default` (and `queueN` "
			"for one RX queue)",
	},
	[RPS_SET_TABLE_SIZE] = {
		.name = "table-size", .flag = "table-size", .metavar = "N",
		.key = "table_size", .section = DATAPLANE, .syntax = "N",
		.type = RPS_SETTING_POW2, .when = RPS_SETTING_LIVE,
		.lo = RPS_MAP_SIZE_MIN, .hi = RPS_MAP_SIZE_MAX, .what = "a power of two ",
		.unit = " buckets",
		.def = RTE_STR(RPS_MAP_SIZE_DEFAULT),
		.help = "buckets of each RX queue's indirection table, a power of two 1..4096: "
			"bucket = top log2(N) bits of the hash, filled from --map (default 128)",
		.doc = "buckets of each RX queue's indirection table, at least the number of "
			"workers: `bucket = hash >> (32 - log2(N))`, the top "
			"bits; a reload with another size rebuilds every queue's table",
	},
	[RPS_SET_HASH] = {
		.name = "hash", .flag = "hash", .metavar = "MODE",
		.key = "hash", .section = DATAPLANE, .syntax = "auto|rss|jhash|toeplitz",
		.type = RPS_SETTING_ENUM, .when = RPS_SETTING_RESTART,
		.values = "auto|rss|jhash|toeplitz",
		.def = "auto",
		.help = "auto (NIC RSS hash when the mbuf has one, else jhash), rss, jhash, "
			"toeplitz (software RSS from the headers, as the NIC with --rss-key) "
			"(default auto)",
		.doc = "`auto`: the NIC's RSS hash when the mbuf has one, else jhash; `rss`: ask the "
			"port for RSS (warns if it has none; packets without a hash are still hashed "
			"in software); `jhash`: always compute; `toeplitz`: always compute the NIC's "
			"Toeplitz hash in software ([Hashes](#hashes))",
	},
	[RPS_SET_HASH_SEED] = {
		.name = "hash-seed", .flag = "hash-seed", .metavar = "N",
		.key = "hash_seed", .section = DATAPLANE, .syntax = "N",
		.type = RPS_SETTING_U32, .when = RPS_SETTING_RESTART, .flags = RPS_SETTING_SECRET,
		.lo = 0, .hi = UINT32_MAX, .what = "a 32-bit number ", .unit = "",
		.def = "random",
		.help = "jhash seed (default: random at start)",
		.doc = "the jhash seed (set it to get the same flow to worker assignment across "
			"runs); a secret, never printed or logged: `/rps/config` shows it to the "
			"owner, only while EAL's runtime directory is closed to group and others "
			"(`hidden` otherwise)",
	},
	[RPS_SET_SYMMETRIC] = {
		.name = "symmetric", .flag = "symmetric",
		.key = "symmetric", .section = DATAPLANE, .syntax = "on|off|xor",
		.type = RPS_SETTING_ENUM, .when = RPS_SETTING_RESTART,
		.values = "on|off|xor",
		.def = "off",
		.help = "both directions of a connection go to one worker: the tuple is sorted "
			"(lower address, then port, first) and hashed in software with the secret "
			"key (jhash, or Toeplitz with --hash toeplitz); the NIC's RSS hash is not "
			"used (not with --hash rss)",
		.doc = "both directions of a connection go to one worker: the tuple is sorted "
			"(lower address, then lower port, first) and hashed in software with the "
			"secret seed, or the key with `--hash toeplitz`; any `--rss-key` works. The "
			"NIC's RSS hash is not used (every packet is hashed on the RX lcore, 2-36 "
			"cycles more than reading it); refused with `--hash rss`. In the file "
			"`symmetric = on` (or `sort`); `xor` is `--symmetric-xor`",
	},
	[RPS_SET_SYMMETRIC_XOR] = {
		.name = "symmetric-xor", .flag = "symmetric-xor",
		.type = RPS_SETTING_SWITCH, .when = RPS_SETTING_START,
		.def = "off",
		.help = "both directions to one worker through a symmetric Toeplitz key "
			"(default 6d5a x 20) on the NIC and in software: no software "
			"hash, but crafted flows collide whatever the key "
			"(docs/steering-keys.md)",
		.doc = "symmetric through a Toeplitz key that repeats one 16-bit pattern (default "
			"`6d5a` x 20), on the NIC and in software, so a NIC hash can be used. The hash "
			"then depends only on the XOR of the tuple's 16-bit words: anyone can craft "
			"flows that all land on one worker. Only where the senders are trusted. In "
			"the file: `symmetric = xor`",
	},
	[RPS_SET_INNER] = {
		.name = "inner", .flag = "inner",
		.key = "inner", .section = DATAPLANE, .syntax = "on|off",
		.type = RPS_SETTING_BOOL, .when = RPS_SETTING_RESTART,
		.def = "off",
		.help = "hash tunnelled packets (VXLAN, GENEVE, GTP-U, GRE, NVGRE, IP-in-IP) on "
			"their inner header, one level deep, always in software (a NIC's RSS "
			"hash is the outer one); unreadable tunnels hash on the outer header",
		.doc = "hash tunnelled packets (VXLAN, GENEVE, GTP-U, GRE, NVGRE, IP-in-IP, "
			"IPv6-in-IP) on their inner flow, one level deep, always in software "
			"([Hashes](#hashes)); unreadable tunnels hash on the outer header "
			"(`inner_fallback`)",
	},
	[RPS_SET_VXLAN_PORT] = {
		.name = "vxlan-port", .flag = "vxlan-port", .metavar = "P",
		.key = "vxlan_port", .section = DATAPLANE, .syntax = "P[,P...]",
		.type = RPS_SETTING_TEXT, .when = RPS_SETTING_RESTART,
		.def = "4789",
		.help = "UDP ports --inner reads as VXLAN, repeatable or a list (4789,8472) "
			"(default 4789)",
		.doc = "UDP destination ports `--inner` reads as VXLAN: repeat it or give a list "
			"(`4789,8472`), decimal, at most 8; giving it replaces 4789. GENEVE (6081) "
			"and GTP-U (2152) are fixed",
	},
	[RPS_SET_RSS_KEY] = {
		.name = "rss-key", .flag = "rss-key", .metavar = "HEX",
		.key = "rss_key", .section = DATAPLANE, .syntax = "HEX",
		.type = RPS_SETTING_TEXT, .when = RPS_SETTING_RESTART,
		.flags = RPS_SETTING_SECRET,
		.def = "random",
		.help = "Toeplitz key for --hash toeplitz and the NIC, 40 or 52 bytes in hex "
			"(default: random at each start, kept secret); with --symmetric-xor it "
			"must repeat one 16-bit pattern",
		.doc = "Toeplitz key of `--hash toeplitz` and of the NIC's RSS: 40 or 52 bytes in "
			"hex (`6d5a56da...` or `6d:5a:56:da:...`); with `--symmetric-xor` it must "
			"repeat one 16-bit pattern (else exit 2). The default is a 40-byte key drawn "
			"from `getrandom(2)` at each start (as Linux's `netdev_rss_key_fill`), never "
			"printed or logged: `/rps/config` shows it to the owner, only while EAL's "
			"runtime directory is closed to group and others (`hidden` otherwise). Set "
			"one only to reproduce a NIC's placement",
	},
	[RPS_SET_BACKLOG] = {
		.name = "backlog", .flag = "backlog", .metavar = "N",
		.key = "backlog", .section = DATAPLANE, .syntax = "N",
		.type = RPS_SETTING_U32, .when = RPS_SETTING_RESTART,
		.lo = 1, .hi = 1u << 24, .what = "", .unit = " packets",
		.def = "1000",
		.help = "packets a worker's backlog holds, per RX lcore; the rest are dropped as "
			"backlog_full (default 1000)",
		.doc = "packets one worker's backlog holds (`netdev_max_backlog`); the rest are "
			"dropped as `backlog_full`. With several `--rx-lcores`, per (RX lcore, "
			"worker) pair",
	},
	[RPS_SET_BURST] = {
		.name = "burst", .flag = "burst", .metavar = "N",
		.key = "burst", .section = DATAPLANE, .syntax = "N",
		.type = RPS_SETTING_U32, .when = RPS_SETTING_RESTART,
		.lo = 1, .hi = 512, .what = "", .unit = " packets",
		.def = "64",
		.help = "packets per RX/dequeue/TX burst, 1..512 (default 64)",
		.doc = "packets per RX burst, backlog dequeue and TX burst",
	},
	[RPS_SET_RECYCLE] = {
		.name = "recycle-mbufs", .flag = "recycle-mbufs", .metavar = "on|off",
		.type = RPS_SETTING_BOOL, .when = RPS_SETTING_START,
		.def = "on",
		.help = "workers hand the mbufs they consumed back to their RX lcore through a "
			"return ring per (RX lcore, worker) pair, which frees them into its own "
			"mempool cache (default on; docs/benchmarks.md, Handoff tax)",
		.doc = "workers hand the mbufs they consumed (no `--tx-port`) back to the RX lcore "
			"they came from, through a return ring per (RX lcore, worker) pair; the RX "
			"lcore frees them in bulk into its own mempool cache, where its next RX "
			"burst finds them, instead of their crossing the pool's common ring. Costs "
			"the RX lcore a ring poll per worker per loop "
			"([docs/benchmarks.md](docs/benchmarks.md#handoff-tax))",
	},
	[RPS_SET_TX_PORT] = {
		.name = "tx-port", .flag = "tx-port", .metavar = "P",
		.key = "tx_port", .section = DATAPLANE, .syntax = "P|none",
		.type = RPS_SETTING_U32, .when = RPS_SETTING_RESTART,
		.lo = 0, .hi = RTE_MAX_ETHPORTS - 1, .what = "a port id ", .unit = "",
		.flags = RPS_SETTING_FILE_WORD, .word = "none",
		.def = "none",
		.help = "each worker transmits what it processed on its own TX queue of P "
			"(default: none, packets are consumed)",
		.doc = "each worker transmits what it processed on its own TX queue (worker i to "
			"queue i; the RX lcore uses queue 0 without a map). Without it packets are "
			"consumed (freed); in the file `none` says so",
	},
	[RPS_SET_MBUFS] = {
		.name = "mbufs", .flag = "mbufs", .metavar = "N",
		.type = RPS_SETTING_U32, .when = RPS_SETTING_START,
		.lo = 1024, .hi = 1u << 26, .what = "", .unit = " mbufs",
		.def = "the RX reserve + each worker's share (at least 16384)",
		.help = "mbufs in the packet pool (default: the RX lcores' reserve plus each "
			"worker's full share: backlogs, --frag-mbufs, TX ring); a smaller pool cuts "
			"backlogs and reassembly to fit (logged)",
		.doc = "mbufs in the packet pool, split into the RX lcores' reserve (RX rings, "
			"bursts, caches) and one share per worker (its backlogs, `--frag-mbufs`, TX "
			"ring, bursts in flight), so no worker can take what the RX lcores need. The "
			"default fits every share in full and is halved until it fits in memory; a "
			"smaller pool cuts each backlog ring (refusing the rest as `mbuf_budget`) and "
			"the reassembly budget by one factor (logged)",
	},
	[RPS_SET_MTU] = {
		.name = "mtu", .flag = "mtu", .metavar = "N",
		.type = RPS_SETTING_U32, .when = RPS_SETTING_START,
		.lo = 68, .hi = 16000, .what = "an MTU of ", .unit = " bytes",
		.def = "the port's own",
		.help = "MTU of --rx-port and --tx-port, 68..16000 (default: the port's own); the "
			"output stage re-fragments packets above the TX port's MTU",
		.doc = "MTU of `--rx-port` and `--tx-port` (`rte_eth_dev_set_mtu`); the output stage "
			"re-fragments packets above the TX port's MTU. A PMD without an MTU to set "
			"(`net_pcap`, `net_ring`) sends any size: there `--mtu` is only what dpdk-rps "
			"enforces on output (default 1500)",
	},
	[RPS_SET_STATS_INTERVAL] = {
		.name = "stats-interval", .flag = "stats-interval", .metavar = "S",
		.key = "stats_interval", .section = DATAPLANE, .syntax = "S",
		.type = RPS_SETTING_U32, .when = RPS_SETTING_LIVE,
		.lo = 0, .hi = 86400, .what = "", .unit = " seconds",
		.def = "0 (off)",
		.help = "print the live per-worker table every S seconds (default 0 = off)",
		.doc = "print the live per-worker table every S seconds; 0 = off (a reload to 0 "
			"pauses it)",
	},
	[RPS_SET_DURATION] = {
		.name = "duration", .flag = "duration", .metavar = "S",
		.type = RPS_SETTING_TEXT, .when = RPS_SETTING_START,
		.def = "run until signalled",
		.help = "stop after S seconds (default: run until SIGINT/SIGTERM)",
		.doc = "stop after S seconds (a positive number, fractions too, at most 1e7)",
	},
	[RPS_SET_EXIT_WHEN_IDLE] = {
		.name = "exit-when-idle", .flag = "exit-when-idle", .metavar = "MS",
		.type = RPS_SETTING_U32, .when = RPS_SETTING_START,
		.lo = 1, .hi = 86400000, .what = "", .unit = " milliseconds",
		.def = "off",
		.help = "stop once the RX port has been idle MS ms and every backlog is empty",
		.doc = "stop once the RX port has been idle MS ms and every backlog is empty",
	},
	[RPS_SET_SUMMARY_JSON] = {
		.name = "summary-json", .flag = "summary-json", .metavar = "FILE",
		.type = RPS_SETTING_TEXT, .when = RPS_SETTING_START,
		.def = "none",
		.help = "write the exit summary as JSON to FILE",
		.doc = "write the exit summary as JSON",
	},
	[RPS_SET_VERBOSE] = {
		.name = "verbose", .flag = "verbose",
		.type = RPS_SETTING_SWITCH, .when = RPS_SETTING_START,
		.def = "off",
		.help = "the exit summary lists every drop reason, those at 0 too (default: "
			"those that are not 0)",
		.doc = "the exit summary lists every drop reason, those at 0 too (the JSON always "
			"has them all)",
	},
	[RPS_SET_STAGES] = {
		.name = "stages", .flag = "stages", .metavar = "LIST",
		.key = "stages", .section = DATAPLANE, .syntax = "LIST",
		.type = RPS_SETTING_TEXT, .when = RPS_SETTING_RESTART,
		.def = "parse,validate,reassemble,flow,output",
		.help = "worker pipeline, in this order: parse,validate,reassemble,flow,respond,"
			"output (default: all but respond)",
		.doc = "the worker pipeline, a subsequence of "
			"`parse,validate,reassemble,flow,respond,output`; every stage but `output` "
			"needs `parse` (in the file at most 127 characters)",
	},
	[RPS_SET_FLOW_TABLE_SIZE] = {
		.name = "flow-table-size", .flag = "flow-table-size", .metavar = "N",
		.key = "flow_table_size", .section = DATAPLANE, .syntax = "N",
		.type = RPS_SETTING_U32, .when = RPS_SETTING_RESTART,
		.lo = 64, .hi = 1u << 24, .what = "", .unit = " flows",
		.def = "65536",
		.help = "flows each worker tracks (default 65536)",
		.doc = "flows each worker tracks",
	},
	[RPS_SET_FLOW_TIMEOUT] = {
		.name = "flow-timeout", .flag = "flow-timeout", .metavar = "S",
		.type = RPS_SETTING_U32, .when = RPS_SETTING_START,
		.lo = 1, .hi = 86400, .what = "", .unit = " seconds",
		.def = "30",
		.help = "an idle flow is forgotten after S seconds (default 30)",
		.doc = "an idle flow is forgotten after S seconds (a closed TCP flow after 1 s)",
	},
	[RPS_SET_ELEPHANT_RATE] = {
		.name = "elephant-rate", .flag = "elephant-rate", .metavar = "RATE",
		.key = "elephant_rate", .section = DATAPLANE, .syntax = "RATE",
		.type = RPS_SETTING_U32, .when = RPS_SETTING_RESTART, .flags = RPS_SETTING_RATE,
		.lo = 0, .hi = 4000000000u, .what = "", .unit = " bits a second (or with K, M, G; off)",
		.def = "off",
		.help = "a flow above RATE bits a second (both directions, K, M, G suffixes: x 1000) "
			"over --elephant-window is marked an elephant; 0 or off = never (default)",
		.doc = "a flow (both directions counted, by the `flow` stage) above this many bits a "
			"second over the sliding `--elephant-window` is marked an elephant: a flag in "
			"`/rps/flows` and `--flows-json`, listed by `/rps/elephants`, counted "
			"`flows_elephant` and `elephants_active`; unmarked once under half the rate "
			"([Elephants](docs/operations.md#elephant-flows)). `K`, `M`, `G` multiply by "
			"1000 (`1G`: a gigabit a second), at most `4G`; needs the `flow` stage; 0 or "
			"`off` = never",
	},
	[RPS_SET_ELEPHANT_WINDOW] = {
		.name = "elephant-window", .flag = "elephant-window", .metavar = "MS",
		.key = "elephant_window", .section = DATAPLANE, .syntax = "MS",
		.type = RPS_SETTING_U32, .when = RPS_SETTING_RESTART,
		.lo = 10, .hi = 60000, .what = "", .unit = " ms",
		.def = "1000",
		.help = "the window --elephant-rate is measured over, ms (default 1000)",
		.doc = "the sliding window `--elephant-rate` is measured over: a flow sending "
			"above the rate is marked within one window, one that stops is unmarked "
			"within a window and an eighth",
	},
	[RPS_SET_ELEPHANT_ACTION] = {
		.name = "elephant-action", .flag = "elephant-action", .metavar = "ACTION",
		.key = "elephant_action", .section = DATAPLANE, .syntax = "none|bypass|isolate",
		.type = RPS_SETTING_ENUM, .when = RPS_SETTING_RESTART,
		.values = "none|bypass|isolate",
		.def = "none",
		.help = "what an elephant gets: none (marked only), bypass (its later packets skip "
			"the consumers), isolate (the other buckets leave its worker) (default none)",
		.doc = "what a flow marked by `--elephant-rate` gets: `none`, marked only; `bypass`, "
			"bypassed as at `--bypass-after`'s depth (once the consumers hold nothing "
			"of its worker's, so it stays in order; needs consumers); `isolate`, the "
			"control thread moves every other bucket off the elephant's worker to the "
			"others, reorder-safe, until the elephant ends (needs `reorder_safe` on and "
			"two workers or more)",
	},
	[RPS_SET_FRAG_MAX] = {
		.name = "frag-max", .flag = "frag-max", .metavar = "N",
		.type = RPS_SETTING_U32, .when = RPS_SETTING_START,
		.lo = 16, .hi = 1u << 20, .what = "", .unit = " datagrams",
		.def = "4096",
		.help = "datagrams each worker reassembles at once (default 4096)",
		.doc = "datagrams each worker reassembles at once",
	},
	[RPS_SET_FRAG_MBUFS] = {
		.name = "frag-mbufs", .flag = "frag-mbufs", .metavar = "N",
		.type = RPS_SETTING_U32, .when = RPS_SETTING_START,
		.lo = 16, .hi = 1u << 24, .what = "", .unit = " mbufs",
		.def = "--frag-max",
		.help = "mbufs each worker's reassembly may hold; past it the oldest incomplete "
			"datagrams are evicted (frag_evicted). The default pool adds this much per "
			"worker; a smaller --mbufs lowers it (default: --frag-max)",
		.doc = "mbufs each worker's reassembly may hold; past it the oldest incomplete "
			"datagrams are evicted (`frag_evicted`). The default pool adds this much per "
			"worker; with a smaller `--mbufs` it shrinks with the backlogs to fit each "
			"worker's share of the pool (logged)",
	},
	[RPS_SET_FRAG_TIMEOUT] = {
		.name = "frag-timeout", .flag = "frag-timeout", .metavar = "MS",
		.type = RPS_SETTING_U32, .when = RPS_SETTING_START,
		.lo = 1, .hi = 600000, .what = "", .unit = " milliseconds",
		.def = "2000",
		.help = "fragments of an incomplete datagram are dropped after MS ms (default 2000)",
		.doc = "fragments of an incomplete datagram are dropped after MS ms",
	},
	[RPS_SET_RESPOND_IP] = {
		.name = "respond-ip", .flag = "respond-ip", .metavar = "A[/LEN]",
		.type = RPS_SETTING_TEXT, .when = RPS_SETTING_START,
		.def = "none",
		.help = "respond stage: answer ARP and ICMP echo for this IPv4 address, on the "
			"RX port a request came in on, from that port's MAC; requests from the "
			"network or broadcast address of its /LEN (default /24) are refused",
		.doc = "`respond`: answer ARP and ICMP echo for this IPv4 address, on the RX port "
			"a request came in on (every `--rx-port`, both ports of a `--forward` "
			"pair), from that port's MAC; `/LEN` (default 24) is its subnet, whose "
			"network and broadcast addresses are refused as sources",
	},
	[RPS_SET_RESPOND_IP6] = {
		.name = "respond-ip6", .flag = "respond-ip6", .metavar = "A",
		.type = RPS_SETTING_TEXT, .when = RPS_SETTING_START,
		.def = "none",
		.help = "respond stage: answer neighbour solicitation and ICMPv6 echo for this IPv6 "
			"address",
		.doc = "`respond`: answer neighbour solicitation and ICMPv6 echo for this IPv6 "
			"address",
	},
	[RPS_SET_UDP_ECHO_PORT] = {
		.name = "udp-echo-port", .flag = "udp-echo-port", .metavar = "P",
		.type = RPS_SETTING_U32, .when = RPS_SETTING_START,
		.lo = 1, .hi = 65535, .what = "a UDP port ", .unit = "",
		.def = "off",
		.help = "respond stage: echo UDP datagrams sent to this port of the addresses above",
		.doc = "`respond`: echo UDP datagrams to this port of the addresses above",
	},
	[RPS_SET_RESPOND_RATE] = {
		.name = "respond-rate", .flag = "respond-rate", .metavar = "N",
		.key = "respond_rate", .section = DATAPLANE, .syntax = "N",
		.type = RPS_SETTING_U32, .when = RPS_SETTING_RESTART,
		.lo = 0, .hi = 100000000, .what = "", .unit = " replies a second (0 = no limit)",
		.def = "1000",
		.help = "respond stage: echo replies (ICMP, ICMPv6, UDP) a second per worker "
			"at most, 0 = no limit (default 1000, as Linux's icmp_msgs_per_sec)",
		.doc = "`respond`: echo replies (ICMP, ICMPv6, UDP) a second per worker at most, "
			"0 = no limit (Linux's `icmp_msgs_per_sec`)",
	},
	[RPS_SET_RESPOND_BURST] = {
		.name = "respond-burst", .flag = "respond-burst", .metavar = "N",
		.key = "respond_burst", .section = DATAPLANE, .syntax = "N",
		.type = RPS_SETTING_U32, .when = RPS_SETTING_RESTART,
		.lo = 1, .hi = 1000000, .what = "", .unit = " replies",
		.def = "50",
		.help = "respond stage: echo replies a worker may send back to back (default 50)",
		.doc = "`respond`: echo replies a worker may send back to back "
			"(`icmp_msgs_burst`)",
	},
	[RPS_SET_FLOWS_JSON] = {
		.name = "flows-json", .flag = "flows-json", .metavar = "FILE",
		.type = RPS_SETTING_TEXT, .when = RPS_SETTING_START,
		.def = "none",
		.help = "write every worker's flow table as JSON at exit, and the flows that ended "
			"during the run",
		.doc = "write every worker's flow table as JSON at exit (`flows`: each flow with "
			"its `lcore`, both directions' packets, bytes and TCP flags, its state), and "
			"the flows that ended during the run (`removed`: expired, closed or evicted, "
			"as they were then, with `removed_ms`; the last 16384 of each worker, "
			"`removed_not_kept` counts the older ones): after an `iperf3` run every "
			"connection and the worker that carried it are there",
	},
	[RPS_SET_CONFIG] = {
		.name = "config", .flag = "config", .metavar = "FILE",
		.type = RPS_SETTING_TEXT, .when = RPS_SETTING_START,
		.def = "none",
		.help = "INI configuration file (see config/dpdk-rps.conf); reloaded on SIGHUP and "
			"when it changes; the command line wins at start",
		.doc = "INI configuration file ([Configuration and live "
			"control](#configuration-and-live-control), `dpdk-rps.conf(5)`); reloaded on "
			"SIGHUP and when it changes; the command line wins at start",
	},
	[RPS_SET_STRICT_MODES] = {
		.name = "strict-modes", .flag = "strict-modes", .metavar = "on|off",
		.type = RPS_SETTING_BOOL, .when = RPS_SETTING_START,
		.def = "on",
		.help = "refuse a --config file that others could change: writable by group or "
			"others, or owned by another user, it or a folder above it, through every "
			"symlink (default on; off: warn and apply it)",
		.doc = "as sshd's StrictModes: a `--config` file that anyone but root and this user "
			"could change (the file or any folder from `/` to it, through every symlink "
			"hop, writable by group or others without the sticky bit, or owned by another "
			"user) is refused at start (exit 2) and on each reload (the running "
			"configuration stays). `off` applies it with a warning. Command line only: a "
			"file others can write must not be able to turn the check off",
	},
	[RPS_SET_REORDER_SAFE] = {
		.name = "reorder-safe", .flag = "reorder-safe", .metavar = "on|off",
		.key = "reorder_safe", .section = DATAPLANE, .syntax = "on|off",
		.type = RPS_SETTING_BOOL, .when = RPS_SETTING_LIVE,
		.def = "on",
		.help = "a remap never reorders a flow: buckets move only once their old "
			"worker drained them (default on; off = the seed's behaviour)",
		.doc = "a remap never reorders a flow ([Configuration and live "
			"control](#configuration-and-live-control)); `off` is the seed's behaviour",
	},
	[RPS_SET_CHECK_ORDER] = {
		.name = "check-order", .flag = "check-order",
		.type = RPS_SETTING_SWITCH, .when = RPS_SETTING_START,
		.def = "off",
		.help = "count packets that reach their worker after a later packet of their "
			"flow (counter reordered; costs two table accesses per packet)",
		.doc = "measure reordering at the steering point: counter `reordered` "
			"([Configuration and live control](#configuration-and-live-control))",
	},
	[RPS_SET_FLOW_LIMIT] = {
		.name = "flow-limit", .flag = "flow-limit", .metavar = "on|off",
		.key = "flow_limit", .section = DATAPLANE, .syntax = "on|off",
		.type = RPS_SETTING_BOOL, .when = RPS_SETTING_LIVE,
		.def = "off",
		.help = "when a worker's backlog is over half full, drop first the packets of a "
			"flow holding more than half of its last 256 (the kernel's flow limit; "
			"default off)",
		.doc = "the kernel's flow limit: while a worker's backlog is over half full, a "
			"packet whose flow holds more than half of the last 256 packets offered to it "
			"is dropped (`flow_limit`), so mice keep getting through while an elephant is "
			"throttled",
	},
	[RPS_SET_REBALANCE] = {
		.name = "rebalance", .flag = "rebalance", .metavar = "on|off",
		.key = "rebalance", .section = DATAPLANE, .syntax = "on|off",
		.type = RPS_SETTING_BOOL, .when = RPS_SETTING_LIVE,
		.def = "off",
		.help = "move the hottest buckets from an overloaded worker to one with "
			"room, without reordering (needs --reorder-safe on; default off)",
		.doc = "move the hottest buckets from an overloaded worker to one with room, "
			"reorder-free ([Automatic rebalancing](#automatic-rebalancing)); needs "
			"`--reorder-safe on`",
	},
	[RPS_SET_REBALANCE_INTERVAL] = {
		.name = "rebalance-interval", .flag = "rebalance-interval", .metavar = "MS",
		.key = "rebalance_interval_ms", .section = DATAPLANE, .syntax = "MS",
		.type = RPS_SETTING_U32, .when = RPS_SETTING_LIVE,
		.lo = 10, .hi = 3600000, .what = "", .unit = " milliseconds",
		.def = "1000",
		.help = "how often bucket rates are measured and the rebalancer runs (default 1000)",
		.doc = "how often the per-bucket rates are sampled (also for `/rps/buckets` and "
			"`imbalance`) and the rebalancer runs",
	},
	[RPS_SET_REBALANCE_THRESHOLD] = {
		.name = "rebalance-threshold", .flag = "rebalance-threshold", .metavar = "PCT",
		.key = "rebalance_threshold", .section = DATAPLANE, .syntax = "PCT",
		.type = RPS_SETTING_U32, .when = RPS_SETTING_LIVE,
		.lo = 1, .hi = 1000, .what = "", .unit = " percent",
		.def = "10",
		.help = "act when the busiest worker's load is PCT % over the mean for two "
			"intervals in a row (default 10)",
		.doc = "act when the busiest worker's load is PCT % over the mean two intervals in "
			"a row",
	},
	[RPS_SET_REBALANCE_MOVES] = {
		.name = "rebalance-moves", .flag = "rebalance-moves", .metavar = "K",
		.key = "rebalance_moves", .section = DATAPLANE, .syntax = "K",
		.type = RPS_SETTING_U32, .when = RPS_SETTING_LIVE,
		.lo = 1, .hi = RPS_MAP_SIZE_MAX, .what = "", .unit = " buckets",
		.def = "8",
		.help = "buckets moved per interval at most (default 8)",
		.doc = "buckets moved per interval at most",
	},
	[RPS_SET_REBALANCE_HOLDDOWN] = {
		.name = "rebalance-holddown", .flag = "rebalance-holddown", .metavar = "MS",
		.key = "rebalance_holddown_ms", .section = DATAPLANE, .syntax = "MS",
		.type = RPS_SETTING_U32, .when = RPS_SETTING_LIVE,
		.lo = 0, .hi = 86400000, .what = "", .unit = " milliseconds",
		.def = "10000",
		.help = "a bucket moved is not moved again for MS ms (default 10000)",
		.doc = "a bucket moved is not moved again for MS ms",
	},
	[RPS_SET_BACKPRESSURE] = {
		.name = "backpressure", .flag = "backpressure", .metavar = "on|off|auto",
		.type = RPS_SETTING_ENUM, .when = RPS_SETTING_START,
		.values = "on|off|auto",
		.def = "auto",
		.help = "on: while a worker's backlog is full the RX lcore stops "
			"taking packets from the port instead of dropping them "
			"(lossless; the port's queue takes the overflow); auto (the "
			"default): on for file and ring inputs (net_pcap, net_ring, "
			"net_memif), off for NICs",
		.doc = "`on`: while a worker's backlog is full the RX lcore holds the packets it "
			"could not place (in order) and takes nothing more from the port until they "
			"are placed: lossless, the port's queue (or the file or ring feeding it) takes "
			"the overflow (`rx_paused`); packets for a stalled worker are still dropped. "
			"`auto`: on for replayed and relayed inputs (`net_pcap`, `net_ring`, "
			"`net_memif`), off for NICs, where a paused RX lcore would let the NIC drop "
			"everything (`imissed`) instead of one worker's share. With `--consumers`, "
			"on also makes a worker wait for a connected consumer whose queue is full "
			"instead of dropping (`consumer_full`), until it takes the packets, "
			"disconnects (`consumer_absent`) or, at exit, a second has passed since RX "
			"stopped ([Consumers](#consumers))",
	},
	[RPS_SET_STALL_TIMEOUT] = {
		.name = "stall-timeout", .flag = "stall-timeout", .metavar = "MS",
		.type = RPS_SETTING_U32, .when = RPS_SETTING_START,
		.lo = 0, .hi = 3600000, .what = "", .unit = " milliseconds (0 = off)",
		.def = "0 (off)",
		.help = "a worker whose backlog holds packets but whose position has not "
			"moved for MS ms is stalled: its buckets move to the healthy workers "
			"of each map until it is back (default 0 = off: for dedicated "
			"cores, e.g. 1000; on shared CPUs a descheduled worker looks stalled)",
		.doc = "a worker whose backlog holds packets while its position has not moved for "
			"MS ms is stalled: its buckets move to the healthy workers of each queue's map "
			"(the one move that may reorder, counted in `failover_moves`) and come back "
			"after a hold-down of twice the timeout (at least 1 s) once it moves again; "
			"one still stalled at exit is given up on after the hold-down, its backlog "
			"counted `stranded`, exit status 1 ([Reliability](#reliability)). Off by "
			"default: turn it on (e.g. 1000) where workers have dedicated cores; on shared "
			"CPUs (or oversubscribed lcores, as in the tests) a descheduled worker looks "
			"stalled and would lose its buckets",
	},
	[RPS_SET_IDLE_SLEEP] = {
		.name = "idle-sleep", .flag = "idle-sleep", .metavar = "US",
		.key = "idle_sleep_us", .section = DATAPLANE, .syntax = "US",
		.type = RPS_SETTING_U32, .when = RPS_SETTING_RESTART,
		.lo = 0, .hi = 100000, .what = "", .unit = " microseconds",
		.def = "50",
		.help = "an idle RX lcore (nothing to poll for --idle-spin) sleeps between polls, "
			"1 us doubling up to US; an idle worker sleeps in the kernel until an RX "
			"lcore queues packets to it; 0 = every lcore busy-polls (default 50)",
		.doc = "an idle RX lcore sleeps between polls, 1 us doubling up to US; after a "
			"second of idle it sleeps on its queues' RX interrupts where the PMD has "
			"them, else up to 4 x US and at least 1 ms; an idle worker sleeps in the "
			"kernel until an RX lcore queues packets to it (one wake-up per burst, "
			"`wakeups`) or 10 ms pass; 0 = every lcore busy-polls",
	},
	[RPS_SET_IDLE_SPIN] = {
		.name = "idle-spin", .flag = "idle-spin", .metavar = "US",
		.key = "idle_spin_us", .section = DATAPLANE, .syntax = "US",
		.type = RPS_SETTING_U32, .when = RPS_SETTING_RESTART,
		.lo = 0, .hi = 10000000, .what = "", .unit = " microseconds",
		.def = "100",
		.help = "busy-poll this long after the last packet before sleeping (default 100)",
		.doc = "busy-poll this long after the last packet before the first sleep",
	},
	[RPS_SET_IDLE_WAIT] = {
		.name = "idle-wait", .flag = "idle-wait", .metavar = "HOW",
		.key = "idle_wait", .section = DATAPLANE, .syntax = "futex|monitor",
		.type = RPS_SETTING_ENUM, .when = RPS_SETTING_RESTART,
		.values = "futex|monitor",
		.def = "futex",
		.help = "how an idle worker waits: futex (asleep in the kernel, woken by the RX "
			"lcore, the default) or monitor (UMWAIT on its backlog's tail where the CPU "
			"has WAITPKG: no syscall, the CPU stays busy to the kernel; else futex)",
		.doc = "how an idle worker waits for packets: `futex`, asleep in the kernel until an "
			"RX lcore wakes it (no CPU time while idle); `monitor`, where the CPU has "
			"WAITPKG and the worker has one backlog, `rte_power_monitor()` on the "
			"backlog's producer tail up to `--idle-sleep` at a time (wakes on the "
			"enqueue's store with no syscall, but the kernel counts the lcore as busy); "
			"without WAITPKG `monitor` waits as `futex` does",
	},
	[RPS_SET_FORWARD] = {
		.name = "forward", .flag = "forward", .metavar = "A:B",
		.key = "forward", .section = DATAPLANE, .syntax = "A:B[,C:D...]",
		.type = RPS_SETTING_TEXT, .when = RPS_SETTING_RESTART,
		.def = "none",
		.help = "ports A and B become an inline pair: what arrives on one leaves on the "
			"other, unchanged; both are RX ports, every worker has a TX queue on each; "
			"symmetric steering unless --symmetric-xor or --hash says otherwise; "
			"repeatable or a list (at most 4 pairs)",
		.doc = "ports A and B become an inline pair: what arrives on one leaves on the other "
			"unchanged (L2-transparent: ARP, VLAN tags and non-IP frames pass), both "
			"are RX ports and every worker has its own TX queue on each; a port is in one "
			"pair at most; repeat it or give a list (`0:1,2:3`), at most 4 pairs. Pairs "
			"steer symmetrically (both directions of a connection to one worker) unless "
			"told otherwise ([Inline pairs](#inline-pairs))",
	},
	[RPS_SET_CONSUMERS] = {
		.name = "consumers", .flag = "consumers", .metavar = "K[,K...]",
		.key = "consumers", .section = DATAPLANE, .syntax = "K[,K...]",
		.type = RPS_SETTING_TEXT, .when = RPS_SETTING_RESTART,
		.def = "0 (off)",
		.help = "deliver what the workers processed to K memif consumers (a socket each "
			"of dpdk-rps's own memif server at --consumer-socket, one queue each), worker "
			"w to consumer w mod K, in place of --tx-port; K,K...: groups, every packet to "
			"one consumer of each; 0 = off (default), at most 16 in all, K at most the "
			"workers",
		.doc = "deliver what the workers processed to K consumers (at most as many as "
			"workers): dpdk-rps's own memif server listens at K sockets (one per "
			"consumer, at `--consumer-socket`), each for one memif client at a time "
			"(DPDK's net_memif, libmemif, VPP) and with one ring to it, and worker `w` "
			"sends to consumer `w mod K`: on that ring when it is the consumer's only "
			"worker, else through a ring the consumer's workers share, so a client opens "
			"one queue, always. In place of `--tx-port`; needs `output` in `--stages` and "
			"workers; with `--forward`, beside the forward. A consumer that is not "
			"connected or does "
			"not keep up loses its packets, counted per consumer (`consumer_absent`, "
			"`consumer_full`), and the others go on; with `--backpressure on` the workers "
			"wait for a full one instead. A list `K,K...` (at most 4 groups, 16 "
			"consumers in all) makes consumer groups, as PF_RING zbalance_ipc's `-n 4,1`: "
			"every packet reaches one consumer of each group (worker `w` feeds consumer "
			"`w mod K` of each), numbered across the groups for `%u`, group 0's first "
			"([Consumers](#consumers))",
	},
	[RPS_SET_CONSUMER_SOCKET] = {
		.name = "consumer-socket", .flag = "consumer-socket", .metavar = "TEMPLATE",
		.key = "consumer_socket", .section = DATAPLANE, .syntax = "TEMPLATE",
		.type = RPS_SETTING_TEXT, .when = RPS_SETTING_RESTART,
		.def = "<EAL runtime directory>/consumer-%u.sock",
		.help = "the consumers' memif socket paths, %u the consumer's index (default: "
			"consumer-%u.sock in EAL's runtime directory), made 0600 (0660 with "
			"--consumer-group)",
		.doc = "the path of each consumer's memif socket (a file, not an abstract "
			"socket), `%u` replaced by the consumer's index 0..K-1: exactly one `%u`, no "
			"other `%`, no `,` or `=` (a DPDK memif client's vdev arguments split there), "
			"at most 106 characters once replaced. Default: `consumer-%u.sock` in EAL's "
			"runtime directory (`/run/dpdk/rte/` as root, with `--file-prefix` its name). "
			"Each socket is made 0600 whatever the umask, or 0660 and of the group with "
			"`--consumer-group`. Every folder on the way to it must be owned by root or "
			"the user dpdk-rps runs as and writable by no one else (unless sticky), as "
			"for the configuration file, else exit 2 naming the folder "
			"([Security](docs/security.md#consumer-sockets)). A path that exists is "
			"refused (exit 2); dpdk-rps removes its sockets at exit",
	},
	[RPS_SET_CONSUMER_WAIT] = {
		.name = "consumer-wait", .flag = "consumer-wait", .metavar = "MS",
		.key = "consumer_wait_ms", .section = DATAPLANE, .syntax = "MS",
		.type = RPS_SETTING_U32, .when = RPS_SETTING_RESTART,
		.lo = 0, .hi = 3600000, .what = "", .unit = " milliseconds",
		.def = "0",
		.help = "hold RX at start until every consumer is connected, for at most MS "
			"milliseconds (a replay then loses nothing to a consumer still starting); "
			"0 = do not wait (default)",
		.doc = "hold RX at start until every consumer is connected, for at most this long: "
			"a replay (net_pcap) then delivers its first packets to consumers that are "
			"there; the log says which consumers were still missing when it gave up",
	},
	[RPS_SET_CONSUMER_GROUP] = {
		.name = "consumer-group", .flag = "consumer-group", .metavar = "GROUP",
		.key = "consumer_group", .section = DATAPLANE, .syntax = "GROUP",
		.type = RPS_SETTING_TEXT, .when = RPS_SETTING_RESTART,
		.def = "none: sockets 0600",
		.help = "make the consumers' sockets 0660 and of GROUP (a name or number), so "
			"that its members' consumers may connect (default: 0600, the user "
			"dpdk-rps runs as only)",
		.doc = "who may connect to a consumer's socket: by default only the user dpdk-rps "
			"runs as (mode 0600, whatever the umask); with a group (a name or number) "
			"the sockets are 0660 and of that group. A client that connects receives "
			"a copy of the traffic ([Security](docs/security.md))",
	},
	[RPS_SET_CONSUMER_SECRET] = {
		.name = "consumer_secret",
		.key = "consumer_secret", .section = DATAPLANE, .syntax = "SECRET[,SECRET...]",
		.type = RPS_SETTING_TEXT, .when = RPS_SETTING_RESTART, .flags = RPS_SETTING_SECRET,
		.def = "none",
		.help = "the memif secret a consumer's client must give (file only)",
		.doc = "the memif secret each consumer's client must give in its handshake "
			"(`secret=` of a DPDK memif client): one for all, or one per consumer in "
			"order; 1 to 24 characters, no `,`, `=` or space. In the configuration file "
			"only (a command line shows in `ps`); no message, log or reply shows it",
	},
	[RPS_SET_CONSUMER_MODE] = {
		.name = "consumer-mode", .flag = "consumer-mode", .metavar = "tap|inline",
		.key = "consumer_mode", .section = DATAPLANE, .syntax = "tap|inline",
		.type = RPS_SETTING_ENUM, .when = RPS_SETTING_RESTART,
		.values = "tap|inline",
		.def = "tap",
		.help = "tap (the default): consumers get a copy beside the forward; inline: with "
			"--forward, group 0's consumers are in the path, what one returns leaves by "
			"the pair's other port and what it does not return is dropped (its verdict)",
		.doc = "what group 0's consumers are to an inline pair (`--forward`): `tap` (the "
			"default), analysers beside it that get a copy of each packet while the "
			"packet is forwarded; `inline`, in the path: each packet goes from its "
			"worker to its consumer of group 0 in place of its forward, on the "
			"consumer's ring for the packet's direction (the endpoint offers two rings "
			"each way per pair, and a client must open them all: `--rxq 2 --txq 2` for "
			"one pair), and what the consumer sends back on that ring leaves by the "
			"pair's other port; what it does not return is its verdict to drop. The "
			"other groups stay taps. Needs `--forward` with every RX port in a pair, or "
			"`--tx-port` and no pair (one ring each way: what the consumers return leaves "
			"by the TX port), and one consumer per worker in group 0 (its `K` the number "
			"of workers); "
			"idle workers then nap (`--idle-sleep`) rather than sleep in the kernel, "
			"to take the returns ([Consumers](docs/consumers.md#in-the-path))",
	},
	[RPS_SET_CONSUMER_FAIL] = {
		.name = "consumer-fail", .flag = "consumer-fail", .metavar = "open|closed",
		.key = "consumer_fail", .section = DATAPLANE, .syntax = "open|closed",
		.type = RPS_SETTING_ENUM, .when = RPS_SETTING_RESTART,
		.values = "open|closed",
		.def = "closed",
		.help = "--consumer-mode inline: what happens to a packet whose consumer is absent "
			"or full: closed (the default) drops it, open forwards it directly",
		.doc = "with `--consumer-mode inline`, what happens to a packet whose consumer is "
			"not connected or whose ring is full: `closed` (the default) drops it, "
			"counted `consumer_absent` or `consumer_full`, so nothing crosses "
			"uninspected; `open` forwards it by the pair's other port as if there were "
			"no consumer, counted `fail_open` per consumer and reason, so traffic keeps "
			"flowing while an analyser restarts. A consumer's ring that fills under "
			"load fails open too: packets of one flow may then overtake those still in "
			"the consumer",
	},
	[RPS_SET_BYPASS_AFTER] = {
		.name = "bypass-after", .flag = "bypass-after", .metavar = "BYTES",
		.key = "bypass_after", .section = DATAPLANE, .syntax = "BYTES",
		.type = RPS_SETTING_U32, .when = RPS_SETTING_RESTART, .flags = RPS_SETTING_BYTES,
		.lo = 0, .hi = UINT32_MAX, .what = "", .unit = " bytes (or with K, M, G)",
		.def = "0",
		.help = "a flow's later packets skip the consumers once it carried BYTES (both "
			"directions; K, M, G suffixes): in the path they go straight out, taps no "
			"longer get them; 0 = never (default)",
		.doc = "a stream depth per flow: once a flow (both directions counted, by the "
			"flow stage) carried this many bytes it is bypassed, and its later packets "
			"skip the consumers: [in the path](docs/consumers.md#in-the-path) they are "
			"forwarded directly, taps no longer get a copy. The bypass starts once the "
			"consumer holds nothing of its worker's (every packet it was sent came back), "
			"a second after the depth at the latest, so the flow stays in order; it lives "
			"in the worker's flow table and ends with the flow. Counted `flows_bypassed`, "
			"`bypassed` and `bypassed_bytes`, shown per flow in `/rps/flows`. "
			"A consumer may also ask for a flow's bypass itself "
			"([Consumers](docs/consumers.md#asking-for-a-bypass)). "
			"`K`, `M`, `G` multiply by 1024; needs the `flow` stage and consumers; 0 = "
			"never",
	},
	[RPS_SET_CONSUMER_FILTER] = {
		.name = "consumer-filter", .flag = "consumer-filter", .metavar = "G=EXPR",
		.type = RPS_SETTING_TEXT, .when = RPS_SETTING_START,
		.def = "none",
		.help = "consumer group G receives only the packets that match EXPR, a tcpdump "
			"expression (pcap-filter(7)), compiled by libpcap and run by librte_bpf "
			"(JIT where the CPU has it); the others are counted filtered for it and go "
			"on to the other groups; repeatable, one per group, before the file's "
			"[consumers] filter.G",
		.doc = "consumer group `G` (0 is the first of `--consumers K,K...`) receives only "
			"the packets that match `EXPR`, a tcpdump expression "
			"([pcap-filter(7)](https://www.tcpdump.org/manpages/pcap-filter.7.html): "
			"`tcp port 443`, `udp and not net 198.18.0.0/16`, `vlan and tcp`): libpcap "
			"compiles it for Ethernet frames, DPDK's librte_bpf converts it to eBPF and "
			"runs it (compiled to native code where DPDK has a JIT for the CPU). What it "
			"refuses is counted `filtered` for the group's consumer and goes on to the "
			"other groups (in the path: past the consumer, forwarded). One per group; "
			"it stands before the configuration file's `filter.G` of `[consumers]`, which "
			"a reload may change. A bad expression exits 2 naming the group and "
			"libpcap's message ([Filters](docs/consumers.md#filters))",
	},
	[RPS_SET_RULE] = {
		.name = "rule", .flag = "rule", .metavar = "RULE",
		.type = RPS_SETTING_TEXT, .when = RPS_SETTING_START,
		.def = "none",
		.help = "a steering rule checked before the map, as ethtool -N: '[tcp|udp|icmp] "
			"[src PREFIX] [dst PREFIX] [sport P[-Q]] [dport P[-Q]] -> worker N|consumer "
			"N|drop'; repeatable, the first match wins, at most 256 with the file's "
			"[rules]",
		.doc = "a steering rule, matched before the map on the RX lcore: `[tcp|udp|icmp|any] "
			"[src PREFIX] [dst PREFIX] [sport PORT|LO-HI] [dport PORT|LO-HI] -> worker "
			"N|consumer N|drop` (`tcp dport 443 -> worker 3`, `src 198.18.0.0/16 -> "
			"drop`), IPv4 or IPv6 prefixes. Repeat it for several; they come before the "
			"configuration file's `[rules]` lines, the first that matches wins, at most 256 "
			"in all. `worker N` is the index `/rps/workers` shows, `consumer N` (with "
			"`--consumers`) the worker that feeds it, `drop` counts the drop reason `rule`. "
			"A bad rule exits 2 naming it ([Steering rules](docs/rules.md))",
	},
	[RPS_SET_METRICS] = {
		.name = "metrics", .flag = "metrics", .metavar = "ADDR:PORT",
		.key = "metrics", .section = DATAPLANE, .syntax = "ADDR:PORT|off",
		.type = RPS_SETTING_TEXT, .when = RPS_SETTING_RESTART,
		.def = "off",
		.help = "serve the counters for Prometheus over HTTP at "
			"http://ADDR:PORT/metrics (text format 0.0.4, or OpenMetrics): "
			"PORT alone listens on 127.0.0.1, [IPV6]:PORT, 0.0.0.0:PORT on every "
			"address, port 0 a free one (/rps/info says which); off (the default). Up "
			"to 1024 clients at once, one silent for 5 s is closed",
		.doc = "serve every counter for Prometheus over HTTP at `http://ADDR:PORT/metrics` "
			"([Metrics](#metrics-prometheus)): `9100` listens on 127.0.0.1, "
			"`0.0.0.0:9100` on every IPv4 address, `[::1]:9100` on IPv6, port 0 on a free "
			"port (`/rps/info` says which); `off`. No host names. A bad value, an address "
			"this host lacks or a port in use exits 2, before the ports are set up. Up to "
			"1024 clients at once (fewer under a low `ulimit -n`: half the descriptors "
			"free at start), a connection silent for 5 s is closed, so clients that send "
			"half a request cannot hold up a scrape",
	},
	[RPS_SET_HELP] = {
		.name = "help", .flag = "help",
		.type = RPS_SETTING_SWITCH, .when = RPS_SETTING_START,
		.def = "",
		.help = "show this help and exit",
		.doc = "every option, then exit 0",
	},
};

int
rps_consumer_socket_check(const char *tmpl, unsigned int nb, const char **why)
{
	const char *pct = strchr(tmpl, '%');
	char last[16];

	if (pct == NULL || pct[1] != 'u' || strchr(pct + 1, '%') != NULL) {
		*why = "expected a path with exactly one %u (the consumer's index) and no other %";
		return -EINVAL;
	}
	if (strpbrk(tmpl, ",=") != NULL) {
		*why = "a ',' or '=' in the path: a DPDK memif client takes its socket path in "
		       "vdev arguments (socket=PATH), which split there";
		return -EINVAL;
	}
	snprintf(last, sizeof(last), "%u", nb > 0 ? nb - 1 : 0);
	/* - 1 for the NUL, - 1 kept spare (sun_path holds 108 bytes) */
	if (strlen(tmpl) - 2 + strlen(last) > RPS_CONSUMER_PATH_MAX - 2) {
		*why = "the path is too long for a socket (at most 106 characters with the index)";
		return -ENAMETOOLONG;
	}
	return 0;
}

int
rps_consumer_secret_parse(const char *text, char out[][RPS_CONSUMER_SECRET_MAX + 1],
			  unsigned int *nb, const char **why)
{
	unsigned int n = 0;
	size_t len = 0;

	for (const char *p = text;; p++) {
		if (*p == ',' || *p == '\0') {
			if (len == 0) {
				*why = "expected SECRET or SECRET,SECRET,... (none empty)";
				return -EINVAL;
			}
			if (n >= RPS_CONSUMERS_MAX) {
				*why = "more secrets than consumers can be (16)";
				return -EINVAL;
			}
			memcpy(out[n], p - len, len);
			out[n][len] = '\0';
			n++;
			len = 0;
			if (*p == '\0')
				break;
			continue;
		}
		if (*p == '=' || *p <= ' ' || *p > '~') {
			*why = "a secret holds printable characters other than ',', '=' and space";
			return -EINVAL;
		}
		if (++len > RPS_CONSUMER_SECRET_MAX) {
			*why = "a secret is at most 24 characters (memif's)";
			return -EINVAL;
		}
	}
	*nb = n;
	return 0;
}

const struct rps_setting *
rps_setting_by_flag(const char *flag)
{
	for (unsigned int i = 0; i < RPS_SET_NB; i++)
		if (rps_settings[i].flag != NULL && strcmp(rps_settings[i].flag, flag) == 0)
			return &rps_settings[i];
	return NULL;
}

const struct rps_setting *
rps_setting_by_key(const char *section, const char *key)
{
	for (unsigned int i = 0; i < RPS_SET_NB; i++)
		if (rps_settings[i].key != NULL && strcmp(rps_settings[i].section, section) == 0 &&
		    strcmp(rps_settings[i].key, key) == 0)
			return &rps_settings[i];
	return NULL;
}

const char *
rps_setting_when_name(enum rps_setting_when when)
{
	switch (when) {
	case RPS_SETTING_LIVE:
		return "live";
	case RPS_SETTING_RESTART:
		return "restart";
	default:
		return "start";
	}
}

/* "a, b or c" from "a|b|c" into @p buf. */
static void
words(const char *values, char *buf, size_t len)
{
	size_t pos = 0, n = 0;
	const char *v = values;

	buf[0] = '\0';
	for (const char *p = values; *p != '\0'; p++)
		n += *p == '|';
	for (size_t i = 0; i <= n && pos < len; i++) {
		const char *end = strchr(v, '|');
		int w = end != NULL ? (int)(end - v) : (int)strlen(v);

		pos += (size_t)snprintf(buf + pos, len - pos, "%s%.*s",
					i == 0 ? "" : i == n ? " or " : ", ", w, v);
		v += w + 1;
	}
}

void
rps_setting_store(void *dst, size_t size, int64_t v)
{
	uint8_t u8 = (uint8_t)v;
	uint16_t u16 = (uint16_t)v;
	uint32_t u32 = (uint32_t)v;

	memcpy(dst, size == 1 ? (void *)&u8 : size == 2 ? (void *)&u16 : (void *)&u32, size);
}

void
rps_setting_range(const struct rps_setting *s, int file, char *buf, size_t len)
{
	switch (s->type) {
	case RPS_SETTING_U32:
	case RPS_SETTING_POW2:
		snprintf(buf, len, "%s%" PRIu64 "..%" PRIu64 "%s%s%s", s->what, s->lo, s->hi,
			 s->unit, file && (s->flags & RPS_SETTING_FILE_WORD) ? " or " : "",
			 file && (s->flags & RPS_SETTING_FILE_WORD) ? s->word : "");
		break;
	case RPS_SETTING_BOOL:
		snprintf(buf, len, "on or off%s", file ? " (or yes/no, true/false, 1/0)" : "");
		break;
	case RPS_SETTING_ENUM: {
		char w[96];

		words(s->values, w, sizeof(w));
		/* symmetric's on and off are booleans in the file */
		snprintf(buf, len, "%s%s", w, file && rps_setting_id(s) == RPS_SET_SYMMETRIC ?
			 " (or yes/no, true/false, 1/0)" : "");
		break;
	}
	default:
		if (len > 0)
			buf[0] = '\0';
	}
}

int
rps_consumers_parse(const char *text, uint16_t *sizes, uint16_t *nb_groups, uint32_t *total,
		    const char **why)
{
	uint16_t k[RPS_CONSUMER_GROUPS_MAX], nb = 0;
	uint32_t sum = 0;
	const char *p = text;

	for (;;) {
		char *end;
		unsigned long v;

		if (!isdigit((unsigned char)*p))
			goto syntax;
		v = strtoul(p, &end, 10);
		if (end - p > 3)
			v = ULONG_MAX; /* no wrap-around on long digit strings */
		if (v == 0 && nb == 0 && *end == '\0') {
			*nb_groups = 0; /* off */
			*total = 0;
			return 0;
		}
		if (v == 0 || v > RPS_CONSUMERS_MAX) {
			*why = "expected 1..16 consumers in each group (0 alone: off)";
			return -EINVAL;
		}
		if (nb == RPS_CONSUMER_GROUPS_MAX) {
			*why = "at most " RTE_STR(RPS_CONSUMER_GROUPS_MAX) " groups";
			return -EINVAL;
		}
		k[nb++] = (uint16_t)v;
		sum += (uint32_t)v;
		if (sum > RPS_CONSUMERS_MAX) {
			*why = "at most " RTE_STR(RPS_CONSUMERS_MAX) " consumers in all groups";
			return -EINVAL;
		}
		if (*end == '\0')
			break;
		if (*end != ',')
			goto syntax;
		p = end + 1;
	}
	memcpy(sizes, k, sizeof(k[0]) * nb);
	*nb_groups = nb;
	*total = sum;
	return 0;
syntax:
	*why = "expected K or a list of groups K,K... (0 alone: off)";
	return -EINVAL;
}

int
rps_forward_parse(const char *text, struct rps_fwd_pair *pairs, uint16_t *n, const char **why)
{
	struct rps_fwd_pair add[RPS_FORWARD_MAX];
	uint16_t nb = *n, k = 0;
	const char *p = text;

	for (;;) {
		char *end;
		unsigned long a, b;

		if (!isdigit((unsigned char)*p))
			goto syntax;
		a = strtoul(p, &end, 10);
		if (*end != ':' || !isdigit((unsigned char)end[1]))
			goto syntax;
		b = strtoul(end + 1, &end, 10);
		if (a >= RTE_MAX_ETHPORTS || b >= RTE_MAX_ETHPORTS) {
			*why = "a port number above the ports DPDK can have";
			return -EINVAL;
		}
		if (a == b) {
			*why = "a port paired with itself";
			return -EINVAL;
		}
		if (nb + k == RPS_FORWARD_MAX) {
			*why = "at most " RTE_STR(RPS_FORWARD_MAX) " pairs";
			return -EINVAL;
		}
		for (uint16_t i = 0; i < nb + k; i++) {
			const struct rps_fwd_pair *q = i < nb ? &pairs[i] : &add[i - nb];

			if (q->a == a || q->b == a || q->a == b || q->b == b) {
				*why = "a port in two pairs";
				return -EINVAL;
			}
		}
		add[k].a = (uint16_t)a;
		add[k].b = (uint16_t)b;
		k++;
		if (*end == '\0')
			break;
		if (*end != ',')
			goto syntax;
		p = end + 1;
	}
	memcpy(&pairs[nb], add, sizeof(add[0]) * k);
	*n = (uint16_t)(nb + k);
	return 0;
syntax:
	*why = "expected port pairs A:B (a list: 0:1,2:3)";
	return -EINVAL;
}

static int
parse_bool(const char *v, int file, int64_t *out)
{
	static const char *const yes[] = { "on", "yes", "true", "1" };
	static const char *const no[] = { "off", "no", "false", "0" };

	for (unsigned int i = 0; i < (file ? RTE_DIM(yes) : 1); i++) {
		if ((file ? strcasecmp(v, yes[i]) : strcmp(v, yes[i])) == 0) {
			*out = 1;
			return 0;
		}
		if ((file ? strcasecmp(v, no[i]) : strcmp(v, no[i])) == 0) {
			*out = 0;
			return 0;
		}
	}
	return -EINVAL;
}

static int
parse_enum(const struct rps_setting *s, const char *v, int file, int64_t *out)
{
	enum rps_hash_mode mode;
	enum rps_sym_mode sym;

	switch (rps_setting_id(s)) {
	case RPS_SET_HASH:
		if (rps_hash_mode_parse(v, &mode) < 0)
			return -EINVAL;
		*out = mode;
		return 0;
	case RPS_SET_SYMMETRIC:
		if (!file || rps_sym_mode_parse(v, &sym) < 0)
			return -EINVAL;
		*out = sym;
		return 0;
	case RPS_SET_IDLE_WAIT:
		if (strcmp(v, "futex") == 0 || strcmp(v, "monitor") == 0) {
			*out = strcmp(v, "monitor") == 0;
			return 0;
		}
		return -EINVAL;
	case RPS_SET_CONSUMER_MODE:
		if (strcmp(v, "tap") == 0 || strcmp(v, "inline") == 0) {
			*out = strcmp(v, "inline") == 0;
			return 0;
		}
		return -EINVAL;
	case RPS_SET_ELEPHANT_ACTION:
		if (strcmp(v, "none") == 0 || strcmp(v, "bypass") == 0 ||
		    strcmp(v, "isolate") == 0) {
			*out = strcmp(v, "none") == 0 ? RPS_ELEPHANT_NONE :
			       strcmp(v, "bypass") == 0 ? RPS_ELEPHANT_BYPASS : RPS_ELEPHANT_ISOLATE;
			return 0;
		}
		return -EINVAL;
	case RPS_SET_CONSUMER_FAIL:
		if (strcmp(v, "open") == 0 || strcmp(v, "closed") == 0) {
			*out = strcmp(v, "open") == 0;
			return 0;
		}
		return -EINVAL;
	case RPS_SET_BACKPRESSURE:
		if (strcmp(v, "auto") == 0) {
			*out = -1;
			return 0;
		}
		return parse_bool(v, 0, out);
	default:
		return -ENOTSUP;
	}
}

int
rps_setting_parse(const struct rps_setting *s, const char *text, int file, int64_t *out,
		  char *why, size_t why_len)
{
	char range[160];
	uint64_t v = 0;
	int rc;

	if ((file ? s->key : s->flag) == NULL)
		return -ENOTSUP;
	switch (s->type) {
	case RPS_SETTING_U32:
	case RPS_SETTING_POW2:
		if (file && (s->flags & RPS_SETTING_FILE_WORD) && strcmp(text, s->word) == 0) {
			*out = -1;
			return 0;
		}
		if ((s->flags & RPS_SETTING_RATE) && strcmp(text, "off") == 0) {
			*out = 0;
			return 0;
		}
		if ((s->flags & RPS_SETTING_RATE) && *text != '\0' &&
		    strchr("KMG", text[strlen(text) - 1]) != NULL) {
			/* 100M: the number before the suffix, times 1000 per step */
			char num[32];
			const size_t len = strlen(text) - 1;
			const uint64_t mul = text[len] == 'K' ? 1000 : text[len] == 'M' ? 1000000 :
					     1000000000;

			if (len == 0 || len >= sizeof(num)) {
				rc = -EINVAL;
				break;
			}
			memcpy(num, text, len);
			num[len] = '\0';
			rc = rps_number_parse(num, 0, s->hi / mul, &v);
			v *= mul;
			if (rc == 0 && v < s->lo)
				rc = -ERANGE;
			break;
		}
		if ((s->flags & RPS_SETTING_BYTES) && *text != '\0' &&
		    strchr("KMG", text[strlen(text) - 1]) != NULL) {
			/* 1M: the number before the suffix, times 1024 per step */
			char num[32];
			const size_t len = strlen(text) - 1;
			const unsigned int shift = text[len] == 'K' ? 10 : text[len] == 'M' ? 20 : 30;

			if (len == 0 || len >= sizeof(num)) {
				rc = -EINVAL;
				break;
			}
			memcpy(num, text, len);
			num[len] = '\0';
			rc = rps_number_parse(num, 0, s->hi >> shift, &v);
			v <<= shift;
			if (rc == 0 && v < s->lo)
				rc = -ERANGE;
			break;
		}
		rc = rps_number_parse(text, s->lo, s->hi, &v);
		if (rc == 0 && s->type == RPS_SETTING_POW2 && (v & (v - 1)) != 0)
			rc = -ERANGE;
		break;
	case RPS_SETTING_BOOL:
		rc = parse_bool(text, file, out);
		break;
	case RPS_SETTING_ENUM:
		rc = parse_enum(s, text, file, out);
		if (rc == -ENOTSUP)
			return rc;
		break;
	default:
		return -ENOTSUP;
	}
	if (rc == 0) {
		if (s->type == RPS_SETTING_U32 || s->type == RPS_SETTING_POW2)
			*out = (int64_t)v;
		return 0;
	}
	rps_setting_range(s, file, range, sizeof(range));
	if (!file && rc == -EINVAL && (s->type == RPS_SETTING_U32 || s->type == RPS_SETTING_POW2))
		snprintf(why, why_len, "not a number (" RPS_NUMBER_SYNTAX ")");
	else
		snprintf(why, why_len, "expected %s", range);
	return rc;
}
