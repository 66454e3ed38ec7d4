# SPDX-License-Identifier: GPL-2.0
#
# The pcap tools as the unit tests run them: built here with the
# sanitizers, so that a stray read on a hostile capture fails
# tests/unit/dump_test.c instead of passing unnoticed.  Included by
# tests/Makefile; check-unit and all build it before the unit binary runs.

TOOLS_SRC := $(TOP)/tools/roce-frame.c $(TOP)/tools/roce-frame.h \
	     $(PROTO_SRC) $(wildcard $(TOP)/kernel/proto/*.h) \
	     $(TOP)/tests/lib/crc32.c

$(O)/tools/sroce-dump: $(TOP)/tools/sroce-dump.c $(TOOLS_SRC)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) $(SAN) -I$(TOP)/tools -o $@ $< $(PCAP_LIBS)

all check-unit coverage: $(O)/tools/sroce-dump
