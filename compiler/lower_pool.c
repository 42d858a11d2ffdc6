/* SPDX-License-Identifier: MIT */
/* Pooling as one PPU task fed by PPU_RDMA (HARDWARE.md §4.6). */
#include <errno.h>
#include <math.h>

#include "hal.h"
#include "compiler/layout.h"
#include "compiler/lower_pool.h"

/* Field limits (npu_regs.def): cube sizes 13 bits minus one, kernel and
 * stride 4 bits minus one (the kernel's in lower_pool.h), pads 3 bits. */
#define POOL_MAX_DIM		8192u
#define POOL_MAX_STRIDE		16u
#define POOL_MAX_PAD		7u
/* RECIP_KERNEL_WIDTH/HEIGHT hold 2^16 / k (HARDWARE.md §4.6; rounding UNSURE). */
#define POOL_RECIP_ONE		(1u << 16)
/* IEEE binary16: 10 mantissa bits, exponent bias 15. */
#define FP16_MANT_BITS		10
#define FP16_EXP_BIAS		15

static unsigned int pool_out_dim(unsigned int in, unsigned int k, unsigned int s, bool same)
{
	if (same)
		return (in + s - 1) / s;
	return in >= k ? (in - k) / s + 1 : 0;
}

bool lower_pool_fp16_avg_fits(unsigned int kh, unsigned int kw)
{
	return kh > 1 && kw > 1;
}

int lower_pool_check(const struct lower_pool_op *op, struct lower_pool_shape *s)
{
	int total;

	if (op->prec != NPU_PREC_INT8 && op->prec != NPU_PREC_FP16) {
		hal_err("pool: precision %d (int8 or fp16 only)", op->prec);
		return -ENOTSUP;
	}
	if (op->method > LOWER_POOL_MIN) {
		hal_err("pool: unknown method %d", op->method);
		return -EINVAL;
	}
	if (!op->in_h || !op->in_w || !op->c || op->in_h > POOL_MAX_DIM ||
	    op->in_w > POOL_MAX_DIM || op->c > POOL_MAX_DIM) {
		hal_err("pool: input %ux%ux%u outside 1..%u", op->in_h, op->in_w, op->c,
			POOL_MAX_DIM);
		return -EINVAL;
	}
	if (!op->kh || !op->kw || op->kh > LOWER_POOL_MAX_KERNEL || op->kw > LOWER_POOL_MAX_KERNEL ||
	    !op->stride_y || !op->stride_x || op->stride_y > POOL_MAX_STRIDE ||
	    op->stride_x > POOL_MAX_STRIDE) {
		hal_err("pool: kernel %ux%u / stride %ux%u outside 1..%u", op->kh, op->kw,
			op->stride_y, op->stride_x, LOWER_POOL_MAX_KERNEL);
		return -EINVAL;
	}
	if (op->explicit_pads) {
		s->out_h = pool_out_dim(op->in_h + op->pad_top + op->pad_bottom, op->kh,
					op->stride_y, false);
		s->out_w = pool_out_dim(op->in_w + op->pad_left + op->pad_right, op->kw,
					op->stride_x, false);
	} else {
		s->out_h = pool_out_dim(op->in_h, op->kh, op->stride_y, op->same_padding);
		s->out_w = pool_out_dim(op->in_w, op->kw, op->stride_x, op->same_padding);
	}
	if (!s->out_h || !s->out_w) {
		hal_err("pool: %ux%u window larger than the padded %ux%u input", op->kh, op->kw,
			op->in_h, op->in_w);
		return -EINVAL;
	}
	if (op->explicit_pads) {
		/* Padding past the last window is never read: keep what is used. */
		total = (int)((s->out_h - 1) * op->stride_y + op->kh) - (int)op->in_h;
		s->pad_top = op->pad_top;
		s->pad_bottom = (unsigned int)(total - (int)op->pad_top > 0 ? total - (int)op->pad_top
									  : 0);
		total = (int)((s->out_w - 1) * op->stride_x + op->kw) - (int)op->in_w;
		s->pad_left = op->pad_left;
		s->pad_right = (unsigned int)(total - (int)op->pad_left > 0
						      ? total - (int)op->pad_left : 0);
	} else {
		total = op->same_padding
				? (int)((s->out_h - 1) * op->stride_y + op->kh) - (int)op->in_h : 0;
		total = total < 0 ? 0 : total;
		s->pad_top = (unsigned int)total / 2;
		s->pad_bottom = (unsigned int)total - s->pad_top;
		total = op->same_padding
				? (int)((s->out_w - 1) * op->stride_x + op->kw) - (int)op->in_w : 0;
		total = total < 0 ? 0 : total;
		s->pad_left = (unsigned int)total / 2;
		s->pad_right = (unsigned int)total - s->pad_left;
	}
	if (s->pad_top > POOL_MAX_PAD || s->pad_left > POOL_MAX_PAD ||
	    s->pad_bottom > POOL_MAX_PAD || s->pad_right > POOL_MAX_PAD) {
		hal_err("pool: padding above %u", POOL_MAX_PAD);
		return -ENOTSUP;
	}
	if (op->method == LOWER_POOL_AVG && op->prec == NPU_PREC_FP16 &&
	    !lower_pool_fp16_avg_fits(op->kh, op->kw)) {
		hal_err("pool: fp16 average over a kernel side of 1: its reciprocal 2^16 "
			"is beyond fp16");
		return -ENOTSUP;
	}
	if (op->method == LOWER_POOL_AVG && !op->count_padding &&
	    (s->pad_top || s->pad_left || s->pad_bottom || s->pad_right)) {
		hal_err("pool: average pooling with padding would count padded cells "
			"(use VALID or a size without padding)");
		return -ENOTSUP;
	}
	s->in_bytes = layout_nc1hwc2_bytes(op->prec, op->in_h, op->in_w, op->c);
	s->out_bytes = layout_nc1hwc2_bytes(op->prec, s->out_h, s->out_w, op->c);
	return 0;
}

