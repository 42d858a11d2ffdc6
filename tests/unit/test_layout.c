/* SPDX-License-Identifier: MIT */
/*
 * Layouts and quantisation helpers against the published formulas:
 * NC1HWC2 offsets (HARDWARE.md §5.1), the MTX weight index functions
 * weight_int8 / weight_fp16 as restated in §5.4 (1×1 kernels), the §5.4
 * layout orders for k×k and depthwise kernels, the uint8 ↔ int8 shift
 * (§6.1) and the requantisation multiplier (§6.3).
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "compiler/layout.h"
#include "compiler/quant.h"
#include "host/simd_level.h"
#include "ref/ref_nn.h"

/* §5.1: ((c / C2) × H × W + h × W + w) × 16 + (c mod C2) × bytes */
static size_t facts_offset(unsigned int c2, unsigned int bytes, unsigned int h, unsigned int w,
			   unsigned int c, unsigned int y, unsigned int x)
{
	return ((size_t)(c / c2) * h * w + (size_t)y * w + x) * 16 + (size_t)(c % c2) * bytes;
}

static void test_nc1hwc2_offsets(void **state)
{
	static const struct { enum npu_precision p; unsigned int c2, bytes; } precs[] = {
		{ NPU_PREC_INT8, 16, 1 }, { NPU_PREC_FP16, 8, 2 },
		{ NPU_PREC_INT32, 4, 4 }, { NPU_PREC_FP32, 4, 4 },
	};

	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(layout_c2(precs[i].p), precs[i].c2);
		for (unsigned int c = 0; c < 40; c += 3)
			for (unsigned int y = 0; y < 7; y++)
				for (unsigned int x = 0; x < 5; x++)
					assert_int_equal(layout_nc1hwc2_offset(precs[i].p, 7, 5, c, y, x),
							 facts_offset(precs[i].c2, precs[i].bytes, 7, 5,
								      c, y, x));
		/* 40 channels → ceil(40 / C2) surfaces of 7 × 5 atoms */
		assert_int_equal(layout_nc1hwc2_bytes(precs[i].p, 7, 5, 40),
				 (40 + precs[i].c2 - 1) / precs[i].c2 * 7 * 5 * 16);
	}
}

/* Departure from §5.1 for H < 4: surfaces are four rows tall (layout.h). */
/*
 * Tensors shorter than four rows are dense, as the vendor's native matmul
 * layouts document them for every M: A (K/C2, M, C2), C (N/C2, M, C2)
 * (rknn_matmul_api.h), and as its captured convolutions read 1x1, 2x2 and
 * 3x3 inputs (CNA surface stride W x (H - 4), signed).
 */
static void test_short_tensors_are_dense(void **state)
{
	assert_int_equal(layout_nc1hwc2_bytes(NPU_PREC_INT8, 3, 3, 32), 2 * 3 * 3 * 16);
	assert_int_equal(layout_nc1hwc2_bytes(NPU_PREC_INT8, 1, 1, 64), 4 * 16);
	for (unsigned int m = 1; m <= 3; m++)
		for (unsigned int k = 0; k < 64; k++)
			/* (K/16, M, 16) int8: element (m, k) */
			assert_int_equal(layout_nc1hwc2_offset(NPU_PREC_INT8, m, 1, k, m - 1, 0),
					 ((size_t)(k / 16) * m + (m - 1)) * 16 + k % 16);
	assert_int_equal(layout_nc1hwc2_offset(NPU_PREC_INT8, 1, 3, 17, 0, 2),
			 facts_offset(16, 1, 1, 3, 17, 0, 2));
}

