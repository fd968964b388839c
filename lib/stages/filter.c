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

int
rps_filter_compile(const char *expr, int jit, struct rps_filter **out, char *err,
		   size_t err_len)
{
	struct bpf_program prog;
	struct rte_bpf_prm *prm;
	struct rte_bpf_jit native;
	struct rps_filter *f;
	pcap_t *p;
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
	f->ebpf_insns = prm->nb_ins;
	f->bpf = rte_bpf_load(prm);
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
