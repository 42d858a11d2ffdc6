/* SPDX-License-Identifier: MIT */
/*
 * The DPU-only ("flying") tasks (HARDWARE.md §3.4 enable DPU + DPU_RDMA;
 * §4.4-4.5): element-wise add (int8, fp16) and fp16 multiply of two maps,
 * an fp16 map through the lookup table, an fp16 map scaled by a power of
 * two. The first operand comes in through MRDMA, a second through ERDMA
 * per pixel. The quantised add:
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

/* The cube a flying task streams: h × w × c values from in_addr (through
 * MRDMA) to out_addr. */
struct lower_cube {
	unsigned int h, w, c;
	uint32_t in_addr, out_addr;
};

/* The flying tasks' cube: each extent 1..8192 (13-bit minus-one fields). */
#define LOWER_ELTWISE_MAX_DIM	8192u
bool lower_eltwise_dims_ok(unsigned int h, unsigned int w, unsigned int c);

/* Fixed-point bits of the common operand scale. */
#define ELTWISE_COMMON_BITS	14u

/* The EW stage's operation between the two operands. */
enum lower_ew_alu {
	LOWER_EW_ADD,		/* a + b */
	LOWER_EW_MUL,		/* a · b: fp16 only (EW op_type 1, as board-run
				 * elementwise.py's MUL) */
};

struct lower_add_op {
	/*
	 * NPU_PREC_INT8 (0, the default) as above; NPU_PREC_FP16: fp16
	 * operands, out = a + b (then ReLU), no quantisation fields: BS and BN
	 * bypassed, the EW ALU adding the ERDMA operand unconverted, fp32
	 * inside and FP32TOFP16 out (UNSURE A20, sim/ASSUMPTIONS.md).
	 */
	enum npu_precision prec;
	enum lower_ew_alu alu;
	/* fp16 only: a multiplied by a_factor in the BN stage first (0: not);
	 * a power of two within fp16's normal range, so the product is exact
	 * in the DPU's fp32 (the BN MUL operand is an fp16 number, A19). */
	float a_factor;
	unsigned int h, w, c;
	bool is_unsigned;		/* uint8 tensors, shifted to int8 in memory */
	float a_scale, b_scale, out_scale;
	int32_t a_zp, b_zp, out_zp;	/* in the tensors' own (u)int8 domain */
	enum lower_act act;		/* NONE, RELU or RELU6 */
	uint32_t a_addr, b_addr, out_addr;	/* int8 NC1HWC2, 16-byte aligned */
	/* fp16: it reads what the task before it writes, so a cut over cores
	 * keeps the two together (rc_task_after_previous) */
	bool after_previous;
};

/* The operand multipliers the lowering uses (for callers and tests). */
struct lower_add_params {
	int16_t a_mult, b_mult;
	struct quant_mult out_mult;
};

int lower_add_check(const struct lower_add_op *op, struct lower_add_params *params);

#define ELTWISE_TASK_MAX_ENTRIES	96u

int lower_add(struct rc_program *p, const struct lower_add_op *op);

/*
 * A function of fp16 values through the DPU lookup table (HARDWARE.md
 * §4.4, sim/ASSUMPTIONS.md A35) as one flying task, as board-run silu.py
 * runs SiLU: x enters the DPU's fp32 path, BN multiplies it by in_scale
 * (the table's input units), the EW stage rounds it to an integer X and
 * looks it up (two tables LE and LO of signed 16-bit entries, index
 * (X − start) >> select, linear interpolation, slopes outside), and the
 * integer result leaves as fp16: out = f(x) · out_scale, out_scale the
 * entries' scale, which OUT_CVT cannot undo on float data (the consumer
 * does). The caller keeps LUT tasks apart: the table is one per core while
 * the PC may program the next task's registers, the upload included,
 * during the run of the one before (HARDWARE.md §4.4).
 */
struct lower_lut_table {
	int32_t start, end;		/* X range; end − start < 513 << select */
	unsigned int select;		/* index = (X − start) >> select */
	int16_t uflow_scale, oflow_scale;	/* slopes below start / above end */
	unsigned int uflow_shift, oflow_shift;
	int16_t t[NPU_LUT_ENTRIES];
};

struct lower_lut {
	struct lower_lut_table tab[NPU_LUT_TABLES];	/* NPU_LUT_TABLE_LE, _LO */
	/* the table taking X when inside both, over both, under both */
	unsigned int hybrid, oflow, uflow;
	/* x → X units: a power of two (fp16 exact), or 0: BN bypassed, X = x */
	float in_scale;
};

/* Entries a table's range reaches (those the task uploads; past
 * NPU_LUT_ENTRIES: NPU_LUT_ENTRIES + 1). end ≥ start. */
unsigned int lower_lut_entries(const struct lower_lut_table *tab);

/* Fill tab->t from f for its range: entry i = f((start + (i << select)) /
 * in_scale) · out_scale rounded half away from zero, saturated to int16;
 * in_scale is X units per unit of x (1 when BN is bypassed). */
