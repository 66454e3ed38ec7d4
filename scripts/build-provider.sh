#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Graft provider/ into an rdma-core source tree as providers/sroce and build
# that tree in place (libibverbs, librdmacm, every provider, ours included).
#
#   scripts/build-provider.sh [RDMA_CORE_SRC]     default build/rdma-core-56.1
#   scripts/build-provider.sh --install RDMA_CORE_SRC
#       build, then install the provider for the system's libibverbs, which
#       must be the same rdma-core version as RDMA_CORE_SRC (DESTDIR honoured)
#
# The graft is a copy: provider/*, plus kernel/uapi/sroce-abi.h, which exists
# once in this repository and is shared with the kernel module.  Files are
# only rewritten when their content changed, so ninja rebuilds nothing when
# nothing changed.  Edit provider/, never the graft.
#
# Output: <src>/build/lib/libsroce-rdmav<PABI>.so and
#         <src>/build/etc/libibverbs.d/sroce.driver, plus two test helpers
#         in $BUILD/provider (see tests/vm/provider).
# Environment: NINJA_JOBS (default 2), CMAKE_EXTRA (extra cmake arguments).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
install=
if [[ ${1:-} == --install ]]; then
	install=1
	shift
fi
src=${1:-${RDMA_CORE_SRC:-$top/build/rdma-core-56.1}}
jobs=${NINJA_JOBS:-2}

die() { echo "build-provider: $*" >&2; exit 1; }

[[ -f $src/CMakeLists.txt && -d $src/libibverbs && -d $src/providers ]] ||
	die "$src is not an rdma-core source tree (run 'make deps' or set RDMA_CORE_SRC)"
src=$(cd "$src" && pwd)
command -v cmake >/dev/null || die "cmake missing (make deps)"
command -v ninja >/dev/null || die "ninja missing (make deps)"

graft=$src/providers/sroce
stamp=$graft/.sroce-graft

# A providers/sroce we did not create is the user's: leave it alone.
if [[ -e $graft && ! -e $stamp ]]; then
	die "$graft exists and was not created by this script; move it away"
fi
mkdir -p "$graft"
echo "grafted from $top by scripts/build-provider.sh; edits here are overwritten" >"$stamp.tmp"
mv -f "$stamp.tmp" "$stamp"

# Copy $1 to $2 only if the content differs: keeps mtimes, keeps ninja idle.
sync_file() {
	cmp -s "$1" "$2" 2>/dev/null || cp -f "$1" "$2"
}

want=()
for f in "$top"/provider/*; do
	[[ -f $f ]] || continue
	sync_file "$f" "$graft/${f##*/}"
	want+=("${f##*/}")
done
sync_file "$top/kernel/uapi/sroce-abi.h" "$graft/sroce-abi.h"
want+=(sroce-abi.h)

# Drop files removed from provider/ since the last graft.
for f in "$graft"/*; do
	[[ -f $f ]] || continue
	keep=
	for w in "${want[@]}"; do
		[[ ${f##*/} == "$w" ]] && keep=1 && break
	done
	[[ -n $keep ]] || rm -f "$f"
done

# Register the provider next to the others, once.
cml=$src/CMakeLists.txt
if ! grep -qx 'add_subdirectory(providers/sroce)' "$cml"; then
	last=$(grep -n '^add_subdirectory(providers/' "$cml" | tail -n1 | cut -d: -f1)
	[[ -n $last ]] || die "no add_subdirectory(providers/...) line in $cml"
	sed -i "${last}a add_subdirectory(providers/sroce)" "$cml"
	echo "build-provider: registered providers/sroce in $cml"
fi

pabi=$(sed -n 's/^set(IBVERBS_PABI_VERSION "\([0-9]*\)")$/\1/p' "$cml")
[[ -n $pabi ]] || die "cannot read IBVERBS_PABI_VERSION from $cml"

bdir=$src/build
mkdir -p "$bdir"
if [[ ! -f $bdir/build.ninja ]]; then
	# shellcheck disable=SC2086
	(cd "$bdir" && cmake -GNinja -DIN_PLACE=1 -DNO_PYVERBS=1 -DNO_MAN_PAGES=1 \
		${CMAKE_EXTRA:-} ..) >"$bdir/sroce-cmake.log" 2>&1 ||
		{ tail -n 30 "$bdir/sroce-cmake.log" >&2; die "cmake failed (log: $bdir/sroce-cmake.log)"; }
fi
# An existing build re-runs cmake by itself when CMakeLists.txt changed.
log=$bdir/sroce-ninja.log
if ! ninja -C "$bdir" -j "$jobs" >"$log" 2>&1; then
	grep -v '^\[' "$log" | tail -n 40 >&2
	die "ninja failed in $bdir (log: $log)"
fi
tail -n 1 "$log"

