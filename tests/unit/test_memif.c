/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_memif.c: lib/memif, the memif server, against a client written here to do what a
 * broken or hostile one would: leave at every step of the handshake, stall, give a wrong
 * secret, an unsealed or short region, a ring outside its region, descriptors outside its
 * memory, more posted buffers than its ring holds, garbage, a full eventfd; and against a
 * well-behaved one: packets (chained, larger than a buffer) land byte for byte, the ring's
 * tail and the eventfd say so, and a departed client's memory stays mapped until the sender
 * has passed a quiescent state. (The real clients, DPDK's net_memif in dpdk-testpmd and
 * examples/consumer, are in the integration tests.)
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_rcu_qsbr.h>

#include "rps_memif.h"
#include "rps_memif_proto.h"
#include "test_common.h"

#define LOG2 4u                     /* 16 slots a ring */
#define SLOTS (1u << LOG2)
#define BUF 256u                    /* a client buffer: small, so packets chain */
#define RING_BYTES (128u + 16u * SLOTS)
#define BUFS_OFF (2u * RING_BYTES)  /* C2S ring, S2C ring, the S2C buffers, the C2S ones, */
#define C2S_OFF (BUFS_OFF + SLOTS * BUF)
#define RINGS1_OFF (C2S_OFF + SLOTS * BUF) /* then the rings of index 1 (C2S, S2C), sharing */
#define REGION (RINGS1_OFF + 2u * RING_BYTES) /* the buffers of index 0's */
#define CANARY 4096u                /* bytes of the memfd past the region it declares */

static char dir[64];
static unsigned int seq;
static struct rte_rcu_qsbr *qsbr;

struct client {
	int fd, memfd, efd_s2c, efd_c2s;
	uint8_t *mem;
	struct rps_memif_ring *s2c, *c2s;   /* index 0's */
	struct rps_memif_ring *s2c1, *c2s1; /* index 1's */
	int efd_s2c1, efd_c2s1;
	uint16_t max_ring;                  /* the highest ring index HELLO offered */
};

struct hub {
	struct rps_memif_hub *h;
	struct rps_memif *m;
	char path[108];
};

/* ---- the server ---- */

static void
hub_start(struct hub *t, const char *secret, uint32_t handshake_ms, mode_t mode,
	  uint16_t rings, int returns)
{
	struct rps_memif_conf conf = {
		.path = t->path, .id = 0, .secret = secret, .mode = mode, .gid = (gid_t)-1,
		.handshake_ms = handshake_ms, .name = "ut", .rings = rings, .returns = returns,
	};

	snprintf(t->path, sizeof(t->path), "%s/s%u.sock", dir, seq++);
	t->h = rps_memif_hub_create(RTE_LOGTYPE_USER1, "ut memif ");
	CU_ASSERT_PTR_NOT_NULL_FATAL(t->h);
	CU_ASSERT_EQUAL_FATAL(rps_memif_add(t->h, &conf, &t->m), 0);
	CU_ASSERT_EQUAL_FATAL(rps_memif_hub_start(t->h, qsbr), 0);
}

static void
hub_up(struct hub *t, const char *secret, uint32_t handshake_ms, mode_t mode)
{
	hub_start(t, secret, handshake_ms, mode, 0, 0);
}

static void
hub_down(struct hub *t)
{
	rps_memif_hub_destroy(t->h);
	CU_ASSERT_EQUAL(access(t->path, F_OK), -1); /* the socket file is gone */
}

static struct rps_memif_stats
stats(const struct hub *t)
{
	struct rps_memif_stats s;

	rps_memif_stats_get(t->m, &s);
	return s;
}

/* Wait (2 s at most) for @p field of the stats to reach @p want. */
#define WAIT_STAT(t, field, want) do { \
	const uint64_t _want = (want); \
	for (int _i = 0; _i < 2000 && stats(t).field != _want; _i++) \
		usleep(1000); \
	CU_ASSERT_EQUAL(stats(t).field, _want); \
} while (0)

/* ---- the client ---- */

static int
cl_send(int fd, struct rps_memif_msg *msg, int pass)
{
	char ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = msg, .iov_len = sizeof(*msg) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (pass >= 0) {
		struct cmsghdr *cm;

		memset(ctl, 0, sizeof(ctl));
		mh.msg_control = ctl;
		mh.msg_controllen = sizeof(ctl);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &pass, sizeof(int));
	}
	return sendmsg(fd, &mh, MSG_NOSIGNAL) == sizeof(*msg) ? 0 : -1;
}

/* The next message (2 s at most): its type, 0 on end of file or time out. */
static int
cl_recv(int fd, struct rps_memif_msg *msg)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	memset(msg, 0, sizeof(*msg));
	if (poll(&p, 1, 2000) != 1 || recv(fd, msg, sizeof(*msg), 0) != sizeof(*msg))
		return 0;
	return msg->type;
}

/* A DISCONNECT whose reason starts with @p reason, then end of file. */
static int
cl_sent_away(int fd, const char *reason)
{
	struct rps_memif_msg msg;

	if (cl_recv(fd, &msg) != RPS_MEMIF_MSG_DISCONNECT) {
		printf("  no DISCONNECT (type %u)\n", msg.type);
		return 0;
	}
	if (strncmp((const char *)msg.disconnect.reason, reason, strlen(reason)) != 0) {
		printf("  DISCONNECT '%.96s', expected '%s'\n", msg.disconnect.reason, reason);
		return 0;
	}
	return cl_recv(fd, &msg) == 0;
}

static int
cl_connect(const struct hub *t)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", t->path);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL_FATAL(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return fd;
}

/* Connect and take HELLO. */
static void
cl_open(struct client *c, const struct hub *t)
{
	struct rps_memif_msg msg;

	memset(c, 0, sizeof(*c));
	c->memfd = c->efd_s2c = c->efd_c2s = c->efd_s2c1 = c->efd_c2s1 = -1;
	c->fd = cl_connect(t);
	CU_ASSERT_EQUAL_FATAL(cl_recv(c->fd, &msg), RPS_MEMIF_MSG_HELLO);
	c->max_ring = msg.hello.max_s2c_ring;
	CU_ASSERT_EQUAL(msg.hello.max_c2s_ring, msg.hello.max_s2c_ring);
	CU_ASSERT_EQUAL(msg.hello.min_version, RPS_MEMIF_VERSION);
}

