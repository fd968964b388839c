/* SPDX-License-Identifier: BSD-3-Clause */
/* test_config.c: the configuration-file parser (lib/control/config.c). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <CUnit/Basic.h>

#include "rps_config.h"
#include "test_common.h"

#ifndef RPS_SOURCE_ROOT
#error "build with -DRPS_SOURCE_ROOT=\"<source root>\" (the example is config/dpdk-rps.conf)"
#endif

static struct rps_config cfg;
static char err[512];

static int
parse(const char *text)
{
	memset(err, 0, sizeof(err));
	return rps_config_parse_string(text, "t.conf", &cfg, err, sizeof(err));
}

/* The set of lcores in @p list (terminated by -1). */
static struct rps_lcoreset
set_of(const int *list)
{
	struct rps_lcoreset s;

	memset(&s, 0, sizeof(s));
	for (; *list >= 0; list++)
		rps_lcoreset_add(&s, (unsigned int)*list);
	return s;
}

static int
set_eq(const struct rps_lcoreset *a, const struct rps_lcoreset *b)
{
	return a != NULL && b != NULL && memcmp(a->bits, b->bits, sizeof(a->bits)) == 0;
}

static int
cfg_is_zero(const struct rps_config *c)
{
	static const struct rps_config zero;

	return memcmp(c, &zero, sizeof(zero)) == 0;
}

/* Write @p len bytes to a new temporary file; returns its path (static buffer). */
static const char *
tmp_file(const void *data, size_t len)
{
	static char path[256];
	const char *dir = getenv("TMPDIR");
	int fd;

	snprintf(path, sizeof(path), "%s/rps-config-XXXXXX", dir != NULL && *dir ? dir : "/tmp");
	fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(write(fd, data, len) == (ssize_t)len);
	close(fd);
	return path;
}

static const char full_text[] =
	"; every key\n"                              /* 1 */
	"[dataplane]\n"                              /* 2 */
	"rx_port = 31\n"                             /* 3 */
	"hash = jhash\n"                             /* 4 */
	"hash_seed = 0xDEADbeef\n"                   /* 5 */
	"backlog = 16777216\n"                       /* 6 */
	"burst = 512\n"                              /* 7 */
	"stages = parse,validate,flow,output\n"      /* 8 */
	"flow_table_size = 64\n"                     /* 9 */
	"reorder_safe = off\n"                       /* 10 */
	"stats_interval = 86400\n"                   /* 11 */
	"\n"
	"[map]\n"
	"default = 0xfe\n"
	"queue0 = 1-3\n"
	"queue63 = 5-5,7\n"
	"queue10 = ff,00000000\n";

#define TZ_MS_KEY "6d5a56da255b0ec24167253d43a38fb0d0ca2bcbae7b30b477cb2da38030f20c6a42b73bbeac01fa"

/* hash = toeplitz, symmetric, rss_key (the same rules as --symmetric and --rss-key). */
static void
test_toeplitz_keys(void)
{
	CU_ASSERT_EQUAL_FATAL(parse("[dataplane]\nhash = Toeplitz\nsymmetric = off\n"
				    "rss_key = " TZ_MS_KEY "\n"), 0);
	CU_ASSERT(cfg.has_hash == 1 && cfg.hash_mode == RPS_HASH_TOEPLITZ);
	CU_ASSERT(cfg.has_symmetric == 1 && cfg.symmetric == 0);
	CU_ASSERT(cfg.has_rss_key == 1 && cfg.rss_key_len == 40);
	CU_ASSERT_EQUAL(memcmp(cfg.rss_key, rps_toeplitz_default_key, 40), 0);
	/* a symmetric key with symmetric = on, in ethtool's spelling, 52 bytes */
	{
		char text[512] = "[dataplane]\nsymmetric = on\nrss_key = ";

		for (int i = 0; i < 52; i++)
			strcat(text, i % 2 ? "5a:" : "6d:");
		text[strlen(text) - 1] = '\n';
		CU_ASSERT_EQUAL_FATAL(parse(text), 0);
		CU_ASSERT(cfg.has_symmetric == 1 && cfg.symmetric == 1);
		CU_ASSERT(cfg.has_rss_key == 1 && cfg.rss_key_len == 52);
		CU_ASSERT(rps_toeplitz_key_is_symmetric(cfg.rss_key, 52));
	}
	CU_ASSERT_EQUAL(parse("[dataplane]\nhash = jhash\n"), 0);
	CU_ASSERT(cfg.has_symmetric == 0 && cfg.has_rss_key == 0);
	/* symmetric = on sorts the tuple: any key goes with it */
	CU_ASSERT_EQUAL_FATAL(parse("[dataplane]\nsymmetric = on\nrss_key = " TZ_MS_KEY "\n"), 0);
	CU_ASSERT(cfg.has_symmetric == 1 && cfg.symmetric == RPS_SYM_SORT);
	CU_ASSERT_EQUAL_FATAL(parse("[dataplane]\nsymmetric = Sort\n"), 0);
	CU_ASSERT(cfg.symmetric == RPS_SYM_SORT);
	CU_ASSERT_EQUAL_FATAL(parse("[dataplane]\nsymmetric = xor\n"), 0);
	CU_ASSERT(cfg.has_symmetric == 1 && cfg.symmetric == RPS_SYM_XOR);
	/* the number syntax: decimal and 0x hex are the same number */
	CU_ASSERT_EQUAL_FATAL(parse("[dataplane]\nhash_seed = 0x10000\nbacklog = 65536\n"), 0);
	CU_ASSERT(cfg.hash_seed == 65536 && cfg.backlog == 65536);
	CU_ASSERT_EQUAL_FATAL(parse("[dataplane]\nhash_seed = 0\n"), 0);
	CU_ASSERT(cfg.has_hash_seed == 1 && cfg.hash_seed == 0);
}

/* inner and vxlan_port (the same rules as --inner and --vxlan-port). */
static void
test_inner_keys(void)
{
	CU_ASSERT_EQUAL_FATAL(parse("[dataplane]\ninner = on\nvxlan_port = 4789,8472\n"), 0);
	CU_ASSERT(cfg.has_inner == 1 && cfg.inner == 1);
	CU_ASSERT(cfg.has_vxlan_port == 1 && cfg.tunnels.nb_vxlan == 2);
	CU_ASSERT(cfg.tunnels.vxlan_port[0] == 4789 && cfg.tunnels.vxlan_port[1] == 8472);
	CU_ASSERT_EQUAL_FATAL(parse("[dataplane]\ninner = no\n"), 0);
	CU_ASSERT(cfg.has_inner == 1 && cfg.inner == 0 && cfg.has_vxlan_port == 0);
	CU_ASSERT_EQUAL(parse("[dataplane]\ninner = maybe\n"), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "t.conf:2: inner: expected on or off (or yes/no, true/false, "
			       "1/0), not 'maybe'");
	CU_ASSERT_EQUAL(parse("[dataplane]\nvxlan_port = 4789,6081\n"), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "t.conf:2: vxlan_port: expected UDP ports 1..65535 other than "
			       "6081 (GENEVE) and 2152 (GTP-U), decimal, comma-separated, not "
			       "'4789,6081'");
	CU_ASSERT_EQUAL(parse("[dataplane]\nvxlan_port = 0\n"), -EINVAL);
	CU_ASSERT_EQUAL(parse("[dataplane]\nvxlan_port = 4789,\n"), -EINVAL);
	CU_ASSERT_EQUAL(parse("[dataplane]\nvxlan_port = 65536\n"), -EINVAL);
	CU_ASSERT_EQUAL(parse("[dataplane]\nvxlan_port = 1,2,3,4,5,6,7,8,9\n"), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "t.conf:2: vxlan_port: at most 8 ports, not '1,2,3,4,5,6,7,8,9'");
}

/* flow_limit (live boolean), idle_sleep_us and idle_spin_us (numbers with ranges). */
static void
test_flow_limit_idle_keys(void)
{
	CU_ASSERT_EQUAL_FATAL(parse("[dataplane]\nflow_limit = yes\nidle_sleep_us = 0\n"
				    "idle_spin_us = 10000000\n"), 0);
	CU_ASSERT(cfg.has_flow_limit == 1 && cfg.flow_limit == 1);
	CU_ASSERT(cfg.has_idle_sleep_us == 1 && cfg.idle_sleep_us == 0);
	CU_ASSERT(cfg.has_idle_spin_us == 1 && cfg.idle_spin_us == 10000000);
	CU_ASSERT_EQUAL(parse("[dataplane]\nflow_limit = sometimes\n"), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "t.conf:2: flow_limit: expected on or off (or yes/no, "
			       "true/false, 1/0), not 'sometimes'");
	CU_ASSERT_EQUAL(parse("[dataplane]\nidle_sleep_us = 100001\n"), -EINVAL);
	CU_ASSERT(strncmp(err, "t.conf:2: idle_sleep_us:", 24) == 0);
	CU_ASSERT_EQUAL(parse("[dataplane]\nidle_spin_us = -1\n"), -EINVAL);
	CU_ASSERT(strncmp(err, "t.conf:2: idle_spin_us:", 23) == 0);
}

/* forward: port pairs, a list; a port paired with itself or in two pairs refused. */
static void
test_forward_key(void)
{
	static const struct {
		const char *text, *err;
	} bad[] = {
		{ "0:0", "t.conf:2: forward: a port paired with itself, not '0:0'" },
		{ "0:1,1:2", "t.conf:2: forward: a port in two pairs, not '0:1,1:2'" },
		{ "0:1,2", "t.conf:2: forward: expected port pairs A:B (a list: 0:1,2:3), not "
			   "'0:1,2'" },
		{ "0-1", "t.conf:2: forward: expected port pairs A:B (a list: 0:1,2:3), not '0-1'" },
		{ "0:1,2:3,4:5,6:7,8:9", "t.conf:2: forward: at most 4 pairs, not "
					 "'0:1,2:3,4:5,6:7,8:9'" },
		{ "0:99999", "t.conf:2: forward: a port number above the ports DPDK can have, "
			     "not '0:99999'" },
	};
	char text[128];

	CU_ASSERT_EQUAL_FATAL(parse("[dataplane]\nforward = 0:1,3:2\n"), 0);
	CU_ASSERT(cfg.has_forward == 1 && cfg.nb_fwd == 2);
	CU_ASSERT(cfg.fwd[0].a == 0 && cfg.fwd[0].b == 1 && cfg.fwd[1].a == 3 &&
		  cfg.fwd[1].b == 2);
	for (unsigned int i = 0; i < RTE_DIM(bad); i++) {
		snprintf(text, sizeof(text), "[dataplane]\nforward = %s\n", bad[i].text);
		CU_ASSERT_EQUAL(parse(text), -EINVAL);
		CU_ASSERT_STRING_EQUAL(err, bad[i].err);
	}
}

