/* SPDX-License-Identifier: MIT */
/* Tensor layouts: NC1HWC2 feature maps and the weight layouts (HARDWARE.md §5). */
#include <string.h>

#include "runtime/layout.h"

unsigned int layout_elem_bytes(enum npu_precision prec)
{
	switch (prec) {
	case NPU_PREC_INT8:
		return 1;
	case NPU_PREC_INT16:
	case NPU_PREC_FP16:
	case NPU_PREC_BF16:
		return 2;
	case NPU_PREC_INT32:
	case NPU_PREC_FP32:
		return 4;
	default:
		return 0;
	}
}

unsigned int layout_c2(enum npu_precision prec)
{
	unsigned int bytes = layout_elem_bytes(prec);

	return bytes ? NPU_ATOM_BYTES / bytes : 0;
}

size_t layout_nc1hwc2_bytes(enum npu_precision prec, unsigned int h, unsigned int w,
			    unsigned int c)
{
	unsigned int c2 = layout_c2(prec);

	if (!c2)
		return 0;
	return layout_align(c, c2) / c2 * (size_t)h * w * NPU_ATOM_BYTES;
}

size_t layout_nc1hwc2_offset(enum npu_precision prec, unsigned int h, unsigned int w,
			     unsigned int c, unsigned int y, unsigned int x)
{
	unsigned int c2 = layout_c2(prec);

	return ((size_t)(c / c2) * h * w + (size_t)y * w + x) *
		       NPU_ATOM_BYTES +
	       (size_t)(c % c2) * layout_elem_bytes(prec);
}

/* Copies element by element; `planar` selects NCHW instead of NHWC. */
static void to_native(enum npu_precision prec, const uint8_t *src, uint8_t *dst,
		      unsigned int h, unsigned int w, unsigned int c, unsigned int c_aligned,
		      int planar)
{
	unsigned int eb = layout_elem_bytes(prec);

	memset(dst, 0, layout_nc1hwc2_bytes(prec, h, w, c_aligned));
	for (unsigned int y = 0; y < h; y++)
		for (unsigned int x = 0; x < w; x++)
			for (unsigned int ch = 0; ch < c; ch++) {
				size_t s = planar ? ((size_t)ch * h + y) * w + x
						  : ((size_t)y * w + x) * c + ch;

				memcpy(dst + layout_nc1hwc2_offset(prec, h, w, ch, y, x),
				       src + s * eb, eb);
			}
}

static void from_native(enum npu_precision prec, const uint8_t *src, uint8_t *dst,
			unsigned int h, unsigned int w, unsigned int c, int planar)
{
	unsigned int eb = layout_elem_bytes(prec);

	for (unsigned int y = 0; y < h; y++)
		for (unsigned int x = 0; x < w; x++)
			for (unsigned int ch = 0; ch < c; ch++) {
				size_t d = planar ? ((size_t)ch * h + y) * w + x
						  : ((size_t)y * w + x) * c + ch;

				memcpy(dst + d * eb,
				       src + layout_nc1hwc2_offset(prec, h, w, ch, y, x), eb);
			}
}

void layout_nhwc_to_nc1hwc2(enum npu_precision prec, const void *src, void *dst,
			    unsigned int h, unsigned int w, unsigned int c,
			    unsigned int c_aligned)
{
	to_native(prec, src, dst, h, w, c, c_aligned, 0);
}

void layout_nchw_to_nc1hwc2(enum npu_precision prec, const void *src, void *dst,
			    unsigned int h, unsigned int w, unsigned int c,
			    unsigned int c_aligned)
{
	to_native(prec, src, dst, h, w, c, c_aligned, 1);
}

void layout_nc1hwc2_to_nhwc(enum npu_precision prec, const void *src, void *dst,
			    unsigned int h, unsigned int w, unsigned int c)
{
	from_native(prec, src, dst, h, w, c, 0);
}

void layout_nc1hwc2_to_nchw(enum npu_precision prec, const void *src, void *dst,
			    unsigned int h, unsigned int w, unsigned int c)
{
	from_native(prec, src, dst, h, w, c, 1);
}

/* The shift by 0x80 is the same bit flip in both directions. */
#define LAYOUT_SIGN_FLIP 0x80u

void layout_u8_to_s8(const uint8_t *src, int8_t *dst, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] = (int8_t)(src[i] ^ LAYOUT_SIGN_FLIP);
}

void layout_s8_to_u8(const int8_t *src, uint8_t *dst, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] = (uint8_t)((uint8_t)src[i] ^ LAYOUT_SIGN_FLIP);
}

/*
 * Index of weight (o, y, x, i) in [o / G][i / 32][kh][kw][G][32]. The inner
 * block is a whole kernel group by a whole input-channel group; the aligned
 * sizes guarantee every group is complete.
 */
