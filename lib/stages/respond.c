/* SPDX-License-Identifier: BSD-3-Clause */
/* respond.c: the respond stage: ARP, echo (ICMP, ICMPv6, UDP) and ND answered in place. */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_mbuf_ptype.h>
#include <rte_udp.h>

#include "rps_hash.h"
#include "rps_respond.h"
#include "rps_stage.h"

/* Headers are copied here, rewritten, and written back: Ethernet + 4 VLAN tags (30) + IPv4
 * with options (60) + 8 transport bytes = 98; NA reply: 30 + 40 + 32 = 102. */
#define HDR_MAX 128
#define MAX_VLAN 4        /* as RPS_HASH_MAX_VLAN: tags skipped looking for ARP */
#define ND_MAX_OPTS 32    /* options walked in a solicitation before giving up */

#define ICMP6_ECHO_REQUEST 128
#define ICMP6_ECHO_REPLY 129
#define ND_NEIGHBOR_SOLICIT 135
#define ND_NEIGHBOR_ADVERT 136
#define ND_OPT_SOURCE_LL 1
#define ND_OPT_TARGET_LL 2
#define ND_NA_FLAG_SOLICITED 0x40
#define ND_NA_FLAG_OVERRIDE 0x20
#define ND_NS_LEN 24      /* type, code, cksum, reserved, target */
#define ND_NA_LEN 32      /* the same + one 8-byte target link-layer address option */

#define ARP_LEN 28        /* Ethernet/IPv4 ARP */
#define ARP_OP_REQUEST 1
#define ARP_OP_REPLY 2

#define IPOPT_EOL 0
#define IPOPT_NOP 1
#define IPOPT_RR 7        /* record route */
#define IPOPT_LSRR 131    /* loose source route */
#define IPOPT_SSRR 137    /* strict source route */

enum reply_kind { R_NONE, R_ARP, R_ICMP, R_ICMP6, R_ND, R_UDP, R_MAX };

/* Why a request for us is not answered: REF_refused_mac_src, ...; REF_NONE: no refusal. */
enum refusal {
#define RPS_X_REF(f, d) REF_##f,
	RPS_RESPOND_REFUSALS(RPS_X_REF)
#undef RPS_X_REF
	REF_MAX,
	REF_NONE = REF_MAX
};

/* One request being considered: what to answer for, from which MAC (its port's), and why
 * it was refused. */
struct req {
	const struct rps_respond_conf *conf;
	const struct rte_ether_addr *mac;
	struct rps_respond_limit *limit;
	uint64_t now;
	enum refusal why;
};

/* Refuse with @p why: not answered. */
static inline enum reply_kind
refuse(struct req *q, enum refusal why)
{
	q->why = why;
	return R_NONE;
}

static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 0x01 };
static const struct rte_ether_addr all_nodes_mac = {
	.addr_bytes = { 0x33, 0x33, 0x00, 0x00, 0x00, 0x01 } };

/* ---- mbuf helpers ---- */

/* Whether writing into the packet's data changes nothing but this packet. */
static int
data_private(const struct rte_mbuf *m)
{
	for (const struct rte_mbuf *s = m; s != NULL; s = s->next) {
		if (RTE_MBUF_CLONED(s) || rte_mbuf_refcnt_read(s) != 1)
			return 0;
		if (RTE_MBUF_HAS_EXTBUF(s) && rte_mbuf_ext_refcnt_read(s->shinfo) != 1)
			return 0;
	}
	return 1;
}

/* Copy @p len bytes at @p off into @p h (a private, modifiable copy). 0 or -1 (too short). */
static int
read_copy(const struct rte_mbuf *m, uint32_t off, uint32_t len, uint8_t *h)
{
	const void *p = rte_pktmbuf_read(m, off, len, h);

	if (p == NULL)
		return -1;
	if (p != h)
		memcpy(h, p, len);
	return 0;
}

/* Write @p len bytes at @p off, across segments; the range is inside the packet. */
static void
write_back(struct rte_mbuf *m, uint32_t off, const uint8_t *src, uint32_t len)
{
	struct rte_mbuf *s = m;

	while (s != NULL && off >= s->data_len) {
		off -= s->data_len;
		s = s->next;
	}
	while (s != NULL && len != 0) {
		uint32_t n = RTE_MIN(len, (uint32_t)s->data_len - off);

		memcpy(rte_pktmbuf_mtod_offset(s, uint8_t *, off), src, n);
		src += n;
		len -= n;
		off = 0;
		s = s->next;
	}
}

