/* SPDX-License-Identifier: MIT */
/* Quantised element-wise add as a DPU flying task (HARDWARE.md §4.4, §4.5, §6.4). */
#include <errno.h>
#include <string.h>

#include "hal.h"
#include "compiler/layout.h"
#include "compiler/lower_eltwise.h"

#define ELT_MAX_DIM		8192u	/* 13-bit minus-one cube fields */
#define ELT_RELU6_MAX		6.0f

static bool zp_ok(int32_t zp, bool is_unsigned)
{
	return is_unsigned ? zp >= 0 && zp <= UINT8_MAX : zp >= INT8_MIN && zp <= INT8_MAX;
}

int lower_add_check(const struct lower_add_op *op, struct lower_add_params *pr)
{
	float common;
	int ret;

	if (!op->h || !op->w || !op->c || op->h > ELT_MAX_DIM || op->w > ELT_MAX_DIM ||
	    op->c > ELT_MAX_DIM) {
		hal_err("add: tensor %ux%ux%u outside 1..%u", op->h, op->w, op->c, ELT_MAX_DIM);
		return -EINVAL;
	}
	if (op->prec == NPU_PREC_FP16) {
		memset(pr, 0, sizeof(*pr));
		if (op->act == LOWER_ACT_NONE || op->act == LOWER_ACT_RELU)
			return 0;
		hal_err("add: fp16 supports no activation or ReLU only");
		return -ENOTSUP;
	}
	if (op->prec != NPU_PREC_INT8) {
		hal_err("add: precision %d (int8 or fp16 only)", op->prec);
		return -EINVAL;
	}
	if (!quant_scale_ok(op->a_scale) || !quant_scale_ok(op->b_scale) ||
	    !quant_scale_ok(op->out_scale) ||
	    !zp_ok(op->a_zp, op->is_unsigned) || !zp_ok(op->b_zp, op->is_unsigned) ||
	    !zp_ok(op->out_zp, op->is_unsigned)) {
		hal_err("add: scales must be positive normal numbers and zero points in the %s "
			"range",
			op->is_unsigned ? "uint8" : "int8");
		return -EINVAL;
	}
	if (op->act != LOWER_ACT_NONE && op->act != LOWER_ACT_RELU && op->act != LOWER_ACT_RELU6) {
		hal_err("add: activation %d not supported (none, relu, relu6)", op->act);
		return -ENOTSUP;
	}
	common = op->a_scale > op->b_scale ? op->a_scale : op->b_scale;
	pr->a_mult = (int16_t)quant_round((double)op->a_scale / common * (1 << ELTWISE_COMMON_BITS));
	pr->b_mult = (int16_t)quant_round((double)op->b_scale / common * (1 << ELTWISE_COMMON_BITS));
	ret = quant_multiplier(common / op->out_scale / (float)(1 << ELTWISE_COMMON_BITS),
			       &pr->out_mult);
	if (ret)
		hal_err("add: output scale ratio %g has no multiplier/shift",
			(double)(common / op->out_scale));
	return ret;
}

/* The DPU_RDMA part shared by the int8 and fp16 adds: main operand a
 * through MRDMA, b per pixel through ERDMA. fp16 data enters the DPU's fp32
 * datapath through mrdma_fp16tofp32_en, paired with OUT_CVT's fp32tofp16_en,
 * as every board-run fp16 add/sub/mul/max stream writes them
 * (allbilly/rk3588 experimental/kernel_6_18/elementwise.py: FEATURE_MODE_CFG
 * 0x17849, OUT_CVT_SCALE 0x10001). */
