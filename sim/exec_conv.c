// SPDX-License-Identifier: MIT
/*
 * CNA + CORE: feature and weight DMA into the (modelled) CBUF, padding,
 * direct and depthwise convolution, and the CORE's accumulator output
 * (CPEND zero-point term, CLIP_TRUNCATE). HARDWARE.md §4.2, §4.3, §5.
 *
 * Integer inputs are widened to int16 (unsigned int8 needs 9 bits) and
 * multiplied into exact integer sums; fp16 inputs are multiplied and
 * accumulated in fp32 (ASSUMPTIONS.md A14).
 */
#include <stdlib.h>
#include <string.h>

#include "sim/conv_u8s8.h"
#include "sim/exec.h"
#include "sim/fp16.h"

/* Kernel-group and input-channel-group sizes of the weight layout (§5.4). */
#define WT_IC_GROUP		32u
#define WT_OC_GROUP_INT8	32u
#define WT_OC_GROUP_FP16	16u
/* int4: 64 kernels a group, B's (N/64, K/32, 64, 32) (A40). */
#define WT_OC_GROUP_INT4	64u
/* Bits of one int4 element: two a byte, the even element in the low
 * nibble (A40). */
#define INT4_BITS		4u
/* CONV_CON1.argb_in codes of 1 and 4 channel ARGB input (TRM). */
#define ARGB_IN_1CH		8u
#define ARGB_IN_4CH		11u
#define WT_DW_GROUP_INT8	64u
/* fp16 depthwise: [ceil(C/32)][kh][kw][32 channels], 64-byte groups as
 * int8's; board-run up to 32 channels, beyond that the order is UNSURE (A29). */
#define WT_DW_GROUP_FP16	32u

/* CVT_CON5 value enabling the converter on every channel (Mesa C = 1). */
#define CVT_ALL_CHANNELS	0xFFFFu
/* CNA DMA_CON2.SURF_STRIDE width (bits 27:0). */
#define CNA_SURF_STRIDE_BITS	28u

/* Largest PAD_CON0 pad_left/pad_top (4-bit fields). */
#define PAD_MAX			15u

/* Added to integer inputs on the u8 × s8 path: int8 and int8-saturated
 * converter outputs become unsigned; uint8 inputs need nothing. */
#define U8S8_BIAS_SIGNED	128

/* Partial sums of at most this many int16 products fit an int32. */
#define DOT_CHUNK		32768u

struct conv {
	int prec;
	bool dw, is_float, in_unsigned;
	unsigned w, h, ch;		/* input slice (DATA_SIZE0/1) */
	unsigned ow, oh, oc;		/* output cube (CORE DATAOUT_SIZE_0/1) */
	unsigned kw, kh, kernels;
	unsigned sx, sy, pl, pt;
	unsigned c2, bytes;		/* bytes: 0 for int4 (see bits) */
	unsigned bits;			/* of one element: 4 int4, 8 int8, 16 */
	unsigned argb_ch;		/* ARGB input: channels per packed pixel, else 0 */
	uint64_t row_pitch, surf_pitch;
	uint32_t in_addr, wt_addr, pad_raw;
	unsigned clip;
	bool cpend;
	int64_t ow_op;
	bool cvt, cvt_add_first;
	bool cvt_ties_up, clip_ties_up;	/* round_type 1: halves up, else to even */
	int64_t cvt_scale, cvt_offset;
	unsigned cvt_shift;
	/* padded input, [hp][wp][ch] */
	unsigned wp, hp;
};

/*
 * CNA input converter (HARDWARE.md §4.2 CVT_CON0..5, §6.1; ASSUMPTIONS.md A18):
 * cvt_type 1 adds the offset before the multiply, 0 after the shift; the
 * result feeds the int8 MAC array, so it saturates to int8. The model
 * knows one use, Mesa's uint8 → int8 shift, where all four parameter sets
 * are equal and CVT_CON5 enables every channel.
 */
static int parse_cvt(struct sim_core *c, struct conv *cv, uint32_t cvt)
{
	const uint32_t sets[4] = {
		EREG(c, CNA, CVT_CON1), EREG(c, CNA, CVT_CON2),
		EREG(c, CNA, CVT_CON3), EREG(c, CNA, CVT_CON4),
	};
	const unsigned trunc[4] = {
		NPU_FG(CNA, CVT_CON0, CVT_TRUNCATE_0, cvt),
		NPU_FG(CNA, CVT_CON0, CVT_TRUNCATE_1, cvt),
		NPU_FG(CNA, CVT_CON0, CVT_TRUNCATE_2, cvt),
		NPU_FG(CNA, CVT_CON0, CVT_TRUNCATE_3, cvt),
	};
	uint32_t per_channel = EREG(c, CNA, CVT_CON5);

	cv->cvt = !NPU_FG(CNA, CVT_CON0, CVT_BYPASS, cvt);
	/* CVT_CON5 enables the converter per channel (TRM RKNN_cna_cvt_con5);
	 * bypassed, there is nothing to enable: board-run fp16 convolutions
	 * write a channel mask with cvt_bypass 1 (allbilly/rk3588
	 * experimental/kernel_6_18/conv_gemm.py), so it is ignored. */
	if (!cv->cvt)
		return SIM_EXEC_OK;
	if (cv->is_float || per_channel != CVT_ALL_CHANNELS)
		return sim_refuse(c, "CNA input converter (CVT_CON0 0x%x, CVT_CON5 0x%x): only "
				  "integer data and all channels enabled are modelled",
				  cvt, per_channel);
	cv->cvt_ties_up = NPU_FG(CNA, CVT_CON0, ROUND_TYPE, cvt);
	for (unsigned i = 1; i < 4; i++)
		if (sets[i] != sets[0] || trunc[i] != trunc[0])
			return sim_refuse(c, "CNA CVT_CON1..4 / truncates differ: which channels "
					  "use which set is unknown");
	cv->cvt_add_first = NPU_FG(CNA, CVT_CON0, CVT_TYPE, cvt);
	cv->cvt_scale = (int16_t)NPU_FG(CNA, CVT_CON1, CVT_SCALE0, sets[0]);
	cv->cvt_offset = (int16_t)NPU_FG(CNA, CVT_CON1, CVT_OFFSET0, sets[0]);
	cv->cvt_shift = trunc[0];
	return SIM_EXEC_OK;
}

