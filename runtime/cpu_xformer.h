/* SPDX-License-Identifier: MIT */
/*
 * The built-in CPU ops of transformer blocks (cpu_ops.h has the rest):
 * LayerNorm, Reduce, MatMul and Gather (Reshape is cpu_ops.c's), on int8
 * or fp16 maps. An exporter's [1, T, C] or [1, heads, T, D] tensor is a
 * C × H × W map (the importer's rank-3 and rank-4 mapping), so its last axis
 * is the map's W.
 */
#ifndef RKBARE_RUNTIME_CPU_XFORMER_H
#define RKBARE_RUNTIME_CPU_XFORMER_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/cpu_ops.h"

/*
 * LayerNorm's parameters: the axes (int32: one axis, RKB_CPU_AXIS_*, or
 * since 2.10 a set, RKB_CPU_REDUCE_AXES with bit 1 << RKB_CPU_AXIS_* for
 * each, as Reduce's), epsilon (float32), then the n elements of the
 * normalised block of scale (gamma) and n of bias (beta) values (float32,
 * in the map's C, H, W order over the block): y = (x − mean) / sqrt(var +
 * eps) · gamma + beta over each block of the axes (ONNX
 * LayerNormalization, whose axes are its input's from `axis` on).
 */
#define RKB_CPU_LAYERNORM_HEADER	8u	/* bytes before gamma */

/*
 * Reduce's parameters (int32 each): the function and the axes, one axis
 * (RKB_CPU_AXIS_*) or, since 2.10, RKB_CPU_REDUCE_AXES with bit
 * 1 << RKB_CPU_AXIS_* set for each axis reduced; the output has extent 1
 * along them (ONNX keepdims). The functions are ONNX's Reduce* operators
 * over the elements of each reduced set (MIN .. LOG_SUM_EXP since 2.10).
 */
enum rkb_cpu_reduce {
	RKB_CPU_REDUCE_MEAN = 1,
	RKB_CPU_REDUCE_SUM,
	RKB_CPU_REDUCE_MAX,
	RKB_CPU_REDUCE_MIN,
	RKB_CPU_REDUCE_PROD,
	RKB_CPU_REDUCE_SUM_SQUARE,
	RKB_CPU_REDUCE_L1,		/* the sum of |x| */
	RKB_CPU_REDUCE_L2,		/* the square root of the sum of squares */
	RKB_CPU_REDUCE_LOG_SUM,		/* log of the sum */
	RKB_CPU_REDUCE_LOG_SUM_EXP,	/* log of the sum of e^x */
};
#define RKB_CPU_REDUCE_PARAMS	2u
#define RKB_CPU_REDUCE_AXES	0x100

/*
 * MatMul: ONNX MatMul of batched matrices, each channel of in (H × W: rows
 * by K) times the same channel of in2 (K × N; one channel: shared by all)
 * into the output's channel (H × N). Both operands computed maps
 * (attention's Q · K^T and softmax · V): no parameters; or no in2 and the
 * parameters B, K × N float32 values row-major, shared by all channels (a
 * Linear layer on [1, T, C] tokens), or one such matrix per channel.
 */

/* Gather: any rearrangement of a map's elements (a chain of Reshape,
 * Transpose, Gather at constant indices, Squeeze, Unsqueeze between two
 * maps, through tensors no map can hold: attention's [1, T, 3, heads, D]
 * split of q, k and v). Parameters: for each output element, in C, H, W
 * (row-major) order, the int32 row-major index of the input element it
 * takes; built at compile time. Requantises when the quantisations
 * differ. */

int rkb_cpu_check_layernorm(const struct rkb_cpu_call *call, char *err, size_t err_len);
int rkb_cpu_run_layernorm(const struct rkb_cpu_call *call);
int rkb_cpu_check_reduce(const struct rkb_cpu_call *call, char *err, size_t err_len);
int rkb_cpu_run_reduce(const struct rkb_cpu_call *call);
int rkb_cpu_check_matmul(const struct rkb_cpu_call *call, char *err, size_t err_len);
int rkb_cpu_run_matmul(const struct rkb_cpu_call *call);
int rkb_cpu_check_gather(const struct rkb_cpu_call *call, char *err, size_t err_len);
int rkb_cpu_run_gather(const struct rkb_cpu_call *call);

#endif /* RKBARE_RUNTIME_CPU_XFORMER_H */
