/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * memif_private.h: what the hub (server.c) and the send path (tx.c) share: a connection's
 * mapped memory and ring, and the endpoint that publishes it.
 */
#ifndef RPS_MEMIF_PRIVATE_H
#define RPS_MEMIF_PRIVATE_H

#include <stdint.h>
#include <sys/un.h>

#include <rte_branch_prediction.h>
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

/* One ring one way, as ADD_RING gave it (hub), checked at CONNECT. */
struct rps_memif_qring {
	struct rps_memif_ring *ring;  /* in the client's memory; NULL: not given */
	uint16_t region;
	uint32_t offset;
	uint8_t log2;
	uint16_t mask;
	int efd;                      /* the client's eventfd for it, -1: none */
};

/* A ring's user side: the one sender (S2C) or receiver (C2S) of the moment writes it. */
struct rps_memif_qtail {
	uint16_t tail;                /* slots filled (S2C) or taken (C2S): our copy of the
				       * ring's tail */
} __rte_cache_aligned;

/*
 * A client's connection. The hub fills everything above `tx` during the handshake, then
 * publishes the connection (rps_memif.conn, release); from then on that part is read-only
 * until the hub unpublishes it and a QSBR grace period has passed. Each ring's tail is
 * written by its one sender or receiver of the moment (rps_memif_tx(), rps_memif_rx());
 * `broken` by any of them, read (relaxed) by the hub to send the client away.
 */
struct rps_memif_conn {
	struct rps_memif_region region[RPS_MEMIF_REGIONS_MAX];
	uint16_t nb_regions;
	struct rps_memif_qring s2c[RPS_MEMIF_RINGS_MAX];  /* what we send on */
	struct rps_memif_qring c2s[RPS_MEMIF_RINGS_MAX];  /* what the client returns on */
	uint16_t nb_s2c, nb_c2s;      /* rings given each way (indexes 0 to n - 1, at CONNECT) */
	uint64_t token;               /* the grace period it waits for once unpublished */
	struct rps_memif_conn *next_retired;

	struct rps_memif_qtail tx[RPS_MEMIF_RINGS_MAX];
	struct rps_memif_qtail rx[RPS_MEMIF_RINGS_MAX];
	int broken __rte_cache_aligned; /* a ring or a descriptor was inconsistent */
};

/*
 * The slots ready on ring @p q from @p tail: what the client made ready up to its head
 * (its stores before its head store: acquire). More than the ring holds marks the client
 * broken (the hub sends it away) and gives 0. For the one sender or receiver of the ring.
 */
static inline uint16_t
rps_memif_ring_avail(struct rps_memif_conn *c, const struct rps_memif_qring *q, uint16_t tail)
{
	const uint16_t avail = (uint16_t)(__atomic_load_n(&q->ring->head, __ATOMIC_ACQUIRE) -
					  tail);

	if (unlikely(avail > (uint32_t)q->mask + 1)) {
		__atomic_store_n(&c->broken, 1, __ATOMIC_RELAXED);
		return 0;
	}
	return avail;
}

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
	uint16_t rings;                /* offered each way */
	int returns;                   /* the client must open them all each way */
	uint8_t secret[RPS_MEMIF_SECRET_SZ];
	int has_secret;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char name[RPS_MEMIF_NAME_SZ];
	char peer[64];                 /* "pid 123 uid 0", for messages */
	struct rps_memif_stats st;     /* hub writes (relaxed atomics) */
} __rte_cache_aligned;

#endif /* RPS_MEMIF_PRIVATE_H */
