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
	@set -o pipefail 2>/dev/null; \
	$(O)/sim/sim --suite check --seeds 4 --seed $(SIM_SEED) | tee $(O)/sim/check.log; r1=$$?; \
	$(O)/sim/sim-san --suite check --seeds 1 --seed $$(( $(SIM_SEED) + 100000 )) \
		--qps 2 | sed 's/^sim:/sim-san:/' | tee $(O)/sim/check-san.log; r2=$$?; \
	p=$$(( $$(sed -n 's/^sim: \([0-9]*\) passed.*/\1/p' $(O)/sim/check.log) + \
	       $$(sed -n 's/^sim-san: \([0-9]*\) passed.*/\1/p' $(O)/sim/check-san.log) )); \
	f=$$(( $$(sed -n 's/^sim: [0-9]* passed, \([0-9]*\) failed/\1/p' $(O)/sim/check.log) + \
	       $$(sed -n 's/^sim-san: [0-9]* passed, \([0-9]*\) failed/\1/p' $(O)/sim/check-san.log) )); \
	echo "sim: $$p passed, $$f failed"; test $$f = 0 -a $$r1 = 0 -a $$r2 = 0

soak: $(O)/sim/sim
	@$(O)/sim/sim --soak $(SOAK_SECONDS) --seed $$(( $(SIM_SEED) == 1 ? $$(date +%s) : $(SIM_SEED) ))
