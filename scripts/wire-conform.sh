#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Wire conformance of recorded RoCEv2 traffic.  For each capture:
#  - tshark (an independent dissector) must find no malformed packet and
#    no expert item of severity error or worse, and must see RoCEv2;
#  - build/tools/sroce-dump --strict must find no malformed packet and no
#    ICRC mismatch (tshark displays the ICRC but never checks it; the
#    unit tests cross-validate sroce-dump against rxe captures both ways).
# Usage: wire-conform.sh [--from ADDR] PCAP...
# Output: one PASS/FAIL line per capture, then "conform: N passed, M failed".
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
DUMP=${SROCE_DUMP:-$TOP/build/tools/sroce-dump}
pass=0 failed=0
FROM=

# --from ADDR: judge only frames sent by ADDR (e.g. the sroce guest of a
# mixed pair); ICRCs are checked on every frame regardless.
if [[ ${1-} == --from ]]; then
	FROM=${2:?--from needs an address}
	shift 2
fi

[[ -x $DUMP ]] || { echo "conform: $DUMP not built (make tools)" >&2; exit 2; }
command -v tshark >/dev/null || { echo "conform: tshark missing" >&2; exit 2; }

# One tshark pass per capture: frame, source address, worst expert
# severity (error = 0x00800000), malformed marker, BTH opcode.
check() {
	local pcap=$1 stats out

	stats=$(tshark -n -r "$pcap" -T fields -E separator='|' \
		-e frame.number -e ip.src -e ipv6.src -e _ws.expert.severity \
		-e _ws.malformed -e infiniband.bth.opcode 2>/dev/null |
		awk -F'|' -v from="$FROM" '
		{ src = $2 != "" ? $2 : $3 }
		from != "" && src != from { next }
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
			tshark -n -r "$pcap" -Y "frame.number == $f" -V 2>/dev/null |
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
