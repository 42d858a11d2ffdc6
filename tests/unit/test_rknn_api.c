// SPDX-License-Identifier: MIT
/*
 * A client of include/rknn_api.h that calls only rknn functions, as code
 * written for librknnrt does (on the host the NPU model is attached first,
 * which a board does not need): the first rknn_init brings the NPU up and
 * creates the DMA pool. On the container the build compiles (Fashion-MNIST,
 * build/models/fmnist/fmnist.rkb):
 *   - the same image given as float32 NCHW, float16 NCHW, uint8 NHWC pixels
 *     and as a native NC1HWC2 int8 tensor built here by the documented
 *     layout (pass_through) gives the same outputs, on every core and in a
 *     duplicated context, and want_float equals scale × (raw − zp);
 *   - attributes report what the container says; unsupported flags,
 *     queries, masks and calls return the rknn error codes;
 *   - 100 init / destroy cycles and create_mem / destroy_mem leak nothing
 *     (LeakSanitizer).
 * On the same classifier compiled with --precision fp16: float16 attributes
 * without quantisation; float32, float16 and a native NC1HWC2 fp16 tensor
 * built here give the same outputs, half outputs are the float ones rounded,
 * and the class is the int8 model's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rknn_api.h"
#include "runtime/rknn_device.h"
#include "sim/sim_host.h"
#include "npu_fixture.h"

#define MODEL_PATH	"build/models/fmnist/fmnist.rkb"
#define MODEL_FP16_PATH	"build/models/fmnist/fmnist_fp16.rkb"
#define C2_FP16		8u		/* fp16 channels per 16-byte atom */
#define IMG		28u
#define PIXELS		(IMG * IMG)
#define CLASSES		10u
#define C2		16u		/* int8 channels per 16-byte atom */
#define SEED		20261124u
#define FMNIST_OPS	6u	/* the default model's ops (rkbare info) */

static uint8_t *model;
static size_t model_size;
static struct sim_soc *soc;
static uint8_t pixels[PIXELS];

static uint8_t *model_fp16;
static size_t model_fp16_size;

static int setup(void **state)
{
	const struct sim_config cfg = { .powered_at_reset = false };
	uint32_t s = SEED;

	(void)state;
	model = fx_read_file("test_rknn_api", MODEL_PATH, &model_size);
	model_fp16 = fx_read_file("test_rknn_api", MODEL_FP16_PATH, &model_fp16_size);
	if (!model || !model_fp16)
		return -1;
	for (unsigned int i = 0; i < PIXELS; i++) {
		s = s * 1103515245u + 12345u;
		pixels[i] = (uint8_t)(s >> 16);
	}
	soc = sim_host_attach(&cfg);
	return soc ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	free(model);
	free(model_fp16);
	sim_host_detach(soc);
	return 0;
}

/* binary32 → binary16, round to nearest even, for values in [0, 1]. */
static uint16_t to_half(float f)
{
	uint32_t b, exp, man, h;

	memcpy(&b, &f, sizeof(b));
	if (!(b & 0x7fffffffu))
		return 0;
	exp = (b >> 23) & 0xff;
	man = b & 0x7fffff;
	if (exp < 113) {	/* subnormal half: not reached for p/255, p >= 1 */
		return 0;
	}
	h = ((exp - 112) << 10) | (man >> 13);
	if ((man & 0x1fff) > 0x1000 || ((man & 0x1fff) == 0x1000 && (h & 1)))
		h++;
	return (uint16_t)h;
}

static rknn_context init(uint32_t flags)
{
	rknn_context ctx = 0;

	assert_int_equal(rknn_init(&ctx, model, model_size, flags, NULL), RKNN_SUCC);
	return ctx;
}

static void run_raw(rknn_context ctx, rknn_input *in, int8_t raw[CLASSES])
{
	rknn_output out = { .want_float = 0, .index = 0 };

	assert_int_equal(rknn_inputs_set(ctx, 1, in), RKNN_SUCC);
	assert_int_equal(rknn_run(ctx, NULL), RKNN_SUCC);
	assert_int_equal(rknn_outputs_get(ctx, 1, &out, NULL), RKNN_SUCC);
	assert_int_equal(out.size, CLASSES);
	memcpy(raw, out.buf, CLASSES);
	assert_int_equal(rknn_outputs_release(ctx, 1, &out), RKNN_SUCC);
}

