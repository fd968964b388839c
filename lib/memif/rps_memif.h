/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rps_memif.h: dpdk-rps's own memif server: consumer processes (any memif client: DPDK's
 * net_memif, libmemif, VPP) connect to a socket each and receive copies of packets in their
 * shared memory.
 *
 * Why not DPDK's net_memif in server role: its control runs on EAL's interrupt thread,
 * which unmaps a departed client's memory while a worker may be inside rte_eth_tx_burst()
 * on it (SIGSEGV), panics when a client leaves in the middle of its handshake, lets a
 * client hold its only slot for ever with a handshake it never finishes, and writes
 * wherever the client's descriptors point. Here:
 *  - every step of a client's life (accept, handshake, up, down, gone) runs on the hub's
 *    own control thread; a handshake not finished in handshake_ms is ended and counted;
 *  - a client's memory is mapped only from a sealed memfd (F_SEAL_SHRINK: it cannot shrink
 *    under us into SIGBUS) and unmapped only after a grace period of the senders' QSBR, so
 *    no sender is still writing into it;
 *  - the sender checks every descriptor the client wrote (region, offset, length within
 *    the region, ring indexes within the ring) before it writes; a client whose ring is
 *    inconsistent is disconnected and counted, never followed;
 *  - the socket is made 0600 (or the given mode) whatever the umask; an optional secret.
 *
 * A client may also return packets, on its client-to-server ring (rps_memif_rx()): each is
 * copied out of its memory into mbufs of ours after the same checks, and its buffers given
 * back; a client that gives no such ring only receives.
 *
 * Threads: one hub thread (rps_memif_hub_start()) serves every endpoint's socket. Senders
 * (workers) call rps_memif_tx(): for one ring, one sender at a time (the caller's own
 * endpoint, or under its lock); receivers call rps_memif_rx(): one at a time per ring, the
 * sender's thread or another. Each reports quiescent states on the QSBR given to
 * rps_memif_hub_start() outside those calls. Statistics are read from any thread.
 */
#ifndef RPS_MEMIF_H
#define RPS_MEMIF_H

#include <stdint.h>
#include <sys/types.h>

#include <rte_mbuf.h>
#include <rte_rcu_qsbr.h>

struct rps_memif;      /* one socket: at most one client at a time */
struct rps_memif_hub;  /* the thread and the endpoints it serves */

#define RPS_MEMIF_ENDPOINTS_MAX 64
#define RPS_MEMIF_HANDSHAKE_MS 2000u
#define RPS_MEMIF_RX_PKT_MAX 65535u  /* a returned packet longer than this is a broken ring */
#define RPS_MEMIF_RINGS_MAX 8u          /* rings each way an endpoint may offer */

/** An endpoint's settings (rps_memif_add()). */
struct rps_memif_conf {
	const char *path;       /* the socket file: must not exist */
	uint32_t id;            /* the interface id its client asks for */
	const char *secret;     /* NULL or "": none; else at most 24 bytes the client must give */
	mode_t mode;            /* the socket's mode: 0600, 0660 */
	gid_t gid;              /* its group, (gid_t)-1: the process's */
	uint32_t handshake_ms;  /* 0: RPS_MEMIF_HANDSHAKE_MS */
	const char *name;       /* our name in the handshake (at most 31 bytes shown) */
	uint16_t rings;         /* rings offered each way, 1 to RPS_MEMIF_RINGS_MAX (0: 1); a
				 * client must open that many to us */
	int returns;            /* and as many back: a client that does not is refused */
};

/** An endpoint's counts (hub-written; read at any time, each value alone consistent). */
struct rps_memif_stats {
	int up;                 /* a client is connected now */
	uint64_t accepted;      /* connections accepted: each ends as one of refused,
				 * aborted, timeouts, rejected or connects (or is in its
				 * handshake now) */
	uint64_t connects;      /* handshakes completed */
	uint64_t disconnects;   /* connected clients that left or were sent away: connects
				 * less disconnects is up */
	uint64_t refused;       /* clients turned away at once: the slot was taken */
	uint64_t aborted;       /* clients that left during their handshake */
	uint64_t timeouts;      /* handshakes not finished in time */
	uint64_t rejected;      /* handshakes refused: bad message, version, id, secret,
				 * region or ring */
	uint64_t broken;        /* connected clients sent away for an inconsistent ring, a
				 * descriptor outside their memory or a message out of turn
				 * (counted in disconnects too) */
	uint64_t kicks_drained; /* a client's eventfd found near its limit and emptied, so a
				 * sender's wake-up write cannot block */
};

