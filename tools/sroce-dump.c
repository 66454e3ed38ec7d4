// SPDX-License-Identifier: GPL-2.0
/*
 * sroce-dump: print RoCEv2 packets one line each, the way tcpdump does,
 * decoded by the protocol core (sroce_parse, sroce_icrc_check) that
 * sroce.ko itself runs, from a live netdev or a pcap file.  See
 * sroce-dump(8) and Documentation/sroce-dump.rst.
 *
 * Exit status: 0 done, 1 capture or file error, 2 usage error, 3 with
 * --strict when a malformed packet or a bad ICRC was seen.
 */
#include <errno.h>
#include <getopt.h>
#include <pcap/pcap.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <arpa/inet.h>
#include <sys/socket.h>

/* The core and the user-space CRC, built into this one binary. */
#include "../kernel/proto/drop.c"
#include "../kernel/proto/icrc.c"
#include "../kernel/proto/opcode.c"
#include "../kernel/proto/wire.c"
#include "../kernel/proto/psn.h"
#include "../tests/lib/crc32.c"
#include "roce-frame.c"

#define EXIT_USAGE	2
#define EXIT_BADPKT	3
#define MAX_QPN_FILTER	64
#define LIVE_FILTER	"udp dst port 4791 or (vlan and udp dst port 4791)"

enum ts_mode { TS_LOCAL, TS_NONE, TS_EPOCH };

static struct {
	enum ts_mode ts;
	bool verbose, quiet, stats, strict;
	unsigned long count;		/* stop after this many; 0: never */
	u32 qpn[MAX_QPN_FILTER];
	unsigned int nqpn;
	u8 opmask[256];			/* opcodes to show; all if !opfilter */
	bool opfilter;
} opt = { .ts = TS_LOCAL };

/* One direction of one QP: source and destination address, DestQP. */
struct flow {
	struct flow *next;
	u8 src[16], dst[16];
	u32 dqpn;
	u32 max_psn;		/* highest request PSN seen */
};

#define FLOW_BUCKETS	4096
#define MAX_RETX_LIST	32	/* retransmitted PSNs listed by --stats */

/* One retransmitted request, for the --stats list. */
struct retx {
	u8 src[16], dst[16];
	bool v6;
	u32 dqpn, psn;
	char opname[32];
};

static struct {
	unsigned long frames, roce, shown, skipped, bad_icrc, rxe_flush, malformed;
	unsigned long retx, rnr_nak, nak;
	unsigned long op[256];
	unsigned long nak_code[32];
	unsigned long drop[SROCE_DROP_MAX];
	struct flow *flows[FLOW_BUCKETS];
	struct retx retx_list[MAX_RETX_LIST];
} st;

static pcap_t *pc;
static int dlt;

/* ---- names ---- */

static const char *const nak_names[] = {
	[SROCE_NAK_PSN_SEQ_ERR]		= "psn-sequence-error",
	[SROCE_NAK_INVALID_REQ]		= "invalid-request",
	[SROCE_NAK_REMOTE_ACCESS]	= "remote-access-error",
	[SROCE_NAK_REMOTE_OP_ERR]	= "remote-operational-error",
	[SROCE_NAK_INVALID_RD_REQ]	= "invalid-rd-request",
};

static const char *nak_name(unsigned int code)
{
	if (code < ARRAY_SIZE(nak_names) && nak_names[code])
		return nak_names[code];
	return "reserved";
}

/* IBA table 45: RNR NAK timer codes, in units of 10 us. */
static const u32 rnr_timer_10us[32] = {
	65536, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192,
	256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192,
	12288, 16384, 24576, 32768, 49152,
};

/* ---- filters ---- */

struct opclass {
	const char *name;
	u32 flags;	/* any of these */
};

