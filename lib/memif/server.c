/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * server.c: the memif hub: one control thread that accepts each endpoint's client, runs its
 * handshake under a deadline, maps what it offers after checking it, publishes the
 * connection to the senders, and takes it down again (unmapped after a QSBR grace period).
 * rps_memif.h has the contract.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_malloc.h>

#include "memif_private.h"

#define HUB_TICK_MS 20
#define HUB_EVENTS 16
#define HUB_FDS_MAX 4            /* file descriptors taken from one message */
#define STOP_KEY UINT64_MAX
#define KICK_LIMIT (1ull << 63)  /* an eventfd count past this is a client's doing */

struct rps_memif_hub {
	int logtype;
	char label[32];
	struct rps_memif *ep[RPS_MEMIF_ENDPOINTS_MAX];
	unsigned int nb;
	int epfd, stop_efd;
	pthread_t thread;
	int running;
	struct rte_rcu_qsbr *qsbr;
	struct rps_memif_conn *retired;   /* unpublished, waiting for their grace period */
};

#define HLOG(h, m, lvl, fmt, ...) \
	rte_log(RTE_LOG_##lvl, (h)->logtype, "%s%u (%s): " fmt "\n", (h)->label, (m)->index, \
		(m)->path, ##__VA_ARGS__)
#define ST_INC(m, f) __atomic_store_n(&(m)->st.f, (m)->st.f + 1, __ATOMIC_RELAXED)

static uint64_t
ms_to_tsc(uint32_t ms)
{
	return (uint64_t)ms * rte_get_tsc_hz() / 1000;
}

/* ---- connections ---- */

static struct rps_memif_conn *
conn_new(void)
{
	struct rps_memif_conn *c = rte_zmalloc("rps_memif_conn", sizeof(*c), RTE_CACHE_LINE_SIZE);

	if (c == NULL)
		return NULL;
	for (unsigned int i = 0; i < RPS_MEMIF_REGIONS_MAX; i++)
		c->region[i].fd = -1;
	for (unsigned int i = 0; i < RPS_MEMIF_RINGS_MAX; i++)
		c->s2c[i].efd = c->c2s[i].efd = -1;
	return c;
}

static void
conn_free(struct rps_memif_conn *c)
{
	if (c == NULL)
		return;
	for (unsigned int i = 0; i < c->nb_regions; i++) {
		if (c->region[i].addr != NULL)
			munmap(c->region[i].addr, c->region[i].size);
		if (c->region[i].fd >= 0)
			close(c->region[i].fd);
	}
	for (unsigned int i = 0; i < RPS_MEMIF_RINGS_MAX; i++) {
		if (c->s2c[i].efd >= 0)
			close(c->s2c[i].efd);
		if (c->c2s[i].efd >= 0)
			close(c->c2s[i].efd);
	}
	rte_free(c);
}

/* An unpublished connection: freed once every sender has passed a quiescent state. */
static void
retire(struct rps_memif_hub *h, struct rps_memif_conn *c)
{
	if (h->qsbr == NULL) {
		conn_free(c);
		return;
	}
	c->token = rte_rcu_qsbr_start(h->qsbr);
	c->next_retired = h->retired;
	h->retired = c;
}

static void
retired_poll(struct rps_memif_hub *h)
{
	struct rps_memif_conn **pp = &h->retired;

	while (*pp != NULL) {
		struct rps_memif_conn *c = *pp;

		if (h->qsbr == NULL || rte_rcu_qsbr_check(h->qsbr, c->token, false) == 1) {
			*pp = c->next_retired;
			conn_free(c);
		} else {
			pp = &c->next_retired;
		}
	}
}

/* ---- messages ---- */

static int
send_msg(int fd, const struct rps_memif_msg *msg)
{
	/* never blocks, never raises SIGPIPE: a client that left is noticed by the caller */
	return send(fd, msg, sizeof(*msg), MSG_DONTWAIT | MSG_NOSIGNAL) == sizeof(*msg) ? 0 : -1;
}

static void
send_disconnect(int fd, const char *reason)
{
	struct rps_memif_msg msg;

	memset(&msg, 0, sizeof(msg));
	msg.type = RPS_MEMIF_MSG_DISCONNECT;
	snprintf((char *)msg.disconnect.reason, sizeof(msg.disconnect.reason), "%s", reason);
	(void)send_msg(fd, &msg);
}

static int
send_simple(int fd, uint16_t type, const char *name)
{
	struct rps_memif_msg msg;

	memset(&msg, 0, sizeof(msg));
	msg.type = type;
	if (name != NULL)
		snprintf((char *)msg.connected.name, sizeof(msg.connected.name), "%s", name);
	return send_msg(fd, &msg);
}

static int
send_hello(const struct rps_memif *m)
{
	struct rps_memif_msg msg;

	memset(&msg, 0, sizeof(msg));
	msg.type = RPS_MEMIF_MSG_HELLO;
	snprintf((char *)msg.hello.name, sizeof(msg.hello.name), "%s", m->name);
	msg.hello.min_version = msg.hello.max_version = RPS_MEMIF_VERSION;
	msg.hello.max_region = RPS_MEMIF_REGIONS_MAX - 1;
	msg.hello.max_s2c_ring = (uint16_t)(m->rings - 1);   /* the same number each way */
	msg.hello.max_c2s_ring = (uint16_t)(m->rings - 1);
	msg.hello.max_log2_ring_size = RPS_MEMIF_LOG2_RING_MAX;
	return send_msg(m->cfd, &msg);
}

/* ---- an endpoint's client ---- */

enum end_count { END_NONE, END_DISCONNECT, END_ABORTED, END_TIMEOUT, END_REJECTED, END_BROKEN };

/* The client goes: told @p reason (NULL: nothing, it left), counted under @p why, its
 * connection unpublished and retired. */
static void
client_end(struct rps_memif_hub *h, struct rps_memif *m, enum end_count why, const char *reason)
{
	if (m->cfd >= 0) {
		if (reason != NULL)
			send_disconnect(m->cfd, reason);
		epoll_ctl(h->epfd, EPOLL_CTL_DEL, m->cfd, NULL);
		close(m->cfd);
		m->cfd = -1;
	}
	if (m->conn != NULL) {
		struct rps_memif_conn *c = m->conn;

		__atomic_store_n(&m->conn, NULL, __ATOMIC_RELEASE);
		__atomic_store_n(&m->st.up, 0, __ATOMIC_RELAXED);
		retire(h, c);
	}
	conn_free(m->pending); /* never published: no sender saw it */
	m->pending = NULL;
	m->state = RPS_MEMIF_IDLE;
	switch (why) {
	case END_DISCONNECT: ST_INC(m, disconnects); break;
	case END_ABORTED: ST_INC(m, aborted); break;
	case END_TIMEOUT: ST_INC(m, timeouts); break;
	case END_REJECTED: ST_INC(m, rejected); break;
	case END_BROKEN: ST_INC(m, broken); ST_INC(m, disconnects); break;
	default: break;
	}
}

/* Whether @p fd is an eventfd. */
static int
is_eventfd(int fd)
{
	char link[64], target[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return 0;
	target[n] = '\0';
	return strcmp(target, "anon_inode:[eventfd]") == 0;
}

static const char *
take_region(struct rps_memif_conn *c, const struct rps_memif_msg_add_region *ar, int fd)
{
	struct rps_memif_region *r;
	struct stat st;
	int seals;
	void *addr;

	if (fd < 0)
		return "Missing region fd";
	if (ar->index != c->nb_regions || ar->index >= RPS_MEMIF_REGIONS_MAX)
		return "Invalid region index";
	if (ar->size == 0 || ar->size > RPS_MEMIF_REGION_SIZE_MAX)
		return "Invalid region size";
	/* a memfd sealed against shrinking: what we map stays there while we write into it
	 * (a file the client could truncate would SIGBUS us) */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size < ar->size)
		return "Region is not a file of its size";
	seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0 || (seals & F_SEAL_SHRINK) == 0)
		return "Region not sealed against shrinking (F_SEAL_SHRINK)";
	addr = mmap(NULL, ar->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (addr == MAP_FAILED)
		return "Cannot map region";
	r = &c->region[c->nb_regions++];
	r->addr = addr;
	r->size = ar->size;
	r->fd = fd;
	return NULL;
}

static const char *
take_ring(const struct rps_memif *m, struct rps_memif_conn *c,
	  const struct rps_memif_msg_add_ring *ar, int fd)
{
	const int c2s = (ar->flags & RPS_MEMIF_RING_FLAG_C2S) != 0;
	struct rps_memif_qring *q;

	if (fd < 0 || !is_eventfd(fd))
		return "Missing interrupt fd (an eventfd)";
	if (ar->index >= m->rings)
		return "Invalid ring index";
	if (ar->log2_ring_size == 0 || ar->log2_ring_size > RPS_MEMIF_LOG2_RING_MAX)
		return "Invalid ring size";
	q = c2s ? &c->c2s[ar->index] : &c->s2c[ar->index];
	if (q->efd >= 0)
		return "Ring given twice";
	/* our wake-up writes must not block (kick_watch() covers a client that undoes it) */
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0)
		return "Bad interrupt fd";
	q->efd = fd;
	q->region = ar->region;
	q->offset = ar->offset;
	q->log2 = ar->log2_ring_size;
	return NULL;
}

