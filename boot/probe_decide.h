/* SPDX-License-Identifier: MIT */
/*
 * The decisions of the board probes (boot/probe.c), without the NPU: for
 * each probe, what the NPU's output would be under each reading in play
 * (computed on the CPU from the probe's data) and the pick of the one
 * reading every result matches. Portable C, host-tested
 * (tests/unit/test_probe_decide.c runs each decision on outputs computed per
 * reading and checks that it names that reading).
 */
#ifndef RKBARE_BOOT_PROBE_DECIDE_H
#define RKBARE_BOOT_PROBE_DECIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* probe_pick() results besides a reading's index. */
#define PROBE_NONE		(-1)	/* no reading explains every result */
#define PROBE_AMBIGUOUS		(-2)	/* the data does not tell two readings apart */
#define PROBE_MAX_READINGS	5u

/* The one reading whose matches equal total; matches[h] counts the results
 * reading h explains. */
int probe_pick(const unsigned int *matches, unsigned int readings, unsigned int total);

/* What a result is under reading h, the i-th of a probe (ctx: its data). */
typedef int64_t (*probe_int_fn)(const void *ctx, int h, size_t i);
typedef float (*probe_float_fn)(const void *ctx, int h, size_t i);

/* Match got[0..n) against each of `readings` readings, exactly (ints) or
 * within one fp16 unit in the last place (floats; infinities must agree,
 * NaN matches nothing); matches (may be NULL) gets the counts. */
int probe_decide_int(const void *ctx, probe_int_fn f, unsigned int readings,
		     const int64_t *got, size_t n, unsigned int *matches);
int probe_decide_float(const void *ctx, probe_float_fn f, unsigned int readings,
		       const float *got, size_t n, unsigned int *matches);
bool probe_f16_close(float got, float want);

/* ---- A12-ties: an int8 OUT_CVT requantising acc / 2 (cvt_round 0) ---- */
enum { TIES_EVEN, TIES_UP, TIES_READINGS };
int64_t probe_ties_expect(const void *acc /* int32_t[] */, int h, size_t i);

/* ---- A15-ties: an int8 2x2 average of window sums 2 mod 4 ---- */
enum { PTIES_UP, PTIES_EVEN, PTIES_AWAY, PTIES_FLOOR, PTIES_READINGS };
int64_t probe_pool_ties_expect(const void *sum /* int32_t[] */, int h, size_t i);

/* ---- A15-avg3: an int8 k×k average, sum × R² / 2^32 with R the nearest
 * integer to 2^16 / k, the product rounded to nearest (halves up) or
 * floored ---- */
enum { AVG_NEAREST, AVG_FLOOR, AVG_READINGS };
struct probe_avg {
	const int32_t *sum;		/* window sums */
	unsigned int k;
};
int64_t probe_avg_expect(const void *avg, int h, size_t i);

/* ---- the EW multiply by a 32-bit per-channel operand (A12-ew-round, A37) ---- */
struct probe_ew_mul {
	const int32_t *acc;		/* per result: the accumulator (bias included) */
	const int32_t *mult;		/* per result: its channel's operand */
	unsigned int shift;		/* EW_CVT_SCALE_VALUE.ew_truncate */
};
/* Rounding of the truncation (A12): exact halves up, to even, or floor. */
enum { EWR_UP, EWR_EVEN, EWR_FLOOR, EWR_READINGS };
int64_t probe_ew_round_expect(const void *ew, int h, size_t i);
/* Product width (A37): exact 64-bit, wrapped to 32 bits before the shift,
 * or the operand's low 16 bits (signed) only. */
enum { EWM_WIDE, EWM_WRAP32, EWM_OP16, EWM_READINGS };
int64_t probe_ew_mul_expect(const void *ew, int h, size_t i);
/* Results past int32 (A37): saturated, or wrapped to their low 32 bits. */
enum { EWS_SAT, EWS_WRAP, EWS_READINGS };
int64_t probe_ew_sat_expect(const void *ew, int h, size_t i);

