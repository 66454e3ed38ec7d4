/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Seeded pseudo-random numbers for tests: xoshiro256** seeded through
 * splitmix64.  Everything random in the simulator and the fuzz harnesses
 * comes from one of these, so a run is reproduced by its seed alone.
 */
#ifndef SROCE_TEST_RNG_H
#define SROCE_TEST_RNG_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct sroce_rng {
	uint64_t s[4];
};

static inline uint64_t sroce_splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static inline void sroce_rng_seed(struct sroce_rng *r, uint64_t seed)
{
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = sroce_splitmix64(&seed);
}

static inline uint64_t sroce_rng_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64_t sroce_rng_next(struct sroce_rng *r)
{
	uint64_t *s = r->s;
	uint64_t out = sroce_rng_rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = sroce_rng_rotl(s[3], 45);
	return out;
}

/* Uniform in [0, n); n == 0 gives 0.  Lemire's multiply-shift, bias-free. */
static inline uint64_t sroce_rng_below(struct sroce_rng *r, uint64_t n)
{
	unsigned __int128 m;
	uint64_t lo, t;

	if (!n)
		return 0;
	m = (unsigned __int128)sroce_rng_next(r) * n;
	lo = (uint64_t)m;
	if (lo < n) {
		t = -n % n;
		while (lo < t) {
			m = (unsigned __int128)sroce_rng_next(r) * n;
			lo = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
}

/* Uniform in [lo, hi]. */
static inline uint64_t sroce_rng_range(struct sroce_rng *r, uint64_t lo,
				       uint64_t hi)
{
	return lo + sroce_rng_below(r, hi - lo + 1);
}

/* True with probability ppm / 1e6. */
static inline int sroce_rng_ppm(struct sroce_rng *r, uint32_t ppm)
{
	return ppm && sroce_rng_below(r, 1000000) < ppm;
}

static inline void sroce_rng_fill(struct sroce_rng *r, void *buf, size_t len)
{
	unsigned char *p = buf;
	uint64_t v;

	while (len >= 8) {
		v = sroce_rng_next(r);
		memcpy(p, &v, 8);
		p += 8;
		len -= 8;
	}
	if (len) {
		v = sroce_rng_next(r);
		memcpy(p, &v, len);
	}
}

/* A reproducible sub-stream: same (seed, a, b) -> same numbers. */
static inline void sroce_rng_derive(struct sroce_rng *r, uint64_t seed,
				    uint64_t a, uint64_t b)
{
	uint64_t x = seed ^ (a * 0xd6e8feb86659fd93ull) ^
		     (b * 0xa0761d6478bd642full);

	sroce_rng_seed(r, sroce_splitmix64(&x));
}

#endif /* SROCE_TEST_RNG_H */
