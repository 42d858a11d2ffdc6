/* SPDX-License-Identifier: MIT */
/*
 * Tensor layouts of the NPU (HARDWARE.md §5): feature maps in NC1HWC2 with 16-byte
 * atoms, convolution / matmul / depthwise weights, and the uint8 ↔ int8
 * zero-point shift. Pure data movement, no hardware access.
 *
 * Element sizes follow the precision codes of npu_regs.h: int8 1 byte,
 * fp16 2, int32/fp32 4. Half floats are carried as uint16_t bit patterns.
 */
#ifndef RKBARE_COMPILER_LAYOUT_H
#define RKBARE_COMPILER_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "rkbare/npu_regs.h"

/* Input-channel group of the convolution weight layouts (HARDWARE.md §5.4). */
#define LAYOUT_WEIGHT_IC_GROUP		32u
/* Output-kernel group: int8 32 kernels, fp16 16 kernels (HARDWARE.md §5.3, §5.4). */
#define LAYOUT_KERNEL_GROUP_INT8	32u
#define LAYOUT_KERNEL_GROUP_FP16	16u
/* int4: 64 kernels, B's native (N/64, K/32, 64, 32) (HARDWARE.md §5.7). */
#define LAYOUT_KERNEL_GROUP_INT4	64u
/* Depthwise int8 channel group (HARDWARE.md §5.4: [C/64][kh][kw][64]). */
#define LAYOUT_DW_GROUP_INT8		64u
/* Depthwise fp16: at most 32 channels per task, weights [kh][kw][lanes]
 * with lanes the channels rounded up to a power of two, 8 to 32
 * (allbilly/rk3588 experimental/kernel_6_18/conv_gemm.py, board-run; the
 * vendor's 32-channel depthwise: 576-byte weights for 3×3, SURFACE_ADD
 * 4·W·H). HARDWARE.md §5.4. */
#define LAYOUT_DW_GROUP_FP16		32u
#define LAYOUT_DW_MIN_LANES_FP16	8u

/* Bytes per element, 0 for a precision we do not lay out (int4 included:
 * two elements share a byte, see layout_elem_bits). */
unsigned int layout_elem_bytes(enum npu_precision prec);
/* Bits per element: 4 int4, 8 int8, 16 int16/fp16/bf16, 32 int32/fp32, 0 else. */
unsigned int layout_elem_bits(enum npu_precision prec);
/* Bytes of `count` elements packed (int4: two a byte, the low nibble first). */
static inline size_t layout_packed_bytes(enum npu_precision prec, size_t count)
{
	return (count * layout_elem_bits(prec) + 7u) / 8u;
}
/* Channels per 16-byte atom (C2): 32 int4, 16 int8, 8 fp16, 4 int32/fp32. */
unsigned int layout_c2(enum npu_precision prec);
/* Kernels of one output group of a direct convolution / matmul: 64 int4,
 * 32 int8, 16 int16/fp16 (HARDWARE.md §5.3, §5.7). */
unsigned int layout_kernel_group(enum npu_precision prec);

static inline size_t layout_align(size_t v, size_t a)
{
	return (v + a - 1) / a * a;
}

/* Bytes of an h × w NC1HWC2 tensor holding c channels (c rounded up to C2;
 * dense surfaces of h rows, also for h < 4). */
size_t layout_nc1hwc2_bytes(enum npu_precision prec, unsigned int h, unsigned int w,
			    unsigned int c);
/* Byte offset of element (c, y, x) of an h × w NC1HWC2 tensor (HARDWARE.md §5.1). */
size_t layout_nc1hwc2_offset(enum npu_precision prec, unsigned int h, unsigned int w,
			     unsigned int c, unsigned int y, unsigned int x);

/*
 * NHWC (or NCHW) ↔ NC1HWC2 for one image. dst channels c .. c_aligned - 1 are
 * zero-filled; dst must hold layout_nc1hwc2_bytes(prec, h, w, c_aligned).
 */
