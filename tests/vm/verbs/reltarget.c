// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * reltarget: the target of tests/vm/reliability.  Registers MRs with a
 * known pattern, brings up RC QPs and a UD QP, prints where they are
 * (QPNs, PSNs, VAs, R_Keys) as shell assignments for tools/sroce-inject
 * to aim at, keeps polling its CQ, and on SIGTERM checks that no byte it
 * did not allow to change has changed.
 *
 *   reltarget -d DEV -g GID_INDEX --peer-gid ADDR --info FILE [options]
 *
 * Memory (each region 4096 bytes, pattern-filled):
 *   RW   REMOTE_WRITE|READ|ATOMIC, between two unregistered guard pages
 *   RO   REMOTE_READ only
 *   FX   REMOTE_WRITE, but in another PD (a "foreign" R_Key)
 *   LO   local access only
 * RC QP i (--rc N, default 8) is in RTS, connected to QPN 0xf000+i at the
 * peer, expecting PSN 0x100000+i*0x100 and sending from 0x200000+i*0x100.
 * With --connect FILE, QP 0 is instead connected to the QPN and PSN
 * written in FILE ("QPN PSN VA RKEY": the peer's QP 0, its send PSN,
 * its RW MR), once it appears.
 *
 * On SIGTERM: guards, RO, FX and LO must hold their pattern; RW must too
 * except its first 64 bytes, which must be --expect-write BYTE if given.
 * With --fuzzed, RW may hold anything (valid R_Keys were fuzzed at it).
 * Prints each QP's state and the UD receives, exits 0 if memory is intact.
 *
 * Once QP 0 is connected, FILE.up is created.
 * --retry (with --connect): WRITE 4 KiB to the peer's RW, expect success,
 * create FILE.ready, wait for FILE.go, WRITE again and expect
 * IBV_WC_RETRY_EXC_ERR (the script cut the wire in between): any other
 * status, or none within --timeout, fails.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#define PAGE		4096
#define MAX_RC		32
#define FAKE_QPN	0xf000
#define QKEY		0x11111111u
#define NRECV		4

static struct {
	const char *dev, *info, *connect;
	const char *peer;
	int gid_index, nrc, expect_write, timeout;
	bool fuzzed, retry;
} opt = { .gid_index = -1, .nrc = 8, .expect_write = -1, .timeout = 60 };

static struct ibv_context *ctx;
static struct ibv_pd *pd, *pd2;
static struct ibv_cq *cq;
static struct ibv_qp *rc[MAX_RC], *ud;
static struct ibv_mr *mr_rw, *mr_ro, *mr_fx, *mr_lo, *mr_recv;
static uint8_t *rw_buf;		/* guard | RW | guard */
static uint8_t *ro_buf, *fx_buf, *lo_buf, *recv_buf;
static union ibv_gid peer_gid;
static volatile sig_atomic_t stop;
static unsigned long ud_recvs, recv_errs, other_wcs;

static void die(const char *what)
{
	fprintf(stderr, "reltarget: %s: %s\n", what, strerror(errno));
	exit(2);
}

static uint8_t pat(unsigned int region, size_t i)
{
	return (uint8_t)(i * 7 + region * 0x31 + 0x11);
}

static void fill(uint8_t *p, unsigned int region, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = pat(region, i);
}

/* Bytes of @p[from, to) that differ from the pattern; reports the first. */
static size_t check(const char *name, const uint8_t *p, unsigned int region,
		    size_t from, size_t to)
{
	size_t i, bad = 0;

	for (i = from; i < to; i++) {
		if (p[i] == pat(region, i))
			continue;
		if (!bad++)
			printf("reltarget: %s: byte %zu is 0x%02x, pattern 0x%02x\n",
			       name, i, p[i], pat(region, i));
	}
	if (bad)
		printf("reltarget: %s: %zu bytes changed\n", name, bad);
	return bad;
}

static void *page_alloc(size_t n)
{
	void *p;

	if (posix_memalign(&p, PAGE, n))
		die("posix_memalign");
	return p;
}

static void post_recv(struct ibv_qp *qp, unsigned int slot)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)recv_buf + slot * 2048,
		.length = 2048, .lkey = mr_recv->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = slot, .sg_list = &sge, .num_sge = 1 }, *bad;

	errno = ibv_post_recv(qp, &wr, &bad);
	if (errno)
		die("ibv_post_recv");
}