/* The operands (one per channel, k of them) and the shift of the probes
 * above: 1..7 >> 2 (a quarter of the products on a half: A12-ew-round),
 * (2k + 1)·2^20 >> 20 (products past 2^32, exact results, operands whose
 * low 16 bits are 0: A37-ew-mul), (k + 1)·2^16 >> 0 (results past int32:
 * A37-ew-sat). Returns the shift. */
enum probe_ew_kind { PROBE_EW_ROUND, PROBE_EW_WIDTH, PROBE_EW_SAT };
unsigned int probe_ew_operands(enum probe_ew_kind kind, int32_t *mult, unsigned int k);

/* ---- A28: how BRDMA's words become channel k's fp32 operand: as fp32, as
 * an int32 value, as the k-th fp16 halfword of the buffer, or not at all ---- */
enum { BIAS_FP32, BIAS_INT32, BIAS_FP16, BIAS_IGNORED, BIAS_READINGS };
float probe_bias_word(const float *words, int h, unsigned int k);

/* ---- expectation tables: reading h of result i given directly ---- */
struct probe_table {
	const int64_t *const *want;	/* want[h][i] */
};
int64_t probe_table_expect(const void *table, int h, size_t i);
struct probe_ftable {
	const float *const *want;
};
float probe_ftable_expect(const void *table, int h, size_t i);

/* ---- int8 convolutions on the CPU: x NCHW, w OHWI, stride 1, padding
 * cells holding pad; Σ x'·w per output (k, y, x), NCHW ---- */
struct probe_conv8 {
	const int8_t *x, *w;
	unsigned int c, h, w_, k, kh, kw, pad;	/* pad on every side */
	int32_t pad_value;
};
int64_t probe_conv8_acc(const struct probe_conv8 *cv, unsigned int k, unsigned int oy,
			unsigned int ox);
/* Σ of the input window over its c channels, each padding cell counting
 * pad_value in pad_lanes lanes (0: padding left out). */
int64_t probe_conv8_window_sum(const struct probe_conv8 *cv, unsigned int oy, unsigned int ox,
			       unsigned int pad_lanes);
/* Outputs per conv: k × oh × ow with oh = h + 2·pad − kh + 1. */
size_t probe_conv8_outputs(const struct probe_conv8 *cv);

/* ---- A10-half-atom: a 1x1 int8 conv with datain_channel 8 ---- */
enum { HALF_FIRST_LANES, HALF_PACKED, HALF_READINGS };
struct probe_half_atom {
	const int8_t *mem;		/* the input buffer as the NPU reads it */
	const int8_t *w;		/* [k][8] */
	unsigned int pixels, k;
};
/* output NCHW (k, pixel): first-lanes reads pixel p's channel c at byte
 * 16·p + c (NC1HWC2, lanes 8-15 unused), packed at 8·p + c. */
int64_t probe_half_atom_expect(const void *ha, int h, size_t i);

/* ---- fp16 depthwise 3x3 (A29, A38): weights read from the packed buffer
 * at a reading's index, input read at a reading's row pitch ---- */
/* DW_GROUPS32: blocks of 32 channels, [C/32][kh][kw][32] (A29 beyond 32
 * channels a task); DW_SPATIAL with lanes = C is [kh][kw][C]. */
enum { DW_SPATIAL, DW_CHANNEL_MAJOR, DW_LANES32, DW_EVEN_PITCH, DW_GROUPS32 };
struct probe_dw {
	const float *x;			/* NCHW, c × h × w */
	const float *wbuf;		/* the packed weight buffer, as floats */
	size_t wbuf_len;		/* elements readable (zeros past the packed bytes) */
	unsigned int c, h, w, lanes, pad;
	const int *readings;		/* reading index → DW_* layout */
};
float probe_dw_expect(const void *dw, int h, size_t i);

/* ---- A35: the DPU lookup table (sim/ASSUMPTIONS.md A35). Inputs and
 * outputs in quarter units (value × 4: every probe's inputs and every
 * reading's outputs are multiples of 1/4) ---- */
