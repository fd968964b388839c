/* SPDX-License-Identifier: BSD-3-Clause */
/* intr_park: park EAL's interrupt thread while the lcore polls memif (see intr_park.h). */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_interrupts.h>

#include "intr_park.h"

static int efd_write(int fd)
{
	uint64_t one = 1;

	while (write(fd, &one, sizeof(one)) != (ssize_t)sizeof(one)) {
		if (errno != EINTR)
			return -EIO;
	}
	return 0;
}

/* Read an eventfd: its count, 0 when a non-blocking one has none, -1 on an error. */
static int64_t efd_read(int fd)
{
	uint64_t v;

	for (;;) {
		if (read(fd, &v, sizeof(v)) == (ssize_t)sizeof(v))
			return (int64_t)v;
		if (errno == EAGAIN)
			return 0;
		if (errno != EINTR)
			return -1;
	}
}

/* On EAL's interrupt thread: acknowledge, then block until the holder releases. */
static void park_cb(void *arg)
{
	struct intr_park *p = arg;

	if (efd_read(p->park_fd) <= 0)
		return;                 /* spurious: nobody asked */
	__atomic_store_n(&p->parks, p->parks + 1, __ATOMIC_RELEASE);
	if (efd_write(p->ack_fd) < 0)
		return;
	(void)efd_read(p->resume_fd);  /* blocking */
}

int intr_park_init(struct intr_park *p)
{
	int rc;

	*p = (struct intr_park){ .park_fd = -1, .ack_fd = -1, .resume_fd = -1 };
	p->park_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	p->ack_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	p->resume_fd = eventfd(0, EFD_CLOEXEC);
	p->ih = rte_intr_instance_alloc(RTE_INTR_INSTANCE_F_PRIVATE);
	if (p->park_fd < 0 || p->ack_fd < 0 || p->resume_fd < 0 || p->ih == NULL) {
		rc = -ENOMEM;
		goto fail;
	}
	rc = rte_intr_fd_set(p->ih, p->park_fd);
	if (rc == 0)
		rc = rte_intr_type_set(p->ih, RTE_INTR_HANDLE_EXT);
	if (rc == 0)
		rc = rte_intr_callback_register(p->ih, park_cb, p);
	if (rc == 0)
		return 0;
fail:
	rte_intr_instance_free(p->ih);
	p->ih = NULL;
	if (p->park_fd >= 0)
		close(p->park_fd);
	if (p->ack_fd >= 0)
		close(p->ack_fd);
	if (p->resume_fd >= 0)
		close(p->resume_fd);
	return rc < 0 ? rc : -EINVAL;
}

int intr_park_hold(struct intr_park *p, unsigned int timeout_ms)
{
	const uint64_t deadline = rte_get_timer_cycles() + rte_get_timer_hz() * timeout_ms / 1000;

	if (p->held)
		return 0;
	if (p->asked == __atomic_load_n(&p->parks, __ATOMIC_ACQUIRE)) {
		if (efd_write(p->park_fd) < 0)
			return -EIO;
		p->asked++;
	}
	/* the acknowledgement: block on ack_fd rather than spin, the interrupt thread may
	 * share this CPU */
	while (__atomic_load_n(&p->parks, __ATOMIC_ACQUIRE) != p->asked) {
		struct pollfd pfd = { .fd = p->ack_fd, .events = POLLIN };
		uint64_t now = rte_get_timer_cycles();
		int left;

		if (now >= deadline)
			return -ETIMEDOUT;
		left = (int)((deadline - now) * 1000 / rte_get_timer_hz()) + 1;
		if (poll(&pfd, 1, left) < 0 && errno != EINTR)
			return -EIO;
		if (efd_read(p->ack_fd) < 0)
			return -EIO;
	}
	p->held = 1;
	return 0;
}

void intr_park_release(struct intr_park *p)
{
	if (!p->held)
		return;
	p->held = 0;
	rte_atomic_thread_fence(__ATOMIC_RELEASE);
	(void)efd_write(p->resume_fd);
}

void intr_park_fini(struct intr_park *p)
{
	if (p->ih == NULL)
		return;
	intr_park_release(p);
	/* a park asked for and never acknowledged: if it comes now, it goes on at once */
	if (p->asked != __atomic_load_n(&p->parks, __ATOMIC_ACQUIRE))
		(void)efd_write(p->resume_fd);
	/* -EAGAIN while the callback is still running (it returns once resumed) */
	while (rte_intr_callback_unregister(p->ih, park_cb, p) == -EAGAIN)
		rte_delay_us_sleep(1000);
	rte_intr_instance_free(p->ih);
	p->ih = NULL;
	close(p->park_fd);
	close(p->ack_fd);
	close(p->resume_fd);
}