/* Cut the packet to its first @p len bytes (> 0): drops Ethernet padding, freeing segments
 * that hold nothing else. */
static void
truncate_to(struct rte_mbuf *m, uint32_t len)
{
	struct rte_mbuf *s = m;
	uint32_t off = 0;
	uint16_t segs = 1;

	if (m->pkt_len <= len)
		return;
	while (off + s->data_len < len) {
		off += s->data_len;
		s = s->next;
		segs++;
	}
	s->data_len = (uint16_t)(len - off);
	if (s->next != NULL) {
		rte_pktmbuf_free(s->next);
		s->next = NULL;
	}
	m->nb_segs = segs;
	m->pkt_len = len;
}

/*
 * Make the packet exactly the @p len bytes of @p src: in the first segment when its buffer
 * is large enough (the rest of the chain is freed), otherwise in a new mbuf from the same
 * pool (the old one is freed). @return the packet to send, or NULL (nothing changed).
 */
static struct rte_mbuf *
replace_contents(struct rte_mbuf *m, const uint8_t *src, uint16_t len)
{
	struct rte_mbuf *r;
	char *d;

	if (m->buf_len >= len) {
		if (m->next != NULL) {
			rte_pktmbuf_free(m->next);
			m->next = NULL;
			m->nb_segs = 1;
		}
		if ((uint32_t)m->data_off + len > m->buf_len)
			m->data_off = (uint16_t)(m->buf_len - len);
		m->data_len = len;
		m->pkt_len = len;
		memcpy(rte_pktmbuf_mtod(m, uint8_t *), src, len);
		return m;
	}
	if (m->pool == NULL || (r = rte_pktmbuf_alloc(m->pool)) == NULL)
		return NULL;
	d = rte_pktmbuf_append(r, len);
	if (d == NULL) {
		rte_pktmbuf_free(r);
		return NULL;
	}
	memcpy(d, src, len);
	r->port = m->port;
	r->packet_type = m->packet_type;
	r->l2_len = m->l2_len;
	r->l3_len = m->l3_len;
	rte_pktmbuf_free(m);
	return r;
}

/* ---- checksums ---- */

static inline uint16_t
fold(uint32_t s)
{
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/*
 * Ones'-complement sum (not complemented) of @p len bytes at @p off, across segments.
 * rte_raw_cksum_mbuf() of DPDK 22.11 truncates a segment's partial sum to 16 bits before
 * byte-swapping it (a segment that starts at an odd offset), losing carries: not used.
 * @return 0, or -1 when the range is not inside the packet.
 */
static int
raw_cksum_mbuf(const struct rte_mbuf *m, uint32_t off, uint32_t len, uint16_t *out)
{
	const struct rte_mbuf *s = m;
	uint32_t sum = 0, done = 0;

	if (off > m->pkt_len || len > m->pkt_len - off)
		return -1;
	while (s != NULL && off >= s->data_len) {
		off -= s->data_len;
		s = s->next;
	}
	while (done < len && s != NULL) {
		uint32_t n = RTE_MIN(len - done, (uint32_t)s->data_len - off);
		uint16_t part = rte_raw_cksum(rte_pktmbuf_mtod_offset(s, const uint8_t *, off), n);

		/* a part that starts at an odd position contributes its bytes swapped */
		sum += (done & 1) ? rte_bswap16(part) : part;
		done += n;
		off = 0;
		s = s->next;
	}
	if (done != len)
		return -1;
	*out = fold(sum);
	return 0;
}

/* Sum of @p len bytes at @p off plus @p phdr: 0xffff when the checksum inside is right. */
static int
cksum_ok(const struct rte_mbuf *m, uint32_t off, uint32_t len, uint16_t phdr)
{
	uint16_t raw;

	if (raw_cksum_mbuf(m, off, len, &raw) < 0)
		return 0;
	return fold((uint32_t)raw + phdr) == 0xffff;
}

/* RFC 1624 eqn. 3: the checksum after one 16-bit word changed from @p old to @p new
 * (all three as stored in the packet). */
static inline uint16_t
cksum_adjust(uint16_t ck, uint16_t old, uint16_t new)
{
	return (uint16_t)~fold((uint32_t)(uint16_t)~ck + (uint16_t)~old + new);
}

/* ---- address checks ---- */

/* Why an IPv4 source (network order) may not be answered, REF_NONE when it may: our own
 * address, 0/8, 127/8, 224/4 and 240/4 (limited broadcast included), the network and the
 * broadcast address of our prefix (RFC 1122 3.2.1.3, 3.2.2.6). */
static enum refusal
ipv4_src_refusal(const struct rps_respond_conf *conf, uint32_t be_src)
{
	const uint32_t a = rte_be_to_cpu_32(be_src), self = rte_be_to_cpu_32(conf->ipv4);
	const uint8_t plen = conf->ipv4_prefix;

	if (be_src == conf->ipv4)
		return REF_refused_src_self;
	if ((a >> 24) == 0 || (a >> 24) == 127 || a >= UINT32_C(0xe0000000))
		return REF_refused_src_martian;
	if (plen > 0 && plen <= 30) {
		const uint32_t host = UINT32_MAX >> plen;

		if ((a & ~host) == (self & ~host) && ((a & host) == host || (a & host) == 0))
			return REF_refused_src_martian;
	}
	return REF_NONE;
}

/* Why an IPv6 source may not be answered, REF_NONE when it may: our own address, ::/96 (::,
 * ::1, IPv4-compatible; :: allowed when @p unspec_ok), ::ffff:0:0/96, ff00::/8. */
static enum refusal
ipv6_src_refusal(const struct rps_respond_conf *conf, const uint8_t *s, int unspec_ok)
{
	static const uint8_t zero[16];
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };

	if (memcmp(s, conf->ipv6, 16) == 0)
		return REF_refused_src_self;
	if (s[0] == 0xff || memcmp(s, mapped, 12) == 0)
		return REF_refused_src_martian;
	if (memcmp(s, zero, 12) == 0 && !(unspec_ok && memcmp(s, zero, 16) == 0))
		return REF_refused_src_martian;
	return REF_NONE;
}

