/* SPDX-License-Identifier: MIT */
/* CBUF tiling by output rows and output-channel groups (facts §5.6). */
#include <errno.h>

#include "hal.h"
#include "runtime/layout.h"
#include "runtime/lower_tile.h"

/*
 * Data banks hold whole rows of 64-byte entries (MTX's ceil(M·K·bytes /
 * 32 KiB) when a row is a multiple of 64 bytes, facts §4.8 A); weights must fit their banks
 * for a task (the vendor seems to stream them, facts §4.8 B, but that is
 * UNSURE, so the lowering never relies on it).
 */
static unsigned int banks_for(size_t bytes)
{
	return (unsigned int)((bytes + NPU_CBUF_BANK_BYTES - 1) / NPU_CBUF_BANK_BYTES);
}

static unsigned int kernel_group(const struct conv_task *t)
{
	if (t->depthwise)
		return t->out_c_aligned;	/* one "kernel" holds every channel */
	return t->in_prec == NPU_PREC_INT8 ? LAYOUT_KERNEL_GROUP_INT8 : LAYOUT_KERNEL_GROUP_FP16;
}

int lower_tile_plan(const struct conv_task *full, struct lower_tile_plan *plan)
{
	/* A row occupies whole 64-byte CBUF entries (CBUF_CON1, facts §4.2). */
	size_t row_bytes = layout_align((size_t)full->in_w * full->in_c_aligned *
					layout_elem_bytes(full->in_prec), LOWER_CBUF_ENTRY_BYTES);
	unsigned int in_banks = banks_for(row_bytes * full->in_h_full);
	unsigned int min_data = banks_for(row_bytes * full->kh);
	unsigned int w_banks = banks_for(full->weight_bytes);
	unsigned int group = kernel_group(full);
	size_t max_rows;

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

	max_rows = (size_t)plan->data_banks * NPU_CBUF_BANK_BYTES / row_bytes;
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
	return 0;
}

int lower_tile_emit(struct rc_program *p, const struct conv_task *full,
		    const struct lower_tile_plan *plan)
{
	unsigned int c2_out = layout_c2(full->out_prec);
	size_t out_surface = (size_t)full->out_w * layout_surface_rows(full->out_h_full) *
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
			 * (Mesa sets WEIGHT_REUSE the same way, facts §5.6). */
			t.weight_reuse = rt > 0;
			conv_task_emit(p, &t);
		}
	}
	return p->err;
}
