/* SPDX-License-Identifier: MIT */
/*
 * The ONNX importer's own declarations, shared by its files and included by
 * nothing else: import_util.c (operands, constants, growing the result),
 * import_patterns.c (the NPU op each float pattern between
 * DequantizeLinear and QuantizeLinear becomes), import_qlinear.c (what a
 * QuantizeLinear closes; QLinear and Integer ops), onnx_import.c (the
 * graph: inputs, nodes in order, outputs) and import_fp16.c (a float graph
 * as fp16 ops).
 */
#ifndef RKBARE_TOOLS_ONNX_IMPORT_INT_H
#define RKBARE_TOOLS_ONNX_IMPORT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tools/onnx/onnx_import.h"
#include "tools/onnx/onnx_shape.h"

/* uint8 values and zero points move to int8 by subtracting this. */
#define U8_TO_S8	128

/* Transpose perms of rank-4 tensors as perm4() writes them. */
#define PERM_TO_NHWC	231	/* (0, 2, 3, 1) */
#define PERM_TO_NCHW	312	/* (0, 3, 1, 2) */

/* One import: the ONNX graph, the graph being built, and what each ONNX
 * tensor and node has become so far. */
struct imp {
	const struct onnx_graph *g;
	struct imp_graph *ig;
	int *producer;		/* ONNX tensor → node, -1 */
	int *users;		/* ONNX tensor → number of reading nodes */
	int *qt;		/* ONNX tensor → imp tensor, -1 */
	bool *used;		/* ONNX node → consumed by a pattern */
	bool *has_params;	/* imp tensor → scale / zp known */
	bool *flat_view;	/* ONNX tensor → a Flatten / Reshape of a feature map */
	bool *nhwc_view;	/* ONNX tensor → the channels-last view of its imp
				 * tensor (a graph edge only: no NPU op reads it) */
	bool *zero_const;	/* ONNX tensor → a quantised all-zero ConstantOfShape */
	bool *fp16_node;	/* ONNX node → computed in fp16 in an int8 graph
				 * (onnx_import.c float_groups) */
	bool fc_operand;	/* dq_source called for a fully-connected input */
	bool maps_1d;		/* the graph has 1-D convolutions: its [1, C, W]
				 * tensors are C × 1 × W maps, not C × H × W */
	size_t cap_ops, cap_tensors;
	const struct onnx_node *n;	/* node being mapped, for messages */
	char *err;
	size_t err_len;
};

/* Quantised weights as read from the model: signed values, scales, zero point. */
struct qweights {
	int8_t *v;
	size_t count;
	float *scale;
	size_t n_scale;
	int32_t zp;
	const struct onnx_tensor *t;
};

/* ONNX tensor i, or NULL for an absent optional input (-1). */
static inline const struct onnx_tensor *T(const struct imp *s, int i)
{
	return i >= 0 ? &s->g->tensors[i] : NULL;
}

/* The node computing ONNX tensor t, or NULL (an input or a constant). */
static inline const struct onnx_node *prod(const struct imp *s, int t)
{
	return t >= 0 && s->producer[t] >= 0 ? &s->g->nodes[s->producer[t]] : NULL;
}

/* Is n (which may be NULL) a node of type op? */
static inline bool is_op(const struct onnx_node *n, const char *op)
{
	return n && !strcmp(n->op_type, op);
}

/* Input i of n, or -1 when absent. */
static inline int in_of(const struct onnx_node *n, size_t i)
{
	return i < n->n_in ? n->in[i] : -1;
}

/* import_util.c */
/* One import: the arrays of s and the result's edge arrays for graph g,
 * each tensor's producer and reader count (0 or -ENOMEM); imp_end frees them and hands over the graph when
 * rc is 0 (else frees it too), returning rc. */
int imp_begin(struct imp *s, const struct onnx_graph *g, char *err, size_t err_len);
int imp_end(struct imp *s, int rc, struct imp_graph **out);
/* The one node reading ONNX tensor t, or NULL. */
const struct onnx_node *sole_reader(const struct imp *s, int t);
/* The next graph input (or output) of the result, named and shaped as t. */
struct imp_io *new_edge(struct imp *s, bool input, int t);
/*
 * The imp tensor of graph input edge io, held in ONNX tensor t, which tr
 * (may be NULL) reads: a [1,H,W,C] tensor tr transposes to NCHW right away
 * (TensorFlow's exports) is laid out as the C × H × W map and its edge is
 * channels-last (*nhwc true); an [M,K] edge is channels-last too.
 */
