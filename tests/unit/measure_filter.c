/* SPDX-License-Identifier: BSD-3-Clause */
/* measure_filter.c: cycles per packet of a consumer group's filter (rps_filter.h): a port
 * test and a 20-term expression, JIT-compiled and interpreted by librte_bpf, against
 * libpcap's own interpreter, over 4096 warm IPv4/IPv6 TCP/UDP frames. A measurement, not a
 * test: built, not registered; run build/tests/unit/measure_filter (docs/benchmarks.md). */
#include <stdio.h>
#include <string.h>

#include <CUnit/Basic.h>
#include <pcap/pcap.h>
#include <rte_cycles.h>

#include "rps_filter.h"
#include "test_common.h"

#define NPKT 4096
#define ROUNDS 200

static struct rte_mbuf *pk[NPKT];

/* 20 terms: what a broker's tool asks for (ports, nets, a protocol, flags) */
static const char twenty[] =
	"(tcp and (port 80 or port 443 or port 8080 or port 8443 or port 25 or port 110 or "
	"port 143 or port 993)) or (udp and (port 53 or port 123 or port 161 or port 514 or "
	"portrange 5060-5061)) or net 10.0.0.0/8 or net 192.168.0.0/16 or "
	"net 2001:db8:ff::/48 or icmp or icmp6 or (tcp[tcpflags] & (tcp-syn|tcp-fin) != 0) or "
	"vlan 100";

static void
make(void)
{
	uint64_t s = 42;

	for (unsigned int i = 0; i < NPKT; i++) {
		struct ut_pkt p;
		uint64_t r = ut_rand(&s);

		/* a quarter to port 80 or 53 */
		const uint16_t dport = (r >> 60) == 0 ? 80 : (r >> 60) == 1 ? 53 : (uint16_t)(r >> 50);

		if (r & 1)
			ut_pkt_v4(&p, UT_IP4(r & 0x1ffff), UT_IP4((r >> 17) & 0x1ffff),
				  (r >> 40) & 1 ? IPPROTO_TCP : IPPROTO_UDP, (uint16_t)(r >> 34),
				  dport);
		else
			ut_pkt_v6(&p, (uint32_t)r, (uint32_t)(r >> 32),
				  (r >> 40) & 1 ? IPPROTO_TCP : IPPROTO_UDP, (uint16_t)(r >> 7),
				  dport);
		pk[i] = ut_mbuf(p.b, p.len);
	}
}

static double
cycles_rps(const struct rps_filter *f, unsigned int *hits)
{
	uint64_t best = UINT64_MAX;

	for (int r = 0; r < ROUNDS; r++) {
		uint64_t t0 = rte_rdtsc_precise(), t;

		*hits = 0;
		for (unsigned int i = 0; i < NPKT; i++)
			*hits += (unsigned int)rps_filter_match(f, pk[i]);
		t = rte_rdtsc_precise() - t0;
		best = t < best ? t : best;
	}
	return (double)best / NPKT;
}

static double
cycles_libpcap(const struct bpf_program *prog, unsigned int *hits)
{
	uint64_t best = UINT64_MAX;

	for (int r = 0; r < ROUNDS; r++) {
		uint64_t t0 = rte_rdtsc_precise(), t;

		*hits = 0;
		for (unsigned int i = 0; i < NPKT; i++) {
			struct pcap_pkthdr h = { .caplen = pk[i]->data_len, .len = pk[i]->pkt_len };

			*hits += pcap_offline_filter(prog, &h, rte_pktmbuf_mtod(pk[i], uint8_t *)) != 0;
		}
		t = rte_rdtsc_precise() - t0;
		best = t < best ? t : best;
	}
	return (double)best / NPKT;
}

static void
measure(void)
{
	const char *const exprs[] = { "tcp port 80", twenty };
	const char *const names[] = { "tcp port 80", "20 terms" };
	pcap_t *pc = pcap_open_dead(DLT_EN10MB, 65535);

	make();
	printf("\ncycles per packet, best of %d rounds of %d warm frames (TSC %.2f GHz)\n",
	       ROUNDS, NPKT, rte_get_tsc_hz() / 1e9);
	printf("%-12s %6s %6s %10s %12s %10s %8s\n", "expression", "cBPF", "eBPF", "JIT",
	       "interpreted", "libpcap", "matches");
	for (unsigned int e = 0; e < RTE_DIM(exprs); e++) {
		struct rps_filter *jit = NULL, *interp = NULL;
		struct bpf_program prog;
		unsigned int h1, h2, h3;
		double cj, ci, cl;
		char err[256];

		CU_ASSERT_EQUAL_FATAL(rps_filter_compile(exprs[e], 1, &jit, err, sizeof(err)), 0);
		CU_ASSERT_EQUAL_FATAL(rps_filter_compile(exprs[e], 0, &interp, err, sizeof(err)), 0);
		CU_ASSERT_EQUAL_FATAL(pcap_compile(pc, &prog, exprs[e], 1, PCAP_NETMASK_UNKNOWN), 0);
		cj = cycles_rps(jit, &h1);
		ci = cycles_rps(interp, &h2);
		cl = cycles_libpcap(&prog, &h3);
		CU_ASSERT(h1 == h2 && h2 == h3);
		if (jit->jit != NULL)
			printf("%-12s %6u %6u %10.1f", names[e], jit->cbpf_insns, jit->ebpf_insns,
			       cj);
		else
			printf("%-12s %6u %6u %10s", names[e], jit->cbpf_insns, jit->ebpf_insns,
			       "no JIT");
		printf(" %12.1f %10.1f %8u\n", ci, cl, h1);
		pcap_freecode(&prog);
		rps_filter_free(jit);
		rps_filter_free(interp);
	}
	printf("(20 terms: %s)\n", twenty);
	pcap_close(pc);
	for (unsigned int i = 0; i < NPKT; i++)
		rte_pktmbuf_free(pk[i]);
}

int
main(int argc, char **argv)
{
	static CU_TestInfo tests[] = {
		{ "measure", measure },
		CU_TEST_INFO_NULL,
	};

	return ut_main(argc, argv, "measure_filter", tests);
}
