/* SPDX-License-Identifier: MIT */
/*
 * The later parts of the matmul API (include/rkbare/rknn_matmul_api.h) on
 * the NPU model through the driver: rknn_matmul_get_quant_params, dynamic
 * shapes (create_dynamic_shape / set_dynamic_shape) and K above one 8192
 * segment. Results are compared with a CPU matmul written here; the
 * segmented B layout with element positions computed here from the vendor
 * rule (rknn_matmul_api.h: "when K > 8192, the B data will be split into T
 * segments", each segment in the (N/32, K/32, 32, 32) native layout).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rkbare/rknn_matmul_api.h"

#include "npu_fixture.h"
#include "ref/ref_nn.h"

/* The vendor's segment length on RK3588 and the alignments of its native
 * B layout (rknn_matmul_api.h). */
#define SEG_K		8192
#define B_N_GROUP_INT8	32
#define B_N_GROUP_FP16	16
#define B_K_GROUP	32

static int align_up(int v, int a)
{
	return (v + a - 1) / a * a;
}

/* C = A·B, A (M × K) and B (K × N) row-major int8, C int32. */
static void cpu_matmul_int8(const int8_t *a, const int8_t *b, int32_t *c, int m, int k, int n)
{
	for (int i = 0; i < m; i++)
		for (int j = 0; j < n; j++) {
			int32_t acc = 0;

			for (int q = 0; q < k; q++)
				acc += a[(size_t)i * k + q] * b[(size_t)q * n + j];
			c[(size_t)i * n + j] = acc;
		}
}

static void fill_int8(int8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (int8_t)fx_rng();
}

static void expect_c_int32(const rknn_tensor_mem *c, const int32_t *want, int m, int n)
{
	for (int i = 0; i < m * n; i++) {
		int32_t got;

		memcpy(&got, (const uint8_t *)c->virt_addr + (size_t)i * 4, 4);
		assert_int_equal(got, want[i]);
	}
}

/* ---- get_quant_params ---- */

static void set_q(rknn_matmul_ctx ctx, const char *name, float scale, int32_t zp)
{
	rknn_quant_params q = { .scale = &scale, .scale_len = 1, .zp = &zp, .zp_len = 1 };

	strcpy(q.name, name);
	assert_int_equal(rknn_matmul_set_quant_params(ctx, &q), RKNN_SUCC);
}

static void expect_q(rknn_matmul_ctx ctx, const char *name, float scale, int32_t zp,
		     float b_scale)
{
	float s[3] = { -1.0f, -1.0f, -1.0f }, eff = -1.0f;
	int32_t z[2] = { 99, 99 };
	rknn_quant_params q = { .scale = s, .scale_len = 3, .zp = z, .zp_len = 2 };

	strcpy(q.name, name);
	assert_int_equal(rknn_matmul_get_quant_params(ctx, &q, &eff), RKNN_SUCC);
	assert_true(s[0] == scale);
	assert_int_equal(z[0], zp);
	assert_true(s[1] == -1.0f && z[1] == 99);	/* one value written */
	assert_int_equal(q.scale_len, 1);
	assert_int_equal(q.zp_len, 1);
	assert_true(eff == b_scale);
}

