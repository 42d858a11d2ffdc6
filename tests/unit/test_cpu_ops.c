/* SPDX-License-Identifier: MIT */
/*
 * CPU ops an application registers (runtime/cpu_ops.h), through a
 * container written here by hand from docs/FORMAT.md: input → "Negate"
 * (CPU) → Sigmoid (CPU, built in) → output, no NPU task at all. The
 * context is refused while Negate has no implementation, and created once
 * it is registered; the outputs equal a float computation written here;
 * the registry refuses duplicates (built-ins included) and incomplete ops;
 * the loader refuses a CPU op with NPU fields; rknn's asynchronous frames
 * work with a model that ends in a CPU op; the built-in Transpose and
 * Concat move every element where index arithmetic written here says
 * (requantising where the quantisations differ), and their checks refuse
 * bad parameters and shapes; the built-in AveragePool (a rectangular window,
 * unequal strides, a leading pad) and Softmax (along each axis) equal ONNX's
 * definitions computed here in double, quantised with ties to even (either
 * neighbour accepted only within 10^-3 of a half, where float and double
 * may part); the built-in Cast takes int8 to fp16 and back as the IEEE
 * layout decoded here and ONNX's quantisation say; Pow's function equals
 * the C library's pow on hand-picked edges. With a second graph
 * input added, the loader refuses it at arena bytes the first input holds
 * (both live from the start) and accepts it beside them.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rkbare.h"
#include "rknn_api.h"
#include "runtime/model.h"
#include "runtime/model_format.h"

#include "npu_fixture.h"

#define C	20u	/* two channel groups, the second partial */
#define H	3u
#define W	5u
#define N	(C * H * W)
#define C_MEM	32u	/* whole 16-channel groups */
#define ALIGN	64u
/* NC1HWC2 bytes of C_MEM channels, rounded to the arena's alignment */
#define T_BYTES	((C_MEM / RKB_CPU_C2 * H * W * RKB_CPU_C2 + ALIGN - 1) / ALIGN * ALIGN)

/* Three tensors: x, negated, y. */
static const float scale[3] = { 0.05f, 0.04f, 1.0f / 256.0f };
static const int32_t zp[3] = { 3, -7, -128 };

static struct dma_pool pool;

/* CRC-32 (IEEE, reflected, 0xEDB88320), bit by bit: the container's. */
static uint32_t crc32_ieee(const uint8_t *p, size_t n)
{
	uint32_t c = 0xffffffffu;

	for (size_t i = 0; i < n; i++) {
		c ^= p[i];
		for (int k = 0; k < 8; k++)
			c = c & 1u ? (c >> 1) ^ 0xedb88320u : c >> 1;
	}
	return ~c;
}

struct blob {
	uint8_t b[4096];
	size_t len;
};

static uint32_t put(struct blob *o, const void *p, size_t n, size_t align)
{
	uint32_t at;

	o->len = (o->len + align - 1) / align * align;
	at = (uint32_t)o->len;
	memcpy(o->b + o->len, p, n);
	o->len += n;
	return at;
}

/* No second graph input (build_ex). */
#define NO_Z	UINT32_MAX

/* The container; `kh` lets a test set an NPU field on the CPU op; z_at,
 * unless NO_Z, adds a second graph input "z" (read by no op) at that arena
 * offset. */
