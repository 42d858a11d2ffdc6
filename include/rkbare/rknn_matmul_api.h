/* SPDX-License-Identifier: MIT */
/*
 * A matmul API shaped like Rockchip's rknn_matmul_api.h (names, structures,
 * error codes and native layouts as the vendor header documents them), on
 * top of rkbare's driver and regcmd compiler: C = A × B.
 *
 * All 13 types. What the NPU runs for each (docs/HARDWARE.md §5.7: the
 * TRM's CNA has one precision for data and weights; rkbare lowers int8,
 * fp16 and int4 × int4 → int16):
 *   INT8→INT32, INT8→INT8, FP16→FP32, FP16→FP16   as laid out;
 *   FP16×INT8→FP32/FP16, FP16×INT4→FP32/FP16/BF16 B dequantised to fp16,
 *       fp16(sB · (b − zB)), then fp16 × fp16 (BF16: fp32 out, rounded to
 *       bf16 on the CPU at each run, one pass over M × N);
 *   INT8×INT8→FP32, INT8×INT4→FP16   int8 × int8 → int32 (int4 B widened),
 *       then C = sA · sB[n] · Σ (a − zA)(b − zB[n]) on the CPU at each run
 *       (one pass over M × N, and over M × K when a zero point of B is not 0);
 *   INT8×INT4→INT32   int4 B widened to int8, raw sums;
 *   INT4×INT4→INT16   natively for K up to 8192 (padded): int4 × int4, the
 *       int32 sums saturated to int16 by the DPU; A, B and C native layouts
 *       are what the NPU reads and writes (normal layouts: one pass over
 *       M × K for A and K × N for B at each run, as for int8; C's over
 *       M × N). Half the weight bytes of int8 and, by the TRM, twice its
 *       MACs per cycle. K above 8192: no board-run stream adds int4 partial
 *       sums, so A and B are widened to int8 (B once, when bound; A at each
 *       run, one pass over M × K), summed in int32 over the segments and
 *       saturated to int16 on the CPU — the same result.
 * B of every type but the first four is read and converted ONCE, when
 * rknn_matmul_set_io_mem binds it (and again at the next run after
 * set_quant_params changes B's parameters), never per run: write B before
 * binding it, bind it again after changing it. Cost: one pass over K × N
 * and an internal K × N buffer of fp16 (weight-only) or int8. (INT4×INT4
 * within one K segment reads B as the first four types do.)
 *
 * Quantisation (set_quant_params, name "A"/"B"/"C"):
 *   B_quant_type 0 per-layer (one scale, zero point), 1 per-channel (N,
 *   index n), 2 per-group (group_size 32/64/128/256 dividing K, K/group_size
 *   · N entries, index (k / group_size) · N + n); zp_len 0 is symmetric.
 *   Per-channel: FP16×INT8/INT4 and INT8×INT8→FP32, INT8×INT4→FP16;
 *   per-group: FP16×INT8/INT4 only (integer sums are dequantised after the
 *   whole K). Weight-only types take B's parameters only; the dequantised
 *   integer types A's (per-layer) and B's; raw integer outputs (INT32,
 *   INT16) need zero points 0. int4 zero points lie in -8..7.
 *
 * K and N need no alignment: they are zero-padded inside, K to 32, N to B's
 * block (64 int4, 32 int8, 16 fp16).
 *
 * Layouts (AC_layout / B_layout 1 = native; int4 two a byte, the low nibble
 * first):
 *   A native  (K/32, M, 32) int4, (K/16, M, 16) int8, (K/8, M, 8) fp16
 *   B native  (N/64, K/32, 64, 32) int4, (N/32, K/32, 32, 32) int8,
 *             (N/16, K/32, 16, 32) fp16
 *   C native  (N/C2, M, C2), C2 = 16 bytes / element: 16 int8, 8 fp16 / bf16
 *             / int16, 4 int32 / fp32
 * with K, N as padded, dense for every M (M = 1 included: an LLM decoding
 * step reads and writes M rows, not four). io_attr gives the dims and byte
 * sizes to allocate (int4 normal layouts: M·K/2, K·N/2 rounded up).
 *
 * K: 1..65536 (int8 → int8: 1..32768). Above 8192, B is split as the vendor
 * does on RK3588 ("when K > 8192, the B data will be split into T
 * segments", T = ceil(K / 8192)): rows 8192·t .. of B form segment t, each
 * segment laid out alone in the native layout above with its own K (the
 * last one padded to 32), the segments one after the other; the total size
 * is that of the unsegmented layout. rknn_B_normal_layout_to_native_layout
 * produces it. The NPU computes segment by segment and adds the partial
 * sums (int32 / fp32) in the DPU; the bounds keep int8 sums (with zero
 * points for int8 → int8) inside int32.
 *
 * Compile once, run many: the first rknn_matmul_run builds the command
 * stream and keeps it; later runs only convert the normal layouts, kick and
 * poll, until the memory, the shape, the core mask or the quantisation
 * changes.
 *
 * Dynamic shapes: rknn_matmul_create_dynamic_shape registers 1..64 shapes
 * that may differ in M only (the vendor's current rule), fills io_attrs[i]
 * for each and runs shape 0 until rknn_matmul_set_dynamic_shape selects
 * another registered one. Memory set with set_io_mem is shared by all
 * shapes; run checks that it is large enough for the selected one.
 *
 * rkbare specifics: the first context (matmul or model, rknn_api.h) brings
 * the NPU up with the board defaults unless rknn_matmul_bind() handed over a
 * device and DMA pool first; memory bound with set_io_mem must come from
 * rknn_create_mem() (NPU-visible, below 4 GiB), unaltered: a hand-made
 * rknn_tensor_mem is refused. Bindings are counted: memory destroyed while
 * bound goes back to the pool when the context lets go of it (another
 * memory set in its place, or rknn_matmul_destroy), and a run that would
 * use it is refused. Handles, threads: as rknn_api.h (docs/PORTING.md,
 * "Lifetimes and threads"). AC_quant_type other than 0 is refused.
 */
