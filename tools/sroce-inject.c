// SPDX-License-Identifier: GPL-2.0
/*
 * sroce-inject: craft RoCEv2 packets (Ethernet, IPv4, UDP 4791, BTH and
 * extension headers, a correct ICRC unless a case wants it wrong) and
 * send them at a peer through an AF_PACKET socket: one named hostile
 * case at a time, or a mutation fuzzer.  See --help and
 * Documentation/reliability.rst.
 *
 * The aim (--qpn, --psn, --rkey, --va ...) comes from the target: a QP
 * and MRs it prints; each case bends that aim in one way.  -w FILE writes
 * the frames to a pcap instead of sending them.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <pcap/pcap.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/time.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* The core and the user-space CRC, built into this one binary. */
#include "../kernel/proto/drop.c"
#include "../kernel/proto/icrc.c"
#include "../kernel/proto/opcode.c"
#include "../kernel/proto/wire.c"
#include "../tests/lib/crc32.c"
#include "roce-frame.c"

#define ETH_HLEN_	14
#define IP4_HLEN	20
#define UDP_HLEN	8
#define FRAME_MAX	1514	/* the wire's MTU 1500 plus Ethernet */
#define ROCE_OFF	(ETH_HLEN_ + IP4_HLEN + UDP_HLEN)
#define BAD_ICRC_XOR	0xdeadbeefu

static struct {
	const char *ifname;
	const char *wfile;
	const char *pcap_in;
	struct in_addr src, dst;
	u8 smac[6], dmac[6];
	bool have_src, have_dmac;
	u32 qpn, psn, rkey, len, qkey, sqpn, ud_qpn, mtu;
	u64 va;
	u32 count;
	u64 fuzz;
	u64 seed;
	u32 rate;		/* fuzz: packets per second, 0 for no limit */
	u32 keep_bad_icrc;	/* percent of fuzzed frames sent with a stale ICRC */
	u32 avoid[64];
	u32 navoid;
	bool verbose;
} opt = {
	.psn = 0, .len = 4096, .qkey = 0x11111111, .sqpn = 0x10,
	.mtu = 1024, .count = 1, .seed = 1, .keep_bad_icrc = 10,
};

static int sock_fd = -1;
static int ifindex;
static pcap_dumper_t *dumper;
static u64 n_sent, n_fail;

/* One frame under construction. */
struct frame {
	u8 buf[FRAME_MAX + 64];
	u32 len;	/* whole frame */
};

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("sroce-inject: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(2);
}

static u16 ip_csum(const u8 *p, u32 len)
{
	u32 s = 0, i;

	for (i = 0; i + 1 < len; i += 2)
		s += (u32)p[i] << 8 | p[i + 1];
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (u16)~s;
}

/* Fill Ethernet, IPv4 and UDP around @roce_len bytes already at ROCE_OFF. */
static void frame_wrap(struct frame *f, u32 roce_len, u16 sport)
{
	u8 *e = f->buf, *ip = e + ETH_HLEN_, *udp = ip + IP4_HLEN;
	static u16 ip_id;

	memcpy(e, opt.dmac, 6);
	memcpy(e + 6, opt.smac, 6);
	e[12] = 0x08;
	e[13] = 0x00;
	memset(ip, 0, IP4_HLEN);
	ip[0] = 0x45;
	sroce_put_be16(ip + 2, IP4_HLEN + UDP_HLEN + roce_len);
	sroce_put_be16(ip + 4, ip_id++);
	ip[6] = 0x40;		/* DF, as RoCE senders set it */
	ip[8] = 64;
	ip[9] = IPPROTO_UDP;
	memcpy(ip + 12, &opt.src, 4);
	memcpy(ip + 16, &opt.dst, 4);
	sroce_put_be16(ip + 10, ip_csum(ip, IP4_HLEN));
	sroce_put_be16(udp, sport);
	sroce_put_be16(udp + 2, SROCE_UDP_PORT);
	sroce_put_be16(udp + 4, UDP_HLEN + roce_len);
	sroce_put_be16(udp + 6, 0);	/* RoCEv2 senders leave it zero */
	f->len = ROCE_OFF + roce_len;
	/* Ethernet's minimum frame: the receiver trims by the IP length. */
	if (f->len < 60) {
		memset(f->buf + f->len, 0, 60 - f->len);
		f->len = 60;
	}
}

/* The ICRC of the RoCE packet of @roce_len bytes (ICRC included) in @f. */
static u32 frame_icrc(const struct frame *f, u32 roce_len)
{
	const u8 *l3 = f->buf + ETH_HLEN_;
	u32 crc;

	crc = sroce_icrc_begin(l3, false);
	return sroce_icrc_final(sroce_icrc_update(crc, f->buf + ROCE_OFF + SROCE_BTH_LEN,
						  roce_len - SROCE_BTH_LEN - SROCE_ICRC_LEN));
}