static void add_rdma(struct rc_program *p, const struct lower_add_op *op, enum npu_precision prec,
		     unsigned int erdma_size)
{
	uint32_t surface = op->w * op->h;

	RC_WRITE(p, DPU_RDMA, DATA_CUBE_WIDTH, NPU_FV(DPU_RDMA, DATA_CUBE_WIDTH, WIDTH, op->w - 1));
	RC_WRITE(p, DPU_RDMA, DATA_CUBE_HEIGHT, NPU_FV(DPU_RDMA, DATA_CUBE_HEIGHT, HEIGHT, op->h - 1));
	RC_WRITE(p, DPU_RDMA, DATA_CUBE_CHANNEL,
		 NPU_FV(DPU_RDMA, DATA_CUBE_CHANNEL, CHANNEL, op->c - 1));
	RC_WRITE(p, DPU_RDMA, SRC_BASE_ADDR, op->a_addr);
	RC_WRITE(p, DPU_RDMA, BRDMA_CFG, 0);
	RC_WRITE(p, DPU_RDMA, NRDMA_CFG, 0);
	RC_WRITE(p, DPU_RDMA, ERDMA_CFG,
		 NPU_FV(DPU_RDMA, ERDMA_CFG, ERDMA_DATA_MODE, NPU_ERDMA_PER_PIXEL) |
		 NPU_FV(DPU_RDMA, ERDMA_CFG, ERDMA_DATA_SIZE, erdma_size));
	RC_WRITE(p, DPU_RDMA, EW_BASE_ADDR, op->b_addr);
	RC_WRITE(p, DPU_RDMA, EW_SURF_STRIDE,
		 NPU_FV(DPU_RDMA, EW_SURF_STRIDE, EW_SURF_STRIDE, surface));
	RC_WRITE(p, DPU_RDMA, FEATURE_MODE_CFG,
		 NPU_FV(DPU_RDMA, FEATURE_MODE_CFG, IN_PRECISION, prec) |
		 NPU_FV(DPU_RDMA, FEATURE_MODE_CFG, BURST_LEN, NPU_BURST_LEN_16) |
		 NPU_FV(DPU_RDMA, FEATURE_MODE_CFG, PROC_PRECISION, prec) |
		 NPU_FV(DPU_RDMA, FEATURE_MODE_CFG, MRDMA_FP16TOFP32_EN,
			prec == NPU_PREC_FP16) |
		 NPU_FV(DPU_RDMA, FEATURE_MODE_CFG, FLYING_MODE, NPU_FLYING_FROM_MEMORY));
	RC_WRITE(p, DPU_RDMA, WEIGHT,
		 NPU_FV(DPU_RDMA, WEIGHT, E_WEIGHT, NPU_RDMA_ARB_WEIGHT) |
		 NPU_FV(DPU_RDMA, WEIGHT, N_WEIGHT, NPU_RDMA_ARB_WEIGHT) |
		 NPU_FV(DPU_RDMA, WEIGHT, B_WEIGHT, NPU_RDMA_ARB_WEIGHT) |
		 NPU_FV(DPU_RDMA, WEIGHT, M_WEIGHT, NPU_RDMA_ARB_WEIGHT));
}

/* The start of both adds' tasks: a DPU-only ("flying") task on prec data,
 * its cube and destination. */
static void add_head(struct rc_program *p, const struct lower_add_op *op, enum npu_precision prec)
{
	uint32_t surface = op->w * op->h;

	rc_task_begin(p);
	RC_WRITE(p, DPU, S_POINTER, NPU_S_POINTER_PP(DPU));
	RC_WRITE(p, DPU_RDMA, S_POINTER, NPU_S_POINTER_PP(DPU_RDMA));
	RC_WRITE(p, DPU, FEATURE_MODE_CFG,
		 NPU_FV(DPU, FEATURE_MODE_CFG, BURST_LEN, NPU_BURST_LEN_16) |
		 NPU_FV(DPU, FEATURE_MODE_CFG, OUTPUT_MODE, NPU_DPU_OUT_TO_MEMORY) |
		 NPU_FV(DPU, FEATURE_MODE_CFG, FLYING_MODE, NPU_FLYING_FROM_MEMORY));
	RC_WRITE(p, DPU, DATA_FORMAT,
		 NPU_FV(DPU, DATA_FORMAT, OUT_PRECISION, prec) |
		 NPU_FV(DPU, DATA_FORMAT, IN_PRECISION, prec) |
		 NPU_FV(DPU, DATA_FORMAT, PROC_PRECISION, prec));
	RC_WRITE(p, DPU, DST_BASE_ADDR, op->out_addr);
	RC_WRITE(p, DPU, DST_SURF_STRIDE, NPU_FV(DPU, DST_SURF_STRIDE, DST_SURF_STRIDE, surface));
	RC_WRITE(p, DPU, DATA_CUBE_WIDTH, NPU_FV(DPU, DATA_CUBE_WIDTH, WIDTH, op->w - 1));
	RC_WRITE(p, DPU, DATA_CUBE_HEIGHT, NPU_FV(DPU, DATA_CUBE_HEIGHT, HEIGHT, op->h - 1));
	RC_WRITE(p, DPU, DATA_CUBE_CHANNEL,
		 NPU_FV(DPU, DATA_CUBE_CHANNEL, ORIG_CHANNEL, op->c - 1) |
		 NPU_FV(DPU, DATA_CUBE_CHANNEL, CHANNEL, op->c - 1));
}

/* After the BS stage, in both adds: one atom per channel group (plain
 * NC1HWC2 out), the write-DMA sizes, BN bypassed. */
