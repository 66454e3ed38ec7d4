#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ibv_devinfo -v through the sroce provider reports exactly the limits in
# params.h and a sane port; opening a context and a PD leaks nothing.
. "$SROCE_TOP/tests/vm/device/device-lib.bash"
sd_reset
trap sd_reset EXIT

rdma link add sroce0 type sroce netdev "$SROCE_IF" || fail "add failed"
sd_need_provider sroce0

out=$(sd_devinfo sroce0) || { echo "$out"; fail "ibv_devinfo failed"; }
echo "$out" | sed 's/^/  /'

# field NAME VALUE: the first "NAME: ..." line says VALUE, optionally
# followed by a space and more ("4096 (5)").  Builtins only (TCG execs
# are slow, and there are forty fields).
field() {
	local line got=

	while IFS= read -r line; do
		[[ $line =~ ^[[:space:]]*$1:[[:space:]]*(.*)$ ]] || continue
		got=${BASH_REMATCH[1]}
		break
	done <<<"$out"
	[[ $got == "$2" || $got == "$2 "* ]] || fail "$1 is '$got', expected '$2'"
}
hex() { printf '0x%x' "$1"; }

field transport "InfiniBand (0)"
field fw_ver 0.1.0
field node_guid "$(sd_eui64 "$(<"/sys/class/net/$SROCE_IF/address")")"
field vendor_id "$(hex "$(sd_param SROCE_VENDOR_ID)")"
field vendor_part_id "$(sd_param SROCE_VENDOR_PART_ID)"
field hw_ver "$(hex "$(sd_param SROCE_HW_VER)")"
field phys_port_cnt 1
field max_mr_size "$(hex "$(sd_param SROCE_MAX_MR_SIZE)")"
field page_size_cap 0xfffffffffffff000
for f in max_qp:SROCE_MAX_QP max_qp_wr:SROCE_MAX_QP_WR max_sge:SROCE_MAX_SGE \
	max_sge_rd:SROCE_MAX_SGE_RD max_cq:SROCE_MAX_CQ max_cqe:SROCE_MAX_CQE \
	max_mr:SROCE_MAX_MR max_pd:SROCE_MAX_PD \
	max_qp_rd_atom:SROCE_MAX_QP_RD_ATOM \
	max_res_rd_atom:SROCE_MAX_RES_RD_ATOM \
	max_qp_init_rd_atom:SROCE_MAX_QP_INIT_RD_ATOM \
	max_mcast_grp:SROCE_MAX_MCAST_GRP max_ah:SROCE_MAX_AH \
	max_srq:SROCE_MAX_SRQ max_srq_wr:SROCE_MAX_SRQ_WR \
	max_srq_sge:SROCE_MAX_SRQ_SGE max_pkeys:SROCE_PORT_PKEY_TBL_LEN \
	local_ca_ack_delay:SROCE_LOCAL_CA_ACK_DELAY \
	gid_tbl_len:SROCE_PORT_GID_TBL_LEN pkey_tbl_len:SROCE_PORT_PKEY_TBL_LEN; do
	field "${f%%:*}" "$(sd_param "${f#*:}")"
done
field atomic_cap "ATOMIC_HCA"
field state "PORT_ACTIVE (4)"
field max_mtu "4096 (5)"
field active_mtu "1024 (3)"
field phys_state "LINK_UP (5)"
field link_layer Ethernet
field max_msg_sz "$(hex "$(sd_param SROCE_PORT_MAX_MSG_SZ)")"
grep -q 'GID\[  *[0-9]*\]:.*RoCE v2' <<<"$out" || fail "no RoCE v2 GID listed"

# A PD: ibv_rc_pingpong allocates one and fails later (no CQs yet) or
# waits for a peer; either way it must give back what it took.
timeout 5 ibv_rc_pingpong -d sroce0 -g 1 >/dev/null 2>&1 || true
rdma link delete sroce0 || fail "delete failed"
if sd_kmsg | grep -E 'leaked'; then
	fail "objects leaked"
fi
