/* SPDX-License-Identifier: MIT */
/*
 * The int8 feature-map conversions on x86 vectors, AVX-512 (BW, VBMI) or
 * AVX2, chosen at run time (hal/host/simd_level.h: the CPU, capped by
 * RKBARE_SIMD). layout.c calls these first and finishes what they leave
 * with its portable loops.
 */
#ifndef RKBARE_COMPILER_LAYOUT_WIDE_H
#define RKBARE_COMPILER_LAYOUT_WIDE_H

#include <stddef.h>
#include <stdint.h>

/*
 * 16 int8 planes of hw pixels (plane k at src + k·hw) into one surface
 * (pixel p at dst + 16·p), or back; both return the pixels done from the
 * start, 0 where the machine lacks the vectors.
 */
size_t layout_wide_planes_to_surface_i8(const uint8_t *src, uint8_t *dst, size_t hw);
size_t layout_wide_surface_to_planes_i8(const uint8_t *src, uint8_t *dst, size_t hw);

/*
 * int8 NHWC with c a multiple of the vector (64 bytes AVX-512, 32 AVX2) ↔
 * the NC1HWC2 surfaces (surface bytes apart): pixels done from the start,
 * 0 if c is not such a multiple or the vectors are missing.
 */
size_t layout_wide_nhwc_to_surfaces_i8(const uint8_t *src, uint8_t *dst, size_t hw, size_t c,
				       size_t surface);
size_t layout_wide_surfaces_to_nhwc_i8(const uint8_t *src, uint8_t *dst, size_t hw, size_t c,
				       size_t surface);

/* The uint8 ↔ int8 shift (XOR 0x80) on n bytes: bytes done from the start. */
size_t layout_wide_flip_signs(const uint8_t *src, uint8_t *dst, size_t n);

#endif /* RKBARE_COMPILER_LAYOUT_WIDE_H */