static int
cl_init(struct client *c, const char *secret)
{
	struct rps_memif_msg msg;

	memset(&msg, 0, sizeof(msg));
	msg.type = RPS_MEMIF_MSG_INIT;
	msg.init.version = RPS_MEMIF_VERSION;
	msg.init.mode = RPS_MEMIF_MODE_ETHERNET;
	if (secret != NULL)
		memcpy(msg.init.secret, secret, strlen(secret));
	if (cl_send(c->fd, &msg, -1) < 0)
		return -1;
	return cl_recv(c->fd, &msg) == RPS_MEMIF_MSG_ACK ? 0 : -1;
}

/* The client's memory: a memfd of REGION + CANARY bytes (the canary filled with 0xa5),
 * sealed against shrinking when @p seal; the S2C ring's descriptors at its buffers. */
static void
cl_memory(struct client *c, int seal)
{
	c->memfd = memfd_create("rps_ut_region", MFD_ALLOW_SEALING | MFD_CLOEXEC);
	CU_ASSERT_FATAL(c->memfd >= 0);
	CU_ASSERT_EQUAL_FATAL(ftruncate(c->memfd, REGION + CANARY), 0);
	if (seal)
		CU_ASSERT_EQUAL_FATAL(fcntl(c->memfd, F_ADD_SEALS, F_SEAL_SHRINK), 0);
	c->mem = mmap(NULL, REGION + CANARY, PROT_READ | PROT_WRITE, MAP_SHARED, c->memfd, 0);
	CU_ASSERT_FATAL(c->mem != MAP_FAILED);
	memset(c->mem + REGION, 0xa5, CANARY);
	for (unsigned int r = 0; r < 4; r++) {
		struct rps_memif_ring *ring = (struct rps_memif_ring *)(c->mem + (r < 2 ? 0 :
						RINGS1_OFF - 2 * RING_BYTES) + r * RING_BYTES);

		ring->cookie = RPS_MEMIF_COOKIE;
		ring->flags = 0;
		ring->head = ring->tail = 0;
	}
	c->c2s = (struct rps_memif_ring *)c->mem;
	c->s2c = (struct rps_memif_ring *)(c->mem + RING_BYTES);
	c->c2s1 = (struct rps_memif_ring *)(c->mem + RINGS1_OFF);
	c->s2c1 = (struct rps_memif_ring *)(c->mem + RINGS1_OFF + RING_BYTES);
	for (unsigned int i = 0; i < SLOTS; i++) {
		c->s2c->desc[i].region = c->s2c1->desc[i].region = 0;
		c->s2c->desc[i].offset = c->s2c1->desc[i].offset = BUFS_OFF + i * BUF;
		c->s2c->desc[i].length = c->s2c1->desc[i].length = BUF;
	}
	c->efd_s2c = eventfd(0, EFD_NONBLOCK);
	c->efd_c2s = eventfd(0, EFD_NONBLOCK);
	c->efd_s2c1 = eventfd(0, EFD_NONBLOCK);
	c->efd_c2s1 = eventfd(0, EFD_NONBLOCK);
}

static int
cl_region(struct client *c, uint64_t size)
{
	struct rps_memif_msg msg;

	memset(&msg, 0, sizeof(msg));
	msg.type = RPS_MEMIF_MSG_ADD_REGION;
	msg.add_region.index = 0;
	msg.add_region.size = size;
	if (cl_send(c->fd, &msg, c->memfd) < 0)
		return -1;
	return cl_recv(c->fd, &msg) == RPS_MEMIF_MSG_ACK ? 0 : -1;
}

static int
cl_ring_index(struct client *c, int c2s, uint16_t index, uint32_t offset)
{
	struct rps_memif_msg msg;
	const int efd = index ? (c2s ? c->efd_c2s1 : c->efd_s2c1) : (c2s ? c->efd_c2s : c->efd_s2c);

	memset(&msg, 0, sizeof(msg));
	msg.type = RPS_MEMIF_MSG_ADD_RING;
	msg.add_ring.flags = c2s ? RPS_MEMIF_RING_FLAG_C2S : 0;
	msg.add_ring.index = index;
	msg.add_ring.region = 0;
	msg.add_ring.offset = offset;
	msg.add_ring.log2_ring_size = LOG2;
	if (cl_send(c->fd, &msg, efd) < 0)
		return -1;
	return cl_recv(c->fd, &msg) == RPS_MEMIF_MSG_ACK ? 0 : -1;
}

static int
cl_ring(struct client *c, int c2s, uint32_t offset)
{
	return cl_ring_index(c, c2s, 0, offset);
}

static int
cl_connect_msg(struct client *c)
{
	struct rps_memif_msg msg;

	memset(&msg, 0, sizeof(msg));
	msg.type = RPS_MEMIF_MSG_CONNECT;
	if (cl_send(c->fd, &msg, -1) < 0)
		return -1;
	return cl_recv(c->fd, &msg) == RPS_MEMIF_MSG_CONNECTED ? 0 : -1;
}

/* The whole handshake of a well-behaved client (with its C2S ring when @p c2s); its
 * buffers posted (head = SLOTS). */