/* consumers, consumer_socket, consumer_wait_ms: as --consumers, --consumer-socket,
 * --consumer-wait; the line of each key kept for the application's messages. */
static void
test_consumer_keys(void)
{
	CU_ASSERT_EQUAL_FATAL(parse("[dataplane]\nconsumers = 2\n"
				    "consumer_socket = /tmp/c%u.sock\nconsumer_wait_ms = 5000\n"), 0);
	CU_ASSERT(cfg.has_consumers == 1 && cfg.consumers == 2 && cfg.consumer_groups == 1 &&
		  cfg.group_size[0] == 2);
	CU_ASSERT(cfg.has_consumer_socket == 1 &&
		  strcmp(cfg.consumer_socket, "/tmp/c%u.sock") == 0);
	CU_ASSERT(cfg.has_consumer_wait_ms == 1 && cfg.consumer_wait_ms == 5000);
	CU_ASSERT(cfg.line[RPS_SET_CONSUMERS] == 2 && cfg.line[RPS_SET_CONSUMER_SOCKET] == 3 &&
		  cfg.line[RPS_SET_CONSUMER_WAIT] == 4 && cfg.line[RPS_SET_BACKLOG] == 0);
	CU_ASSERT_EQUAL_FATAL(parse("[dataplane]\nconsumers = 0\n"), 0);
	CU_ASSERT(cfg.has_consumers == 1 && cfg.consumers == 0 && cfg.has_consumer_socket == 0);
	CU_ASSERT_EQUAL(parse("[dataplane]\nconsumers = 17\n"), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "t.conf:2: consumers: expected 1..16 consumers in each group "
			       "(0 alone: off), not '17'");
	/* groups, PF_RING zbalance_ipc's -n 4,1 */
	CU_ASSERT_EQUAL_FATAL(parse("[dataplane]\nconsumers = 4,1\n"), 0);
	CU_ASSERT(cfg.has_consumers == 1 && cfg.consumers == 5 && cfg.consumer_groups == 2 &&
		  cfg.group_size[0] == 4 && cfg.group_size[1] == 1 &&
		  strcmp(cfg.consumers_text, "4,1") == 0);
	CU_ASSERT_EQUAL_FATAL(parse("[dataplane]\nconsumers = 1,1,1,1\n"), 0);
	CU_ASSERT(cfg.consumers == 4 && cfg.consumer_groups == 4);
	static const struct {
		const char *value, *err;
	} bad[] = {
		{ "4,0", "expected 1..16 consumers in each group (0 alone: off)" },
		{ "0,1", "expected 1..16 consumers in each group (0 alone: off)" },
		{ "1,1,1,1,1", "at most 4 groups" },
		{ "8,9", "at most 16 consumers in all groups" },
		{ "4,", "expected K or a list of groups K,K... (0 alone: off)" },
		{ ",4", "expected K or a list of groups K,K... (0 alone: off)" },
		{ "4;1", "expected K or a list of groups K,K... (0 alone: off)" },
		{ "99999999999999999999", "expected 1..16 consumers in each group (0 alone: off)" },
	};
	for (unsigned int i = 0; i < RTE_DIM(bad); i++) {
		char text[96], want[192];

		snprintf(text, sizeof(text), "[dataplane]\n\nconsumers = %s\n", bad[i].value);
		snprintf(want, sizeof(want), "t.conf:3: consumers: %s, not '%s'", bad[i].err,
			 bad[i].value);
		CU_ASSERT_EQUAL(parse(text), -EINVAL);
		CU_ASSERT_STRING_EQUAL(err, want);
	}
	CU_ASSERT_EQUAL(parse("[dataplane]\nconsumer_wait_ms = 3600001\n"), -EINVAL);
	CU_ASSERT(strncmp(err, "t.conf:2: consumer_wait_ms: expected 0..3600000", 47) == 0);
	CU_ASSERT_EQUAL(parse("[dataplane]\nconsumer_socket = /tmp/c.sock\n"), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "t.conf:2: consumer_socket: expected a path with exactly one "
			       "%u (the consumer's index) and no other %, not '/tmp/c.sock'");
	CU_ASSERT_EQUAL(parse("[dataplane]\nconsumer_socket = /tmp/%u-%u.sock\n"), -EINVAL);
	CU_ASSERT_EQUAL(cfg.has_consumer_socket, 0);
	/* memif's vdev arguments split at ',' and '=': a client could not name the path */
	CU_ASSERT_EQUAL(parse("[dataplane]\nconsumer_socket = /tmp/c%u.sock,id=5\n"), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "a ',' or '=' in the path"));
	/* consumer_group; consumer_secret: one, or one per consumer */
	CU_ASSERT_EQUAL_FATAL(parse("[dataplane]\nconsumer_group = rps\n"
				    "consumer_secret = s3cret\n"), 0);
	CU_ASSERT(cfg.has_consumer_group && strcmp(cfg.consumer_group, "rps") == 0);
	CU_ASSERT(cfg.has_consumer_secret && cfg.nb_consumer_secrets == 1 &&
		  strcmp(cfg.consumer_secret[0], "s3cret") == 0);
	CU_ASSERT_EQUAL_FATAL(parse("[dataplane]\nconsumer_secret = a,bb,c\n"), 0);
	CU_ASSERT(cfg.nb_consumer_secrets == 3 && strcmp(cfg.consumer_secret[1], "bb") == 0 &&
		  strcmp(cfg.consumer_secret[2], "c") == 0);
	CU_ASSERT_EQUAL_FATAL(parse("[dataplane]\nconsumer_secret = "
				    "abcdefghijklmnopqrstuvwx\n"), 0); /* 24: memif's most */
}

/* [rules]: one steering rule a line, with its line; comments and blanks as elsewhere; a bad
 * rule names FILE:LINE and the rule; more than RPS_RULES_MAX is refused. */
static void
test_rules_section(void)
{
	static char big[RPS_RULES_MAX * 32 + 64];
	size_t n;

	CU_ASSERT_EQUAL_FATAL(parse("[dataplane]\nbacklog = 64\n[rules]\n"
				    "tcp dport 443 -> worker 3   ; https\n\n"
				    "  # a comment\nsrc 198.18.0.0/16 -> drop\n[map]\ndefault = 0x6\n"
				    "[rules]\nudp dport 53 -> consumer 1\n"), 0);
	CU_ASSERT(cfg.has_rules == 1 && cfg.nb_rules == 3);
	CU_ASSERT(cfg.rule_line[0] == 4 && cfg.rule_line[1] == 7 && cfg.rule_line[2] == 11);
	CU_ASSERT(cfg.rules[0].dport_lo == 443 && cfg.rules[0].target == 3);
	CU_ASSERT(cfg.rules[1].action == RPS_RULE_ACT_DROP && cfg.rules[1].src_len == 16);
	CU_ASSERT(cfg.rules[2].action == RPS_RULE_ACT_CONSUMER);
	CU_ASSERT(cfg.has_backlog && cfg.backlog == 64 && cfg.has_default_map);
	/* an empty section: the file has rules, none of them */
	CU_ASSERT_EQUAL_FATAL(parse("[rules]\n"), 0);
	CU_ASSERT(cfg.has_rules == 1 && cfg.nb_rules == 0);
	CU_ASSERT_EQUAL_FATAL(parse("[dataplane]\nbacklog = 64\n"), 0);
	CU_ASSERT(cfg.has_rules == 0 && cfg.nb_rules == 0);
	CU_ASSERT_EQUAL(parse("[rules]\nudp -> worker 1\nudp dport 70000 -> worker 1\n"), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "t.conf:3: rule 'udp dport 70000 -> worker 1': dport: "
			       "expected a port 0..65535 or a range LO-HI, not '70000'");
	CU_ASSERT(cfg_is_zero(&cfg));
	/* a key = value line is no rule; a secret's value is never repeated (the fuzzer's
	 * find: "hash_seed = SECRET" moved under [rules] came back in the message) */
	CU_ASSERT_EQUAL(parse("[rules]\nbacklog = 5\n"), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "t.conf:2: [rules]: 'backlog ...' is a setting, not a rule: "
			       "settings go in the sections before [rules]");
	CU_ASSERT_EQUAL(parse("[rules]\nhash_seed = 0xdeadbeef\n"), -EINVAL);
	CU_ASSERT(strstr(err, "deadbeef") == NULL && strstr(err, "'hash_seed ...'") != NULL);
	CU_ASSERT_EQUAL(parse("[rules]\n  rss_key: 6d5a6d5a\n"), -EINVAL);
	CU_ASSERT(strstr(err, "6d5a") == NULL && strstr(err, "'rss_key ...'") != NULL);
	CU_ASSERT_EQUAL(parse("[rules]\nhash_seed 0xdeadbeef\n"), -EINVAL);
	CU_ASSERT(strstr(err, "deadbeef") == NULL);
	/* the value before a later '=' (the fuzzer's second find): the first word only */
	CU_ASSERT_EQUAL(parse("[rules]\nhash_seed 0xdeadbeefcafe = 1\n"), -EINVAL);
	CU_ASSERT(strstr(err, "deadbeef") == NULL && strstr(err, "'hash_seed ...'") != NULL);
	CU_ASSERT_EQUAL(parse("[rules]\nrss_key: 6d5a6d5a6d5a aa=bb\n"), -EINVAL);
	CU_ASSERT(strstr(err, "6d5a") == NULL && strstr(err, "'rss_key ...'") != NULL);
	/* the key and its value in one word, in [rules] and as an unknown key elsewhere */
	CU_ASSERT_EQUAL(parse("[rules]\nhash_seed0xdeadbeef = 5\n"), -EINVAL);
	CU_ASSERT(strstr(err, "deadbeef") == NULL && strstr(err, "'hash_seed ...'") != NULL);
	CU_ASSERT_EQUAL(parse("[dataplane]\nhash_seed0xdeadbeef = 5\n"), -EINVAL);
	CU_ASSERT(strstr(err, "deadbeef") == NULL && strstr(err, "hash_seed ...") != NULL);
	CU_ASSERT_EQUAL(parse("[map]\nrss_key6d5a6d5a = 5\n"), -EINVAL);
	CU_ASSERT(strstr(err, "6d5a") == NULL && strstr(err, "rss_key ...") != NULL);
	/* an IPv6 prefix's ':' is no setting */
	CU_ASSERT_EQUAL_FATAL(parse("[rules]\nsrc 2001:db8::/32 -> drop\n"), 0);
	/* the maximum, then one more */
	n = (size_t)snprintf(big, sizeof(big), "[rules]\n");
	for (unsigned int i = 0; i < RPS_RULES_MAX; i++)
		n += (size_t)snprintf(big + n, sizeof(big) - n, "udp dport %u -> drop\n", i);
	CU_ASSERT_EQUAL_FATAL(parse(big), 0);
	CU_ASSERT(cfg.nb_rules == RPS_RULES_MAX);
	snprintf(big + n, sizeof(big) - n, "tcp -> drop\n");
	CU_ASSERT_EQUAL(parse(big), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "t.conf:258: [rules]: more than 256 rules (the most --rule "
			       "and [rules] may hold together)");
}

