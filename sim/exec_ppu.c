// SPDX-License-Identifier: MIT
/*
 * PPU (planar pooling) and its read DMA PPU_RDMA: average / max / min over
 * a kernel window per channel, input from the DPU on the fly or from
 * memory, output in NC1HWC2 (HARDWARE.md §4.6; field encodings follow
 * NVDLA's PDP, from which the PPU derives — ASSUMPTIONS.md A15).
 */
#include <stdlib.h>

#include "sim/exec.h"
#include "sim/fp16.h"


/* RECIP_KERNEL_WIDTH/HEIGHT are 2^16 / k: an integer for the integer
 * precisions, an fp16 bit pattern for fp16 (the board-run fp16 average of
 * allbilly/rk3588 experimental/pool.py writes 0x7800 = 32768.0 for k = 2). */
#define RECIP_SHIFT	16u

struct ppu {
	unsigned iw, ih, ch, ow, oh;
	unsigned kw, kh, sx, sy, pl, pt, pr, pb;
	unsigned method;
	int prec;
	int64_t recip_w, recip_h, pad_value;
	float frecip_w, frecip_h;	/* fp16: the reciprocals as values */
};

static int parse_ppu(struct sim_core *c, struct ppu *p)
{
	uint32_t mode = EREG(c, PPU, OPERATION_MODE_CFG);
	uint32_t kern = EREG(c, PPU, POOLING_KERNEL_CFG);
	uint32_t pad = EREG(c, PPU, POOLING_PADDING_CFG);

	p->iw = EFLD(c, PPU, DATA_CUBE_IN_WIDTH, CUBE_IN_WIDTH) + 1u;
	p->ih = EFLD(c, PPU, DATA_CUBE_IN_HEIGHT, CUBE_IN_HEIGHT) + 1u;
	p->ch = EFLD(c, PPU, DATA_CUBE_IN_CHANNEL, CUBE_IN_CHANNEL) + 1u;
	p->ow = EFLD(c, PPU, DATA_CUBE_OUT_WIDTH, CUBE_OUT_WIDTH) + 1u;
	p->oh = EFLD(c, PPU, DATA_CUBE_OUT_HEIGHT, CUBE_OUT_HEIGHT) + 1u;
	if (EFLD(c, PPU, DATA_CUBE_OUT_CHANNEL, CUBE_OUT_CHANNEL) + 1u != p->ch)
		return sim_refuse(c, "PPU output channels differ from input channels");
	p->method = NPU_FG(PPU, OPERATION_MODE_CFG, POOLING_METHOD, mode);
	if (p->method > NPU_POOL_METHOD_MIN || NPU_FG(PPU, OPERATION_MODE_CFG, INDEX_EN, mode))
		return sim_refuse(c, "PPU OPERATION_MODE_CFG 0x%08x: pooling method %u / index "
				  "output not modelled", mode, p->method);
	p->kw = NPU_FG(PPU, POOLING_KERNEL_CFG, KERNEL_WIDTH, kern) + 1u;
	p->kh = NPU_FG(PPU, POOLING_KERNEL_CFG, KERNEL_HEIGHT, kern) + 1u;
	p->sx = NPU_FG(PPU, POOLING_KERNEL_CFG, KERNEL_STRIDE_WIDTH, kern) + 1u;
	p->sy = NPU_FG(PPU, POOLING_KERNEL_CFG, KERNEL_STRIDE_HEIGHT, kern) + 1u;
	p->pl = NPU_FG(PPU, POOLING_PADDING_CFG, PAD_LEFT, pad);
	p->pt = NPU_FG(PPU, POOLING_PADDING_CFG, PAD_TOP, pad);
	p->pr = NPU_FG(PPU, POOLING_PADDING_CFG, PAD_RIGHT, pad);
	p->pb = NPU_FG(PPU, POOLING_PADDING_CFG, PAD_BOTTOM, pad);
	if ((p->ow - 1u) * p->sx + p->kw > p->pl + p->iw + p->pr ||
	    (p->oh - 1u) * p->sy + p->kh > p->pt + p->ih + p->pb)
		return sim_refuse(c, "PPU output %ux%u with kernel %ux%u, stride %ux%u reads "
				  "outside the padded %ux%u input", p->ow, p->oh, p->kw, p->kh,
				  p->sx, p->sy, p->iw, p->ih);
	if (p->pl >= p->kw || p->pr >= p->kw || p->pt >= p->kh || p->pb >= p->kh)
		return sim_refuse(c, "PPU padding %u/%u/%u/%u: a window would hold padding only",
				  p->pl, p->pt, p->pr, p->pb);
	p->recip_w = EFLD(c, PPU, RECIP_KERNEL_WIDTH, RECIP_KERNEL_WIDTH);
	p->recip_h = EFLD(c, PPU, RECIP_KERNEL_HEIGHT, RECIP_KERNEL_HEIGHT);
	p->frecip_w = sim_f16_to_f32((uint16_t)p->recip_w) / (float)(1u << RECIP_SHIFT);
	p->frecip_h = sim_f16_to_f32((uint16_t)p->recip_h) / (float)(1u << RECIP_SHIFT);
	p->pad_value = (int32_t)EREG(c, PPU, PADDING_VALUE_1_CFG);
	p->prec = (int)EFLD(c, PPU, DATA_FORMAT, PROC_PRECISION);
	if (p->prec != NPU_PREC_INT8 && p->prec != NPU_PREC_INT16 && p->prec != NPU_PREC_FP16)
		return sim_refuse(c, "PPU precision %d not modelled (int8, int16, fp16)", p->prec);
	if (p->prec == NPU_PREC_FP16 && p->method == NPU_POOL_METHOD_AVG && p->pad_value &&
	    (p->pl || p->pt || p->pr || p->pb))
		return sim_refuse(c, "PPU fp16 average with a non-zero padding value not modelled");
	return SIM_EXEC_OK;
}