static int64_t cvt_apply(const struct conv *cv, int64_t x)
{
	if (cv->cvt_add_first)
		x = sim_round_shift_mode((x + cv->cvt_offset) * cv->cvt_scale, cv->cvt_shift,
					 cv->cvt_ties_up);
	else
		x = sim_round_shift_mode(x * cv->cvt_scale, cv->cvt_shift, cv->cvt_ties_up) +
		    cv->cvt_offset;
	return sim_sat(x, INT8_MIN, INT8_MAX);
}

/*
 * Group line fetch off (CNA CONV_CON1.group_line_off; A31): the row-major
 * GEMM input of the board-run generators (allbilly/rk3588
 * experimental/gemm_int8.py, kernel_6_18/gemm.py): one pixel per row, its
 * channels contiguous (a row of the matrix), rows LINE_STRIDE atoms apart
 * and SURF_STRIDE 0. Wider rows or a surface stride are refused.
 */
static int parse_row_major(struct sim_core *c, struct conv *cv, unsigned line, int64_t surf)
{
	unsigned atoms = (cv->ch + cv->c2 - 1u) / cv->c2;

	if (cv->w != 1u || surf)
		return sim_refuse(c, "CNA CONV_CON1.group_line_off with a %u-pixel row / surface "
				  "stride %lld: only the one-pixel rows of a row-major GEMM "
				  "(SURF_STRIDE 0) are modelled", cv->w, (long long)surf);
	if (line < atoms)
		return sim_refuse(c, "CNA DMA_CON1 line stride %u atoms, group_line_off: shorter "
				  "than a row of %u channels", line, cv->ch);
	cv->row_pitch = (uint64_t)line * NPU_ATOM_BYTES;
	cv->surf_pitch = NPU_ATOM_BYTES;
	return SIM_EXEC_OK;
}

/*
 * ARGB input (A33; TRM CONV_CON1.argb_in, "non-align channel layer"): pixels
 * of argb_ch channels packed one after the other, rows LINE_STRIDE pixels
 * apart (board-run allbilly/rk3588 experimental/kernel_6_18/conv_gemm.py,
 * 1-4 input channels); the channels past argb_ch read as zero, so the
 * surface stride does not apply.
 */
static int parse_argb(struct sim_core *c, struct conv *cv, unsigned line)
{
	if (cv->argb_ch > cv->ch ||
	    EFLD(c, CNA, DATA_SIZE1, DATAIN_CHANNEL_REAL) + 1u != cv->argb_ch)
		return sim_refuse(c, "CNA ARGB input of %u channels with DATA_SIZE1 %u (real %u): "
				  "the pixel's channels must be the real ones",
				  cv->argb_ch, cv->ch,
				  EFLD(c, CNA, DATA_SIZE1, DATAIN_CHANNEL_REAL) + 1u);
	if (line < cv->w)
		return sim_refuse(c, "CNA DMA_CON1 line stride %u pixels, ARGB input: shorter than "
				  "the %u-pixel row", line, cv->w);
	cv->row_pitch = (uint64_t)line * cv->argb_ch * cv->bytes;
	cv->surf_pitch = 0;
	return SIM_EXEC_OK;
}