static void quant_round_trip(void **state)
{
	rknn_matmul_info info = { .M = 4, .K = 64, .N = 32, .type = RKNN_INT8_MM_INT8_TO_INT8 };
	rknn_matmul_io_attr io;
	rknn_matmul_ctx ctx;
	rknn_quant_params q = { .name = "" };
	float eff = 0.0f;

	(void)state;
	assert_int_equal(rknn_matmul_create(&ctx, &info, &io), RKNN_SUCC);
	/* Defaults: scale 1, zero point 0. */
	expect_q(ctx, "A", 1.0f, 0, 1.0f);
	expect_q(ctx, "C", 1.0f, 0, 1.0f);
	set_q(ctx, "A", 0.5f, 3);
	set_q(ctx, "B", 0.125f, -7);
	set_q(ctx, "C", 2.0f, -5);
	expect_q(ctx, "A", 0.5f, 3, 0.125f);
	expect_q(ctx, "B", 0.125f, -7, 0.125f);
	expect_q(ctx, "C", 2.0f, -5, 0.125f);
	/* No name: B (the vendor's reading), named on return; NULL arrays:
	 * only the counts. */
	assert_int_equal(rknn_matmul_get_quant_params(ctx, &q, &eff), RKNN_SUCC);
	assert_string_equal(q.name, "B");
	assert_int_equal(q.scale_len, 1);
	assert_int_equal(q.zp_len, 1);
	assert_true(eff == 0.125f);
	/* Setting again replaces. */
	set_q(ctx, "B", 0.25f, 0);
	expect_q(ctx, "B", 0.25f, 0, 0.25f);
	assert_int_equal(rknn_matmul_destroy(ctx), RKNN_SUCC);

	/* int8 -> int32 too (the vendor's documented type). */
	info.type = RKNN_INT8_MM_INT8_TO_INT32;
	assert_int_equal(rknn_matmul_create(&ctx, &info, &io), RKNN_SUCC);
	set_q(ctx, "A", 0.75f, 0);
	set_q(ctx, "B", 0.0625f, 0);
	expect_q(ctx, "A", 0.75f, 0, 0.0625f);
	assert_int_equal(rknn_matmul_destroy(ctx), RKNN_SUCC);
}

static void quant_errors(void **state)
{
	rknn_matmul_info info = { .M = 4, .K = 64, .N = 32, .type = RKNN_INT8_MM_INT8_TO_INT32 };
	rknn_matmul_io_attr io;
	rknn_matmul_ctx ctx;
	float s = 0.0f, eff = 0.0f;
	int32_t z = 0;
	rknn_quant_params q = { .name = "B", .scale = &s, .scale_len = 1, .zp = &z, .zp_len = 1 };

	(void)state;
	assert_int_equal(rknn_matmul_get_quant_params(0, &q, &eff), RKNN_ERR_CTX_INVALID);
	assert_int_equal(rknn_matmul_create(&ctx, &info, &io), RKNN_SUCC);
	assert_int_equal(rknn_matmul_get_quant_params(ctx, NULL, &eff), RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rknn_matmul_get_quant_params(ctx, &q, NULL), RKNN_ERR_PARAM_INVALID);
	strcpy(q.name, "D");
	assert_int_equal(rknn_matmul_get_quant_params(ctx, &q, &eff), RKNN_ERR_PARAM_INVALID);
	strcpy(q.name, "BB");
	assert_int_equal(rknn_matmul_get_quant_params(ctx, &q, &eff), RKNN_ERR_PARAM_INVALID);
	memset(q.name, 'B', sizeof(q.name));	/* no terminator */
	assert_int_equal(rknn_matmul_get_quant_params(ctx, &q, &eff), RKNN_ERR_PARAM_INVALID);
	strcpy(q.name, "B");
	q.scale_len = 0;
	assert_int_equal(rknn_matmul_get_quant_params(ctx, &q, &eff), RKNN_ERR_PARAM_INVALID);
	q.scale_len = 1;
	q.zp_len = -1;
	assert_int_equal(rknn_matmul_get_quant_params(ctx, &q, &eff), RKNN_ERR_PARAM_INVALID);
	q.zp_len = 1;
	assert_int_equal(rknn_matmul_get_quant_params(ctx, &q, &eff), RKNN_SUCC);
	assert_int_equal(rknn_matmul_destroy(ctx), RKNN_SUCC);

	/* fp16 has no quantisation parameters. */
	info.type = RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32;
	assert_int_equal(rknn_matmul_create(&ctx, &info, &io), RKNN_SUCC);
	assert_int_equal(rknn_matmul_get_quant_params(ctx, &q, &eff), RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rknn_matmul_destroy(ctx), RKNN_SUCC);
}

/* ---- dynamic shapes ---- */

#define DYN_SHAPES	3

