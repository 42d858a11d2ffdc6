/* SPDX-License-Identifier: MIT */
/*
 * Named values of register fields of npu_regs.def: the codes a field
 * takes, written by the regcmd builders (compiler/) and read by the model
 * (sim/) under the same names, so the two cannot drift. A one-bit enable or
 * bypass is written as 0 or 1 and has no name here. Sources as in
 * npu_regs.def (docs/HARDWARE.md sections given per group). npu_regs.h
 * includes this file.
 */
#ifndef RKBARE_NPU_VALUES_H
#define RKBARE_NPU_VALUES_H

/* ---- precision codes: *_PRECISION fields of CNA, CORE, DPU, DPU_RDMA and
 * PPU (HARDWARE.md §4.1) ---- */
enum npu_precision {
	NPU_PREC_INT8 = 0,
	NPU_PREC_INT16 = 1,
	NPU_PREC_FP16 = 2,
	NPU_PREC_BF16 = 3,
	NPU_PREC_INT32 = 4,	/* DPU only */
	NPU_PREC_FP32 = 5,	/* DPU only */
	NPU_PREC_INT4 = 6,
	NPU_PREC_TF32 = 7,	/* CNA/CORE only */
};

/* ---- PPU_RDMA DATA_FORMAT.in_precision: an element size, not a precision
 * code (TRM RKNN_ppu_rdma_data_format, allbilly/rk3588
 * experimental/rk3588_trm.md: 0 4-bit, 1 8-bit, 2 16-bit, 3 32-bit) ---- */
#define NPU_PPU_RDMA_IN_4BIT	0u
#define NPU_PPU_RDMA_IN_8BIT	1u
#define NPU_PPU_RDMA_IN_16BIT	2u
#define NPU_PPU_RDMA_IN_32BIT	3u

/* ---- S_POINTER of DPU, DPU_RDMA, PPU and PPU_RDMA: pointer_pp_en |
 * executer_pp_en | pointer_pp_mode 1 = 0xE, as every stream writes it
 * (HARDWARE.md §2.9) ---- */
#define NPU_S_POINTER_PP(BLOCK) \
	(NPU_FV(BLOCK, S_POINTER, POINTER_PP_EN, 1) | \
	 NPU_FV(BLOCK, S_POINTER, EXECUTER_PP_EN, 1) | \
	 NPU_FV(BLOCK, S_POINTER, POINTER_PP_MODE, 1))

/* ---- DPU BS_CFG / BN_CFG with the stage bypassed whole: its ReLU, MUL,
 * ALU and the stage itself ---- */
#define NPU_DPU_BS_BYPASSED \
	(NPU_FV(DPU, BS_CFG, BS_RELU_BYPASS, 1) | NPU_FV(DPU, BS_CFG, BS_MUL_BYPASS, 1) | \
	 NPU_FV(DPU, BS_CFG, BS_ALU_BYPASS, 1) | NPU_FV(DPU, BS_CFG, BS_BYPASS, 1))
#define NPU_DPU_BN_BYPASSED \
	(NPU_FV(DPU, BN_CFG, BN_RELU_BYPASS, 1) | NPU_FV(DPU, BN_CFG, BN_MUL_BYPASS, 1) | \
	 NPU_FV(DPU, BN_CFG, BN_ALU_BYPASS, 1) | NPU_FV(DPU, BN_CFG, BN_BYPASS, 1))

/* ---- DMA burst length code of CNA DMA_CON0, DPU and DPU_RDMA
 * FEATURE_MODE_CFG, PPU MISC_CTRL: 15 = burst16, written by every producer
 * (HARDWARE.md §4.2) ---- */
#define NPU_BURST_LEN_16	15u

/* ---- CNA CONV_CON1.conv_mode, DPU and DPU_RDMA FEATURE_MODE_CFG.conv_mode
 * (HARDWARE.md §4.2, §4.4) ---- */
#define NPU_CONV_MODE_DIRECT	0u
#define NPU_CONV_MODE_DEPTHWISE	3u

/* ---- DPU FEATURE_MODE_CFG.output_mode bits (HARDWARE.md §4.4) ---- */
#define NPU_DPU_OUT_TO_PPU	1u	/* on to the PPU (flying) */
#define NPU_DPU_OUT_TO_MEMORY	2u	/* written to memory by the WDMA */

/* ---- FEATURE_MODE_CFG.flying_mode of DPU and DPU_RDMA, OPERATION_MODE_CFG
 * of the PPU: 1 = the block's input cube comes from memory through its
 * read DMA, not from the block before it (TRM RKNN_ppu_operation_mode_cfg;
 * HARDWARE.md §4.4, §4.6) ---- */
#define NPU_FLYING_FROM_MEMORY	1u

/* ---- DPU BS_CFG / BN_CFG / EW_CFG alu_algo (HARDWARE.md §4.4;
 * sim/ASSUMPTIONS.md A19, A20): BS and BN take add and minus, EW also max
 * and min ---- */
#define NPU_ALU_MAX		0u
#define NPU_ALU_MIN		1u
#define NPU_ALU_ADD		2u
#define NPU_ALU_DIV		3u	/* EW only ("Div", TRM RKNN_dpu_ew_cfg) */
#define NPU_ALU_MINUS		4u

