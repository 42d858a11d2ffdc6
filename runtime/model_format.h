/* SPDX-License-Identifier: MIT */
/*
 * The rkbare model container, version 2 (docs/FORMAT.md is the
 * specification; this header is its C form, shared by the writer in the
 * host tool and the verifying loader in runtime/model_load.c).
 *
 * All fields are little-endian, every record a multiple of 4 bytes; the
 * loader copies records out of the blob with memcpy, so the blob needs no
 * alignment in memory. The file carries ops, not register streams: the
 * lowering runs at init (runtime/model_run.c), where the buffer addresses
 * are known, so nothing in the file needs relocating.
 */
#ifndef RKBARE_RUNTIME_MODEL_FORMAT_H
#define RKBARE_RUNTIME_MODEL_FORMAT_H

#include <stdint.h>

#define RKB_MAGIC		0x4d424b52u	/* "RKBM" */
#define RKB_VERSION_MAJOR	2u
#define RKB_VERSION_MINOR	10u
#define RKB_TARGET_RK3588	3588u
/* Constants are 64-byte aligned in the file and in the DMA copy. */
#define RKB_CONST_ALIGN		64u
/* Activations are placed on this boundary in the arena; a view
 * (rkb_view) on a surface of its parent, a multiple of 16 bytes, which
 * the NPU's data addresses need (docs/HARDWARE.md §3.6). */
#define RKB_ARENA_ALIGN		64u
#define RKB_VIEW_ALIGN		16u
#define RKB_NONE		0xffffffffu
#define RKB_MAX_RANK		6u

struct rkb_header {
	uint32_t magic;
	uint16_t version_major;		/* a loader refuses another major */
	uint16_t version_minor;		/* newer minors only add optional sections */
	uint32_t header_bytes;		/* sizeof(struct rkb_header) */
	uint32_t file_bytes;
	uint32_t crc32;			/* CRC-32 (IEEE) of the file with this field 0 */
	uint32_t target;		/* RKB_TARGET_* */
	uint32_t flags;			/* none defined: 0 */
	uint32_t section_count;
	uint32_t section_offset;	/* the table: section_count rkb_section */
	uint32_t reserved[7];		/* 0 */
};

enum rkb_section_type {
	RKB_SEC_STRINGS = 1,	/* NUL-terminated names; offset 0 is "" */
	RKB_SEC_TENSORS = 2,	/* struct rkb_tensor[] */
	RKB_SEC_OPS = 3,	/* struct rkb_op[], in execution order */
	RKB_SEC_INPUTS = 4,	/* struct rkb_io[] */
	RKB_SEC_OUTPUTS = 5,	/* struct rkb_io[] */
	RKB_SEC_CONSTANTS = 6,	/* packed weights, biases, multipliers, scales */
	RKB_SEC_PLAN = 7,	/* struct rkb_plan */
	RKB_SEC_USER = 8,	/* optional: a user string (rknn CUSTOM_STRING) */
	RKB_SEC_SHAPES = 9,	/* optional, since 2.2: more input shape sets,
				 * count of them; each an rkb_shape_set and its
				 * records */
	RKB_SEC_VIEWS = 10,	/* optional, since 2.4: struct rkb_view[] */
	RKB_SEC_TYPES_END
};

struct rkb_section {
	uint32_t type;		/* enum rkb_section_type, each at most once */
	uint32_t offset;	/* from the file start; CONSTANTS RKB_CONST_ALIGN-aligned */
	uint32_t bytes;
	uint32_t count;		/* records (bytes / record size), or bytes for blobs */
};

enum rkb_dtype {
	RKB_DT_INT8 = 1,	/* NC1HWC2, C2 = 16 */
	RKB_DT_INT32 = 2,	/* NC1HWC2, C2 = 4: the raw sums of a convolution
				 * (ConvInteger), a graph output only; since 2.2 */
	RKB_DT_FP16 = 3,	/* NC1HWC2, C2 = 8, scale 1, zp 0: the tensors of
				 * an fp16 model (`--precision fp16`); since 2.3 */
};

/* A feature map C × H × W (batch 1) in the activation arena. */
struct rkb_tensor {
	uint32_t name;		/* STRINGS offset */
	uint32_t dtype;		/* enum rkb_dtype */
	uint32_t c, h, w;
	uint32_t c_mem;		/* channels laid out in memory (>= c; producers and
				 * consumers may work on wider channel groups) */
	float scale;		/* real = scale × (q − zp), signed int8 domain
				 * (int32, fp16: 1 and 0) */
	int32_t zp;
	uint32_t arena_offset;	/* RKB_ARENA_ALIGN-aligned */
	uint32_t arena_bytes;	/* >= the NC1HWC2 bytes of c_mem channels */
};

/*
 * A tensor that is channels [c_offset, c_offset + c_mem) of another, its
 * parent: the same dtype, rows and columns, at the parent's arena offset
 * plus c_offset / C2 surfaces (H·W·16 bytes each). Either the parent is
 * written by no op and its views, each by one op, are the parts of a
 * Concat along the channels written in place (they do not overlap and
 * cover its channels; it is whole once the last is written), or an op
 * writes the parent and no op its views, which are read (the parts of a
 * Split or Slice along the channels). Neither is a graph input or output.
 * One list holds for every shape set.
 */
struct rkb_view {
	uint32_t tensor;
	uint32_t parent;	/* not itself a view */
	uint32_t c_offset;	/* a multiple of the dtype's C2 */
	uint32_t reserved;	/* 0 */
};

