/* SPDX-License-Identifier: MIT */
/*
 * CBUF tiling (HARDWARE.md §5.6): a convolution described for the whole tensor is
 * split into tasks whose input rows and weights fit their CBUF banks —
 * by output rows (input slices overlapping by kernel - stride rows) and by
 * output-channel kernel groups — and emitted as one chained program.
 */
#ifndef RKBARE_COMPILER_LOWER_TILE_H
#define RKBARE_COMPILER_LOWER_TILE_H

#include <stdbool.h>
#include <stddef.h>

#include "compiler/lower_conv.h"

struct lower_tile_plan {
	unsigned int data_banks, weight_banks;
	unsigned int rows_per_task;	/* output rows per task */
	unsigned int kernels_per_task;	/* output channels per task (whole groups) */
	unsigned int ic_chunk;		/* input channels per task (= all unless split) */
	size_t row_tasks, kernel_tasks, ic_tasks;	/* task grid */
};

/*
 * True when one group of 32 int8 kernels over all input channels cannot sit
 * in the CBUF next to kh input rows: the convolution is then split by input
 * channels, partial sums going through int32 scratch tensors (two, used in
 * turn) that the EW stage adds back (lower_conv.h, scratch_addr; UNSURE
 * sim/ASSUMPTIONS.md A39, board probes A39-psum-int32, A39-psum-fp32). Tasks with
 * conv_task.ic_segment are split the same way at every segment (int8 or
 * fp16, int32 or fp32 partials), whatever the CBUF.
 */
bool lower_tile_needs_ic_split(unsigned int in_w, unsigned int kh, unsigned int kw,
			       unsigned int in_c_aligned);

/*
 * Plan the tiling of `full` (a task describing the whole op: in_rows =
 * in_h_full, out_rows = out_h_full, all kernels; pad_bottom implied).
 * Returns 0 or -ENOTSUP (with a message) when even the smallest tile does
 * not fit the CBUF.
 */
int lower_tile_plan(const struct conv_task *full, struct lower_tile_plan *plan);

/* Emit the planned tasks (kernel groups outer, row slices inner; tasks after
 * the first of a kernel group reuse the weights left in the CBUF). */
int lower_tile_emit(struct rc_program *p, const struct conv_task *full,
		    const struct lower_tile_plan *plan);

/* Plan `full` and give the number of tasks it becomes. */
int lower_tile_count(const struct conv_task *full, size_t *count);

/* Plan `full` and append its tasks to the program. */
int lower_tile(struct rc_program *p, const struct conv_task *full);

#endif /* RKBARE_COMPILER_LOWER_TILE_H */
