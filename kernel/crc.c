// SPDX-License-Identifier: GPL-2.0
/*
 * The ICRC's CRC-32 in the module.  lib's crc32_le() is slice-by-8 on
 * 5.10, 6.1 and 6.12: about 3.6 instructions a byte, by far
 * the largest per-byte cost of a software RoCE (Documentation/
 * performance.rst).  The crypto API's carry-less multiply driver
 * (crc32-pclmul on x86) folds 64 bytes in a few instructions and falls
 * back to crc32_le() by itself for short runs and where the FPU may not
 * be used.  It computes the same function, which is checked at load,
 * and it is used only where it is faster; else crc32_le() serves.  On 7.x
 * crc32_le() uses the carry-less multiply itself and the crypto API's
 * crc32 is that library (crc32-lib): the two time the same.
 */
#include <crypto/hash.h>
#include <linux/crc32.h>
#include <linux/ktime.h>
#include <linux/module.h>

#include "sroce.h"

/* Below this the driver only calls crc32_le() itself: skip the detour. */
#define SROCE_CRC_ACCEL_MIN	128

/* Set once at module load, before any device exists. */
static struct crypto_shash *sroce_crc_tfm;

static char *icrc = "auto";
module_param(icrc, charp, 0444);
MODULE_PARM_DESC(icrc, "CRC-32 of the ICRC: auto (the faster, timed at load), crc32_le, or a crypto crc32 driver such as crc32-pclmul");

static u32 sroce_crc32_accel(u32 crc, const void *p, size_t len)
{
	SHASH_DESC_ON_STACK(desc, sroce_crc_tfm);
	u32 out;

	desc->tfm = sroce_crc_tfm;
	/* The shash state of a crc32 driver is the running CRC itself. */
	if (crypto_shash_import(desc, &crc) ||
	    crypto_shash_update(desc, p, len) ||
	    crypto_shash_export(desc, &out))
		return crc32_le(crc, p, len);
	return out;
}

u32 sroce_crc32(u32 crc, const void *p, size_t len)
{
	if (sroce_crc_tfm && len >= SROCE_CRC_ACCEL_MIN)
		return sroce_crc32_accel(crc, p, len);
	return crc32_le(crc, p, len);
}

#define SROCE_CRC_BUF	16384

/* Does the driver compute crc32_le() through import/update/export? */
static bool sroce_crc_tfm_ok(const u8 *buf)
{
	static const u32 seeds[] = { 0, ~0u, 0x12345678 };
	static const u32 lens[] = { SROCE_CRC_ACCEL_MIN, 1000, 4096 + 13 };
	unsigned int i;

	if (crypto_shash_descsize(sroce_crc_tfm) != sizeof(u32) ||
	    crypto_shash_digestsize(sroce_crc_tfm) != sizeof(u32))
		return false;
	for (i = 0; i < ARRAY_SIZE(lens); i++)
		if (sroce_crc32_accel(seeds[i], buf + i, lens[i]) !=
		    crc32_le(seeds[i], buf + i, lens[i]))
			return false;
	return true;
}

/* Best of a few runs over @buf, in MB/s. */
static u64 sroce_crc_speed(u32 (*fn)(u32 crc, const void *p, size_t len),
			   const u8 *buf)
{
	u64 best = U64_MAX, t;
	u32 crc = 0;
	int i;

	for (i = 0; i < 5; i++) {
		t = ktime_get_ns();
		crc = fn(crc, buf, SROCE_CRC_BUF);
		t = ktime_get_ns() - t;
		best = min(best, t);
	}
	barrier_data(&crc);
	return SROCE_CRC_BUF * 1000ULL / max(best, 1ULL);
}

static u32 sroce_crc32_lib(u32 crc, const void *p, size_t len)
{
	return crc32_le(crc, p, len);
}

/* A crc32 driver that computes crc32_le(), or NULL. */
static struct crypto_shash *sroce_crc_find(const char *name, const u8 *buf)
{
	struct crypto_shash *tfm = crypto_alloc_shash(name, 0, 0);

	if (IS_ERR(tfm))
		return NULL;
	sroce_crc_tfm = tfm;
	if (!strcmp(crypto_shash_driver_name(tfm), "crc32-generic") ||
	    !sroce_crc_tfm_ok(buf)) {
		crypto_free_shash(tfm);
		tfm = NULL;
	}
	sroce_crc_tfm = NULL;
	return tfm;
}

/*
 * The carry-less multiply is not always the faster: emulated (QEMU TCG)
 * it runs at about half slice-by-8's speed.  So, as the RAID and XOR
 * code does, measure both once and keep the faster, unless the icrc
 * parameter names one.
 */
int sroce_crc_module_init(void)
{
	bool forced = strcmp(icrc, "auto");
	struct crypto_shash *tfm = NULL;
	u64 lib_mbs, accel_mbs;
	u8 *buf;
	int i;

	if (!strcmp(icrc, "crc32_le")) {
		pr_info("sroce: ICRC by crc32_le (icrc=crc32_le)\n");
		return 0;
	}
	buf = kmalloc(SROCE_CRC_BUF, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	for (i = 0; i < SROCE_CRC_BUF; i++)
		buf[i] = i * 131 + (i >> 8);
	if (forced) {
		tfm = sroce_crc_find(icrc, buf);
		kfree(buf);
		if (!tfm) {
			pr_err("sroce: icrc=%s: no such crc32 driver, or not crc32_le's function\n",
			       icrc);
			return -EINVAL;
		}
		sroce_crc_tfm = tfm;
		pr_info("sroce: ICRC by %s (icrc=%s)\n",
			crypto_shash_driver_name(tfm), icrc);
		return 0;
	}
	/* The accelerated driver by name first: "crc32" may be the generic one. */
	tfm = sroce_crc_find("crc32-pclmul", buf);
	if (!tfm)
		tfm = sroce_crc_find("crc32", buf);
	if (!tfm) {
		kfree(buf);
		pr_info("sroce: ICRC by crc32_le\n");
		return 0;
	}
	lib_mbs = sroce_crc_speed(sroce_crc32_lib, buf);
	sroce_crc_tfm = tfm;
	accel_mbs = sroce_crc_speed(sroce_crc32_accel, buf);
	kfree(buf);
	pr_info("sroce: ICRC by %s: %s %llu MB/s, crc32_le %llu MB/s\n",
		accel_mbs > lib_mbs ? crypto_shash_driver_name(tfm) :
		"crc32_le", crypto_shash_driver_name(tfm), accel_mbs, lib_mbs);
	if (accel_mbs <= lib_mbs) {
		sroce_crc_tfm = NULL;
		crypto_free_shash(tfm);
	}
	return 0;
}

void sroce_crc_module_exit(void)
{
	if (sroce_crc_tfm)
		crypto_free_shash(sroce_crc_tfm);
	sroce_crc_tfm = NULL;
}