/* [consumers]: filter.G = EXPR, the whole rest of the line (but a comment), at any length
 * up to 1023; one per group; the key's form checked, a secret's value never quoted. */
static void
test_consumers_section(void)
{
	static char big[2048];
	size_t n;

	CU_ASSERT_EQUAL_FATAL(parse("[consumers]\nfilter.0 = tcp[13] = 2 or host 2001:db8::1  "
				    "; a comment\n[dataplane]\nconsumers = 1,1\n[consumers]\n"
				    "filter.1=vlan\n"), 0);
	CU_ASSERT(cfg.has_consumers_section == 1);
	CU_ASSERT_STRING_EQUAL(cfg.filter[0], "tcp[13] = 2 or host 2001:db8::1");
	CU_ASSERT_STRING_EQUAL(cfg.filter[1], "vlan");
	CU_ASSERT(cfg.filter_line[0] == 2 && cfg.filter_line[1] == 6 && cfg.filter[2][0] == '\0');
	CU_ASSERT_EQUAL_FATAL(parse("[dataplane]\nbacklog = 64\n"), 0);
	CU_ASSERT(cfg.has_consumers_section == 0 && cfg.filter[0][0] == '\0');
	/* longer than inih's lines: ours alone */
	n = (size_t)snprintf(big, sizeof(big), "[consumers]\nfilter.3 = port 1");
	while (n < 12 + 10 + 1000)
		n += (size_t)snprintf(big + n, sizeof(big) - n, " or port 1");
	snprintf(big + n, sizeof(big) - n, "\n");
	CU_ASSERT_EQUAL_FATAL(parse(big), 0);
	CU_ASSERT(strlen(cfg.filter[3]) > 990);
	snprintf(big + n - 1, sizeof(big) - n + 1, " or port 12345678901234567890\n");
	CU_ASSERT_EQUAL(parse(big), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "t.conf:2: filter.3: an expression of "));
	CU_ASSERT_EQUAL(parse("[consumers]\nfilter.1 = tcp\nfilter.1 = udp\n"), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "t.conf:3: filter.1: set already at line 2 (one per group: "
			       "join expressions with 'or')");
	CU_ASSERT_EQUAL(parse("[consumers]\nfilter.4 = tcp\n"), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "t.conf:2: [consumers]: unknown key 'filter.4' (expected "
			       "filter.0 .. filter.3: a consumer group's tcpdump expression)");
	CU_ASSERT_EQUAL(parse("[consumers]\nfilter.1 =\n"), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "t.conf:2: filter.1: an empty expression"));
	CU_ASSERT_EQUAL(parse("[consumers]\ntcp port 80\n"), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "t.conf:2: [consumers]: 'tcp ...': expected 'filter.G = EXPR'");
	CU_ASSERT(cfg_is_zero(&cfg));
	/* a secret's value is never repeated */
	CU_ASSERT_EQUAL(parse("[consumers]\nhash_seed = 0xdeadbeef\n"), -EINVAL);
	CU_ASSERT(strstr(err, "deadbeef") == NULL);
	CU_ASSERT_EQUAL(parse("[consumers]\nhash_seed0xdeadbeef = 1\n"), -EINVAL);
	CU_ASSERT(strstr(err, "deadbeef") == NULL);
	CU_ASSERT_EQUAL(parse("[consumers]\nrss_key: 6d5a6d5a\n"), -EINVAL);
	CU_ASSERT(strstr(err, "6d5a") == NULL);
}

/* The respond stage's reply rate limit. */
static void
test_respond_keys(void)
{
	CU_ASSERT_EQUAL_FATAL(parse("[dataplane]\nrespond_rate = 0\nrespond_burst = 1\n"), 0);
	CU_ASSERT(cfg.has_respond_rate == 1 && cfg.respond_rate == 0);
	CU_ASSERT(cfg.has_respond_burst == 1 && cfg.respond_burst == 1);
	CU_ASSERT_EQUAL_FATAL(parse("[dataplane]\nrespond_rate = 100000000\n"
				    "respond_burst = 1000000\n"), 0);
	CU_ASSERT(cfg.respond_rate == 100000000 && cfg.respond_burst == 1000000);
	CU_ASSERT_EQUAL(cfg.has_idle_spin_us, 0);
	CU_ASSERT_EQUAL(parse("[dataplane]\nrespond_rate = 100000001\n"), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "t.conf:2: respond_rate: expected 0..100000000 replies a "
			       "second (0 = no limit), not '100000001'");
	CU_ASSERT_EQUAL(parse("[dataplane]\nrespond_burst = 0\n"), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "t.conf:2: respond_burst: expected 1..1000000 replies, not '0'");
	CU_ASSERT_EQUAL(parse("[dataplane]\nrespond_rate = 010\n"), -EINVAL);
}

/* metrics: --metrics' syntax (rps_listen.h), its errors with FILE:LINE. */
static void
test_metrics_key(void)
{
	CU_ASSERT_EQUAL_FATAL(parse("[dataplane]\nmetrics = 9100\n"), 0);
	CU_ASSERT(cfg.has_metrics == 1 && cfg.metrics.on == 1 && cfg.metrics.port == 9100);
	CU_ASSERT_STRING_EQUAL(cfg.metrics.text, "127.0.0.1:9100");
	CU_ASSERT_EQUAL_FATAL(parse("[dataplane]\nmetrics = [::1]:0   ; a free port\n"), 0);
	CU_ASSERT_STRING_EQUAL(cfg.metrics.text, "[::1]:0");
	CU_ASSERT_EQUAL_FATAL(parse("[dataplane]\nmetrics = off\n"), 0);
	CU_ASSERT(cfg.has_metrics == 1 && cfg.metrics.on == 0);
	CU_ASSERT_EQUAL_FATAL(parse("[dataplane]\nburst = 1\n"), 0);
	CU_ASSERT_EQUAL(cfg.has_metrics, 0);
	CU_ASSERT_EQUAL(parse("[dataplane]\nmetrics = 99999\n"), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "t.conf:2: metrics: port 99999 is out of range (0..65535; 0 "
			       "picks a free port), not '99999'");
	CU_ASSERT_EQUAL(parse("[dataplane]\n\nmetrics = host:9100\n"), -EINVAL);
	CU_ASSERT(strncmp(err, "t.conf:3: metrics: 'host' is not a numeric IPv4 address", 55) == 0);
	CU_ASSERT_EQUAL(parse("[dataplane]\nmetrics = 9100\nmetrics = 9101\n"), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "t.conf:3: metrics: set twice (first on line 2)");
}

/* The indirection table and the rebalancer's keys; weighted maps. */
static void
test_table_rebalance_keys(void)
{
	CU_ASSERT_EQUAL_FATAL(parse("[dataplane]\ntable_size = 4096\nrebalance = on\n"
				    "rebalance_interval_ms = 200\nrebalance_threshold = 15\n"
				    "rebalance_moves = 4\nrebalance_holddown_ms = 0\n"
				    "[map]\ndefault = 1:2,2-3:1\n"), 0);
	CU_ASSERT(cfg.has_table_size == 1 && cfg.table_size == 4096);
	CU_ASSERT(cfg.has_rebalance == 1 && cfg.rebalance == 1);
	CU_ASSERT(cfg.has_rebalance_interval_ms == 1 && cfg.rebalance_interval_ms == 200);
	CU_ASSERT(cfg.has_rebalance_threshold == 1 && cfg.rebalance_threshold == 15);
	CU_ASSERT(cfg.has_rebalance_moves == 1 && cfg.rebalance_moves == 4);
	CU_ASSERT(cfg.has_rebalance_holddown_ms == 1 && cfg.rebalance_holddown_ms == 0);
	CU_ASSERT_EQUAL(rps_lcoreset_weight(&cfg.default_map, 1), 2);
	CU_ASSERT_EQUAL(rps_lcoreset_weight(&cfg.default_map, 3), 1);
	CU_ASSERT_EQUAL(parse("[dataplane]\ntable_size = 1\n"), 0);
	CU_ASSERT_EQUAL(parse("[dataplane]\ntable_size = 0\n"), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "t.conf:2: table_size: expected a power of two 1..4096 "
			       "buckets, not '0'");
}

