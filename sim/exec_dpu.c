// SPDX-License-Identifier: MIT
/*
 * DPU (with its read DMA DPU_RDMA): BS and BN stages (ALU, MUL, ReLU,
 * ReLUX), the element-wise EW stage with its ERDMA operand, OUT_CVT
 * requantisation and the write DMA into the NC1HWC2 output
 * (HARDWARE.md §4.4, §4.5, §5.3, §6). Stage order follows NVDLA's SDP,
 * from which the DPU derives: BS → BN → EW → OUT_CVT.
 */
#include <stdlib.h>
#include <string.h>

#include "sim/exec.h"
#include "sim/fp16.h"


/* One BS or BN stage (same register layout, HARDWARE.md §4.4). */
struct xstage {
	uint32_t cfg;
	bool bypass, alu, mul, relu, relux, prelu;
	unsigned algo;
	int64_t alu_const, mul_op, relux_val;
	unsigned mul_shift;
	const int32_t *ext;	/* per-channel ALU operand (BS only) */
	/* On fp16 data the ALU operand, constant or per channel, is an fp32
	 * bit pattern (A28). */
	float alu_const_f;
	const float *ext_f;
	float mul_op_f;		/* on float data the MUL operand is fp16 (A19) */
	/* unconverted fp16 data (struct dpu fp16_path): each operation's
	 * result rounded to fp16 (A21, UNSURE) */
	bool fp16;
};

struct dpu {
	bool is_float;
	/* A41 conversions at the pipeline's ends: int8 MRDMA data entering the
	 * fp32 pipeline (in_precision int8, proc_precision fp16), and float
	 * results leaving as int8 (out_precision int8 on float data) */
	bool int_in, int_out;
	unsigned w, h, ch;
	int in_prec, out_prec;
	struct xstage bs, bn;
	/* fp16 MRDMA data not converted to fp32 (mrdma_fp16tofp32_en 0): the
	 * stages work on fp16 (A21) */
	bool fp16_path;
	/* EW */
	bool ew, ew_op, ew_cvt, ew_mul, ew_relu, ew_relux, ew_cvt_add_first;
	bool ew_cvt_ties_up;		/* ew_cvt_round 1: halves up, else to even */
	unsigned ew_algo, ew_cvt_shift, ew_trunc;
	int64_t ew_const, ew_cvt_offset, ew_cvt_scale, ew_relux_val;
	/* the lookup table after the EW operation (ew_lut_bypass 0; A35) */
	bool lut;
	struct sim_lut_cfg lut_cfg;
	const struct sim_lut_store *lut_store;
	const uint8_t *ew_src;
	int ew_mode, ew_prec;
	unsigned ew_c2;
	uint64_t ew_surf;
	/* OUT_CVT */
	int64_t cvt_offset, cvt_scale;
	unsigned cvt_shift;
	bool cvt_add_first, fp16_out;
	bool cvt_ties_up;		/* cvt_round 1: halves up, else to even */
};

static int parse_xstage(struct sim_core *c, struct xstage *s, const char *name,
			uint32_t cfg, uint32_t alu, uint32_t mul, uint32_t relux, bool is_float)
{
	s->cfg = cfg;
	s->bypass = NPU_FG(DPU, BS_CFG, BS_BYPASS, cfg);
	s->alu = !NPU_FG(DPU, BS_CFG, BS_ALU_BYPASS, cfg);
	s->mul = !NPU_FG(DPU, BS_CFG, BS_MUL_BYPASS, cfg);
	s->relu = !NPU_FG(DPU, BS_CFG, BS_RELU_BYPASS, cfg);
	s->relux = NPU_FG(DPU, BS_CFG, BS_RELUX_EN, cfg);
	s->prelu = NPU_FG(DPU, BS_CFG, BS_MUL_PRELU, cfg);
	s->algo = NPU_FG(DPU, BS_CFG, BS_ALU_ALGO, cfg);
	s->alu_const = (int32_t)alu;
	memcpy(&s->alu_const_f, &alu, sizeof(s->alu_const_f));
	s->mul_op = (int16_t)NPU_FG(DPU, BS_MUL_CFG, BS_MUL_OPERAND, mul);
	s->mul_op_f = sim_f16_to_f32((uint16_t)NPU_FG(DPU, BS_MUL_CFG, BS_MUL_OPERAND, mul));
	s->mul_shift = NPU_FG(DPU, BS_MUL_CFG, BS_MUL_SHIFT_VALUE, mul);
	s->relux_val = (int32_t)relux;
	if (s->bypass)
		return SIM_EXEC_OK;
	/* BS/BN ALU: the TRM (RKNN_dpu_bs_cfg / bn_cfg) documents add (2) and
	 * minus (4) only; 0 and 1 (max/min in the EW stage) are reserved here. */
	if (s->alu && s->algo != NPU_ALU_ADD && s->algo != NPU_ALU_MINUS)
		return sim_refuse(c, "DPU %s_CFG 0x%x: ALU algorithm %u is reserved for this "
				  "stage (add 2, minus 4)", name, cfg, s->algo);
	if (s->mul && (NPU_FG(DPU, BS_MUL_CFG, BS_MUL_SRC, mul) ||
		       NPU_FG(DPU, BS_MUL_CFG, BS_TRUNCATE_SRC, mul)))
		return sim_refuse(c, "DPU %s_MUL_CFG 0x%x: per-channel MUL operand not modelled",
				  name, mul);
	/* Float MUL: the 16-bit operand is an fp16 number, as the board-run LUT
	 * streams write it (silu.py BN_MUL_CFG 0x6984 = 2824.0, the index
	 * scale; A35); NVDLA uses no shift on float data. */
	if (is_float && (s->relux || s->prelu ||
			 (s->mul && NPU_FG(DPU, BS_MUL_CFG, BS_MUL_SHIFT_VALUE, mul))))
		return sim_refuse(c, "DPU %s_CFG 0x%x / %s_MUL_CFG 0x%x: on float data only the "
				  "ALU add/minus, an fp16 MUL operand without shift and ReLU are "
				  "modelled", name, cfg, name, mul);
	return SIM_EXEC_OK;
}

/*
 * The integer stages run as passes over one channel's values, each step a
 * plain loop the compiler can unroll or vectorise; the order of the steps
 * per value is the hardware's (BS then BN then EW then OUT_CVT).
 */
/* ReLU (at 0) and ReLUX (at relux_val) passes of a stage. */
static void clamp_int(int64_t *v, size_t n, bool relu, bool relux, int64_t relux_val)
{
	if (relu)
		for (size_t i = 0; i < n; i++)
			v[i] = v[i] < 0 ? 0 : v[i];
	if (relux)
		for (size_t i = 0; i < n; i++)
			v[i] = v[i] > relux_val ? relux_val : v[i];
}

static void xstage_int(const struct xstage *s, unsigned ch, int64_t *v, size_t n)
{
	if (s->bypass)
		return;
	if (s->alu) {
		int64_t op = s->ext ? s->ext[ch] : s->alu_const;

		if (s->algo != NPU_ALU_ADD)
			op = -op;
		for (size_t i = 0; i < n; i++)
			v[i] = sim_sat32(v[i] + op);
	}
	if (s->mul)
		for (size_t i = 0; i < n; i++)
			if (!s->prelu || v[i] < 0)
				v[i] = sim_sat32(sim_round_shift(v[i] * s->mul_op, s->mul_shift));
	clamp_int(v, n, s->relu, s->relux, s->relux_val);
}

