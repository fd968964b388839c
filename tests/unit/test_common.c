/* SPDX-License-Identifier: BSD-3-Clause */
/* test_common.c: EAL and mbuf-pool set-up, mbufs from raw bytes, packets, the CUnit runner. */
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <CUnit/Basic.h>
#include <rte_byteorder.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include "rps_stage.h"
#include "test_common.h"

static struct rte_mempool *pool;

/*
 * Under -Db_sanitize=...,undefined make undefined behaviour fail the test instead of printing
 * a line nobody reads (meson does not set UBSAN_OPTIONS). UBSAN_OPTIONS in the environment
 * still wins. Unused in other builds.
 */
const char *__ubsan_default_options(void);
const char *
__ubsan_default_options(void)
{
	return "halt_on_error=1:print_stacktrace=1";
}

struct rte_mempool *
ut_pool(void)
{
	return pool;
}

unsigned int
ut_pool_avail(void)
{
	return rte_mempool_avail_count(pool);
}

struct rte_mbuf *
ut_mbuf(const void *data, uint16_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	char *d;

	if (m == NULL)
		return NULL;
	d = rte_pktmbuf_append(m, len);
	if (d == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	if (len > 0)
		memcpy(d, data, len);
	return m;
}

static void
ut_extbuf_free(void *addr, void *opaque)
{
	free(addr);
	free(opaque);
}

struct rte_mbuf *
ut_mbuf_exact(const void *data, uint16_t len)
{
	struct rte_mbuf_ext_shared_info *shinfo;
	struct rte_mbuf *m;
	void *buf;

	m = rte_pktmbuf_alloc(pool);
	if (m == NULL)
		return NULL;
	buf = malloc(len);
	shinfo = calloc(1, sizeof(*shinfo));
	if ((buf == NULL && len > 0) || shinfo == NULL) {
		free(buf);
		free(shinfo);
		rte_pktmbuf_free(m);
		return NULL;
	}
	if (buf == NULL) /* malloc(0) may return NULL; keep a distinct address anyway */
		buf = malloc(1);
	if (buf == NULL) {
		free(shinfo);
		rte_pktmbuf_free(m);
		return NULL;
	}
	shinfo->free_cb = ut_extbuf_free;
	shinfo->fcb_opaque = shinfo;
	rte_mbuf_ext_refcnt_set(shinfo, 1);
	if (len > 0)
		memcpy(buf, data, len);
	rte_pktmbuf_attach_extbuf(m, buf, (rte_iova_t)(uintptr_t)buf, len, shinfo);
	m->data_off = 0;
	m->data_len = len;
	m->pkt_len = len;
	return m;
}

struct rte_mbuf *
ut_mbuf_split(const void *data, uint16_t len, uint16_t split)
{
	struct rte_mbuf *head, *tail;

	if (split == 0 || split >= len)
		return NULL;
	head = ut_mbuf_exact(data, split);
	tail = ut_mbuf_exact((const uint8_t *)data + split, (uint16_t)(len - split));
	if (head == NULL || tail == NULL || rte_pktmbuf_chain(head, tail) != 0) {
		rte_pktmbuf_free(head);
		rte_pktmbuf_free(tail);
		return NULL;
	}
	return head;
}

/* ---- packet builder ---- */

void
ut_pkt_init(struct ut_pkt *p)
{
	memset(p, 0, sizeof(*p));
	p->l3_off = -1;
	p->l4_off = -1;
}

void *
ut_put(struct ut_pkt *p, const void *src, uint16_t n)
{
	void *dst = p->b + p->len;

	if (p->len + n > UT_PKT_MAX) {
		fprintf(stderr, "ut_put: packet builder overflow\n");
		abort();
	}
	if (src != NULL)
		memcpy(dst, src, n);
	else
		memset(dst, 0, n);
	p->len = (uint16_t)(p->len + n);
	return dst;
}

void
ut_put_eth(struct ut_pkt *p, uint16_t ethertype)
{
	struct rte_ether_hdr eh = {
		.dst_addr.addr_bytes = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x02 },
		.src_addr.addr_bytes = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 },
		.ether_type = rte_cpu_to_be_16(ethertype),
	};

	ut_put(p, &eh, sizeof(eh));
}

