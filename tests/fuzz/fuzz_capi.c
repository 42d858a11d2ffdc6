// SPDX-License-Identifier: MIT
/* libFuzzer: call sequences over rknn_api.h and the matmul API, as a
 * careless or hostile client makes them. Each input byte pair is a call
 * and its argument: contexts on the default model (read once) with any
 * flags, queries, inputs, runs, outputs, memory created, bound to model and
 * matmul contexts, destroyed in any order, duplicates, stale handles
 * (slots keep a handle after it is destroyed) and garbage handles. Every
 * call must return (a code, never a crash or a sanitizer report); at the
 * end of the input everything still live is destroyed, so the pool starts
 * the next input as empty as it was. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rknn_api.h"
#include "rkbare/rknn_matmul_api.h"
#include "sim/sim_host.h"

#define MODEL_PATH	"build/models/fmnist/fmnist.rkb"
#define CTX_SLOTS	4
#define MM_SLOTS	2
#define MEM_SLOTS	6
#define PIXELS		(28 * 28)
#define OUT_BYTES	(10 * sizeof(float))

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t *model;
static uint32_t model_size;
/* Frees memory at the end of an input whatever was destroyed. */
static rknn_context janitor;
static float image[PIXELS];

static int setup(void)
{
	static const struct sim_config cfg = { .powered_at_reset = false };
	FILE *f;
	long n;

	if (model)
		return 0;
	f = fopen(MODEL_PATH, "rb");
	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET)) {
		fprintf(stderr, "fuzz_capi: %s is missing: run make first\n", MODEL_PATH);
		abort();
	}
	model_size = (uint32_t)n;
	model = malloc(model_size);
	if (!model || fread(model, 1, model_size, f) != model_size || !sim_host_attach(&cfg) ||
	    rknn_init(&janitor, model, model_size, 0, NULL))
		abort();
	fclose(f);
	for (int i = 0; i < PIXELS; i++)
		image[i] = (float)(i % 251) / 251.0f;
	return 0;
}

struct state {
	rknn_context ctx[CTX_SLOTS];
	bool ctx_live[CTX_SLOTS];
	rknn_matmul_ctx mm[MM_SLOTS];
	rknn_matmul_io_attr mm_io[MM_SLOTS];
	bool mm_live[MM_SLOTS];
	rknn_tensor_mem *mem[MEM_SLOTS];
	bool mem_live[MEM_SLOTS];
};

/* A handle of either kind, or garbage, chosen by v. */
static uint64_t any_handle(const struct state *s, uint8_t v)
{
	switch (v % 4) {
	case 0: return s->ctx[v / 4 % CTX_SLOTS];
	case 1: return s->mm[v / 4 % MM_SLOTS];
	case 2: return (uint64_t)v << 16 | v;
	default: return (uint64_t)(uintptr_t)s;
	}
}

static void model_call(struct state *s, uint8_t op, uint8_t v)
{
	int k = v % CTX_SLOTS, m = (v >> 2 & 7) % MEM_SLOTS;
	rknn_context c = s->ctx[k];
	uint32_t flags;

	switch (op) {
	case 0:	/* init into slot k (its old context leaks into nothing: destroyed first) */
		if (s->ctx_live[k] && !rknn_destroy(c))
			s->ctx_live[k] = false;
		flags = (v & 0x10 ? RKNN_FLAG_ASYNC_MASK : 0) |
			(v & 0x20 ? RKNN_FLAG_COLLECT_PERF_MASK : 0) |
			(v & 0x40 ? RKNN_FLAG_MEM_ALLOC_OUTSIDE : 0) |
			(v & 0x80 ? RKNN_FLAG_MODEL_BUFFER_ZERO_COPY : 0);
		if (!s->ctx_live[k] && !rknn_init(&s->ctx[k], model, model_size, flags, NULL))
			s->ctx_live[k] = true;
		break;
	case 1:
		if (!rknn_destroy(c))
			s->ctx_live[k] = false;
		break;
	case 2: {
		union {
			rknn_tensor_attr attr;
			rknn_perf_detail perf;
			rknn_input_range range;
			rknn_mem_size mem;
		} info;

		memset(&info, 0, sizeof(info));
		info.attr.index = v >> 6;
		rknn_query(c, (rknn_query_cmd)(v / CTX_SLOTS % 20), &info, sizeof(info));
		break;
	}
	case 3: {
		rknn_input in = { .index = v >> 7, .buf = image, .size = sizeof(image),
				  .type = v & 0x20 ? RKNN_TENSOR_UINT8 : RKNN_TENSOR_FLOAT32,
				  .fmt = v & 0x40 ? RKNN_TENSOR_NHWC : RKNN_TENSOR_NCHW };

		if (in.type == RKNN_TENSOR_UINT8)
			in.size = PIXELS;
		rknn_inputs_set(c, 1, &in);
		break;
	}
	case 4:
		rknn_run(c, NULL);
		break;
	case 5: {
		float out[OUT_BYTES / sizeof(float)];
		rknn_output o = { .index = v >> 7, .want_float = 1, .is_prealloc = (v >> 6) & 1,
				  .buf = out, .size = sizeof(out) };

		if (!rknn_outputs_get(c, 1, &o, NULL))
			rknn_outputs_release(c, 1, &o);
		break;
	}
	case 6: {
		rknn_tensor_attr a = { .index = 0 };

		if (!rknn_query(c, v & 0x80 ? RKNN_QUERY_NATIVE_OUTPUT_ATTR :
				RKNN_QUERY_NATIVE_INPUT_ATTR, &a, sizeof(a)))
			rknn_set_io_mem(c, s->mem[m], &a);
		break;
	}
	case 7:
		if (v & 0x80)
			rknn_set_weight_mem(c, s->mem[m]);
		else
			rknn_set_internal_mem(c, s->mem[m]);
		break;
	case 8: {
		rknn_context d = 0;
		int j = (k + 1) % CTX_SLOTS;

		if (!s->ctx_live[j] && !rknn_dup_context(&s->ctx[k], &d)) {
			s->ctx[j] = d;
			s->ctx_live[j] = true;
		}
		break;
	}
	case 9:
		rknn_wait(c, NULL);
		break;
	default: {
		rknn_input_output_num n;

		uint64_t h = any_handle(s, (uint8_t)(v + 2));

		rknn_query(any_handle(s, v), RKNN_QUERY_IN_OUT_NUM, &n, sizeof(n));
		if (!rknn_destroy(h))	/* it may have been a live slot's */
			for (int j = 0; j < CTX_SLOTS; j++)
				if (s->ctx[j] == h)
					s->ctx_live[j] = false;
		break;
	}
	}
}

