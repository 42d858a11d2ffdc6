/* SPDX-License-Identifier: MIT */
/*
 * Ops the NPU cannot run, run by the CPU between NPU stages (softmax over
 * any axis, sigmoid, tanh, an average pool over padding, a transpose of
 * the map's axes, a reshape into another C × H × W, a concatenation of two
 * maps, element-wise functions of
 * one map (Lut on int8, Unary) and of two (Binary, broadcasting), a Cast
 * between int8 and fp16 maps (at the edges of an int8 model's fp16 ops:
 * rkbare compile --keep-float) built in; any other type an application
 * registers). A
 * container names a CPU op by its type (RKB_OP_CPU, docs/FORMAT.md);
 * rkb_ctx_create() finds the implementation registered under that name and
 * asks it to check the op's tensors and parameters once; each run then
 * calls it where the op sits in the graph, on the tensors in the arena
 * (the NPU stage before it has ended, its output cache-invalidated; the
 * NPU stage after it starts once it returns). The tensors are int8 or fp16
 * (a model compiled with --precision fp16 or --keep-float), as their dtype
 * says;
 * rkb_cpu_get() and rkb_cpu_set() read and write either as real values.
 */
#ifndef RKBARE_RUNTIME_CPU_OPS_H
#define RKBARE_RUNTIME_CPU_OPS_H

#include <stddef.h>
#include <stdint.h>

/* Channels per 16-byte atom of the NC1HWC2 layout (docs/HARDWARE.md §5.1):
 * int8, and fp16. */
#define RKB_CPU_C2	16u
#define RKB_CPU_C2_FP16	8u

/* A tensor's element type; 0 is int8, so that a tensor written before
 * fp16 existed (its dtype zero-initialised) stays int8. */
enum rkb_cpu_dtype {
	RKB_CPU_INT8 = 0,	/* real = scale × (q − zp) */
	RKB_CPU_FP16 = 1,	/* IEEE half floats; scale 1 and zp 0 */
};

/* A feature map as the NPU leaves it. */
struct rkb_cpu_tensor {
	int8_t *data;		/* NC1HWC2, see rkb_cpu_at(); fp16: rkb_cpu_half() */
	unsigned int c, h, w;
	float scale;
	int32_t zp;
	enum rkb_cpu_dtype dtype;	/* last: positional initialisers stay int8 */
};

/* An fp16 tensor's elements (bit patterns), indexed by rkb_cpu_at(). */
static inline uint16_t *rkb_cpu_half(const struct rkb_cpu_tensor *t)
{
	return (uint16_t *)(void *)t->data;
}

/* Element index (int8: byte, fp16: half) of channel ch at (y, x). */
static inline size_t rkb_cpu_at(const struct rkb_cpu_tensor *t, unsigned int ch,
				unsigned int y, unsigned int x)
{
	unsigned int c2 = t->dtype == RKB_CPU_FP16 ? RKB_CPU_C2_FP16 : RKB_CPU_C2;

	return (((size_t)(ch / c2) * t->h + y) * t->w + x) * c2 + ch % c2;
}

/* The natural logarithm through the C library functions the kernel
 * library may need (docs/PORTING.md: frexpf, log1pf), for the built-in ops. */
float rkb_cpu_log(float x);

/* The real value of channel ch at (y, x): dequantised (int8) or widened
 * (fp16). */
float rkb_cpu_get(const struct rkb_cpu_tensor *t, unsigned int ch, unsigned int y,
		  unsigned int x);
/* Store real value v there: quantised as ONNX QuantizeLinear does (round
 * half to even, saturate; NaN to the zero point) or rounded to half
 * (nearest, ties to even). */
void rkb_cpu_set(const struct rkb_cpu_tensor *t, unsigned int ch, unsigned int y,
		 unsigned int x, float v);
/* v as the tensor stores it (int8: the quantised value; fp16: the bits). */
int32_t rkb_cpu_encode(const struct rkb_cpu_tensor *t, float v);