/* Run ctx on input in; float logits and, when half is given, the half ones. */
static void run_fp16(rknn_context ctx, rknn_input *in, float logits[CLASSES],
		     uint16_t half[CLASSES])
{
	rknn_output out[2] = { { .want_float = 1, .index = 0 }, { .want_float = 0, .index = 0 } };

	assert_int_equal(rknn_inputs_set(ctx, 1, in), RKNN_SUCC);
	assert_int_equal(rknn_run(ctx, NULL), RKNN_SUCC);
	assert_int_equal(rknn_outputs_get(ctx, 1, &out[0], NULL), RKNN_SUCC);
	assert_int_equal(out[0].size, CLASSES * sizeof(float));
	memcpy(logits, out[0].buf, CLASSES * sizeof(float));
	assert_int_equal(rknn_outputs_release(ctx, 1, &out[0]), RKNN_SUCC);
	if (!half)
		return;
	assert_int_equal(rknn_outputs_get(ctx, 1, &out[1], NULL), RKNN_SUCC);
	assert_int_equal(out[1].size, CLASSES * sizeof(uint16_t));
	memcpy(half, out[1].buf, CLASSES * sizeof(uint16_t));
	assert_int_equal(rknn_outputs_release(ctx, 1, &out[1]), RKNN_SUCC);
}

static unsigned int argmax(const float *v, unsigned int n)
{
	unsigned int best = 0;

	for (unsigned int i = 1; i < n; i++)
		if (v[i] > v[best])
			best = i;
	return best;
}

static void test_fp16_model(void **state)
{
	float f32[PIXELS], want[CLASSES], got[CLASSES], int8_logits[CLASSES], want_bytes[CLASSES];
	uint16_t f16[PIXELS], half[CLASSES], *native;
	rknn_tensor_attr in_attr = { .index = 0 }, out_attr = { .index = 0 }, nat = { .index = 0 };
	rknn_input in = { .index = 0, .buf = f32, .size = sizeof(f32),
			  .type = RKNN_TENSOR_FLOAT32, .fmt = RKNN_TENSOR_NCHW };
	rknn_context ctx = 0, ref = init(0);

	(void)state;
	assert_int_equal(rknn_init(&ctx, model_fp16, model_fp16_size, 0, NULL), RKNN_SUCC);
	assert_int_equal(rknn_query(ctx, RKNN_QUERY_INPUT_ATTR, &in_attr, sizeof(in_attr)),
			 RKNN_SUCC);
	assert_int_equal(rknn_query(ctx, RKNN_QUERY_OUTPUT_ATTR, &out_attr, sizeof(out_attr)),
			 RKNN_SUCC);
	assert_int_equal(rknn_query(ctx, RKNN_QUERY_NATIVE_INPUT_ATTR, &nat, sizeof(nat)),
			 RKNN_SUCC);
	assert_int_equal(in_attr.type, RKNN_TENSOR_FLOAT16);
	assert_int_equal(in_attr.qnt_type, RKNN_TENSOR_QNT_NONE);
	assert_int_equal(out_attr.type, RKNN_TENSOR_FLOAT16);
	assert_int_equal(nat.dims[4], C2_FP16);
	for (unsigned int i = 0; i < PIXELS; i++) {
		f32[i] = (float)pixels[i] / 255.0f;
		f16[i] = to_half(f32[i]);
	}
	run_fp16(ctx, &in, want, half);
	for (unsigned int i = 0; i < CLASSES; i++)
		assert_int_equal(half[i], to_half(want[i] < 0 ? -want[i] : want[i]) |
					  (want[i] < 0 ? 0x8000u : 0));
	in = (rknn_input){ .index = 0, .buf = f16, .size = sizeof(f16),
			   .type = RKNN_TENSOR_FLOAT16, .fmt = RKNN_TENSOR_NCHW };
	run_fp16(ctx, &in, got, NULL);
	assert_memory_equal(got, want, sizeof(want));

	/* Native: (C1, H, W, 8) fp16, channel 0 the image, the rest zero. */
	native = calloc(1, nat.size_with_stride);
	assert_non_null(native);
	for (unsigned int y = 0; y < IMG; y++)
		for (unsigned int x = 0; x < IMG; x++)
			native[((size_t)y * nat.w_stride + x) * C2_FP16] = f16[y * IMG + x];
	in = (rknn_input){ .index = 0, .buf = native, .size = nat.size_with_stride,
			   .pass_through = 1 };
	run_fp16(ctx, &in, got, NULL);
	assert_memory_equal(got, want, sizeof(want));
	free(native);

	/* int8 and uint8 data into the fp16 model: the values as they are,
	 * the same as float32 data of those values. The bytes are the image's
	 * (many >= 0x80), so int8 and uint8 readings differ. */
	for (int is_signed = 0; is_signed <= 1; is_signed++) {
		float as_float[PIXELS], from_bytes[CLASSES];
		uint8_t bytes[PIXELS];

		for (unsigned int i = 0; i < PIXELS; i++) {
			bytes[i] = pixels[i];
			as_float[i] = is_signed ? (float)(int8_t)pixels[i] : (float)pixels[i];
		}
		in = (rknn_input){ .index = 0, .buf = as_float, .size = sizeof(as_float),
				   .type = RKNN_TENSOR_FLOAT32, .fmt = RKNN_TENSOR_NCHW };
		run_fp16(ctx, &in, want_bytes, NULL);
		in = (rknn_input){ .index = 0, .buf = bytes, .size = sizeof(bytes),
				   .type = is_signed ? RKNN_TENSOR_INT8 : RKNN_TENSOR_UINT8,
				   .fmt = RKNN_TENSOR_NCHW };
		run_fp16(ctx, &in, from_bytes, NULL);
		assert_memory_equal(from_bytes, want_bytes, sizeof(want_bytes));
		/* a byte buffer of another size is refused */
		in.size = PIXELS - 1u;
		assert_int_equal(rknn_inputs_set(ctx, 1, &in), RKNN_ERR_INPUT_INVALID);
	}

	/* the int8 model, a different compilation of the same network */
	in = (rknn_input){ .index = 0, .buf = f32, .size = sizeof(f32),
			   .type = RKNN_TENSOR_FLOAT32, .fmt = RKNN_TENSOR_NCHW };
	run_fp16(ref, &in, int8_logits, NULL);
	assert_int_equal(argmax(want, CLASSES), argmax(int8_logits, CLASSES));
	assert_int_equal(rknn_destroy(ctx), RKNN_SUCC);
	assert_int_equal(rknn_destroy(ref), RKNN_SUCC);
}