/* Whether a UDP source port may be answered: never a service's port (below 1024: echo,
 * chargen, daytime, qotd, time, DNS, NTP, SNMP, ... and our own echo port), nor one of the
 * services above 1023 known to answer spoofed requests: two servers would echo each other
 * forever, or a victim's service would be flooded with our replies. None of these is in
 * the ephemeral ranges clients pick from (Linux 32768-60999, IANA 49152-65535). */
static int
udp_src_port_ok(uint16_t be_port, uint16_t echo_port)
{
	const uint16_t p = rte_be_to_cpu_16(be_port);

	if (p < 1024 || p == echo_port)
		return 0;
	switch (p) {
	case 1194: /* OpenVPN */
	case 1434: /* MS SQL browser */
	case 1900: /* SSDP */
	case 3283: /* Apple Remote Desktop */
	case 3478: /* STUN */
	case 3702: /* WS-Discovery */
	case 5060: /* SIP */
	case 5353: /* mDNS */
	case 5683: /* CoAP */
	case 10001: /* Ubiquiti discovery */
	case 11211: /* memcached */
	case 27015: /* Steam / Source servers */
		return 0;
	default:
		return 1;
	}
}

/*
 * The options of an IPv4 request, rewritten for its reply in place (@p opt, @p len bytes):
 * a loose or strict source route refuses the request (its return route would have to be
 * reversed, and source-routed packets are refused as Linux's accept_source_route = 0 does);
 * Record Route gets @p self where it has room (RFC 1122 3.2.2.6); any other option becomes
 * NOPs; after End of Options, zeros. @return REF_NONE, or the refusal (malformed options).
 */
static enum refusal
ipv4_options_reply(uint8_t *opt, uint32_t len, uint32_t self)
{
	uint32_t i = 0;

	while (i < len) {
		const uint8_t t = opt[i];
		uint8_t l;

		if (t == IPOPT_EOL) {
			memset(opt + i, 0, len - i);
			break;
		}
		if (t == IPOPT_NOP) {
			i++;
			continue;
		}
		if (len - i < 2 || (l = opt[i + 1]) < 2 || l > len - i)
			return REF_refused_ip_options;
		if (t == IPOPT_LSRR || t == IPOPT_SSRR)
			return REF_refused_source_route;
		if (t == IPOPT_RR) {
			const uint8_t ptr = l >= 3 ? opt[i + 2] : 0;

			if (ptr < 4)
				return REF_refused_ip_options;
			if ((uint32_t)ptr + 3 <= l) {
				memcpy(opt + i + ptr - 1, &self, 4);
				opt[i + 2] = (uint8_t)(ptr + 4);
			}
		} else {
			memset(opt + i, IPOPT_NOP, l);
		}
		i += l;
	}
	return REF_NONE;
}