void
ut_put_vlan(struct ut_pkt *p, uint16_t tci, uint16_t inner)
{
	struct rte_vlan_hdr vh = {
		.vlan_tci = rte_cpu_to_be_16(tci),
		.eth_proto = rte_cpu_to_be_16(inner),
	};

	ut_put(p, &vh, sizeof(vh));
}

void
ut_put_ipv4(struct ut_pkt *p, uint32_t src, uint32_t dst, uint8_t proto, uint8_t opt_len,
	    uint16_t frag)
{
	struct rte_ipv4_hdr ip = {
		.version_ihl = (uint8_t)(0x40 | ((sizeof(ip) + opt_len) / 4)),
		.time_to_live = 64,
		.next_proto_id = proto,
		.packet_id = rte_cpu_to_be_16(0x1234),
		.fragment_offset = rte_cpu_to_be_16(frag),
		.src_addr = rte_cpu_to_be_32(src),
		.dst_addr = rte_cpu_to_be_32(dst),
	};
	uint8_t *opt;

	p->l3_off = p->len;
	p->family = 4;
	ut_put(p, &ip, sizeof(ip));
	opt = ut_put(p, NULL, opt_len);
	memset(opt, 1 /* NOP */, opt_len);
}

void
ut_put_ipv6(struct ut_pkt *p, const uint8_t *src, const uint8_t *dst, uint8_t nh)
{
	struct rte_ipv6_hdr ip = {
		.vtc_flow = rte_cpu_to_be_32(UINT32_C(6) << 28 | 0x12345),
		.proto = nh,
		.hop_limits = 64,
	};

	memcpy(ip.src_addr, src, 16);
	memcpy(ip.dst_addr, dst, 16);
	p->l3_off = p->len;
	p->family = 6;
	ut_put(p, &ip, sizeof(ip));
}

void
ut_put_ipv6_ext(struct ut_pkt *p, uint8_t nh, uint8_t hdr_ext_len)
{
	uint16_t n = (uint16_t)((hdr_ext_len + 1) * 8);
	uint8_t *e = ut_put(p, NULL, n);

	e[0] = nh;
	e[1] = hdr_ext_len;
	/* PadN option over the rest (harmless for routing headers in a unit test) */
	e[2] = 1;
	e[3] = (uint8_t)(n - 4);
}

void
ut_put_ipv6_frag(struct ut_pkt *p, uint8_t nh, uint16_t offset, int more)
{
	uint8_t f[8] = { nh, 0, 0, 0, 0xde, 0xad, 0xbe, 0xef };
	uint16_t v = (uint16_t)(offset << 3 | (more ? 1 : 0));

	f[2] = (uint8_t)(v >> 8);
	f[3] = (uint8_t)v;
	ut_put(p, f, sizeof(f));
}

void
ut_put_tcp(struct ut_pkt *p, uint16_t sport, uint16_t dport)
{
	struct rte_tcp_hdr th = {
		.src_port = rte_cpu_to_be_16(sport),
		.dst_port = rte_cpu_to_be_16(dport),
		.sent_seq = rte_cpu_to_be_32(1),
		.data_off = 5 << 4,
		.tcp_flags = RTE_TCP_ACK_FLAG,
		.rx_win = rte_cpu_to_be_16(65535),
	};

	p->l4_off = p->len;
	ut_put(p, &th, sizeof(th));
}

void
ut_put_udp(struct ut_pkt *p, uint16_t sport, uint16_t dport)
{
	struct rte_udp_hdr uh = {
		.src_port = rte_cpu_to_be_16(sport),
		.dst_port = rte_cpu_to_be_16(dport),
	};

	p->l4_off = p->len;
	ut_put(p, &uh, sizeof(uh));
}

void
ut_put_l4_words(struct ut_pkt *p, uint16_t w0, uint16_t w1)
{
	uint8_t b[8] = { (uint8_t)(w0 >> 8), (uint8_t)w0, (uint8_t)(w1 >> 8), (uint8_t)w1,
			 0xa5, 0xa5, 0xa5, 0xa5 };

	p->l4_off = p->len;
	ut_put(p, b, sizeof(b));
}

