// SPDX-License-Identifier: GPL-2.0
/*
 * sroce module entry: "rdma link add NAME type sroce netdev IF" creates a
 * device, and the netdev notifier keeps each device's port in step with
 * its netdev and removes the device when the netdev goes away.  Each
 * registered device holds a reference on the UDP port 4791 sockets
 * (net.c) through our ib_client: ib_core pairs every add with a remove.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/if_arp.h>
#include <linux/if_vlan.h>
#include <linux/kmod.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_netlink.h>

#include "uapi/sroce-abi.h"
#include "proto/wire.h"
#include "sroce.h"

/* Makes "is there a device on this netdev?" and creating one atomic. */
static DEFINE_MUTEX(sroce_link_lock);

static int sroce_newlink(const char *ibdev_name, struct net_device *ndev)
{
	struct ib_device *old;
	struct sroce_dev *sdev;
	int err;

	if (ndev->type != ARPHRD_ETHER || ndev->addr_len != ETH_ALEN) {
		pr_err("%s: %s is not an Ethernet device (ARPHRD %u)\n",
		       ibdev_name, netdev_name(ndev), ndev->type);
		return -EOPNOTSUPP;
	}
	if (is_vlan_dev(ndev)) {
		/* ib_core already adds VLAN GIDs to the real device's port. */
		pr_err("%s: %s is a VLAN device; use its real device %s\n",
		       ibdev_name, netdev_name(ndev),
		       netdev_name(vlan_dev_real_dev(ndev)));
		return -EOPNOTSUPP;
	}

	mutex_lock(&sroce_link_lock);
	/* ib_core would say ENFILE; say what is wrong instead. */
	old = ib_device_get_by_name(ibdev_name, RDMA_DRIVER_UNKNOWN);
	if (old) {
		pr_err("%s: an RDMA device of that name already exists\n",
		       ibdev_name);
		ib_device_put(old);
		err = -EEXIST;
		goto out;
	}
	old = ib_device_get_by_netdev(ndev, SROCE_DRIVER_ID);
	if (old) {
		pr_err("%s: %s already carries sroce device %s\n", ibdev_name,
		       netdev_name(ndev), dev_name(&old->dev));
		ib_device_put(old);
		err = -EEXIST;
		goto out;
	}

	/*
	 * Open the sockets (or take a reference) now, so that a busy port
	 * fails the link add; the device's own reference is the client's.
	 */
	err = sroce_net_sock_get(dev_net(ndev));
	if (err) {
		pr_err("%s: no UDP port %u for RoCEv2: %d\n", ibdev_name,
		       SROCE_UDP_PORT, err);
		goto out;
	}
	sdev = sroce_dev_create(ndev);
	if (IS_ERR(sdev)) {
		err = PTR_ERR(sdev);
		goto out_put;
	}
	sroce_counters_init(sdev);
	err = sroce_dev_register(sdev, ibdev_name);
	if (err == -ENFILE) {
		/* The name was taken meanwhile, or the lookup is not there. */
		pr_err("%s: an RDMA device of that name already exists\n",
		       ibdev_name);
		err = -EEXIST;
	} else if (err) {
		pr_err("%s: cannot register on %s: %d\n", ibdev_name,
		       netdev_name(ndev), err);
	} else {
		pr_info("%s: added on %s\n", ibdev_name, netdev_name(ndev));
	}
out_put:
	sroce_net_sock_put(dev_net(ndev));
out:
	mutex_unlock(&sroce_link_lock);
	return err;
}

/* Only our own devices get client data, hence a remove call. */
static int sroce_client_add(struct ib_device *ibdev)
{
	struct sroce_dev *sdev = to_sdev(ibdev);

	if (ibdev->ops.driver_id != SROCE_DRIVER_ID)
		return -EOPNOTSUPP;
	/* Back from a namespace move (rdma dev set netns): in use again. */
	WRITE_ONCE(sdev->removing, false);
	return sroce_net_sock_get(sdev->net);
}