/* CONNECT: a ring lies inside the client's memory, aligned, and carries the cookie. */
static const char *
check_ring(const struct rps_memif_conn *c, struct rps_memif_qring *q)
{
	const struct rps_memif_region *r;

	if (q->region >= c->nb_regions)
		return "Ring in a region not given";
	r = &c->region[q->region];
	if (q->offset % 8 != 0 || (uint64_t)q->offset + rps_memif_ring_bytes(q->log2) > r->size)
		return "Ring outside its region";
	q->ring = (struct rps_memif_ring *)(r->addr + q->offset);
	if (__atomic_load_n(&q->ring->cookie, __ATOMIC_RELAXED) != RPS_MEMIF_COOKIE)
		return "Wrong ring cookie";
	q->mask = (uint16_t)((1u << q->log2) - 1);
	return NULL;
}

/* How many rings of @p q were given, from index 0 on (a gap ends them). */
static uint16_t
rings_given(const struct rps_memif_qring *q)
{
	uint16_t n = 0;

	while (n < RPS_MEMIF_RINGS_MAX && q[n].efd >= 0)
		n++;
	return n;
}

/*
 * CONNECT: every ring given lies inside the client's memory and carries the cookie; the
 * client opened as many rings to us as we offer, with no gap, and as many back when it
 * must return packets (else any back ring it gave goes unused). The client-to-server rings
 * we poll (rps_memif_rx()), so the client is asked not to kick us on them (its interrupts
 * masked: the reader's flag in memif).
 */
