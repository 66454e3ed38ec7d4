#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# NFS over RDMA.  The server guest (CONS_TARGET, a by default): nfsd
# exporting a tmpfs, listening for RDMA on port 20049 (rpcbind, rpc.mountd
# and rpc.nfsd started by hand: the guests have no init system).  The
# client guest: mount -o rdma,port=20049 (NFSv3, nolock: no statd, and
# no NFSv4 grace period to wait out), then files are copied both ways and
# checked by sha256 on the other side:
#   client -> server: one CONS_MIB MiB file and 32 small ones, read on
#           the server from the exported tmpfs itself;
#   server -> client: one CONS_MIB MiB file created on the server, read
#           through the mount.
# (The files are named from-a, written by the server, and from-b,
# written by the client, whichever guest each is.)
# The client (xprtrdma) registers its buffers with fast-reg MRs; the
# server (svcrdma) moves the data with RDMA READ and WRITE.
. "$SROCE_TOP/tests/vm/consumers/consumers.lib"

PORT=20049
EXP=/srv/sroce-nfs
MNT=/mnt/sroce-nfs
MIB=$CONS_MIB

server_up() {
	cons_modprobe nfsd rpcrdma
	mountpoint -q /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd
	mkdir -p "$EXP" /var/lib/nfs /run/rpcbind
	mount -t tmpfs -o size=$((3 * MIB + 8))m tmpfs "$EXP"
	echo "$EXP $SROCE_PEER/32(rw,sync,no_root_squash,no_subtree_check,insecure,fsid=7)" \
		>/etc/exports
	rpcbind -w || fail "rpcbind did not start"
	exportfs -ra || fail "exportfs failed"
	rpc.mountd || fail "rpc.mountd did not start"
	# Two threads, NFSv3 only; TCP too, which mount's MOUNT call uses.
	rpc.nfsd -N 4 -N 4.1 -N 4.2 --rdma=$PORT 2 || fail "rpc.nfsd failed"
	grep -q "rdma $PORT" /proc/fs/nfsd/portlist ||
		{ cat /proc/fs/nfsd/portlist >&2; fail "nfsd is not listening on rdma $PORT"; }
	log "nfsd: $EXP exported, listening on $(tr '\n' ' ' </proc/fs/nfsd/portlist)"
}

server_down() {
	rpc.nfsd 0
	exportfs -ua
	kill "$(pidof rpc.mountd)" "$(pidof rpcbind)" 2>/dev/null || true
	umount /proc/fs/nfsd
	umount "$EXP"
	# svcrdma's listener goes with the last nfsd thread; then the modules.
	modprobe -r nfsd rpcrdma || fail "cannot unload nfsd / rpcrdma"
}

if cons_is_target; then
	server_up
	head -c $((MIB << 20)) /dev/urandom >"$EXP/from-a"
	sroce_put a-sha "$(cons_sha "$EXP/from-a")"
	sroce_barrier nfs-up
	sroce_barrier b-copied "$CONS_WAIT"
	[[ $(cons_sha "$EXP/from-b") == "$(sroce_get b-sha)" ]] ||
		fail "the file b copied in differs on the server"
	for ((i = 0; i < 32; i++)); do
		[[ $(<"$EXP/small/$i") == "small file $i $(sroce_get b-sha)" ]] ||
			fail "small file $i differs on the server"
	done
	log "server: the client's $MIB MiB file and 32 small files arrived intact"
	sroce_barrier a-checked
	sroce_barrier b-done "$CONS_WAIT"
	cons_loss_recovered
	server_down
	cons_resources_clean
	log "nfsd stopped, modules unloaded"
	exit 0
fi

cons_modprobe nfs nfsv3 rpcrdma
head -c $((MIB << 20)) /dev/urandom >"$T/from-b"
sum=$(cons_sha "$T/from-b")
sroce_barrier nfs-up
mkdir -p "$MNT"
mount -t nfs -o rdma,port=$PORT,vers=3,nolock,sync "$SROCE_PEER:$EXP" "$MNT" ||
	fail "mount over rdma failed"
grep " $MNT " /proc/mounts | grep -q "proto=rdma" ||
	{ grep " $MNT " /proc/mounts >&2; fail "the mount is not over rdma"; }
log "mounted: $(grep " $MNT " /proc/mounts | cut -d' ' -f4 | tr ',' '\n' | grep -E '^(vers|proto|port|rsize|wsize)=' | tr '\n' ' ')"

start=$(cons_now)
cp "$T/from-b" "$MNT/from-b"
log "client -> server: $MIB MiB in $(cons_elapsed "$start") s: $(cons_rate "$MIB" "$(cons_elapsed "$start")")"
mkdir "$MNT/small"
for ((i = 0; i < 32; i++)); do
	echo "small file $i $sum" >"$MNT/small/$i"
done
sroce_put b-sha "$sum"
sroce_barrier b-copied
sroce_barrier a-checked

start=$(cons_now)
cp "$MNT/from-a" "$T/from-a"
log "server -> client: $MIB MiB in $(cons_elapsed "$start") s: $(cons_rate "$MIB" "$(cons_elapsed "$start")")"
[[ $(cons_sha "$T/from-a") == "$(sroce_get a-sha)" ]] ||
	fail "the file read from the server differs"
[[ $(cons_sha "$MNT/from-b") == "$sum" ]] || fail "b's file reads back wrong"
[[ $(ls "$MNT/small" | wc -l) == 32 ]] || fail "small files missing"

umount "$MNT" || fail "umount failed"
modprobe -r nfsv3 nfs rpcrdma 2>/dev/null || modprobe -r rpcrdma ||
	fail "cannot unload rpcrdma"
cons_resources_clean
cons_loss_recovered
sroce_barrier b-done
log "unmounted, rpcrdma unloaded"
