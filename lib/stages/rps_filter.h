/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rps_filter.h: what a consumer group receives, as a tcpdump expression (pcap-filter(7)):
 * compiled once by libpcap to classic BPF for Ethernet frames, converted by DPDK's librte_bpf
 * (rte_bpf_convert()) to eBPF, loaded and, where the CPU has DPDK's JIT (x86-64, arm64),
 * compiled to native code. A packet matches when the program returns non-zero (libpcap's
 * snap length), as tcpdump would read it from a capture of the same frames.
 *
 * A set (struct rps_filter_set) holds one filter per consumer group; the control thread
 * builds it, publishes its pointer with a release store and frees the one it replaced only
 * after every worker has passed a quiescent state (rte_rcu_qsbr); a worker loads the
 * pointer once per burst and runs the filters of that set over the burst. Nothing here
 * locks, allocates or calls the kernel once a filter is compiled.
 *
 * Concurrency: compile and free on a control or set-up thread; rps_filter_match() on any
 * thread, on a filter that thread may read (the set's rules above).
 */
#ifndef RPS_FILTER_H
#define RPS_FILTER_H

#include <stddef.h>
#include <stdint.h>

#include <rte_bpf.h>
#include <rte_mbuf.h>

/** The longest expression (bytes, without its NUL). */
#define RPS_FILTER_TEXT_MAX 1023
/** Filters a set holds: one per consumer group at most. */
#define RPS_FILTER_GROUPS_MAX 8

/** A compiled expression. */
struct rps_filter {
	uint64_t (*jit)(void *ctx);  /**< the JIT's code; NULL: interpreted */
	struct rte_bpf *bpf;         /**< the loaded program */
	uint32_t cbpf_insns;         /**< libpcap's instructions */
	uint32_t ebpf_insns;         /**< after rte_bpf_convert() */
	char text[RPS_FILTER_TEXT_MAX + 1]; /**< the expression as given */
};

/**
 * Compile @p expr (pcap-filter(7) syntax, for Ethernet frames) into *@p out.
 * @param jit 1: use DPDK's JIT where it has one for this CPU; 0: always interpret
 *   (measurements, tests).
 * @param err receives the reason on failure: libpcap's own message for a bad expression
 *   ("can't parse filter expression: syntax error"), else what failed.
 * @return 0; -EINVAL (a bad or empty expression, or one over RPS_FILTER_TEXT_MAX);
 *   -ENOTSUP (librte_bpf cannot convert or load it); -ENOMEM.
 */
int rps_filter_compile(const char *expr, int jit, struct rps_filter **out, char *err,
		       size_t err_len);

/** Free @p f (NULL is fine). No thread may be running it. */
void rps_filter_free(struct rps_filter *f);

/** Whether frame @p m (an Ethernet frame, any number of segments) matches @p f. */
static inline int
rps_filter_match(const struct rps_filter *f, struct rte_mbuf *m)
{
	if (f->jit != NULL)
		return f->jit(m) != 0;
	return rte_bpf_exec(f->bpf, m) != 0;
}

/** One filter per consumer group, published as a whole (above). */
struct rps_filter_set {
	uint32_t generation;         /**< 1 at start, one more per reload that changed it */
	uint16_t nb_groups;          /**< groups it covers */
	uint16_t nb_filters;         /**< how many of them have a filter */
	/** group g's filter; NULL: the group receives every packet */
	struct rps_filter *group[RPS_FILTER_GROUPS_MAX];
};

/** Free @p s and its filters (NULL is fine). No thread may be reading it. */
void rps_filter_set_free(struct rps_filter_set *s);

#endif /* RPS_FILTER_H */
