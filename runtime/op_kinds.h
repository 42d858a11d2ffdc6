/* SPDX-License-Identifier: MIT */
/*
 * The op-kind table: one row per container op type (model_format.h enum
 * rkb_op_type) holding everything the code asks of a type: its name, the
 * record fields it uses, where it runs, the element types it takes, the
 * mapping of a record to the lowering's op (what the lowering makes of it:
 * rkb_op_shape), the loader's checks, the task count and the lowering call.
 * The loader and checker (model_load.c, model_check.c), the run
 * (model_run.c), the container writer (tools/onnx/model_write.c), `rkbare
 * info` and the bench all dispatch through rkb_op_kind_of(); a type without
 * a row is refused by each, never given a default.
 *
 * A CPU op's type has one row here; which CPU op it is (Sigmoid, Softmax...)
 * is the CPU op registry's business, by name (cpu_ops.h).
 */
#ifndef RKBARE_RUNTIME_OP_KINDS_H
#define RKBARE_RUNTIME_OP_KINDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compiler/regcmd.h"
#include "runtime/model.h"

struct rkb_loader;

/* Where an op runs. */
enum rkb_engine {
	RKB_ENGINE_NPU,		/* lowered into tasks of the program */
	RKB_ENGINE_CPU,		/* no tasks: a stage of its own between kicks */
};

/* Record fields a type uses besides type, name, in[0], out and reserved;
 * the loader refuses the others when not 0 (docs/FORMAT.md). */
enum rkb_op_uses {
	RKB_USES_IN2 = 1u << 0,		/* in[1]: a second input (a conv's: optional,
					 * the residual it adds) */
	RKB_USES_WINDOW = 1u << 1,	/* kh, kw, strides and pads: a kernel window */
	RKB_USES_ACT = 1u << 2,		/* act, act_min, act_max */
	RKB_USES_POOL = 1u << 3,	/* pool */
	RKB_USES_FLAGS = 1u << 4,	/* flags (RKB_OP_F_*) */
	RKB_USES_WQUANT = 1u << 5,	/* w_zp, w_scale_count, w_scale */
	RKB_USES_WEIGHTS = 1u << 6,	/* weights (an NPU op: in the native layout,
					 * lower_conv_pack; a CPU op: its parameters) */
	RKB_USES_BIAS = 1u << 7,	/* bias, mult */
	RKB_USES_SCRATCH = 1u << 8,	/* scratch_offset, scratch_bytes */
	RKB_USES_CPU_TYPE = 1u << 9,	/* cpu_type */
	RKB_USES_PARAMS = 1u << 10,	/* weights: parameter bytes, written as the
					 * importer gives them (an NPU op's function) */
};

/* Element types beyond int8 in, int8 out, which every type takes. */
enum rkb_op_dtypes {
	RKB_DTYPES_FP16 = 1u << 0,	/* fp16 in, fp16 out */
	RKB_DTYPES_INT32_OUT = 1u << 1,	/* int8 in, raw int32 sums out */
	RKB_DTYPES_CAST = 1u << 2,	/* int8 in, fp16 out or the reverse: an NPU
					 * type, or of the CPU's ops its Cast
					 * (RKB_CPU_CAST) alone */
};

/* What the lowering makes of a record: its tasks on one core, the channels
 * it needs its tensors to hold, what it reads and writes, its MACs. */
struct rkb_op_shape {
	size_t tasks;
	unsigned int in_c_mem;		/* channels in[0] must hold in memory (0: none) */
	unsigned int out_c_mem;		/* channels out must hold in memory (0: none) */
	unsigned int in2_c_mem;		/* channels in[1] must hold in memory (0: none) */
	unsigned int out_c_written;	/* channels of out the op writes */
	size_t scratch_bytes;		/* arena bytes of partial sums */
	size_t read_bytes, write_bytes;	/* DMA traffic of one run: tensors and constants */
	uint64_t useful_macs;		/* MACs of the real channels */
	uint64_t issued_macs;		/* MACs the array runs: the padded channel groups */
	bool fp16;			/* MACs at the fp16 rate */
};

struct rkb_op_kind {
	uint32_t type;			/* enum rkb_op_type */
	const char *name;		/* for messages and listings ("conv") */
	enum rkb_engine engine;
	/* Register entries per task the program makes room for: the op's
	 * tasks times this hold what it writes (rc_program_size). */
	size_t task_entries;
	uint32_t uses;			/* enum rkb_op_uses */
	uint32_t dtypes;		/* enum rkb_op_dtypes */
	/* The loader's checks of op i's type-specific fields, ending with the
	 * lowering's own check (lower_*_check); *tasks: its tasks on one core. */
	int (*check)(struct rkb_loader *l, uint32_t i, size_t *tasks);
	/* What the lowering makes of a record whose tensors (c, h, w, dtype,
	 * scale, zp, c_mem) and constants are in m; -1 when it refuses it, with
	 * the reason from the lowering (hal_err). The container writer sizes
	 * the tensors and constants with it, the bench counts the traffic. */
	int (*shape)(const struct rkb_model *m, const struct rkb_op *op, struct rkb_op_shape *s);
	/* Op lowered into p, cut for `cores` cores, or (p NULL) its task count
	 * for them in *count. NULL for a CPU op. */
	int (*lower)(const struct rkb_model *m, const struct rkb_op *op,
		     const struct rkb_op_addrs *a, unsigned int cores, struct rc_program *p,
		     size_t *count);
};

extern const struct rkb_op_kind rkb_op_kinds[];
extern const size_t rkb_op_kind_count;

/* The row of a container op type, or NULL: no such type. */
const struct rkb_op_kind *rkb_op_kind_of(uint32_t type);

/* A conv record's lowering op (the conv row's mapping; the container
 * writer packs the weights with it). */
void rkb_conv_op(const struct rkb_model *m, const struct rkb_op *op,
		 const struct rkb_op_addrs *a, struct lower_conv_op *out);

/* The types the table knows, as "conv 1, add 2, ..." into buf (for
 * messages); returns buf. */
const char *rkb_op_kind_list(char *buf, size_t len);

#endif /* RKBARE_RUNTIME_OP_KINDS_H */