static const char *
check_connect(const struct rps_memif *m, struct rps_memif_conn *c)
{
	const char *bad;

	c->nb_s2c = rings_given(c->s2c);
	c->nb_c2s = rings_given(c->c2s);
	if (c->nb_s2c == 0)
		return "No server-to-client ring";
	for (uint16_t i = c->nb_s2c; i < RPS_MEMIF_RINGS_MAX; i++)
		if (c->s2c[i].efd >= 0)
			return "Ring indexes with a gap";
	for (uint16_t i = c->nb_c2s; i < RPS_MEMIF_RINGS_MAX; i++)
		if (c->c2s[i].efd >= 0)
			return "Ring indexes with a gap";
	if (c->nb_s2c != m->rings || (m->returns && c->nb_c2s != m->rings))
		return m->rings > 1 ? "Needs as many rings each way as offered (one per direction)" :
				      "Needs a client-to-server ring (packets are returned)";
	for (uint16_t i = 0; i < RPS_MEMIF_RINGS_MAX; i++) {
		if (c->s2c[i].efd >= 0 && (bad = check_ring(c, &c->s2c[i])) != NULL)
			return bad;
		if (c->c2s[i].efd >= 0 && (bad = check_ring(c, &c->c2s[i])) != NULL)
			return bad;
	}
	for (uint16_t i = 0; i < c->nb_s2c; i++)
		for (uint16_t k = 0; k < c->nb_c2s; k++)
			if (c->s2c[i].ring == c->c2s[k].ring)
				return "One ring both ways";
	for (uint16_t i = 0; i < c->nb_s2c; i++)
		c->tx[i].tail = __atomic_load_n(&c->s2c[i].ring->tail, __ATOMIC_RELAXED);
	for (uint16_t i = 0; i < c->nb_c2s; i++) {
		c->rx[i].tail = __atomic_load_n(&c->c2s[i].ring->tail, __ATOMIC_RELAXED);
		__atomic_store_n(&c->c2s[i].ring->flags, RPS_MEMIF_RING_MASK_INT, __ATOMIC_RELAXED);
	}
	c->broken = 0;
	return NULL;
}