/*
 * The device is unregistering, or moving to another namespace (ib_core
 * then removes and re-adds every client): net.c's RX lookup can no
 * longer find it.
 * ib_uverbs is loaded before our client registers (sroce_init()), so our
 * client is removed before uverbs': processes still hold their QPs, and
 * destroy_qp learns from @removing that they are being taken away.
 */
static void sroce_client_remove(struct ib_device *ibdev, void *client_data)
{
	WRITE_ONCE(to_sdev(ibdev)->removing, true);
	sroce_net_sock_put(to_sdev(ibdev)->net);
}

static struct ib_client sroce_client = {
	.name = "sroce",
	.add = sroce_client_add,
	.remove = sroce_client_remove,
	/* Or ib_core skips devices that lack a kernel verb or two. */
	.no_kverbs_req = true,
};

static struct rdma_link_ops sroce_link_ops = {
	.type = "sroce",
	.newlink = sroce_newlink,
};

static int sroce_netdev_event(struct notifier_block *nb, unsigned long event,
			      void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct ib_device *ibdev;

	ibdev = ib_device_get_by_netdev(ndev, SROCE_DRIVER_ID);
	if (!ibdev)
		return NOTIFY_DONE;

	switch (event) {
	case NETDEV_UNREGISTER:
		/* We hold rtnl; ib_core finishes the job from a workqueue. */
		ibdev_info(ibdev, "%s is going away, removing device\n",
			   netdev_name(ndev));
		ib_unregister_device_queued(ibdev);
		break;
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
	case NETDEV_CHANGEMTU:
		sroce_port_update(to_sdev(ibdev));
		break;
	default:
		break;
	}
	ib_device_put(ibdev);
	return NOTIFY_OK;
}

static struct notifier_block sroce_netdev_nb = {
	.notifier_call = sroce_netdev_event,
};

static int __init sroce_init(void)
{
	int err;

	sroce_counters_module_init();
	err = sroce_crc_module_init();
	if (err)
		return err;
	err = sroce_mr_module_init();
	if (err)
		goto err_crc;
	err = sroce_kqp_module_init();
	if (err)
		goto err_mr;
	/*
	 * ib_core removes clients in the reverse order of their registration,
	 * and ours must go before uverbs' (sroce_client_remove()).  Up to
	 * 6.x sroce.ko linked ib_uverbs (ib_umem_get), which ordered the two;
	 * 7.x moved what we use into ib_core.  Without uverbs no process
	 * has objects, so a failure here is harmless.
	 */
	request_module("ib_uverbs");
	err = sroce_sock_module_init();
	if (err)
		goto err_qp;
	err = ib_register_client(&sroce_client);
	if (err)
		goto err_sock;
	err = register_netdevice_notifier(&sroce_netdev_nb);
	if (err)
		goto err_client;
	rdma_link_register(&sroce_link_ops);
	return 0;

err_client:
	ib_unregister_client(&sroce_client);
err_sock:
	sroce_sock_module_exit();
err_qp:
	sroce_kqp_module_exit();
err_mr:
	sroce_mr_module_exit();
err_crc:
	sroce_crc_module_exit();
	return err;
}

static void __exit sroce_exit(void)
{
	/* Waits for a newlink in progress; no new device can appear after. */
	rdma_link_unregister(&sroce_link_ops);
	ib_unregister_driver(SROCE_DRIVER_ID);
	/* Every device is gone, so every socket reference was dropped. */
	ib_unregister_client(&sroce_client);
	unregister_netdevice_notifier(&sroce_netdev_nb);
	sroce_sock_module_exit();
	sroce_tx_room_exit();
	sroce_kqp_module_exit();
	sroce_mr_module_exit();
	sroce_rings_reap(true);
	sroce_crc_module_exit();
}

module_init(sroce_init);
module_exit(sroce_exit);

MODULE_DESCRIPTION("sroce: software RoCEv2 RDMA device");
MODULE_LICENSE("GPL");
MODULE_ALIAS_RDMA_LINK("sroce");
/* modprobe loads it first; sroce_init() says why. */
MODULE_SOFTDEP("pre: ib_uverbs");
