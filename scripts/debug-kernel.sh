#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# debug-kernel.sh: build the debug guest kernel (KASAN, lockdep, kmemleak,
# UBSAN, DEBUG_LIST) from Debian's linux-source-6.1 tarball (6.12's with
# SROCE_DEBUG_KERNEL_VERSION=6.12), with what the test guests need built
# in, and cache it outside the repo keyed by its configuration.  Its build
# tree stays in the cache so that sroce.ko can be built against it out of
# tree.
#
#   scripts/debug-kernel.sh [build]   build (or reuse) it; prints the cache dir
#   scripts/debug-kernel.sh path      print the cache dir if it is built, else fail
#   scripts/debug-kernel.sh status    say how far the build got
#   scripts/debug-kernel.sh install   build (or reuse) it and make it bootable
#                                     by tools/sroce-vm: /lib/modules/RELEASE
#                                     becomes a link to the cache, with the
#                                     image as its vmlinuz; prints RELEASE
#
# SROCE_DEBUG_KERNEL_CACHE overrides /var/cache/sroce/debug-kernel.
# SROCE_DEBUG_KERNEL_JOBS (default 2) is make's -j.  The build runs under
# nice 19 / ionice idle: it is meant to soak up idle CPU only.
set -euo pipefail

VER=${SROCE_DEBUG_KERNEL_VERSION:-6.1}
[[ $VER == 6.1 || $VER == 6.12 ]] ||
	{ echo "debug-kernel: version 6.1 or 6.12, not '$VER'" >&2; exit 1; }
TARBALL=/usr/src/linux-source-$VER.tar.xz
CACHE_ROOT=${SROCE_DEBUG_KERNEL_CACHE:-/var/cache/sroce/debug-kernel}
JOBS=${SROCE_DEBUG_KERNEL_JOBS:-2}

# Everything on top of x86_64_defconfig.  Built in: the guests boot with
# no initramfs modules for these (virtio, 9p root, overlay, netem, RDMA
# core).  rdma_rxe is a module, as on Debian: built in, it binds UDP 4791
# at boot and sroce cannot.  Modules stay enabled for sroce.ko.
# NET_UDP_TUNNEL has no prompt: rdma_rxe selects it, as a module now.
# Debug info is left out: kallsyms names suffice for the reports and
# DWARF would double the build time.
fragment() {
	cat <<'EOF'
CONFIG_LOCALVERSION="-sroce-debug"
# CONFIG_LOCALVERSION_AUTO is not set
CONFIG_MODULES=y
CONFIG_MODULE_UNLOAD=y
CONFIG_MODULE_FORCE_UNLOAD=y
# CONFIG_MODULE_SIG is not set
CONFIG_IKCONFIG=y
CONFIG_IKCONFIG_PROC=y
CONFIG_BLK_DEV_INITRD=y
CONFIG_DEVTMPFS=y
CONFIG_DEVTMPFS_MOUNT=y
CONFIG_TMPFS=y
CONFIG_TMPFS_POSIX_ACL=y
CONFIG_OVERLAY_FS=y
# tests/vm/reliability/memcg.sh: a process in a memory cgroup
CONFIG_MEMCG=y
CONFIG_PCI=y
CONFIG_VIRTIO=y
CONFIG_VIRTIO_MENU=y
CONFIG_VIRTIO_PCI=y
CONFIG_VIRTIO_NET=y
CONFIG_VIRTIO_BLK=y
CONFIG_VIRTIO_CONSOLE=y
CONFIG_NET_9P=y
CONFIG_NET_9P_VIRTIO=y
CONFIG_9P_FS=y
CONFIG_9P_FS_POSIX_ACL=y
CONFIG_NETWORK_FILESYSTEMS=y
CONFIG_PACKET=y
CONFIG_INET=y
CONFIG_IPV6=y
CONFIG_VLAN_8021Q=y
CONFIG_VETH=y
CONFIG_DUMMY=y
CONFIG_MACVLAN=y
CONFIG_NET_SCHED=y
CONFIG_NET_SCH_NETEM=y
CONFIG_NET_SCH_TBF=y
CONFIG_NET_SCH_FQ_CODEL=y
CONFIG_INFINIBAND=y
CONFIG_INFINIBAND_USER_MAD=y
CONFIG_INFINIBAND_USER_ACCESS=y
CONFIG_INFINIBAND_ADDR_TRANS=y
CONFIG_RDMA_RXE=m
CONFIG_CONFIGFS_FS=y
EOF
	# 6.12's is for the interop group's NVMe-oF, where rdma_rxe's guest
	# crashed (Documentation/interop.rst); make check-debug (6.1) runs
	# no NVMe-oF, and its fragment stays as its cached kernel was built.
	[[ $VER == 6.1 ]] || cat <<'EOF'
CONFIG_NVME_RDMA=m
CONFIG_NVME_TARGET=m
CONFIG_NVME_TARGET_RDMA=m
CONFIG_BLK_DEV_RAM=m
EOF
	cat <<'EOF'
CONFIG_DEBUG_FS=y
CONFIG_KALLSYMS=y
CONFIG_KALLSYMS_ALL=y
CONFIG_DEBUG_INFO_NONE=y
CONFIG_KASAN=y
CONFIG_KASAN_GENERIC=y
CONFIG_KASAN_INLINE=y
CONFIG_PROVE_LOCKING=y
CONFIG_DEBUG_ATOMIC_SLEEP=y
CONFIG_DEBUG_KMEMLEAK=y
CONFIG_DEBUG_KMEMLEAK_MEM_POOL_SIZE=16000
# CONFIG_DEBUG_KMEMLEAK_DEFAULT_OFF is not set
CONFIG_DEBUG_KMEMLEAK_AUTO_SCAN=y
CONFIG_UBSAN=y
CONFIG_UBSAN_BOUNDS=y
CONFIG_DEBUG_LIST=y
EOF
}