/*
 * Build a whole frame: headers @h, @paylen payload bytes of @fill, the
 * pad from h->bth.pad, and the ICRC (xor @icrc_xor).  Returns the RoCE
 * length (BTH to ICRC).
 */
static u32 frame_build(struct frame *f, const struct sroce_hdrs *h,
		       u32 paylen, u8 fill, u32 icrc_xor)
{
	u8 *r = f->buf + ROCE_OFF;
	u32 hl = sroce_build(r, h), roce_len;

	if (!hl)
		die("cannot build opcode 0x%02x", h->bth.opcode);
	if (ROCE_OFF + hl + paylen + h->bth.pad + SROCE_ICRC_LEN > FRAME_MAX)
		die("frame too large for the wire (%u payload bytes)", paylen);
	memset(r + hl, fill, paylen);
	memset(r + hl + paylen, 0, h->bth.pad);
	roce_len = hl + paylen + h->bth.pad + SROCE_ICRC_LEN;
	frame_wrap(f, roce_len, 0xc000 | (h->bth.dqpn & 0x3fff));
	sroce_icrc_put(r + roce_len - SROCE_ICRC_LEN,
		       frame_icrc(f, roce_len) ^ icrc_xor);
	return roce_len;
}

static void frame_send(const struct frame *f)
{
	if (dumper) {
		struct pcap_pkthdr ph = { .caplen = f->len, .len = f->len };

		gettimeofday(&ph.ts, NULL);
		pcap_dump((u_char *)dumper, &ph, f->buf);
		n_sent++;
		return;
	}
	if (send(sock_fd, f->buf, f->len, 0) == (ssize_t)f->len) {
		n_sent++;
		return;
	}
	/* ENOBUFS under a flood: the frame is lost, as on a wire. */
	if (errno != ENOBUFS && errno != EAGAIN)
		die("send: %s", strerror(errno));
	n_fail++;
}

static void hdrs_rc(struct sroce_hdrs *h, u8 opcode)
{
	memset(h, 0, sizeof(*h));
	h->bth.opcode = opcode;
	h->bth.pkey = SROCE_DEFAULT_PKEY;
	h->bth.dqpn = opt.qpn;
	h->bth.psn = opt.psn;
	h->bth.ackreq = 1;
}

/* A WRITE ONLY of @len bytes at @off into the aimed MR. */
static void hdrs_write(struct sroce_hdrs *h, u64 off, u32 len)
{
	hdrs_rc(h, SROCE_OPC(RC, WRITE_ONLY));
	h->reth.va = opt.va + off;
	h->reth.rkey = opt.rkey;
	h->reth.len = len;
	h->bth.pad = sroce_pad_for(len);
}

static void hdrs_ud(struct sroce_hdrs *h, u32 qkey)
{
	memset(h, 0, sizeof(*h));
	h->bth.opcode = SROCE_OPC(UD, SEND_ONLY);
	h->bth.pkey = SROCE_DEFAULT_PKEY;
	h->bth.dqpn = opt.ud_qpn;
	h->bth.psn = opt.psn;
	h->deth.qkey = qkey;
	h->deth.sqpn = opt.sqpn;
}

/*
 * The cases.  Each names the counter it must move on the target: a
 * drop reason (rx_drop_*) of "rdma statistic", or a NAK counter when the
 * responder must answer, and the QP's fate.  The fill byte of a case's
 * payload is its number, so a byte that lands shows who wrote it.
 */
struct inj_case {
	const char *name;
	const char *expect;	/* counter that must move */
	const char *qp;		/* the aimed QP afterwards: "alive" or "error" */
	const char *what;
	void (*send)(u8 fill);
};

static void c_truncated(u8 fill)
{
	struct sroce_hdrs h;
	struct frame f;
	u32 roce_len;

	(void)fill;

	/* A WRITE ONLY cut inside its RETH, with an ICRC right for what is left. */
	hdrs_write(&h, 0, 0);
	sroce_build(f.buf + ROCE_OFF, &h);
	roce_len = SROCE_BTH_LEN + 8 + SROCE_ICRC_LEN;
	frame_wrap(&f, roce_len, 0xc000);
	sroce_icrc_put(f.buf + ROCE_OFF + roce_len - SROCE_ICRC_LEN,
		       frame_icrc(&f, roce_len));
	frame_send(&f);
}

