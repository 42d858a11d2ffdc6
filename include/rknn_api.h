/* SPDX-License-Identifier: MIT */
/*
 * The model inference API of rkbare under the names, structures, values and
 * semantics of Rockchip's rknn_api.h (librknnrt), for the subset rkbare
 * implements, so that code written for librknnrt ports by relinking. The
 * model is an rkbare container (docs/FORMAT.md), not a .rknn file.
 *
 * The first context brings the NPU up (all cores powered) and creates the
 * DMA pool with the board defaults, as librknnrt opens its device; an
 * application that has already brought them up hands them over with
 * rknn_matmul_bind() (rkbare/rknn_matmul_api.h) before the first context.
 *
 * Implemented: rknn_init from a buffer (flags: priorities, which rkbare
 * does not order; RKNN_FLAG_COLLECT_PERF_MASK; RKNN_FLAG_ASYNC_MASK: rknn_run
 * starts the frame and returns, rknn_outputs_get returns the frame before
 * without waiting — zeros and frame_id 0 before any frame has ended — and
 * rknn_inputs_set, rknn_run and rknn_wait wait for the frame in flight,
 * whose outputs rknn_outputs_get then returns; RKNN_FLAG_MEM_ALLOC_OUTSIDE:
 * nothing runs before rknn_set_internal_mem); rknn_query IN_OUT_NUM,
 * INPUT_ATTR, OUTPUT_ATTR, NATIVE_INPUT_ATTR / NATIVE_OUTPUT_ATTR
 * (NC1HWC2), SDK_VERSION, MEM_SIZE, PERF_RUN, PERF_DETAIL (with
 * RKNN_FLAG_COLLECT_PERF_MASK every op runs as a kick of its own, and the
 * text gives each op's NPU or CPU time and tasks), CUSTOM_STRING,
 * INPUT_DYNAMIC_RANGE (the container's shape sets), CURRENT_INPUT_ATTR /
 * CURRENT_OUTPUT_ATTR / CURRENT_NATIVE_* (= the plain ones, which follow
 * the set in use); rknn_set_input_shapes (picks a shape set compiled into
 * the container, rkbare compile --shape-set; the program is lowered for it
 * then; memory bound with rknn_set_io_mem is released, as sizes change; a
 * duplicate starts with set 0); int32 outputs (ConvInteger, MatMulInteger:
 * RKNN_TENSOR_INT32, or float with want_float); rknn_inputs_set (float32,
 * float16, int8, uint8; NCHW or NHWC; pass_through = native NC1HWC2 int8);
 * rknn_run / rknn_wait (without the async flag a run completes before
 * rknn_run returns);
 * rknn_outputs_get (want_float, is_prealloc) / rknn_outputs_release;
 * rknn_set_core_mask (AUTO = core 0, one core, or several: the model is
 * spread over them — each convolution cut into per-core kernel groups or
 * row bands, one kick per core and spread op — with the single-core
 * outputs bit for bit; ALL = the three); rknn_dup_context (a context on
 * the same model buffer sharing the weights in DMA memory, freed with the
 * last of them); rknn_create_mem / rknn_destroy_mem;
 * rknn_set_io_mem (zero copy: an input or output in the caller's memory,
 * native layout only, NC1HWC2 int8; memory from rknn_create_mem only; memory
 * destroyed while bound is freed with its last binding, and a context
 * holding it refuses to run); rknn_set_internal_mem / rknn_set_weight_mem (the activation
 * arena / the weights in the caller's memory, at least the MEM_SIZE
 * query's sizes; the arena is zeroed, the weights copied in);
 * rknn_destroy. Everything else returns RKNN_ERR_PARAM_INVALID with a
 * message: the other init flags (internal memory allocated outside per
 * tensor, weight sharing, fences, SRAM, GPU fallback), model paths (size
 * 0), the other queries, shapes that are none of the container's sets.
 *
 * Lifetimes and threads (docs/PORTING.md): rknn_init copies the model, so
 * the caller may free its buffer once rknn_init returns; with
 * RKNN_FLAG_MODEL_BUFFER_ZERO_COPY the context reads the caller's buffer,
 * which must then stay alive and unchanged until the last context on it
 * (duplicates included) is destroyed. Handles are checked against a table:
 * destroyed, stale and garbage handles give RKNN_ERR_CTX_INVALID. Calls on
 * different contexts run concurrently (one context per NPU core runs the
 * cores in parallel; contexts sharing a core take turns); a call on a
 * context another thread is in returns RKNN_ERR_DEVICE_UNAVAILABLE
 * (docs/PORTING.md, "Concurrency"). With RKNN_FLAG_ASYNC_MASK, the PERF_RUN and
 * PERF_DETAIL queries are refused the same way while a frame is in flight.
 */
