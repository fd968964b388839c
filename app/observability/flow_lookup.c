/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * flow_lookup.c: /rps/flow, where a flow goes and what dpdk-rps knows of it. For a tuple
 * (either direction): the hash the RX lcore computes for it, its bucket in the RX queue's
 * table and the worker that owns the bucket, the steering rule that takes it instead (if
 * one does), its consumer in each group, and its entry in the flow table of every worker
 * that has one (asked through the worker's mailbox, rps_worker.ask, answered between
 * bursts).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_telemetry.h>

#include "app.h"
#include "rps_rules.h"

/* How long the reply waits for the workers' answers, at most: a sleeping worker wakes by
 * itself within RPS_WAKE_IDLE_US. */
#define ASK_WAIT_MS 100u

/* One query at a time: a worker's mailbox holds one question. */
static pthread_mutex_t ask_lock = PTHREAD_MUTEX_INITIALIZER;

struct flow_query {
	struct rps_flow_tuple t;
	uint16_t queue;
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];
};

static int
parse_proto(const char *s, uint8_t *proto)
{
	char *end;
	unsigned long v;

	if (strcmp(s, "tcp") == 0)
		*proto = IPPROTO_TCP;
	else if (strcmp(s, "udp") == 0)
		*proto = IPPROTO_UDP;
	else if (strcmp(s, "icmp") == 0)
		*proto = IPPROTO_ICMP;
	else if (strcmp(s, "sctp") == 0)
		*proto = IPPROTO_SCTP;
	else {
		v = strtoul(s, &end, 10);
		if (*s == '\0' || *end != '\0' || v > 255)
			return -1;
		*proto = (uint8_t)v;
	}
	return 0;
}

static int
parse_port(const char *s, uint16_t *port)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v > 65535)
		return -1;
	*port = (uint16_t)v;
	return 0;
}

/* "PROTO,SRC,SPORT,DST,DPORT[,QUEUE]" */
static int
parse_query(const struct rps_app *app, const char *params, struct flow_query *q)
{
	char buf[256], *save = NULL, *f[7];
	unsigned int n = 0;

	if (params == NULL || strlen(params) >= sizeof(buf))
		return -EINVAL;
	snprintf(buf, sizeof(buf), "%s", params);
	for (char *p = strtok_r(buf, ",", &save); p != NULL && n < RTE_DIM(f);
	     p = strtok_r(NULL, ",", &save))
		f[n++] = p;
	if (n < 5 || n > 6)
		return -EINVAL;
	memset(q, 0, sizeof(*q));
	if (parse_proto(f[0], &q->t.proto) < 0 || parse_port(f[2], &q->t.sport) < 0 ||
	    parse_port(f[4], &q->t.dport) < 0 || (n == 6 && parse_port(f[5], &q->queue) < 0) ||
	    q->queue >= app->io.nb_rxq)
		return -EINVAL;
	if (inet_pton(AF_INET, f[1], q->t.src) == 1 && inet_pton(AF_INET, f[3], q->t.dst) == 1)
		q->t.family = 4;
	else if (inet_pton(AF_INET6, f[1], q->t.src) == 1 &&
		 inet_pton(AF_INET6, f[3], q->t.dst) == 1)
		q->t.family = 6;
	else
		return -EINVAL;
	snprintf(q->src, sizeof(q->src), "%s", f[1]);
	snprintf(q->dst, sizeof(q->dst), "%s", f[3]);
	return 0;
}

/* The flow key the RX lcore extracts from such a packet (rps_flow_key_get(), outer). */
static void
query_key(const struct flow_query *q, struct rps_flow_key *k)
{
	const size_t alen = q->t.family == 4 ? 4 : 16;
	const uint8_t p = q->t.proto;

	memset(k, 0, sizeof(*k));
	k->family = q->t.family;
	k->proto = p;
	memcpy(k->src, q->t.src, alen);
	memcpy(k->dst, q->t.dst, alen);
	k->l2_len = RTE_ETHER_HDR_LEN;
	k->l3_len = q->t.family == 4 ? 20 : 40;
	if (p == IPPROTO_TCP || p == IPPROTO_UDP || p == IPPROTO_SCTP || p == 33 || p == 136) {
		const uint16_t sp = rte_cpu_to_be_16(q->t.sport), dp = rte_cpu_to_be_16(q->t.dport);

		k->has_ports = 1;
		memcpy(&k->ports, &sp, 2);
		memcpy((uint8_t *)&k->ports + 2, &dp, 2);
	}
}