static size_t build_ex(uint8_t *out, uint32_t kh, uint32_t z_at)
{
	static const char strings[] = "\0x\0neg\0y\0Negate\0Sigmoid\0n1\0s1\0z";
	enum { S_X = 1, S_NEG = 3, S_Y = 7, S_NEGATE = 9, S_SIGMOID = 16, S_N1 = 24, S_S1 = 27,
	       S_Z = 30 };
	struct rkb_tensor t[4];
	struct rkb_op ops[2];
	struct rkb_io io[3];
	uint32_t n_t = z_at == NO_Z ? 3 : 4, n_in = z_at == NO_Z ? 1 : 2;
	struct rkb_plan plan = { .arena_bytes = 4 * T_BYTES, .tasks = 0 };
	struct rkb_section sec[7];
	struct rkb_header h;
	struct blob *o = calloc(1, sizeof(*o));
	const uint32_t names[3] = { S_X, S_NEG, S_Y };
	size_t len;

	assert_non_null(o);
	for (int i = 0; i < 3; i++)
		t[i] = (struct rkb_tensor){ .name = names[i], .dtype = RKB_DT_INT8, .c = C, .h = H,
					    .w = W, .c_mem = C_MEM, .scale = scale[i], .zp = zp[i],
					    .arena_offset = (uint32_t)i * T_BYTES,
					    .arena_bytes = T_BYTES };
	t[3] = t[0];
	t[3].name = S_Z;
	t[3].arena_offset = z_at;
	memset(ops, 0, sizeof(ops));
	ops[0] = (struct rkb_op){ .type = RKB_OP_CPU, .name = S_N1, .in = { 0, RKB_NONE },
				  .out = 1, .cpu_type = S_NEGATE, .kh = kh };
	ops[1] = (struct rkb_op){ .type = RKB_OP_CPU, .name = S_S1, .in = { 1, RKB_NONE },
				  .out = 2, .cpu_type = S_SIGMOID };
	io[0] = (struct rkb_io){ .name = S_X, .tensor = 0, .kind = RKB_IO_INT8,
				 .layout = RKB_LAYOUT_NCHW, .rank = 4, .dims = { 1, C, H, W } };
	io[2] = (struct rkb_io){ .name = S_Y, .tensor = 2, .kind = RKB_IO_INT8,
				 .layout = RKB_LAYOUT_NCHW, .rank = 4, .dims = { 1, C, H, W } };
	io[1] = io[0];
	io[1].name = S_Z;
	io[1].tensor = 3;

	o->len = sizeof(h) + sizeof(sec);
	sec[0] = (struct rkb_section){ RKB_SEC_STRINGS, put(o, strings, sizeof(strings), 4),
				       sizeof(strings), sizeof(strings) };
	sec[1] = (struct rkb_section){ RKB_SEC_TENSORS, put(o, t, n_t * sizeof(t[0]), 4),
				       n_t * (uint32_t)sizeof(t[0]), n_t };
	sec[2] = (struct rkb_section){ RKB_SEC_OPS, put(o, ops, sizeof(ops), 4), sizeof(ops), 2 };
	sec[3] = (struct rkb_section){ RKB_SEC_INPUTS, put(o, io, n_in * sizeof(io[0]), 4),
				       n_in * (uint32_t)sizeof(io[0]), n_in };
	sec[4] = (struct rkb_section){ RKB_SEC_OUTPUTS, put(o, &io[2], sizeof(io[2]), 4),
				       sizeof(io[2]), 1 };
	sec[5] = (struct rkb_section){ RKB_SEC_CONSTANTS, put(o, "", 0, ALIGN), 0, 0 };
	sec[6] = (struct rkb_section){ RKB_SEC_PLAN, put(o, &plan, sizeof(plan), 4),
				       sizeof(plan), 1 };
	memcpy(o->b + sizeof(h), sec, sizeof(sec));
	h = (struct rkb_header){ .magic = RKB_MAGIC, .version_major = RKB_VERSION_MAJOR,
				 .version_minor = RKB_VERSION_MINOR, .header_bytes = sizeof(h),
				 .file_bytes = (uint32_t)o->len, .target = RKB_TARGET_RK3588,
				 .section_count = 7, .section_offset = sizeof(h) };
	memcpy(o->b, &h, sizeof(h));
	h.crc32 = crc32_ieee(o->b, o->len);
	memcpy(o->b, &h, sizeof(h));
	len = o->len;
	memcpy(out, o->b, len);
	free(o);
	return len;
}

static size_t build(uint8_t *out, uint32_t kh)
{
	return build_ex(out, kh, NO_Z);
}

static int8_t quantise(float v, int i)
{
	float q = nearbyintf(v / scale[i]) + (float)zp[i];

	return (int8_t)fminf(fmaxf(q, -128.0f), 127.0f);
}