static void c_bad_pad(u8 fill)
{
	u32 roce_len = SROCE_BTH_LEN + SROCE_ICRC_LEN;
	struct sroce_hdrs h;
	struct frame f;

	(void)fill;

	/* SEND ONLY with no payload, yet a pad count of 3. */
	hdrs_rc(&h, SROCE_OPC(RC, SEND_ONLY));
	h.bth.pad = 3;
	sroce_build(f.buf + ROCE_OFF, &h);
	frame_wrap(&f, roce_len, 0xc000);
	sroce_icrc_put(f.buf + ROCE_OFF + SROCE_BTH_LEN, frame_icrc(&f, roce_len));
	frame_send(&f);
}

static void c_bad_icrc(u8 fill)
{
	struct sroce_hdrs h;
	struct frame f;

	hdrs_write(&h, 256, 64);
	frame_build(&f, &h, 64, fill, BAD_ICRC_XOR);
	frame_send(&f);
}

static void c_oversize(u8 fill)
{
	struct sroce_hdrs h;
	struct frame f;
	u32 n = opt.mtu + 256;

	hdrs_write(&h, 512, n);
	frame_build(&f, &h, n, fill, 0);
	frame_send(&f);
}

static void c_wrong_qp_type(u8 fill)
{
	struct sroce_hdrs h;
	struct frame f;

	/* A UD SEND to an RC QP. */
	hdrs_ud(&h, opt.qkey);
	h.bth.dqpn = opt.qpn;
	frame_build(&f, &h, 32, fill, 0);
	frame_send(&f);
}

static void c_xrc_to_rc(u8 fill)
{
	struct sroce_hdrs h;
	struct frame f;

	/* An XRC SEND (with its XRCETH) to an RC QP. */
	hdrs_rc(&h, SROCE_OPC(XRC, SEND_ONLY));
	h.xrceth = 1;
	frame_build(&f, &h, 32, fill, 0);
	frame_send(&f);
}

static void c_bad_sequence(u8 fill)
{
	struct sroce_hdrs h;
	struct frame f;

	/* A WRITE MIDDLE at the expected PSN, no FIRST before it. */
	hdrs_rc(&h, SROCE_OPC(RC, WRITE_MIDDLE));
	frame_build(&f, &h, opt.mtu, fill, 0);
	frame_send(&f);
}

static void c_psn_ahead(u8 fill)
{
	struct sroce_hdrs h;
	struct frame f;

	hdrs_write(&h, 1024, 64);
	h.bth.psn = (opt.psn + 0x400000) & SROCE_PSN_MASK;
	frame_build(&f, &h, 64, fill, 0);
	frame_send(&f);
}

static void c_psn_old(u8 fill)
{
	struct sroce_hdrs h;
	struct frame f;

	hdrs_write(&h, 1024, 64);
	h.bth.psn = (opt.psn - 0x400000) & SROCE_PSN_MASK;
	frame_build(&f, &h, 64, fill, 0);
	frame_send(&f);
}

static void c_unknown_qpn(u8 fill)
{
	struct sroce_hdrs h;
	struct frame f;

	hdrs_write(&h, 0, 64);
	h.bth.dqpn = opt.qpn;	/* the script aims it at a QPN nobody has */
	frame_build(&f, &h, 64, fill, 0);
	frame_send(&f);
}

static void c_write(u8 fill)
{
	struct sroce_hdrs h;
	struct frame f;

	hdrs_write(&h, 0, 64);
	frame_build(&f, &h, 64, fill, 0);
	frame_send(&f);
}

static void c_bad_rkey(u8 fill)
{
	struct sroce_hdrs h;
	struct frame f;

	hdrs_write(&h, 0, 64);
	h.reth.rkey ^= 0x00a5a500;
	frame_build(&f, &h, 64, fill, 0);
	frame_send(&f);
}

static void c_reth_oob(u8 fill)
{
	struct sroce_hdrs h;
	struct frame f;

	/* Starts inside the MR (--len bytes long), ends 32 bytes past it. */
	hdrs_write(&h, opt.len - 32, 64);
	frame_build(&f, &h, 64, fill, 0);
	frame_send(&f);
}

static void c_atomic(u8 opcode, u64 off, u8 fill)
{
	struct sroce_hdrs h;
	struct frame f;

	hdrs_rc(&h, opcode);
	h.atmeth.va = opt.va + off;
	h.atmeth.rkey = opt.rkey;
	h.atmeth.swap_add = 0x0101010101010101ull * fill;
	h.atmeth.cmp = 0;
	frame_build(&f, &h, 0, 0, 0);
	frame_send(&f);
}

static void c_atomic_unaligned(u8 fill)
{
	c_atomic(SROCE_OPC(RC, FETCH_ADD), 4, fill);
}

static void c_atomic_ro(u8 fill)
{
	c_atomic(SROCE_OPC(RC, CMP_SWAP), 0, fill);
}

static void c_ud_bad_qkey(u8 fill)
{
	struct sroce_hdrs h;
	struct frame f;

	hdrs_ud(&h, opt.qkey ^ 0x5a5a5a5a);
	frame_build(&f, &h, 64, fill, 0);
	frame_send(&f);
}

