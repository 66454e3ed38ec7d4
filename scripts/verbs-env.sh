# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Source this (bash or POSIX sh, `set -u` safe) to run unmodified verbs
# programs -- Debian's ibv_devinfo, ibv_rc_pingpong, ib_write_bw, rping --
# on the pinned in-place rdma-core build with the sroce provider:
#
#   . scripts/verbs-env.sh          tree found from SROCE_TOP or this file
#   RDMA_CORE_SRC=/my/rdma-core . scripts/verbs-env.sh
#
# An IN_PLACE libibverbs has its provider directory and its driver-file
# directory (<src>/build/lib, <src>/build/etc/libibverbs.d) compiled in, so
# the only thing a program needs is to load that libibverbs (and librdmacm,
# libmlx5, libefa that perftest links) instead of the system's: the loader
# path does it.  The tree must therefore be used at the path it was built
# at.  PATH is left alone so that "ibv_devinfo" stays Debian's binary; the
# rdma-core build's own programs are in $SROCE_VERBS_BIN.
#
# Sets: LD_LIBRARY_PATH, SROCE_VERBS_SRC, SROCE_VERBS_LIB, SROCE_VERBS_BIN.
# Returns non-zero (and changes nothing) if the build is missing or moved.

sroce_verbs_env() {
	_top=${SROCE_TOP:-}
	if [ -z "$_top" ] && [ -n "${BASH_SOURCE:-}" ]; then
		_top=$(cd "$(dirname "${BASH_SOURCE}")/.." && pwd)
	fi
	_src=${RDMA_CORE_SRC:-${_top:+$_top/build/rdma-core-56.1}}
	if [ -z "$_src" ]; then
		echo "verbs-env: set SROCE_TOP or RDMA_CORE_SRC" >&2
		return 1
	fi
	_lib=$_src/build/lib
	_drv=$_src/build/etc/libibverbs.d/sroce.driver
	if [ ! -f "$_lib/libibverbs.so.1" ] || [ ! -f "$_drv" ]; then
		echo "verbs-env: no provider build in $_src (run 'make provider')" >&2
		return 1
	fi
	# The driver file names the provider by the absolute path of the build.
	if [ "$(cat "$_drv")" != "driver $_lib/libsroce" ]; then
		echo "verbs-env: $_src was built at another path; rebuild it here" >&2
		return 1
	fi

	case ":${LD_LIBRARY_PATH:-}:" in
	*":$_lib:"*) ;;
	*) LD_LIBRARY_PATH=$_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} ;;
	esac
	SROCE_VERBS_SRC=$_src
	SROCE_VERBS_LIB=$_lib
	SROCE_VERBS_BIN=$_src/build/bin
	export LD_LIBRARY_PATH SROCE_VERBS_SRC SROCE_VERBS_LIB SROCE_VERBS_BIN
}

if sroce_verbs_env; then
	unset -f sroce_verbs_env
	unset _top _src _lib _drv
else
	unset -f sroce_verbs_env
	unset _top _src _lib _drv
	# shellcheck disable=SC2317 # reached when executed, not sourced
	return 1 2>/dev/null || exit 1
fi