/* The application's op: out = −in, requantised. */
static int negate(const struct rkb_cpu_call *call)
{
	for (unsigned int ch = 0; ch < call->in.c; ch++)
		for (unsigned int y = 0; y < call->in.h; y++)
			for (unsigned int x = 0; x < call->in.w; x++) {
				float v = call->in.scale *
					  (float)(call->in.data[rkb_cpu_at(&call->in, ch, y, x)] -
						  call->in.zp);
				float q = nearbyintf(-v / call->out.scale) + (float)call->out.zp;

				call->out.data[rkb_cpu_at(&call->out, ch, y, x)] =
					(int8_t)fminf(fmaxf(q, -128.0f), 127.0f);
			}
	return 0;
}

static int same_shape(const struct rkb_cpu_call *call, char *err, size_t err_len)
{
	if (call->in.c == call->out.c && call->in.h == call->out.h && call->in.w == call->out.w)
		return 0;
	snprintf(err, err_len, "Negate keeps the shape");
	return -1;
}

static const struct rkb_cpu_op negate_op = { "Negate", same_shape, negate };

static int setup(void **state)
{
	(void)state;
	fx_attach(0x1);
	return dma_pool_init_default(&pool);
}

static void test_registered_op(void **state)
{
	static uint8_t blob[4096];
	static const struct rkb_cpu_op dup = { "Sigmoid", NULL, negate };
	static const struct rkb_cpu_op no_run = { "Other", NULL, NULL };
	const struct rkb_io_fmt raw = { .kind = RKB_IO_INT8 };
	struct dma_pool_stats before, after;
	struct rkb_run_stats st;
	struct rkb_ctx *ctx = NULL;
	int8_t x[N], y[N];
	size_t len = build(blob, 0);
	char err[256];
	uint32_t seed = 7;

	(void)state;
	fx_pool_snapshot(&pool, &before);
	if (rkb_ctx_create(&fx_dev, &pool, blob, len, 1, 0, &ctx, err, sizeof(err)) != RKB_E_OP)
		fail_msg("%s", err);
	assert_null(ctx);
	assert_non_null(strstr(err, "Negate"));
	fx_pool_snapshot(&pool, &after);
	fx_assert_pool_equal(&before, &after);

	assert_int_equal(rkb_cpu_op_register(&dup), RKB_E_ARG);
	assert_int_equal(rkb_cpu_op_register(&no_run), RKB_E_ARG);
	assert_int_equal(rkb_cpu_op_register(&negate_op), RKB_OK);
	assert_int_equal(rkb_cpu_op_register(&negate_op), RKB_E_ARG);

	assert_int_equal(rkb_ctx_create(&fx_dev, &pool, blob, len, 1, 0, &ctx, err, sizeof(err)),
			 RKB_OK);
	for (unsigned int i = 0; i < N; i++) {
		seed = seed * 1103515245u + 12345u;
		x[i] = (int8_t)(seed >> 16);
	}
	assert_int_equal(rkb_input_set(ctx, 0, x, sizeof(x), &raw), RKB_OK);
	assert_int_equal(rkb_run(ctx), RKB_OK);
	assert_int_equal(rkb_output_get(ctx, 0, y, sizeof(y), &raw), RKB_OK);
	for (unsigned int i = 0; i < N; i++) {
		int8_t neg = quantise(-scale[0] * (float)(x[i] - zp[0]), 1);
		float s = 1.0f / (1.0f + expf(-scale[1] * (float)(neg - zp[1])));

		if (y[i] != quantise(s, 2))
			fail_msg("element %u: %d, expected %d (x %d)", i, y[i], quantise(s, 2),
				 x[i]);
	}
	rkb_ctx_stats(ctx, &st);
	assert_int_equal(st.kicks, 0);
	rkb_ctx_destroy(ctx);
	fx_pool_snapshot(&pool, &after);
	fx_assert_pool_equal(&before, &after);
}

/*
 * rknn's asynchronous frames with a model that ends in a CPU op (its runs
 * end within rknn_run): outputs_get gives zeros before any frame has
 * ended, then the frame before, as with a model that ends in a kick.
 */