void lower_lut_fill(struct lower_lut_table *tab, float in_scale, double out_scale,
		    double (*f)(double x, const void *ctx), const void *ctx);

struct lower_lut_op {
	unsigned int h, w, c;
	const struct lower_lut *lut;
	uint32_t in_addr, out_addr;	/* NC1HWC2, 16-byte aligned */
	/* int8 maps instead of fp16: the EW stage's X is the int8 value itself
	 * (BN bypassed, in_scale 0) and the result leaves through OUT_CVT as
	 * int8, saturated (sim/ASSUMPTIONS.md A35, UNSURE: no board-run stream
	 * feeds the LUT integers; board probe A35-lut-int) */
	bool int8;
};

/* Registers a LUT task writes at most (its entries and the rest). */
#define LUT_TASK_MAX_ENTRIES	(ELTWISE_TASK_MAX_ENTRIES + 2u * NPU_LUT_ENTRIES)

int lower_lut_check(const struct lower_lut_op *op);
int lower_lut(struct rc_program *p, const struct lower_lut_op *op);

/* Values an int8 map takes, and so the entries of a table of them. */
#define LOWER_LUT_INT8_VALUES	256u

/*
 * The LUT of an int8 table (lower_lut_op.int8): entry i the output for
 * input value i − 128, as the CPU's Lut (runtime/cpu_ops.h) holds it. LE
 * covers −128..127 at one entry a value, so every input lands on an entry
 * and no interpolation or slope is reached; LO holds the same entries, so
 * the priorities do not matter either.
 */
void lower_lut_int8(const int8_t table[LOWER_LUT_INT8_VALUES], struct lower_lut *lut);

/* Registers an int8 table's task writes at most: both tables' entries. */
#define LUT_INT8_TASK_MAX_ENTRIES	(ELTWISE_TASK_MAX_ENTRIES + 2u * LOWER_LUT_INT8_VALUES)

/* out = x · factor as one flying task: BN multiplying by the fp16 number
 * `factor`, the EW stage bypassed. Without a conversion, fp16 maps and a
 * power of two (exact): how a table task's integer result is brought back
 * to its value. With one (sim/ASSUMPTIONS.md A41, UNSURE: no board-run
 * stream converts precisions in the DPU; board probes A41-int8-fp16 and
 * A41-fp16-int8), any factor within fp16's normal range, rounded to fp16:
 *   LOWER_SCALE_INT8_TO_FP16  int8 q in, fp16((q − zp) · fp16(factor))
 *                             out (in_precision int8, proc fp16: the
 *                             integer enters the fp32 pipeline exactly)
 *   LOWER_SCALE_FP16_TO_INT8  fp16 x in, (x + zp / fp16(factor)) ·
 *                             fp16(factor) in fp32 — x · fp16(factor) + zp
 *                             but for fp32 roundings — rounded to the
 *                             nearest integer (halves to even, OUT_CVT's
 *                             cvt_round 0), saturated to int8
 * zp, the int8 side's zero point, is BN's ALU add before its MUL (an fp32
 * operand on float data, A28); 0 leaves the ALU bypassed. */
enum lower_scale_conv {
	LOWER_SCALE_FP16 = 0,
	LOWER_SCALE_INT8_TO_FP16,
	LOWER_SCALE_FP16_TO_INT8,
};

struct lower_scale_op {
	unsigned int h, w, c;
	float factor;
	enum lower_scale_conv conv;
	int32_t zp;			/* conversions: the int8 side's zero point */
	uint32_t in_addr, out_addr;	/* NC1HWC2, 16-byte aligned */
	bool after_previous;		/* as lower_add_op's */
};

/* Its cube, conversion, zero point and factor are ones the task takes
 * (quietly: lower_scale_check says which is not). */
bool lower_scale_fits(const struct lower_scale_op *op);

/* The conversion of an h × w × c map whose int8 side has real = scale ·
 * (q − zp): int8 to fp16 when `up` (factor scale), else fp16 to int8
 * (factor 1 / scale); addresses 0 — the caller's. lower_convert_fits: a
 * positive scale and lower_scale_fits. */
struct lower_scale_op lower_convert_op(float scale, int32_t zp, bool up, unsigned int h,
				       unsigned int w, unsigned int c);
bool lower_convert_fits(float scale, int32_t zp, bool up, unsigned int h, unsigned int w,
			unsigned int c);
int lower_scale_check(const struct lower_scale_op *op);
int lower_scale(struct rc_program *p, const struct lower_scale_op *op);

/*
 * The frame of a flying fp16 task whose stages the caller writes (the
 * board probes' hand-made ones, boot/probe.c): the task begun, the cube
 * from in_addr through MRDMA with the fp32 pair, to out_addr rounded once
 * to fp16; BS, BN, EW, EW_CVT, ERDMA and the LUT are the caller's, then
 * rc_task_end(p, NPU_EN_DPU | NPU_EN_DPU_RDMA, NPU_INT_DPU).
 */
void lower_fp16_flying_begin(struct rc_program *p, const struct lower_cube *cb);

#endif /* RKBARE_COMPILER_LOWER_ELTWISE_H */
