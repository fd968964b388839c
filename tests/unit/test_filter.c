/* SPDX-License-Identifier: BSD-3-Clause */
/* test_filter.c: lib/stages/filter.c: tcpdump expressions compiled to librte_bpf programs,
 * judged against libpcap's own interpreter (what tcpdump runs) on the same frames. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <CUnit/Basic.h>
#include <pcap/pcap.h>

#include "rps_filter.h"
#include "test_common.h"

#define NPKT 512

/* A frame of kind @p r: IPv4 or IPv6, TCP or UDP, maybe VLAN-tagged, random ports
 * (often 53, 80, 443), a random payload length. */
static void
frame(struct ut_pkt *p, uint64_t r)
{
	static const uint16_t ports[] = { 53, 80, 443, 1000, 5201 };
	const uint8_t proto = (r & 1) ? IPPROTO_TCP : IPPROTO_UDP;
	const uint16_t sp = (r >> 8) & 1 ? ports[(r >> 9) % 5] : (uint16_t)(r >> 12);
	const uint16_t dp = (r >> 28) & 1 ? ports[(r >> 29) % 5] : (uint16_t)(r >> 32);
	const uint16_t vlan = (r >> 2) % 4 == 0 ? (uint16_t)(1 + ((r >> 48) & 0xfff)) : 0;
	uint8_t a[16], b[16], pay[200];

	ut_ip6(a, r >> 5, (uint32_t)(r >> 40) & 0x1ffff);
	ut_ip6(b, r >> 7, (uint32_t)(r >> 20) & 0x1ffff);
	if (!((r >> 1) & 1)) { /* IPv4: 198.18.0.0/15 */
		const uint32_t sa = rte_cpu_to_be_32(UT_IP4((r >> 40) & 0x1ffff));
		const uint32_t da = rte_cpu_to_be_32(UT_IP4((r >> 20) & 0x1ffff));

		memcpy(a, &sa, 4);
		memcpy(b, &da, 4);
	}
	ut_pkt_conn(p, (r >> 1) & 1, proto, 0, vlan, a, b, sp, dp);
	memset(pay, 0x5a, sizeof(pay));
	ut_put(p, pay, (uint16_t)((r >> 52) % sizeof(pay)));
	ut_pkt_finish(p);
}

/* Whether libpcap's own interpreter accepts @p data (the reference: what tcpdump runs). */
static int
reference(const struct bpf_program *prog, const uint8_t *data, uint16_t len)
{
	struct pcap_pkthdr h = { .caplen = len, .len = len };

	return pcap_offline_filter(prog, &h, data) != 0;
}

static const char *const exprs[] = {
	"tcp port 80", "udp and not port 53", "ip6 and tcp", "vlan and udp", "vlan 7 or ip",
	"tcp[tcpflags] & tcp-syn != 0", "ip[6:2] & 0x1fff = 0", "ether[0] & 1 = 0",
	"greater 120", "net 198.18.0.0/24 or net 2001:db8::/32", "portrange 400-1000",
	"tcp and (port 443 or port 5201) and not src net 198.19.0.0/16",
	"ip6 and ip6[6] = 17", "udp[8:2] = 0x5a5a or tcp[20] = 0x5a",
};

/* Every expression over random frames, whole and split in two segments: the JIT's verdict,
 * the interpreter's and libpcap's agree on every frame. */
