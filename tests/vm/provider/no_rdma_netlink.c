// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * LD_PRELOAD shim: make RDMA netlink sockets unavailable, as on a kernel
 * or sandbox without them.  libibverbs then discovers devices from sysfs
 * alone and learns no driver id, which is the path where the provider's
 * sysfs attribute check, not the driver id, decides what it claims.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <sys/socket.h>
#include <linux/netlink.h>

int socket(int domain, int type, int protocol)
{
	static int (*real_socket)(int, int, int);

	if (domain == AF_NETLINK && protocol == NETLINK_RDMA) {
		errno = EPROTONOSUPPORT;
		return -1;
	}
	if (!real_socket)
		real_socket = (int (*)(int, int, int))dlsym(RTLD_NEXT, "socket");
	return real_socket(domain, type, protocol);
}