static void c_ud_send(u8 fill)
{
	struct sroce_hdrs h;
	struct frame f;

	hdrs_ud(&h, opt.qkey);
	frame_build(&f, &h, 64, fill, 0);
	frame_send(&f);
}

static void c_ack_unsent(u8 fill)
{
	struct sroce_hdrs h;
	struct frame f;

	(void)fill;

	/* --psn is the target's next send PSN: ACK one far beyond it. */
	hdrs_rc(&h, SROCE_OPC(RC, ACK));
	h.bth.ackreq = 0;
	h.bth.psn = (opt.psn + 1000) & SROCE_PSN_MASK;
	h.aeth.syndrome = sroce_aeth_syndrome(SROCE_AETH_ACK, SROCE_AETH_CREDIT_INVALID);
	h.aeth.msn = 1;
	frame_build(&f, &h, 0, 0, 0);
	frame_send(&f);
}

static const struct inj_case cases[] = {
	{ "truncated", "rx_drop_truncated", "alive",
	  "WRITE ONLY cut inside its RETH (valid ICRC)", c_truncated },
	{ "bad-pad", "rx_drop_bad_pad", "alive",
	  "SEND ONLY with no payload and a pad count of 3", c_bad_pad },
	{ "bad-icrc", "rx_drop_bad_icrc", "alive",
	  "valid 64-byte WRITE at --va+256 with a wrong ICRC", c_bad_icrc },
	{ "oversize", "error_naks_sent", "error",
	  "WRITE ONLY with PMTU+256 payload bytes at --va+512", c_oversize },
	{ "wrong-qp-type", "rx_drop_wrong_qp_type", "alive",
	  "UD SEND ONLY (DETH) to the RC QP --qpn", c_wrong_qp_type },
	{ "bad-sequence", "error_naks_sent", "error",
	  "WRITE MIDDLE at the expected PSN with no FIRST", c_bad_sequence },
	{ "psn-ahead", "rx_drop_psn_invalid", "alive",
	  "WRITE ONLY at --psn + 2^22 (ahead of the window)", c_psn_ahead },
	{ "psn-old", "duplicate_requests", "alive",
	  "WRITE ONLY at --psn - 2^22 (behind: a duplicate, re-ACKed)", c_psn_old },
	{ "unknown-qpn", "rx_drop_unknown_qp", "-",
	  "WRITE ONLY to --qpn, which nobody has", c_unknown_qpn },
	{ "bad-rkey", "access_naks_sent", "error",
	  "WRITE ONLY with a corrupted --rkey", c_bad_rkey },
	{ "foreign-rkey", "access_naks_sent", "error",
	  "WRITE ONLY with --rkey from another PD's MR", c_write },
	{ "reth-oob", "access_naks_sent", "error",
	  "WRITE of 64 bytes at --va+--len-32, past the MR's end", c_reth_oob },
	{ "atomic-unaligned", "error_naks_sent", "error",
	  "FETCH_ADD at --va+4", c_atomic_unaligned },
	{ "atomic-ro", "access_naks_sent", "error",
	  "CMP_SWAP to --va/--rkey of a read-only MR", c_atomic_ro },
	{ "ud-bad-qkey", "rx_drop_bad_qkey", "alive",
	  "UD SEND ONLY to --ud-qpn with a wrong Q_Key", c_ud_bad_qkey },
	{ "ack-unsent", "rx_drop_ack_unexpected", "alive",
	  "ACK for --psn + 1000, never sent (--psn: the target's next send PSN)",
	  c_ack_unsent },
	{ "write", "rx_packets", "alive",
	  "valid WRITE ONLY of 64 bytes at --va (the control)", c_write },
	{ "ud-send", "rx_packets", "alive",
	  "valid UD SEND ONLY of 64 bytes to --ud-qpn (the control)", c_ud_send },
	{ "xrc-to-rc", "rx_drop_wrong_qp_type", "alive",
	  "XRC SEND ONLY (XRCETH) to the RC QP --qpn", c_xrc_to_rc },
};

#define NCASES	(sizeof(cases) / sizeof(cases[0]))

/* ---- the fuzzer ---- */

static u64 rng;

static u64 rnd(void)
{
	/* xorshift64*: reproducible from --seed. */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dull;
}

static u32 rnd_below(u32 n)
{
	return n ? (u32)(rnd() % n) : 0;
}

/* A seed packet: BTH to ICRC, as it would be valid on the wire. */
struct seed_pkt {
	u8 b[FRAME_MAX];
	u32 len;
};

static struct seed_pkt *seeds;
static u32 nseeds, seeds_cap;