static void test_inputs_agree(void **state)
{
	float f32[PIXELS], logits[CLASSES];
	uint16_t f16[PIXELS];
	int8_t want[CLASSES], got[CLASSES];
	int8_t *native;
	rknn_tensor_attr in_attr = { .index = 0 }, out_attr = { .index = 0 }, nat = { .index = 0 };
	rknn_output fo = { .want_float = 1, .is_prealloc = 1, .index = 0, .buf = logits,
			   .size = sizeof(logits) };
	rknn_input in = { .index = 0 };
	rknn_context ctx = init(0), dup = 0;

	(void)state;
	assert_int_equal(rknn_query(ctx, RKNN_QUERY_INPUT_ATTR, &in_attr, sizeof(in_attr)),
			 RKNN_SUCC);
	assert_int_equal(rknn_query(ctx, RKNN_QUERY_OUTPUT_ATTR, &out_attr, sizeof(out_attr)),
			 RKNN_SUCC);
	assert_int_equal(rknn_query(ctx, RKNN_QUERY_NATIVE_INPUT_ATTR, &nat, sizeof(nat)),
			 RKNN_SUCC);
	for (unsigned int i = 0; i < PIXELS; i++) {
		f32[i] = (float)pixels[i] / 255.0f;
		f16[i] = to_half(f32[i]);
	}

	in = (rknn_input){ .index = 0, .buf = f32, .size = sizeof(f32),
			   .type = RKNN_TENSOR_FLOAT32, .fmt = RKNN_TENSOR_NCHW };
	run_raw(ctx, &in, want);

	in = (rknn_input){ .index = 0, .buf = f16, .size = sizeof(f16),
			   .type = RKNN_TENSOR_FLOAT16, .fmt = RKNN_TENSOR_NCHW };
	run_raw(ctx, &in, got);
	assert_memory_equal(got, want, CLASSES);

	/* The input is quantised with scale 1/255 and zero point -128 (uint8
	 * domain 0): the raw pixels are its uint8 values. */
	assert_true(in_attr.scale > 0.0039f && in_attr.scale < 0.0040f);
	assert_int_equal(in_attr.zp, -128);
	in = (rknn_input){ .index = 0, .buf = pixels, .size = sizeof(pixels),
			   .type = RKNN_TENSOR_UINT8, .fmt = RKNN_TENSOR_NHWC };
	run_raw(ctx, &in, got);
	assert_memory_equal(got, want, CLASSES);

	/* Native: (C1, H, W, C2) int8, channel 0 the image, the rest zero. */
	assert_int_equal(nat.fmt, RKNN_TENSOR_NC1HWC2);
	assert_int_equal(nat.dims[4], C2);
	assert_int_equal(nat.dims[2], IMG);
	native = calloc(1, nat.size_with_stride);
	assert_non_null(native);
	for (unsigned int y = 0; y < IMG; y++)
		for (unsigned int x = 0; x < IMG; x++)
			native[((size_t)y * nat.w_stride + x) * C2] =
				(int8_t)(pixels[y * IMG + x] - 128);
	in = (rknn_input){ .index = 0, .buf = native, .size = nat.size_with_stride,
			   .pass_through = 1 };
	run_raw(ctx, &in, got);
	assert_memory_equal(got, want, CLASSES);
	free(native);

	/* want_float into a caller's buffer: scale × (raw − zp). */
	assert_int_equal(rknn_outputs_get(ctx, 1, &fo, NULL), RKNN_SUCC);
	for (unsigned int i = 0; i < CLASSES; i++)
		assert_float_equal(logits[i], out_attr.scale * (float)(want[i] - out_attr.zp),
				   1e-6f * out_attr.scale);

	/* Other cores, the model spread over several (stages of per-core
	 * ranges), back to one, and a duplicated context. */
	in = (rknn_input){ .index = 0, .buf = f32, .size = sizeof(f32),
			   .type = RKNN_TENSOR_FLOAT32, .fmt = RKNN_TENSOR_NCHW };
	{
		static const rknn_core_mask masks[] = {
			RKNN_NPU_CORE_0, RKNN_NPU_CORE_1, RKNN_NPU_CORE_2, RKNN_NPU_CORE_0_1,
			RKNN_NPU_CORE_0_1_2, (rknn_core_mask)(RKNN_NPU_CORE_1 | RKNN_NPU_CORE_2),
			RKNN_NPU_CORE_ALL, RKNN_NPU_CORE_AUTO,
		};

		for (size_t i = 0; i < sizeof(masks) / sizeof(masks[0]); i++) {
			assert_int_equal(rknn_set_core_mask(ctx, masks[i]), RKNN_SUCC);
			run_raw(ctx, &in, got);
			assert_memory_equal(got, want, CLASSES);
		}
	}
	assert_int_equal(rknn_dup_context(&ctx, &dup), RKNN_SUCC);
	run_raw(dup, &in, got);
	assert_memory_equal(got, want, CLASSES);
	assert_int_equal(rknn_destroy(dup), RKNN_SUCC);
	assert_int_equal(rknn_destroy(ctx), RKNN_SUCC);
}

