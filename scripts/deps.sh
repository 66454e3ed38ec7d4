#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install everything sroce's build, tests and demo need on Debian 12, as
# root.  Idempotent: a second run installs nothing and fetches nothing.
#
#   scripts/deps.sh            packages + pinned rdma-core source
#   SROCE_DEPS_NO_APT=1 ...    skip the package step (already provisioned)
#   KERNELS="5.10 7.3" ...     also the Debian roots that build sroce.ko for
#                              these kernels and their guest kernels
#                              (scripts/kroot.sh; make deps passes KERNELS)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${SROCE_BUILD:-$top/build}

RDMA_CORE_VER=56.1
RDMA_CORE_DEB=56.1-1
RDMA_CORE_TAR=rdma-core_${RDMA_CORE_VER}.orig.tar.gz
RDMA_CORE_SHA256=63ce7f2baa7242c2dbc76375dac957c420187dd27f8c5e148efc07971ee522a8

PKGS=(
	# guest kernels and their headers: Debian 12's 6.1 and 6.12
	linux-image-amd64 linux-headers-amd64
	linux-image-6.12-amd64 linux-headers-6.12-amd64
	# toolchain and analysis
	gcc make libc6-dev clang llvm libclang-rt-14-dev valgrind
	# kernel lint (checkpatch.pl comes from the 6.1 source tarball)
	sparse linux-source-6.1
	# the debug guest kernel (make check-debug) builds from that source
	flex bison bc libelf-dev libssl-dev
	cmake ninja-build pkg-config python3 python3-docutils
	# rdma-core build dependencies
	libnl-3-dev libnl-route-3-dev libudev-dev
	# tests and tools
	check libpcap-dev tshark
	# the roots of the kernels of other Debian releases (scripts/kroot.sh)
	debootstrap
	# make deb and its check: dpkg-shlibdeps, lintian, DKMS
	dpkg-dev lintian dkms
	# guests
	qemu-system-x86 busybox-static cpio xz-utils zstd kmod iproute2 iputils-ping
	# NIC features seen by the guests' tests (tests/vm/datapath/net-counters.sh)
	ethtool
	# unmodified verbs tools run against our provider
	perftest ibverbs-utils ibverbs-providers rdmacm-utils strace
	# kernel consumers in the guests (tests/vm/consumers)
	nvme-cli fio nfs-kernel-server
)

missing_pkgs() {
	local p
	for p in "${PKGS[@]}"; do
		[[ $p == \#* ]] && continue
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep -q '^install ok installed$' || echo "$p"
	done
}

if [[ -z ${SROCE_DEPS_NO_APT:-} ]]; then
	mapfile -t need < <(missing_pkgs)
	if ((${#need[@]})); then
		[[ $(id -u) == 0 ]] || { echo "deps: need root to install: ${need[*]}" >&2; exit 1; }
		echo "deps: installing ${need[*]}"
		apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
			--no-install-recommends "${need[@]}"
	fi
fi

# The Debian mirror of the system's own apt sources, without the trailing /.
debian_mirror() {
	local m
	# shellcheck disable=SC2016 # apt's format, not the shell's
	m=$(apt-get indextargets --format '$(REPO_URI)' 'Identifier: Packages' 2>/dev/null |
	    grep -v -- -security | head -n1)
	[[ -n $m ]] || { echo "deps: cannot find a Debian mirror in apt's sources" >&2; return 1; }
	echo "${m%/}"
}

# QEMU 10 from bookworm-backports: Debian 12's 7.2 crashes guests with two
# vCPUs whenever their kernel rewrites its own text (Documentation/vm.rst,
# "Two vCPUs need QEMU 10").  Elsewhere the system's QEMU is taken as is.
QEMU_MIN=1:10.0

qemu_ok() {
	local v
	v=$(dpkg-query -W -f='${Version}' qemu-system-x86 2>/dev/null) &&
		dpkg --compare-versions "$v" ge "$QEMU_MIN"
}

backports_qemu() {
	local list=/etc/apt/sources.list.d/bookworm-backports.sources mirror
	# shellcheck source=/dev/null
	[[ $(. /etc/os-release && echo "${VERSION_CODENAME:-}") == bookworm ]] ||
		return 0
	if ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d; then
		mirror=$(debian_mirror) || return 1
		echo "deps: adding $list"
		printf 'Types: deb\nURIs: %s\nSuites: bookworm-backports\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
			"$mirror" >"$list"
	fi
	echo "deps: installing qemu-system-x86 from bookworm-backports"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		-t bookworm-backports qemu-system-x86
	qemu_ok || { echo "deps: qemu-system-x86 is still older than $QEMU_MIN" >&2; return 1; }
}

if [[ -z ${SROCE_DEPS_NO_APT:-} ]] && ! qemu_ok; then
	[[ $(id -u) == 0 ]] || { echo "deps: need root to install QEMU $QEMU_MIN" >&2; exit 1; }
	backports_qemu
fi

# The pinned rdma-core source.  Debian 12 ships rdma-core 44.0 but its
# source is not reachable from here; Debian 13's 56.1 is.  A private apt
# configuration with a trixie deb-src entry fetches it without touching
# the system's sources.  The mirror is taken from the system's own apt
# configuration.
fetch_rdma_core() {
	local apt=$build/apt-trixie mirror
	mirror=$(debian_mirror) || return 1
	mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial"
	echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror trixie main" \
		>"$apt/sources.list"
	local opts=(-o "Dir::Etc::SourceList=$apt/sources.list"
		    -o "Dir::Etc::SourceParts=/dev/null"
		    -o "Dir::State::Lists=$apt/lists"
		    -o "Dir::Cache=$apt/cache"
		    -o "APT::Sandbox::User=root")
	apt-get "${opts[@]}" -qq update
	# apt reports the .dsc as missing; the orig tarball still arrives.
	(cd "$build" && apt-get "${opts[@]}" source --download-only \
		"rdma-core=$RDMA_CORE_DEB" >/dev/null 2>&1) || true
	[[ -f $build/$RDMA_CORE_TAR ]] || { echo "deps: $RDMA_CORE_TAR did not arrive" >&2; return 1; }
}

mkdir -p "$build"
if [[ ! -f $build/$RDMA_CORE_TAR ]] ||
   ! echo "$RDMA_CORE_SHA256  $build/$RDMA_CORE_TAR" | sha256sum -c --quiet 2>/dev/null; then
	rm -f "$build/$RDMA_CORE_TAR"
	fetch_rdma_core
	echo "$RDMA_CORE_SHA256  $build/$RDMA_CORE_TAR" | sha256sum -c --quiet || {
		echo "deps: $RDMA_CORE_TAR fails its sha256 check" >&2
		rm -f "$build/$RDMA_CORE_TAR"
		exit 1
	}
fi
src=$build/rdma-core-$RDMA_CORE_VER
if [[ ! -f $src/CMakeLists.txt ]]; then
	rm -rf "$src.tmp" && mkdir -p "$src.tmp"
	tar -xzf "$build/$RDMA_CORE_TAR" -C "$src.tmp" --strip-components=1
	mv "$src.tmp" "$src"
fi
# The kernels built in a root of another Debian release (5.10, 7.3):
# the root, its headers, and the kernel the guests boot.
for k in ${KERNELS:-}; do
	[[ -n $(SROCE_BUILD=$build "$top/scripts/kver.sh" --dist "$k") ]] || continue
	rel=$(SROCE_BUILD=$build "$top/scripts/kroot.sh" guest "$k")
	echo "deps: kernel $k ($rel): root, headers, guest kernel"
done
echo "deps: ok (rdma-core $RDMA_CORE_VER at $src)"