int input_map(struct imp *s, int t, const struct onnx_node *tr, struct imp_io *io, bool *nhwc);
/* Whether a graph output showing ONNX tensor t (of that rank) orders its
 * elements channels last: a transposed map, or an [M,K] matrix; a
 * flattened map keeps NCHW order. */
bool edge_channels_last(const struct imp *s, int t, int rank);
int fail(struct imp *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool is_const(const struct imp *s, int t);
double const_at(const struct onnx_tensor *t, size_t i);
int get_scales(struct imp *s, int t, size_t n, float *out, size_t *count);
int get_zp(struct imp *s, int t, int32_t dtype_if_absent, int32_t *zp, bool *is_u8);
int add_tensor(struct imp *s, int onnx_t, unsigned int c, unsigned int h,
	       unsigned int w);
int new_qt(struct imp *s, int onnx_t);
struct imp_op *add_op(struct imp *s, enum imp_op_kind kind);
int set_params(struct imp *s, int it, float scale, int32_t zp);
/* The reshaped view t (a Reshape / Flatten of a map) laid out in its own
 * shape by a CPU "Reshape" op, for a reader that is no fully-connected
 * layer: the new imp tensor, which t names from now on, or a negative
 * errno value with a message. */
int reshape_map(struct imp *s, int t);
/* reshape_map for each reshaped view node n reads (directly, or through a
 * DequantizeLinear) unless n takes views as they are: called before n's
 * ops are added, so the layout op precedes them. 0 or a negative errno. */
int reshape_inputs(struct imp *s, const struct onnx_node *n);
/* Transpose p of the map of ONNX tensor src as the CPU op's perm[] (for
 * each output axis of the C × H × W map, the input axis), or a negative
 * errno value with a message. */
int transpose_map_perm(struct imp *s, const struct onnx_node *p, int src, int perm[3]);
int dq_input(const struct imp *s, int f);
int dq_source(struct imp *s, int f);
int weights_of(struct imp *s, int wq, int sc, int zpt, size_t channels,
	       struct qweights *w);
int weights_from_dq(struct imp *s, int w_f, int expected_axis, size_t channels,
		    struct qweights *w);
void qweights_free(struct qweights *w);
int bias_of(struct imp *s, int b_f, float in_scale, const struct qweights *w,
	    size_t channels, float mul, int32_t **out);

/* import_fp16.c: the fp16 ops of a hybrid int8 graph (onnx_node.fp16) */
/* Node n in fp16, each DequantizeLinear it reads of an int8 map made an
 * fp16 map by a CPU Cast first. 0 or a negative errno with a message. */
int fp16_map_in_int8(struct imp *s, const struct onnx_node *n);
/* QuantizeLinear q of an fp16 map (scale, zp its parameters) as a CPU Cast
 * to int8. */
int fp16_quantise(struct imp *s, const struct onnx_node *q, float scale, int32_t zp);
/* Float32 graph input t (edge io) as an fp16 map: an fp16 graph's inputs,
 * and a hybrid graph's that only fp16 ops read. */
int fp16_input(struct imp *s, int t, struct imp_io *io);

/* import_patterns.c */
void window_to_op(const struct onnx_window *w, struct imp_op *op);
int activation_of(struct imp *s, const struct onnx_node *a, struct imp_op *op);
int map_conv(struct imp *s, struct imp_op *op, const struct onnx_node *c,
	     const struct qweights *w, int bias_f, bool bias_is_int);
int fc_weights(struct imp_op *op, const struct imp_tensor *x, const struct qweights *w,
	       unsigned int k, unsigned int n, bool tb, unsigned int kh, unsigned int kw,
	       float alpha);
int map_fc(struct imp *s, struct imp_op *op, const struct onnx_node *p);
int map_pool(struct imp *s, struct imp_op *op, const struct onnx_node *p, int in);
int perm4(const struct onnx_node *n);
int map_transpose(struct imp *s, const struct onnx_node *q, const struct onnx_node *p,
		  float scale, int32_t zp);
bool zero_constant(const struct onnx_node *p);
int map_channel_pad(struct imp *s, struct imp_op *op, const struct onnx_node *p);
int map_activation(struct imp *s, struct imp_op *op, int f);
int map_cpu(struct imp *s, struct imp_op *op, const struct onnx_node *p);
/* Softmax p's axis as op->cpu_axis, or an error naming it. */
int softmax_axis(struct imp *s, const struct onnx_node *p, struct imp_op *op);
/* A Concat of two maps p as CPU op op (type and axis), or an error. */
int concat_params(struct imp *s, const struct onnx_node *p, struct imp_op *op);

/* The map axis (0 channels, 1 rows, 2 columns: RKB_CPU_AXIS_*) of ONNX
 * axis a of a rank-r tensor: [1, A, B, H, W] as A·B × H × W, [1, C, H, W],
 * [A, B, C] as C × H × W ([1, C, W] as C × 1 × W in a graph of 1-D
 * convolutions), [M, K] as M rows of K channels, [K] as K channels; -1 for
 * the batch axis, a rank-5 tensor's A or B, an axis out of range or a rank
 * outside 1..5. */
int imp_map_axis(const struct imp *s, int r, int a);

/* Whether ONNX tensor t has the shape of a map (new_qt's): rank 1 to 3,
 * or rank 4 or 5 of batch 1. */
bool imp_map_rank(const struct onnx_tensor *t);

/* import_spatial.c */
/* The kernel rows and columns of Conv weights wt: [M, C/g, kh, kw], or
 * [M, C/g, kw] for a 1-D convolution (one row). */
void conv_kernel(const struct onnx_tensor *wt, unsigned int *kh, unsigned int *kw);
/* The window of Conv n over imp tensor x, 2-D or 1-D. */
int conv_window(struct imp *s, const struct onnx_node *n, const struct imp_tensor *x,
		const struct onnx_tensor *wt, struct onnx_window *win);
/* A convolution's weights: m outputs, icg inputs per group, a kh × kw
 * kernel dilated dh × dw, over in_c input channels in `group` groups. */
struct conv_shape {
	unsigned int m, icg, kh, kw, dh, dw, group, in_c;
	bool depthwise;		/* one input and one output channel per group */
};
/* The conv_shape of Conv n (weights wt, window win) over in_c channels,
 * refused (naming group or dilations) where the NPU cannot take it. */
int conv_shape_of(struct imp *s, const struct onnx_node *n, unsigned int in_c,
		  const struct onnx_tensor *wt, const struct onnx_window *win,
		  struct conv_shape *c);
/* ONNX weights src [m][icg][kh][kw] (es bytes each) in the importer's
 * layout: depthwise [KH][KW][m], else OHWI [m][KH][KW][in_c] (KH, KW the
 * dilated kernel), `fill` (a zero weight) between the taps and outside
 * each output's group. malloc'd, *count elements; NULL when out of memory. */
void *conv_dense(const void *src, size_t es, const void *fill, const struct conv_shape *c,
		 size_t *count);
/* Every grouped convolution (a plain one whose kernels are zero outside
 * their group) whose layout allows, cut into convolutions of a few groups
 * each, reading and writing their channels in place: the MACs of those
 * groups only. 0, or a negative errno value. */
int split_grouped(struct imp *s);
/* Resize, DepthToSpace, SpaceToDepth, Slice, Split, Pad: CPU ops. */
bool spatial_moves(const struct onnx_node *n);
/* The CPU op of move p into op (between DequantizeLinear and the
 * QuantizeLinear of its output t). */
int map_spatial(struct imp *s, struct imp_op *op, const struct onnx_node *p, int t);
/* fp16: move n over imp tensor in, every output a new fp16 map. */
int map_spatial_fp16(struct imp *s, const struct onnx_node *n, int in);
/* ConvTranspose p between DequantizeLinear and QuantizeLinear (op: the
 * last op, its output and activation set). */
int map_deconv(struct imp *s, struct imp_op *op, const struct onnx_node *p);
/* fp16 ConvTranspose n over imp tensor in onto out: weights w, bias b (or
 * NULL) as the float constants of the node. */
int map_deconv_fp16(struct imp *s, const struct onnx_node *n, int in, const float *w,
		    const float *b, int out);

/* Concat of maps written in place by their producers where the layout
 * allows, else of more than two maps as a chain of CPU Concats (int8: op
 * the last op, its output set); 1 for two maps that need the CPU. */
int map_concat_n(struct imp *s, struct imp_op *op, const struct onnx_node *p);
/* fp16: the maps ins[] (one per input of n) onto out, in place or copied. */
int map_concat_n_fp16(struct imp *s, const struct onnx_node *n, const int *ins, int out);

/* import_ewise.c */
/* Whether n is an activation or element-wise op import_ewise.c maps. */
bool ewise_op(const struct onnx_node *n);
/* n between DequantizeLinear and QuantizeLinear as op (its output and a
 * fused activation set): a table, a depthwise affine convolution, the
 * NPU add or a broadcasting CPU op. */
int map_ewise_q(struct imp *s, struct imp_op *op, const struct onnx_node *p);
/* n on fp16 maps. */
int map_ewise_fp16(struct imp *s, const struct onnx_node *n);

/* import_fp16.c, for import_ewise.c */
/* The fp16 map a node reads as ONNX tensor f. */
int fp16_operand(struct imp *s, int f);
/* An fp16 feature map for ONNX tensor t. */
int fp16_tensor(struct imp *s, int t);
/* op writes ONNX tensor out, or the Relu reading it alone, fused. */
int fp16_fuse_relu(struct imp *s, struct imp_op *op, int out);
/* The NPU's add of fp16 maps a and b, writing n's output (a Relu fused). */
int fp16_add(struct imp *s, const struct onnx_node *n, int a, int b);

/* import_qlinear.c */
int map_q(struct imp *s, const struct onnx_node *q);
int map_qlinear_conv(struct imp *s, const struct onnx_node *n);
int map_qlinear_matmul(struct imp *s, const struct onnx_node *n);
int map_integer(struct imp *s, const struct onnx_node *n, bool conv);
int reads_int32(struct imp *s, const struct onnx_node *n);
int map_int_pool(struct imp *s, const struct onnx_node *n);

/* import_xformer.c */
/* Whether n is a transformer piece import_xformer.c maps: LayerNormalization,
 * ReduceMean / ReduceSum / ReduceMax, MatMul of a rank-3 or rank-4 A. */
bool xformer_op(const struct imp *s, const struct onnx_node *n);
/* n on fp16 maps, as a CPU op. */
int map_xformer_fp16(struct imp *s, const struct onnx_node *n);
/* n between DequantizeLinear and QuantizeLinear as CPU op op (output set). */
int map_xformer_q(struct imp *s, struct imp_op *op, const struct onnx_node *p);
/* Whether fp16 Transpose n is a move of a map's axes (not an edge view). */
bool transpose_fp16_op(const struct imp *s, const struct onnx_node *n);
int map_transpose_fp16(struct imp *s, const struct onnx_node *n);
/* Whether n is a Reshape of a rank-3/4 map into one (a move, not a view). */
bool reshape_of_maps(const struct imp *s, const struct onnx_node *n);
int map_reshape_fp16(struct imp *s, const struct onnx_node *n);
/* Whether view n (Reshape, Transpose, Gather at constant indices, Squeeze,
 * Unsqueeze, Flatten) writes a tensor no map holds, reads one, or is a
 * Gather: deferred, or the end of such a chain, a CPU Gather table. */
bool chain_view_fp16(const struct imp *s, const struct onnx_node *n);
int map_chain_fp16(struct imp *s, const struct onnx_node *n);
/* The same for view p quantised by QuantizeLinear q (scale, zp). */
bool chain_view_q(const struct imp *s, const struct onnx_node *q, const struct onnx_node *p);
int map_chain_q(struct imp *s, const struct onnx_node *q, const struct onnx_node *p,
		float scale, int32_t zp);
/* Reshape p, quantised by QuantizeLinear q (scale, zp). */
int map_reshape_q(struct imp *s, const struct onnx_node *q, const struct onnx_node *p,
		  float scale, int32_t zp);

#endif /* RKBARE_TOOLS_ONNX_IMPORT_INT_H */