static int
secret_ok(const struct rps_memif *m, const uint8_t *given)
{
	uint8_t diff = 0;

	if (!m->has_secret)
		return 1;
	/* every byte, whatever matched before: no timing on how much of it was right */
	for (unsigned int i = 0; i < RPS_MEMIF_SECRET_SZ; i++)
		diff |= (uint8_t)(m->secret[i] ^ given[i]);
	return diff == 0;
}

/* One message: @return NULL (handled), or the reason to send the client away. Takes @p fd. */
static const char *
client_msg(struct rps_memif_hub *h, struct rps_memif *m, const struct rps_memif_msg *msg, int fd)
{
	struct rps_memif_conn *c = m->pending;
	const char *bad = NULL;

	switch (m->state == RPS_MEMIF_CONNECTED ? RPS_MEMIF_MSG_NONE : msg->type) {
	case RPS_MEMIF_MSG_INIT:
		if (m->state != RPS_MEMIF_WAIT_INIT)
			bad = "Unexpected INIT";
		else if (msg->init.version != RPS_MEMIF_VERSION)
			bad = "Incompatible memif version";
		else if (msg->init.id != m->id)
			bad = "ID not found";
		else if (msg->init.mode != RPS_MEMIF_MODE_ETHERNET)
			bad = "Only ethernet mode supported";
		else if (!secret_ok(m, msg->init.secret))
			bad = "Incorrect secret";
		else
			m->state = RPS_MEMIF_WAIT_CONNECT;
		break;
	case RPS_MEMIF_MSG_ADD_REGION:
		bad = m->state != RPS_MEMIF_WAIT_CONNECT ? "Unexpected ADD_REGION" :
		      take_region(c, &msg->add_region, fd);
		if (bad == NULL)
			fd = -1; /* kept */
		break;
	case RPS_MEMIF_MSG_ADD_RING:
		bad = m->state != RPS_MEMIF_WAIT_CONNECT ? "Unexpected ADD_RING" :
		      take_ring(m, c, &msg->add_ring, fd);
		if (bad == NULL)
			fd = -1;
		break;
	case RPS_MEMIF_MSG_CONNECT:
		bad = m->state != RPS_MEMIF_WAIT_CONNECT ? "Unexpected CONNECT" :
		      check_connect(m, c);
		break;
	default:
		bad = "Unexpected message";
		break;
	}
	if (fd >= 0)
		close(fd);
	if (bad != NULL)
		return bad;
	if (msg->type != RPS_MEMIF_MSG_CONNECT)
		return send_simple(m->cfd, RPS_MEMIF_MSG_ACK, NULL) == 0 ? NULL : "";
	/* the connection is complete: the senders may use it from this store on (before
	 * CONNECTED, so that a client has its packets as soon as it knows it is connected) */
	m->pending = NULL;
	m->state = RPS_MEMIF_CONNECTED;
	__atomic_store_n(&m->conn, c, __ATOMIC_RELEASE);
	__atomic_store_n(&m->st.up, 1, __ATOMIC_RELAXED);
	ST_INC(m, connects);
	if (send_simple(m->cfd, RPS_MEMIF_MSG_CONNECTED, m->name) < 0) {
		HLOG(h, m, INFO, "client %s left as it connected", m->peer);
		client_end(h, m, END_DISCONNECT, NULL);
		return NULL;
	}
	HLOG(h, m, INFO, "client %s connected (%u ring(s) to it of %u buffers, %u back)",
	     m->peer, c->nb_s2c, c->s2c[0].mask + 1u, c->nb_c2s);
	return NULL;
}