void
ut_pkt_finish(struct ut_pkt *p)
{
	if (p->l3_off >= 0 && p->family == 4) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(p->b + p->l3_off);

		ip->total_length = rte_cpu_to_be_16((uint16_t)(p->len - p->l3_off));
		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	} else if (p->l3_off >= 0 && p->family == 6) {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(p->b + p->l3_off);

		ip->payload_len = rte_cpu_to_be_16((uint16_t)(p->len - p->l3_off - sizeof(*ip)));
	}
}

void
ut_pkt_end(struct ut_pkt *p, uint8_t proto, uint16_t sport, uint16_t dport, const void *payload,
	   uint16_t plen, const uint8_t *final_dst)
{
	ut_put_l4(p, proto, sport, dport);
	ut_put(p, payload, plen);
	ut_pkt_finish(p);
	ut_fix_l4(p, proto, final_dst);
}

void
ut_ip6(uint8_t *a, uint64_t mid, uint32_t n)
{
	a[0] = 0x20;
	a[1] = 0x01;
	a[2] = 0x0d;
	a[3] = 0xb8;
	for (int i = 0; i < 8; i++)
		a[4 + i] = (uint8_t)(mid >> (56 - 8 * i));
	for (int i = 0; i < 4; i++)
		a[12 + i] = (uint8_t)(n >> (24 - 8 * i));
}

void
ut_put_l4(struct ut_pkt *p, uint8_t proto, uint16_t sport, uint16_t dport)
{
	if (proto == IPPROTO_TCP)
		ut_put_tcp(p, sport, dport);
	else if (proto == IPPROTO_UDP)
		ut_put_udp(p, sport, dport);
	else
		ut_put_l4_words(p, sport, dport);
}

static void
put_l4(struct ut_pkt *p, uint8_t proto, uint16_t sport, uint16_t dport)
{
	ut_put_l4(p, proto, sport, dport);
	ut_put(p, "payload!", 8);
}

void
ut_pkt_v4(struct ut_pkt *p, uint32_t src, uint32_t dst, uint8_t proto, uint16_t sport,
	  uint16_t dport)
{
	ut_pkt_init(p);
	ut_put_eth(p, RTE_ETHER_TYPE_IPV4);
	ut_put_ipv4(p, src, dst, proto, 0, 0);
	put_l4(p, proto, sport, dport);
	ut_pkt_finish(p);
}

void
ut_pkt_v6(struct ut_pkt *p, uint32_t src_n, uint32_t dst_n, uint8_t proto, uint16_t sport,
	  uint16_t dport)
{
	uint8_t s[16], d[16];

	ut_ip6(s, 0, src_n);
	ut_ip6(d, 0, dst_n);
	ut_pkt_init(p);
	ut_put_eth(p, RTE_ETHER_TYPE_IPV6);
	ut_put_ipv6(p, s, d, proto);
	put_l4(p, proto, sport, dport);
	ut_pkt_finish(p);
}

void
ut_pkt_conn(struct ut_pkt *p, int v6, uint8_t proto, int frag, uint16_t vlan, const uint8_t *a,
	    const uint8_t *b, uint16_t sp, uint16_t dp)
{
	uint16_t et = v6 ? RTE_ETHER_TYPE_IPV6 : RTE_ETHER_TYPE_IPV4;

	ut_pkt_init(p);
	if (vlan != 0) {
		ut_put_eth(p, RTE_ETHER_TYPE_VLAN);
		ut_put_vlan(p, vlan, et);
	} else {
		ut_put_eth(p, et);
	}
	if (v6 && frag) {
		ut_put_ipv6(p, a, b, IPPROTO_FRAGMENT);
		ut_put_ipv6_frag(p, proto, 0, 1);
	} else if (v6) {
		ut_put_ipv6(p, a, b, proto);
	} else {
		uint32_t s, d;

		memcpy(&s, a, 4);
		memcpy(&d, b, 4);
		ut_put_ipv4(p, rte_be_to_cpu_32(s), rte_be_to_cpu_32(d), proto, 0,
			    frag ? RTE_IPV4_HDR_MF_FLAG : 0);
	}
	ut_put_l4(p, proto, sp, dp);
	ut_pkt_finish(p);
}

