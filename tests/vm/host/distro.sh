#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# On a Debian 13 root with sroce-dkms and libibverbs-sroce installed
# (scripts/host-check.sh): the module is DKMS's, built for this kernel;
# the verbs programs are the distribution's, on its own libibverbs, with
# no LD_LIBRARY_PATH; the device works between the guests with
# ibv_devinfo, ibv_rc_pingpong, ib_write_bw and rping.
. "$SROCE_TOP/tests/vm/datapath/datapath.lib"
. "$SROCE_TOP/tests/vm/datapath/pingpong.lib"
. "$SROCE_TOP/tests/vm/datapath/perftest.lib"
. "$SROCE_TOP/tests/vm/datapath/rping.lib"

[[ -z ${LD_LIBRARY_PATH:-} ]] || fail "LD_LIBRARY_PATH is set: $LD_LIBRARY_PATH"
ko=$(modinfo -n sroce) || fail "modinfo finds no sroce module"
[[ $ko == "/lib/modules/$(uname -r)/updates/dkms/sroce.ko"* ]] ||
	fail "sroce.ko is not DKMS's: $ko"
grep -q '^sroce ' /proc/modules || fail "sroce is not loaded"
log "module: $ko (vermagic $(modinfo -F vermagic sroce | xargs))"

# Every program below is the distribution's, and so is its libibverbs.
for p in ibv_devinfo ibv_rc_pingpong ib_write_bw rping; do
	f=$(command -v $p) || fail "$p is not installed"
	dpkg -S "$f" >/dev/null 2>&1 || dpkg -S "$(readlink -f "$f")" >/dev/null 2>&1 ||
		fail "$f belongs to no package"
done
lib=$(ldd "$(command -v ibv_devinfo)" | awk '$1 == "libibverbs.so.1" { print $3 }')
pkg=$(dpkg -S "$(readlink -f "$lib")" 2>/dev/null) || fail "$lib belongs to no package"
[[ $pkg == libibverbs1:* ]] || fail "$lib is from $pkg"
log "libibverbs: $lib ($(dpkg-query -W -f='${Version}' libibverbs1))"

out=$(ibv_devinfo -d "$DEV" 2>&1) || fail "ibv_devinfo -d $DEV: $out"
grep -q 'state:[[:space:]]*PORT_ACTIVE' <<<"$out" || { echo "$out" >&2; fail "port not active"; }
! grep -qi warning <<<"$out" || { echo "$out" >&2; fail "ibv_devinfo warned"; }
log "ibv_devinfo -d $DEV:"
printf '    %s\n' "${out//$'\n'/$'\n'    }"

pingpong rc rc4 18700 "$G4" 200 4096
perf ib_write_bw write-bw 18710 65536 200
rping_pair rping4 18720 20 1024 4

# The programs' own output, for the record (make check-host's log).
for n in rc4 write-bw rping4; do
	log "$n, as the program printed it:"
	sed 's/^/    /' "$(dp_out $n)"
done
