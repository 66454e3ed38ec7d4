/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one shim between the portable protocol core and its host.  In the
 * module it maps to kernel primitives; in user-space tests to libc.  No
 * other file under kernel/proto/ includes a system header.
 */
#ifndef SROCE_PROTO_OS_H
#define SROCE_PROTO_OS_H

#ifdef __KERNEL__
#include <linux/errno.h>
#include <linux/types.h>
#include <linux/string.h>
#include <linux/compiler.h>
#include <linux/limits.h>

/*
 * crc32_le()'s function: reflected CRC-32 (poly 0xedb88320), no pre/post
 * inversion; kernel/crc.c, accelerated where the CPU can.
 */
u32 sroce_crc32(u32 crc, const void *p, size_t len);
#else
#include <errno.h>
#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <string.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;

#ifndef likely
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#endif
#ifndef U64_MAX
#define U64_MAX		UINT64_MAX
#endif
#ifndef U32_MAX
#define U32_MAX		UINT32_MAX
#endif
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

/* Same contract as the kernel's crc32_le(); provided by tests/lib/. */
u32 sroce_crc32(u32 crc, const void *p, size_t len);
#endif

/*
 * Error codes of the core and of the ops its host provides: 0 on success,
 * a negative SROCE_E* on failure, as in the kernel.  They are the host's
 * errno values (the kernel's in the module, libc's in user space).
 */
#define SROCE_EINVAL	EINVAL
#define SROCE_EAGAIN	EAGAIN
#define SROCE_ENOMEM	ENOMEM
#define SROCE_EFAULT	EFAULT
#define SROCE_EACCES	EACCES

/*
 * Unaligned big-endian accessors.  Headers sit at arbitrary offsets in a
 * frame, so every wire field goes through these.
 */
static inline u16 sroce_get_be16(const u8 *p)
{
	return (u16)(p[0] << 8 | p[1]);
}

static inline u32 sroce_get_be24(const u8 *p)
{
	return (u32)p[0] << 16 | (u32)p[1] << 8 | p[2];
}

static inline u32 sroce_get_be32(const u8 *p)
{
	return (u32)p[0] << 24 | (u32)p[1] << 16 | (u32)p[2] << 8 | p[3];
}

static inline u64 sroce_get_be64(const u8 *p)
{
	return (u64)sroce_get_be32(p) << 32 | sroce_get_be32(p + 4);
}

static inline void sroce_put_be16(u8 *p, u16 v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static inline void sroce_put_be24(u8 *p, u32 v)
{
	p[0] = v >> 16;
	p[1] = v >> 8;
	p[2] = v;
}

static inline void sroce_put_be32(u8 *p, u32 v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static inline void sroce_put_be64(u8 *p, u64 v)
{
	sroce_put_be32(p, v >> 32);
	sroce_put_be32(p + 4, (u32)v);
}

#endif /* SROCE_PROTO_OS_H */