enum rkb_io_kind {
	RKB_IO_FLOAT = 1,	/* float32 at the edge, (de)quantised by the run */
	RKB_IO_INT8 = 2,	/* int8 values as they are */
	RKB_IO_UINT8 = 3,	/* uint8 values, = int8 + 128 */
	RKB_IO_INT32 = 4,	/* int32 values as they are (an RKB_DT_INT32 tensor) */
};

/* How the elements of an edge are ordered in the user's (ONNX) view. */
enum rkb_io_layout {
	RKB_LAYOUT_NCHW = 0,	/* channels before rows: C, H, W row-major */
	RKB_LAYOUT_NHWC = 1,	/* channels last: an [M, K] matrix, a transposed map */
};

/* A graph input or output: a tensor and the user's view of it (the ONNX
 * shape, row-major, in `layout` order). */
struct rkb_io {
	uint32_t name;		/* STRINGS offset */
	uint32_t tensor;
	uint32_t kind;		/* enum rkb_io_kind */
	uint32_t layout;	/* enum rkb_io_layout */
	uint32_t rank;		/* 1 .. RKB_MAX_RANK; dims product = c × h × w */
	uint32_t dims[RKB_MAX_RANK];
};

enum rkb_op_type {
	RKB_OP_CONV = 1,	/* convolution, depthwise, fully connected */
	RKB_OP_ADD = 2,		/* element-wise add of two tensors */
	RKB_OP_POOL = 3,	/* max or average pooling */
	RKB_OP_CPU = 4,		/* run on the CPU by the implementation registered for
				 * cpu_type (runtime/cpu_ops.h); since version 2.1 */
	RKB_OP_LUT = 5,		/* a function through the DPU's lookup table: fp16,
				 * its Unary parameters in `weights`
				 * (runtime/npu_fn.h), since version 2.6; int8,
				 * a Lut's table (runtime/cpu_ops.h), since 2.7 */
	RKB_OP_CONVERT = 6,	/* an int8 map into fp16 or the reverse in the DPU,
				 * as the CPU's Cast; since 2.9 */
};

#define RKB_OP_F_DEPTHWISE	(1u << 0)
/* CONV, since 2.3: the per-channel multipliers are powers of two and
 * OUT_CVT rounds (lower_conv_op.pow2_requant) */
#define RKB_OP_F_POW2		(1u << 1)

enum rkb_act {
	RKB_ACT_NONE = 0,
	RKB_ACT_RELU = 1,
	RKB_ACT_RELU6 = 2,
	RKB_ACT_CLIP = 3,	/* clamp to [act_min, act_max], real values */
};

enum rkb_pool {
	RKB_POOL_AVG = 0,
	RKB_POOL_MAX = 1,
};

/* A byte range of CONSTANTS (offset RKB_CONST_ALIGN-aligned when bytes). */
struct rkb_range {
	uint32_t offset;
	uint32_t bytes;
};

struct rkb_op {
	uint32_t type;		/* enum rkb_op_type */
	uint32_t name;		/* STRINGS offset: the source node, for messages */
	uint32_t in[2];		/* tensors; in[1] RKB_NONE unless RKB_OP_ADD, a
				 * two-input CPU op, or a conv's residual (since
				 * 2.5: added before the activation) */
	uint32_t out;
	uint32_t flags;		/* RKB_OP_F_* */
	uint32_t kh, kw, stride_y, stride_x;
	uint32_t pad_top, pad_left, pad_bottom, pad_right;
	uint32_t act;		/* enum rkb_act (CONV and ADD) */
	float act_min, act_max;	/* RKB_ACT_CLIP */
	uint32_t pool;		/* enum rkb_pool (POOL) */
	int32_t w_zp;		/* CONV: weight zero point, signed domain */
	uint32_t w_scale_count;	/* CONV: 1 or out channels */
	struct rkb_range w_scale;	/* CONV: float32[w_scale_count] */
	struct rkb_range weights;	/* CONV: native layout (lower_conv_pack) */
	struct rkb_range bias;		/* CONV: native int32 (fp16 ops: fp32, or
					 * empty for no bias) */
	struct rkb_range mult;		/* CONV: per-channel multipliers, or empty */
	uint32_t scratch_offset;	/* CONV: arena offset of the partial sums */
	uint32_t scratch_bytes;		/* CONV: 0 when the layer needs none */
	uint32_t cpu_type;		/* CPU: STRINGS offset of the op type ("Sigmoid");
					 * its parameters, if any, in `weights`. Else 0 */
	uint32_t reserved;		/* 0 */
};

struct rkb_plan {
	uint32_t arena_bytes;	/* activation memory, tensors overlap by liveness */
	uint32_t tasks;		/* NPU tasks the lowering will build (a check) */
	uint32_t reserved[2];	/* 0 */
};

/*
 * One more input shape set (dynamic shapes, rknn_set_input_shapes): the
 * model's TENSORS, OPS, INPUTS, OUTPUTS and PLAN as they are for other
 * input dimensions, following this header in that order. STRINGS and
 * CONSTANTS are the model's: a shape set changes shapes, pads and the
 * arena plan, never the weights. The sections outside SHAPES are set 0.
 */
struct rkb_shape_set {
	uint32_t n_tensors, n_ops;
	uint32_t n_inputs, n_outputs;	/* = the model's */
	struct rkb_plan plan;
};

#endif /* RKBARE_RUNTIME_MODEL_FORMAT_H */