static inline int
ipv6_unspecified(const uint8_t *a)
{
	static const uint8_t zero[16];

	return memcmp(a, zero, 16) == 0;
}

/* ff02::1:ffXX:XXXX of @p a */
static inline int
ipv6_is_solicited_node_of(const uint8_t *dst, const uint8_t *a)
{
	static const uint8_t prefix[13] = { 0xff, 0x02, [11] = 0x01, [12] = 0xff };

	return memcmp(dst, prefix, 13) == 0 && memcmp(dst + 13, a + 13, 3) == 0;
}

static inline int
mac_unicast(const uint8_t *mac)
{
	static const uint8_t zero[6];

	return (mac[0] & 1) == 0 && memcmp(mac, zero, 6) != 0;
}

/* Ethernet: reply to the request's source, from us. */
static inline void
eth_reply(uint8_t *h, const struct rte_ether_addr *to, const struct rte_ether_addr *from)
{
	memcpy(h, to->addr_bytes, RTE_ETHER_ADDR_LEN);
	memcpy(h + RTE_ETHER_ADDR_LEN, from->addr_bytes, RTE_ETHER_ADDR_LEN);
}

static inline void
eth_swap(uint8_t *h, const struct rte_ether_addr *self)
{
	memcpy(h, h + RTE_ETHER_ADDR_LEN, RTE_ETHER_ADDR_LEN);
	memcpy(h + RTE_ETHER_ADDR_LEN, self->addr_bytes, RTE_ETHER_ADDR_LEN);
}

/* ---- ARP ---- */

static enum reply_kind
answer_arp(struct req *q, struct rte_mbuf *m)
{
	const struct rps_respond_conf *conf = q->conf;
	uint8_t h[HDR_MAX] __rte_aligned(8);
	uint32_t off = RTE_ETHER_HDR_LEN, spa;
	enum refusal why;
	uint16_t type;
	uint8_t *a;

	if (!conf->has_ipv4 || read_copy(m, 0, RTE_ETHER_HDR_LEN, h) < 0)
		return R_NONE;
	memcpy(&type, h + 12, 2);
	for (int tags = 0; rps_hash_is_vlan_tpid(type); tags++) {
		if (tags == MAX_VLAN || read_copy(m, off, 4, h + off) < 0)
			return R_NONE;
		memcpy(&type, h + off + 2, 2);
		off += 4;
	}
	if (type != RTE_BE16(RTE_ETHER_TYPE_ARP) || read_copy(m, off, ARP_LEN, h + off) < 0)
		return R_NONE;
	a = h + off;
	/* hardware Ethernet (1), protocol IPv4, 6/4-byte addresses, a request */
	if (a[0] != 0 || a[1] != 1 || a[2] != 0x08 || a[3] != 0x00 || a[4] != 6 || a[5] != 4 ||
	    a[6] != 0 || a[7] != ARP_OP_REQUEST)
		return R_NONE;
	if (memcmp(a + 24, &conf->ipv4, 4) != 0)
		return R_NONE;
	if (!mac_unicast(h + RTE_ETHER_ADDR_LEN) || !mac_unicast(a + 8))
		return refuse(q, REF_refused_mac_src);
	memcpy(&spa, a + 14, 4);
	/* 0.0.0.0 is a probe (RFC 5227), answered; a request from our own address is gratuitous */
	if (spa != 0 && (why = ipv4_src_refusal(conf, spa)) != REF_NONE)
		return refuse(q, why);
	if (!data_private(m))
		return R_NONE;

	memcpy(h, a + 8, RTE_ETHER_ADDR_LEN);                      /* to the sender */
	memcpy(h + 6, q->mac->addr_bytes, RTE_ETHER_ADDR_LEN);
	a[7] = ARP_OP_REPLY;
	memcpy(a + 18, a + 8, 10);                                 /* tha, tpa = sha, spa */
	memcpy(a + 8, q->mac->addr_bytes, RTE_ETHER_ADDR_LEN);     /* sha = us */
	memcpy(a + 14, &conf->ipv4, 4);                            /* spa = the address asked */
	write_back(m, 0, h, off + ARP_LEN);
	return R_ARP;
}