static float xstage_float(const struct xstage *s, unsigned ch, float x)
{
	if (s->bypass)
		return x;
	if (s->alu) {
		float op = s->ext_f ? s->ext_f[ch] : s->alu_const_f;

		x = s->algo == NPU_ALU_ADD ? x + op : x - op;
		if (s->fp16)
			x = sim_f16_to_f32(sim_f32_to_f16(x));
	}
	/* ALU then MUL, as on integer data */
	if (s->mul) {
		x *= s->mul_op_f;
		if (s->fp16)
			x = sim_f16_to_f32(sim_f32_to_f16(x));
	}
	if (s->relu && x < 0.0f)
		x = 0.0f;
	return x;
}

/* The BS ALU's per-channel operand from BRDMA: 32-bit words, int32 on
 * integer data, fp32 on fp16 data (A28). */
static int parse_bias(struct sim_core *c, uint32_t en, struct dpu *d)
{
	int32_t *ext_i;
	float *ext_f;
	void *words;
	uint8_t *p;
	int r;

	if (d->bs.bypass || !d->bs.alu || !NPU_FG(DPU, BS_CFG, BS_ALU_SRC, d->bs.cfg))
		return SIM_EXEC_OK;
	if (!(en & NPU_EN_DPU_RDMA) ||
	    EFLD(c, DPU_RDMA, BRDMA_CFG, BRDMA_DATA_USE) != NPU_BRDMA_USE_ALU)
		return sim_refuse(c, "DPU BS_CFG takes its ALU operand from BRDMA, but DPU_RDMA is "
				  "off or BRDMA_CFG 0x%x does not read an ALU operand",
				  EREG(c, DPU_RDMA, BRDMA_CFG));
	r = sim_dma_range(c, EREG(c, DPU_RDMA, BS_BASE_ADDR), (uint64_t)d->ch * 4u, false,
			  "BRDMA bias", &p);
	if (r)
		return r;
	words = sim_scratch(c, SIM_SCR_DPU_BIAS, (size_t)d->ch * 4u);
	if (!words)
		return sim_refuse(c, "out of memory for the bias");
	ext_i = words;
	ext_f = words;
	for (unsigned i = 0; i < d->ch; i++) {
		if (d->is_float)
			memcpy(&ext_f[i], p + (size_t)i * 4u, 4u);
		else
			memcpy(&ext_i[i], p + (size_t)i * 4u, 4u);
	}
	if (d->is_float)
		d->bs.ext_f = ext_f;
	else
		d->bs.ext = ext_i;
	return SIM_EXEC_OK;
}

/*
 * The LUT's configuration (A35): both tables' ranges, index selects and
 * slopes, and the priorities. Modelled as the published producers set it
 * (lut_expand_en 0, lut_road_sel 0, lut_lo_le_mux 2) on float data, the
 * only data any board-run LUT stream feeds it, and on integer data as
 * NVDLA's LUT takes it (the integer itself; UNSURE, board probe
 * A35-lut-int); every entry the ranges reach must have been uploaded since
 * the last reset.
 */
static int parse_lut(struct sim_core *c, struct dpu *d)
{
	static const char *const names[NPU_LUT_TABLES] = { "LE", "LO" };
	uint32_t cfg = EREG(c, DPU, LUT_CFG), info = EREG(c, DPU, LUT_INFO);
	uint32_t scale[NPU_LUT_TABLES] = { EREG(c, DPU, LUT_LE_SLOPE_SCALE),
					   EREG(c, DPU, LUT_LO_SLOPE_SCALE) };
	uint32_t shift[NPU_LUT_TABLES] = { EREG(c, DPU, LUT_LE_SLOPE_SHIFT),
					   EREG(c, DPU, LUT_LO_SLOPE_SHIFT) };
	struct sim_lut_cfg *l = &d->lut_cfg;

	if (d->ew_op || d->ew_relu || d->ew_relux)
		return sim_refuse(c, "DPU EW_CFG 0x%08x: the LUT with the EW operation or clamps "
				  "enabled (their order is not published)", EREG(c, DPU, EW_CFG));
	if (NPU_FG(DPU, LUT_CFG, LUT_EXPAND_EN, cfg) || NPU_FG(DPU, LUT_CFG, LUT_ROAD_SEL, cfg) ||
	    NPU_FG(DPU, LUT_CFG, LUT_CAL_SEL, cfg) ||
	    NPU_FG(DPU, LUT_CFG, LUT_LO_LE_MUX, cfg) != NPU_LUT_LO_LE_MUX_BOARD)
		return sim_refuse(c, "DPU LUT_CFG 0x%x: only lut_expand_en 0, lut_road_sel 0, "
				  "lut_cal_sel 0 and lut_lo_le_mux %u (the published streams' "
				  "values) are modelled", cfg, NPU_LUT_LO_LE_MUX_BOARD);
	if (c->lut.overrun)
		return sim_refuse(c, "DPU LUT_ACCESS_DATA: a write went past entry %u of a table "
				  "(undefined)", NPU_LUT_ENTRIES - 1u);
	l->hybrid = NPU_FG(DPU, LUT_CFG, LUT_HYBRID_PRIORITY, cfg);
	l->oflow = NPU_FG(DPU, LUT_CFG, LUT_OFLOW_PRIORITY, cfg);
	l->uflow = NPU_FG(DPU, LUT_CFG, LUT_UFLOW_PRIORITY, cfg);
	l->tab[NPU_LUT_TABLE_LE] = (struct sim_lut_table){
		.start = (int32_t)EREG(c, DPU, LUT_LE_START),
		.end = (int32_t)EREG(c, DPU, LUT_LE_END),
		.sel = NPU_FG(DPU, LUT_INFO, LUT_LE_INDEX_SELECT, info),
	};
	l->tab[NPU_LUT_TABLE_LO] = (struct sim_lut_table){
		.start = (int32_t)EREG(c, DPU, LUT_LO_START),
		.end = (int32_t)EREG(c, DPU, LUT_LO_END),
		.sel = NPU_FG(DPU, LUT_INFO, LUT_LO_INDEX_SELECT, info),
	};
	for (unsigned id = 0; id < NPU_LUT_TABLES; id++) {
		struct sim_lut_table *t = &l->tab[id];
		unsigned need;

		/* slope fields: LE and LO registers share one layout */
		t->uflow_scale = (int16_t)NPU_FG(DPU, LUT_LE_SLOPE_SCALE, LUT_LE_SLOPE_UFLOW_SCALE,
						 scale[id]);
		t->oflow_scale = (int16_t)NPU_FG(DPU, LUT_LE_SLOPE_SCALE, LUT_LE_SLOPE_OFLOW_SCALE,
						 scale[id]);
		t->uflow_shift = NPU_FG(DPU, LUT_LE_SLOPE_SHIFT, LUT_LE_SLOPE_UFLOW_SHIFT, shift[id]);
		t->oflow_shift = NPU_FG(DPU, LUT_LE_SLOPE_SHIFT, LUT_LE_SLOPE_OFLOW_SHIFT, shift[id]);
		if (t->sel > 31u || t->end < t->start)
			return sim_refuse(c, "DPU LUT_INFO 0x%x / LUT_%s_START..END %lld..%lld: an "
					  "index select above 31 or a range that runs backwards",
					  info, names[id], (long long)t->start, (long long)t->end);
		need = sim_lut_entries_needed(t);
		if (need > NPU_LUT_ENTRIES)
			return sim_refuse(c, "DPU LUT_%s_START..END %lld..%lld with index select %u "
					  "needs more than the %u entries of a table", names[id],
					  (long long)t->start, (long long)t->end, t->sel,
					  NPU_LUT_ENTRIES);
		for (unsigned i = 0; i < need; i++)
			if (!c->lut.written[id][i])
				return sim_refuse(c, "DPU LUT: entry %u of the %s table is read but "
						  "was not written through LUT_ACCESS_DATA since "
						  "the reset", i, names[id]);
	}
	d->lut = true;
	d->lut_store = &c->lut;
	return SIM_EXEC_OK;
}