static void
test_full(void)
{
	static const int l1_3[] = { 1, 2, 3, -1 }, l5_7[] = { 5, 7, -1 };
	static const int l1_7[] = { 1, 2, 3, 4, 5, 6, 7, -1 };
	static const int l32_39[] = { 32, 33, 34, 35, 36, 37, 38, 39, -1 };
	struct rps_lcoreset want;

	CU_ASSERT_EQUAL_FATAL(parse(full_text), 0);
	CU_ASSERT_STRING_EQUAL(err, "");
	CU_ASSERT(cfg.has_rx_port == 1 && cfg.rx_port == 31);
	CU_ASSERT(cfg.has_hash == 1 && cfg.hash_mode == RPS_HASH_JHASH);
	CU_ASSERT(cfg.has_hash_seed == 1 && cfg.hash_seed == 0xdeadbeefu);
	CU_ASSERT(cfg.has_backlog == 1 && cfg.backlog == 16777216u);
	CU_ASSERT(cfg.has_burst == 1 && cfg.burst == 512);
	CU_ASSERT(cfg.has_stages == 1);
	CU_ASSERT_STRING_EQUAL(cfg.stages, "parse,validate,flow,output");
	CU_ASSERT(cfg.has_flow_table_size == 1 && cfg.flow_table_size == 64);
	CU_ASSERT(cfg.has_reorder_safe == 1 && cfg.reorder_safe == 0);
	CU_ASSERT(cfg.has_stats_interval == 1 && cfg.stats_interval == 86400);

	CU_ASSERT_EQUAL(cfg.has_default_map, 1);
	want = set_of(l1_7);
	CU_ASSERT(set_eq(&cfg.default_map, &want));
	CU_ASSERT_STRING_EQUAL(cfg.default_map_text, "0xfe");
	for (unsigned int q = 0; q < RPS_CONFIG_MAX_QUEUES; q++)
		CU_ASSERT_EQUAL(cfg.has_queue_map[q], q == 0 || q == 10 || q == 63);
	want = set_of(l1_3);
	CU_ASSERT(set_eq(&cfg.queue_map[0], &want));
	CU_ASSERT_STRING_EQUAL(cfg.queue_map_text[0], "1-3");
	want = set_of(l5_7);
	CU_ASSERT(set_eq(&cfg.queue_map[63], &want));
	CU_ASSERT_STRING_EQUAL(cfg.queue_map_text[63], "5-5,7");
	want = set_of(l32_39);
	CU_ASSERT(set_eq(&cfg.queue_map[10], &want));
	CU_ASSERT_STRING_EQUAL(cfg.queue_map_text[10], "ff,00000000");

	/* the other spellings of the values */
	CU_ASSERT_EQUAL_FATAL(parse("[dataplane]\nrx_port = 0\nhash = RSS\nhash_seed = 4294967295\n"
				    "backlog = 0x10\nburst = 1\nflow_table_size = 16777216\n"
				    "reorder_safe = Yes\nstats_interval = 0\nstages = output\n"), 0);
	CU_ASSERT(cfg.has_rx_port == 1 && cfg.rx_port == 0);
	CU_ASSERT(cfg.nb_rx_ports == 1 && cfg.rx_ports[0] == 0);
	CU_ASSERT(cfg.has_hash == 1 && cfg.hash_mode == RPS_HASH_RSS);
	CU_ASSERT(cfg.has_hash_seed == 1 && cfg.hash_seed == UINT32_MAX);
	CU_ASSERT(cfg.has_backlog == 1 && cfg.backlog == 16);
	CU_ASSERT(cfg.has_burst == 1 && cfg.burst == 1);
	CU_ASSERT(cfg.has_flow_table_size == 1 && cfg.flow_table_size == 16777216u);
	CU_ASSERT(cfg.has_reorder_safe == 1 && cfg.reorder_safe == 1);
	CU_ASSERT(cfg.has_stats_interval == 1 && cfg.stats_interval == 0);
	CU_ASSERT_STRING_EQUAL(cfg.stages, "output");
	CU_ASSERT_EQUAL(cfg.has_default_map, 0);
	/* several ports: a list, in order, the first also as rx_port */
	CU_ASSERT_EQUAL_FATAL(parse("[dataplane]\nrx_port = 3, 1,0x2\n"), 0);
	CU_ASSERT(cfg.has_rx_port == 1 && cfg.rx_port == 3 && cfg.nb_rx_ports == 3);
	CU_ASSERT(cfg.rx_ports[0] == 3 && cfg.rx_ports[1] == 1 && cfg.rx_ports[2] == 2);
	CU_ASSERT_EQUAL(parse("[dataplane]\nhash = auto\n"), 0);
	CU_ASSERT(cfg.has_hash == 1 && cfg.hash_mode == RPS_HASH_AUTO);

	static const struct {
		const char *v;
		int on;
	} bools[] = {
		{ "on", 1 }, { "off", 0 }, { "yes", 1 }, { "no", 0 }, { "true", 1 }, { "false", 0 },
		{ "1", 1 }, { "0", 0 }, { "ON", 1 }, { "False", 0 },
	};
	for (unsigned int i = 0; i < RTE_DIM(bools); i++) {
		char text[64];

		snprintf(text, sizeof(text), "[dataplane]\nreorder_safe = %s\n", bools[i].v);
		CU_ASSERT_EQUAL(parse(text), 0);
		CU_ASSERT(cfg.has_reorder_safe == 1 && cfg.reorder_safe == bools[i].on);
	}
}

/* A queue's own line wins over default; without either, NULL. */
static void
test_queue_map_precedence(void)
{
	static const int l1_3[] = { 1, 2, 3, -1 }, l1_7[] = { 1, 2, 3, 4, 5, 6, 7, -1 };
	static const int l5_7[] = { 5, 7, -1 }, none[] = { -1 };
	struct rps_lcoreset own = set_of(l1_3), def = set_of(l1_7), last = set_of(l5_7);
	struct rps_lcoreset empty = set_of(none);
	const struct rps_lcoreset *s;
	const char *text;

	CU_ASSERT_EQUAL_FATAL(parse(full_text), 0);
	text = NULL;
	s = rps_config_queue_map(&cfg, 0, &text);
	CU_ASSERT_PTR_EQUAL(s, &cfg.queue_map[0]);
	CU_ASSERT(set_eq(s, &own));
	CU_ASSERT_STRING_EQUAL(text, "1-3");
	text = NULL;
	s = rps_config_queue_map(&cfg, 1, &text);
	CU_ASSERT_PTR_EQUAL(s, &cfg.default_map);
	CU_ASSERT(set_eq(s, &def));
	CU_ASSERT_STRING_EQUAL(text, "0xfe");
	s = rps_config_queue_map(&cfg, 63, &text);
	CU_ASSERT(set_eq(s, &last));
	CU_ASSERT_STRING_EQUAL(text, "5-5,7");
	/* beyond what the file can name: default */
	s = rps_config_queue_map(&cfg, RPS_CONFIG_MAX_QUEUES, &text);
	CU_ASSERT_PTR_EQUAL(s, &cfg.default_map);
	CU_ASSERT_PTR_EQUAL(rps_config_queue_map(&cfg, 1000, NULL), &cfg.default_map);
	CU_ASSERT_PTR_EQUAL(rps_config_queue_map(&cfg, 0, NULL), &cfg.queue_map[0]);

	/* per-queue lines without default: the others are not set */
	CU_ASSERT_EQUAL_FATAL(parse("[map]\nqueue2 = 0\n"), 0);
	CU_ASSERT_EQUAL(cfg.has_default_map, 0);
	CU_ASSERT_PTR_NULL(rps_config_queue_map(&cfg, 0, NULL));
	CU_ASSERT_PTR_NULL(rps_config_queue_map(&cfg, 3, NULL));
	CU_ASSERT_PTR_NULL(rps_config_queue_map(&cfg, RPS_CONFIG_MAX_QUEUES, NULL));
	text = NULL;
	s = rps_config_queue_map(&cfg, 2, &text);
	CU_ASSERT(set_eq(s, &empty)); /* "0": the empty set, no steering */
	CU_ASSERT_STRING_EQUAL(text, "0");

	/* default only */
	CU_ASSERT_EQUAL_FATAL(parse("[map]\ndefault = 1-3\n"), 0);
	for (unsigned int q = 0; q < RPS_CONFIG_MAX_QUEUES; q++)
		CU_ASSERT_PTR_EQUAL(rps_config_queue_map(&cfg, q, NULL), &cfg.default_map);
	CU_ASSERT(set_eq(&cfg.default_map, &own));
}

/* tx_port: a port id 0..31, or none (-1); absent: not set. */
static void
test_tx_port(void)
{
	CU_ASSERT_EQUAL_FATAL(parse("[dataplane]\ntx_port = 3\n"), 0);
	CU_ASSERT_STRING_EQUAL(err, "");
	CU_ASSERT_EQUAL(cfg.has_tx_port, 1);
	CU_ASSERT_EQUAL(cfg.tx_port, 3);
	CU_ASSERT_EQUAL(cfg.has_rx_port, 0);

	CU_ASSERT_EQUAL_FATAL(parse("[dataplane]\ntx_port = none   ; no transmit\n"), 0);
	CU_ASSERT_EQUAL(cfg.has_tx_port, 1);
	CU_ASSERT_EQUAL(cfg.tx_port, -1);

	CU_ASSERT_EQUAL_FATAL(parse("[dataplane]\ntx_port = 0\n"), 0);
	CU_ASSERT(cfg.has_tx_port == 1 && cfg.tx_port == 0);
	CU_ASSERT_EQUAL_FATAL(parse("[dataplane]\ntx_port = 31\n"), 0);
	CU_ASSERT(cfg.has_tx_port == 1 && cfg.tx_port == 31);
	CU_ASSERT_EQUAL_FATAL(parse("[dataplane]\ntx_port = 0x1f\n"), 0);
	CU_ASSERT(cfg.has_tx_port == 1 && cfg.tx_port == 31);

	CU_ASSERT_EQUAL_FATAL(parse("[dataplane]\nburst = 8\n"), 0);
	CU_ASSERT_EQUAL(cfg.has_tx_port, 0);
	CU_ASSERT_EQUAL(cfg.tx_port, 0);

	CU_ASSERT_EQUAL(parse("[map]\ntx_port = 1\n"), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "t.conf:2: unknown key 'tx_port' in [map] "
			       "(expected default or queue0..queue63)");
}

/* Each bad file: refused with exactly this message. */

