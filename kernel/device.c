// SPDX-License-Identifier: GPL-2.0
/*
 * The sroce ib_device: its ops table, the query verbs, port state and
 * per-device object accounting.  Nothing here knows the wire protocol.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/sysfs.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_verbs.h>

#include "uapi/sroce-abi.h"
#include "sroce.h"

static const char * const sroce_obj_name[SROCE_OBJ_MAX] = {
	[SROCE_OBJ_UCONTEXT]	= "ucontext",
	[SROCE_OBJ_PD]		= "pd",
	[SROCE_OBJ_AH]		= "ah",
	[SROCE_OBJ_CQ]		= "cq",
	[SROCE_OBJ_QP]		= "qp",
	[SROCE_OBJ_SRQ]		= "srq",
	[SROCE_OBJ_MR]		= "mr",
	[SROCE_OBJ_MW]		= "mw",
	[SROCE_OBJ_XRCD]	= "xrcd",
};

static const int sroce_obj_limit[SROCE_OBJ_MAX] = {
	[SROCE_OBJ_UCONTEXT]	= SROCE_MAX_UCONTEXT,
	[SROCE_OBJ_PD]		= SROCE_MAX_PD,
	[SROCE_OBJ_AH]		= SROCE_MAX_AH,
	[SROCE_OBJ_CQ]		= SROCE_MAX_CQ,
	[SROCE_OBJ_QP]		= SROCE_MAX_QP,
	[SROCE_OBJ_SRQ]		= SROCE_MAX_SRQ,
	[SROCE_OBJ_MR]		= SROCE_MAX_MR,
	[SROCE_OBJ_MW]		= SROCE_MAX_MW,
	[SROCE_OBJ_XRCD]	= SROCE_MAX_XRCD,
};

/*
 * Count one more object of @type, refusing it beyond the advertised limit,
 * or for a process beyond the limit less the kernel's reserve.
 */
int sroce_obj_add(struct sroce_dev *sdev, enum sroce_obj_type type, bool user)
{
	int max = sroce_obj_limit[type];

	if (user)
		max -= max >> SROCE_KERNEL_RESERVE_SHIFT;
	if (atomic_inc_return(&sdev->nobj[type]) > max) {
		atomic_dec(&sdev->nobj[type]);
		return -ENOMEM;
	}
	return 0;
}

void sroce_obj_del(struct sroce_dev *sdev, enum sroce_obj_type type)
{
	WARN_ON_ONCE(atomic_dec_return(&sdev->nobj[type]) < 0);
}

/*
 * The IB MTU (payload per packet) a netdev MTU can carry, or 0 when even
 * 256 bytes do not fit.  See SROCE_ROCEV2_MAX_OVERHEAD.
 */
enum ib_mtu sroce_mtu_from_netdev(unsigned int ndev_mtu)
{
	enum ib_mtu mtu;

	if (ndev_mtu < SROCE_ROCEV2_MAX_OVERHEAD)
		return 0;
	for (mtu = SROCE_PORT_MAX_MTU; mtu >= IB_MTU_256; mtu--)
		if (ib_mtu_enum_to_int(mtu) <=
		    ndev_mtu - SROCE_ROCEV2_MAX_OVERHEAD)
			return mtu;
	return 0;
}

/*
 * The port is ACTIVE when the netdev is administratively up, operationally
 * up (carrier, not dormant) and its MTU carries at least a 256-byte payload.
 */
static enum ib_port_state sroce_port_state_now(struct sroce_dev *sdev)
{
	struct net_device *ndev = sdev->ndev;

	if (netif_running(ndev) && netif_oper_up(ndev) &&
	    sroce_mtu_from_netdev(READ_ONCE(ndev->mtu)))
		return IB_PORT_ACTIVE;
	return IB_PORT_DOWN;
}

/* Called from the netdev notifier: report a port state change, if any. */
void sroce_port_update(struct sroce_dev *sdev)
{
	enum ib_port_state state = sroce_port_state_now(sdev);
	struct ib_event ev = {
		.device = &sdev->ibdev,
		.element.port_num = SROCE_PORT,
	};
	bool changed;

	spin_lock_bh(&sdev->port_lock);
	changed = sdev->port_state != state;
	sdev->port_state = state;
	spin_unlock_bh(&sdev->port_lock);
	if (!changed)
		return;

	ev.event = state == IB_PORT_ACTIVE ? IB_EVENT_PORT_ACTIVE :
					     IB_EVENT_PORT_ERR;
	ibdev_info(&sdev->ibdev, "port %s (%s)\n",
		   state == IB_PORT_ACTIVE ? "active" : "down",
		   netdev_name(sdev->ndev));
	ib_dispatch_event(&ev);
}

