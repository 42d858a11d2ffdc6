/* SPDX-License-Identifier: MIT */
/*
 * One convolution task as register writes (HARDWARE.md §4.2-4.5, §4.8). The entry
 * order is the one MTX and the vendor runtime use (HARDWARE.md §3.7): DPU
 * S_POINTER first, CNA, CORE, DPU, then DPU_RDMA when the DPU reads bias.
 * Without a bias read the body is exactly MTX's 104 entries.
 */
#include "compiler/layout.h"
#include "compiler/lower_conv.h"

/* CNA DCOMP_AMOUNT0..15 are 16 consecutive words. */
#define CNA_DCOMP_AMOUNTS	16u
/* DPU EW_OP_VALUE_0..7. */
#define DPU_EW_OP_VALUES	8u

/* Atoms one output kernel group spans per pixel (HARDWARE.md §5.3). */
static unsigned int conv_group_atoms(enum npu_precision in_prec, enum npu_precision out_prec,
				     bool depthwise)
{
	bool int8 = in_prec == NPU_PREC_INT8;
	unsigned int kernels = depthwise ? (int8 ? LAYOUT_DW_GROUP_INT8 : LAYOUT_DW_GROUP_FP16) :
			       layout_kernel_group(in_prec);

	return kernels / layout_c2(out_prec);
}

