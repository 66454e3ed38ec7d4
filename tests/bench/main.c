// SPDX-License-Identifier: GPL-2.0
/*
 * bench-core driver.
 *
 *	bench --list			case names, one a line
 *	bench --run NAME --iters N	run a case N times, collecting under
 *					callgrind only inside the loop
 *	bench --throughput		ICRC bytes per TSC cycle, timed natively
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <valgrind/callgrind.h>
#include <x86intrin.h>

#include "bench.h"
#include "crc32.h"
#include "icrc.h"

#define BENCH(n) const struct sroce_bench *n##_benches(void);
#include "benches.h"
#undef BENCH

static const struct sroce_bench *(*const sets[])(void) = {
#define BENCH(n) n##_benches,
#include "benches.h"
#undef BENCH
};

static const struct sroce_bench *find(const char *name)
{
	unsigned int i;
	const struct sroce_bench *b;

	for (i = 0; i < ARRAY_SIZE(sets); i++)
		for (b = sets[i](); b->name; b++)
			if (!name || !strcmp(b->name, name))
				return b;
	return NULL;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/*
 * CRC throughput over 4 KiB, warm cache, the best of 200 short runs so
 * that time lost to other processes on a shared machine drops out.
 * Reports bytes per TSC tick: the TSC runs at a constant reference rate,
 * which equals core cycles only at the nominal clock (perf's cycle
 * counter is unavailable in this VM).
 */
static void throughput_one(void)
{
	static u8 buf[4096];
	const unsigned int reps = 64, runs = 200;
	unsigned long long best_tsc = ~0ull;
	double best_ns = 1e30;
	unsigned int i, r;
	u32 crc = ~0u;

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = i * 31;
	for (r = 0; r < runs; r++) {
		unsigned long long t0, t1;
		double ns0, ns1;

		ns0 = now_ns();
		t0 = __rdtsc();
		for (i = 0; i < reps; i++)
			crc = sroce_icrc_update(crc, buf, sizeof(buf));
		t1 = __rdtsc();
		ns1 = now_ns();
		if (t1 - t0 < best_tsc)
			best_tsc = t1 - t0;
		if (ns1 - ns0 < best_ns)
			best_ns = ns1 - ns0;
	}
	sroce_bench_use(crc);
	printf("bench: icrc-throughput %-10s %5.2f bytes/TSC-cycle, %5.2f GB/s (best of %u x %u x 4 KiB)\n",
	       sroce_crc32_impl(), (double)reps * sizeof(buf) / (double)best_tsc,
	       (double)reps * sizeof(buf) / best_ns, runs, reps);
}

static void throughput(void)
{
	bool had = sroce_crc32_set_clmul(true);

	printf("bench: ICRC throughput, timed natively (rdtsc and CLOCK_MONOTONIC)\n");
	throughput_one();
	sroce_crc32_set_clmul(false);
	throughput_one();
	sroce_crc32_set_clmul(had);
}

int main(int argc, char **argv)
{
	const struct sroce_bench *b;
	unsigned long iters = 1000, i;
	unsigned int s;

	if (argc == 2 && !strcmp(argv[1], "--list")) {
		for (s = 0; s < ARRAY_SIZE(sets); s++)
			for (b = sets[s](); b->name; b++)
				printf("%s\t%s\n", b->name, b->what);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "--throughput")) {
		throughput();
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "--run")) {
		b = find(argv[2]);
		if (!b) {
			fprintf(stderr, "bench: no case %s\n", argv[2]);
			return 2;
		}
		if (argc >= 5 && !strcmp(argv[3], "--iters"))
			iters = strtoul(argv[4], NULL, 0);
		if (b->setup)
			b->setup();
		b->one();	/* warm up, not collected */
		CALLGRIND_TOGGLE_COLLECT;
		for (i = 0; i < iters; i++)
			b->one();
		CALLGRIND_TOGGLE_COLLECT;
		return 0;
	}
	fprintf(stderr, "usage: bench --list | --throughput | --run NAME [--iters N]\n");
	return 2;
}