static int parse_cna(struct sim_core *c, struct conv *cv)
{
	uint32_t con1 = EREG(c, CNA, CONV_CON1);
	uint32_t con3 = EREG(c, CNA, CONV_CON3);
	uint32_t cvt = EREG(c, CNA, CVT_CON0);
	unsigned mode = NPU_FG(CNA, CONV_CON1, CONV_MODE, con1);
	unsigned in_prec = NPU_FG(CNA, CONV_CON1, IN_PRECISION, con1);
	unsigned line;
	int64_t surf;

	if (mode != NPU_CONV_MODE_DIRECT && mode != NPU_CONV_MODE_DEPTHWISE)
		return sim_refuse(c, "CNA CONV_CON1.conv_mode %u (only 0 direct, 3 depthwise)",
				  mode);
	cv->dw = mode == NPU_CONV_MODE_DEPTHWISE;
	cv->prec = (int)NPU_FG(CNA, CONV_CON1, PROC_PRECISION, con1);
	if (in_prec != (unsigned)cv->prec ||
	    (cv->prec != NPU_PREC_INT8 && cv->prec != NPU_PREC_INT16 &&
	     cv->prec != NPU_PREC_FP16 && cv->prec != NPU_PREC_INT4))
		return sim_refuse(c, "CNA in/proc precision %u/%u (modelled: int8/int8, "
				  "int16/int16, fp16/fp16, int4/int4)", in_prec, cv->prec);
	cv->is_float = cv->prec == NPU_PREC_FP16;
	/* int4 (A40): only as the board-run int4 matmuls use it — a direct 1x1
	 * convolution over one row or one column of pixels (M high and 1 wide,
	 * or 1 high and M wide), stride 1, no padding, signed data, the input
	 * converter bypassed, NC1HWC2 input (checked below). */
	if (cv->prec == NPU_PREC_INT4 &&
	    (mode != NPU_CONV_MODE_DIRECT || !NPU_FG(CNA, CVT_CON0, CVT_BYPASS, cvt) ||
	     !NPU_FG(CNA, CVT_CON0, DATA_SIGN, cvt) ||
	     NPU_FG(CNA, CONV_CON1, ARGB_IN, con1) ||
	     NPU_FG(CNA, CONV_CON1, GROUP_LINE_OFF, con1)))
		return sim_refuse(c, "CNA int4 data: only direct convolutions of signed data with "
				  "the input converter bypassed, NC1HWC2 input (no ARGB, no "
				  "group_line_off) are modelled");
	/* int16 (A30): as the board-run int16 GEMM uses it, direct, the input
	 * converter bypassed. */
	if (cv->prec == NPU_PREC_INT16 &&
	    (mode != NPU_CONV_MODE_DIRECT || !NPU_FG(CNA, CVT_CON0, CVT_BYPASS, cvt)))
		return sim_refuse(c, "CNA int16 data: only direct convolutions with the input "
				  "converter bypassed are modelled");
	if (NPU_FG(CNA, CONV_CON1, DECONV, con1))
		return sim_refuse(c, "CNA CONV_CON1 0x%08x: deconvolution is not modelled", con1);
	/* ARGB input (A33): TRM argb_in 8..11 = 1..4 channels, with nonalign_dma
	 * ("please enable this bit under ARGB mode") and only then. */
	if (NPU_FG(CNA, CONV_CON1, ARGB_IN, con1)) {
		unsigned argb = NPU_FG(CNA, CONV_CON1, ARGB_IN, con1);

		if (argb < ARGB_IN_1CH || argb > ARGB_IN_4CH ||
		    !NPU_FG(CNA, CONV_CON1, NONALIGN_DMA, con1) || mode != NPU_CONV_MODE_DIRECT)
			return sim_refuse(c, "CNA CONV_CON1 0x%08x: argb_in %u (8..11 = 1..4 "
					  "channels, with nonalign_dma, direct convolution)",
					  con1, argb);
		cv->argb_ch = argb - ARGB_IN_1CH + 1u;
	} else if (NPU_FG(CNA, CONV_CON1, NONALIGN_DMA, con1)) {
		return sim_refuse(c, "CNA CONV_CON1 0x%08x: nonalign_dma without ARGB input is "
				  "not modelled", con1);
	}
	if (NPU_FG(CNA, CONV_CON3, NN_MODE, con3) ||
	    NPU_FG(CNA, CONV_CON3, ATROUS_X_DILATION, con3) ||
	    NPU_FG(CNA, CONV_CON3, ATROUS_Y_DILATION, con3))
		return sim_refuse(c, "CNA CONV_CON3 0x%08x: nn_mode / dilation not modelled", con3);
	cv->sx = NPU_FG(CNA, CONV_CON3, CONV_X_STRIDE, con3);
	cv->sy = NPU_FG(CNA, CONV_CON3, CONV_Y_STRIDE, con3);
	if (!cv->sx || !cv->sy)
		return sim_refuse(c, "CNA CONV_CON3: stride 0");

	cv->w = EFLD(c, CNA, DATA_SIZE0, DATAIN_WIDTH);
	cv->h = EFLD(c, CNA, DATA_SIZE0, DATAIN_HEIGHT);
	cv->ch = EFLD(c, CNA, DATA_SIZE1, DATAIN_CHANNEL);
	cv->bytes = sim_prec_bytes(cv->prec);
	cv->bits = cv->prec == NPU_PREC_INT4 ? INT4_BITS : cv->bytes * 8u;
	cv->c2 = NPU_ATOM_BYTES * 8u / cv->bits;
	/* TRM (rk3588_trm.md, RKNN_cna_data_size1): datain_channel is a multiple
	 * of 8 for int8 and of 4 for 16-bit data, half an atom (A10). */
	if (!cv->w || !cv->h || !cv->ch || cv->ch % (cv->c2 / 2u))
		return sim_refuse(c, "CNA DATA_SIZE0/1: input %ux%u with %u channels (channels "
				  "must be a non-zero multiple of %u)", cv->w, cv->h, cv->ch,
				  cv->c2 / 2u);
	if (EFLD(c, CNA, DATA_SIZE1, DATAIN_CHANNEL_REAL) >= cv->ch)
		return sim_refuse(c, "CNA DATA_SIZE1: channel_real %u >= channel %u",
				  EFLD(c, CNA, DATA_SIZE1, DATAIN_CHANNEL_REAL), cv->ch);

	cv->kw = EFLD(c, CNA, WEIGHT_SIZE2, WEIGHT_WIDTH);
	cv->kh = EFLD(c, CNA, WEIGHT_SIZE2, WEIGHT_HEIGHT);
	cv->kernels = EFLD(c, CNA, WEIGHT_SIZE2, WEIGHT_KERNELS);
	if (!cv->kw || !cv->kh || !cv->kernels || (cv->dw && cv->kernels != 1))
		return sim_refuse(c, "CNA WEIGHT_SIZE2: kernel %ux%u, %u kernels%s", cv->kw,
				  cv->kh, cv->kernels, cv->dw ? " (depthwise needs 1)" : "");
	if (cv->prec == NPU_PREC_INT4 &&
	    (cv->kw != 1u || cv->kh != 1u || (cv->w != 1u && cv->h != 1u) || cv->sx != 1u ||
	     cv->sy != 1u || EFLD(c, CNA, PAD_CON0, PAD_LEFT) || EFLD(c, CNA, PAD_CON0, PAD_TOP)))
		return sim_refuse(c, "CNA int4 data: only 1x1 kernels over a one-pixel-wide or "
				  "one-pixel-high input, stride 1, no padding (the board-run int4 "
				  "matmuls) are modelled; kernel %ux%u, input %ux%u", cv->kw, cv->kh,
				  cv->w, cv->h);
	if (EFLD(c, CNA, WEIGHT_SIZE1, WEIGHT_BYTES_PER_KERNEL) !=
	    (uint64_t)cv->kw * cv->kh * cv->ch * cv->bits / 8u ||
	    EFLD(c, CNA, WEIGHT_SIZE0, WEIGHT_BYTES) !=
	    (uint64_t)cv->kw * cv->kh * cv->ch * cv->bits / 8u * cv->kernels)
		return sim_refuse(c, "CNA WEIGHT_SIZE0/1 (%u/%u bytes) disagree with %ux%u x %u "
				  "channels x %u kernels", EREG(c, CNA, WEIGHT_SIZE0),
				  EREG(c, CNA, WEIGHT_SIZE1), cv->kw, cv->kh, cv->ch, cv->kernels);

	cv->in_unsigned = !cv->is_float && !NPU_FG(CNA, CVT_CON0, DATA_SIGN, cvt);
	if (parse_cvt(c, cv, cvt))
		return SIM_EXEC_READ_ERROR;
	if (EFLD(c, CNA, FC_CON0, FC_SKIP_EN) || EREG(c, CNA, DCOMP_CTRL))
		return sim_refuse(c, "CNA FC skip / weight decompression not modelled");

	cv->pl = EFLD(c, CNA, PAD_CON0, PAD_LEFT);
	cv->pt = EFLD(c, CNA, PAD_CON0, PAD_TOP);
	cv->pad_raw = EREG(c, CNA, PAD_CON1);
	cv->in_addr = EREG(c, CNA, FEATURE_DATA_ADDR);
	cv->wt_addr = EREG(c, CNA, DCOMP_ADDR0);

	/* Strides: ASSUMPTIONS.md A9 (HARDWARE.md §5.2 UNSURE units). */
	line = EFLD(c, CNA, DMA_CON1, LINE_STRIDE);
	/* SURF_STRIDE is signed: the vendor's streams write W × (H − 4) in
	 * 28-bit two's complement for H < 4 (A9). */
	surf = sim_sign_extend(EFLD(c, CNA, DMA_CON2, SURF_STRIDE), CNA_SURF_STRIDE_BITS);
	if (cv->argb_ch)
		return parse_argb(c, cv, line);
	if (NPU_FG(CNA, CONV_CON1, GROUP_LINE_OFF, con1))
		return parse_row_major(c, cv, line, surf);
	if (line % 4u)
		return sim_refuse(c, "CNA DMA_CON1 line stride %u is not a whole row of atoms "
				  "(4 x width)", line);
	cv->row_pitch = (uint64_t)line / 4u * NPU_ATOM_BYTES;
	if ((int64_t)line + surf <= 0)
		return sim_refuse(c, "CNA DMA_CON1+DMA_CON2 surface of %lld atoms",
				  (long long)line + surf);
	cv->surf_pitch = (uint64_t)((int64_t)line + surf) * NPU_ATOM_BYTES;
	if (cv->row_pitch < (uint64_t)cv->w * NPU_ATOM_BYTES)
		return sim_refuse(c, "CNA DMA_CON1 line stride %u shorter than the %u-pixel row",
				  line, cv->w);
	if (cv->ch > cv->c2 && cv->surf_pitch < cv->row_pitch * cv->h)
		return sim_refuse(c, "CNA DMA_CON1+DMA_CON2 surface (%llu bytes) shorter than "
				  "%u rows", (unsigned long long)cv->surf_pitch, cv->h);
	return SIM_EXEC_OK;
}