/*
 * Zero copy (rknn_set_io_mem): the input written by the caller into its own
 * memory in the native layout and the output read from its own memory give
 * what the copying path gives; rknn_outputs_get reads the bound output too.
 * Memory still bound cannot be destroyed; other layouts, unknown names and
 * short buffers are refused.
 */
static void test_zero_copy(void **state)
{
	rknn_tensor_attr nin = { .index = 0 }, nout = { .index = 0 }, bad;
	rknn_input in = { .index = 0, .buf = pixels, .size = sizeof(pixels),
			  .type = RKNN_TENSOR_UINT8, .fmt = RKNN_TENSOR_NHWC };
	rknn_context ctx = init(0);
	rknn_tensor_mem *mi, *mo, *small;
	int8_t want[CLASSES], got[CLASSES], *native, *native_out;
	rknn_output out = { .want_float = 0, .index = 0 };

	(void)state;
	run_raw(ctx, &in, want);
	assert_int_equal(rknn_query(ctx, RKNN_QUERY_NATIVE_INPUT_ATTR, &nin, sizeof(nin)),
			 RKNN_SUCC);
	assert_int_equal(rknn_query(ctx, RKNN_QUERY_NATIVE_OUTPUT_ATTR, &nout, sizeof(nout)),
			 RKNN_SUCC);
	mi = rknn_create_mem(ctx, nin.size_with_stride);
	mo = rknn_create_mem(ctx, nout.size_with_stride);
	small = rknn_create_mem(ctx, nin.size_with_stride / 2);
	assert_non_null(mi);
	assert_non_null(mo);
	assert_non_null(small);

	bad = nin;
	bad.fmt = RKNN_TENSOR_NHWC;
	assert_int_equal(rknn_set_io_mem(ctx, mi, &bad), RKNN_ERR_PARAM_INVALID);
	bad = nin;
	bad.name[0] ^= 1;
	assert_int_equal(rknn_set_io_mem(ctx, mi, &bad), RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rknn_set_io_mem(ctx, small, &nin), RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rknn_set_io_mem(ctx, NULL, &nin), RKNN_ERR_PARAM_INVALID);

	assert_int_equal(rknn_set_io_mem(ctx, mi, &nin), RKNN_SUCC);
	assert_int_equal(rknn_set_io_mem(ctx, mo, &nout), RKNN_SUCC);
	native = mi->virt_addr;
	for (unsigned int y = 0; y < IMG; y++)
		for (unsigned int x = 0; x < IMG; x++)
			native[((size_t)y * nin.w_stride + x) * C2] =
				(int8_t)(pixels[y * IMG + x] - 128);
	memset(mo->virt_addr, 0x55, mo->size);
	assert_int_equal(rknn_run(ctx, NULL), RKNN_SUCC);
	/* output channel k at pixel 0 of NC1HWC2: (k / C2) planes of H × W atoms */
	native_out = mo->virt_addr;
	for (unsigned int k = 0; k < CLASSES; k++)
		assert_int_equal(native_out[(size_t)(k / C2) * nout.dims[2] * nout.dims[3] * C2 +
					    k % C2], want[k]);
	assert_int_equal(rknn_outputs_get(ctx, 1, &out, NULL), RKNN_SUCC);
	memcpy(got, out.buf, CLASSES);
	assert_int_equal(rknn_outputs_release(ctx, 1, &out), RKNN_SUCC);
	assert_memory_equal(got, want, CLASSES);
	/* the copying input path writes into the bound memory */
	memset(mi->virt_addr, 0, mi->size);
	run_raw(ctx, &in, got);
	assert_memory_equal(got, want, CLASSES);

	/* memory destroyed while bound (the vendor's demos destroy it before the
	 * context) dies for the caller at once: the context refuses to run, a
	 * second destroy is refused; the pool gets it back with the context */
	assert_int_equal(rknn_destroy_mem(ctx, mi), RKNN_SUCC);
	assert_int_equal(rknn_run(ctx, NULL), RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rknn_destroy_mem(ctx, mi), RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rknn_set_io_mem(ctx, mi, &nin), RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rknn_destroy_mem(ctx, small), RKNN_SUCC);
	assert_int_equal(rknn_destroy_mem(ctx, mo), RKNN_SUCC);
	assert_int_equal(rknn_destroy(ctx), RKNN_SUCC);
}

