#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-deb (make check's "deb" phase): build the Debian packages
# (scripts/deb.sh) and check them:
#   contents     dpkg-deb -c: the DKMS tree holds dkms.conf and every
#                source Kbuild names; each package its man page, copyright
#                and changelog
#   control      versions, and the provider's strict libibverbs1 range
#   provider     objdump: needs libibverbs.so.1 (IBVERBS_PRIVATE_<PABI>
#                only) and libc (no newer than its Depends), no RUNPATH
#   lintian      no error, no warning
#   apt          the provider is refused next to another libibverbs1
#   dkms         apt installs sroce-dkms on this host: DKMS builds and
#                installs sroce.ko for every kernel in /lib/modules with
#                headers; DKMS's kernel hook builds it again for a kernel
#                (as for one installed later); apt purge leaves no module,
#                no DKMS tree, no source, and any sroce.ko that was there
#                before (make install's) as it was
# Needs root for the dkms part, which is skipped when sroce-dkms is
# already installed (someone's own: not ours to remove).
# Ends with "deb: N passed, M failed[, K skipped]".

# The checks are functions run by expect(), which shellcheck cannot follow.
# shellcheck disable=SC2317
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
CHECKS_NAME=deb
# shellcheck source=scripts/checks.lib
. "$top/scripts/checks.lib"

if ! debs=$("$top/scripts/deb.sh"); then
	bad "scripts/deb.sh"
	finish
fi
ok "scripts/deb.sh built $(echo "$debs" | wc -l) packages"
version=$("$top/scripts/version.sh")
dkms_deb=$(grep '/sroce-dkms_' <<<"$debs")
prov_deb=$(grep '/libibverbs-sroce_' <<<"$debs")
tools_deb=$(grep '/sroce-tools_' <<<"$debs")
[[ -f $dkms_deb && -f $prov_deb && -f $tools_deb ]] || { bad "a package is missing: $debs"; finish; }

# ---- contents ----

