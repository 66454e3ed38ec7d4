// SPDX-License-Identifier: GPL-2.0
/*
 * Writes the decode_fuzz seed corpus: for every opcode we speak, the
 * BTH-first packet and the whole IPv4 and IPv6 frame our builder makes,
 * plus one frame per (family, opcode) from the rdma_rxe captures.
 *
 *	decode_seeds OUTDIR [rxe.pcap ...]
 */
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frame.h"
#include "icrc.h"

static void put(const char *dir, const char *name, const u8 *p, u32 len)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(p, 1, len, f) != len) {
		perror(path);
		exit(1);
	}
	fclose(f);
}

static void from_pcap(const char *dir, const char *file)
{
	char err[PCAP_ERRBUF_SIZE], name[64];
	static bool seen[2][256];
	struct pcap_pkthdr *ph;
	const u_char *d;
	pcap_t *pc = pcap_open_offline(file, err);

	if (!pc || pcap_datalink(pc) != DLT_EN10MB) {
		fprintf(stderr, "%s: %s\n", file, pc ? "not Ethernet" : err);
		exit(1);
	}
	while (pcap_next_ex(pc, &ph, &d) == 1) {
		const u8 *ip = d + 14;
		u32 len, iplen;
		bool v6;

		if (ph->caplen < 14 + 40)
			continue;
		v6 = (ip[0] >> 4) == 6;
		iplen = v6 ? 40 : (ip[0] & 15) * 4u;
		len = v6 ? 40 + sroce_get_be16(ip + 4) : sroce_get_be16(ip + 2);
		if (len > ph->caplen - 14 || len < iplen + 8 + 16 ||
		    !sroce_icrc_check(ip, len, v6))
			continue;
		if (seen[v6][ip[iplen + 8]])
			continue;
		seen[v6][ip[iplen + 8]] = true;
		snprintf(name, sizeof(name), "rxe-ip%c-%02x", v6 ? '6' : '4',
			 ip[iplen + 8]);
		put(dir, name, ip, len);
	}
	pcap_close(pc);
}

int main(int argc, char **argv)
{
	static u8 frame[2048], pay[512];
	unsigned int opc, i;
	char name[64];

	if (argc < 2) {
		fprintf(stderr, "usage: %s OUTDIR [rxe.pcap ...]\n", argv[0]);
		return 2;
	}
	for (i = 0; i < sizeof(pay); i++)
		pay[i] = i * 7;
	for (opc = 0; opc < 256; opc++) {
		const struct sroce_opinfo *op = sroce_opinfo(opc);
		struct sroce_hdrs h;
		u32 pl = 0, len, v6;

		if (!op)
			continue;
		if (op->flags & SROCE_OPF_PAYLOAD)
			pl = op->flags & SROCE_OPF_ATOMIC_WRITE ? 8 :
			     !(op->flags & SROCE_OPF_LAST) ? 256 : 5;
		sroce_test_hdrs(&h, opc, opc, pl);
		for (v6 = 0; v6 < 2; v6++) {
			len = sroce_test_frame(frame, sizeof(frame), v6, &h, pay, pl);
			snprintf(name, sizeof(name), "ip%c-%s", v6 ? '6' : '4',
				 op->name);
			put(argv[1], name, frame, len);
		}
		/* BTH-first: the same packet without IP and UDP */
		snprintf(name, sizeof(name), "bth-%s", op->name);
		put(argv[1], name, frame + sroce_test_bth_off(true),
		    len - sroce_test_bth_off(true));
	}
	for (i = 2; i < (unsigned int)argc; i++)
		from_pcap(argv[1], argv[i]);
	return 0;
}