/*
 * ib_core's own netdev notifier calls this instead of reporting a port
 * state of its own (which knows nothing of the MTU rule above); ours
 * (main.c) reports the same change once, whichever runs first.
 */
static void __maybe_unused sroce_report_port_event(struct ib_device *ibdev,
						   struct net_device *ndev,
						   unsigned long event)
{
	sroce_port_update(to_sdev(ibdev));
}

/*
 * IB speed and width for the netdev's ethtool link speed: the smallest
 * IB rate that is at least as fast.  An unknown speed (virtio-net, veth)
 * or a netdev on its way out reports SDR 1X (2.5 Gb/s) instead of failing
 * the query.  (ib_get_eth_speed() does similar but logs on every call
 * for an unknown speed, and fails once the netdev is unregistering.)
 */
static void sroce_port_speed(struct net_device *ndev, u16 *speed, u8 *width)
{
	static const struct {
		u32 mbps;
		u16 speed;
		u8 width;
	} rates[] = {
		{   2500, IB_SPEED_SDR,   IB_WIDTH_1X },
		{   5000, IB_SPEED_DDR,   IB_WIDTH_1X },
		{  10000, IB_SPEED_FDR10, IB_WIDTH_1X },
		{  20000, IB_SPEED_DDR,   IB_WIDTH_4X },
		{  25000, IB_SPEED_EDR,   IB_WIDTH_1X },
		{  40000, IB_SPEED_FDR10, IB_WIDTH_4X },
		{  50000, IB_SPEED_HDR,   IB_WIDTH_1X },
		{ 100000, IB_SPEED_EDR,   IB_WIDTH_4X },
		{ 200000, IB_SPEED_HDR,   IB_WIDTH_4X },
		{ 400000, IB_SPEED_NDR,   IB_WIDTH_4X },
	};
	struct ethtool_link_ksettings lks;
	u32 mbps = SPEED_UNKNOWN;
	int i;

	rtnl_lock();
	if (ndev->reg_state == NETREG_REGISTERED &&
	    !__ethtool_get_link_ksettings(ndev, &lks))
		mbps = lks.base.speed;
	rtnl_unlock();

	if (mbps == SPEED_UNKNOWN || !mbps)
		mbps = rates[0].mbps;
	for (i = 0; i < ARRAY_SIZE(rates) - 1; i++)
		if (mbps <= rates[i].mbps)
			break;
	*speed = rates[i].speed;
	*width = rates[i].width;
}

static int sroce_query_device(struct ib_device *ibdev,
			      struct ib_device_attr *attr,
			      struct ib_udata *udata)
{
	/* No driver-specific input is defined; refuse what we can't parse. */
	if (sroce_udata_check(udata, 0))
		return -EINVAL;

