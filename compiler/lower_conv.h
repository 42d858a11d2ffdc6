/* SPDX-License-Identifier: MIT */
/*
 * Convolution lowering: one CNA → CORE → DPU task per CBUF load (HARDWARE.md §4,
 * §5), and the op-level lowering of int8 convolutions (direct, depthwise,
 * pointwise, fully-connected as 1×1; per-tensor or per-channel weight
 * scales) with requantisation, fused activations and CBUF tiling by output
 * rows, output channels and input channels; plus fp16 convolutions.
 * Matmul (lower_matmul.c) is the same task with W = 1.
 */
#ifndef RKBARE_COMPILER_LOWER_CONV_H
#define RKBARE_COMPILER_LOWER_CONV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rkbare/npu_regs.h"
#include "compiler/quant.h"
#include "compiler/regcmd.h"

/* ---- one task ---- */

/* CBUF_CON1 counts an input row in 64-byte entries (HARDWARE.md §4.2, §5.6). */
#define LOWER_CBUF_ENTRY_BYTES	64u
/* The CNA line stride spans four rows (HARDWARE.md §5.2: LINE_STRIDE = 4 × W). */
#define LOWER_CNA_LINE_ROWS	4u
/* The largest kernel side (WEIGHT_SIZE2 kernel, 5 bits, npu_regs.def). */
#define LOWER_CONV_MAX_KERNEL	31u

/* Everything the registers of one convolution task depend on. Sizes are
 * plain counts (the minus-one encodings are applied by the emitter). */
struct conv_task {
	enum npu_precision in_prec;	/* INT8 or FP16 */
	enum npu_precision out_prec;	/* INT8, INT32, FP16 or FP32 */
	bool depthwise;

	/* Input slice; strides come from the full tensor (HARDWARE.md §5.2). */
	uint32_t in_addr;		/* first row of the slice */
	unsigned int in_w, in_h_full;
	unsigned int in_rows;		/* rows in this task */
	unsigned int in_c;		/* real channels */
	unsigned int in_c_aligned;	/* channels in memory and in the weights */

	unsigned int kw, kh, stride_x, stride_y;
	unsigned int pad_left, pad_top;	/* right/bottom follow from the output size */
	int32_t pad_value;		/* PAD_CON1, in the signed input domain */

	/* Weights for this task's kernels. */
	uint32_t weight_addr;
	unsigned int kernels;		/* WEIGHT_SIZE2.kernels */
	uint32_t weight_bytes_per_kernel;
	uint32_t weight_bytes;

	/* Output slice; DST_SURF_STRIDE / SURFACE_ADD use the full tensor. */
	uint32_t out_addr;
	unsigned int out_w, out_rows, out_h_full;
	unsigned int out_c;		/* real channels of this task */
	unsigned int out_c_aligned;	/* channels the hardware produces */

	unsigned int data_banks, weight_banks;
	bool weight_reuse;

	/* Post-processing (DPU). bias_addr 0: no bias read, DPU_RDMA off. */
	uint32_t bias_addr;
	bool qd_en;			/* CORE MISC_CFG: input-sum (CPEND) term */
	int32_t ow_op;			/* BS_OW_OP, used when qd_en */
	bool relu;			/* clamp the accumulator at 0 */
	bool relux;			/* clamp the accumulator at relux_max */
	int32_t relux_max;
	int32_t out_offset;		/* OUT_CVT_OFFSET */
	struct quant_mult out_mult;	/* OUT_CVT_SCALE / SHIFT; {1, 0} = identity */

	/*
	 * Per-channel requantisation (scale_addr != 0): the EW stage multiplies
	 * by an int32 per channel read by ERDMA and shifts right by scale_shift;
	 * OUT_CVT then only adds out_offset, and the ReLU / ReLUX clamps move
	 * to the EW stage, in output units (relux_max = upper bound − offset).
	 */
	uint32_t scale_addr;
	unsigned int scale_shift;

	/*
	 * Input-channel split (lower_tile.c): scratch_addr holds two int32
	 * tensors of the whole output for the partial sums; ew_add_addr, when
	 * non-zero, is the partial this task adds in the EW stage (int32 per
	 * pixel through ERDMA), the clamps then running in the EW stage.
	 */
	uint32_t scratch_addr;
	uint32_t ew_add_addr;