static void test_async_cpu_last(void **state)
{
	static uint8_t blob[4096];
	size_t len = build(blob, 0);
	rknn_context ctx = 0;
	int8_t x[N], got[N], want[N], zero[N] = { 0 };
	rknn_input in = { .index = 0, .buf = x, .size = sizeof(x), .type = RKNN_TENSOR_INT8,
			  .fmt = RKNN_TENSOR_NCHW };
	rknn_output out = { .want_float = 0, .is_prealloc = 1, .index = 0, .buf = got,
			    .size = sizeof(got) };
	rknn_output_extend ext;

	(void)state;
	for (unsigned int i = 0; i < N; i++) {
		int8_t neg;

		x[i] = (int8_t)(i * 13u);
		neg = quantise(-scale[0] * (float)(x[i] - zp[0]), 1);
		want[i] = quantise(1.0f / (1.0f + expf(-scale[1] * (float)(neg - zp[1]))), 2);
	}
	assert_int_equal(rknn_init(&ctx, blob, (uint32_t)len, RKNN_FLAG_ASYNC_MASK, NULL),
			 RKNN_SUCC);
	assert_int_equal(rknn_inputs_set(ctx, 1, &in), RKNN_SUCC);
	assert_int_equal(rknn_run(ctx, NULL), RKNN_SUCC);
	assert_int_equal(rknn_outputs_get(ctx, 1, &out, &ext), RKNN_SUCC);
	assert_memory_equal(got, zero, N);
	assert_int_equal(ext.frame_id, 0);
	assert_int_equal(rknn_inputs_set(ctx, 1, &in), RKNN_SUCC);
	assert_int_equal(rknn_run(ctx, NULL), RKNN_SUCC);
	assert_int_equal(rknn_outputs_get(ctx, 1, &out, &ext), RKNN_SUCC);
	assert_memory_equal(got, want, N);
	assert_int_equal(ext.frame_id, 1);
	assert_int_equal(rknn_destroy(ctx), RKNN_SUCC);
}

static void test_cpu_op_with_npu_fields(void **state)
{
	static uint8_t blob[4096];
	struct rkb_ctx *ctx = NULL;
	size_t len = build(blob, 3);
	char err[256];

	(void)state;
	assert_int_equal(rkb_ctx_create(&fx_dev, &pool, blob, len, 1, 0, &ctx, err, sizeof(err)),
			 RKB_E_OP);
	assert_non_null(strstr(err, "NPU fields"));
}

/* Transpose on NC1HWC2 maps addressed by the layout's formula, written
 * here: output (c, y, x) of perm (2, 0, 1) is input (y, x, c). */
static size_t nc1hwc2(unsigned int h, unsigned int w, unsigned int ch, unsigned int y,
		      unsigned int x)
{
	return (((size_t)(ch / 16u) * h + y) * w + x) * 16u + ch % 16u;
}

static void test_transpose(void **state)
{
	enum { TC = 20, TH = 6, TW = 3 };	/* two channel groups in; out TW x TC x TH */
	static int8_t in[2 * TH * TW * 16], out[1 * TC * TH * 16];
	const struct rkb_cpu_op *op = rkb_cpu_op_find("Transpose");
	int32_t perm[3] = { 2, 0, 1 }, bad[3] = { 2, 2, 1 };
	struct rkb_cpu_call call = {
		.node = "t", .in = { in, TC, TH, TW, 0.5f, 1 },
		.out = { out, TW, TC, TH, 0.5f, 1 }, .params = perm, .params_bytes = sizeof(perm),
	};
	char err[160];

	(void)state;
	assert_non_null(op);
	for (size_t i = 0; i < sizeof(in); i++)
		in[i] = (int8_t)(i * 7u + 3u);
	assert_int_equal(op->check(&call, err, sizeof(err)), 0);
	assert_int_equal(op->run(&call), 0);
	for (unsigned int c = 0; c < TW; c++)
		for (unsigned int y = 0; y < TC; y++)
			for (unsigned int x = 0; x < TH; x++)
				assert_int_equal(out[nc1hwc2(TC, TH, c, y, x)],
						 in[nc1hwc2(TH, TW, y, x, c)]);
	/* another output quantisation: requantised, real values kept */
	call.out.scale = 1.0f;
	call.out.zp = 0;
	assert_int_equal(op->run(&call), 0);
	assert_int_equal(out[nc1hwc2(TC, TH, 1, 2, 3)],
			 (int8_t)lrintf(0.5f * (float)(in[nc1hwc2(TH, TW, 2, 3, 1)] - 1)));
	call.params = bad;
	assert_int_not_equal(op->check(&call, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "permutation"));
	call.params = perm;
	call.params_bytes = 2 * sizeof(int32_t);
	assert_int_not_equal(op->check(&call, err, sizeof(err)), 0);
	call.params_bytes = sizeof(perm);
	call.out.c = TC;
	assert_int_not_equal(op->check(&call, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "permuted"));
}

