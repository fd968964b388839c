/* SPDX-License-Identifier: BSD-3-Clause */
/* listen.c: "PORT", "IPV4:PORT", "[IPV6]:PORT" or "off": where a server of dpdk-rps listens. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "rps_listen.h"
#include "rps_number.h"

static int
parse_port(const char *s, uint16_t *port, char *why, size_t why_len)
{
	uint64_t v;
	int rc = rps_number_parse(s, 0, 65535, &v);

	if (rc == -ERANGE) {
		snprintf(why, why_len, "port %s is out of range (0..65535; 0 picks a free port)", s);
		return -EINVAL;
	}
	if (rc < 0) {
		snprintf(why, why_len, "port '%s' is not a number (%s)", s, RPS_NUMBER_SYNTAX);
		return -EINVAL;
	}
	*port = (uint16_t)v;
	return 0;
}

int
rps_listen_parse(const char *s, struct rps_listen *out, char *why, size_t why_len)
{
	struct rps_listen l;
	char host[INET6_ADDRSTRLEN + 1], text[INET6_ADDRSTRLEN];
	const char *port;
	size_t n;

	memset(&l, 0, sizeof(l));
	if (s == NULL || *s == '\0') {
		snprintf(why, why_len, "empty: expected %s", RPS_LISTEN_SYNTAX);
		return -EINVAL;
	}
	if (strcmp(s, "off") == 0) {
		*out = l;
		return 0;
	}
	l.on = 1;
	l.family = AF_INET;
	if (strpbrk(s, ":[]") == NULL) { /* a bare port: loopback */
		uint64_t v;

		if (rps_number_parse(s, 0, UINT64_C(1) << 32, &v) == -EINVAL) {
			snprintf(why, why_len, "expected %s", RPS_LISTEN_SYNTAX);
			return -EINVAL;
		}
		if (parse_port(s, &l.port, why, why_len) < 0)
			return -EINVAL;
		snprintf(host, sizeof(host), "127.0.0.1");
	} else {
		if (s[0] == '[') {
			const char *close = strchr(s, ']');

			if (close == NULL || close[1] != ':') {
				snprintf(why, why_len, "expected [IPV6]:PORT (e.g. [::1]:9100)");
				return -EINVAL;
			}
			l.family = AF_INET6;
			s++;
			n = (size_t)(close - s);
			port = close + 2;
		} else {
			const char *colon = strchr(s, ':');

			/* "9100]", "::1:9100", "1.2.3.4:[80]": no single colon outside brackets */
			if (colon == NULL || strchr(colon + 1, ':') != NULL ||
			    strpbrk(s, "[]") != NULL) {
				snprintf(why, why_len, "expected %s; an IPv6 address goes in "
					 "brackets ([::1]:9100)", RPS_LISTEN_SYNTAX);
				return -EINVAL;
			}
			n = (size_t)(colon - s);
			port = colon + 1;
		}
		if (n == 0 || n >= sizeof(host)) {
			snprintf(why, why_len, "%s address before the port: expected %s",
				 n == 0 ? "no" : "too long an", RPS_LISTEN_SYNTAX);
			return -EINVAL;
		}
		memcpy(host, s, n);
		host[n] = '\0';
		if (*port == '\0') {
			snprintf(why, why_len, "no port after the address");
			return -EINVAL;
		}
		if (parse_port(port, &l.port, why, why_len) < 0)
			return -EINVAL;
	}
	if (l.family == AF_INET && strcmp(host, "localhost") == 0)
		snprintf(host, sizeof(host), "127.0.0.1");
	if (inet_pton(l.family, host, l.addr) != 1) {
		snprintf(why, why_len, "'%s' is not a numeric %s address (host names are not "
			 "resolved; localhost means 127.0.0.1)", host,
			 l.family == AF_INET ? "IPv4" : "IPv6");
		return -EINVAL;
	}
	inet_ntop(l.family, l.addr, text, sizeof(text));
	snprintf(l.text, sizeof(l.text), l.family == AF_INET6 ? "[%s]:%u" : "%s:%u", text,
		 l.port);
	*out = l;
	return 0;
}
