/* SPDX-License-Identifier: BSD-3-Clause */
/* numa.c: which sockets a map's workers are on, where their state can and does live. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <numa.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_memory.h>

#include "rps_numa.h"

/* printf at @p *pos into buf[len], never past its end; *pos stops at len - 1. */
static void __rte_format_printf(4, 5)
append(char *buf, size_t len, size_t *pos, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (buf == NULL || *pos + 1 >= len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *pos, len - *pos, fmt, ap);
	va_end(ap);
	if (n > 0)
		*pos = RTE_MIN(*pos + (size_t)n, len - 1);
}

/* Lcores (or CPUs) of a bit set as a list: "1-3,5". */
static void
append_list(char *buf, size_t len, size_t *pos, int (*has)(const void *, unsigned int),
	    const void *set, unsigned int max)
{
	const char *sep = "";

	for (unsigned int i = 0; i < max; i++) {
		unsigned int j = i;

		if (!has(set, i))
			continue;
		while (j + 1 < max && has(set, j + 1))
			j++;
		if (j == i)
			append(buf, len, pos, "%s%u", sep, i);
		else
			append(buf, len, pos, "%s%u-%u", sep, i, j);
		sep = ",";
		i = j;
	}
}

static int
lcoreset_has(const void *set, unsigned int lcore)
{
	return rps_lcoreset_has(set, lcore);
}

static int
cpuset_has(const void *set, unsigned int cpu)
{
	return CPU_ISSET(cpu, (const rte_cpuset_t *)set);
}

int
rps_numa_map_sockets(const struct rps_lcoreset *set, const int *lcore_socket,
		     int port_socket, unsigned int *off_port, char *desc, size_t len)
{
	struct rps_lcoreset on, nowhere;
	unsigned int off = 0;
	size_t pos = 0;
	int nb = 0, cur = -1;

	memset(&nowhere, 0, sizeof(nowhere));

	if (desc != NULL && len > 0)
		desc[0] = '\0';
	for (;;) {
		int next = INT_MAX; /* the lowest socket above cur that holds one of the lcores */

		for (unsigned int l = 0; l < RTE_MAX_LCORE; l++)
			if (rps_lcoreset_has(set, l) && lcore_socket[l] > cur &&
			    lcore_socket[l] < next)
				next = lcore_socket[l];
		if (next == INT_MAX)
			break;
		memset(&on, 0, sizeof(on));
		for (unsigned int l = 0; l < RTE_MAX_LCORE; l++)
			if (rps_lcoreset_has(set, l) && lcore_socket[l] == next)
				rps_lcoreset_add(&on, l);
		append(desc, len, &pos, "%slcores ", nb > 0 ? ", " : "");
		append_list(desc, len, &pos, lcoreset_has, &on, RTE_MAX_LCORE);
		append(desc, len, &pos, " on socket %d", next);
		if (port_socket >= 0 && next != port_socket)
			off += rps_lcoreset_count(&on);
		nb++;
		cur = next;
	}
	for (unsigned int l = 0; l < RTE_MAX_LCORE; l++)
		if (rps_lcoreset_has(set, l) && lcore_socket[l] < 0)
			rps_lcoreset_add(&nowhere, l);
	if (rps_lcoreset_count(&nowhere) > 0) {
		append(desc, len, &pos, "%slcores ", nb > 0 ? ", " : "");
		append_list(desc, len, &pos, lcoreset_has, &nowhere, RTE_MAX_LCORE);
		append(desc, len, &pos, " on no single socket");
	}
	if (off_port != NULL)
		*off_port = off;
	return nb;
}

int
rps_numa_lcore_node(unsigned int lcore, char *cpus, size_t len)
{
	rte_cpuset_t set;
	int node = -ENOENT;
	size_t pos = 0;

	if (cpus != NULL && len > 0)
		cpus[0] = '\0';
	if (lcore >= RTE_MAX_LCORE)
		return -ENOENT;
	set = rte_lcore_cpuset(lcore);
	append_list(cpus, len, &pos, cpuset_has, &set, CPU_SETSIZE);
	if (numa_available() < 0)
		return -ENOTSUP;
	for (unsigned int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		int n;

		if (!CPU_ISSET(cpu, &set))
			continue;
		n = numa_node_of_cpu((int)cpu);
		if (n < 0)
			continue; /* a CPU libnuma does not know: no opinion */
		if (node >= 0 && n != node)
			return -EXDEV;
		node = n;
	}
	return node;
}

int
rps_numa_mem_socket(int socket)
{
	void *probe;

	if (socket < 0 || socket >= RTE_MAX_NUMA_NODES)
		return SOCKET_ID_ANY;
	/* EAL grows a socket's heap on demand, so only an allocation tells. */
	probe = rte_malloc_socket("rps_numa_probe", RTE_CACHE_LINE_SIZE, 0, socket);
	if (probe == NULL)
		return SOCKET_ID_ANY;
	rte_free(probe);
	return socket;
}

int
rps_numa_addr_node(const void *addr)
{
	void *page = (void *)((uintptr_t)addr & ~((uintptr_t)sysconf(_SC_PAGESIZE) - 1));
	int status = -ENOENT;

	if (numa_available() < 0)
		return -ENOTSUP;
	if (numa_move_pages(0, 1, &page, NULL, &status, 0) != 0)
		return errno > 0 ? -errno : -EINVAL;
	return status; /* a node, or the page's -errno */
}
