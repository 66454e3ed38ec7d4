// SPDX-License-Identifier: GPL-2.0
/*
 * sim: command line of the lossy-network simulator.
 *
 *   sim [options]                 one run (see --help)
 *   sim --suite check [--seed B]  the check-sim matrix (cc included)
 *   sim --suite cc [--seed B]     the congestion control table
 *   sim --soak SECONDS [--seed B] random matrices with fresh seeds
 *
 * Any failure prints the exact command that reproduces it.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim.h"

static struct {
	u64 runs, failed, msgs, bytes, frames, lost_msgs, legit_exc, dups;
	u64 atomic_writes, flushes;
	u64 drops[SROCE_DROP_MAX];
	double wall;
	bool verbose;
} tot;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void defaults(struct sim_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->scenario = "random";
	o->nqp = 4;
	o->msgs = 2000;
	o->max_size = 8u << 20;
	o->ipv6 = -1;
	o->types = 1u << SROCE_QPT_RC;
	o->depth = 16;
	o->timeout = 10;	/* 4.2 ms */
	o->retry_cnt = 7;
	o->rnr_retry = 7;
	o->min_rnr_timer = 1;	/* 10 us */
	o->link.delay_ns = 2000;
	o->link.jitter_ns = 200;
	o->link.reorder_ns = 20000;
}

static void ppm_arg(char *b, size_t n, const char *name, u32 ppm)
{
	if (ppm)
		snprintf(b, n, " --%s %g", name, ppm / 10000.0);
	else
		b[0] = 0;
}

static void print_cmd(FILE *f, const struct sim_opts *o)
{
	char l[32], d[32], r[32], c[32], lr[32], eb[96], ab[32];
	char types[16] = "";

	ppm_arg(l, sizeof(l), "loss", o->link.loss_ppm);
	ppm_arg(d, sizeof(d), "dup", o->link.dup_ppm);
	ppm_arg(r, sizeof(r), "reorder", o->link.reorder_ppm);
	ppm_arg(c, sizeof(c), "corrupt", o->link.corrupt_ppm);
	ppm_arg(lr, sizeof(lr), "late-recv", o->late_recv_ppm);
	ppm_arg(eb, sizeof(eb), "emit-busy", o->emit_busy_ppm);
	if (o->emit_busy_ppm && o->emit_busy_ns)
		snprintf(eb + strlen(eb), sizeof(eb) - strlen(eb),
			 " --emit-busy-us %g", o->emit_busy_ns / 1000.0);
	ppm_arg(ab, sizeof(ab), "absent", o->absent_ppm);
	strcat(eb, ab);
	if (o->types & (1u << SROCE_QPT_RC))
		strcat(types, "rc,");
	if (o->types & (1u << SROCE_QPT_UC))
		strcat(types, "uc,");
	if (o->types & (1u << SROCE_QPT_UD))
		strcat(types, "ud,");
	if (types[0])
		types[strlen(types) - 1] = 0;
	fprintf(f, "sim --seed %llu --scenario %s --qps %u --msgs %u --max-size %u --mtu %u --%s --types %s --depth %u --rd-atomic %u --timeout %u --retry %u --rnr-retry %u%s%s%s%s%s%s --delay %llu --jitter %llu --gbps %llu%s%s\n",
		(unsigned long long)o->seed, o->scenario, o->nqp, o->msgs,
		o->max_size, o->mtu ? sroce_mtu_bytes(o->mtu) : 0,
		o->ipv6 < 0 ? "ip-any" : o->ipv6 ? "ipv6" : "ipv4", types,
		o->depth, o->rd_atomic, o->timeout, o->retry_cnt, o->rnr_retry, l, d, r, c, lr, eb,
		(unsigned long long)o->link.delay_ns,
		(unsigned long long)o->link.jitter_ns,
		(unsigned long long)o->link.gbps,
		o->no_share ? " --no-share" : "", o->verbose ? " -v" : "");
}