/*
 * RKNN_FLAG_MEM_ALLOC_OUTSIDE: nothing runs before rknn_set_internal_mem;
 * with the arena and the weights in the application's memory the outputs
 * are the ordinary context's. Memory still in use cannot be destroyed,
 * short memory is refused, and the pool ends as it started.
 */
static void test_outside_mem(void **state)
{
	rknn_input in = { .index = 0, .buf = pixels, .size = sizeof(pixels),
			  .type = RKNN_TENSOR_UINT8, .fmt = RKNN_TENSOR_NHWC };
	struct dma_pool_stats before, after;
	struct npu_dev *dev;
	struct dma_pool *pool;
	rknn_context ctx = init(0);
	rknn_tensor_mem *internal, *weights, *small;
	int8_t want[CLASSES], got[CLASSES];
	rknn_mem_size ms;

	(void)state;
	run_raw(ctx, &in, want);
	assert_int_equal(rknn_destroy(ctx), RKNN_SUCC);
	assert_int_equal(rknn_device_get(&dev, &pool), RKNN_SUCC);
	dma_pool_get_stats(pool, &before);

	ctx = init(RKNN_FLAG_MEM_ALLOC_OUTSIDE);
	assert_int_equal(rknn_query(ctx, RKNN_QUERY_MEM_SIZE, &ms, sizeof(ms)), RKNN_SUCC);
	assert_int_equal(rknn_run(ctx, NULL), RKNN_ERR_PARAM_INVALID);
	internal = rknn_create_mem(ctx, ms.total_internal_size);
	weights = rknn_create_mem(ctx, ms.total_weight_size);
	small = rknn_create_mem(ctx, ms.total_internal_size / 2);
	assert_non_null(internal);
	assert_non_null(weights);
	assert_non_null(small);
	assert_int_equal(rknn_set_internal_mem(ctx, small), RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rknn_set_internal_mem(ctx, internal), RKNN_SUCC);
	run_raw(ctx, &in, got);
	assert_memory_equal(got, want, CLASSES);
	assert_int_equal(rknn_set_weight_mem(ctx, weights), RKNN_SUCC);
	run_raw(ctx, &in, got);
	assert_memory_equal(got, want, CLASSES);

	/* destroyed while in use: runs are refused, the pool gets it back with
	 * the context */
	assert_int_equal(rknn_destroy_mem(ctx, internal), RKNN_SUCC);
	assert_int_equal(rknn_run(ctx, NULL), RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rknn_destroy_mem(ctx, small), RKNN_SUCC);
	assert_int_equal(rknn_destroy_mem(ctx, weights), RKNN_SUCC);
	assert_int_equal(rknn_destroy(ctx), RKNN_SUCC);
	dma_pool_get_stats(pool, &after);
	assert_int_equal(after.used, before.used);
}

/*
 * rknn_dup_context shares the weights: the duplicate takes less DMA memory
 * than the first context by at least the weights, gives the same outputs,
 * runs on after the first is destroyed, and the pool ends as it started.
 */