/* CBUF bank split (HARDWARE.md §4.2 CBUF_CON0/1, §5.6). */
static int check_cbuf(struct sim_core *c, const struct conv *cv)
{
	unsigned data_banks = EFLD(c, CNA, CBUF_CON0, DATA_BANK);
	unsigned weight_banks = EFLD(c, CNA, CBUF_CON0, WEIGHT_BANK);
	unsigned entries = EFLD(c, CNA, CBUF_CON1, DATA_ENTRIES);
	uint64_t row_bytes = (uint64_t)cv->w * cv->ch * cv->bits / 8u;
	uint64_t kernel_bytes = (uint64_t)cv->kw * cv->kh * cv->ch * cv->bits / 8u;
	unsigned want = (unsigned)((row_bytes + 63u) / 64u);

	if (data_banks + weight_banks > NPU_CBUF_BANKS || !data_banks || !weight_banks)
		return sim_refuse(c, "CNA CBUF_CON0: %u data + %u weight banks (each >= 1, "
				  "sum <= %u)",
				  data_banks, weight_banks, NPU_CBUF_BANKS);
	/* ARGB input: the board-run streams write ceil(W / 4) * 4 * H entries (1 for 1x1),
	 * not one row's (A33); nothing is checked against them. */
	if (cv->argb_ch)
		return SIM_EXEC_OK;
	if (entries != want)
		return sim_refuse(c, "CNA CBUF_CON1.data_entries %u, a %u-pixel row of %u channels "
				  "needs %u", entries, cv->w, cv->ch, want);
	if ((uint64_t)entries * 64u * cv->h > (uint64_t)data_banks * NPU_CBUF_BANK_BYTES)
		return sim_refuse(c, "input slice of %u rows x %u bytes does not fit %u data banks",
				  cv->h, entries * 64u, data_banks);
	/* Weights may stream (HARDWARE.md §9.10); one kernel must fit. */
	if (kernel_bytes > (uint64_t)weight_banks * NPU_CBUF_BANK_BYTES)
		return sim_refuse(c, "one kernel (%llu bytes) does not fit %u weight banks",
				  (unsigned long long)kernel_bytes, weight_banks);
	return SIM_EXEC_OK;
}

