/* SPDX-License-Identifier: MIT */
/* The matmul types and their layouts (runtime/matmul_types.h). */
#include <string.h>

#include "compiler/layout.h"
#include "compiler/lower_matmul.h"
#include "runtime/matmul_types.h"

#define MM_ATOM_BYTES	16u

/*
 * What the NPU runs for each type (HARDWARE.md §5.7): the CNA takes one
 * precision for data and weights. INT4 × INT4 → INT16 runs natively (int4
 * data and weights, int16 out) up to one K segment; past it (matmul_api.c)
 * and for the mixed types, int4 operands are widened to int8 and int8
 * weights under fp16 data are scaled into fp16, B once when it is bound,
 * A (int4 only) at each run.
 */
static const struct mm_type_desc mm_type_table[] = {
	{ RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32, "FLOAT16_MM_FLOAT16_TO_FLOAT32",
	  MM_E_FP16, MM_E_FP16, MM_E_FP32, NPU_PREC_FP16, NPU_PREC_FP32, false, false, false, false },
	{ RKNN_INT8_MM_INT8_TO_INT32, "INT8_MM_INT8_TO_INT32",
	  MM_E_INT8, MM_E_INT8, MM_E_INT32, NPU_PREC_INT8, NPU_PREC_INT32, false, false, false, false },
	{ RKNN_INT8_MM_INT8_TO_INT8, "INT8_MM_INT8_TO_INT8",
	  MM_E_INT8, MM_E_INT8, MM_E_INT8, NPU_PREC_INT8, NPU_PREC_INT8, false, false, false, false },
	{ RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT16, "FLOAT16_MM_FLOAT16_TO_FLOAT16",
	  MM_E_FP16, MM_E_FP16, MM_E_FP16, NPU_PREC_FP16, NPU_PREC_FP16, false, false, false, false },
	{ RKNN_FLOAT16_MM_INT8_TO_FLOAT32, "FLOAT16_MM_INT8_TO_FLOAT32",
	  MM_E_FP16, MM_E_INT8, MM_E_FP32, NPU_PREC_FP16, NPU_PREC_FP32, true, true, false, true },
	{ RKNN_FLOAT16_MM_INT8_TO_FLOAT16, "FLOAT16_MM_INT8_TO_FLOAT16",
	  MM_E_FP16, MM_E_INT8, MM_E_FP16, NPU_PREC_FP16, NPU_PREC_FP16, true, true, false, true },
	{ RKNN_FLOAT16_MM_INT4_TO_FLOAT32, "FLOAT16_MM_INT4_TO_FLOAT32",
	  MM_E_FP16, MM_E_INT4, MM_E_FP32, NPU_PREC_FP16, NPU_PREC_FP32, true, true, false, true },
	{ RKNN_FLOAT16_MM_INT4_TO_FLOAT16, "FLOAT16_MM_INT4_TO_FLOAT16",
	  MM_E_FP16, MM_E_INT4, MM_E_FP16, NPU_PREC_FP16, NPU_PREC_FP16, true, true, false, true },
	{ RKNN_INT8_MM_INT8_TO_FLOAT32, "INT8_MM_INT8_TO_FLOAT32",
	  MM_E_INT8, MM_E_INT8, MM_E_FP32, NPU_PREC_INT8, NPU_PREC_INT32, true, false, true, false },
	{ RKNN_INT4_MM_INT4_TO_INT16, "INT4_MM_INT4_TO_INT16",
	  MM_E_INT4, MM_E_INT4, MM_E_INT16, NPU_PREC_INT4, NPU_PREC_INT16, false, false, false, false },
	{ RKNN_INT8_MM_INT4_TO_INT32, "INT8_MM_INT4_TO_INT32",
	  MM_E_INT8, MM_E_INT4, MM_E_INT32, NPU_PREC_INT8, NPU_PREC_INT32, false, false, false, false },
	{ RKNN_FLOAT16_MM_INT4_TO_BFLOAT16, "FLOAT16_MM_INT4_TO_BFLOAT16",
	  MM_E_FP16, MM_E_INT4, MM_E_BF16, NPU_PREC_FP16, NPU_PREC_FP32, true, true, false, true },
	{ RKNN_INT8_MM_INT4_TO_FLOAT16, "INT8_MM_INT4_TO_FLOAT16",
	  MM_E_INT8, MM_E_INT4, MM_E_FP16, NPU_PREC_INT8, NPU_PREC_INT32, true, false, true, false },
};

