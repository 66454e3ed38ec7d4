#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make install-host: sroce on this Debian host in one command
# (Documentation/install.rst, "In one command").  Builds the packages
# (scripts/deb.sh) and installs them with apt: sroce-dkms (DKMS builds the
# module for every installed kernel with headers) and sroce-tools, and
#   - where the system's libibverbs1 is the release the provider is built
#     for (Debian 13: 56.1), libibverbs-sroce: the distribution's verbs
#     programs then find sroce as they are;
#   - else (Debian 12: 44.0), rdma-core 56.1's user space with the
#     provider in /opt/sroce (scripts/install-userspace.sh, PREFIX),
#     beside the system's, which stays as it is.
#
#   scripts/install-host.sh            install (again: upgrade)
#   scripts/install-host.sh --remove   remove the packages and the prefix
# Needs root and 'make deps'.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
pkgs=(sroce-dkms sroce-tools libibverbs-sroce)

die() { echo "install-host: $*" >&2; exit 1; }

[[ $(id -u) == 0 ]] || die "needs root (apt, DKMS)"
apt_get() { DEBIAN_FRONTEND=noninteractive apt-get -y -q "$@"; }

if [[ ${1:-} == --remove ]]; then
	rm=()
	for p in "${pkgs[@]}"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep -q 'ok installed' && rm+=("$p")
	done
	((${#rm[@]} == 0)) || apt_get remove "${rm[@]}"
	"$top/scripts/install-userspace.sh" --remove
	echo "install-host: removed ${rm[*]:-no package}"
	exit 0
fi
(($# == 0)) || die "usage: $0 [--remove]"

out=$("$top/scripts/deb.sh") || die "scripts/deb.sh failed"
mapfile -t debs <<<"$out"
deb_of() {
	local d
	for d in "${debs[@]}"; do
		[[ ${d##*/} == "$1"_* ]] && { echo "$d"; return; }
	done
	die "scripts/deb.sh made no $1 package"
}

# The libibverbs1 this host has, or would get from apt.
sys=$(dpkg-query -W -f='${Version}' libibverbs1 2>/dev/null || true)
[[ -n $sys ]] ||
	sys=$(apt-cache policy libibverbs1 2>/dev/null | awk '$1 == "Candidate:" { print $2 }')
[[ $sys == '(none)' ]] && sys=
# Does it satisfy libibverbs-sroce's "libibverbs1 (>= A), libibverbs1 (<< B)"?
prov=$(deb_of libibverbs-sroce)
fits=1 n=0
while read -r op ver; do
	n=$((n + 1))
	[[ -n $sys ]] && dpkg --compare-versions "$sys" "$op" "$ver" || fits=0
done < <(dpkg-deb -f "$prov" Depends | tr ',' '\n' |
	sed -n 's/^ *libibverbs1 (\([<>=]*\) \([^)]*\)).*/\1 \2/p' |
	sed 's/^>=/ge/; s/^<</lt/')

((n)) || die "$prov names no libibverbs1 release"
install=("$(deb_of sroce-dkms)" "$(deb_of sroce-tools)")
((fits)) && install+=("$prov")
apt_get install "${install[@]}"
if ((fits)); then
	"$top/scripts/install-userspace.sh" --remove >/dev/null
	echo "install-host: libibverbs1 $sys takes the provider: the system's verbs programs find sroce"
else
	dpkg-query -W -f='${Status}\n' libibverbs-sroce 2>/dev/null |
		grep -q 'ok installed' && apt_get remove libibverbs-sroce
	"$top/scripts/install-userspace.sh"
	echo "install-host: libibverbs1 ${sys:-(none)} is not the provider's release: rdma-core" \
		"with the provider is in ${PREFIX:-/opt/sroce} (run programs with ${PREFIX:-/opt/sroce}/bin/sroce-env)"
fi
echo "install-host: sroce $("$top/scripts/version.sh") installed; then: rdma link add sroce0 type sroce netdev <netdev>"