/* The LUT on one float value: the input rounded to the nearest integer
 * (ties to even), saturated to 32 bits, the integer output as a float
 * (A35). NaN, which no stream feeds, is taken as 0. */
static float lut_float(const struct dpu *d, float v)
{
	const float whole = 8388608.0f;	/* 2^23: every float from here is whole */
	const float lim = 2147483648.0f;	/* 2^31 */
	int64_t x;

	if (v != v)
		x = 0;
	else if (v >= lim)
		x = INT32_MAX;
	else if (v <= -lim)
		x = INT32_MIN;
	else {
		/* adding and removing 2^23 rounds to a whole number, ties to even */
		if (v > -whole && v < whole)
			v = v >= 0.0f ? (v + whole) - whole : (v - whole) + whole;
		x = (int64_t)v;
	}
	return (float)sim_lut_eval(&d->lut_cfg, d->lut_store->t, x);
}

static int parse_ew(struct sim_core *c, uint32_t en, struct dpu *d)
{
	uint32_t cfg = EREG(c, DPU, EW_CFG);
	uint32_t scale = EREG(c, DPU, EW_CVT_SCALE_VALUE);
	uint32_t erdma = EREG(c, DPU_RDMA, ERDMA_CFG);
	unsigned size_code;
	uint64_t len;
	uint8_t *p;
	int r;

	d->ew = !NPU_FG(DPU, EW_CFG, EW_BYPASS, cfg);
	if (!d->ew)
		return SIM_EXEC_OK;
	if (NPU_FG(DPU, EW_CFG, EW_BINARY_EN, cfg) || NPU_FG(DPU, EW_CFG, EW_EQUAL_EN, cfg) ||
	    NPU_FG(DPU, EW_CFG, EW_MUL_PRELU, cfg))
		return sim_refuse(c, "DPU EW_CFG 0x%08x: binary / equal / PReLU not modelled",
				  cfg);
	d->ew_cvt_ties_up = NPU_FG(DPU, EW_CFG, EW_CVT_ROUND, cfg);
	d->ew_op = !NPU_FG(DPU, EW_CFG, EW_OP_BYPASS, cfg);
	d->ew_cvt = !NPU_FG(DPU, EW_CFG, EW_OP_CVT_BYPASS, cfg);
	d->ew_mul = NPU_FG(DPU, EW_CFG, EW_OP_TYPE, cfg);
	d->ew_relu = !NPU_FG(DPU, EW_CFG, EW_RELU_BYPASS, cfg);
	d->ew_relux = NPU_FG(DPU, EW_CFG, EW_RELUX_EN, cfg);
	d->ew_algo = NPU_FG(DPU, EW_CFG, EW_ALU_ALGO, cfg);
	d->ew_cvt_add_first = NPU_FG(DPU, EW_CFG, EW_CVT_TYPE, cfg);
	d->ew_cvt_offset = (int32_t)EREG(c, DPU, EW_CVT_OFFSET_VALUE);
	d->ew_cvt_scale = (int16_t)NPU_FG(DPU, EW_CVT_SCALE_VALUE, EW_OP_CVT_SCALE, scale);
	d->ew_cvt_shift = NPU_FG(DPU, EW_CVT_SCALE_VALUE, EW_OP_CVT_SHIFT, scale);
	d->ew_trunc = NPU_FG(DPU, EW_CVT_SCALE_VALUE, EW_TRUNCATE, scale);
	d->ew_relux_val = (int32_t)EREG(c, DPU, EW_RELUX_CMP_VALUE);
	d->ew_const = (int32_t)EREG(c, DPU, EW_OP_VALUE_0);
	if (!NPU_FG(DPU, EW_CFG, EW_LUT_BYPASS, cfg)) {
		r = parse_lut(c, d);
		if (r)
			return r;
	}
	/*
	 * On float data the operand converter is modelled as the identity it
	 * is at scale 1, shift 0, offset 0 — the state a previous board-run task
	 * leaves (conv_gemm.py, gemm.py write EW_CVT_SCALE_VALUE 1) when
	 * elementwise.py's add, minus and max run it unwritten (A36); the
	 * float multiply by ew_truncate is refused for the same lack of data.
	 */
	if (d->is_float && d->ew_op && d->ew_cvt &&
	    (d->ew_cvt_scale != NPU_CVT_SCALE_ONE || d->ew_cvt_shift || d->ew_cvt_offset ||
	     d->ew_cvt_add_first))
		return sim_refuse(c, "DPU EW_CVT on float data: only scale 1, shift 0, offset 0 "
				  "(the identity) is modelled (EW_CVT_SCALE_VALUE 0x%08x, "
				  "EW_CVT_OFFSET_VALUE 0x%08x)", scale,
				  EREG(c, DPU, EW_CVT_OFFSET_VALUE));
	if (d->is_float && (d->ew_relux || (d->ew_op && d->ew_mul && d->ew_trunc)))
		return sim_refuse(c, "DPU EW_CFG 0x%08x: ReLUX or a multiply with ew_truncate %u "
				  "on float data not modelled", cfg, d->ew_trunc);
	/* Div: the board-run fp16 divide (elementwise.py FDIV); float only. */
	if (d->ew_op && !d->ew_mul && d->ew_algo != NPU_ALU_MAX && d->ew_algo != NPU_ALU_MIN &&
	    d->ew_algo != NPU_ALU_ADD && d->ew_algo != NPU_ALU_MINUS &&
	    !(d->is_float && d->ew_algo == NPU_ALU_DIV))
		return sim_refuse(c, "DPU EW_CFG: ALU algorithm %u not modelled on %s data",
				  d->ew_algo, d->is_float ? "float" : "integer");
	if (!d->ew_op || NPU_FG(DPU, EW_CFG, EW_OP_SRC, cfg) != NPU_EW_OP_FROM_ERDMA)
		return SIM_EXEC_OK;

	/* Operand from ERDMA (HARDWARE.md §4.5). */
	if (!(en & NPU_EN_DPU_RDMA) || NPU_FG(DPU_RDMA, ERDMA_CFG, ERDMA_DISABLE, erdma))
		return sim_refuse(c, "DPU EW operand from ERDMA, but DPU_RDMA or ERDMA is "
				  "disabled");
	d->ew_mode = (int)NPU_FG(DPU_RDMA, ERDMA_CFG, ERDMA_DATA_MODE, erdma);
	size_code = NPU_FG(DPU_RDMA, ERDMA_CFG, ERDMA_DATA_SIZE, erdma);
	if ((d->ew_mode != NPU_ERDMA_PER_CHANNEL && d->ew_mode != NPU_ERDMA_PER_PIXEL) ||
	    NPU_FG(DPU_RDMA, ERDMA_CFG, ERDMA_SURF_MODE, erdma) ||
	    NPU_FG(DPU_RDMA, ERDMA_CFG, ERDMA_NONALIGN, erdma) ||
	    size_code != NPU_FG(DPU, EW_CFG, EDATA_SIZE, cfg) ||
	    (unsigned)d->ew_mode != NPU_FG(DPU, EW_CFG, EW_DATA_MODE, cfg))
		return sim_refuse(c, "ERDMA_CFG 0x%08x with EW_CFG 0x%08x: only per-channel or "
				  "per-pixel operands of matching size are modelled", erdma, cfg);
	if (d->is_float)
		d->ew_prec = size_code == NPU_ERDMA_SIZE_16BIT ? NPU_PREC_FP16 :
			     size_code == NPU_ERDMA_SIZE_32BIT ? NPU_PREC_FP32 : -1;
	else
		d->ew_prec = size_code == NPU_ERDMA_SIZE_8BIT ? NPU_PREC_INT8 :
			     size_code == NPU_ERDMA_SIZE_16BIT ? NPU_PREC_INT16 :
			     size_code == NPU_ERDMA_SIZE_32BIT ? NPU_PREC_INT32 : -1;
	if (d->ew_prec < 0)
		return sim_refuse(c, "ERDMA data_size %u on %s data not modelled", size_code,
				  d->is_float ? "float" : "integer");
	d->ew_c2 = NPU_ATOM_BYTES / sim_prec_bytes(d->ew_prec);
	d->ew_surf = EREG(c, DPU_RDMA, EW_SURF_STRIDE) & ~0xFu;
	if (d->ew_mode == NPU_ERDMA_PER_CHANNEL)
		len = (uint64_t)d->ch * sim_prec_bytes(d->ew_prec);
	else
		len = (uint64_t)((d->ch - 1u) / d->ew_c2) * d->ew_surf +
		      (uint64_t)d->w * d->h * NPU_ATOM_BYTES;
	r = sim_dma_range(c, EREG(c, DPU_RDMA, EW_BASE_ADDR), len, false, "ERDMA operand", &p);
	d->ew_src = p;
	return r;
}

