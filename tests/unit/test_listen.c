/* SPDX-License-Identifier: BSD-3-Clause */
/* test_listen.c: rps_listen_parse(), the address of --metrics and the file's metrics key
 * (lib/control/listen.c). */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include <CUnit/Basic.h>

#include "rps_listen.h"
#include "test_common.h"

static void
test_good(void)
{
	static const struct { const char *s; int family; uint16_t port; const char *text; } good[] = {
		{ "9100", AF_INET, 9100, "127.0.0.1:9100" },      /* a bare port: loopback */
		{ "0", AF_INET, 0, "127.0.0.1:0" },               /* a free port */
		{ "65535", AF_INET, 65535, "127.0.0.1:65535" },
		{ "0x238c", AF_INET, 9100, "127.0.0.1:9100" },    /* the one number syntax */
		{ "0.0.0.0:9100", AF_INET, 9100, "0.0.0.0:9100" },
		{ "192.0.2.1:80", AF_INET, 80, "192.0.2.1:80" },
		{ "localhost:9100", AF_INET, 9100, "127.0.0.1:9100" },
		{ "[::1]:9100", AF_INET6, 9100, "[::1]:9100" },
		{ "[::]:0", AF_INET6, 0, "[::]:0" },
		{ "[0:0:0:0:0:0:0:1]:1", AF_INET6, 1, "[::1]:1" },
		{ "[2001:db8::42]:9100", AF_INET6, 9100, "[2001:db8::42]:9100" },
	};

	for (unsigned int i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		struct rps_listen l;
		char why[160] = "";

		memset(&l, 0xa5, sizeof(l));
		CU_ASSERT_EQUAL(rps_listen_parse(good[i].s, &l, why, sizeof(why)), 0);
		CU_ASSERT_EQUAL(l.on, 1);
		CU_ASSERT_EQUAL(l.family, good[i].family);
		CU_ASSERT_EQUAL(l.port, good[i].port);
		CU_ASSERT_STRING_EQUAL(l.text, good[i].text);
		if (strcmp(l.text, good[i].text) != 0 || why[0] != '\0')
			printf("\n%s: '%s' (%s)\n", good[i].s, l.text, why);
	}
	{
		struct rps_listen l;
		char why[160];
		const uint8_t lo[4] = { 127, 0, 0, 1 };

		CU_ASSERT_EQUAL(rps_listen_parse("9100", &l, why, sizeof(why)), 0);
		CU_ASSERT_EQUAL(memcmp(l.addr, lo, 4), 0);
		memset(&l, 0xa5, sizeof(l));
		CU_ASSERT_EQUAL(rps_listen_parse("off", &l, why, sizeof(why)), 0);
		CU_ASSERT_EQUAL(l.on, 0);
		CU_ASSERT_STRING_EQUAL(l.text, "");
	}
}

static void
test_bad(void)
{
	static const struct { const char *s, *why; } bad[] = {
		{ "99999", "port 99999 is out of range (0..65535; 0 picks a free port)" },
		{ "65536", "port 65536 is out of range" },
		{ "host:abc", "port 'abc' is not a number" },
		{ "host:9100", "'host' is not a numeric IPv4 address" },
		{ "example.com:80", "'example.com' is not a numeric IPv4 address" },
		{ "256.1.1.1:80", "'256.1.1.1' is not a numeric IPv4 address" },
		{ "1.2.3.4:", "no port after the address" },
		{ ":9100", "no address before the port" },
		{ "[::1]", "expected [IPV6]:PORT" },
		{ "[::1]:", "no port after the address" },
		{ "[::1", "expected [IPV6]:PORT" },
		{ "::1:9100", "an IPv6 address goes in brackets" },
		{ "[1.2.3.4]:80", "'1.2.3.4' is not a numeric IPv6 address" },
		{ "[fe80::1%eth0]:80", "is not a numeric IPv6 address" },
		{ "1.2.3.4:080", "port '080' is not a number" },
		{ "1.2.3.4:-1", "port '-1' is not a number" },
		{ "1.2.3.4:80:90", "an IPv6 address goes in brackets" },
		{ "1.2.3.4", "expected PORT (on 127.0.0.1), IPV4:PORT, [IPV6]:PORT or off" },
		{ "localhost", "expected PORT" },
		{ "9100 ", "expected PORT" },
		{ "", "empty" },
		{ "OFF", "expected PORT" },
		/* a bracket and no colon: strchr() gave NULL and the parser dereferenced it */
		{ "9100]", "an IPv6 address goes in brackets" },
		{ "]", "an IPv6 address goes in brackets" },
		{ "1.2.3.4]", "an IPv6 address goes in brackets" },
		{ "9100[", "an IPv6 address goes in brackets" },
	};

	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct rps_listen l;
		char why[160] = "";

		memset(&l, 0x5a, sizeof(l));
		CU_ASSERT_EQUAL(rps_listen_parse(bad[i].s, &l, why, sizeof(why)), -EINVAL);
		CU_ASSERT_EQUAL(l.on, 0x5a5a5a5a); /* untouched */
		CU_ASSERT_PTR_NOT_NULL(strstr(why, bad[i].why));
		if (strstr(why, bad[i].why) == NULL)
			printf("\n'%s': got '%s', expected '%s'\n", bad[i].s, why, bad[i].why);
	}
	{
		struct rps_listen l;
		char why[160];

		CU_ASSERT_EQUAL(rps_listen_parse(NULL, &l, why, sizeof(why)), -EINVAL);
	}
}

int
main(int argc, char **argv)
{
	static CU_TestInfo tests[] = {
		{ "good", test_good },
		{ "bad", test_bad },
		CU_TEST_INFO_NULL,
	};

	return ut_main(argc, argv, "listen", tests);
}
