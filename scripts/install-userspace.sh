#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make install-userspace / uninstall-userspace: the pinned rdma-core's
# user space (libibverbs, librdmacm, every provider, ours included, and
# their programs) in a private prefix, for hosts whose own libibverbs is
# another release (Debian 12: 44.0).  Documentation/install.rst, "Debian
# 12".
#
#   scripts/install-userspace.sh             build and install in PREFIX
#   scripts/install-userspace.sh --remove    remove PREFIX
#   PREFIX (default /opt/sroce), DESTDIR (stage under another root),
#   RDMA_CORE_SRC (default build/rdma-core-56.1), NINJA_JOBS (2).
#
# Everything lands under PREFIX, the configuration too (PREFIX/etc): the
# system's libibverbs, its providers and its /etc/libibverbs.d are never
# touched, and nothing is added to the loader's path.  The programs in
# PREFIX/bin find PREFIX/lib by their RUNPATH; PREFIX/bin/sroce-env runs
# any other program (perftest, Debian's ibv_rc_pingpong) on it.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
src=${RDMA_CORE_SRC:-$top/build/rdma-core-56.1}
prefix=${PREFIX:-/opt/sroce}
destdir=${DESTDIR:-}
jobs=${NINJA_JOBS:-2}

die() { echo "install-userspace: $*" >&2; exit 1; }

[[ $prefix == /?* && $prefix != *[[:space:]]* ]] || die "PREFIX must be an absolute path"
prefix=${prefix%/}
case $prefix in
/ | /usr | /usr/local | /etc | /lib* | /usr/lib*)
	die "PREFIX=$prefix would mix with the system's files; use a directory of its own" ;;
esac

if [[ ${1:-} == --remove ]]; then
	# Only a tree this script installed: it leaves a marker.
	if [[ -d $destdir$prefix ]]; then
		[[ -f $destdir$prefix/.sroce-userspace ]] ||
			die "$destdir$prefix was not installed by this script; not removing it"
		rm -rf "$destdir$prefix"
		echo "install-userspace: removed $destdir$prefix"
	fi
	exit 0
fi
(($# == 0)) || die "usage: $0 [--remove]"
# A tree of someone else's is never replaced.
if [[ -e $destdir$prefix && ! -f $destdir$prefix/.sroce-userspace ]]; then
	die "$destdir$prefix exists and was not installed by this script"
fi

# Graft and build the in-place tree first: the graft is what we install.
"$top/scripts/build-provider.sh" "$src" >/dev/null
cml=$src/CMakeLists.txt
pabi=$(sed -n 's/^set(IBVERBS_PABI_VERSION "\([0-9]*\)")$/\1/p' "$cml")
rcver=$(sed -n 's/^set(PACKAGE_VERSION "\(.*\)")$/\1/p' "$cml")

# A second build directory of the same tree, configured for PREFIX (the
# in-place build has its own paths compiled in).
bdir=$src/build-userspace
if [[ -f $bdir/CMakeCache.txt ]] &&
   ! grep -qx "CMAKE_INSTALL_PREFIX:PATH=$prefix" "$bdir/CMakeCache.txt"; then
	rm -rf "$bdir"
fi
mkdir -p "$bdir"
if [[ ! -f $bdir/build.ninja ]]; then
	(cd "$bdir" && cmake -GNinja -DNO_PYVERBS=1 -DNO_MAN_PAGES=1 \
		-DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DCMAKE_INSTALL_PREFIX="$prefix" \
		-DCMAKE_INSTALL_SYSCONFDIR="$prefix/etc" \
		-DCMAKE_INSTALL_SYSTEMD_BINDIR="$prefix/lib/systemd" \
		-DCMAKE_INSTALL_RUNDIR=/run \
		-DCMAKE_INSTALL_RPATH="$prefix/lib" ..) >"$bdir/sroce-cmake.log" 2>&1 ||
		{ tail -n 30 "$bdir/sroce-cmake.log" >&2; die "cmake failed (log: $bdir/sroce-cmake.log)"; }
fi
ninja -C "$bdir" -j "$jobs" >"$bdir/sroce-ninja.log" 2>&1 ||
	{ grep -v '^\[' "$bdir/sroce-ninja.log" | tail -n 40 >&2; die "ninja failed (log: $bdir/sroce-ninja.log)"; }

# Install into a stage, refuse anything outside PREFIX, then move it in.
stage=$bdir/stage
rm -rf "$stage"
DESTDIR=$stage ninja -C "$bdir" install >"$bdir/sroce-install.log" 2>&1 ||
	{ tail -n 20 "$bdir/sroce-install.log" >&2; die "ninja install failed"; }
outside=$(cd "$stage" && find . -mindepth 1 \( -type f -o -type l \) ! -path ".$prefix/*")
[[ -z $outside ]] || die "rdma-core installed files outside $prefix: $outside"
[[ -f $stage$prefix/lib/libibverbs/libsroce-rdmav$pabi.so &&
   -f $stage$prefix/etc/libibverbs.d/sroce.driver ]] ||
	die "the sroce provider or its driver file is not in the install"

cat >"$stage$prefix/bin/sroce-env" <<EOF
#!/bin/sh
# sroce-env COMMAND [ARG...]: run COMMAND on rdma-core $rcver in $prefix
# (libibverbs, librdmacm and the providers, sroce's included) instead of
# the system's.  Installed by sroce's scripts/install-userspace.sh.
[ \$# -gt 0 ] || { echo "usage: sroce-env COMMAND [ARG...]" >&2; exit 2; }
LD_LIBRARY_PATH=$prefix/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH
exec "\$@"
EOF
chmod 0755 "$stage$prefix/bin/sroce-env"
echo "rdma-core $rcver with the sroce provider, by sroce's scripts/install-userspace.sh" \
	>"$stage$prefix/.sroce-userspace"

rm -rf "$destdir$prefix"
mkdir -p "$(dirname "$destdir$prefix")"
cp -a "$stage$prefix" "$destdir$prefix"
rm -rf "$stage"
echo "install-userspace: rdma-core $rcver in $destdir$prefix"
echo "  $prefix/bin/ibv_devinfo        its own programs"
echo "  $prefix/bin/sroce-env CMD ...  any other verbs program on it"
