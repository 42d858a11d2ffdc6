/* SPDX-License-Identifier: MIT */
/*
 * More board probes (the table is boot/probe.c's; what they share is
 * boot/probe_internal.h): each decides one UNSURE question of
 * sim/ASSUMPTIONS.md from the outputs its readings predict
 * (boot/probe_decide.c).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/probe_internal.h"
#include "compiler/layout.h"
#include "hal.h"

/* fp32 1.0: the BS/BN ALU operand on float data is an fp32 bit pattern (A28). */
#define PROBE_FP32_ONE	0x3F800000u

/* ---- A21: unconverted fp16 through two stages ---- */

/* The stages of A21-stages after dpux_head: BS bypassed, BN adding the
 * register operand fp32 1.0, the EW stage adding the per-pixel fp16
 * operand at t->b_addr (the operand converter bypassed: no A36 state). */
static void stages_body(struct rc_program *p, const struct dpux_task *t)
{
	RC_WRITE(p, DPU, BS_CFG,
		 NPU_FV(DPU, BS_CFG, BS_RELU_BYPASS, 1) | NPU_FV(DPU, BS_CFG, BS_MUL_BYPASS, 1) |
		 NPU_FV(DPU, BS_CFG, BS_ALU_BYPASS, 1) | NPU_FV(DPU, BS_CFG, BS_BYPASS, 1));
	RC_WRITE(p, DPU, BN_CFG,
		 NPU_FV(DPU, BN_CFG, BN_ALU_ALGO, NPU_ALU_ADD) |
		 NPU_FV(DPU, BN_CFG, BN_RELU_BYPASS, 1) | NPU_FV(DPU, BN_CFG, BN_MUL_BYPASS, 1));
	RC_WRITE(p, DPU, BN_ALU_CFG, PROBE_FP32_ONE);
	RC_WRITE(p, DPU, EW_CFG,
		 NPU_FV(DPU, EW_CFG, EW_DATA_MODE, NPU_ERDMA_PER_PIXEL) |
		 NPU_FV(DPU, EW_CFG, EDATA_SIZE, NPU_ERDMA_SIZE_16BIT) |
		 NPU_FV(DPU, EW_CFG, EW_ALU_ALGO, NPU_ALU_ADD) |
		 NPU_FV(DPU, EW_CFG, EW_RELU_BYPASS, 1) |
		 NPU_FV(DPU, EW_CFG, EW_OP_CVT_BYPASS, 1) |
		 NPU_FV(DPU, EW_CFG, EW_LUT_BYPASS, 1) |
		 NPU_FV(DPU, EW_CFG, EW_OP_SRC, NPU_EW_OP_FROM_ERDMA));
	RC_WRITE(p, DPU_RDMA, ERDMA_CFG,
		 NPU_FV(DPU_RDMA, ERDMA_CFG, ERDMA_DATA_MODE, NPU_ERDMA_PER_PIXEL) |
		 NPU_FV(DPU_RDMA, ERDMA_CFG, ERDMA_DATA_SIZE, NPU_ERDMA_SIZE_16BIT));
	RC_WRITE(p, DPU_RDMA, EW_BASE_ADDR, t->b_addr);
	RC_WRITE(p, DPU_RDMA, EW_SURF_STRIDE,
		 NPU_FV(DPU_RDMA, EW_SURF_STRIDE, EW_SURF_STRIDE, DPUX_W));
}

/* Both conversion bits cleared: the board's divide (elementwise.py FDIV,
 * FEATURE_MODE_CFG 0x17841, OUT_CVT_SCALE 1). */
static int stages_unconverted(struct rc_program *p, const struct dpux_task *t)
{
	(void)t;
	return patch_field(p, NPU_DPU_RDMA_FEATURE_MODE_CFG,
			   NPU_FV(DPU_RDMA, FEATURE_MODE_CFG, MRDMA_FP16TOFP32_EN, ~0u), 0) ||
	       patch_field(p, NPU_DPU_OUT_CVT_SCALE,
			   NPU_FV(DPU, OUT_CVT_SCALE, FP32TOFP16_EN, ~0u), 0);
}

/*
 * A21-stages: x + 1 (BN) + e (EW) on fp16 data. Even cells: x a multiple
 * of 4 in [2048, 4096) (fp16 steps of 2), e = 1: x + 1 rounds back to x
 * (ties to even), so per-stage rounding gives x and fp32 inside x + 2 (the
 * entry's 2048 + 1 + 1). Odd cells: small quarters, exact either way
 * (they show the operands are read as meant). The control runs the same
 * task with the board-run pair (both bits 1), whose sums are the fp32
 * reading's; with both bits 0 the readings are per-stage (the model) and
 * fp32.
 */
enum { STG_BIG = 2048, STG_SMALL_Q = 256 };

static int probe_stages_run(struct probe_env *e, bool unconverted, const uint16_t *x,
			    uint32_t b_addr, int64_t *got)
{
	static uint16_t y[DPUX_N];
	const struct dpux_task t = { .b_addr = b_addr, .body = stages_body,
				     .patch = unconverted ? stages_unconverted : NULL };
	int rc = dpux_run(e, &t, x, y);

	for (size_t i = 0; !rc && i < DPUX_N; i++)
		got[i] = quarters(y[i]);
	return rc;
}

int probe_fp16_stages(struct probe_env *e, const struct probe *self, char *seen, size_t len)
{
	static int32_t xq[DPUX_N], eq[DPUX_N];
	static uint16_t x[DPUX_N], b[DPUX_N];
	static int64_t got[DPUX_N];
	const struct probe_stages st = { .xq = xq, .eq = eq, .bnq = 4 };
	size_t bytes = DPUX_N * sizeof(uint16_t);
	struct dma_buf bb = { 0 };
	unsigned int ctl = 0;
	int rc;

	for (size_t i = 0; i < DPUX_N; i++) {
		bool big = i % 2u == 0;

		xq[i] = big ? (STG_BIG + 4 * (int32_t)(rnd32(e) % (STG_BIG / 4))) * 4 :
			      (int32_t)(rnd32(e) % (2 * STG_SMALL_Q)) - STG_SMALL_Q;
		eq[i] = big ? 4 : (int32_t)(rnd32(e) % (2 * STG_SMALL_Q)) - STG_SMALL_Q;
		x[i] = layout_f32_to_f16((float)xq[i] / 4.0f);
		b[i] = layout_f32_to_f16((float)eq[i] / 4.0f);
	}
	if (dma_pool_alloc(e->pool, bytes, DMA_POOL_MIN_ALIGN, &bb))
		return job_failed(e, seen, len, "no NPU memory for the operand");
	memcpy(bb.cpu, b, bytes);
	hal_dcache_clean(bb.cpu, bb.size);
	rc = probe_stages_run(e, false, x, bb.phys, got);
	for (size_t i = 0; !rc && i < DPUX_N; i++)
		ctl += got[i] != probe_stages_expect(&st, STG_FP32, i);
	if (!rc)
		rc = probe_stages_run(e, true, x, bb.phys, got);
	dma_pool_release(e->pool, &bb);
	if (rc)
		return job_failed(e, seen, len, rc == -1 ? "a task could not be built" :
				  "a job failed");
	if (ctl) {
		snprintf(seen, len, "control (both conversion bits 1): %u of %d sums x + 1 + e "
			 "wrong", ctl, DPUX_N);
		return PROBE_NONE;
	}
	return say_int(seen, len, "fp16 x + 1 (BN) + e (EW), both conversion bits 0; control "
		       "exact", &st, probe_stages_expect, self, got, DPUX_N);
}