/* ---- EW_CFG.ew_op_type: 1 = multiply by the operand (the XML field name,
 * read the same way by the model; HARDWARE.md §4.4) ---- */
#define NPU_EW_OP_MULTIPLY	1u

/* ---- EW_CFG.ew_op_src: 1 = the operand comes from memory through ERDMA,
 * 0 = the constant EW_OP_VALUE_0 (sim/ASSUMPTIONS.md A20) ---- */
#define NPU_EW_OP_FROM_ERDMA	1u

/* ---- EW_CFG.ew_cvt_type, OUT_CVT_SHIFT.cvt_type: 1 = the offset is added
 * before the scale (HARDWARE.md §4.2; sim/ASSUMPTIONS.md A13, A20) ---- */
#define NPU_CVT_ADD_FIRST	1u

/* ---- DPU_RDMA ERDMA_CFG (and EW_CFG.ew_data_mode / edata_size, which
 * must agree; HARDWARE.md §4.5) ---- */
#define NPU_ERDMA_PER_CHANNEL	0u	/* one operand per channel */
#define NPU_ERDMA_PER_PIXEL	1u	/* one operand per element */
#define NPU_ERDMA_SIZE_8BIT	1u
#define NPU_ERDMA_SIZE_16BIT	2u
#define NPU_ERDMA_SIZE_32BIT	3u

/* ---- DPU_RDMA FEATURE_MODE_CFG.comb_use: bit 0 "MRDMA and ERDMA read the
 * same data", bit 2 "read the data to ERDMA" (TRM); 5 is what Mesa's fused
 * conv + add writes (sim/ASSUMPTIONS.md A34) ---- */
#define NPU_RDMA_COMB_SAME_TO_ERDMA	5u

/* ---- DPU_RDMA BRDMA_CFG.brdma_data_use: 1 = the bias array is the BS ALU
 * operand (HARDWARE.md §4.5) ---- */
#define NPU_BRDMA_USE_ALU	1u

/* ---- DPU_RDMA WEIGHT: the read arbiter's weights, 1 each (Mesa;
 * HARDWARE.md §4.5) ---- */
#define NPU_RDMA_ARB_WEIGHT	1u

/* ---- a converter scale of 1, the value passed through: CNA CVT_CON1..4
 * cvt_scale (HARDWARE.md §4.2), DPU EW_CVT_SCALE_VALUE.ew_op_cvt_scale and,
 * with shift and offset 0, OUT_CVT_SCALE.out_cvt_scale (A13, A20) ---- */
#define NPU_CVT_SCALE_ONE	1u

/* ---- PPU OPERATION_MODE_CFG.pooling_method (HARDWARE.md §4.6; A15) ---- */
#define NPU_POOL_METHOD_AVG	0u
#define NPU_POOL_METHOD_MAX	1u
#define NPU_POOL_METHOD_MIN	2u

/* ---- DPU lookup table (TRM RKNN_dpu_lut_*; sim/ASSUMPTIONS.md A35) ----
 * Two tables, LE (table id 0) and LO (1), of 513 16-bit entries each: the
 * entries every board-run producer uploads (allbilly/rk3588
 * experimental/kernel_6_18/silu.py, experimental/ops_rockchip.py), 2^9
 * intervals of 2^index_select input units. */
#define NPU_LUT_TABLE_LE	0u
#define NPU_LUT_TABLE_LO	1u
#define NPU_LUT_TABLES		2u
#define NPU_LUT_ENTRIES		513u
#define NPU_LUT_ACCESS_READ	0u	/* LUT_ACCESS_CFG.lut_access_type */
#define NPU_LUT_ACCESS_WRITE	1u	/* LUT_ACCESS_CFG.lut_access_type */
/* LUT_CFG.lut_lo_le_mux: the TRM names it "LO LUT and LE LUT mux" without
 * values; 2 is what every published producer writes. */
#define NPU_LUT_LO_LE_MUX_BOARD	2u

/* ---- CNA DMA_CON2.surf_stride that mtx512/rk3588-npu writes for matmuls of
 * M = 1..3 rows: -3 in the signed 28-bit field (0x0ffffffd). rkbare writes
 * W·(H − 4) as the vendor's captures do; the two agree at M = 1, and board
 * probe A9-m3 runs both at M = 3 (HARDWARE.md §5.2, sim/ASSUMPTIONS.md A9) ---- */
#define NPU_CNA_SURF_STRIDE_MTX_SHORT	(-3)
/* CNA CONV_CON2 as board-run gemm.py writes it on its 5120-row tasks
 * (allbilly/rk3588 experimental/kernel_6_18/gemm.py; tests/data/
 * board_gemm_tall.regcmd): bit 14 set, feature_grains (13:4) 0 — an 11-bit
 * feature_grains of 1024, if the field is wider than Mesa's 10 bits. The
 * A31-height probe's one tall task writes the same. */
#define NPU_CNA_CONV_CON2_GEMM_TALL	0x4000u

#endif /* RKBARE_NPU_VALUES_H */