/* Printable characters of a client's @p s (at most @p n bytes), for a message. */
static void
printable(char *out, size_t len, const uint8_t *s, size_t n)
{
	size_t j = 0;

	for (size_t i = 0; i < n && s[i] != '\0' && j + 1 < len; i++)
		out[j++] = s[i] >= 0x20 && s[i] < 0x7f ? (char)s[i] : '?';
	out[j] = '\0';
}

/* Read what the client sent, every message there is. */
static void
client_readable(struct rps_memif_hub *h, struct rps_memif *m)
{
	for (;;) {
		struct rps_memif_msg msg;
		char ctl[CMSG_SPACE(sizeof(int) * HUB_FDS_MAX)];
		struct iovec iov = { .iov_base = &msg, .iov_len = sizeof(msg) };
		struct msghdr mh = {
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = ctl, .msg_controllen = sizeof(ctl),
		};
		struct cmsghdr *cm;
		const char *bad;
		ssize_t n;
		int fd = -1;

		if (m->cfd < 0)
			return; /* ended by the last message */
		n = recvmsg(m->cfd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		/* every descriptor passed: the first is the message's, the others closed */
		for (cm = CMSG_FIRSTHDR(&mh); n > 0 && cm != NULL; cm = CMSG_NXTHDR(&mh, cm)) {
			const size_t nfd = cm->cmsg_level == SOL_SOCKET &&
					   cm->cmsg_type == SCM_RIGHTS ?
					   (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int) : 0;

			for (size_t i = 0; i < nfd; i++) {
				int f;

				memcpy(&f, CMSG_DATA(cm) + i * sizeof(int), sizeof(f));
				if (fd < 0)
					fd = f;
				else
					close(f);
			}
		}
		if (n <= 0) {
			if (m->state == RPS_MEMIF_CONNECTED) {
				HLOG(h, m, INFO, "client %s disconnected", m->peer);
				client_end(h, m, END_DISCONNECT, NULL);
			} else {
				HLOG(h, m, INFO, "client %s left during its handshake", m->peer);
				client_end(h, m, END_ABORTED, NULL);
			}
			return;
		}
		if (n != sizeof(msg) || (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0) {
			if (fd >= 0)
				close(fd);
			HLOG(h, m, WARNING, "client %s sent a malformed message: sent away",
			     m->peer);
			client_end(h, m, m->state == RPS_MEMIF_CONNECTED ? END_BROKEN : END_REJECTED,
				   "Invalid message size");
			return;
		}
		if (msg.type == RPS_MEMIF_MSG_DISCONNECT) {
			char why[RPS_MEMIF_REASON_SZ + 1];
			const int was_up = m->state == RPS_MEMIF_CONNECTED;

			if (fd >= 0)
				close(fd);
			printable(why, sizeof(why), msg.disconnect.reason, RPS_MEMIF_REASON_SZ);
			HLOG(h, m, INFO, "client %s disconnected: %s", m->peer, why);
			client_end(h, m, was_up ? END_DISCONNECT : END_ABORTED, NULL);
			return;
		}
		bad = client_msg(h, m, &msg, fd);
		if (bad != NULL) {
			if (bad[0] == '\0') {
				HLOG(h, m, INFO, "client %s left during its handshake", m->peer);
				client_end(h, m, END_ABORTED, NULL);
			} else {
				HLOG(h, m, WARNING, "client %s refused: %s", m->peer, bad);
				client_end(h, m, m->state == RPS_MEMIF_CONNECTED ? END_BROKEN :
					   END_REJECTED, bad);
			}
			return;
		}
	}
}

static void
accept_clients(struct rps_memif_hub *h, struct rps_memif *m)
{
	for (;;) {
		struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP };
		struct ucred cr;
		socklen_t crl = sizeof(cr);
		char peer[sizeof(m->peer)];
		int fd = accept4(m->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
				HLOG(h, m, WARNING, "accept: %s", strerror(errno));
			return;
		}
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &crl) == 0)
			snprintf(peer, sizeof(peer), "pid %d uid %u", (int)cr.pid,
				 (unsigned int)cr.uid);
		else
			snprintf(peer, sizeof(peer), "(unknown)");
		ST_INC(m, accepted);
		if (m->state != RPS_MEMIF_IDLE) {
			/* one client at a time: the next is told at once, not queued */
			send_disconnect(fd, "Already connected");
			close(fd);
			ST_INC(m, refused);
			HLOG(h, m, INFO, "client %s refused: another is connected", peer);
			continue;
		}
		m->pending = conn_new();
		ev.data.u64 = ((uint64_t)m->index << 1) | 1;
		if (m->pending == NULL || epoll_ctl(h->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
			send_disconnect(fd, "Server out of memory");
			close(fd);
			conn_free(m->pending);
			m->pending = NULL;
			ST_INC(m, refused);
			continue;
		}
		m->cfd = fd;
		memcpy(m->peer, peer, sizeof(peer));
		m->state = RPS_MEMIF_WAIT_INIT;
		m->deadline = rte_rdtsc() + ms_to_tsc(m->handshake_ms);
		if (send_hello(m) < 0) {
			HLOG(h, m, INFO, "client %s left before the handshake", m->peer);
			client_end(h, m, END_ABORTED, NULL);
		}
	}
}