static void dynamic_shapes(void **state)
{
	static const int ms[DYN_SHAPES] = { 1, 5, 33 };
	/* Shape indices in run order: every switch, back and forth. */
	static const int order[] = { 2, 0, 1, 2, 1, 0 };
	const int k = 100, n = 40;
	rknn_matmul_info info = { .M = 999, .K = 1, .N = 1,	/* ignored */
				  .type = RKNN_INT8_MM_INT8_TO_INT32 };
	rknn_matmul_shape shapes[DYN_SHAPES];
	rknn_matmul_io_attr io[DYN_SHAPES];
	struct fx_mm r;
	int32_t *want = calloc((size_t)ms[2] * n, sizeof(*want));
	int8_t *bm;

	(void)state;
	assert_non_null(want);
	fx_rng_seed(0x5eed0001);
	for (int i = 0; i < DYN_SHAPES; i++)
		shapes[i] = (rknn_matmul_shape){ .M = ms[i], .K = k, .N = n };
	assert_int_equal(rknn_matmul_create_dynamic_shape(&r.ctx, &info, DYN_SHAPES, shapes, io),
			 RKNN_SUCC);
	for (int i = 0; i < DYN_SHAPES; i++) {
		/* Normal layouts: A (M, K) int8, B (K, N) int8, C (M, N) int32. */
		assert_int_equal(io[i].A.n_dims, 2);
		assert_int_equal(io[i].A.dims[0], ms[i]);
		assert_int_equal(io[i].A.dims[1], k);
		assert_int_equal(io[i].A.size, ms[i] * k);
		assert_int_equal(io[i].B.size, k * n);
		assert_int_equal(io[i].C.dims[0], ms[i]);
		assert_int_equal(io[i].C.dims[1], n);
		assert_int_equal(io[i].C.size, ms[i] * n * 4);
		assert_int_equal(io[i].C.type, RKNN_TENSOR_INT32);
	}
	/* One set of buffers, large enough for the largest M. */
	fx_mm_bind(&r, &io[2]);
	bm = r.b->virt_addr;
	fill_int8(bm, (size_t)k * n);
	for (size_t run = 0; run < sizeof(order) / sizeof(order[0]); run++) {
		int s = order[run], m = ms[s];

		assert_int_equal(rknn_matmul_set_dynamic_shape(r.ctx, &shapes[s]), RKNN_SUCC);
		fill_int8(r.a->virt_addr, (size_t)m * k);
		memset(r.c->virt_addr, 0x5A, r.c->size);
		assert_int_equal(rknn_matmul_run(r.ctx), RKNN_SUCC);
		cpu_matmul_int8(r.a->virt_addr, bm, want, m, k, n);
		expect_c_int32(r.c, want, m, n);
		/* Nothing written past this shape's C. */
		for (size_t i = (size_t)m * n * 4; i < r.c->size; i++)
			assert_int_equal(((uint8_t *)r.c->virt_addr)[i], 0x5A);
	}
	fx_mm_close(&r);
	free(want);
}

