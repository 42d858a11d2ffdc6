/* SPDX-License-Identifier: MIT */
/*
 * Test-local helpers for the NPU model tests: a tiny regcmd encoder, the
 * PC kick sequence, NC1HWC2 / weight layouts and a convolution task
 * encoder, all written from HARDWARE.md (§2.5, §3, §4, §5) — not from
 * runtime/ (whose builder the model must be able to check) and not from
 * sim/.
 */
#ifndef RKBARE_TEST_SIM_UTIL_H
#define RKBARE_TEST_SIM_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "hal.h"
#include "rkbare/npu_regs.h"
#include "sim/sim_host.h"

#define T_CORE_BASE(n)	(0xFDAB0000u + (n) * 0x10000u)	/* HARDWARE.md §1.1 */
#define T_CRU_BASE	0xFD7C0000u
#define T_MEM		0x10000000u	/* host HAL DMA region */
#define T_STATUS_POLLS	64

static inline void *t_phys(uint32_t pa)
{
	return hal_host_phys_base() + pa;
}

static inline void t_w(unsigned core, uint16_t off, uint32_t v)
{
	hal_write32(T_CORE_BASE(core) + off, v);
}

static inline uint32_t t_r(unsigned core, uint16_t off)
{
	return hal_read32(T_CORE_BASE(core) + off);
}

/* ---- fixture: the model, powered at reset, behind the host MMIO seam ---- */

static struct sim_soc *t_soc;

static inline int t_setup(void **state)
{
	struct sim_config cfg = { .powered_at_reset = true };

	(void)state;
	t_soc = sim_host_attach(&cfg);
	return t_soc ? 0 : -1;
}

static inline int t_teardown(void **state)
{
	(void)state;
	sim_host_detach(t_soc);
	t_soc = NULL;
	return 0;
}

/* rknpu_fuzz_status() as HARDWARE.md §2.8 states it. */
static inline uint32_t t_fuzz(uint32_t s)
{
	uint32_t out = 0;

	for (unsigned pair = 0; pair < 6; pair++)
		if (s & (3u << (2 * pair)))
			out |= 3u << (2 * pair);
	return out;
}

/* ---- regcmd encoder ---- */

#define T_RC_MAX 256

struct t_rc {
	uint64_t q[T_RC_MAX];
	unsigned n;
};

static inline void t_rc_w(struct t_rc *rc, uint16_t target, uint16_t off, uint32_t v)
{
	assert_true(rc->n < T_RC_MAX);
	rc->q[rc->n++] = npu_rc_entry(target, v, off);
}

#define T_CNA(rc, REG, v)	t_rc_w(rc, NPU_CNA_TARGET, NPU_CNA_##REG, v)
#define T_CORE(rc, REG, v)	t_rc_w(rc, NPU_CORE_TARGET, NPU_CORE_##REG, v)
#define T_DPU(rc, REG, v)	t_rc_w(rc, NPU_DPU_TARGET, NPU_DPU_##REG, v)
#define T_RDMA(rc, REG, v)	t_rc_w(rc, NPU_DPU_RDMA_TARGET, NPU_DPU_RDMA_##REG, v)
#define T_PPU(rc, REG, v)	t_rc_w(rc, NPU_PPU_TARGET, NPU_PPU_##REG, v)
#define T_PRDMA(rc, REG, v)	t_rc_w(rc, NPU_PPU_RDMA_TARGET, NPU_PPU_RDMA_##REG, v)

/* The 4-qword tail (HARDWARE.md §3.3), padded to an even count (§3.6). */
static inline void t_rc_tail(struct t_rc *rc, uint32_t next_addr, uint32_t next_amount,
			     uint32_t enable)
{
	t_rc_w(rc, NPU_PC_TARGET, NPU_PC_BASE_ADDRESS, next_addr);
	t_rc_w(rc, NPU_PC_TARGET, NPU_PC_REGISTER_AMOUNTS, next_amount);
	rc->q[rc->n++] = npu_rc_entry(NPU_RC_TARGET_MARKER, 0, 0);
	rc->q[rc->n++] = npu_rc_entry(NPU_RC_TARGET_OP_EN, enable, NPU_RC_OP_EN_OFFSET);
	if (rc->n % 2)
		rc->q[rc->n++] = 0;
}

/* REGISTER_AMOUNTS for a task of `total` qwords incl. tail: ceil(total/2) - 1. */
static inline uint32_t t_amount(unsigned total)
{
	return (total + 1u) / 2u - 1u;
}