/* Ask every worker with a flow table for the tuple, wait for their answers (ASK_WAIT_MS at
 * most), and add them: "flow" (each entry, by lcore) and "flow_unanswered" (the lcores that
 * did not answer in time, or still had an earlier question). ask_lock held. */
static void
ask_workers(const struct rps_app *app, const struct flow_query *q, struct rte_tel_data *d)
{
	struct rte_tel_data *fl = rte_tel_data_alloc(), *un = rte_tel_data_alloc();
	uint8_t asked[RTE_MAX_LCORE] = { 0 };
	const uint64_t end = rte_rdtsc() + rte_get_tsc_hz() * ASK_WAIT_MS / 1000;
	unsigned int pending = 0, tables = 0;

	if (fl == NULL || un == NULL) {
		rte_tel_data_free(fl);
		rte_tel_data_free(un);
		return;
	}
	rte_tel_data_start_dict(fl);
	rte_tel_data_start_array(un, RTE_TEL_INT_VAL);
	for (uint16_t i = 0; i < app->lc.nb_workers; i++) {
		struct rps_worker *w = &app->lc.workers[i];

		if (w->ctx.flows == NULL)
			continue;
		tables++;
		if (__atomic_load_n(&w->ask.done, __ATOMIC_ACQUIRE) != w->ask.req) {
			rte_tel_data_add_array_int(un, (int)w->lcore); /* an earlier one unanswered */
			continue;
		}
		w->ask.q = q->t;
		__atomic_store_n(&w->ask.req, w->ask.req + 1, __ATOMIC_RELEASE);
		asked[i] = 1;
		pending++;
	}
	while (pending != 0 && rte_rdtsc() < end) {
		usleep(200);
		pending = 0;
		for (uint16_t i = 0; i < app->lc.nb_workers; i++)
			pending += asked[i] && __atomic_load_n(&app->lc.workers[i].ask.done,
							       __ATOMIC_ACQUIRE) !=
					       app->lc.workers[i].ask.req;
	}
	for (uint16_t i = 0; i < app->lc.nb_workers; i++) {
		struct rps_worker *w = &app->lc.workers[i];
		const struct rps_flow_summary *s = &w->ask.out;
		struct rte_tel_data *e;
		char name[16];

		if (!asked[i])
			continue;
		if (__atomic_load_n(&w->ask.done, __ATOMIC_ACQUIRE) != w->ask.req) {
			rte_tel_data_add_array_int(un, (int)w->lcore);
			continue;
		}
		if (w->ask.rc != 0 || (e = rte_tel_data_alloc()) == NULL)
			continue;
		rte_tel_data_start_dict(e);
		rte_tel_data_add_dict_u64(e, "packets", s->packets);
		rte_tel_data_add_dict_u64(e, "bytes", s->bytes);
		rte_tel_data_add_dict_u64(e, "orig_packets", s->dir[RPS_FLOW_ORIG].packets);
		rte_tel_data_add_dict_u64(e, "reply_packets", s->dir[RPS_FLOW_REPLY].packets);
		rte_tel_data_add_dict_int(e, "orig_sport", s->sport); /* who sent first */
		rte_tel_data_add_dict_string(e, "state", rps_flow_state_name(s->state));
		snprintf(name, sizeof(name), "%u", w->lcore);
		rte_tel_data_add_dict_container(fl, name, e, 0);
	}
	rte_tel_data_add_dict_int(d, "flow_tables", (int)tables);
	rte_tel_data_add_dict_container(d, "flow", fl, 0);
	rte_tel_data_add_dict_container(d, "flow_unanswered", un, 0);
}