const struct mm_type_desc *mm_type_find(rknn_matmul_type type)
{
	for (size_t i = 0; i < sizeof(mm_type_table) / sizeof(mm_type_table[0]); i++)
		if (mm_type_table[i].type == type)
			return &mm_type_table[i];
	return NULL;
}

unsigned int mm_elem_bits(enum mm_elem e)
{
	switch (e) {
	case MM_E_INT4:
		return 4;
	case MM_E_INT8:
		return 8;
	case MM_E_FP16:
	case MM_E_INT16:
	case MM_E_BF16:
		return 16;
	default:
		return 32;
	}
}

rknn_tensor_type mm_elem_tensor_type(enum mm_elem e)
{
	static const rknn_tensor_type t[] = {
		[MM_E_FP16] = RKNN_TENSOR_FLOAT16, [MM_E_INT8] = RKNN_TENSOR_INT8,
		[MM_E_INT4] = RKNN_TENSOR_INT4, [MM_E_INT32] = RKNN_TENSOR_INT32,
		[MM_E_FP32] = RKNN_TENSOR_FLOAT32, [MM_E_INT16] = RKNN_TENSOR_INT16,
		[MM_E_BF16] = RKNN_TENSOR_BFLOAT16,
	};

	return t[e];
}

size_t mm_elem_bytes(enum mm_elem e, size_t count)
{
	return (count * mm_elem_bits(e) + 7) / 8;
}

unsigned int mm_b_group(enum mm_elem b)
{
	/* The vendor's B blocks (rknn_matmul_api.h): 64 × 32 int4, 32 × 32
	 * int8, 16 × 32 fp16; int8 and fp16 are the NPU's kernel groups. */
	return b == MM_E_INT4 ? 2 * LAYOUT_KERNEL_GROUP_INT8 :
	       b == MM_E_INT8 ? LAYOUT_KERNEL_GROUP_INT8 : LAYOUT_KERNEL_GROUP_FP16;
}

unsigned int mm_atom_elems(enum mm_elem e)
{
	return MM_ATOM_BYTES * 8 / mm_elem_bits(e);
}

size_t mm_a_index(enum mm_elem e, bool native, unsigned int m_count, unsigned int k_count,
		  unsigned int m, unsigned int k)
{
	unsigned int c2 = mm_atom_elems(e);

	if (!native)
		return (size_t)m * k_count + k;
	return ((size_t)(k / c2) * m_count + m) * c2 + k % c2;
}

size_t mm_b_index(bool native, unsigned int g, unsigned int k_al, unsigned int n_count,
		  unsigned int n_al, unsigned int k, unsigned int n)
{
	const unsigned int seg = LOWER_MM_K_SEGMENT, icg = LAYOUT_WEIGHT_IC_GROUP;
	unsigned int k0 = k / seg * seg, kk = k - k0;
	unsigned int ks_al = k_al - k0 < seg ? k_al - k0 : seg;

	if (!native)
		return (size_t)k * n_count + n;
	return (size_t)k0 * n_al + (size_t)(n / g) * g * ks_al + (size_t)(kk / icg) * g * icg +
	       (size_t)(n % g) * icg + kk % icg;
}

/* C's layouts are A's, with N in K's place. */
size_t mm_c_index(enum mm_elem e, bool native, unsigned int m_count, unsigned int n_count,
		  unsigned int m, unsigned int n)
{
	return mm_a_index(e, native, m_count, n_count, m, n);
}