void layout_nhwc_to_nc1hwc2(enum npu_precision prec, const void *src, void *dst,
			    unsigned int h, unsigned int w, unsigned int c,
			    unsigned int c_aligned);
void layout_nchw_to_nc1hwc2(enum npu_precision prec, const void *src, void *dst,
			    unsigned int h, unsigned int w, unsigned int c,
			    unsigned int c_aligned);
void layout_nc1hwc2_to_nhwc(enum npu_precision prec, const void *src, void *dst,
			    unsigned int h, unsigned int w, unsigned int c);
void layout_nc1hwc2_to_nchw(enum npu_precision prec, const void *src, void *dst,
			    unsigned int h, unsigned int w, unsigned int c);

/* uint8 with zero point z ↔ int8 with zero point z - 0x80 (HARDWARE.md §6.1). */
void layout_u8_to_s8(const uint8_t *src, int8_t *dst, size_t n);
void layout_s8_to_u8(const int8_t *src, uint8_t *dst, size_t n);

/*
 * Convolution weights, source OHWI (TFLite order: [oc][kh][kw][ic]), to
 * [oc / G][ic_aligned / 32][kh][kw][G oc][32 ic] with G = 32 for int8 and
 * 16 for fp16 (HARDWARE.md §5.4). oc_aligned must be a multiple of G and
 * ic_aligned of 32. Input channels past ic are filled with `ic_pad` (the
 * weight zero point, so padded lanes contribute nothing); kernels past oc
 * are zero. Returns the bytes written, 0 on bad arguments.
 */
size_t layout_weights_int8(const int8_t *ohwi, int8_t *dst, unsigned int oc, unsigned int kh,
			   unsigned int kw, unsigned int ic, unsigned int oc_aligned,
			   unsigned int ic_aligned, int8_t ic_pad);
size_t layout_weights_fp16(const uint16_t *ohwi, uint16_t *dst, unsigned int oc,
			   unsigned int kh, unsigned int kw, unsigned int ic,
			   unsigned int oc_aligned, unsigned int ic_aligned);

/* IEEE binary16 ↔ binary32; to half rounds to nearest, ties to even,
 * overflowing to infinity. */
float layout_f16_to_f32(uint16_t h);
uint16_t layout_f32_to_f16(float f);

/* Weight lanes of a depthwise fp16 task over `channels` (1 .. 32) channels
 * (below 32 UNSURE: sim/ASSUMPTIONS.md A38, board probes A38-dw-lanes16/8). */
unsigned int layout_dw_lanes_fp16(unsigned int channels);

/*
 * Depthwise fp16 weights, source [kh][kw][c] (fp16 bit patterns), to one
 * block per 32 channels, block k at k · kh · kw · 32 halves, holding
 * [kh][kw][lanes] for its channels (layout_dw_lanes_fp16; lanes past the
 * channels are 0). Returns the bytes of all blocks, 0 on bad arguments.
 */
size_t layout_weights_dw_fp16(const uint16_t *hwc, uint16_t *dst, unsigned int kh,
			      unsigned int kw, unsigned int c);

/*
 * Depthwise int8 weights, source [kh][kw][c] (TFLite [1][kh][kw][c]), to
 * [c_aligned / 64][kh][kw][64] (HARDWARE.md §5.4). Channels past c get `pad`.
 */
size_t layout_weights_dw_int8(const int8_t *hwc, int8_t *dst, unsigned int kh,
			      unsigned int kw, unsigned int c, unsigned int c_aligned,
			      int8_t pad);

/*
 * Matmul B (K × N, row-major) as the weights of N 1×1 kernels over K input
 * channels: B[k][n] is kernel n, channel k.
 */
size_t layout_matmul_b_int8(const int8_t *b, int8_t *dst, unsigned int k, unsigned int n,
			    unsigned int k_aligned, unsigned int n_aligned);
size_t layout_matmul_b_fp16(const uint16_t *b, uint16_t *dst, unsigned int k, unsigned int n,
			    unsigned int k_aligned, unsigned int n_aligned);

#endif /* RKBARE_COMPILER_LAYOUT_H */