static int parse_core(struct sim_core *c, struct conv *cv)
{
	uint32_t misc = EREG(c, CORE, MISC_CFG);
	uint32_t ow_cfg = EREG(c, DPU, BS_OW_CFG);
	bool qd = NPU_FG(CORE, MISC_CFG, QD_EN, misc);
	bool od_bypass = NPU_FG(DPU, BS_OW_CFG, OD_BYPASS, ow_cfg);

	if ((int)NPU_FG(CORE, MISC_CFG, PROC_PRECISION, misc) != cv->prec ||
	    NPU_FG(CORE, MISC_CFG, DW_EN, misc) != cv->dw)
		return sim_refuse(c, "CORE MISC_CFG 0x%x disagrees with CNA (precision %d, %s)",
				  misc, cv->prec, cv->dw ? "depthwise" : "direct");
	cv->ow = EFLD(c, CORE, DATAOUT_SIZE_0, DATAOUT_WIDTH) + 1u;
	cv->oh = EFLD(c, CORE, DATAOUT_SIZE_0, DATAOUT_HEIGHT) + 1u;
	cv->oc = EFLD(c, CORE, DATAOUT_SIZE_1, DATAOUT_CHANNEL) + 1u;
	if (EFLD(c, CNA, DATA_SIZE2, DATAOUT_WIDTH) != cv->ow ||
	    EFLD(c, CNA, DATA_SIZE3, DATAOUT_ATOMICS) != cv->ow * cv->oh ||
	    EFLD(c, CNA, DATA_SIZE3, SURF_MODE))
		return sim_refuse(c, "CNA DATA_SIZE2/3 (%u wide, %u atomics) disagree with CORE "
				  "output %ux%u", EFLD(c, CNA, DATA_SIZE2, DATAOUT_WIDTH),
				  EFLD(c, CNA, DATA_SIZE3, DATAOUT_ATOMICS), cv->ow, cv->oh);
	if (cv->oc < (cv->dw ? cv->ch : cv->kernels))
		return sim_refuse(c, "CORE DATAOUT_SIZE_1: %u output channels for %u %s",
				  cv->oc, cv->dw ? cv->ch : cv->kernels,
				  cv->dw ? "input channels" : "kernels");
	/* Right/bottom padding is implied by the output size (HARDWARE.md §4.2);
	 * hold it to the range PAD_CON0 allows for left/top (A17). */
	if ((uint64_t)(cv->ow - 1u) * cv->sx + cv->kw > (uint64_t)cv->pl + cv->w + PAD_MAX ||
	    (uint64_t)(cv->oh - 1u) * cv->sy + cv->kh > (uint64_t)cv->pt + cv->h + PAD_MAX)
		return sim_refuse(c, "output %ux%u with kernel %ux%u, stride %ux%u implies more "
				  "than %u columns/rows of right/bottom padding on a %ux%u input",
				  cv->ow, cv->oh, cv->kw, cv->kh, cv->sx, cv->sy, PAD_MAX,
				  cv->w, cv->h);

	cv->clip = EFLD(c, CORE, CLIP_TRUNCATE, CLIP_TRUNCATE);
	if (cv->is_float && cv->clip)
		return sim_refuse(c, "CORE CLIP_TRUNCATE 0x%x: truncation of float sums not "
				  "modelled", EREG(c, CORE, CLIP_TRUNCATE));
	cv->clip_ties_up = EFLD(c, CORE, CLIP_TRUNCATE, ROUND_TYPE);
	/* CPEND: BS_OW_OP x per-window input sum (HARDWARE.md §6.2, A11). */
	cv->cpend = !od_bypass;
	if (cv->cpend && (!qd || cv->is_float))
		return sim_refuse(c, "DPU BS_OW_CFG.od_bypass = 0 needs integer data and CORE "
				  "MISC_CFG.qd_en = 1");
	cv->ow_op = (int16_t)EFLD(c, DPU, BS_OW_OP, OW_OP);
	return SIM_EXEC_OK;
}

/* Signed int4 element `i` of a packed run starting at p (A40). */
static int16_t load_int4(const uint8_t *p, size_t i)
{
	unsigned nib = (p[i / 2u] >> (i % 2u ? INT4_BITS : 0u)) & 0xFu;

	return (int16_t)(nib >= 8u ? (int)nib - 16 : (int)nib);
}

static int64_t load_in_int(const struct conv *cv, const uint8_t *p)
{
	int64_t x;

	if (cv->bytes == 2u) {	/* int16, little-endian; the converter is bypassed */
		uint16_t u = (uint16_t)(p[0] | p[1] << 8);

		return cv->in_unsigned ? (int64_t)u : (int64_t)(int16_t)u;
	}
	x = cv->in_unsigned ? (int64_t)p[0] : (int64_t)(int8_t)p[0];
	return cv->cvt ? cvt_apply(cv, x) : x;
}