struct probe_lut_table {
	int32_t start, end;		/* the covered inputs, in LUT units */
	unsigned int sel;		/* index select: 2^sel units per entry */
	int32_t uflow_scale, oflow_scale;	/* signed 16-bit slopes */
	unsigned int uflow_shift, oflow_shift;
	const uint16_t *t;		/* the entries as written */
};
enum probe_lut_question {
	PROBE_LUT_ROUND, PROBE_LUT_SIGN, PROBE_LUT_INTERP, PROBE_LUT_SELECT, PROBE_LUT_MUX
};
struct probe_lut {
	struct probe_lut_table tab[2];	/* LE, LO */
	unsigned int hybrid, oflow, uflow;	/* LUT_CFG priorities: 0 LE, 1 LO */
	const int32_t *xq;		/* the inputs, × 4 */
	enum probe_lut_question q;	/* which readings h names */
};
/* A35-lut-round: the float input rounded to an integer ties to even, half
 * up, floored, or not rounded (its fraction interpolates). */
enum { LUTR_EVEN, LUTR_UP, LUTR_FLOOR, LUTR_FRACTION, LUTR_READINGS };
/* A35-lut-sign: entries signed or unsigned 16-bit. */
enum { LUTS_SIGNED, LUTS_UNSIGNED, LUTS_READINGS };
/* A35-lut-interp: T[i] + (T[i+1] - T[i])·frac / 2^sel rounded half up,
 * floored, ties to even, or kept exact (a fractional output). */
enum { LUTI_UP, LUTI_FLOOR, LUTI_EVEN, LUTI_EXACT, LUTI_READINGS };
/* A35-lut-select: priority bit 0 = LE, 1 = LO with slopes rounded half up
 * (the model), the bit's meaning swapped, slopes floored, or out-of-range
 * inputs clamped to the end entry (slopes unused). */
enum { LUTP_MODEL, LUTP_SWAPPED, LUTP_SLOPE_FLOOR, LUTP_CLAMP, LUTP_READINGS };
/* A35-lut-mux, per lo_le_mux value: the table the priorities pick (as
 * lo_le_mux 2), LE for every input, or LO for every input (the model's
 * slopes past a table's ends). Not readings: the classes of one run. */
enum { LUTM_AS_2, LUTM_LE, LUTM_LO, LUTM_CLASSES };
/* Output i × 4 under reading h of the probe's question. */
int64_t probe_lut_expect(const void *lut, int h, size_t i);
/* A35-lut-mux: the class of the runs with lo_le_mux 0, 1 and 3 (LUTM_*, or
 * negative: failed or no class). Readings: values other than 2 give no
 * table (only-2: the model refuses them), every value acts as 2 (same),
 * 0 = LE and 1 = LO (le0-lo1), 0 = LO and 1 = LE (lo0-le1); 3 free in the
 * last two. */
enum { LUTX_MUX0, LUTX_MUX1, LUTX_MUX3, LUTX_RUNS };
enum { LUTX_ONLY2, LUTX_SAME, LUTX_LE0_LO1, LUTX_LO0_LE1, LUTX_READINGS };
int probe_lut_mux_pick(const int cls[LUTX_RUNS]);

/* ---- A35-lut-read: LUT_ACCESS_CFG type 0 (read) at addr[tab] of table
 * tab, then `reads` MMIO reads of LUT_ACCESS_DATA (low 16 bits), LE then
 * LO. Readings: each read the next entry (NVDLA's auto-increment: the
 * model), the addressed entry every time, or 0. ---- */
enum { LUTB_NEXT, LUTB_SAME, LUTB_ZERO, LUTB_READINGS };
struct probe_lut_read {
	const uint16_t *t[2];		/* the entries uploaded, LE and LO */
	unsigned int addr[2];
	unsigned int reads;
};
int64_t probe_lut_read_expect(const void *rd, int h, size_t i);

/* ---- A35-lut-int: the LUT on int8 data (rkbare's int8 tables: LE and LO
 * both −128..127 at one entry a value, lower_lut_int8), every int8 value
 * once. Readings: X the int8 value itself (NVDLA's: the model), the byte
 * read unsigned (0..255: the negative ones past the end, its entry), or
 * the value shifted up 8 bits (only 0 in range: the first or last entry
 * beside it). Outputs int8, the entries within int8. ---- */
