/* SPDX-License-Identifier: MIT */
/*
 * Post-training quantisation of a float32 ONNX graph: calibration over
 * sample inputs on the float32 reference (onnx_ref.c), then a QDQ graph —
 * QuantizeLinear/DequantizeLinear pairs with the calibrated parameters —
 * that any ONNX engine runs and that the importer compiles for the NPU.
 *
 * The scheme is the NPU's: activations int8 per tensor, asymmetric (range
 * widened to include 0, scale = range / 255); weights int8 per output
 * channel, symmetric (scale = max |w| / 127); biases int32 with scale
 * input scale × weight scale. A Relu or Clip that alone consumes a Conv,
 * Gemm, MatMul or Add output is fused: only its output is quantised,
 * as the NPU applies it before the one requantisation. Max and average
 * pools, Reshape, Flatten and Transpose keep their input's parameters.
 */
#ifndef RKBARE_TOOLS_ONNX_QUANT_H
#define RKBARE_TOOLS_ONNX_QUANT_H

#include <stdbool.h>
#include <stddef.h>

#include "tools/onnx/onnx_graph.h"

/* Observed value range of every tensor of a graph (index = tensor index). */
struct onnx_ranges {
	size_t n;
	float *min, *max;
	size_t samples;		/* batches seen */
	/* 0: each tensor's range is the smallest and largest value seen. In
	 * (50, 100): the range runs from the (100 − percentile)th to the
	 * percentile-th percentile of each batch's values, averaged over the
	 * batches — a few outliers no longer stretch the int8 step of a
	 * whole map (the outputs of functions bounded on both sides keep their
	 * interval: onnx_quantize_qdq). Set before the first onnx_calibrate. */
	float percentile;
	double *sum_lo, *sum_hi;	/* the percentiles' sums over the batches */
	/* every value seen: their sum, sum of squares and count (a tensor's
	 * variance, against which --keep-float-auto weighs its int8 step) */
	double *sum, *sum_sq, *count;
};

int onnx_ranges_init(struct onnx_ranges *r, const struct onnx_graph *g);
void onnx_ranges_free(struct onnx_ranges *r);
/* Runs g (shapes inferred for this batch) on one batch of inputs and
 * widens the ranges of every float tensor. */
int onnx_calibrate(const struct onnx_graph *g, const float *const *inputs,
		   struct onnx_ranges *r, char *err, size_t err_len);

struct onnx_quant_opts {
	/* Every scale (activations, weights) rounded up to a power of two:
	 * each requantisation is then an exact shift, which fixed-point
	 * hardware and a float engine round alike (ties to even). */
	bool pow2_scales;
	/*
	 * Hybrid quantisation: activations left in float, named, and the
	 * keep_float_auto ones whose int8 step is coarsest against their own
	 * spread (lowest signal-to-quantisation-noise ratio over the
	 * calibration values: variance / (scale² / 12)). The ops that compute
	 * or read such a tensor, with the ops fused with them, stay float
	 * (their nodes' fp16 flag set, their weights float); the tensors at
	 * the edges of those groups keep their QuantizeLinear /
	 * DequantizeLinear, which the importer turns into casts.
	 */
	const char *const *keep_float;
	size_t n_keep_float;
	unsigned int keep_float_auto;
};

/* Builds the QDQ graph of g from its ranges; *out is a new graph. Opsets
 * below 13 are raised to 13 (per-channel DequantizeLinear) when none of
 * g's ops changed meaning on the way, refused otherwise. opts may be NULL
 * (none of its options). */
int onnx_quantize_qdq(const struct onnx_graph *g, const struct onnx_ranges *r,
		      const struct onnx_quant_opts *opts, struct onnx_graph **out, char *err,
		      size_t err_len);

#endif /* RKBARE_TOOLS_ONNX_QUANT_H */
