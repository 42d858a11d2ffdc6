/* SPDX-License-Identifier: MIT */
/* Tensor layouts: NC1HWC2 feature maps and the weight layouts (HARDWARE.md §5). */
#include <string.h>

#include "compiler/layout.h"
#include "compiler/layout_wide.h"

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

unsigned int layout_elem_bits(enum npu_precision prec)
{
	return prec == NPU_PREC_INT4 ? 4u : 8u * layout_elem_bytes(prec);
}

unsigned int layout_c2(enum npu_precision prec)
{
	unsigned int bits = layout_elem_bits(prec);

	return bits ? NPU_ATOM_BYTES * 8u / bits : 0;
}

unsigned int layout_kernel_group(enum npu_precision prec)
{
	return prec == NPU_PREC_INT4 ? LAYOUT_KERNEL_GROUP_INT4 :
	       prec == NPU_PREC_INT8 ? LAYOUT_KERNEL_GROUP_INT8 : LAYOUT_KERNEL_GROUP_FP16;
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

/*
 * One channel plane (h·w elements of eb bytes, contiguous) to or from its
 * lane of an NC1HWC2 surface (element p at p·16 bytes). Constant-size
 * copies per element width, so the compiler emits plain moves.
 */
static void plane_to_lane(const uint8_t *plane, uint8_t *lane, size_t n, unsigned int eb)
{
	switch (eb) {
	case 1:
		for (size_t p = 0; p < n; p++)
			lane[p * NPU_ATOM_BYTES] = plane[p];
		break;
	case 2:
		for (size_t p = 0; p < n; p++)
			memcpy(lane + p * NPU_ATOM_BYTES, plane + p * 2, 2);
		break;
	default:
		for (size_t p = 0; p < n; p++)
			memcpy(lane + p * NPU_ATOM_BYTES, plane + p * 4, 4);
		break;
	}
}

static void lane_to_plane(const uint8_t *lane, uint8_t *plane, size_t n, unsigned int eb)
{
	switch (eb) {
	case 1:
		for (size_t p = 0; p < n; p++)
			plane[p] = lane[p * NPU_ATOM_BYTES];
		break;
	case 2:
		for (size_t p = 0; p < n; p++)
			memcpy(plane + p * 2, lane + p * NPU_ATOM_BYTES, 2);
		break;
	default:
		for (size_t p = 0; p < n; p++)
			memcpy(plane + p * 4, lane + p * NPU_ATOM_BYTES, 4);
		break;
	}
}

/*
 * int8 NCHW ↔ NC1HWC2 moves 16 channels × 16 pixels at a time as a 16 × 16
 * byte transpose: four rounds of byte interleaves (row i with row i + 8)
 * transpose a 16 × 16 block. __builtin_shufflevector (GCC 12, clang) gives
 * SSE2 unpacks on the host and NEON zips on the A76.
 */
typedef uint8_t v16u8 __attribute__((vector_size(NPU_ATOM_BYTES)));

#define T16		16u	/* the block: an int8 atom of channels × 16 pixels */
#define ZIP_LO(a, b)	__builtin_shufflevector(a, b, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, \
						5, 21, 6, 22, 7, 23)
#define ZIP_HI(a, b)	__builtin_shufflevector(a, b, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, \
						13, 29, 14, 30, 15, 31)

static void transpose16(v16u8 r[T16])
{
	for (unsigned int round = 0; round < 4; round++) {
		v16u8 t[T16];

		for (unsigned int i = 0; i < T16 / 2; i++) {
			t[2 * i] = ZIP_LO(r[i], r[i + T16 / 2]);
			t[2 * i + 1] = ZIP_HI(r[i], r[i + T16 / 2]);
		}
		memcpy(r, t, sizeof(t));
	}
}

/* Blocks handled together: each plane is then read or written in 64-byte
 * runs, one cache line, instead of scattered 16-byte pieces. */
#define T16_BATCH	4u

/* 16 int8 planes (stride hw) → one surface, 16 pixels a block, from pixel
 * p; returns the pixels done (the rest are left to the lane loop). */
static size_t planes_to_surface_i8(const uint8_t *src, uint8_t *dst, size_t hw, size_t p)
{
	for (; p + T16 * T16_BATCH <= hw; p += T16 * T16_BATCH) {
		v16u8 r[T16_BATCH][T16];

		for (unsigned int k = 0; k < T16; k++)
			for (unsigned int b = 0; b < T16_BATCH; b++)
				memcpy(&r[b][k], src + k * hw + p + b * T16, sizeof(r[b][k]));
		for (unsigned int b = 0; b < T16_BATCH; b++) {
			transpose16(r[b]);
			memcpy(dst + (p + b * T16) * NPU_ATOM_BYTES, r[b], sizeof(r[b]));
		}
	}
	for (; p + T16 <= hw; p += T16) {
		v16u8 r[T16];

		for (unsigned int k = 0; k < T16; k++)
			memcpy(&r[k], src + k * hw + p, sizeof(r[k]));
		transpose16(r);
		memcpy(dst + p * NPU_ATOM_BYTES, r, sizeof(r));
	}
	return p;
}

