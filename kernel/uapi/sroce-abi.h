/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR Linux-OpenIB */
/*
 * sroce user/kernel ABI: the one definition of everything the kernel module
 * and the libibverbs provider exchange through udata and mmap.  Both sides
 * include this file; nothing here may depend on kernel-only or libc-only
 * headers beyond <linux/types.h>.
 *
 * Every struct is naturally aligned and padded to a multiple of 8 bytes so
 * that its layout is identical on 32- and 64-bit user space.
 */
#ifndef SROCE_ABI_H
#define SROCE_ABI_H

#include <linux/types.h>

/*
 * ib_core has no rdma_driver_id for an out-of-tree driver, so sroce uses a
 * private value well outside the kernel's enum.  libibverbs places it in
 * every ioctl header and uverbs rejects a mismatch, so both sides must
 * agree on it.
 */
#define SROCE_DRIVER_ID		0x5352

/* Bumped on any incompatible change to the structs below. */
#define SROCE_UVERBS_ABI_VERSION	1

/* sysfs attribute (under /sys/class/infiniband/<dev>/) naming the driver. */
#define SROCE_SYSFS_DRIVER_ATTR	"sroce_abi"

/* Response to ibv_get_context (alloc_ucontext). */
struct sroce_alloc_ucontext_resp {
	__u32 abi_version;	/* SROCE_UVERBS_ABI_VERSION */
	__u32 reserved;
};

/*
 * Shared queues
 * =============
 * Every queue (SQ, RQ, CQ) is one ring in memory the kernel allocates and
 * the provider maps with mmap() at the offset the create response gives.
 * A mapping starts with struct sroce_ring_ctl; element i lives at
 * SROCE_RING_HDR_SIZE + (i & (entries - 1)) * stride.  @entries is a power
 * of two.  Indices are free-running u32 counters (they wrap), so a ring is
 * empty when prod == cons and full when prod - cons == entries.
 *
 * Each index has exactly one writer and lives on its own cache line:
 *   SQ, RQ:  the provider produces (writes prod), the kernel consumes.
 *   CQ:      the kernel produces, the provider consumes (writes cons).
 * A producer fills the element, then publishes prod with a store-release;
 * a consumer reads prod with a load-acquire before reading elements.
 *
 * The kernel never trusts these pages: it keeps its own copy of every
 * index it owns and only writes it here for the provider to see; it reads
 * the provider's index once per pass and treats an impossible value
 * (more than @entries ahead) as a broken queue, which errors that QP or
 * overflows that CQ and nothing else; and it copies each WQE out of the
 * ring exactly once before reading any field of the copy.
 */
#define SROCE_RING_HDR_SIZE	128

struct sroce_ring_ctl {
	__u32 prod;		/* written by the producer only */
	__u32 prod_flags;	/* written by the producer only; unused, 0 */
	__u8 pad0[56];
	__u32 cons;		/* written by the consumer only */
	__u32 cons_flags;	/* written by the consumer only, see below */
	__u8 pad1[56];
};

/*
 * SQ cons_flags (kernel-written): set while the kernel is draining this SQ
 * and guarantees to read prod again without being told.  The provider
 * publishes prod, issues a full barrier, then reads this flag and rings the
 * doorbell (a zero-WR post_send command) only if it is clear.  The kernel
 * clears the flag, issues a full barrier, then re-reads prod before it
 * stops, so no posted WQE is ever left behind.
 */
#define SROCE_SQ_DRAINING	0x1u

/*
 * CQ cons_flags is provider-written and ignored by the kernel.  The CQ's
 * prod_flags (kernel-written): the CQ overflowed and has gone to error.
 */
#define SROCE_CQ_OVERFLOW	0x1u

struct sroce_sge_abi {
	__u64 addr;
	__u32 length;
	__u32 lkey;
};

/*
 * Send WQE.  @opcode is an ib_uverbs_wr_opcode (= ibv_wr_opcode),
 * @send_flags the ibv_send_flags bits FENCE, SIGNALED, SOLICITED, INLINE.
 * @ex is imm_data exactly as in ibv_send_wr (network byte order) for the
 * _WITH_IMM opcodes, or invalidate_rkey (host order) for SEND_WITH_INV.
 * The header is followed, inside the same stride, by @num_sge
 * struct sroce_sge_abi or, with IBV_SEND_INLINE, @inline_len data bytes.
 * IBV_WR_ATOMIC_WRITE and IBV_WR_FLUSH carry everything in the header
 * (@atomic_wr, @flush) and no SGEs: num_sge and inline_len are ignored,
 * IBV_SEND_INLINE fails the WQE.  (Added in ABI 1 without a bump: the
 * opcodes were refused before, and the header's size is unchanged.)
 * @xrc_srqn is read on an XRC initiator QP only, where it names the XRC
 * SRQ of the target (24 bits; more fails the WQE).  (Added in ABI 1
 * without a bump: it was a reserved field written as 0, and XRC QPs were
 * refused before.)
 */