static inline void t_rc_store(const struct t_rc *rc, uint32_t pa)
{
	memcpy(t_phys(pa), rc->q, rc->n * sizeof(uint64_t));
}

/* BSP submit order (HARDWARE.md §2.5 / §8 step 9). */
static inline void t_kick(unsigned core, uint32_t addr, uint32_t amount, unsigned tasks,
			  uint32_t int_mask)
{
	t_w(core, NPU_PC_BASE_ADDRESS, 1);
	t_w(core, NPU_CNA_S_POINTER, 0xE);
	t_w(core, NPU_CORE_S_POINTER, 0xE);
	t_w(core, NPU_PC_BASE_ADDRESS, addr);
	t_w(core, NPU_PC_REGISTER_AMOUNTS, amount);
	t_w(core, NPU_PC_INTERRUPT_MASK, int_mask);
	t_w(core, NPU_PC_INTERRUPT_CLEAR, NPU_INT_CLEAR_ALL);
	t_w(core, NPU_PC_TASK_CON, 0x6000u | tasks);
	t_w(core, NPU_PC_TASK_DMA_BASE_ADDR, 0);
	t_w(core, NPU_PC_OPERATION_ENABLE, 1);
	t_w(core, NPU_PC_OPERATION_ENABLE, 0);
}

/* Poll until fuzz(INTERRUPT_STATUS) covers mask or RAW_STATUS shows a DMA
 * error (the error bits are outside a 0x300 mask, so LNX-style read RAW);
 * returns the masked status plus the raw error bits. */
static inline uint32_t t_wait(unsigned core, uint32_t mask)
{
	const uint32_t errors = NPU_INT_DMA_READ_ERROR | NPU_INT_DMA_WRITE_ERROR;
	uint32_t s = 0;

	for (int i = 0; i < T_STATUS_POLLS; i++) {
		s = t_r(core, NPU_PC_INTERRUPT_STATUS) |
		    (t_r(core, NPU_PC_INTERRUPT_RAW_STATUS) & errors);
		if ((t_fuzz(s) & mask) == mask || (s & errors))
			break;
	}
	return s;
}

/* ---- data layouts (HARDWARE.md §5) ---- */

/* Element offset in a dense NC1HWC2 cube with c2 channels per 16-byte atom. */
static inline size_t t_nc1hwc2(unsigned c2, unsigned bytes, size_t surf_bytes, unsigned w,
			       unsigned ch, unsigned y, unsigned x)
{
	return (ch / c2) * surf_bytes + ((size_t)y * w + x) * 16u + (ch % c2) * bytes;
}

/* int8 conv weights [ceil(OC/kg)][ceil(IC/32)][kh][kw][kg oc][32 ic] with the
 * last groups packed dense (HARDWARE.md §5.4); wt is [k][kh][kw][c]. kg = 32 int8,
 * 16 fp16 (elements of `bytes` bytes, given as raw bits). */
static inline size_t t_pack_weights(uint8_t *dst, const uint32_t *wt, unsigned kernels,
				    unsigned kh, unsigned kw, unsigned c, unsigned kg,
				    unsigned bytes)
{
	size_t n = 0;

	for (unsigned og = 0; og * kg < kernels; og++) {
		unsigned go = kernels - og * kg < kg ? kernels - og * kg : kg;

		for (unsigned ig = 0; ig * 32u < c; ig++) {
			unsigned gi = c - ig * 32u < 32u ? c - ig * 32u : 32u;

			for (unsigned ky = 0; ky < kh; ky++)
			for (unsigned kx = 0; kx < kw; kx++)
			for (unsigned o = 0; o < go; o++)
			for (unsigned i = 0; i < gi; i++) {
				uint32_t v = wt[(((og * kg + o) * kh + ky) * kw + kx) * c + ig * 32u + i];

				memcpy(dst + n, &v, bytes);	/* little-endian low bytes */
				n += bytes;
			}
		}
	}
	return n;
}

/* int8 depthwise weights [ceil(C/64)][kh][kw][64 ch] (HARDWARE.md §5.4); wt [c][kh][kw]. */
static inline size_t t_pack_dw_weights(uint8_t *dst, const int8_t *wt, unsigned c,
				       unsigned kh, unsigned kw)
{
	size_t n = 0;

	for (unsigned g = 0; g * 64u < c; g++) {
		unsigned gc = c - g * 64u < 64u ? c - g * 64u : 64u;

		for (unsigned ky = 0; ky < kh; ky++)
		for (unsigned kx = 0; kx < kw; kx++)
		for (unsigned i = 0; i < gc; i++)
			dst[n++] = (uint8_t)wt[((g * 64u + i) * kh + ky) * kw + kx];
	}
	return n;
}

