# SPDX-License-Identifier: GPL-2.0
#
# make bench-core: instructions per packet of the core's hot paths under
# callgrind, and ICRC throughput timed natively.
#
# Cases live in tests/bench/<stem>_bench.c, each defining
# "const struct sroce_bench *<stem>_benches(void)" (see bench.h); the
# list of files is collected here, so adding cases is adding a file.

BENCH_SRC	:= $(sort $(wildcard $(TOP)/tests/bench/*_bench.c))
BENCH_NAMES	:= $(patsubst %_bench.c,%,$(notdir $(BENCH_SRC)))
BENCH_LIB_SRC	:= $(shell grep -L '<check.h>' /dev/null $(LIB_SRC) 2>/dev/null)
BENCH_ITERS	?= 1000

$(O)/bench/benches.h: $(BENCH_SRC) bench/bench.mk
	@mkdir -p $(@D)
	@{ for n in $(BENCH_NAMES); do echo "BENCH($${n})"; done; } >$@.tmp && mv $@.tmp $@

$(O)/bench/bench: bench/main.c $(BENCH_SRC) $(PROTO_SRC) $(BENCH_LIB_SRC) \
		$(O)/bench/benches.h bench/bench.h \
		$(wildcard $(TOP)/kernel/proto/*.h) $(wildcard $(TOP)/tests/lib/*.h)
	$(CC) $(CFLAGS_COMMON) -I$(TOP)/tests/bench -I$(O)/bench -o $@ \
		bench/main.c $(BENCH_SRC) $(PROTO_SRC) $(BENCH_LIB_SRC)

bench-core: $(O)/bench/bench
	@command -v valgrind >/dev/null || { echo "bench-core: valgrind not installed"; exit 1; }
	@echo "bench: instructions per call, callgrind (valgrind $$(valgrind --version | sed 's/valgrind-//')), $(BENCH_ITERS) calls, -O2"
	@$(O)/bench/bench --list | while IFS='	' read -r name what; do \
		out=$(O)/bench/callgrind.$$name; \
		valgrind --tool=callgrind --collect-atstart=no \
			--callgrind-out-file=$$out $(O)/bench/bench --run $$name \
			--iters $(BENCH_ITERS) >/dev/null 2>$$out.log || { \
			echo "bench: $$name FAILED, see $$out.log"; exit 1; }; \
		ir=$$(sed -n 's/^summary: //p;s/^totals: //p' $$out | head -n 1); \
		printf 'bench: %-20s %8d instr  %s\n' $$name \
			$$(( ir / $(BENCH_ITERS) )) "$$what"; \
	done
	@$(O)/bench/bench --throughput

.PHONY: bench-core