static const struct opclass opclasses[] = {
	{ "send",	SROCE_OPF_SEND },
	{ "write",	SROCE_OPF_WRITE },
	{ "read",	SROCE_OPF_READ },
	{ "atomic",	SROCE_OPF_ATOMIC | SROCE_OPF_ATOMIC_WRITE },
	{ "flush",	SROCE_OPF_FLUSH },
	{ "request",	SROCE_OPF_REQ },
	{ "response",	SROCE_OPF_RESP },
};

/* Mark the opcodes @arg names in opt.opmask; false if it names none. */
static bool add_opcode_filter(const char *arg)
{
	bool any = false;
	unsigned int i, c;
	char *end;
	unsigned long v;

	opt.opfilter = true;
	errno = 0;
	v = strtoul(arg, &end, 0);
	if (*arg && !*end && !errno) {
		if (v > 255)
			return false;
		opt.opmask[v] = 1;
		return true;
	}
	/* "ack": the acknowledgements, ACK and ATOMIC ACKNOWLEDGE. */
	if (!strcasecmp(arg, "ack")) {
		opt.opmask[SROCE_OPC(RC, ACK)] = 1;
		opt.opmask[SROCE_OPC(RC, ATOMIC_ACK)] = 1;
		return true;
	}
	for (i = 0; i < ARRAY_SIZE(opclasses); i++) {
		if (strcasecmp(arg, opclasses[i].name))
			continue;
		for (c = 0; c < 256; c++) {
			const struct sroce_opinfo *op = sroce_opinfo(c);

			if (op && (op->flags & opclasses[i].flags)) {
				opt.opmask[c] = 1;
				any = true;
			}
		}
		return any;
	}
	/* A full name, RC_SEND_ONLY, or one without transport, SEND_ONLY. */
	for (c = 0; c < 256; c++) {
		const struct sroce_opinfo *op = sroce_opinfo(c);

		if (!op)
			continue;
		if (!strcasecmp(arg, op->name) ||
		    !strcasecmp(arg, op->name + 3)) {
			opt.opmask[c] = 1;
			any = true;
		}
	}
	return any;
}

/* Does a packet with this BTH pass --qpn and --opcode? */
static bool wanted(u8 opcode, u32 dqpn)
{
	unsigned int i;

	if (opt.opfilter && !opt.opmask[opcode])
		return false;
	if (!opt.nqpn)
		return true;
	for (i = 0; i < opt.nqpn; i++)
		if (opt.qpn[i] == dqpn)
			return true;
	return false;
}

/* ---- retransmission tracking ---- */

static u32 flow_hash(const struct sroce_capframe *f, u32 dqpn)
{
	u32 h = 2166136261u ^ dqpn;
	unsigned int i;

	for (i = 0; i < 16; i++)
		h = (h ^ f->src[i] ^ (u32)f->dst[i] << 8) * 16777619u;
	return h % FLOW_BUCKETS;
}

/*
 * A request PSN that is not newer than the highest one seen in the same
 * direction for the same DestQP is a retransmission (or reordering,
 * which RoCEv2 networks do not do).  Tracking the maximum rather than a
 * set of PSNs keeps memory per flow and copes with the 24-bit wrap.
 */
static bool note_request(const struct sroce_capframe *f, u32 dqpn, u32 psn)
{
	struct flow **b = &st.flows[flow_hash(f, dqpn)], *fl;

	for (fl = *b; fl; fl = fl->next)
		if (fl->dqpn == dqpn && !memcmp(fl->src, f->src, 16) &&
		    !memcmp(fl->dst, f->dst, 16))
			break;
	if (!fl) {
		fl = calloc(1, sizeof(*fl));
		if (!fl)
			return false;	/* can't track: call it new */
		memcpy(fl->src, f->src, 16);
		memcpy(fl->dst, f->dst, 16);
		fl->dqpn = dqpn;
		fl->max_psn = psn;
		fl->next = *b;
		*b = fl;
		return false;
	}
	if (sroce_psn_le(psn, fl->max_psn))
		return true;
	fl->max_psn = psn;
	return false;
}