struct rkb_cpu_call {
	const char *node;		/* the op's name (for messages) */
	struct rkb_cpu_tensor in, out;
	struct rkb_cpu_tensor in2;	/* a second input (Concat); all 0 when none */
	const void *params;		/* the op's parameter bytes from the container */
	size_t params_bytes;
};

struct rkb_cpu_op {
	const char *type;		/* the name containers use, e.g. "Sigmoid" */
	/* Once, at create, with data NULL: 0, or non-zero with a reason in
	 * err (the context is then refused). May be NULL. */
	int (*check)(const struct rkb_cpu_call *call, char *err, size_t err_len);
	/* Each run: 0, or non-zero to fail the run (RKB_E_CPU_OP). */
	int (*run)(const struct rkb_cpu_call *call);
};

/* The built-in CPU op whose output's element type may differ from its
 * input's: int8 ↔ fp16, each value through its real value. */
#define RKB_CPU_CAST	"Cast"

/* Softmax's and LogSoftmax's parameter (an int32, none = channels): the
 * axis it runs over. */
enum rkb_cpu_axis {
	RKB_CPU_AXIS_C = 0,
	RKB_CPU_AXIS_H = 1,
	RKB_CPU_AXIS_W = 2,
};

/* AveragePool's parameters (int32): kernel h, w, strides y, x, pads top,
 * left; the output shape gives the rest. It averages the cells of each
 * window that lie inside the input (ONNX count_include_pad = 0), which
 * the PPU cannot. */
#define RKB_CPU_POOL_PARAMS	6

/* Transpose's parameters (int32): for each output axis (channels, rows,
 * columns), the input axis (0, 1, 2) it takes. It requantises when the
 * output's quantisation differs from the input's. */
#define RKB_CPU_TRANSPOSE_PARAMS	3

/* Concat's parameter (an int32): the axis (RKB_CPU_AXIS_*) along which the
 * second input follows the first; both requantised to the output's
 * quantisation when theirs differs. */

/*
 * Lut's parameters (int8 tensors of one shape): RKB_CPU_LUT_ENTRIES int8
 * results, entry i the output for input value i − 128; or one such table
 * per channel, channel k's at k × RKB_CPU_LUT_ENTRIES (PRelu's per-channel
 * slope). Any element-wise function of one int8 map is exactly such a
 * table; the compiler builds it (rkb_cpu_lut_build), the run looks up.
 */
#define RKB_CPU_LUT_ENTRIES	256u

/* The functions of Unary ops and Lut tables: ONNX's operators of the same
 * name; a and b are their float attributes. The *_K ones are a binary op
 * with a constant operand k = a (x the map): ONNX's Neg is 0 − x, its
 * Reciprocal 1 / x. */
enum rkb_cpu_fn {
	RKB_CPU_FN_RELU = 1,
	RKB_CPU_FN_CLIP,		/* a min, b max */
	RKB_CPU_FN_LEAKY_RELU,		/* a alpha */
	RKB_CPU_FN_SIGMOID,
	RKB_CPU_FN_TANH,
	RKB_CPU_FN_HARD_SIGMOID,	/* a alpha, b beta */
	RKB_CPU_FN_HARD_SWISH,
	RKB_CPU_FN_SWISH,		/* x · sigmoid(a · x) */
	RKB_CPU_FN_ELU,			/* a alpha */
	RKB_CPU_FN_SELU,		/* a alpha, b gamma */
	RKB_CPU_FN_SOFTPLUS,
	RKB_CPU_FN_GELU,		/* a 0: exact (erf), 1: the tanh approximation */
	RKB_CPU_FN_ADD_K,		/* x + k */
	RKB_CPU_FN_SUB_K,		/* x − k */
	RKB_CPU_FN_K_SUB,		/* k − x */
	RKB_CPU_FN_MUL_K,		/* x · k */
	RKB_CPU_FN_DIV_K,		/* x / k */
	RKB_CPU_FN_K_DIV,		/* k / x */
	RKB_CPU_FN_MAX_K,		/* max(x, k) */
	RKB_CPU_FN_MIN_K,		/* min(x, k) */
	RKB_CPU_FN_EXP,			/* since container 2.8, as the six below */
	RKB_CPU_FN_ABS,
	RKB_CPU_FN_SOFTSIGN,		/* x / (1 + |x|) */
	RKB_CPU_FN_SQRT,		/* NaN below 0, which int8 stores as its zero point */
	RKB_CPU_FN_LOG,			/* −inf at 0, NaN below */
	RKB_CPU_FN_POW_K,		/* x^k */
	RKB_CPU_FN_K_POW,		/* k^x */
	RKB_CPU_FN_COUNT
};