static void
test_errors(void)
{
	static const struct {
		const char *text;
		const char *msg;
	} bad[] = {
		/* unknown key, section */
		{ "[dataplane]\nbakclog = 5\n",
		  "t.conf:2: unknown key 'bakclog' in [dataplane] (did you mean backlog? every key: "
		  "dpdk-rps.conf(5))" },
		{ "[dataplane]\nBacklog = 5\n",
		  "t.conf:2: unknown key 'Backlog' in [dataplane] (did you mean backlog? every key: "
		  "dpdk-rps.conf(5))" },
		{ "[map]\nbacklog = 5\n",
		  "t.conf:2: unknown key 'backlog' in [map] (expected default or queue0..queue63)" },
		{ "[dataplane]\ndefault = 5\n",
		  "t.conf:2: unknown key 'default' in [dataplane] (every key: dpdk-rps.conf(5))" },
		{ "[dataplane]\nburst = 1\n[mapp]\nqueue0 = 1\n",
		  "t.conf:3: unknown section [mapp] (expected [dataplane], [map], [rules] or [consumers])" },
		{ "[dataplane]\nburst = 1\n[Map]\n",
		  "t.conf:3: unknown section [Map] (expected [dataplane], [map], [rules] or [consumers])" },
		{ "[ map ]\n", "t.conf:1: unknown section [ map ] (expected [dataplane], [map], [rules] or [consumers])" },
		{ "[]\n", "t.conf:1: unknown section [] (expected [dataplane], [map], [rules] or [consumers])" },
		{ "[map\n", "t.conf:1: '[map': section header without ']'" },
		{ "[map] x\n", "t.conf:1: unexpected ' x' after [map]" },
		/* a header is quoted to its first word: the rest may be a secret's value */
		{ "[map x y\n", "t.conf:1: '[map ...': section header without ']'" },
		{ "[map] x y\n", "t.conf:1: unexpected ' x ...' after [map]" },
		{ "[map x] y\n", "t.conf:1: unexpected ' y' after [map ...]" },
		{ "[mapp x]\n", "t.conf:1: unknown section [mapp ...] (expected [dataplane], [map], "
		  "[rules] or [consumers])" },
		{ "[map: x]\n", "t.conf:1: unknown section [map: ...] (expected [dataplane], [map], "
		  "[rules] or [consumers])" },
		{ "[hash_seed = 0x1234]\n", "t.conf:1: unknown section [hash_seed ...] (expected "
		  "[dataplane], [map], [rules] or [consumers])" },
		{ "[rss_key]\n", "t.conf:1: unknown section [rss_key] (expected [dataplane], [map], "
		  "[rules] or [consumers])" },
		/* numbers */
		{ "[dataplane]\nbacklog = abc\n",
		  "t.conf:2: backlog: expected 1..16777216 packets, not 'abc'" },
		{ "[dataplane]\nbacklog = 12x\n",
		  "t.conf:2: backlog: expected 1..16777216 packets, not '12x'" },
		{ "[dataplane]\nbacklog = 0\n",
		  "t.conf:2: backlog: expected 1..16777216 packets, not '0'" },
		{ "[dataplane]\nbacklog = 16777217\n",
		  "t.conf:2: backlog: expected 1..16777216 packets, not '16777217'" },
		{ "[dataplane]\nbacklog = -1\n",
		  "t.conf:2: backlog: expected 1..16777216 packets, not '-1'" },
		{ "[dataplane]\nbacklog = +1\n",
		  "t.conf:2: backlog: expected 1..16777216 packets, not '+1'" },
		{ "[dataplane]\nbacklog = 010\n", /* octal on the command line: ambiguous */
		  "t.conf:2: backlog: expected 1..16777216 packets, not '010'" },
		{ "[dataplane]\nbacklog = 0x\n",
		  "t.conf:2: backlog: expected 1..16777216 packets, not '0x'" },
		{ "[dataplane]\nbacklog = 1 000\n",
		  "t.conf:2: backlog: expected 1..16777216 packets, not '1 000'" },
		{ "[dataplane]\nbacklog = 99999999999999999999999\n",
		  "t.conf:2: backlog: expected 1..16777216 packets, "
		  "not '99999999999999999999999'" },
		{ "[dataplane]\n\nburst = 513\n",
		  "t.conf:3: burst: expected 1..512 packets, not '513'" },
		{ "[dataplane]\nburst = 0\n", "t.conf:2: burst: expected 1..512 packets, not '0'" },
		{ "[dataplane]\nrx_port = 32\n",
		  "t.conf:2: rx_port: expected a port id 0..31, not '32'" },
		{ "[dataplane]\nrx_port = 0,32\n",
		  "t.conf:2: rx_port: expected a port id 0..31, not '32'" },
		{ "[dataplane]\nrx_port = 1,1\n", "t.conf:2: rx_port: port 1 given twice" },
		{ "[dataplane]\nrx_port = 1,,2\n",
		  "t.conf:2: rx_port: expected a port or a list of ports (0 or 0,1), not '1,,2'" },
		{ "[dataplane]\nrx_port = 0,1,2,3,4,5,6,7,8\n", "t.conf:2: rx_port: at most 8 RX ports" },
		{ "[dataplane]\ntx_port = 32\n",
		  "t.conf:2: tx_port: expected a port id 0..31 or none, not '32'" },
		{ "[dataplane]\n\ntx_port = -1\n",
		  "t.conf:3: tx_port: expected a port id 0..31 or none, not '-1'" },
		{ "[dataplane]\ntx_port = x\n",
		  "t.conf:2: tx_port: expected a port id 0..31 or none, not 'x'" },
		{ "[dataplane]\ntx_port = None\n",
		  "t.conf:2: tx_port: expected a port id 0..31 or none, not 'None'" },
		{ "[dataplane]\ntx_port = 03\n",
		  "t.conf:2: tx_port: expected a port id 0..31 or none, not '03'" },
		{ "[dataplane]\ntx_port = none\ntx_port = 1\n",
		  "t.conf:3: tx_port: set twice (first on line 2)" },
		{ "[dataplane]\ntx_port =\n", "t.conf:2: tx_port: empty value" },
		{ "[dataplane]\nhash_seed = 4294967296\n",
		  "t.conf:2: hash_seed: expected a 32-bit number 0..4294967295 (the value is "
		  "secret: not shown)" },
		{ "[dataplane]\nhash_seed = 0x100000000\n",
		  "t.conf:2: hash_seed: expected a 32-bit number 0..4294967295 (the value is "
		  "secret: not shown)" },
		{ "[dataplane]\nflow_table_size = 63\n",
		  "t.conf:2: flow_table_size: expected 64..16777216 flows, not '63'" },
		{ "[dataplane]\nflow_table_size = 16777217\n",
		  "t.conf:2: flow_table_size: expected 64..16777216 flows, not '16777217'" },
		{ "[dataplane]\nstats_interval = 86401\n",
		  "t.conf:2: stats_interval: expected 0..86400 seconds, not '86401'" },
		/* '#' right after the value is not a comment (inline comments follow a blank) */
		{ "[dataplane]\nburst = 8#x\n", "t.conf:2: burst: expected 1..512 packets, not '8#x'" },
		{ "[dataplane]\nburst = 8;x\n", "t.conf:2: burst: expected 1..512 packets, not '8;x'" },
		/* maps */
		{ "[map]\ndefault = xyz\n",
		  "t.conf:2: default: expected a hex mask (fe, 0xfe, ff,ffffffff) or a list (1-3,5) "
		  "with optional weights 1..4096 (1:2,2:1,3:1), not 'xyz'" },
		{ "[map]\nqueue3 = 3-1\n",
		  "t.conf:2: queue3: expected a hex mask (fe, 0xfe, ff,ffffffff) or a list (1-3,5) "
		  "with optional weights 1..4096 (1:2,2:1,3:1), not '3-1'" },
		{ "[map]\nqueue0 = 1:0\n",
		  "t.conf:2: queue0: expected a hex mask (fe, 0xfe, ff,ffffffff) or a list (1-3,5) "
		  "with optional weights 1..4096 (1:2,2:1,3:1), not '1:0'" },
		{ "[dataplane]\ntable_size = 100\n",
		  "t.conf:2: table_size: expected a power of two 1..4096 buckets, not '100'" },
		{ "[dataplane]\ntable_size = 8192\n",
		  "t.conf:2: table_size: expected a power of two 1..4096 buckets, not '8192'" },
		{ "[dataplane]\nrebalance = maybe\n",
		  "t.conf:2: rebalance: expected on or off (or yes/no, true/false, 1/0), not 'maybe'" },
		{ "[dataplane]\nrebalance_threshold = 0\n",
		  "t.conf:2: rebalance_threshold: expected 1..1000 percent, not '0'" },
		{ "[dataplane]\nrebalance_moves = 0\n",
		  "t.conf:2: rebalance_moves: expected 1..4096 buckets, not '0'" },
		{ "[dataplane]\nrebalance_interval_ms = 5\n",
		  "t.conf:2: rebalance_interval_ms: expected 10..3600000 milliseconds, not '5'" },
		{ "[map]\nqueue0 = 1-200\n", "t.conf:2: queue0: lcore 128 out of range (lcores 0..127)" },
		{ "[map]\nqueue0 = 130-131\n",
		  "t.conf:2: queue0: lcore 130 out of range (lcores 0..127)" },
		{ "[map]\ndefault = 1,ffffffff,ffffffff,ffffffff,ffffffff\n",
		  "t.conf:2: default: lcore 128 out of range (lcores 0..127)" },
		/* queue index */
		{ "[map]\nqueue64 = 1\n", "t.conf:2: queue64: RX queue out of range (queue0..queue63)" },
		{ "[map]\nqueue99999999999999999999 = 1\n",
		  "t.conf:2: queue99999999999999999999: RX queue out of range (queue0..queue63)" },
		{ "[map]\nqueue01 = 1\n",
		  "t.conf:2: unknown key 'queue01' in [map] (expected default or queue0..queue63)" },
		{ "[map]\nqueue0x1 = 1\n",
		  "t.conf:2: unknown key 'queue0x1' in [map] (expected default or queue0..queue63)" },
		{ "[map]\nqueue = 1\n",
		  "t.conf:2: unknown key 'queue' in [map] (expected default or queue0..queue63)" },
		{ "[map]\nqueue-1 = 1\n",
		  "t.conf:2: unknown key 'queue-1' in [map] (expected default or queue0..queue63)" },
		/* hash, bool, stages */
		{ "[dataplane]\nhash = crc\n", "t.conf:2: hash: expected auto, rss, jhash or toeplitz, not 'crc'" },
		/* the Toeplitz keys */
		{ "[dataplane]\nsymmetric = maybe\n",
		  "t.conf:2: symmetric: expected on, off or xor (or yes/no, true/false, 1/0), "
		  "not 'maybe'" },
		{ "[dataplane]\nrss_key = zz\n",
		  "t.conf:2: rss_key: expected a key in hex (6d5a56da... or 6d:5a:56:da:...), 40 or 52 "
		  "bytes (the value is secret: not shown)" },
		{ "[dataplane]\nrss_key = 6d5a\n",
		  "t.conf:2: rss_key: 2 bytes, expected 40 or 52 (80 or 104 hex digits)" },
		{ "[dataplane]\nsymmetric = xor\nburst = 1\nrss_key = " TZ_MS_KEY "\n",
		  "t.conf:4: rss_key (line 4) is not symmetric but symmetric = xor (line 2): the key "
		  "must repeat one 16-bit pattern (6d5a6d5a...), or leave rss_key out to get 6d5a x 20, "
		  "or use symmetric = on (any key)" },
		{ "[dataplane]\nrss_key = " TZ_MS_KEY "\nsymmetric = XOR\n",
		  "t.conf:3: rss_key (line 2) is not symmetric but symmetric = xor (line 3): the key "
		  "must repeat one 16-bit pattern (6d5a6d5a...), or leave rss_key out to get 6d5a x 20, "
		  "or use symmetric = on (any key)" },
		/* one number syntax with the command line (rps_number.h): no leading zero, no
		 * blank inside, no sign, hex only with 0x */
		{ "[dataplane]\nbacklog = 065536\n",
		  "t.conf:2: backlog: expected 1..16777216 packets, not '065536'" },
		{ "[dataplane]\nhash_seed = 00\n",
		  "t.conf:2: hash_seed: expected a 32-bit number 0..4294967295 (the value is secret: not shown)" },
		{ "[dataplane]\nhash_seed = ff\n",
		  "t.conf:2: hash_seed: expected a 32-bit number 0..4294967295 (the value is secret: not shown)" },
		{ "[dataplane]\nburst = 0x\t8\n",
		  "t.conf:2: burst: expected 1..512 packets, not '0x\t8'" },
		{ "[dataplane]\nreorder_safe = maybe\n",
		  "t.conf:2: reorder_safe: expected on or off (or yes/no, true/false, 1/0), "
		  "not 'maybe'" },
		{ "[dataplane]\nstages = parse,bogus\n",
		  "t.conf:2: stages: unknown stage 'bogus' (expected parse,validate,reassemble,flow,"
		  "respond,output: any of them, in this order)" },
		{ "[dataplane]\nstages = parse, flow\n",
		  "t.conf:2: stages: unknown stage ' flow' (expected parse,validate,reassemble,flow,"
		  "respond,output: any of them, in this order)" },
		{ "[dataplane]\nstages = parse,flow,validate\n",
		  "t.conf:2: stages: 'validate' is repeated or out of order (order: parse,validate,"
		  "reassemble,flow,respond,output)" },
		{ "[dataplane]\nstages = parse,parse\n",
		  "t.conf:2: stages: 'parse' is repeated or out of order (order: parse,validate,"
		  "reassemble,flow,respond,output)" },
		{ "[dataplane]\nstages = flow,output\n",
		  "t.conf:2: stages: 'flow' needs parse before it" },
		{ "[dataplane]\nstages = ,,\n", "t.conf:2: stages: no stage in ',,'" },
		/* duplicates: in the same section, a section opened again, maps */
		{ "[dataplane]\nburst = 1\n\nburst = 1\n",
		  "t.conf:4: burst: set twice (first on line 2)" },
		{ "[dataplane]\nhash = rss\n[map]\ndefault = 1\n[dataplane]\nhash = rss\n",
		  "t.conf:6: hash: set twice (first on line 2)" },
		{ "[map]\nqueue5 = 1\nqueue6 = 1\nqueue5 = 2\n",
		  "t.conf:4: queue5: set twice (first on line 2)" },
		{ "[map]\ndefault = 1\ndefault = 1\n", "t.conf:3: default: set twice (first on line 2)" },
		/* empty values */
		{ "[dataplane]\nburst =\n", "t.conf:2: burst: empty value" },
		{ "[dataplane]\nstages =   ; nothing\n", "t.conf:2: stages: empty value" },
		{ "[map]\nqueue1 =\n", "t.conf:2: queue1: empty value" },
		{ "[map]\nqueue64 =\n", "t.conf:2: queue64: RX queue out of range (queue0..queue63)" },
		{ "[dataplane]\nbogus =\n",
		  "t.conf:2: unknown key 'bogus' in [dataplane] (every key: dpdk-rps.conf(5))" },
		/* structure */
		{ "backlog = 1\n[dataplane]\n",
		  "t.conf:1: key 'backlog' outside any section (put it under [dataplane] or [map])" },
		{ "; c\n\nbogus = 1\n",
		  "t.conf:3: key 'bogus' outside any section (put it under [dataplane] or [map])" },
		/* a secret's value typed into the key, outside a section (found by fuzz_config):
		 * the key shown without it */
		{ "hash_seed 0x1234 = 5\n",
		  "t.conf:1: key 'hash_seed ...' outside any section (put it under [dataplane] or "
		  "[map])" },
		/* a line that is not "key = value": its first word (the rest may be a secret's
		 * value, "x: hash_seed = 5") */
		{ "[dataplane]\njust words\n",
		  "t.conf:2: 'just ...': expected 'key = value', a [section] or a comment" },
		{ "[dataplane]\nbacklog\n",
		  "t.conf:2: 'backlog': expected 'key = value', a [section] or a comment" },
		{ "[dataplane]\nbacklog: 5\n", /* inih would take ':' as '=' */
		  "t.conf:2: 'backlog: ...': expected 'key = value', a [section] or a comment" },
		{ "[dataplane]\nbacklog ; = 5\n",
		  "t.conf:2: 'backlog': expected 'key = value', a [section] or a comment" },
		{ "[dataplane]\n= 5\n", "t.conf:2: missing key name before '='" },
		/* the first error is the one reported */
		/* a typo of a key: the nearest one suggested (a swap, a letter off, a case) */
		{ "[dataplane]\nconsumer_fial = open\n",
		  "t.conf:2: unknown key 'consumer_fial' in [dataplane] (did you mean consumer_fail? "
		  "every key: dpdk-rps.conf(5))" },
		{ "[dataplane]\nidle_sleep_s = 5\n",
		  "t.conf:2: unknown key 'idle_sleep_s' in [dataplane] (did you mean idle_sleep_us? "
		  "every key: dpdk-rps.conf(5))" },
		{ "[dataplane]\nburst = 0\nbacklog = 0\n",
		  "t.conf:2: burst: expected 1..512 packets, not '0'" },
		{ "[dataplane]\nbogus\nburst = 0\n",
		  "t.conf:2: 'bogus': expected 'key = value', a [section] or a comment" },
		{ "[dataplane]\nburst = 0\nbogus\n", "t.conf:2: burst: expected 1..512 packets, not '0'" },
	};

	for (unsigned int i = 0; i < RTE_DIM(bad); i++) {
		int rc = parse(bad[i].text);

		CU_ASSERT_EQUAL(rc, -EINVAL);
		if (strcmp(err, bad[i].msg) != 0) {
			printf("\ncase %u:\n  got  '%s'\n  want '%s'\n", i, err, bad[i].msg);
			CU_FAIL("error message");
		}
		/* a refused file leaves nothing half-applied */
		CU_ASSERT(cfg_is_zero(&cfg));
	}
}