struct sroce_send_wqe_abi {
	__u64 wr_id;
	__u8 opcode;
	__u8 send_flags;
	__u8 num_sge;
	__u8 reserved0;
	__u32 ex;
	__u32 inline_len;
	__u32 xrc_srqn;		/* IBV_QPT_XRC_SEND: the remote XRC SRQ */
	union {
		struct {
			__u64 remote_addr;
			__u32 rkey;
			__u32 reserved;
		} rdma;
		struct {
			__u64 remote_addr;
			__u64 compare_add;
			__u64 swap;
			__u32 rkey;
			__u32 reserved;
		} atomic;
		struct {	/* IBV_WR_ATOMIC_WRITE */
			__u64 remote_addr;
			__u8 value[8];	/* stored remotely byte for byte */
			__u32 rkey;
			__u32 reserved;
		} atomic_wr;
		struct {	/* IBV_WR_FLUSH */
			__u64 remote_addr;
			__u32 rkey;
			__u32 length;
			__u8 type;	/* IBV_FLUSH_GLOBAL | IBV_FLUSH_PERSISTENT */
			__u8 level;	/* IBV_FLUSH_RANGE or IBV_FLUSH_MR */
			__u8 reserved[6];
		} flush;
		struct {	/* IBV_WR_BIND_MW, both window types */
			__u64 addr;
			__u64 length;
			__u32 mr_lkey;
			__u32 mw_rkey;	/* the window's current rkey */
			__u32 new_rkey;	/* its rkey once bound */
			__u32 access;	/* ibv_access_flags */
		} bind;
		struct {
			__u32 ah_num;	/* sroce_create_ah_resp.ah_num */
			__u32 remote_qpn;
			__u32 remote_qkey;
			__u32 reserved;
		} ud;
	};
};

/* Receive WQE, followed by @num_sge struct sroce_sge_abi. */
struct sroce_recv_wqe_abi {
	__u64 wr_id;
	__u32 num_sge;
	__u32 reserved;
};

/*
 * Completion.  @status, @opcode as in ib_uverbs (= ibv_wc_status,
 * ibv_wc_opcode); @wc_flags are the *kernel's* ib_wc_flags bits (GRH 1,
 * WITH_IMM 2, WITH_INVALIDATE 4): the provider translates WITH_INVALIDATE.
 * @ex is imm_data in network byte order (as ibv_wc wants it) or the
 * invalidated rkey.  @ts is the completion time in nanoseconds of
 * CLOCK_MONOTONIC when the CQ was created with
 * IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION, else 0.  Modules before @ts
 * used a 48-byte stride; a provider reads @ts only from a CQ it asked
 * timestamps of, which such a module refuses to create.
 */
struct sroce_cqe_abi {
	__u64 wr_id;
	__u8 status;
	__u8 opcode;
	__u8 wc_flags;
	__u8 sl;
	__u32 vendor_err;
	__u32 byte_len;
	__u32 ex;
	__u32 qp_num;
	__u32 src_qp;
	__u16 pkey_index;
	__u16 slid;
	__u8 dlid_path_bits;
	__u8 reserved[7];
	__u32 reserved2;
	__u64 ts;
};

/* One mappable ring, as create responses describe it. */
struct sroce_ring_abi {
	__u64 mmap_offset;	/* pass to mmap() on the verbs cmd_fd */
	__u32 mmap_len;		/* bytes to map, a multiple of the page size */
	__u32 entries;		/* a power of two */
	__u32 stride;		/* bytes per element */
	__u32 reserved;
};

/* create_cq and resize_cq responses (resize gives a new ring). */
struct sroce_create_cq_resp {
	struct sroce_ring_abi cq;
};

struct sroce_resize_cq_resp {
	struct sroce_ring_abi cq;
};

/* create_qp response.  A QP on an SRQ has rq.entries == 0 and no RQ. */
struct sroce_create_qp_resp {
	struct sroce_ring_abi sq;
	struct sroce_ring_abi rq;
	__u32 max_inline_data;	/* honoured value, >= the requested one */
	__u32 reserved;
};

/*
 * create_srq response.  The SRQ is one ring of receive WQEs in the RQ's
 * format, produced by the provider (ibv_post_srq_recv, no system call)
 * and consumed by the kernel for every QP attached to it.  @max_sge is
 * what a WQE may carry.  (Added in ABI 1 without a bump: older providers
 * never create SRQs.)
 */
struct sroce_create_srq_resp {
	struct sroce_ring_abi rq;
	__u32 max_sge;
	__u32 reserved;
};

/*
 * modify_srq driver input, sent only with IBV_SRQ_MAX_WR.  A resize
 * replaces the SRQ's ring: the WQEs posted and not yet taken move to the
 * new one at the same indices, and the provider must map it and unmap
 * the old.  uverbs gives modify_srq no response buffer, so the command
 * names one in the caller's memory, @resp_addr, where the kernel writes
 * struct sroce_modify_srq_resp before it answers.  The provider holds
 * its post lock across the command, so prod stays where the kernel read
 * it.  A resize of a user SRQ without this input is refused
 * (EOPNOTSUPP), as it was before it existed: such a provider would keep
 * posting into the old ring.  (Added in ABI 1 without a bump: older
 * providers send no input and older kernels refuse the resize.)
 */
struct sroce_modify_srq_cmd {
	__u64 resp_addr;	/* user address of sroce_modify_srq_resp */
};

struct sroce_modify_srq_resp {
	struct sroce_ring_abi rq;	/* the new ring; stride unchanged */
};

/* create_ah response: the number a UD send WQE names the AH by. */
struct sroce_create_ah_resp {
	__u32 ah_num;
	__u32 reserved;
};

#endif /* SROCE_ABI_H */