static void seed_add(const u8 *roce, u32 len)
{
	if (len > FRAME_MAX - ROCE_OFF)
		return;
	if (nseeds == seeds_cap) {
		seeds_cap = seeds_cap ? 2 * seeds_cap : 64;
		seeds = realloc(seeds, seeds_cap * sizeof(*seeds));
		if (!seeds)
			die("out of memory");
	}
	memcpy(seeds[nseeds].b, roce, len);
	seeds[nseeds].len = len;
	nseeds++;
}

static void seed_hdrs(struct sroce_hdrs *h, u32 paylen)
{
	struct frame f;
	u32 n;

	h->bth.pad = sroce_pad_for(paylen);
	n = frame_build(&f, h, paylen, (u8)rnd(), 0);
	seed_add(f.buf + ROCE_OFF, n);
}

/* Valid packets of every kind the target's QPs and MRs can take. */
static void seeds_build(void)
{
	static const u8 rc_ops[] = {
		SROCE_OPC(RC, SEND_FIRST), SROCE_OPC(RC, SEND_MIDDLE),
		SROCE_OPC(RC, SEND_LAST), SROCE_OPC(RC, SEND_LAST_IMM),
		SROCE_OPC(RC, SEND_ONLY), SROCE_OPC(RC, SEND_ONLY_IMM),
		SROCE_OPC(RC, SEND_ONLY_INV), SROCE_OPC(RC, WRITE_FIRST),
		SROCE_OPC(RC, WRITE_MIDDLE), SROCE_OPC(RC, WRITE_LAST),
		SROCE_OPC(RC, WRITE_LAST_IMM), SROCE_OPC(RC, WRITE_ONLY),
		SROCE_OPC(RC, WRITE_ONLY_IMM), SROCE_OPC(RC, READ_REQ),
		SROCE_OPC(RC, READ_RESP_FIRST), SROCE_OPC(RC, READ_RESP_MIDDLE),
		SROCE_OPC(RC, READ_RESP_LAST), SROCE_OPC(RC, READ_RESP_ONLY),
		SROCE_OPC(RC, ACK), SROCE_OPC(RC, ATOMIC_ACK),
		SROCE_OPC(RC, CMP_SWAP), SROCE_OPC(RC, FETCH_ADD),
	};
	struct sroce_hdrs h;
	u32 i, flags, paylen;

	for (i = 0; i < sizeof(rc_ops); i++) {
		const struct sroce_opinfo *op = sroce_opinfo(rc_ops[i]);

		hdrs_rc(&h, rc_ops[i]);
		flags = op->flags;
		h.reth.va = opt.va + rnd_below(opt.len);
		h.reth.rkey = opt.rkey;
		h.reth.len = 1 + rnd_below(opt.mtu);
		h.atmeth.va = opt.va + (rnd_below(opt.len) & ~7u);
		h.atmeth.rkey = opt.rkey;
		h.atmeth.swap_add = rnd();
		h.atmeth.cmp = rnd();
		h.aeth.syndrome = sroce_aeth_syndrome(SROCE_AETH_ACK, 0x1f);
		h.aeth.msn = rnd_below(16);
		h.atmack = rnd();
		h.imm = (u32)rnd();
		h.ieth = opt.rkey;
		if (!(flags & SROCE_OPF_PAYLOAD))
			paylen = 0;
		else if (!(flags & SROCE_OPF_LAST))
			paylen = opt.mtu;
		else
			paylen = (flags & SROCE_OPF_RETH) ? h.reth.len :
				 1 + rnd_below(opt.mtu);
		seed_hdrs(&h, paylen);
	}
	if (opt.ud_qpn) {
		hdrs_ud(&h, opt.qkey);
		seed_hdrs(&h, rnd_below(opt.mtu));
		hdrs_ud(&h, opt.qkey);
		h.bth.opcode = SROCE_OPC(UD, SEND_ONLY_IMM);
		h.imm = (u32)rnd();
		seed_hdrs(&h, rnd_below(256));
	}
}

/* RoCE packets of a capture join the seeds as they are (re-addressed). */
static void seeds_from_pcap(const char *file)
{
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *ph;
	struct sroce_capframe cf;
	const u_char *data;
	pcap_t *p;
	u32 before = nseeds;

	p = pcap_open_offline(file, err);
	if (!p)
		die("%s: %s", file, err);
	if (!sroce_capframe_dlt_ok(pcap_datalink(p)))
		die("%s: link type not understood", file);
	while (pcap_next_ex(p, &ph, &data) == 1) {
		if (sroce_capframe_find(pcap_datalink(p), data, ph->caplen, &cf) !=
		    SROCE_CAPFRAME_OK)
			continue;
		seed_add(cf.bth, cf.bth_len);
	}
	pcap_close(p);
	if (opt.verbose)
		fprintf(stderr, "sroce-inject: %u seeds from %s\n", nseeds - before, file);
}

