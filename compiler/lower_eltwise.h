/* SPDX-License-Identifier: MIT */
/*
 * Element-wise add of two quantised int8 feature maps as one DPU-only
 * ("flying") task (HARDWARE.md §3.4 enable DPU + DPU_RDMA; §4.4-4.5): the first
 * operand comes in through MRDMA, the second through ERDMA per pixel.
 *
 *   BS:      v = (a − za) · Ma          (ALU constant, MUL constant)
 *   EW:      v += (b − zb) · Mb         (operand converter, add first)
 *   OUT_CVT: out = v · Mo >> So + zo
 * with Ma, Mb = round(s / max(sa, sb) · 2^14) and Mo / 2^So =
 * max(sa, sb) / (so · 2^14): the sum of both operands on a common 2^14
 * fixed-point scale, requantised once.
 */
#ifndef RKBARE_COMPILER_LOWER_ELTWISE_H
#define RKBARE_COMPILER_LOWER_ELTWISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compiler/lower_conv.h"
#include "compiler/regcmd.h"

/* Fixed-point bits of the common operand scale. */
#define ELTWISE_COMMON_BITS	14u

struct lower_add_op {
	/*
	 * NPU_PREC_INT8 (0, the default) as above; NPU_PREC_FP16: fp16
	 * operands, out = a + b (then ReLU), no quantisation fields: BS and BN
	 * bypassed, the EW ALU adding the ERDMA operand unconverted, fp32
	 * inside and FP32TOFP16 out (UNSURE A20, sim/ASSUMPTIONS.md).
	 */
	enum npu_precision prec;
	unsigned int h, w, c;
	bool is_unsigned;		/* uint8 tensors, shifted to int8 in memory */
	float a_scale, b_scale, out_scale;
	int32_t a_zp, b_zp, out_zp;	/* in the tensors' own (u)int8 domain */
	enum lower_act act;		/* NONE, RELU or RELU6 */
	uint32_t a_addr, b_addr, out_addr;	/* int8 NC1HWC2, 16-byte aligned */
};

/* The operand multipliers the lowering uses (for callers and tests). */
struct lower_add_params {
	int16_t a_mult, b_mult;
	struct quant_mult out_mult;
};

int lower_add_check(const struct lower_add_op *op, struct lower_add_params *params);

#define ELTWISE_TASK_MAX_ENTRIES	96u

int lower_add(struct rc_program *p, const struct lower_add_op *op);

#endif /* RKBARE_COMPILER_LOWER_ELTWISE_H */
