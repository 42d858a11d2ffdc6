/* SPDX-License-Identifier: MIT */
/*
 * The 13 matmul types of rknn_matmul_api.h: what the caller lays out (A, B,
 * C element types and their normal / native layouts) and what the NPU runs
 * for each (HARDWARE.md §5.7). CPU-side element access and conversions the
 * runtime (matmul_api.c) uses where the two differ; no device access here.
 *
 * Layouts, in elements (int4: nibbles, element i in byte i / 2, the low
 * nibble for even i):
 *   A normal (M, K); native (K/C2, M, C2), C2 = 32 int4, 16 int8, 8 fp16.
 *   B normal (K, N); native (N/G, K/32, G, 32) per K segment of
 *     LOWER_MM_K_SEGMENT rows, G = 64 int4, 32 int8, 16 fp16.
 *   C normal (M, N); native (N/C2, M, C2), C2 = 16 bytes / element size.
 * K is padded to 32, N to B's G in every native layout.
 */
#ifndef RKBARE_RUNTIME_MATMUL_TYPES_H
#define RKBARE_RUNTIME_MATMUL_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drivers/npu/npu.h"
#include "rkbare/rknn_matmul_api.h"

enum mm_elem { MM_E_FP16, MM_E_INT8, MM_E_INT4, MM_E_INT32, MM_E_FP32, MM_E_INT16, MM_E_BF16 };

/* B_quant_type values (rknn_matmul_info). */
enum { MM_QUANT_LAYER, MM_QUANT_CHANNEL, MM_QUANT_GROUP };

struct mm_type_desc {
	rknn_matmul_type type;
	const char *name;
	enum mm_elem a, b, c;		/* as the caller lays them out */
	/* what the NPU computes (INT4 × INT4 past one K segment: int8 → int32,
	 * matmul_api.c) */
	enum npu_precision in, out;
	bool per_channel, per_group;	/* B_quant_type 1 / 2 accepted */
	/* C = sA · sB · Σ (a − zA)(b − zB): integer sums dequantised on the
	 * CPU (INT8×INT8→FP32, INT8×INT4→FP16). */
	bool dequant_sums;
	/* B's values are scaled into fp16 once (FP16×INT8, FP16×INT4). */
	bool weight_only;
};

/* The type's description, or NULL for a value the API does not define. */
const struct mm_type_desc *mm_type_find(rknn_matmul_type type);

/* Bits of one element; the RKNN tensor type that names it. */
unsigned int mm_elem_bits(enum mm_elem e);
rknn_tensor_type mm_elem_tensor_type(enum mm_elem e);
/* Bytes of `count` elements (int4: rounded up to whole bytes). */
size_t mm_elem_bytes(enum mm_elem e, size_t count);
/* N block G of B's native layout, and the alignment of N. */
unsigned int mm_b_group(enum mm_elem b);
/* Elements per 16-byte atom of A's or C's native layout. */
unsigned int mm_atom_elems(enum mm_elem e);

/* Element indices (see the layouts above); k_al, n_al the padded K, N. */
size_t mm_a_index(enum mm_elem e, bool native, unsigned int m_count, unsigned int k_count,
		  unsigned int m, unsigned int k);
size_t mm_b_index(bool native, unsigned int g, unsigned int k_al, unsigned int n_count,
		  unsigned int n_al, unsigned int k, unsigned int n);
size_t mm_c_index(enum mm_elem e, bool native, unsigned int m_count, unsigned int n_count,
		  unsigned int m, unsigned int n);

/* Element i of an integer buffer (int4, int8, int16, int32), sign-extended. */
int32_t mm_load_int(const void *p, enum mm_elem e, size_t i);
/* Element i of a float buffer (fp16, bf16, fp32). */
float mm_load_float(const void *p, enum mm_elem e, size_t i);
/* Store v as element i (int4 / int8 / int16 / int32: v must fit). */
void mm_store_int(void *p, enum mm_elem e, size_t i, int32_t v);
/* Store f as element i (fp16 / bf16 round to nearest, ties to even). */
void mm_store_float(void *p, enum mm_elem e, size_t i, float f);

/* B (K × N, normal, int4) → its native layout with n_al columns and K
 * segments; returns the bytes written. */
size_t mm_b_int4_native(const uint8_t *b, uint8_t *dst, unsigned int k, unsigned int n,
			unsigned int n_al);

/* A (M × K, normal, int4) → its native layout (K/32, M, 32) with K padded
 * to k_al (zeros). */
void mm_a_int4_native(const uint8_t *a, uint8_t *dst, unsigned int m, unsigned int k,
		      unsigned int k_al);

#endif /* RKBARE_RUNTIME_MATMUL_TYPES_H */