	memset(attr, 0, sizeof(*attr));
	attr->fw_ver = (u64)SROCE_FW_MAJOR << 32 | SROCE_FW_MINOR << 16 |
		       SROCE_FW_SUBMINOR;
	attr->sys_image_guid = ibdev->node_guid;
	attr->max_mr_size = SROCE_MAX_MR_SIZE;
	attr->page_size_cap = SROCE_PAGE_SIZE_CAP;
	attr->vendor_id = SROCE_VENDOR_ID;
	attr->vendor_part_id = SROCE_VENDOR_PART_ID;
	attr->hw_ver = SROCE_HW_VER;
	attr->max_qp = SROCE_MAX_QP;
	attr->max_qp_wr = SROCE_MAX_QP_WR;
	attr->device_cap_flags = SROCE_DEVICE_CAP_FLAGS;
	/* Lets "rdma link delete" unregister us. */
	sroce_allow_user_unreg(attr);
	sroce_set_block_mcast_loopback(attr);
	/* Explicit and implicit ODP MRs, every transport and opcode (odp.c). */
	sroce_set_odp(attr);
	attr->odp_caps.general_caps = IB_ODP_SUPPORT | IB_ODP_SUPPORT_IMPLICIT;
	attr->odp_caps.per_transport_caps.rc_odp_caps = SROCE_ODP_RC_CAPS;
	attr->odp_caps.per_transport_caps.uc_odp_caps = SROCE_ODP_UC_CAPS;
	attr->odp_caps.per_transport_caps.ud_odp_caps = SROCE_ODP_UD_CAPS;
	attr->max_send_sge = SROCE_MAX_SGE;
	attr->max_recv_sge = SROCE_MAX_SGE;
	attr->max_sge_rd = SROCE_MAX_SGE_RD;
	attr->max_cq = SROCE_MAX_CQ;
	attr->max_cqe = SROCE_MAX_CQE;
	attr->max_mr = SROCE_MAX_MR;
	attr->max_pd = SROCE_MAX_PD;
	attr->max_qp_rd_atom = SROCE_MAX_QP_RD_ATOM;
	attr->max_res_rd_atom = SROCE_MAX_RES_RD_ATOM;
	attr->max_qp_init_rd_atom = SROCE_MAX_QP_INIT_RD_ATOM;
	attr->atomic_cap = IB_ATOMIC_HCA;
	attr->hca_core_clock = SROCE_HCA_CORE_CLOCK;
	attr->timestamp_mask = SROCE_TIMESTAMP_MASK;
	attr->masked_atomic_cap = IB_ATOMIC_NONE;
	attr->max_mcast_grp = SROCE_MAX_MCAST_GRP;
	attr->max_mcast_qp_attach = SROCE_MAX_MCAST_QP_ATTACH;
	attr->max_total_mcast_qp_attach = SROCE_MAX_TOTAL_MCAST_QP_ATTACH;
	attr->max_ah = SROCE_MAX_AH;
	attr->max_srq = SROCE_MAX_SRQ;
	attr->max_srq_wr = SROCE_MAX_SRQ_WR;
	attr->max_srq_sge = SROCE_MAX_SRQ_SGE;
	attr->max_mw = SROCE_MAX_MW;
	attr->max_fast_reg_page_list_len = SROCE_MAX_FAST_REG_PAGES;
	attr->max_pkeys = SROCE_PORT_PKEY_TBL_LEN;
	attr->local_ca_ack_delay = SROCE_LOCAL_CA_ACK_DELAY;
	return 0;
}

static int sroce_query_port(struct ib_device *ibdev, sroce_port_num_t port,
			    struct ib_port_attr *attr)
{
	struct sroce_dev *sdev = to_sdev(ibdev);
	struct net_device *ndev = sdev->ndev;
	enum ib_mtu mtu = sroce_mtu_from_netdev(READ_ONCE(ndev->mtu));

	/* ib_core has zeroed *attr; lid, sm_lid and friends stay 0. */
	attr->state = sroce_port_state_now(sdev);
	if (attr->state == IB_PORT_ACTIVE)
		attr->phys_state = IB_PORT_PHYS_STATE_LINK_UP;
	else if (netif_running(ndev))
		attr->phys_state = IB_PORT_PHYS_STATE_POLLING;
	else
		attr->phys_state = IB_PORT_PHYS_STATE_DISABLED;
	attr->max_mtu = SROCE_PORT_MAX_MTU;
	attr->active_mtu = mtu ? mtu : IB_MTU_256;
	attr->gid_tbl_len = SROCE_PORT_GID_TBL_LEN;
	attr->port_cap_flags = SROCE_PORT_CAP_FLAGS;
	attr->max_msg_sz = SROCE_PORT_MAX_MSG_SZ;
	attr->pkey_tbl_len = SROCE_PORT_PKEY_TBL_LEN;
	attr->max_vl_num = SROCE_PORT_MAX_VL_NUM;

	sroce_port_speed(ndev, &attr->active_speed, &attr->active_width);
	return 0;
}

static int sroce_query_pkey(struct ib_device *ibdev, sroce_port_num_t port,
			    u16 index, u16 *pkey)
{
	if (index >= SROCE_PORT_PKEY_TBL_LEN)
		return -EINVAL;
	*pkey = IB_DEFAULT_PKEY_FULL;
	return 0;
}