static void add_wdma_bn(struct rc_program *p, const struct lower_add_op *op)
{
	RC_WRITE(p, DPU, BS_OW_CFG, NPU_FV(DPU, BS_OW_CFG, OD_BYPASS, 1));
	RC_WRITE(p, DPU, BS_OW_OP, 0);
	RC_WRITE(p, DPU, WDMA_SIZE_0, NPU_FV(DPU, WDMA_SIZE_0, CHANNEL_WDMA, op->c - 1));
	RC_WRITE(p, DPU, WDMA_SIZE_1,
		 NPU_FV(DPU, WDMA_SIZE_1, HEIGHT_WDMA, op->h - 1) |
		 NPU_FV(DPU, WDMA_SIZE_1, WIDTH_WDMA, op->w - 1));
	RC_WRITE(p, DPU, BN_CFG,
		 NPU_FV(DPU, BN_CFG, BN_RELU_BYPASS, 1) | NPU_FV(DPU, BN_CFG, BN_MUL_BYPASS, 1) |
		 NPU_FV(DPU, BN_CFG, BN_ALU_BYPASS, 1) | NPU_FV(DPU, BN_CFG, BN_BYPASS, 1));
}

static int check_extents(const struct lower_add_op *op, enum npu_precision prec)
{
	size_t bytes = layout_nc1hwc2_bytes(prec, op->h, op->w, op->c);

	if ((op->a_addr | op->b_addr | op->out_addr) % NPU_ATOM_BYTES) {
		hal_err("add: addresses must be %u-byte aligned", NPU_ATOM_BYTES);
		return -EINVAL;
	}
	if (rc_check_extent("add", "first operand", op->a_addr, bytes) ||
	    rc_check_extent("add", "second operand", op->b_addr, bytes) ||
	    rc_check_extent("add", "output", op->out_addr, bytes))
		return -ERANGE;
	return 0;
}

static int lower_add_fp16(struct rc_program *p, const struct lower_add_op *op)
{
	struct lower_add_params unused;
	uint32_t surface = op->w * op->h;
	int ret = lower_add_check(op, &unused);

	if (!ret)
		ret = check_extents(op, NPU_PREC_FP16);
	if (ret)
		return ret;
	add_head(p, op, NPU_PREC_FP16);
	/* BS and BN written as bypassed: the board-run fp16 element-wise
	 * streams leave them at whatever the previous job set (A20). */
	RC_WRITE(p, DPU, BS_CFG,
		 NPU_FV(DPU, BS_CFG, BS_RELU_BYPASS, 1) | NPU_FV(DPU, BS_CFG, BS_MUL_BYPASS, 1) |
		 NPU_FV(DPU, BS_CFG, BS_ALU_BYPASS, 1) | NPU_FV(DPU, BS_CFG, BS_BYPASS, 1));
	add_wdma_bn(p, op);
	RC_WRITE(p, DPU, EW_CFG,
		 NPU_FV(DPU, EW_CFG, EW_DATA_MODE, NPU_ERDMA_PER_PIXEL) |
		 NPU_FV(DPU, EW_CFG, EDATA_SIZE, NPU_ERDMA_SIZE_16BIT) |
		 NPU_FV(DPU, EW_CFG, EW_ALU_ALGO, NPU_ALU_ADD) |
		 NPU_FV(DPU, EW_CFG, EW_RELU_BYPASS, op->act == LOWER_ACT_NONE) |
		 NPU_FV(DPU, EW_CFG, EW_OP_CVT_BYPASS, 1) |
		 NPU_FV(DPU, EW_CFG, EW_LUT_BYPASS, 1) |
		 NPU_FV(DPU, EW_CFG, EW_OP_SRC, NPU_EW_OP_FROM_ERDMA));
	RC_WRITE(p, DPU, EW_CVT_OFFSET_VALUE, 0);
	RC_WRITE(p, DPU, EW_CVT_SCALE_VALUE, 0);
	RC_WRITE(p, DPU, EW_RELUX_CMP_VALUE, 0);
	RC_WRITE(p, DPU, OUT_CVT_OFFSET, 0);
	RC_WRITE(p, DPU, OUT_CVT_SCALE,
		 NPU_FV(DPU, OUT_CVT_SCALE, FP32TOFP16_EN, 1) |
		 NPU_FV(DPU, OUT_CVT_SCALE, OUT_CVT_SCALE, NPU_CVT_SCALE_ONE));
	RC_WRITE(p, DPU, OUT_CVT_SHIFT, 0);
	RC_WRITE(p, DPU, SURFACE_ADD, NPU_FV(DPU, SURFACE_ADD, SURF_ADD, surface));
	add_rdma(p, op, NPU_PREC_FP16, NPU_ERDMA_SIZE_16BIT);
	rc_task_end(p, NPU_EN_DPU | NPU_EN_DPU_RDMA, NPU_INT_DPU);
	return p->err;
}

