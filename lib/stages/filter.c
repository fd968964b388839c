/* SPDX-License-Identifier: BSD-3-Clause */
/* filter.c: a tcpdump expression to a program the workers run (rps_filter.h): libpcap's
 * compiler, then librte_bpf's conversion, load and JIT. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/pcap.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "rps_filter.h"

/*
 * Two defects of DPDK 22.11's librte_bpf that a tcpdump expression meets (both seen by
 * unit-filter against libpcap's own interpreter), repaired in the converted program before
 * it is loaded; the interpreter and the JIT then run one program with one meaning:
 *
 * - rte_bpf_convert() maps classic BPF's indirect loads (A = P[X + k]) to eBPF with the
 *   index in X only for halfwords: for bytes and words it takes BPF_SRC() of the code,
 *   which is 0 there, so the index is A ("tcp[13] = 2" reads tcp[A + 13]). Every indirect
 *   load gets X (r7) as its index here.
 * - The x86-64 JIT encodes "jset dst, #imm" as TEST r/m64, imm32 (opcode F7 /0) but writes
 *   a one-byte immediate when imm fits in an int8: the next instructions are read from the
 *   middle of the immediate and the code crashes or misjudges ("ether[0] & 1 = 0",
 *   "tcp[tcpflags] & tcp-syn != 0": every JSET libpcap emits for a small mask). Its TEST
 *   with a register is right, so each such JSET becomes "mov r9, #imm; jset dst, r9" (r9:
 *   a register rte_bpf_convert() never uses), the jumps re-aimed over the added moves.
 */
static int
jset_small(const struct ebpf_insn *in)
{
	return in->code == (BPF_JMP | BPF_JSET | BPF_K) && in->imm == (int8_t)in->imm;
}

/* Whether @p in jumps (with an offset; not a call or an exit). */
static int
jumps(const struct ebpf_insn *in)
{
	const uint8_t op = BPF_OP(in->code);

	return BPF_CLASS(in->code) == BPF_JMP && op != EBPF_CALL && op != EBPF_EXIT;
}

/* @p prm's program repaired (above): indirect loads in place; without small-immediate
 * JSETs, into a new array (malloc, for the caller to free) in prm->ins.
 * @return 0, -ENOMEM, or -ENOTSUP (r9 in use, a jump out of the program). */
static int
repair(struct rte_bpf_prm *prm, struct ebpf_insn **mem)
{
	struct ebpf_insn *in = (struct ebpf_insn *)(uintptr_t)prm->ins; /* rte_bpf_convert()'s */
	const uint32_t n = prm->nb_ins;
	uint32_t *start, extra = 0, k = 0;
	struct ebpf_insn *out;

	*mem = NULL;
	for (uint32_t i = 0; i < n; i++) {
		if (in[i].dst_reg == EBPF_REG_9 || in[i].src_reg == EBPF_REG_9)
			return -ENOTSUP;
		if (BPF_CLASS(in[i].code) == BPF_LD && BPF_MODE(in[i].code) == BPF_IND)
			in[i].src_reg = EBPF_REG_7; /* cBPF's X */
		extra += (uint32_t)jset_small(&in[i]);
	}
	if (extra == 0)
		return 0;
	start = malloc(sizeof(*start) * (n + 1));
	out = malloc(sizeof(*out) * (n + extra));
	if (start == NULL || out == NULL) {
		free(start);
		free(out);
		return -ENOMEM;
	}
	/* where each old instruction starts now (a jump to a JSET lands on its move) */
	for (uint32_t i = 0; i < n; i++) {
		start[i] = k;
		k += 1 + (uint32_t)jset_small(&in[i]);
	}
	start[n] = k;
	for (uint32_t i = 0; i < n; i++) {
		struct ebpf_insn *o = &out[start[i]];
		int64_t to;

		if (jset_small(&in[i])) {
			*o = (struct ebpf_insn){ .code = EBPF_ALU64 | EBPF_MOV | BPF_K,
						 .dst_reg = EBPF_REG_9, .imm = in[i].imm };
			o++;
			*o = in[i];
			o->code = BPF_JMP | BPF_JSET | BPF_X;
			o->src_reg = EBPF_REG_9;
			o->imm = 0;
		} else {
			*o = in[i];
		}
		if (jumps(&in[i])) {
			to = (int64_t)i + 1 + in[i].off;
			if (to < 0 || to > (int64_t)n) { /* the validator refuses it anyway */
				free(start);
				free(out);
				return -ENOTSUP;
			}
			o->off = (int16_t)((int64_t)start[to] - (int64_t)(o - out) - 1);
		}
	}
	free(start);
	prm->ins = out;
	prm->nb_ins = n + extra;
	*mem = out;
	return 0;
}