/* ---- IPv4 ---- */

/* Why an IPv4 request for us (@p h: its headers, @p ip inside) may not be answered: its
 * Ethernet source, its source address, its options (rewritten in @p h for the reply). */
static enum refusal
ipv4_refusal(const struct rps_respond_conf *conf, uint8_t *h, struct rte_ipv4_hdr *ip)
{
	enum refusal why;

	if (!mac_unicast(h + RTE_ETHER_ADDR_LEN))
		return REF_refused_mac_src;
	if ((why = ipv4_src_refusal(conf, ip->src_addr)) != REF_NONE)
		return why;
	return ipv4_options_reply((uint8_t *)(ip + 1), rte_ipv4_hdr_len(ip) - sizeof(*ip),
				  conf->ipv4);
}

static enum reply_kind
answer_ipv4(struct req *q, struct rte_mbuf *m)
{
	const struct rps_respond_conf *conf = q->conf;
	uint8_t h[HDR_MAX] __rte_aligned(8);
	const uint32_t l2 = m->l2_len, ihl = m->l3_len, hlen = l2 + ihl + 8;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(h + l2);
	uint8_t *l4 = h + l2 + ihl;
	uint32_t tot, tmp;
	enum reply_kind k;
	enum refusal why;

	if (!conf->has_ipv4 || ihl < sizeof(*ip) || hlen > HDR_MAX ||
	    read_copy(m, 0, hlen, h) < 0)
		return R_NONE;
	if (ip->version_ihl != (0x40 | ihl / 4) || ip->dst_addr != conf->ipv4 ||
	    rte_ipv4_cksum(ip) != 0 ||
	    (ip->fragment_offset & RTE_BE16(RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK)))
		return R_NONE;
	tot = rte_be_to_cpu_16(ip->total_length);
	if (tot < ihl + 8 || l2 + tot > m->pkt_len)
		return R_NONE;

	if (ip->next_proto_id == IPPROTO_ICMP) {
		struct rte_icmp_hdr *ic = (struct rte_icmp_hdr *)l4;
		uint16_t old, new;

		if (ic->icmp_type != RTE_IP_ICMP_ECHO_REQUEST || ic->icmp_code != 0)
			return R_NONE;
		if ((why = ipv4_refusal(conf, h, ip)) != REF_NONE)
			return refuse(q, why);
		if (!cksum_ok(m, l2 + ihl, tot - ihl, 0) || !data_private(m))
			return R_NONE;
		if (!rps_respond_limit_take(q->limit, q->now))
			return refuse(q, REF_refused_rate_limit);
		memcpy(&old, l4, 2);
		ic->icmp_type = RTE_IP_ICMP_ECHO_REPLY;
		memcpy(&new, l4, 2);
		ic->icmp_cksum = cksum_adjust(ic->icmp_cksum, old, new);
		k = R_ICMP;
	} else if (ip->next_proto_id == IPPROTO_UDP) {
		struct rte_udp_hdr *uh = (struct rte_udp_hdr *)l4;
		uint64_t l4f = m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK;

		if (conf->udp_echo_port == 0 ||
		    uh->dst_port != rte_cpu_to_be_16(conf->udp_echo_port))
			return R_NONE;
		if ((why = ipv4_refusal(conf, h, ip)) != REF_NONE)
			return refuse(q, why);
		if (!udp_src_port_ok(uh->src_port, conf->udp_echo_port))
			return refuse(q, REF_refused_udp_port);
		if (rte_be_to_cpu_16(uh->dgram_len) != tot - ihl)
			return R_NONE;
		if (uh->dgram_cksum != 0 && l4f != RTE_MBUF_F_RX_L4_CKSUM_GOOD &&
		    (l4f == RTE_MBUF_F_RX_L4_CKSUM_BAD ||
		     !cksum_ok(m, l2 + ihl, tot - ihl, rte_ipv4_phdr_cksum(ip, 0))))
			return R_NONE;
		if (!data_private(m))
			return R_NONE;
		if (!rps_respond_limit_take(q->limit, q->now))
			return refuse(q, REF_refused_rate_limit);
		/* swapping addresses and ports leaves a valid checksum valid */
		tmp = uh->src_port;
		uh->src_port = uh->dst_port;
		uh->dst_port = (uint16_t)tmp;
		k = R_UDP;
	} else {
		return R_NONE;
	}
	eth_swap(h, q->mac);
	tmp = ip->src_addr;
	ip->src_addr = ip->dst_addr;
	ip->dst_addr = tmp;
	ip->time_to_live = 64;
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	write_back(m, 0, h, hlen);
	if (k == R_UDP && ((struct rte_udp_hdr *)l4)->dgram_cksum == 0) {
		/* the request had none: give the reply one */
		uint16_t raw = 0, ck;

		(void)raw_cksum_mbuf(m, l2 + ihl, tot - ihl, &raw);
		ck = (uint16_t)~fold((uint32_t)raw + rte_ipv4_phdr_cksum(ip, 0));
		if (ck == 0)
			ck = 0xffff;
		write_back(m, l2 + ihl + 6, (const uint8_t *)&ck, 2);
	}
	truncate_to(m, l2 + tot);
	return k;
}

