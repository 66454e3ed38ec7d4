# SPDX-License-Identifier: GPL-2.0
#
# make coverage: line coverage of kernel/proto/*.c (gcc --coverage, gcov)
# from the unit tests, plus the simulator when tests/sim provides one
# (COV_SIM_ARGS, default a one-seed check matrix).  Prints a line per
# file and the total over all of kernel/proto/*.c.

COV_DIR		:= $(O)/cov
COV_CFLAGS	:= $(CFLAGS_COMMON) -O0 --coverage
COV_PROTO_OBJ	:= $(patsubst $(TOP)/kernel/proto/%.c,$(COV_DIR)/proto/%.o,$(PROTO_SRC))
COV_SIM_ARGS	?= --suite check --seeds 1
COV_SIM		:= $(if $(SIM_SRC),$(COV_DIR)/sim)

$(COV_DIR)/proto/%.o: $(TOP)/kernel/proto/%.c $(wildcard $(TOP)/kernel/proto/*.h)
	@mkdir -p $(@D)
	$(CC) $(COV_CFLAGS) -c -o $@ $<

$(COV_DIR)/unit: $(UNIT_SRC) $(LIB_SRC) unit/main.c $(O)/unit/suites.h $(COV_PROTO_OBJ)
	$(CC) $(COV_CFLAGS) $(CHECK_CFLAGS) $(UNIT_DEFS) -I$(O)/unit -o $@ \
		unit/main.c $(UNIT_SRC) $(LIB_SRC) $(COV_PROTO_OBJ) \
		$(CHECK_LIBS) $(PCAP_LIBS)

$(COV_DIR)/sim: $(SIM_SRC) $(LIB_SRC) $(COV_PROTO_OBJ)
	$(CC) $(COV_CFLAGS) -I$(TOP)/tests/sim -o $@ $(SIM_SRC) $(LIB_SRC) \
		$(COV_PROTO_OBJ)

coverage: $(COV_DIR)/unit $(COV_SIM)
	@rm -f $(COV_DIR)/*.gcda $(COV_DIR)/proto/*.gcda; rc=0; \
	CK_FORK=yes $(COV_DIR)/unit >$(COV_DIR)/unit.log 2>&1 || { \
		rc=1; echo "coverage: unit tests FAILED, see $(COV_DIR)/unit.log"; }; \
	echo "coverage: ran $$(tail -n 1 $(COV_DIR)/unit.log)"; \
	if test -n "$(COV_SIM)"; then \
		$(COV_SIM) $(COV_SIM_ARGS) >$(COV_DIR)/sim.log 2>&1 || { \
			rc=1; echo "coverage: sim FAILED, see $(COV_DIR)/sim.log"; }; \
		echo "coverage: ran sim $(COV_SIM_ARGS): $$(tail -n 1 $(COV_DIR)/sim.log)"; \
	fi; \
	cd $(COV_DIR)/proto && gcov -n -o . $(PROTO_SRC) 2>/dev/null | awk ' \
		/^File / { f = $$2; gsub(/\047/, "", f); next } \
		/^Lines executed:/ && f ~ /kernel\/proto\/[^\/]*\.c$$/ { \
			split($$2, a, ":"); pct = a[2] + 0; n = $$4 + 0; \
			sub(/.*\//, "", f); \
			printf "coverage: %-16s %6.1f%% of %5d lines\n", f, pct, n; \
			hit += pct * n / 100; tot += n; f = "" } \
		END { if (tot) printf "coverage: %-16s %6.1f%% of %5d lines\n", \
			"TOTAL", 100 * hit / tot, tot }'; \
	exit $$rc

.PHONY: coverage