#ifndef RKBARE_RKNN_API_H
#define RKBARE_RKNN_API_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* rknn_init flags (bit values as librknnrt's). */
#define RKNN_FLAG_PRIOR_HIGH				0x00000000
#define RKNN_FLAG_PRIOR_MEDIUM				0x00000001
#define RKNN_FLAG_PRIOR_LOW				0x00000002
#define RKNN_FLAG_ASYNC_MASK				0x00000004
#define RKNN_FLAG_COLLECT_PERF_MASK			0x00000008
#define RKNN_FLAG_MEM_ALLOC_OUTSIDE			0x00000010
#define RKNN_FLAG_SHARE_WEIGHT_MEM			0x00000020
#define RKNN_FLAG_FENCE_IN_OUTSIDE			0x00000040
#define RKNN_FLAG_FENCE_OUT_OUTSIDE			0x00000080
#define RKNN_FLAG_COLLECT_MODEL_INFO_ONLY		0x00000100
#define RKNN_FLAG_INTERNAL_ALLOC_OUTSIDE		0x00000200
#define RKNN_FLAG_EXECUTE_FALLBACK_PRIOR_DEVICE_GPU	0x00000400
#define RKNN_FLAG_ENABLE_SRAM				0x00000800
#define RKNN_FLAG_SHARE_SRAM				0x00001000
#define RKNN_FLAG_DISABLE_PROC_HIGH_PRIORITY		0x00002000
#define RKNN_FLAG_DISABLE_FLUSH_INPUT_MEM_CACHE		0x00004000
#define RKNN_FLAG_DISABLE_FLUSH_OUTPUT_MEM_CACHE	0x00008000
#define RKNN_FLAG_MODEL_BUFFER_ZERO_COPY		0x00010000

/* Error codes. */
#define RKNN_SUCC					0
#define RKNN_ERR_FAIL					-1
#define RKNN_ERR_TIMEOUT				-2
#define RKNN_ERR_DEVICE_UNAVAILABLE			-3
#define RKNN_ERR_MALLOC_FAIL				-4
#define RKNN_ERR_PARAM_INVALID				-5
#define RKNN_ERR_MODEL_INVALID				-6
#define RKNN_ERR_CTX_INVALID				-7
#define RKNN_ERR_INPUT_INVALID				-8
#define RKNN_ERR_OUTPUT_INVALID				-9
#define RKNN_ERR_DEVICE_UNMATCH				-10
#define RKNN_ERR_INCOMPATILE_PRE_COMPILE_MODEL		-11
#define RKNN_ERR_INCOMPATILE_OPTIMIZATION_LEVEL_VERSION	-12
#define RKNN_ERR_TARGET_PLATFORM_UNMATCH		-13

#define RKNN_MAX_DIMS				16
#define RKNN_MAX_NUM_CHANNEL			15
#define RKNN_MAX_NAME_LEN			256
#define RKNN_MAX_DYNAMIC_SHAPE_NUM		512

typedef uint64_t rknn_context;