static void note_retx(struct retx *r, const struct sroce_capframe *f,
		      const struct sroce_pkt *p)
{
	memcpy(r->src, f->src, 16);
	memcpy(r->dst, f->dst, 16);
	r->v6 = f->v6;
	r->dqpn = p->h.bth.dqpn;
	r->psn = p->h.bth.psn;
	snprintf(r->opname, sizeof(r->opname), "%s", p->op->name);
}

static void free_flows(void)
{
	unsigned int i;

	for (i = 0; i < FLOW_BUCKETS; i++) {
		while (st.flows[i]) {
			struct flow *fl = st.flows[i];

			st.flows[i] = fl->next;
			free(fl);
		}
	}
}

/* ---- printing ---- */

static void print_ts(const struct timeval *tv)
{
	time_t t = tv->tv_sec;
	struct tm tm;

	switch (opt.ts) {
	case TS_NONE:
		return;
	case TS_EPOCH:
		printf("%lld.%06ld ", (long long)tv->tv_sec, (long)tv->tv_usec);
		return;
	case TS_LOCAL:
		if (localtime_r(&t, &tm))
			printf("%02d:%02d:%02d.%06ld ", tm.tm_hour, tm.tm_min,
			       tm.tm_sec, (long)tv->tv_usec);
		return;
	}
}

static void print_addrs(const struct sroce_capframe *f)
{
	char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN];
	int af = f->v6 ? AF_INET6 : AF_INET;

	if (!inet_ntop(af, f->src, s, sizeof(s)))
		strcpy(s, "?");
	if (!inet_ntop(af, f->dst, d, sizeof(d)))
		strcpy(d, "?");
	printf("IP%s %s.%u > %s.%u: ", f->v6 ? "6" : "", s, f->sport, d,
	       f->dport);
}

static void print_aeth(const struct sroce_aeth *a)
{
	u8 v = sroce_aeth_value(a->syndrome);
	u32 t;

	printf(" aeth");
	if (opt.verbose)
		printf(" syndrome 0x%02x", a->syndrome);
	switch (sroce_aeth_type(a->syndrome)) {
	case SROCE_AETH_ACK:
		printf(" ACK credits %u", v);
		break;
	case SROCE_AETH_RNR_NAK:
		t = rnr_timer_10us[v];
		printf(" RNR-NAK timer %u (%u.%02u ms)", v, t / 100, t % 100);
		break;
	case SROCE_AETH_NAK:
		printf(" NAK code %u (%s)", v, nak_name(v));
		break;
	default:
		printf(" reserved-syndrome 0x%02x", a->syndrome);
		break;
	}
	printf(" msn %u", a->msn);
}

static void print_pkt(const struct sroce_pkt *p, bool retx)
{
	const struct sroce_hdrs *h = &p->h;
	const struct sroce_bth *b = &h->bth;
	u32 fl = p->op->flags;

	printf("%s qp 0x%06x psn %u", p->op->name, b->dqpn, b->psn);
	if (b->ackreq)
		printf(" ackreq");
	if (b->se)
		printf(" se");
	printf(" pad %u", b->pad);
	if (opt.verbose) {
		printf(" pkey 0x%04x", b->pkey);
		if (b->mig)
			printf(" mig");
		if (b->fecn)
			printf(" fecn");
		if (b->becn)
			printf(" becn");
	}
	if (fl & SROCE_OPF_DETH)
		printf(" deth qkey 0x%08x srcqp 0x%06x", h->deth.qkey,
		       h->deth.sqpn);
	if (fl & SROCE_OPF_FETH)
		printf(" feth 0x%08x", h->feth);
	if (fl & SROCE_OPF_RETH)
		printf(" reth va 0x%016llx rkey 0x%08x len %u",
		       (unsigned long long)h->reth.va, h->reth.rkey,
		       h->reth.len);
	if (fl & SROCE_OPF_ATMETH)
		printf(" atomiceth va 0x%016llx rkey 0x%08x swap 0x%016llx cmp 0x%016llx",
		       (unsigned long long)h->atmeth.va, h->atmeth.rkey,
		       (unsigned long long)h->atmeth.swap_add,
		       (unsigned long long)h->atmeth.cmp);
	if (fl & SROCE_OPF_AETH)
		print_aeth(&h->aeth);
	if (fl & SROCE_OPF_ATMACK)
		printf(" orig 0x%016llx", (unsigned long long)h->atmack);
	if (fl & SROCE_OPF_IMMDT)
		printf(" imm 0x%08x", h->imm);
	if (fl & SROCE_OPF_IETH)
		printf(" ieth rkey 0x%08x", h->ieth);
	printf(" payload %u", p->paylen);
	if (retx)
		printf(" retransmit");
}