static void test_roundtrip(void **state)
{
	enum { H = 5, W = 3, C = 21, CA = 32 };
	uint16_t src[H * W * C], back[H * W * C];
	uint8_t native[4 * 5 * 3 * 16 * 2];

	srand(7);
	for (size_t i = 0; i < H * W * C; i++)
		src[i] = (uint16_t)rand();
	assert_true(layout_nc1hwc2_bytes(NPU_PREC_FP16, H, W, CA) <= sizeof(native));
	layout_nhwc_to_nc1hwc2(NPU_PREC_FP16, src, native, H, W, C, CA);
	for (unsigned int c = 0; c < CA; c++)
		for (unsigned int y = 0; y < H; y++)
			for (unsigned int x = 0; x < W; x++) {
				uint16_t v;

				memcpy(&v, native + facts_offset(8, 2, H, W, c, y, x), 2);
				assert_int_equal(v, c < C ? src[(y * W + x) * C + c] : 0);
			}
	layout_nc1hwc2_to_nhwc(NPU_PREC_FP16, native, back, H, W, C);
	assert_memory_equal(src, back, sizeof(src));

	layout_nchw_to_nc1hwc2(NPU_PREC_FP16, src, native, H, W, C, CA);
	for (unsigned int c = 0; c < C; c++) {
		uint16_t v;

		memcpy(&v, native + facts_offset(8, 2, H, W, c, 2, 1), 2);
		assert_int_equal(v, src[(c * H + 2) * W + 1]);
	}
	layout_nc1hwc2_to_nchw(NPU_PREC_FP16, native, back, H, W, C);
	assert_memory_equal(src, back, sizeof(src));
}

/*
 * One int8 shape {h, w, c, c_aligned} each way, planar (NCHW) or channels
 * last (NHWC): every element where §5.1 puts it, padded channels zero, and
 * back unchanged. Every buffer starts `off` bytes past an allocation.
 */
static void int8_roundtrip_at(const unsigned int shape[4], bool planar, size_t off)
{
	unsigned int h = shape[0], w = shape[1], c = shape[2], ca = shape[3];
	size_t n = (size_t)h * w * c, bytes = layout_nc1hwc2_bytes(NPU_PREC_INT8, h, w, ca);
	uint8_t *src_mem = malloc(n + off), *back_mem = malloc(n + off);
	uint8_t *native_mem = malloc(bytes + off);
	uint8_t *src = src_mem + off, *back = back_mem + off, *native = native_mem + off;

	assert_true(src_mem && back_mem && native_mem);
	for (size_t i = 0; i < n; i++)
		src[i] = (uint8_t)rand();
	memset(native, 0xA5, bytes);
	if (planar)
		layout_nchw_to_nc1hwc2(NPU_PREC_INT8, src, native, h, w, c, ca);
	else
		layout_nhwc_to_nc1hwc2(NPU_PREC_INT8, src, native, h, w, c, ca);
	for (unsigned int ch = 0; ch < ca; ch++)
		for (unsigned int y = 0; y < h; y++)
			for (unsigned int x = 0; x < w; x++) {
				size_t at = planar ? ((size_t)ch * h + y) * w + x :
						     ((size_t)y * w + x) * c + ch;

				assert_int_equal(native[facts_offset(16, 1, h, w, ch, y, x)],
						 ch < c ? src[at] : 0);
			}
	memset(back, 0x5A, n);
	if (planar)
		layout_nc1hwc2_to_nchw(NPU_PREC_INT8, native, back, h, w, c);
	else
		layout_nc1hwc2_to_nhwc(NPU_PREC_INT8, native, back, h, w, c);
	assert_memory_equal(src, back, n);
	free(src_mem);
	free(back_mem);
	free(native_mem);
}

static void int8_roundtrip(const unsigned int shape[4], bool planar)
{
	int8_roundtrip_at(shape, planar, 0);
}

/* NCHW: the 16 × 16 block path, its pixel tails, partial channel groups,
 * and the 1,024-pixel steps of the vector paths (64-pixel runs in groups
 * of 16 with AVX-512, 32-pixel runs in groups of 32 with AVX2), then
 * the tail. */
static void test_int8_planar(void **state)
{
	static const unsigned int shapes[][4] = {	/* h, w, c, c_aligned */
		{ 1, 1, 16, 16 }, { 4, 4, 16, 32 }, { 3, 5, 35, 48 }, { 7, 9, 48, 48 },
		{ 16, 16, 17, 32 }, { 5, 33, 64, 64 }, { 1, 31, 33, 48 },
		{ 23, 29, 48, 48 }, { 32, 40, 33, 48 }, { 45, 50, 33, 48 },
	};

	(void)state;
	srand(11);
	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++)
		int8_roundtrip(shapes[s], true);
}

/* NCHW with buffers off their allocations' alignment: the vector paths
 * start on a line-aligned pixel after one unaligned step over the head;
 * 128 × 256 pixels reach the streamed stores of the planes (AVX2, AVX-512). */