static void dynamic_shape_errors(void **state)
{
	rknn_matmul_info info = { .type = RKNN_INT8_MM_INT8_TO_INT32 };
	rknn_matmul_shape shapes[DYN_SHAPES] = {
		{ .M = 2, .K = 64, .N = 32 }, { .M = 8, .K = 64, .N = 32 }, { .M = 4, .K = 64, .N = 32 },
	};
	rknn_matmul_shape many[65], other = { .M = 3, .K = 64, .N = 32 };
	rknn_matmul_io_attr io[65];
	rknn_matmul_ctx ctx = 0;
	struct fx_mm r;

	(void)state;
	/* Arguments. */
	assert_int_equal(rknn_matmul_create_dynamic_shape(NULL, &info, 3, shapes, io),
			 RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rknn_matmul_create_dynamic_shape(&ctx, NULL, 3, shapes, io),
			 RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rknn_matmul_create_dynamic_shape(&ctx, &info, 3, NULL, io),
			 RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rknn_matmul_create_dynamic_shape(&ctx, &info, 3, shapes, NULL),
			 RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rknn_matmul_create_dynamic_shape(&ctx, &info, 0, shapes, io),
			 RKNN_ERR_PARAM_INVALID);
	for (int i = 0; i < 65; i++)
		many[i] = (rknn_matmul_shape){ .M = i + 1, .K = 64, .N = 32 };
	assert_int_equal(rknn_matmul_create_dynamic_shape(&ctx, &info, 65, many, io),
			 RKNN_ERR_PARAM_INVALID);
	/* Only M may vary: a K or N change in any shape is refused. */
	shapes[2].K = 96;
	assert_int_equal(rknn_matmul_create_dynamic_shape(&ctx, &info, 3, shapes, io),
			 RKNN_ERR_PARAM_INVALID);
	shapes[2].K = 64;
	shapes[1].N = 64;
	assert_int_equal(rknn_matmul_create_dynamic_shape(&ctx, &info, 3, shapes, io),
			 RKNN_ERR_PARAM_INVALID);
	shapes[1].N = 32;
	shapes[2].M = 0;
	assert_int_equal(rknn_matmul_create_dynamic_shape(&ctx, &info, 3, shapes, io),
			 RKNN_ERR_PARAM_INVALID);
	shapes[2].M = 4;
	info.type = (rknn_matmul_type)13;	/* not a rknn_matmul_type */
	assert_int_equal(rknn_matmul_create_dynamic_shape(&ctx, &info, 3, shapes, io),
			 RKNN_ERR_PARAM_INVALID);
	info.type = RKNN_INT8_MM_INT8_TO_INT32;
	assert_int_equal(ctx, 0);	/* no context came out of the failures */
	assert_int_equal(rknn_matmul_create_dynamic_shape(&ctx, &info, 64, many, io), RKNN_SUCC);
	assert_int_equal(rknn_matmul_destroy(ctx), RKNN_SUCC);

	assert_int_equal(rknn_matmul_create_dynamic_shape(&ctx, &info, 3, shapes, io), RKNN_SUCC);
	/* Unregistered shapes. */
	assert_int_equal(rknn_matmul_set_dynamic_shape(ctx, &other), RKNN_ERR_PARAM_INVALID);
	other = (rknn_matmul_shape){ .M = 8, .K = 64, .N = 64 };
	assert_int_equal(rknn_matmul_set_dynamic_shape(ctx, &other), RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rknn_matmul_set_dynamic_shape(ctx, NULL), RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rknn_matmul_set_dynamic_shape(0, &shapes[0]), RKNN_ERR_CTX_INVALID);

	/* Buffers for M = 2 (shape 0, the one selected at creation). */
	r.ctx = ctx;
	fx_mm_bind(&r, &io[0]);
	assert_int_equal(rknn_matmul_run(ctx), RKNN_SUCC);
	/* M = 8 needs larger A and C. */
	assert_int_equal(rknn_matmul_set_dynamic_shape(ctx, &shapes[1]), RKNN_SUCC);
	assert_int_equal(rknn_matmul_run(ctx), RKNN_ERR_INPUT_INVALID);
	assert_int_equal(rknn_destroy_mem(ctx, r.a), RKNN_SUCC);
	r.a = rknn_create_mem(ctx, io[1].A.size);
	assert_non_null(r.a);
	assert_int_equal(rknn_matmul_set_io_mem(ctx, r.a, &io[1].A), RKNN_SUCC);
	assert_int_equal(rknn_matmul_run(ctx), RKNN_ERR_OUTPUT_INVALID);
	/* Back to M = 2: runs again. */
	assert_int_equal(rknn_matmul_set_dynamic_shape(ctx, &shapes[0]), RKNN_SUCC);
	assert_int_equal(rknn_matmul_run(ctx), RKNN_SUCC);
	fx_mm_close(&r);

	/* A static context has one registered shape: its own. */
	info = (rknn_matmul_info){ .M = 4, .K = 64, .N = 32, .type = RKNN_INT8_MM_INT8_TO_INT32 };
	assert_int_equal(rknn_matmul_create(&ctx, &info, &io[0]), RKNN_SUCC);
	other = (rknn_matmul_shape){ .M = 4, .K = 64, .N = 32 };
	assert_int_equal(rknn_matmul_set_dynamic_shape(ctx, &other), RKNN_SUCC);
	other.M = 5;
	assert_int_equal(rknn_matmul_set_dynamic_shape(ctx, &other), RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rknn_matmul_destroy(ctx), RKNN_SUCC);
}

/* ---- K above one segment ---- */

/* Byte offset of B[k][n] in the native layout by the vendor rule: segment
 * s = k / 8192 starts after s segments of 8192 × N_al elements and is laid
 * out alone as (N_al / G, Ks_al / 32, G, 32), Ks_al its K aligned to 32. */