/* Reshape: [1, 20, 6, 3] poured into [1, 4, 90] (a map of one channel,
 * 4 rows of 90): output element k of the row-major order is input element
 * k, both addressed by the layout's formula above. */
static void test_reshape(void **state)
{
	enum { RC = 20, RH = 6, RW = 3, OH = 4, OW = RC * RH * RW / OH };
	static int8_t in[2 * RH * RW * 16], out[1 * OH * OW * 16];
	const struct rkb_cpu_op *op = rkb_cpu_op_find("Reshape");
	struct rkb_cpu_call call = {
		.node = "r", .in = { in, RC, RH, RW, 0.5f, 1 },
		.out = { out, 1, OH, OW, 0.5f, 1 },
	};
	char err[160];

	(void)state;
	assert_non_null(op);
	for (size_t i = 0; i < sizeof(in); i++)
		in[i] = (int8_t)(i * 5u + 1u);
	assert_int_equal(op->check(&call, err, sizeof(err)), 0);
	assert_int_equal(op->run(&call), 0);
	for (unsigned int k = 0; k < RC * RH * RW; k++)
		assert_int_equal(out[nc1hwc2(OH, OW, 0, k / OW, k % OW)],
				 in[nc1hwc2(RH, RW, k / (RH * RW), k / RW % RH, k % RW)]);
	call.out.w = OW - 1;
	assert_int_not_equal(op->check(&call, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "element count"));
}

/* q = zp + round(v / scale), ties to even, clamped to int8; *near_half
 * when v / scale lies so close to a half that float arithmetic may round
 * it the other way. */
static int ref_quant(double v, float q_scale, int32_t q_zp, bool *near_half)
{
	double x = v / q_scale, f = x - floor(x);
	double q = nearbyint(x) + q_zp;

	*near_half = fabs(f - 0.5) < 1e-3;
	return q < -128 ? -128 : q > 127 ? 127 : (int)q;
}

static void expect_quant(int8_t got, double v, float q_scale, int32_t q_zp, const char *what,
			 unsigned int c, unsigned int y, unsigned int x)
{
	bool near_half;
	int want = ref_quant(v, q_scale, q_zp, &near_half);

	if (got != want && !(near_half && abs(got - want) == 1))
		fail_msg("%s (%u,%u,%u): %d, ONNX's %d (%f)", what, c, y, x, got, want, v);
}

/* AveragePool, count_include_pad 0: the mean of the window's cells inside
 * the input, a 3x2 window, strides 2 and 1, one padded row on top. */
static void test_avg_pool(void **state)
{
	enum { PC = 18, PH = 7, PW = 5, KH = 3, KW = 2, SY = 2, SX = 1, PT = 1, PL = 0 };
	enum { OH = (PH + 2 * PT - KH) / SY + 1, OW = (PW - KW) / SX + 1 };
	static int8_t in[2 * PH * PW * 16], out[2 * OH * OW * 16];
	const struct rkb_cpu_op *op = rkb_cpu_op_find("AveragePool");
	int32_t win[RKB_CPU_POOL_PARAMS] = { KH, KW, SY, SX, PT, PL };
	struct rkb_cpu_call call = {
		.node = "p", .in = { in, PC, PH, PW, 0.05f, -3 },
		.out = { out, PC, OH, OW, 0.03f, 4 }, .params = win, .params_bytes = sizeof(win),
	};
	char err[160];

	(void)state;
	assert_non_null(op);
	for (size_t i = 0; i < sizeof(in); i++)
		in[i] = (int8_t)(i * 37u + 11u);
	assert_int_equal(op->check(&call, err, sizeof(err)), 0);
	assert_int_equal(op->run(&call), 0);
	for (unsigned int c = 0; c < PC; c++)
		for (unsigned int oy = 0; oy < OH; oy++)
			for (unsigned int ox = 0; ox < OW; ox++) {
				double sum = 0;
				int cells = 0;

				for (int ky = 0; ky < KH; ky++)
					for (int kx = 0; kx < KW; kx++) {
						int y = (int)oy * SY - PT + ky, x = (int)ox * SX - PL + kx;

						if (y < 0 || x < 0 || y >= PH || x >= PW)
							continue;
						sum += 0.05 * (in[nc1hwc2(PH, PW, c, (unsigned int)y,
									  (unsigned int)x)] + 3);
						cells++;
					}
				expect_quant(out[nc1hwc2(OH, OW, c, oy, ox)], sum / cells, 0.03f, 4,
					     "AveragePool", c, oy, ox);
			}
	/* a pad as large as the window is refused */
	win[4] = KH;
	assert_int_not_equal(op->check(&call, err, sizeof(err)), 0);
}