/* Input slice → padded [hp][wp][ch] (int16 or float). */
static int load_input(struct sim_core *c, struct conv *cv, int16_t **ii, float **ff)
{
	size_t n = (size_t)cv->hp * cv->wp * cv->ch;
	uint64_t extent = cv->argb_ch ?
		(uint64_t)(cv->h - 1u) * cv->row_pitch + (uint64_t)cv->w * cv->argb_ch * cv->bytes :
		(uint64_t)((cv->ch + cv->c2 - 1u) / cv->c2 - 1u) * cv->surf_pitch +
		(uint64_t)(cv->h - 1u) * cv->row_pitch + (uint64_t)cv->w * NPU_ATOM_BYTES;
	uint8_t *src;
	int r;

	r = sim_dma_range(c, cv->in_addr, extent, false, "CNA feature", &src);
	if (r)
		return r;
	if (cv->is_float) {
		float pad = sim_f16_to_f32((uint16_t)cv->pad_raw);

		*ff = sim_scratch(c, SIM_SCR_CONV_IN, n * sizeof(**ff));
		if (!*ff)
			return sim_refuse(c, "out of memory for the input");
		for (size_t i = 0; i < n; i++)
			(*ff)[i] = pad;
	} else {
		/* padding is in the converted domain (HARDWARE.md §4.2 PAD_CON1) */
		int16_t pad = cv->in_unsigned && !cv->cvt ? (int16_t)(cv->pad_raw & 0xFFu) :
				(int16_t)(int8_t)(cv->pad_raw & 0xFFu);

		*ii = sim_scratch(c, SIM_SCR_CONV_IN, n * sizeof(**ii));
		if (!*ii)
			return sim_refuse(c, "out of memory for the input");
		for (size_t i = 0; i < n; i++)
			(*ii)[i] = pad;
	}
	/* ARGB: the lanes past argb_ch hold no data; they read as 0 (A33) */
	for (size_t px = 0; cv->argb_ch && px < n / cv->ch; px++) {
		for (unsigned ch = cv->argb_ch; ch < cv->ch; ch++) {
			if (cv->is_float)
				(*ff)[px * cv->ch + ch] = 0.0f;
			else
				(*ii)[px * cv->ch + ch] = 0;
		}
	}
	/* ARGB pixels are argb_ch channels apart */
	for (unsigned ch = 0; ch < (cv->argb_ch ? cv->argb_ch : cv->ch); ch++) {
		/* int4: the atom's byte holding the channel, its nibble below */
		const uint8_t *surf = src + (ch / cv->c2) * cv->surf_pitch +
				      (ch % cv->c2) * cv->bits / 8u;
		size_t pixel = cv->argb_ch ? (size_t)cv->argb_ch * cv->bytes : NPU_ATOM_BYTES;

		for (unsigned y = 0; y < cv->h; y++) {
			const uint8_t *row = surf + y * cv->row_pitch;
			size_t dst = ((size_t)(y + cv->pt) * cv->wp + cv->pl) * cv->ch + ch;

			for (unsigned x = 0; x < cv->w; x++, dst += cv->ch) {
				const uint8_t *p = row + (size_t)x * pixel;

				if (cv->is_float)
					(*ff)[dst] = sim_load_float(p, cv->prec);
				else if (cv->prec == NPU_PREC_INT4)
					(*ii)[dst] = load_int4(p, ch % 2u);
				else
					(*ii)[dst] = (int16_t)load_in_int(cv, p);
			}
		}
	}
	return SIM_EXEC_OK;
}

/*
 * Weights (HARDWARE.md §5.4) → [kernel][kh][kw][ch] for direct, [ch][kh][kw] for
 * depthwise. Groups at the end of each dimension are packed dense
 * (ASSUMPTIONS.md A10).
 */
static int load_weights(struct sim_core *c, struct conv *cv, int16_t **wi, float **wf)
{
	size_t n = (size_t)cv->kernels * cv->kh * cv->kw * cv->ch;
	/* TRM RKNN_cna_conv_con2: 32 kernels a group in int8, 16 in int16/fp16 */
	unsigned og_size = cv->dw ? (cv->is_float ? WT_DW_GROUP_FP16 : WT_DW_GROUP_INT8) :
			   cv->bits == INT4_BITS ? WT_OC_GROUP_INT4 :
			   cv->bytes == 2u ? WT_OC_GROUP_FP16 : WT_OC_GROUP_INT8;
	size_t e = 0;	/* element index in the weight stream */
	unsigned groups_out = cv->dw ? 1u : (cv->kernels + og_size - 1u) / og_size;
	unsigned ig_size = cv->dw ? og_size : WT_IC_GROUP;
	unsigned groups_in = (cv->ch + ig_size - 1u) / ig_size;
	uint8_t *p;
	int r;

	r = sim_dma_range(c, cv->wt_addr, (n * cv->bits + 7u) / 8u, false, "CNA weight", &p);
	if (r)
		return r;
	if (cv->is_float)
		*wf = sim_scratch(c, SIM_SCR_CONV_WT, n * sizeof(**wf));
	else
		*wi = sim_scratch(c, SIM_SCR_CONV_WT, n * sizeof(**wi));
	if (!*wf && !*wi)
		return sim_refuse(c, "out of memory for the weights");

	for (unsigned og = 0; og < groups_out; og++) {
		unsigned go = cv->dw ? 1u : (cv->kernels - og * og_size < og_size ?
					     cv->kernels - og * og_size : og_size);

		for (unsigned ig = 0; ig < groups_in; ig++) {
			unsigned left = cv->ch - ig * ig_size;
			unsigned gi = left < ig_size ? left : ig_size;

			for (unsigned ky = 0; ky < cv->kh; ky++)
			for (unsigned kx = 0; kx < cv->kw; kx++)
			for (unsigned o = 0; o < go; o++)
			for (unsigned i = 0; i < gi; i++, e++) {
				const uint8_t *q = p + e * cv->bytes;
				unsigned k = og * og_size + o, ch = ig * ig_size + i;
				size_t at = cv->dw ?
					((size_t)ch * cv->kh + ky) * cv->kw + kx :
					(((size_t)k * cv->kh + ky) * cv->kw + kx) * cv->ch + ch;

				if (cv->is_float)
					(*wf)[at] = sim_load_float(q, cv->prec);
				else if (cv->bits == INT4_BITS)
					(*wi)[at] = load_int4(p, e);
				else
					(*wi)[at] = cv->bytes == 2u ? (int16_t)(q[0] | q[1] << 8) :
						    (int16_t)(int8_t)q[0];
			}
		}
	}
	return SIM_EXEC_OK;
}

static int64_t dot_i16(const int16_t *a, const int16_t *b, size_t n)
{
	int64_t total = 0;

	while (n) {
		size_t m = n < DOT_CHUNK ? n : DOT_CHUNK;
		int32_t s = 0;

		for (size_t i = 0; i < m; i++)
			s += (int32_t)a[i] * b[i];
		total += s;
		a += m;
		b += m;
		n -= m;
	}
	return total;
}