static size_t seg_b_index(int k, int n, int K, int N, int g)
{
	int n_al = align_up(N, g), s = k / SEG_K, kk = k % SEG_K;
	int ks = K - s * SEG_K < SEG_K ? K - s * SEG_K : SEG_K;
	int ks_al = align_up(ks, B_K_GROUP);

	return (size_t)s * SEG_K * n_al + (size_t)(n / g) * ks_al * g +
	       (size_t)(kk / B_K_GROUP) * g * B_K_GROUP + (size_t)(n % g) * B_K_GROUP +
	       kk % B_K_GROUP;
}

/* rknn_B_normal_layout_to_native_layout of a K > 8192 matrix against the
 * rule; every other byte of the io_attr size is zero padding. The padded
 * layout is written only to rknn_create_mem memory of io_attr.B.size. */
static void segmented_b_layout(void **state)
{
	const int K = 2 * SEG_K + 40, N = 33;
	rknn_matmul_info info = { .M = 1, .K = K, .N = N, .type = RKNN_INT8_MM_INT8_TO_INT32,
				  .B_layout = 1 };
	rknn_matmul_io_attr io;
	rknn_matmul_ctx ctx;
	rknn_tensor_mem *mem;
	int8_t *b = malloc((size_t)K * N), *native;
	uint8_t *hit;

	(void)state;
	assert_non_null(b);
	fx_rng_seed(0x5eed0002);
	for (size_t i = 0; i < (size_t)K * N; i++)
		b[i] = (int8_t)(fx_rng() | 1);	/* never 0: padding is told apart */
	assert_int_equal(rknn_matmul_create(&ctx, &info, &io), RKNN_SUCC);
	/* Total size: N_al × K_al, as without segments. */
	assert_int_equal(io.B.size, align_up(N, B_N_GROUP_INT8) * align_up(K, B_K_GROUP));
	/* Padded beyond K x N: only memory of known size is written. */
	native = malloc(io.B.size);
	assert_non_null(native);
	assert_int_equal(rknn_B_normal_layout_to_native_layout(b, native, K, N, &info),
			 RKNN_ERR_PARAM_INVALID);
	free(native);
	mem = rknn_create_mem(ctx, io.B.size - 1);
	assert_non_null(mem);
	assert_int_equal(rknn_B_normal_layout_to_native_layout(b, mem->virt_addr, K, N, &info),
			 RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rknn_destroy_mem(ctx, mem), RKNN_SUCC);
	mem = rknn_create_mem(ctx, io.B.size);
	hit = calloc(io.B.size, 1);
	assert_true(mem && hit);
	native = mem->virt_addr;
	memset(native, 0x77, io.B.size);
	assert_int_equal(rknn_B_normal_layout_to_native_layout(b, native, K, N, &info), RKNN_SUCC);
	for (int k = 0; k < K; k++)
		for (int n = 0; n < N; n++) {
			size_t at = seg_b_index(k, n, K, N, B_N_GROUP_INT8);

			assert_true(at < io.B.size);
			assert_int_equal(native[at], b[(size_t)k * N + n]);
			hit[at] = 1;
		}
	for (size_t i = 0; i < io.B.size; i++)
		if (!hit[i])
			assert_int_equal(native[i], 0);
	assert_int_equal(rknn_destroy_mem(ctx, mem), RKNN_SUCC);
	assert_int_equal(rknn_matmul_destroy(ctx), RKNN_SUCC);
	free(hit);
	free(b);
}

/* B (K × N) row-major int8 into the context's B buffer: as is, or in the
 * native layout with positions from the segment rule. */
static void load_b_int8(rknn_tensor_mem *b, const int8_t *bm, int k, int n, int b_native)
{
	if (b_native)
		for (int q = 0; q < k; q++)
			for (int j = 0; j < n; j++)
				((int8_t *)b->virt_addr)[seg_b_index(q, j, k, n, B_N_GROUP_INT8)] =
					bm[(size_t)q * n + j];
	else
		memcpy(b->virt_addr, bm, (size_t)k * n);
}

/* int8 → int32 with K over one or two segment boundaries, normal layouts,
 * and with B native filled by the test from the segment rule. */
