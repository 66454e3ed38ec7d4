// SPDX-License-Identifier: GPL-2.0
/*
 * User-space sroce_crc32(): the kernel's crc32_le() contract (reflected
 * CRC-32, polynomial 0xedb88320, no pre- or post-inversion), so the core
 * computes the same ICRC here as in the module.
 *
 * Slice-by-8: eight table lookups retire eight input bytes per step.  The
 * tables are built once, before main(), so callers need no init call and
 * threads never race on them.  On x86 with PCLMULQDQ, runs of 64 bytes
 * and more are folded with carry-less multiplies instead (the method of
 * Intel's "Fast CRC Computation for Generic Polynomials Using PCLMULQDQ",
 * reflected form), which is several times faster; the unit tests hold
 * both against a bit-at-a-time reference.
 */
#include <stdint.h>
#include <stddef.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "os.h"
#include "crc32.h"

#define SROCE_CRC32_POLY	0xedb88320u

static u32 sroce_crc_tab[8][256];
static bool sroce_crc_clmul;

__attribute__((constructor))
static void sroce_crc32_init(void)
{
	unsigned int i, j, k;

#if defined(__x86_64__)
	__builtin_cpu_init();
	sroce_crc_clmul = __builtin_cpu_supports("pclmul") &&
			  __builtin_cpu_supports("sse4.1");
#endif

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

bool sroce_crc32_set_clmul(bool on)
{
	bool was = sroce_crc_clmul;

#if defined(__x86_64__)
	sroce_crc_clmul = on && __builtin_cpu_supports("pclmul") &&
			  __builtin_cpu_supports("sse4.1");
#endif
	return was;
}

const char *sroce_crc32_impl(void)
{
	return sroce_crc_clmul ? "pclmulqdq" : "slice-by-8";
}

static inline u32 sroce_get_le32(const u8 *p)
{
	return (u32)p[0] | (u32)p[1] << 8 | (u32)p[2] << 16 | (u32)p[3] << 24;
}

#if defined(__x86_64__)
/* x * k.low ^ x * k.high, shifted into place, plus the next 16 bytes */
__attribute__((target("pclmul,sse4.1")))
static inline __m128i sroce_fold(__m128i x, __m128i k, __m128i d)
{
	__m128i lo = _mm_clmulepi64_si128(x, k, 0x00);
	__m128i hi = _mm_clmulepi64_si128(x, k, 0x11);

	return _mm_xor_si128(_mm_xor_si128(lo, hi), d);
}

/* @len >= 64 and a multiple of 16. */
__attribute__((target("pclmul,sse4.1")))
static u32 sroce_crc32_clmul(u32 crc, const u8 *p, size_t len)
{
	/* x^(4*128+32), x^(4*128-32); x^(128+32), x^(128-32); x^64; mu, P */
	const __m128i k12 = _mm_set_epi64x(0x1c6e41596ll, 0x154442bd4ll);
	const __m128i k34 = _mm_set_epi64x(0x0ccaa009ell, 0x1751997d0ll);
	const __m128i k5 = _mm_set_epi64x(0, 0x163cd6124ll);
	const __m128i mu_p = _mm_set_epi64x(0x1f7011641ll, 0x1db710641ll);
	const __m128i mask32 = _mm_set_epi32(0, 0, 0, -1);
	__m128i x1, x2, x3, x4, t;

	x1 = _mm_loadu_si128((const __m128i *)p);
	x2 = _mm_loadu_si128((const __m128i *)(p + 16));
	x3 = _mm_loadu_si128((const __m128i *)(p + 32));
	x4 = _mm_loadu_si128((const __m128i *)(p + 48));
	x1 = _mm_xor_si128(x1, _mm_cvtsi32_si128((int)crc));
	p += 64;
	len -= 64;
	while (len >= 64) {
		x1 = sroce_fold(x1, k12, _mm_loadu_si128((const __m128i *)p));
		x2 = sroce_fold(x2, k12, _mm_loadu_si128((const __m128i *)(p + 16)));
		x3 = sroce_fold(x3, k12, _mm_loadu_si128((const __m128i *)(p + 32)));
		x4 = sroce_fold(x4, k12, _mm_loadu_si128((const __m128i *)(p + 48)));
		p += 64;
		len -= 64;
	}
	x1 = sroce_fold(x1, k34, x2);
	x1 = sroce_fold(x1, k34, x3);
	x1 = sroce_fold(x1, k34, x4);
	while (len >= 16) {
		x1 = sroce_fold(x1, k34, _mm_loadu_si128((const __m128i *)p));
		p += 16;
		len -= 16;
	}
	/* 128 -> 64 bits */
	t = _mm_clmulepi64_si128(x1, k34, 0x10);
	x1 = _mm_xor_si128(_mm_srli_si128(x1, 8), t);
	/* 64 -> 32 bits */
	t = _mm_clmulepi64_si128(_mm_and_si128(x1, mask32), k5, 0x00);
	x1 = _mm_xor_si128(_mm_srli_si128(x1, 4), t);
	/* Barrett reduction */
	t = _mm_clmulepi64_si128(_mm_and_si128(x1, mask32), mu_p, 0x10);
	t = _mm_clmulepi64_si128(_mm_and_si128(t, mask32), mu_p, 0x00);
	x1 = _mm_xor_si128(x1, t);
	return (u32)_mm_extract_epi32(x1, 1);
}
#endif

u32 sroce_crc32(u32 crc, const void *buf, size_t len)
{
	const u8 *p = buf;

#if defined(__x86_64__)
	if (sroce_crc_clmul && len >= 64) {
		size_t n = len & ~(size_t)15;

		crc = sroce_crc32_clmul(crc, p, n);
		p += n;
		len -= n;
	}
#endif

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