static void test_int8_planar_offsets(void **state)
{
	static const unsigned int shapes[][4] = {	/* h, w, c, c_aligned */
		{ 16, 32, 32, 32 }, { 9, 31, 16, 16 }, { 128, 256, 16, 16 },
	};
	static const size_t offs[] = { 1, 16, 40 };

	(void)state;
	srand(12);
	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++)
		for (size_t o = 0; o < sizeof(offs) / sizeof(offs[0]); o++)
			int8_roundtrip_at(shapes[s], true, offs[o]);
}

/* NHWC: whole 64-channel blocks with pixel counts that are and are not
 * multiples of 4 (the 4 × 4 atom transpose with AVX-512, 2 × 2 with AVX2,
 * the per-pixel copies elsewhere), 32-channel blocks (AVX2 only), and an
 * image's 3 channels; each also off its buffers' alignment, and 40
 * channels (pixels 40 bytes apart): the portable copies' aligned atoms and
 * their unaligned fallback. */
static void test_int8_nhwc(void **state)
{
	static const unsigned int shapes[][4] = {	/* h, w, c, c_aligned */
		{ 4, 6, 64, 64 }, { 5, 7, 128, 128 }, { 3, 3, 48, 64 }, { 8, 8, 192, 192 },
		{ 2, 3, 3, 16 }, { 3, 5, 32, 32 }, { 1, 2, 96, 96 }, { 3, 5, 40, 48 },
	};

	(void)state;
	srand(13);
	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		int8_roundtrip(shapes[s], false);
		int8_roundtrip_at(shapes[s], false, 8);
	}
}

/* MTX weight_int8(C, k, c) / weight_fp16 restated 0-based (HARDWARE.md §5.4):
 * kernel k, channel c of a 1×1 layer with C input channels. */
static size_t mtx_weight_int8(unsigned int C, unsigned int k, unsigned int c)
{
	return (c / 32) * 32 * 32 + (k / 32) * 32 * C + c % 32 + (k % 32) * 32;
}

static size_t mtx_weight_fp16(unsigned int C, unsigned int k, unsigned int c)
{
	return (c / 32) * 32 * 16 + (k / 16) * 16 * C + c % 32 + (k % 16) * 32;
}

static void test_matmul_weights_match_mtx(void **state)
{
	enum { K = 96, N = 64 };
	static int8_t b8[K * N], w8[K * N];
	static uint16_t b16[K * N], w16[K * N];

	for (unsigned int i = 0; i < K * N; i++) {
		b8[i] = (int8_t)(i * 7 + 3);
		b16[i] = (uint16_t)(i * 13 + 1);
	}
	assert_int_equal(layout_matmul_b_int8(b8, w8, K, N, K, N), K * N);
	assert_int_equal(layout_matmul_b_fp16(b16, w16, K, N, K, N), K * N * 2);
	for (unsigned int k = 0; k < K; k++)
		for (unsigned int n = 0; n < N; n++) {
			assert_int_equal(w8[mtx_weight_int8(K, n, k)], b8[k * N + n]);
			assert_int_equal(w16[mtx_weight_fp16(K, n, k)], b16[k * N + n]);
		}
}

/* §5.4 int8 conv: [OC/32][IC/32][kh][kw][32 oc][32 ic], pads as stated. */
static void test_conv_weights_int8(void **state)
{
	enum { OC = 40, KH = 3, KW = 2, IC = 45, OCA = 64, ICA = 64 };
	static int8_t ohwi[OC * KH * KW * IC], dst[OCA * KH * KW * ICA];

	for (size_t i = 0; i < sizeof(ohwi); i++)
		ohwi[i] = (int8_t)(i % 251);
	assert_int_equal(layout_weights_int8(ohwi, dst, OC, KH, KW, IC, OCA, ICA, -5),
			 sizeof(dst));
	for (unsigned int o = 0; o < OCA; o++)
		for (unsigned int y = 0; y < KH; y++)
			for (unsigned int x = 0; x < KW; x++)
				for (unsigned int i = 0; i < ICA; i++) {
					size_t at = ((((size_t)(o / 32) * (ICA / 32) + i / 32) * KH + y) *
						     KW + x) * 1024 + (o % 32) * 32 + i % 32;
					int8_t want = o >= OC ? 0 : i >= IC ? -5 :
						      ohwi[((o * KH + y) * KW + x) * IC + i];

					assert_int_equal(dst[at], want);
				}
	/* misaligned sizes are refused */
	assert_int_equal(layout_weights_int8(ohwi, dst, OC, KH, KW, IC, 48, ICA, 0), 0);
	assert_int_equal(layout_weights_int8(ohwi, dst, OC, KH, KW, IC, OCA, 48, 0), 0);
}

