/* SPDX-License-Identifier: MIT */
/*
 * Interfaces between the execution stages of the model (exec*.c).
 */
#ifndef RKBARE_SIM_EXEC_H
#define RKBARE_SIM_EXEC_H

#include <string.h>

#include "sim/sim_internal.h"

/* Register of the executing group, by block name and register name. */
#define EREG(c, BLK, REG) sim_exec_reg((c), NPU_BLOCK_##BLK, NPU_##BLK##_##REG)
#define EFLD(c, BLK, REG, FLD) NPU_FG(BLK, REG, FLD, EREG(c, BLK, REG))

/*
 * A data cube between stages, channel-major [c][h][w]: integer values
 * (accumulators, requantised outputs) or float values (fp16/fp32 paths).
 */
struct sim_cube {
	unsigned c, h, w;
	bool is_float;
	int prec;		/* precision code of the values (HARDWARE.md §4.1) */
	int64_t *i;
	float *f;
};

static inline size_t sim_cube_at(const struct sim_cube *q, unsigned ch,
				 unsigned y, unsigned x)
{
	return ((size_t)ch * q->h + y) * q->w + x;
}

/* A cube in a scratch slot, valid until the slot is used again. Not zeroed:
 * its producer writes every element. */
int sim_cube_alloc(struct sim_core *c, struct sim_cube *cube, enum sim_scratch_slot slot,
		   unsigned ch, unsigned h, unsigned w, bool is_float);

/* CPU pointer for a DMA range, or an error result with a diagnostic. */
int sim_dma_range(struct sim_core *c, uint64_t addr, uint64_t len, bool write,
		  const char *what, uint8_t **out);

/* Record why a register combination is refused; returns the error result. */
int sim_refuse(struct sim_core *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Bytes per element of a precision code, 0 if the model has no data path. */
unsigned sim_prec_bytes(int prec);

static inline int64_t sim_sat(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static inline int64_t sim_sat32(int64_t v)
{
	return sim_sat(v, INT32_MIN, INT32_MAX);
}

/* The signed value of a bits-wide two's-complement register field. */
static inline int64_t sim_sign_extend(uint32_t v, unsigned bits)
{
	uint32_t sign = 1u << (bits - 1);

	return (int64_t)(v ^ sign) - (int64_t)sign;
}

/* Arithmetic right shift rounding half up (ASSUMPTIONS.md A12). */
static inline int64_t sim_round_shift(int64_t v, unsigned shift)
{
	if (!shift)
		return v;
	if (shift > 62)
		return 0;	/* |v| < 2^62: rounds to zero */
	return (v + ((int64_t)1 << (shift - 1))) >> shift;
}

/*
 * The converters' rounding of an exact half (CNA CVT_CON0.round_type, CORE
 * CLIP_TRUNCATE.round_type, DPU cvt_round / ew_cvt_round; TRM): 0 = "if
 * the integer is odd, carry 1" (ties to even), 1 = "carry 1 no matter what
 * the integer is" (ties up). Other fractions round to nearest. A12.
 */
static inline int64_t sim_round_shift_mode(int64_t v, unsigned shift, bool ties_up)
{
	int64_t q, rem, half;

	if (!shift)
		return v;
	if (shift > 62)
		return 0;	/* |v| < 2^62: rounds to zero */
	q = v >> shift;
	rem = v - q * ((int64_t)1 << shift);
	half = (int64_t)1 << (shift - 1);
	if (rem > half || (rem == half && (ties_up || (q & 1))))
		q++;
	return q;
}

/* Stage entry points. */
int sim_exec_conv(struct sim_core *c, struct sim_cube *acc);
int sim_exec_dpu(struct sim_core *c, uint32_t en, const struct sim_cube *from_core,
		 bool write_output, struct sim_cube *out, bool *to_ppu);
int sim_exec_ppu(struct sim_core *c, uint32_t en, const struct sim_cube *from_dpu,
		 bool write_output);

/* Element load/store in memory for a precision code. */
float sim_load_float(const uint8_t *p, int prec);
void sim_store_float(uint8_t *p, int prec, float v);

/* The integer ones sit in the data path's inner loops: inline, so the
 * compiler takes the precision switch out of the loop. */
static inline int64_t sim_load_int(const uint8_t *p, int prec)
{
	int16_t v16;
	int32_t v32;

	switch (prec) {
	case NPU_PREC_INT8:
		return (int8_t)p[0];
	case NPU_PREC_INT16:
		memcpy(&v16, p, sizeof(v16));
		return v16;
	default:
		memcpy(&v32, p, sizeof(v32));
		return v32;
	}
}

static inline void sim_store_int(uint8_t *p, int prec, int64_t v)
{
	int16_t v16 = (int16_t)v;
	int32_t v32 = (int32_t)v;

	switch (prec) {
	case NPU_PREC_INT8:
		p[0] = (uint8_t)(int8_t)v;
		break;
	case NPU_PREC_INT16:
		memcpy(p, &v16, sizeof(v16));
		break;
	default:
		memcpy(p, &v32, sizeof(v32));
		break;
	}
}


#endif /* RKBARE_SIM_EXEC_H */