/* Softmax along channels, rows and columns: exp(x - max) / sum exp(x - max). */
static void test_softmax(void **state)
{
	enum { SC = 20, SH = 3, SW = 4 };
	static int8_t in[2 * SH * SW * 16], out[2 * SH * SW * 16];
	const struct rkb_cpu_op *op = rkb_cpu_op_find("Softmax");
	int32_t axis;
	struct rkb_cpu_call call = {
		.node = "s", .in = { in, SC, SH, SW, 0.1f, 2 },
		.out = { out, SC, SH, SW, 1.0f / 256.0f, -128 }, .params = &axis,
		.params_bytes = sizeof(axis),
	};
	char err[160];

	(void)state;
	assert_non_null(op);
	for (size_t i = 0; i < sizeof(in); i++)
		in[i] = (int8_t)(i * 53u + 5u);
	for (axis = RKB_CPU_AXIS_C; axis <= RKB_CPU_AXIS_W; axis++) {
		unsigned int len = axis == RKB_CPU_AXIS_C ? SC : axis == RKB_CPU_AXIS_H ? SH : SW;

		assert_int_equal(op->check(&call, err, sizeof(err)), 0);
		assert_int_equal(op->run(&call), 0);
		for (unsigned int c = 0; c < SC; c++)
			for (unsigned int y = 0; y < SH; y++)
				for (unsigned int x = 0; x < SW; x++) {
					double top = -INFINITY, sum = 0, v[SC];

					for (unsigned int k = 0; k < len; k++) {
						unsigned int cc = axis == RKB_CPU_AXIS_C ? k : c;
						unsigned int yy = axis == RKB_CPU_AXIS_H ? k : y;
						unsigned int xx = axis == RKB_CPU_AXIS_W ? k : x;

						v[k] = 0.1 * (in[nc1hwc2(SH, SW, cc, yy, xx)] - 2);
						top = v[k] > top ? v[k] : top;
					}
					for (unsigned int k = 0; k < len; k++)
						sum += exp(v[k] - top);
					expect_quant(out[nc1hwc2(SH, SW, c, y, x)],
						     exp(v[axis == RKB_CPU_AXIS_C ? c :
							   axis == RKB_CPU_AXIS_H ? y : x] - top) / sum,
						     1.0f / 256.0f, -128, "Softmax", c, y, x);
				}
	}
	axis = 3;
	assert_int_not_equal(op->check(&call, err, sizeof(err)), 0);
}