static void k_split_int8(int m, int k, int n, int b_native)
{
	rknn_matmul_info info = { .M = m, .K = k, .N = n, .type = RKNN_INT8_MM_INT8_TO_INT32,
				  .B_layout = (int16_t)b_native };
	struct fx_mm r;
	int8_t *bm = malloc((size_t)k * n);
	int32_t *want = malloc((size_t)m * n * sizeof(*want));

	assert_true(bm && want);
	fx_rng_seed((uint64_t)m * 31 + (uint64_t)k * 7 + (uint64_t)n + (uint64_t)b_native);
	fx_mm_open(&r, &info);
	fill_int8(r.a->virt_addr, (size_t)m * k);
	fill_int8(bm, (size_t)k * n);
	load_b_int8(r.b, bm, k, n, b_native);
	assert_int_equal(rknn_matmul_run(r.ctx), RKNN_SUCC);
	cpu_matmul_int8(r.a->virt_addr, bm, want, m, k, n);
	expect_c_int32(r.c, want, m, n);
	fx_mm_close(&r);
	free(want);
	free(bm);
}

static void k_split_two_segments(void **state)
{
	(void)state;
	k_split_int8(3, SEG_K + 64, 40, 0);
	k_split_int8(2, SEG_K + 64, 32, 1);
}

static void k_split_three_segments(void **state)
{
	(void)state;
	k_split_int8(2, 2 * SEG_K + 32, 32, 0);
	k_split_int8(5, 2 * SEG_K + 32, 48, 1);
}

/* Exactly one segment, and just past it (a 32-wide second segment). */
static void k_split_edges(void **state)
{
	(void)state;
	k_split_int8(4, SEG_K, 32, 0);
	k_split_int8(1, SEG_K + 1, 32, 0);
}

/* Requantisation as the hardware model reads OUT_CVT: 15-bit multiplier,
 * no shift for scales of 2^15 and above, halves rounded up
 * (sim/ASSUMPTIONS.md). */
static int32_t requant(int64_t acc, double scale, int32_t zp)
{
	return (int32_t)ref_requant_scale(acc, scale, zp, INT8_MIN, INT8_MAX);
}

/* int8 → int8 with zero points over two segments (B native from the rule
 * in the second run): the zero-point correction and requantisation happen
 * after the last partial sum. */
static void k_split_int8_out(int m, int k, int n, int b_native)
{
	rknn_matmul_info info = { .M = m, .K = k, .N = n, .type = RKNN_INT8_MM_INT8_TO_INT8,
				  .B_layout = (int16_t)b_native };
	const float sa = 0.02f, sb = 0.01f, sc = 4.0f;
	const int32_t za = 5, zb = -3, zc = 7;
	struct fx_mm r;
	int8_t *am, *bm = malloc((size_t)k * n);

	assert_non_null(bm);
	fx_rng_seed((uint64_t)m * 17 + (uint64_t)k * 3 + (uint64_t)n + (uint64_t)b_native);
	fx_mm_open(&r, &info);
	set_q(r.ctx, "A", sa, za);
	set_q(r.ctx, "B", sb, zb);
	set_q(r.ctx, "C", sc, zc);
	am = r.a->virt_addr;
	fill_int8(am, (size_t)m * k);
	fill_int8(bm, (size_t)k * n);
	load_b_int8(r.b, bm, k, n, b_native);
	assert_int_equal(rknn_matmul_run(r.ctx), RKNN_SUCC);
	for (int i = 0; i < m; i++)
		for (int j = 0; j < n; j++) {
			int64_t acc = 0;

			for (int q = 0; q < k; q++)
				acc += (int64_t)(am[(size_t)i * k + q] - za) * (bm[(size_t)q * n + j] - zb);
			assert_int_equal(((int8_t *)r.c->virt_addr)[i * n + j],
					 requant(acc, (double)(sa * sb / sc), zc));
		}
	fx_mm_close(&r);
	free(bm);
}

static void k_split_int8_int8(void **state)
{
	(void)state;
	k_split_int8_out(3, SEG_K + 64, 40, 0);
	k_split_int8_out(2, 2 * SEG_K + 96, 33, 1);
}

/* fp16 → fp32 / fp16 across a segment boundary: values q / 8 with
 * |q| <= 7 (exact in fp16), so every product and partial sum is a multiple
 * of 1/64 below 2^24 / 64 and exact in fp32 whatever the order of
 * additions. */
