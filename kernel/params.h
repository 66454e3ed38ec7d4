/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce device limits and identity: every number query_device and
 * query_port report is defined here, once.  Documentation/device.rst
 * carries the same table; keep the two in step.
 */
#ifndef SROCE_PARAMS_H
#define SROCE_PARAMS_H

#include <linux/bits.h>
#include <linux/sizes.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_verbs.h>

#include "proto/qp.h"

/* Identity. */
#define SROCE_FW_MAJOR			0
#define SROCE_FW_MINOR			1
#define SROCE_FW_SUBMINOR		0
#define SROCE_FW_VER_STR		"0.1.0"
/* No IEEE OUI of our own: all-ones, the value other software devices use. */
#define SROCE_VENDOR_ID			0xffffff
/* "SR" in ASCII, the same value as SROCE_DRIVER_ID. */
#define SROCE_VENDOR_PART_ID		0x5352
#define SROCE_HW_VER			1
#define SROCE_NODE_DESC			"sroce"

/* Per-device object limits. */
#define SROCE_MAX_UCONTEXT		SZ_64K
#define SROCE_MAX_PD			SZ_1M
#define SROCE_MAX_AH			SZ_64K
#define SROCE_MAX_QP			SZ_128K
#define SROCE_MAX_QP_WR			SZ_32K
/*
 * Scatter/gather, inline and RDMA-read/atomic depths are fixed-size arrays
 * in the protocol core (proto/qp.h); the device reports exactly those.
 * SROCE_MAX_SGE repeats the core's definition token for token, so the
 * compiler rejects any divergence.
 */
#define SROCE_MAX_SGE		32
#define SROCE_MAX_SGE_RD		SROCE_MAX_SGE
#define SROCE_MAX_INLINE_DATA		512
#define SROCE_MAX_CQ			SZ_128K
#define SROCE_MAX_CQE			SZ_64K
#define SROCE_MAX_MR			SZ_1M
#define SROCE_MAX_MR_SIZE		BIT_ULL(40)
#define SROCE_MAX_FAST_REG_PAGES	SZ_512
#define SROCE_MAX_SRQ			SZ_64K
#define SROCE_MAX_SRQ_WR		SZ_32K
#define SROCE_MAX_SRQ_SGE		SROCE_MAX_SGE
/* Windows share the MRs' 24-bit key index space (mw.c). */
#define SROCE_MAX_MW			SZ_1M
/* XRC domains hold no state; bounded like any object a process makes. */
#define SROCE_MAX_XRCD			SZ_64K
#define SROCE_MAX_QP_RD_ATOM		128
#define SROCE_MAX_QP_INIT_RD_ATOM	128
#define SROCE_MAX_RES_RD_ATOM		(SROCE_MAX_QP * SROCE_MAX_QP_RD_ATOM)
/*
 * Completion timestamps are CLOCK_MONOTONIC nanoseconds (cq.c): a 1 GHz
 * clock in kHz, all 64 bits used.
 */
#define SROCE_HCA_CORE_CLOCK		1000000
#define SROCE_TIMESTAMP_MASK		U64_MAX
/*
 * UD multicast (mcast.c): rdma_rxe's limits.  Groups per device, QPs per
 * group, and (group, QP) attachments per device.
 */
#define SROCE_MAX_MCAST_GRP		8192
#define SROCE_MAX_MCAST_QP_ATTACH	56
#define SROCE_MAX_TOTAL_MCAST_QP_ATTACH	(SROCE_MAX_MCAST_GRP * \
					 SROCE_MAX_MCAST_QP_ATTACH)
/* 4.1 us * 2^15 ~ 134 ms: the delay we promise peers for our ACKs. */
#define SROCE_LOCAL_CA_ACK_DELAY	15
/* Any multiple of the CPU page size is fine for a software device. */
#define SROCE_PAGE_SIZE_CAP		(~(u64)(PAGE_SIZE - 1))

#define SROCE_DEVICE_CAP_FLAGS	(IB_DEVICE_SYS_IMAGE_GUID |	\
				 IB_DEVICE_PORT_ACTIVE_EVENT |	\
				 IB_DEVICE_RC_RNR_NAK_GEN |	\
				 IB_DEVICE_MEM_WINDOW |	\
				 IB_DEVICE_MEM_WINDOW_TYPE_2B |	\
				 IB_DEVICE_MEM_MGT_EXTENSIONS |	\
				 IB_DEVICE_SRQ_RESIZE |		\
				 IB_DEVICE_XRC |		\
				 SROCE_DEVICE_ATOMIC_WRITE |	\
				 SROCE_DEVICE_FLUSH)

/* What an ODP MR may be used for, per transport (odp.c). */
#define SROCE_ODP_RC_CAPS	(IB_ODP_SUPPORT_SEND | IB_ODP_SUPPORT_RECV |	\
				 IB_ODP_SUPPORT_WRITE | IB_ODP_SUPPORT_READ |	\
				 IB_ODP_SUPPORT_ATOMIC |			\
				 IB_ODP_SUPPORT_SRQ_RECV)
#define SROCE_ODP_UC_CAPS	(IB_ODP_SUPPORT_SEND | IB_ODP_SUPPORT_RECV |	\
				 IB_ODP_SUPPORT_WRITE | IB_ODP_SUPPORT_SRQ_RECV)
#define SROCE_ODP_UD_CAPS	(IB_ODP_SUPPORT_SEND | IB_ODP_SUPPORT_RECV |	\
				 IB_ODP_SUPPORT_SRQ_RECV)

/* IP TTL / hop limit for an AV whose GRH leaves it 0 (ah.c). */
#define SROCE_DEFAULT_HOP_LIMIT		64

/* Port. */
#define SROCE_NUM_PORTS			1
#define SROCE_PORT			1
#define SROCE_PORT_GID_TBL_LEN		1024
#define SROCE_PORT_PKEY_TBL_LEN		1
#define SROCE_PORT_MAX_MSG_SZ		BIT(31)	/* IBA limit */
#define SROCE_PORT_MAX_MTU		IB_MTU_4096
#define SROCE_PORT_MAX_VL_NUM		1
#define SROCE_PORT_CAP_FLAGS		IB_PORT_CM_SUP

/*
 * Bytes a RoCEv2 packet adds on top of its IB payload, sized for the worst
 * case so that an active_mtu payload always fits the netdev MTU (which
 * counts the IP header but not the Ethernet one):
 * IPv6 40 + UDP 8 + BTH 12 + AtomicETH 28 (the largest extension header;
 * RETH + ImmDt is 20) + ICRC 4.
 */
#define SROCE_ROCEV2_MAX_OVERHEAD	(40 + 8 + 12 + 28 + 4)

/*
 * qp.c: the largest SQ or RQ ring element: a send WQE header (56 bytes)
 * plus 32 SGEs or 512 inline bytes, or a receive WQE header (16) plus 32
 * SGEs, rounded up to a power of two.
 */
#define SROCE_MAX_WQE_STRIDE		1024

static_assert(SROCE_MAX_INLINE_DATA <= SROCE_MAX_INLINE);
static_assert(SROCE_MAX_QP_RD_ATOM <= SROCE_MAX_RD_ATOMIC);
static_assert(SROCE_MAX_QP_INIT_RD_ATOM <= SROCE_MAX_RD_ATOMIC);

#endif /* SROCE_PARAMS_H */