static void emit_cna(struct rc_program *p, const struct conv_task *t)
{
	unsigned int mode = t->depthwise ? NPU_CONV_MODE_DEPTHWISE : NPU_CONV_MODE_DIRECT;
	/* CNA input strides in atoms (docs/HARDWARE.md): a line is a group of
	 * four rows; line + surface stride = one whole surface (W × H). The
	 * surface stride is a signed 28-bit field: W × (H − 4) in two's
	 * complement for H < 4, as the vendor's captured streams write it
	 * (0x0ffffffd for 1×1 and 3×3 inputs, 0x0ffffffc for 2×2). */
	uint32_t line_stride = LOWER_CNA_LINE_ROWS * t->in_w;
	uint32_t surf_stride = t->in_w * t->in_h_full - line_stride;
	/* One input row in 64-byte CBUF units (HARDWARE.md §4.2, CBUF_CON1;
	 * int4: 128 channels an entry, §5.7). */
	uint32_t row_entries = (uint32_t)((layout_packed_bytes(t->in_prec, (size_t)t->in_w *
							       t->in_c_aligned) +
					   LOWER_CBUF_ENTRY_BYTES - 1u) / LOWER_CBUF_ENTRY_BYTES);

	RC_WRITE(p, CNA, CONV_CON1,
		 NPU_FV(CNA, CONV_CON1, PROC_PRECISION, t->in_prec) |
		 NPU_FV(CNA, CONV_CON1, IN_PRECISION, t->in_prec) |
		 NPU_FV(CNA, CONV_CON1, CONV_MODE, mode));
	/* feature_grains: rows buffered before the convolution starts; the
	 * slice height + 1 (MTX M + 1, vendor 15 for 14 rows; UNSURE,
	 * HARDWARE.md §9 question 6). kernel_group 0 as every producer writes. */
	RC_WRITE(p, CNA, CONV_CON2, NPU_FV(CNA, CONV_CON2, FEATURE_GRAINS, t->in_rows + 1u));
	RC_WRITE(p, CNA, CONV_CON3,
		 NPU_FV(CNA, CONV_CON3, CONV_Y_STRIDE, t->stride_y) |
		 NPU_FV(CNA, CONV_CON3, CONV_X_STRIDE, t->stride_x));
	RC_WRITE(p, CNA, DATA_SIZE0,
		 NPU_FV(CNA, DATA_SIZE0, DATAIN_WIDTH, t->in_w) |
		 NPU_FV(CNA, DATA_SIZE0, DATAIN_HEIGHT, t->in_rows));
	RC_WRITE(p, CNA, DATA_SIZE1,
		 NPU_FV(CNA, DATA_SIZE1, DATAIN_CHANNEL_REAL, t->in_c - 1u) |
		 NPU_FV(CNA, DATA_SIZE1, DATAIN_CHANNEL, t->in_c_aligned));
	RC_WRITE(p, CNA, DATA_SIZE2, NPU_FV(CNA, DATA_SIZE2, DATAOUT_WIDTH, t->out_w));
	RC_WRITE(p, CNA, DATA_SIZE3,
		 NPU_FV(CNA, DATA_SIZE3, DATAOUT_ATOMICS, t->out_w * t->out_rows));
	RC_WRITE(p, CNA, WEIGHT_SIZE0, NPU_FV(CNA, WEIGHT_SIZE0, WEIGHT_BYTES, t->weight_bytes));
	RC_WRITE(p, CNA, WEIGHT_SIZE1,
		 NPU_FV(CNA, WEIGHT_SIZE1, WEIGHT_BYTES_PER_KERNEL, t->weight_bytes_per_kernel));
	RC_WRITE(p, CNA, WEIGHT_SIZE2,
		 NPU_FV(CNA, WEIGHT_SIZE2, WEIGHT_WIDTH, t->kw) |
		 NPU_FV(CNA, WEIGHT_SIZE2, WEIGHT_HEIGHT, t->kh) |
		 NPU_FV(CNA, WEIGHT_SIZE2, WEIGHT_KERNELS, t->kernels));
	RC_WRITE(p, CNA, CBUF_CON0,
		 NPU_FV(CNA, CBUF_CON0, WEIGHT_REUSE, t->weight_reuse) |
		 NPU_FV(CNA, CBUF_CON0, WEIGHT_BANK, t->weight_banks) |
		 NPU_FV(CNA, CBUF_CON0, DATA_BANK, t->data_banks));
	RC_WRITE(p, CNA, CBUF_CON1, NPU_FV(CNA, CBUF_CON1, DATA_ENTRIES, row_entries));
	/* Input converter bypassed, signed data (0xB in every stream). */
	RC_WRITE(p, CNA, CVT_CON0,
		 NPU_FV(CNA, CVT_CON0, DATA_SIGN, 1) | NPU_FV(CNA, CVT_CON0, CVT_TYPE, 1) |
		 NPU_FV(CNA, CVT_CON0, CVT_BYPASS, 1));
	RC_WRITE(p, CNA, CVT_CON1, NPU_FV(CNA, CVT_CON1, CVT_SCALE0, NPU_CVT_SCALE_ONE));
	RC_WRITE(p, CNA, CVT_CON2, NPU_FV(CNA, CVT_CON2, CVT_SCALE1, NPU_CVT_SCALE_ONE));
	RC_WRITE(p, CNA, CVT_CON3, NPU_FV(CNA, CVT_CON3, CVT_SCALE2, NPU_CVT_SCALE_ONE));
	RC_WRITE(p, CNA, CVT_CON4, NPU_FV(CNA, CVT_CON4, CVT_SCALE3, NPU_CVT_SCALE_ONE));
	RC_WRITE(p, CNA, FC_CON0, 0);
	RC_WRITE(p, CNA, FC_CON1, 0);
	RC_WRITE(p, CNA, PAD_CON0,
		 NPU_FV(CNA, PAD_CON0, PAD_LEFT, t->pad_left) |
		 NPU_FV(CNA, PAD_CON0, PAD_TOP, t->pad_top));
	RC_WRITE(p, CNA, FEATURE_DATA_ADDR, t->in_addr);
	RC_WRITE(p, CNA, FC_CON2, 0);
	RC_WRITE(p, CNA, DMA_CON0,
		 NPU_FV(CNA, DMA_CON0, WEIGHT_BURST_LEN, NPU_BURST_LEN_16) |
		 NPU_FV(CNA, DMA_CON0, DATA_BURST_LEN, NPU_BURST_LEN_16));
	RC_WRITE(p, CNA, DMA_CON1, NPU_FV(CNA, DMA_CON1, LINE_STRIDE, line_stride));
	RC_WRITE(p, CNA, DMA_CON2, NPU_FV(CNA, DMA_CON2, SURF_STRIDE, surf_stride));
	RC_WRITE(p, CNA, FC_DATA_SIZE0,
		 NPU_FV(CNA, FC_DATA_SIZE0, DMA_WIDTH, t->in_w) |
		 NPU_FV(CNA, FC_DATA_SIZE0, DMA_HEIGHT, t->in_rows));
	RC_WRITE(p, CNA, FC_DATA_SIZE1, NPU_FV(CNA, FC_DATA_SIZE1, DMA_CHANNEL, t->in_c_aligned));
	RC_WRITE(p, CNA, DCOMP_CTRL, 0);
	RC_WRITE(p, CNA, DCOMP_REGNUM, 0);
	/* Weights are read from DCOMP_ADDR0 even with decompression off. */
	RC_WRITE(p, CNA, DCOMP_ADDR0, t->weight_addr);
	for (unsigned int i = 0; i < CNA_DCOMP_AMOUNTS; i++)
		rc_emit(p, NPU_BLOCK_CNA, (uint16_t)(NPU_CNA_DCOMP_AMOUNT0 + 4u * i), 0);
	RC_WRITE(p, CNA, CVT_CON5, 0);
	RC_WRITE(p, CNA, PAD_CON1, (uint32_t)t->pad_value);
}

