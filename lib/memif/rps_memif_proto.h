/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rps_memif_proto.h: the memif wire format (version 2.0, as libmemif, VPP and DPDK's
 * net_memif speak it): the 128-byte control messages on the SOCK_SEQPACKET socket, and the
 * rings and descriptors in the client's shared memory. Written from the protocol's
 * description; the server side only (server.c, tx.c).
 *
 * Roles: the client (memif's "slave") makes the shared memory (regions, sent as memfds) and
 * the rings in it; the server (its "master") maps them. A ring carries packets one way:
 * client to server (C2S, memif's S2M) or server to client (S2C, M2S). On an S2C ring the
 * client posts empty buffers by advancing head (each descriptor's length set to its buffer's
 * size), and the server fills them and advances tail; the server writes only tail, the
 * descriptors' length and flags, and the buffers.
 */
#ifndef RPS_MEMIF_PROTO_H
#define RPS_MEMIF_PROTO_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#define RPS_MEMIF_COOKIE   0x3E31F20u
#define RPS_MEMIF_VERSION  ((2u << 8) | 0u)
#define RPS_MEMIF_NAME_SZ  32
#define RPS_MEMIF_SECRET_SZ 24
#define RPS_MEMIF_REASON_SZ 96

enum rps_memif_msg_type {
	RPS_MEMIF_MSG_NONE,
	RPS_MEMIF_MSG_ACK,
	RPS_MEMIF_MSG_HELLO,       /* server -> client, first */
	RPS_MEMIF_MSG_INIT,        /* client: version, id, mode, secret */
	RPS_MEMIF_MSG_ADD_REGION,  /* client: a region, its memfd in SCM_RIGHTS */
	RPS_MEMIF_MSG_ADD_RING,    /* client: a ring, its eventfd in SCM_RIGHTS */
	RPS_MEMIF_MSG_CONNECT,     /* client: done, map it all */
	RPS_MEMIF_MSG_CONNECTED,   /* server: mapped, link up */
	RPS_MEMIF_MSG_DISCONNECT,  /* either: a reason, then the socket closes */
};

#define RPS_MEMIF_MODE_ETHERNET 0
#define RPS_MEMIF_RING_FLAG_C2S 1  /* ADD_RING flags: the ring goes client to server */
#define RPS_MEMIF_RING_MASK_INT 1  /* ring flags: the reader polls, no eventfd kick */
#define RPS_MEMIF_DESC_NEXT     1  /* descriptor flags: the packet goes on in the next */

struct __attribute__((packed)) rps_memif_msg_hello {
	uint8_t name[RPS_MEMIF_NAME_SZ];
	uint16_t min_version, max_version;
	uint16_t max_region;          /* highest region index the server takes */
	uint16_t max_s2c_ring;        /* highest ring index, each way */
	uint16_t max_c2s_ring;
	uint8_t max_log2_ring_size;
};

struct __attribute__((packed)) rps_memif_msg_init {
	uint16_t version;
	uint32_t id;
	uint8_t mode;
	uint8_t secret[RPS_MEMIF_SECRET_SZ];
	uint8_t name[RPS_MEMIF_NAME_SZ];
};

struct __attribute__((packed)) rps_memif_msg_add_region {
	uint16_t index;
	uint64_t size;
};

struct __attribute__((packed)) rps_memif_msg_add_ring {
	uint16_t flags;
	uint16_t index;
	uint16_t region;
	uint32_t offset;
	uint8_t log2_ring_size;
	uint16_t private_hdr_size;
};

struct __attribute__((packed)) rps_memif_msg_name {   /* CONNECT, CONNECTED */
	uint8_t name[RPS_MEMIF_NAME_SZ];
};

struct __attribute__((packed)) rps_memif_msg_disconnect {
	uint32_t code;
	uint8_t reason[RPS_MEMIF_REASON_SZ];
};

struct __attribute__((packed)) rps_memif_msg {
	uint16_t type;
	union __attribute__((packed)) {
		struct rps_memif_msg_hello hello;
		struct rps_memif_msg_init init;
		struct rps_memif_msg_add_region add_region;
		struct rps_memif_msg_add_ring add_ring;
		struct rps_memif_msg_name connect, connected;
		struct rps_memif_msg_disconnect disconnect;
		uint8_t raw[126];
	};
};
static_assert(sizeof(struct rps_memif_msg) == 128, "a memif message is 128 bytes");

/* A buffer descriptor: where the buffer is (region, offset), its length. Every field is
 * naturally aligned: no packing needed. */
struct rps_memif_desc {
	uint16_t flags;
	uint16_t region;
	uint32_t length;
	uint32_t offset;
	uint32_t metadata;
};
static_assert(sizeof(struct rps_memif_desc) == 16, "a memif descriptor is 16 bytes");

/* A ring's header: cookie, flags and head on the first 64-byte line, tail on the second,
 * then 2^log2_ring_size descriptors. */
struct rps_memif_ring {
	uint32_t cookie;
	uint16_t flags;
	uint16_t head;
	uint8_t pad0[56];
	uint16_t tail;
	uint8_t pad1[62];
	struct rps_memif_desc desc[];
};
static_assert(offsetof(struct rps_memif_ring, tail) == 64, "tail on the second line");
static_assert(offsetof(struct rps_memif_ring, desc) == 128, "descriptors after two lines");

/* Bytes of a ring of 2^log2 descriptors. */
static inline uint64_t
rps_memif_ring_bytes(unsigned int log2)
{
	return sizeof(struct rps_memif_ring) + ((uint64_t)sizeof(struct rps_memif_desc) << log2);
}

#endif /* RPS_MEMIF_PROTO_H */