/* Channel ch's EW operands in memory: the first, and the step from pixel
 * to pixel (0: one operand for the whole channel). */
struct ew_row {
	const uint8_t *at;
	size_t step;
};

static struct ew_row ew_row_of(const struct dpu *d, unsigned ch)
{
	unsigned bytes = sim_prec_bytes(d->ew_prec);
	struct ew_row r = { NULL, 0 };

	if (!d->ew_src)
		return r;
	if (d->ew_mode == NPU_ERDMA_PER_CHANNEL) {
		r.at = d->ew_src + (size_t)ch * bytes;
		return r;
	}
	r.at = d->ew_src + (ch / d->ew_c2) * d->ew_surf + (ch % d->ew_c2) * bytes;
	r.step = NPU_ATOM_BYTES;
	return r;
}

/* EW_CVT on an operand (ew_cvt_bypass 0). */
static inline int64_t ew_cvt_op(const struct dpu *d, int64_t op)
{
	if (!d->ew_cvt)
		return op;
	if (d->ew_cvt_add_first)
		return sim_round_shift_mode((op + d->ew_cvt_offset) * d->ew_cvt_scale,
					    d->ew_cvt_shift, d->ew_cvt_ties_up);
	return sim_round_shift_mode(op * d->ew_cvt_scale, d->ew_cvt_shift, d->ew_cvt_ties_up) +
	       d->ew_cvt_offset;
}

static inline int64_t ew_apply(const struct dpu *d, int64_t op, int64_t v)
{
	if (d->ew_mul)
		v = sim_round_shift(v * op, d->ew_trunc);
	else if (d->ew_algo == NPU_ALU_MAX)
		v = v > op ? v : op;
	else if (d->ew_algo == NPU_ALU_MIN)
		v = v < op ? v : op;
	else if (d->ew_algo == NPU_ALU_ADD)
		v += op;
	else
		v -= op;
	return sim_sat32(v);
}

/* The EW stage over one channel whose operands are row. */
static void ew_int(const struct dpu *d, struct ew_row row, int64_t *v, size_t n)
{
	if (!d->ew)
		return;
	if (d->ew_op && row.step) {
		for (size_t i = 0; i < n; i++)
			v[i] = ew_apply(d, ew_cvt_op(d, sim_load_int(row.at + i * row.step,
								     d->ew_prec)), v[i]);
	} else if (d->ew_op) {
		int64_t op = ew_cvt_op(d, row.at ? sim_load_int(row.at, d->ew_prec) : d->ew_const);

		for (size_t i = 0; i < n; i++)
			v[i] = ew_apply(d, op, v[i]);
	}
	/* with the LUT the clamps are refused (parse_lut): X is the integer */
	if (d->lut) {
		for (size_t i = 0; i < n; i++)
			v[i] = sim_sat32(sim_lut_eval(&d->lut_cfg, d->lut_store->t, v[i]));
		return;
	}
	clamp_int(v, n, d->ew_relu, d->ew_relux, d->ew_relux_val);
}

static float ew_float(const struct dpu *d, struct ew_row row, size_t p, float v)
{
	float op;

	if (!d->ew)
		return v;
	if (d->ew_op) {
		op = row.at ? sim_load_float(row.at + p * row.step, d->ew_prec) :
			      (float)d->ew_const;
		if (d->ew_mul)
			v *= op;
		else if (d->ew_algo == NPU_ALU_DIV)
			v /= op;
		else if (d->ew_algo == NPU_ALU_MAX)
			v = v > op ? v : op;
		else if (d->ew_algo == NPU_ALU_MIN)
			v = v < op ? v : op;
		else if (d->ew_algo == NPU_ALU_ADD)
			v += op;
		else
			v -= op;
	}
	if (d->lut)
		return lut_float(d, v);
	if (d->ew_relu && v < 0.0f)
		v = 0.0f;
	return v;
}