static void test_dup_shares_weights(void **state)
{
	rknn_input in = { .index = 0, .buf = pixels, .size = sizeof(pixels),
			  .type = RKNN_TENSOR_UINT8, .fmt = RKNN_TENSOR_NHWC };
	struct dma_pool_stats base, one, two, end;
	struct npu_dev *dev;
	struct dma_pool *pool;
	rknn_context ctx, dup = 0;
	int8_t want[CLASSES], got[CLASSES];
	rknn_mem_size ms;

	(void)state;
	assert_int_equal(rknn_device_get(&dev, &pool), RKNN_SUCC);
	dma_pool_get_stats(pool, &base);
	ctx = init(0);
	dma_pool_get_stats(pool, &one);
	run_raw(ctx, &in, want);
	assert_int_equal(rknn_query(ctx, RKNN_QUERY_MEM_SIZE, &ms, sizeof(ms)), RKNN_SUCC);
	dma_pool_reset_peak(pool);
	assert_int_equal(rknn_dup_context(&ctx, &dup), RKNN_SUCC);
	dma_pool_get_stats(pool, &two);
	assert_true(two.used - one.used + ms.total_weight_size <= one.used - base.used);
	/* and no second copy of the weights, not even for a moment */
	assert_int_equal(two.peak_used, two.used);
	run_raw(dup, &in, got);
	assert_memory_equal(got, want, CLASSES);
	assert_int_equal(rknn_destroy(ctx), RKNN_SUCC);
	memset(got, 0, sizeof(got));
	run_raw(dup, &in, got);
	assert_memory_equal(got, want, CLASSES);
	assert_int_equal(rknn_destroy(dup), RKNN_SUCC);
	dma_pool_get_stats(pool, &end);
	assert_int_equal(end.used, base.used);
}