/* One run; returns 0 if it passed. */
static int run_one(const struct sim_opts *o)
{
	struct sim *s = malloc(sizeof(*s));
	double t0 = now_s();
	int ret;
	u32 i;

	if (!s)
		abort();
	sim_setup(s, o);
	if (!strcmp(o->scenario, "random"))
		ret = sim_random(s);
	else
		ret = sim_scenario(s, o->scenario);
	if (ret < 0) {
		fprintf(stderr, "sim: unknown scenario '%s'\n", o->scenario);
		exit(2);
	}
	tot.runs++;
	tot.msgs += s->st.msgs;
	tot.atomic_writes += s->st.atomic_writes;
	tot.flushes += s->st.flushes;
	tot.bytes += s->st.bytes;
	tot.frames += s->st.rx_frames;
	tot.lost_msgs += s->st.lost_msgs;
	tot.dups += s->st.ud_dups + s->st.uc_late;
	tot.legit_exc += s->st.retry_exc_legit;
	for (i = 0; i < SROCE_DROP_MAX; i++)
		tot.drops[i] += s->st.drops[i];
	if (s->failed) {
		tot.failed++;
		printf("FAIL: %s\n  reproduce: ", s->fail_msg);
		print_cmd(stdout, &s->o);
	} else if (o->verbose || tot.verbose) {
		printf("ok  %-10s seed %llu mtu %u %s: %llu msgs, %llu frames, %llu lost, %llu dup, %llu corrupt, %.2fs\n",
		       o->scenario, (unsigned long long)o->seed,
		       sroce_mtu_bytes(s->o.mtu), s->o.ipv6 ? "v6" : "v4",
		       (unsigned long long)s->st.msgs,
		       (unsigned long long)s->st.rx_frames,
		       (unsigned long long)(s->link[0].st.lost +
					    s->link[1].st.lost),
		       (unsigned long long)(s->link[0].st.dup +
					    s->link[1].st.dup),
		       (unsigned long long)(s->link[0].st.corrupted +
					    s->link[1].st.corrupted),
		       now_s() - t0);
	}
	fflush(stdout);
	sim_teardown(s);
	free(s);
	return ret;
}

struct mix {
	const char *name;
	u32 loss, dup, reorder, corrupt;	/* ppm */
	u32 late;				/* late receives, ppm */
	u32 busy;				/* emit refusals, ppm */
	u32 max_size;
	u32 types;
	u32 msgs, nqp;
	u32 busy_us;				/* each refusal lasts up to */
};

#define RC	(1u << SROCE_QPT_RC)
#define ALL	(RC | 1u << SROCE_QPT_UC | 1u << SROCE_QPT_UD)

/* The check-sim matrix: loss 0..20 %, reordering, duplication, corruption. */
static const struct mix check_mix[] = {
	{ "clean",	0,	0,	0,	0,	0,	0,	8u << 20, ALL, 3000, 8, 0 },
	{ "loss0.1",	1000,	0,	0,	0,	0,	0,	1u << 20, ALL, 3000, 8, 0 },
	{ "loss1",	10000,	0,	0,	0,	0,	0,	256 << 10, ALL, 3000, 8, 0 },
	{ "loss5",	50000,	0,	0,	0,	0,	0,	64 << 10, ALL, 2500, 8, 0 },
	{ "loss10",	100000,	0,	0,	0,	0,	0,	32 << 10, ALL, 2500, 8, 0 },
	{ "loss20",	200000,	0,	0,	0,	0,	0,	16 << 10, ALL, 2000, 8, 0 },
	{ "reorder",	0,	0,	10000,	0,	0,	0,	256 << 10, ALL, 3000, 8, 0 },
	{ "dup",	0,	50000,	0,	0,	0,	0,	256 << 10, ALL, 3000, 8, 0 },
	{ "corrupt",	0,	0,	0,	20000,	0,	0,	256 << 10, ALL, 3000, 8, 0 },
	{ "rnr",	10000,	0,	0,	0,	100000,	0,	64 << 10, ALL, 3000, 8, 0 },
	{ "mix",	20000,	20000,	10000,	10000,	0,	20000,	64 << 10, ALL, 3000, 8, 0 },
	/*
	 * Long TX stalls, no loss: a QP's own stalls may spend no retry;
	 * its peer's, as long as an ACK timeout, look like loss to it.
	 */
	{ "backpressure", 0,	0,	0,	0,	0,	20000,	64 << 10, ALL, 2000, 8,
	  12000 },
	/* On-demand paging: absent_mix[] has its copies miss a page. */
	{ "odp",	1000,	0,	0,	0,	0,	0,	256 << 10, ALL, 3000, 8, 0 },
	/* Side 1 checks FLUSH ICRCs as rdma_rxe does: rxe_mix[]. */
	{ "rxe-flush",	0,	0,	0,	0,	0,	0,	16 << 10, RC, 2000, 8, 0 },
	{ "rxe-flush-loss1", 10000, 0,	0,	0,	0,	0,	16 << 10, RC, 2000, 8, 0 },
};