static int parse_out_cvt(struct sim_core *c, struct dpu *d)
{
	uint32_t scale = EREG(c, DPU, OUT_CVT_SCALE);
	uint32_t shift = EREG(c, DPU, OUT_CVT_SHIFT);

	d->cvt_offset = (int32_t)EREG(c, DPU, OUT_CVT_OFFSET);
	d->cvt_scale = NPU_FG(DPU, OUT_CVT_SCALE, OUT_CVT_SCALE, scale);
	d->cvt_shift = NPU_FG(DPU, OUT_CVT_SHIFT, OUT_CVT_SHIFT, shift);
	d->cvt_add_first = NPU_FG(DPU, OUT_CVT_SHIFT, CVT_TYPE, shift);
	d->fp16_out = NPU_FG(DPU, OUT_CVT_SCALE, FP32TOFP16_EN, scale);
	d->cvt_ties_up = NPU_FG(DPU, OUT_CVT_SHIFT, CVT_ROUND, shift);
	if (NPU_FG(DPU, OUT_CVT_SHIFT, MINUS_EXP, shift))
		return sim_refuse(c, "DPU OUT_CVT_SHIFT 0x%08x: minus_exp not modelled", shift);
	if (d->fp16_path) {
		/*
		 * mrdma_fp16tofp32_en 0 with fp32tofp16_en 0 and an fp16 output:
		 * the pair the board-run divide writes (elementwise.py FDIV:
		 * 0x17841, OUT_CVT_SCALE 1), read as the fp16 values going through
		 * the stages unconverted, each operation's result (BS and BN ALU
		 * and MUL, the EW operation) one fp16 rounding of the exact one
		 * (A21: the divide is board-run; the rounding between stages,
		 * UNSURE, is board probe A21-stages). A BRDMA operand and the LUT
		 * on such data are unpublished: refused.
		 */
		if (d->out_prec != NPU_PREC_FP16 || d->fp16_out || d->lut ||
		    (!d->bs.bypass && d->bs.alu && NPU_FG(DPU, BS_CFG, BS_ALU_SRC, d->bs.cfg)))
			return sim_refuse(c, "DPU_RDMA mrdma_fp16tofp32_en 0 (unconverted fp16 "
					  "data) is modelled only with an fp16 output, "
					  "fp32tofp16_en 0, register operands and no LUT");
	}
	if (d->is_float) {
		/* Scale 0 and 1 both give the plain result on a board (allbilly/rk3588
		 * experimental/ops_rockchip.py: "0 or 1 both passed test_div"); any
		 * other scale, a shift or an offset on float data is unpublished. */
		if (d->cvt_scale > 1 || d->cvt_shift || d->cvt_offset || d->cvt_add_first)
			return sim_refuse(c, "DPU OUT_CVT on float data: only scale 0 or 1, shift "
					  "0, offset 0 is modelled");
		if (d->out_prec == NPU_PREC_FP16 && (d->fp16_out || d->fp16_path))
			return SIM_EXEC_OK;
		if ((d->out_prec == NPU_PREC_FP32 || d->int_out) && !d->fp16_out)
			return SIM_EXEC_OK;
		return sim_refuse(c, "DPU float output precision %d with FP32TOFP16_EN %d (fp16 "
				  "out needs it 1, fp32 and int8 out 0)", d->out_prec, d->fp16_out);
	}
	if (d->fp16_out || (d->out_prec != NPU_PREC_INT8 && d->out_prec != NPU_PREC_INT16 &&
			    d->out_prec != NPU_PREC_INT32))
		return sim_refuse(c, "DPU integer data to output precision %d (FP32TOFP16_EN %d) "
				  "not modelled", d->out_prec, d->fp16_out);
	return SIM_EXEC_OK;
}

static inline int64_t out_cvt_int(const struct dpu *d, int64_t v)
{
	if (d->cvt_add_first)
		v = sim_round_shift_mode((v + d->cvt_offset) * d->cvt_scale, d->cvt_shift,
					 d->cvt_ties_up);
	else
		v = sim_round_shift_mode(v * d->cvt_scale, d->cvt_shift, d->cvt_ties_up) +
		    d->cvt_offset;
	switch (d->out_prec) {
	case NPU_PREC_INT8:
		return sim_sat(v, INT8_MIN, INT8_MAX);
	case NPU_PREC_INT16:
		return sim_sat(v, INT16_MIN, INT16_MAX);
	default:
		return sim_sat32(v);
	}
}

/* BS, BN, EW and OUT_CVT over every element, channel by channel, whatever
 * the output precision: an int32 output gets the BS add too (A27). */
static void dpu_int(const struct dpu *d, const struct sim_cube *in, struct sim_cube *out)
{
	size_t hw = (size_t)d->h * d->w;

	for (unsigned ch = 0; ch < d->ch; ch++) {
		int64_t *v = out->i + ch * hw;

		memcpy(v, in->i + ch * hw, hw * sizeof(*v));
		xstage_int(&d->bs, ch, v, hw);
		xstage_int(&d->bn, ch, v, hw);
		ew_int(d, ew_row_of(d, ch), v, hw);
		for (size_t i = 0; i < hw; i++)
			v[i] = out_cvt_int(d, v[i]);
	}
}

static void dpu_float(const struct dpu *d, const struct sim_cube *in, struct sim_cube *out)
{
	size_t hw = (size_t)d->h * d->w;

	for (unsigned ch = 0; ch < d->ch; ch++) {
		const float *src = in->f + ch * hw;
		float *dst = out->f + ch * hw;
		struct ew_row row = ew_row_of(d, ch);

		for (size_t p = 0; p < hw; p++) {
			float v = ew_float(d, row, p,
					   xstage_float(&d->bn, ch, xstage_float(&d->bs, ch, src[p])));

			/* FP32TOFP16_EN: round to fp16 here so the PPU sees it too. */
			dst[p] = d->fp16_out || d->fp16_path ? sim_f16_to_f32(sim_f32_to_f16(v)) : v;
		}
	}
}

/* Main input from MRDMA ("flying" DPU-only op): a dense NC1HWC2 cube. */
static int load_mrdma(struct sim_core *c, struct dpu *d, struct sim_cube *in)
{
	uint32_t fm = EREG(c, DPU_RDMA, FEATURE_MODE_CFG);
	int prec = (int)NPU_FG(DPU_RDMA, FEATURE_MODE_CFG, IN_PRECISION, fm);
	unsigned bytes = sim_prec_bytes(prec), c2;
	uint64_t surf = (uint64_t)d->w * d->h * NPU_ATOM_BYTES;
	uint8_t *p;
	int r;

	if (NPU_FG(DPU_RDMA, FEATURE_MODE_CFG, MRDMA_DISABLE, fm) ||
	    NPU_FG(DPU_RDMA, FEATURE_MODE_CFG, CONV_MODE, fm) || !bytes ||
	    prec != d->in_prec)
		return sim_refuse(c, "DPU_RDMA FEATURE_MODE_CFG 0x%x: MRDMA must be enabled, conv "
				  "mode 0, precision = DPU in_precision %d", fm, d->in_prec);
	/*
	 * mrdma_fp16tofp32_en: "If enable DPU input from fp16 to fp32" (TRM
	 * RKNN_dpu_rdma_feature_mode_cfg, allbilly/rk3588
	 * experimental/rk3588_trm.md). fp16 data enters the fp32 datapath
	 * through it, as in every board-run fp16 add/sub/mul/max stream
	 * (experimental/kernel_6_18/elementwise.py: 0x17849 with OUT_CVT
	 * 0x10001); unconverted fp16 (the board's divide) is d->fp16_path,
	 * checked with OUT_CVT. The bit on integer data has no published
	 * meaning (A21).
	 */
	if (d->in_prec != NPU_PREC_FP16 && NPU_FG(DPU_RDMA, FEATURE_MODE_CFG, MRDMA_FP16TOFP32_EN, fm))
		return sim_refuse(c, "DPU_RDMA FEATURE_MODE_CFG 0x%x: mrdma_fp16tofp32_en 1 on "
				  "integer MRDMA data not modelled", fm);
	c2 = NPU_ATOM_BYTES / bytes;
	r = sim_dma_range(c, EREG(c, DPU_RDMA, SRC_BASE_ADDR),
			  (uint64_t)((d->ch + c2 - 1u) / c2) * surf, false, "MRDMA", &p);
	if (!r)
		r = sim_cube_alloc(c, in, SIM_SCR_DPU_IN, d->ch, d->h, d->w, d->is_float);
	if (r)
		return r;
	in->prec = prec;
	for (unsigned ch = 0; ch < d->ch; ch++)
	for (unsigned y = 0; y < d->h; y++)
	for (unsigned x = 0; x < d->w; x++) {
		const uint8_t *e = p + (ch / c2) * surf + ((size_t)y * d->w + x) * NPU_ATOM_BYTES +
				   (ch % c2) * bytes;

		if (d->int_in)	/* exact in fp32: |int8| < 2^24 */
			in->f[sim_cube_at(in, ch, y, x)] = (float)sim_load_int(e, prec);
		else if (d->is_float)
			in->f[sim_cube_at(in, ch, y, x)] = sim_load_float(e, prec);
		else
			in->i[sim_cube_at(in, ch, y, x)] = sim_load_int(e, prec);
	}
	return SIM_EXEC_OK;
}

