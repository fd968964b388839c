/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rps_rules.h: steering rules, as `ethtool -N` ntuple rules: a packet whose 5-tuple a rule
 * matches goes to that rule's worker (or is dropped) instead of through the map.
 *
 * Grammar of one rule (rps_rule_parse()), the fields in any order, each at most once:
 *
 *   [PROTO] [src PREFIX] [dst PREFIX] [sport PORTS] [dport PORTS] -> ACTION
 *   PROTO  = tcp | udp | icmp | any        (default any; icmp is ICMPv6 for IPv6)
 *   PREFIX = IPv4 or IPv6 address, /LEN optional (a host without it); no host bits
 *   PORTS  = N | LO-HI                     (0..65535; only with tcp, udp or no protocol:
 *                                           then the rule matches TCP and UDP)
 *   ACTION = worker N | consumer N | drop
 *
 * A rule with an IPv4 prefix matches IPv4 only, one with an IPv6 prefix IPv6 only, one without
 * either both. Non-IP packets match no rule; neither do IP fragments after the first for a
 * rule with ports (they carry none). The first rule that matches wins (order of the list).
 *
 * A rule set (rps_rules_build()) is immutable once built: DPDK's librte_acl, one context for
 * IPv4 and one for IPv6, classifying a small key filled from the packet's flow key
 * (rps_flow_key_get(), outer header; VLAN tags and IP options do not matter), so a burst is
 * one rte_acl_classify() per family. The RX lcores read a set under RCU; the control thread
 * builds and frees sets.
 */
#ifndef RPS_RULES_H
#define RPS_RULES_H

#include <stddef.h>
#include <stdint.h>

#include <rte_mbuf.h>

struct rps_flow_key; /* rps_hash.h */

/** At most this many rules (the command line's and the file's together). */
#define RPS_RULES_MAX 256
/** Hit counters a steering context has (rps_steer.h rule_hits): a rule counts in its set's
 * slot[] of it, so that a caller can keep a rule's count across the sets that hold it. */
#define RPS_RULE_SLOTS (4 * RPS_RULES_MAX)
/** A rule's text as rps_rule_format() writes it, with its NUL. */
#define RPS_RULE_TEXT_MAX 160
/** rps_rules_classify(): no rule matched. */
#define RPS_RULE_NONE UINT16_MAX
/** A resolved target (rps_rule_resolve()): drop the packet. */
#define RPS_RULE_DROP UINT16_MAX

enum rps_rule_action {
	RPS_RULE_ACT_WORKER,   /**< to worker target (index as /rps/workers shows it) */
	RPS_RULE_ACT_CONSUMER, /**< to the worker that feeds consumer target (--consumers) */
	RPS_RULE_ACT_DROP,     /**< free it, counted as the drop reason `rule` */
};

/** One rule as parsed. Addresses and ports in host order. */
struct rps_rule {
	uint8_t proto;        /**< 0: any, else IPPROTO_TCP, IPPROTO_UDP or IPPROTO_ICMP */
	uint8_t family;       /**< 0: both (no prefix), 4 or 6 */
	uint8_t src_len;      /**< prefix lengths (0: any address) */
	uint8_t dst_len;
	uint8_t has_ports;    /**< a port field was given */
	uint8_t src[16];      /**< network order (IPv4: the first 4 bytes) */
	uint8_t dst[16];
	uint16_t sport_lo, sport_hi; /**< 0..65535 when not given */
	uint16_t dport_lo, dport_hi;
	enum rps_rule_action action;
	uint16_t target;      /**< worker or consumer index */
};

/**
 * Parse one rule (grammar above).
 * @param err receives what is wrong, naming the word ("src 10.0.0.1/8: host bits set after
 *   /8 (10.0.0.0/8?)", "worker: expected a worker index 0..65534, not 'x'", "missing '->
 *   ACTION'"); the caller adds where the rule came from (FILE:LINE, --rule '...').
 * @return 0, or -EINVAL.
 */
int rps_rule_parse(const char *text, struct rps_rule *r, char *err, size_t err_len);

/** The canonical text of @p r ("tcp dst 10.0.0.0/8 dport 443 -> worker 3"), parseable again
 * to the same rule. @return the length snprintf() would write. */