die() { echo "debug-kernel: $*" >&2; exit 1; }

[[ -r $TARBALL ]] || die "$TARBALL missing: apt-get install linux-source-$VER"
src_ver=$(dpkg-query -W -f='${Version}' "linux-source-$VER" 2>/dev/null || stat -c %s-%Y "$TARBALL")
key=$({ echo "$src_ver"; fragment; } | sha256sum | cut -c1-16)
dir=$CACHE_ROOT/$key
tree=$dir/linux-source-$VER

case ${1:-build} in
path)
	[[ -f $dir/done ]] || die "not built (run scripts/debug-kernel.sh)"
	echo "$dir"
	exit 0 ;;
status)
	if [[ -f $dir/done ]]; then
		echo "built: $dir ($(cat "$dir/kernelrelease"))"
	elif [[ -f $dir/build.log ]]; then
		echo "building or stopped: $dir; last lines of build.log:"
		tail -n 3 "$dir/build.log"
	else
		echo "not started: $dir"
	fi
	exit 0 ;;
build | install) ;;
*) die "usage: debug-kernel.sh [build|path|status|install]" ;;
esac

# The guests see the host root, so a link under /lib/modules is all
# tools/sroce-vm and the module build (its "build" link) need.
install_links() {
	local rel mods
	rel=$(cat "$dir/kernelrelease")
	mods=$dir/mod/lib/modules/$rel
	cp "$dir/vmlinuz" "$mods/vmlinuz"
	if [[ -L /lib/modules/$rel || ! -e /lib/modules/$rel ]]; then
		ln -sfn "$mods" "/lib/modules/$rel"
	else
		die "/lib/modules/$rel exists and is not our link"
	fi
	echo "$rel"
}

if [[ -f $dir/done ]]; then
	if [[ ${1:-build} == install ]]; then
		install_links
	else
		echo "$dir"
	fi
	exit 0
fi

for t in flex bison bc; do
	command -v $t >/dev/null || die "$t missing (apt-get install flex bison bc libelf-dev libssl-dev)"
done
[[ -f /usr/include/libelf.h ]] || die "libelf-dev missing"

mkdir -p "$dir"
exec {lock}>"$dir/.lock"
flock -n "$lock" || die "another build of $dir is running"

slow=(nice -n 19 ionice -c3)
if [[ ! -f $tree/Makefile ]]; then
	# A tree built for another configuration of the same source makes
	# the build incremental: minutes instead of a quarter of an hour.
	seed=
	for d in "$CACHE_ROOT"/*/; do
		d=${d%/}
		[[ $d != "$dir" && -f $d/done && -f $d/linux-source-$VER/Makefile ]] || continue
		[[ $(cat "$d/source-version" 2>/dev/null) == "$src_ver" ]] || continue
		[[ -z $seed || $d -nt $seed ]] && seed=$d
	done
	if [[ -n $seed ]]; then
		echo "debug-kernel: copying the built tree of $seed into $dir" >&2
		"${slow[@]}" cp -a "$seed/linux-source-$VER" "$tree"
	else
		echo "debug-kernel: unpacking $TARBALL into $dir" >&2
		"${slow[@]}" tar -C "$dir" -xJf "$TARBALL"
	fi
fi
echo "$src_ver" >"$dir/source-version"
fragment >"$dir/fragment.config"

cd "$tree"
{
	make x86_64_defconfig
	scripts/kconfig/merge_config.sh -m .config "$dir/fragment.config"
	make olddefconfig
} >"$dir/config.log" 2>&1 || die "configuration failed (see $dir/config.log)"

# merge_config silently drops what Kconfig refuses: insist on the options
# this lane exists for.
missing=
while read -r line; do
	case $line in
	CONFIG_*=y) grep -qx "$line" .config || missing+=" ${line%=y}" ;;
	esac
done < <(fragment)
[[ -z $missing ]] || die "options not taken by Kconfig:$missing"

echo "debug-kernel: building in $tree (log: $dir/build.log)" >&2
"${slow[@]}" make -j"$JOBS" bzImage modules >"$dir/build.log" 2>&1 ||
	die "build failed (see $dir/build.log)"
rm -rf "$dir/mod"
"${slow[@]}" make INSTALL_MOD_PATH="$dir/mod" modules_install >>"$dir/build.log" 2>&1 ||
	die "modules_install failed (see $dir/build.log)"
cp arch/x86/boot/bzImage "$dir/vmlinuz"
make -s kernelrelease >"$dir/kernelrelease"
touch "$dir/done"
if [[ ${1:-build} == install ]]; then
	install_links
else
	echo "$dir"
fi