/* ---- IPv6 ---- */

/* Why an IPv6 echo for us (@p h: its headers, @p ip inside) may not be answered. */
static enum refusal
ipv6_refusal(const struct rps_respond_conf *conf, const uint8_t *h,
	     const struct rte_ipv6_hdr *ip)
{
	if (!mac_unicast(h + RTE_ETHER_ADDR_LEN))
		return REF_refused_mac_src;
	return ipv6_src_refusal(conf, ip->src_addr, 0);
}

/* Neighbour advertisement for a valid solicitation; *mp may be replaced. */
static enum reply_kind
answer_ns(struct req *q, struct rte_mbuf **mp, uint8_t *h, uint32_t plen)
{
	const struct rps_respond_conf *conf = q->conf;
	struct rte_mbuf *m = *mp, *r;
	const uint32_t l2 = m->l2_len, l4off = l2 + sizeof(struct rte_ipv6_hdr);
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(h + l2);
	uint8_t target[16], *na;
	struct rte_ether_addr to;
	int have_slla = 0, from_unspec;
	enum refusal why;
	uint32_t off;

	if (plen < ND_NS_LEN || ip->hop_limits != 255)
		return R_NONE;
	if (read_copy(m, l4off + 8, 16, target) < 0 || memcmp(target, conf->ipv6, 16) != 0)
		return R_NONE;
	from_unspec = ipv6_unspecified(ip->src_addr);
	if (!(ipv6_is_solicited_node_of(ip->dst_addr, conf->ipv6) ||
	      (!from_unspec && memcmp(ip->dst_addr, conf->ipv6, 16) == 0)))
		return R_NONE;
	if (!mac_unicast(h + RTE_ETHER_ADDR_LEN))
		return refuse(q, REF_refused_mac_src);
	if ((why = ipv6_src_refusal(conf, ip->src_addr, 1)) != REF_NONE)
		return refuse(q, why);
	if (!cksum_ok(m, l4off, plen, rte_ipv6_phdr_cksum(ip, 0)))
		return R_NONE;
	/* options: each a type, a length in 8-byte units (never 0), inside the message */
	off = ND_NS_LEN;
	for (int i = 0; off < plen; i++) {
		uint8_t o[8];

		if (i == ND_MAX_OPTS || plen - off < 8 || read_copy(m, l4off + off, 8, o) < 0 ||
		    o[1] == 0 || (uint32_t)o[1] * 8 > plen - off)
			return R_NONE;
		if (o[0] == ND_OPT_SOURCE_LL) {
			if (from_unspec) /* RFC 4861 7.1.1 */
				return R_NONE;
			if (!mac_unicast(o + 2))
				return refuse(q, REF_refused_mac_src);
			memcpy(to.addr_bytes, o + 2, RTE_ETHER_ADDR_LEN);
			have_slla = 1;
		}
		off += (uint32_t)o[1] * 8;
	}
	if (!data_private(m))
		return R_NONE;

	if (from_unspec) {
		to = all_nodes_mac;
		memcpy(ip->dst_addr, all_nodes, 16);
	} else {
		if (!have_slla)
			memcpy(to.addr_bytes, h + RTE_ETHER_ADDR_LEN, RTE_ETHER_ADDR_LEN);
		memcpy(ip->dst_addr, ip->src_addr, 16);
	}
	eth_reply(h, &to, q->mac);
	ip->vtc_flow = RTE_BE32(UINT32_C(6) << 28);
	ip->payload_len = RTE_BE16(ND_NA_LEN);
	ip->proto = IPPROTO_ICMPV6;
	ip->hop_limits = 255;
	memcpy(ip->src_addr, conf->ipv6, 16);
	na = h + l4off;
	memset(na, 0, ND_NA_LEN);
	na[0] = ND_NEIGHBOR_ADVERT;
	na[4] = ND_NA_FLAG_OVERRIDE | (from_unspec ? 0 : ND_NA_FLAG_SOLICITED);
	memcpy(na + 8, conf->ipv6, 16);
	na[24] = ND_OPT_TARGET_LL;
	na[25] = 1;
	memcpy(na + 26, q->mac->addr_bytes, RTE_ETHER_ADDR_LEN);
	{
		uint16_t ck = rte_ipv6_udptcp_cksum(ip, na);

		memcpy(na + 2, &ck, 2);
	}
	r = replace_contents(m, h, (uint16_t)(l4off + ND_NA_LEN));
	if (r == NULL)
		return R_NONE;
	*mp = r;
	return R_ND;
}