/* PPU_RDMA input (strides in bytes, [31:4] fields). */
static int load_rdma(struct sim_core *c, const struct ppu *p, struct sim_cube *in)
{
	unsigned bytes = sim_prec_bytes(p->prec), c2 = NPU_ATOM_BYTES / bytes;
	uint64_t line = EREG(c, PPU_RDMA, SRC_LINE_STRIDE) & ~0xFu;
	uint64_t surf = EREG(c, PPU_RDMA, SRC_SURF_STRIDE) & ~0xFu;
	uint8_t *src;
	int r;

	if (EFLD(c, PPU_RDMA, CUBE_IN_WIDTH, CUBE_IN_WIDTH) + 1u != p->iw ||
	    EFLD(c, PPU_RDMA, CUBE_IN_HEIGHT, CUBE_IN_HEIGHT) + 1u != p->ih ||
	    EFLD(c, PPU_RDMA, CUBE_IN_CHANNEL, CUBE_IN_CHANNEL) + 1u != p->ch)
		return sim_refuse(c, "PPU_RDMA cube differs from the PPU input cube %ux%ux%u",
				  p->iw, p->ih, p->ch);
	/* PPU_RDMA in_precision is the element size (TRM: 0 4-bit, 1 8-bit,
	 * 2 16-bit, 3 32-bit); the vendor's int8 PPU tasks write 1 with PPU
	 * proc_precision 0 (A15). It must match the PPU precision's size. */
	if (EFLD(c, PPU_RDMA, DATA_FORMAT, IN_PRECISION) !=
	    (bytes == 1 ? NPU_PPU_RDMA_IN_8BIT : NPU_PPU_RDMA_IN_16BIT))
		return sim_refuse(c, "PPU_RDMA in_precision %u (element size code: 0 4-bit, 1 8-bit, "
				  "2 16-bit, 3 32-bit) differs from the %u-bit PPU precision %d",
				  EFLD(c, PPU_RDMA, DATA_FORMAT, IN_PRECISION), bytes * 8u, p->prec);
	if (line < (uint64_t)p->iw * NPU_ATOM_BYTES ||
	    (p->ch > c2 && surf < line * p->ih))
		return sim_refuse(c, "PPU_RDMA strides (line %llu, surface %llu bytes) smaller "
				  "than a %ux%u input", (unsigned long long)line,
				  (unsigned long long)surf, p->iw, p->ih);
	r = sim_dma_range(c, EREG(c, PPU_RDMA, SRC_BASE_ADDR),
			  (uint64_t)((p->ch - 1u) / c2) * surf + (p->ih - 1u) * line +
			  (uint64_t)p->iw * NPU_ATOM_BYTES, false, "PPU_RDMA", &src);
	if (!r)
		r = sim_cube_alloc(c, in, SIM_SCR_PPU_IN, p->ch, p->ih, p->iw,
				   p->prec == NPU_PREC_FP16);
	if (r)
		return r;
	in->prec = p->prec;
	for (unsigned ch = 0; ch < p->ch; ch++)
	for (unsigned y = 0; y < p->ih; y++)
	for (unsigned x = 0; x < p->iw; x++) {
		const uint8_t *e = src + (ch / c2) * surf + y * line +
				   (size_t)x * NPU_ATOM_BYTES + (ch % c2) * bytes;

		if (in->is_float)
			in->f[sim_cube_at(in, ch, y, x)] = sim_load_float(e, p->prec);
		else
			in->i[sim_cube_at(in, ch, y, x)] = sim_load_int(e, p->prec);
	}
	return SIM_EXEC_OK;
}

