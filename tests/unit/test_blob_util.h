/* SPDX-License-Identifier: MIT */
/*
 * Test-local helpers for the container tests that edit a written blob: the
 * CRC as docs/FORMAT.md defines it (computed by zlib, not by the loader's
 * code) and a section's offset from the table.
 */
#ifndef RKBARE_TEST_BLOB_UTIL_H
#define RKBARE_TEST_BLOB_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <zlib.h>
#include <cmocka.h>

#include "runtime/model_format.h"

/* Blob b of n bytes gets its CRC-32 again after an edit. */
static inline void fix_crc(uint8_t *b, size_t n)
{
	uint32_t crc;

	memset(b + offsetof(struct rkb_header, crc32), 0, sizeof(uint32_t));
	crc = (uint32_t)crc32(0L, b, (uInt)n);
	memcpy(b + offsetof(struct rkb_header, crc32), &crc, sizeof(crc));
}

/* Offset of section `type` in blob b, from its table. */
static inline size_t section(const uint8_t *b, uint32_t type)
{
	struct rkb_header h;

	memcpy(&h, b, sizeof(h));
	for (uint32_t i = 0; i < h.section_count; i++) {
		struct rkb_section s;

		memcpy(&s, b + h.section_offset + i * sizeof(s), sizeof(s));
		if (s.type == type)
			return s.offset;
	}
	fail_msg("no section %u", type);
	return 0;
}

#endif /* RKBARE_TEST_BLOB_UTIL_H */
