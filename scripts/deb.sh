#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make deb: the Debian packages, in build/deb/ (Documentation/install.rst,
# "Debian packages"):
#
#   sroce-dkms_<v>_all.deb          kernel/ as a DKMS source tree, sroce(7)
#   libibverbs-sroce_<v>_<arch>.deb  the provider, for the libibverbs1 of
#                                    the pinned rdma-core (Debian 13: 56.1)
#   sroce-tools_<v>_<arch>.deb       sroce-dump and sroce-dump(8)
#
# <v> is scripts/version.sh's.  Each package is staged under
# build/deb/stage/<package>/ and built with dpkg-deb --root-owner-group:
# no source package, no debhelper.  The provider comes from the pinned
# tree (scripts/build-provider.sh, so run 'make deps' first).
# Prints the path of each .deb.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
src=${RDMA_CORE_SRC:-$build/rdma-core-56.1}
out=$build/deb
pkgdir=$top/packaging

die() { echo "deb: $*" >&2; exit 1; }

# The first paragraph of the long description of every package.
about=" sroce turns an Ethernet interface into an RDMA device that speaks RoCEv2
 (InfiniBand transport over UDP port 4791), wire-compatible with the
 kernel's rdma_rxe and with hardware RoCEv2 NICs."

for t in dpkg-deb dpkg-shlibdeps dpkg-buildflags objdump strip gzip; do
	command -v $t >/dev/null || die "$t missing (make deps)"
done

version=$("$top/scripts/version.sh")
arch=$(dpkg --print-architecture)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
maintainer=${DEB_MAINTAINER:-$(git -C "$top" log -1 --format='%cn <%ce>' 2>/dev/null || true)}
[[ -n $maintainer ]] || die "no maintainer: set DEB_MAINTAINER='Name <address>'"
# File times and the changelog date: HEAD's commit time, not the
# build's (two builds of one commit in the same directory are the same
# bytes; the provider's build id depends on the directory).
if [[ -z ${SOURCE_DATE_EPOCH:-} ]]; then
	SOURCE_DATE_EPOCH=$(git -C "$top" log -1 --format=%ct 2>/dev/null || date +%s)
fi
export SOURCE_DATE_EPOCH

rm -rf "$out/stage" "$out/tools" "$out/debian"
mkdir -p "$out/stage"
rm -f "$out"/*.deb

# ---- the files every package has ----

# The copyright file: packaging/copyright without its comment lines, and
# the Linux-OpenIB text (LICENSES/, without its SPDX header lines).
copyright() {
	grep -v '^#' "$pkgdir/copyright"
	echo
	echo 'License: Linux-OpenIB'
	sed -n '/^$/,$p' "$top/LICENSES/Linux-OpenIB" | sed '1d; s/^$/./; s/^/ /'
}

# A native package's changelog.gz: one entry, this build.
changelog() {
	local hash
	hash=$(git -C "$top" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
	cat <<EOF
sroce ($version) unstable; urgency=medium

  * Built from commit $hash of the sroce tree.  The history of the
    source is its git log.

 -- $maintainer  $(date -R -u -d "@$SOURCE_DATE_EPOCH")
EOF
}

# stage_doc PKG: /usr/share/doc/PKG/{copyright,changelog.gz}.
stage_doc() {
	local d=$out/stage/$1/usr/share/doc/$1
	mkdir -p "$d"
	copyright >"$d/copyright"
	changelog | gzip -9n >"$d/changelog.gz"
}

# stage_man PKG PAGE: PAGE (roff) as /usr/share/man/man<sec>/<page>.gz.
stage_man() {
	local page=$2 sec
	sec=${page##*.}
	mkdir -p "$out/stage/$1/usr/share/man/man$sec"
	gzip -9n <"$page" >"$out/stage/$1/usr/share/man/man$sec/${page##*/}.gz"
}