/*
 * RECIP_KERNEL_WIDTH / HEIGHT: 2^16 / k, as an integer for int8 and as an
 * fp16 bit pattern for fp16 (the vendor's fp16 streams write 0x7800 =
 * 32768.0 for k = 2: allbilly/rk3588 experimental/pool.py, board-run).
 */
static uint32_t pool_recip(enum npu_precision prec, unsigned int k)
{
	float m;
	uint32_t man;
	int e;

	if (prec != NPU_PREC_FP16)
		return (POOL_RECIP_ONE + k / 2) / k;
	/* 2^16 / k = 2m · 2^(e-1), 2m in [1, 2); k >= 2 keeps it below 2^16. */
	m = frexpf((float)POOL_RECIP_ONE / (float)k, &e);
	man = (uint32_t)lrintf((2.0f * m - 1.0f) * (float)(1u << FP16_MANT_BITS));
	e -= 1;
	if (man == 1u << FP16_MANT_BITS) {
		man = 0;
		e++;
	}
	return ((uint32_t)(e + FP16_EXP_BIAS) << FP16_MANT_BITS) | man;
}

int lower_pool(struct rc_program *p, const struct lower_pool_op *op)
{
	struct lower_pool_shape s;
	uint32_t in_surface, out_surface;
	int ret = lower_pool_check(op, &s);

	if (ret)
		return ret;
	if ((op->in_addr | op->out_addr) % NPU_ATOM_BYTES) {
		hal_err("pool: addresses 0x%08x/0x%08x must be %u-byte aligned", op->in_addr,
			op->out_addr, NPU_ATOM_BYTES);
		return -EINVAL;
	}
	if (rc_check_extent("pool", "input", op->in_addr, s.in_bytes) ||
	    rc_check_extent("pool", "output", op->out_addr, s.out_bytes))
		return -ERANGE;
	in_surface = op->in_w * op->in_h * NPU_ATOM_BYTES;
	out_surface = s.out_w * s.out_h * NPU_ATOM_BYTES;

	rc_task_begin(p);
	RC_WRITE(p, PPU, S_POINTER, NPU_S_POINTER_PP(PPU));
	RC_WRITE(p, PPU_RDMA, S_POINTER, NPU_S_POINTER_PP(PPU_RDMA));
	RC_WRITE(p, PPU, DATA_CUBE_IN_WIDTH, NPU_FV(PPU, DATA_CUBE_IN_WIDTH, CUBE_IN_WIDTH, op->in_w - 1));
	RC_WRITE(p, PPU, DATA_CUBE_IN_HEIGHT,
		 NPU_FV(PPU, DATA_CUBE_IN_HEIGHT, CUBE_IN_HEIGHT, op->in_h - 1));
	RC_WRITE(p, PPU, DATA_CUBE_IN_CHANNEL,
		 NPU_FV(PPU, DATA_CUBE_IN_CHANNEL, CUBE_IN_CHANNEL, op->c - 1));
	RC_WRITE(p, PPU, DATA_CUBE_OUT_WIDTH,
		 NPU_FV(PPU, DATA_CUBE_OUT_WIDTH, CUBE_OUT_WIDTH, s.out_w - 1));
	RC_WRITE(p, PPU, DATA_CUBE_OUT_HEIGHT,
		 NPU_FV(PPU, DATA_CUBE_OUT_HEIGHT, CUBE_OUT_HEIGHT, s.out_h - 1));
	RC_WRITE(p, PPU, DATA_CUBE_OUT_CHANNEL,
		 NPU_FV(PPU, DATA_CUBE_OUT_CHANNEL, CUBE_OUT_CHANNEL, op->c - 1));
	/* flying_mode 1: the cube comes from outside (PPU_RDMA), not from
	 * the DPU (TRM RKNN_ppu_operation_mode_cfg; docs/HARDWARE.md). */
	RC_WRITE(p, PPU, OPERATION_MODE_CFG,
		 NPU_FV(PPU, OPERATION_MODE_CFG, FLYING_MODE, NPU_FLYING_FROM_MEMORY) |
		 NPU_FV(PPU, OPERATION_MODE_CFG, POOLING_METHOD, op->method));
	RC_WRITE(p, PPU, POOLING_KERNEL_CFG,
		 NPU_FV(PPU, POOLING_KERNEL_CFG, KERNEL_STRIDE_HEIGHT, op->stride_y - 1) |
		 NPU_FV(PPU, POOLING_KERNEL_CFG, KERNEL_STRIDE_WIDTH, op->stride_x - 1) |
		 NPU_FV(PPU, POOLING_KERNEL_CFG, KERNEL_HEIGHT, op->kh - 1) |
		 NPU_FV(PPU, POOLING_KERNEL_CFG, KERNEL_WIDTH, op->kw - 1));
	RC_WRITE(p, PPU, RECIP_KERNEL_WIDTH,
		 NPU_FV(PPU, RECIP_KERNEL_WIDTH, RECIP_KERNEL_WIDTH,
			pool_recip(op->prec, op->kw)));
	RC_WRITE(p, PPU, RECIP_KERNEL_HEIGHT,
		 NPU_FV(PPU, RECIP_KERNEL_HEIGHT, RECIP_KERNEL_HEIGHT,
			pool_recip(op->prec, op->kh)));
	RC_WRITE(p, PPU, POOLING_PADDING_CFG,
		 NPU_FV(PPU, POOLING_PADDING_CFG, PAD_BOTTOM, s.pad_bottom) |
		 NPU_FV(PPU, POOLING_PADDING_CFG, PAD_RIGHT, s.pad_right) |
		 NPU_FV(PPU, POOLING_PADDING_CFG, PAD_TOP, s.pad_top) |
		 NPU_FV(PPU, POOLING_PADDING_CFG, PAD_LEFT, s.pad_left));
	/* Padding counts in averages only (max and min ignore it). */
	RC_WRITE(p, PPU, PADDING_VALUE_1_CFG, (uint32_t)op->pad_value);
	RC_WRITE(p, PPU, PADDING_VALUE_2_CFG, (uint32_t)op->pad_value);
	RC_WRITE(p, PPU, DST_BASE_ADDR,
		 NPU_FV(PPU, DST_BASE_ADDR, DST_BASE_ADDR, op->out_addr / NPU_ATOM_BYTES));
	RC_WRITE(p, PPU, DST_SURF_STRIDE,
		 NPU_FV(PPU, DST_SURF_STRIDE, DST_SURF_STRIDE, out_surface / NPU_ATOM_BYTES));
	/* index_add: the destination surface stride when index_en is 0 (TRM
	 * RKNN_ppu_data_format). */
	RC_WRITE(p, PPU, DATA_FORMAT,
		 NPU_FV(PPU, DATA_FORMAT, INDEX_ADD, out_surface / NPU_ATOM_BYTES) |
		 NPU_FV(PPU, DATA_FORMAT, PROC_PRECISION, op->prec));
	RC_WRITE(p, PPU, MISC_CTRL, NPU_FV(PPU, MISC_CTRL, BURST_LEN, NPU_BURST_LEN_16));
	RC_WRITE(p, PPU_RDMA, CUBE_IN_WIDTH, NPU_FV(PPU_RDMA, CUBE_IN_WIDTH, CUBE_IN_WIDTH, op->in_w - 1));
	RC_WRITE(p, PPU_RDMA, CUBE_IN_HEIGHT,
		 NPU_FV(PPU_RDMA, CUBE_IN_HEIGHT, CUBE_IN_HEIGHT, op->in_h - 1));
	RC_WRITE(p, PPU_RDMA, CUBE_IN_CHANNEL,
		 NPU_FV(PPU_RDMA, CUBE_IN_CHANNEL, CUBE_IN_CHANNEL, op->c - 1));
	RC_WRITE(p, PPU_RDMA, SRC_BASE_ADDR, op->in_addr);
	/* Strides in 16-byte units at bit 4, i.e. register value = bytes. */
	RC_WRITE(p, PPU_RDMA, SRC_LINE_STRIDE,
		 NPU_FV(PPU_RDMA, SRC_LINE_STRIDE, SRC_LINE_STRIDE, op->in_w));
	RC_WRITE(p, PPU_RDMA, SRC_SURF_STRIDE,
		 NPU_FV(PPU_RDMA, SRC_SURF_STRIDE, SRC_SURF_STRIDE, in_surface / NPU_ATOM_BYTES));
	/* An element size (8 bits for int8: the vendor's int8 PPU tasks write 1,
	 * allbilly/rk3588 experimental/rknn/ live captures), not a precision. */
	RC_WRITE(p, PPU_RDMA, DATA_FORMAT,
		 NPU_FV(PPU_RDMA, DATA_FORMAT, IN_PRECISION,
			op->prec == NPU_PREC_INT8 ? NPU_PPU_RDMA_IN_8BIT : NPU_PPU_RDMA_IN_16BIT));
	rc_task_end(p, NPU_EN_PPU | NPU_EN_PPU_RDMA, NPU_INT_PPU);
	return p->err;
}