/* Concat along the rows of two maps in different quantisations; refusals. */
static void test_concat(void **state)
{
	enum { KC = 3, KW = 4, HA = 2, HB = 5 };
	static int8_t a[HA * KW * 16], b[HB * KW * 16], out[(HA + HB) * KW * 16];	/* one group */
	const struct rkb_cpu_op *op = rkb_cpu_op_find("Concat"), *sig = rkb_cpu_op_find("Sigmoid");
	int32_t rows = RKB_CPU_AXIS_H, bad_axis = 3;
	struct rkb_cpu_call call = {
		.node = "cat", .in = { a, KC, HA, KW, 0.5f, 0 }, .in2 = { b, KC, HB, KW, 0.25f, 4 },
		.out = { out, KC, HA + HB, KW, 0.5f, 0 }, .params = &rows,
		.params_bytes = sizeof(rows),
	};
	char err[160];

	(void)state;
	assert_non_null(op);
	for (size_t i = 0; i < sizeof(a); i++)
		a[i] = (int8_t)(i * 5u + 1u);
	for (size_t i = 0; i < sizeof(b); i++)
		b[i] = (int8_t)(i * 3u + 7u);
	assert_int_equal(op->check(&call, err, sizeof(err)), 0);
	assert_int_equal(op->run(&call), 0);
	for (unsigned int c = 0; c < KC; c++)
		for (unsigned int y = 0; y < HA + HB; y++)
			for (unsigned int x = 0; x < KW; x++) {
				int8_t got = out[nc1hwc2(HA + HB, KW, c, y, x)];
				/* a as it is (same quantisation); b from 0.25 (q − 4) to 0.5 q */
				long want = y < HA ? a[nc1hwc2(HA, KW, c, y, x)] :
					    lrintf(0.25f * (float)(b[nc1hwc2(HB, KW, c, y - HA, x)] -
								   4) / 0.5f);

				assert_int_equal(got, want);
			}
	call.params = &bad_axis;
	assert_int_not_equal(op->check(&call, err, sizeof(err)), 0);
	call.params = &rows;
	call.out.h = HA + HB + 1;
	assert_int_not_equal(op->check(&call, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "do not make"));
	/* a one-input op refuses a second input */
	call.out = call.in;
	call.params = NULL;
	call.params_bytes = 0;
	assert_int_not_equal(sig->check(&call, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "second input"));
}

/* Two graph inputs are live together from the start: sharing bytes, the
 * second would overwrite the first as it is set. z is read by no op, so
 * its life ends there: the bytes of neg and y, born later, are free. */
/* fp16 bits → float, decoded here from the IEEE layout (1, 5, 10 bits). */
static float half_value(uint16_t h)
{
	int e = (h >> 10) & 0x1f, m = h & 0x3ff;
	float v = e ? ldexpf((float)(m | 0x400), e - 25) : ldexpf((float)m, -24);

	return h & 0x8000u ? -v : v;
}

/* Pow and Log (ONNX's; the C library's pow and log in double as the
 * judge, which the kernel library cannot take): integer exponents of
 * either sign on any base, fractional ones on positive bases, and the edges
 * IEEE pow gives — 0 to a negative power +inf, a negative base to a
 * fraction NaN, x^0 1; log of each base (−inf at 0, NaN below). */
static void test_pow(void **state)
{
	static const float base[] = { 2.0f, -2.0f, 0.5f, 3.7f, 0.0f, -0.0f, 1e-3f, 100.0f };
	static const float expo[] = { 0.0f, 1.0f, 2.0f, 3.0f, -1.0f, -3.0f, 0.5f, 0.7f, -1.5f,
				      10.0f, 2.5f };

	(void)state;
	for (size_t i = 0; i < sizeof(base) / sizeof(base[0]); i++)
		for (size_t j = 0; j < sizeof(expo) / sizeof(expo[0]); j++) {
			double want = pow((double)base[i], (double)expo[j]);
			float got = rkb_cpu_fn_eval(RKB_CPU_FN_POW_K, expo[j], 0.0f, base[i]);
			float k_got = rkb_cpu_fn_eval(RKB_CPU_FN_K_POW, base[i], 0.0f, expo[j]);

			if (isnan(want) ? !isnan(got) || !isnan(k_got) :
			    isinf(want) ? got != (float)want || k_got != (float)want :
			    fabs(got - want) > 4e-6 * fabs(want) + 1e-30 ||
			    fabs(k_got - want) > 4e-6 * fabs(want) + 1e-30)
				fail_msg("pow(%g, %g) = %g / %g, want %g", (double)base[i],
					 (double)expo[j], (double)got, (double)k_got, want);
		}
	for (size_t i = 0; i < sizeof(base) / sizeof(base[0]); i++) {
		double want = log((double)base[i]);
		float got = rkb_cpu_fn_eval(RKB_CPU_FN_LOG, 0.0f, 0.0f, base[i]);

		if (isnan(want) ? !isnan(got) : isinf(want) ? got != (float)want :
		    fabs(got - want) > 2e-7 * fabs(want) + 2e-7)
			fail_msg("log(%g) = %g, want %g", (double)base[i], (double)got, want);
	}
}