static size_t weight_index(unsigned int o, unsigned int y, unsigned int x, unsigned int i,
			   unsigned int kh, unsigned int kw, unsigned int g,
			   unsigned int ic_aligned)
{
	const unsigned int icg = LAYOUT_WEIGHT_IC_GROUP;
	size_t block = (size_t)g * icg;
	size_t og = o / g, ig = i / icg;

	return ((og * (ic_aligned / icg) + ig) * kh * kw + (size_t)y * kw + x) * block +
	       (size_t)(o % g) * icg + i % icg;
}

static int weight_dims_ok(unsigned int oc, unsigned int ic, unsigned int oc_aligned,
			  unsigned int ic_aligned, unsigned int g)
{
	return oc && ic && oc <= oc_aligned && ic <= ic_aligned && oc_aligned % g == 0 &&
	       ic_aligned % LAYOUT_WEIGHT_IC_GROUP == 0;
}

size_t layout_weights_int8(const int8_t *ohwi, int8_t *dst, unsigned int oc, unsigned int kh,
			   unsigned int kw, unsigned int ic, unsigned int oc_aligned,
			   unsigned int ic_aligned, int8_t ic_pad)
{
	const unsigned int g = LAYOUT_KERNEL_GROUP_INT8;
	size_t total = (size_t)oc_aligned * kh * kw * ic_aligned;

	if (!weight_dims_ok(oc, ic, oc_aligned, ic_aligned, g) || !kh || !kw)
		return 0;
	memset(dst, 0, total);
	for (unsigned int o = 0; o < oc; o++)
		for (unsigned int y = 0; y < kh; y++)
			for (unsigned int x = 0; x < kw; x++)
				for (unsigned int i = 0; i < ic_aligned; i++)
					dst[weight_index(o, y, x, i, kh, kw, g, ic_aligned)] =
						i < ic ? ohwi[(((size_t)o * kh + y) * kw + x) * ic + i]
						       : ic_pad;
	return total;
}

size_t layout_weights_fp16(const uint16_t *ohwi, uint16_t *dst, unsigned int oc,
			   unsigned int kh, unsigned int kw, unsigned int ic,
			   unsigned int oc_aligned, unsigned int ic_aligned)
{
	const unsigned int g = LAYOUT_KERNEL_GROUP_FP16;
	size_t count = (size_t)oc_aligned * kh * kw * ic_aligned;

	if (!weight_dims_ok(oc, ic, oc_aligned, ic_aligned, g) || !kh || !kw)
		return 0;
	memset(dst, 0, count * sizeof(*dst));
	for (unsigned int o = 0; o < oc; o++)
		for (unsigned int y = 0; y < kh; y++)
			for (unsigned int x = 0; x < kw; x++)
				for (unsigned int i = 0; i < ic; i++)
					dst[weight_index(o, y, x, i, kh, kw, g, ic_aligned)] =
						ohwi[(((size_t)o * kh + y) * kw + x) * ic + i];
	return count * sizeof(*dst);
}

size_t layout_weights_dw_int8(const int8_t *hwc, int8_t *dst, unsigned int kh,
			      unsigned int kw, unsigned int c, unsigned int c_aligned,
			      int8_t pad)
{
	const unsigned int g = LAYOUT_DW_GROUP_INT8;
	size_t total = (size_t)kh * kw * c_aligned;

	if (!c || !kh || !kw || c > c_aligned || c_aligned % g)
		return 0;
	for (unsigned int ch = 0; ch < c_aligned; ch++)
		for (unsigned int y = 0; y < kh; y++)
			for (unsigned int x = 0; x < kw; x++)
				dst[((size_t)(ch / g) * kh * kw + (size_t)y * kw + x) * g + ch % g] =
					ch < c ? hwc[((size_t)y * kw + x) * c + ch] : pad;
	return total;
}

size_t layout_matmul_b_int8(const int8_t *b, int8_t *dst, unsigned int k, unsigned int n,
			    unsigned int k_aligned, unsigned int n_aligned)
{
	const unsigned int g = LAYOUT_KERNEL_GROUP_INT8;
	size_t total = (size_t)n_aligned * k_aligned;

	if (!weight_dims_ok(n, k, n_aligned, k_aligned, g))
		return 0;
	memset(dst, 0, total);
	for (unsigned int kk = 0; kk < k; kk++)
		for (unsigned int nn = 0; nn < n; nn++)
			dst[weight_index(nn, 0, 0, kk, 1, 1, g, k_aligned)] = b[(size_t)kk * n + nn];
	return total;
}

size_t layout_matmul_b_fp16(const uint16_t *b, uint16_t *dst, unsigned int k, unsigned int n,
			    unsigned int k_aligned, unsigned int n_aligned)
{
	const unsigned int g = LAYOUT_KERNEL_GROUP_FP16;
	size_t count = (size_t)n_aligned * k_aligned;

	if (!weight_dims_ok(n, k, n_aligned, k_aligned, g))
		return 0;
	memset(dst, 0, count * sizeof(*dst));
	for (unsigned int kk = 0; kk < k; kk++)
		for (unsigned int nn = 0; nn < n; nn++)
			dst[weight_index(nn, 0, 0, kk, 1, 1, g, k_aligned)] = b[(size_t)kk * n + nn];
	return count * sizeof(*dst);
}
