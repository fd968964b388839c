/* SPDX-License-Identifier: BSD-3-Clause */
/* rules.c: steering rules: parse and format one rule, build a set on librte_acl, classify. */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_acl.h>
#include <rte_byteorder.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "rps_hash.h"
#include "rps_rules.h"

/* --- parsing --- */

static int __attribute__((format(printf, 3, 4)))
bad(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (err != NULL && len > 0) {
		va_start(ap, fmt);
		vsnprintf(err, len, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* A decimal number 0..@p hi, digits only. */
static int
dec(const char *s, unsigned long hi, unsigned long *out)
{
	unsigned long v = 0;

	if (*s == '\0')
		return -1;
	for (; *s != '\0'; s++) {
		if (!isdigit((unsigned char)*s))
			return -1;
		v = v * 10 + (unsigned long)(*s - '0');
		if (v > hi)
			return -1;
	}
	*out = v;
	return 0;
}

/* "N" or "LO-HI" */
static int
ports(const char *word, const char *v, uint16_t *lo, uint16_t *hi, char *err, size_t len)
{
	char buf[16];
	const char *dash = strchr(v, '-');
	unsigned long a, b;

	if (strlen(v) >= sizeof(buf))
		return bad(err, len, "%s: expected a port 0..65535 or a range LO-HI, not '%s'",
			   word, v);
	snprintf(buf, sizeof(buf), "%s", v);
	if (dash != NULL)
		buf[dash - v] = '\0';
	if (dec(buf, 65535, &a) < 0 || (dash != NULL && dec(dash + 1, 65535, &b) < 0))
		return bad(err, len, "%s: expected a port 0..65535 or a range LO-HI, not '%s'",
			   word, v);
	if (dash == NULL)
		b = a;
	if (a > b)
		return bad(err, len, "%s %s: the range is empty (%lu > %lu)", word, v, a, b);
	*lo = (uint16_t)a;
	*hi = (uint16_t)b;
	return 0;
}

/* "ADDR[/LEN]" into @p a (network order), @p plen and the family. */
static int
prefix(const char *word, const char *v, uint8_t a[16], uint8_t *plen, uint8_t *family,
       char *err, size_t len)
{
	char buf[64];
	const char *slash = strchr(v, '/');
	unsigned long l;
	int fam, max;

	if (strlen(v) >= sizeof(buf))
		return bad(err, len, "%s: expected an IPv4 or IPv6 address[/LEN], not '%.40s...'",
			   word, v);
	snprintf(buf, sizeof(buf), "%s", v);
	if (slash != NULL)
		buf[slash - v] = '\0';
	memset(a, 0, 16);
	if (inet_pton(AF_INET, buf, a) == 1)
		fam = 4;
	else if (inet_pton(AF_INET6, buf, a) == 1)
		fam = 6;
	else
		return bad(err, len, "%s: expected an IPv4 or IPv6 address[/LEN], not '%s'",
			   word, v);
	max = fam == 4 ? 32 : 128;
	if (slash == NULL)
		l = (unsigned long)max;
	else if (dec(slash + 1, (unsigned long)max, &l) < 0)
		return bad(err, len, "%s %s: expected a prefix length 0..%d after '/'", word, v,
			   max);
	for (int i = 0; i < max / 8; i++) {
		int keep = (int)l - 8 * i;
		uint8_t m = keep >= 8 ? 0xff : keep <= 0 ? 0 : (uint8_t)(0xff << (8 - keep));

		if ((a[i] & (uint8_t)~m) != 0) {
			char net[INET6_ADDRSTRLEN];

			for (int j = i; j < max / 8; j++) {
				keep = (int)l - 8 * j;
				a[j] &= keep >= 8 ? 0xff : keep <= 0 ? 0 : (uint8_t)(0xff << (8 - keep));
			}
			inet_ntop(fam == 4 ? AF_INET : AF_INET6, a, net, sizeof(net));
			return bad(err, len, "%s %s: host bits set after /%lu (%s/%lu?)", word, v, l,
				   net, l);
		}
	}
	*plen = (uint8_t)l;
	*family = (uint8_t)fam;
	return 0;
}

int
rps_rule_parse(const char *text, struct rps_rule *r, char *err, size_t err_len)
{
	char buf[256], *save = NULL, *w;
	int seen_proto = 0, seen_src = 0, seen_dst = 0, seen_sport = 0, seen_dport = 0;
	uint8_t sfam = 0, dfam = 0;
	int arrow = 0;

	memset(r, 0, sizeof(*r));
	r->sport_hi = r->dport_hi = 65535;
	if (strlen(text) >= sizeof(buf))
		return bad(err, err_len, "rule too long (at most %zu characters)", sizeof(buf) - 1);
	snprintf(buf, sizeof(buf), "%s", text);
	for (w = strtok_r(buf, " \t", &save); w != NULL && !arrow;
	     w = strtok_r(NULL, " \t", &save)) {
		const char *v;

		if (strcmp(w, "->") == 0) {
			arrow = 1;
			break;
		}
		if (strcmp(w, "tcp") == 0 || strcmp(w, "udp") == 0 || strcmp(w, "icmp") == 0 ||
		    strcmp(w, "any") == 0) {
			if (seen_proto++)
				return bad(err, err_len, "%s: a second protocol", w);
			r->proto = w[0] == 't' ? IPPROTO_TCP : w[0] == 'u' ? IPPROTO_UDP :
				   w[1] == 'c' ? IPPROTO_ICMP : 0;
			continue;
		}
		if (strcmp(w, "src") != 0 && strcmp(w, "dst") != 0 && strcmp(w, "sport") != 0 &&
		    strcmp(w, "dport") != 0)
			return bad(err, err_len, "unknown word '%s' (expected tcp, udp, icmp, any, "
				   "src, dst, sport, dport or '->')", w);
		v = strtok_r(NULL, " \t", &save);
		if (v == NULL || strcmp(v, "->") == 0)
			return bad(err, err_len, "%s: missing its value", w);
		if (strcmp(w, "src") == 0) {
			if (seen_src++)
				return bad(err, err_len, "src: given twice");
			if (prefix(w, v, r->src, &r->src_len, &sfam, err, err_len) < 0)
				return -EINVAL;
		} else if (strcmp(w, "dst") == 0) {
			if (seen_dst++)
				return bad(err, err_len, "dst: given twice");
			if (prefix(w, v, r->dst, &r->dst_len, &dfam, err, err_len) < 0)
				return -EINVAL;
		} else if (strcmp(w, "sport") == 0) {
			if (seen_sport++)
				return bad(err, err_len, "sport: given twice");
			if (ports(w, v, &r->sport_lo, &r->sport_hi, err, err_len) < 0)
				return -EINVAL;
		} else {
			if (seen_dport++)
				return bad(err, err_len, "dport: given twice");
			if (ports(w, v, &r->dport_lo, &r->dport_hi, err, err_len) < 0)
				return -EINVAL;
		}
	}
	if (!arrow)
		return bad(err, err_len, "missing '-> ACTION' (worker N, consumer N or drop)");
	if (sfam != 0 && dfam != 0 && sfam != dfam)
		return bad(err, err_len, "src is IPv%u but dst is IPv%u", sfam, dfam);
	r->family = sfam != 0 ? sfam : dfam;
	r->has_ports = (uint8_t)(seen_sport || seen_dport);
	if (r->has_ports && r->proto == IPPROTO_ICMP)
		return bad(err, err_len, "icmp has no ports (sport, dport need tcp, udp or no "
			   "protocol)");
	w = strtok_r(NULL, " \t", &save);
	if (w == NULL)
		return bad(err, err_len, "'->' without an action (worker N, consumer N or drop)");
	if (strcmp(w, "drop") == 0) {
		r->action = RPS_RULE_ACT_DROP;
	} else if (strcmp(w, "worker") == 0 || strcmp(w, "consumer") == 0) {
		const char *v = strtok_r(NULL, " \t", &save);
		unsigned long n;

		if (v == NULL || dec(v, 65534, &n) < 0)
			return bad(err, err_len, "%s: expected an index 0..65534, not '%s'", w,
				   v != NULL ? v : "");
		r->action = w[0] == 'w' ? RPS_RULE_ACT_WORKER : RPS_RULE_ACT_CONSUMER;
		r->target = (uint16_t)n;
	} else {
		return bad(err, err_len, "unknown action '%s' (expected worker N, consumer N or "
			   "drop)", w);
	}
	w = strtok_r(NULL, " \t", &save);
	if (w != NULL)
		return bad(err, err_len, "unexpected '%s' after the action", w);
	return 0;
}

static int
format_prefix(char *buf, size_t len, const char *word, const uint8_t *a, uint8_t plen, int fam)
{
	char s[INET6_ADDRSTRLEN];

	inet_ntop(fam == 4 ? AF_INET : AF_INET6, a, s, sizeof(s));
	if (plen == (fam == 4 ? 32 : 128))
		return snprintf(buf, len, " %s %s", word, s);
	return snprintf(buf, len, " %s %s/%u", word, s, plen);
}

static int
format_ports(char *buf, size_t len, const char *word, uint16_t lo, uint16_t hi)
{
	if (lo == hi)
		return snprintf(buf, len, " %s %u", word, lo);
	return snprintf(buf, len, " %s %u-%u", word, lo, hi);
}

int
rps_rule_format(const struct rps_rule *r, char *buf, size_t len)
{
	char t[256];
	size_t n = 0;

#define PUT(expr) (n += (size_t)(expr), n = RTE_MIN(n, sizeof(t) - 1))
	t[0] = '\0';
	if (r->proto != 0)
		PUT(snprintf(t + n, sizeof(t) - n, " %s", r->proto == IPPROTO_TCP ? "tcp" :
			     r->proto == IPPROTO_UDP ? "udp" : "icmp"));
	if (r->src_len != 0 || (r->family != 0 && r->dst_len == 0))
		PUT(format_prefix(t + n, sizeof(t) - n, "src", r->src, r->src_len, r->family));
	if (r->dst_len != 0)
		PUT(format_prefix(t + n, sizeof(t) - n, "dst", r->dst, r->dst_len, r->family));
	if (r->sport_lo != 0 || r->sport_hi != 65535)
		PUT(format_ports(t + n, sizeof(t) - n, "sport", r->sport_lo, r->sport_hi));
	if (r->dport_lo != 0 || r->dport_hi != 65535 || (r->has_ports && r->sport_lo == 0 &&
							  r->sport_hi == 65535))
		PUT(format_ports(t + n, sizeof(t) - n, "dport", r->dport_lo, r->dport_hi));
	if (r->action == RPS_RULE_ACT_DROP)
		PUT(snprintf(t + n, sizeof(t) - n, " -> drop"));
	else
		PUT(snprintf(t + n, sizeof(t) - n, " -> %s %u",
			     r->action == RPS_RULE_ACT_WORKER ? "worker" : "consumer", r->target));
#undef PUT
	return snprintf(buf, len, "%s", t + 1);
}

int
rps_rule_resolve(const struct rps_rule *r, uint16_t nb_workers, const uint16_t *group_size,
		 uint16_t nb_groups, uint16_t *target, char *err, size_t err_len)
{
	unsigned int nb_consumers = 0, j;
	uint16_t g;

	for (g = 0; g < nb_groups; g++)
		nb_consumers += group_size[g];
	switch (r->action) {
	case RPS_RULE_ACT_DROP:
		*target = RPS_RULE_DROP;
		return 0;
	case RPS_RULE_ACT_WORKER:
		if (nb_workers == 0) {
			bad(err, err_len, "worker %u: there are no workers (an empty --map)",
			    r->target);
			return -ENOTSUP;
		}
		if (r->target >= nb_workers) {
			bad(err, err_len, "worker %u: there are %u workers (0..%u)", r->target,
			    nb_workers, nb_workers - 1u);
			return -ERANGE;
		}
		*target = r->target;
		return 0;
	case RPS_RULE_ACT_CONSUMER:
		if (nb_consumers == 0) {
			bad(err, err_len, "consumer %u: needs --consumers", r->target);
			return -ENOTSUP;
		}
		if (r->target >= nb_consumers) {
			bad(err, err_len, "consumer %u: there are %u consumers (0..%u)", r->target,
			    nb_consumers, nb_consumers - 1u);
			return -ERANGE;
		}
		/* its group g and its index j there: worker w feeds w mod K_g, worker j first */
		for (g = 0, j = r->target; j >= group_size[g]; g++)
			j -= group_size[g];
		if (j >= nb_workers) {
			bad(err, err_len, "consumer %u: consumer %u of group %u, and %u workers feed "
			    "that group (0..%u)", r->target, j, g, nb_workers, nb_workers - 1u);
			return -ERANGE;
		}
		*target = (uint16_t)j;
		return 0;
	}
	return -EINVAL;
}

/* --- the ACL contexts --- */

/*
 * The key classified, filled from the packet's flow key, every multi-byte field in network
 * order as librte_acl reads it: the protocol (librte_acl's first field is one byte, alone in
 * its input), then 4-byte inputs: a flag that says the packet has ports (a fragment after
 * the first has none, so that a rule with ports cannot match its zeros), the addresses, the
 * two ports. IPv6 keeps the same shape with 16-byte addresses.
 */
struct rule_key4 {
	uint8_t proto, pad[3];
	uint32_t ports_ok;
	uint32_t src, dst;
	uint16_t sport, dport;
};
struct rule_key6 {
	uint8_t proto, pad[3];
	uint32_t ports_ok;
	uint32_t src[4], dst[4];
	uint16_t sport, dport;
};

#define NF4 6
#define NF6 12
RTE_ACL_RULE_DEF(acl_rule4, NF4);
RTE_ACL_RULE_DEF(acl_rule6, NF6);

static void
acl_fields(struct rte_acl_config *cfg, int fam)
{
	const int words = fam == 4 ? 1 : 4;
	const uint32_t src = fam == 4 ? offsetof(struct rule_key4, src) :
			     offsetof(struct rule_key6, src);
	const uint32_t sport = fam == 4 ? offsetof(struct rule_key4, sport) :
			       offsetof(struct rule_key6, sport);
	uint8_t f = 0;

	memset(cfg, 0, sizeof(*cfg));
	cfg->num_categories = 1;
	cfg->defs[f] = (struct rte_acl_field_def){ .type = RTE_ACL_FIELD_TYPE_BITMASK,
		.size = 1, .field_index = f, .input_index = 0, .offset = 0 };
	f++;
	cfg->defs[f] = (struct rte_acl_field_def){ .type = RTE_ACL_FIELD_TYPE_BITMASK,
		.size = 4, .field_index = f, .input_index = 1, .offset = 4 };
	f++;
	for (int i = 0; i < 2 * words; i++, f++)
		cfg->defs[f] = (struct rte_acl_field_def){ .type = RTE_ACL_FIELD_TYPE_MASK,
			.size = 4, .field_index = f, .input_index = (uint8_t)(2 + i),
			.offset = src + 4u * (uint32_t)i };
	for (int i = 0; i < 2; i++, f++)
		cfg->defs[f] = (struct rte_acl_field_def){ .type = RTE_ACL_FIELD_TYPE_RANGE,
			.size = 2, .field_index = f, .input_index = (uint8_t)(2 + 2 * words),
			.offset = sport + 2u * (uint32_t)i };
	cfg->num_fields = f;
}

/* The ACL form of rule @p i (protocol @p proto) for family @p fam, into @p fl. */
static void
acl_rule(const struct rps_rule *r, uint16_t i, uint8_t proto, int fam, struct rte_acl_rule_data *d,
	 struct rte_acl_field *fl)
{
	const int words = fam == 4 ? 1 : 4;
	int f = 0;

	d->category_mask = 1;
	d->priority = (int32_t)(RPS_RULES_MAX - i); /* the first rule wins */
	d->userdata = (uint32_t)i + 1;
	fl[f].value.u8 = proto;
	fl[f++].mask_range.u8 = proto != 0 ? 0xff : 0;
	fl[f].value.u32 = r->has_ports;
	fl[f++].mask_range.u32 = r->has_ports;
	for (int side = 0; side < 2; side++) {
		const uint8_t *a = side == 0 ? r->src : r->dst;
		const int len = side == 0 ? r->src_len : r->dst_len;

		for (int w = 0; w < words; w++, f++) {
			uint32_t v;
			int l = RTE_MAX(0, RTE_MIN(32, len - 32 * w));

			memcpy(&v, a + 4 * w, 4);
			fl[f].value.u32 = rte_be_to_cpu_32(v);
			fl[f].mask_range.u32 = (uint32_t)l;
		}
	}
	fl[f].value.u16 = r->sport_lo;
	fl[f++].mask_range.u16 = r->sport_hi;
	fl[f].value.u16 = r->dport_lo;
	fl[f].mask_range.u16 = r->dport_hi;
}

static struct rte_acl_ctx *
acl_build(const struct rps_rule *rules, uint16_t n, int fam, int socket)
{
	static uint32_t seq;
	const size_t rsz = fam == 4 ? sizeof(struct acl_rule4) : sizeof(struct acl_rule6);
	struct rte_acl_config cfg;
	struct rte_acl_param prm;
	struct rte_acl_ctx *ctx;
	char name[RTE_ACL_NAMESIZE];
	uint8_t *buf;
	uint32_t nb = 0;
	int rc;

	buf = calloc(2u * n + 1, rsz);
	if (buf == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	for (uint16_t i = 0; i < n; i++) {
		const struct rps_rule *r = &rules[i];
		uint8_t protos[2];
		int np = 0;

		if (r->family != 0 && r->family != fam)
			continue;
		if (r->proto == IPPROTO_ICMP)
			protos[np++] = fam == 4 ? IPPROTO_ICMP : IPPROTO_ICMPV6;
		else if (r->proto != 0 || !r->has_ports)
			protos[np++] = r->proto;
		else { /* ports without a protocol: TCP and UDP */
			protos[np++] = IPPROTO_TCP;
			protos[np++] = IPPROTO_UDP;
		}
		for (int k = 0; k < np; k++, nb++) {
			struct rte_acl_rule *ar = (struct rte_acl_rule *)(buf + nb * rsz);

			acl_rule(r, i, protos[k], fam, &ar->data, ar->field);
		}
	}
	if (nb == 0) {
		free(buf);
		rte_errno = 0;
		return NULL;
	}
	snprintf(name, sizeof(name), "rps_rules%d_%u", fam,
		 __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED));
	prm = (struct rte_acl_param){ .name = name, .socket_id = socket,
		.rule_size = (uint32_t)rsz, .max_rule_num = nb };
	ctx = rte_acl_create(&prm);
	if (ctx == NULL) {
		free(buf);
		return NULL;
	}
	acl_fields(&cfg, fam);
	rc = rte_acl_add_rules(ctx, (const struct rte_acl_rule *)buf, nb);
	if (rc == 0)
		rc = rte_acl_build(ctx, &cfg);
	free(buf);
	if (rc != 0) {
		rte_acl_free(ctx);
		rte_errno = -rc;
		return NULL;
	}
	return ctx;
}

struct rps_rules *
rps_rules_build(const struct rps_rule *rules, const uint16_t *targets, uint16_t n,
		uint32_t generation, int socket)
{
	struct rps_rules *rs;
	int any4 = 0, any6 = 0;

	if (n > RPS_RULES_MAX) {
		rte_errno = EINVAL;
		return NULL;
	}
	rs = rte_zmalloc_socket("rps_rules", sizeof(*rs), RTE_CACHE_LINE_SIZE, socket);
	if (rs == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	rs->generation = generation;
	rs->nb_rules = n;
	for (uint16_t i = 0; i < n; i++) {
		rs->rule[i] = rules[i];
		rs->target[i] = targets[i];
		rs->slot[i] = i;
		rps_rule_format(&rules[i], rs->text[i], sizeof(rs->text[i]));
		any4 |= rules[i].family != 6;
		any6 |= rules[i].family != 4;
	}
	if (any4 && (rs->acl4 = acl_build(rules, n, 4, socket)) == NULL)
		goto fail;
	if (any6 && (rs->acl6 = acl_build(rules, n, 6, socket)) == NULL)
		goto fail;
	return rs;
fail:
	rps_rules_free(rs);
	return NULL;
}

void
rps_rules_free(struct rps_rules *rs)
{
	if (rs == NULL)
		return;
	rte_acl_free(rs->acl4);
	rte_acl_free(rs->acl6);
	rte_free(rs);
}

/* --- classification --- */

/* Packets classified per rte_acl_classify() call (the keys live on the stack). */
#define RULES_CHUNK 64

static inline uint8_t
key_ports(const struct rps_flow_key *k, uint16_t *sport, uint16_t *dport)
{
	if (!k->has_ports || (k->proto != IPPROTO_TCP && k->proto != IPPROTO_UDP)) {
		*sport = 0;
		*dport = 0;
		return 0;
	}
	memcpy(sport, &k->ports, 2);
	memcpy(dport, (const uint8_t *)&k->ports + 2, 2);
	return 1;
}

/* Classify @p n (at most RULES_CHUNK) packets by their flow keys (@p keys[i]); @p rev: by
 * the keys of their reverse direction (addresses and ports swapped). */
static void
classify_chunk(const struct rps_rules *rs, const struct rps_flow_key *keys, uint16_t n,
	       uint16_t *match, int rev)
{
	struct rule_key4 k4[RULES_CHUNK];
	struct rule_key6 k6[RULES_CHUNK];
	const uint8_t *d4[RULES_CHUNK], *d6[RULES_CHUNK];
	uint16_t i4[RULES_CHUNK], i6[RULES_CHUNK];
	uint32_t res[RULES_CHUNK];
	uint16_t n4 = 0, n6 = 0;

	for (uint16_t i = 0; i < n; i++) {
		const struct rps_flow_key *k = &keys[i];

		match[i] = RPS_RULE_NONE;
		if (k->family == 4 && rs->acl4 != NULL) {
			struct rule_key4 *q = &k4[n4];

			q->proto = k->proto;
			q->ports_ok = rte_cpu_to_be_32(rev ? key_ports(k, &q->dport, &q->sport) :
							     key_ports(k, &q->sport, &q->dport));
			q->pad[0] = q->pad[1] = q->pad[2] = 0;
			q->src = rev ? k->dst[0] : k->src[0];
			q->dst = rev ? k->src[0] : k->dst[0];
			d4[n4] = (const uint8_t *)q;
			i4[n4++] = i;
		} else if (k->family == 6 && rs->acl6 != NULL) {
			struct rule_key6 *q = &k6[n6];

			q->proto = k->proto;
			q->ports_ok = rte_cpu_to_be_32(rev ? key_ports(k, &q->dport, &q->sport) :
							     key_ports(k, &q->sport, &q->dport));
			q->pad[0] = q->pad[1] = q->pad[2] = 0;
			memcpy(q->src, rev ? k->dst : k->src, 16);
			memcpy(q->dst, rev ? k->src : k->dst, 16);
			d6[n6] = (const uint8_t *)q;
			i6[n6++] = i;
		}
	}
	if (n4 != 0 && rte_acl_classify(rs->acl4, d4, res, n4, 1) == 0)
		for (uint16_t j = 0; j < n4; j++)
			match[i4[j]] = res[j] != 0 ? (uint16_t)(res[j] - 1) : RPS_RULE_NONE;
	if (n6 != 0 && rte_acl_classify(rs->acl6, d6, res, n6, 1) == 0)
		for (uint16_t j = 0; j < n6; j++)
			match[i6[j]] = res[j] != 0 ? (uint16_t)(res[j] - 1) : RPS_RULE_NONE;
}

uint16_t
rps_rules_classify_keys_dir(const struct rps_rules *rs, const struct rps_flow_key *keys,
			    uint16_t n, uint16_t *match, int both)
{
	uint16_t hit = 0;

	for (uint16_t o = 0; o < n; o += RULES_CHUNK) {
		const uint16_t c = RTE_MIN((uint16_t)RULES_CHUNK, (uint16_t)(n - o));
		uint16_t back[RULES_CHUNK];

		classify_chunk(rs, keys + o, c, match + o, 0);
		if (!both)
			continue;
		/* the connection's rule: the first that matches either direction */
		classify_chunk(rs, keys + o, c, back, 1);
		for (uint16_t i = 0; i < c; i++)
			match[o + i] = RTE_MIN(match[o + i], back[i]);
	}
	for (uint16_t i = 0; i < n; i++)
		hit += match[i] != RPS_RULE_NONE;
	return hit;
}

uint16_t
rps_rules_classify_keys(const struct rps_rules *rs, const struct rps_flow_key *keys,
			uint16_t n, uint16_t *match)
{
	return rps_rules_classify_keys_dir(rs, keys, n, match, 0);
}

uint16_t
rps_rules_classify_dir(const struct rps_rules *rs, struct rte_mbuf *const *pkts, uint16_t n,
		       uint16_t *match, int both)
{
	struct rps_flow_key keys[RULES_CHUNK];
	uint16_t hit = 0;

	for (uint16_t o = 0; o < n; o += RULES_CHUNK) {
		const uint16_t c = RTE_MIN((uint16_t)RULES_CHUNK, (uint16_t)(n - o));

		for (uint16_t i = 0; i < c; i++)
			(void)rps_flow_key_get(pkts[o + i], 0, NULL, &keys[i]);
		hit += rps_rules_classify_keys_dir(rs, keys, c, match + o, both);
	}
	return hit;
}

uint16_t
rps_rules_classify(const struct rps_rules *rs, struct rte_mbuf *const *pkts, uint16_t n,
		   uint16_t *match)
{
	return rps_rules_classify_dir(rs, pkts, n, match, 0);
}