int rps_rule_format(const struct rps_rule *r, char *buf, size_t len);

/**
 * The worker a rule sends to, or RPS_RULE_DROP, with @p nb_workers workers and consumers in
 * @p nb_groups groups of @p group_size[g] each (0 groups: --consumers off). Consumers are
 * numbered across the groups, group 0 first; worker w feeds consumer w mod K_g of group g,
 * so consumer c, the j-th of its group, resolves to worker j, the first that feeds it (which
 * also feeds, as every worker does, one consumer of each other group).
 * @return 0, or -ERANGE (a worker or consumer that does not exist), -ENOTSUP (consumer
 *   without --consumers, or any worker without workers), with @p err saying which.
 */
int rps_rule_resolve(const struct rps_rule *r, uint16_t nb_workers, const uint16_t *group_size,
		     uint16_t nb_groups, uint16_t *target, char *err, size_t err_len);

/** A built, immutable rule set. */
struct rps_rules {
	uint32_t generation;  /**< bumped by the caller for each new set */
	uint16_t nb_rules;
	struct rte_acl_ctx *acl4; /**< NULL: no rule for IPv4 */
	struct rte_acl_ctx *acl6; /**< NULL: no rule for IPv6 */
	uint16_t target[RPS_RULES_MAX];  /**< resolved: a worker or RPS_RULE_DROP */
	struct rps_rule rule[RPS_RULES_MAX];
	char text[RPS_RULES_MAX][RPS_RULE_TEXT_MAX]; /**< as rps_rule_format() */
	/** where rule i counts its hits: rule_hits[slot[i]] of the steering context, below
	 * RPS_RULE_SLOTS and each distinct in the set. rps_rules_build() sets slot[i] = i; a
	 * caller that keeps a rule's count across sets sets its own before publishing it. */
	uint16_t slot[RPS_RULES_MAX];
};

/**
 * Build a set of @p n rules (at most RPS_RULES_MAX) with their resolved @p targets, on
 * @p socket (control thread: rte_acl_build() allocates and may take milliseconds).
 * @return the set, or NULL with rte_errno (EINVAL: too many; ENOMEM, or rte_acl's error).
 */
struct rps_rules *rps_rules_build(const struct rps_rule *rules, const uint16_t *targets,
				  uint16_t n, uint32_t generation, int socket);
/** Free a set (NULL is fine). No reader may hold it. */
void rps_rules_free(struct rps_rules *rs);

/**
 * Classify @p n packets: @p match[i] receives the index of the first rule that matches pkts[i], or RPS_RULE_NONE.
 * Thread-safe on one set from several lcores (read only). @return packets matched.
 */
uint16_t rps_rules_classify(const struct rps_rules *rs, struct rte_mbuf *const *pkts,
			    uint16_t n, uint16_t *match);

/**
 * rps_rules_classify() of packets whose flow keys the caller has extracted already:
 * @p keys[i] is rps_flow_key_get(pkts[i], 0, NULL, &keys[i]) (outer, not sorted), so that a
 * caller that hashes the same key in software extracts it once (rps_steer_burst()).
 * @return packets matched.
 */
uint16_t rps_rules_classify_keys(const struct rps_rules *rs, const struct rps_flow_key *keys,
				 uint16_t n, uint16_t *match);

/**
 * rps_rules_classify() and rps_rules_classify_keys() for steering that keeps a connection's
 * two directions together (symmetric, inline pairs): with @p both, a packet takes the first
 * rule that matches it or its reverse (addresses and ports swapped), so `tcp dport 5201`
 * also catches the server's replies from port 5201 and both halves go one way. @p both 0:
 * the packet's own direction only, as the functions above.
 */
uint16_t rps_rules_classify_dir(const struct rps_rules *rs, struct rte_mbuf *const *pkts,
				uint16_t n, uint16_t *match, int both);
uint16_t rps_rules_classify_keys_dir(const struct rps_rules *rs,
				     const struct rps_flow_key *keys, uint16_t n,
				     uint16_t *match, int both);

#endif /* RPS_RULES_H */