int32_t mm_load_int(const void *p, enum mm_elem e, size_t i)
{
	const uint8_t *b = p;
	int16_t h;
	int32_t w;

	switch (e) {
	case MM_E_INT4: {
		unsigned int nib = (b[i / 2] >> (i % 2 ? 4 : 0)) & 0xfu;

		return nib >= 8 ? (int32_t)nib - 16 : (int32_t)nib;
	}
	case MM_E_INT8:
		return (int8_t)b[i];
	case MM_E_INT16:
		memcpy(&h, b + i * sizeof(h), sizeof(h));
		return h;
	default:
		memcpy(&w, b + i * sizeof(w), sizeof(w));
		return w;
	}
}

void mm_store_int(void *p, enum mm_elem e, size_t i, int32_t v)
{
	uint8_t *b = p;
	int16_t h = (int16_t)v;
	int8_t c = (int8_t)v;

	switch (e) {
	case MM_E_INT4: {
		unsigned int shift = i % 2 ? 4 : 0;

		b[i / 2] = (uint8_t)((b[i / 2] & ~(0xfu << shift)) | (((unsigned int)v & 0xfu) << shift));
		return;
	}
	case MM_E_INT8:
		memcpy(b + i, &c, 1);
		return;
	case MM_E_INT16:
		memcpy(b + i * sizeof(h), &h, sizeof(h));
		return;
	default:
		memcpy(b + i * sizeof(v), &v, sizeof(v));
		return;
	}
}

float mm_load_float(const void *p, enum mm_elem e, size_t i)
{
	const uint8_t *b = p;
	uint16_t h;
	uint32_t u;
	float f;

	switch (e) {
	case MM_E_FP16:
		memcpy(&h, b + i * sizeof(h), sizeof(h));
		return layout_f16_to_f32(h);
	case MM_E_BF16:
		memcpy(&h, b + i * sizeof(h), sizeof(h));
		u = (uint32_t)h << 16;
		memcpy(&f, &u, sizeof(f));
		return f;
	default:
		memcpy(&f, b + i * sizeof(f), sizeof(f));
		return f;
	}
}

/* bf16: the upper half of binary32, rounded to nearest, ties to even. */
static uint16_t f32_to_bf16(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	if ((u & 0x7fffffffu) > 0x7f800000u)	/* NaN stays a (quiet) NaN */
		return (uint16_t)((u >> 16) | 0x40u);
	return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

void mm_store_float(void *p, enum mm_elem e, size_t i, float f)
{
	uint8_t *b = p;
	uint16_t h;

	switch (e) {
	case MM_E_FP16:
		h = layout_f32_to_f16(f);
		memcpy(b + i * sizeof(h), &h, sizeof(h));
		return;
	case MM_E_BF16:
		h = f32_to_bf16(f);
		memcpy(b + i * sizeof(h), &h, sizeof(h));
		return;
	default:
		memcpy(b + i * sizeof(f), &f, sizeof(f));
		return;
	}
}

size_t mm_b_int4_native(const uint8_t *b, uint8_t *dst, unsigned int k, unsigned int n,
			unsigned int n_al)
{
	unsigned int g = mm_b_group(MM_E_INT4);
	unsigned int k_al = (unsigned int)layout_align(k, LAYOUT_WEIGHT_IC_GROUP);
	size_t bytes = mm_elem_bytes(MM_E_INT4, (size_t)k_al * n_al);

	memset(dst, 0, bytes);
	for (unsigned int kk = 0; kk < k; kk++)
		for (unsigned int nn = 0; nn < n; nn++)
			mm_store_int(dst, MM_E_INT4, mm_b_index(true, g, k_al, n, n_al, kk, nn),
				     mm_load_int(b, MM_E_INT4, (size_t)kk * n + nn));
	return bytes;
}

void mm_a_int4_native(const uint8_t *a, uint8_t *dst, unsigned int m, unsigned int k,
		      unsigned int k_al)
{
	memset(dst, 0, mm_elem_bytes(MM_E_INT4, (size_t)m * k_al));
	for (unsigned int mm = 0; mm < m; mm++)
		for (unsigned int kk = 0; kk < k; kk++)
			mm_store_int(dst, MM_E_INT4, mm_a_index(MM_E_INT4, true, m, k_al, mm, kk),
				     mm_load_int(a, MM_E_INT4, (size_t)mm * k + kk));
}
