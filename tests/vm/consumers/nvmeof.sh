#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# NVMe over Fabrics, RDMA transport.  The target guest (CONS_TARGET, a by
# default): nvmet with one namespace on a RAM disk (brd), an RDMA port at
# its address, 4420.  The other guest: nvme connect -t rdma, then
#   1. dd of CONS_MIB MiB of random data, direct I/O, read back and
#      compared, and the target checks the same bytes on its RAM disk;
#   2. fio with crc32c verification, sequential 128 KiB and random 4 KiB
#      writes (libaio, queue depth 16), if fio is installed and CONS_FIO
#      is not 0;
# then disconnects.  nvme-rdma registers every I/O with a fast-reg MR
# (IB_WR_REG_MR) and the target invalidates it remotely (SEND_WITH_INV),
# or the host with LOCAL_INV.  CONS_NVMET_SRQ=1 loads nvmet_rdma with
# use_srq=1: the target then receives every queue's commands on shared
# receive queues, and the test checks that it made some.
. "$SROCE_TOP/tests/vm/consumers/consumers.lib"

NQN=nqn.2026-11.org.sroce:test
PORT=4420
MIB=$CONS_MIB
CFG=/sys/kernel/config/nvmet
SRQ=${CONS_NVMET_SRQ:-0}

target_up() {
	cons_modprobe nvmet
	if [[ $SRQ == 1 ]]; then
		modprobe nvmet_rdma use_srq=1 ||
			skip "nvmet_rdma is not available on $SROCE_KVER"
		[[ $(cat /sys/module/nvmet_rdma/parameters/use_srq) == Y ]] ||
			fail "nvmet_rdma was already loaded without use_srq"
	else
		cons_modprobe nvmet_rdma
	fi
	# The namespace holds two areas: dd's, then fio's.
	modprobe brd rd_nr=1 rd_size=$((2 * MIB * 1024)) max_part=0 ||
		skip "brd is not available"
	[[ -b /dev/ram0 ]] || fail "no /dev/ram0"
	mountpoint -q /sys/kernel/config ||
		mount -t configfs none /sys/kernel/config
	mkdir "$CFG/subsystems/$NQN"
	echo 1 >"$CFG/subsystems/$NQN/attr_allow_any_host"
	mkdir "$CFG/subsystems/$NQN/namespaces/1"
	echo /dev/ram0 >"$CFG/subsystems/$NQN/namespaces/1/device_path"
	echo 1 >"$CFG/subsystems/$NQN/namespaces/1/enable"
	mkdir "$CFG/ports/1"
	echo rdma >"$CFG/ports/1/addr_trtype"
	echo ipv4 >"$CFG/ports/1/addr_adrfam"
	echo "$SROCE_ADDR" >"$CFG/ports/1/addr_traddr"
	echo $PORT >"$CFG/ports/1/addr_trsvcid"
	ln -s "$CFG/subsystems/$NQN" "$CFG/ports/1/subsystems/$NQN"
	log "nvmet: $NQN on rdma $SROCE_ADDR:$PORT, /dev/ram0 $((2 * MIB)) MiB"
}

target_down() {
	rm -f "$CFG/ports/1/subsystems/$NQN"
	rmdir "$CFG/ports/1"
	echo 0 >"$CFG/subsystems/$NQN/namespaces/1/enable"
	rmdir "$CFG/subsystems/$NQN/namespaces/1"
	rmdir "$CFG/subsystems/$NQN"
	modprobe -r nvmet_rdma nvmet
	rmmod brd
}