static void rc_connect(int i, uint32_t dqpn, uint32_t rq_psn, uint32_t sq_psn)
{
	struct ibv_qp *qp = rc[i];
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_ACCESS_FLAGS))
		die("RC to INIT");
	/* Receives are taken from INIT on, not in RESET. */
	post_recv(qp, 2 * i);
	post_recv(qp, 2 * i + 1);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dqpn;
	a.rq_psn = rq_psn;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = peer_gid;
	a.ah_attr.grh.sgid_index = opt.gid_index;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		die("RC to RTR");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = sq_psn;
	/*
	 * 4.096 us << 14 = 67 ms per try, 3 retries: exhaustion still takes
	 * well under a second, and the WRITE before the cut has 268 ms.  At
	 * 4 ms a try it once ran out in 20 ms (make soak, 6.12), where a
	 * TCG guest's first round trip on a quiet path took longer.
	 */
	a.timeout = 14;
	a.retry_cnt = 3;
	a.rnr_retry = 3;
	a.max_rd_atomic = 4;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
			  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC))
		die("RC to RTS");
}

static struct ibv_qp *qp_new(enum ibv_qp_type t)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq, .recv_cq = cq, .qp_type = t,
		.cap = { .max_send_wr = 4, .max_recv_wr = NRECV,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &ia);

	if (!qp)
		die("ibv_create_qp");
	return qp;
}

static void ud_up(void)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = QKEY };
	unsigned int i;

	ud = qp_new(IBV_QPT_UD);
	if (ibv_modify_qp(ud, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_QKEY))
		die("UD to INIT");
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(ud, &a, IBV_QP_STATE))
		die("UD to RTR");
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	if (ibv_modify_qp(ud, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
		die("UD to RTS");
	for (i = 0; i < NRECV; i++)
		post_recv(ud, MAX_RC * 2 + i);
}

static void setup(void)
{
	struct ibv_device **l = ibv_get_device_list(NULL);
	int i;

	for (i = 0; l && l[i]; i++)
		if (!opt.dev || !strcmp(ibv_get_device_name(l[i]), opt.dev))
			break;
	if (!l || !l[i])
		die("no such device");
	ctx = ibv_open_device(l[i]);
	ibv_free_device_list(l);
	if (!ctx)
		die("ibv_open_device");
	pd = ibv_alloc_pd(ctx);
	pd2 = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 256, NULL, NULL, 0);
	if (!pd || !pd2 || !cq)
		die("PD/CQ");
	rw_buf = page_alloc(3 * PAGE);
	ro_buf = page_alloc(PAGE);
	fx_buf = page_alloc(PAGE);
	lo_buf = page_alloc(PAGE);
	recv_buf = page_alloc((MAX_RC * 2 + NRECV) * 2048);
	fill(rw_buf, 0, 3 * PAGE);
	fill(ro_buf, 1, PAGE);
	fill(fx_buf, 2, PAGE);
	fill(lo_buf, 3, PAGE);
	mr_rw = ibv_reg_mr(pd, rw_buf + PAGE, PAGE, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			   IBV_ACCESS_REMOTE_ATOMIC);
	mr_ro = ibv_reg_mr(pd, ro_buf, PAGE, IBV_ACCESS_REMOTE_READ);
	mr_fx = ibv_reg_mr(pd2, fx_buf, PAGE, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE);
	mr_lo = ibv_reg_mr(pd, lo_buf, PAGE, IBV_ACCESS_LOCAL_WRITE);
	mr_recv = ibv_reg_mr(pd, recv_buf, (MAX_RC * 2 + NRECV) * 2048,
			     IBV_ACCESS_LOCAL_WRITE);
	if (!mr_rw || !mr_ro || !mr_fx || !mr_lo || !mr_recv)
		die("ibv_reg_mr");
	for (i = 0; i < opt.nrc; i++) {
		rc[i] = qp_new(IBV_QPT_RC);
		if (!(i == 0 && opt.connect))
			rc_connect(i, FAKE_QPN + i, 0x100000 + i * 0x100,
				   0x200000 + i * 0x100);
	}
	ud_up();
}

static void write_info(void)
{
	char tmp[4096];
	FILE *f;
	int i;

	snprintf(tmp, sizeof(tmp), "%s.tmp", opt.info);
	f = fopen(tmp, "w");
	if (!f)
		die(tmp);
	fprintf(f, "RC_QPN=(");
	for (i = 0; i < opt.nrc; i++)
		fprintf(f, " 0x%x", rc[i]->qp_num);
	fprintf(f, " )\nRC_RPSN=(");
	for (i = 0; i < opt.nrc; i++)
		fprintf(f, " 0x%x", 0x100000 + i * 0x100);
	fprintf(f, " )\nRC_SPSN=(");
	for (i = 0; i < opt.nrc; i++)
		fprintf(f, " 0x%x", 0x200000 + i * 0x100);
	fprintf(f, " )\n");
	fprintf(f, "RW_VA=0x%" PRIxPTR " RW_RKEY=0x%x RW_LEN=%d\n",
		(uintptr_t)rw_buf + PAGE, mr_rw->rkey, PAGE);
	fprintf(f, "RO_VA=0x%" PRIxPTR " RO_RKEY=0x%x\n", (uintptr_t)ro_buf, mr_ro->rkey);
	fprintf(f, "FX_VA=0x%" PRIxPTR " FX_RKEY=0x%x\n", (uintptr_t)fx_buf, mr_fx->rkey);
	fprintf(f, "LO_VA=0x%" PRIxPTR " LO_LKEY=0x%x\n", (uintptr_t)lo_buf, mr_lo->lkey);
	fprintf(f, "UD_QPN=0x%x QKEY=0x%x\n", ud->qp_num, QKEY);
	if (fclose(f) || rename(tmp, opt.info))
		die(opt.info);
}