static int sroce_get_port_immutable(struct ib_device *ibdev,
				    sroce_port_num_t port,
				    struct ib_port_immutable *immutable)
{
	/*
	 * RoCE v2 only: sroce has no RoCE v1 (Ethertype 0x8915) transport,
	 * so the GID table must not offer v1 entries an application could
	 * pick.  ib_core fills it from the netdev.
	 */
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	immutable->pkey_tbl_len = SROCE_PORT_PKEY_TBL_LEN;
	immutable->gid_tbl_len = SROCE_PORT_GID_TBL_LEN;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

static enum rdma_link_layer sroce_get_link_layer(struct ib_device *ibdev,
						 sroce_port_num_t port)
{
	return IB_LINK_LAYER_ETHERNET;
}

static int sroce_modify_device(struct ib_device *ibdev, int mask,
			       struct ib_device_modify *props)
{
	if (mask & ~IB_DEVICE_MODIFY_NODE_DESC)
		return -EOPNOTSUPP;
	memcpy(ibdev->node_desc, props->node_desc, IB_DEVICE_NODE_DESC_MAX);
	return 0;
}

static void sroce_get_dev_fw_str(struct ib_device *ibdev, char *str)
{
	strscpy(str, SROCE_FW_VER_STR, IB_FW_VERSION_NAME_MAX);
}

/* ib_core calls this once the device is unregistered, or on failed setup. */
static void sroce_dealloc_driver(struct ib_device *ibdev)
{
	struct sroce_dev *sdev = to_sdev(ibdev);
	int i, n;

	for (i = 0; i < SROCE_OBJ_MAX; i++) {
		n = atomic_read(&sdev->nobj[i]);
		if (n)
			ibdev_warn(ibdev, "%d %s object(s) leaked\n", n,
				   sroce_obj_name[i]);
	}
	n = atomic_read(&sdev->senders);
	if (n)
		ibdev_warn(ibdev, "%d in-flight sender(s) leaked\n", n);
	/* Deferred MR frees still use the device (ib_umem_release). */
	sroce_mr_flush_frees();
	sroce_mcast_cleanup(sdev);
	sroce_txdev_put(sdev->txdev);
	netdev_put(sdev->ndev, &sdev->ndev_tracker);
}

/* sysfs: lets the provider recognise a sroce device whatever its name. */
static ssize_t sroce_abi_show(struct device *device,
			      struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", SROCE_UVERBS_ABI_VERSION);
}

static ssize_t parent_show(struct device *device,
			   struct device_attribute *attr, char *buf)
{
	struct sroce_dev *sdev = rdma_device_to_drv_device(device,
							    struct sroce_dev,
							    ibdev);

	return sysfs_emit(buf, "%s\n", netdev_name(sdev->ndev));
}

static struct device_attribute sroce_dev_attr_abi =
	__ATTR(sroce_abi, 0444, sroce_abi_show, NULL);
static DEVICE_ATTR_RO(parent);

static struct attribute *sroce_dev_attrs[] = {
	&sroce_dev_attr_abi.attr,
	&dev_attr_parent.attr,
	NULL
};

static const struct attribute_group sroce_dev_attr_group = {
	.attrs = sroce_dev_attrs,
};

static const struct ib_device_ops sroce_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = SROCE_DRIVER_ID,
	.uverbs_abi_ver = SROCE_UVERBS_ABI_VERSION,

	.alloc_pd = sroce_alloc_pd,
	.alloc_ucontext = sroce_alloc_ucontext,
	.dealloc_driver = sroce_dealloc_driver,
	.dealloc_pd = sroce_dealloc_pd,
	.dealloc_ucontext = sroce_dealloc_ucontext,
	.disassociate_ucontext = sroce_disassociate_ucontext,
	.get_dev_fw_str = sroce_get_dev_fw_str,
	.get_link_layer = sroce_get_link_layer,
	.get_port_immutable = sroce_get_port_immutable,
	.mmap = sroce_mmap,
	.mmap_free = sroce_mmap_free,
	.modify_device = sroce_modify_device,
	.query_device = sroce_query_device,
	.query_pkey = sroce_query_pkey,
	.query_port = sroce_query_port,
	SROCE_OPS_REPORT_PORT_EVENT(sroce_report_port_event)

	INIT_RDMA_OBJ_SIZE(ib_pd, sroce_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, sroce_ucontext, ibuc),
};

/* Node GUID: the modified EUI-64 of the MAC, as IPv6 addrconf derives it. */
static __be64 sroce_guid_from_mac(const u8 *mac)
{
	u8 eui[8] = {
		mac[0] ^ 0x02, mac[1], mac[2], 0xff, 0xfe, mac[3], mac[4], mac[5]
	};
	__be64 guid;

	memcpy(&guid, eui, sizeof(guid));
	return guid;
}

/*
 * Allocate a device bound to @ndev.  From here on the device owns a
 * reference on @ndev that sroce_dealloc_driver() drops, so the caller
 * undoes a failure with ib_dealloc_device() alone.  In ib_core's
 * exclusive namespace mode the device is born in @ndev's namespace where
 * the kernel can say so (compat.h), else in init_net.
 */
