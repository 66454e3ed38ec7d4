// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * load: many connected RC QPs and many MRs between two hosts, with
 * traffic on every QP, every byte checked; then, alone, how the device
 * behaves at its limits.
 *
 *   load -s -d DEV -g GIDX [-p PORT] [--qps N] [--mrs M] [--rounds R]
 *        [--qp-timeout T]
 *   load -c PEER -d DEV -g GIDX [-p PORT] [--qps N] [--mrs M] [--rounds R]
 *        [--qp-timeout T]
 *   load --limits -d DEV [--max-qps N] [--depth D]
 *
 * Pair mode: both sides create N RC QPs (depth 4) on one CQ and register
 * M MRs of 4 KiB each (separate registrations of separate pages), then
 * swap QPNs, PSNs and MR keys over TCP and connect QP i to QP i.  Per
 * round, the client WRITEs 64 bytes of a per-(round, QP) pattern into
 * the server's MR (i + round) % M at an offset of its own, then SENDs on
 * the same QP (ordering: the SEND is seen after the WRITE); the server
 * checks every SEND's payload and, once all N arrived, every WRITE's
 * bytes.  "ready"/"done" over TCP pace the rounds.
 *
 * --limits: create RC QPs (depth D, default 1, each on its own CQ of 2D
 * entries) until the device
 * refuses or N were made; every refusal must be a clean errno (ENOMEM,
 * EINVAL, ENOSPC, EAGAIN...) and the process must live.  Then everything
 * is destroyed and one more QP must work: the refusal left nothing
 * broken.  Prints how many were made and why it stopped.
 *
 * Exit status: 0 all checked, 1 a check failed, 2 usage or setup error.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "vm-verbs.h"

#define MR_SIZE		4096
#define WSIZE		64	/* bytes WRITTEN per QP per round */
#define SSIZE		32	/* bytes SENT per QP per round */
#define DEPTH		4

struct peer_info {		/* per QP, network byte order */
	uint32_t qpn, psn;
};

struct mr_info {
	uint64_t addr;
	uint32_t rkey, pad;
};

static struct {
	const char *dev, *peer;
	int gidx, port, qps, mrs, rounds, max_qps, depth, qp_timeout;
	bool server, limits;
} opt = { .port = 18900, .qps = 1000, .mrs = 4096, .rounds = 3,
	  .max_qps = 200000, .depth = 1, .qp_timeout = 16 };

static int sock = -1;

static void die(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));
static void die(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("load: %s: ", code == 1 ? "FAIL" : "error");
	vprintf(fmt, ap);
	putchar('\n');
	va_end(ap);
	exit(code);
}

static void xfer(bool out, void *buf, size_t len)
{
	uint8_t *p = buf;
	ssize_t n;

	while (len) {
		n = out ? write(sock, p, len) : read(sock, p, len);
		if (n <= 0)
			die(2, "control connection: %s", n ? strerror(errno) : "closed");
		p += n;
		len -= n;
	}
}

/*
 * Both sides send their table, then read the other's.  The server sends
 * first and the client reads first: each sending first deadlocked once
 * the tables outgrew the socket buffers (65,536 MRs are 1 MiB a side).
 */
static void swap(void *mine, void *theirs, size_t len)
{
	if (opt.server) {
		xfer(true, mine, len);
		xfer(false, theirs, len);
	} else {
		xfer(false, theirs, len);
		xfer(true, mine, len);
	}
}

static void ctl_connect(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(opt.port) };
	int one = 1, ls, i;

	if (opt.server) {
		ls = socket(AF_INET, SOCK_STREAM, 0);
		setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(ls, (struct sockaddr *)&a, sizeof(a)) || listen(ls, 1))
			die(2, "listen on %d: %s", opt.port, strerror(errno));
		sock = accept(ls, NULL, NULL);
		close(ls);
	} else {
		if (inet_pton(AF_INET, opt.peer, &a.sin_addr) != 1)
			die(2, "bad peer address %s", opt.peer);
		for (i = 0; i < 600; i++) {
			sock = socket(AF_INET, SOCK_STREAM, 0);
			if (!connect(sock, (struct sockaddr *)&a, sizeof(a)))
				break;
			close(sock);
			sock = -1;
			usleep(100000);
		}
	}
	if (sock < 0)
		die(2, "no control connection");
	setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static uint8_t pat(int round, int qp, int i)
{
	return (uint8_t)(round * 31 + qp * 7 + i * 13 + (qp >> 8));
}