static void poll_cq(void)
{
	struct ibv_wc wc[16];
	int n, i;

	while ((n = ibv_poll_cq(cq, 16, wc)) > 0) {
		for (i = 0; i < n; i++) {
			if (wc[i].qp_num == ud->qp_num && wc[i].opcode == IBV_WC_RECV &&
			    wc[i].status == IBV_WC_SUCCESS) {
				ud_recvs++;
				post_recv(ud, wc[i].wr_id);
			} else if (wc[i].opcode & IBV_WC_RECV) {
				/* Flushes when a QP goes to error, or a fuzzed SEND. */
				recv_errs += wc[i].status != IBV_WC_SUCCESS;
				other_wcs++;
			} else {
				other_wcs++;
			}
		}
	}
	if (n < 0)
		die("ibv_poll_cq");
}

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static const char *state_name(enum ibv_qp_state s)
{
	static const char *const n[] = { "RESET", "INIT", "RTR", "RTS", "SQD",
					 "SQE", "ERR" };

	return (unsigned int)s < 7 ? n[s] : "?";
}

static int verify(void)
{
	size_t bad = 0;
	int i;

	bad += check("guard before RW", rw_buf, 0, 0, PAGE);
	bad += check("guard after RW", rw_buf, 0, 2 * PAGE, 3 * PAGE);
	bad += check("RO MR", ro_buf, 1, 0, PAGE);
	bad += check("foreign-PD MR", fx_buf, 2, 0, PAGE);
	bad += check("local-only MR", lo_buf, 3, 0, PAGE);
	if (!opt.fuzzed) {
		bad += check("RW MR past the control write", rw_buf, 0, PAGE + 64, 2 * PAGE);
		if (opt.expect_write < 0) {
			bad += check("RW MR head", rw_buf, 0, PAGE, PAGE + 64);
		} else {
			for (i = 0; i < 64; i++)
				if (rw_buf[PAGE + i] != opt.expect_write)
					break;
			if (i < 64) {
				printf("reltarget: the control WRITE did not land: byte %d is 0x%02x, want 0x%02x\n",
				       i, rw_buf[PAGE + i], opt.expect_write);
				bad++;
			}
		}
	}
	for (i = 0; i < opt.nrc; i++) {
		struct ibv_qp_attr a;
		struct ibv_qp_init_attr ia;

		if (ibv_query_qp(rc[i], &a, IBV_QP_STATE, &ia))
			die("ibv_query_qp");
		printf("qp %d 0x%x %s\n", i, rc[i]->qp_num, state_name(a.qp_state));
	}
	printf("ud_recv %lu\nrecv_errors %lu\nother_completions %lu\n", ud_recvs,
	       recv_errs, other_wcs);
	printf("reltarget: memory %s\n", bad ? "CHANGED" : "intact");
	return bad ? 1 : 0;
}