/*
 * A secret's value (hash_seed, rss_key) is never quoted back: the message of a refused file
 * goes to the log and into /rps/config's last_reload_result, which anyone who may query
 * telemetry reads, also when /rps/config hides the running secrets.
 */
static void
test_errors_secret(void)
{
	static const char *const bad[] = {
		"[dataplane]\nhash_seed = 0xc0ffee0c0ffee\n",
		"[dataplane]\nhash_seed = c0ffee\n",
		"[dataplane]\nhash_seed = -0xc0ffee\n",
		("[dataplane]\nrss_key = c0ffeec0ffeec0ffeec0ffeec0ffeec0ffeec0ffeec0ffeec0ffeec0ffee"
		 "c0ffeec0ffeec0ffeec0ffeeXc0ffee\n"),
		"[dataplane]\nrss_key = c0ffee:zz\n",
		"[dataplane]\nrss_key: c0ffeec0ffee\n",
		"[dataplane]\nrss_key c0ffeec0ffee\n",
		"[dataplane]\nhash_seed\tc0ffee\n",
		"[dataplane]\nhash_seedc0ffeec0ffee\n", /* the fuzzer's finds */
		"[dataplane]\nhash_seed c0ffeec0ffee = 1\n",
		"[map]\nrss_key\tc0ffeec0ffee = 1\n",
		/* consumer_secret: too long, a '=', a space, empty among others */
		"[dataplane]\nconsumer_secret = c0ffeec0ffeec0ffeec0ffeex\n",
		"[dataplane]\nconsumer_secret = c0ffee=c0ffee\n",
		"[dataplane]\nconsumer_secret = c0ffee c0ffee\n",
		"[dataplane]\nconsumer_secret = c0ffee,,c0ffee\n",
		/* section headers (issue 37: "[hash_seed = SECRET]" came back whole as an
		 * unknown section in the log and last_reload_result) */
		"[map]\n[hash_seed = c0ffeec0ffee]\n",
		"[map]\n[ hash_seed c0ffee ]\n",
		"[map]\n[hash_seedc0ffee]\n",
		"[map]\n[rss_key: c0ffeec0ffee]\n",
		"[map]\n[rss_key = c0ffeec0ffee\n",
		"[map]\n[map] hash_seed = c0ffee\n",
		"[map]\n[dataplane]rss_key:c0ffee\n",
		"[map]\n[hash_seed = c0ffee] rss_key = c0ffee\n",
		"[map]\nx: hash_seed = c0ffee\n",
	};

	for (unsigned int i = 0; i < RTE_DIM(bad); i++) {
		CU_ASSERT_EQUAL(parse(bad[i]), -EINVAL);
		CU_ASSERT_PTR_NULL(strcasestr(err, "c0ffee"));
		CU_ASSERT_PTR_NOT_NULL(strstr(err, "t.conf:2: "));
		if (strcasestr(err, "c0ffee") != NULL)
			printf("\ncase %u: the secret in '%s'\n", i, err);
	}
}

/* What cannot be written in the table: long lines, NUL bytes, no err buffer. */
static void
test_errors_special(void)
{
	char text[512];
	const char *path;

	/* 198 characters fit, 199 do not (indentation and comments do not count) */
	snprintf(text, sizeof(text), "[dataplane]\n   stages = parse%*s  ; c\n", 198 - 14, ",");
	CU_ASSERT_EQUAL(parse(text), -EINVAL); /* too long for stages: the value's check */
	CU_ASSERT_STRING_EQUAL(err, "t.conf:2: stages: longer than 127 characters");
	memset(text, 0, sizeof(text));
	strcpy(text, "[dataplane]\n\tburst = 1");
	memset(text + strlen(text), ' ', 198 - 9);
	strcat(text, "\n");
	CU_ASSERT_EQUAL(parse(text), 0); /* trailing blanks do not count either */
	memset(text, 0, sizeof(text));
	strcpy(text, "[dataplane]\nburst = 1");
	memset(text + strlen(text), 'x', 199 - 9);
	strcat(text, "\nbacklog = 5\n");
	CU_ASSERT_EQUAL(parse(text), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "t.conf:2: line too long (at most 198 characters without "
				    "indentation and comment)");
	text[12 + 198] = '\n'; /* now exactly 198: read, and refused for its value */
	CU_ASSERT_EQUAL(parse(text), -EINVAL);
	{
		char want[512];

		snprintf(want, sizeof(want), "t.conf:2: burst: expected 1..512 packets, not '%.190s'",
			 text + 12 + 8);
		CU_ASSERT_STRING_EQUAL(err, want);
		if (strcmp(err, want) != 0)
			printf("\n  got  '%s'\n  want '%s'\n", err, want);
		CU_ASSERT_EQUAL(strlen(want), strlen("t.conf:2: burst: expected 1..512 packets, "
						     "not '1'") + 189);
	}

	/* a NUL byte (only a file can hold one) */
	static const char nul[] = "[dataplane]\nburst = 1\0 2\nbacklog = 5\n";
	path = tmp_file(nul, sizeof(nul) - 1);
	CU_ASSERT_EQUAL(rps_config_load(path, &cfg, err, sizeof(err)), -EINVAL);
	snprintf(text, sizeof(text), "%s:2: NUL character in the line", path);
	CU_ASSERT_STRING_EQUAL(err, text);
	CU_ASSERT(cfg_is_zero(&cfg));
	unlink(path);

	/* no error buffer, or a short one */
	CU_ASSERT_EQUAL(rps_config_parse_string("[x]\n", "t.conf", &cfg, NULL, 0), -EINVAL);
	CU_ASSERT_EQUAL(rps_config_parse_string("[x]\n", "t.conf", &cfg, err, 8), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "t.conf:");
}

