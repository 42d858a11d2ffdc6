/* SPDX-License-Identifier: MIT */
/* The DPU's flying tasks (HARDWARE.md §4.4, §4.5, §6.4): the quantised and fp16
 * add, the fp16 multiply and scale, and the lookup table. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "hal.h"
#include "compiler/layout.h"
#include "compiler/lower_eltwise.h"

#define ELT_RELU6_MAX		6.0f
/* fp16's normal exponents: 2^-14 .. 2^15 */
#define FP16_MIN_EXP		(-14)
#define FP16_MAX_EXP		15
#define FP16_MAX_VALUE		65504.0f

bool lower_eltwise_dims_ok(unsigned int h, unsigned int w, unsigned int c)
{
	return h && w && c && h <= LOWER_ELTWISE_MAX_DIM && w <= LOWER_ELTWISE_MAX_DIM &&
	       c <= LOWER_ELTWISE_MAX_DIM;
}

/* v = 2^e with e in fp16's normal range: exact as an fp16 BN operand. */
static bool fp16_pow2(float v)
{
	int e;

	if (!(v > 0.0f) || frexpf(v, &e) != 0.5f)
		return false;
	return e - 1 >= FP16_MIN_EXP && e - 1 <= FP16_MAX_EXP;
}

static bool zp_ok(int32_t zp, bool is_unsigned)
{
	return is_unsigned ? zp >= 0 && zp <= UINT8_MAX : zp >= INT8_MIN && zp <= INT8_MAX;
}