static void destroy(void)
{
	int i;

	for (i = 0; i < opt.nrc; i++)
		ibv_destroy_qp(rc[i]);
	ibv_destroy_qp(ud);
	ibv_dereg_mr(mr_rw);
	ibv_dereg_mr(mr_ro);
	ibv_dereg_mr(mr_fx);
	ibv_dereg_mr(mr_lo);
	ibv_dereg_mr(mr_recv);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_dealloc_pd(pd2);
	ibv_close_device(ctx);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static bool wait_file(const char *path)
{
	double end = now() + opt.timeout;

	while (access(path, F_OK)) {
		if (stop || now() > end)
			return false;
		usleep(50000);
	}
	return true;
}

static uint64_t peer_va;
static uint32_t peer_rkey;

static void connect_peer(void)
{
	unsigned int qpn, psn, rkey;
	unsigned long long va;
	char path[4096];
	FILE *f;

	if (!wait_file(opt.connect)) {
		fprintf(stderr, "reltarget: %s did not appear\n", opt.connect);
		exit(2);
	}
	f = fopen(opt.connect, "r");
	if (!f || fscanf(f, "%i %i %lli %i", &qpn, &psn, &va, &rkey) != 4) {
		fprintf(stderr, "reltarget: %s: want \"QPN PSN VA RKEY\"\n", opt.connect);
		exit(2);
	}
	fclose(f);
	peer_va = va;
	peer_rkey = rkey;
	/* @psn is the peer's send PSN: ours to expect. */
	rc_connect(0, qpn, psn, 0x200000);
	/* FILE.up: QP 0 takes the peer's packets from now on. */
	snprintf(path, sizeof(path), "%s.up", opt.connect);
	f = fopen(path, "w");
	if (!f || fclose(f))
		die(path);
}

/* One 4 KiB WRITE from LO to the peer's RW; the completion's status. */
static int write_once(void)
{
	struct ibv_sge sge = { .addr = (uintptr_t)lo_buf, .length = PAGE,
			       .lkey = mr_lo->lkey };
	struct ibv_send_wr wr = {
		.wr_id = 7, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = peer_va, .rkey = peer_rkey },
	}, *bad;
	double t0 = now(), end = t0 + opt.timeout;
	struct ibv_wc wc;
	int n;

	if (ibv_post_send(rc[0], &wr, &bad))
		die("ibv_post_send");
	while (now() < end) {
		n = ibv_poll_cq(cq, 1, &wc);
		if (n < 0)
			die("ibv_poll_cq");
		if (n && wc.wr_id == 7) {
			printf("reltarget: WRITE completed: %s after %.2f s\n",
			       ibv_wc_status_str(wc.status), now() - t0);
			return wc.status;
		}
		if (!n)
			usleep(1000);
	}
	printf("reltarget: WRITE: no completion in %d s (a hang)\n", opt.timeout);
	return -1;
}

static int retry_test(void)
{
	char path[4096];
	FILE *f;
	int st;

	st = write_once();
	if (st != IBV_WC_SUCCESS) {
		printf("reltarget: FAIL: the WRITE before the cut did not succeed\n");
		return 1;
	}
	snprintf(path, sizeof(path), "%s.ready", opt.connect);
	f = fopen(path, "w");
	if (!f || fclose(f))
		die(path);
	snprintf(path, sizeof(path), "%s.go", opt.connect);
	if (!wait_file(path)) {
		printf("reltarget: FAIL: %s did not appear\n", path);
		return 1;
	}
	st = write_once();
	if (st != IBV_WC_RETRY_EXC_ERR) {
		printf("reltarget: FAIL: want IBV_WC_RETRY_EXC_ERR\n");
		return 1;
	}
	printf("reltarget: retry budget exhausted as it should be\n");
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "peer-gid", 1, NULL, 'G' }, { "info", 1, NULL, 'i' },
		{ "rc", 1, NULL, 'r' }, { "expect-write", 1, NULL, 'e' },
		{ "fuzzed", 0, NULL, 'f' }, { "connect", 1, NULL, 'c' },
		{ "retry", 0, NULL, 'R' }, { "timeout", 1, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	struct in6_addr a6;
	struct in_addr a4;
	int c, rc_;

	while ((c = getopt_long(argc, argv, "d:g:", lo, NULL)) != -1) {
		switch (c) {
		case 'd': opt.dev = optarg; break;
		case 'g': opt.gid_index = atoi(optarg); break;
		case 'G': opt.peer = optarg; break;
		case 'i': opt.info = optarg; break;
		case 'r': opt.nrc = atoi(optarg); break;
		case 'e': opt.expect_write = (int)strtol(optarg, NULL, 0); break;
		case 'f': opt.fuzzed = true; break;
		case 'c': opt.connect = optarg; break;
		case 'R': opt.retry = true; break;
		case 't': opt.timeout = atoi(optarg); break;
		default: goto usage;
		}
	}
	if (optind != argc || opt.gid_index < 0 || !opt.peer || !opt.info ||
	    opt.nrc < 1 || opt.nrc > MAX_RC || (opt.retry && !opt.connect))
		goto usage;
	if (inet_pton(AF_INET, opt.peer, &a4) == 1) {
		memset(&peer_gid, 0, sizeof(peer_gid));
		peer_gid.raw[10] = 0xff;
		peer_gid.raw[11] = 0xff;
		memcpy(&peer_gid.raw[12], &a4, 4);
	} else if (inet_pton(AF_INET6, opt.peer, &a6) == 1) {
		memcpy(peer_gid.raw, &a6, 16);
	} else {
		goto usage;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	setup();
	write_info();
	if (opt.connect)
		connect_peer();
	if (opt.retry) {
		rc_ = retry_test();
		destroy();
		return rc_;
	}
	while (!stop) {
		poll_cq();
		usleep(20000);
	}
	poll_cq();
	rc_ = verify();
	destroy();
	return rc_;
usage:
	fprintf(stderr,
		"usage: reltarget -d DEV -g GID_INDEX --peer-gid ADDR --info FILE [--rc N]\n"
		"       [--expect-write BYTE] [--fuzzed] [--connect FILE [--retry]] [--timeout S]\n");
	return 2;
}