static void
cl_up_rings(struct client *c, const struct hub *t, int c2s)
{
	cl_open(c, t);
	cl_memory(c, 1);
	CU_ASSERT_EQUAL_FATAL(cl_init(c, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(cl_region(c, REGION), 0);
	if (c2s)
		CU_ASSERT_EQUAL_FATAL(cl_ring(c, 1, 0), 0);
	CU_ASSERT_EQUAL_FATAL(cl_ring(c, 0, RING_BYTES), 0);
	CU_ASSERT_EQUAL_FATAL(cl_connect_msg(c), 0);
	__atomic_store_n(&c->s2c->head, SLOTS, __ATOMIC_RELEASE);
	CU_ASSERT_TRUE(rps_memif_up(t->m));
}

static void
cl_up(struct client *c, const struct hub *t)
{
	cl_up_rings(c, t, 1);
}

static void
cl_close(struct client *c)
{
	if (c->mem != NULL)
		munmap(c->mem, REGION + CANARY);
	c->mem = NULL;
	for (int *fd = &c->fd; fd <= &c->efd_c2s; fd++) {
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
	}
	for (int *fd = &c->efd_s2c1; fd <= &c->efd_c2s1; fd++) {
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
	}
}

static int
canary_intact(const struct client *c)
{
	for (unsigned int i = 0; i < CANARY; i++)
		if (c->mem[REGION + i] != 0xa5)
			return 0;
	return 1;
}

/* Mappings of the clients' memfds in this process, from /proc/self/maps. */
static unsigned int
region_maps(void)
{
	char line[512];
	unsigned int n = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL)
		n += strstr(line, "rps_ut_region") != NULL;
	fclose(f);
	return n;
}

/* A packet of @p len bytes, byte i = (i * 7 + seed). */
static struct rte_mbuf *
pkt(unsigned int len, unsigned int seed)
{
	uint8_t data[2048];

	for (unsigned int i = 0; i < len; i++)
		data[i] = (uint8_t)(i * 7 + seed);
	return ut_mbuf(data, (uint16_t)len);
}

/* ---- tests ---- */

/* Packets land byte for byte: one of 60 bytes, one of 600 (3 buffers, chained), a
 * two-segment one; the tail, the lengths and NEXT flags, one eventfd kick a burst; a ring
 * with 3 buffers posted takes what fits, whole packets only. */
static void
deliver(void)
{
	struct hub t;
	struct client c;
	struct rte_mbuf *m[4];
	uint8_t data[700];
	uint64_t kicks = 0;

	hub_up(&t, NULL, 0, 0600);
	cl_up(&c, &t);
	for (unsigned int i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7 + 3);
	m[0] = pkt(60, 1);
	m[1] = pkt(600, 2);
	m[2] = ut_mbuf_split(data, 300, 100);
	CU_ASSERT_EQUAL(rps_memif_tx(t.m, m, 3), 3);
	CU_ASSERT_EQUAL(__atomic_load_n(&c.s2c->tail, __ATOMIC_ACQUIRE), 1 + 3 + 2);
	/* slot 0: the 60 bytes; 1-3: 256 + 256 + 88, NEXT on the first two; 4-5: 256 + 44 */
	CU_ASSERT_EQUAL(c.s2c->desc[0].length, 60);
	CU_ASSERT_EQUAL(c.s2c->desc[0].flags, 0);
	CU_ASSERT_TRUE(c.s2c->desc[1].flags == RPS_MEMIF_DESC_NEXT &&
		       c.s2c->desc[2].flags == RPS_MEMIF_DESC_NEXT && c.s2c->desc[3].flags == 0);
	CU_ASSERT_TRUE(c.s2c->desc[1].length == BUF && c.s2c->desc[2].length == BUF &&
		       c.s2c->desc[3].length == 600 - 2 * BUF);
	CU_ASSERT_TRUE(c.s2c->desc[4].length == BUF && c.s2c->desc[5].length == 300 - BUF);
	for (unsigned int i = 0; i < 60; i++)
		CU_ASSERT_EQUAL_FATAL(c.mem[BUFS_OFF + i], (uint8_t)(i * 7 + 1));
	for (unsigned int i = 0; i < 600; i++)
		CU_ASSERT_EQUAL_FATAL(c.mem[BUFS_OFF + (1 + i / BUF) * BUF + i % BUF],
				      (uint8_t)(i * 7 + 2));
	for (unsigned int i = 0; i < 300; i++)
		CU_ASSERT_EQUAL_FATAL(c.mem[BUFS_OFF + (4 + i / BUF) * BUF + i % BUF], data[i]);
	CU_ASSERT_EQUAL(read(c.efd_s2c, &kicks, sizeof(kicks)), (ssize_t)sizeof(kicks));
	CU_ASSERT_EQUAL(kicks, 1);
	/* interrupts masked by the client: no kick */
	c.s2c->flags = RPS_MEMIF_RING_MASK_INT;
	m[0] = pkt(10, 4);
	CU_ASSERT_EQUAL(rps_memif_tx(t.m, m, 1), 1);
	CU_ASSERT_EQUAL(read(c.efd_s2c, &kicks, sizeof(kicks)), -1);
	/* 7 slots used; post 3 more than used (head = 10): a 60-byte packet, then a 600 one
	 * that needs 3 slots where 2 are left: one sent, the rest refused, nothing freed */
	__atomic_store_n(&c.s2c->head, 10, __ATOMIC_RELEASE);
	m[0] = pkt(60, 5);
	m[1] = pkt(600, 6);
	m[2] = pkt(60, 7);
	CU_ASSERT_EQUAL(rps_memif_tx(t.m, m, 3), 1);
	CU_ASSERT_EQUAL(__atomic_load_n(&c.s2c->tail, __ATOMIC_ACQUIRE), 8);
	rte_pktmbuf_free(m[1]);
	rte_pktmbuf_free(m[2]);
	CU_ASSERT_TRUE(canary_intact(&c));
	CU_ASSERT_EQUAL(stats(&t).connects, 1);
	cl_close(&c);
	WAIT_STAT(&t, up, 0);
	CU_ASSERT_EQUAL(stats(&t).disconnects, 1);
	m[0] = pkt(60, 8);
	CU_ASSERT_EQUAL(rps_memif_tx(t.m, m, 1), 0); /* no client: nothing taken */
	rte_pktmbuf_free(m[0]);
	hub_down(&t);
}

/* A descriptor pointing past the region, or one with no room, or more posted than the ring
 * holds: nothing written outside, the client sent away and counted broken. */
static void
bad_descriptors(void)
{
	for (unsigned int kind = 0; kind < 4; kind++) {
		struct hub t;
		struct client c;
		struct rte_mbuf *m = pkt(200, 9);

		hub_up(&t, NULL, 0, 0600);
		cl_up(&c, &t);
		switch (kind) {
		case 0: /* into the canary past the declared region */
			c.s2c->desc[0].offset = REGION - 100;
			break;
		case 1: /* a region it never gave */
			c.s2c->desc[0].region = 1;
			break;
		case 2: /* offset + length wraps 32 bits */
			c.s2c->desc[0].offset = 0xffffff00u;
			c.s2c->desc[0].length = 0x200;
			break;
		default: /* 17 buffers posted on a ring of 16 */
			__atomic_store_n(&c.s2c->head, SLOTS + 1, __ATOMIC_RELEASE);
			break;
		}
		CU_ASSERT_EQUAL(rps_memif_tx(t.m, &m, 1), 0);
		CU_ASSERT_TRUE(canary_intact(&c));
		CU_ASSERT_TRUE(cl_sent_away(c.fd, "Bad ring or descriptor"));
		WAIT_STAT(&t, broken, 1);
		CU_ASSERT_FALSE(rps_memif_up(t.m));
		CU_ASSERT_EQUAL(rps_memif_tx(t.m, &m, 1), 0);
		rte_pktmbuf_free(m);
		cl_close(&c);
		hub_down(&t);
	}
}

/* A client leaves at each step of the handshake (and a departed one never blocks the
 * next): counted aborted each time, the slot free again; then one connects. */
static void
leave_at_every_step(void)
{
	struct hub t;
	struct client c;

	hub_up(&t, NULL, 0, 0600);
	for (unsigned int step = 0; step < 6; step++) {
		if (step == 0) {
			int fd = cl_connect(&t); /* before HELLO is even read */

			close(fd);
		} else {
			cl_open(&c, &t);
			cl_memory(&c, 1);
			if (step >= 2)
				CU_ASSERT_EQUAL(cl_init(&c, NULL), 0);
			if (step >= 3)
				CU_ASSERT_EQUAL(cl_region(&c, REGION), 0);
			if (step >= 4)
				CU_ASSERT_EQUAL(cl_ring(&c, 1, 0), 0);
			if (step >= 5)
				CU_ASSERT_EQUAL(cl_ring(&c, 0, RING_BYTES), 0);
			cl_close(&c);
		}
		WAIT_STAT(&t, aborted, step + 1);
	}
	cl_up(&c, &t);
	CU_ASSERT_EQUAL(stats(&t).accepted, 7);
	cl_close(&c);
	WAIT_STAT(&t, disconnects, 1);
	hub_down(&t);
}

/* INIT, then silence: sent away when the handshake's time is up, and the slot is free. */
static void
stalled_handshake(void)
{
	struct hub t;
	struct client c, d;
	const uint64_t t0 = rte_get_timer_cycles();
	double ms;

	hub_up(&t, NULL, 200, 0600);
	cl_open(&c, &t);
	CU_ASSERT_EQUAL(cl_init(&c, NULL), 0);
	CU_ASSERT_TRUE(cl_sent_away(c.fd, "Handshake timed out"));
	ms = (double)(rte_get_timer_cycles() - t0) * 1000.0 / (double)rte_get_timer_hz();
	CU_ASSERT_TRUE(ms >= 180 && ms < 1000);
	WAIT_STAT(&t, timeouts, 1);
	cl_close(&c);
	cl_up(&d, &t);
	cl_close(&d);
	hub_down(&t);
}

/* One client at a time: a second is told at once and closed, the first stays up. */
static void
busy(void)
{
	struct hub t;
	struct client c;
	int fd;

	hub_up(&t, NULL, 0, 0600);
	cl_up(&c, &t);
	fd = cl_connect(&t);
	CU_ASSERT_TRUE(cl_sent_away(fd, "Already connected"));
	close(fd);
	WAIT_STAT(&t, refused, 1);
	CU_ASSERT_TRUE(rps_memif_up(t.m));
	cl_close(&c);
	hub_down(&t);
}

/* The secret: none or a wrong one refused, the right one taken. */
static void
secret(void)
{
	struct hub t;
	struct client c;
	struct rps_memif_msg msg;

	hub_up(&t, "s3cret", 0, 0600);
	for (unsigned int i = 0; i < 2; i++) {
		cl_open(&c, &t);
		memset(&msg, 0, sizeof(msg));
		msg.type = RPS_MEMIF_MSG_INIT;
		msg.init.version = RPS_MEMIF_VERSION;
		memcpy(msg.init.secret, i ? "s3creT" : "", i ? 6 : 0);
		CU_ASSERT_EQUAL(cl_send(c.fd, &msg, -1), 0);
		CU_ASSERT_TRUE(cl_sent_away(c.fd, "Incorrect secret"));
		cl_close(&c);
	}
	WAIT_STAT(&t, rejected, 2);
	cl_open(&c, &t);
	CU_ASSERT_EQUAL(cl_init(&c, "s3cret"), 0);
	cl_close(&c);
	hub_down(&t);
}

/* Memory the client could take back, a ring outside it, garbage: refused, counted. */
static void
bad_handshakes(void)
{
	struct hub t;
	struct client c;
	struct rps_memif_msg msg;
	unsigned int n = 0;

	hub_up(&t, NULL, 0, 0600);
	/* an unsealed memfd (it could shrink under us: SIGBUS) */
	cl_open(&c, &t);
	cl_memory(&c, 0);
	CU_ASSERT_EQUAL(cl_init(&c, NULL), 0);
	memset(&msg, 0, sizeof(msg));
	msg.type = RPS_MEMIF_MSG_ADD_REGION;
	msg.add_region.size = REGION;
	CU_ASSERT_EQUAL(cl_send(c.fd, &msg, c.memfd), 0);
	CU_ASSERT_TRUE(cl_sent_away(c.fd, "Region not sealed"));
	cl_close(&c);
	WAIT_STAT(&t, rejected, ++n);
	/* a region larger than its file */
	cl_open(&c, &t);
	cl_memory(&c, 1);
	CU_ASSERT_EQUAL(cl_init(&c, NULL), 0);
	msg.add_region.size = REGION + CANARY + 4096;
	CU_ASSERT_EQUAL(cl_send(c.fd, &msg, c.memfd), 0);
	CU_ASSERT_TRUE(cl_sent_away(c.fd, "Region is not a file of its size"));
	cl_close(&c);
	WAIT_STAT(&t, rejected, ++n);
	/* the ring we would send on past the region's end */
	cl_open(&c, &t);
	cl_memory(&c, 1);
	CU_ASSERT_EQUAL(cl_init(&c, NULL), 0);
	CU_ASSERT_EQUAL(cl_region(&c, REGION), 0);
	CU_ASSERT_EQUAL(cl_ring(&c, 0, REGION - 64), 0);
	memset(&msg, 0, sizeof(msg));
	msg.type = RPS_MEMIF_MSG_CONNECT;
	CU_ASSERT_EQUAL(cl_send(c.fd, &msg, -1), 0);
	CU_ASSERT_TRUE(cl_sent_away(c.fd, "Ring outside its region"));
	cl_close(&c);
	WAIT_STAT(&t, rejected, ++n);
	/* a ring's interrupt fd that is not an eventfd */
	cl_open(&c, &t);
	cl_memory(&c, 1);
	CU_ASSERT_EQUAL(cl_init(&c, NULL), 0);
	close(c.efd_s2c);
	c.efd_s2c = dup(c.memfd);
	memset(&msg, 0, sizeof(msg));
	msg.type = RPS_MEMIF_MSG_ADD_RING;
	msg.add_ring.log2_ring_size = LOG2;
	CU_ASSERT_EQUAL(cl_send(c.fd, &msg, c.efd_s2c), 0);
	CU_ASSERT_TRUE(cl_sent_away(c.fd, "Missing interrupt fd"));
	cl_close(&c);
	WAIT_STAT(&t, rejected, ++n);
	/* a short message, then an unknown type, a CONNECT before INIT */
	for (unsigned int g = 0; g < 3; g++) {
		cl_open(&c, &t);
		memset(&msg, 0, sizeof(msg));
		msg.type = g == 1 ? 77 : RPS_MEMIF_MSG_CONNECT;
		CU_ASSERT_EQUAL(send(c.fd, &msg, g == 0 ? 10 : sizeof(msg), 0),
				(ssize_t)(g == 0 ? 10 : sizeof(msg)));
		CU_ASSERT_TRUE(cl_sent_away(c.fd, g == 0 ? "Invalid message size" :
					    g == 1 ? "Unexpected message" : "Unexpected CONNECT"));
		cl_close(&c);
		WAIT_STAT(&t, rejected, ++n);
	}
	CU_ASSERT_EQUAL(stats(&t).connects, 0);
	hub_down(&t);
}

/* A departed client's memory stays mapped while the sender has not passed a quiescent
 * state since, and goes once it has. */
static void
grace_period(void)
{
	struct hub t;
	struct client c;

	CU_ASSERT_EQUAL(region_maps(), 0);
	hub_up(&t, NULL, 0, 0600);
	cl_up(&c, &t);
	rte_rcu_qsbr_thread_online(qsbr, 0);
	cl_close(&c); /* the client's own mapping goes: ours is left */
	WAIT_STAT(&t, up, 0);
	usleep(200 * 1000);
	CU_ASSERT_EQUAL(region_maps(), 1); /* the sender may still be in rps_memif_tx() */
	rte_rcu_qsbr_quiescent(qsbr, 0);
	for (int i = 0; i < 2000 && region_maps() != 0; i++)
		usleep(1000);
	CU_ASSERT_EQUAL(region_maps(), 0);
	rte_rcu_qsbr_thread_offline(qsbr, 0);
	hub_down(&t);
}

/* A client that fills its own eventfd to the limit (where a blocking write would wait): the
 * hub empties it and sends the client away. */
static void
full_eventfd(void)
{
	struct hub t;
	struct client c;
	const uint64_t most = UINT64_C(0xfffffffffffffffe);

	hub_up(&t, NULL, 0, 0600);
	cl_up(&c, &t);
	CU_ASSERT_EQUAL(write(c.efd_s2c, &most, sizeof(most)), (ssize_t)sizeof(most));
	CU_ASSERT_TRUE(cl_sent_away(c.fd, "Eventfd at its limit"));
	WAIT_STAT(&t, broken, 1);
	CU_ASSERT_EQUAL(stats(&t).kicks_drained, 1);
	cl_close(&c);
	hub_down(&t);
}

/* The socket is 0600 under umask 000, 0660 when asked; an existing path is refused. */
static void
socket_mode(void)
{
	struct hub t;
	struct rps_memif *other;
	struct rps_memif_conf conf = { .mode = 0600, .gid = (gid_t)-1 };
	struct stat st;
	const mode_t old = umask(0);

	for (unsigned int i = 0; i < 2; i++) {
		hub_up(&t, NULL, 0, i ? 0660 : 0600);
		CU_ASSERT_EQUAL(stat(t.path, &st), 0);
		CU_ASSERT_TRUE(S_ISSOCK(st.st_mode));
		CU_ASSERT_EQUAL(st.st_mode & 07777, i ? 0660u : 0600u);
		conf.path = t.path;
		CU_ASSERT_EQUAL(rps_memif_add(t.h, &conf, &other), -EADDRINUSE);
		hub_down(&t);
	}
	umask(old);
}

/* Many clients leaving at random steps while a sender sends: every one accounted for. */
static void
churn(void)
{
	struct hub t;
	uint64_t rs = 42, ends;
	struct rps_memif_stats s;

	hub_up(&t, NULL, 0, 0600);
	for (unsigned int i = 0; i < 300; i++) {
		struct client c;
		const unsigned int step = (unsigned int)(ut_rand(&rs) % 4);
		struct rte_mbuf *m[4];

		/* the next one comes only once the last is gone from the slot */
		for (int w = 0; w < 2000; w++) {
			rps_memif_stats_get(t.m, &s);
			if (s.accepted == i && s.accepted == s.refused + s.aborted + s.timeouts +
							     s.rejected + s.connects)
				break;
			usleep(1000);
		}
		if (step == 0) {
			close(cl_connect(&t));
			continue;
		}
		cl_open(&c, &t);
		cl_memory(&c, 1);
		if (step >= 2 && cl_init(&c, NULL) == 0 && step == 3) {
			CU_ASSERT_EQUAL(cl_region(&c, REGION), 0);
			CU_ASSERT_EQUAL(cl_ring(&c, 1, 0), 0);
			CU_ASSERT_EQUAL(cl_ring(&c, 0, RING_BYTES), 0);
			CU_ASSERT_EQUAL(cl_connect_msg(&c), 0);
			__atomic_store_n(&c.s2c->head, SLOTS, __ATOMIC_RELEASE);
			for (unsigned int k = 0; k < 4; k++)
				m[k] = pkt(64 + k, k);
			CU_ASSERT_EQUAL(rps_memif_tx(t.m, m, 4), 4);
		}
		cl_close(&c);
		WAIT_STAT(&t, up, 0);
	}
	for (int w = 0; w < 2000; w++) {
		rps_memif_stats_get(t.m, &s);
		if (s.accepted == 300 && s.aborted + s.connects == 300)
			break;
		usleep(1000);
	}
	ends = s.refused + s.aborted + s.timeouts + s.rejected + s.connects;
	CU_ASSERT_EQUAL(s.accepted, 300);
	CU_ASSERT_EQUAL(ends, 300);
	CU_ASSERT_EQUAL(s.connects, s.disconnects);
	CU_ASSERT_EQUAL(s.refused + s.timeouts + s.rejected + s.broken, 0);
	hub_down(&t);
	CU_ASSERT_EQUAL(region_maps(), 0);
}

/* The client returns a packet of @p len bytes (byte i = i * 5 + seed) on its C2S ring from
 * slot @p slot, in BUF-sized buffers chained with NEXT; head is left to the caller.
 * @return the slots it took. */
static unsigned int
cl_return_on(struct client *c, struct rps_memif_ring *ring, uint16_t slot, unsigned int len,
	     unsigned int seed)
{
	unsigned int used = 0;

	for (unsigned int done = 0; done < len || used == 0; used++) {
		struct rps_memif_desc *d = &ring->desc[(uint16_t)(slot + used) & (SLOTS - 1)];
		const uint32_t off = C2S_OFF + ((uint16_t)(slot + used) & (SLOTS - 1)) * BUF;
		const unsigned int n = RTE_MIN(BUF, len - done);

		for (unsigned int i = 0; i < n; i++)
			c->mem[off + i] = (uint8_t)((done + i) * 5 + seed);
		d->region = 0;
		d->offset = off;
		d->length = n;
		done += n;
		d->flags = done < len ? RPS_MEMIF_DESC_NEXT : 0;
	}
	return used;
}

static unsigned int
cl_return(struct client *c, uint16_t slot, unsigned int len, unsigned int seed)
{
	return cl_return_on(c, c->c2s, slot, len, seed);
}

/* Whether @p m holds @p len bytes, byte i = i * 5 + seed. */
static int
same_bytes(const struct rte_mbuf *m, unsigned int len, unsigned int seed)
{
	unsigned int i = 0;

	if (m->pkt_len != len)
		return 0;
	for (const struct rte_mbuf *s = m; s != NULL; s = s->next)
		for (unsigned int k = 0; k < s->data_len; k++, i++)
			if (rte_pktmbuf_mtod(s, const uint8_t *)[k] != (uint8_t)(i * 5 + seed))
				return 0;
	return i == len;
}

/* Packets the client returns arrive byte for byte, in its order: one of 60 bytes, one of
 * 600 (3 buffers chained), chained again into our mbufs when a pool's segments are small;
 * the ring's tail gives the buffers back; the client is asked not to kick (MASK_INT); a
 * packet whose last descriptor is not written yet waits; an empty pool takes nothing; a
 * client without a C2S ring returns nothing. */
static void
returns(void)
{
	struct rte_mempool *small = rte_pktmbuf_pool_create("ut_memif_small", 63, 0, 0,
							     RTE_PKTMBUF_HEADROOM + 100,
							     SOCKET_ID_ANY);
	struct rte_mbuf *m[8];
	struct hub t;
	struct client c;
	uint16_t head;

	CU_ASSERT_PTR_NOT_NULL_FATAL(small);
	hub_up(&t, NULL, 0, 0600);
	cl_up(&c, &t);
	CU_ASSERT_TRUE(rps_memif_returns(t.m));
	CU_ASSERT_EQUAL(c.c2s->flags & RPS_MEMIF_RING_MASK_INT, RPS_MEMIF_RING_MASK_INT);
	CU_ASSERT_EQUAL(rps_memif_rx(t.m, 0, ut_pool(), m, 8), 0); /* nothing there */
	head = (uint16_t)cl_return(&c, 0, 60, 1);
	head = (uint16_t)(head + cl_return(&c, head, 600, 2));
	CU_ASSERT_EQUAL(head, 4);
	__atomic_store_n(&c.c2s->head, head, __ATOMIC_RELEASE);
	CU_ASSERT_EQUAL_FATAL(rps_memif_rx(t.m, 0, ut_pool(), m, 8), 2);
	CU_ASSERT_TRUE(same_bytes(m[0], 60, 1) && m[0]->nb_segs == 1);
	CU_ASSERT_TRUE(same_bytes(m[1], 600, 2) && m[1]->nb_segs == 1);
	CU_ASSERT_EQUAL(__atomic_load_n(&c.c2s->tail, __ATOMIC_ACQUIRE), 4);
	rte_pktmbuf_free_bulk(m, 2);
	/* small segments: 600 bytes in 6 mbufs of 100 */
	head = (uint16_t)(head + cl_return(&c, head, 600, 3));
	__atomic_store_n(&c.c2s->head, head, __ATOMIC_RELEASE);
	CU_ASSERT_EQUAL_FATAL(rps_memif_rx(t.m, 0, small, m, 8), 1);
	CU_ASSERT_TRUE(same_bytes(m[0], 600, 3) && m[0]->nb_segs == 6);
	rte_pktmbuf_free(m[0]);
	/* a packet whose last descriptor is not there yet (NEXT on the last slot filled) */
	cl_return(&c, head, 300, 4);
	__atomic_store_n(&c.c2s->head, (uint16_t)(head + 1), __ATOMIC_RELEASE);
	CU_ASSERT_EQUAL(rps_memif_rx(t.m, 0, ut_pool(), m, 8), 0);
	CU_ASSERT_EQUAL(__atomic_load_n(&c.c2s->tail, __ATOMIC_ACQUIRE), head);
	__atomic_store_n(&c.c2s->head, (uint16_t)(head + 2), __ATOMIC_RELEASE);
	/* the pool empty: nothing taken, then taken once it has mbufs */
	{
		struct rte_mbuf *all[63];
		unsigned int k = 0;

		while (k < RTE_DIM(all) && (all[k] = rte_pktmbuf_alloc(small)) != NULL)
			k++;
		CU_ASSERT_EQUAL(rps_memif_rx(t.m, 0, small, m, 8), 0);
		CU_ASSERT_EQUAL(__atomic_load_n(&c.c2s->tail, __ATOMIC_ACQUIRE), head);
		/* 2 of 3 segments: dry in the middle of the packet, nothing taken either */
		rte_pktmbuf_free_bulk(all, 2);
		CU_ASSERT_EQUAL(rps_memif_rx(t.m, 0, small, m, 8), 0);
		CU_ASSERT_EQUAL(rte_mempool_avail_count(small), 2);
		rte_pktmbuf_free_bulk(all + 2, k - 2);
	}
	CU_ASSERT_EQUAL_FATAL(rps_memif_rx(t.m, 0, small, m, 8), 1);
	CU_ASSERT_TRUE(same_bytes(m[0], 300, 4) && m[0]->nb_segs == 3);
	rte_pktmbuf_free(m[0]);
	CU_ASSERT_EQUAL(__atomic_load_n(&c.c2s->tail, __ATOMIC_ACQUIRE), (uint16_t)(head + 2));
	CU_ASSERT_EQUAL(stats(&t).broken, 0);
	CU_ASSERT_TRUE(canary_intact(&c));
	cl_close(&c);
	WAIT_STAT(&t, up, 0);
	CU_ASSERT_EQUAL(rps_memif_rx(t.m, 0, ut_pool(), m, 8), 0); /* no client */
	CU_ASSERT_FALSE(rps_memif_returns(t.m));
	/* a client with no C2S ring: it only receives */
	cl_up_rings(&c, &t, 0);
	CU_ASSERT_FALSE(rps_memif_returns(t.m));
	CU_ASSERT_EQUAL(rps_memif_rx(t.m, 0, ut_pool(), m, 8), 0);
	cl_close(&c);
	WAIT_STAT(&t, up, 0);
	hub_down(&t);
	CU_ASSERT_EQUAL(rte_mempool_avail_count(small), 63);
	rte_mempool_free(small);
}

/* A returned descriptor outside the client's memory (past the region, a region it never
 * gave, offset + length wrapping 32 bits), an empty one, more filled than the ring holds,
 * a packet over RPS_MEMIF_RX_PKT_MAX: nothing taken (no read outside: ASan would see it),
 * the client sent away, counted broken; the packets before it were taken. */
static void
bad_returns(void)
{
	for (unsigned int kind = 0; kind < 6; kind++) {
		const unsigned int avail0 = ut_pool_avail();
		struct rte_mbuf *m[SLOTS];
		struct hub t;
		struct client c;
		uint16_t head;
		struct rps_memif_desc *d;

		hub_up(&t, NULL, 0, 0600);
		cl_up(&c, &t);
		head = (uint16_t)cl_return(&c, 0, 60, 1); /* a good one first */
		d = &c.c2s->desc[head];
		head = (uint16_t)(head + cl_return(&c, head, 60, 2));
		switch (kind) {
		case 0: /* past the declared region, into the canary and beyond the memfd */
			d->offset = REGION - 10;
			d->length = CANARY + 100;
			break;
		case 1: /* a region it never gave */
			d->region = 1;
			break;
		case 2: /* offset + length wraps 32 bits */
			d->offset = 0xffffff00u;
			d->length = 0x200;
			break;
		case 3: /* empty */
			d->length = 0;
			break;
		case 4: /* 17 filled on a ring of 16 */
			head = SLOTS + 1;
			break;
		default: /* 9 x 8000 bytes chained: over 65535 */
			for (unsigned int i = 1; i < 10; i++) {
				d = &c.c2s->desc[i];
				d->region = 0;
				d->offset = 0;
				d->length = 8000;
				d->flags = i < 9 ? RPS_MEMIF_DESC_NEXT : 0;
			}
			head = 10;
			break;
		}
		__atomic_store_n(&c.c2s->head, head, __ATOMIC_RELEASE);
		CU_ASSERT_EQUAL(rps_memif_rx(t.m, 0, ut_pool(), m, SLOTS), kind == 4 ? 0 : 1);
		if (kind != 4) {
			CU_ASSERT_TRUE(same_bytes(m[0], 60, 1));
			rte_pktmbuf_free(m[0]);
		}
		CU_ASSERT_TRUE(cl_sent_away(c.fd, "Bad ring or descriptor"));
		WAIT_STAT(&t, broken, 1);
		CU_ASSERT_FALSE(rps_memif_up(t.m));
		CU_ASSERT_EQUAL(rps_memif_rx(t.m, 0, ut_pool(), m, SLOTS), 0);
		CU_ASSERT_EQUAL(ut_pool_avail(), avail0);
		cl_close(&c);
		hub_down(&t);
	}
}

/* A C2S ring outside the region, or without its cookie: the handshake is refused. */
static void
bad_c2s_ring(void)
{
	for (unsigned int kind = 0; kind < 2; kind++) {
		struct hub t;
		struct client c;

		hub_up(&t, NULL, 0, 0600);
		cl_open(&c, &t);
		cl_memory(&c, 1);
		CU_ASSERT_EQUAL_FATAL(cl_init(&c, NULL), 0);
		CU_ASSERT_EQUAL_FATAL(cl_region(&c, REGION), 0);
		if (kind == 0) {
			CU_ASSERT_EQUAL_FATAL(cl_ring(&c, 1, REGION - 64), 0);
		} else {
			c.c2s->cookie = 0;
			CU_ASSERT_EQUAL_FATAL(cl_ring(&c, 1, 0), 0);
		}
		CU_ASSERT_EQUAL_FATAL(cl_ring(&c, 0, RING_BYTES), 0);
		CU_ASSERT_EQUAL(cl_connect_msg(&c), -1);
		WAIT_STAT(&t, rejected, 1);
		CU_ASSERT_FALSE(rps_memif_up(t.m));
		cl_close(&c);
		hub_down(&t);
	}
}

/* An endpoint offering two rings each way that must be returned on (an inline pair's two
 * directions): a client opening one each way, or two to us and one back, or index 1
 * without index 0, is refused naming why; one opening two each way gets what is sent on
 * ring 1 there (not on ring 0), returns on ring 1 apart from ring 0, and a third ring is
 * none. A tap endpoint (one ring, no returns) still takes a client without a ring back. */
static void
two_rings(void)
{
	struct rte_mbuf *m[4];
	struct hub t;
	struct client c;

	hub_start(&t, NULL, 0, 0600, 2, 1);
	for (unsigned int kind = 0; kind < 3; kind++) {
		cl_open(&c, &t);
		CU_ASSERT_EQUAL(c.max_ring, 1);
		cl_memory(&c, 1);
		CU_ASSERT_EQUAL_FATAL(cl_init(&c, NULL), 0);
		CU_ASSERT_EQUAL_FATAL(cl_region(&c, REGION), 0);
		if (kind != 2)
			CU_ASSERT_EQUAL_FATAL(cl_ring(&c, 1, 0), 0);
		CU_ASSERT_EQUAL_FATAL(cl_ring(&c, 0, RING_BYTES), 0);
		if (kind != 0)
			CU_ASSERT_EQUAL_FATAL(cl_ring_index(&c, 0, 1, RINGS1_OFF + RING_BYTES), 0);
		if (kind == 2)
			CU_ASSERT_EQUAL_FATAL(cl_ring_index(&c, 1, 1, RINGS1_OFF), 0);
		CU_ASSERT_EQUAL(cl_connect_msg(&c), -1);
		WAIT_STAT(&t, rejected, kind + 1);
		cl_close(&c);
	}
	cl_open(&c, &t);
	cl_memory(&c, 1);
	CU_ASSERT_EQUAL_FATAL(cl_init(&c, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(cl_region(&c, REGION), 0);
	CU_ASSERT_EQUAL_FATAL(cl_ring(&c, 1, 0), 0);
	CU_ASSERT_EQUAL_FATAL(cl_ring_index(&c, 1, 1, RINGS1_OFF), 0);
	CU_ASSERT_EQUAL_FATAL(cl_ring(&c, 0, RING_BYTES), 0);
	CU_ASSERT_EQUAL_FATAL(cl_ring_index(&c, 0, 1, RINGS1_OFF + RING_BYTES), 0);
	CU_ASSERT_EQUAL_FATAL(cl_connect_msg(&c), 0);
	__atomic_store_n(&c.s2c->head, SLOTS, __ATOMIC_RELEASE);
	__atomic_store_n(&c.s2c1->head, SLOTS, __ATOMIC_RELEASE);
	CU_ASSERT_TRUE(rps_memif_returns(t.m));
	m[0] = pkt(60, 1);
	CU_ASSERT_EQUAL(rps_memif_tx_ring(t.m, 1, m, 1), 1);
	CU_ASSERT_EQUAL(__atomic_load_n(&c.s2c1->tail, __ATOMIC_ACQUIRE), 1);
	CU_ASSERT_EQUAL(__atomic_load_n(&c.s2c->tail, __ATOMIC_ACQUIRE), 0);
	CU_ASSERT_EQUAL(c.s2c1->desc[0].length, 60);
	m[0] = pkt(60, 2);
	CU_ASSERT_EQUAL(rps_memif_tx_ring(t.m, 2, m, 1), 0); /* no such ring */
	rte_pktmbuf_free(m[0]);
	cl_return_on(&c, c.c2s1, 0, 70, 3);
	__atomic_store_n(&c.c2s1->head, 1, __ATOMIC_RELEASE);
	CU_ASSERT_EQUAL(c.c2s1->flags & RPS_MEMIF_RING_MASK_INT, RPS_MEMIF_RING_MASK_INT);
	CU_ASSERT_EQUAL(rps_memif_rx(t.m, 0, ut_pool(), m, 4), 0);
	CU_ASSERT_EQUAL(rps_memif_rx(t.m, 2, ut_pool(), m, 4), 0);
	CU_ASSERT_EQUAL_FATAL(rps_memif_rx(t.m, 1, ut_pool(), m, 4), 1);
	CU_ASSERT_TRUE(same_bytes(m[0], 70, 3));
	rte_pktmbuf_free(m[0]);
	CU_ASSERT_EQUAL(__atomic_load_n(&c.c2s1->tail, __ATOMIC_ACQUIRE), 1);
	CU_ASSERT_EQUAL(stats(&t).connects, 1);
	cl_close(&c);
	WAIT_STAT(&t, up, 0);
	hub_down(&t);
	/* a tap endpoint: one ring, none back needed */
	hub_up(&t, NULL, 0, 0600);
	cl_up_rings(&c, &t, 0);
	CU_ASSERT_EQUAL(c.max_ring, 0);
	CU_ASSERT_FALSE(rps_memif_returns(t.m));
	cl_close(&c);
	WAIT_STAT(&t, up, 0);
	/* nor a second ring taken there */
	cl_open(&c, &t);
	cl_memory(&c, 1);
	CU_ASSERT_EQUAL_FATAL(cl_init(&c, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(cl_region(&c, REGION), 0);
	CU_ASSERT_EQUAL(cl_ring_index(&c, 0, 1, RINGS1_OFF + RING_BYTES), -1);
	WAIT_STAT(&t, rejected, 1);
	cl_close(&c);
	hub_down(&t);
}

int
main(int argc, char **argv)
{
	static CU_TestInfo tests[] = {
		{ "deliver", deliver },
		{ "bad_descriptors", bad_descriptors },
		{ "leave_at_every_step", leave_at_every_step },
		{ "stalled_handshake", stalled_handshake },
		{ "busy", busy },
		{ "secret", secret },
		{ "bad_handshakes", bad_handshakes },
		{ "grace_period", grace_period },
		{ "full_eventfd", full_eventfd },
		{ "socket_mode", socket_mode },
		{ "churn", churn },
		{ "returns", returns },
		{ "bad_returns", bad_returns },
		{ "bad_c2s_ring", bad_c2s_ring },
		{ "two_rings", two_rings },
		CU_TEST_INFO_NULL,
	};
	int rc;

	snprintf(dir, sizeof(dir), "/tmp/rps_ut_memif.XXXXXX");
	if (mkdtemp(dir) == NULL)
		return 1;
	qsbr = aligned_alloc(RTE_CACHE_LINE_SIZE,
			     RTE_ALIGN_CEIL(rte_rcu_qsbr_get_memsize(1), RTE_CACHE_LINE_SIZE));
	if (qsbr == NULL || rte_rcu_qsbr_init(qsbr, 1) != 0 ||
	    rte_rcu_qsbr_thread_register(qsbr, 0) != 0)
		return 1;
	rc = ut_main(argc, argv, "memif", tests);
	rmdir(dir);
	free(qsbr);
	return rc;
}