# finish PKG: modes, times, md5sums and Installed-Size (control was
# written with @SIZE@), then dpkg-deb.
finish() {
	local pkg=$1 root=$out/stage/$1 size deb
	find "$root" -type d -exec chmod 0755 {} +
	find "$root" -path "$root/DEBIAN" -prune -o -type f -exec chmod go-w {} +
	(cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' |
		LC_ALL=C sort -z | xargs -0r md5sum) >"$root/DEBIAN/md5sums"
	size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
	sed -i "s/@SIZE@/$size/" "$root/DEBIAN/control"
	find "$root" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
	deb=$out/${pkg}_${version}_$(sed -n 's/^Architecture: //p' "$root/DEBIAN/control").deb
	dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
	echo "$deb"
}

# ---- sroce-dkms ----

dkms_pkg() {
	local root=$out/stage/sroce-dkms usrc f
	usrc=$root/usr/src/sroce-$version
	mkdir -p "$usrc/proto" "$usrc/uapi" "$root/DEBIAN"
	# What Kbuild compiles, and Kbuild itself; not kernel/Makefile, which
	# drives our own build tree.
	cp "$top"/kernel/Kbuild "$top"/kernel/*.[ch] "$usrc/"
	cp "$top"/kernel/proto/*.[ch] "$usrc/proto/"
	cp "$top"/kernel/uapi/*.h "$usrc/uapi/"
	sed "s/#MODULE_VERSION#/$version/" "$top/kernel/dkms.conf" >"$usrc/dkms.conf"
	for f in postinst prerm; do
		sed "s/#MODULE_VERSION#/$version/" "$pkgdir/sroce-dkms.$f" >"$root/DEBIAN/$f"
		chmod 0755 "$root/DEBIAN/$f"
	done
	find "$usrc" -type f -exec chmod 0644 {} +
	stage_man sroce-dkms "$top/kernel/sroce.7"
	stage_doc sroce-dkms
	cat >"$root/DEBIAN/control" <<EOF
Package: sroce-dkms
Version: $version
Architecture: all
Maintainer: $maintainer
Installed-Size: @SIZE@
Depends: dkms (>= 2.1.0.0)
Recommends: iproute2
Suggests: libibverbs-sroce, sroce-tools
Section: kernel
Priority: optional
Description: software RoCEv2 RDMA device driver (DKMS source)
$about
 .
 This package builds the kernel module sroce.ko with DKMS for every
 installed kernel that has its headers, and for kernels installed later.
 "rdma link add sroce0 type sroce netdev eth0" creates a device; see
 sroce(7).  User space needs the provider, libibverbs-sroce.
EOF
	finish sroce-dkms
}

# ---- libibverbs-sroce ----

# The highest GLIBC_x.y symbol version FILE needs.
glibc_need() {
	objdump -T "$1" | sed -n 's/.*(GLIBC_\([0-9.]*\)).*/\1/p' | sort -V | tail -n1
}

