/* SPDX-License-Identifier: MIT */
/* CBUF tiling by output rows, output-channel groups and input channels
 * (HARDWARE.md §5.6). */
#include <errno.h>

#include "hal.h"
#include "compiler/layout.h"
#include "compiler/lower_tile.h"
#include "compiler/quant.h"

/*
 * Data banks hold whole rows of 64-byte entries (MTX's ceil(M·K·bytes /
 * 32 KiB) when a row is a multiple of 64 bytes, HARDWARE.md §4.8 A); weights must
 * fit their banks for a task (the vendor seems to stream them, HARDWARE.md §4.8
 * B, but that is UNSURE, so the lowering never relies on it).
 */
static unsigned int banks_for(size_t bytes)
{
	return (unsigned int)((bytes + NPU_CBUF_BANK_BYTES - 1) / NPU_CBUF_BANK_BYTES);
}

static unsigned int kernel_group(const struct conv_task *t)
{
	if (t->depthwise)
		return t->out_c_aligned;	/* one "kernel" holds every channel */
	return layout_kernel_group(t->in_prec);
}

/* Bytes of one input row of `channels` channels of `bits` bits in the CBUF. */
static size_t cbuf_row_bytes(unsigned int w, unsigned int channels, unsigned int bits)
{
	return layout_align((size_t)w * channels * bits / 8u, LOWER_CBUF_ENTRY_BYTES);
}

/* One kernel group of `group` kernels over `channels` input channels of
 * `bits` bits next to kh rows. */
static bool ic_chunk_fits(unsigned int in_w, unsigned int kh, unsigned int kw,
			  unsigned int channels, unsigned int bits, unsigned int group)
{
	unsigned int data = banks_for(cbuf_row_bytes(in_w, channels, bits) * kh);
	unsigned int weight = banks_for((size_t)group * kh * kw * channels * bits / 8u);

	return data + weight <= NPU_CBUF_BANKS;
}

bool lower_tile_needs_ic_split(unsigned int in_w, unsigned int kh, unsigned int kw,
			       unsigned int in_c_aligned)
{
	return !ic_chunk_fits(in_w, kh, kw, in_c_aligned, 8u, LAYOUT_KERNEL_GROUP_INT8);
}

static bool task_chunk_fits(const struct conv_task *t, unsigned int channels)
{
	return ic_chunk_fits(t->in_w, t->kh, t->kw, channels, layout_elem_bits(t->in_prec),
			     kernel_group(t));
}

/* Precision of the input-channel partial sums: the accumulator's. */
static enum npu_precision partial_prec(const struct conv_task *t)
{
	return t->in_prec == NPU_PREC_INT8 ? NPU_PREC_INT32 : NPU_PREC_FP32;
}

/* Outputs the last chunk can produce after adding the partial: the int8
 * requantisation or raw int32, fp16 or fp32. int4 has none: no board-run
 * stream writes its sums wider than int16 or adds partials (§5.7). */
static bool split_out_ok(const struct conv_task *t)
{
	if (t->in_prec == NPU_PREC_INT8)
		return t->out_prec == NPU_PREC_INT8 || t->out_prec == NPU_PREC_INT32;
	return t->in_prec == NPU_PREC_FP16 &&
	       (t->out_prec == NPU_PREC_FP16 || t->out_prec == NPU_PREC_FP32);
}

static bool needs_ic_split(const struct conv_task *t)
{
	if (t->depthwise)
		return false;
	if (t->ic_segment && t->in_c_aligned > t->ic_segment)
		return true;
	return t->in_prec == NPU_PREC_INT8 &&
	       lower_tile_needs_ic_split(t->in_w, t->kh, t->kw, t->in_c_aligned);
}

/*
 * The most input rows one task reads: lower_task.c writes rows + 1 into CNA
 * CONV_CON2 feature_grains, as the board-run generators do for the tasks
 * they run, and that field is 10 bits (Mesa's registers.xml; the TRM is
 * silent): a taller task would wrap it (docs/HARDWARE.md §9, item 6).
 */
static size_t task_rows_cap(size_t max_rows)
{
	const size_t cap = (size_t)NPU_FMASK_(CNA, CONV_CON2, FEATURE_GRAINS) - 1u;

	return max_rows < cap ? max_rows : cap;
}

/* Input-channel split: chunks of exactly ic_segment channels when set,
 * else the largest chunk of whole 32-channel groups whose kernel group fits
 * next to kh rows; one kernel group per task. */