/*
 * A sender's wake-up write on the client's eventfd blocks only when the count is at its
 * limit and the eventfd is blocking: both are the client's to set (the file description is
 * shared). The count is read from fdinfo; near the limit it is emptied, which lets any
 * blocked write through, and the client, which did that on purpose, is sent away.
 */
static int
kick_watch(int efd)
{
	char path[64], buf[256];
	unsigned long long cnt = 0;
	const char *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", efd);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strstr(buf, "eventfd-count:");
	if (p == NULL || sscanf(p + 14, "%llx", &cnt) != 1 || cnt < KICK_LIMIT)
		return 0;
	n = read(efd, &cnt, sizeof(cnt));
	RTE_SET_USED(n);
	return 1;
}

static void
tick(struct rps_memif_hub *h)
{
	const uint64_t now = rte_rdtsc();

	for (unsigned int i = 0; i < h->nb; i++) {
		struct rps_memif *m = h->ep[i];

		if (m->state == RPS_MEMIF_WAIT_INIT || m->state == RPS_MEMIF_WAIT_CONNECT) {
			if (now > m->deadline) {
				HLOG(h, m, WARNING, "client %s did not finish its handshake in %u ms: "
				     "sent away", m->peer, m->handshake_ms);
				client_end(h, m, END_TIMEOUT, "Handshake timed out");
			}
		} else if (m->state == RPS_MEMIF_CONNECTED) {
			if (__atomic_load_n(&m->conn->broken, __ATOMIC_RELAXED)) {
				HLOG(h, m, WARNING, "client %s posted a descriptor outside its memory "
				     "or an inconsistent ring: sent away", m->peer);
				client_end(h, m, END_BROKEN, "Bad ring or descriptor");
			} else if (kick_watch(m->conn->s2c[0].efd) ||
				   (m->conn->nb_s2c > 1 && kick_watch(m->conn->s2c[1].efd))) {
				ST_INC(m, kicks_drained);
				HLOG(h, m, WARNING, "client %s filled its own eventfd to the limit: "
				     "emptied, sent away", m->peer);
				client_end(h, m, END_BROKEN, "Eventfd at its limit");
			}
		}
	}
	retired_poll(h);
}