int
rps_filter_compile(const char *expr, int jit, struct rps_filter **out, char *err,
		   size_t err_len)
{
	struct bpf_program prog;
	struct rte_bpf_prm *prm;
	struct rte_bpf_jit native;
	struct ebpf_insn *ins;
	struct rps_filter *f;
	pcap_t *p;
	int rc;
	size_t len = strlen(expr);

	*out = NULL;
	if (len == 0 || strspn(expr, " \t") == len) {
		snprintf(err, err_len, "an empty expression (a group without a filter receives "
			 "every packet)");
		return -EINVAL;
	}
	if (len > RPS_FILTER_TEXT_MAX) {
		snprintf(err, err_len, "an expression of %zu characters (at most %u)", len,
			 RPS_FILTER_TEXT_MAX);
		return -EINVAL;
	}
	f = calloc(1, sizeof(*f));
	/* a dead handle: compiles for Ethernet frames, captures nothing */
	p = pcap_open_dead(DLT_EN10MB, 65535);
	if (f == NULL || p == NULL) {
		snprintf(err, err_len, "out of memory");
		free(f);
		if (p != NULL)
			pcap_close(p);
		return -ENOMEM;
	}
	memcpy(f->text, expr, len + 1);
	if (pcap_compile(p, &prog, expr, 1, PCAP_NETMASK_UNKNOWN) != 0) {
		snprintf(err, err_len, "%s", pcap_geterr(p));
		pcap_close(p);
		free(f);
		return -EINVAL;
	}
	pcap_close(p);
	f->cbpf_insns = prog.bf_len;
	prm = rte_bpf_convert(&prog);
	pcap_freecode(&prog);
	if (prm == NULL) {
		snprintf(err, err_len, "librte_bpf cannot convert libpcap's program: %s",
			 rte_strerror(rte_errno));
		free(f);
		return rte_errno == ENOMEM ? -ENOMEM : -ENOTSUP;
	}
	rc = repair(prm, &ins);
	if (rc < 0) {
		snprintf(err, err_len, "cannot repair the converted program: %s",
			 strerror(-rc));
		rte_free(prm);
		free(f);
		return rc;
	}
	f->ebpf_insns = prm->nb_ins;
	f->bpf = rte_bpf_load(prm);
	free(ins);
	rte_free(prm);
	if (f->bpf == NULL) {
		snprintf(err, err_len, "librte_bpf cannot load the converted program: %s",
			 rte_strerror(rte_errno));
		free(f);
		return rte_errno == ENOMEM ? -ENOMEM : -ENOTSUP;
	}
	if (jit && rte_bpf_get_jit(f->bpf, &native) == 0)
		f->jit = native.func;
	*out = f;
	return 0;
}

void
rps_filter_free(struct rps_filter *f)
{
	if (f == NULL)
		return;
	rte_bpf_destroy(f->bpf);
	free(f);
}

void
rps_filter_set_free(struct rps_filter_set *s)
{
	if (s == NULL)
		return;
	for (unsigned int g = 0; g < RPS_FILTER_GROUPS_MAX; g++)
		rps_filter_free(s->group[g]);
	free(s);
}