/* ---- per packet ---- */

static void count_aeth(const struct sroce_pkt *p)
{
	u8 syn = p->h.aeth.syndrome;

	if (!(p->op->flags & SROCE_OPF_AETH))
		return;
	switch (sroce_aeth_type(syn)) {
	case SROCE_AETH_RNR_NAK:
		st.rnr_nak++;
		break;
	case SROCE_AETH_NAK:
		st.nak++;
		st.nak_code[sroce_aeth_value(syn)]++;
		break;
	default:
		break;
	}
}

/* A packet that does not decode: say why and what of the BTH is there. */
static void show_malformed(const struct pcap_pkthdr *ph,
			   const struct sroce_capframe *f, enum sroce_drop why,
			   int icrc_ok)
{
	const struct sroce_opinfo *op;

	st.malformed++;
	st.drop[why]++;
	st.shown++;
	if (opt.quiet)
		return;
	print_ts(&ph->ts);
	print_addrs(f);
	printf("malformed (%s)", sroce_drop_name(why));
	if (f->bth_caplen >= SROCE_BTH_LEN) {
		op = sroce_opinfo(f->bth[0]);
		printf(" opcode 0x%02x", f->bth[0]);
		if (op)
			printf(" %s", op->name);
		printf(" qp 0x%06x psn %u", sroce_get_be24(f->bth + 5),
		       sroce_get_be24(f->bth + 9));
	}
	printf(" length %u captured %u", f->bth_len, f->bth_caplen);
	if (icrc_ok >= 0)
		printf(" icrc %s", icrc_ok ? "ok" : "BAD");
	putchar('\n');
}

static void on_packet(u_char *user, const struct pcap_pkthdr *ph,
		      const u_char *data)
{
	struct sroce_capframe f;
	enum sroce_capframe_res r;
	struct sroce_pkt pkt;
	enum sroce_drop why;
	bool icrc_ok, rxe_flush, retx = false;
	u32 caplen = ph->caplen;

	(void)user;
	st.frames++;
	/* Never trust caplen beyond what libpcap says it delivered. */
	if (caplen > ph->len)
		caplen = ph->len;
	r = sroce_capframe_find(dlt, data, caplen, &f);
	if (r == SROCE_CAPFRAME_NOT_ROCE) {
		st.skipped++;
		return;
	}
	st.roce++;
	/* Filter on the raw BTH, so that malformed packets filter too. */
	if (f.bth_caplen >= SROCE_BTH_LEN &&
	    !wanted(f.bth[0], sroce_get_be24(f.bth + 5)))
		return;
	if (r == SROCE_CAPFRAME_TRUNCATED) {
		show_malformed(ph, &f, SROCE_DROP_TRUNCATED, -1);
		goto out;
	}
	icrc_ok = sroce_icrc_check(f.l3, f.l3_len, f.v6);
	/* rdma_rxe's FLUSH: the headers twice (proto/icrc.h), accepted */
	rxe_flush = !icrc_ok &&
		    sroce_icrc_check_rxe_flush(f.l3, f.l3_len, f.v6);
	st.bad_icrc += !icrc_ok && !rxe_flush;
	st.rxe_flush += rxe_flush;
	memset(&pkt, 0, sizeof(pkt));
	why = sroce_parse(f.bth, f.bth_len, &pkt);
	if (why != SROCE_DROP_NONE) {
		show_malformed(ph, &f, why, icrc_ok);
		goto out;
	}
	st.shown++;
	st.op[pkt.h.bth.opcode]++;
	count_aeth(&pkt);
	if (pkt.op->flags & SROCE_OPF_REQ)
		retx = note_request(&f, pkt.h.bth.dqpn, pkt.h.bth.psn);
	if (retx && st.retx < MAX_RETX_LIST)
		note_retx(&st.retx_list[st.retx], &f, &pkt);
	st.retx += retx;
	if (!opt.quiet) {
		print_ts(&ph->ts);
		print_addrs(&f);
		print_pkt(&pkt, retx);
		printf(" icrc %s\n", icrc_ok ? "ok" :
		       rxe_flush ? "rxe-flush" : "BAD");
	}
out:
	if (opt.count && st.shown >= opt.count)
		pcap_breakloop(pc);
}