static enum reply_kind
answer_ipv6(struct req *q, struct rte_mbuf **mp)
{
	const struct rps_respond_conf *conf = q->conf;
	uint8_t h[HDR_MAX] __rte_aligned(8);
	struct rte_mbuf *m = *mp;
	const uint32_t l2 = m->l2_len, l4off = l2 + sizeof(struct rte_ipv6_hdr), hlen = l4off + 8;
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(h + l2);
	uint8_t *l4 = h + l4off;
	uint32_t plen;
	enum reply_kind k;
	enum refusal why;

	/* no extension headers: l3_len is exactly the fixed header */
	if (!conf->has_ipv6 || m->l3_len != sizeof(*ip) || hlen > HDR_MAX ||
	    read_copy(m, 0, hlen, h) < 0)
		return R_NONE;
	if ((rte_be_to_cpu_32(ip->vtc_flow) >> 28) != 6)
		return R_NONE;
	plen = rte_be_to_cpu_16(ip->payload_len);
	if (plen < 8 || l4off + plen > m->pkt_len)
		return R_NONE;
	if (ip->proto == IPPROTO_ICMPV6 && l4[0] == ND_NEIGHBOR_SOLICIT && l4[1] == 0)
		return answer_ns(q, mp, h, plen);
	if (memcmp(ip->dst_addr, conf->ipv6, 16) != 0)
		return R_NONE;

	if (ip->proto == IPPROTO_ICMPV6) {
		struct rte_icmp_hdr *ic = (struct rte_icmp_hdr *)l4;
		uint16_t old, new;

		if (ic->icmp_type != ICMP6_ECHO_REQUEST || ic->icmp_code != 0)
			return R_NONE;
		if ((why = ipv6_refusal(conf, h, ip)) != REF_NONE)
			return refuse(q, why);
		if (!cksum_ok(m, l4off, plen, rte_ipv6_phdr_cksum(ip, 0)) || !data_private(m))
			return R_NONE;
		if (!rps_respond_limit_take(q->limit, q->now))
			return refuse(q, REF_refused_rate_limit);
		memcpy(&old, l4, 2);
		ic->icmp_type = ICMP6_ECHO_REPLY;
		memcpy(&new, l4, 2);
		/* the pseudo-header's sum does not change when the addresses swap */
		ic->icmp_cksum = cksum_adjust(ic->icmp_cksum, old, new);
		k = R_ICMP6;
	} else if (ip->proto == IPPROTO_UDP) {
		struct rte_udp_hdr *uh = (struct rte_udp_hdr *)l4;
		uint64_t l4f = m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK;
		uint16_t tmp;

		if (conf->udp_echo_port == 0 ||
		    uh->dst_port != rte_cpu_to_be_16(conf->udp_echo_port))
			return R_NONE;
		if ((why = ipv6_refusal(conf, h, ip)) != REF_NONE)
			return refuse(q, why);
		if (!udp_src_port_ok(uh->src_port, conf->udp_echo_port))
			return refuse(q, REF_refused_udp_port);
		if (rte_be_to_cpu_16(uh->dgram_len) != plen || uh->dgram_cksum == 0)
			return R_NONE;
		if (l4f != RTE_MBUF_F_RX_L4_CKSUM_GOOD &&
		    (l4f == RTE_MBUF_F_RX_L4_CKSUM_BAD ||
		     !cksum_ok(m, l4off, plen, rte_ipv6_phdr_cksum(ip, 0))))
			return R_NONE;
		if (!data_private(m))
			return R_NONE;
		if (!rps_respond_limit_take(q->limit, q->now))
			return refuse(q, REF_refused_rate_limit);
		tmp = uh->src_port;
		uh->src_port = uh->dst_port;
		uh->dst_port = tmp;
		k = R_UDP;
	} else {
		return R_NONE;
	}
	eth_swap(h, q->mac);
	memcpy(ip->dst_addr, ip->src_addr, 16);
	memcpy(ip->src_addr, conf->ipv6, 16);
	ip->hop_limits = 64;
	write_back(m, 0, h, hlen);
	truncate_to(m, l4off + plen);
	return k;
}

