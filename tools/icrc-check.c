// SPDX-License-Identifier: GPL-2.0
/*
 * icrc-check: verify the ICRC of every RoCEv2 packet in pcap files and
 * decode its headers with the protocol core, e.g. to check what sroce.ko
 * or a peer put on the wire.
 *
 *	icrc-check [-v] FILE.pcap...
 *
 * Exits 1 if any RoCEv2 packet has a bad ICRC or fails to decode, 2 on
 * usage or file errors.  rdma_rxe's FLUSH ICRC (kernel/proto/icrc.h) is
 * counted apart, not as bad.  Ethernet (with VLAN tags), Linux cooked (v1, v2),
 * raw IP and loopback captures are understood (tools/roce-frame.c).
 */
#include <pcap/pcap.h>
#include <stdio.h>
#include <string.h>

/* The core and the user-space CRC, built into this one binary. */
#include "../kernel/proto/drop.c"
#include "../kernel/proto/icrc.c"
#include "../kernel/proto/opcode.c"
#include "../kernel/proto/wire.c"
#include "../tests/lib/crc32.c"
#include "roce-frame.c"

int main(int argc, char **argv)
{
	unsigned long roce = 0, bad_icrc = 0, bad_hdr = 0, rxe_flush = 0, n;
	int i = 1, verbose = 0;

	if (argc > 1 && !strcmp(argv[1], "-v")) {
		verbose = 1;
		i++;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: icrc-check [-v] FILE.pcap...\n");
		return 2;
	}
	for (; i < argc; i++) {
		char err[PCAP_ERRBUF_SIZE];
		struct pcap_pkthdr *ph;
		const u_char *d;
		pcap_t *pc = pcap_open_offline(argv[i], err);
		int dlt;

		if (!pc) {
			fprintf(stderr, "icrc-check: %s\n", err);
			return 2;
		}
		dlt = pcap_datalink(pc);
		for (n = 1; pcap_next_ex(pc, &ph, &d) == 1; n++) {
			struct sroce_capframe f;
			enum sroce_capframe_res r;
			enum sroce_drop why;
			struct sroce_pkt pkt;
			bool ok, rxe;

			r = sroce_capframe_find(dlt, d, ph->caplen, &f);
			if (r == SROCE_CAPFRAME_NOT_ROCE)
				continue;
			roce++;
			if (r == SROCE_CAPFRAME_TRUNCATED) {
				printf("%s #%lu: truncated capture\n", argv[i], n);
				bad_hdr++;
				continue;
			}
			ok = sroce_icrc_check(f.l3, f.l3_len, f.v6);
			rxe = !ok && sroce_icrc_check_rxe_flush(f.l3, f.l3_len,
								f.v6);
			memset(&pkt, 0, sizeof(pkt));
			why = sroce_parse(f.bth, f.bth_len, &pkt);
			bad_icrc += !ok && !rxe;
			rxe_flush += rxe;
			bad_hdr += why != SROCE_DROP_NONE;
			if (verbose || !ok || why)
				printf("%s #%lu: IPv%c %-20s qpn 0x%06x psn %8u len %5u icrc %s%s%s\n",
				       argv[i], n, f.v6 ? '6' : '4',
				       pkt.op ? pkt.op->name : "?",
				       pkt.h.bth.dqpn, pkt.h.bth.psn, f.l3_len,
				       ok ? "ok" : rxe ? "rxe-flush" : "BAD",
				       why ? " drop " : "",
				       why ? sroce_drop_name(why) : "");
		}
		pcap_close(pc);
	}
	printf("icrc-check: %lu RoCEv2 packets, %lu bad ICRC, %lu undecodable, %lu rdma_rxe FLUSH ICRC\n",
	       roce, bad_icrc, bad_hdr, rxe_flush);
	return bad_icrc || bad_hdr ? 1 : 0;
}