/* With a notch the surfaces may share lines: refuse a layout that would
 * write an atom twice (one bit per atom of the written extent). */
static int notch_check(struct sim_core *c, const struct dpu *d, unsigned kg, unsigned c2,
		       uint64_t surf, uint64_t group, uint64_t line, uint64_t end)
{
	size_t atoms = (size_t)((end + NPU_ATOM_BYTES - 1u) / NPU_ATOM_BYTES);
	uint8_t *seen = sim_scratch(c, SIM_SCR_NOTCH, (atoms + 7u) / 8u);

	if (!seen)
		return sim_refuse(c, "out of memory for the DPU notch check");
	memset(seen, 0, (atoms + 7u) / 8u);
	for (unsigned ch = 0; ch < d->ch; ch += c2) {
		uint64_t base = ((ch / kg) * group + ((ch % kg) / c2) * surf) / NPU_ATOM_BYTES;

		for (unsigned y = 0; y < d->h; y++)
		for (unsigned x = 0; x < d->w; x++) {
			size_t a = (size_t)(base + (uint64_t)y * line + x);

			if (seen[a / 8u] & (1u << (a % 8u)))
				return sim_refuse(c, "DPU DATA_CUBE_NOTCH %llu with DST_SURF_STRIDE "
						  "%llu / SURFACE_ADD %llu writes an atom twice",
						  (unsigned long long)(line - d->w),
						  (unsigned long long)surf, (unsigned long long)group);
			seen[a / 8u] |= (uint8_t)(1u << (a % 8u));
		}
	}
	return SIM_EXEC_OK;
}

/* A41: a float result leaving as int8 — rounded to the nearest integer,
 * halves as OUT_CVT's cvt_round says (A12), saturated; NaN as 0. */
static int64_t float_to_int8(const struct dpu *d, float v)
{
	int64_t q;
	float rem;

	if (v != v)
		return 0;
	if (v >= (float)INT8_MAX)
		return INT8_MAX;
	if (v <= (float)INT8_MIN)
		return INT8_MIN;
	q = (int64_t)v;			/* toward zero, then down to the floor */
	if ((float)q > v)
		q--;
	rem = v - (float)q;		/* exact: |v| < 2^7 */
	if (rem > 0.5f || (rem == 0.5f && (d->cvt_ties_up || (q & 1))))
		q++;
	return q;
}

/* WDMA: output in NC1HWC2 kernel groups (HARDWARE.md §5.3). */
static int write_output(struct sim_core *c, const struct dpu *d, const struct sim_cube *out,
			unsigned expect_kg)
{
	uint32_t ow = EREG(c, DPU, BS_OW_CFG);
	unsigned g = NPU_FG(DPU, BS_OW_CFG, SIZE_E_0, ow) + 1u;
	unsigned bytes = sim_prec_bytes(d->out_prec), c2 = NPU_ATOM_BYTES / bytes;
	unsigned kg = g * c2;
	uint32_t dst = EREG(c, DPU, DST_BASE_ADDR);
	uint64_t surf = EREG(c, DPU, DST_SURF_STRIDE) & ~0xFu;
	uint64_t group = EREG(c, DPU, SURFACE_ADD) & ~0xFu;
	unsigned notch = EFLD(c, DPU, DATA_CUBE_NOTCH_ADDR, NOTCH_ADDR_0);
	uint64_t line = (uint64_t)d->w + notch, end = 0;
	uint8_t *p;
	int r;

	if (NPU_FG(DPU, BS_OW_CFG, SIZE_E_1, ow) != g - 1u ||
	    NPU_FG(DPU, BS_OW_CFG, SIZE_E_2, ow) != g - 1u)
		return sim_refuse(c, "DPU BS_OW_CFG 0x%x: size_e_0/1/2 differ", ow);
	if (expect_kg && kg != expect_kg)
		return sim_refuse(c, "DPU BS_OW_CFG size_e %u: the CORE produces %u-channel kernel "
				  "groups, i.e. %u atoms of %u-bit output", g - 1u, expect_kg,
				  expect_kg / c2, bytes * 8u);
	if (dst & 0xFu)
		return sim_refuse(c, "DPU DST_BASE_ADDR 0x%08x is not 16-byte aligned", dst);
	/* DATA_CUBE_NOTCH: pixels from the end of the width to the end of the
	 * line (TRM RKNN_dpu_data_cube_notch_addr), so lines are width + notch
	 * atoms apart; the row-major GEMMs interleave the surfaces of a row in
	 * that gap (A31). */
	if (notch != EFLD(c, DPU, DATA_CUBE_NOTCH_ADDR, NOTCH_ADDR_1))
		return sim_refuse(c, "DPU DATA_CUBE_NOTCH_ADDR: notch_addr_0 %u differs from "
				  "notch_addr_1 %u", notch,
				  EFLD(c, DPU, DATA_CUBE_NOTCH_ADDR, NOTCH_ADDR_1));
	if (!notch && surf < (uint64_t)d->w * d->h * NPU_ATOM_BYTES && d->ch > c2)
		return sim_refuse(c, "DPU DST_SURF_STRIDE %llu bytes is smaller than a %ux%u "
				  "surface",
				  (unsigned long long)surf, d->w, d->h);
	for (unsigned ch = 0; ch < d->ch; ch++) {
		uint64_t at = (ch / kg) * group + ((ch % kg) / c2) * surf + (ch % c2) * bytes;

		if (at > end)
			end = at;
	}
	end += (((uint64_t)d->h - 1u) * line + d->w - 1u) * NPU_ATOM_BYTES + bytes;
	if (notch) {
		r = notch_check(c, d, kg, c2, surf, group, line, end);
		if (r)
			return r;
	}
	r = sim_dma_range(c, dst, end, true, "DPU WDMA", &p);
	if (r)
		return r;
	for (unsigned ch = 0; ch < d->ch; ch++) {
		uint8_t *base = p + (ch / kg) * group + ((ch % kg) / c2) * surf + (ch % c2) * bytes;
		size_t from = sim_cube_at(out, ch, 0, 0);

		for (unsigned y = 0; y < d->h; y++)
		for (unsigned x = 0; x < d->w; x++) {
			uint8_t *e = base + ((uint64_t)y * line + x) * NPU_ATOM_BYTES;
			size_t q = (size_t)y * d->w + x;

			if (d->int_out)
				sim_store_int(e, d->out_prec, float_to_int8(d, out->f[from + q]));
			else if (d->is_float)
				sim_store_float(e, d->out_prec, out->f[from + q]);
			else
				sim_store_int(e, d->out_prec, out->i[from + q]);
		}
	}
	return SIM_EXEC_OK;
}