typedef enum _rknn_query_cmd {
	RKNN_QUERY_IN_OUT_NUM = 0,
	RKNN_QUERY_INPUT_ATTR = 1,
	RKNN_QUERY_OUTPUT_ATTR = 2,
	RKNN_QUERY_PERF_DETAIL = 3,
	RKNN_QUERY_PERF_RUN = 4,
	RKNN_QUERY_SDK_VERSION = 5,
	RKNN_QUERY_MEM_SIZE = 6,
	RKNN_QUERY_CUSTOM_STRING = 7,
	RKNN_QUERY_NATIVE_INPUT_ATTR = 8,
	RKNN_QUERY_NATIVE_OUTPUT_ATTR = 9,
	RKNN_QUERY_NATIVE_NC1HWC2_INPUT_ATTR = 8,
	RKNN_QUERY_NATIVE_NC1HWC2_OUTPUT_ATTR = 9,
	RKNN_QUERY_NATIVE_NHWC_INPUT_ATTR = 10,
	RKNN_QUERY_NATIVE_NHWC_OUTPUT_ATTR = 11,
	RKNN_QUERY_DEVICE_MEM_INFO = 12,
	RKNN_QUERY_INPUT_DYNAMIC_RANGE = 13,
	RKNN_QUERY_CURRENT_INPUT_ATTR = 14,
	RKNN_QUERY_CURRENT_OUTPUT_ATTR = 15,
	RKNN_QUERY_CURRENT_NATIVE_INPUT_ATTR = 16,
	RKNN_QUERY_CURRENT_NATIVE_OUTPUT_ATTR = 17,
	RKNN_QUERY_CMD_MAX
} rknn_query_cmd;

typedef enum _rknn_tensor_type {
	RKNN_TENSOR_FLOAT32 = 0,
	RKNN_TENSOR_FLOAT16,
	RKNN_TENSOR_INT8,
	RKNN_TENSOR_UINT8,
	RKNN_TENSOR_INT16,
	RKNN_TENSOR_UINT16,
	RKNN_TENSOR_INT32,
	RKNN_TENSOR_UINT32,
	RKNN_TENSOR_INT64,
	RKNN_TENSOR_BOOL,
	RKNN_TENSOR_INT4,
	RKNN_TENSOR_BFLOAT16,
	RKNN_TENSOR_TYPE_MAX
} rknn_tensor_type;

typedef enum _rknn_tensor_qnt_type {
	RKNN_TENSOR_QNT_NONE = 0,
	RKNN_TENSOR_QNT_DFP,
	RKNN_TENSOR_QNT_AFFINE_ASYMMETRIC,
	RKNN_TENSOR_QNT_MAX
} rknn_tensor_qnt_type;

typedef enum _rknn_tensor_format {
	RKNN_TENSOR_NCHW = 0,
	RKNN_TENSOR_NHWC,
	RKNN_TENSOR_NC1HWC2,
	RKNN_TENSOR_UNDEFINED,
	RKNN_TENSOR_FORMAT_MAX
} rknn_tensor_format;

typedef enum _rknn_core_mask {
	RKNN_NPU_CORE_AUTO = 0,
	RKNN_NPU_CORE_0 = 1,
	RKNN_NPU_CORE_1 = 2,
	RKNN_NPU_CORE_2 = 4,
	RKNN_NPU_CORE_0_1 = 3,
	RKNN_NPU_CORE_0_1_2 = 7,
	RKNN_NPU_CORE_ALL = 0xffff,
	RKNN_NPU_CORE_UNDEFINED,
} rknn_core_mask;

typedef struct _rknn_input_output_num {
	uint32_t n_input;
	uint32_t n_output;
} rknn_input_output_num;

typedef struct _rknn_tensor_attr {
	uint32_t index;			/* set by the caller before rknn_query */
	uint32_t n_dims;
	uint32_t dims[RKNN_MAX_DIMS];
	char name[RKNN_MAX_NAME_LEN];
	uint32_t n_elems;
	uint32_t size;			/* bytes */
	rknn_tensor_format fmt;
	rknn_tensor_type type;
	rknn_tensor_qnt_type qnt_type;
	int8_t fl;
	int32_t zp;
	float scale;
	uint32_t w_stride;		/* 0: the width */
	uint32_t size_with_stride;
	uint8_t pass_through;
	uint32_t h_stride;
} rknn_tensor_attr;

