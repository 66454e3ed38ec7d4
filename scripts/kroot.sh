#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kroot.sh: a Debian root of another release under /var/cache/sroce/roots
# (SROCE_ROOTS), for
# building sroce.ko against a kernel whose headers need that release's
# compiler and C library (5.10: bullseye's gcc 10; 7.3: trixie's gcc 14).
#
#   scripts/kroot.sh root DIST [PKG...]   make (or reuse) the root, install
#                                         the PKGs missing from it; prints it
#                                         (trixie-host: a Debian 13 host for
#                                         scripts/host-check.sh)
#   scripts/kroot.sh headers K            the root of kernel K (5.10, 7.3:
#                                         see scripts/kver.sh) with its
#                                         newest headers; prints the release
#   scripts/kroot.sh guest K              also K's image and modules for the
#                                         test guests, as /lib/modules/REL
#                                         (image: REL/vmlinuz); prints REL
#   scripts/kroot.sh run DIST DIR... -- CMD...
#                                         run CMD in the root, each DIR
#                                         bind-mounted at its own path
#
# Idempotent and cached: a root that is complete (its .done stamp) is not
# made again, a package already installed is not fetched again, and a
# kernel present (headers, or a guest kernel's stamp) is kept, even when
# the archive has a newer one: remove the root to move on.  A root takes
# about two minutes to make and 30 s more for the headers, once.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${SROCE_BUILD:-$top/build}
# Outside the checkout: every clone (CI starts from a fresh one) shares
# the roots, which take minutes to make and never depend on our sources.
roots=${SROCE_ROOTS:-/var/cache/sroce/roots}

die() { echo "kroot: $*" >&2; exit 1; }

# The suites each root's apt sees.
suites() {
	case $1 in
	bullseye) echo bullseye ;;
	trixie | trixie-host) echo trixie trixie-backports ;;
	*) die "unknown root '$1' (bullseye, trixie, trixie-host)" ;;
	esac
}

# The mirror of the system's own apt configuration, as scripts/deps.sh,
# unless SROCE_KROOT_MIRROR names one.
mirror() {
	local m=${SROCE_KROOT_MIRROR:-}
	[[ -z $m ]] || { echo "${m%/}"; return; }
	m=$(apt-get indextargets --format '$(REPO_URI)' 'Identifier: Packages' 2>/dev/null |
	    grep -v -- -security | head -n1)
	m=${m%/}
	[[ -n $m ]] || die "cannot find a Debian mirror in apt's sources"
	echo "$m"
}

in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C "$@"; }

make_root() {
	local dist=$1 m s t0=$SECONDS
	m=$(mirror)
	command -v debootstrap >/dev/null || die "debootstrap missing: apt-get install debootstrap"
	echo "kroot: creating $root from $m (minutes, once)" >&2
	rm -rf "$root.tmp"
	debootstrap --variant=minbase --include=make,gcc,libc6-dev \
		"${dist%-host}" "$root.tmp" "$m" >"$roots/$dist.log" 2>&1 ||
		die "debootstrap failed (see $roots/$dist.log)"
	: >"$root.tmp/etc/apt/sources.list"
	for s in $(suites "$dist"); do
		echo "deb $m $s main" >>"$root.tmp/etc/apt/sources.list"
	done
	# No daemon may start inside the root.
	printf '#!/bin/sh\nexit 101\n' >"$root.tmp/usr/sbin/policy-rc.d"
	chmod 755 "$root.tmp/usr/sbin/policy-rc.d"
	rm -rf "$root"
	mv "$root.tmp" "$root"
	in_root apt-get -qq update
	touch "$root/.done"
	echo "kroot: $root made in $((SECONDS - t0)) s" >&2
}