static void emit_core(struct rc_program *p, const struct conv_task *t)
{
	RC_WRITE(p, CORE, MISC_CFG,
		 NPU_FV(CORE, MISC_CFG, PROC_PRECISION, t->in_prec) |
		 NPU_FV(CORE, MISC_CFG, DW_EN, t->depthwise) |
		 NPU_FV(CORE, MISC_CFG, QD_EN, t->qd_en));
	RC_WRITE(p, CORE, DATAOUT_SIZE_0,
		 NPU_FV(CORE, DATAOUT_SIZE_0, DATAOUT_HEIGHT, t->out_rows - 1u) |
		 NPU_FV(CORE, DATAOUT_SIZE_0, DATAOUT_WIDTH, t->out_w - 1u));
	RC_WRITE(p, CORE, DATAOUT_SIZE_1,
		 NPU_FV(CORE, DATAOUT_SIZE_1, DATAOUT_CHANNEL, t->out_c_aligned - 1u));
	RC_WRITE(p, CORE, CLIP_TRUNCATE, 0);
	RC_WRITE(p, CORE, RESERVED_3030, 0);
}

/* Clamps run in the BS stage, or in the EW stage after a per-channel scale
 * or after adding an input-channel partial sum or a residual. */
static bool clamps_in_bs(const struct conv_task *t)
{
	return !t->scale_addr && !t->ew_add_addr && !t->res_addr && (t->relu || t->relux);
}

/* The ERDMA element size of a residual: the output's precision. */
static unsigned int res_size(const struct conv_task *t)
{
	return t->out_prec == NPU_PREC_FP16 ? NPU_ERDMA_SIZE_16BIT : NPU_ERDMA_SIZE_8BIT;
}

/* BS stage: bias add from BRDMA and the ReLU / ReLUX clamp, or bypass. */
static uint32_t dpu_bs_cfg(const struct conv_task *t)
{
	bool clamps = clamps_in_bs(t);
	bool active = t->bias_addr || clamps;

	if (!active)
		return NPU_DPU_BS_BYPASSED;
	return NPU_FV(DPU, BS_CFG, BS_ALU_ALGO, t->bias_addr ? NPU_ALU_ADD : 0) |
	       NPU_FV(DPU, BS_CFG, BS_ALU_SRC, t->bias_addr != 0) |
	       NPU_FV(DPU, BS_CFG, BS_ALU_BYPASS, t->bias_addr == 0) |
	       NPU_FV(DPU, BS_CFG, BS_RELUX_EN, clamps && t->relux) |
	       NPU_FV(DPU, BS_CFG, BS_RELU_BYPASS, !clamps) |
	       NPU_FV(DPU, BS_CFG, BS_MUL_BYPASS, 1);
}