static int64_t pool_int(const struct ppu *p, const struct sim_cube *in, unsigned ch,
			unsigned oy, unsigned ox)
{
	int64_t acc = 0;
	bool first = true;

	for (unsigned ky = 0; ky < p->kh; ky++)
	for (unsigned kx = 0; kx < p->kw; kx++) {
		long iy = (long)(oy * p->sy + ky) - (long)p->pt;
		long ix = (long)(ox * p->sx + kx) - (long)p->pl;
		bool inside = iy >= 0 && ix >= 0 && iy < (long)p->ih && ix < (long)p->iw;
		int64_t v;

		if (!inside) {
			/* padding: counts in averages only (A15) */
			if (p->method == NPU_POOL_METHOD_AVG)
				acc += p->pad_value;
			continue;
		}
		v = in->i[sim_cube_at(in, ch, (unsigned)iy, (unsigned)ix)];
		if (p->method == NPU_POOL_METHOD_AVG)
			acc += v;
		else if (first || (p->method == NPU_POOL_METHOD_MAX ? v > acc : v < acc))
			acc = v;
		first = false;
	}
	if (p->method == NPU_POOL_METHOD_AVG)
		acc = sim_round_shift(acc * p->recip_w * p->recip_h, 2u * RECIP_SHIFT);
	return acc;
}

static float pool_float(const struct ppu *p, const struct sim_cube *in, unsigned ch,
			unsigned oy, unsigned ox)
{
	float acc = 0.0f;
	bool first = true;

	for (unsigned ky = 0; ky < p->kh; ky++)
	for (unsigned kx = 0; kx < p->kw; kx++) {
		long iy = (long)(oy * p->sy + ky) - (long)p->pt;
		long ix = (long)(ox * p->sx + kx) - (long)p->pl;
		float v;

		if (iy < 0 || ix < 0 || iy >= (long)p->ih || ix >= (long)p->iw)
			continue;
		v = in->f[sim_cube_at(in, ch, (unsigned)iy, (unsigned)ix)];
		if (p->method == NPU_POOL_METHOD_AVG)
			acc += v;
		else if (first || (p->method == NPU_POOL_METHOD_MAX ? v > acc : v < acc))
			acc = v;
		first = false;
	}
	if (p->method == NPU_POOL_METHOD_AVG)
		acc = acc * p->frecip_w * p->frecip_h;
	return acc;
}