/* Mixes whose side 1 is rdma_rxe for FLUSH ICRCs; side 0 is sroce. */
static const char *const rxe_mix[] = { "rxe-flush", "rxe-flush-loss1" };

static bool mix_rxe(const struct mix *m)
{
	u32 i;

	for (i = 0; i < ARRAY_SIZE(rxe_mix); i++)
		if (!strcmp(rxe_mix[i], m->name))
			return true;
	return false;
}

/* Mixes whose copies find memory not present (ODP), in ppm. */
static const struct {
	const char *mix;
	u32 ppm;
} absent_mix[] = {
	{ "odp", 10000 },
};

static u32 mix_absent(const struct mix *m)
{
	u32 i;

	for (i = 0; i < sizeof(absent_mix) / sizeof(absent_mix[0]); i++)
		if (!strcmp(absent_mix[i].mix, m->name))
			return absent_mix[i].ppm;
	return 0;
}

static double scale = 1.0;
static bool qps_given;

static void apply_mix(struct sim_opts *o, const struct mix *m)
{
	o->link.loss_ppm = m->loss;
	o->link.dup_ppm = m->dup;
	o->link.reorder_ppm = m->reorder;
	o->link.corrupt_ppm = m->corrupt;
	o->late_recv_ppm = m->late;
	o->emit_busy_ppm = m->busy;
	o->emit_busy_ns = (u64)m->busy_us * 1000;
	o->absent_ppm = mix_absent(m);
	o->icrc[0] = mix_rxe(m) ? SIM_ICRC_SROCE : SIM_ICRC_IBA;
	o->icrc[1] = mix_rxe(m) ? SIM_ICRC_RXE : SIM_ICRC_IBA;
	o->max_size = m->max_size;
	o->types = m->types;
	o->msgs = (u32)(m->msgs * scale);
	if (!qps_given || o->nqp > m->nqp)
		o->nqp = m->nqp;
}

/*
 * Seeds that once found a bug, replayed by every check: the mix they ran
 * in (by name) and the seed.
 */
static const struct {
	const char *mix;
	u64 seed;
} regress[] = {
	/* comp.c: an ACK overtook a go-back; req.psn < comp.psn: stall */
	{ "rnr", 18 },
	{ "mix", 1 },
	{ "mix", 10 },
	/* resp.c: replayed READ/atomic resources count against new ones */
	{ "mix", 9 },
	/* comp.c: a READ response stream starved its own QP's requester */
	{ "backpressure", 1796136419 },
};

static void summary(const char *what)
{
	u32 i;

	printf("%s: %llu runs, %llu messages, %.1f MiB, %llu frames in %.1fs: %.0f frames/s",
	       what, (unsigned long long)tot.runs,
	       (unsigned long long)tot.msgs, tot.bytes / 1048576.0,
	       (unsigned long long)tot.frames, tot.wall,
	       tot.wall > 0 ? tot.frames / tot.wall : 0.0);
	printf("; UC/UD lost %llu, late or twice %llu (legit); RC retry-exceeded under loss %llu",
	       (unsigned long long)tot.lost_msgs,
	       (unsigned long long)tot.dups,
	       (unsigned long long)tot.legit_exc);
	printf("; ATOMIC WRITE %llu, FLUSH %llu\n",
	       (unsigned long long)tot.atomic_writes,
	       (unsigned long long)tot.flushes);
	printf("drops:");
	for (i = 1; i < SROCE_DROP_MAX; i++)
		if (tot.drops[i])
			printf(" %s=%llu", sroce_drop_name(i),
			       (unsigned long long)tot.drops[i]);
	printf("\n");
}

static int suite_check(struct sim_opts *base, u32 seeds)
{
	const char *const *sc;
	struct sim_opts o;
	u32 i, k, f = 0;
	u64 seed = base->seed;

	/* Congestion control: the whole table, or one row when scaled down. */
	tot.runs += sim_cc_suite(scale >= 1.0, base->seed, &f);
	tot.failed += f;
	for (k = 0; k < seeds; k++) {
		for (i = 0; i < ARRAY_SIZE(check_mix); i++) {
			o = *base;
			apply_mix(&o, &check_mix[i]);
			o.seed = seed++;
			run_one(&o);
		}
	}
	for (sc = sim_scenarios; *sc; sc++) {
		for (k = 0; k < 3; k++) {
			o = *base;
			o.scenario = *sc;
			o.seed = seed++;
			run_one(&o);
		}
	}
	for (k = 0; k < ARRAY_SIZE(regress); k++) {
		for (i = 0; i < ARRAY_SIZE(check_mix); i++) {
			if (strcmp(check_mix[i].name, regress[k].mix))
				continue;
			o = *base;
			apply_mix(&o, &check_mix[i]);
			o.msgs = check_mix[i].msgs;	/* as found */
			o.seed = regress[k].seed;
			run_one(&o);
		}
	}
	return 0;
}