/* int16 data: products reach 2^30, so the sums are 64-bit throughout. */
static int64_t dot_i16_wide(const int16_t *a, const int16_t *b, size_t n)
{
	int64_t s = 0;

	for (size_t i = 0; i < n; i++)
		s += (int64_t)a[i] * b[i];
	return s;
}

static int64_t sum_i16(const int16_t *a, size_t n)
{
	int64_t s = 0;

	for (size_t i = 0; i < n; i++)
		s += a[i];
	return s;
}

static float dot_f32(const float *a, const float *b, size_t n)
{
	float s = 0.0f;

	for (size_t i = 0; i < n; i++)
		s += a[i] * b[i];
	return s;
}

/* CORE output of one integer accumulator: CPEND term, truncate, 32-bit
 * saturation (NVDLA: 34-bit accumulators rounded/saturated to 32 bits). */
static int64_t core_out(const struct conv *cv, int64_t acc, int64_t window_sum)
{
	if (cv->cpend)
		acc += cv->ow_op * window_sum;
	return sim_sat32(sim_round_shift_mode(acc, cv->clip, cv->clip_ties_up));
}

static void conv_direct_int(const struct conv *cv, const int16_t *in,
			    const int16_t *wt, struct sim_cube *acc)
{
	size_t seg = (size_t)cv->kw * cv->ch;

	for (unsigned oy = 0; oy < cv->oh; oy++)
	for (unsigned ox = 0; ox < cv->ow; ox++) {
		const int16_t *win = in + ((size_t)oy * cv->sy * cv->wp +
					   (size_t)ox * cv->sx) * cv->ch;
		int64_t wsum = 0;

		if (cv->cpend)
			for (unsigned ky = 0; ky < cv->kh; ky++)
				wsum += sum_i16(win + (size_t)ky * cv->wp * cv->ch, seg);
		for (unsigned k = 0; k < cv->kernels; k++) {
			const int16_t *kern = wt + (size_t)k * cv->kh * seg;
			int64_t s = 0;

			for (unsigned ky = 0; ky < cv->kh; ky++)
				s += cv->bytes == 2u ?
				     dot_i16_wide(win + (size_t)ky * cv->wp * cv->ch,
						  kern + ky * seg, seg) :
				     dot_i16(win + (size_t)ky * cv->wp * cv->ch,
					     kern + ky * seg, seg);
			acc->i[sim_cube_at(acc, k, oy, ox)] = core_out(cv, s, wsum);
		}
	}
}

/*
 * conv_direct_int on the host's dot-product unit (conv_u8s8.h). The VNNI
 * unit takes unsigned inputs: they move there by a bias b, and
 * Σ(x + b)·w − b·Σw gives back the same exact sum; the AVX2 unit takes
 * the int16 input as it is (b = 0). Returns false, having done nothing,
 * where there is no unit, the window could overflow its int32 sums, or
 * memory runs out; the portable loop then runs.
 */
static bool conv_direct_u8s8(struct sim_core *c, const struct conv *cv, const int16_t *in, const int16_t *wt,
			     struct sim_cube *acc)
{
	size_t seg = (size_t)cv->kw * cv->ch, window = seg * cv->kh;
	size_t n_in = (size_t)cv->hp * cv->wp * cv->ch;
	unsigned stride = conv_u8s8_kernel_stride(cv->kernels);
	enum conv_u8s8_path path = conv_u8s8_path();
	int64_t bias = path == CONV_U8S8_AVX2 || (cv->in_unsigned && !cv->cvt) ? 0 :
		       U8S8_BIAS_SIGNED;
	struct conv_u8s8 job = {
		.path = path, .in16 = in,
		.wp = cv->wp, .ch = cv->ch, .kw = cv->kw, .kh = cv->kh, .sx = cv->sx,
		.sy = cv->sy, .ow = cv->ow, .oh = cv->oh, .kernels = cv->kernels,
	};
	uint8_t *u = NULL;
	void *packed;
	int32_t *sums;
	int64_t *wsum;

	if (path == CONV_U8S8_NONE || window > CONV_U8S8_MAX_WINDOW)
		return false;
	if (path == CONV_U8S8_VNNI) {
		u = sim_scratch(c, SIM_SCR_CONV_U8, n_in);
		if (!u)
			return false;
		for (size_t i = 0; i < n_in; i++)
			u[i] = (uint8_t)(in[i] + bias);
	}
	packed = sim_scratch(c, SIM_SCR_CONV_PACKED,
			     conv_u8s8_packed_bytes(path, cv->kernels, cv->kh, cv->kw, cv->ch));
	sums = sim_scratch(c, SIM_SCR_CONV_SUMS,
			   (size_t)cv->oh * cv->ow * stride * sizeof(*sums));
	wsum = sim_scratch(c, SIM_SCR_CONV_KSUM, cv->kernels * sizeof(*wsum));
	if (!packed || !sums || !wsum)
		return false;
	conv_u8s8_pack(path, wt, packed, cv->kernels, cv->kh, cv->kw, cv->ch);
	for (unsigned k = 0; k < cv->kernels; k++)
		wsum[k] = sum_i16(wt + k * window, window);
	job.in = u;
	job.wt = packed;
	conv_u8s8_run(&job, sums);

	for (unsigned oy = 0; oy < cv->oh; oy++)
	for (unsigned ox = 0; ox < cv->ow; ox++) {
		const int16_t *win = in + ((size_t)oy * cv->sy * cv->wp +
					   (size_t)ox * cv->sx) * cv->ch;
		const int32_t *at = sums + ((size_t)oy * cv->ow + ox) * stride;
		int64_t wins = 0;

		if (cv->cpend)
			for (unsigned ky = 0; ky < cv->kh; ky++)
				wins += sum_i16(win + (size_t)ky * cv->wp * cv->ch, seg);
		for (unsigned k = 0; k < cv->kernels; k++)
			acc->i[sim_cube_at(acc, k, oy, ox)] =
				core_out(cv, at[k] - bias * wsum[k], wins);
	}
	return true;
}