/* ---- summary ---- */

static void print_stats(FILE *o)
{
	unsigned int i;

	fprintf(o, "sroce-dump statistics:\n");
	fprintf(o, "  %-24s %lu\n", "frames", st.frames);
	fprintf(o, "  %-24s %lu\n", "not-roce", st.skipped);
	fprintf(o, "  %-24s %lu\n", "roce", st.roce);
	fprintf(o, "  %-24s %lu\n", "shown", st.shown);
	fprintf(o, "  %-24s %lu\n", "bad-icrc", st.bad_icrc);
	if (st.rxe_flush)
		fprintf(o, "  %-24s %lu\n", "rxe-flush-icrc", st.rxe_flush);
	fprintf(o, "  %-24s %lu\n", "malformed", st.malformed);
	fprintf(o, "  %-24s %lu\n", "retransmitted", st.retx);
	fprintf(o, "  %-24s %lu\n", "rnr-nak", st.rnr_nak);
	fprintf(o, "  %-24s %lu\n", "nak", st.nak);
	fprintf(o, "opcodes:\n");
	for (i = 0; i < 256; i++)
		if (st.op[i])
			fprintf(o, "  %-24s %lu\n", sroce_opinfo(i)->name,
				st.op[i]);
	/* Which requests went out again: the first MAX_RETX_LIST of them. */
	fprintf(o, "retransmitted-psns:\n");
	for (i = 0; i < st.retx && i < MAX_RETX_LIST; i++) {
		const struct retx *r = &st.retx_list[i];
		char sa[INET6_ADDRSTRLEN], da[INET6_ADDRSTRLEN];
		int af = r->v6 ? AF_INET6 : AF_INET;

		if (!inet_ntop(af, r->src, sa, sizeof(sa)))
			strcpy(sa, "?");
		if (!inet_ntop(af, r->dst, da, sizeof(da)))
			strcpy(da, "?");
		fprintf(o, "  %s > %s qp 0x%06x psn %u %s\n", sa, da, r->dqpn,
			r->psn, r->opname);
	}
	if (st.retx > MAX_RETX_LIST)
		fprintf(o, "  ... and %lu more\n", st.retx - MAX_RETX_LIST);
	fprintf(o, "nak-codes:\n");
	for (i = 0; i < ARRAY_SIZE(st.nak_code); i++)
		if (st.nak_code[i])
			fprintf(o, "  %-24s %lu\n", nak_name(i), st.nak_code[i]);
	fprintf(o, "malformed-reasons:\n");
	for (i = 1; i < SROCE_DROP_MAX; i++)
		if (st.drop[i])
			fprintf(o, "  %-24s %lu\n",
				sroce_drop_name((enum sroce_drop)i), st.drop[i]);
}

/* ---- setup ---- */

static void on_signal(int sig)
{
	(void)sig;
	if (pc)
		pcap_breakloop(pc);
}

