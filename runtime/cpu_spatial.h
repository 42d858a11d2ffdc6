/* SPDX-License-Identifier: MIT */
/*
 * The pixel-moving built-in CPU ops (runtime/cpu_spatial.c) and their
 * parameters, int32 words in the op's `weights` (docs/FORMAT.md). The
 * compiler computes every index once; the run copies.
 */
#ifndef RKBARE_RUNTIME_CPU_SPATIAL_H
#define RKBARE_RUNTIME_CPU_SPATIAL_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/cpu_ops.h"

/*
 * Resize: the header {mode, 0, 0, 0}, then for nearest the source row of
 * each output row and the source column of each output column; for
 * linear, rows then columns, each as the first source index of every
 * output index, the second, and the second's weight (float32 bits, the
 * first's is 1 − it); for cubic (since 2.10), rows then columns, each as
 * the source index of every output index for each of the four taps, then
 * each tap's weight (float32 bits; any sign, summing to about 1).
 * Channels are not resized.
 */
#define RKB_CPU_RESIZE_HEADER	4u
#define RKB_CPU_RESIZE_TAPS	4u	/* cubic */
enum { RKB_CPU_RESIZE_NEAREST = 0, RKB_CPU_RESIZE_LINEAR = 1, RKB_CPU_RESIZE_CUBIC = 2 };

/* Words per output index in a Resize's tables of a mode: its source
 * indices and (linear, cubic) weights. */
static inline size_t rkb_cpu_resize_entry_words(int32_t mode)
{
	return mode == RKB_CPU_RESIZE_NEAREST ? 1u : mode == RKB_CPU_RESIZE_LINEAR ? 3u :
	       2u * RKB_CPU_RESIZE_TAPS;
}

/* DepthToSpace: {block, mode}; SpaceToDepth is its inverse (DCR order). */
enum { RKB_CPU_D2S_DCR = 0, RKB_CPU_D2S_CRD = 1, RKB_CPU_S2D = 2 };

/* Slice: {start, step} of channels, rows and columns; the output's shape
 * gives the counts. Steps may be negative. */
#define RKB_CPU_SLICE_PARAMS	6u

/*
 * Pad: {mode, value (float32 bits), before c, h, w, between c, h, w}: an
 * axis of n input elements becomes before + n + (n − 1)·between + after
 * (after from the output's shape); the elements added hold the value
 * (constant) or copies of the input's (reflect: mirrored without the edge;
 * edge: the edge repeated; neither with elements between).
 */
#define RKB_CPU_PAD_PARAMS	8u
enum { RKB_CPU_PAD_CONSTANT = 0, RKB_CPU_PAD_REFLECT = 1, RKB_CPU_PAD_EDGE = 2 };

/* The ops of cpu_spatial.c, for the registry (cpu_ops.c). */
const struct rkb_cpu_op *rkb_cpu_spatial_ops(size_t *n);

#endif /* RKBARE_RUNTIME_CPU_SPATIAL_H */