int
rps_tel_flow(const struct rps_app *app, const char *params, struct rte_tel_data *d)
{
	struct flow_query q;
	struct rps_flow_key k, hk;
	const struct rps_steer_ctx *ctx;
	struct rps_steer_hasher hs;
	int worker = -1, map_worker = -1, rule = -1, dropped = 0;
	uint32_t hash, bucket = 0;
	char hex[16], text[RPS_RULE_TEXT_MAX] = "", action[48] = "";
	int rc = parse_query(app, params, &q);

	if (rc < 0)
		return rc;
	query_key(&q, &k);
	/* the hash of the RX lcore that polls the queue, as it computes one in software */
	ctx = &app->lc.rx[app->io.rxq_lcore[q.queue]].steer;
	hs = rps_steer_hasher(ctx);
	hk = k;
	if (hs.sort)
		rps_flow_key_symmetric(&hk);
	hash = rps_steer_key_hash(ctx, hs.fn, &hk, hk.family);

	rps_ctl_lock(&app->ctl); /* the bucket view and the rule set stay */
	if (app->ctl.bview != NULL && app->ctl.bview[q.queue] != NULL && app->ctl.bview[q.queue]->size) {
		const struct rps_bucket_view *v = app->ctl.bview[q.queue];

		bucket = (uint32_t)(((uint64_t)hash * v->size) >> 32); /* rps_map_bucket() */
		if (v->owner[bucket] < app->lc.nb_workers)
			map_worker = v->owner[bucket];
	}
	if (app->steer.rules != NULL && app->steer.rules->nb_rules != 0) {
		uint16_t r;

		if (rps_rules_classify_keys_dir(app->steer.rules, &k, 1, &r,
						ctx->symmetric != RPS_SYM_OFF) != 0) {
			rule = r;
			snprintf(text, sizeof(text), "%s", app->steer.rules->text[r]);
			rps_app_rule_action(app->steer.rules, r, action, sizeof(action));
			if (app->steer.rules->target[r] == RPS_RULE_DROP)
				dropped = 1;
			else
				worker = app->steer.rules->target[r];
		}
	}
	rps_ctl_unlock(&app->ctl);
	if (rule < 0)
		worker = map_worker;

	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "src", q.src);
	rte_tel_data_add_dict_int(d, "sport", q.t.sport);
	rte_tel_data_add_dict_string(d, "dst", q.dst);
	rte_tel_data_add_dict_int(d, "dport", q.t.dport);
	rte_tel_data_add_dict_int(d, "proto", q.t.proto);
	rte_tel_data_add_dict_int(d, "queue", q.queue);
	snprintf(hex, sizeof(hex), "0x%08x", hash);
	rte_tel_data_add_dict_string(d, "hash", hex);
	rte_tel_data_add_dict_string(d, "hash_of", hs.fn == RPS_STEER_HASH_TOEPLITZ ?
				     (hs.sort ? "toeplitz, sorted tuple" : "toeplitz") :
				     (hs.sort ? "jhash, sorted tuple" : "jhash"));
	/* a packet that carries the NIC's hash goes by it, which only the NIC knows */
	rte_tel_data_add_dict_int(d, "nic_hash_first", hs.nic && app->io.rss_hash);
	rte_tel_data_add_dict_int(d, "bucket", (int)bucket);
	rte_tel_data_add_dict_int(d, "bucket_lcore", map_worker >= 0 ?
				  (int)app->lc.workers[map_worker].lcore : -1);
	rte_tel_data_add_dict_int(d, "rule", rule);
	if (rule >= 0) {
		rte_tel_data_add_dict_string(d, "rule_text", text);
		rte_tel_data_add_dict_string(d, "rule_action", action);
	}
	rte_tel_data_add_dict_string(d, "steered_by", dropped ? "rule: dropped" :
				     rule >= 0 ? "rule" : "map");
	rte_tel_data_add_dict_int(d, "lcore", worker >= 0 ? (int)app->lc.workers[worker].lcore : -1);
	rte_tel_data_add_dict_int(d, "worker", worker);
	if (app->cons.nb_consumers > 0 && worker >= 0) {
		struct rte_tel_data *c = rte_tel_data_alloc();

		if (c != NULL) {
			rte_tel_data_start_array(c, RTE_TEL_INT_VAL);
			for (uint16_t g = 0; g < app->cons.nb_groups; g++)
				rte_tel_data_add_array_int(c, rps_consumer_of(&app->cons, g,
									     (uint16_t)worker));
			rte_tel_data_add_dict_container(d, "consumers", c, 0);
		}
	}
	pthread_mutex_lock(&ask_lock);
	ask_workers(app, &q, d);
	pthread_mutex_unlock(&ask_lock);
	return 0;
}