static size_t surface_to_planes_i8(const uint8_t *src, uint8_t *dst, size_t hw, size_t p)
{
	for (; p + T16 * T16_BATCH <= hw; p += T16 * T16_BATCH) {
		v16u8 r[T16_BATCH][T16];

		for (unsigned int b = 0; b < T16_BATCH; b++) {
			memcpy(r[b], src + (p + b * T16) * NPU_ATOM_BYTES, sizeof(r[b]));
			transpose16(r[b]);
		}
		for (unsigned int k = 0; k < T16; k++)
			for (unsigned int b = 0; b < T16_BATCH; b++)
				memcpy(dst + k * hw + p + b * T16, &r[b][k], sizeof(r[b][k]));
	}
	for (; p + T16 <= hw; p += T16) {
		v16u8 r[T16];

		memcpy(r, src + p * NPU_ATOM_BYTES, sizeof(r));
		transpose16(r);
		for (unsigned int k = 0; k < T16; k++)
			memcpy(dst + k * hw + p, &r[k], sizeof(r[k]));
	}
	return p;
}

/* `len` bytes of each of hw pixels, `stride` apart, into consecutive atoms. */
#define NHWC_PIXELS(d, s, hw, stride, len)					\
	for (size_t p_ = 0; p_ < (hw); p_++)					\
		memcpy((d) + p_ * NPU_ATOM_BYTES, (s) + p_ * (stride), (len))

/* `planar` selects NCHW instead of NHWC. Surfaces are filled lane by lane
 * (NCHW) or atom by atom (NHWC); only padded channels are zeroed. */
static void to_native(enum npu_precision prec, const uint8_t *src, uint8_t *dst,
		      unsigned int h, unsigned int w, unsigned int c, unsigned int c_aligned,
		      int planar)
{
	unsigned int eb = layout_elem_bytes(prec), c2 = layout_c2(prec);
	size_t hw = (size_t)h * w, surface = hw * NPU_ATOM_BYTES;

	if (c_aligned > c || c % c2)
		memset(dst, 0, layout_nc1hwc2_bytes(prec, h, w, c_aligned));
	if (planar) {
		for (unsigned int g = 0; g * c2 < c; g++) {
			unsigned int n = c - g * c2 < c2 ? c - g * c2 : c2;
			const uint8_t *s = src + (size_t)g * c2 * hw * eb;
			uint8_t *d = dst + g * surface;
			/* a whole int8 group: the block transposes, then the tail */
			size_t done = eb == 1 && n == c2 ?
				planes_to_surface_i8(s, d, hw,
						     layout_wide_planes_to_surface_i8(s, d, hw)) : 0;

			for (unsigned int k = 0; k < n; k++)
				plane_to_lane(s + ((size_t)k * hw + done) * eb,
					      d + done * NPU_ATOM_BYTES + k * eb, hw - done, eb);
		}
		return;
	}
	/* whole 64-channel int8 blocks: four pixels by four atoms at a time */
	if (eb == 1 && layout_wide_nhwc_to_surfaces_i8(src, dst, hw, c, surface) == hw)
		return;
	for (unsigned int g = 0; g * c2 < c; g++) {
		unsigned int n = c - g * c2 < c2 ? c - g * c2 : c2;
		size_t len = (size_t)n * eb, stride = (size_t)c * eb;
		uint8_t *d = dst + g * surface;
		const uint8_t *s = src + (size_t)g * c2 * eb;

		/* Copies of a size known here compile to plain moves, not a
		 * memcpy call per pixel: whole atoms and the small channel
		 * counts of images (grey, RGB, RGBA). */
		switch (len) {
		case NPU_ATOM_BYTES:
			NHWC_PIXELS(d, s, hw, stride, NPU_ATOM_BYTES);
			break;
		case 1:
			NHWC_PIXELS(d, s, hw, stride, 1);
			break;
		case 3:
			NHWC_PIXELS(d, s, hw, stride, 3);
			break;
		case 4:
			NHWC_PIXELS(d, s, hw, stride, 4);
			break;
		default:
			NHWC_PIXELS(d, s, hw, stride, len);
			break;
		}
	}
}