static void test_queries(void **state)
{
	rknn_input_output_num n;
	rknn_tensor_attr a = { .index = 0 };
	rknn_custom_string cs;
	rknn_sdk_version v;
	rknn_mem_size ms;
	rknn_perf_detail pd;
	rknn_perf_run pr;
	rknn_context ctx = init(0), perf = init(RKNN_FLAG_COLLECT_PERF_MASK);

	(void)state;
	assert_int_equal(rknn_query(ctx, RKNN_QUERY_IN_OUT_NUM, &n, sizeof(n)), RKNN_SUCC);
	assert_int_equal(n.n_input, 1);
	assert_int_equal(n.n_output, 1);
	assert_int_equal(rknn_query(ctx, RKNN_QUERY_INPUT_ATTR, &a, sizeof(a)), RKNN_SUCC);
	assert_string_equal(a.name, "image");
	assert_int_equal(a.n_dims, 4);
	assert_int_equal(a.dims[1], 1);
	assert_int_equal(a.dims[3], IMG);
	assert_int_equal(a.n_elems, PIXELS);
	assert_int_equal(a.type, RKNN_TENSOR_INT8);
	assert_int_equal(a.qnt_type, RKNN_TENSOR_QNT_AFFINE_ASYMMETRIC);
	a.index = 1;
	assert_int_equal(rknn_query(ctx, RKNN_QUERY_INPUT_ATTR, &a, sizeof(a)),
			 RKNN_ERR_INPUT_INVALID);
	a.index = 0;
	assert_int_equal(rknn_query(ctx, RKNN_QUERY_OUTPUT_ATTR, &a, sizeof(a)), RKNN_SUCC);
	assert_string_equal(a.name, "logits");
	assert_int_equal(a.n_elems, CLASSES);
	assert_int_equal(rknn_query(ctx, RKNN_QUERY_CUSTOM_STRING, &cs, sizeof(cs)), RKNN_SUCC);
	assert_string_equal(cs.string, "fashion-mnist cnn int8");
	assert_int_equal(rknn_query(ctx, RKNN_QUERY_SDK_VERSION, &v, sizeof(v)), RKNN_SUCC);
	assert_int_equal(rknn_query(ctx, RKNN_QUERY_MEM_SIZE, &ms, sizeof(ms)), RKNN_SUCC);
	assert_true(ms.total_weight_size > 0 && ms.total_internal_size > 0);
	assert_true(ms.total_dma_allocated_size >=
		    (uint64_t)ms.total_weight_size + ms.total_internal_size);
	assert_int_equal(rknn_query(ctx, RKNN_QUERY_PERF_DETAIL, &pd, sizeof(pd)),
			 RKNN_ERR_PARAM_INVALID);
	/* per-op figures: a kick for every op, the same outputs */
	{
		rknn_input in = { .index = 0, .buf = pixels, .size = sizeof(pixels),
				  .type = RKNN_TENSOR_UINT8, .fmt = RKNN_TENSOR_NHWC };
		int8_t a8[CLASSES], b8[CLASSES];
		unsigned int lines = 0;

		run_raw(ctx, &in, a8);
		run_raw(perf, &in, b8);
		assert_memory_equal(a8, b8, CLASSES);
		assert_int_equal(rknn_query(perf, RKNN_QUERY_PERF_DETAIL, &pd, sizeof(pd)),
				 RKNN_SUCC);
		assert_non_null(pd.perf_data);
		for (const char *t = pd.perf_data; *t; t++)
			lines += *t == '\n';
		assert_int_equal(lines, 1 + FMNIST_OPS);
		assert_non_null(strstr(pd.perf_data, "kicks 6"));
	}
	assert_int_equal(rknn_query(perf, RKNN_QUERY_PERF_RUN, &pr, sizeof(pr)), RKNN_SUCC);
	assert_true(pr.run_duration > 0);
	/* a static model: one shape set, the input's; rknn_set_input_shapes
	 * takes that shape (in NCHW or NHWC order) and nothing else */
	{
		rknn_input_range *r = calloc(1, sizeof(*r));
		rknn_tensor_attr shape = { .n_dims = 4, .dims = { 1, 1, IMG, IMG },
					   .fmt = RKNN_TENSOR_NCHW };

		assert_non_null(r);
		assert_int_equal(rknn_query(ctx, RKNN_QUERY_INPUT_DYNAMIC_RANGE, r, sizeof(*r)),
				 RKNN_SUCC);
		assert_int_equal(r->shape_number, 1);
		assert_int_equal(r->n_dims, 4);
		assert_int_equal(r->dyn_range[0][3], IMG);
		r->index = 1;
		assert_int_equal(rknn_query(ctx, RKNN_QUERY_INPUT_DYNAMIC_RANGE, r, sizeof(*r)),
				 RKNN_ERR_PARAM_INVALID);
		free(r);
		assert_int_equal(rknn_set_input_shapes(ctx, 1, &shape), RKNN_SUCC);
		assert_int_equal(rknn_set_input_shapes(ctx, 2, &shape), RKNN_ERR_PARAM_INVALID);
		shape.fmt = RKNN_TENSOR_NHWC;
		shape.dims[1] = IMG;
		shape.dims[3] = 1;
		assert_int_equal(rknn_set_input_shapes(ctx, 1, &shape), RKNN_SUCC);
		shape.dims[2] = IMG + 1;
		assert_int_equal(rknn_set_input_shapes(ctx, 1, &shape), RKNN_ERR_INPUT_INVALID);
		a.index = 0;
		assert_int_equal(rknn_query(ctx, RKNN_QUERY_CURRENT_INPUT_ATTR, &a, sizeof(a)),
				 RKNN_SUCC);
		assert_int_equal(a.dims[2], IMG);
	}
	assert_int_equal(rknn_query(ctx, RKNN_QUERY_NATIVE_NHWC_INPUT_ATTR, &a, sizeof(a)),
			 RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rknn_query(ctx, RKNN_QUERY_IN_OUT_NUM, &n, sizeof(n) - 1),
			 RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rknn_destroy(perf), RKNN_SUCC);
	assert_int_equal(rknn_destroy(ctx), RKNN_SUCC);
}

/*
 * RKNN_FLAG_ASYNC_MASK over four frames of different images: rknn_run
 * returns with the frame in flight, rknn_outputs_get gives the frame
 * before (zeros and frame_id 0 at the first), equal to a blocking
 * context's result for that image; rknn_wait ends the last frame, whose
 * outputs then come.
 */