/* ---- the stage ---- */

static enum reply_kind
answer(struct req *q, struct rte_mbuf **mp)
{
	struct rte_mbuf *m = *mp;
	const uint32_t pt = m->packet_type;

	/* a tag the NIC took out would be missing from the reply */
	if (m->ol_flags & (RTE_MBUF_F_RX_VLAN_STRIPPED | RTE_MBUF_F_RX_QINQ_STRIPPED))
		return R_NONE;
	if ((pt & RTE_PTYPE_L3_MASK) == 0)
		return answer_arp(q, m);
	if ((pt & RTE_PTYPE_L4_MASK) == RTE_PTYPE_L4_FRAG)
		return R_NONE;
	if (RTE_ETH_IS_IPV4_HDR(pt))
		return answer_ipv4(q, m);
	if (RTE_ETH_IS_IPV6_HDR(pt))
		return answer_ipv6(q, mp);
	return R_NONE;
}

void
rps_respond_limit_init(struct rps_respond_limit *l, uint32_t rate, uint32_t burst, uint64_t hz,
		       uint64_t now)
{
	memset(l, 0, sizeof(*l));
	if (rate == 0)
		return;
	l->cost = RTE_MAX(hz / rate, (uint64_t)1);
	l->cap = (uint64_t)RTE_MAX(burst, 1u) * l->cost;
	l->credit = l->cap;
	l->last = now;
}

uint16_t
rps_stage_respond(struct rps_stage_ctx *c, struct rte_mbuf **pkts, uint16_t n)
{
	struct rps_lcore_stats *st = c->st;
	struct req q = { .conf = c->respond, .limit = &c->respond_limit, .now = c->now };
	uint32_t cnt[R_MAX] = { 0 }, ref[REF_MAX] = { 0 }, refused = 0;
	uint16_t kept = 0;

	if (q.conf == NULL || c->reply_txq == NULL)
		return n;
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		/* answered on the port it came in on, from that port's MAC */
		struct rps_txq *t = likely(m->port < RTE_MAX_ETHPORTS) ?
			c->reply_txq[m->port] : NULL;
		enum reply_kind k;

		if (unlikely(t == NULL)) {
			pkts[kept++] = m; /* a port that answers nothing */
			continue;
		}
		q.mac = &q.conf->mac[m->port];
		q.why = REF_NONE;
		k = answer(&q, &m);
		if (k == R_NONE) {
			if (q.why != REF_NONE) {
				ref[q.why]++;
				refused++;
			}
			pkts[kept++] = m;
			continue;
		}
		cnt[k]++;
		rps_txq_send(t, m);
	}
	if (kept != n) {
		RPS_CTR_ADD(st->arp_replies, cnt[R_ARP]);
		RPS_CTR_ADD(st->icmp_echo_replies, cnt[R_ICMP]);
		RPS_CTR_ADD(st->icmp6_echo_replies, cnt[R_ICMP6]);
		RPS_CTR_ADD(st->nd_replies, cnt[R_ND]);
		RPS_CTR_ADD(st->udp_echo_replies, cnt[R_UDP]);
	}
	if (refused != 0) {
#define RPS_X_REF(f, d) RPS_CTR_ADD(st->f, ref[REF_##f]);
		RPS_RESPOND_REFUSALS(RPS_X_REF)
#undef RPS_X_REF
	}
	return kept;
}