/* EW stage: bypassed, or the per-channel multiply (HARDWARE.md §4.4 EW_CFG;
 * operand from ERDMA per channel, 32-bit) followed by the clamps. */
static uint32_t dpu_ew_cfg(const struct conv_task *t)
{
	/* A residual per pixel, added after EW_CVT (int8: r + offset first,
	 * then scale and shift, as the standalone add converts its operand). */
	if (t->res_addr)
		return NPU_FV(DPU, EW_CFG, EW_CVT_TYPE, NPU_CVT_ADD_FIRST) |
		       NPU_FV(DPU, EW_CFG, EW_DATA_MODE, NPU_ERDMA_PER_PIXEL) |
		       NPU_FV(DPU, EW_CFG, EDATA_SIZE, res_size(t)) |
		       NPU_FV(DPU, EW_CFG, EW_ALU_ALGO, NPU_ALU_ADD) |
		       NPU_FV(DPU, EW_CFG, EW_RELUX_EN, t->relux) |
		       NPU_FV(DPU, EW_CFG, EW_RELU_BYPASS, !(t->relu || t->relux)) |
		       NPU_FV(DPU, EW_CFG, EW_OP_CVT_BYPASS, t->out_prec == NPU_PREC_FP16) |
		       NPU_FV(DPU, EW_CFG, EW_LUT_BYPASS, 1) |
		       NPU_FV(DPU, EW_CFG, EW_OP_SRC, NPU_EW_OP_FROM_ERDMA);
	if (t->ew_add_addr)
		return NPU_FV(DPU, EW_CFG, EW_DATA_MODE, NPU_ERDMA_PER_PIXEL) |
		       NPU_FV(DPU, EW_CFG, EDATA_SIZE, NPU_ERDMA_SIZE_32BIT) |
		       NPU_FV(DPU, EW_CFG, EW_ALU_ALGO, NPU_ALU_ADD) |
		       NPU_FV(DPU, EW_CFG, EW_RELUX_EN, t->relux) |
		       NPU_FV(DPU, EW_CFG, EW_RELU_BYPASS, !(t->relu || t->relux)) |
		       NPU_FV(DPU, EW_CFG, EW_OP_CVT_BYPASS, 1) |
		       NPU_FV(DPU, EW_CFG, EW_LUT_BYPASS, 1) |
		       NPU_FV(DPU, EW_CFG, EW_OP_SRC, NPU_EW_OP_FROM_ERDMA);
	if (!t->scale_addr)
		return NPU_FV(DPU, EW_CFG, EW_RELU_BYPASS, 1) |
		       NPU_FV(DPU, EW_CFG, EW_OP_CVT_BYPASS, 1) |
		       NPU_FV(DPU, EW_CFG, EW_LUT_BYPASS, 1) |
		       NPU_FV(DPU, EW_CFG, EW_OP_BYPASS, 1) |
		       NPU_FV(DPU, EW_CFG, EW_BYPASS, 1);
	return NPU_FV(DPU, EW_CFG, EW_DATA_MODE, NPU_ERDMA_PER_CHANNEL) |
	       NPU_FV(DPU, EW_CFG, EDATA_SIZE, NPU_ERDMA_SIZE_32BIT) |
	       NPU_FV(DPU, EW_CFG, EW_RELUX_EN, t->relux) |
	       NPU_FV(DPU, EW_CFG, EW_RELU_BYPASS, !(t->relu || t->relux)) |
	       NPU_FV(DPU, EW_CFG, EW_OP_CVT_BYPASS, 1) |
	       NPU_FV(DPU, EW_CFG, EW_LUT_BYPASS, 1) |
	       NPU_FV(DPU, EW_CFG, EW_OP_SRC, NPU_EW_OP_FROM_ERDMA) |
	       NPU_FV(DPU, EW_CFG, EW_OP_TYPE, NPU_EW_OP_MULTIPLY);
}

