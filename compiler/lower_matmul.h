/* SPDX-License-Identifier: MIT */
/*
 * Matmul lowering: C[M×N] = A[M×K] · B[K×N] as a 1×1 convolution over an
 * input of width 1, height M and K channels with N kernels (HARDWARE.md §4.8 A,
 * MTX). A is NC1HWC2 (layout_nhwc_to_nc1hwc2 with h = M, w = 1, c = K),
 * B is in the weight layout (layout_matmul_b_*), C comes out NC1HWC2 in
 * the output precision (h = M, w = 1, c = N).
 *
 * K segments: one task reads at most LOWER_MM_K_SEGMENT input channels,
 * the split the vendor runtime makes on RK3588 (rknn_matmul_api.h: "when
 * K > 8192, the B data will be split into T segments", T = ceil(K / 8192)).
 * B is then T segments stored one after the other, segment t holding rows
 * 8192·t .. of B in the weight layout of its own (aligned) K; the tasks
 * of segment t add the partial sum of segments 0..t-1 in the DPU EW stage
 * (the input-channel split of lower_tile.c), which needs the scratch
 * buffer of lower_matmul_shape.scratch_bytes.
 */
#ifndef RKBARE_COMPILER_LOWER_MATMUL_H
#define RKBARE_COMPILER_LOWER_MATMUL_H

#include <stddef.h>
#include <stdint.h>

#include "compiler/regcmd.h"

enum lower_mm_type {
	LOWER_MM_INT8_INT32,	/* int8 × int8 → int32 */
	LOWER_MM_FP16_FP32,	/* fp16 × fp16 → fp32 */
	LOWER_MM_FP16_FP16,	/* fp16 × fp16 → fp16 */
	/* int4 × int4 → int16 (HARDWARE.md §5.7): A NC1HWC2 with C2 = 32, B in
	 * the int4 weight layout (N/64, K/32, 64, 32), two values a byte, the
	 * low nibble first; C int16 NC1HWC2 (C2 = 8), the int32 sums
	 * saturated. One K segment at most: no board-run stream adds int4
	 * partial sums. */
	LOWER_MM_INT4_INT16,
};

/* Input channels of one K segment (vendor rule above). */
#define LOWER_MM_K_SEGMENT	8192u
/* Largest K: int8 products are at most 2^14 in magnitude, so 2^16 of them
 * cannot overflow the int32 partial sums. */
#define LOWER_MM_MAX_K		65536u

struct lower_matmul_op {
	enum lower_mm_type type;
	unsigned int m, k, n;
	uint32_t a_addr, b_addr, c_addr;	/* NPU addresses, 16-byte aligned */
	uint32_t scratch_addr;			/* K > LOWER_MM_K_SEGMENT only */
};

struct lower_matmul_shape {
	unsigned int k_aligned, n_aligned;	/* K, N as laid out (see check) */
	size_t a_bytes, b_bytes, c_bytes;
	size_t scratch_bytes;			/* partial sums, 0 for one segment */
};

/*
 * Constraints (checked with a message naming the parameter): M ≥ 1 and fits
 * the 11-bit size fields, K a multiple of 32 up to LOWER_MM_MAX_K (int4: up
 * to LOWER_MM_K_SEGMENT), N a multiple of 64 (int4), 32 (int8) or 16 (fp16)
 * below 8192 — the MTX set; callers that need other sizes zero-pad. K above
 * one segment needs scratch_addr.
 */
int lower_matmul_check(const struct lower_matmul_op *op, struct lower_matmul_shape *shape);

/* Parse "int8:int32", "fp16:fp32", "fp16:fp16", "int4:int16". Returns 0 or
 * -EINVAL. */
int lower_matmul_type_parse(const char *s, enum lower_mm_type *type);

/* Upper bound of the tasks of the op. */
int lower_matmul_task_count(const struct lower_matmul_op *op, size_t *count);

/* Append the op's tasks to the program. */
int lower_matmul(struct rc_program *p, const struct lower_matmul_op *op);

#endif /* RKBARE_COMPILER_LOWER_MATMUL_H */