static void from_native(enum npu_precision prec, const uint8_t *src, uint8_t *dst,
			unsigned int h, unsigned int w, unsigned int c, int planar)
{
	unsigned int eb = layout_elem_bytes(prec), c2 = layout_c2(prec);
	size_t hw = (size_t)h * w, surface = hw * NPU_ATOM_BYTES;

	if (planar) {
		for (unsigned int g = 0; g * c2 < c; g++) {
			unsigned int n = c - g * c2 < c2 ? c - g * c2 : c2;
			const uint8_t *s = src + g * surface;
			uint8_t *d = dst + (size_t)g * c2 * hw * eb;
			size_t done = eb == 1 && n == c2 ?
				surface_to_planes_i8(s, d, hw,
						     layout_wide_surface_to_planes_i8(s, d, hw)) : 0;

			for (unsigned int k = 0; k < n; k++)
				lane_to_plane(s + done * NPU_ATOM_BYTES + k * eb,
					      d + ((size_t)k * hw + done) * eb, hw - done, eb);
		}
		return;
	}
	if (eb == 1 && layout_wide_surfaces_to_nhwc_i8(src, dst, hw, c, surface) == hw)
		return;
	for (unsigned int g = 0; g * c2 < c; g++) {
		unsigned int n = c - g * c2 < c2 ? c - g * c2 : c2;
		const uint8_t *s = src + g * surface;
		uint8_t *d = dst + (size_t)g * c2 * eb;

		for (size_t p = 0; p < hw; p++)
			memcpy(d + p * c * eb, s + p * NPU_ATOM_BYTES, (size_t)n * eb);
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

/* The flip of eight bytes at once, as one 64-bit XOR. */
#define LAYOUT_SIGN_FLIP_X8 0x8080808080808080ull

static void flip_signs(const uint8_t *src, uint8_t *dst, size_t n)
{
	size_t i = layout_wide_flip_signs(src, dst, n);

	for (; i + sizeof(uint64_t) <= n; i += sizeof(uint64_t)) {
		uint64_t v;

		memcpy(&v, src + i, sizeof(v));
		v ^= LAYOUT_SIGN_FLIP_X8;
		memcpy(dst + i, &v, sizeof(v));
	}
	for (; i < n; i++)
		dst[i] = (uint8_t)(src[i] ^ LAYOUT_SIGN_FLIP);
}

void layout_u8_to_s8(const uint8_t *src, int8_t *dst, size_t n)
{
	flip_signs(src, (uint8_t *)dst, n);
}

void layout_s8_to_u8(const int8_t *src, uint8_t *dst, size_t n)
{
	flip_signs((const uint8_t *)src, dst, n);
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

/* IEEE binary16 → binary32 (subnormals, infinities and NaN included). */
float layout_f16_to_f32(uint16_t h)
{
	uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
	uint32_t bits;
	float f;

	if (exp == 0x1f) {
		bits = sign | 0x7f800000u | (man << 13);
	} else if (exp) {
		bits = sign | ((exp + 112) << 23) | (man << 13);
	} else if (man) {
		/* subnormal: normalise */
		exp = 113;
		while (!(man & 0x400)) {
			man <<= 1;
			exp--;
		}
		bits = sign | (exp << 23) | ((man & 0x3ff) << 13);
	} else {
		bits = sign;
	}
	memcpy(&f, &bits, sizeof(f));
	return f;
}

uint16_t layout_f32_to_f16(float f)
{
	uint32_t x, man, e, h, rem, half, shift;
	uint16_t sign;

	memcpy(&x, &f, sizeof(x));
	sign = (uint16_t)((x >> 16) & 0x8000u);
	e = (x >> 23) & 0xffu;
	man = x & 0x7fffffu;
	if (e == 0xffu)
		return sign | 0x7c00u | (man ? 0x200u : 0u);	/* infinity, quiet NaN */
	if (e > 127u + 15u)
		return sign | 0x7c00u;				/* overflow */
	if (e < 127u - 14u) {
		/* subnormal half (or zero): the 24-bit significand shifted right */
		if (e < 127u - 25u)
			return sign;
		man |= 0x800000u;
		shift = 126u - e;				/* 14 .. 24 */
		h = man >> shift;
		rem = man & ((1u << shift) - 1u);
		half = 1u << (shift - 1u);
	} else {
		h = ((e - 112u) << 10) | (man >> 13);
		rem = man & 0x1fffu;
		half = 0x1000u;
	}
	/* round to nearest, ties to even; a carry into the exponent is right */
	if (rem > half || (rem == half && (h & 1u)))
		h++;
	return sign | (uint16_t)h;
}

unsigned int layout_dw_lanes_fp16(unsigned int channels)
{
	unsigned int lanes = LAYOUT_DW_MIN_LANES_FP16;

	while (lanes < channels && lanes < LAYOUT_DW_GROUP_FP16)
		lanes *= 2u;
	return lanes;
}

size_t layout_weights_dw_fp16(const uint16_t *hwc, uint16_t *dst, unsigned int kh,
			      unsigned int kw, unsigned int c)
{
	const unsigned int g = LAYOUT_DW_GROUP_FP16;
	size_t block = (size_t)kh * kw * g, blocks = (c + g - 1u) / g;

	if (!c || !kh || !kw)
		return 0;
	memset(dst, 0, blocks * block * sizeof(*dst));
	for (unsigned int ch = 0; ch < c; ch++) {
		unsigned int first = ch / g * g;
		unsigned int lanes = layout_dw_lanes_fp16(c - first < g ? c - first : g);

		for (unsigned int y = 0; y < kh; y++)
			for (unsigned int x = 0; x < kw; x++)
				dst[ch / g * block + ((size_t)y * kw + x) * lanes + ch % g] =
					hwc[((size_t)y * kw + x) * c + ch];
	}
	return blocks * block * sizeof(*dst);
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
