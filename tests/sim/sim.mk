# SPDX-License-Identifier: GPL-2.0
#
# The lossy-network simulator (included by tests/Makefile).
#
#   make check-sim       the check matrix at -O2, then a smaller ASan+UBSan pass
#   make soak SOAK_SECONDS=600 [SIM_SEED=N]   fresh seeds until time is up

SIM_SRC  := $(sort $(wildcard $(TOP)/tests/sim/*.c))
SIM_DEPS := $(SIM_SRC) $(PROTO_SRC) $(LIB_SRC) $(wildcard $(TOP)/tests/sim/*.h) \
	    $(wildcard $(TOP)/kernel/proto/*.h) $(wildcard $(TOP)/tests/lib/*.h)
SIM_CFLAGS := $(CFLAGS_COMMON) -I$(TOP)/tests/sim
SIM_SEED ?= 1
SOAK_SECONDS ?= 600

all: $(O)/sim/sim

$(O)/sim/sim: $(SIM_DEPS)
	@mkdir -p $(@D)
	$(CC) $(SIM_CFLAGS) -o $@ $(SIM_SRC) $(PROTO_SRC) $(LIB_SRC)

$(O)/sim/sim-san: $(SIM_DEPS)
	@mkdir -p $(@D)
	$(CC) $(SIM_CFLAGS) -O1 $(SAN) -o $@ $(SIM_SRC) $(PROTO_SRC) $(LIB_SRC)

# The big run at -O2; then the same code under ASan+UBSan on a smaller
# matrix.  Both print "sim: N passed, M failed"; the last line sums them.
check-sim: $(O)/sim/sim $(O)/sim/sim-san
	@$(O)/sim/sim --suite check --seeds 4 --seed $(SIM_SEED) \
		>$(O)/sim/check.log 2>&1; r1=$$?; cat $(O)/sim/check.log; \
	$(O)/sim/sim-san --suite check --seeds 1 --qps 4 --scale 0.3 \
		--seed $$(( $(SIM_SEED) + 100000 )) >$(O)/sim/check-san.log 2>&1; \
	r2=$$?; sed 's/^sim:/sim-san:/' $(O)/sim/check-san.log; \
	p1=$$(sed -n 's/^sim: \([0-9]*\) passed.*/\1/p' $(O)/sim/check.log); \
	f1=$$(sed -n 's/^sim: [0-9]* passed, \([0-9]*\) failed/\1/p' $(O)/sim/check.log); \
	p2=$$(sed -n 's/^sim: \([0-9]*\) passed.*/\1/p' $(O)/sim/check-san.log); \
	f2=$$(sed -n 's/^sim: [0-9]* passed, \([0-9]*\) failed/\1/p' $(O)/sim/check-san.log); \
	test -n "$$f1" || f1=1; test -n "$$f2" || f2=1; \
	test $$r1 = 0 || test $$f1 != 0 || f1=1; \
	test $$r2 = 0 || test $$f2 != 0 || f2=1; \
	echo "sim: $$(( $${p1:-0} + $${p2:-0} )) passed, $$(( f1 + f2 )) failed"; \
	test $$(( f1 + f2 )) = 0

soak: $(O)/sim/sim
	@$(O)/sim/sim --soak $(SOAK_SECONDS) --seed $$(( $(SIM_SEED) == 1 ? $$(date +%s) : $(SIM_SEED) ))
