#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# net-tap.py IFACE READY STOP: count the RoCEv2 frames (IPv4, UDP
# destination port 4791) this host sends on IFACE, as a packet tap such
# as tcpdump sees them, from when it creates the file READY until the
# file STOP exists.  Prints "count drops arp": drops are frames the tap's
# socket lost for room, which make the count short; arp the ARP requests
# (resolutions and probes of the neighbour) the host sent meanwhile.
import os
import select
import socket
import struct
import sys

ETH_P_ALL = 0x0003
SO_RCVBUFFORCE = 33
SOL_PACKET = 263
PACKET_STATISTICS = 6


def roce_v4(frame):
    if len(frame) < 42 or frame[12:14] != b'\x08\x00' or frame[23] != 17:
        return False
    udp = 14 + (frame[14] & 0x0f) * 4
    return struct.unpack('!H', frame[udp + 2:udp + 4])[0] == 4791


def arp_request(frame):
    return len(frame) >= 22 and frame[12:14] == b'\x08\x06' and \
        frame[20:22] == b'\x00\x01'


def main():
    iface, ready, stop = sys.argv[1:4]
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                      socket.htons(ETH_P_ALL))
    s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 64 << 20)
    s.bind((iface, 0))
    open(ready, 'w').close()
    count = arp = 0
    done = False
    while True:
        # After STOP, read what is queued, then end.
        done = done or os.path.exists(stop)
        r, _, _ = select.select([s], [], [], 0 if done else 0.2)
        if not r:
            if done:
                break
            continue
        frame, addr = s.recvfrom(128)
        if addr[2] != socket.PACKET_OUTGOING:
            continue
        if roce_v4(frame):
            count += 1
        elif arp_request(frame):
            arp += 1
    _, drops = struct.unpack('II', s.getsockopt(SOL_PACKET,
                                                PACKET_STATISTICS, 8))
    print(count, drops, arp)


main()