/* Cast: int8 → fp16 keeps each real value to fp16's nearest (within half
 * its step), fp16 → int8 quantises it as ONNX does (ties to even,
 * saturating), both addressed by the layouts' formulas. */
static void test_cast(void **state)
{
	enum { CC = 20, CH = 3, CW = 5 };
	static int8_t q[2 * CH * CW * 16], back[2 * CH * CW * 16];
	static uint16_t f[3 * CH * CW * 8];	/* 20 channels: 3 groups of 8 */
	const struct rkb_cpu_op *op = rkb_cpu_op_find(RKB_CPU_CAST);
	struct rkb_cpu_call to_half = {
		.node = "c", .in = { q, CC, CH, CW, 0.05f, 3 },
		.out = { (int8_t *)(void *)f, CC, CH, CW, 1.0f, 0, RKB_CPU_FP16 },
	};
	struct rkb_cpu_call to_int8 = {
		.node = "c", .in = to_half.out, .out = { back, CC, CH, CW, 0.03f, -5 },
	};
	char err[160];

	(void)state;
	assert_non_null(op);
	for (size_t i = 0; i < sizeof(q); i++)
		q[i] = (int8_t)(i * 37u + 11u);
	assert_int_equal(op->check(&to_half, err, sizeof(err)), 0);
	assert_int_equal(op->run(&to_half), 0);
	assert_int_equal(op->run(&to_int8), 0);
	for (unsigned int c = 0; c < CC; c++)
		for (unsigned int y = 0; y < CH; y++)
			for (unsigned int x = 0; x < CW; x++) {
				float v = 0.05f * (float)(q[nc1hwc2(CH, CW, c, y, x)] - 3);
				size_t at = (((size_t)(c / 8u) * CH + y) * CW + x) * 8u + c % 8u;
				float h = half_value(f[at]), r;
				int e;

				frexpf(v, &e);
				assert_true(fabsf(h - v) <= ldexpf(1.0f, e - 12));
				r = fminf(fmaxf(nearbyintf(h / 0.03f) - 5.0f, -128.0f), 127.0f);
				assert_int_equal(back[nc1hwc2(CH, CW, c, y, x)], (int8_t)r);
			}
	to_int8.out.w = CW + 1;
	assert_int_not_equal(op->check(&to_int8, err, sizeof(err)), 0);
}

static void test_inputs_sharing_arena(void **state)
{
	static uint8_t blob[4096];
	const uint32_t on_x[] = { 0, ALIGN, T_BYTES - ALIGN };
	const uint32_t free_at[] = { T_BYTES, 2 * T_BYTES, 3 * T_BYTES };
	struct rkb_model m;
	char err[256];
	size_t len;

	(void)state;
	for (size_t i = 0; i < sizeof(free_at) / sizeof(free_at[0]); i++) {
		len = build_ex(blob, 0, free_at[i]);
		if (rkb_model_load(blob, len, &m, err, sizeof(err)) != RKB_OK)
			fail_msg("z at %u: %s", free_at[i], err);
		assert_int_equal(m.n_inputs, 2);
		rkb_model_unload(&m);
	}
	for (size_t i = 0; i < sizeof(on_x) / sizeof(on_x[0]); i++) {
		len = build_ex(blob, 0, on_x[i]);
		assert_int_equal(rkb_model_load(blob, len, &m, err, sizeof(err)), RKB_E_PLAN);
		assert_non_null(strstr(err, "'x' and 'z'"));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registered_op),
		cmocka_unit_test(test_async_cpu_last),
		cmocka_unit_test(test_cpu_op_with_npu_fields),
		cmocka_unit_test(test_transpose),
		cmocka_unit_test(test_reshape),
		cmocka_unit_test(test_concat),
		cmocka_unit_test(test_inputs_sharing_arena),
		cmocka_unit_test(test_avg_pool),
		cmocka_unit_test(test_softmax),
		cmocka_unit_test(test_cast),
		cmocka_unit_test(test_pow),
	};

	return cmocka_run_group_tests(tests, setup, fx_teardown);
}