static void
test_files(void)
{
	static const char good[] = "[dataplane]\nbacklog = 7\n";
	static const char bad[] = "[dataplane]\nbacklog = 7\n\nburst = 1000\n";
	const char *path;
	char want[512];

	CU_ASSERT_EQUAL(rps_config_load("/nonexistent/rps.conf", &cfg, err, sizeof(err)),
			-ENOENT);
	CU_ASSERT_STRING_EQUAL(err, "/nonexistent/rps.conf: cannot open: No such file or "
				    "directory");
	CU_ASSERT(cfg_is_zero(&cfg));
	CU_ASSERT_EQUAL(rps_config_load("/", &cfg, err, sizeof(err)), -EISDIR);
	CU_ASSERT_STRING_EQUAL(err, "/: not a regular file (a directory)");

	path = tmp_file(good, sizeof(good) - 1);
	CU_ASSERT_EQUAL(rps_config_load(path, &cfg, err, sizeof(err)), 0);
	CU_ASSERT(cfg.has_backlog == 1 && cfg.backlog == 7 && !cfg.has_burst);
	unlink(path);

	path = tmp_file(bad, sizeof(bad) - 1);
	CU_ASSERT_EQUAL(rps_config_load(path, &cfg, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "%s:4: burst: expected 1..512 packets, not '1000'", path);
	CU_ASSERT_STRING_EQUAL(err, want);
	unlink(path);

	/* an empty file is valid */
	path = tmp_file("", 0);
	CU_ASSERT_EQUAL(rps_config_load(path, &cfg, err, sizeof(err)), 0);
	CU_ASSERT(cfg_is_zero(&cfg));
	unlink(path);
}

/* A new private folder for the file-type and mode tests (static buffer). */
static const char *
tmp_dir(void)
{
	static char path[256];
	const char *dir = getenv("TMPDIR");

	snprintf(path, sizeof(path), "%s/rps-config-d-XXXXXX", dir != NULL && *dir ? dir : "/tmp");
	CU_ASSERT_FATAL(mkdtemp(path) != NULL);
	return path;
}

static void
write_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	CU_ASSERT_FATAL(f != NULL);
	fputs(text, f);
	fclose(f);
	CU_ASSERT_FATAL(chmod(path, mode) == 0);
}

/*
 * Only a regular file is read, and a FIFO cannot block the caller (before the fix, open()
 * waited for a writer forever: the alarm ends the test then). A symlink to a file is fine.
 */