# The block device of the connected namespace: nvmeXnY (the multipath
# head when native multipath is on), not a hidden nvmeXcYnZ path.
host_dev() {
	local b i

	for ((i = 0; i < 300; i++)); do
		for b in /sys/block/nvme*; do
			[[ ${b##*/} =~ ^nvme[0-9]+n[0-9]+$ ]] || continue
			[[ $(cat "$b/device/subsysnqn" 2>/dev/null) == "$NQN" ]] ||
				continue
			[[ -b /dev/${b##*/} ]] && { echo "/dev/${b##*/}"; return 0; }
		done
		sleep 0.1
	done
	return 1
}

fio_run() {
	local name=$1 out=$T/fio-$1.txt
	shift
	fio --name="$name" --filename="$DEV" --direct=1 --ioengine=libaio \
	    --iodepth=16 --offset=${MIB}M --size=${MIB}M --verify=crc32c \
	    --do_verify=1 --verify_fatal=1 --output="$out" "$@" ||
		{ cat "$out" >&2; fail "fio $name failed"; }
	grep -q "err= 0" "$out" || { cat "$out" >&2; fail "fio $name: errors"; }
	log "fio $name: $(grep -E '^ *(write|read):' "$out" | sed 's/^ *//' | tr '\n' ' ')"
	cp "$out" "$SROCE_OUT/" 2>/dev/null || true
}

if cons_is_target; then
	target_up
	sroce_barrier nvmet-up
	sroce_barrier dd-written "$CONS_WAIT"
	sum=$(cons_sha /dev/ram0 "$MIB")
	[[ $sum == "$(sroce_get dd-sha)" ]] ||
		fail "the target's RAM disk does not hold the data written"
	log "target: the $MIB MiB written by the host are on /dev/ram0"
	if [[ $SRQ == 1 ]]; then
		srqs=$(rdma resource show srq dev "$SROCE_DEV" | grep 'comm \[nvmet_rdma\]') ||
			{ rdma resource show srq >&2; fail "nvmet_rdma made no SRQ"; }
		log "target: nvmet_rdma receives on $(wc -l <<<"$srqs") SRQ(s): ${srqs%%$'\n'*}"
	fi
	sroce_barrier target-checked
	sroce_barrier host-done "$CONS_WAIT"
	cons_loss_recovered
	target_down
	cons_resources_clean
	log "nvmet torn down, modules unloaded"
	exit 0
fi

cons_modprobe nvme_rdma
sroce_barrier nvmet-up
hostnqn=$(nvme gen-hostnqn)
start=$(cons_now)
nvme connect -t rdma -a "$SROCE_PEER" -s $PORT -n "$NQN" --hostnqn="$hostnqn" ||
	fail "nvme connect failed"
DEV=$(host_dev) || fail "no namespace appeared after nvme connect"
log "connected in $(cons_elapsed "$start") s: $DEV ($(($(blockdev --getsize64 "$DEV") >> 20)) MiB)"

head -c $((MIB << 20)) /dev/urandom >"$T/data"
sum=$(cons_sha "$T/data")
start=$(cons_now)
dd if="$T/data" of="$DEV" bs=1M oflag=direct status=none
log "dd write $MIB MiB: $(cons_rate "$MIB" "$(cons_elapsed "$start")")"
sroce_put dd-sha "$sum"
sroce_barrier dd-written
start=$(cons_now)
dd if="$DEV" of="$T/back" bs=1M count="$MIB" iflag=direct status=none
log "dd read $MIB MiB: $(cons_rate "$MIB" "$(cons_elapsed "$start")")"
[[ $(cons_sha "$T/back") == "$sum" ]] || fail "data read back differs"
sroce_barrier target-checked

if [[ $CONS_FIO == 0 ]]; then
	log "CONS_FIO=0: dd only"
elif command -v fio >/dev/null; then
	fio_run seq128k --rw=write --bs=128k
	fio_run rand4k --rw=randwrite --bs=4k --randrepeat=0
else
	log "fio not installed: dd only"
fi

nvme disconnect -n "$NQN" || fail "nvme disconnect failed"
modprobe -r nvme_rdma
cons_resources_clean
cons_loss_recovered
sroce_barrier host-done
log "disconnected, nvme_rdma unloaded"