so=$bdir/lib/libsroce-rdmav$pabi.so
drv=$bdir/etc/libibverbs.d/sroce.driver
[[ -f $so ]] || die "$so was not built"
[[ -f $drv ]] || die "$drv was not written"

# Test helpers for tests/vm/provider, built against this tree: the probe
# that names the provider which claimed each device, and the shim that
# hides RDMA netlink.  Rebuilt when their source, the tree or libsroce change.
out=${BUILD:-$top/build}/provider
tsrc=$top/tests/vm/provider
mkdir -p "$out"
# vm-verbs.h: the helpers both sets of test programs include; vm-check.h
# the provider programs' CHECK().
vhdr=$top/tests/vm/verbs/vm-verbs.h
chdr=$tsrc/vm-check.h
stale() {
	[[ ! $out/$1 -nt $tsrc/$2 || ! $out/$1 -nt $so || ! $out/$1 -nt $vhdr ||
	   ! $out/$1 -nt $chdr || $(cat "$out/$1.src" 2>/dev/null) != "$src" ]]
}
cc=${CC:-gcc}
if stale ibv_provider ibv_provider.c; then
	$cc -O2 -Wall -Werror -I"$bdir/include" -o "$out/ibv_provider" \
		"$tsrc/ibv_provider.c" -L"$bdir/lib" -Wl,-rpath,"$bdir/lib" \
		-libverbs || die "cannot build $out/ibv_provider"
	echo "$src" >"$out/ibv_provider.src"
fi
for p in objects fastpath srq mw rereg keys cqts domains mcast odp; do
	stale $p $p.c || continue
	$cc -O2 -g -Wall -Wextra -Werror -I"$bdir/include" -o "$out/$p" \
		"$tsrc/$p.c" -L"$bdir/lib" -Wl,-rpath,"$bdir/lib" -libverbs ||
		die "cannot build $out/$p"
	echo "$src" >"$out/$p.src"
done
if stale no_rdma_netlink.so no_rdma_netlink.c; then
	$cc -O2 -Wall -Werror -shared -fPIC -o "$out/no_rdma_netlink.so" \
		"$tsrc/no_rdma_netlink.c" -ldl || die "cannot build $out/no_rdma_netlink.so"
	echo "$src" >"$out/no_rdma_netlink.so.src"
fi
# The data-path test programs (tests/vm/verbs, run by tests/vm/datapath),
# against the same tree, in $BUILD/verbs.
vout=${BUILD:-$top/build}/verbs
vsrc=$top/tests/vm/verbs
mkdir -p "$vout"
for f in "$vsrc"/*.c; do
	[[ -f $f ]] || continue
	p=$(basename "$f" .c)
	if [[ ! $vout/$p -nt $f || ! $vout/$p -nt $so || ! $vout/$p -nt $vhdr ||
	      $(cat "$vout/$p.src" 2>/dev/null) != "$src" ]]; then
		$cc -O2 -Wall -Werror -I"$bdir/include" -o "$vout/$p" "$f" \
			-L"$bdir/lib" -Wl,-rpath,"$bdir/lib" -libverbs ||
			die "cannot build $vout/$p"
		echo "$src" >"$vout/$p.src"
	fi
done
echo "build-provider: ok: $so"
[[ -n $install ]] || exit 0

# Install for the system's libibverbs.  A provider only works inside the
# libibverbs version it was built with: compare the tree's version with the
# one in the system library's file name (libibverbs.so.1.<abi>.<version>).
sys=$(ldconfig -p | sed -n 's/^[[:space:]]*libibverbs\.so\.1 (.*x86-64.*) => //p' | head -n1)
[[ -z $sys ]] && sys=$(ldconfig -p | sed -n 's/^[[:space:]]*libibverbs\.so\.1 (.*) => //p' | head -n1)
[[ -n $sys ]] || die "no system libibverbs.so.1 (install libibverbs1 / libibverbs)"
real=$(readlink -f "$sys")
sysver=${real##*/libibverbs.so.1.}
sysver=${sysver#*.}
treever=$(sed -n 's/^set(PACKAGE_VERSION "\(.*\)")$/\1/p' "$cml")
[[ $sysver == "$treever" ]] ||
	die "system libibverbs is rdma-core $sysver ($real), $src is $treever: build against a $sysver tree"
provdir=$(dirname "$real")/libibverbs
confdir=/etc/libibverbs.d
compgen -G "$provdir/lib*-rdmav$pabi.so" >/dev/null ||
	die "no lib*-rdmav$pabi.so providers in $provdir: is this the provider directory?"
install -D -m 0644 "$so" "${DESTDIR:-}$provdir/libsroce-rdmav$pabi.so"
mkdir -p "${DESTDIR:-}$confdir"
echo "driver sroce" >"${DESTDIR:-}$confdir/sroce.driver"
echo "build-provider: installed ${DESTDIR:-}$provdir/libsroce-rdmav$pabi.so and ${DESTDIR:-}$confdir/sroce.driver"