static pcap_t *open_live(const char *dev, bool promisc)
{
	char err[PCAP_ERRBUF_SIZE];
	struct bpf_program bpf;
	pcap_t *p = pcap_create(dev, err);
	int rc;

	if (!p) {
		fprintf(stderr, "sroce-dump: %s\n", err);
		return NULL;
	}
	pcap_set_snaplen(p, 262144);
	pcap_set_promisc(p, promisc);
	pcap_set_timeout(p, 100);
	/* One line per packet as it arrives, not per buffer. */
	pcap_set_immediate_mode(p, 1);
	rc = pcap_activate(p);
	if (rc < 0) {
		fprintf(stderr, "sroce-dump: %s: %s\n", dev,
			rc == PCAP_ERROR ? pcap_geterr(p) : pcap_statustostr(rc));
		goto fail;
	}
	if (rc > 0)
		fprintf(stderr, "sroce-dump: %s: warning: %s\n", dev,
			pcap_statustostr(rc));
	if (pcap_compile(p, &bpf, LIVE_FILTER, 1, PCAP_NETMASK_UNKNOWN) ||
	    pcap_setfilter(p, &bpf)) {
		fprintf(stderr, "sroce-dump: %s: filter: %s\n", dev,
			pcap_geterr(p));
		goto fail;
	}
	pcap_freecode(&bpf);
	return p;
fail:
	pcap_close(p);
	return NULL;
}

static void print_usage(FILE *o)
{
	fprintf(o,
"usage: sroce-dump (-i IFACE | -r FILE) [options]\n"
"Print RoCEv2 (UDP 4791) packets one line each, decoded by the sroce\n"
"protocol core, with ICRC verification.\n"
"\n"
"  -i, --interface IFACE  capture live on IFACE (needs CAP_NET_RAW);\n"
"                         BPF filter: " LIVE_FILTER "\n"
"  -r, --read FILE        read a pcap/pcapng file ('-' for stdin)\n"
"  -c, --count N          stop after N shown packets\n"
"  -p, --no-promiscuous   do not put IFACE into promiscuous mode\n"
"      --qpn N            only packets to DestQP N (repeatable, OR-ed)\n"
"      --opcode OP        only opcode OP (repeatable, OR-ed): a name\n"
"                         (RC_SEND_ONLY, or SEND_ONLY for any transport),\n"
"                         a number (4, 0x64), or a class: send, write,\n"
"                         read, atomic, ack, flush, request, response\n"
"  -s, --stats            print a summary at the end (to stdout): packets\n"
"                         per opcode, retransmitted PSNs, NAKs by code,\n"
"                         RNR NAKs, bad ICRCs, malformed by reason\n"
"  -q, --quiet            no per-packet lines (with -s: summary only)\n"
"  -t                     no timestamps\n"
"      --tt               timestamps as seconds since the epoch\n"
"  -v, --verbose          also P_Key, MigReq, FECN/BECN, raw AETH syndrome\n"
"      --strict           exit 3 if any packet was malformed or had a bad ICRC\n"
"  -h, --help             this text\n"
"\n"
"Line: TIME IP[6] SRC.SPORT > DST.DPORT: OPCODE qp DESTQP psn PSN [ackreq]\n"
"  [se] pad N [deth qkey Q srcqp S] [reth va V rkey R len L]\n"
"  [atomiceth va V rkey R swap X cmp Y] [aeth ACK credits N | RNR-NAK timer\n"
"  N (T ms) | NAK code N (NAME) msn M] [orig X] [imm I] [ieth rkey R]\n"
"  payload N [retransmit] icrc ok|BAD\n"
"or: ... malformed (REASON) [opcode O qp Q psn P] length N captured N ...\n"
"\n"
"Exit: 0 done, 1 capture/file error, 2 usage error, 3 --strict and bad\n"
"packets seen.  See sroce-dump(8).\n");
}

enum { OPT_QPN = 256, OPT_OPCODE, OPT_TT, OPT_STRICT };

