// SPDX-License-Identifier: MIT
/*
 * Conversions at the graph edge (model_run.h): the caller's float32, int8
 * or uint8 values in NCHW or NHWC order to and from the NC1HWC2 int8
 * tensors in the arena (or in a bound buffer); int32 outputs (raw sums) to
 * int32 or float32; the fp16 tensors of an fp16 model from and to float32.
 */
#include <math.h>
#include <string.h>

#include "compiler/layout.h"
#include "runtime/model_ctx.h"

static int8_t quantise(float x, float inv_scale, int32_t zp)
{
	/* QuantizeLinear: round half to even (the default rounding mode),
	 * then saturate. NaN goes to the zero point. */
	float v = x * inv_scale;
	long q;

	if (!(v == v))
		return (int8_t)zp;
	/* Far outside int8 whatever the zero point, and inside long. */
	if (v > (float)INT16_MAX)
		v = (float)INT16_MAX;
	if (v < (float)INT16_MIN)
		v = (float)INT16_MIN;
	q = lrintf(v) + zp;
	return (int8_t)(q > INT8_MAX ? INT8_MAX : q < INT8_MIN ? INT8_MIN : q);
}

static size_t io_elem_bytes(enum rkb_io_kind kind)
{
	return kind == RKB_IO_FLOAT ? sizeof(float) :
	       kind == RKB_IO_INT32 ? sizeof(int32_t) : sizeof(int8_t);
}

static int check_io_call(const struct rkb_ctx *c, const struct rkb_io *io, size_t bytes,
			 const struct rkb_io_fmt *fmt)
{
	uint32_t dtype = c->m.tensors[io->tensor].dtype;
	bool wide = dtype == RKB_DT_INT32;

	if (!fmt || fmt->kind < RKB_IO_FLOAT || fmt->kind > RKB_IO_INT32)
		return RKB_E_ARG;
	if (dtype == RKB_DT_FP16 && fmt->kind != RKB_IO_FLOAT)
		return RKB_E_ARG;	/* fp16 meets the caller as float only */
	/* int32 sums convert to int32 or float; int8 tensors to anything else */
	if (wide ? fmt->kind == RKB_IO_INT8 || fmt->kind == RKB_IO_UINT8 :
		   fmt->kind == RKB_IO_INT32)
		return RKB_E_ARG;
	if (bytes != rkb_io_elems(io) * io_elem_bytes(fmt->kind))
		return RKB_E_ARG;
	return RKB_OK;
}

/* Channels-last edges ([M, K] matrices, transposed maps) are in that
 * order in the ONNX view too, whatever layout the caller names. */
static bool channels_last(const struct rkb_io *io, const struct rkb_io_fmt *fmt)
{
	return fmt->nhwc || io->layout == RKB_LAYOUT_NHWC;
}

int rkb_input_set(struct rkb_ctx *c, uint32_t index, const void *data, size_t bytes,
		  const struct rkb_io_fmt *fmt)
{
	const struct rkb_io *io;
	const struct rkb_tensor *t;
	void *dst;
	size_t n;
	int rc;

	if (!c || !data || index >= c->m.n_inputs)
		return RKB_E_ARG;
	if (c->running)
		return RKB_E_BUSY;	/* the NPU owns the arena until rkb_run_wait */
	io = &c->m.inputs[index];
	rc = check_io_call(c, io, bytes, fmt);
	if (rc)
		return rc;
	t = &c->m.tensors[io->tensor];
	dst = rkb_tensor_data(c, io->tensor);
	if (!dst)
		return RKB_E_ARG;	/* no arena yet */
	n = rkb_io_elems(io);
	if (t->dtype == RKB_DT_FP16) {
		const float *x = data;
		uint16_t *h = (void *)c->staging;

		for (size_t i = 0; i < n; i++)
			h[i] = layout_f32_to_f16(x[i]);
		if (channels_last(io, fmt))
			layout_nhwc_to_nc1hwc2(NPU_PREC_FP16, h, dst, t->h, t->w, t->c, t->c_mem);
		else
			layout_nchw_to_nc1hwc2(NPU_PREC_FP16, h, dst, t->h, t->w, t->c, t->c_mem);
		return RKB_OK;
	}
	if (fmt->kind == RKB_IO_FLOAT) {
		const float *x = data;
		float inv = 1.0f / t->scale;

		for (size_t i = 0; i < n; i++)
			c->staging[i] = quantise(x[i], inv, t->zp);
	} else if (fmt->kind == RKB_IO_UINT8) {
		layout_u8_to_s8(data, c->staging, n);
	} else {
		memcpy(c->staging, data, n);
	}
	if (channels_last(io, fmt))
		layout_nhwc_to_nc1hwc2(NPU_PREC_INT8, c->staging, dst, t->h, t->w, t->c, t->c_mem);
	else
		layout_nchw_to_nc1hwc2(NPU_PREC_INT8, c->staging, dst, t->h, t->w, t->c, t->c_mem);
	return RKB_OK;
}