static void
test_against_libpcap(void)
{
	pcap_t *pc = pcap_open_dead(DLT_EN10MB, 65535);
	uint64_t s = 7;
	unsigned int matched = 0, checked = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(pc);
	for (unsigned int e = 0; e < RTE_DIM(exprs); e++) {
		struct rps_filter *jit = NULL, *interp = NULL;
		struct bpf_program prog;
		char err[256];

		if (rps_filter_compile(exprs[e], 1, &jit, err, sizeof(err)) < 0 ||
		    rps_filter_compile(exprs[e], 0, &interp, err, sizeof(err)) < 0) {
			printf("\n'%s': %s\n", exprs[e], err);
			CU_FAIL_FATAL("an expression does not compile");
		}
		CU_ASSERT_PTR_NULL(interp->jit);
		CU_ASSERT_STRING_EQUAL(jit->text, exprs[e]);
		CU_ASSERT(jit->cbpf_insns > 0 && jit->ebpf_insns >= jit->cbpf_insns);
		CU_ASSERT_EQUAL_FATAL(pcap_compile(pc, &prog, exprs[e], 1, PCAP_NETMASK_UNKNOWN), 0);
		for (unsigned int i = 0; i < NPKT; i++) {
			struct ut_pkt p;
			struct rte_mbuf *m, *m2;
			int want;

			frame(&p, ut_rand(&s));
			want = reference(&prog, p.b, p.len);
			m = ut_mbuf_exact(p.b, p.len);
			m2 = ut_mbuf_split(p.b, p.len, (uint16_t)(1 + ut_rand(&s) % (p.len - 1)));
			CU_ASSERT_PTR_NOT_NULL_FATAL(m);
			CU_ASSERT_PTR_NOT_NULL_FATAL(m2);
			const int v[4] = { rps_filter_match(jit, m), rps_filter_match(interp, m),
					   rps_filter_match(jit, m2), rps_filter_match(interp, m2) };

			if (v[0] != want || v[1] != want || v[2] != want || v[3] != want) {
				printf("\n'%s', frame %u (%u bytes, split at %u): libpcap %d, JIT %d, "
				       "interpreted %d, split: JIT %d, interpreted %d\n", exprs[e], i,
				       p.len, m2->data_len, want, v[0], v[1], v[2], v[3]);
				rte_pktmbuf_free(m);
				rte_pktmbuf_free(m2);
				CU_FAIL_FATAL("a verdict differs from libpcap's");
			}
			matched += (unsigned int)want;
			checked++;
			rte_pktmbuf_free(m);
			rte_pktmbuf_free(m2);
		}
		pcap_freecode(&prog);
		rps_filter_free(jit);
		rps_filter_free(interp);
	}
	pcap_close(pc);
	/* the frames exercise both verdicts */
	CU_ASSERT(matched > checked / 10 && matched < checked - checked / 10);
	printf("\n%u verdicts agree with libpcap's (%u matches)\n", checked, matched);
}

/* libpcap's semantics, which tcpdump users expect: "tcp" is no VLAN-tagged segment. */
static void
test_vlan_semantics(void)
{
	static const uint8_t a[16] = { 198, 18, 0, 1 }, b[16] = { 198, 18, 0, 2 };
	struct rps_filter *tcp = NULL, *vtcp = NULL;
	struct rte_mbuf *plain, *tagged;
	struct ut_pkt p;
	char err[128];

	CU_ASSERT_EQUAL_FATAL(rps_filter_compile("tcp port 80", 1, &tcp, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(rps_filter_compile("vlan and tcp port 80", 1, &vtcp, err,
						 sizeof(err)), 0);
	ut_pkt_conn(&p, 0, IPPROTO_TCP, 0, 0, a, b, 1234, 80);
	plain = ut_mbuf(p.b, p.len);
	ut_pkt_conn(&p, 0, IPPROTO_TCP, 0, 5, a, b, 1234, 80);
	tagged = ut_mbuf(p.b, p.len);
	CU_ASSERT(rps_filter_match(tcp, plain));
	CU_ASSERT(!rps_filter_match(tcp, tagged));
	CU_ASSERT(!rps_filter_match(vtcp, plain));
	CU_ASSERT(rps_filter_match(vtcp, tagged));
	rte_pktmbuf_free(plain);
	rte_pktmbuf_free(tagged);
	rps_filter_free(tcp);
	rps_filter_free(vtcp);
}

/* A bad expression says libpcap's reason; nothing is left allocated. */
static void
test_bad(void)
{
	char longer[RPS_FILTER_TEXT_MAX + 2];
	struct rps_filter *f = (void *)1;
	char err[256];

	CU_ASSERT_EQUAL(rps_filter_compile("tcp prot 80", 1, &f, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NULL(f);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "syntax error"));
	CU_ASSERT_EQUAL(rps_filter_compile("port 99999", 1, &f, err, sizeof(err)),
			-EINVAL);
	CU_ASSERT_EQUAL(rps_filter_compile("", 1, &f, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "empty"));
	CU_ASSERT_EQUAL(rps_filter_compile("  \t", 1, &f, err, sizeof(err)), -EINVAL);
	memset(longer, 'x', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	CU_ASSERT_EQUAL(rps_filter_compile(longer, 1, &f, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "at most 1023"));
	rps_filter_free(NULL);
	rps_filter_set_free(NULL);
}

int
main(int argc, char **argv)
{
	static CU_TestInfo tests[] = {
		{ "against_libpcap", test_against_libpcap },
		{ "vlan_semantics", test_vlan_semantics },
		{ "bad", test_bad },
		CU_TEST_INFO_NULL,
	};

	return ut_main(argc, argv, "filter", tests);
}
