/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rps_numa.h: NUMA placement of dpdk-rps's lcores and their state.
 *
 * The port writes every packet on its socket; the RX lcore reads its headers and writes the
 * packet's pointer into a worker's backlog; the worker reads the packet and its own flow and
 * reassembly tables. Each of those hops that crosses sockets crosses the interconnect on
 * every burst. So each worker's state is allocated on the worker's socket, and the
 * application warns when a map's workers span sockets or sit on another socket than the RX
 * port. These helpers find out which; the application logs.
 *
 * rps_numa_map_sockets() is a pure function over a socket table, so the check can be tested
 * on a machine with one node. Slow path only (start-up and reloads).
 */
#ifndef RPS_NUMA_H
#define RPS_NUMA_H

#include <stddef.h>

#include "rps_map.h"

/**
 * The sockets the lcores of @p set are on.
 * @param lcore_socket  socket of every lcore id, [RTE_MAX_LCORE]; a negative value
 *                      (SOCKET_ID_ANY) means no single socket (an lcore whose CPUs span
 *                      sockets, or an unknown one)
 * @param port_socket   the RX port's socket; negative (SOCKET_ID_ANY) if unknown, and then
 *                      no lcore counts as off the port's socket
 * @param off_port      set (when not NULL) to the lcores on a socket other than @p port_socket
 * @param desc          set (when not NULL) to where they are, one group per socket in
 *                      ascending order: "lcores 1-3 on socket 0, lcores 4,6 on socket 1";
 *                      lcores of no single socket last ("lcores 7 on no single socket");
 *                      "" for an empty set; cut short (still terminated) if @p len is small
 * @return the number of distinct sockets the lcores are on (those of no single socket not
 *         counted); 0 for an empty set.
 */
int rps_numa_map_sockets(const struct rps_lcoreset *set, const int *lcore_socket,
			 int port_socket, unsigned int *off_port, char *desc, size_t len);

/**
 * The NUMA node libnuma gives for the CPUs @p lcore runs on (rte_lcore_cpuset()), to
 * cross-check EAL's rte_lcore_to_socket_id().
 * @param cpus  set (when not NULL) to the lcore's CPUs as a list ("1", "0-3,8")
 * @return the node; -EXDEV when the CPUs are on more than one node; -ENOTSUP when libnuma
 *         finds no NUMA support (numa_available() < 0); -ENOENT when the lcore has no CPU
 *         that libnuma knows, or is not below RTE_MAX_LCORE.
 */
int rps_numa_lcore_node(unsigned int lcore, char *cpus, size_t len);

/**
 * The socket to allocate state on for something that runs on @p socket: @p socket itself
 * when EAL can allocate there, SOCKET_ID_ANY otherwise (a negative or out-of-range
 * @p socket; hugepages of which --socket-mem or --socket-limit gives that socket none), so
 * that a worker on a socket without memory still starts, with its state elsewhere.
 * Without hugepages (--no-huge) EAL allocates anywhere whatever the socket asked: @p socket
 * is returned, and where the memory really is depends on which thread touched it first.
 */
int rps_numa_mem_socket(int socket);

/**
 * The NUMA node the page holding @p addr is on, as the kernel reports it (numa_move_pages()
 * without moving anything): the truth behind a socket that was asked for.
 * @return the node; -ENOTSUP without NUMA support; another negative errno when the kernel
 *         does not say (-ENOENT: the page is not present; -EPERM, -ENOSYS: not allowed here).
 */
int rps_numa_addr_node(const void *addr);

#endif /* RPS_NUMA_H */