static void
test_file_types(void)
{
	char dir[256], fifo[320], sock[320], file[320], link[320], want[700];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int sfd;

	snprintf(dir, sizeof(dir), "%s", tmp_dir());
	snprintf(fifo, sizeof(fifo), "%s/fifo.conf", dir);
	snprintf(sock, sizeof(sock), "%s/sock.conf", dir);
	snprintf(file, sizeof(file), "%s/real.conf", dir);
	snprintf(link, sizeof(link), "%s/link.conf", dir);

	CU_ASSERT_FATAL(mkfifo(fifo, 0600) == 0);
	alarm(10);
	CU_ASSERT_EQUAL(rps_config_load(fifo, &cfg, err, sizeof(err)), -EINVAL);
	alarm(0);
	snprintf(want, sizeof(want), "%s: not a regular file (a FIFO)", fifo);
	CU_ASSERT_STRING_EQUAL(err, want);
	CU_ASSERT(cfg_is_zero(&cfg));

	sfd = socket(AF_UNIX, SOCK_STREAM, 0);
	CU_ASSERT_FATAL(sfd >= 0 && strlen(sock) < sizeof(sa.sun_path));
	memcpy(sa.sun_path, sock, strlen(sock) + 1);
	CU_ASSERT_FATAL(bind(sfd, (struct sockaddr *)&sa, sizeof(sa)) == 0);
	CU_ASSERT_EQUAL(rps_config_load(sock, &cfg, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "%s: not a regular file (a socket)", sock);
	CU_ASSERT_STRING_EQUAL(err, want);
	close(sfd);

	write_file(file, "[dataplane]\nbacklog = 9\n", 0600);
	CU_ASSERT_FATAL(symlink("real.conf", link) == 0);
	CU_ASSERT_EQUAL(rps_config_load(link, &cfg, err, sizeof(err)), 0);
	CU_ASSERT(cfg.has_backlog && cfg.backlog == 9);
	unlink(link);
	/* a symlink to the FIFO is refused the same way */
	CU_ASSERT_FATAL(symlink("fifo.conf", link) == 0);
	alarm(10);
	CU_ASSERT_EQUAL(rps_config_load(link, &cfg, err, sizeof(err)), -EINVAL);
	alarm(0);
	snprintf(want, sizeof(want), "%s: not a regular file (a FIFO)", link);
	CU_ASSERT_STRING_EQUAL(err, want);

	unlink(link);
	unlink(file);
	unlink(sock);
	unlink(fifo);
	rmdir(dir);
}

/* rps_config_load_file()'s digest: the same bytes the same, a byte changed another, and
 * there when the file does not parse (a reload tells the file it applied already). */
static void
test_file_digest(void)
{
	struct rps_config_file info;
	char dir[256], file[320];
	uint64_t d1, d2;

	snprintf(dir, sizeof(dir), "%s", tmp_dir());
	snprintf(file, sizeof(file), "%s/rps.conf", dir);
	write_file(file, "[dataplane]\nbacklog = 9\n", 0600);
	CU_ASSERT_EQUAL(rps_config_load_file(file, &cfg, &info, err, sizeof(err)), 0);
	d1 = info.digest;
	write_file(file, "[dataplane]\nbacklog = 9\n", 0600); /* saved again, as it was */
	CU_ASSERT_EQUAL(rps_config_load_file(file, &cfg, &info, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(info.digest, d1);
	write_file(file, "[dataplane]\nbacklog = 8\n", 0600);
	CU_ASSERT_EQUAL(rps_config_load_file(file, &cfg, &info, err, sizeof(err)), 0);
	d2 = info.digest;
	CU_ASSERT(d2 != d1);
	write_file(file, "[dataplane]\nbacklog = lots\n", 0600);
	CU_ASSERT_EQUAL(rps_config_load_file(file, &cfg, &info, err, sizeof(err)), -EINVAL);
	CU_ASSERT(info.digest != d1 && info.digest != d2 && info.digest != 0);
	unlink(file);
	rmdir(dir);
}

/* The owner and mode findings of rps_config_load_file(); the file parses either way. */
static void
test_file_modes(void)
{
	struct rps_config_file info;
	char dir[256], sub[320], file[320], link[320], want[800];

	snprintf(dir, sizeof(dir), "%s", tmp_dir());
	snprintf(file, sizeof(file), "%s/rps.conf", dir);
	write_file(file, "[dataplane]\nbacklog = 9\n", 0600);

	/* mkdtemp's 0700 folder, a 0600 file: nothing to say */
	CU_ASSERT_EQUAL(rps_config_load_file(file, &cfg, &info, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(info.unsafe, "");
	CU_ASSERT(cfg.has_backlog && cfg.backlog == 9);

	CU_ASSERT_FATAL(chmod(file, 0666) == 0);
	CU_ASSERT_EQUAL(rps_config_load_file(file, &cfg, &info, err, sizeof(err)), 0);
	snprintf(want, sizeof(want), "file %s is writable by others (mode 0666)", file);
	CU_ASSERT_STRING_EQUAL(info.unsafe, want);
	CU_ASSERT_FATAL(chmod(file, 0620) == 0);
	CU_ASSERT_EQUAL(rps_config_load_file(file, &cfg, &info, err, sizeof(err)), 0);
	snprintf(want, sizeof(want), "file %s is writable by its group (mode 0620)", file);
	CU_ASSERT_STRING_EQUAL(info.unsafe, want);
	CU_ASSERT_FATAL(chmod(file, 0644) == 0);

	/* the folder: anyone could rename another file over ours; sticky (as /tmp) is fine */
	CU_ASSERT_FATAL(chmod(dir, 0777) == 0);
	CU_ASSERT_EQUAL(rps_config_load_file(file, &cfg, &info, err, sizeof(err)), 0);
	snprintf(want, sizeof(want), "folder %s is writable by others (mode 0777)", dir);
	CU_ASSERT_STRING_EQUAL(info.unsafe, want);
	CU_ASSERT_FATAL(chmod(dir, 01777) == 0);
	CU_ASSERT_EQUAL(rps_config_load_file(file, &cfg, &info, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(info.unsafe, "");

	/* also when the file refuses to parse, and with the file and the folder both */
	write_file(file, "[dataplane]\nbacklog = lots\n", 0646);
	CU_ASSERT_FATAL(chmod(dir, 0770) == 0);
	CU_ASSERT_EQUAL(rps_config_load_file(file, &cfg, &info, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "folder %s is writable by its group (mode 0770); file %s is "
		 "writable by others (mode 0646)", dir, file);
	CU_ASSERT_STRING_EQUAL(info.unsafe, want);
	CU_ASSERT(cfg_is_zero(&cfg));

	/* through a symlink: the folder the file really is in counts too */
	CU_ASSERT_FATAL(chmod(dir, 0700) == 0);
	write_file(file, "[dataplane]\nbacklog = 9\n", 0600);
	snprintf(sub, sizeof(sub), "%s/data", dir);
	snprintf(link, sizeof(link), "%s/data/link.conf", dir);
	CU_ASSERT_FATAL(mkdir(sub, 0700) == 0);
	CU_ASSERT_FATAL(symlink("../rps.conf", link) == 0);
	CU_ASSERT_EQUAL(rps_config_load_file(link, &cfg, &info, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(info.unsafe, "");
	CU_ASSERT_FATAL(chmod(dir, 0757) == 0);
	CU_ASSERT_EQUAL(rps_config_load_file(link, &cfg, &info, err, sizeof(err)), 0);
	snprintf(want, sizeof(want), "folder %s is writable by others (mode 0757)", dir);
	CU_ASSERT(strstr(info.unsafe, want) != NULL);
	if (strstr(info.unsafe, want) == NULL)
		printf("\n  got '%s'\n", info.unsafe);
	CU_ASSERT_FATAL(chmod(dir, 0700) == 0);

	/* another user's file (only root can make one) */
	if (geteuid() == 0) {
		CU_ASSERT_FATAL(chown(file, 65534, 65534) == 0);
		CU_ASSERT_EQUAL(rps_config_load_file(file, &cfg, &info, err, sizeof(err)), 0);
		snprintf(want, sizeof(want), "file %s is owned by uid 65534, neither root nor us "
			 "(uid 0)", file);
		CU_ASSERT_STRING_EQUAL(info.unsafe, want);
	}
	unlink(link);
	rmdir(sub);
	unlink(file);
	rmdir(dir);
}

/* Comments, blank lines, indentation, CRLF, a byte order mark, no final newline. */
static void
test_layout(void)
{
	static const int l1_3[] = { 1, 2, 3, -1 };
	struct rps_lcoreset want = set_of(l1_3);
	const char *path;

	CU_ASSERT_EQUAL(parse("; only comments\n# and more\n\n   ; indented\n\t# tab\n"), 0);
	CU_ASSERT(cfg_is_zero(&cfg));
	CU_ASSERT_PTR_NULL(rps_config_queue_map(&cfg, 0, NULL));
	CU_ASSERT_EQUAL(parse(""), 0);
	CU_ASSERT(cfg_is_zero(&cfg));
	CU_ASSERT_EQUAL(parse("[dataplane]\n[map]\n"), 0); /* sections with no key */
	CU_ASSERT(cfg_is_zero(&cfg));

	/* CRLF, inline comments after a blank (';' and '#'), a comment after a section */
	CU_ASSERT_EQUAL_FATAL(parse("; c\r\n[dataplane] ; the data path\r\nbacklog = 7 ; packets\r\n"
				    "burst=8\t# packets\r\n\r\n[map]\r\ndefault = 1-3\r\n"
				    "stages_is_not_here = 1\r\n"), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "t.conf:8: unknown key 'stages_is_not_here' in [map] "
				    "(expected default or queue0..queue63)");
	CU_ASSERT_EQUAL_FATAL(parse("; c\r\n[dataplane] ; the data path\r\nbacklog = 7 ; packets\r\n"
				    "burst=8\t# packets\r\n\r\n[map]\r\ndefault = 1-3\r\n"), 0);
	CU_ASSERT(cfg.has_backlog == 1 && cfg.backlog == 7);
	CU_ASSERT(cfg.has_burst == 1 && cfg.burst == 8);
	CU_ASSERT(set_eq(&cfg.default_map, &want));
	CU_ASSERT_STRING_EQUAL(cfg.default_map_text, "1-3");

	/* indentation is ignored: an indented line is not a continuation of the one above */
	CU_ASSERT_EQUAL_FATAL(parse("  [dataplane]\n  burst = 8\n    backlog = 9\n\tstages = parse\n"),
			      0);
	CU_ASSERT(cfg.has_burst == 1 && cfg.burst == 8);
	CU_ASSERT(cfg.has_backlog == 1 && cfg.backlog == 9);
	CU_ASSERT_STRING_EQUAL(cfg.stages, "parse");

	/* UTF-8 byte order mark, last line without a newline */
	CU_ASSERT_EQUAL_FATAL(parse("\xef\xbb\xbf[dataplane]\nburst = 8"), 0);
	CU_ASSERT(cfg.has_burst == 1 && cfg.burst == 8);

	/* the same from a file, CRLF throughout, and a CRLF file's error line */
	static const char crlf[] = "[dataplane]\r\nburst = 8\r\n[map]\r\nqueue3 = 0x6\r\n";
	path = tmp_file(crlf, sizeof(crlf) - 1);
	CU_ASSERT_EQUAL(rps_config_load(path, &cfg, err, sizeof(err)), 0);
	CU_ASSERT(cfg.has_burst == 1 && cfg.burst == 8 && cfg.has_queue_map[3] == 1);
	CU_ASSERT_STRING_EQUAL(cfg.queue_map_text[3], "0x6");
	unlink(path);
	CU_ASSERT_EQUAL(parse("[dataplane]\r\n\r\nburst = 8\r\nburst = 8\r\n"), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "t.conf:4: burst: set twice (first on line 3)");
}

/*
 * Random texts from the characters that matter (and valid fragments): never a crash or an
 * over-read (ASan), always 0 or -EINVAL with "t.conf:LINE: " for a LINE of the text, and a
 * refused text leaves the configuration zeroed.
 */
static void
test_random_texts(void)
{
	static const char *const piece[] = {
		"[", "]", "=", ";", "#", " ", "\t", "\r", "\n", "\n", "\n", ",", "-", ":", "x",
		"0", "1", "7", "0x", "ff", "queue", "63", "64", "default", "dataplane", "map",
		"backlog", "burst", "stages", "parse", "output", "hash", "rss", "reorder_safe", "on",
		"[dataplane]\n", "[map]\n", "burst = 8\n", "queue1 = 1-2\n", "\xef\xbb\xbf",
	};
	uint64_t seed = 0x5eed;
	char text[1024];

	for (unsigned int iter = 0; iter < 20000; iter++) {
		size_t len = 0;
		unsigned int n = (unsigned int)(ut_rand(&seed) % 40), lines = 1;
		int rc, line = 0;

		text[0] = '\0';
		for (unsigned int i = 0; i < n; i++) {
			const char *p = piece[ut_rand(&seed) % RTE_DIM(piece)];

			if (len + strlen(p) >= sizeof(text))
				break;
			memcpy(text + len, p, strlen(p) + 1);
			len += strlen(p);
		}
		for (size_t i = 0; i < len; i++)
			lines += text[i] == '\n';
		rc = parse(text);
		if (rc == 0)
			continue;
		CU_ASSERT_EQUAL(rc, -EINVAL);
		CU_ASSERT(sscanf(err, "t.conf:%d: ", &line) == 1 && line >= 1 &&
			  (unsigned int)line <= lines);
		CU_ASSERT(cfg_is_zero(&cfg));
		if (rc != -EINVAL || line < 1 || (unsigned int)line > lines) {
			printf("\ntext '%s'\n  -> %d '%s'\n", text, rc, err);
			break;
		}
	}
}

/* config/dpdk-rps.conf: parses, with every key written in it (set or commented out). */
static void
test_example_file(void)
{
	static const char *const keys[] = {
		"rx_port", "tx_port", "hash", "hash_seed", "backlog", "burst", "stages", "flow_table_size",
		"reorder_safe", "stats_interval", "default", "queue0", "queue1", "symmetric", "rss_key",
		"inner", "vxlan_port", "respond_rate", "respond_burst", "metrics",
	};
	static const int l1_2[] = { 1, 2, -1 };
	const char *path = RPS_SOURCE_ROOT "/config/dpdk-rps.conf";
	struct rps_lcoreset want = set_of(l1_2);
	char text[8192];
	size_t len;
	FILE *f;

	err[0] = '\0';
	CU_ASSERT_EQUAL(rps_config_load(path, &cfg, err, sizeof(err)), 0);
	if (err[0] != '\0')
		printf("\n%s\n", err);
	/* the built-in defaults */
	CU_ASSERT(cfg.has_rx_port == 1 && cfg.rx_port == 0);
	CU_ASSERT_EQUAL(cfg.has_tx_port, 0); /* commented out: none */
	CU_ASSERT(cfg.has_hash == 1 && cfg.hash_mode == RPS_HASH_AUTO);
	CU_ASSERT_EQUAL(cfg.has_hash_seed, 0); /* random unless set */
	CU_ASSERT(cfg.has_backlog == 1 && cfg.backlog == 1000);
	CU_ASSERT(cfg.has_burst == 1 && cfg.burst == 64);
	CU_ASSERT(cfg.has_stages == 1);
	CU_ASSERT_STRING_EQUAL(cfg.stages, "parse,validate,reassemble,flow,output");
	CU_ASSERT(cfg.has_flow_table_size == 1 && cfg.flow_table_size == 65536);
	CU_ASSERT(cfg.has_reorder_safe == 1 && cfg.reorder_safe == 1);
	CU_ASSERT(cfg.has_stats_interval == 1 && cfg.stats_interval == 0);
	CU_ASSERT(cfg.has_default_map == 1 && set_eq(&cfg.default_map, &want));
	for (unsigned int q = 0; q < RPS_CONFIG_MAX_QUEUES; q++)
		CU_ASSERT_EQUAL(cfg.has_queue_map[q], 0);

	/* every key appears at the start of a line, maybe commented out ("; key = ") */
	f = fopen(path, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	len = fread(text + 1, 1, sizeof(text) - 2, f);
	fclose(f);
	text[0] = '\n';
	text[len + 1] = '\0';
	for (unsigned int i = 0; i < RTE_DIM(keys); i++) {
		char a[64], b[64];

		snprintf(a, sizeof(a), "\n%s = ", keys[i]);
		snprintf(b, sizeof(b), "\n; %s = ", keys[i]);
		if (strstr(text, a) == NULL && strstr(text, b) == NULL) {
			printf("\nexample lacks '%s'\n", keys[i]);
			CU_FAIL("example file covers every key");
		}
	}
}

int
main(int argc, char **argv)
{
	static CU_TestInfo tests[] = {
		{ "forward_key", test_forward_key },
		{ "consumer_keys", test_consumer_keys },
		{ "rules_section", test_rules_section },
		{ "consumers_section", test_consumers_section },
		{ "full_file", test_full },
		{ "toeplitz_keys", test_toeplitz_keys },
		{ "inner_keys", test_inner_keys },
		{ "flow_limit_idle_keys", test_flow_limit_idle_keys },
		{ "table_rebalance_keys", test_table_rebalance_keys },
		{ "respond_keys", test_respond_keys },
		{ "metrics_key", test_metrics_key },
		{ "tx_port", test_tx_port },
		{ "queue_map_precedence", test_queue_map_precedence },
		{ "errors_exact_file_line_message", test_errors },
		{ "errors_long_line_nul_short_buffer", test_errors_special },
		{ "errors_secret_never_shown", test_errors_secret },
		{ "files_missing_directory_good_bad", test_files },
		{ "file_types_fifo_socket_symlink", test_file_types },
		{ "file_owner_and_mode_warnings", test_file_modes },
		{ "file_digest", test_file_digest },
		{ "layout_comments_crlf_indent_bom", test_layout },
		{ "random_texts", test_random_texts },
		{ "example_file", test_example_file },
		CU_TEST_INFO_NULL,
	};

	return ut_main(argc, argv, "config", tests);
}
