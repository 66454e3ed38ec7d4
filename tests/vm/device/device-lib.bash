# SPDX-License-Identifier: GPL-2.0
#
# Helpers shared by the tests/vm/device scripts (not a test itself: the
# harness runs only *.sh).  Every script starts and ends with sd_reset, so
# it neither depends on nor leaves behind another script's devices.

# shellcheck source=../lib.sh
. "$SROCE_TOP/tests/vm/lib.sh"

SD_SYS=/sys/class/infiniband
SD_TEST_NETDEVS=(sdv0 sdv1 sdd0 sdd1 sdtun0 sdgre0 sdvl0)

# Is DEV a sroce device (whatever its name)?
sd_is_sroce() { [[ -e $SD_SYS/$1/sroce_abi ]]; }

sd_exists() { [[ -e $SD_SYS/$1 ]]; }

# sd_wait COND TIMEOUT ARGS...: poll COND ARGS until it holds.
sd_wait() {
	local cond=$1 timeout=$2 deadline
	shift 2
	deadline=$((SECONDS + timeout))
	until "$cond" "$@"; do
		((SECONDS < deadline)) || return 1
		sleep 0.1
	done
}

sd_gone() { ! sd_exists "$1"; }

# Remove every sroce device and test netdev, then unload the module.
sd_reset() {
	local d n
	for d in "$SD_SYS"/*; do
		[[ -e $d/sroce_abi ]] || continue
		rdma link delete "${d##*/}" 2>/dev/null || true
	done
	for n in "${SD_TEST_NETDEVS[@]}"; do
		ip link del "$n" 2>/dev/null || true
	done
	for d in "$SD_SYS"/*; do
		[[ -e $d/sroce_abi ]] || continue
		sd_wait sd_gone 20 "${d##*/}" || true
	done
	if grep -q '^sroce ' /proc/modules; then
		rmmod sroce || true
	fi
}

# The port state word from sysfs ("4: ACTIVE" -> ACTIVE).
sd_state() { local s; s=$(<"$SD_SYS/$1/ports/1/state"); echo "${s#*: }"; }

sd_state_is() { [[ $(sd_state "$1") == "$2" ]]; }

# sd_expect_state DEV STATE [PHYS]: wait (linkwatch is asynchronous) for
# sysfs and "rdma link" to agree on STATE (ACTIVE, DOWN) and on PHYS
# (LINK_UP, DISABLED, POLLING) if given.
declare -gA SD_PHYS_SYSFS=([LINK_UP]="5: LinkUp" [DISABLED]="3: Disabled"
	[POLLING]="2: Polling")
sd_expect_state() {
	local dev=$1 want=$2 phys=${3:-} out
	sd_wait sd_state_is 10 "$dev" "$want" ||
		fail "$dev: port state $(sd_state "$dev"), expected $want"
	out=$(rdma link show "$dev/1")
	[[ $out == *"state $want "* ]] ||
		fail "$dev: rdma link says '$out', expected state $want"
	if [[ -n $phys ]]; then
		[[ $(<"$SD_SYS/$dev/ports/1/phys_state") == "${SD_PHYS_SYSFS[$phys]}" ]] ||
			fail "$dev: phys_state '$(<"$SD_SYS/$dev/ports/1/phys_state")', expected $phys"
		[[ $out == *"physical_state $phys "* ]] ||
			fail "$dev: rdma link says '$out', expected physical_state $phys"
	fi
	log "$dev: state $want${phys:+ / $phys}"
}

# Kernel log since this script started.
sd_kmsg() { "$SROCE_TOP/tools/vm/kmsg-since" "${SROCE_VM_KMSG_SEQ:-0}"; }

# sd_kmsg_expect REGEX: the kernel log since the start matches REGEX.
sd_kmsg_expect() {
	sd_kmsg | grep -Eq -- "$1" || fail "kernel log lacks /$1/"
}

# A value from the ABI header or params.h, evaluated by the shell.
sd_abi_version() {
	sed -n 's/^#define SROCE_UVERBS_ABI_VERSION[[:space:]]*\([0-9]*\).*/\1/p' \
		"$SROCE_TOP/kernel/uapi/sroce-abi.h"
}

# The modified EUI-64 of a MAC, as sysfs prints a GUID (xxxx:xxxx:...).
sd_eui64() {
	local m b
	IFS=: read -ra m <<<"$1"
	b=$(printf '%02x' $((0x${m[0]} ^ 2)))
	echo "$b${m[1]}:${m[2]}ff:fe${m[3]}:${m[4]}${m[5]}"
}

# A veth pair sdv0 <-> sdv1: an Ethernet netdev whose carrier the test
# controls through the peer.
sd_veth() {
	ip link add sdv0 type veth peer name sdv1 || fail "cannot create veth"
	ip link set sdv1 up
	ip link set sdv0 up
}

# sd_param NAME: a numeric limit from kernel/params.h, evaluated, so the
# tests compare the device against the one place the limits are written.
# params.h is read once, with shell builtins only: under TCG every exec
# costs tens of milliseconds, and devinfo.sh asks for thirty limits.
declare -gA SD_PARAMS=()
_sd_load_params() {
	local line re='^#define[[:space:]]+(SROCE_[A-Z0-9_]+)[[:space:]]+(.*)$'

	while IFS= read -r line; do
		[[ $line =~ $re ]] || continue
		line=${BASH_REMATCH[2]%%/\**}
		SD_PARAMS[${BASH_REMATCH[1]}]=${line%"${line##*[![:space:]]}"}
	done <"$SROCE_TOP/kernel/params.h"
}

sd_param() {
	local v m

	((${#SD_PARAMS[@]})) || _sd_load_params
	v=${SD_PARAMS[$1]-}
	[[ -n $v ]] || fail "params.h has no $1"
	while [[ $v =~ SROCE_[A-Z0-9_]+ ]]; do
		m=${BASH_REMATCH[0]}
		v=${v/"$m"/$(sd_param "$m")}
	done
	while [[ $v =~ SZ_([0-9]+)([KM]?) ]]; do
		case ${BASH_REMATCH[2]} in
		K) m='*1024' ;;
		M) m='*1048576' ;;
		*) m= ;;
		esac
		v=${v/"${BASH_REMATCH[0]}"/"(${BASH_REMATCH[1]}$m)"}
	done
	while [[ $v =~ BIT(_ULL)?\(([0-9]+)\) ]]; do
		v=${v/"${BASH_REMATCH[0]}"/"(1<<${BASH_REMATCH[2]})"}
	done
	while [[ $v =~ ([0-9])[UL]+([^0-9A-Za-z_]|$) ]]; do
		v=${v/"${BASH_REMATCH[0]}"/"${BASH_REMATCH[1]}${BASH_REMATCH[2]}"}
	done
	echo $((v))
}

# The provider: skip (exit 77) unless the sroce libibverbs provider is
# built and sees DEV.
sd_need_provider() {
	[[ -n ${SROCE_VERBS_LIB:-} ]] ||
		skip "sroce provider not built (make provider): no verbs-level checks"
	ibv_devices 2>/dev/null | grep -qw "$1" ||
		fail "provider built but ibv_devices does not list $1"
}

# sd_devinfo_field DEV FIELD [PORTOPT]: the value ibv_devinfo -v prints.
sd_devinfo() {
	ibv_devinfo -v -d "$1" -i 1 2>&1
}
