/* SPDX-License-Identifier: MIT */
/*
 * The spatial ops of the ONNX front end: Resize, DepthToSpace,
 * SpaceToDepth, Split, Slice and ConvTranspose — their attributes and
 * constant operands read once (the geometry below, which the importer
 * also takes), their shape inference and their float32 reference, from
 * the ONNX operator documents and, where the documents leave rounding
 * open, onnxruntime's definitions (Resize's coordinates are computed in
 * float32 as onnxruntime does, so nearest picks the same pixels).
 */
#ifndef RKBARE_TOOLS_ONNX_SPATIAL_H
#define RKBARE_TOOLS_ONNX_SPATIAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tools/onnx/onnx_graph.h"
#include "tools/onnx/onnx_shape.h"

/* Is op_type one of this file's ops? */
bool onnx_spatial_op(const char *op_type);

/* Shape inference of n (every output's dims and dtype). 0, or a negative
 * errno value with a message naming the node and the attribute. */
int onnx_spatial_infer(struct onnx_graph *g, const struct onnx_node *n, char *err,
		       size_t err_len);

/* The float32 reference of n: allocates and fills val[] of every output
 * (inputs in val[] already). 0, or a negative errno value. */
int onnx_spatial_ref(const struct onnx_graph *g, const struct onnx_node *n, float **val,
		     char *err, size_t err_len);

enum onnx_resize_mode { ONNX_RESIZE_NEAREST, ONNX_RESIZE_LINEAR, ONNX_RESIZE_CUBIC };

/* The input samples a cubic output sample weighs. */
#define ONNX_RESIZE_CUBIC_TAPS	4

/* Resize of a [N, C, H, W] tensor over H and W (N and C scale 1). */
struct onnx_resize {
	enum onnx_resize_mode mode;
	int coord;		/* coordinate_transformation_mode (onnx_spatial.c) */
	int nearest;		/* nearest_mode (onnx_spatial.c) */
	float cubic_a;		/* cubic_coeff_a */
	bool exclude_outside;	/* cubic: taps outside the input weigh 0 */
	float scale[2];		/* rows, columns: the scales the coordinates use */
	int in[2], out[2];	/* rows, columns */
};

/* The resize n applies to an in_h × in_w map (shapes of n's inputs known). */
int onnx_resize_get(const struct onnx_graph *g, const struct onnx_node *n, int in_h, int in_w,
		    struct onnx_resize *r, char *err, size_t err_len);
/* Nearest: the input index output index o takes along axis a (0 rows,
 * 1 columns). */
int onnx_resize_nearest(const struct onnx_resize *r, int a, int o);
/* Linear: the two input indices and the weight of the second. */
void onnx_resize_linear(const struct onnx_resize *r, int a, int o, int *i0, int *i1, float *f1);
/* Cubic: the input indices of the four taps (edges repeated) and their
 * weights (the ONNX operator's cubic convolution with cubic_coeff_a). */
void onnx_resize_cubic(const struct onnx_resize *r, int a, int o,
		       int idx[ONNX_RESIZE_CUBIC_TAPS], float w[ONNX_RESIZE_CUBIC_TAPS]);

/* Slice of a tensor of rank r: per axis the first index, the step and the
 * length. */
struct onnx_slice {
	int64_t start[ONNX_GRAPH_MAX_RANK], step[ONNX_GRAPH_MAX_RANK], len[ONNX_GRAPH_MAX_RANK];
};

int onnx_slice_get(const struct onnx_graph *g, const struct onnx_node *n, struct onnx_slice *s,
		   char *err, size_t err_len);

/* Split: the axis (non-negative) and each output's length along it. */
int onnx_split_get(const struct onnx_graph *g, const struct onnx_node *n, int *axis,
		   int64_t *len, char *err, size_t err_len);

/* ConvTranspose (2-D, NCHW): its geometry. */
struct onnx_deconv {
	int kh, kw, sh, sw, dh, dw;
	int pad_top, pad_left, pad_bottom, pad_right;
	int out_pad_h, out_pad_w;
	int group;
	int out_h, out_w;
};

int onnx_deconv_get(const struct onnx_node *n, int in_h, int in_w, int kh, int kw,
		    struct onnx_deconv *d, char *err, size_t err_len);

/* Is n a 1-D convolution: a Conv over an [N, C, W] input? The importer
 * lays such graphs' [1, C, W] maps out as C × 1 × W. */
bool onnx_conv1d(const struct onnx_graph *g, const struct onnx_node *n);

/* The window of 1-D Conv n over an in_w-wide input with a kw-wide kernel
 * (kw 0: a 1-D pool's, from its kernel_shape), as the 2-D window of one
 * row (onnx_window_get's, its 1-D attributes given a leading row axis:
 * kernel 1, stride 1, dilation 1, no pads). */
int onnx_conv1d_window(const struct onnx_node *n, int in_w, int kw, struct onnx_window *w,
		       char *err, size_t err_len);

/* Is n a 1-D window op: a Conv, MaxPool or AveragePool over an [N, C, W]
 * input (the pools' window onnx_conv1d_window's with kw 0)? */
bool onnx_window1d(const struct onnx_graph *g, const struct onnx_node *n);

/* Pad's modes. */
enum onnx_pad_mode { ONNX_PAD_CONSTANT, ONNX_PAD_REFLECT, ONNX_PAD_EDGE };

/* The mode of Pad node n, or -1 for one outside constant / reflect / edge. */
int onnx_pad_mode(const struct onnx_node *n);

/* The input index an output index o of a padded axis of length `in`
 * (before elements added in front) reads, or -1 for the constant. */
int64_t onnx_pad_source(enum onnx_pad_mode mode, int64_t o, int64_t before, int64_t in);

#endif /* RKBARE_TOOLS_ONNX_SPATIAL_H */