static void k_split_fp16_run(rknn_matmul_type type)
{
	const int m = 2, k = SEG_K + 96, n = 20;
	rknn_matmul_info info = { .M = m, .K = k, .N = n, .type = type };
	struct fx_mm r;
	int *qa = malloc((size_t)m * k * sizeof(int)), *qb = malloc((size_t)k * n * sizeof(int));

	assert_true(qa && qb);
	fx_rng_seed(0x5eed0003 + (uint64_t)type);
	fx_mm_open(&r, &info);
	for (int i = 0; i < m * k; i++) {
		qa[i] = (int)(fx_rng() % 15) - 7;
		((uint16_t *)r.a->virt_addr)[i] = ref_f32_to_f16((float)qa[i] / 8.0f);
	}
	for (int i = 0; i < k * n; i++) {
		qb[i] = (int)(fx_rng() % 15) - 7;
		((uint16_t *)r.b->virt_addr)[i] = ref_f32_to_f16((float)qb[i] / 8.0f);
	}
	assert_int_equal(rknn_matmul_run(r.ctx), RKNN_SUCC);
	for (int i = 0; i < m; i++)
		for (int j = 0; j < n; j++) {
			long acc = 0;
			double want;
			float got;

			for (int q = 0; q < k; q++)
				acc += (long)qa[i * k + q] * qb[q * n + j];
			want = (double)acc / 64.0;
			if (type == RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32) {
				memcpy(&got, (uint8_t *)r.c->virt_addr + ((size_t)i * n + j) * 4,
				       sizeof(got));
				assert_true(got == want);
			} else {
				/* fp16 out: rounded to 11 significant bits once */
				double h = ref_f16_to_f32(((uint16_t *)r.c->virt_addr)[i * n + j]);

				assert_true(fabs(h - want) <= fabs(want) / 2048.0);
			}
		}
	fx_mm_close(&r);
	free(qa);
	free(qb);
}

static void k_split_fp16(void **state)
{
	(void)state;
	k_split_fp16_run(RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32);
	k_split_fp16_run(RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT16);
}

static void k_bounds(void **state)
{
	rknn_matmul_info info = { .M = 2, .K = 65537, .N = 32, .type = RKNN_INT8_MM_INT8_TO_INT32 };
	rknn_matmul_io_attr io;
	rknn_matmul_ctx ctx;
	int8_t one = 1;

	(void)state;
	assert_int_equal(rknn_matmul_create(&ctx, &info, &io), RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rknn_B_normal_layout_to_native_layout(&one, &one, 65537, 32, &info),
			 RKNN_ERR_PARAM_INVALID);
	info.K = 65536;
	assert_int_equal(rknn_matmul_create(&ctx, &info, &io), RKNN_SUCC);
	assert_int_equal(rknn_matmul_destroy(ctx), RKNN_SUCC);
	/* K, N other than info's: B_output is sized for info's (a hostile
	 * client's buffer of 32 x 32 bytes, converted as 64 x 32, overflowed) */
	info.K = 64;
	assert_int_equal(rknn_B_normal_layout_to_native_layout(&one, &one, 32, 32, &info),
			 RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rknn_B_normal_layout_to_native_layout(&one, &one, 64, 16, &info),
			 RKNN_ERR_PARAM_INVALID);
	info.K = 65536;
	/* int8 → int8 sums carry zero points: 255 · 255 · 32768 < 2^31. */
	info.type = RKNN_INT8_MM_INT8_TO_INT8;
	info.K = 32769;
	assert_int_equal(rknn_matmul_create(&ctx, &info, &io), RKNN_ERR_PARAM_INVALID);
	info.K = 32768;
	assert_int_equal(rknn_matmul_create(&ctx, &info, &io), RKNN_SUCC);
	assert_int_equal(rknn_matmul_destroy(ctx), RKNN_SUCC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		FX_MATMUL_TEST(quant_round_trip),
		FX_MATMUL_TEST(quant_errors),
		FX_MATMUL_TEST(dynamic_shapes),
		FX_MATMUL_TEST(dynamic_shape_errors),
		FX_MATMUL_TEST(segmented_b_layout),
		FX_MATMUL_TEST(k_split_two_segments),
		FX_MATMUL_TEST(k_split_three_segments),
		FX_MATMUL_TEST(k_split_edges),
		FX_MATMUL_TEST(k_split_int8_int8),
		FX_MATMUL_TEST(k_split_fp16),
		FX_MATMUL_TEST(k_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