int lower_add(struct rc_program *p, const struct lower_add_op *op)
{
	struct lower_add_params pr;
	int32_t za = quant_signed_zp(op->a_zp, op->is_unsigned);
	int32_t zb = quant_signed_zp(op->b_zp, op->is_unsigned);
	int32_t zo = quant_signed_zp(op->out_zp, op->is_unsigned);
	uint32_t surface = op->w * op->h;	/* atoms, dense */
	bool relu = op->act != LOWER_ACT_NONE, relux = false;
	int32_t relux_max = 0;
	int ret;

	if (op->prec == NPU_PREC_FP16)
		return lower_add_fp16(p, op);
	ret = lower_add_check(op, &pr);

	if (ret)
		return ret;
	ret = check_extents(op, NPU_PREC_INT8);
	if (ret)
		return ret;
	if (op->act == LOWER_ACT_RELU6) {
		int32_t hi = quant_bound(zo, ELT_RELU6_MAX, op->out_scale);

		if (hi < INT8_MAX) {
			/* largest sum that still requantises to hi */
			int64_t lo_v = 0, hi_v = INT32_MAX;

			while (lo_v < hi_v) {
				int64_t mid = lo_v + (hi_v - lo_v + 1) / 2;

				if (quant_requant(mid, &pr.out_mult, zo) <= hi)
					lo_v = mid;
				else
					hi_v = mid - 1;
			}
			if (quant_requant(lo_v, &pr.out_mult, zo) != hi) {
				hal_err("add: ReLU6 bound %d is skipped by the output scale", hi);
				return -ENOTSUP;
			}
			relux = true;
			relux_max = (int32_t)lo_v;
		}
	}

	add_head(p, op, NPU_PREC_INT8);
	/* BS: (a − za) · Ma from constants. */
	RC_WRITE(p, DPU, BS_CFG,
		 NPU_FV(DPU, BS_CFG, BS_ALU_ALGO, NPU_ALU_ADD) |
		 NPU_FV(DPU, BS_CFG, BS_RELU_BYPASS, 1));
	RC_WRITE(p, DPU, BS_ALU_CFG, (uint32_t)-za);
	RC_WRITE(p, DPU, BS_MUL_CFG,
		 NPU_FV(DPU, BS_MUL_CFG, BS_MUL_OPERAND, (uint16_t)pr.a_mult));
	RC_WRITE(p, DPU, BS_RELUX_CMP_VALUE, 0);
	add_wdma_bn(p, op);
	/* EW: v + (b − zb) · Mb, operand per pixel from ERDMA, then the clamps. */
	RC_WRITE(p, DPU, EW_CFG,
		 NPU_FV(DPU, EW_CFG, EW_CVT_TYPE, NPU_CVT_ADD_FIRST) |
		 NPU_FV(DPU, EW_CFG, EW_DATA_MODE, NPU_ERDMA_PER_PIXEL) |
		 NPU_FV(DPU, EW_CFG, EDATA_SIZE, NPU_ERDMA_SIZE_8BIT) |
		 NPU_FV(DPU, EW_CFG, EW_ALU_ALGO, NPU_ALU_ADD) |
		 NPU_FV(DPU, EW_CFG, EW_RELUX_EN, relux) |
		 NPU_FV(DPU, EW_CFG, EW_RELU_BYPASS, !relu) |
		 NPU_FV(DPU, EW_CFG, EW_LUT_BYPASS, 1) |
		 NPU_FV(DPU, EW_CFG, EW_OP_SRC, NPU_EW_OP_FROM_ERDMA));
	RC_WRITE(p, DPU, EW_CVT_OFFSET_VALUE, (uint32_t)-zb);
	RC_WRITE(p, DPU, EW_CVT_SCALE_VALUE,
		 NPU_FV(DPU, EW_CVT_SCALE_VALUE, EW_OP_CVT_SCALE, (uint16_t)pr.b_mult));
	RC_WRITE(p, DPU, EW_RELUX_CMP_VALUE, (uint32_t)relux_max);
	RC_WRITE(p, DPU, OUT_CVT_OFFSET, (uint32_t)zo);
	RC_WRITE(p, DPU, OUT_CVT_SCALE,
		 NPU_FV(DPU, OUT_CVT_SCALE, OUT_CVT_SCALE, pr.out_mult.multiplier));
	RC_WRITE(p, DPU, OUT_CVT_SHIFT,
		 NPU_FV(DPU, OUT_CVT_SHIFT, OUT_CVT_SHIFT, pr.out_mult.shift));
	RC_WRITE(p, DPU, SURFACE_ADD, NPU_FV(DPU, SURFACE_ADD, SURF_ADD, surface));
	add_rdma(p, op, NPU_PREC_INT8, NPU_ERDMA_SIZE_8BIT);
	rc_task_end(p, NPU_EN_DPU | NPU_EN_DPU_RDMA, NPU_INT_DPU);
	return p->err;
}