/* Kernel-group width the CORE delivers (HARDWARE.md §5.3). */
static unsigned core_kernel_group(struct sim_core *c)
{
	bool fp16 = EFLD(c, CNA, CONV_CON1, PROC_PRECISION) == NPU_PREC_FP16;
	bool int16 = EFLD(c, CNA, CONV_CON1, PROC_PRECISION) == NPU_PREC_INT16;
	bool int4 = EFLD(c, CNA, CONV_CON1, PROC_PRECISION) == NPU_PREC_INT4;

	/* depthwise 64 int8 / 32 fp16 channels (A29), direct 32 / 16 (int16 as
	 * fp16: TRM RKNN_cna_conv_con2) */
	if (EFLD(c, CNA, CONV_CON1, CONV_MODE) == NPU_CONV_MODE_DEPTHWISE)
		return fp16 ? 32u : 64u;
	if (int4)	/* 64 kernels (A40), e.g. 8 atoms of int16 output */
		return 64u;
	return fp16 || int16 ? 16u : 32u;
}

static int parse_dpu(struct sim_core *c, uint32_t en, const struct sim_cube *from_core,
		     struct dpu *d)
{
	uint32_t fm = EREG(c, DPU, FEATURE_MODE_CFG);
	uint32_t fmt = EREG(c, DPU, DATA_FORMAT);
	int proc, r;

	d->w = EFLD(c, DPU, DATA_CUBE_WIDTH, WIDTH) + 1u;
	d->h = EFLD(c, DPU, DATA_CUBE_HEIGHT, HEIGHT) + 1u;
	d->ch = EFLD(c, DPU, DATA_CUBE_CHANNEL, CHANNEL) + 1u;
	d->in_prec = (int)NPU_FG(DPU, DATA_FORMAT, IN_PRECISION, fmt);
	d->out_prec = (int)NPU_FG(DPU, DATA_FORMAT, OUT_PRECISION, fmt);
	proc = (int)NPU_FG(DPU, DATA_FORMAT, PROC_PRECISION, fmt);
	/* proc_precision differs from in_precision only as an int8 map
	 * entering the float pipeline (A41) */
	d->int_in = d->in_prec == NPU_PREC_INT8 && proc == NPU_PREC_FP16;
	if ((proc != d->in_prec && !d->int_in) ||
	    (d->in_prec != NPU_PREC_INT8 && d->in_prec != NPU_PREC_INT16 &&
	     d->in_prec != NPU_PREC_FP16 && d->in_prec != NPU_PREC_INT4) ||
	    !sim_prec_bytes(d->out_prec))
		return sim_refuse(c, "DPU DATA_FORMAT 0x%08x: precisions in %d / proc %d / out %d "
				  "not modelled", fmt, d->in_prec, proc, d->out_prec);
	d->is_float = proc == NPU_PREC_FP16;
	d->int_out = d->is_float && d->out_prec == NPU_PREC_INT8;
	if ((d->int_in || d->int_out) && from_core)
		return sim_refuse(c, "DPU DATA_FORMAT 0x%08x: a precision conversion is modelled "
				  "only on a flying task's MRDMA data (A41)", fmt);
	/* int4 (A40): out_precision 1 (int16) is the one board-run value (3
	 * saturates, 7 writes nothing on a board); the sums of a CORE task,
	 * every DPU stage bypassed, OUT_CVT the identity (checked below), so
	 * DPU_RDMA, which the board-run stream enables, reads nothing. */
	if (d->in_prec == NPU_PREC_INT4 && (d->out_prec != NPU_PREC_INT16 || !from_core))
		return sim_refuse(c, "DPU DATA_FORMAT 0x%08x: int4 data is modelled only from the "
				  "CORE to an int16 output (out_precision 1)", fmt);
	if (NPU_FG(DPU, DATA_FORMAT, BN_MUL_SHIFT_VALUE_NEG, fmt) ||
	    NPU_FG(DPU, DATA_FORMAT, BS_MUL_SHIFT_VALUE_NEG, fmt) ||
	    NPU_FG(DPU, DATA_FORMAT, EW_TRUNCATE_NEG, fmt) ||
	    NPU_FG(DPU, DATA_FORMAT, MC_SURF_OUT, fmt))
		return sim_refuse(c, "DPU DATA_FORMAT 0x%08x: negative shifts / mc_surf_out not "
				  "modelled", fmt);
	if (NPU_FG(DPU, FEATURE_MODE_CFG, COMB_USE, fm) ||
	    NPU_FG(DPU, FEATURE_MODE_CFG, TP_EN, fm) ||
	    NPU_FG(DPU, FEATURE_MODE_CFG, NONALIGN, fm))
		return sim_refuse(c, "DPU FEATURE_MODE_CFG 0x%08x: comb_use / transpose / "
				  "non-aligned output not modelled", fm);