enum { LUTN_INTEGER, LUTN_UNSIGNED, LUTN_SHIFTED, LUTN_READINGS };
struct probe_lut_int {
	const int8_t *x;		/* the inputs */
	const uint16_t *t;		/* 256 entries as written, i for value i − 128 */
};
int64_t probe_lut_int_expect(const void *ctx, int h, size_t i);

/* ---- A41: precision conversions in the DPU, through rkbare's scale task
 * (BN multiplying by an fp16 factor, the EW stage bypassed) ---- */
/* A41-int8-fp16: each int8 q into fp16; every reading predicts the output
 * fp16((q − zp) · factor) (factor exact in fp16, the product too), as fp16
 * bits, and the readings differ in which task gives it. Cases: the
 * converting task (in int8 / proc fp16 / out fp16) gives every output so,
 * the same task with proc_precision int8 does, the converting task with a
 * zero point (BN's ALU adding −zp, an fp32 operand, before its MUL) does (a
 * job that fails does not). Readings: converted (the first and the third
 * case: the model, which refuses the second), proc-int8 (the second only),
 * no-zero-point (the first but not the third). */
enum { CVI_CASE_PROC_FP16, CVI_CASE_PROC_INT8, CVI_CASE_ZP, CVI_CASES };
enum { CVI_CONVERTED, CVI_PROC_INT8, CVI_NO_ZP, CVI_READINGS };
struct probe_cvt_in {
	const int8_t *q;
	float factor;
	int32_t zp;
};
uint16_t probe_cvt_in_want(const struct probe_cvt_in *c, size_t i);
int probe_cvt_in_pick(const bool seen[CVI_CASES]);
/* A41-fp16-int8: fp16 x into int8 through BN × factor; pq: each product
 * x · factor in quarter units (exact in fp32). The product rounded to an
 * integer with halves to even (the model: OUT_CVT cvt_round 0), halves up,
 * halves away from zero, floored, or truncated toward zero; every reading
 * saturates to int8. */
enum { CVO_EVEN, CVO_HALF_UP, CVO_AWAY, CVO_FLOOR, CVO_TRUNCATE, CVO_READINGS };
int64_t probe_cvt_out_expect(const void *pq /* int32_t[] */, int h, size_t i);

/* ---- A36-inherit: an fp16 add as elementwise.py writes it (op_cvt_bypass
 * 0), once over the reset values (BS_CFG, BN_CFG, EW_CVT 0) and once each
 * with BS/BN bypassed and EW_CVT scale 0, 1 and 0x3C00; sums[c] says whether
 * case c gave the sums. Readings: only scale 1 adds (inherited: the model),
 * a zero EW_CVT scale passes the operand through but the reset BS/BN state
 * computes (scale-inert), every zero multiplier passes through (zero-inert),
 * the scale is an fp16 number (fp16-scale). ---- */
enum { INH_CASE_RESET, INH_CASE_SCALE0, INH_CASE_SCALE1, INH_CASE_FP16_ONE, INH_CASES };
enum { INH_INHERITED, INH_SCALE_INERT, INH_ZERO_INERT, INH_FP16_SCALE, INH_READINGS };
int probe_inherit_pick(const bool sums[INH_CASES]);
/* ---- A40-int4: int4 × int4 sums written as int16 ---- */
enum { I4_SATURATE, I4_WRAP, I4_READINGS };
/* sums: the exact int32 sums; saturate clamps them to int16, wrap keeps
 * their low 16 bits. */
int64_t probe_int4_expect(const void *sums /* int32_t[] */, int h, size_t i);

/* ---- A21-stages: fp16 data with both conversion bits 0 (the board's
 * divide) through a BN add of bn and the EW add of a per-pixel operand;
 * values in quarter units (× 4). Readings: each operation's result rounded
 * to fp16 (per-stage: the model), or fp32 inside with one rounding at the
 * output (fp32). ---- */