#ifndef RKBARE_RKNN_MATMUL_API_H
#define RKBARE_RKNN_MATMUL_API_H

#include <stdint.h>

#include "rknn_api.h"

typedef uint64_t rknn_matmul_ctx;

typedef enum _rknn_matmul_type {
	RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32 = 1,
	RKNN_INT8_MM_INT8_TO_INT32 = 2,
	RKNN_INT8_MM_INT8_TO_INT8 = 3,
	RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT16 = 4,
	RKNN_FLOAT16_MM_INT8_TO_FLOAT32 = 5,
	RKNN_FLOAT16_MM_INT8_TO_FLOAT16 = 6,
	RKNN_FLOAT16_MM_INT4_TO_FLOAT32 = 7,
	RKNN_FLOAT16_MM_INT4_TO_FLOAT16 = 8,
	RKNN_INT8_MM_INT8_TO_FLOAT32 = 9,
	RKNN_INT4_MM_INT4_TO_INT16 = 10,
	RKNN_INT8_MM_INT4_TO_INT32 = 11,
	RKNN_FLOAT16_MM_INT4_TO_BFLOAT16 = 12,
	RKNN_INT8_MM_INT4_TO_FLOAT16 = 15,
} rknn_matmul_type;

typedef struct rknn_matmul_info_t {
	int32_t M;
	int32_t K;
	int32_t N;
	rknn_matmul_type type;
	int16_t B_layout;	/* 0 normal (K, N), 1 native */
	int16_t B_quant_type;	/* 0 per-layer, 1 per-channel, 2 per-group (above) */
	int16_t AC_layout;	/* 0 normal, 1 native */
	int16_t AC_quant_type;	/* 0 only */
	int32_t iommu_domain_id;
	int16_t group_size;	/* per-group only: 32, 64, 128, 256; else 0 */
	int8_t reserved[34];
} rknn_matmul_info;

typedef struct rknn_matmul_tensor_attr {
	char name[RKNN_MAX_NAME_LEN];	/* "A", "B", "C" */
	uint32_t n_dims;
	uint32_t dims[RKNN_MAX_DIMS];
	uint32_t size;			/* bytes */
	rknn_tensor_type type;
} rknn_matmul_tensor_attr;

