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
#   make fuzz-seeds              regenerate corpus/decode/ from our builder
#                                and the rdma_rxe captures

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

fuzz-build: $(FUZZ_BINS)

$(O)/fuzz/%_fuzz: $(TOP)/tests/fuzz/%_fuzz.c $(PROTO_SRC) $(FUZZ_LIB_SRC) \
		$(wildcard $(TOP)/tests/fuzz/*.h) \
		$(wildcard $(TOP)/kernel/proto/*.h) $(wildcard $(TOP)/tests/lib/*.h)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $< $(PROTO_SRC) $(FUZZ_LIB_SRC) \
		$(FUZZ_EXTRA)

# A harness's .deps is read once, here: its files are built in
# (FUZZ_EXTRA) and, with the .deps itself, are what it depends on beyond
# the common sources, not the other harnesses' sources.
fuzz_extra = $(addprefix $(TOP)/,$(shell cat $(TOP)/tests/fuzz/$(1).deps 2>/dev/null))
$(foreach n,$(FUZZ_NAMES),$(eval $(O)/fuzz/$(n)_fuzz: \
	FUZZ_EXTRA := $(call fuzz_extra,$(n))) \
	$(eval $(O)/fuzz/$(n)_fuzz: $(wildcard $(TOP)/tests/fuzz/$(n).deps) \
	$(call fuzz_extra,$(n))))

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
	if ! $(MAKE) -s fuzz-build >$(O)/fuzz-build.log 2>&1; then \
		cat $(O)/fuzz-build.log; \
		echo "fuzz: 0 passed, $(words $(FUZZ_NAMES)) failed"; exit 1; \
	fi; \
	n=$(words $(FUZZ_NAMES)); test $$n -gt 0 || n=1; \
	per=$$(( $(CHECK_FUZZ_SECONDS) / n )); \
	test $$per -ge 3 || per=3; \
	$(foreach n,$(FUZZ_NAMES),$(call fuzz_run,$(n),$$per)) \
	echo "fuzz: $$pass passed, $$fail failed"; test $$fail = 0

fuzz: fuzz-build
	@pass=0; fail=0; \
	$(foreach n,$(FUZZ_NAMES),$(call fuzz_run,$(n),$(FUZZ_SECONDS))) \
	echo "fuzz: $$pass passed, $$fail failed"; test $$fail = 0

$(O)/fuzz/decode_seeds: $(TOP)/tests/fuzz/decode_seeds.c $(PROTO_SRC) $(FUZZ_LIB_SRC)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) -o $@ $< $(PROTO_SRC) $(FUZZ_LIB_SRC) $(PCAP_LIBS)

fuzz-seeds: $(O)/fuzz/decode_seeds
	rm -f $(TOP)/tests/fuzz/corpus/decode/*
	$< $(TOP)/tests/fuzz/corpus/decode $(wildcard $(TOP)/tests/data/rxe-*.pcap)

.PHONY: fuzz-build fuzz-seeds