static bool avoided(u32 qpn)
{
	u32 i;

	for (i = 0; i < opt.navoid; i++)
		if (opt.avoid[i] == qpn)
			return true;
	return false;
}

static const u8 interesting[] = { 0x00, 0x01, 0x03, 0x04, 0x7f, 0x80, 0xfe, 0xff };

/* Mutate @p (BTH .. ICRC, @len bytes, room for FRAME_MAX); returns the new length. */
static u32 mutate(u8 *p, u32 len)
{
	/* Mostly one mutation: more packets then get past the parser. */
	u32 n = rnd_below(3) ? 1 : 2 + rnd_below(3), i, at;

	for (i = 0; i < n; i++) {
		switch (rnd_below(10)) {
		case 0:	/* flip a bit anywhere */
		case 1:
			at = rnd_below(len);
			p[at] ^= 1u << rnd_below(8);
			break;
		case 2:	/* a byte to a boundary value */
			p[rnd_below(len)] = interesting[rnd_below(sizeof(interesting))];
			break;
		case 3:	/* a header byte: opcode, flags/pad, PSN, extension headers */
			at = rnd_below(len < 44 ? len : 44);
			p[at] = (u8)rnd();
			break;
		case 4:	/* the opcode */
			p[0] = (u8)rnd();
			break;
		case 5:	/* the pad count and the other flag bits */
			p[1] = (u8)((p[1] & 0x0f) | (rnd_below(16) << 4));
			break;
		case 6:	/* the PSN, near where it was */
			sroce_put_be24(p + 9, (sroce_get_be24(p + 9) + rnd_below(64) - 32) &
				       SROCE_PSN_MASK);
			break;
		case 7:	/* cut the packet short (never longer: see grow) */
			if (len > SROCE_ICRC_LEN)
				len = SROCE_ICRC_LEN +
				      rnd_below(len - SROCE_ICRC_LEN);
			break;
		case 8:	/* grow it, up to the wire's frame size */
			if (len >= FRAME_MAX - ROCE_OFF)
				break;
			at = rnd_below(1 + opt.mtu + 64);
			if (len + at > FRAME_MAX - ROCE_OFF)
				at = FRAME_MAX - ROCE_OFF - len;
			memset(p + len, (u8)rnd(), at);
			len += at;
			break;
		case 9:	/* a length or key field in the first extension header */
			if (len >= SROCE_BTH_LEN + 16) {
				at = SROCE_BTH_LEN + 4 * rnd_below(4);
				sroce_put_be32(p + at, (u32)rnd());
			}
			break;
		}
	}
	return len;
}

/* Sleep until @sent packets are due at --rate since @t0. */
static void pace(const struct timespec *t0, u64 sent)
{
	struct timespec now, d;
	double due, el;

	clock_gettime(CLOCK_MONOTONIC, &now);
	el = (now.tv_sec - t0->tv_sec) + (now.tv_nsec - t0->tv_nsec) / 1e9;
	due = (double)sent / opt.rate;
	if (due <= el)
		return;
	d.tv_sec = (time_t)(due - el);
	d.tv_nsec = (long)((due - el - d.tv_sec) * 1e9);
	nanosleep(&d, NULL);
}

static void fuzz(void)
{
	struct timespec t0, t1;
	u64 i, stale = 0;
	u32 nbuilt;
	double secs;

	rng = opt.seed * 0x9e3779b97f4a7c15ull + 1;
	seeds_build();
	nbuilt = nseeds;
	if (opt.pcap_in)
		seeds_from_pcap(opt.pcap_in);
	if (!nseeds)
		die("fuzz: no seed packets");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < opt.fuzz; i++) {
		const struct seed_pkt *s = &seeds[rnd_below(nseeds)];
		struct frame f;
		u8 *r = f.buf + ROCE_OFF;
		u32 len, dqpn;
		bool keep;

		memcpy(r, s->b, s->len);
		len = mutate(r, s->len);
		if (len >= SROCE_BTH_LEN) {
			dqpn = sroce_get_be24(r + 5);
			/*
			 * Capture seeds address QPs of their own: aim most
			 * of them at ours.  Never at a QP the caller keeps
			 * live traffic on (--avoid-qpn).
			 */
			if (s >= seeds + nbuilt && rnd_below(4))
				sroce_put_be24(r + 5, opt.qpn);
			if (avoided(dqpn))
				sroce_put_be24(r + 5, opt.qpn);
		}
		frame_wrap(&f, len, 0xc000 | (u16)rnd_below(0x4000));
		keep = rnd_below(100) < opt.keep_bad_icrc;
		if (len >= SROCE_BTH_LEN + SROCE_ICRC_LEN && !keep)
			sroce_icrc_put(r + len - SROCE_ICRC_LEN, frame_icrc(&f, len));
		else
			stale++;
		frame_send(&f);
		if (opt.rate && !(i % 64))
			pace(&t0, i + 1);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("sroce-inject: fuzz: %" PRIu64 " packets from %u seeds, seed %" PRIu64
	       ", %" PRIu64 " with the ICRC left unfixed, %" PRIu64
	       " not sent (no buffer), %.1f s, %.0f packets/s\n",
	       n_sent, nseeds, opt.seed, stale, n_fail, secs,
	       secs > 0 ? n_sent / secs : 0.0);
}

