// SPDX-License-Identifier: GPL-2.0
/*
 * Names of the drop reasons.  They label per-reason counters exported to
 * user space, so once released a name never changes.
 */
#include "drop.h"

static const char *const sroce_drop_names[SROCE_DROP_MAX] = {
	[SROCE_DROP_NONE]		= "none",
	[SROCE_DROP_TRUNCATED]		= "truncated",
	[SROCE_DROP_BAD_TVER]		= "bad_tver",
	[SROCE_DROP_BAD_OPCODE]		= "bad_opcode",
	[SROCE_DROP_BAD_PAD]		= "bad_pad",
	[SROCE_DROP_BAD_LENGTH]		= "bad_length",
	[SROCE_DROP_BAD_ICRC]		= "bad_icrc",
	[SROCE_DROP_BAD_PKEY]		= "bad_pkey",
	[SROCE_DROP_UNKNOWN_QP]		= "unknown_qp",
	[SROCE_DROP_BAD_QP_STATE]	= "bad_qp_state",
	[SROCE_DROP_WRONG_QP_TYPE]	= "wrong_qp_type",
	[SROCE_DROP_BAD_QKEY]		= "bad_qkey",
	[SROCE_DROP_BAD_SEQUENCE]	= "bad_sequence",
	[SROCE_DROP_PSN_INVALID]	= "psn_invalid",
	[SROCE_DROP_DUPLICATE]		= "duplicate",
	[SROCE_DROP_ACK_UNEXPECTED]	= "ack_unexpected",
	[SROCE_DROP_ACK_STALE]		= "ack_stale",
	[SROCE_DROP_NO_RESOURCE]	= "no_resource",
	[SROCE_DROP_BAD_ADDR]		= "bad_addr",
	[SROCE_DROP_BAD_MCAST]		= "bad_mcast",
};

const char *sroce_drop_name(enum sroce_drop reason)
{
	const char *name = NULL;

	/* Cast: an out-of-range value may arrive from a corrupt counter index. */
	if ((unsigned int)reason < SROCE_DROP_MAX)
		name = sroce_drop_names[reason];
	/*
	 * A reason added to drop.h without a name here reads "unknown";
	 * the drop unit test fails on it.
	 */
	return name ? name : "unknown";
}