typedef struct rknn_matmul_io_attr {
	rknn_matmul_tensor_attr A;
	rknn_matmul_tensor_attr B;
	rknn_matmul_tensor_attr C;
} rknn_matmul_io_attr;

typedef struct _rknn_matmul_shape {
	int32_t M;
	int32_t K;
	int32_t N;
} rknn_matmul_shape;

typedef struct _rknn_quant_params {
	char name[RKNN_MAX_NAME_LEN];	/* "A", "B" or "C" */
	float *scale;
	int32_t scale_len;
	int32_t *zp;
	int32_t zp_len;
} rknn_quant_params;

struct npu_dev;
struct dma_pool;

/* rkbare: the device (powered up) and the DMA pool every context uses,
 * instead of the board defaults; before the first context. */
int rknn_matmul_bind(struct npu_dev *dev, struct dma_pool *pool);

int rknn_matmul_create(rknn_matmul_ctx *ctx, rknn_matmul_info *info,
		       rknn_matmul_io_attr *io_attr);
int rknn_matmul_set_io_mem(rknn_matmul_ctx ctx, rknn_tensor_mem *mem,
			   rknn_matmul_tensor_attr *attr);
/* rkbare: two or three cores named split the matmul by N, in kernel groups,
 * and run together (runtime/matmul_api.c says when fewer cores run); AUTO
 * is core 0, ALL the three cores. */
int rknn_matmul_set_core_mask(rknn_matmul_ctx ctx, rknn_core_mask core_mask);
int rknn_matmul_set_quant_params(rknn_matmul_ctx ctx, rknn_quant_params *params);

/*
 * The vendor documents this for int8 → int32 with per-channel B: it returns
 * B's scales normalised over the channels, *scale being the value that
 * times A's scale gives C's scale (user guide 4.5.5, rknn_matmul_api.h).
 * rkbare returns the parameters as set:
 *   params->name  "A", "B" or "C" selects the tensor; "" means B (and is
 *                 set to "B");
 *   params->scale / zp  NULL, or arrays of scale_len / zp_len >= 1
 *                 entries: the first of the tensor's scales / zero points
 *                 fill them (scale 1, zero point 0 by default);
 *   scale_len / zp_len  set to the tensor's count: 1 per-layer, B's
 *                 per-channel / per-group count;
 *   *scale        B's first scale whatever the name.
 * Types with quantisation parameters only (not FP16→FP16/FP32);
 * RKNN_ERR_PARAM_INVALID with a message otherwise.
 */
int rknn_matmul_get_quant_params(rknn_matmul_ctx ctx, rknn_quant_params *params, float *scale);

int rknn_matmul_create_dynamic_shape(rknn_matmul_ctx *ctx, rknn_matmul_info *info,
				     int shape_num, rknn_matmul_shape dynamic_shapes[],
				     rknn_matmul_io_attr io_attrs[]);
int rknn_matmul_set_dynamic_shape(rknn_matmul_ctx ctx, rknn_matmul_shape *shape);
int rknn_matmul_run(rknn_matmul_ctx ctx);
int rknn_matmul_destroy(rknn_matmul_ctx ctx);


/* B (K × N, row-major, in info's B type) → its native layout (zero-padded
 * K, N; in segments when K > 8192, see above); every type. K and N must be
 * info's. B_output holds io_attr.B.size bytes, the padded size
 * rknn_matmul_create reports for info. Where that is no more than K × N
 * elements (K and N multiples of the native blocks: 32 × 64 int4, 32 × 32
 * int8, 32 × 16 fp16) any buffer as large as
 * B_input will do; where padding makes it larger, B_output must lie in
 * rknn_create_mem memory with that much room (the vendor's signature has no
 * output size, and the runtime knows its own memory's): otherwise
 * RKNN_ERR_PARAM_INVALID, nothing written. */
int rknn_B_normal_layout_to_native_layout(void *B_input, void *B_output, int K, int N,
					  rknn_matmul_info *info);

#endif /* RKBARE_RKNN_MATMUL_API_H */