typedef struct _rknn_input_range {
	uint32_t index;
	uint32_t shape_number;
	rknn_tensor_format fmt;
	char name[RKNN_MAX_NAME_LEN];
	uint32_t dyn_range[RKNN_MAX_DYNAMIC_SHAPE_NUM][RKNN_MAX_DIMS];
	uint32_t n_dims;
} rknn_input_range;

typedef struct _rknn_perf_detail {
	char *perf_data;		/* owned by the context */
	uint64_t data_len;
} rknn_perf_detail;

typedef struct _rknn_perf_run {
	int64_t run_duration;		/* microseconds */
} rknn_perf_run;

typedef struct _rknn_sdk_version {
	char api_version[256];
	char drv_version[256];
} rknn_sdk_version;

typedef struct _rknn_mem_size {
	uint32_t total_weight_size;
	uint32_t total_internal_size;
	uint64_t total_dma_allocated_size;
	uint32_t total_sram_size;
	uint32_t free_sram_size;
	uint32_t reserved[10];
} rknn_mem_size;

typedef struct _rknn_custom_string {
	char string[1024];
} rknn_custom_string;

typedef struct rknn_tensor_mem {
	void *virt_addr;
	uint64_t phys_addr;
	int32_t fd;
	int32_t offset;
	uint32_t size;
	uint32_t flags;
	void *priv_data;
} rknn_tensor_mem;

typedef struct _rknn_input {
	uint32_t index;
	void *buf;
	uint32_t size;
	uint8_t pass_through;		/* buf is the native NC1HWC2 int8 tensor */
	rknn_tensor_type type;
	rknn_tensor_format fmt;
} rknn_input;

typedef struct _rknn_output {
	uint8_t want_float;
	uint8_t is_prealloc;
	uint32_t index;
	void *buf;
	uint32_t size;
} rknn_output;

typedef struct _rknn_init_extend {
	rknn_context ctx;
	int32_t real_model_offset;
	uint32_t real_model_size;
	int32_t model_buffer_fd;
	uint32_t model_buffer_flags;
	uint8_t reserved[112];
} rknn_init_extend;

typedef struct _rknn_run_extend {
	uint64_t frame_id;
	int32_t non_block;
	int32_t timeout_ms;
	int32_t fence_fd;
} rknn_run_extend;

typedef struct _rknn_output_extend {
	uint64_t frame_id;
} rknn_output_extend;

int rknn_init(rknn_context *context, void *model, uint32_t size, uint32_t flag,
	      rknn_init_extend *extend);
int rknn_dup_context(rknn_context *context_in, rknn_context *context_out);
int rknn_destroy(rknn_context context);
int rknn_query(rknn_context context, rknn_query_cmd cmd, void *info, uint32_t size);
int rknn_inputs_set(rknn_context context, uint32_t n_inputs, rknn_input inputs[]);
int rknn_set_batch_core_num(rknn_context context, int core_num);
int rknn_set_core_mask(rknn_context context, rknn_core_mask core_mask);
int rknn_run(rknn_context context, rknn_run_extend *extend);
int rknn_wait(rknn_context context, rknn_run_extend *extend);
int rknn_outputs_get(rknn_context context, uint32_t n_outputs, rknn_output outputs[],
		     rknn_output_extend *extend);
int rknn_outputs_release(rknn_context context, uint32_t n_outputs, rknn_output outputs[]);
rknn_tensor_mem *rknn_create_mem(rknn_context ctx, uint32_t size);
int rknn_destroy_mem(rknn_context ctx, rknn_tensor_mem *mem);
int rknn_set_weight_mem(rknn_context ctx, rknn_tensor_mem *mem);
int rknn_set_internal_mem(rknn_context ctx, rknn_tensor_mem *mem);
int rknn_set_io_mem(rknn_context ctx, rknn_tensor_mem *mem, rknn_tensor_attr *attr);
int rknn_set_input_shapes(rknn_context ctx, uint32_t n_inputs, rknn_tensor_attr attr[]);

#ifdef __cplusplus
}
#endif

#endif /* RKBARE_RKNN_API_H */