cmd_root() {
	local dist=${1:?usage: kroot.sh root DIST [PKG...]} need=() p lock
	shift
	suites "$dist" >/dev/null
	root=$roots/$dist
	mkdir -p "$roots"
	# One lock per root, taken once per process (a second flock on a
	# new descriptor would wait for the first).
	if [[ ${locked:-} != *" $dist "* ]]; then
		exec {lock}>"$roots/.$dist.lock"
		flock "$lock"
		locked="${locked:- }$dist "
	fi
	[[ -f $root/.done ]] || make_root "$dist"
	for p in "$@"; do
		in_root dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep -q '^install ok installed$' || need+=("$p")
	done
	if ((${#need[@]})); then
		echo "kroot: installing ${need[*]} in $root" >&2
		in_root apt-get -qq update
		in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
			--no-install-recommends "${need[@]}" >"$roots/$dist.log" 2>&1 ||
			die "apt-get install failed in $root (see $roots/$dist.log)"
	fi
	echo "$root"
}

# Run CMD in the root with each DIR (absolute) bind-mounted at its own path,
# so that paths (and the module build's symlink farm) mean the same inside.
# The mounts live in a private mount namespace and vanish with it.
cmd_run() {
	local dist=${1:?usage: kroot.sh run DIST DIR... -- CMD...} dirs=() d
	shift
	root=$roots/$dist
	[[ -f $root/.done ]] || die "no root $root (kroot.sh root $dist)"
	while (($#)) && [[ $1 != -- ]]; do
		[[ $1 == /* && -d $1 ]] || die "run: $1 is not an absolute directory"
		dirs+=("$1")
		shift
	done
	(($# > 1)) || die "usage: kroot.sh run DIST DIR... -- CMD..."
	shift
	for d in "${dirs[@]}"; do
		mkdir -p "$root$d"
	done
	# The script is passed as an argument: no quoting of paths in it.
	unshare --mount --propagation private bash -c '
		root=$1 n=$2
		shift 2
		for ((i = 0; i < n; i++)); do
			mount --bind "$1" "$root$1"
			shift
		done
		mount -t proc proc "$root/proc"
		exec chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			LC_ALL=C HOME=/root "$@"' \
		kroot "$root" "${#dirs[@]}" "${dirs[@]}" "$@"
}

# The release of K's headers in its root, installing the newest the
# archive has if there are none.
cmd_headers() {
	local k=${1:?usage: kroot.sh headers K} dist pat rel name
	dist=$("$top/scripts/kver.sh" --dist "$k")
	[[ -n $dist ]] || die "kernel $k builds on the host, not in a root"
	pat=$("$top/scripts/kver.sh" --pattern "$k")
	if rel=$("$top/scripts/kver.sh" "$k" 2>/dev/null) &&
	   [[ -L $roots/$dist/lib/modules/$rel/build ]]; then
		echo "$rel"
		return
	fi
	cmd_root "$dist" >/dev/null
	rel=
	while read -r name _; do
		# shellcheck disable=SC2053 # $pat is a glob
		[[ ${name#linux-headers-} == $pat ]] || continue
		# The generic flavour only: the glob also matches -rt- and -cloud-.
		[[ $name == *-rt-amd64 || $name == *-cloud-amd64 ]] || rel=${name#linux-headers-}
	done < <(in_root apt-cache search --names-only '^linux-headers-' |
		 sort -V)
	[[ -n $rel ]] || die "no linux-headers-$pat in the $dist root's archive"
	cmd_root "$dist" "linux-headers-$rel" >/dev/null
	echo "$rel"
}

# K's kernel image and modules, from the same release as its headers,
# unpacked under /lib/modules/REL where tools/sroce-vm and the guests'
# modprobe look.  5.10's linux-image-* holds both, in /boot and
# /lib/modules.  Debian 7.x splits them: linux-binary-* (the image, as
# /usr/lib/modules/REL/vmlinuz), linux-modules-*, and linux-base-*
# (modules.builtin*, modules.order, config).
cmd_guest() {
	local k=${1:?usage: kroot.sh guest K} rel dist dl tmp p pkgs=() mods lock
	rel=$(cmd_headers "$k")
	dist=$("$top/scripts/kver.sh" --dist "$k")
	local dst=/lib/modules/$rel
	if [[ -f $dst/.sroce-guest && -f $dst/vmlinuz ]]; then
		echo "$rel"
		return
	fi
	[[ ! -e $dst ]] || die "$dst exists and was not made here: remove it"
	root=$roots/$dist
	mkdir -p "$build/kernels"
	exec {lock}>"$build/kernels/.$rel.lock"
	flock "$lock"
	if [[ -f $dst/.sroce-guest && -f $dst/vmlinuz ]]; then
		echo "$rel"
		return
	fi
	echo "kroot: fetching kernel $rel for the guests" >&2
	dl=/var/cache/sroce-guest
	in_root rm -rf "$dl"
	in_root mkdir -p "$dl"
	for p in linux-image-$rel linux-binary-$rel linux-modules-$rel \
		 linux-base-$rel; do
		in_root apt-cache show "$p" >/dev/null 2>&1 && pkgs+=("$p")
	done
	((${#pkgs[@]})) || die "no image package for $rel"
	in_root sh -c 'cd "$1" && shift && apt-get -qq -o APT::Sandbox::User=root download "$@"' \
		sh "$dl" "${pkgs[@]}" >/dev/null ||
		die "cannot download ${pkgs[*]}"
	tmp=$build/kernels/$rel.tmp
	rm -rf "$tmp"
	mkdir -p "$tmp"
	for p in "$root$dl"/*.deb; do
		dpkg-deb -x "$p" "$tmp"
	done
	mods=$tmp/lib/modules/$rel
	[[ -d $mods ]] || mods=$tmp/usr/lib/modules/$rel
	[[ -d $mods/kernel ]] || die "no modules for $rel in ${pkgs[*]}"
	if [[ -f $tmp/boot/vmlinuz-$rel ]]; then
		cp "$tmp/boot/vmlinuz-$rel" "$mods/vmlinuz"
	fi
	[[ -f $mods/vmlinuz ]] || die "no image for $rel in ${pkgs[*]}"
	# The packages leave the index to depmod in their postinst.
	depmod -b "${mods%/lib/modules/"$rel"}" "$rel" ||
		die "depmod failed for $rel"
	printf '%s\n' "${pkgs[@]}" >"$mods/.sroce-guest"
	rm -rf "/lib/modules/.$rel.tmp"
	mv "$mods" "/lib/modules/.$rel.tmp"
	mv "/lib/modules/.$rel.tmp" "$dst"
	rm -rf "$tmp" "$root$dl"
	echo "$rel"
}

case ${1:-} in
root) shift; cmd_root "$@" ;;
headers) shift; cmd_headers "$@" ;;
guest) shift; cmd_guest "$@" ;;
run) shift; cmd_run "$@" ;;
*) die "usage: kroot.sh root DIST [PKG...] | headers K | guest K | run DIST DIR... -- CMD..." ;;
esac