void
ut_put_ah(struct ut_pkt *p, uint8_t nh, uint8_t plen)
{
	uint8_t *a = ut_put(p, NULL, (uint16_t)((plen + 2) * 4));

	a[0] = nh;
	a[1] = plen;
	for (int i = 4; i < (plen + 2) * 4; i++)
		a[i] = (uint8_t)(0x40 + i);
}

uint8_t *
ut_put_rh(struct ut_pkt *p, uint8_t nh, uint8_t type, uint8_t segleft, uint8_t naddr)
{
	uint8_t *r = ut_put(p, NULL, (uint16_t)(8 + 16 * naddr));

	r[0] = nh;
	r[1] = (uint8_t)(2 * naddr);
	r[2] = type;
	r[3] = segleft;
	if (type == 4)
		r[4] = (uint8_t)(naddr - 1);
	for (uint8_t i = 0; i < naddr; i++)
		ut_ip6(r + 8 + 16 * i, 0xaa, 100u + i);
	return r;
}

/* ---- the parse and validate stages ---- */

uint16_t
ut_stage_parse(struct rte_mbuf **pkts, uint16_t n, struct rps_lcore_stats *st)
{
	struct rps_stage_ctx c = { .st = st };

	return rps_stage_parse(&c, pkts, n);
}

uint16_t
ut_stage_validate(struct rte_mbuf **pkts, uint16_t n, struct rps_lcore_stats *st)
{
	struct rps_stage_ctx c = { .st = st };

	return rps_stage_validate(&c, pkts, n);
}

int
ut_drop_reason(const struct rps_lcore_stats *st)
{
	int r = UT_NO_DROP;

	for (int i = 0; i < RPS_DROP_MAX; i++) {
		if (st->dropped[i] == 0)
			continue;
		if (st->dropped[i] != 1 || r != UT_NO_DROP)
			return -2;
		r = i;
	}
	return r;
}

/* ---- runner ---- */

static char runtime_dir[4096];

/* Stop the EAL and remove the (empty) runtime directory of this process's prefix. */
static void
eal_fini(void)
{
	rte_eal_cleanup();
	if (runtime_dir[0] != '\0')
		rmdir(runtime_dir);
}

static int
first_allowed_cpu(void)
{
	cpu_set_t cs;

	if (sched_getaffinity(0, sizeof(cs), &cs) == 0)
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &cs))
				return c;
	return 0;
}

