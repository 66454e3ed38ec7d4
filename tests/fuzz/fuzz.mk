# SPDX-License-Identifier: GPL-2.0
#
# libFuzzer harnesses (included by tests/Makefile).
#
#   tests/fuzz/<name>_fuzz.c     a harness: defines LLVMFuzzerTestOneInput;
#                                picked up automatically
#   tests/fuzz/corpus/<name>/    its seed corpus (optional, read-only)
#   tests/fuzz/<name>.deps       extra sources, one path per line relative
#                                to the top directory (optional)
#   tests/fuzz/records.[ch]      the record input comp and resp share
#
# Every harness links all of kernel/proto/*.c and the tests/lib/*.c files
# that do not need libcheck.
#
#   make check-fuzz              short pass, CHECK_FUZZ_SECONDS (25) shared
#                                by all harnesses; ends "fuzz: N passed, M failed"
#   make fuzz FUZZ_SECONDS=600   long run, FUZZ_SECONDS per harness
#   make fuzz-seeds              regenerate every corpus: decode/ from our
#                                builder and the rdma_rxe captures, and
#                                each harness with a seed mode (a main
#                                under -DSROCE_FUZZ_SEEDS) from itself
#
# check-fuzz also regenerates every corpus under build/ and fails on one
# that differs from the tree's: a core change that alters the packets
# the seeds are made of leaves stale seeds, which fuzz nothing it means.