static int plan_ic_split(const struct conv_task *full, struct lower_tile_plan *plan)
{
	unsigned int chunk = full->ic_segment ? full->ic_segment : full->in_c_aligned;
	unsigned int eb = layout_elem_bytes(full->in_prec), g = kernel_group(full);
	unsigned int bits = layout_elem_bits(full->in_prec);
	unsigned int data, weight;
	size_t row_bytes, max_rows;

	if (full->depthwise || !split_out_ok(full) || full->scale_addr || !full->scratch_addr) {
		hal_err("lower: %u input channels need an input-channel split, which needs a "
			"convolution or matmul with one weight scale and a scratch buffer",
			full->in_c_aligned);
		return -ENOTSUP;
	}
	while (!full->ic_segment && chunk > LAYOUT_WEIGHT_IC_GROUP && !task_chunk_fits(full, chunk))
		chunk -= LAYOUT_WEIGHT_IC_GROUP;
	if (!task_chunk_fits(full, chunk)) {
		hal_err("lower: even %u input channels of %ux%u kernels do not fit the CBUF",
			chunk, full->kh, full->kw);
		return -ENOTSUP;
	}
	row_bytes = cbuf_row_bytes(full->in_w, chunk, bits);
	weight = banks_for((size_t)g * full->kh * full->kw * chunk * eb);
	data = banks_for(row_bytes * full->in_h_full);
	if (data > NPU_CBUF_BANKS - weight)
		data = NPU_CBUF_BANKS - weight;
	plan->data_banks = data;
	plan->weight_banks = NPU_CBUF_BANKS - data;
	plan->kernels_per_task = g;
	plan->ic_chunk = chunk;
	max_rows = task_rows_cap((size_t)data * NPU_CBUF_BANK_BYTES / row_bytes);
	plan->rows_per_task = max_rows >= full->in_h_full ? full->out_h_full :
			      (unsigned int)((max_rows - full->kh) / full->stride_y + 1);
	if (plan->rows_per_task > full->out_h_full)
		plan->rows_per_task = full->out_h_full;
	plan->row_tasks = (full->out_h_full + plan->rows_per_task - 1) / plan->rows_per_task;
	plan->kernel_tasks = full->kernels / g;
	plan->ic_tasks = (full->in_c_aligned + chunk - 1) / chunk;
	return 0;
}

/*
 * Cut a plan that fits into at least full->min_tasks independent tasks,
 * for that many cores: kernel groups first (each task then reads its own
 * weights), row bands next (each reads its own input rows). Smaller tasks
 * fit the banks the plan chose; a shape with too few of either gives fewer.
 */
static void spread(const struct conv_task *full, struct lower_tile_plan *plan)
{
	size_t want = full->min_tasks;
	unsigned int group = kernel_group(full);

	if (!full->depthwise && plan->kernel_tasks < want) {
		unsigned int groups = (full->kernels + group - 1) / group;
		unsigned int per = (unsigned int)((groups + want - 1) / want) * group;

		if (per < plan->kernels_per_task) {
			plan->kernels_per_task = per;
			plan->kernel_tasks = (full->kernels + per - 1) / per;
		}
	}
	if (plan->kernel_tasks * plan->row_tasks < want) {
		size_t bands = (want + plan->kernel_tasks - 1) / plan->kernel_tasks;
		unsigned int rows = (unsigned int)((full->out_h_full + bands - 1) / bands);

		if (rows && rows < plan->rows_per_task) {
			plan->rows_per_task = rows;
			plan->row_tasks = (full->out_h_full + rows - 1) / rows;
		}
	}
}