/* Unary's parameters: the function (int32), then a and b (float32); it
 * runs on int8 or fp16 maps of one shape (the compiler writes a Lut for
 * int8, fp16 runs the float function). */
#define RKB_CPU_UNARY_BYTES	12u

/* fn(x) with attributes a, b; NaN for an unknown fn. */
float rkb_cpu_fn_eval(int32_t fn, float a, float b, float x);

/* One function of a table chain: fn with attributes a, b. */
struct rkb_cpu_fn_step {
	int32_t fn;
	float a, b;
};

/*
 * The table of the functions steps[0], then steps[1], ... (n of them,
 * each in float32, as the ops one after the other without quantising
 * between them) from int8 input quantisation (in_scale, in_zp) to output
 * (out_scale, out_zp): table[i] = quantise(f(dequantise(i − 128))), as
 * QuantizeLinear rounds (half to even, saturating). 0, or -1 for no
 * step, an unknown fn or a scale that is not positive and finite.
 */
int rkb_cpu_lut_build(const struct rkb_cpu_fn_step *steps, size_t n, float in_scale,
		      int32_t in_zp, float out_scale, int32_t out_zp,
		      int8_t table[RKB_CPU_LUT_ENTRIES]);

/* The element-wise ops of two maps (Binary): ONNX's Add, Sub, Mul, Div,
 * Max, Min, and PRelu (x, slope). */
enum rkb_cpu_binop {
	RKB_CPU_BIN_ADD = 1,
	RKB_CPU_BIN_SUB,
	RKB_CPU_BIN_MUL,
	RKB_CPU_BIN_DIV,
	RKB_CPU_BIN_MAX,
	RKB_CPU_BIN_MIN,
	RKB_CPU_BIN_PRELU,
	RKB_CPU_BIN_POW,		/* since container 2.8 */
	RKB_CPU_BIN_COUNT
};

/* a op b; NaN for an unknown op. */
float rkb_cpu_binop_eval(int32_t op, float a, float b);

/*
 * Binary's parameters, int32 each: the op (enum rkb_cpu_binop), where the
 * constant operand is (RKB_CPU_BIN_NO_CONST: the operands are in, ONNX's
 * A, and in2, its B; RKB_CPU_BIN_CONST_A / _B: in is the other operand)
 * and the constant's c, h, w (0 without one), then its c × h × w float32
 * values, C, H, W order. Broadcasting as ONNX's (numpy's) on the C × H × W
 * maps: along each axis, each operand's extent is the output's or 1.
 */
enum { RKB_CPU_BIN_NO_CONST = 0, RKB_CPU_BIN_CONST_A = 1, RKB_CPU_BIN_CONST_B = 2 };
#define RKB_CPU_BINARY_HEADER	5u	/* int32 values before the constant's */

/* Maximum of types an application can register besides the built-ins. */
#define RKB_CPU_OPS_MAX		16u

/*
 * Register `op` (kept by pointer: it must stay valid) for contexts created
 * from now on. RKB_OK, RKB_E_ARG for a missing type or run function or a
 * type registered already (built-ins included), RKB_E_NOMEM when
 * RKB_CPU_OPS_MAX are registered.
 */
int rkb_cpu_op_register(const struct rkb_cpu_op *op);

/* The implementation of `type`, or NULL. */
const struct rkb_cpu_op *rkb_cpu_op_find(const char *type);

#endif /* RKBARE_RUNTIME_CPU_OPS_H */
