/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Helpers shared by the VM test programs (tests/vm/verbs and
 * tests/vm/provider): header-only, as each program is one file.
 */
#ifndef SROCE_VM_VERBS_H
#define SROCE_VM_VERBS_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <infiniband/verbs.h>

/* Open the verbs device called @name; NULL if there is none. */
static inline struct ibv_context *vm_open_dev(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	for (i = 0; list && list[i] && !ctx; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	return ctx;
}

/*
 * Poll @cq for one completion into *@wc: its status (printed when not
 * a success), or -1 on error or after a bounded spin.
 */
static inline int vm_wait_wc(struct ibv_cq *cq, struct ibv_wc *wc)
{
	long spins = 0;
	int n;

	while (spins++ < 400000000L) {
		n = ibv_poll_cq(cq, 1, wc);
		if (n < 0)
			return -1;
		if (n == 1) {
			if (wc->status != IBV_WC_SUCCESS)
				printf("wc %s opcode %d wr_id %llu\n",
				       ibv_wc_status_str(wc->status),
				       wc->opcode,
				       (unsigned long long)wc->wr_id);
			return wc->status;
		}
	}
	return -1;
}

/*
 * Bring the RC QP @qp from RESET to RTS towards QPN @dqpn at @gid (our
 * port 1, source GID index @gidx, path MTU 1024, PSNs 0, one READ or
 * atomic outstanding each way), the peer granted @access.  -1 on error.
 */
static inline int vm_connect_rc(struct ibv_qp *qp, uint32_t dqpn,
				const union ibv_gid *gid, int gidx,
				unsigned int access)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = access,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dqpn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.dgid = *gid;
	a.ah_attr.grh.sgid_index = gidx;
	a.ah_attr.grh.hop_limit = 64;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			     IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

/* A mapping of the device file: [start, end), at page offset @pgoff. */
struct vm_map {
	unsigned long start, end, pgoff;
};

/*
 * This process's mappings of /dev/infiniband/uverbs* (the rings the
 * device shares with it), at most @max into @m; their total size in KiB
 * into *@kib if it is not NULL.  -1 if /proc/self/maps cannot be read.
 */
static inline int vm_uverbs_maps(struct vm_map *m, int max,
				 unsigned long *kib)
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long s, e, off, total = 0;
	char line[512];
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, "/dev/infiniband/uverbs") ||
		    sscanf(line, "%lx-%lx %*s %lx", &s, &e, &off) != 3)
			continue;
		total += (e - s) >> 10;
		if (n < max) {
			m[n].start = s;
			m[n].end = e;
			m[n].pgoff = off;
			n++;
		}
	}
	fclose(f);
	if (kib)
		*kib = total;
	return n;
}

#endif /* SROCE_VM_VERBS_H */