	/*
	 * Residual add (res_addr != 0, lower_conv_op.residual): a map of the
	 * output's shape and precision added per pixel in the EW stage, read as
	 * Mesa's fused add reads it (DPU_RDMA comb_use 5: MRDMA and ERDMA on the
	 * same data, delivered to ERDMA; UNSURE A34). int8: EW_CVT brings it into
	 * the accumulator's units, ((r + res_offset) · res_scale) >> res_shift;
	 * the clamps then run in the EW stage.
	 */
	uint32_t res_addr;
	int32_t res_offset;
	uint16_t res_scale;
	unsigned int res_shift;

	/* Cores that will share the op: the tiling cuts at least this many
	 * independent tasks where the shape allows (lower_tile.c). */
	unsigned int min_tasks;

	/*
	 * Forced input-channel split (matmul K segments, lower_matmul.h): when
	 * non-zero and in_c_aligned exceeds it, the input channels are cut into
	 * chunks of exactly ic_segment (the last one shorter), whose weights
	 * are stored segment after segment, each [OC/G][chunk/32][kh][kw][G][32].
	 * int8 partial sums are int32, fp16 ones fp32.
	 */
	unsigned int ic_segment;
};

/* Upper bound of a task's body (104 CNA/CORE/DPU entries, DPU_RDMA 18):
 * the `body` argument of rc_program_size(). */
#define CONV_TASK_MAX_ENTRIES	128u

/* Append the task (begin, registers, tail) to the program. */
void conv_task_emit(struct rc_program *p, const struct conv_task *t);

/* ---- int8 convolution op ---- */

enum lower_act {
	LOWER_ACT_NONE,
	LOWER_ACT_RELU,
	LOWER_ACT_RELU6,
	LOWER_ACT_CLIP,		/* clamp to [act_min, act_max] (real values) */
};

struct lower_conv_op {
	/*
	 * NPU_PREC_INT8 (0, the default): quantised int8/uint8 as below.
	 * NPU_PREC_FP16: fp16 in and out, fp32 accumulation, no quantisation
	 * fields, ReLU only; depthwise in tasks of 32 channels (HARDWARE.md
	 * §5.4); bias_addr 0 or fp32 per channel (lower_conv_pack_bias_fp16),
	 * added by the BS stage. UNSURE A28 (sim/ASSUMPTIONS.md): that BRDMA
	 * operands are fp32 when the DPU works on fp16 data, as the BS ALU
	 * constant is in board-run fp16 streams (allbilly/rk3588
	 * experimental/ops_rockchip.py); board probe A28-fp16-bias.
	 */
	enum npu_precision prec;
	/*
	 * int8 only: the raw int32 sums leave the DPU (ConvInteger,
	 * MatMulInteger): bias added, no requantisation, no activation, no
	 * depthwise; out_scale and out_zp are not used.
	 */
	bool out_int32;
	unsigned int in_h, in_w, in_c;
	unsigned int out_c;		/* = in_c for depthwise (multiplier 1) */
	unsigned int kh, kw, stride_y, stride_x;
	bool same_padding;		/* TFLite SAME, else VALID */
	/* Explicit padding (ONNX pads), used instead of SAME / VALID when set. */
	bool explicit_pads;
	unsigned int pad_top, pad_left, pad_bottom, pad_right;
	bool depthwise;
	bool is_unsigned;		/* uint8 tensors (zero points 0..255) */

	float in_scale;
	int32_t in_zp;
	const float *w_scale;		/* out_c per-channel scales, or one if w_scale_count 1 */
	unsigned int w_scale_count;
	int32_t w_zp;
	float out_scale;
	int32_t out_zp;
	enum lower_act act;
	float act_min, act_max;		/* LOWER_ACT_CLIP */