static uint32_t
hub_main(void *arg)
{
	struct rps_memif_hub *h = arg;

	for (;;) {
		struct epoll_event ev[HUB_EVENTS];
		const int n = epoll_wait(h->epfd, ev, HUB_EVENTS, HUB_TICK_MS);

		for (int i = 0; i < n; i++) {
			struct rps_memif *m;

			if (ev[i].data.u64 == STOP_KEY)
				return 0;
			m = h->ep[ev[i].data.u64 >> 1];
			if ((ev[i].data.u64 & 1) == 0)
				accept_clients(h, m);
			else if (m->cfd >= 0)
				client_readable(h, m);
		}
		tick(h);
	}
	return 0;
}

static void *
hub_thread(void *arg)
{
	return (void *)(uintptr_t)hub_main(arg);
}

/* ---- the API ---- */

struct rps_memif_hub *
rps_memif_hub_create(int logtype, const char *label)
{
	struct rps_memif_hub *h = rte_zmalloc("rps_memif_hub", sizeof(*h), 0);
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = STOP_KEY };

	if (h == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	h->logtype = logtype;
	snprintf(h->label, sizeof(h->label), "%s", label != NULL ? label : "memif ");
	h->epfd = epoll_create1(EPOLL_CLOEXEC);
	h->stop_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (h->epfd < 0 || h->stop_efd < 0 ||
	    epoll_ctl(h->epfd, EPOLL_CTL_ADD, h->stop_efd, &ev) < 0) {
		rte_errno = errno;
		if (h->epfd >= 0)
			close(h->epfd);
		if (h->stop_efd >= 0)
			close(h->stop_efd);
		rte_free(h);
		return NULL;
	}
	return h;
}