provider_pkg() {
	local root=$out/stage/libibverbs-sroce cml rcver rcnext pabi so libc
	cml=$src/CMakeLists.txt
	"$top/scripts/build-provider.sh" "$src" >/dev/null
	rcver=$(sed -n 's/^set(PACKAGE_VERSION "\(.*\)")$/\1/p' "$cml")
	pabi=$(sed -n 's/^set(IBVERBS_PABI_VERSION "\([0-9]*\)")$/\1/p' "$cml")
	[[ $rcver =~ ^[0-9]+\.[0-9]+$ && -n $pabi ]] ||
		die "cannot read the rdma-core version and PABI from $cml"
	rcnext=${rcver%.*}.$((${rcver##*.} + 1))
	so=$src/build/lib/libsroce-rdmav$pabi.so
	mkdir -p "$root/usr/lib/$multiarch/libibverbs" "$root/DEBIAN"
	# Stripped as dh_strip strips a shared object.
	strip --remove-section=.comment --remove-section=.note --strip-unneeded \
		-o "$root/usr/lib/$multiarch/libibverbs/${so##*/}" "$so"
	chmod 0644 "$root/usr/lib/$multiarch/libibverbs/${so##*/}"
	# The driver file names the provider (libibverbs looks for it as
	# lib<name>-rdmav<PABI>.so in its own provider directory); the
	# maintainer scripts write and remove it.
	for f in postinst postrm; do
		install -m 0755 "$pkgdir/libibverbs-sroce.$f" "$root/DEBIAN/$f"
	done
	stage_doc libibverbs-sroce
	libc=$(glibc_need "$root/usr/lib/$multiarch/libibverbs/${so##*/}")
	[[ -n $libc ]] || die "no GLIBC symbol version in ${so##*/}"
	# A provider runs inside libibverbs on its private interface
	# (IBVERBS_PRIVATE_<PABI>), which holds only within one rdma-core
	# release: any Debian revision of rcver, nothing else.
	cat >"$root/DEBIAN/control" <<EOF
Package: libibverbs-sroce
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: @SIZE@
Depends: libc6 (>= $libc), libibverbs1 (>= $rcver), libibverbs1 (<< $rcnext~)
Recommends: sroce-dkms (= $version)
Section: libs
Priority: optional
Description: software RoCEv2 RDMA device driver (libibverbs provider)
$about
 .
 This package is the user-space half: the libibverbs provider that lets
 verbs applications (ibv_devinfo, perftest, rdma_cm programs) use sroce
 devices, mostly without system calls on the data path.  It is built
 for rdma-core $rcver exactly; the kernel module is in sroce-dkms.
EOF
	finish libibverbs-sroce
}

# ---- sroce-tools ----

tools_pkg() {
	local root=$out/stage/sroce-tools deps
	mkdir -p "$root/usr/sbin" "$root/DEBIAN"
	# Debian's build flags (hardening included), in the environment so
	# that tools/Makefile's own CPPFLAGS (+=) still apply.
	export DEB_BUILD_MAINT_OPTIONS=hardening=+all
	CFLAGS="$(dpkg-buildflags --get CFLAGS) -Wall -Wextra" \
	CPPFLAGS="$(dpkg-buildflags --get CPPFLAGS)" \
	LDFLAGS="$(dpkg-buildflags --get LDFLAGS)" \
		make -s -C "$top/tools" BUILD="$out" "$out/tools/sroce-dump" >/dev/null
	strip --remove-section=.comment --remove-section=.note \
		-o "$root/usr/sbin/sroce-dump" "$out/tools/sroce-dump"
	chmod 0755 "$root/usr/sbin/sroce-dump"
	stage_man sroce-tools "$top/tools/sroce-dump.8"
	stage_doc sroce-tools
	# dpkg-shlibdeps wants a debian/control and the binary inside
	# debian/<package>/.
	mkdir -p "$out/debian"
	printf 'Source: sroce\n\nPackage: sroce-tools\nArchitecture: any\n' \
		>"$out/debian/control"
	ln -sfn "$root" "$out/debian/sroce-tools"
	deps=$(cd "$out" && dpkg-shlibdeps -O debian/sroce-tools/usr/sbin/sroce-dump)
	deps=${deps#shlibs:Depends=}
	[[ $deps == *libc6* ]] || die "dpkg-shlibdeps found no dependencies"
	cat >"$root/DEBIAN/control" <<EOF
Package: sroce-tools
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: @SIZE@
Depends: $deps
Section: net
Priority: optional
Description: software RoCEv2 RDMA device driver (packet decoder)
$about
 .
 This package holds sroce-dump, which prints RoCEv2 packets one line each,
 live from an interface or from a pcap file, and checks every ICRC with
 the protocol code sroce.ko runs.  It decodes any RoCEv2 sender's traffic
 (sroce, rdma_rxe, hardware NICs) and needs neither the module nor the
 provider.
EOF
	finish sroce-tools
}

dkms_pkg
provider_pkg
tools_pkg