/* ---- setup ---- */

static void parse_mac(const char *s, u8 *mac)
{
	unsigned int m[6], i;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2], &m[3], &m[4],
		   &m[5]) != 6)
		die("bad MAC address '%s'", s);
	for (i = 0; i < 6; i++)
		mac[i] = (u8)m[i];
}

/* The peer's MAC from the neighbour table (the script pings it first). */
static bool arp_lookup(struct in_addr ip, u8 *mac)
{
	char line[256], ipbuf[64], hw[64], dev[64];
	unsigned int type, flags;
	FILE *fp = fopen("/proc/net/arp", "r");
	bool found = false;

	if (!fp)
		return false;
	while (fgets(line, sizeof(line), fp)) {
		struct in_addr a;

		if (sscanf(line, "%63s 0x%x 0x%x %63s %*s %63s", ipbuf, &type, &flags,
			   hw, dev) != 5)
			continue;
		if (inet_pton(AF_INET, ipbuf, &a) == 1 && a.s_addr == ip.s_addr &&
		    (flags & 2)) {
			parse_mac(hw, mac);
			found = true;
			break;
		}
	}
	fclose(fp);
	return found;
}

static void open_iface(void)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };
	struct ifreq ifr = { 0 };
	int s;

	if (!opt.ifname)
		die("-i IFACE is required");
	if (strlen(opt.ifname) >= IFNAMSIZ)
		die("interface name too long");
	s = socket(AF_INET, SOCK_DGRAM, 0);
	if (s < 0)
		die("socket: %s", strerror(errno));
	strcpy(ifr.ifr_name, opt.ifname);
	if (ioctl(s, SIOCGIFINDEX, &ifr))
		die("%s: %s", opt.ifname, strerror(errno));
	ifindex = ifr.ifr_ifindex;
	if (ioctl(s, SIOCGIFHWADDR, &ifr))
		die("%s: no hardware address: %s", opt.ifname, strerror(errno));
	memcpy(opt.smac, ifr.ifr_hwaddr.sa_data, 6);
	if (!opt.have_src) {
		if (ioctl(s, SIOCGIFADDR, &ifr))
			die("%s: no IPv4 address (give -s)", opt.ifname);
		opt.src = ((struct sockaddr_in *)&ifr.ifr_addr)->sin_addr;
	}
	close(s);
	if (!opt.have_dmac && !arp_lookup(opt.dst, opt.dmac))
		die("no neighbour entry for %s: ping it first or give --dst-mac",
		    inet_ntoa(opt.dst));
	if (opt.wfile) {
		pcap_t *p = pcap_open_dead(DLT_EN10MB, 65535);

		dumper = p ? pcap_dump_open(p, opt.wfile) : NULL;
		if (!dumper)
			die("%s: cannot write", opt.wfile);
		return;
	}
	sock_fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (sock_fd < 0)
		die("AF_PACKET socket: %s (root needed)", strerror(errno));
	sll.sll_ifindex = ifindex;
	sll.sll_protocol = htons(ETH_P_IPV4);
	if (bind(sock_fd, (struct sockaddr *)&sll, sizeof(sll)))
		die("bind to %s: %s", opt.ifname, strerror(errno));
}

static void usage(int rc)
{
	unsigned int i;

	fprintf(rc ? stderr : stdout,
		"usage: sroce-inject -i IFACE -d DST_IP [-s SRC_IP] [--dst-mac MAC] AIM\n"
		"           (--case NAME [--count N] | --fuzz N [--seed S] [--pcap FILE]\n"
		"            [--avoid-qpn Q,...] [--stale-icrc PCT] [--rate PPS])\n"
		"           [-w FILE.pcap] [-v]\n"
		"  AIM: --qpn N --psn N --rkey N --va N --len N (the MR's length)\n"
		"       --ud-qpn N --qkey N --sqpn N --mtu BYTES (default 1024)\n"
		"  -w FILE   write the frames to a pcap instead of sending them\n"
		"  --fuzz N  send N mutated valid packets; all but --stale-icrc percent\n"
		"            (default 10) get their ICRC fixed so they reach the parsers;\n"
		"            --rate paces them (default: as fast as the socket takes them)\n"
		"cases (name: counter that must move on the target, QP afterwards):\n");
	for (i = 0; i < NCASES; i++)
		fprintf(rc ? stderr : stdout, "  %-17s %-24s %-6s %s\n", cases[i].name,
			cases[i].expect, cases[i].qp, cases[i].what);
	exit(rc);
}