/** A hub; @p logtype: rte_log's type for its messages, @p label their prefix. NULL: no
 * memory (rte_errno). */
struct rps_memif_hub *rps_memif_hub_create(int logtype, const char *label);

/**
 * Make an endpoint: bind and listen on conf->path (mode conf->mode whatever the umask).
 * Clients may connect from now on; they are served once the hub starts.
 * @return 0, -EINVAL (bad conf, too many endpoints), -ENAMETOOLONG, -EADDRINUSE (the path
 *         exists), or another -errno of socket(), bind(), chmod(), chown().
 */
int rps_memif_add(struct rps_memif_hub *h, const struct rps_memif_conf *conf,
		  struct rps_memif **out);

/**
 * Start the hub's thread. @p qsbr: every thread that calls rps_memif_tx() reports on it
 * (registered, online while it may send); a departed client's memory is unmapped once they
 * all passed a quiescent state. NULL: unmapped at once (only when no sender runs).
 */
int rps_memif_hub_start(struct rps_memif_hub *h, struct rte_rcu_qsbr *qsbr);

/** Stop the hub's thread (joined): from now on nothing is unmapped, connected clients stay
 * mapped until rps_memif_hub_destroy(). Idempotent. */
void rps_memif_hub_stop(struct rps_memif_hub *h);

/** Stop, and send every client away (counted: a disconnect, or aborted in its handshake)
 * and unmap its memory; the sockets stay, refusing nothing, serving no one. No sender may
 * run. NULL: nothing. */
void rps_memif_hub_shutdown(struct rps_memif_hub *h);

/** rps_memif_hub_shutdown(), then close and remove every socket file and free @p h. */
void rps_memif_hub_destroy(struct rps_memif_hub *h);

/**
 * Send up to @p n packets to @p m's client on its ring @p ring, copied into its buffers;
 * the ones sent are freed. @return how many were sent, from the front: 0 when no client is
 * connected (see rps_memif_up()), @p ring is not one of the endpoint's, or the ring is full.
 * One sender at a time per ring.
 */
uint16_t rps_memif_tx_ring(struct rps_memif *m, uint16_t ring, struct rte_mbuf **pkts,
			   uint16_t n);

/** rps_memif_tx_ring() on ring 0. */
static inline uint16_t
rps_memif_tx(struct rps_memif *m, struct rte_mbuf **pkts, uint16_t n)
{
	return rps_memif_tx_ring(m, 0, pkts, n);
}

/**
 * Take up to @p n packets @p m's client returned on its client-to-server ring @p ring, each copied
 * into a chain of mbufs from @p mp (in the client's order), the client's buffers given back
 * (the ring's tail). @return how many, from pkts[0]: 0 when no client is connected, it gave
 * no such ring, nothing is there, a packet's descriptors are not all written yet, or @p mp
 * is empty (nothing taken: the packet waits). A descriptor outside the client's memory, an
 * empty one, more filled than the ring holds or a packet over RPS_MEMIF_RX_PKT_MAX bytes
 * sends the client away (counted broken); nothing past it is taken. One receiver at a time
 * per ring.
 */
uint16_t rps_memif_rx(struct rps_memif *m, uint16_t ring, struct rte_mempool *mp,
		      struct rte_mbuf **pkts, uint16_t n);

/**
 * Slots of @p m's server-to-client rings filled and not yet taken by its client (the
 * client's consumption read from its re-posted buffers: head less the ring's size, as
 * memif clients post every buffer they took back at once; a client that posts fewer looks
 * slower). 0 with no client. Any thread; a read of the client's ring headers.
 */
uint32_t rps_memif_tx_unread(const struct rps_memif *m);

/** Whether @p m's client is connected and returns packets (gave client-to-server rings). */
int rps_memif_returns(const struct rps_memif *m);

/** Whether @p m has a connected client (a relaxed read). */
int rps_memif_up(const struct rps_memif *m);

/** @p m's counts. */
void rps_memif_stats_get(const struct rps_memif *m, struct rps_memif_stats *s);

/** The socket path @p m listens on. */
const char *rps_memif_path(const struct rps_memif *m);

#endif /* RPS_MEMIF_H */