int
ut_main(int argc, char **argv, const char *suite, CU_TestInfo *tests)
{
	char a_prog[64], a_nohuge[] = "--no-huge", a_m[] = "-m", a_mem[] = "256";
	char a_nopci[] = "--no-pci", a_noshconf[] = "--no-shconf", a_notel[] = "--no-telemetry";
	char a_log[] = "--log-level=5", a_l[] = "-l", a_lcore[16], a_prefix[64];
	char *eal_argv[] = { a_prog, a_nohuge, a_m, a_mem, a_nopci, a_noshconf, a_notel, a_log,
			     a_l, a_lcore, a_prefix, NULL };
	const char *only = argc > 1 ? argv[1] : NULL;
	unsigned int failures, tests_failed, tests_run, avail;
	int rc = 0;

	snprintf(a_prog, sizeof(a_prog), "%s", argc > 0 ? argv[0] : "unit-test");
	snprintf(a_lcore, sizeof(a_lcore), "%d", first_allowed_cpu());
	/* DPDK 22.11 refuses --in-memory with --no-huge; --no-shconf gives the same isolation
	 * (no shared config, no IPC socket) and a per-process prefix keeps even the runtime
	 * directory apart, so the tests run side by side. */
	snprintf(a_prefix, sizeof(a_prefix), "--file-prefix=rps-ut-%s-%d", suite, (int)getpid());

	if (rte_eal_init((int)RTE_DIM(eal_argv) - 1, eal_argv) < 0) {
		fprintf(stderr, "%s: rte_eal_init failed: %s\n", suite, rte_strerror(rte_errno));
		return 1;
	}
	snprintf(runtime_dir, sizeof(runtime_dir), "%s", rte_eal_get_runtime_dir());
	pool = rte_pktmbuf_pool_create("ut_pool", UT_POOL_SIZE, 0, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	if (pool == NULL) {
		fprintf(stderr, "%s: mbuf pool: %s\n", suite, rte_strerror(rte_errno));
		eal_fini();
		return 1;
	}

	if (CU_initialize_registry() != CUE_SUCCESS) {
		fprintf(stderr, "%s: CUnit: %s\n", suite, CU_get_error_msg());
		rc = 1;
		goto out_pool;
	}
	{
		CU_SuiteInfo suites[] = {
			{ suite, NULL, NULL, NULL, NULL, tests },
			CU_SUITE_INFO_NULL,
		};

		if (CU_register_suites(suites) != CUE_SUCCESS) {
			fprintf(stderr, "%s: CUnit: %s\n", suite, CU_get_error_msg());
			rc = 1;
			goto out_registry;
		}
	}
	CU_basic_set_mode(CU_BRM_VERBOSE);
	if (only != NULL) {
		CU_pSuite s = CU_get_suite(suite);
		CU_pTest t = s != NULL ? CU_get_test(s, only) : NULL;

		if (t == NULL) {
			fprintf(stderr, "%s: no test named '%s'\n", suite, only);
			rc = 1;
			goto out_registry;
		}
		CU_basic_run_test(s, t);
	} else {
		CU_basic_run_tests();
	}
	failures = CU_get_number_of_failures();
	tests_failed = CU_get_number_of_tests_failed();
	tests_run = CU_get_number_of_tests_run();
	if (CU_get_error() != CUE_SUCCESS) {
		fprintf(stderr, "%s: CUnit error: %s\n", suite, CU_get_error_msg());
		rc = 1;
	}
	if (failures != 0 || tests_failed != 0 || tests_run == 0)
		rc = 1;

	/* Every test returns what it took: a leaked mbuf is a failure too. */
	avail = ut_pool_avail();
	if (avail != UT_POOL_SIZE) {
		fprintf(stderr, "%s: mbuf leak: %u of %u mbufs back in the pool\n", suite, avail,
			UT_POOL_SIZE);
		rc = 1;
	}
	printf("\n%s: %u tests run, %u failed, %u assertion failures -> %s\n", suite, tests_run,
	       tests_failed, failures, rc ? "FAIL" : "PASS");
out_registry:
	CU_cleanup_registry();
out_pool:
	rte_mempool_free(pool);
	pool = NULL;
	eal_fini();
	return rc;
}

/* ---- checksums, computed here independently of DPDK ---- */

uint32_t
ut_csum_add(uint32_t s, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)b[i] << 8 | b[i + 1];
	if (n & 1)
		s += (uint32_t)b[n - 1] << 8;
	return s;
}

uint16_t
ut_csum_fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

void
ut_fix_l4(struct ut_pkt *p, uint8_t proto, const uint8_t *final_dst)
{
	uint8_t *l4 = p->b + p->l4_off;
	const uint8_t *ip = p->b + p->l3_off;
	uint16_t l4len = (uint16_t)(p->len - p->l4_off), ck;
	unsigned int at = proto == IPPROTO_TCP ? 16 : 6;
	uint32_t s = 0;

	if (proto == IPPROTO_UDP) {
		l4[4] = (uint8_t)(l4len >> 8);
		l4[5] = (uint8_t)l4len;
	}
	l4[at] = l4[at + 1] = 0;
	if (p->family == 4) {
		s = ut_csum_add(s, ip + 12, 8);
	} else {
		s = ut_csum_add(s, ip + 8, 16);
		s = ut_csum_add(s, final_dst ? final_dst : ip + 24, 16);
	}
	s += proto;
	s += l4len;
	s = ut_csum_add(s, l4, l4len);
	ck = (uint16_t)~ut_csum_fold(s);
	if (ck == 0 && proto == IPPROTO_UDP)
		ck = 0xffff;
	l4[at] = (uint8_t)(ck >> 8);
	l4[at + 1] = (uint8_t)ck;
}