/* §5.4 int8 depthwise: [C/64][kh][kw][64]. */
static void test_depthwise_weights(void **state)
{
	enum { KH = 3, KW = 3, C = 70, CA = 128 };
	static int8_t hwc[KH * KW * C], dst[KH * KW * CA];

	for (size_t i = 0; i < sizeof(hwc); i++)
		hwc[i] = (int8_t)(i * 3);
	assert_int_equal(layout_weights_dw_int8(hwc, dst, KH, KW, C, CA, 9), sizeof(dst));
	for (unsigned int c = 0; c < CA; c++)
		for (unsigned int y = 0; y < KH; y++)
			for (unsigned int x = 0; x < KW; x++)
				assert_int_equal(dst[(((size_t)(c / 64) * KH + y) * KW + x) * 64 + c % 64],
						 c < C ? hwc[(y * KW + x) * C + c] : 9);
}

/* §6.1: x' = x − 0x80. */
/* Every byte value, over a length that leaves tails after 64-, 16- and
 * 8-byte steps, on aligned buffers and one byte off them. */
static void test_sign_shift(void **state)
{
	enum { N = 1000 };
	uint8_t u_mem[N + 1] __attribute__((aligned(16)));
	uint8_t back_mem[N + 1] __attribute__((aligned(16)));
	int8_t s_mem[N + 1] __attribute__((aligned(16)));

	(void)state;
	for (size_t off = 0; off < 2; off++) {
		uint8_t *u = u_mem + off, *back = back_mem + off;
		int8_t *s = s_mem + off;

		for (int i = 0; i < N; i++)
			u[i] = (uint8_t)(i * 7);
		layout_u8_to_s8(u, s, N);
		for (int i = 0; i < N; i++)
			assert_int_equal(s[i], (int)u[i] - 128);
		layout_s8_to_u8(s, back, N);
		assert_memory_equal(u, back, N);
	}
}

/* §6.3: multiplier ≈ 1.m × 2^14, shift = 141 − E. */
static void test_quant_multiplier(void **state)
{
	struct quant_mult m;

	assert_int_equal(quant_multiplier(1.0f, &m), 0);	/* E 127 */
	assert_int_equal(m.multiplier, 16384);
	assert_int_equal(m.shift, 14);
	assert_int_equal(quant_multiplier(0.75f, &m), 0);	/* 1.5 × 2^-1, E 126 */
	assert_int_equal(m.multiplier, 24576);
	assert_int_equal(m.shift, 15);
	assert_int_equal(quant_multiplier(ldexpf(1.0f, -10), &m), 0);
	assert_int_equal(m.multiplier, 16384);
	assert_int_equal(m.shift, 24);
	/* 1.99999 rounds up to 2^15 → renormalised to 2^14 with one shift less */
	assert_int_equal(quant_multiplier(1.99999f, &m), 0);
	assert_int_equal(m.multiplier, 16384);
	assert_int_equal(m.shift, 13);

	srand(3);
	for (int i = 0; i < 10000; i++) {
		float s = ldexpf(0.5f + (float)rand() / RAND_MAX / 2, -(rand() % 40));
		double back;

		assert_int_equal(quant_multiplier(s, &m), 0);
		assert_true(m.multiplier >= 16384 && m.multiplier < 32768);
		back = ldexp(m.multiplier, -m.shift);
		assert_true(fabs(back - s) <= s * ldexp(1.0, -15));
	}
	assert_int_equal(quant_multiplier(0.0f, &m), -EINVAL);
	assert_int_equal(quant_multiplier(-1.0f, &m), -EINVAL);
	assert_int_equal(quant_multiplier(NAN, &m), -EINVAL);
	assert_int_equal(quant_multiplier(INFINITY, &m), -EINVAL);
	assert_int_equal(quant_multiplier(ldexpf(1.0f, 20), &m), -EINVAL);	/* shift < 0 */
}

