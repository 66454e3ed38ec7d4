/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench-core cases.  Each tests/bench/<stem>_bench.c defines
 *
 *	const struct sroce_bench *<stem>_benches(void);
 *
 * returning an array ended by an entry with a NULL name; the file list
 * is collected by bench.mk, so adding cases is adding a file.  Callgrind
 * counts only the instructions of @iters calls of @one (plus the loop
 * around them) and bench.mk divides by @iters.
 */
#ifndef SROCE_BENCH_H
#define SROCE_BENCH_H

#include "os.h"

struct sroce_bench {
	const char *name;	/* short id, e.g. "write4k-build" */
	const char *what;	/* one line for the report */
	void (*setup)(void);	/* not measured; may be NULL */
	void (*one)(void);	/* one packet's worth of work */
};

/* Keep the compiler from proving a result unused. */
static inline void sroce_bench_use(u64 v)
{
	__asm__ volatile("" : : "r"(v) : "memory");
}

#endif /* SROCE_BENCH_H */