struct sroce_dev *sroce_dev_create(struct net_device *ndev)
{
	struct sroce_dev *sdev;
	int i;

	sdev = sroce_ib_alloc_device(sroce_dev, ibdev, dev_net(ndev));
	if (!sdev)
		return ERR_PTR(-ENOMEM);

	sdev->ndev = ndev;
	sdev->net = dev_net(ndev);
	netdev_hold(ndev, &sdev->ndev_tracker, GFP_KERNEL);
	sroce_mcast_init(sdev);
	sdev->txdev = sroce_txdev_alloc();
	if (!sdev->txdev) {
		ib_dealloc_device(&sdev->ibdev);
		return ERR_PTR(-ENOMEM);
	}
	spin_lock_init(&sdev->port_lock);
	for (i = 0; i < SROCE_OBJ_MAX; i++)
		atomic_set(&sdev->nobj[i], 0);
	atomic_set(&sdev->senders, 0);
	/* Index 0 is never handed out: key 0 and ah_num 0 stay invalid. */
	xa_init_flags(&sdev->qps, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_BH);
	xa_init_flags(&sdev->mrs, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_BH);
	xa_init_flags(&sdev->ahs, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_BH);
	xa_init_flags(&sdev->mws, XA_FLAGS_LOCK_BH);
	xa_init_flags(&sdev->xsrqs, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_BH);
	/*
	 * QPNs (2 to 0xfffffe) and MR indexes start at a random place and
	 * key bytes are random (mr.c): a stranger reaching UDP 4791 must
	 * guess them.
	 */
	sdev->qp_next = 2 + get_random_u32() % (SROCE_QPN_MASK - 2);
	sdev->mr_next = 1 + get_random_u32() % (SROCE_MR_INDEX_MAX - 1);
	spin_lock_init(&sdev->mw_lock);

	/*
	 * Each verbs file contributes its own part of the ops table
	 * (ib_set_device_ops merges them), so adding an object kind touches
	 * only its own file and one line here.
	 */
	ib_set_device_ops(&sdev->ibdev, &sroce_dev_ops);
	ib_set_device_ops(&sdev->ibdev, &sroce_mr_ops);
	ib_set_device_ops(&sdev->ibdev, &sroce_ah_ops);
	ib_set_device_ops(&sdev->ibdev, &sroce_cq_ops);
	ib_set_device_ops(&sdev->ibdev, &sroce_counters_ops);
	ib_set_device_ops(&sdev->ibdev, &sroce_kqp_verbs_ops);
	ib_set_device_ops(&sdev->ibdev, &sroce_srq_ops);
	ib_set_device_ops(&sdev->ibdev, &sroce_xrcd_ops);
	ib_set_device_ops(&sdev->ibdev, &sroce_mw_ops);
	ib_set_device_ops(&sdev->ibdev, &sroce_mcast_ops);
	sroce_set_device_group(&sdev->ibdev, &sroce_dev_attr_group);
	/*
	 * Write commands ib_core does not enable by default: the CQ arm
	 * (ibv_req_notify_cq) and the zero-WR SQ doorbell (post_send).
	 */
	sdev->ibdev.uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_REQ_NOTIFY_CQ) |
				       BIT_ULL(IB_USER_VERBS_CMD_POST_SEND);
	sdev->ibdev.node_type = RDMA_NODE_IB_CA;
	sdev->ibdev.phys_port_cnt = SROCE_NUM_PORTS;
	sdev->ibdev.num_comp_vectors = num_possible_cpus();
	sdev->ibdev.local_dma_lkey = 0;
	sdev->ibdev.node_guid = sroce_guid_from_mac(ndev->dev_addr);
	strscpy(sdev->ibdev.node_desc, SROCE_NODE_DESC,
		sizeof(sdev->ibdev.node_desc));
	return sdev;
}

/*
 * Register @sdev as @name.  On failure the device is freed; on success it
 * belongs to ib_core and may be unregistered (and freed) at any time.
 */
int sroce_dev_register(struct sroce_dev *sdev, const char *name)
{
	int err;

	err = ib_device_set_netdev(&sdev->ibdev, sdev->ndev, SROCE_PORT);
	if (err)
		goto err_free;

	sdev->port_state = sroce_port_state_now(sdev);
	err = ib_register_device(&sdev->ibdev, name, NULL);
	if (err)
		goto err_free;
	return 0;

err_free:
	ib_dealloc_device(&sdev->ibdev);
	return err;
}