	if (from_core) {
		if (NPU_FG(DPU, FEATURE_MODE_CFG, FLYING_MODE, fm))
			return sim_refuse(c, "DPU flying_mode 1 (input from MRDMA) in a task that "
					  "runs the CORE");
		if (d->w != from_core->w || d->h != from_core->h || d->ch != from_core->c)
			return sim_refuse(c, "DPU DATA_CUBE %ux%ux%u differs from the CORE output "
					  "%ux%ux%u", d->w, d->h, d->ch, from_core->w,
					  from_core->h, from_core->c);
		if ((NPU_FG(DPU, FEATURE_MODE_CFG, CONV_MODE, fm) == NPU_CONV_MODE_DEPTHWISE) !=
		    (EFLD(c, CNA, CONV_CON1, CONV_MODE) == NPU_CONV_MODE_DEPTHWISE) ||
		    d->in_prec != (int)EFLD(c, CNA, CONV_CON1, PROC_PRECISION))
			return sim_refuse(c, "DPU FEATURE_MODE_CFG / DATA_FORMAT disagree with the "
					  "CNA conv mode or precision");
	} else if (!NPU_FG(DPU, FEATURE_MODE_CFG, FLYING_MODE, fm) || !(en & NPU_EN_DPU_RDMA)) {
		return sim_refuse(c, "DPU without the CORE needs flying_mode 1 and DPU_RDMA");
	}
	if ((en & NPU_EN_DPU_RDMA) &&
	    (EFLD(c, DPU_RDMA, DATA_CUBE_WIDTH, WIDTH) + 1u != d->w ||
	     EFLD(c, DPU_RDMA, DATA_CUBE_HEIGHT, HEIGHT) + 1u != d->h ||
	     EFLD(c, DPU_RDMA, DATA_CUBE_CHANNEL, CHANNEL) + 1u != d->ch))
		return sim_refuse(c, "DPU_RDMA DATA_CUBE differs from the DPU cube %ux%ux%u",
				  d->w, d->h, d->ch);
	if ((en & NPU_EN_DPU_RDMA) && EFLD(c, DPU_RDMA, FEATURE_MODE_CFG, COMB_USE)) {
		/* comb_use 5 beside CORE data: MRDMA and ERDMA read the same
		 * per-pixel cube, which goes to the EW stage, as Mesa's fused conv
		 * + add programs it; the data is read at SRC_BASE_ADDR = EW_BASE_ADDR
		 * (A34). Any other combination is refused. */
		uint32_t erdma = EREG(c, DPU_RDMA, ERDMA_CFG);

		if (!from_core ||
		    EFLD(c, DPU_RDMA, FEATURE_MODE_CFG, COMB_USE) != NPU_RDMA_COMB_SAME_TO_ERDMA ||
		    EFLD(c, DPU_RDMA, FEATURE_MODE_CFG, MRDMA_DISABLE) ||
		    NPU_FG(DPU_RDMA, ERDMA_CFG, ERDMA_DISABLE, erdma) ||
		    NPU_FG(DPU_RDMA, ERDMA_CFG, ERDMA_DATA_MODE, erdma) != NPU_ERDMA_PER_PIXEL ||
		    EREG(c, DPU_RDMA, SRC_BASE_ADDR) != EREG(c, DPU_RDMA, EW_BASE_ADDR))
			return sim_refuse(c, "DPU_RDMA FEATURE_MODE_CFG 0x%08x: comb_use is "
					  "modelled only as 5 beside CORE data, with MRDMA and a "
					  "per-pixel ERDMA reading one address (A34)",
					  EREG(c, DPU_RDMA, FEATURE_MODE_CFG));
	} else if (from_core && (en & NPU_EN_DPU_RDMA) &&
		   !EFLD(c, DPU_RDMA, FEATURE_MODE_CFG, MRDMA_DISABLE)) {
		return sim_refuse(c, "DPU_RDMA MRDMA enabled while the DPU takes CORE data "
				  "(fused operations other than comb_use 5 not modelled)");
	}
	/* WDMA_SIZE_0/1 left at their reset value 0 (board-run element-wise
	 * streams, allbilly/rk3588 examples/elementwise.py) write the DPU
	 * cube; written, they must describe it. */
	if ((EREG(c, DPU, WDMA_SIZE_0) || EREG(c, DPU, WDMA_SIZE_1)) &&
	    (EFLD(c, DPU, WDMA_SIZE_0, CHANNEL_WDMA) + 1u != d->ch ||
	     EFLD(c, DPU, WDMA_SIZE_1, WIDTH_WDMA) + 1u != d->w ||
	     EFLD(c, DPU, WDMA_SIZE_1, HEIGHT_WDMA) + 1u != d->h))
		return sim_refuse(c, "DPU WDMA_SIZE_0/1 differ from the DPU cube %ux%ux%u",
				  d->w, d->h, d->ch);

	r = parse_xstage(c, &d->bs, "BS", EREG(c, DPU, BS_CFG), EREG(c, DPU, BS_ALU_CFG),
			 EREG(c, DPU, BS_MUL_CFG), EREG(c, DPU, BS_RELUX_CMP_VALUE), d->is_float);
	if (!r)
		r = parse_xstage(c, &d->bn, "BN", EREG(c, DPU, BN_CFG), EREG(c, DPU, BN_ALU_CFG),
				 EREG(c, DPU, BN_MUL_CFG), EREG(c, DPU, BN_RELUX_CMP_VALUE),
				 d->is_float);
	if (!r && !d->bn.bypass && d->bn.alu && NPU_FG(DPU, BN_CFG, BN_ALU_SRC, d->bn.cfg))
		r = sim_refuse(c, "DPU BN operand from NRDMA not modelled");
	if (!r)
		r = parse_ew(c, en, d);
	d->fp16_path = !from_core && d->in_prec == NPU_PREC_FP16 && (en & NPU_EN_DPU_RDMA) &&
		       !EFLD(c, DPU_RDMA, FEATURE_MODE_CFG, MRDMA_FP16TOFP32_EN);
	/* A41: the conversions are modelled as rkbare's converting tasks write
	 * them: BS bypassed, BN a register add and multiply at most, no EW or
	 * LUT */
	if (!r && (d->int_in || d->int_out) &&
	    (!d->bs.bypass || (!d->bn.bypass && (d->bn.relu || d->bn.relux)) ||
	     (d->ew && (d->ew_op || d->ew_cvt || d->ew_relu || d->ew_relux)) || d->lut ||
	     d->fp16_path))
		r = sim_refuse(c, "DPU precision conversion (A41): modelled with BS bypassed, BN "
				  "an add and a multiply at most, EW and the LUT bypassed, fp16 data "
				  "through mrdma_fp16tofp32_en");
	d->bs.fp16 = d->bn.fp16 = d->fp16_path;
	if (!r)
		r = parse_out_cvt(c, d);
	if (!r && d->in_prec == NPU_PREC_INT4 &&
	    (!d->bs.bypass || !d->bn.bypass || d->ew || d->cvt_scale != 1 || d->cvt_shift ||
	     d->cvt_offset))
		r = sim_refuse(c, "DPU on int4 sums: only BS, BN and EW bypassed with OUT_CVT "
				  "scale 1, shift 0, offset 0 (the board-run int4 matmul) is "
				  "modelled");
	return r;
}

int sim_exec_dpu(struct sim_core *c, uint32_t en, const struct sim_cube *from_core,
		 bool write_ok, struct sim_cube *out, bool *to_ppu)
{
	struct dpu d = { 0 };
	struct sim_cube mrdma = { 0 };
	const struct sim_cube *in = from_core;
	unsigned mode = EFLD(c, DPU, FEATURE_MODE_CFG, OUTPUT_MODE);
	int r;

	*to_ppu = false;
	r = parse_dpu(c, en, from_core, &d);
	if (!r)
		r = parse_bias(c, en, &d);
	/* A DPU-only task's work is its elements (the CORE's was charged). */
	if (!r && !from_core && sim_charge(c, (uint64_t)d.w * d.h * d.ch))
		r = SIM_EXEC_STALL;
	if (!r && !from_core) {
		r = load_mrdma(c, &d, &mrdma);
		in = &mrdma;
	}
	if (!r && !(mode & (NPU_DPU_OUT_TO_MEMORY | NPU_DPU_OUT_TO_PPU)))
		r = sim_refuse(c, "DPU FEATURE_MODE_CFG.output_mode 0: output goes nowhere");
	if (!r && d.int_out && (mode & NPU_DPU_OUT_TO_PPU))
		r = sim_refuse(c, "DPU float data out as int8 (A41) is modelled only to memory");
	if (!r)
		r = sim_cube_alloc(c, out, SIM_SCR_DPU_OUT, d.ch, d.h, d.w, d.is_float);
	if (r)
		return r;
	out->prec = d.out_prec;
	if (d.is_float)
		dpu_float(&d, in, out);
	else
		dpu_int(&d, in, out);
	if ((mode & NPU_DPU_OUT_TO_MEMORY) && write_ok)
		r = write_output(c, &d, out, from_core ? core_kernel_group(c) : 0);
	*to_ppu = mode & NPU_DPU_OUT_TO_PPU;
	return r;
}