static void emit_dpu(struct rc_program *p, const struct conv_task *t)
{
	unsigned int mode = t->depthwise ? NPU_CONV_MODE_DEPTHWISE : NPU_CONV_MODE_DIRECT;
	unsigned int g = conv_group_atoms(t->in_prec, t->out_prec, t->depthwise);
	uint32_t surface = t->out_w * t->out_h_full;	/* atoms */
	bool float_out = t->out_prec == NPU_PREC_FP16 || t->out_prec == NPU_PREC_FP32;
	/* fp16 results leave the fp32 datapath through FP32TOFP16 (HARDWARE.md §4.4). */
	bool to_fp16 = t->out_prec == NPU_PREC_FP16;

	RC_WRITE(p, DPU, FEATURE_MODE_CFG,
		 NPU_FV(DPU, FEATURE_MODE_CFG, BURST_LEN, NPU_BURST_LEN_16) |
		 NPU_FV(DPU, FEATURE_MODE_CFG, CONV_MODE, mode) |
		 NPU_FV(DPU, FEATURE_MODE_CFG, OUTPUT_MODE, NPU_DPU_OUT_TO_MEMORY));
	RC_WRITE(p, DPU, DATA_FORMAT,
		 NPU_FV(DPU, DATA_FORMAT, OUT_PRECISION, t->out_prec) |
		 NPU_FV(DPU, DATA_FORMAT, IN_PRECISION, t->in_prec) |
		 NPU_FV(DPU, DATA_FORMAT, PROC_PRECISION, t->in_prec));
	RC_WRITE(p, DPU, OFFSET_PEND, 0);
	RC_WRITE(p, DPU, DST_BASE_ADDR, t->out_addr);
	RC_WRITE(p, DPU, DST_SURF_STRIDE,
		 NPU_FV(DPU, DST_SURF_STRIDE, DST_SURF_STRIDE, surface));
	RC_WRITE(p, DPU, DATA_CUBE_WIDTH, NPU_FV(DPU, DATA_CUBE_WIDTH, WIDTH, t->out_w - 1u));
	RC_WRITE(p, DPU, DATA_CUBE_HEIGHT, NPU_FV(DPU, DATA_CUBE_HEIGHT, HEIGHT, t->out_rows - 1u));
	RC_WRITE(p, DPU, DATA_CUBE_NOTCH_ADDR, 0);
	RC_WRITE(p, DPU, DATA_CUBE_CHANNEL,
		 NPU_FV(DPU, DATA_CUBE_CHANNEL, ORIG_CHANNEL, t->out_c - 1u) |
		 NPU_FV(DPU, DATA_CUBE_CHANNEL, CHANNEL, t->out_c_aligned - 1u));
	RC_WRITE(p, DPU, BS_CFG, dpu_bs_cfg(t));
	RC_WRITE(p, DPU, BS_ALU_CFG, 0);
	RC_WRITE(p, DPU, BS_MUL_CFG, 0);
	RC_WRITE(p, DPU, BS_RELUX_CMP_VALUE,
		 clamps_in_bs(t) && t->relux ? (uint32_t)t->relux_max : 0);
	RC_WRITE(p, DPU, BS_OW_CFG,
		 NPU_FV(DPU, BS_OW_CFG, SIZE_E_2, g - 1u) |
		 NPU_FV(DPU, BS_OW_CFG, SIZE_E_1, g - 1u) |
		 NPU_FV(DPU, BS_OW_CFG, SIZE_E_0, g - 1u) |
		 NPU_FV(DPU, BS_OW_CFG, OD_BYPASS, !t->qd_en || float_out));
	RC_WRITE(p, DPU, BS_OW_OP,
		 NPU_FV(DPU, BS_OW_OP, OW_OP, t->qd_en && !float_out ? (uint32_t)t->ow_op : 0));
	RC_WRITE(p, DPU, WDMA_SIZE_0,
		 NPU_FV(DPU, WDMA_SIZE_0, CHANNEL_WDMA, t->out_c_aligned - 1u));
	RC_WRITE(p, DPU, WDMA_SIZE_1,
		 NPU_FV(DPU, WDMA_SIZE_1, HEIGHT_WDMA, t->out_rows - 1u) |
		 NPU_FV(DPU, WDMA_SIZE_1, WIDTH_WDMA, t->out_w - 1u));
	RC_WRITE(p, DPU, BN_CFG, NPU_DPU_BN_BYPASSED);
	RC_WRITE(p, DPU, BN_ALU_CFG, 0);
	RC_WRITE(p, DPU, BN_MUL_CFG, 0);
	RC_WRITE(p, DPU, BN_RELUX_CMP_VALUE, 0);
	RC_WRITE(p, DPU, EW_CFG, dpu_ew_cfg(t));
	RC_WRITE(p, DPU, EW_CVT_OFFSET_VALUE, (uint32_t)t->res_offset);
	if (t->res_addr && t->out_prec != NPU_PREC_FP16)
		RC_WRITE(p, DPU, EW_CVT_SCALE_VALUE,
			 NPU_FV(DPU, EW_CVT_SCALE_VALUE, EW_OP_CVT_SHIFT, t->res_shift) |
			 NPU_FV(DPU, EW_CVT_SCALE_VALUE, EW_OP_CVT_SCALE, t->res_scale));
	else
		RC_WRITE(p, DPU, EW_CVT_SCALE_VALUE,
			 NPU_FV(DPU, EW_CVT_SCALE_VALUE, EW_TRUNCATE,
				t->scale_addr ? t->scale_shift : 0) |
			 NPU_FV(DPU, EW_CVT_SCALE_VALUE, EW_OP_CVT_SCALE, NPU_CVT_SCALE_ONE));
	RC_WRITE(p, DPU, EW_RELUX_CMP_VALUE,
		 !clamps_in_bs(t) && t->relux ? (uint32_t)t->relux_max : 0);
	RC_WRITE(p, DPU, OUT_CVT_OFFSET, (uint32_t)t->out_offset);
	RC_WRITE(p, DPU, OUT_CVT_SCALE,
		 NPU_FV(DPU, OUT_CVT_SCALE, FP32TOFP16_EN, to_fp16) |
		 NPU_FV(DPU, OUT_CVT_SCALE, OUT_CVT_SCALE, t->out_mult.multiplier));
	RC_WRITE(p, DPU, OUT_CVT_SHIFT,
		 NPU_FV(DPU, OUT_CVT_SHIFT, OUT_CVT_SHIFT, t->out_mult.shift));
	for (unsigned int i = 0; i < DPU_EW_OP_VALUES; i++)
		rc_emit(p, NPU_BLOCK_DPU, (uint16_t)(NPU_DPU_EW_OP_VALUE_0 + 4u * i), 0);
	RC_WRITE(p, DPU, SURFACE_ADD, NPU_FV(DPU, SURFACE_ADD, SURF_ADD, surface * g));
	RC_WRITE(p, DPU, RESERVED_40C4, 0);
	RC_WRITE(p, DPU, LUT_ACCESS_CFG, 0);
	RC_WRITE(p, DPU, LUT_ACCESS_DATA, 0);
	RC_WRITE(p, DPU, LUT_CFG, 0);
	RC_WRITE(p, DPU, LUT_INFO, 0);
	RC_WRITE(p, DPU, LUT_LE_START, 0);
	RC_WRITE(p, DPU, LUT_LE_END, 0);
	RC_WRITE(p, DPU, LUT_LO_START, 0);
	RC_WRITE(p, DPU, LUT_LO_END, 0);
	RC_WRITE(p, DPU, LUT_LE_SLOPE_SCALE, 0);
	RC_WRITE(p, DPU, LUT_LE_SLOPE_SHIFT, 0);
	RC_WRITE(p, DPU, LUT_LO_SLOPE_SCALE, 0);
	RC_WRITE(p, DPU, LUT_LO_SLOPE_SHIFT, 0);
}