/* ---- convolution task (register values per HARDWARE.md §4.2-4.5, §4.8) ---- */

struct t_conv {
	int prec;			/* NPU_PREC_INT8 or NPU_PREC_FP16 */
	bool dw;
	unsigned h, w, c;		/* c: channel count, multiple of 16 (int8) / 8 */
	unsigned oh, ow, oc;		/* oc: real kernels (direct) */
	unsigned kh, kw, sy, sx, pt, pl;
	uint32_t pad_raw;
	uint32_t in_pa, wt_pa, out_pa, bias_pa;	/* bias_pa 0: no bias */
	uint64_t in_surf, in_row;	/* input surface / row pitch in bytes */
	int out_prec;
	bool qd;
	int16_t ow_op;
	unsigned clip;
	int32_t cvt_offset;
	uint16_t cvt_scale;
	unsigned cvt_shift;
	bool relu;
	uint32_t out_surf;		/* output surface stride in bytes */
	bool to_ppu, no_memory;
	/* input converter; 0 = Mesa's normal bypass values (0xB, 0x10000, 0) */
	uint32_t cvt_con0, cvt_set, cvt_con5;
};

static inline unsigned t_prec_bytes(int prec)
{
	return prec == NPU_PREC_INT8 ? 1u : prec == NPU_PREC_INT16 || prec == NPU_PREC_FP16 ? 2u : 4u;
}

/* Kernel group: 32 int8, 16 fp16, 64 int8 / 32 fp16 depthwise (HARDWARE.md §5.3, A29). */
static inline unsigned t_kg(const struct t_conv *t)
{
	if (t->dw)
		return t->prec == NPU_PREC_FP16 ? 32u : 64u;
	return t->prec == NPU_PREC_FP16 ? 16u : 32u;
}

static inline unsigned t_kernels(const struct t_conv *t)
{
	return t->dw ? 1u : (t->oc + 1u) & ~1u;	/* Mesa: ALIGN(OC, 2) */
}

static inline unsigned t_out_channels(const struct t_conv *t)
{
	unsigned kg = t_kg(t), n = t->dw ? t->c : t->oc;

	return (n + kg - 1u) / kg * kg;
}

