// SPDX-License-Identifier: GPL-2.0
/*
 * icrc-check: verify the ICRC of every RoCEv2 packet in pcap files and
 * decode its headers with the protocol core, e.g. to check what sroce.ko
 * or a peer put on the wire.
 *
 *	icrc-check [-v] FILE.pcap...
 *
 * Exits 1 if any RoCEv2 packet has a bad ICRC or fails to decode, 2 on
 * usage or file errors.  Ethernet (with VLAN tags), Linux cooked and raw
 * IP captures are understood.
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

static int l3_offset(int dlt, const u8 *p, u32 caplen)
{
	u32 off;
	u16 et;

	switch (dlt) {
	case DLT_EN10MB:
		if (caplen < 14)
			return -1;
		off = 12;
		et = sroce_get_be16(p + off);
		while ((et == 0x8100 || et == 0x88a8) && off + 6 <= caplen) {
			off += 4;
			et = sroce_get_be16(p + off);
		}
		off += 2;
		break;
	case DLT_LINUX_SLL:
		if (caplen < 16)
			return -1;
		et = sroce_get_be16(p + 14);
		off = 16;
		break;
	case DLT_RAW:
		if (!caplen)
			return -1;
		et = (p[0] >> 4) == 6 ? 0x86dd : 0x0800;
		off = 0;
		break;
	default:
		return -1;
	}
	return et == 0x0800 || et == 0x86dd ? (int)off : -1;
}

int main(int argc, char **argv)
{
	unsigned long roce = 0, bad_icrc = 0, bad_hdr = 0, n;
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
			int off = l3_offset(dlt, d, ph->caplen);
			enum sroce_drop why;
			struct sroce_pkt pkt;
			u32 avail, iplen, len;
			const u8 *ip;
			bool v6, ok;

			if (off < 0 || ph->caplen - off < 40)
				continue;
			ip = d + off;
			avail = ph->caplen - off;
			v6 = (ip[0] >> 4) == 6;
			if (v6 ? ip[6] != 17 : (ip[0] >> 4) != 4 || ip[9] != 17)
				continue;
			iplen = v6 ? 40 : (ip[0] & 15) * 4u;
			len = v6 ? 40 + sroce_get_be16(ip + 4) : sroce_get_be16(ip + 2);
			if (iplen + 8 > avail ||
			    sroce_get_be16(ip + iplen + 2) != SROCE_UDP_PORT)
				continue;
			roce++;
			if (len > avail || len < iplen + 8) {
				printf("%s #%lu: truncated capture\n", argv[i], n);
				bad_hdr++;
				continue;
			}
			ok = sroce_icrc_check(ip, len, v6);
			memset(&pkt, 0, sizeof(pkt));
			why = sroce_parse(ip + iplen + 8, len - iplen - 8, &pkt);
			bad_icrc += !ok;
			bad_hdr += why != SROCE_DROP_NONE;
			if (verbose || !ok || why)
				printf("%s #%lu: IPv%c %-20s qpn 0x%06x psn %8u len %5u icrc %s%s%s\n",
				       argv[i], n, v6 ? '6' : '4',
				       pkt.op ? pkt.op->name : "?",
				       pkt.h.bth.dqpn, pkt.h.bth.psn, len,
				       ok ? "ok" : "BAD",
				       why ? " drop " : "",
				       why ? sroce_drop_name(why) : "");
		}
		pcap_close(pc);
	}
	printf("icrc-check: %lu RoCEv2 packets, %lu bad ICRC, %lu undecodable\n",
	       roce, bad_icrc, bad_hdr);
	return bad_icrc || bad_hdr ? 1 : 0;
}