	/* NPU addresses (16-byte aligned): NC1HWC2 input, packed weights and
	 * bias (lower_conv_pack), NC1HWC2 output; scale_addr holds the
	 * per-channel multipliers when the weight scales differ per channel
	 * (shape.scale_bytes != 0), else it is unused. */
	uint32_t in_addr, weight_addr, bias_addr, out_addr, scale_addr;
	/*
	 * Residual add: out = act(conv(in) + res), res an NC1HWC2 map of the
	 * output's shape and precision at res_addr (int8: quantised by res_scale
	 * and res_zp, the output by out_scale and out_zp; the activation applies
	 * after the add). The EW stage adds it, so not with per-channel scales,
	 * an input-channel split, depthwise or an int32 output (each uses the EW
	 * stage or has no room for it); lower_conv_check refuses those.
	 */
	bool residual;
	uint32_t res_addr;
	float res_scale;
	int32_t res_zp;
	/* Partial-sum scratch (shape.scratch_bytes, 0 when not needed): layers
	 * whose 32-kernel group does not fit the CBUF are split by input
	 * channels. */
	uint32_t scratch_addr;
	/*
	 * Weights in input-channel segments (the int8 → int8 matmul of K above
	 * LOWER_MM_K_SEGMENT, conv_task.ic_segment): 1×1 kernels only, in_c up to
	 * CONV_MAX_SEGMENTED_CHANNELS, weights packed by the caller
	 * (lower_conv_pack refuses). 0 for ordinary convolutions.
	 */
	unsigned int ic_segment;
	/* Cores the op will be spread over (0 or 1: one): conv_task.min_tasks. */
	unsigned int min_tasks;
	/*
	 * int8 per-channel scales that are all powers of two
	 * (lower_conv_pow2_ok): the multipliers are exact powers of two and
	 * OUT_CVT does the rounding (ties to even, as ONNX). Chosen by whoever
	 * packs the weights, since the multipliers differ (a container stores
	 * the choice: RKB_OP_F_POW2).
	 */
	bool pow2_requant;
};

/* Input channels of a segmented 1×1 op: 255 · 255 · 32768 < 2^31, so the
 * int32 accumulator holds every zero-point-corrected sum. */
#define CONV_MAX_SEGMENTED_CHANNELS	32768u

/* Shapes derived from an op (after lower_conv_check). */
struct lower_conv_shape {
	unsigned int out_h, out_w;
	unsigned int pad_top, pad_left, pad_bottom, pad_right;
	unsigned int in_c_aligned, out_c_aligned;
	size_t in_bytes, weight_bytes, bias_bytes, out_bytes;
	size_t scale_bytes;		/* per-channel multipliers, 0 for one scale */
	size_t scratch_bytes;		/* input-channel split partials, 0 if none */
	size_t res_bytes;		/* the residual map read, 0 without one */
};

/* Validate the op's shape and quantisation against the hardware limits;
 * fills *shape. Returns 0 or -EINVAL / -ENOTSUP with an error message naming
 * the parameter. Addresses are checked when lowering. */
int lower_conv_check(const struct lower_conv_op *op, struct lower_conv_shape *shape);

/*
 * Pack weights (OHWI int8/uint8 as stored by TFLite; depthwise [1][kh][kw][c])
 * and bias (int32, may be NULL) into the NPU buffers: weights in the §5.4
 * layout, shifted to the signed domain; bias corrected for the input zero
 * point (HARDWARE.md §6.2); per-channel multipliers when shape->scale_bytes is
 * non-zero (scale_out may be NULL otherwise). The outputs hold
 * shape->weight_bytes / bias_bytes / scale_bytes.
 */
int lower_conv_pack(const struct lower_conv_op *op, const struct lower_conv_shape *shape,
		    const void *weights, const int32_t *bias, void *weight_out, int32_t *bias_out,
		    int32_t *scale_out);

/* Whether lower_conv_check takes op (residual set) with its residual; the
 * checks of the plain convolution print their refusals, the residual's do
 * not (the container writer asks before fusing an add). */
bool lower_conv_residual_ok(const struct lower_conv_op *op);

/* Whether op's per-channel scales allow pow2_requant. */
bool lower_conv_pow2_ok(const struct lower_conv_op *op);

/* The fp32 bias of an fp16 op (bias may be NULL: zeros); bias_out holds
 * shape->bias_bytes. */
void lower_conv_pack_bias_fp16(const struct lower_conv_op *op, const struct lower_conv_shape *shape,
				const float *bias, float *bias_out);

/* Tasks the op lowers to (upper bound for sizing program buffers). */
int lower_conv_task_count(const struct lower_conv_op *op, size_t *count);

/*
 * The op's whole task before tiling (what lower_conv hands lower_tile), for
 * a caller that changes one register-level choice and emits it with
 * lower_tile() (the board probes, boot/probe.c). fp16 depthwise ops must
 * fit one 32-channel task. Returns 0 or a negative errno.
 */
int lower_conv_task(const struct lower_conv_op *op, struct conv_task *t);

/* Append the op's tasks to the program. Returns 0 or a negative errno. */
int lower_conv(struct rc_program *p, const struct lower_conv_op *op);

#endif /* RKBARE_COMPILER_LOWER_CONV_H */
