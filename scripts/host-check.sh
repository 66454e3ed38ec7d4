#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-host: sroce on a Debian 13 host as a user has one.  A root
# made with debootstrap (scripts/kroot.sh root trixie-host, kept under
# SROCE_ROOTS) holds the distribution's kernel, rdma-core, ibverbs-utils,
# perftest and rdmacm-utils.  In it, as a user would:
#   install      apt install ./sroce-dkms*.deb ./libibverbs-sroce*.deb
#                ./sroce-tools*.deb (scripts/deb.sh): DKMS builds sroce.ko
#                for the root's kernel then and there
#   later        the 7.3 backports kernel installed after the packages:
#                DKMS's kernel hook builds sroce.ko for it
#   boot         two guests on that root (tools/sroce-vm --root), on the
#                distribution's kernel and on 7.3: tests/vm/host/distro.sh
#                loads DKMS's module and runs the distribution's
#                ibv_devinfo, ibv_rc_pingpong, ib_write_bw and rping with
#                no LD_LIBRARY_PATH
#   remove       apt remove of the three packages leaves no module, no
#                provider or driver file, no DKMS tree, no source; the
#                7.3 kernel is removed again, so the next run installs it
#                after the packages once more
# Needs root.  Ends with "host: N passed, M failed".

# The checks are functions run by expect(), which shellcheck cannot follow.
# shellcheck disable=SC2317,SC2016
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
export SROCE_ROOTS=${SROCE_ROOTS:-/var/cache/sroce/roots}
kroot=$top/scripts/kroot.sh
pkgs=(sroce-dkms libibverbs-sroce sroce-tools)
CHECKS_NAME=host
# shellcheck source=scripts/checks.lib
. "$top/scripts/checks.lib"

[[ $(id -u) == 0 ]] || { bad "needs root (chroot, apt in the root)"; finish; }
mkdir -p "$build/deb"

# The host as Debian 13 installs it, plus what the guests' own scripts
# run (tools/vm/guest, tests/vm/lib.sh).
start=$SECONDS
root=$("$kroot" root trixie-host linux-image-amd64 linux-headers-amd64 dkms \
	rdma-core ibverbs-utils ibverbs-providers perftest rdmacm-utils \
	iproute2 iputils-ping kmod procps) || { bad "the trixie-host root"; finish; }
ok "root $root ($((SECONDS - start)) s)"

# in_root CMD...: CMD in the root with /proc and build/deb at their paths.
in_root() { "$kroot" run trixie-host "$build/deb" -- "$@"; }
apt_q() {
	in_root env DEBIAN_FRONTEND=noninteractive apt-get -y -q \
		--no-install-recommends "$@" >"$build/host-apt.log" 2>&1 ||
		{ tail -n 30 "$build/host-apt.log"; return 1; }
}
installed() { in_root dpkg-query -W -f='${Status}\n' "$1" 2>/dev/null | grep -q 'ok installed'; }

# The release of trixie-backports' kernel: what its linux-image-amd64
# depends on.  Installed and removed by name, so that the root's own
# kernel (trixie's, by the metapackages) stays.
late=$(in_root apt-cache madison linux-image-amd64 |
	awk -F' *[|] *' '$3 ~ /trixie-backports/ { print $2; exit }')
late=$(in_root apt-cache show "linux-image-amd64=$late" 2>/dev/null |
	sed -n 's/^Depends: //p' | tr ',' '\n' |
	sed -n 's/^ *linux-image-\([0-9][^ ]*\) .*/\1/p' | head -n 1)
[[ $late == 7.3.* ]] || { bad "no 7.3 kernel in trixie-backports (found '$late')"; finish; }
drop_late() {
	installed "linux-image-$late" || installed "linux-headers-$late" || return 0
	apt_q remove --purge "linux-image-$late" "linux-headers-$late" &&
		apt_q autoremove --purge
}

# A run that stopped half-way left its packages: take them out first.
for p in "${pkgs[@]}"; do
	installed "$p" && apt_q remove "$p"
done
drop_late || { bad "removing a 7.3 kernel left from an earlier run"; finish; }