int
rps_memif_add(struct rps_memif_hub *h, const struct rps_memif_conf *conf, struct rps_memif **out)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct epoll_event ev = { .events = EPOLLIN };
	struct rps_memif *m;
	mode_t old;
	int rc;

	if (h->nb >= RPS_MEMIF_ENDPOINTS_MAX || conf->path == NULL || conf->path[0] == '\0' ||
	    (conf->secret != NULL && strlen(conf->secret) > RPS_MEMIF_SECRET_SZ) ||
	    (conf->mode & ~(mode_t)0770) != 0 || conf->rings > RPS_MEMIF_RINGS_MAX)
		return -EINVAL;
	if (strlen(conf->path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	m = rte_zmalloc("rps_memif", sizeof(*m), RTE_CACHE_LINE_SIZE);
	if (m == NULL)
		return -ENOMEM;
	m->hub = h;
	m->index = h->nb;
	m->cfd = -1;
	m->id = conf->id;
	m->handshake_ms = conf->handshake_ms ? conf->handshake_ms : RPS_MEMIF_HANDSHAKE_MS;
	m->rings = conf->rings ? conf->rings : 1;
	m->returns = conf->returns != 0;
	if (conf->secret != NULL && conf->secret[0] != '\0') {
		memcpy(m->secret, conf->secret, strlen(conf->secret));
		m->has_secret = 1;
	}
	snprintf(m->path, sizeof(m->path), "%s", conf->path);
	snprintf(m->name, sizeof(m->name), "%s", conf->name != NULL ? conf->name : "dpdk-rps");
	memcpy(sa.sun_path, m->path, strlen(m->path));
	m->lfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (m->lfd < 0) {
		rc = -errno;
		rte_free(m);
		return rc;
	}
	/* made 0600 by the umask of the moment, whatever the caller's, then given its mode:
	 * never, even for an instant, more open than asked */
	old = umask(0177);
	rc = bind(m->lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ? -errno : 0;
	umask(old);
	if (rc == 0) {
		/* the group before the mode: never 0660 under another group */
		if ((conf->gid != (gid_t)-1 && chown(m->path, (uid_t)-1, conf->gid) < 0) ||
		    chmod(m->path, conf->mode) < 0 || listen(m->lfd, 16) < 0) {
			rc = -errno;
			unlink(m->path);
		}
	}
	ev.data.u64 = (uint64_t)m->index << 1;
	if (rc == 0 && epoll_ctl(h->epfd, EPOLL_CTL_ADD, m->lfd, &ev) < 0) {
		rc = -errno;
		unlink(m->path);
	}
	if (rc < 0) {
		close(m->lfd);
		rte_free(m);
		return rc;
	}
	h->ep[h->nb++] = m;
	*out = m;
	return 0;
}

int
rps_memif_hub_start(struct rps_memif_hub *h, struct rte_rcu_qsbr *qsbr)
{
	int rc;

	if (h->running)
		return 0;
	h->qsbr = qsbr;
	rc = rte_ctrl_thread_create(&h->thread, "rps-memif", NULL, hub_thread, h);
	if (rc != 0)
		return -rc;
	h->running = 1;
	return 0;
}

void
rps_memif_hub_stop(struct rps_memif_hub *h)
{
	const uint64_t one = 1;

	if (h == NULL || !h->running)
		return;
	if (write(h->stop_efd, &one, sizeof(one)) == sizeof(one))
		pthread_join(h->thread, NULL);
	h->running = 0;
}

void
rps_memif_hub_shutdown(struct rps_memif_hub *h)
{
	if (h == NULL)
		return;
	rps_memif_hub_stop(h);
	h->qsbr = NULL; /* no sender runs: what is unpublished now goes at once */
	for (unsigned int i = 0; i < h->nb; i++) {
		struct rps_memif *m = h->ep[i];

		if (m->state != RPS_MEMIF_IDLE)
			client_end(h, m, m->state == RPS_MEMIF_CONNECTED ? END_DISCONNECT :
				   END_ABORTED, "Server going away");
	}
	retired_poll(h);
}

void
rps_memif_hub_destroy(struct rps_memif_hub *h)
{
	if (h == NULL)
		return;
	rps_memif_hub_shutdown(h);
	for (unsigned int i = 0; i < h->nb; i++) {
		struct rps_memif *m = h->ep[i];

		close(m->lfd);
		unlink(m->path);
		rte_free(m);
	}
	retired_poll(h);
	close(h->epfd);
	close(h->stop_efd);
	rte_free(h);
}

int
rps_memif_up(const struct rps_memif *m)
{
	return __atomic_load_n(&m->conn, __ATOMIC_RELAXED) != NULL;
}

void
rps_memif_stats_get(const struct rps_memif *m, struct rps_memif_stats *s)
{
#define LD(f) s->f = __atomic_load_n(&m->st.f, __ATOMIC_RELAXED)
	LD(up); LD(accepted); LD(connects); LD(disconnects); LD(refused); LD(aborted);
	LD(timeouts); LD(rejected); LD(broken); LD(kicks_drained);
#undef LD
}

const char *
rps_memif_path(const struct rps_memif *m)
{
	return m->path;
}
