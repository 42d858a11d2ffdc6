/* SPDX-License-Identifier: MIT */
/*
 * Pooling lowering: a stand-alone PPU task reading its input through
 * PPU_RDMA (HARDWARE.md §4.6: enable PPU + PPU_RDMA, completion on the PPU pair).
 * Max / min pooling of int8 or fp16 feature maps with SAME or VALID
 * padding; average pooling with VALID padding, or over padding counted as
 * the PPU does it (count_padding: ONNX count_include_pad = 1; TFLite's
 * averages leave padded cells out).
 */
#ifndef RKBARE_COMPILER_LOWER_POOL_H
#define RKBARE_COMPILER_LOWER_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rkbare/npu_regs.h"
#include "compiler/regcmd.h"

/* The PPU's largest kernel side (4-bit field minus one, npu_regs.def): a
 * wider window (a global pool over a larger map) is the importer's to split
 * or to give the CPU. */
#define LOWER_POOL_MAX_KERNEL	16u

enum lower_pool_method {
	LOWER_POOL_AVG = NPU_POOL_METHOD_AVG,	/* the pooling_method codes */
	LOWER_POOL_MAX = NPU_POOL_METHOD_MAX,
	LOWER_POOL_MIN = NPU_POOL_METHOD_MIN,
};

struct lower_pool_op {
	enum npu_precision prec;	/* INT8 or FP16 */
	enum lower_pool_method method;
	unsigned int in_h, in_w, c;
	unsigned int kh, kw, stride_y, stride_x;
	bool same_padding;
	/* Explicit padding (ONNX pads), used instead of SAME / VALID when set. */
	bool explicit_pads;
	unsigned int pad_top, pad_left, pad_bottom, pad_right;
	/* Average pooling over padding, as the PPU does it: padded cells hold
	 * pad_value (the int8 code of real zero: the zero point) and count in
	 * the divisor (ONNX count_include_pad = 1). Otherwise refused. */
	bool count_padding;
	int32_t pad_value;
	uint32_t in_addr, out_addr;	/* NC1HWC2, 16-byte aligned */
};

struct lower_pool_shape {
	unsigned int out_h, out_w;
	unsigned int pad_top, pad_left, pad_bottom, pad_right;
	size_t in_bytes, out_bytes;
};

/* Whether the PPU averages fp16 over a kh × kw kernel: not with a side of
 * 1, whose reciprocal 2^16 is beyond fp16. */
bool lower_pool_fp16_avg_fits(unsigned int kh, unsigned int kw);

/* Validate against the PPU limits; fills *shape. 0 or -EINVAL / -ENOTSUP. */
int lower_pool_check(const struct lower_pool_op *op, struct lower_pool_shape *shape);

/* Entries of the pooling task (for sizing the program). */
#define POOL_TASK_MAX_ENTRIES	32u

/* Append the pooling task. */
int lower_pool(struct rc_program *p, const struct lower_pool_op *op);

#endif /* RKBARE_COMPILER_LOWER_POOL_H */