static void test_requant_model(void **state)
{
	struct quant_mult half = { .multiplier = 16384, .shift = 15 };	/* × 0.5 */

	/* OUT_CVT with cvt_round 0 (TRM: "if the integer is odd, carry 1"):
	 * exact halves go to the even neighbour. */
	assert_int_equal(quant_requant(3, &half, 0), 2);	/* 1.5 → 2 */
	assert_int_equal(quant_requant(5, &half, 0), 2);	/* 2.5 → 2 */
	assert_int_equal(quant_requant(-3, &half, 0), -2);	/* −1.5 → −2 */
	assert_int_equal(quant_requant(-5, &half, 0), -2);	/* −2.5 → −2 */
	assert_int_equal(quant_requant(7, &half, 0), 4);	/* 3.5 → 4 */
	assert_int_equal(quant_requant(1000, &half, 10), 127);
	assert_int_equal(quant_requant(-1000, &half, 10), -128);
	assert_int_equal(quant_signed_zp(128, true), 0);
	assert_int_equal(quant_signed_zp(-3, false), -3);
}

/*
 * The runtime's half conversions (fp16 models' edges, rknn float16) against
 * the C compiler's _Float16 (tests/ref): every half to float, and floats to
 * half — every half's float, the midpoints between neighbours (ties to
 * even), the overflow edge, subnormals, and random bit patterns.
 */
static bool same_half(uint16_t a, uint16_t b)
{
	bool nan_a = (a & 0x7c00u) == 0x7c00u && (a & 0x3ffu);
	bool nan_b = (b & 0x7c00u) == 0x7c00u && (b & 0x3ffu);

	return nan_a || nan_b ? nan_a == nan_b : a == b;
}

static void check_to_half(float f)
{
	uint16_t got = layout_f32_to_f16(f), want = ref_f32_to_f16(f);

	if (!same_half(got, want))
		fail_msg("layout_f32_to_f16(%a) = 0x%04x, _Float16 0x%04x", (double)f, got, want);
}

static void test_half_conversions(void **state)
{
	uint32_t r = 20261125u;

	(void)state;
	for (uint32_t h = 0; h <= 0xffffu; h++) {
		float got = layout_f16_to_f32((uint16_t)h), want = ref_f16_to_f32((uint16_t)h);

		if (memcmp(&got, &want, sizeof(got)) && !(isnan(got) && isnan(want)))
			fail_msg("layout_f16_to_f32(0x%04x) = %a, _Float16 %a", h, (double)got,
				 (double)want);
		check_to_half(want);
		if ((h & 0x7c00u) != 0x7c00u && (h & 0x7fffu) != 0x7bffu) {
			/* the midpoint to the next half up in magnitude */
			float next = ref_f16_to_f32((uint16_t)(h + 1u));

			check_to_half(want + (next - want) / 2.0f);
		}
	}
	check_to_half(65520.0f);	/* rounds to infinity */
	check_to_half(65519.99f);
	check_to_half(0x1p-25f);	/* half the smallest subnormal: to zero (even) */
	check_to_half(0x1.8p-25f);
	for (int i = 0; i < 1000000; i++) {
		float f;

		r = r * 1664525u + 1013904223u;
		memcpy(&f, &r, sizeof(f));
		check_to_half(f);
	}
}

/*
 * The SIMD level the conversions (and the model's convolution) take:
 * never above what the CPU has, capped by simd_level_set. Prints it:
 * tests/unit/simd_levels.sh reads the line.
 */
static void test_simd_level(void **state)
{
	enum simd_level top = simd_level(), cpu = simd_level_cpu();

	(void)state;
	print_message("SIMD level: %s\n", simd_level_name(top));
	assert_true(top <= cpu);
	for (int l = SIMD_PORTABLE; l < SIMD_LEVELS; l++) {
		enum simd_level want = (enum simd_level)l < top ? (enum simd_level)l : top;

		assert_int_equal(simd_level_set((enum simd_level)l), want);
		assert_int_equal(simd_level(), want);
		assert_false(l < SIMD_AVX512 && (simd_avx512_vnni() || simd_avx512_vbmi()));
	}
	assert_int_equal(simd_level_set(SIMD_AVX512), top);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_simd_level),
		cmocka_unit_test(test_half_conversions),
		cmocka_unit_test(test_nc1hwc2_offsets),
		cmocka_unit_test(test_short_tensors_are_dense),
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_int8_planar),
		cmocka_unit_test(test_int8_planar_offsets),
		cmocka_unit_test(test_int8_nhwc),
		cmocka_unit_test(test_matmul_weights_match_mtx),
		cmocka_unit_test(test_conv_weights_int8),
		cmocka_unit_test(test_depthwise_weights),
		cmocka_unit_test(test_sign_shift),
		cmocka_unit_test(test_quant_multiplier),
		cmocka_unit_test(test_requant_model),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
