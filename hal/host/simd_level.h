/* SPDX-License-Identifier: MIT */
/*
 * Host only: which x86 vector paths the host build's kernels (the NPU
 * model's int8 convolution, sim/conv_u8s8.c, and the int8 layout
 * conversions, compiler/layout_wide.c) take. One decision for both: the
 * best level the CPU has, capped by the environment variable RKBARE_SIMD
 * (portable, avx2 or avx512; read once) and by simd_level_set(). A cap
 * never enables what the CPU lacks. Off x86 the level is always portable.
 * The bare-metal image has none of this: its kernels are the portable C.
 */
#ifndef RKBARE_HAL_HOST_SIMD_LEVEL_H
#define RKBARE_HAL_HOST_SIMD_LEVEL_H

#include <stdbool.h>

enum simd_level {
	SIMD_PORTABLE = 0,	/* C only (SSE2 or NEON by the compiler's own choice) */
	SIMD_AVX2 = 1,		/* AVX2 */
	SIMD_AVX512 = 2,	/* AVX-512 F + BW */
};

#define SIMD_LEVELS	3

/* The selected level. */
enum simd_level simd_level(void);

/* The best level this CPU has, whatever the caps. */
enum simd_level simd_level_cpu(void);

/*
 * AVX-512 extensions single kernels need beyond F + BW: true when the
 * selected level is SIMD_AVX512 and the CPU has them.
 */
bool simd_avx512_vnni(void);
bool simd_avx512_vbmi(void);

/*
 * Caps the level from now on (tests and benchmarks run each path);
 * SIMD_AVX512 lifts the cap back to what RKBARE_SIMD allows. Returns the
 * level now selected.
 */
enum simd_level simd_level_set(enum simd_level cap);

/* "portable", "avx2", "avx512". */
const char *simd_level_name(enum simd_level level);

#endif /* RKBARE_HAL_HOST_SIMD_LEVEL_H */