enum { STG_FP16, STG_FP32, STG_READINGS };
struct probe_stages {
	const int32_t *xq, *eq;		/* the input and the EW operand, × 4 */
	int32_t bnq;			/* the BN ALU operand, × 4 */
};
int64_t probe_stages_expect(const void *st, int h, size_t i);

/* The one reading whose pattern of cases equals seen (patterns: readings ×
 * cases, row-major, true where that reading predicts the case's outcome). */
int probe_pattern_pick(const bool *seen, const bool *patterns, unsigned int readings,
		       unsigned int cases);

/* ---- A40-int32: the int4 stream with DPU out_precision int32 on sums of
 * 65536; cases: every int32 word of the output 65536, none is (or the job
 * failed). Readings: int16 only (the model refuses it), int32 written. ---- */
enum { I4W_ALL, I4W_NONE, I4W_CASES };
enum { I4W_INT16_ONLY, I4W_INT32, I4W_READINGS };
int probe_i4_int32_pick(const bool seen[I4W_CASES]);

/* ---- A40-entries: M = 4 along the width, K = 96; cases: the sums right
 * with DATA_ENTRIES ⌈M·K/128⌉ = 3, right with M·⌈K/128⌉ = 4. Readings:
 * dense (3 only: the model), per-pixel (4 only: RKMM's), either. ---- */
enum { I4E_DENSE_OK, I4E_PIXEL_OK, I4E_CASES };
enum { I4E_DENSE, I4E_PIXEL, I4E_EITHER, I4E_READINGS };
int probe_i4_entries_pick(const bool seen[I4E_CASES]);

/* ---- A40-last-group: int4 C = A·B with N = 96 (a last kernel group of 32),
 * B in buffers packed each way; output i of run r is C[m][n] of the
 * buffer bbuf[r] read in reading h's layout: the last group dense (32
 * kernels apart: the model) or padded to 64 kernels. (N/64, K/32, 64, 32)
 * otherwise; nibbles past bbuf_nibbles read 0; sums saturated to int16. ---- */
enum { I4G_DENSE, I4G_PADDED, I4G_READINGS };
struct probe_i4_group {
	const int8_t *a;		/* M × K */
	const uint8_t *const *bbuf;	/* per run, two nibbles a byte, low first */
	size_t bbuf_nibbles;
	unsigned int m, k, n;
};
/* Nibble index of B[k][n] in reading h's layout. */
size_t probe_i4_b_index(int h, unsigned int k_total, unsigned int n_total, unsigned int k,
			unsigned int n);
int64_t probe_i4_group_expect(const void *g, int h, size_t i);

/* ---- A30-int16-acc: int16 × int16 sums written int32 (sums: the exact
 * 64-bit sums): saturated to int32 (wide: the model), wrapped to 32 bits,
 * or wrapped to 34 bits (NVDLA's int8 accumulator width) then saturated.
 * Wrapping is order-free, so no reading depends on the summation order. ---- */
enum { ACC_WIDE, ACC_WRAP32, ACC_WRAP34, ACC_READINGS };
int64_t probe_acc16_expect(const void *sums /* int64_t[] */, int h, size_t i);

/* ---- §9.16 bf16-out: an fp16 matmul's DPU with out_precision bf16 (3) and
 * fp32tofp16_en 0, sums exact in bf16 and fp16 (sums: as floats). Reading
 * 0 (no bf16) is a job that does not complete (the model refuses it) and
 * predicts no value; otherwise each output is the sum's bf16 (the top half
 * of its fp32) or its fp16. ---- */
enum { BF_NO_BF16, BF_BF16, BF_FP16, BF_READINGS };
int64_t probe_bf16_expect(const void *sums /* float[] */, int h, size_t i);

/* ---- §9.19 dilation: an int8 3×3 convolution (no padding, int32 out)
 * with CNA CONV_CON3 atrous dilation `field` on both axes, compared on the
 * top-left region × region outputs whose windows stay inside the input
 * under every reading. Reading 0 (unsupported) is a job that does not
 * complete (the model refuses dilation) and predicts no value; otherwise
 * taps field, field + 1 or 1 (ignored) pixels apart. Result i is (k, ry,
 * rx), k-major. ---- */