/* Emit the task body (no tail); returns the enable mask. */
static inline uint32_t t_conv_body(struct t_rc *rc, const struct t_conv *t)
{
	unsigned b = t_prec_bytes(t->prec), kernels = t_kernels(t), och = t_out_channels(t);
	unsigned row_entries = (t->w * t->c * b + 63u) / 64u;
	unsigned data_banks = (t->h * row_entries * 64u + NPU_CBUF_BANK_BYTES - 1u) / NPU_CBUF_BANK_BYTES;
	unsigned g = t_kg(t) / (16u / t_prec_bytes(t->out_prec));
	uint32_t kbytes = t->kw * t->kh * t->c * b;
	uint32_t line = (uint32_t)(t->in_row / 16u * 4u);
	uint32_t surf = (uint32_t)(t->in_surf / 16u) - line;
	bool bias = t->bias_pa != 0;
	uint32_t bs;

	T_DPU(rc, S_POINTER, 0xE);
	T_RDMA(rc, S_POINTER, 0xE);
	T_CNA(rc, CONV_CON1, NPU_FV(CNA, CONV_CON1, CONV_MODE, t->dw ? 3 : 0) |
			     NPU_FV(CNA, CONV_CON1, IN_PRECISION, t->prec) |
			     NPU_FV(CNA, CONV_CON1, PROC_PRECISION, t->prec));
	T_CNA(rc, CONV_CON2, NPU_FV(CNA, CONV_CON2, FEATURE_GRAINS, t->kh + t->sy + 1));
	T_CNA(rc, CONV_CON3, NPU_FV(CNA, CONV_CON3, CONV_X_STRIDE, t->sx) |
			     NPU_FV(CNA, CONV_CON3, CONV_Y_STRIDE, t->sy));
	T_CNA(rc, DATA_SIZE0, NPU_FV(CNA, DATA_SIZE0, DATAIN_WIDTH, t->w) |
			      NPU_FV(CNA, DATA_SIZE0, DATAIN_HEIGHT, t->h));
	T_CNA(rc, DATA_SIZE1, NPU_FV(CNA, DATA_SIZE1, DATAIN_CHANNEL_REAL, t->c - 1) |
			      NPU_FV(CNA, DATA_SIZE1, DATAIN_CHANNEL, t->c));
	T_CNA(rc, DATA_SIZE2, t->ow);
	T_CNA(rc, DATA_SIZE3, t->ow * t->oh);
	T_CNA(rc, WEIGHT_SIZE0, kbytes * kernels);
	T_CNA(rc, WEIGHT_SIZE1, kbytes);
	T_CNA(rc, WEIGHT_SIZE2, NPU_FV(CNA, WEIGHT_SIZE2, WEIGHT_WIDTH, t->kw) |
				NPU_FV(CNA, WEIGHT_SIZE2, WEIGHT_HEIGHT, t->kh) |
				NPU_FV(CNA, WEIGHT_SIZE2, WEIGHT_KERNELS, kernels));
	T_CNA(rc, CBUF_CON0, NPU_FV(CNA, CBUF_CON0, DATA_BANK, data_banks) |
			     NPU_FV(CNA, CBUF_CON0, WEIGHT_BANK, NPU_CBUF_BANKS - data_banks));
	T_CNA(rc, CBUF_CON1, row_entries);
	/* default: bypass | cvt_type | signed, scale 1 (HARDWARE.md §4.2) */
	T_CNA(rc, CVT_CON0, t->cvt_con0 ? t->cvt_con0 : 0xB);
	T_CNA(rc, CVT_CON1, t->cvt_con0 ? t->cvt_set : 0x10000);
	T_CNA(rc, CVT_CON2, t->cvt_con0 ? t->cvt_set : 0x10000);
	T_CNA(rc, CVT_CON3, t->cvt_con0 ? t->cvt_set : 0x10000);
	T_CNA(rc, CVT_CON4, t->cvt_con0 ? t->cvt_set : 0x10000);
	T_CNA(rc, CVT_CON5, t->cvt_con5);
	T_CNA(rc, PAD_CON0, NPU_FV(CNA, PAD_CON0, PAD_LEFT, t->pl) |
			    NPU_FV(CNA, PAD_CON0, PAD_TOP, t->pt));
	T_CNA(rc, FEATURE_DATA_ADDR, t->in_pa);
	T_CNA(rc, DMA_CON0, 0x000F000F);
	T_CNA(rc, DMA_CON1, line);
	T_CNA(rc, DMA_CON2, surf);
	T_CNA(rc, FC_DATA_SIZE0, NPU_FV(CNA, FC_DATA_SIZE0, DMA_WIDTH, t->w) |
				 NPU_FV(CNA, FC_DATA_SIZE0, DMA_HEIGHT, t->h));
	T_CNA(rc, FC_DATA_SIZE1, t->c);
	T_CNA(rc, DCOMP_ADDR0, t->wt_pa);
	T_CNA(rc, PAD_CON1, t->pad_raw);
	T_CORE(rc, MISC_CFG, NPU_FV(CORE, MISC_CFG, PROC_PRECISION, t->prec) |
			     NPU_FV(CORE, MISC_CFG, DW_EN, t->dw) |
			     NPU_FV(CORE, MISC_CFG, QD_EN, t->qd));
	T_CORE(rc, DATAOUT_SIZE_0, NPU_FV(CORE, DATAOUT_SIZE_0, DATAOUT_HEIGHT, t->oh - 1) |
				   NPU_FV(CORE, DATAOUT_SIZE_0, DATAOUT_WIDTH, t->ow - 1));
	T_CORE(rc, DATAOUT_SIZE_1, och - 1);
	T_CORE(rc, CLIP_TRUNCATE, t->clip);
	T_DPU(rc, FEATURE_MODE_CFG, NPU_FV(DPU, FEATURE_MODE_CFG, BURST_LEN, 15) |
				    NPU_FV(DPU, FEATURE_MODE_CFG, CONV_MODE, t->dw ? 3 : 0) |
				    NPU_FV(DPU, FEATURE_MODE_CFG, OUTPUT_MODE,
					   (t->no_memory ? 0 : 2) | (t->to_ppu ? 1 : 0)));
	T_DPU(rc, DATA_FORMAT, NPU_FV(DPU, DATA_FORMAT, OUT_PRECISION, t->out_prec) |
			       NPU_FV(DPU, DATA_FORMAT, IN_PRECISION, t->prec) |
			       NPU_FV(DPU, DATA_FORMAT, PROC_PRECISION, t->prec));
	T_DPU(rc, DST_BASE_ADDR, t->out_pa);
	T_DPU(rc, DST_SURF_STRIDE, t->out_surf);
	T_DPU(rc, DATA_CUBE_WIDTH, t->ow - 1);
	T_DPU(rc, DATA_CUBE_HEIGHT, t->oh - 1);
	T_DPU(rc, DATA_CUBE_CHANNEL, NPU_FV(DPU, DATA_CUBE_CHANNEL, ORIG_CHANNEL,
					   (t->dw ? t->c : t->oc) - 1) |
				     NPU_FV(DPU, DATA_CUBE_CHANNEL, CHANNEL, och - 1));
	if (bias)
		bs = NPU_FV(DPU, BS_CFG, BS_ALU_ALGO, 2) | NPU_FV(DPU, BS_CFG, BS_ALU_SRC, 1) |
		     NPU_FV(DPU, BS_CFG, BS_MUL_BYPASS, 1) |
		     NPU_FV(DPU, BS_CFG, BS_RELU_BYPASS, !t->relu);
	else if (t->relu)
		bs = NPU_FV(DPU, BS_CFG, BS_ALU_BYPASS, 1) | NPU_FV(DPU, BS_CFG, BS_MUL_BYPASS, 1);
	else
		bs = 0x53;	/* full bypass */
	T_DPU(rc, BS_CFG, bs);
	T_DPU(rc, BS_OW_CFG, NPU_FV(DPU, BS_OW_CFG, SIZE_E_2, g - 1) |
			     NPU_FV(DPU, BS_OW_CFG, SIZE_E_1, g - 1) |
			     NPU_FV(DPU, BS_OW_CFG, SIZE_E_0, g - 1) |
			     NPU_FV(DPU, BS_OW_CFG, OD_BYPASS,
				    !(t->qd && t->prec == NPU_PREC_INT8)));
	T_DPU(rc, BS_OW_OP, (uint16_t)t->ow_op);
	T_DPU(rc, WDMA_SIZE_0, och - 1);
	T_DPU(rc, WDMA_SIZE_1, NPU_FV(DPU, WDMA_SIZE_1, HEIGHT_WDMA, t->oh - 1) |
			       NPU_FV(DPU, WDMA_SIZE_1, WIDTH_WDMA, t->ow - 1));
	T_DPU(rc, BN_CFG, 0x53);
	T_DPU(rc, EW_CFG, 0x383);
	T_DPU(rc, EW_CVT_SCALE_VALUE, 1);
	T_DPU(rc, OUT_CVT_OFFSET, (uint32_t)t->cvt_offset);
	T_DPU(rc, OUT_CVT_SCALE, t->cvt_scale |
		  (t->out_prec == NPU_PREC_FP16 ? NPU_FV(DPU, OUT_CVT_SCALE, FP32TOFP16_EN, 1) : 0));
	T_DPU(rc, OUT_CVT_SHIFT, t->cvt_shift);
	T_DPU(rc, SURFACE_ADD, t->out_surf * g);
	if (!bias)
		return NPU_EN_CNA | NPU_EN_CORE | NPU_EN_DPU;
	T_RDMA(rc, DATA_CUBE_WIDTH, t->ow - 1);
	T_RDMA(rc, DATA_CUBE_HEIGHT, t->oh - 1);
	T_RDMA(rc, DATA_CUBE_CHANNEL, och - 1);
	T_RDMA(rc, BRDMA_CFG, NPU_FV(DPU_RDMA, BRDMA_CFG, BRDMA_DATA_USE, 1));
	T_RDMA(rc, BS_BASE_ADDR, t->bias_pa);
	T_RDMA(rc, ERDMA_CFG, NPU_FV(DPU_RDMA, ERDMA_CFG, ERDMA_DISABLE, 1));
	T_RDMA(rc, FEATURE_MODE_CFG, NPU_FV(DPU_RDMA, FEATURE_MODE_CFG, BURST_LEN, 15) |
				     NPU_FV(DPU_RDMA, FEATURE_MODE_CFG, MRDMA_DISABLE, 1));
	T_RDMA(rc, WEIGHT, 0x01010101);
	return NPU_EN_CNA | NPU_EN_CORE | NPU_EN_DPU | NPU_EN_DPU_RDMA;
}

/* Deterministic pseudo-random numbers (xorshift32, fixed seeds). */
static inline uint32_t t_rand(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static inline int t_rand_range(uint32_t *s, int lo, int hi)
{
	return lo + (int)(t_rand(s) % (uint32_t)(hi - lo + 1));
}

#endif /* RKBARE_TEST_SIM_UTIL_H */