int lower_tile_plan(const struct conv_task *full, struct lower_tile_plan *plan)
{
	/* A row occupies whole 64-byte CBUF entries (CBUF_CON1, HARDWARE.md §4.2). */
	size_t row_bytes = cbuf_row_bytes(full->in_w, full->in_c_aligned,
					  layout_elem_bits(full->in_prec));
	unsigned int in_banks = banks_for(row_bytes * full->in_h_full);
	unsigned int min_data = banks_for(row_bytes * full->kh);
	unsigned int w_banks = banks_for(full->weight_bytes);
	unsigned int group = kernel_group(full);
	size_t max_rows;

	plan->ic_chunk = full->in_c_aligned;
	plan->ic_tasks = 1;
	if (needs_ic_split(full))
		return plan_ic_split(full, plan);
	if (min_data > NPU_CBUF_BANKS - 1) {
		hal_err("lower: %u input rows of %zu bytes need %u CBUF banks (at most %u)",
			full->kh, row_bytes, min_data, NPU_CBUF_BANKS - 1);
		return -ENOTSUP;
	}
	plan->kernels_per_task = full->depthwise ? full->out_c_aligned : full->kernels;
	if (in_banks + w_banks <= NPU_CBUF_BANKS) {
		plan->data_banks = in_banks;
	} else if (w_banks + min_data <= NPU_CBUF_BANKS) {
		plan->data_banks = NPU_CBUF_BANKS - w_banks;
	} else {
		unsigned int g_banks = banks_for((size_t)group * full->weight_bytes_per_kernel);

		if (full->depthwise || g_banks + min_data > NPU_CBUF_BANKS) {
			hal_err("lower: %u kernels of %u bytes do not fit the CBUF next to %u input rows",
				group, full->weight_bytes_per_kernel, full->kh);
			return -ENOTSUP;
		}
		plan->data_banks = in_banks < NPU_CBUF_BANKS - g_banks ? in_banks
								       : NPU_CBUF_BANKS - g_banks;
		plan->kernels_per_task = (unsigned int)((size_t)(NPU_CBUF_BANKS - plan->data_banks) *
							NPU_CBUF_BANK_BYTES /
							full->weight_bytes_per_kernel / group * group);
	}
	plan->weight_banks = NPU_CBUF_BANKS - plan->data_banks;

	max_rows = task_rows_cap((size_t)plan->data_banks * NPU_CBUF_BANK_BYTES / row_bytes);
	/* The whole input fits, or every band of rows_per_task output rows
	 * reads (rows_per_task - 1) × stride + kh <= max_rows input rows
	 * (data_banks >= the banks of kh rows whenever the input does not fit). */
	if (max_rows >= full->in_h_full)
		plan->rows_per_task = full->out_h_full;
	else
		plan->rows_per_task = (unsigned int)((max_rows - full->kh) / full->stride_y + 1);
	if (plan->rows_per_task > full->out_h_full)
		plan->rows_per_task = full->out_h_full;
	plan->row_tasks = (full->out_h_full + plan->rows_per_task - 1) / plan->rows_per_task;
	plan->kernel_tasks = full->depthwise ? 1 :
			     (full->kernels + plan->kernels_per_task - 1) / plan->kernels_per_task;
	if (full->min_tasks > 1)
		spread(full, plan);
	return 0;
}

/* Emit the input-channel chunks of one (kernel group, row band) task `t`:
 * partial sums go to the int32 (fp32) scratch tensors in turn, each chunk
 * after the first adds the previous partial in the EW stage, the last chunk
 * writes the real output (bias, activation, requantisation). */
static void emit_ic_chunks(struct rc_program *p, const struct conv_task *full,
			   const struct lower_tile_plan *plan, const struct conv_task *t,
			   unsigned int k0, int oy0)
{
	size_t in_surface = (size_t)full->in_w * full->in_h_full *
			    NPU_ATOM_BYTES;
	size_t out_surface = (size_t)full->out_w * full->out_h_full *
			     NPU_ATOM_BYTES;
	enum npu_precision pp = partial_prec(full);
	size_t half = layout_nc1hwc2_bytes(pp, full->out_h_full, full->out_w,
					   full->out_c_aligned);
	/* Where this band of this kernel group sits in a scratch tensor. */
	uint32_t part = (uint32_t)oy0 * full->out_w * NPU_ATOM_BYTES +
			(uint32_t)(k0 / layout_c2(pp) * out_surface);
	unsigned int ic_groups = full->in_c_aligned / LAYOUT_WEIGHT_IC_GROUP;
	unsigned int taps = full->kh * full->kw;
	unsigned int eb = layout_elem_bytes(full->in_prec), g = plan->kernels_per_task;

	for (size_t j = 0; j < plan->ic_tasks; j++) {
		struct conv_task c = *t;
		unsigned int c0 = (unsigned int)j * plan->ic_chunk;
		unsigned int cn = full->in_c_aligned - c0 < plan->ic_chunk ?
				  full->in_c_aligned - c0 : plan->ic_chunk;
		bool last = j + 1 == plan->ic_tasks;

		c.in_c_aligned = cn;
		c.in_c = full->in_c - c0 < cn ? full->in_c - c0 : cn;
		c.in_addr = t->in_addr + (uint32_t)(c0 / layout_c2(full->in_prec) * in_surface);
		c.weight_bytes_per_kernel = taps * cn * eb;
		c.weight_bytes = c.kernels * c.weight_bytes_per_kernel;
		if (full->ic_segment)
			/* Segments of ic_segment channels, each [OC/G][cn/32][kh][kw][G][32]
			 * over all kernels: this group's kernels are adjacent within. */
			c.weight_addr = full->weight_addr +
					((uint32_t)c0 * full->kernels + k0 * cn) * taps * eb;
		else
			/* [OC/G][IC/32][kh][kw][G][32]: the chunk's groups are adjacent. */
			c.weight_addr = full->weight_addr +
					((k0 / g) * ic_groups + c0 / LAYOUT_WEIGHT_IC_GROUP) *
					taps * g * LAYOUT_WEIGHT_IC_GROUP * eb;
		c.weight_reuse = false;
		c.ew_add_addr = j ? full->scratch_addr + (uint32_t)((j - 1) % 2 * half) + part : 0;
		if (!last) {
			c.out_prec = pp;
			c.out_addr = full->scratch_addr + (uint32_t)(j % 2 * half) + part;
			c.bias_addr = 0;
			c.relu = c.relux = false;
			c.out_offset = 0;
			c.out_mult = (struct quant_mult){ .multiplier = 1, .shift = 0 };
		}
		conv_task_emit(p, &c);
	}
}

