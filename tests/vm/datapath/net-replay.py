#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# net-replay.py PCAP DADDR MODE QPN: send every RoCEv2 packet of the
# rdma_rxe capture PCAP whose IP destination is DADDR again, from the IP
# header on, through a raw socket (so the IPv4 ID, the addresses and the
# zero UDP checksum stay rxe's), with its DestQP rewritten to QPN (a QP
# of the receiver: the receiver finds the QP before it checks the ICRC)
# and its ICRC computed again here.  This ICRC must first reproduce the
# one rxe put in the packet, or the script fails.  MODE:
#   same     unchanged: the ICRC checks
#   masked   TTL/hop limit and TOS/traffic class changed: fields the ICRC
#            masks, so it still checks
#   badicrc  last ICRC byte flipped
# Prints the number of packets sent.
import socket
import struct
import sys
import zlib


def icrc(p, v6):
    """The RoCEv2 ICRC of packet p (IP header on, ICRC last)."""
    m = bytearray(p[:-4])
    if v6:
        m[0] |= 0x0f            # traffic class and flow label
        m[1:4] = b'\xff\xff\xff'
        m[7] = 0xff             # hop limit
        udp = 40
    else:
        m[1] = 0xff             # TOS
        m[8] = 0xff             # TTL
        m[10:12] = b'\xff\xff'  # header checksum
        udp = (m[0] & 0x0f) * 4
    m[udp + 6:udp + 8] = b'\xff\xff'   # UDP checksum
    m[udp + 8 + 4] = 0xff               # BTH reserved byte
    return struct.pack('<I', zlib.crc32(b'\xff' * 8 + bytes(m)))


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
    path, daddr, mode, qpn = sys.argv[1:5]
    qpn = int(qpn, 0)
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
        if icrc(p, v6) != bytes(p[-4:]):
            sys.exit('ICRC computed here differs from rxe\'s')
        bth = 40 + 8 if v6 else (p[0] & 0x0f) * 4 + 8
        p[bth + 5:bth + 8] = qpn.to_bytes(3, 'big')
        p[-4:] = icrc(p, v6)
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
