// SPDX-License-Identifier: GPL-2.0
/*
 * The UDP 4791 sockets: one IPv4 and one IPv6 socket in each network
 * namespace that holds the netdev of at least one sroce device.  A
 * device's datagrams arrive on the sockets of its netdev's namespace,
 * and two devices in two namespaces never share a socket.  The sockets
 * exist only while a device needs them, so that loading the module never
 * fights rdma_rxe for the port.  Documentation/net.rst, "Namespaces".
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mutex.h>
#include <linux/wait.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/ipv6.h>
#include <net/udp_tunnel.h>

#include "sroce.h"
#include "proto/wire.h"

/* Any non-zero encap_type marks the socket as a tunnel; rxe uses 1 too. */
#define SROCE_ENCAP_TYPE	1

struct sroce_netns {
	unsigned int	users;		/* under sroce_sock_lock */
	struct socket	*sock4;
	struct socket	*sock6;		/* NULL if IPv6 is disabled */
};

static unsigned int sroce_netns_id __read_mostly;
static DEFINE_MUTEX(sroce_sock_lock);
/* Woken when a namespace's last user goes: sroce_netns_exit() waits. */
static DECLARE_WAIT_QUEUE_HEAD(sroce_sock_wq);

static struct socket *sroce_sock_open(struct net *net, bool v6)
{
	struct udp_tunnel_sock_cfg tcfg = {
		.encap_type = SROCE_ENCAP_TYPE,
		.encap_rcv = sroce_net_encap_recv,
	};
	struct udp_port_cfg cfg = {
		.local_udp_port = htons(SROCE_UDP_PORT),
	};
	struct socket *sock;
	int err;

	if (v6) {
		cfg.family = AF_INET6;
		cfg.local_ip6 = in6addr_any;
		/* The IPv4 socket has the port's IPv4 side. */
		cfg.ipv6_v6only = 1;
		/* rdma_rxe sends zero IPv6 UDP checksums: accept them. */
		cfg.use_udp6_rx_checksums = 0;
	} else {
		cfg.family = AF_INET;
		cfg.local_ip.s_addr = htonl(INADDR_ANY);
	}
	err = udp_sock_create(net, &cfg, &sock);
	if (err)
		return ERR_PTR(err);
	setup_udp_tunnel_sock(net, sock->sk, &tcfg);
	return sock;
}

static int sroce_sock_open_both(struct net *net, struct sroce_netns *sn)
{
	struct socket *s4, *s6 = NULL;
	int err;

	s4 = sroce_sock_open(net, false);
	if (IS_ERR(s4)) {
		err = PTR_ERR(s4);
		pr_err("cannot open UDP port %u (IPv4): %d%s\n",
		       SROCE_UDP_PORT, err, err == -EADDRINUSE ?
		       " (is rdma_rxe loaded?)" : "");
		return err;
	}
	if (IS_ENABLED(CONFIG_IPV6) && ipv6_mod_enabled()) {
		s6 = sroce_sock_open(net, true);
		if (IS_ERR(s6)) {
			err = PTR_ERR(s6);
			pr_err("cannot open UDP port %u (IPv6): %d\n",
			       SROCE_UDP_PORT, err);
			udp_tunnel_sock_release(s4->sk);
			return err;
		}
	}
	sn->sock4 = s4;
	sn->sock6 = s6;
	return 0;
}

/*
 * Take a reference on @net's sockets, opening them for its first device.
 * Fails with -EADDRINUSE while another owner (rdma_rxe, say) holds the
 * port there, and then no device can be added on a netdev of @net.
 */
int sroce_net_sock_get(struct net *net)
{
	struct sroce_netns *sn = net_generic(net, sroce_netns_id);
	int err = 0;

	mutex_lock(&sroce_sock_lock);
	if (!sn->users)
		err = sroce_sock_open_both(net, sn);
	if (!err)
		WRITE_ONCE(sn->users, sn->users + 1);
	mutex_unlock(&sroce_sock_lock);
	return err;
}

/* Drop a reference; the last one in @net closes its sockets. */
void sroce_net_sock_put(struct net *net)
{
	struct sroce_netns *sn = net_generic(net, sroce_netns_id);
	struct socket *s4, *s6;

	mutex_lock(&sroce_sock_lock);
	WRITE_ONCE(sn->users, sn->users - 1);
	if (sn->users) {
		mutex_unlock(&sroce_sock_lock);
		return;
	}
	s4 = sn->sock4;
	s6 = sn->sock6;
	sn->sock4 = NULL;
	sn->sock6 = NULL;
	if (s6)
		udp_tunnel_sock_release(s6->sk);
	udp_tunnel_sock_release(s4->sk);
	mutex_unlock(&sroce_sock_lock);
	/* Let encap_rcv calls still running on the old sockets finish. */
	synchronize_net();
	wake_up_all(&sroce_sock_wq);
}

/*
 * A namespace is going away.  Its netdevs went first (the device exits
 * run before a subsystem's), and each sroce device on one of them is
 * being unregistered from ib_core's work queue (main.c's notifier): wait
 * for those to drop their references, so that no socket outlives @net.
 */
static void __net_exit sroce_netns_exit(struct net *net)
{
	struct sroce_netns *sn = net_generic(net, sroce_netns_id);

	wait_event(sroce_sock_wq, !READ_ONCE(sn->users));
}

static struct pernet_operations sroce_netns_ops = {
	.exit = sroce_netns_exit,
	.id = &sroce_netns_id,
	.size = sizeof(struct sroce_netns),
};

int sroce_sock_module_init(void)
{
	return register_pernet_subsys(&sroce_netns_ops);
}

/* After the last device: every namespace's sockets are closed. */
void sroce_sock_module_exit(void)
{
	unregister_pernet_subsys(&sroce_netns_ops);
}
