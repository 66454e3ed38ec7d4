#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Wire conformance of recorded RoCEv2 traffic.  For each capture:
#  - tshark (an independent dissector) must find no malformed packet and
#    no expert item of severity error or worse, and must see RoCEv2;
#  - build/tools/sroce-dump --strict must find no malformed packet and no
#    ICRC mismatch (tshark displays the ICRC but never checks it; the
#    unit tests cross-validate sroce-dump against rxe captures both ways).
# Usage: wire-conform.sh [--from ADDR]... PCAP...
# Output: one PASS/FAIL line per capture, then "conform: N passed, M failed".
#
# tshark's payload heuristics are off: with them, the EtherType heuristic
# reads the first bytes of a small SEND or WRITE payload as an EtherType
# (LAPB over Ethernet, say) and calls the "inner" packet malformed, and
# the RPC-over-RDMA one throws on a zero-length SEND.  Only the RoCEv2
# headers are judged; the payload is opaque data.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
DUMP=${SROCE_DUMP:-$TOP/build/tools/sroce-dump}
pass=0 failed=0
FROM=

# --from ADDR (repeatable): judge only frames sent by these addresses
# (e.g. the sroce guest of a mixed pair, whose peer may be rdma_rxe with
# its own habits: a zero UDP checksum over IPv6, which tshark flags);
# ICRCs are checked on every frame regardless.
while [[ ${1-} == --from ]]; do
	FROM+=" ${2:?--from needs an address}"
	shift 2
done
FROM=${FROM# }

# The heuristic dissectors registered on "infiniband.payload" (tshark -G
# heuristic-decodes lists them by protocol; these are their short names).
TSHARK_OPTS=(-n)
for h in eth_over_ib mellanox_eoib fc_infiniband sdp_infiniband \
	iser_infiniband lnet_ib nvme_rdma rpcrdma_infiniband \
	smb_direct_infiniband smcr_infiniband drbd_rdma; do
	TSHARK_OPTS+=(--disable-heuristic "$h")
done

[[ -x $DUMP ]] || { echo "conform: $DUMP not built (make tools)" >&2; exit 2; }
command -v tshark >/dev/null || { echo "conform: tshark missing" >&2; exit 2; }

# One tshark pass per capture: frame, source address, worst expert
# severity (error = 0x00800000), malformed marker, BTH opcode.
check() {
	local pcap=$1 stats out

	stats=$(tshark "${TSHARK_OPTS[@]}" -r "$pcap" -T fields -E separator='|' \
		-e frame.number -e ip.src -e ipv6.src -e _ws.expert.severity \
		-e _ws.malformed -e infiniband.bth.opcode 2>/dev/null |
		awk -F'|' -v from=" $FROM " '
		{ src = $2 != "" ? $2 : $3 }
		from != "  " && index(from, " " src " ") == 0 { next }
		{ n++ }
		$6 != "" { roce++ }
		$5 != "" || ($4 != "" && $4 + 0 >= 8388608) {
			bad++; if (nb < 5) list[nb++] = $1
		}
		END {
			printf "%d %d %d", n, roce, bad
			for (i = 0; i < nb; i++) printf " %s", list[i]
		}')
	read -r n roce bad frames <<<"$stats"
	if ((bad)); then
		echo "FAIL $pcap: tshark flags $bad of $n frames${FROM:+ from $FROM} (malformed or expert error), e.g. frames $frames"
		for f in $frames; do
			tshark "${TSHARK_OPTS[@]}" -r "$pcap" -Y "frame.number == $f" -V 2>/dev/null |
				grep -E 'Expert Info \((Error|Malformed)' | sort -u | head -2 |
				sed "s/^ */  frame $f: /"
		done
		return 1
	fi
	if ((roce == 0)); then
		echo "FAIL $pcap: no RoCEv2 packet in $n frames${FROM:+ from $FROM}"
		return 1
	fi
	if ! out=$("$DUMP" -q -s --strict -r "$pcap" 2>&1); then
		echo "FAIL $pcap: sroce-dump --strict (bad ICRC or malformed)"
		grep -Ei 'icrc|malformed' <<<"$out" | head -5 | sed 's/^/  /'
		return 1
	fi
	echo "PASS $pcap: $roce RoCEv2 frames${FROM:+ from $FROM}, tshark clean, every ICRC in the capture good"
}

for f in "$@"; do
	if check "$f"; then pass=$((pass + 1)); else failed=$((failed + 1)); fi
done
echo "conform: $pass passed, $failed failed"
((failed == 0))