int lower_tile_emit(struct rc_program *p, const struct conv_task *full,
		    const struct lower_tile_plan *plan)
{
	unsigned int c2_out = layout_c2(full->out_prec);
	size_t out_surface = (size_t)full->out_w * full->out_h_full *
			     NPU_ATOM_BYTES;

	for (size_t kt = 0; kt < plan->kernel_tasks; kt++) {
		unsigned int k0 = (unsigned int)(kt * plan->kernels_per_task);
		unsigned int kn = full->depthwise ? full->out_c_aligned :
				  full->kernels - k0 < plan->kernels_per_task ?
				  full->kernels - k0 : plan->kernels_per_task;

		for (size_t rt = 0; rt < plan->row_tasks; rt++) {
			struct conv_task t = *full;
			int oy0 = (int)(rt * plan->rows_per_task);
			int oy1 = oy0 + (int)plan->rows_per_task;
			int iy0, iy1;

			if (oy1 > (int)full->out_h_full)
				oy1 = (int)full->out_h_full;
			/* Input rows this output band reads, clipped to the tensor;
			 * what is cut off at the top becomes this task's padding. */
			iy0 = oy0 * (int)full->stride_y - (int)full->pad_top;
			iy1 = (oy1 - 1) * (int)full->stride_y - (int)full->pad_top + (int)full->kh;
			t.pad_top = iy0 < 0 ? (unsigned int)-iy0 : 0;
			if (iy0 < 0)
				iy0 = 0;
			if (iy1 > (int)full->in_h_full)
				iy1 = (int)full->in_h_full;
			t.in_rows = (unsigned int)(iy1 - iy0);
			t.in_addr = full->in_addr + (uint32_t)iy0 * full->in_w * NPU_ATOM_BYTES;
			t.out_rows = (unsigned int)(oy1 - oy0);
			t.out_addr = full->out_addr + (uint32_t)oy0 * full->out_w * NPU_ATOM_BYTES +
				     (uint32_t)(k0 / c2_out * out_surface);
			/* the residual: laid out as the output */
			if (full->res_addr)
				t.res_addr = full->res_addr +
					     (uint32_t)oy0 * full->out_w * NPU_ATOM_BYTES +
					     (uint32_t)(k0 / c2_out * out_surface);
			t.data_banks = plan->data_banks;
			t.weight_banks = plan->weight_banks;
			if (!full->depthwise) {
				t.kernels = kn;
				t.out_c_aligned = kn;
				t.out_c = full->out_c > k0 + kn ? kn : full->out_c - k0;
				t.weight_bytes = kn * full->weight_bytes_per_kernel;
				t.weight_addr = full->weight_addr + k0 * full->weight_bytes_per_kernel;
				if (full->bias_addr)
					t.bias_addr = full->bias_addr + k0 * (uint32_t)sizeof(int32_t);
				if (full->scale_addr)
					t.scale_addr = full->scale_addr + k0 * (uint32_t)sizeof(int32_t);
			}
			/* Same weights as the previous task: keep them in the CBUF
			 * (Mesa sets WEIGHT_REUSE the same way, HARDWARE.md §5.6). */
			t.weight_reuse = rt > 0;
			if (plan->ic_tasks > 1)
				emit_ic_chunks(p, full, plan, &t, k0, oy0);
			else
				conv_task_emit(p, &t);
		}
	}
	return p->err;
}

int lower_tile_count(const struct conv_task *full, size_t *count)
{
	struct lower_tile_plan plan;
	int ret = lower_tile_plan(full, &plan);

	if (!ret)
		*count = plan.kernel_tasks * plan.row_tasks * plan.ic_tasks;
	return ret;
}

int lower_tile(struct rc_program *p, const struct conv_task *full)
{
	struct lower_tile_plan plan;
	int ret = lower_tile_plan(full, &plan);

	return ret ? ret : lower_tile_emit(p, full, &plan);
}