# The packages of this commit: make check's deb phase has just built
# them; a tree with changes gets them built afresh.
version=$("$top/scripts/version.sh")
debs=()
if [[ $version != *+dirty ]]; then
	for p in "${pkgs[@]}"; do
		f=$(compgen -G "$build/deb/${p}_${version}_*.deb" | head -n 1) || break
		debs+=("$f")
	done
fi
if ((${#debs[@]} != ${#pkgs[@]})); then
	if ! out=$("$top/scripts/deb.sh"); then
		bad "scripts/deb.sh"
		finish
	fi
	mapfile -t debs <<<"$out"
fi

# ---- install ----

start=$SECONDS
expect "apt install ./${debs[*]##*/}" apt_q install "${debs[@]}"
echo "  ($((SECONDS - start)) s)"
kernels=()
for d in "$root"/lib/modules/*/; do
	[[ -e $d/build/include ]] && kernels+=("$(basename "$d")")
done
built_for() {
	local k=$1 f
	f=$(compgen -G "$root/lib/modules/$k/updates/dkms/sroce.ko*" | head -n 1)
	[[ -n $f ]] || { in_root dkms status -m sroce; return 1; }
	[[ $(modinfo -F vermagic "$f") == "$k "* ]] || { echo "vermagic of $f"; return 1; }
}
((${#kernels[@]})) || bad "no kernel with headers in $root"
for k in "${kernels[@]}"; do
	expect "DKMS built sroce/$version for $k at install" built_for "$k"
done
prov_ok() {
	compgen -G "$root/usr/lib/x86_64-linux-gnu/libibverbs/libsroce-rdmav*.so" >/dev/null ||
		{ echo "no provider library"; return 1; }
	[[ $(<"$root/etc/libibverbs.d/sroce.driver") == 'driver sroce' ]] ||
		{ echo "no driver file"; return 1; }
}
expect "the provider and its driver file are in place" prov_ok
echo "  dkms status:"
in_root dkms status 2>&1 | sed 's/^/    /'

# ---- a kernel installed later ----

start=$SECONDS
if apt_q install -t trixie-backports "linux-image-$late" "linux-headers-$late"; then
	ok "the 7.3 kernel $late installed after the packages ($((SECONDS - start)) s)"
	expect "DKMS's kernel hook built sroce/$version for $late" built_for "$late"
	echo "  dkms status:"
	in_root dkms status 2>&1 | sed 's/^/    /'
else
	bad "installing the 7.3 backports kernel $late"
	late=
fi

# ---- boot ----

boot() {
	local k=$1 log line p f
	log=$(mktemp)
	SROCE_VM_GROUPS=host "$top/tests/vm/run-all.sh" "$k" 2>&1 | tee "$log" |
		sed -u '/^vm: [0-9]* passed, [0-9]* failed$/d'
	line=$(grep -E '^vm: [0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)
	rm -f "$log"
	read -r _ p _ f _ <<<"${line:-vm: 0 passed 1 failed}"
	passed=$((passed + p)) failed=$((failed + f))
}
boot 6.12
[[ -n $late ]] && boot "$late"

# ---- remove ----

start=$SECONDS
expect "apt remove ${pkgs[*]}" apt_q remove "${pkgs[@]}"
echo "  ($((SECONDS - start)) s)"
left_list() {
	cd "$root" && {
		find lib/modules \( -name build -o -name source \) -prune -o \
			-name 'sroce.ko*' -print
		ls -d usr/src/sroce-* var/lib/dkms/sroce etc/libibverbs.d/sroce.driver \
			usr/lib/*/libibverbs/libsroce-* usr/sbin/sroce-dump 2>/dev/null
	}
}
gone_ok() {
	local left
	left=$(left_list)
	[[ -z $left ]] || { echo "left behind: $left"; return 1; }
}
expect "nothing left: no module, no provider or driver file, no DKMS tree, no source" gone_ok
echo "  left behind: $(left_list | xargs)"
[[ -n $late ]] && expect "the 7.3 kernel removed again" drop_late
finish
