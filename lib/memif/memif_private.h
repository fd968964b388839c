/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * memif_private.h: what the hub (server.c) and the send path (tx.c) share: a connection's
 * mapped memory and ring, and the endpoint that publishes it.
 */
#ifndef RPS_MEMIF_PRIVATE_H
#define RPS_MEMIF_PRIVATE_H

#include <stdint.h>
#include <sys/un.h>

#include <rte_common.h>

#include "rps_memif.h"
#include "rps_memif_proto.h"

#define RPS_MEMIF_REGIONS_MAX 8           /* HELLO's max_region + 1 */
#define RPS_MEMIF_LOG2_RING_MAX 14
#define RPS_MEMIF_REGION_SIZE_MAX (1ull << 32) /* offsets are 32-bit */

struct rps_memif_region {
	uint8_t *addr;          /* mapped, NULL: not yet */
	uint64_t size;
	int fd;
};

/*
 * A client's connection. The hub fills everything above `tx_tail` during the handshake,
 * then publishes the connection (rps_memif.conn, release); from then on that part is
 * read-only until the hub unpublishes it and a QSBR grace period has passed. The sender's
 * part is written by the one sender of the moment (rps_memif_tx()); the hub reads `broken`
 * (relaxed) to send a client away.
 */
struct rps_memif_conn {
	struct rps_memif_region region[RPS_MEMIF_REGIONS_MAX];
	uint16_t nb_regions;
	/* the S2C ring 0 (what we send on), as ADD_RING gave it, checked at CONNECT */
	struct rps_memif_ring *tx;
	uint16_t tx_region;
	uint32_t tx_offset;
	uint8_t tx_log2;
	uint16_t tx_mask;
	int tx_efd;             /* the client's eventfd for it, -1: none */
	/* the C2S ring 0 (what the client returns, rps_memif_rx()), when it gave one */
	struct rps_memif_ring *rx;    /* NULL: none */
	uint16_t rx_region;
	uint32_t rx_offset;
	uint8_t rx_log2;
	uint16_t rx_mask;
	int c2s_efd;            /* its eventfd (we poll: masked, never waited on), -1: none */
	uint64_t token;         /* the grace period it waits for once unpublished */
	struct rps_memif_conn *next_retired;

	/* the sender's */
	uint16_t tx_tail __rte_cache_aligned; /* slots filled: our copy of the ring's tail */
	int broken;             /* the ring or a descriptor was inconsistent: send no more
				 * (the sender or the receiver sets it; the hub sends the
				 * client away) */

	/* the receiver's (rps_memif_rx(): one at a time, maybe not the sender's thread) */
	uint16_t rx_tail __rte_cache_aligned; /* slots taken: our copy of the ring's tail */
};

enum rps_memif_state {
	RPS_MEMIF_IDLE,          /* no client */
	RPS_MEMIF_WAIT_INIT,     /* HELLO sent */
	RPS_MEMIF_WAIT_CONNECT,  /* INIT taken: regions, rings, then CONNECT */
	RPS_MEMIF_CONNECTED,
};

struct rps_memif {
	struct rps_memif_conn *conn;   /* published (hub writes, release; senders acquire) */
	struct rps_memif_hub *hub;
	/* the hub's alone */
	unsigned int index;
	int lfd, cfd;                  /* listening socket, the client's (-1) */
	enum rps_memif_state state;
	uint64_t deadline;             /* the handshake's end (TSC), while not connected */
	struct rps_memif_conn *pending; /* the connection being built */
	uint32_t id;
	uint32_t handshake_ms;
	uint8_t secret[RPS_MEMIF_SECRET_SZ];
	int has_secret;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char name[RPS_MEMIF_NAME_SZ];
	char peer[64];                 /* "pid 123 uid 0", for messages */
	struct rps_memif_stats st;     /* hub writes (relaxed atomics) */
} __rte_cache_aligned;

#endif /* RPS_MEMIF_PRIVATE_H */