/* DPU_RDMA: the bias (BRDMA) and the EW operand are read; the main input
 * comes from CORE. A residual is read as Mesa's fused conv + add reads it
 * (rkt_regcmd.c, run on boards): MRDMA enabled with SRC_BASE_ADDR at the
 * residual, comb_use 5 (TRM: "[0] MRDMA and ERDMA read the same data, [2]
 * read the data to ERDMA"), ERDMA per pixel; EW_BASE_ADDR at the residual
 * too (Mesa writes it one surface further: UNSURE A34). */
static void emit_dpu_rdma(struct rc_program *p, const struct conv_task *t)
{
	unsigned int mode = t->depthwise ? NPU_CONV_MODE_DEPTHWISE : NPU_CONV_MODE_DIRECT;

	RC_WRITE(p, DPU_RDMA, DATA_CUBE_WIDTH, NPU_FV(DPU_RDMA, DATA_CUBE_WIDTH, WIDTH, t->out_w - 1u));
	RC_WRITE(p, DPU_RDMA, DATA_CUBE_HEIGHT,
		 NPU_FV(DPU_RDMA, DATA_CUBE_HEIGHT, HEIGHT, t->out_rows - 1u));
	RC_WRITE(p, DPU_RDMA, DATA_CUBE_CHANNEL,
		 NPU_FV(DPU_RDMA, DATA_CUBE_CHANNEL, CHANNEL, t->out_c_aligned - 1u));
	RC_WRITE(p, DPU_RDMA, SRC_BASE_ADDR, t->res_addr);
	/* data_use bit 0 of the field (register bit 1): the ALU operand. */
	RC_WRITE(p, DPU_RDMA, BRDMA_CFG,
		 NPU_FV(DPU_RDMA, BRDMA_CFG, BRDMA_DATA_USE,
			t->bias_addr ? NPU_BRDMA_USE_ALU : 0));
	RC_WRITE(p, DPU_RDMA, BS_BASE_ADDR, t->bias_addr);
	RC_WRITE(p, DPU_RDMA, NRDMA_CFG, 0);
	RC_WRITE(p, DPU_RDMA, BN_BASE_ADDR, 0);
	if (t->res_addr) {
		RC_WRITE(p, DPU_RDMA, ERDMA_CFG,
			 NPU_FV(DPU_RDMA, ERDMA_CFG, ERDMA_DATA_MODE, NPU_ERDMA_PER_PIXEL) |
			 NPU_FV(DPU_RDMA, ERDMA_CFG, ERDMA_DATA_SIZE, res_size(t)));
		RC_WRITE(p, DPU_RDMA, EW_BASE_ADDR, t->res_addr);
		RC_WRITE(p, DPU_RDMA, EW_SURF_STRIDE,
			 NPU_FV(DPU_RDMA, EW_SURF_STRIDE, EW_SURF_STRIDE,
				t->out_w * t->out_h_full));
	} else if (t->ew_add_addr) {
		RC_WRITE(p, DPU_RDMA, ERDMA_CFG,
			 NPU_FV(DPU_RDMA, ERDMA_CFG, ERDMA_DATA_MODE, NPU_ERDMA_PER_PIXEL) |
			 NPU_FV(DPU_RDMA, ERDMA_CFG, ERDMA_DATA_SIZE, NPU_ERDMA_SIZE_32BIT));
		RC_WRITE(p, DPU_RDMA, EW_BASE_ADDR, t->ew_add_addr);
		RC_WRITE(p, DPU_RDMA, EW_SURF_STRIDE,
			 NPU_FV(DPU_RDMA, EW_SURF_STRIDE, EW_SURF_STRIDE,
				t->out_w * t->out_h_full));
	} else if (t->scale_addr) {
		RC_WRITE(p, DPU_RDMA, ERDMA_CFG,
			 NPU_FV(DPU_RDMA, ERDMA_CFG, ERDMA_DATA_MODE, NPU_ERDMA_PER_CHANNEL) |
			 NPU_FV(DPU_RDMA, ERDMA_CFG, ERDMA_DATA_SIZE, NPU_ERDMA_SIZE_32BIT));
		RC_WRITE(p, DPU_RDMA, EW_BASE_ADDR, t->scale_addr);
		/* TRM: 1 in per-channel mode (HARDWARE.md §4.5). */
		RC_WRITE(p, DPU_RDMA, EW_SURF_STRIDE,
			 NPU_FV(DPU_RDMA, EW_SURF_STRIDE, EW_SURF_STRIDE, 1));
	} else {
		RC_WRITE(p, DPU_RDMA, ERDMA_CFG, NPU_FV(DPU_RDMA, ERDMA_CFG, ERDMA_DISABLE, 1));
		RC_WRITE(p, DPU_RDMA, EW_BASE_ADDR, 0);
		RC_WRITE(p, DPU_RDMA, EW_SURF_STRIDE, 0);
	}
	/* Precisions of the data the DPU works on (fp16 on fp16 convolutions),
	 * as every board-run fp16 use of DPU_RDMA writes them (allbilly/rk3588
	 * experimental/kernel_6_18/elementwise.py); none reads a bias, so what
	 * BRDMA makes of them is UNSURE (A28). */
	RC_WRITE(p, DPU_RDMA, FEATURE_MODE_CFG,
		 NPU_FV(DPU_RDMA, FEATURE_MODE_CFG, IN_PRECISION, t->in_prec) |
		 NPU_FV(DPU_RDMA, FEATURE_MODE_CFG, PROC_PRECISION, t->in_prec) |
		 NPU_FV(DPU_RDMA, FEATURE_MODE_CFG, BURST_LEN, NPU_BURST_LEN_16) |
		 NPU_FV(DPU_RDMA, FEATURE_MODE_CFG, COMB_USE,
			t->res_addr ? NPU_RDMA_COMB_SAME_TO_ERDMA : 0) |
		 NPU_FV(DPU_RDMA, FEATURE_MODE_CFG, MRDMA_DISABLE, !t->res_addr) |
		 NPU_FV(DPU_RDMA, FEATURE_MODE_CFG, CONV_MODE, mode));
	RC_WRITE(p, DPU_RDMA, SRC_DMA_CFG, 0);
	RC_WRITE(p, DPU_RDMA, SURF_NOTCH, 0);
	RC_WRITE(p, DPU_RDMA, PAD_CFG, 0);
	RC_WRITE(p, DPU_RDMA, WEIGHT,
		 NPU_FV(DPU_RDMA, WEIGHT, E_WEIGHT, NPU_RDMA_ARB_WEIGHT) |
		 NPU_FV(DPU_RDMA, WEIGHT, N_WEIGHT, NPU_RDMA_ARB_WEIGHT) |
		 NPU_FV(DPU_RDMA, WEIGHT, B_WEIGHT, NPU_RDMA_ARB_WEIGHT) |
		 NPU_FV(DPU_RDMA, WEIGHT, M_WEIGHT, NPU_RDMA_ARB_WEIGHT));
	RC_WRITE(p, DPU_RDMA, EW_SURF_NOTCH, 0);
}

void conv_task_emit(struct rc_program *p, const struct conv_task *t)
{
	uint32_t enable = NPU_EN_CNA | NPU_EN_CORE | NPU_EN_DPU;
	bool rdma = t->bias_addr || t->scale_addr || t->ew_add_addr || t->res_addr;

	rc_task_begin(p);
	if (t->weight_reuse)
		rc_task_reuses_cbuf(p);
	if (t->ew_add_addr)
		rc_task_after_previous(p);
	RC_WRITE(p, DPU, S_POINTER, NPU_S_POINTER_PP(DPU));
	if (rdma)
		RC_WRITE(p, DPU_RDMA, S_POINTER, NPU_S_POINTER_PP(DPU_RDMA));
	emit_cna(p, t);
	emit_core(p, t);
	emit_dpu(p, t);
	if (rdma) {
		emit_dpu_rdma(p, t);
		enable |= NPU_EN_DPU_RDMA;
	}
	rc_task_end(p, enable, NPU_INT_DPU);
}