FUZZ_CC		?= clang
FUZZ_SRC	:= $(sort $(wildcard $(TOP)/tests/fuzz/*_fuzz.c))
FUZZ_NAMES	:= $(patsubst %_fuzz.c,%,$(notdir $(FUZZ_SRC)))
FUZZ_BINS	:= $(addprefix $(O)/fuzz/,$(addsuffix _fuzz,$(FUZZ_NAMES)))
FUZZ_LIB_SRC	:= $(shell grep -L '<check.h>' /dev/null $(LIB_SRC) 2>/dev/null)
FUZZ_CFLAGS	:= -std=gnu11 -g -O1 -Wall -Wno-unused-parameter \
		   -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		   -fno-omit-frame-pointer \
		   -I$(TOP)/kernel/proto -I$(TOP)/tests/lib -I$(TOP)/tests/fuzz
CHECK_FUZZ_SECONDS ?= 25
FUZZ_SECONDS	?= 600
FUZZ_MAX_LEN	?= 9000
FUZZ_FLAGS	= -max_len=$(FUZZ_MAX_LEN) -timeout=10 -rss_limit_mb=2048 \
		  -print_final_stats=0

FUZZ_SEEDGEN	:= $(patsubst %_fuzz.c,%,$(notdir $(shell grep -l \
		   SROCE_FUZZ_SEEDS /dev/null $(FUZZ_SRC))))
FUZZ_HDRS	:= $(wildcard $(TOP)/tests/fuzz/*.h) \
		   $(wildcard $(TOP)/kernel/proto/*.h) $(wildcard $(TOP)/tests/lib/*.h)
FUZZ_CORPUS	:= $(TOP)/tests/fuzz/corpus

fuzz-build: $(FUZZ_BINS)

$(O)/fuzz/%_fuzz: $(TOP)/tests/fuzz/%_fuzz.c $(PROTO_SRC) $(FUZZ_LIB_SRC) \
		$(FUZZ_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $< $(PROTO_SRC) $(FUZZ_LIB_SRC) \
		$(FUZZ_EXTRA)

# The same harness in seed mode: a plain program, no libFuzzer.
$(O)/fuzz/%_seedgen: $(TOP)/tests/fuzz/%_fuzz.c $(PROTO_SRC) $(FUZZ_LIB_SRC) \
		$(FUZZ_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) -DSROCE_FUZZ_SEEDS -I$(TOP)/tests/fuzz -o $@ $< \
		$(PROTO_SRC) $(FUZZ_LIB_SRC) $(FUZZ_EXTRA)

# A harness's .deps is read once, here: its files are built in
# (FUZZ_EXTRA) and, with the .deps itself, are what it depends on beyond
# the common sources, not the other harnesses' sources.
fuzz_extra = $(addprefix $(TOP)/,$(shell cat $(TOP)/tests/fuzz/$(1).deps 2>/dev/null))
$(foreach n,$(FUZZ_NAMES),$(foreach t,$(n)_fuzz $(n)_seedgen, \
	$(eval $(O)/fuzz/$(t): FUZZ_EXTRA := $(call fuzz_extra,$(n))) \
	$(eval $(O)/fuzz/$(t): $(wildcard $(TOP)/tests/fuzz/$(n).deps) \
	$(call fuzz_extra,$(n)))))

# Run each harness for @2 seconds with its seeds; new inputs go to a
# scratch corpus under build/, never into the source tree.
define fuzz_run
	mkdir -p $(O)/fuzz/work/$(1) $(O)/fuzz/artifacts; \
	seeds=$(TOP)/tests/fuzz/corpus/$(1); test -d $$seeds || seeds=; \
	if $(O)/fuzz/$(1)_fuzz $(FUZZ_FLAGS) -max_total_time=$(2) \
		-artifact_prefix=$(O)/fuzz/artifacts/$(1)- \
		$(O)/fuzz/work/$(1) $$seeds >$(O)/fuzz/$(1).log 2>&1; then \
		echo "fuzz-$(1): ok ($(2) s, $$(ls $(O)/fuzz/work/$(1) | wc -l) new inputs)"; \
		pass=$$((pass + 1)); \
	else \
		tail -n 30 $(O)/fuzz/$(1).log; \
		echo "fuzz-$(1): FAILED (log $(O)/fuzz/$(1).log)"; \
		fail=$$((fail + 1)); \
	fi;
endef

check-fuzz:
	@mkdir -p $(O)/fuzz
	@pass=0; fail=0; \
	if ! $(MAKE) -s fuzz-build $(FUZZ_SEEDERS) >$(O)/fuzz-build.log 2>&1; then \
		cat $(O)/fuzz-build.log; \
		echo "fuzz: 0 passed, $(words $(FUZZ_NAMES) $(FUZZ_CORPORA)) failed"; exit 1; \
	fi; \
	n=$(words $(FUZZ_NAMES)); test $$n -gt 0 || n=1; \
	per=$$(( $(CHECK_FUZZ_SECONDS) / n )); \
	test $$per -ge 3 || per=3; \
	$(foreach n,$(FUZZ_NAMES),$(call fuzz_run,$(n),$$per)) \
	$(foreach n,$(FUZZ_CORPORA),$(call fuzz_seeds_check,$(n))) \
	echo "fuzz: $$pass passed, $$fail failed"; test $$fail = 0

fuzz: fuzz-build
	@pass=0; fail=0; \
	$(foreach n,$(FUZZ_NAMES),$(call fuzz_run,$(n),$(FUZZ_SECONDS))) \
	echo "fuzz: $$pass passed, $$fail failed"; test $$fail = 0

$(O)/fuzz/decode_seeds: $(TOP)/tests/fuzz/decode_seeds.c $(PROTO_SRC) $(FUZZ_LIB_SRC)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) -o $@ $< $(PROTO_SRC) $(FUZZ_LIB_SRC) $(PCAP_LIBS)

FUZZ_SEEDERS	:= $(O)/fuzz/decode_seeds $(FUZZ_SEEDGEN:%=$(O)/fuzz/%_seedgen)
# The corpora those write, each checked by check-fuzz.
FUZZ_CORPORA	:= decode $(FUZZ_SEEDGEN)

# Write corpus @1 into directory @2 (emptied first).
define fuzz_seed
	rm -rf $(2) && mkdir -p $(2) && \
	$(if $(filter decode,$(1)),$(O)/fuzz/decode_seeds $(2) \
		$(wildcard $(TOP)/tests/data/rxe-*.pcap),$(O)/fuzz/$(1)_seedgen $(2))
endef

# In check-fuzz: corpus @1 as its generator writes it today must be the
# tree's, byte for byte.
define fuzz_seeds_check
	if ! { $(call fuzz_seed,$(1),$(O)/fuzz/seeds/$(1)); } >/dev/null 2>&1; then \
		echo "fuzz-seeds-$(1): FAILED (its generator failed)"; \
		fail=$$((fail + 1)); \
	elif diff -r $(O)/fuzz/seeds/$(1) $(FUZZ_CORPUS)/$(1) >/dev/null 2>&1; then \
		echo "fuzz-seeds-$(1): ok (corpus/$(1) current)"; \
		pass=$$((pass + 1)); \
	else \
		echo "fuzz-seeds-$(1): FAILED (corpus/$(1) is stale: make -C tests fuzz-seeds)"; \
		fail=$$((fail + 1)); \
	fi;
endef

fuzz-seeds: $(FUZZ_SEEDERS)
	@$(foreach n,$(FUZZ_CORPORA),$(call fuzz_seed,$(n),$(FUZZ_CORPUS)/$(n)) && \
		echo "fuzz-seeds: corpus/$(n): $$(ls $(FUZZ_CORPUS)/$(n) | wc -l) files" && ) true

.PHONY: fuzz-build fuzz-seeds
