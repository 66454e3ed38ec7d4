/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space sroce_crc32() (declared in os.h) and its test hook.
 */
#ifndef SROCE_TEST_CRC32_H
#define SROCE_TEST_CRC32_H

#include "os.h"

/*
 * Use the PCLMULQDQ path where the CPU has it (@on), or slice-by-8 only.
 * Returns whether it was in use.  For tests that cover both paths.
 */
bool sroce_crc32_set_clmul(bool on);

/* "pclmulqdq" or "slice-by-8": what sroce_crc32() uses now. */
const char *sroce_crc32_impl(void);

#endif /* SROCE_TEST_CRC32_H */