static int soak(struct sim_opts *base, double seconds)
{
	double end = now_s() + seconds;
	const char *const *sc;
	struct sim_opts o;
	u64 seed = base->seed;
	u32 i;

	printf("soak: first seed %llu\n", (unsigned long long)seed);
	while (now_s() < end) {
		for (i = 0; i < ARRAY_SIZE(check_mix) && now_s() < end; i++) {
			o = *base;
			apply_mix(&o, &check_mix[i]);
			o.seed = seed++;
			run_one(&o);
		}
		for (sc = sim_scenarios; *sc && now_s() < end; sc++) {
			o = *base;
			o.scenario = *sc;
			o.seed = seed++;
			run_one(&o);
		}
		printf("soak: seeds %llu..%llu done, %llu failed\n",
		       (unsigned long long)base->seed,
		       (unsigned long long)seed - 1,
		       (unsigned long long)tot.failed);
		fflush(stdout);
	}
	return 0;
}

static u32 pct(const char *s)
{
	return (u32)(atof(s) * 10000.0 + 0.5);
}

static int mtu_enum(u32 bytes)
{
	int i;

	for (i = 1; i <= 5; i++)
		if (sroce_mtu_bytes(i) == bytes)
			return i;
	return bytes ? -1 : 0;
}

static void usage(void)
{
	const char *const *sc;

	printf("usage: sim [options]\n"
	       "  --seed N            run seed (suite/soak: first seed)\n"
	       "  --scenario NAME     random (default) or an error-path scenario\n"
	       "  --suite check       the check-sim matrix (--seeds K per mix,\n"
	       "                      --scale F messages, --qps N caps the QPs)\n"
	       "  --suite cc          congestion control: incast and burst\n"
	       "  --soak SECONDS      matrices with fresh seeds until time is up\n"
	       "  --qps N --msgs N --max-size BYTES --depth N\n"
	       "  --mtu 256|512|1024|2048|4096 (default: from the seed)\n"
	       "  --ipv4 | --ipv6     (default: from the seed)\n"
	       "  --types rc,uc,ud    QP types of the random workload\n"
	       "  --loss/--dup/--reorder/--corrupt PCT   link impairments\n"
	       "  --delay NS --jitter NS --gbps N        link timing\n"
	       "  --timeout N --retry N --rnr-retry N    QP attributes\n"
	       "  --late-recv PCT     RC receives posted late (RNR NAKs)\n"
	       "  --rd-atomic N       max_rd_atomic/max_dest_rd_atomic (default: seed)\n"
	       "  --emit-busy PCT     emit() refuses a packet (TX queue full)\n"
	       "  --emit-busy-us US   ... and goes on refusing for up to US (5.5)\n"
	       "  --absent PCT        a copy finds its memory not present (ODP)\n"
	       "  --no-share          QPs do not share the in-flight budget\n"
	       "  --trace PAIR        print every packet of QP pair PAIR\n"
	       "  -v                  a line per run\n"
	       "scenarios:");
	for (sc = sim_scenarios; *sc; sc++)
		printf(" %s", *sc);
	printf("\n");
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "seed", 1, 0, 's' }, { "scenario", 1, 0, 'S' },
		{ "suite", 1, 0, 'U' }, { "seeds", 1, 0, 'K' },
		{ "soak", 1, 0, 'O' }, { "qps", 1, 0, 'q' },
		{ "msgs", 1, 0, 'm' }, { "max-size", 1, 0, 'M' },
		{ "mtu", 1, 0, 'u' }, { "ipv4", 0, 0, '4' },
		{ "ipv6", 0, 0, '6' }, { "ip-any", 0, 0, 'a' },
		{ "types", 1, 0, 't' },
		{ "loss", 1, 0, 'l' }, { "dup", 1, 0, 'd' },
		{ "reorder", 1, 0, 'r' }, { "corrupt", 1, 0, 'c' },
		{ "delay", 1, 0, 'D' }, { "jitter", 1, 0, 'J' },
		{ "gbps", 1, 0, 'g' }, { "timeout", 1, 0, 'T' },
		{ "retry", 1, 0, 'R' }, { "rnr-retry", 1, 0, 'N' },
		{ "depth", 1, 0, 'p' }, { "help", 0, 0, 'h' },
		{ "trace", 1, 0, 'x' }, { "scale", 1, 0, 'X' },
		{ "late-recv", 1, 0, 'L' }, { "rd-atomic", 1, 0, 'A' },
		{ "emit-busy", 1, 0, 'E' }, { "emit-busy-us", 1, 0, 'B' },
		{ "absent", 1, 0, 'P' }, { "no-share", 0, 0, 'H' },
		{ 0, 0, 0, 0 }
	};
	struct sim_opts o;
	const char *suite = NULL;
	double soak_s = 0, t0;
	u32 seeds = 1;
	int c;

	defaults(&o);
	o.seed = 1;
	while ((c = getopt_long(argc, argv, "vh", lo, NULL)) != -1) {
		switch (c) {
		case 's':
			o.seed = strtoull(optarg, NULL, 0);
			break;
		case 'S':
			o.scenario = optarg;
			break;
		case 'U':
			suite = optarg;
			break;
		case 'K':
			seeds = (u32)atoi(optarg);
			break;
		case 'O':
			soak_s = atof(optarg);
			break;
		case 'q':
			o.nqp = (u32)atoi(optarg);
			qps_given = true;
			break;
		case 'm':
			o.msgs = (u32)atoi(optarg);
			break;
		case 'M':
			o.max_size = (u32)strtoul(optarg, NULL, 0);
			break;
		case 'u':
			o.mtu = mtu_enum((u32)atoi(optarg));
			break;
		case '4':
			o.ipv6 = 0;
			break;
		case '6':
			o.ipv6 = 1;
			break;
		case 'a':
			o.ipv6 = -1;
			break;
		case 't':
			o.types = (strstr(optarg, "rc") ? 1u << SROCE_QPT_RC : 0) |
				  (strstr(optarg, "uc") ? 1u << SROCE_QPT_UC : 0) |
				  (strstr(optarg, "ud") ? 1u << SROCE_QPT_UD : 0);
			break;
		case 'l':
			o.link.loss_ppm = pct(optarg);
			break;
		case 'd':
			o.link.dup_ppm = pct(optarg);
			break;
		case 'r':
			o.link.reorder_ppm = pct(optarg);
			break;
		case 'c':
			o.link.corrupt_ppm = pct(optarg);
			break;
		case 'D':
			o.link.delay_ns = strtoull(optarg, NULL, 0);
			break;
		case 'J':
			o.link.jitter_ns = strtoull(optarg, NULL, 0);
			break;
		case 'g':
			o.link.gbps = strtoull(optarg, NULL, 0);
			break;
		case 'T':
			o.timeout = (u8)atoi(optarg);
			break;
		case 'R':
			o.retry_cnt = (u8)atoi(optarg);
			break;
		case 'N':
			o.rnr_retry = (u8)atoi(optarg);
			break;
		case 'p':
			o.depth = (u32)atoi(optarg);
			break;
		case 'E':
			o.emit_busy_ppm = pct(optarg);
			break;
		case 'P':
			o.absent_ppm = pct(optarg);
			break;
		case 'H':
			o.no_share = true;
			break;
		case 'B':
			o.emit_busy_ns = (u64)(atof(optarg) * 1000.0);
			break;
		case 'A':
			o.rd_atomic = (u32)atoi(optarg);
			break;
		case 'L':
			o.late_recv_ppm = pct(optarg);
			break;
		case 'X':
			scale = atof(optarg);
			break;
		case 'x':
			o.trace = 1 + (u32)atoi(optarg);
			break;
		case 'v':
			tot.verbose = true;
			o.verbose = true;
			break;
		case 'h':
			usage();
			return 0;
		default:
			usage();
			return 2;
		}
	}
	if (o.mtu < 0 || !o.nqp || !o.depth || o.depth > 4096) {
		usage();
		return 2;
	}
	t0 = now_s();
	if (suite) {
		if (!strcmp(suite, "cc")) {
			u32 f = 0;

			tot.runs += sim_cc_suite(true, o.seed, &f);
			tot.failed += f;
		} else if (strcmp(suite, "check")) {
			usage();
			return 2;
		} else {
			suite_check(&o, seeds);
		}
	} else if (soak_s > 0) {
		soak(&o, soak_s);
	} else {
		run_one(&o);
	}
	tot.wall = now_s() - t0;
	summary("sim");
	printf("sim: %llu passed, %llu failed\n",
	       (unsigned long long)(tot.runs - tot.failed),
	       (unsigned long long)tot.failed);
	return tot.failed ? 1 : 0;
}