static void mm_call(struct state *s, uint8_t op, uint8_t v)
{
	static const rknn_matmul_type types[] = {
		RKNN_INT8_MM_INT8_TO_INT32, RKNN_INT8_MM_INT8_TO_INT8,
		RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32, RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT16,
	};
	/* v: bit 0 the context slot, bits 1-3 the memory slot, 6-7 the tensor */
	int k = v % MM_SLOTS, m = (v >> 1 & 7) % MEM_SLOTS;
	rknn_matmul_tensor_attr *t[3] = { &s->mm_io[k].A, &s->mm_io[k].B, &s->mm_io[k].C };

	switch (op) {
	case 0: {
		rknn_matmul_info info = { .M = 1 + (v & 7), .K = 32 << ((v >> 3) & 1),
					  .N = 16 << ((v >> 4) & 1), .type = types[(v >> 5) & 3],
					  .B_layout = v >> 7, .AC_layout = v >> 7 };

		if (s->mm_live[k])
			break;
		if (!rknn_matmul_create(&s->mm[k], &info, &s->mm_io[k]))
			s->mm_live[k] = true;
		break;
	}
	case 1:
		rknn_matmul_set_io_mem(s->mm[k], s->mem[m], t[(v >> 6) % 3]);
		break;
	case 2:
		rknn_matmul_run(s->mm[k]);
		break;
	default:
		if (!rknn_matmul_destroy(s->mm[k]))
			s->mm_live[k] = false;
		break;
	}
}

/* op: bit 0 destroy (else create), the rest picks the handle passed. */
static void mem_call(struct state *s, uint8_t op, uint8_t v)
{
	uint64_t h = any_handle(s, (uint8_t)(op >> 1));
	int m = v % MEM_SLOTS;

	if (op & 1) {
		if (!rknn_destroy_mem(h, s->mem[m]))
			s->mem_live[m] = false;
		return;
	}
	for (m = 0; m < MEM_SLOTS && s->mem_live[m]; m++)
		;
	if (m == MEM_SLOTS)
		return;
	/* sizes from a few bytes to 32 KiB, enough for every tensor here */
	s->mem[m] = rknn_create_mem(h, 1u + ((uint32_t)v << 7));
	s->mem_live[m] = s->mem[m] != NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct state s;

	setup();
	memset(&s, 0, sizeof(s));
	for (size_t i = 0; i + 1 < size; i += 2) {
		uint8_t op = data[i], v = data[i + 1];

		switch (op % 3) {
		case 0:
			model_call(&s, (uint8_t)(op / 3 % 11), v);
			break;
		case 1:
			mm_call(&s, (uint8_t)(op / 3 % 4), v);
			break;
		default:
			mem_call(&s, (uint8_t)(op / 3), v);
			break;
		}
	}
	/* memory first (freed with its last binding), then the contexts; a
	 * slot may hold memory another slot's stale pointer destroyed (the
	 * allocator gave the address out again), so a refusal here is fine */
	for (int m = 0; m < MEM_SLOTS; m++)
		if (s.mem_live[m])
			rknn_destroy_mem(janitor, s.mem[m]);
	for (int k = 0; k < MM_SLOTS; k++)
		if (s.mm_live[k] && rknn_matmul_destroy(s.mm[k]))
			abort();
	for (int k = 0; k < CTX_SLOTS; k++)
		if (s.ctx_live[k] && rknn_destroy(s.ctx[k]))
			abort();
	return 0;
}