static int write_ppu(struct sim_core *c, const struct ppu *p, bool is_float,
		     const struct sim_cube *in)
{
	unsigned bytes = sim_prec_bytes(p->prec), c2 = NPU_ATOM_BYTES / bytes;
	uint32_t dst = EREG(c, PPU, DST_BASE_ADDR) & ~0xFu;
	uint64_t surf = EREG(c, PPU, DST_SURF_STRIDE) & ~0xFu;
	uint8_t *out;
	int r;

	if (p->ch > c2 && surf < (uint64_t)p->ow * p->oh * NPU_ATOM_BYTES)
		return sim_refuse(c, "PPU DST_SURF_STRIDE %llu bytes smaller than a %ux%u surface",
				  (unsigned long long)surf, p->ow, p->oh);
	r = sim_dma_range(c, dst, (uint64_t)((p->ch - 1u) / c2) * surf +
			  (uint64_t)p->ow * p->oh * NPU_ATOM_BYTES, true, "PPU write", &out);
	if (r)
		return r;
	for (unsigned ch = 0; ch < p->ch; ch++)
	for (unsigned y = 0; y < p->oh; y++)
	for (unsigned x = 0; x < p->ow; x++) {
		uint8_t *e = out + (ch / c2) * surf + ((size_t)y * p->ow + x) * NPU_ATOM_BYTES +
			     (ch % c2) * bytes;

		if (is_float)
			sim_store_float(e, p->prec, pool_float(p, in, ch, y, x));
		else
			sim_store_int(e, p->prec, sim_sat(pool_int(p, in, ch, y, x),
				      p->prec == NPU_PREC_INT8 ? INT8_MIN : INT16_MIN,
				      p->prec == NPU_PREC_INT8 ? INT8_MAX : INT16_MAX));
	}
	return SIM_EXEC_OK;
}

int sim_exec_ppu(struct sim_core *c, uint32_t en, const struct sim_cube *from_dpu, bool write_ok)
{
	struct ppu p = { 0 };
	struct sim_cube rdma = { 0 };
	const struct sim_cube *in = from_dpu;
	/*
	 * OPERATION_MODE_CFG.flying_mode, TRM (allbilly/rk3588,
	 * experimental/rk3588_trm.md, RKNN_ppu_operation_mode_cfg): "Where the
	 * pooling cube from. 1'd0: DPU; 1'd1: Outside" (memory, through
	 * PPU_RDMA). The board-run pool of experimental/pool.py and the
	 * vendor's captured pool streams write 1 with PPU_RDMA input.
	 */
	bool from_memory = EFLD(c, PPU, OPERATION_MODE_CFG, FLYING_MODE);
	int r;

	r = parse_ppu(c, &p);
	if (r)
		return r;
	if (sim_charge(c, (uint64_t)p.ow * p.oh * p.ch * p.kw * p.kh))
		return SIM_EXEC_STALL;
	if (from_memory == !!from_dpu)
		return sim_refuse(c, "PPU flying_mode %d (%s) but the DPU %s data on the fly",
				  from_memory, from_memory ? "outside" : "DPU",
				  from_dpu ? "sends" : "does not send");
	/* DATA_FORMAT.dpu_flyin (TRM): "If the data from DPU, and DPU data is
	 * from outside, this bit set to be 1" - never with memory input. */
	if (from_memory && EFLD(c, PPU, DATA_FORMAT, DPU_FLYIN))
		return sim_refuse(c, "PPU dpu_flyin 1 while the cube comes from outside");
	if (!from_memory) {
		if (from_dpu->w != p.iw || from_dpu->h != p.ih || from_dpu->c != p.ch ||
		    from_dpu->prec != p.prec)
			return sim_refuse(c, "PPU input cube %ux%ux%u precision %d differs "
					  "from the "
					  "DPU output %ux%ux%u precision %d", p.iw, p.ih, p.ch,
					  p.prec, from_dpu->w, from_dpu->h, from_dpu->c,
					  from_dpu->prec);
		if (en & NPU_EN_PPU_RDMA)
			return sim_refuse(c, "PPU_RDMA enabled while the PPU takes DPU data");
	} else {
		if (!(en & NPU_EN_PPU_RDMA))
			return sim_refuse(c, "PPU reads memory (flying_mode 1) but PPU_RDMA "
					  "is off");
		r = load_rdma(c, &p, &rdma);
		if (r)
			return r;
		in = &rdma;
	}
	if (write_ok)
		r = write_ppu(c, &p, p.prec == NPU_PREC_FP16, in);
	return r;
}