static u64 num(const char *s)
{
	char *end;
	u64 v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || end == s)
		die("bad number '%s'", s);
	return v;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "case", 1, NULL, 'C' }, { "count", 1, NULL, 'n' },
		{ "qpn", 1, NULL, 'Q' }, { "psn", 1, NULL, 'P' },
		{ "rkey", 1, NULL, 'R' }, { "va", 1, NULL, 'V' },
		{ "len", 1, NULL, 'L' }, { "qkey", 1, NULL, 'K' },
		{ "sqpn", 1, NULL, 'q' }, { "ud-qpn", 1, NULL, 'U' },
		{ "mtu", 1, NULL, 'M' }, { "fuzz", 1, NULL, 'F' },
		{ "seed", 1, NULL, 'S' }, { "pcap", 1, NULL, 'p' },
		{ "avoid-qpn", 1, NULL, 'A' }, { "stale-icrc", 1, NULL, 'I' },
		{ "dst-mac", 1, NULL, 'm' }, { "rate", 1, NULL, 'r' }, { "list", 0, NULL, 'l' },
		{ "help", 0, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	const struct inj_case *c = NULL;
	unsigned int i;
	char *tok, *save;
	int ch;

	while ((ch = getopt_long(argc, argv, "i:d:s:w:vh", lo, NULL)) != -1) {
		switch (ch) {
		case 'i': opt.ifname = optarg; break;
		case 'd':
			if (inet_pton(AF_INET, optarg, &opt.dst) != 1)
				die("bad IPv4 address '%s'", optarg);
			break;
		case 's':
			if (inet_pton(AF_INET, optarg, &opt.src) != 1)
				die("bad IPv4 address '%s'", optarg);
			opt.have_src = true;
			break;
		case 'w': opt.wfile = optarg; break;
		case 'v': opt.verbose = true; break;
		case 'C':
			for (i = 0; i < NCASES; i++)
				if (!strcmp(cases[i].name, optarg))
					c = &cases[i];
			if (!c)
				die("no case '%s' (see --list)", optarg);
			break;
		case 'n': opt.count = num(optarg); break;
		case 'Q': opt.qpn = num(optarg) & SROCE_QPN_MASK; break;
		case 'P': opt.psn = num(optarg) & SROCE_PSN_MASK; break;
		case 'R': opt.rkey = num(optarg); break;
		case 'V': opt.va = num(optarg); break;
		case 'L': opt.len = num(optarg); break;
		case 'K': opt.qkey = num(optarg); break;
		case 'q': opt.sqpn = num(optarg) & SROCE_QPN_MASK; break;
		case 'U': opt.ud_qpn = num(optarg) & SROCE_QPN_MASK; break;
		case 'M': opt.mtu = num(optarg); break;
		case 'F': opt.fuzz = num(optarg); break;
		case 'S': opt.seed = num(optarg); break;
		case 'p': opt.pcap_in = optarg; break;
		case 'I': opt.keep_bad_icrc = num(optarg); break;
		case 'r': opt.rate = num(optarg); break;
		case 'm': parse_mac(optarg, opt.dmac); opt.have_dmac = true; break;
		case 'A':
			for (tok = strtok_r(optarg, ",", &save); tok;
			     tok = strtok_r(NULL, ",", &save)) {
				if (opt.navoid == sizeof(opt.avoid) / sizeof(opt.avoid[0]))
					die("too many --avoid-qpn");
				opt.avoid[opt.navoid++] = num(tok) & SROCE_QPN_MASK;
			}
			break;
		case 'l':
		case 'h': usage(0); break;
		default: usage(2);
		}
	}
	if (optind != argc || (!c && !opt.fuzz) || (c && opt.fuzz) || !opt.dst.s_addr)
		usage(2);
	if (opt.mtu < 256 || opt.mtu > 4096 || opt.len < 64)
		die("--mtu 256..4096 and --len >= 64");
	if (avoided(opt.qpn))
		die("--qpn is in --avoid-qpn");
	open_iface();
	if (c) {
		u8 fill = (u8)(0x40 + (c - cases));

		for (i = 0; i < opt.count; i++)
			c->send(fill);
		printf("sroce-inject: %s: %" PRIu64 " sent, payload bytes 0x%02x (%s)\n",
		       c->name, n_sent, fill, c->what);
	} else {
		fuzz();
	}
	if (dumper)
		pcap_dump_close(dumper);
	return n_fail && !opt.fuzz ? 1 : 0;
}
