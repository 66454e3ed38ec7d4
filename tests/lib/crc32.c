// SPDX-License-Identifier: GPL-2.0
/*
 * User-space sroce_crc32(): the kernel's crc32_le() contract (reflected
 * CRC-32, polynomial 0xedb88320, no pre- or post-inversion), so the core
 * computes the same ICRC here as in the module.
 *
 * Slice-by-8: eight table lookups retire eight input bytes per step.  The
 * tables are built once, before main(), so callers need no init call and
 * threads never race on them.
 */
#include <stdint.h>
#include <stddef.h>

#include "os.h"

#define SROCE_CRC32_POLY	0xedb88320u

static u32 sroce_crc_tab[8][256];

__attribute__((constructor))
static void sroce_crc32_init(void)
{
	unsigned int i, j, k;

	for (i = 0; i < 256; i++) {
		u32 c = i;

		for (j = 0; j < 8; j++)
			c = (c >> 1) ^ (-(c & 1) & SROCE_CRC32_POLY);
		sroce_crc_tab[0][i] = c;
	}
	for (i = 0; i < 256; i++)
		for (k = 1; k < 8; k++)
			sroce_crc_tab[k][i] = (sroce_crc_tab[k - 1][i] >> 8) ^
				sroce_crc_tab[0][sroce_crc_tab[k - 1][i] & 0xff];
}

static inline u32 sroce_get_le32(const u8 *p)
{
	return (u32)p[0] | (u32)p[1] << 8 | (u32)p[2] << 16 | (u32)p[3] << 24;
}

u32 sroce_crc32(u32 crc, const void *buf, size_t len)
{
	const u8 *p = buf;

	while (len && ((uintptr_t)p & 7)) {
		crc = (crc >> 8) ^ sroce_crc_tab[0][(crc ^ *p++) & 0xff];
		len--;
	}
	while (len >= 8) {
		u32 a = crc ^ sroce_get_le32(p);
		u32 b = sroce_get_le32(p + 4);

		crc = sroce_crc_tab[7][a & 0xff] ^
		      sroce_crc_tab[6][(a >> 8) & 0xff] ^
		      sroce_crc_tab[5][(a >> 16) & 0xff] ^
		      sroce_crc_tab[4][a >> 24] ^
		      sroce_crc_tab[3][b & 0xff] ^
		      sroce_crc_tab[2][(b >> 8) & 0xff] ^
		      sroce_crc_tab[1][(b >> 16) & 0xff] ^
		      sroce_crc_tab[0][b >> 24];
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = (crc >> 8) ^ sroce_crc_tab[0][(crc ^ *p++) & 0xff];
	return crc;
}
