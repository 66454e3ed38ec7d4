#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Every value "ibv_devinfo -v" shows for the sroce device is what the
# kernel reports elsewhere: identity from sysfs and the rdma tool, limits
# from kernel/params.h (which query_device/query_port report, and nothing
# else does), port state from sysfs, active_mtu from the netdev MTU, and
# the GID table entry by entry from sysfs.
. "$SROCE_TOP/tests/vm/provider/provider.lib"

sys=/sys/class/infiniband/$SROCE_DEV
params=$SROCE_TOP/kernel/params.h

# param NAME: the value of "#define NAME ..." in kernel/params.h, for the
# forms it uses: numbers, SZ_*, BIT(), BIT_ULL(), IB_MTU_*, other SROCE_*.
# Pure bash: forks are slow under emulation.
declare -A def=()
while IFS= read -r line; do
	[[ $line =~ ^#define[[:space:]]+(SROCE_[A-Z0-9_]+)[[:space:]]+(.*)$ ]] || continue
	def[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]%%/\**}
done <"$params"
param() {
	local expr=${def[$1]-} pre

	[[ -n $expr ]] || fail "kernel/params.h has no $1"
	while [[ $expr =~ ^(.*)SZ_([0-9]+)([KM])(.*)$ ]]; do
		pre=1024
		[[ ${BASH_REMATCH[3]} == M ]] && pre=1048576
		expr="${BASH_REMATCH[1]}(${BASH_REMATCH[2]}*$pre)${BASH_REMATCH[4]}"
	done
	while [[ $expr =~ ^(.*)BIT(_ULL)?\(([0-9]+)\)(.*)$ ]]; do
		expr="${BASH_REMATCH[1]}(1<<${BASH_REMATCH[3]})${BASH_REMATCH[4]}"
	done
	while [[ $expr =~ ^(.*)IB_MTU_([0-9]+)(.*)$ ]]; do
		expr="${BASH_REMATCH[1]}${BASH_REMATCH[2]}${BASH_REMATCH[3]}"
	done
	while [[ $expr =~ ^(.*[^A-Za-z0-9_]|)(SROCE_[A-Z0-9_]+)(.*)$ ]]; do
		expr="${BASH_REMATCH[1]}($(param "${BASH_REMATCH[2]}"))${BASH_REMATCH[3]}"
	done
	while [[ $expr =~ ^(.*[0-9])U?LL?([^0-9A-Za-z].*|)$ || $expr =~ ^(.*[0-9])U([^0-9A-Za-z].*|)$ ]]; do
		expr="${BASH_REMATCH[1]}${BASH_REMATCH[2]}"
	done
	echo $((expr))
}

run_quiet "$T/devinfo" ibv_devinfo -v -d "$SROCE_DEV"
declare -A v=()
while IFS= read -r line; do
	[[ $line =~ ^[[:space:]]*([a-z_0-9]+):[[:space:]]+([^[:space:]].*)$ ]] || continue
	v[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
done <"$T/devinfo"

bad=0 nchk=0
check() {
	local key=$1 want=$2

	nchk=$((nchk + 1))
	if [[ ${v[$key]-<missing>} != "$want" ]]; then
		echo "MISMATCH $key: ibv_devinfo '${v[$key]-<missing>}', kernel '$want'" >&2
		bad=$((bad + 1))
	fi
}

# Identity: sysfs and the rdma tool.
check fw_ver "$(cat "$sys/fw_ver")"
check node_guid "$(cat "$sys/node_guid")"
check sys_image_guid "$(cat "$sys/sys_image_guid")"
rdma_dev=$(rdma dev show "$SROCE_DEV")
[[ $rdma_dev == *" fw ${v[fw_ver]-} "* ]] || fail "rdma dev: $rdma_dev; fw ${v[fw_ver]-}"
[[ $rdma_dev == *" node_guid ${v[node_guid]-} "* ]] ||
	fail "rdma dev: $rdma_dev; node_guid ${v[node_guid]-}"
[[ $(cat "$sys/node_type") == "1: CA" ]] || fail "node_type $(cat "$sys/node_type")"
check transport "InfiniBand (0)"

# Device limits: kernel/params.h.
check vendor_id "$(printf '0x%x' "$(param SROCE_VENDOR_ID)")"
check vendor_part_id "$(param SROCE_VENDOR_PART_ID)"
check hw_ver "$(printf '0x%x' "$(param SROCE_HW_VER)")"
check phys_port_cnt "$(param SROCE_NUM_PORTS)"
check max_mr_size "$(printf '0x%x' "$(param SROCE_MAX_MR_SIZE)")"
for p in max_qp max_qp_wr max_sge max_sge_rd max_cq max_cqe max_mr max_pd \
	 max_qp_rd_atom max_res_rd_atom max_qp_init_rd_atom max_mcast_grp \
	 max_mcast_qp_attach max_ah max_srq max_srq_wr max_srq_sge \
	 local_ca_ack_delay; do
	check "$p" "$(param "SROCE_${p^^}")"
done
check max_pkeys "$(param SROCE_PORT_PKEY_TBL_LEN)"
# The completion clock: nanoseconds, all 64 bits (SROCE_TIMESTAMP_MASK).
check hca_core_clock "$(param SROCE_HCA_CORE_CLOCK)kHZ"
nchk=$((nchk + 1))
grep -Eq "^[[:space:]]*completion timestamp_mask:[[:space:]]+0xffffffffffffffff$" "$T/devinfo" ||
	{ echo "MISMATCH completion timestamp_mask: $(grep timestamp_mask "$T/devinfo")" >&2; bad=$((bad + 1)); }

# Port 1: kernel/params.h, sysfs, the netdev.
check max_msg_sz "$(printf '0x%x' "$(param SROCE_PORT_MAX_MSG_SZ)")"
check gid_tbl_len "$(param SROCE_PORT_GID_TBL_LEN)"
check pkey_tbl_len "$(param SROCE_PORT_PKEY_TBL_LEN)"
check link_layer "$(cat "$sys/ports/1/link_layer")"
mtu_enum() {
	case $1 in 256) echo 1 ;; 512) echo 2 ;; 1024) echo 3 ;;
	2048) echo 4 ;; 4096) echo 5 ;; esac
}
max_mtu=$(param SROCE_PORT_MAX_MTU)
check max_mtu "$max_mtu ($(mtu_enum "$max_mtu"))"
# The largest IB MTU whose worst-case RoCEv2 packet fits the netdev MTU.
room=$(($(cat "/sys/class/net/$SROCE_IF/mtu") - $(param SROCE_ROCEV2_MAX_OVERHEAD)))
for m in 4096 2048 1024 512 256; do
	((m <= max_mtu && m <= room)) && break