# has DEB PATH...: every PATH is a file of DEB.
has() {
	local deb=$1 list p miss=()
	shift
	list=$(dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|')
	for p in "$@"; do
		grep -qxF "$p" <<<"$list" || miss+=("$p")
	done
	((${#miss[@]} == 0)) || { echo "missing from ${deb##*/}: ${miss[*]}"; return 1; }
}

usrc=/usr/src/sroce-$version
# Every object Kbuild names needs its .c in the DKMS tree, and every
# header in the tree.
mapfile -t srcs < <(grep -o '[A-Za-z0-9_/]*\.o\b' "$top/kernel/Kbuild" |
	grep -vx 'sroce\.o' | sed "s|\\.o\$|.c|; s|^|$usrc/|")
mapfile -t hdrs < <(cd "$top/kernel" && printf '%s\n' ./*.h proto/*.h uapi/*.h |
	sed "s|^\\./||; s|^|$usrc/|")
expect "sroce-dkms holds the DKMS tree (${#srcs[@]} sources, ${#hdrs[@]} headers)" \
	has "$dkms_deb" "$usrc/dkms.conf" "$usrc/Kbuild" "${srcs[@]}" "${hdrs[@]}" \
	/usr/share/man/man7/sroce.7.gz /usr/share/doc/sroce-dkms/copyright \
	/usr/share/doc/sroce-dkms/changelog.gz

cml=${RDMA_CORE_SRC:-$build/rdma-core-56.1}/CMakeLists.txt
pabi=$(sed -n 's/^set(IBVERBS_PABI_VERSION "\([0-9]*\)")$/\1/p' "$cml")
rcver=$(sed -n 's/^set(PACKAGE_VERSION "\(.*\)")$/\1/p' "$cml")
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
so=/usr/lib/$ma/libibverbs/libsroce-rdmav$pabi.so
expect "libibverbs-sroce holds the provider" \
	has "$prov_deb" "$so" \
	/usr/share/doc/libibverbs-sroce/copyright /usr/share/doc/libibverbs-sroce/changelog.gz
expect "sroce-tools holds sroce-dump and its man page" \
	has "$tools_deb" /usr/sbin/sroce-dump /usr/share/man/man8/sroce-dump.8.gz \
	/usr/share/doc/sroce-tools/copyright /usr/share/doc/sroce-tools/changelog.gz

# dkms.conf as installed: this version, autoinstall.
conf=$(dpkg-deb --fsys-tarfile "$dkms_deb" | tar -xOf - ".$usrc/dkms.conf")
expect "dkms.conf names version $version" \
	grep -qx "PACKAGE_VERSION=\"$version\"" <<<"$conf"
expect "dkms.conf has AUTOINSTALL=yes" grep -qx 'AUTOINSTALL="yes"' <<<"$conf"

# ---- control ----

field() { dpkg-deb -f "$1" "$2"; }
ctl_ok() {
	local d
	for d in "$dkms_deb" "$prov_deb" "$tools_deb"; do
		[[ $(field "$d" Version) == "$version" ]] ||
			{ echo "${d##*/}: Version $(field "$d" Version)"; return 1; }
	done
	[[ $(field "$dkms_deb" Architecture) == all ]] || { echo "sroce-dkms not Architecture: all"; return 1; }
	field "$dkms_deb" Depends | grep -q '\bdkms\b' || { echo "sroce-dkms does not depend on dkms"; return 1; }
	local dep next
	dep=$(field "$prov_deb" Depends)
	next=${rcver%.*}.$((${rcver##*.} + 1))~
	grep -qF "libibverbs1 (>= $rcver), libibverbs1 (<< $next)" <<<"$dep" ||
		{ echo "libibverbs-sroce Depends: $dep (want libibverbs1 $rcver only)"; return 1; }
	# The driver file: written by postinst, removed by postrm on remove,
	# never a conffile (packaging/libibverbs-sroce.postinst).
	local ctl
	ctl=$(dpkg-deb --ctrl-tarfile "$prov_deb" | tar -tf -)
	! grep -q conffiles <<<"$ctl" || { echo "libibverbs-sroce has conffiles"; return 1; }
	dpkg-deb --ctrl-tarfile "$prov_deb" | tar -xOf - ./postinst |
		grep -q "'driver sroce' >/etc/libibverbs.d/sroce.driver" ||
		{ echo "postinst does not write sroce.driver"; return 1; }
	dpkg-deb --ctrl-tarfile "$prov_deb" | tar -xOf - ./postrm |
		grep -q 'remove|purge)' || { echo "postrm does not remove sroce.driver on remove"; return 1; }
}
expect "control fields (versions, libibverbs1 (>= $rcver) (<< next), the driver file's scripts)" ctl_ok

# ---- the provider's dynamic dependencies ----

tmp=$(mktemp -d)
cleanup() { rm -rf "$tmp"; }
trap cleanup EXIT
prov_ok() {
	local f=$tmp/prov$so needed vers glibc want
	dpkg-deb -x "$prov_deb" "$tmp/prov" || return 1
	needed=$(objdump -p "$f" | awk '$1 == "NEEDED" {print $2}' | sort | tr '\n' ' ')
	[[ $needed == "libc.so.6 libibverbs.so.1 " ]] || { echo "NEEDED: $needed"; return 1; }
	! objdump -p "$f" | grep -qE '^ *(RPATH|RUNPATH) ' || { echo "has an RPATH/RUNPATH"; return 1; }
	# The versions it needs from libibverbs: the private ABI (and the
	# public IBVERBS_1.x, which every release keeps).
	vers=$(objdump -T "$f" | sed -n 's/.*\*UND\*.*(\(IBVERBS[^)]*\)).*/\1/p' | sort -u)
	[[ -n $vers ]] || { echo "no IBVERBS symbol versions needed"; return 1; }
	if grep -vxE "IBVERBS_PRIVATE_$pabi|IBVERBS_1\.[0-9]+" <<<"$vers"; then
		echo "needs the libibverbs versions above"; return 1
	fi
	grep -qx "IBVERBS_PRIVATE_$pabi" <<<"$vers" || { echo "no IBVERBS_PRIVATE_$pabi"; return 1; }
	glibc=$(objdump -T "$f" | sed -n 's/.*(GLIBC_\([0-9.]*\)).*/\1/p' | sort -V | tail -n1)
	want=$(field "$prov_deb" Depends | sed -n 's/.*libc6 (>= \([0-9.]*\)).*/\1/p')
	dpkg --compare-versions "$glibc" le "$want" ||
		{ echo "needs GLIBC_$glibc, Depends libc6 (>= $want)"; return 1; }
	echo "NEEDED $needed; $vers; GLIBC_$glibc <= libc6 $want"
}
expect "provider: libibverbs IBVERBS_PRIVATE_$pabi and libc only, no RUNPATH" prov_ok

# ---- lintian ----

lint_ok() {
	local o
	o=$(lintian --tag-display-limit 0 "$dkms_deb" "$prov_deb" "$tools_deb" 2>&1 |
		grep -v '^running with root privileges')
	echo "$o"
	! grep -qE '^[EW]: ' <<<"$o"
}
if command -v lintian >/dev/null; then
	expect "lintian: no error, no warning" lint_ok
else
	bad "lintian missing (make deps)"
fi

# ---- apt ----

# Next to a libibverbs1 of another release (Debian 12's 44.0), apt must
# refuse the provider rather than install one that cannot work.
sysver=$(dpkg-query -W -f='${Version}' libibverbs1 2>/dev/null)
if [[ -n $sysver ]] && ! dpkg --compare-versions "${sysver%-*}" eq "$rcver"; then
	refused() { ! apt-get install -s --no-install-recommends "$1" 2>&1; }
	expect "apt refuses libibverbs-sroce next to libibverbs1 $sysver" \
		refused "$prov_deb"
else
	skip "apt refusal: the system libibverbs1 is ${sysver:-absent}"
fi

# ---- dkms ----

if [[ $(id -u) != 0 ]] || ! command -v dkms >/dev/null; then
	skip "dkms install: needs root and dkms"
	finish
fi
if dpkg-query -W -f='${Status}' sroce-dkms 2>/dev/null | grep -q 'ok installed'; then
	skip "dkms install: sroce-dkms is already installed on this host"
	finish
fi
# sroce.ko files already there ('make install', the debug kernel's tree):
# DKMS on Debian leaves them alone, and so must the purge.  Kernel
# directories may be links (the debug kernel's); build/ and source/ are
# the headers.
sroce_kos() {
	local d
	for d in /lib/modules/*/; do
		find "$d" \( -path "${d}build" -o -path "${d}source" \) -prune -o \
			-name 'sroce.ko*' -print
	done | sort | xargs -r md5sum
}
pre=$(sroce_kos)

kernels=()
for d in /lib/modules/*/; do
	k=$(basename "$d")
	[[ -e $d/build/include ]] && kernels+=("$k")
done
if ((${#kernels[@]} == 0)); then
	skip "dkms install: no kernel headers in /lib/modules"
	finish
fi

apt_q() {
	DEBIAN_FRONTEND=noninteractive nice -n 19 apt-get -y -q \
		--no-install-recommends "$@" >"$tmp/apt.log" 2>&1 ||
		{ tail -n 30 "$tmp/apt.log"; return 1; }
}
purge() { dpkg-query -W sroce-dkms >/dev/null 2>&1 && apt_q remove --purge sroce-dkms; }
trap 'purge; cleanup' EXIT

start=$SECONDS
expect "apt install ./${dkms_deb##*/}" apt_q install "$dkms_deb"
echo "  ($((SECONDS - start)) s)"

# DKMS says installed, and its file is there, built for that kernel.
installed_for() {
	local k=$1 f
	dkms status -m sroce -v "$version" -k "$k" 2>/dev/null | grep -q ': installed' ||
		{ dkms status -m sroce; return 1; }
	f=$(compgen -G "/lib/modules/$k/updates/dkms/sroce.ko*" | head -n1)
	[[ -n $f ]] || { echo "no /lib/modules/$k/updates/dkms/sroce.ko*"; return 1; }
	[[ $(modinfo -F vermagic "$f") == "$k "* ]] || { echo "vermagic of $f"; return 1; }
}
for k in "${kernels[@]}"; do
	expect "dkms: sroce/$version installed for $k" installed_for "$k"
done
dkms status -m sroce 2>/dev/null | sed 's/^/  /'

# A kernel installed later: its postinst hook runs DKMS's autoinstall.
k=${kernels[0]}
hook_ok() {
	dkms remove -m sroce -v "$version" -k "$k" >/dev/null 2>&1 || return 1
	! dkms status -m sroce -v "$version" -k "$k" | grep -q installed || return 1
	nice -n 19 /etc/kernel/postinst.d/dkms "$k" >/dev/null 2>&1
	installed_for "$k"
}
start=$SECONDS
expect "DKMS's kernel hook builds and installs it for $k" hook_ok
echo "  ($((SECONDS - start)) s)"

start=$SECONDS
expect "apt remove --purge sroce-dkms" apt_q remove --purge sroce-dkms
echo "  ($((SECONDS - start)) s)"
gone_ok() {
	local left now
	left=$(ls -d /usr/src/sroce-* /var/lib/dkms/sroce 2>/dev/null
	       dkms status -m sroce 2>/dev/null)
	[[ -z $left ]] || { echo "left: $left"; return 1; }
	now=$(sroce_kos)
	[[ $now == "$pre" ]] || { echo "sroce.ko files before: $pre"; echo "after: $now"; return 1; }
	for k in "${kernels[@]}"; do
		grep -q "/lib/modules/$k/" <<<"$pre" && continue
		! modinfo -k "$k" sroce >/dev/null 2>&1 || { echo "modinfo still finds sroce for $k"; return 1; }
	done
}
expect "nothing left: no module, no DKMS tree, no source" gone_ok
finish