enum { DIL_UNSUPPORTED, DIL_FIELD, DIL_FIELD1, DIL_IGNORED, DIL_READINGS };
struct probe_dil {
	const int8_t *x, *w;		/* NCHW, OHWI */
	unsigned int c, h, w_, k, region, field;
};
int64_t probe_dil_expect(const void *dil, int h, size_t i);
/* ---- probes of a change against its control (boot/probe_pc.c): the
 * changed jobs give the control's results (reading 0: the change is
 * ignored, or the one-pass form works) or some do not (reading 1) ---- */
enum { CHANGE_NONE, CHANGE_MATTERS, CHANGE_READINGS };
/* control_ok: every result of the control right; case_ok[i]: of case i (a
 * job that did not complete is not ok). PROBE_NONE when the control is not. */
int probe_change_pick(bool control_ok, const bool *case_ok, size_t cases);

/* ---- A4-dma-base: a conv job with TASK_DMA_BASE_ADDR = B, its data at the
 * addresses the stream names and, different, B bytes on. Results 0..n-1:
 * the outputs the stream names; n..2n-1: those B bytes on. offset: the
 * copies' sums B on, the named outputs untouched; ignored: the named data's
 * sums where named, the others untouched ---- */
enum { DMAB_OFFSET, DMAB_IGNORED, DMAB_READINGS };
struct probe_dma_base {
	const int32_t *named;		/* sums of the data at the named addresses */
	const int32_t *moved;		/* sums of the copies B bytes on */
	size_t n;			/* outputs per copy */
	int32_t untouched;		/* what an output no task wrote holds */
};
int64_t probe_dma_base_expect(const void *db, int h, size_t i);

/* ---- A6-fall-through: two tasks back to back, the first one's tail
 * writing no PC register, TASK_CON asking for two: the PC runs the first
 * task again (repeat: BASE_ADDRESS unchanged), goes on to the next address
 * (falls-through), or stops after one task ---- */
enum { FALL_REPEAT, FALL_THROUGH, FALL_STOPS, FALL_READINGS };
enum probe_out { PROBE_OUT_EXACT, PROBE_OUT_UNTOUCHED, PROBE_OUT_WRONG };
struct probe_fall_seen {
	bool completed;			/* the kick's completion was seen */
	unsigned int tasks_done;	/* TASK_STATUS at completion */
	enum probe_out first, second;	/* each task's output */
};
int probe_fall_pick(const struct probe_fall_seen *s);

/* ---- irq-bits (HARDWARE.md §9.3): RAW_STATUS after completed tasks,
 * none of bits 14-16 and 30-31 set (clear) or some (set) ---- */
#define PROBE_IRQ_UNDOCUMENTED	0xC001C000u
enum { IRQ_CLEAR, IRQ_SET, IRQ_READINGS };
int probe_irq_pick(const uint32_t *raw, size_t n);

/* ---- A33: a 1x1 fp16 convolution of ARGB input (argb_in = 7 + n): pixels
 * of n channels packed in memory, the CNA's 8 lanes, rows `line` pixels
 * apart. Output i is NCHW (kernel, y, x). Readings: the lanes past n read
 * as 0 (ARGB_ZEROS: the model), read on in memory (ARGB_MEMORY: the
 * following pixel's values), or rows read back to back whatever
 * LINE_STRIDE says (ARGB_BACK_TO_BACK, lanes past n as 0) ---- */
enum { ARGB_ZEROS, ARGB_MEMORY, ARGB_BACK_TO_BACK };
#define PROBE_ARGB_LANES	8u
struct probe_argb {
	const float *mem;		/* the input buffer, fp16 values in order */
	size_t mem_len;			/* values readable (past: 0) */
	const float *w;			/* [kernel][PROBE_ARGB_LANES] */
	unsigned int n, width, height, kernels, line;
	const int *readings;		/* reading index → ARGB_* */
};
float probe_argb_expect(const void *argb, int h, size_t i);

#endif /* RKBARE_BOOT_PROBE_DECIDE_H */