done
check active_mtu "$m ($(mtu_enum "$m"))"

state=$(cat "$sys/ports/1/state")		# "4: ACTIVE"
phys=$(cat "$sys/ports/1/phys_state")		# "5: LinkUp"
[[ ${v[state]-} == *"(${state%%:*})" ]] ||
	{ echo "MISMATCH state: '${v[state]-}', sysfs '$state'" >&2; bad=$((bad + 1)); }
[[ ${v[phys_state]-} == *"(${phys%%:*})" ]] ||
	{ echo "MISMATCH phys_state: '${v[phys_state]-}', sysfs '$phys'" >&2; bad=$((bad + 1)); }
check state "PORT_ACTIVE (4)"		# the harness brought the link up
rdma link show "$SROCE_DEV/1" | grep -q ' state ACTIVE ' ||
	fail "rdma link: $(rdma link show "$SROCE_DEV/1")"

# GID table: each entry ibv_devinfo prints equals sysfs, value and type,
# and every GID sysfs shows in the first 16 entries is printed.
expand_gid() {
	local g=$1 v4 a b c d

	if [[ $g == *.* ]]; then	# ::ffff:a.b.c.d
		v4=${g##*:}
		IFS=. read -r a b c d <<<"$v4"
		g=${g%:*}:$(printf '%02x%02x:%02x%02x' "$a" "$b" "$c" "$d")
	fi
	_sroce_expand6 "$g"
}
# (No process substitution: the guest has no /dev/fd.)
sed -n 's/^[[:space:]]*GID\[ *\([0-9]*\)\]:[[:space:]]*\([^,]*\), \(.*\)$/\1 \2 \3/p' \
	"$T/devinfo" >"$T/gids"
ngid=0
while read -r idx gid type; do
	want=$(cat "$sys/ports/1/gids/$idx")
	got=$(expand_gid "$gid")
	wtype=$(cat "$sys/ports/1/gid_attrs/types/$idx")
	if [[ $got != "$want" || $wtype != *"$type" ]]; then
		echo "MISMATCH GID[$idx]: ibv_devinfo '$gid, $type', sysfs '$want, $wtype'" >&2
		bad=$((bad + 1))
	fi
	ngid=$((ngid + 1))
done <"$T/gids"
nsys=0
for ((i = 0; i < 16; i++)); do
	g=$(cat "$sys/ports/1/gids/$i" 2>/dev/null) || continue
	[[ $g == 0000:0000:0000:0000:0000:0000:0000:0000 ]] && continue
	nsys=$((nsys + 1))
	grep -Eq "GID\[ *$i\]:" "$T/devinfo" || { echo "MISSING GID[$i] $g" >&2; bad=$((bad + 1)); }
done
((nsys > 0)) || fail "no GID in sysfs"
((ngid >= nsys)) || fail "ibv_devinfo shows $ngid GIDs, sysfs $nsys"

((bad == 0)) || { cat "$T/devinfo"; fail "$bad value(s) differ"; }
log "ok: $nchk values and $ngid GIDs agree with the kernel"
