/* SPDX-License-Identifier: MIT */
/*
 * From a quantised ONNX graph to the NPU's ops: the pattern matching that
 * finds, behind QuantizeLinear / DequantizeLinear pairs (QDQ models, as
 * `rkbare quantize` writes them) and QLinearConv nodes, the convolutions,
 * fully-connected layers, element-wise adds and pools the lowering in
 * compiler/ takes, with their int8 parameters; activations, element-wise ops
 * that broadcast and a Softmax between a DequantizeLinear and a
 * QuantizeLinear become CPU ops (import_ewise.c: tables built here).
 *
 * Every tensor the NPU sees is int8 in the signed domain: uint8 tensors and
 * constants are shifted by 128 here (their zero points with them), and the
 * graph inputs and outputs remember the user's type so the run converts.
 * A graph this cannot map is refused with a message naming the node, the
 * op and the reason; nothing is ever mapped approximately.
 */
#ifndef RKBARE_TOOLS_ONNX_IMPORT_H
#define RKBARE_TOOLS_ONNX_IMPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compiler/lower_conv.h"
#include "compiler/lower_pool.h"
#include "runtime/model_format.h"
#include "tools/onnx/onnx_graph.h"

/* A quantised feature map: C × H × W (N = 1), int8 with scale and zero
 * point (signed domain). Rank-2 [1, K] tensors are K × 1 × 1. */
struct imp_tensor {
	const char *name;		/* the ONNX tensor holding the quantised values */
	unsigned int c, h, w;
	float scale;
	int32_t zp;
	bool int32;			/* raw int32 sums (ConvInteger), a graph output */
	bool fp16;			/* an fp16 map (onnx_import_fp16): scale 1, zp 0 */
};

enum imp_io_kind {
	IMP_IO_FLOAT,		/* float32 at the graph edge, (de)quantised by the run */
	IMP_IO_INT8,		/* int8 values as they are */
	IMP_IO_UINT8,		/* uint8 values, shifted by 128 */
	IMP_IO_INT32,		/* int32 values as they are (an int32 tensor) */
};

struct imp_io {
	int tensor;		/* index into imp_graph.tensors */
	const char *name;	/* graph input / output name */
	enum imp_io_kind kind;
	bool channels_last;	/* the ONNX order is H, W, C (RKB_LAYOUT_NHWC) */
	int rank;		/* the ONNX shape at the graph edge */
	int64_t dims[ONNX_GRAPH_MAX_RANK];
};

/* The container op type the op becomes (runtime/op_kinds.h has its row;
 * model_write refuses a kind without one). */
enum imp_op_kind {
	IMP_CONV = RKB_OP_CONV,	/* also depthwise and fully connected */
	IMP_ADD = RKB_OP_ADD,
	IMP_POOL = RKB_OP_POOL,
	IMP_CPU = RKB_OP_CPU,	/* run on the CPU (runtime/cpu_ops.h): cpu_type */
	IMP_LUT = RKB_OP_LUT,	/* a function on the DPU's lookup table: fp16,
				 * cpu_params as Unary's (runtime/npu_fn.h);
				 * int8, the table as Lut's (runtime/cpu_ops.h) */
	IMP_CONVERT = RKB_OP_CONVERT,	/* an int8 map into fp16 or the reverse
					 * in the DPU; cpu_type the CPU's Cast,
					 * which the writer runs instead where
					 * the DPU cannot (or --no-fusion) */
};

struct imp_op {
	enum imp_op_kind kind;
	const char *node;	/* ONNX node the op comes from (for messages) */
	int in[2], out;		/* imp_graph.tensors indices; in[1] for IMP_ADD */

	/* IMP_CONV */
	unsigned int kh, kw, stride_y, stride_x;
	unsigned int pad_top, pad_left, pad_bottom, pad_right;
	bool depthwise;
	unsigned int groups;		/* a grouped convolution's group count (its
					 * kernels zero outside their group), else 0 */
	enum lower_act act;
	float act_min, act_max;		/* LOWER_ACT_CLIP, real values */
	int8_t *weights;		/* OHWI (depthwise: [kh][kw][c]), signed */
	int32_t w_zp;			/* signed domain */
	float *w_scale;			/* out channels, or one */
	unsigned int w_scale_count;
	int32_t *bias;			/* out channels in units of in_scale · w_scale, or NULL */
	/* fp16 ops (onnx_import_fp16) instead of weights / w_* / bias: */
	uint16_t *weights_f16;		/* fp16 bit patterns, same order as weights */
	float *bias_f;			/* out channels, or NULL */

	/* IMP_POOL (kh.. and pads above) */
	enum lower_pool_method pool;

	/* IMP_CPU: the op type its implementation is registered under, and
	 * for Softmax the axis in the NPU's terms (CPU_AXIS_*), for Transpose
	 * the permutation of the map's axes */
	const char *cpu_type;
	int cpu_axis;
	int cpu_perm[3];	/* Transpose: the input map axis of each output axis */
	void *cpu_params;	/* any other CPU op's parameter bytes (Lut, Unary,
				 * Binary), and IMP_LUT's, written as they are;
				 * owned */
	size_t cpu_params_bytes;
};

/* The axes of a C × H × W feature map, as a Softmax parameter
 * (runtime/cpu_ops.h: RKB_CPU_AXIS_*). */
enum { CPU_AXIS_C = 0, CPU_AXIS_H = 1, CPU_AXIS_W = 2 };

/* Tensor `tensor` is channels c_offset.. of `parent`, written there by its
 * producer (a part of a Concat along the channels; model_format.h
 * rkb_view). */
struct imp_view {
	int tensor, parent;
	unsigned int c_offset;
};

struct imp_graph {
	size_t n_tensors, n_ops, n_inputs, n_outputs, n_views;
	struct imp_tensor *tensors;
	struct imp_op *ops;
	struct imp_io *inputs, *outputs;
	struct imp_view *views;
	/* model_write writes every op as imported: no conv + residual add in one
	 * op, the functions on the CPU (`rkbare compile --no-fusion`) */
	bool no_fusion;
};

/*
 * Maps g, whose shapes onnx_infer_shapes() has set for batch 1. The result
 * points into g (names), which must outlive it. 0, or a negative errno
 * value with a message naming the node in err.
 */
int onnx_import(const struct onnx_graph *g, struct imp_graph **out, char *err, size_t err_len);
void imp_graph_free(struct imp_graph *ig);

/*
 * Maps a float graph g (shapes set as for onnx_import) to fp16 ops, for
 * `rkbare compile --precision fp16` (import_fp16.c). Same contract.
 */
int onnx_import_fp16(const struct onnx_graph *g, struct imp_graph **out, char *err,
		     size_t err_len);

/* What an int8 table of one computed map (import_ewise.c) can stand for:
 * n's kind among the importer's element-wise ops. Relu and Clip are not
 * table functions (they fuse into their producer), nor PRelu. */
enum onnx_table_kind {
	ONNX_TABLE_NONE,
	ONNX_TABLE_UNARY,	/* a function of its one input */
	ONNX_TABLE_BINARY,	/* a table when one operand is a constant */
};
enum onnx_table_kind onnx_import_table_kind(const struct onnx_node *n);

#endif /* RKBARE_TOOLS_ONNX_IMPORT_H */