static void conv_direct_float(const struct conv *cv, const float *in,
			      const float *wt, struct sim_cube *acc)
{
	size_t seg = (size_t)cv->kw * cv->ch;

	for (unsigned oy = 0; oy < cv->oh; oy++)
	for (unsigned ox = 0; ox < cv->ow; ox++) {
		const float *win = in + ((size_t)oy * cv->sy * cv->wp +
					 (size_t)ox * cv->sx) * cv->ch;

		for (unsigned k = 0; k < cv->kernels; k++) {
			const float *kern = wt + (size_t)k * cv->kh * seg;
			float s = 0.0f;

			for (unsigned ky = 0; ky < cv->kh; ky++)
				s += dot_f32(win + (size_t)ky * cv->wp * cv->ch,
					     kern + ky * seg, seg);
			acc->f[sim_cube_at(acc, k, oy, ox)] = s;
		}
	}
}

static void conv_depthwise_int(const struct conv *cv, const int16_t *in,
			       const int16_t *wt, struct sim_cube *acc)
{
	for (unsigned ch = 0; ch < cv->ch; ch++)
	for (unsigned oy = 0; oy < cv->oh; oy++)
	for (unsigned ox = 0; ox < cv->ow; ox++) {
		int64_t s = 0, wsum = 0;

		for (unsigned ky = 0; ky < cv->kh; ky++)
		for (unsigned kx = 0; kx < cv->kw; kx++) {
			size_t iy = (size_t)oy * cv->sy + ky, ix = (size_t)ox * cv->sx + kx;
			int64_t x = in[(iy * cv->wp + ix) * cv->ch + ch];

			s += x * wt[((size_t)ch * cv->kh + ky) * cv->kw + kx];
			wsum += x;
		}
		acc->i[sim_cube_at(acc, ch, oy, ox)] = core_out(cv, s, wsum);
	}
}

static void conv_depthwise_float(const struct conv *cv, const float *in, const float *wt,
				 struct sim_cube *acc)
{
	for (unsigned ch = 0; ch < cv->ch; ch++)
	for (unsigned oy = 0; oy < cv->oh; oy++)
	for (unsigned ox = 0; ox < cv->ow; ox++) {
		float s = 0.0f;

		for (unsigned ky = 0; ky < cv->kh; ky++)
		for (unsigned kx = 0; kx < cv->kw; kx++) {
			size_t iy = (size_t)oy * cv->sy + ky, ix = (size_t)ox * cv->sx + kx;

			s += in[(iy * cv->wp + ix) * cv->ch + ch] *
			     wt[((size_t)ch * cv->kh + ky) * cv->kw + kx];
		}
		acc->f[sim_cube_at(acc, ch, oy, ox)] = s;
	}
}

int sim_exec_conv(struct sim_core *c, struct sim_cube *acc)
{
	struct conv cv = { 0 };
	int16_t *in_i = NULL, *wt_i = NULL;
	float *in_f = NULL, *wt_f = NULL;
	int r;

	r = parse_cna(c, &cv);
	if (!r)
		r = check_cbuf(c, &cv);
	if (!r)
		r = parse_core(c, &cv);
	if (r)
		return r;
	if (sim_charge(c, (uint64_t)cv.ow * cv.oh * cv.oc * cv.kw * cv.kh * (cv.dw ? 1u : cv.ch)))
		return SIM_EXEC_STALL;
	/* Right/bottom padding is implied by the output size (HARDWARE.md §4.2). */
	cv.wp = cv.pl + cv.w;
	if ((cv.ow - 1u) * cv.sx + cv.kw > cv.wp)
		cv.wp = (cv.ow - 1u) * cv.sx + cv.kw;
	cv.hp = cv.pt + cv.h;
	if ((cv.oh - 1u) * cv.sy + cv.kh > cv.hp)
		cv.hp = (cv.oh - 1u) * cv.sy + cv.kh;

	r = sim_cube_alloc(c, acc, SIM_SCR_ACC, cv.oc, cv.oh, cv.ow, cv.is_float);
	if (r)
		return r;
	acc->prec = cv.is_float ? NPU_PREC_FP32 : NPU_PREC_INT32;
	{
		/* output channels past the last kernel (DATAOUT_CHANNEL may be
		 * larger) carry zeros */
		unsigned made = cv.dw ? cv.ch : cv.kernels;
		size_t plane = (size_t)cv.oh * cv.ow, elem = cv.is_float ? sizeof(*acc->f) :
								  sizeof(*acc->i);
		uint8_t *base = cv.is_float ? (uint8_t *)acc->f : (uint8_t *)acc->i;

		memset(base + made * plane * elem, 0, (cv.oc - made) * plane * elem);
	}
	r = load_input(c, &cv, &in_i, &in_f);
	if (!r)
		r = load_weights(c, &cv, &wt_i, &wt_f);
	if (!r) {
		if (cv.is_float && cv.dw)
			conv_depthwise_float(&cv, in_f, wt_f, acc);
		else if (cv.is_float)
			conv_direct_float(&cv, in_f, wt_f, acc);
		else if (cv.dw)
			conv_depthwise_int(&cv, in_i, wt_i, acc);
		else if (cv.bytes == 2u || !conv_direct_u8s8(c, &cv, in_i, wt_i, acc))
			conv_direct_int(&cv, in_i, wt_i, acc);	/* the unit takes 8-bit data */
	}
	return r;
}
