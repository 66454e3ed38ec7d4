// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * mcast: UD multicast through the sroce provider.
 *
 *   mcast recv DEV GID_INDEX GROUP READY GO   (guest a)
 *   mcast send DEV GID_INDEX GROUP            (guest b)
 *
 * GROUP is an IPv4 group address (the GID is ::ffff:GROUP) or an IPv6
 * one, GID_INDEX a RoCE v2 GID of the same family.  The
 * receiver checks the device's multicast limits and the error rows
 * (attach of an RC QP or to a unicast GID: EINVAL; a detach of a group
 * not attached: EINVAL; a second attach: no-op; the 57th QP of a group:
 * ENOMEM; BLOCK_SELF_MCAST_LB on an RC QP: refused; destroy of an
 * attached QP: EBUSY), then attaches receivers R0..R2, a QP with another
 * Q_Key, a QP attached then detached, and two local senders: L0 created
 * with IBV_QP_CREATE_BLOCK_SELF_MCAST_LB, L1 without.  It creates READY
 * and waits for GO, while guest b's "send" sends NREMOTE messages to the
 * group.  Then L0 and L1 send NLOCAL each.  Every attached QP with the
 * group's Q_Key must receive every message exactly once (GRH and payload
 * checked), except L0 its own; the detached QP and the other Q_Key none,
 * the latter counted in rx_drop_bad_qkey.  Output ends with
 * "mcast: N passed, M failed".
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "../verbs/vm-verbs.h"
#include "vm-check.h"

#define QKEY		0x11111111u
#define MSG		64
#define NREMOTE		8
#define NLOCAL		4
#define NMSG		(NREMOTE + 2 * NLOCAL)
#define NRECV		32	/* receive buffers per QP, more than NMSG */
#define GRH		40

/* The receiver's QPs. */
enum { R0, R1, R2, QK, DET, L0, L1, NQP };
static const char *const qp_name[NQP] = {
	"R0", "R1", "R2", "other-qkey", "detached", "L0", "L1"
};

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_mr *mr;
static uint8_t buf[(NQP * NRECV + NQP) * (GRH + MSG)];
static int gidx;
static union ibv_gid sgid, group;
static bool v6;
static struct ibv_qp *qp[NQP];
static unsigned int got[NQP][NMSG];
static unsigned int bad_wc;

static uint8_t *slot(int q, int i)
{
	return buf + (q * NRECV + i) * (GRH + MSG);
}

static uint8_t *send_buf(int q)
{
	return buf + (NQP * NRECV + q) * (GRH + MSG);
}

static struct ibv_qp *ud_qp(uint32_t flags)
{
	struct ibv_qp_init_attr_ex ia = {
		.send_cq = cq, .recv_cq = cq,
		.cap = { .max_send_wr = 16, .max_recv_wr = NRECV,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_UD,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = pd,
	};

	if (flags) {
		ia.comp_mask |= IBV_QP_INIT_ATTR_CREATE_FLAGS;
		ia.create_flags = flags;
	}
	return ibv_create_qp_ex(ctx, &ia);
}

/* RESET to RTS with Q_Key @qkey: 0 or the errno. */
static int ud_up(struct ibv_qp *q, uint32_t qkey)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qkey = qkey };
	int ret;

	ret = ibv_modify_qp(q, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_QKEY);
	a.qp_state = IBV_QPS_RTR;
	ret = ret ?: ibv_modify_qp(q, &a, IBV_QP_STATE);
	a.qp_state = IBV_QPS_RTS;
	return ret ?: ibv_modify_qp(q, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
}

static struct ibv_ah *group_ah(void)
{
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1 };

	aa.grh.dgid = group;
	aa.grh.sgid_index = gidx;
	aa.grh.hop_limit = 1;
	return ibv_create_ah(pd, &aa);
}

static int post_recvs(int q)
{
	struct ibv_recv_wr wr = {}, *bad;
	struct ibv_sge sge;
	int i, ret = 0;

	for (i = 0; i < NRECV && !ret; i++) {
		sge.addr = (uintptr_t)slot(q, i);
		sge.length = GRH + MSG;
		sge.lkey = mr->lkey;
		wr.wr_id = (uint64_t)q << 16 | i;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		ret = ibv_post_recv(qp[q], &wr, &bad);
	}
	return ret;
}