static void test_async(void **state)
{
	enum { FRAMES = 4 };
	uint8_t img[FRAMES][PIXELS];
	int8_t want[FRAMES][CLASSES], got[CLASSES];
	rknn_context sync = init(0), async = init(RKNN_FLAG_ASYNC_MASK);
	rknn_output out = { .index = 0, .is_prealloc = 1, .buf = got, .size = sizeof(got) };
	rknn_output_extend ext;
	rknn_run_extend run_ext;
	uint32_t s = SEED ^ 0xA5A5u;

	(void)state;
	for (unsigned int f = 0; f < FRAMES; f++) {
		rknn_input in = { .index = 0, .buf = img[f], .size = PIXELS,
				  .type = RKNN_TENSOR_UINT8, .fmt = RKNN_TENSOR_NHWC };

		for (unsigned int i = 0; i < PIXELS; i++) {
			s = s * 1103515245u + 12345u;
			img[f][i] = (uint8_t)(s >> 16);
		}
		run_raw(sync, &in, want[f]);
	}
	for (unsigned int f = 0; f < FRAMES; f++) {
		rknn_input in = { .index = 0, .buf = img[f], .size = PIXELS,
				  .type = RKNN_TENSOR_UINT8, .fmt = RKNN_TENSOR_NHWC };

		assert_int_equal(rknn_inputs_set(async, 1, &in), RKNN_SUCC);
		assert_int_equal(rknn_run(async, &run_ext), RKNN_SUCC);
		assert_int_equal(run_ext.frame_id, f + 1);
		memset(got, 0x55, sizeof(got));
		assert_int_equal(rknn_outputs_get(async, 1, &out, &ext), RKNN_SUCC);
		if (f == 0) {
			static const int8_t zeros[CLASSES];

			assert_int_equal(ext.frame_id, 0);
			assert_memory_equal(got, zeros, CLASSES);
		} else {
			assert_int_equal(ext.frame_id, f);
			assert_memory_equal(got, want[f - 1], CLASSES);
		}
	}
	assert_int_equal(rknn_wait(async, &run_ext), RKNN_SUCC);
	assert_int_equal(run_ext.frame_id, FRAMES);
	assert_int_equal(rknn_outputs_get(async, 1, &out, &ext), RKNN_SUCC);
	assert_int_equal(ext.frame_id, FRAMES);
	assert_memory_equal(got, want[FRAMES - 1], CLASSES);
	/* a frame left running is waited for by rknn_destroy */
	assert_int_equal(rknn_run(async, NULL), RKNN_SUCC);
	assert_int_equal(rknn_destroy(async), RKNN_SUCC);
	assert_int_equal(rknn_destroy(sync), RKNN_SUCC);
}

static void test_refusals(void **state)
{
	static const uint32_t flags[] = {
		RKNN_FLAG_SHARE_WEIGHT_MEM,
		RKNN_FLAG_FENCE_IN_OUTSIDE, RKNN_FLAG_FENCE_OUT_OUTSIDE,
		RKNN_FLAG_COLLECT_MODEL_INFO_ONLY, RKNN_FLAG_INTERNAL_ALLOC_OUTSIDE,
		RKNN_FLAG_ENABLE_SRAM,
	};
	rknn_context ctx = 0;
	uint8_t *bad;
	float small[2];
	rknn_output o = { .want_float = 1, .is_prealloc = 1, .buf = small,
			  .size = sizeof(small) };
	rknn_input in = { .index = 0, .buf = small, .size = sizeof(small),
			  .type = RKNN_TENSOR_FLOAT32, .fmt = RKNN_TENSOR_NCHW };

	(void)state;
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		assert_int_equal(rknn_init(&ctx, model, model_size, flags[i], NULL),
				 RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rknn_init(&ctx, model, 0, 0, NULL), RKNN_ERR_PARAM_INVALID);
	bad = malloc(model_size);
	assert_non_null(bad);
	memcpy(bad, model, model_size);
	bad[model_size / 2] ^= 0xff;
	assert_int_equal(rknn_init(&ctx, bad, model_size, 0, NULL), RKNN_ERR_MODEL_INVALID);
	free(bad);
	assert_int_equal(rknn_run(0, NULL), RKNN_ERR_CTX_INVALID);

	ctx = init(0);
	assert_int_equal(rknn_inputs_set(ctx, 1, &in), RKNN_ERR_INPUT_INVALID);
	in.size = PIXELS * sizeof(float);
	in.buf = NULL;
	assert_int_equal(rknn_inputs_set(ctx, 1, &in), RKNN_ERR_INPUT_INVALID);
	assert_int_equal(rknn_outputs_get(ctx, 1, &o, NULL), RKNN_ERR_OUTPUT_INVALID);
	assert_int_equal(rknn_set_core_mask(ctx, (rknn_core_mask)0x8), RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rknn_set_weight_mem(ctx, NULL), RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rknn_set_internal_mem(ctx, NULL), RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rknn_set_input_shapes(ctx, 0, NULL), RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rknn_set_batch_core_num(ctx, 2), RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rknn_destroy(ctx), RKNN_SUCC);
}

static void test_cycles(void **state)
{
	(void)state;
	for (unsigned int i = 0; i < 100; i++) {
		rknn_context ctx = init(0);
		rknn_tensor_mem *mem = rknn_create_mem(ctx, 4096);

		assert_non_null(mem);
		assert_int_equal(rknn_destroy_mem(ctx, mem), RKNN_SUCC);
		assert_int_equal(rknn_destroy(ctx), RKNN_SUCC);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inputs_agree),
		cmocka_unit_test(test_fp16_model),
		cmocka_unit_test(test_zero_copy),
		cmocka_unit_test(test_outside_mem),
		cmocka_unit_test(test_dup_shares_weights),
		cmocka_unit_test(test_queries),
		cmocka_unit_test(test_async),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_cycles),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
