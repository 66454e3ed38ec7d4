#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# net-replay.py PCAP DADDR MODE: send every RoCEv2 packet of the rdma_rxe
# capture PCAP whose IP destination is DADDR again, byte for byte from the
# IP header on, through a raw socket (so the IPv4 ID, the addresses and the
# zero UDP checksum stay rxe's and the ICRC still matches).  MODE:
#   same     unchanged: the ICRC checks
#   masked   TTL/hop limit and TOS/traffic class changed: fields the ICRC
#            masks, so it still checks
#   badicrc  last ICRC byte flipped
# Prints the number of packets sent.
import socket
import struct
import sys


def frames(path):
    with open(path, 'rb') as f:
        data = f.read()
    magic = struct.unpack('<I', data[:4])[0]
    end = '<' if magic in (0xa1b2c3d4, 0xa1b23c4d) else '>'
    off = 24
    while off + 16 <= len(data):
        _, _, incl, _ = struct.unpack(end + 'IIII', data[off:off + 16])
        off += 16
        yield data[off:off + incl]
        off += incl


def l3_packets(path):
    for fr in frames(path):
        etype = struct.unpack('!H', fr[12:14])[0]
        l3 = fr[14:]
        if etype == 0x8100:
            etype = struct.unpack('!H', fr[16:18])[0]
            l3 = fr[18:]
        if etype == 0x0800:
            yield 4, l3[:struct.unpack('!H', l3[2:4])[0]]
        elif etype == 0x86dd:
            yield 6, l3[:40 + struct.unpack('!H', l3[4:6])[0]]


def main():
    path, daddr, mode = sys.argv[1:4]
    v6 = ':' in daddr
    want = socket.inet_pton(socket.AF_INET6 if v6 else socket.AF_INET, daddr)
    if v6:
        s = socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_RAW)
    else:
        s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    n = 0
    for ver, pkt in l3_packets(path):
        if ver != (6 if v6 else 4):
            continue
        dst = pkt[24:40] if v6 else pkt[16:20]
        if dst != want:
            continue
        p = bytearray(pkt)
        if mode == 'masked':
            if v6:
                # traffic class 0x2e, hop limit 7
                p[0] = (p[0] & 0xf0) | 0x02
                p[1] = (p[1] & 0x0f) | 0xe0
                p[7] = 7
            else:
                p[1] = 0xbb  # DSCP 46, ECN CE
                p[8] = 3
        elif mode == 'badicrc':
            p[-1] ^= 0xff
        elif mode != 'same':
            sys.exit('unknown mode ' + mode)
        if v6:
            s.sendto(bytes(p), (daddr, 0, 0, 0))
        else:
            s.sendto(bytes(p), (daddr, 0))
        n += 1
    print(n)


main()