static const struct option longopts[] = {
	{ "interface",		required_argument, NULL, 'i' },
	{ "read",		required_argument, NULL, 'r' },
	{ "count",		required_argument, NULL, 'c' },
	{ "no-promiscuous",	no_argument,	   NULL, 'p' },
	{ "qpn",		required_argument, NULL, OPT_QPN },
	{ "opcode",		required_argument, NULL, OPT_OPCODE },
	{ "stats",		no_argument,	   NULL, 's' },
	{ "quiet",		no_argument,	   NULL, 'q' },
	{ "tt",			no_argument,	   NULL, OPT_TT },
	{ "verbose",		no_argument,	   NULL, 'v' },
	{ "strict",		no_argument,	   NULL, OPT_STRICT },
	{ "help",		no_argument,	   NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static bool parse_ulong(const char *s, unsigned long max, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 0);
	return *s && *s != '-' && !*end && !errno && *v <= max;
}

int main(int argc, char **argv)
{
	const char *dev = NULL, *file = NULL;
	char err[PCAP_ERRBUF_SIZE];
	bool promisc = true;
	unsigned long v;
	int c, rc, ret = 0;

	while ((c = getopt_long(argc, argv, "i:r:c:pqstvh", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'i':
			dev = optarg;
			break;
		case 'r':
			file = optarg;
			break;
		case 'c':
			if (!parse_ulong(optarg, ~0ul, &opt.count) || !opt.count) {
				fprintf(stderr, "sroce-dump: bad count '%s'\n",
					optarg);
				return EXIT_USAGE;
			}
			break;
		case 'p':
			promisc = false;
			break;
		case OPT_QPN:
			if (!parse_ulong(optarg, SROCE_QPN_MASK, &v) ||
			    opt.nqpn >= MAX_QPN_FILTER) {
				fprintf(stderr, "sroce-dump: bad or too many --qpn '%s'\n",
					optarg);
				return EXIT_USAGE;
			}
			opt.qpn[opt.nqpn++] = v;
			break;
		case OPT_OPCODE:
			if (!add_opcode_filter(optarg)) {
				fprintf(stderr, "sroce-dump: unknown opcode '%s'\n",
					optarg);
				return EXIT_USAGE;
			}
			break;
		case 's':
			opt.stats = true;
			break;
		case 'q':
			opt.quiet = true;
			break;
		case 't':
			opt.ts = TS_NONE;
			break;
		case OPT_TT:
			opt.ts = TS_EPOCH;
			break;
		case 'v':
			opt.verbose = true;
			break;
		case OPT_STRICT:
			opt.strict = true;
			break;
		case 'h':
			print_usage(stdout);
			return 0;
		default:
			print_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc || !dev == !file) {
		print_usage(stderr);
		return EXIT_USAGE;
	}

	if (file) {
		pc = pcap_open_offline(file, err);
		if (!pc) {
			fprintf(stderr, "sroce-dump: %s\n", err);
			return EXIT_FAILURE;
		}
	} else {
		pc = open_live(dev, promisc);
		if (!pc)
			return EXIT_FAILURE;
		/* Lines as they come, like tcpdump -l, for pipes too. */
		setvbuf(stdout, NULL, _IOLBF, 0);
	}
	dlt = pcap_datalink(pc);
	if (!sroce_capframe_dlt_ok(dlt))
		fprintf(stderr, "sroce-dump: link type %s not understood, no packet will decode\n",
			pcap_datalink_val_to_name(dlt) ?: "?");
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	rc = pcap_loop(pc, -1, on_packet, NULL);
	if (rc == PCAP_ERROR) {
		fprintf(stderr, "sroce-dump: %s: %s\n", file ? file : dev,
			pcap_geterr(pc));
		ret = EXIT_FAILURE;
	}
	if (opt.stats)
		print_stats(stdout);
	if (!ret && opt.strict && (st.malformed || st.bad_icrc))
		ret = EXIT_BADPKT;
	pcap_close(pc);
	free_flows();
	return ret;
}