static int to_rts(struct ibv_qp *qp, uint32_t dqpn, uint32_t rpsn,
		  uint32_t spsn, const union ibv_gid *dgid)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return -1;
	if (!dgid)
		return 0;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dqpn;
	a.rq_psn = rpsn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.dgid = *dgid;
	a.ah_attr.grh.sgid_index = opt.gidx;
	a.ah_attr.grh.hop_limit = 64;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = opt.qp_timeout;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = spsn;
	a.max_rd_atomic = 1;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			     IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

/* Reap @want completions of @cq, all successful, within 120 s. */
static void reap(struct ibv_cq *cq, int want, int *seen_qp, uint8_t *recv,
		 int round)
{
	struct ibv_wc wc[64];
	time_t t0 = time(NULL);
	int n, i, k, q;

	while (want > 0) {
		n = ibv_poll_cq(cq, 64, wc);
		if (n < 0)
			die(1, "ibv_poll_cq: %d", n);
		for (i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS)
				die(1, "round %d: wr_id %" PRIu64 ": %s", round,
				    wc[i].wr_id, ibv_wc_status_str(wc[i].status));
			if (!seen_qp)
				continue;
			q = (int)wc[i].wr_id;
			if (q < 0 || q >= opt.qps || seen_qp[q]++)
				die(1, "round %d: receive wr_id %d unexpected", round, q);
			if (wc[i].byte_len != SSIZE)
				die(1, "round %d: qp %d: byte_len %u", round, q,
				    wc[i].byte_len);
			for (k = 0; k < SSIZE; k++)
				if (recv[q * SSIZE + k] != pat(round, q, k + 1000))
					die(1, "round %d: qp %d: SEND byte %d differs",
					    round, q, k);
		}
		want -= n;
		if (n == 0 && time(NULL) - t0 > 120)
			die(1, "round %d: %d completions missing after 120 s", round, want);
	}
}