/* Send message @id to the group from @q (buffer @b): 0 or an errno. */
static int send_id(struct ibv_qp *q, uint8_t *b, struct ibv_ah *ah,
		   uint32_t id)
{
	struct ibv_send_wr wr = {}, *bad;
	struct ibv_sge sge = {
		.addr = (uintptr_t)b, .length = MSG, .lkey = mr->lkey
	};

	memset(b, (int)id, MSG);
	memcpy(b, &id, sizeof(id));
	wr.wr_id = id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = 0xffffff;
	wr.wr.ud.remote_qkey = QKEY;
	return ibv_post_send(q, &wr, &bad);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The receive completion @wc: which QP, which message, intact? */
static void account(const struct ibv_wc *wc)
{
	int q = wc->wr_id >> 16, i = wc->wr_id & 0xffff;
	uint32_t id;
	uint8_t *p;
	int k;

	if (q >= NQP || i >= NRECV || wc->status != IBV_WC_SUCCESS ||
	    wc->byte_len != GRH + MSG || !(wc->wc_flags & IBV_WC_GRH)) {
		bad_wc++;
		return;
	}
	p = slot(q, i);
	memcpy(&id, p + GRH, sizeof(id));
	/*
	 * The GRH image: IPv6, the header itself; IPv4, the header in the
	 * last 20 bytes.  Either way to the group.
	 */
	if (id >= NMSG ||
	    (v6 && ((p[0] >> 4) != 6 || memcmp(p + 24, group.raw, 16))) ||
	    (!v6 && (p[GRH - 20] != 0x45 ||
		     memcmp(p + GRH - 4, group.raw + 12, 4)))) {
		bad_wc++;
		return;
	}
	for (k = sizeof(id); k < MSG; k++)
		if (p[GRH + k] != (uint8_t)id) {
			bad_wc++;
			return;
		}
	got[q][id]++;
}

/*
 * Poll until @want receive completions arrived, then @quiet_ms more to
 * catch any duplicate.  False on a timeout.
 */
static bool reap(unsigned int want, unsigned int quiet_ms)
{
	uint64_t end = now_ms() + 20000, quiet = 0;
	unsigned int n = 0;
	struct ibv_wc wc[8];
	int i, k;

	for (;;) {
		k = ibv_poll_cq(cq, 8, wc);
		if (k < 0)
			return false;
		for (i = 0; i < k; i++) {
			if (wc[i].opcode & IBV_WC_RECV) {
				account(&wc[i]);
				n++;
			} else if (wc[i].status != IBV_WC_SUCCESS) {
				bad_wc++;
			}
		}
		if (n >= want && !quiet)
			quiet = now_ms() + quiet_ms;
		if (quiet && now_ms() >= quiet)
			return true;
		if (!quiet && now_ms() >= end)
			return false;
		if (!k)
			usleep(1000);
	}
}

static long counter(const char *dev, const char *name)
{
	char path[256];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/1/hw_counters/%s", dev, name);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

static void limits_and_errors(void)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq, .recv_cq = cq,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_device_attr da;
	struct ibv_qp *many[57], *rc, *q;
	union ibv_gid uni = sgid;
	int i, n, ret;

	CHECK("query_device", !ibv_query_device(ctx, &da));
	printf("max_mcast_grp %d max_mcast_qp_attach %d max_total_mcast_qp_attach %d\n",
	       da.max_mcast_grp, da.max_mcast_qp_attach,
	       da.max_total_mcast_qp_attach);
	CHECK("limits at least rdma_rxe's", da.max_mcast_grp >= 8192 &&
	      da.max_mcast_qp_attach >= 56 &&
	      da.max_total_mcast_qp_attach >=
	      da.max_mcast_grp * da.max_mcast_qp_attach);

	rc = ibv_create_qp(pd, &ia);
	CHECK("attach an RC QP: EINVAL",
	      rc && ibv_attach_mcast(rc, &group, 0) == EINVAL);
	if (rc)
		ibv_destroy_qp(rc);
	errno = 0;
	{
		struct ibv_qp_init_attr_ex ix = {
			.send_cq = cq, .recv_cq = cq,
			.cap = ia.cap, .qp_type = IBV_QPT_RC,
			.comp_mask = IBV_QP_INIT_ATTR_PD |
				     IBV_QP_INIT_ATTR_CREATE_FLAGS,
			.pd = pd,
			.create_flags = IBV_QP_CREATE_BLOCK_SELF_MCAST_LB,
		};

		rc = ibv_create_qp_ex(ctx, &ix);
		CHECK("BLOCK_SELF_MCAST_LB on RC: refused", !rc && errno);
		if (rc)
			ibv_destroy_qp(rc);
	}

	q = ud_qp(0);
	CHECK("UD QP", q != NULL);
	if (!q)
		return;
	CHECK("attach to a unicast GID: EINVAL",
	      ibv_attach_mcast(q, &uni, 0) == EINVAL);
	CHECK("detach from a group not attached: EINVAL",
	      ibv_detach_mcast(q, &group, 0) == EINVAL);
	CHECK("attach twice: the second a no-op",
	      !ibv_attach_mcast(q, &group, 0) &&
	      !ibv_attach_mcast(q, &group, 0));
	CHECK("destroy of an attached QP: EBUSY", ibv_destroy_qp(q) == EBUSY);
	CHECK("one detach ends it, a second: EINVAL",
	      !ibv_detach_mcast(q, &group, 0) &&
	      ibv_detach_mcast(q, &group, 0) == EINVAL);
	CHECK("destroy once detached", !ibv_destroy_qp(q));

	/* max_mcast_qp_attach QPs in one group, and not one more. */
	for (n = 0; n < 57; n++) {
		many[n] = ud_qp(0);
		if (!many[n])
			break;
	}
	CHECK("57 UD QPs", n == 57);
	ret = 0;
	for (i = 0; i < n && i < da.max_mcast_qp_attach && !ret; i++)
		ret = ibv_attach_mcast(many[i], &group, 0);
	CHECK("max_mcast_qp_attach QPs attach", !ret && i == da.max_mcast_qp_attach);
	if (n == 57 && da.max_mcast_qp_attach == 56)
		CHECK("one more: ENOMEM",
		      ibv_attach_mcast(many[56], &group, 0) == ENOMEM);
	ret = 0;
	for (i = 0; i < n; i++) {
		if (i < da.max_mcast_qp_attach)
			ret |= ibv_detach_mcast(many[i], &group, 0);
		ret |= ibv_destroy_qp(many[i]);
	}
	CHECK("detach and destroy them", !ret);
}

static int recv_side(const char *dev, const char *ready, const char *go)
{
	struct ibv_ah *ah;
	unsigned int want[NQP] = {}, exp;
	long qk0, qk1;
	uint32_t id;
	FILE *f;
	int q, ret = 0;

	limits_and_errors();

	for (q = 0; q < NQP; q++) {
		qp[q] = ud_qp(q == L0 ? IBV_QP_CREATE_BLOCK_SELF_MCAST_LB : 0);
		if (!qp[q] || ud_up(qp[q], q == QK ? 0x22222222 : QKEY) ||
		    post_recvs(q)) {
			ret = -1;
			break;
		}
		ret = ibv_attach_mcast(qp[q], &group, 0);
		if (ret)
			break;
	}
	CHECK("receivers up, attached", !ret);
	CHECK("detach one", !ret && !ibv_detach_mcast(qp[DET], &group, 0));
	ah = group_ah();
	CHECK("AH to the group", ah != NULL);
	if (ret || !ah)
		return -1;
	qk0 = counter(dev, "rx_drop_bad_qkey");

	f = fopen(ready, "w");
	if (f)
		fclose(f);
	while (access(go, F_OK))
		usleep(20000);

	/* Guest b's NREMOTE: every attached QP with the Q_Key, once. */
	for (q = 0; q < NQP; q++)
		want[q] = q == R0 || q == R1 || q == R2 || q == L0 || q == L1;
	exp = 5 * NREMOTE;
	CHECK("remote messages arrive", reap(exp, 500));
	/* L0 blocks its own, L1 does not; each reaches the others. */
	for (id = NREMOTE; id < NREMOTE + NLOCAL; id++)
		CHECK("L0 sends", !send_id(qp[L0], send_buf(L0), ah, id));
	CHECK("L0's messages arrive", reap(4 * NLOCAL, 500));
	for (id = NREMOTE + NLOCAL; id < NMSG; id++)
		CHECK("L1 sends", !send_id(qp[L1], send_buf(L1), ah, id));
	CHECK("L1's messages arrive", reap(5 * NLOCAL, 500));
	qk1 = counter(dev, "rx_drop_bad_qkey");

	for (q = 0; q < NQP; q++) {
		bool ok = true;

		for (id = 0; id < NMSG; id++) {
			exp = want[q];
			if (q == L0 && id >= NREMOTE && id < NREMOTE + NLOCAL)
				exp = 0;	/* its own, blocked */
			if (got[q][id] != exp) {
				printf("  %s got message %u %u times, expected %u\n",
				       qp_name[q], id, got[q][id], exp);
				ok = false;
			}
		}
		printf("%s: %s\n", qp_name[q], ok ? "as expected" : "WRONG");
		CHECK(qp_name[q], ok);
	}
	CHECK("no bad completion", !bad_wc);
	printf("rx_drop_bad_qkey %ld -> %ld\n", qk0, qk1);
	CHECK("other Q_Key: each message counted in rx_drop_bad_qkey",
	      qk0 >= 0 && qk1 - qk0 >= NMSG);

	ibv_destroy_ah(ah);
	ret = 0;
	for (q = 0; q < NQP; q++) {
		if (q != DET)
			ret |= ibv_detach_mcast(qp[q], &group, 0);
		ret |= ibv_destroy_qp(qp[q]);
	}
	CHECK("detach and destroy", !ret);
	return 0;
}

static int send_side(void)
{
	struct ibv_wc wc[NREMOTE];
	struct ibv_qp *s;
	struct ibv_ah *ah;
	uint32_t id;
	int n = 0, k, tries = 0;

	s = ud_qp(0);
	ah = group_ah();
	CHECK("sender up", s && !ud_up(s, QKEY) && ah);
	if (!s || !ah)
		return -1;
	for (id = 0; id < NREMOTE; id++)
		CHECK("send", !send_id(s, send_buf(0), ah, id));
	while (n < NREMOTE && tries++ < 20000) {
		k = ibv_poll_cq(cq, NREMOTE, wc);
		if (k < 0)
			break;
		for (int i = 0; i < k; i++)
			if (wc[i].status != IBV_WC_SUCCESS)
				bad_wc++;
		n += k;
		if (!k)
			usleep(1000);
	}
	CHECK("send completions", n == NREMOTE && !bad_wc);
	CHECK("sender teardown", !ibv_destroy_ah(ah) && !ibv_destroy_qp(s));
	return 0;
}

int main(int argc, char **argv)
{
	struct in_addr g;
	bool recv;

	if (argc >= 5 && inet_pton(AF_INET6, argv[4], group.raw) == 1)
		v6 = true;
	if (argc < 5 || (strcmp(argv[1], "recv") && strcmp(argv[1], "send")) ||
	    (!strcmp(argv[1], "recv") && argc < 7) ||
	    (!v6 && inet_pton(AF_INET, argv[4], &g) != 1)) {
		fprintf(stderr, "usage: mcast recv DEV GID_INDEX GROUP READY GO\n"
			"       mcast send DEV GID_INDEX GROUP\n");
		return 2;
	}
	recv = !strcmp(argv[1], "recv");
	gidx = atoi(argv[3]);
	if (!v6) {
		memset(&group, 0, sizeof(group));
		group.raw[10] = 0xff;
		group.raw[11] = 0xff;
		memcpy(group.raw + 12, &g, 4);
	}
	ctx = vm_open_dev(argv[2]);
	pd = ctx ? ibv_alloc_pd(ctx) : NULL;
	cq = pd ? ibv_create_cq(ctx, 512, NULL, NULL, 0) : NULL;
	mr = cq ? ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE) :
		  NULL;
	if (!mr || ibv_query_gid(ctx, 1, gidx, &sgid)) {
		printf("FAIL setup\nmcast: 0 passed, 1 failed\n");
		return 1;
	}
	if (recv)
		recv_side(argv[2], argv[5], argv[6]);
	else
		send_side();
	CHECK("teardown", !ibv_dereg_mr(mr) && !ibv_destroy_cq(cq) &&
	      !ibv_dealloc_pd(pd) && !ibv_close_device(ctx));
	printf("mcast: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
