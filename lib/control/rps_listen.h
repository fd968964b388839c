/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rps_listen.h: the address a dpdk-rps server listens on (--metrics, the file's metrics key),
 * parsed one way for the command line and the configuration file.
 *
 * Syntax: "PORT" (on 127.0.0.1: loopback unless asked otherwise), "IPV4:PORT",
 * "[IPV6]:PORT", "localhost:PORT" (127.0.0.1), or "off". Addresses are numeric: no host
 * name is resolved (a name would make start-up depend on DNS). PORT is 0..65535 in the one
 * number syntax (rps_number.h); 0 lets the kernel pick a free port (the program says which).
 *
 * Pure, thread-safe.
 */
#ifndef RPS_LISTEN_H
#define RPS_LISTEN_H

#include <stddef.h>
#include <stdint.h>

/** Where to listen. */
struct rps_listen {
	int on;               /* 0: "off" (nothing else is set) */
	int family;           /* AF_INET or AF_INET6 */
	uint8_t addr[16];     /* network order: 4 bytes for AF_INET, 16 for AF_INET6 */
	uint16_t port;        /* host order; 0 = any free port */
	char text[64];        /* normalised: "127.0.0.1:9100", "[::1]:9100" */
};

/** What rps_listen_parse() accepts, for messages. */
#define RPS_LISTEN_SYNTAX "PORT (on 127.0.0.1), IPV4:PORT, [IPV6]:PORT or off"

/**
 * Parse @p s into @p out.
 * @return 0; or -EINVAL with a message in @p why (without the value or the option's name,
 *   which the caller adds) and @p out untouched.
 */
int rps_listen_parse(const char *s, struct rps_listen *out, char *why, size_t why_len);

#endif /* RPS_LISTEN_H */
