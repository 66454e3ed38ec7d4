// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * sroce libibverbs provider: device matching and the control verbs.
 *
 * The data path lives in mr.c, cq.c, qp.c, srq.c, send.c and ah.c; PDs,
 * thread, parent and XRC domains in pd.c.  Verbs left out of the ops
 * table (flow steering, work queues...) are answered with EOPNOTSUPP by
 * libibverbs itself.
 */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/driver.h>
#include <infiniband/verbs.h>

#include "sroce.h"

static_assert(sizeof(struct sroce_get_context_resp) ==
	      sizeof(struct ib_uverbs_get_context_resp) +
	      sizeof(struct sroce_alloc_ucontext_resp),
	      "sroce udata must follow the core reply without padding");

/* A hit here is only a candidate: sroce_match_device() has the last word. */
static const struct verbs_match_ent sroce_match_table[] = {
	VERBS_DRIVER_ID(SROCE_DRIVER_ID),
	VERBS_NAME_MATCH("sroce", NULL),
	{}
};

/*
 * libibverbs calls this after its table match, for every device it has
 * not yet given to a provider.  The kernel's driver id (from netlink) is
 * authoritative both ways: ours means yes, anyone else's means no, so a
 * foreign device named "sroce*" is never taken.  Only when the id is
 * unknown (no netlink, sysfs fallback) does the sroce sysfs attribute
 * decide; that is what still finds a renamed device there, and it keeps a
 * bare name match from claiming a device that merely looks like ours.
 */
static bool sroce_match_device(struct verbs_sysfs_dev *sysfs_dev)
{
	char buf[16];

	if (sysfs_dev->driver_id == SROCE_DRIVER_ID)
		return true;
	if (sysfs_dev->driver_id != RDMA_DRIVER_UNKNOWN)
		return false;

	return ibv_read_ibdev_sysfs_file(buf, sizeof(buf), sysfs_dev, "%s",
					 SROCE_SYSFS_DRIVER_ATTR) > 0;
}

static int sroce_query_device(struct ibv_context *ibctx,
			      const struct ibv_query_device_ex_input *input,
			      struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct ib_uverbs_ex_query_device_resp resp;
	size_t resp_size = sizeof(resp);
	uint64_t fw;
	int ret;

	ret = ibv_cmd_query_device_any(ibctx, input, attr, attr_size,
				       &resp, &resp_size);
	if (ret)
		return ret;

	/* uverbs carries the firmware version only as a number. */
	fw = resp.base.fw_ver;
	snprintf(attr->orig_attr.fw_ver, sizeof(attr->orig_attr.fw_ver),
		 "%u.%u.%u", (unsigned int)(fw >> 32) & 0xffff,
		 (unsigned int)(fw >> 16) & 0xffff, (unsigned int)fw & 0xffff);
	return 0;
}

static int sroce_query_port(struct ibv_context *ibctx, uint8_t port,
			    struct ibv_port_attr *attr)
{
	struct ibv_query_port cmd;

	return ibv_cmd_query_port(ibctx, port, attr, &cmd, sizeof(cmd));
}

static void sroce_free_context(struct ibv_context *ibctx)
{
	struct sroce_context *ctx = to_sroce_ctx(ibctx);

	verbs_uninit_context(&ctx->vctx);
	free(ctx);
}

static const struct verbs_context_ops sroce_ctx_ops = {
	.advise_mr = sroce_advise_mr,
	.alloc_mw = sroce_alloc_mw,
	.alloc_parent_domain = sroce_alloc_parent_domain,
	.alloc_pd = sroce_alloc_pd,
	.alloc_td = sroce_alloc_td,
	.attach_mcast = sroce_attach_mcast,
	.bind_mw = sroce_bind_mw,
	.close_xrcd = sroce_close_xrcd,
	.create_ah = sroce_create_ah,
	.create_cq = sroce_create_cq,
	.create_cq_ex = sroce_create_cq_ex,
	.create_qp = sroce_create_qp,
	.create_qp_ex = sroce_create_qp_ex,
	.create_srq = sroce_create_srq,
	.create_srq_ex = sroce_create_srq_ex,
	.dealloc_mw = sroce_dealloc_mw,
	.dealloc_pd = sroce_dealloc_pd,
	.dealloc_td = sroce_dealloc_td,
	.dereg_mr = sroce_dereg_mr,
	.destroy_ah = sroce_destroy_ah,
	.destroy_cq = sroce_destroy_cq,
	.destroy_qp = sroce_destroy_qp,
	.destroy_srq = sroce_destroy_srq,
	.detach_mcast = sroce_detach_mcast,
	.free_context = sroce_free_context,
	.get_srq_num = sroce_get_srq_num,
	.modify_qp = sroce_modify_qp,
	.modify_srq = sroce_modify_srq,
	.open_qp = sroce_open_qp,
	.open_xrcd = sroce_open_xrcd,
	.poll_cq = sroce_poll_cq,
	.post_recv = sroce_post_recv,
	.post_send = sroce_post_send,
	.post_srq_recv = sroce_post_srq_recv,
	.query_device_ex = sroce_query_device,
	.query_port = sroce_query_port,
	.query_qp = sroce_query_qp,
	.query_rt_values = sroce_query_rt_values,
	.query_srq = sroce_query_srq,
	.reg_mr = sroce_reg_mr,
	.rereg_mr = sroce_rereg_mr,
	.req_notify_cq = sroce_req_notify_cq,
	.resize_cq = sroce_resize_cq,
};

static struct verbs_context *sroce_alloc_context(struct ibv_device *ibdev,
						 int cmd_fd, void *private_data)
{
	struct sroce_get_context_resp resp = {};
	struct ibv_get_context cmd;
	struct sroce_context *ctx;
	int ret;

	ctx = verbs_init_and_alloc_context(ibdev, cmd_fd, ctx, vctx,
					   SROCE_DRIVER_ID);
	if (!ctx)
		return NULL;

	ret = ibv_cmd_get_context(&ctx->vctx, &cmd, sizeof(cmd),
				  &resp.ibv_resp, sizeof(resp));
	if (ret)
		goto err;

	/*
	 * The uverbs abi_version already matched at probe time; this catches
	 * a kernel whose udata layout disagrees with ours despite that.
	 */
	if (resp.drv.abi_version != SROCE_UVERBS_ABI_VERSION) {
		verbs_err(&ctx->vctx, "kernel udata ABI %u, provider ABI %u\n",
			  resp.drv.abi_version, SROCE_UVERBS_ABI_VERSION);
		ret = EPROTO;
		goto err;
	}

	verbs_set_ops(&ctx->vctx, &sroce_ctx_ops);
	return &ctx->vctx;

err:
	verbs_uninit_context(&ctx->vctx);
	free(ctx);
	errno = ret;
	return NULL;
}

static struct verbs_device *sroce_alloc_device(struct verbs_sysfs_dev *sdev)
{
	struct sroce_device *dev;

	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return NULL;
	return &dev->vdev;
}

static void sroce_uninit_device(struct verbs_device *vdev)
{
	free(to_sroce_dev(vdev));
}

static const struct verbs_device_ops sroce_dev_ops = {
	.name = "sroce",
	.match_min_abi_version = SROCE_UVERBS_ABI_VERSION,
	.match_max_abi_version = SROCE_UVERBS_ABI_VERSION,
	.match_table = sroce_match_table,
	.match_device = sroce_match_device,
	.alloc_device = sroce_alloc_device,
	.uninit_device = sroce_uninit_device,
	.alloc_context = sroce_alloc_context,
};

PROVIDER_DRIVER(sroce, sroce_dev_ops);