int lower_add_check(const struct lower_add_op *op, struct lower_add_params *pr)
{
	float common;
	int ret;

	if (!lower_eltwise_dims_ok(op->h, op->w, op->c)) {
		hal_err("add: tensor %ux%ux%u outside 1..%u", op->h, op->w, op->c,
			LOWER_ELTWISE_MAX_DIM);
		return -EINVAL;
	}
	if (op->prec == NPU_PREC_FP16) {
		memset(pr, 0, sizeof(*pr));
		if (op->alu != LOWER_EW_ADD && op->alu != LOWER_EW_MUL) {
			hal_err("add: EW operation %d (add or mul)", (int)op->alu);
			return -EINVAL;
		}
		if (op->a_factor != 0.0f && !fp16_pow2(op->a_factor)) {
			hal_err("add: a_factor %g is not a power of two within fp16's normal range",
				(double)op->a_factor);
			return -EINVAL;
		}
		if (op->act == LOWER_ACT_NONE || op->act == LOWER_ACT_RELU)
			return 0;
		hal_err("add: fp16 supports no activation or ReLU only");
		return -ENOTSUP;
	}
	if (op->alu != LOWER_EW_ADD || op->a_factor != 0.0f) {
		hal_err("add: the int8 path adds without a factor (mul and a_factor are fp16 only)");
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

static struct lower_cube cube_of(const struct lower_add_op *op)
{
	return (struct lower_cube){ op->h, op->w, op->c, op->a_addr, op->out_addr };
}

/* The DPU_RDMA part every flying task shares: the main operand through
 * MRDMA; the ERDMA operand is the caller's. fp16 data enters the DPU's
 * fp32 datapath through mrdma_fp16tofp32_en, paired with OUT_CVT's
 * fp32tofp16_en, as every board-run fp16 add/sub/mul/max and SiLU stream
 * writes them (allbilly/rk3588 experimental/kernel_6_18/elementwise.py:
 * FEATURE_MODE_CFG 0x17849, OUT_CVT_SCALE 0x10001; silu.py). */
static void cube_rdma_formats(struct rc_program *p, const struct lower_cube *cb,
			      enum npu_precision prec, enum npu_precision proc)
{
	RC_WRITE(p, DPU_RDMA, DATA_CUBE_WIDTH, NPU_FV(DPU_RDMA, DATA_CUBE_WIDTH, WIDTH, cb->w - 1));
	RC_WRITE(p, DPU_RDMA, DATA_CUBE_HEIGHT, NPU_FV(DPU_RDMA, DATA_CUBE_HEIGHT, HEIGHT, cb->h - 1));
	RC_WRITE(p, DPU_RDMA, DATA_CUBE_CHANNEL,
		 NPU_FV(DPU_RDMA, DATA_CUBE_CHANNEL, CHANNEL, cb->c - 1));
	RC_WRITE(p, DPU_RDMA, SRC_BASE_ADDR, cb->in_addr);
	RC_WRITE(p, DPU_RDMA, BRDMA_CFG, 0);
	RC_WRITE(p, DPU_RDMA, NRDMA_CFG, 0);
	RC_WRITE(p, DPU_RDMA, FEATURE_MODE_CFG,
		 NPU_FV(DPU_RDMA, FEATURE_MODE_CFG, IN_PRECISION, prec) |
		 NPU_FV(DPU_RDMA, FEATURE_MODE_CFG, BURST_LEN, NPU_BURST_LEN_16) |
		 NPU_FV(DPU_RDMA, FEATURE_MODE_CFG, PROC_PRECISION, proc) |
		 NPU_FV(DPU_RDMA, FEATURE_MODE_CFG, MRDMA_FP16TOFP32_EN,
			prec == NPU_PREC_FP16) |
		 NPU_FV(DPU_RDMA, FEATURE_MODE_CFG, FLYING_MODE, NPU_FLYING_FROM_MEMORY));
	RC_WRITE(p, DPU_RDMA, WEIGHT,
		 NPU_FV(DPU_RDMA, WEIGHT, E_WEIGHT, NPU_RDMA_ARB_WEIGHT) |
		 NPU_FV(DPU_RDMA, WEIGHT, N_WEIGHT, NPU_RDMA_ARB_WEIGHT) |
		 NPU_FV(DPU_RDMA, WEIGHT, B_WEIGHT, NPU_RDMA_ARB_WEIGHT) |
		 NPU_FV(DPU_RDMA, WEIGHT, M_WEIGHT, NPU_RDMA_ARB_WEIGHT));
}

static void cube_rdma(struct rc_program *p, const struct lower_cube *cb, enum npu_precision prec)
{
	cube_rdma_formats(p, cb, prec, prec);
}

/* The adds' second operand b, per pixel through ERDMA. */
static void add_erdma(struct rc_program *p, const struct lower_add_op *op, unsigned int size)
{
	RC_WRITE(p, DPU_RDMA, ERDMA_CFG,
		 NPU_FV(DPU_RDMA, ERDMA_CFG, ERDMA_DATA_MODE, NPU_ERDMA_PER_PIXEL) |
		 NPU_FV(DPU_RDMA, ERDMA_CFG, ERDMA_DATA_SIZE, size));
	RC_WRITE(p, DPU_RDMA, EW_BASE_ADDR, op->b_addr);
	RC_WRITE(p, DPU_RDMA, EW_SURF_STRIDE,
		 NPU_FV(DPU_RDMA, EW_SURF_STRIDE, EW_SURF_STRIDE, op->w * op->h));
}

/* The start of every flying task: a DPU-only task reading `in`, computing
 * in `proc` and writing `out` data, its cube and destination. */
static void cube_head_formats(struct rc_program *p, const struct lower_cube *cb,
			      enum npu_precision in, enum npu_precision proc,
			      enum npu_precision out)
{
	uint32_t surface = cb->w * cb->h;

	rc_task_begin(p);
	RC_WRITE(p, DPU, S_POINTER, NPU_S_POINTER_PP(DPU));
	RC_WRITE(p, DPU_RDMA, S_POINTER, NPU_S_POINTER_PP(DPU_RDMA));
	RC_WRITE(p, DPU, FEATURE_MODE_CFG,
		 NPU_FV(DPU, FEATURE_MODE_CFG, BURST_LEN, NPU_BURST_LEN_16) |
		 NPU_FV(DPU, FEATURE_MODE_CFG, OUTPUT_MODE, NPU_DPU_OUT_TO_MEMORY) |
		 NPU_FV(DPU, FEATURE_MODE_CFG, FLYING_MODE, NPU_FLYING_FROM_MEMORY));
	RC_WRITE(p, DPU, DATA_FORMAT,
		 NPU_FV(DPU, DATA_FORMAT, OUT_PRECISION, out) |
		 NPU_FV(DPU, DATA_FORMAT, IN_PRECISION, in) |
		 NPU_FV(DPU, DATA_FORMAT, PROC_PRECISION, proc));
	RC_WRITE(p, DPU, DST_BASE_ADDR, cb->out_addr);
	RC_WRITE(p, DPU, DST_SURF_STRIDE, NPU_FV(DPU, DST_SURF_STRIDE, DST_SURF_STRIDE, surface));
	RC_WRITE(p, DPU, DATA_CUBE_WIDTH, NPU_FV(DPU, DATA_CUBE_WIDTH, WIDTH, cb->w - 1));
	RC_WRITE(p, DPU, DATA_CUBE_HEIGHT, NPU_FV(DPU, DATA_CUBE_HEIGHT, HEIGHT, cb->h - 1));
	RC_WRITE(p, DPU, DATA_CUBE_CHANNEL,
		 NPU_FV(DPU, DATA_CUBE_CHANNEL, ORIG_CHANNEL, cb->c - 1) |
		 NPU_FV(DPU, DATA_CUBE_CHANNEL, CHANNEL, cb->c - 1));
	RC_WRITE(p, DPU, BS_OW_CFG, NPU_FV(DPU, BS_OW_CFG, OD_BYPASS, 1));
	RC_WRITE(p, DPU, BS_OW_OP, 0);
	/* one atom per channel group: plain NC1HWC2 out */
	RC_WRITE(p, DPU, WDMA_SIZE_0, NPU_FV(DPU, WDMA_SIZE_0, CHANNEL_WDMA, cb->c - 1));
	RC_WRITE(p, DPU, WDMA_SIZE_1,
		 NPU_FV(DPU, WDMA_SIZE_1, HEIGHT_WDMA, cb->h - 1) |
		 NPU_FV(DPU, WDMA_SIZE_1, WIDTH_WDMA, cb->w - 1));
	RC_WRITE(p, DPU, SURFACE_ADD, NPU_FV(DPU, SURFACE_ADD, SURF_ADD, surface));
}

/* ...all on prec data. */
static void cube_head(struct rc_program *p, const struct lower_cube *cb, enum npu_precision prec)
{
	cube_head_formats(p, cb, prec, prec, prec);
}

/* BN multiplying by the constant in BN_MUL_CFG only (silu.py's scaling). */
#define BN_CFG_MUL_ONLY \
	(NPU_FV(DPU, BN_CFG, BN_RELU_BYPASS, 1) | NPU_FV(DPU, BN_CFG, BN_ALU_BYPASS, 1))

/* The flying tasks' BS and BN: BS bypassed, BN multiplying by factor (fp16
 * data only: an exact fp16 number; the float MUL reads its operand as
 * fp16, no shift: A19) or bypassed when factor is 0 (the int8 table task
 * always). Written even when bypassed: the board-run fp16 element-wise
 * streams leave them at whatever the previous job set (A36). */
static void flying_bs_bn(struct rc_program *p, float factor)
{
	RC_WRITE(p, DPU, BS_CFG, NPU_DPU_BS_BYPASSED);
	RC_WRITE(p, DPU, BN_CFG, factor != 0.0f ? BN_CFG_MUL_ONLY : NPU_DPU_BN_BYPASSED);
	if (factor != 0.0f)
		RC_WRITE(p, DPU, BN_MUL_CFG,
			 NPU_FV(DPU, BN_MUL_CFG, BN_MUL_OPERAND, layout_f32_to_f16(factor)));
}

/* The fp16 tasks' output: fp32 rounded once to fp16, no other scale. */
static void fp16_out(struct rc_program *p)
{
	RC_WRITE(p, DPU, OUT_CVT_OFFSET, 0);
	RC_WRITE(p, DPU, OUT_CVT_SCALE,
		 NPU_FV(DPU, OUT_CVT_SCALE, FP32TOFP16_EN, 1) |
		 NPU_FV(DPU, OUT_CVT_SCALE, OUT_CVT_SCALE, NPU_CVT_SCALE_ONE));
	RC_WRITE(p, DPU, OUT_CVT_SHIFT, 0);
}

/* ...and the EW operand converter and clamp unused. */
static void fp16_out_cvt(struct rc_program *p)
{
	RC_WRITE(p, DPU, EW_CVT_OFFSET_VALUE, 0);
	RC_WRITE(p, DPU, EW_CVT_SCALE_VALUE, 0);
	RC_WRITE(p, DPU, EW_RELUX_CMP_VALUE, 0);
	fp16_out(p);
}

/* An integer task's output as it leaves the EW stage, saturated to the
 * output precision: OUT_CVT scale 1, no shift or offset; the EW operand
 * converter and clamp unused. */
static void int_out_identity(struct rc_program *p)
{
	RC_WRITE(p, DPU, EW_CVT_OFFSET_VALUE, 0);
	RC_WRITE(p, DPU, EW_CVT_SCALE_VALUE, 0);
	RC_WRITE(p, DPU, EW_RELUX_CMP_VALUE, 0);
	RC_WRITE(p, DPU, OUT_CVT_OFFSET, 0);
	RC_WRITE(p, DPU, OUT_CVT_SCALE,
		 NPU_FV(DPU, OUT_CVT_SCALE, OUT_CVT_SCALE, NPU_CVT_SCALE_ONE));
	RC_WRITE(p, DPU, OUT_CVT_SHIFT, 0);
}

void lower_fp16_flying_begin(struct rc_program *p, const struct lower_cube *cb)
{
	cube_head(p, cb, NPU_PREC_FP16);
	fp16_out(p);
	cube_rdma(p, cb, NPU_PREC_FP16);
}

/* The cube's addresses aligned and its operands (in_prec) and output
 * (out_prec) inside the 32-bit address space. */
static int check_cube_formats(const char *who, const struct lower_cube *cb, uint32_t b_addr,
			      enum npu_precision in_prec, enum npu_precision out_prec)
{
	size_t in_bytes = layout_nc1hwc2_bytes(in_prec, cb->h, cb->w, cb->c);

	if ((cb->in_addr | b_addr | cb->out_addr) % NPU_ATOM_BYTES) {
		hal_err("%s: addresses must be %u-byte aligned", who, NPU_ATOM_BYTES);
		return -EINVAL;
	}
	if (rc_check_extent(who, "first operand", cb->in_addr, in_bytes) ||
	    (b_addr && rc_check_extent(who, "second operand", b_addr, in_bytes)) ||
	    rc_check_extent(who, "output", cb->out_addr,
			    layout_nc1hwc2_bytes(out_prec, cb->h, cb->w, cb->c)))
		return -ERANGE;
	return 0;
}

static int check_cube(const char *who, const struct lower_cube *cb, uint32_t b_addr,
		      enum npu_precision prec)
{
	return check_cube_formats(who, cb, b_addr, prec, prec);
}

static int lower_add_fp16(struct rc_program *p, const struct lower_add_op *op)
{
	struct lower_add_params unused;
	struct lower_cube cb = cube_of(op);
	bool mul = op->alu == LOWER_EW_MUL;
	int ret = lower_add_check(op, &unused);

	if (!ret)
		ret = check_cube("add", &cb, op->b_addr, NPU_PREC_FP16);
	if (ret)
		return ret;
	cube_head(p, &cb, NPU_PREC_FP16);
	if (op->after_previous)
		rc_task_after_previous(p);
	flying_bs_bn(p, op->a_factor);
	/* add: ALU add, the operand unconverted (op_cvt_bypass 1); mul:
	 * op_type 1 with ALU code 0, as elementwise.py writes its MUL */
	RC_WRITE(p, DPU, EW_CFG,
		 NPU_FV(DPU, EW_CFG, EW_DATA_MODE, NPU_ERDMA_PER_PIXEL) |
		 NPU_FV(DPU, EW_CFG, EDATA_SIZE, NPU_ERDMA_SIZE_16BIT) |
		 NPU_FV(DPU, EW_CFG, EW_ALU_ALGO, mul ? NPU_ALU_MAX : NPU_ALU_ADD) |
		 NPU_FV(DPU, EW_CFG, EW_OP_TYPE, mul) |
		 NPU_FV(DPU, EW_CFG, EW_RELU_BYPASS, op->act == LOWER_ACT_NONE) |
		 NPU_FV(DPU, EW_CFG, EW_OP_CVT_BYPASS, 1) |
		 NPU_FV(DPU, EW_CFG, EW_LUT_BYPASS, 1) |
		 NPU_FV(DPU, EW_CFG, EW_OP_SRC, NPU_EW_OP_FROM_ERDMA));
	fp16_out_cvt(p);
	cube_rdma(p, &cb, NPU_PREC_FP16);
	add_erdma(p, op, NPU_ERDMA_SIZE_16BIT);
	rc_task_end(p, NPU_EN_DPU | NPU_EN_DPU_RDMA, NPU_INT_DPU);
	return p->err;
}

int lower_add(struct rc_program *p, const struct lower_add_op *op)
{
	struct lower_add_params pr;
	int32_t za = quant_signed_zp(op->a_zp, op->is_unsigned);
	int32_t zb = quant_signed_zp(op->b_zp, op->is_unsigned);
	int32_t zo = quant_signed_zp(op->out_zp, op->is_unsigned);
	struct lower_cube cb = cube_of(op);
	bool relu = op->act != LOWER_ACT_NONE, relux = false;
	int32_t relux_max = 0;
	int ret;

	if (op->prec == NPU_PREC_FP16)
		return lower_add_fp16(p, op);
	ret = lower_add_check(op, &pr);

	if (ret)
		return ret;
	ret = check_cube("add", &cb, op->b_addr, NPU_PREC_INT8);
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

	cube_head(p, &cb, NPU_PREC_INT8);
	/* BS: (a − za) · Ma from constants. */
	RC_WRITE(p, DPU, BS_CFG,
		 NPU_FV(DPU, BS_CFG, BS_ALU_ALGO, NPU_ALU_ADD) |
		 NPU_FV(DPU, BS_CFG, BS_RELU_BYPASS, 1));
	RC_WRITE(p, DPU, BS_ALU_CFG, (uint32_t)-za);
	RC_WRITE(p, DPU, BS_MUL_CFG,
		 NPU_FV(DPU, BS_MUL_CFG, BS_MUL_OPERAND, (uint16_t)pr.a_mult));
	RC_WRITE(p, DPU, BS_RELUX_CMP_VALUE, 0);
	RC_WRITE(p, DPU, BN_CFG, NPU_DPU_BN_BYPASSED);
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
	cube_rdma(p, &cb, NPU_PREC_INT8);
	add_erdma(p, op, NPU_ERDMA_SIZE_8BIT);
	rc_task_end(p, NPU_EN_DPU | NPU_EN_DPU_RDMA, NPU_INT_DPU);
	return p->err;
}

unsigned int lower_lut_entries(const struct lower_lut_table *tab)
{
	int64_t span = (int64_t)tab->end - tab->start;
	int64_t last = span >> tab->select;

	/* an end between two entries interpolates towards the next one */
	if (span & (((int64_t)1 << tab->select) - 1))
		last++;
	/* more than any table holds: NPU_LUT_ENTRIES + 1 stands for them all */
	return last >= (int64_t)NPU_LUT_ENTRIES ? NPU_LUT_ENTRIES + 1u : (unsigned int)last + 1u;
}

void lower_lut_fill(struct lower_lut_table *tab, float in_scale, double out_scale,
		    double (*f)(double x, const void *ctx), const void *ctx)
{
	unsigned int n = lower_lut_entries(tab);

	memset(tab->t, 0, sizeof(tab->t));
	for (unsigned int i = 0; i < n && i < NPU_LUT_ENTRIES; i++) {
		double x = ((double)tab->start + (double)((int64_t)i << tab->select)) / in_scale;
		double v = f(x, ctx) * out_scale;

		tab->t[i] = (int16_t)(v >= INT16_MAX ? INT16_MAX : v <= INT16_MIN ? INT16_MIN :
				      quant_round(v));
	}
}

/* The select field is 8 bits, the slope shifts 5 (npu_regs.def); a shift
 * past 31 would leave nothing of a 32-bit product. */
#define LUT_SELECT_MAX		31u
#define LUT_SHIFT_MAX		31u

int lower_lut_check(const struct lower_lut_op *op)
{
	const struct lower_lut *l = op->lut;
	struct lower_cube cb = { op->h, op->w, op->c, op->in_addr, op->out_addr };

	if (!lower_eltwise_dims_ok(op->h, op->w, op->c)) {
		hal_err("lut: tensor %ux%ux%u outside 1..%u", op->h, op->w, op->c,
			LOWER_ELTWISE_MAX_DIM);
		return -EINVAL;
	}
	if (!l || (l->in_scale != 0.0f && !fp16_pow2(l->in_scale))) {
		hal_err("lut: %s", l ? "in_scale must be 0 (BN bypassed) or a power of two within "
				       "fp16's normal range" : "no table");
		return -EINVAL;
	}
	if (l->hybrid >= NPU_LUT_TABLES || l->oflow >= NPU_LUT_TABLES ||
	    l->uflow >= NPU_LUT_TABLES) {
		hal_err("lut: priorities name LE (%u) or LO (%u) only", NPU_LUT_TABLE_LE,
			NPU_LUT_TABLE_LO);
		return -EINVAL;
	}
	for (unsigned int id = 0; id < NPU_LUT_TABLES; id++) {
		const struct lower_lut_table *t = &l->tab[id];

		if (t->select > LUT_SELECT_MAX || t->uflow_shift > LUT_SHIFT_MAX ||
		    t->oflow_shift > LUT_SHIFT_MAX || t->end < t->start ||
		    lower_lut_entries(t) > NPU_LUT_ENTRIES) {
			hal_err("lut: table %u: [%d, %d] >> %u needs more than %u entries or a "
				"field is out of range", id, t->start, t->end, t->select,
				NPU_LUT_ENTRIES);
			return -EINVAL;
		}
	}
	if (op->int8 && l->in_scale != 0.0f) {
		hal_err("lut: int8 maps take the value itself (in_scale 0)");
		return -EINVAL;
	}
	return check_cube("lut", &cb, 0, op->int8 ? NPU_PREC_INT8 : NPU_PREC_FP16);
}

void lower_lut_int8(const int8_t table[LOWER_LUT_INT8_VALUES], struct lower_lut *lut)
{
	struct lower_lut_table t = { .start = INT8_MIN, .end = INT8_MAX, .select = 0 };

	for (unsigned int i = 0; i < LOWER_LUT_INT8_VALUES; i++)
		t.t[i] = table[i];
	*lut = (struct lower_lut){
		.tab = { [NPU_LUT_TABLE_LE] = t, [NPU_LUT_TABLE_LO] = t },
		.hybrid = NPU_LUT_TABLE_LE, .oflow = NPU_LUT_TABLE_LE, .uflow = NPU_LUT_TABLE_LE,
		.in_scale = 0.0f,
	};
}

/* One table's upload (LUT_ACCESS_CFG, then an auto-incrementing
 * LUT_ACCESS_DATA write per entry, as silu.py writes it). */
static void lut_upload(struct rc_program *p, unsigned int id, const struct lower_lut_table *t)
{
	RC_WRITE(p, DPU, LUT_ACCESS_CFG,
		 NPU_FV(DPU, LUT_ACCESS_CFG, LUT_ACCESS_TYPE, NPU_LUT_ACCESS_WRITE) |
		 NPU_FV(DPU, LUT_ACCESS_CFG, LUT_TABLE_ID, id));
	for (unsigned int j = 0; j < lower_lut_entries(t); j++)
		RC_WRITE(p, DPU, LUT_ACCESS_DATA,
			 NPU_FV(DPU, LUT_ACCESS_DATA, LUT_ACCESS_DATA, (uint16_t)t->t[j]));
}

int lower_lut(struct rc_program *p, const struct lower_lut_op *op)
{
	const struct lower_lut *l = op->lut;
	const struct lower_lut_table *le = &l->tab[NPU_LUT_TABLE_LE];
	const struct lower_lut_table *lo = &l->tab[NPU_LUT_TABLE_LO];
	struct lower_cube cb = { op->h, op->w, op->c, op->in_addr, op->out_addr };
	enum npu_precision prec = op->int8 ? NPU_PREC_INT8 : NPU_PREC_FP16;
	int ret = lower_lut_check(op);

	if (ret)
		return ret;
	cube_head(p, &cb, prec);
	for (unsigned int id = 0; id < NPU_LUT_TABLES; id++)
		lut_upload(p, id, &l->tab[id]);
	flying_bs_bn(p, l->in_scale);
	/* the EW operation and its clamps bypassed: the LUT alone */
	RC_WRITE(p, DPU, EW_CFG,
		 NPU_FV(DPU, EW_CFG, EW_RELU_BYPASS, 1) | NPU_FV(DPU, EW_CFG, EW_OP_CVT_BYPASS, 1) |
		 NPU_FV(DPU, EW_CFG, EW_OP_BYPASS, 1));
	if (op->int8)
		int_out_identity(p);
	else
		fp16_out_cvt(p);
	RC_WRITE(p, DPU, LUT_CFG,
		 NPU_FV(DPU, LUT_CFG, LUT_HYBRID_PRIORITY, l->hybrid) |
		 NPU_FV(DPU, LUT_CFG, LUT_OFLOW_PRIORITY, l->oflow) |
		 NPU_FV(DPU, LUT_CFG, LUT_UFLOW_PRIORITY, l->uflow) |
		 NPU_FV(DPU, LUT_CFG, LUT_LO_LE_MUX, NPU_LUT_LO_LE_MUX_BOARD));
	RC_WRITE(p, DPU, LUT_INFO,
		 NPU_FV(DPU, LUT_INFO, LUT_LO_INDEX_SELECT, lo->select) |
		 NPU_FV(DPU, LUT_INFO, LUT_LE_INDEX_SELECT, le->select));
	RC_WRITE(p, DPU, LUT_LE_START, (uint32_t)le->start);
	RC_WRITE(p, DPU, LUT_LE_END, (uint32_t)le->end);
	RC_WRITE(p, DPU, LUT_LO_START, (uint32_t)lo->start);
	RC_WRITE(p, DPU, LUT_LO_END, (uint32_t)lo->end);
	RC_WRITE(p, DPU, LUT_LE_SLOPE_SCALE,
		 NPU_FV(DPU, LUT_LE_SLOPE_SCALE, LUT_LE_SLOPE_OFLOW_SCALE, (uint16_t)le->oflow_scale) |
		 NPU_FV(DPU, LUT_LE_SLOPE_SCALE, LUT_LE_SLOPE_UFLOW_SCALE, (uint16_t)le->uflow_scale));
	RC_WRITE(p, DPU, LUT_LE_SLOPE_SHIFT,
		 NPU_FV(DPU, LUT_LE_SLOPE_SHIFT, LUT_LE_SLOPE_OFLOW_SHIFT, le->oflow_shift) |
		 NPU_FV(DPU, LUT_LE_SLOPE_SHIFT, LUT_LE_SLOPE_UFLOW_SHIFT, le->uflow_shift));
	RC_WRITE(p, DPU, LUT_LO_SLOPE_SCALE,
		 NPU_FV(DPU, LUT_LO_SLOPE_SCALE, LUT_LO_SLOPE_OFLOW_SCALE, (uint16_t)lo->oflow_scale) |
		 NPU_FV(DPU, LUT_LO_SLOPE_SCALE, LUT_LO_SLOPE_UFLOW_SCALE, (uint16_t)lo->uflow_scale));
	RC_WRITE(p, DPU, LUT_LO_SLOPE_SHIFT,
		 NPU_FV(DPU, LUT_LO_SLOPE_SHIFT, LUT_LO_SLOPE_OFLOW_SHIFT, lo->oflow_shift) |
		 NPU_FV(DPU, LUT_LO_SLOPE_SHIFT, LUT_LO_SLOPE_UFLOW_SHIFT, lo->uflow_shift));
	cube_rdma(p, &cb, prec);
	RC_WRITE(p, DPU_RDMA, ERDMA_CFG, NPU_FV(DPU_RDMA, ERDMA_CFG, ERDMA_DISABLE, 1));
	rc_task_end(p, NPU_EN_DPU | NPU_EN_DPU_RDMA, NPU_INT_DPU);
	return p->err;
}

/* Whether v rounds to a normal fp16 number (the BN operand, A19). */
static bool fp16_normal(float v)
{
	int e;

	if (!(v > 0.0f) || v > FP16_MAX_VALUE)
		return false;
	(void)frexpf(v, &e);
	return e - 1 >= FP16_MIN_EXP;
}

/* The precisions a scale task reads, computes in and writes. */
static void scale_precisions(enum lower_scale_conv conv, enum npu_precision *in,
			     enum npu_precision *out)
{
	*in = conv == LOWER_SCALE_INT8_TO_FP16 ? NPU_PREC_INT8 : NPU_PREC_FP16;
	*out = conv == LOWER_SCALE_FP16_TO_INT8 ? NPU_PREC_INT8 : NPU_PREC_FP16;
}

static bool scale_conv_ok(enum lower_scale_conv conv)
{
	return conv == LOWER_SCALE_FP16 || conv == LOWER_SCALE_INT8_TO_FP16 ||
	       conv == LOWER_SCALE_FP16_TO_INT8;
}

static bool scale_zp_ok(const struct lower_scale_op *op)
{
	return op->zp >= INT8_MIN && op->zp <= INT8_MAX && (!op->zp || op->conv != LOWER_SCALE_FP16);
}

static bool scale_factor_ok(const struct lower_scale_op *op)
{
	return op->conv == LOWER_SCALE_FP16 ? fp16_pow2(op->factor) : fp16_normal(op->factor);
}

bool lower_scale_fits(const struct lower_scale_op *op)
{
	return lower_eltwise_dims_ok(op->h, op->w, op->c) && scale_conv_ok(op->conv) &&
	       scale_zp_ok(op) && scale_factor_ok(op);
}

struct lower_scale_op lower_convert_op(float scale, int32_t zp, bool up, unsigned int h,
				       unsigned int w, unsigned int c)
{
	return (struct lower_scale_op){
		.h = h, .w = w, .c = c, .factor = up ? scale : 1.0f / scale,
		.conv = up ? LOWER_SCALE_INT8_TO_FP16 : LOWER_SCALE_FP16_TO_INT8, .zp = zp,
	};
}

bool lower_convert_fits(float scale, int32_t zp, bool up, unsigned int h, unsigned int w,
			unsigned int c)
{
	struct lower_scale_op sc = lower_convert_op(scale, zp, up, h, w, c);

	return scale > 0.0f && lower_scale_fits(&sc);
}

int lower_scale_check(const struct lower_scale_op *op)
{
	struct lower_cube cb = { op->h, op->w, op->c, op->in_addr, op->out_addr };
	enum npu_precision in, out;

	if (!lower_eltwise_dims_ok(op->h, op->w, op->c)) {
		hal_err("scale: tensor %ux%ux%u outside 1..%u", op->h, op->w, op->c,
			LOWER_ELTWISE_MAX_DIM);
		return -EINVAL;
	}
	if (!scale_conv_ok(op->conv)) {
		hal_err("scale: conversion %d (fp16, int8 to fp16 or fp16 to int8)",
			(int)op->conv);
		return -EINVAL;
	}
	if (!scale_zp_ok(op)) {
		hal_err("scale: zero point %d (a conversion's int8 one, -128..127)", (int)op->zp);
		return -EINVAL;
	}
	if (!scale_factor_ok(op)) {
		hal_err("scale: factor %g is not %s within fp16's normal range",
			(double)op->factor,
			op->conv == LOWER_SCALE_FP16 ? "a power of two" : "a number");
		return -EINVAL;
	}
	scale_precisions(op->conv, &in, &out);
	return check_cube_formats("scale", &cb, 0, in, out);
}

/* A conversion's BS and BN with a zero point: BS bypassed, BN adding it in
 * the factor's units (q − zp before the multiply up, x + zp / factor
 * before the one down; an fp32 operand on float data, A28), then
 * multiplying by the factor. */
static void zp_bs_bn(struct rc_program *p, const struct lower_scale_op *op)
{
	float m = layout_f16_to_f32(layout_f32_to_f16(op->factor));
	float add = op->conv == LOWER_SCALE_INT8_TO_FP16 ? -(float)op->zp : (float)op->zp / m;
	uint32_t bits;

	memcpy(&bits, &add, sizeof(bits));
	RC_WRITE(p, DPU, BS_CFG, NPU_DPU_BS_BYPASSED);
	RC_WRITE(p, DPU, BN_CFG,
		 NPU_FV(DPU, BN_CFG, BN_RELU_BYPASS, 1) |
		 NPU_FV(DPU, BN_CFG, BN_ALU_ALGO, NPU_ALU_ADD));
	RC_WRITE(p, DPU, BN_ALU_CFG, bits);
	RC_WRITE(p, DPU, BN_MUL_CFG,
		 NPU_FV(DPU, BN_MUL_CFG, BN_MUL_OPERAND, layout_f32_to_f16(op->factor)));
}

int lower_scale(struct rc_program *p, const struct lower_scale_op *op)
{
	struct lower_cube cb = { op->h, op->w, op->c, op->in_addr, op->out_addr };
	enum npu_precision in, out;
	int ret = lower_scale_check(op);

	if (ret)
		return ret;
	scale_precisions(op->conv, &in, &out);
	cube_head_formats(p, &cb, in, NPU_PREC_FP16, out);
	if (op->after_previous)
		rc_task_after_previous(p);
	if (op->zp)
		zp_bs_bn(p, op);
	else
		flying_bs_bn(p, op->factor);
	RC_WRITE(p, DPU, EW_CFG,
		 NPU_FV(DPU, EW_CFG, EW_RELU_BYPASS, 1) | NPU_FV(DPU, EW_CFG, EW_OP_CVT_BYPASS, 1) |
		 NPU_FV(DPU, EW_CFG, EW_LUT_BYPASS, 1) | NPU_FV(DPU, EW_CFG, EW_OP_BYPASS, 1));
	if (out == NPU_PREC_INT8)
		int_out_identity(p);
	else
		fp16_out_cvt(p);
	cube_rdma_formats(p, &cb, in, NPU_PREC_FP16);
	RC_WRITE(p, DPU_RDMA, ERDMA_CFG, NPU_FV(DPU_RDMA, ERDMA_CFG, ERDMA_DISABLE, 1));
	rc_task_end(p, NPU_EN_DPU | NPU_EN_DPU_RDMA, NPU_INT_DPU);
	return p->err;
}