static int limits(struct ibv_context *ctx)
{
	struct ibv_device_attr da;
	struct ibv_qp_init_attr ia = {
		.cap = { .max_send_wr = opt.depth, .max_recv_wr = opt.depth,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_qp **qp;
	struct ibv_cq **cq;
	struct ibv_pd *pd;
	int n = 0, err = 0, i;
	const char *why = "the count asked for";

	if (ibv_query_device(ctx, &da))
		die(2, "query_device failed");
	printf("load: device limits: max_qp %d, max_cq %d, max_mr %d, max_pd %d\n",
	       da.max_qp, da.max_cq, da.max_mr, da.max_pd);
	pd = ibv_alloc_pd(ctx);
	qp = calloc(opt.max_qps, sizeof(*qp));
	cq = calloc(opt.max_qps, sizeof(*cq));
	if (!pd || !qp || !cq)
		die(2, "setup failed");
	for (n = 0; n < opt.max_qps; n++) {
		cq[n] = ibv_create_cq(ctx, 2 * opt.depth, NULL, NULL, 0);
		if (!cq[n]) {
			err = errno;
			why = "create_cq refused";
			break;
		}
		ia.send_cq = ia.recv_cq = cq[n];
		qp[n] = ibv_create_qp(pd, &ia);
		if (!qp[n]) {
			err = errno;
			why = "create_qp refused";
			ibv_destroy_cq(cq[n]);
			break;
		}
		/* INIT: a QP the kernel fully set up, not just allocated. */
		if (to_rts(qp[n], 0, 0, 0, NULL)) {
			err = errno;
			why = "modify_qp refused";
			ibv_destroy_qp(qp[n]);
			ibv_destroy_cq(cq[n]);
			break;
		}
		if (n % 5000 == 4999)
			printf("load: %d QPs\n", n + 1);
	}
	printf("load: limits: %d QPs (each on its own CQ) before %s%s%s\n", n,
	       why, err ? ": " : "", err ? strerror(err) : "");
	if (err && err != ENOMEM && err != EINVAL && err != ENOSPC &&
	    err != EAGAIN && err != EBUSY && err != EMFILE && err != ENFILE)
		die(1, "refused with an unexpected errno %d (%s)", err, strerror(err));
	if (n >= da.max_qp)
		printf("load: the device's max_qp reached\n");
	for (i = 0; i < n; i++)
		if (ibv_destroy_qp(qp[i]) || ibv_destroy_cq(cq[i]))
			die(1, "destroy %d: %s", i, strerror(errno));
	/* What was refused must not have broken the device. */
	cq[0] = ibv_create_cq(ctx, 1, NULL, NULL, 0);
	ia.send_cq = ia.recv_cq = cq[0];
	qp[0] = cq[0] ? ibv_create_qp(pd, &ia) : NULL;
	if (!qp[0] || to_rts(qp[0], 0, 0, 0, NULL) || ibv_destroy_qp(qp[0]) ||
	    ibv_destroy_cq(cq[0]))
		die(1, "a QP after the limit: %s", strerror(errno));
	ibv_dealloc_pd(pd);
	printf("load: limits ok\n");
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dev", 1, NULL, 'd' }, { "gid-index", 1, NULL, 'g' },
		{ "port", 1, NULL, 'p' }, { "qps", 1, NULL, 'q' },
		{ "mrs", 1, NULL, 'm' }, { "rounds", 1, NULL, 'r' },
		{ "limits", 0, NULL, 'L' }, { "max-qps", 1, NULL, 'M' },
		{ "depth", 1, NULL, 'D' }, { "qp-timeout", 1, NULL, 'T' },
		{ NULL, 0, NULL, 0 },
	};
	struct peer_info *mine, *theirs;
	struct mr_info *mmi, *tmi;
	struct ibv_mr **mr, *smr;
	struct ibv_qp **qp;
	struct ibv_cq *cq;
	struct ibv_pd *pd;
	struct ibv_context *ctx;
	union ibv_gid gid, rgid;
	uint8_t *pages, *sbuf, *rbuf;
	int *seen, c, i, r, k;
	struct timespec t0, t1;
	uint64_t bytes = 0;

	while ((c = getopt_long(argc, argv, "sc:d:g:p:q:m:r:", opts, NULL)) != -1) {
		switch (c) {
		case 's': opt.server = true; break;
		case 'c': opt.peer = optarg; break;
		case 'd': opt.dev = optarg; break;
		case 'g': opt.gidx = atoi(optarg); break;
		case 'p': opt.port = atoi(optarg); break;
		case 'q': opt.qps = atoi(optarg); break;
		case 'm': opt.mrs = atoi(optarg); break;
		case 'r': opt.rounds = atoi(optarg); break;
		case 'L': opt.limits = true; break;
		case 'M': opt.max_qps = atoi(optarg); break;
		case 'D': opt.depth = atoi(optarg); break;
		case 'T': opt.qp_timeout = atoi(optarg); break;
		default: die(2, "see the top of load.c for usage");
		}
	}
	if (opt.qp_timeout < 1 || opt.qp_timeout > 31)
		die(2, "--qp-timeout: 1..31 (4.096 us << N)");
	if (!opt.dev || opt.qps < 1 || opt.mrs < 1 || opt.max_qps < 1 ||
	    (!opt.limits && opt.server == !!opt.peer))
		die(2, "need -d DEV and one of -s, -c PEER, --limits");
	/* Line by line into the log: a soak-size run takes many minutes. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	ctx = vm_open_dev(opt.dev);
	if (!ctx)
		die(2, "cannot open %s", opt.dev);
	if (opt.limits)
		return limits(ctx);

	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, opt.qps * DEPTH * 2 < 65536 ?
			   opt.qps * DEPTH * 2 : 65535, NULL, NULL, 0);
	qp = calloc(opt.qps, sizeof(*qp));
	mr = calloc(opt.mrs, sizeof(*mr));
	mine = calloc(opt.qps, sizeof(*mine));
	theirs = calloc(opt.qps, sizeof(*theirs));
	mmi = calloc(opt.mrs, sizeof(*mmi));
	tmi = calloc(opt.mrs, sizeof(*tmi));
	seen = calloc(opt.qps, sizeof(*seen));
	pages = aligned_alloc(4096, (size_t)opt.mrs * MR_SIZE);
	sbuf = aligned_alloc(4096, (size_t)opt.qps * (WSIZE + SSIZE));
	rbuf = aligned_alloc(4096, (size_t)opt.qps * SSIZE + 4096);
	if (!pd || !cq || !qp || !mr || !mine || !theirs || !mmi || !tmi ||
	    !seen || !pages || !sbuf || !rbuf)
		die(2, "setup: %s", strerror(errno));
	if (ibv_query_gid(ctx, 1, opt.gidx, &gid))
		die(2, "query_gid %d", opt.gidx);
	memset(pages, 0, (size_t)opt.mrs * MR_SIZE);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < opt.mrs; i++) {
		mr[i] = ibv_reg_mr(pd, pages + (size_t)i * MR_SIZE, MR_SIZE,
				   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
		if (!mr[i])
			die(1, "reg_mr %d of %d: %s", i, opt.mrs, strerror(errno));
		mmi[i].addr = htobe64((uintptr_t)mr[i]->addr);
		mmi[i].rkey = htonl(mr[i]->rkey);
		if (i % 16384 == 16383)
			printf("load: %d MRs\n", i + 1);
	}
	smr = ibv_reg_mr(pd, sbuf, (size_t)opt.qps * (WSIZE + SSIZE),
			 IBV_ACCESS_LOCAL_WRITE);
	struct ibv_mr *rmr = ibv_reg_mr(pd, rbuf, (size_t)opt.qps * SSIZE + 4096,
					IBV_ACCESS_LOCAL_WRITE);
	if (!smr || !rmr)
		die(2, "reg_mr: %s", strerror(errno));
	for (i = 0; i < opt.qps; i++) {
		struct ibv_qp_init_attr ia = {
			.send_cq = cq, .recv_cq = cq,
			.cap = { .max_send_wr = DEPTH, .max_recv_wr = DEPTH,
				 .max_send_sge = 1, .max_recv_sge = 1 },
			.qp_type = IBV_QPT_RC,
		};

		qp[i] = ibv_create_qp(pd, &ia);
		if (!qp[i])
			die(1, "create_qp %d of %d: %s", i, opt.qps, strerror(errno));
		mine[i].qpn = htonl(qp[i]->qp_num);
		mine[i].psn = htonl((i * 2654435761u) & 0xffffff);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("load: %d MRs and %d QPs created in %.1f s\n", opt.mrs, opt.qps,
	       t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9);

	ctl_connect();
	swap(&gid, &rgid, sizeof(gid));
	swap(mine, theirs, opt.qps * sizeof(*mine));
	swap(mmi, tmi, opt.mrs * sizeof(*mmi));
	for (i = 0; i < opt.qps; i++)
		if (to_rts(qp[i], ntohl(theirs[i].qpn), ntohl(mine[i].psn),
			   ntohl(mine[i].psn), &rgid))
			die(1, "connect qp %d: %s", i, strerror(errno));
	c = 0;
	xfer(true, &c, sizeof(c));	/* both connected */
	xfer(false, &c, sizeof(c));

	for (r = 0; r < opt.rounds; r++) {
		if (opt.server) {
			for (i = 0; i < opt.qps; i++) {
				struct ibv_sge s = {
					.addr = (uintptr_t)rbuf + i * SSIZE,
					.length = SSIZE, .lkey = rmr->lkey };
				struct ibv_recv_wr w = { .wr_id = i, .sg_list = &s,
							 .num_sge = 1 }, *bad;

				if (ibv_post_recv(qp[i], &w, &bad))
					die(1, "post_recv qp %d", i);
			}
			memset(seen, 0, opt.qps * sizeof(*seen));
			xfer(true, &r, sizeof(r));		/* ready */
			reap(cq, opt.qps, seen, rbuf, r);
			/* Every WRITE landed before its SEND: check them all. */
			for (i = 0; i < opt.qps; i++) {
				uint8_t *d = pages + (size_t)((i + r) % opt.mrs) *
					     MR_SIZE + (i / opt.mrs % (MR_SIZE / WSIZE)) * WSIZE;

				for (k = 0; k < WSIZE; k++)
					if (d[k] != pat(r, i, k))
						die(1, "round %d: qp %d: WRITE byte %d differs",
						    r, i, k);
				bytes += WSIZE + SSIZE;
			}
			xfer(true, &r, sizeof(r));		/* verified */
		} else {
			xfer(false, &c, sizeof(c));
			for (i = 0; i < opt.qps; i++) {
				uint8_t *w = sbuf + (size_t)i * (WSIZE + SSIZE);
				int m = (i + r) % opt.mrs;
				struct ibv_sge s[2] = {
					{ (uintptr_t)w, WSIZE, smr->lkey },
					{ (uintptr_t)w + WSIZE, SSIZE, smr->lkey },
				};
				struct ibv_send_wr wr[2] = {
					{ .wr_id = 2 * i, .sg_list = &s[0], .num_sge = 1,
					  .opcode = IBV_WR_RDMA_WRITE, .next = &wr[1] },
					{ .wr_id = 2 * i + 1, .sg_list = &s[1], .num_sge = 1,
					  .opcode = IBV_WR_SEND,
					  .send_flags = IBV_SEND_SIGNALED },
				}, *bad;

				for (k = 0; k < WSIZE; k++)
					w[k] = pat(r, i, k);
				for (k = 0; k < SSIZE; k++)
					w[WSIZE + k] = pat(r, i, k + 1000);
				wr[0].wr.rdma.remote_addr = be64toh(tmi[m].addr) +
					(i / opt.mrs % (MR_SIZE / WSIZE)) * WSIZE;
				wr[0].wr.rdma.rkey = ntohl(tmi[m].rkey);
				if (ibv_post_send(qp[i], wr, &bad))
					die(1, "post_send qp %d: %s", i, strerror(errno));
			}
			reap(cq, opt.qps, NULL, NULL, r);
			bytes += (uint64_t)opt.qps * (WSIZE + SSIZE);
			xfer(false, &c, sizeof(c));
		}
		printf("load: round %d of %d done\n", r + 1, opt.rounds);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	for (i = 0; i < opt.qps; i++)
		if (ibv_destroy_qp(qp[i]))
			die(1, "destroy_qp %d: %s", i, strerror(errno));
	for (i = 0; i < opt.mrs; i++)
		if (ibv_dereg_mr(mr[i]))
			die(1, "dereg_mr %d: %s", i, strerror(errno));
	if (ibv_dereg_mr(smr) || ibv_dereg_mr(rmr) || ibv_destroy_cq(cq) ||
	    ibv_dealloc_pd(pd) || ibv_close_device(ctx))
		die(1, "teardown: %s", strerror(errno));
	printf("load: %s ok: %d QPs, %d MRs, %d rounds, %" PRIu64
	       " bytes %s, %.1f s in all\n", opt.server ? "server" : "client",
	       opt.qps, opt.mrs, opt.rounds, bytes,
	       opt.server ? "verified" : "sent",
	       t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	return 0;
}