int rkb_output_get(struct rkb_ctx *c, uint32_t index, void *data, size_t bytes,
		   const struct rkb_io_fmt *fmt)
{
	if (!c || index >= c->m.n_outputs)
		return RKB_E_ARG;
	if (c->running)
		return RKB_E_BUSY;
	return rkb_output_convert(c, index, rkb_tensor_data(c, c->m.outputs[index].tensor),
				  data, bytes, fmt);
}

size_t rkb_output_native_bytes(const struct rkb_ctx *c, uint32_t index)
{
	if (!c || index >= c->m.n_outputs)
		return 0;
	return c->m.tensors[c->m.outputs[index].tensor].arena_bytes;
}

int rkb_output_convert(struct rkb_ctx *c, uint32_t index, const void *native, void *data,
		       size_t bytes, const struct rkb_io_fmt *fmt)
{
	const struct rkb_io *io;
	const struct rkb_tensor *t;
	size_t n;
	int rc;

	if (!c || !native || !data || index >= c->m.n_outputs)
		return RKB_E_ARG;
	io = &c->m.outputs[index];
	rc = check_io_call(c, io, bytes, fmt);
	if (rc)
		return rc;
	t = &c->m.tensors[io->tensor];
	n = rkb_io_elems(io);
	if (t->dtype == RKB_DT_INT32) {
		/* raw sums: int32 straight into the caller's buffer, or as floats */
		int32_t *v = fmt->kind == RKB_IO_INT32 ? data : (void *)c->staging;

		if (channels_last(io, fmt))
			layout_nc1hwc2_to_nhwc(NPU_PREC_INT32, native, v, t->h, t->w, t->c);
		else
			layout_nc1hwc2_to_nchw(NPU_PREC_INT32, native, v, t->h, t->w, t->c);
		for (size_t i = 0; fmt->kind == RKB_IO_FLOAT && i < n; i++)
			((float *)data)[i] = t->scale * (float)(v[i] - t->zp);
		return RKB_OK;
	}
	if (t->dtype == RKB_DT_FP16) {
		uint16_t *h = (void *)c->staging;
		float *y = data;

		if (channels_last(io, fmt))
			layout_nc1hwc2_to_nhwc(NPU_PREC_FP16, native, h, t->h, t->w, t->c);
		else
			layout_nc1hwc2_to_nchw(NPU_PREC_FP16, native, h, t->h, t->w, t->c);
		for (size_t i = 0; i < n; i++)
			y[i] = layout_f16_to_f32(h[i]);
		return RKB_OK;
	}
	if (channels_last(io, fmt))
		layout_nc1hwc2_to_nhwc(NPU_PREC_INT8, native, c->staging, t->h, t->w, t->c);
	else
		layout_nc1hwc2_to_nchw(NPU_PREC_INT8, native, c->staging, t->h, t->w, t->c);
	if (fmt->kind == RKB_IO_FLOAT) {
		float *y = data;

		for (size_t i = 0; i < n; i++)
			y[i] = t->scale * (float)(c->staging[i] - t->zp);
	} else if (fmt->kind == RKB_IO_UINT8) {
		layout_s8_to_u8(c->staging, data, n);
	} else {
		memcpy(data, c->staging, n);
	}
	return RKB_OK;
}

int rkb_tensor_read(struct rkb_ctx *c, uint32_t tensor, float *out, size_t n)
{
	const struct rkb_tensor *t;
	enum npu_precision prec;
	const uint8_t *src;

	if (!c || !out || c->running || tensor >= c->m.n_tensors)
		return RKB_E_ARG;
	t = &c->m.tensors[tensor];
	src = rkb_tensor_data(c, tensor);
	if (!src || n != (size_t)t->c * t->h * t->w)
		return RKB_E_ARG;
	prec = rkb_tensor_prec(t);
	for (uint32_t ch = 0; ch < t->c; ch++)
		for (uint32_t y = 0; y < t->h; y++)
			for (uint32_t x = 0; x < t->w; x++) {
				const uint8_t *e = src + layout_nc1hwc2_offset(prec, t->h, t->w, ch,
									       y, x);
				float v;

				if (t->dtype == RKB_DT_FP16) {
					uint16_t h;

					memcpy(&h, e, sizeof(h));
					v = layout_f16_to_f32(h);
				} else if (t->dtype == RKB_DT_INT32) {
					int32_t s;

					memcpy(&s, e, sizeof(s));
					v = t->scale * (float)(s - t->zp);
				} else {
					v = t->scale * (float)((int8_t)*e - t->zp);
				}
				*out++ = v;
			}
	return RKB_OK;
}
