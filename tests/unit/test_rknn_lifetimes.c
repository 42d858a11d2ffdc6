// SPDX-License-Identifier: MIT
/*
 * Lifetimes and threads of the rknn-compatible APIs (rknn_api.h,
 * rkbare/rknn_matmul_api.h), each case a defect a careless or hostile
 * client once hit (docs/PORTING.md, "Lifetimes and threads"):
 *   - the model buffer freed (and overwritten) right after rknn_init, as
 *     vendor-runtime clients do: queries and runs still give what a
 *     context on a kept buffer gives; RKNN_FLAG_MODEL_BUFFER_ZERO_COPY is
 *     accepted;
 *   - handles destroyed twice, used after destroy, stale after their slot
 *     was reused, garbage, or of the other API: RKNN_ERR_CTX_INVALID,
 *     nothing read from freed memory (AddressSanitizer);
 *   - a call on a context another caller is in: refused with
 *     RKNN_ERR_DEVICE_UNAVAILABLE, while other contexts, new ones and
 *     memory are made and run; a frame in flight on one core leaves the
 *     others to other contexts; two threads on two contexts: every result
 *     the sequential one; on one context: that or the refusal
 *     (tests/unit/test_threads_tsan.c runs more threads under
 *     ThreadSanitizer);
 *   - matmul memory destroyed while bound: the run is refused and the
 *     memory is not handed out again under the NPU; a hand-made or edited
 *     rknn_tensor_mem is refused by both APIs, and the buffer it points at
 *     is untouched;
 *   - PERF_RUN / PERF_DETAIL while an async frame is in flight: refused,
 *     then, once waited for, the whole frame (the tasks a blocking run
 *     reports).
 * The DMA pool holds nothing afterwards.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rknn_api.h"
#include "rkbare/rknn_matmul_api.h"
#include "runtime/rknn_device.h"
#include "runtime/rknn_handle.h"
#include "sim/sim_host.h"
#include "npu_fixture.h"

#define MODEL_PATH	"build/models/fmnist/fmnist.rkb"
#define PIXELS		(28u * 28u)
#define CLASSES		10u
#define SEED		20261126u
#define THREAD_RUNS	12
/* matmul: M x K x N int8 -> int32, native layouts; A and B all ones */
#define MM_M		4
#define MM_K		32
#define MM_N		32
#define FILL_BYTE	0x55

static uint8_t *model;
static size_t model_size;
static struct sim_soc *soc;
static uint8_t pixels[PIXELS];
/* The outputs of one run on a context whose buffer stays, in one thread. */
static int8_t want[CLASSES];

/* One inference of pixels (uint8 NHWC) on ctx: RKNN_SUCC and raw outputs,
 * or the first error. */
static int infer(rknn_context ctx, int8_t raw[CLASSES])
{
	rknn_input in = { .index = 0, .buf = pixels, .size = PIXELS,
			  .type = RKNN_TENSOR_UINT8, .fmt = RKNN_TENSOR_NHWC };
	rknn_output out = { .index = 0, .want_float = 0 };
	int rc = rknn_inputs_set(ctx, 1, &in);

	if (!rc)
		rc = rknn_run(ctx, NULL);
	if (!rc)
		rc = rknn_outputs_get(ctx, 1, &out, NULL);
	if (rc)
		return rc;
	memcpy(raw, out.buf, CLASSES);
	return rknn_outputs_release(ctx, 1, &out);
}

static rknn_context init(void *buf, uint32_t flags)
{
	rknn_context ctx = 0;

	assert_int_equal(rknn_init(&ctx, buf, model_size, flags, NULL), RKNN_SUCC);
	assert_true(ctx != 0);
	return ctx;
}

static int setup(void **state)
{
	const struct sim_config cfg = { .powered_at_reset = false };
	uint32_t s = SEED;
	rknn_context ctx = 0;

	(void)state;
	model = fx_read_file("test_rknn_lifetimes", MODEL_PATH, &model_size);
	if (!model)
		return -1;
	for (unsigned int i = 0; i < PIXELS; i++) {
		s = s * 1103515245u + 12345u;
		pixels[i] = (uint8_t)(s >> 16);
	}
	soc = sim_host_attach(&cfg);
	if (!soc || rknn_init(&ctx, model, model_size, 0, NULL) || infer(ctx, want) ||
	    rknn_destroy(ctx))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(model);
	sim_host_detach(soc);
	return 0;
}

/* Nothing the tests took is left in the DMA pool. */
static void assert_pool_empty(void)
{
	struct npu_dev *dev;
	struct dma_pool *pool;
	struct dma_pool_stats st;

	assert_int_equal(rknn_device_get(&dev, &pool), RKNN_SUCC);
	dma_pool_get_stats(pool, &st);
	assert_int_equal(st.live, 0);
}

static void test_model_buffer_freed_after_init(void **state)
{
	uint8_t *copy = malloc(model_size);
	rknn_tensor_attr kept = { .index = 0 }, a = { .index = 0 };
	rknn_context ref, ctx, dup = 0;
	int8_t got[CLASSES];

	(void)state;
	assert_non_null(copy);
	ref = init(model, 0);
	assert_int_equal(rknn_query(ref, RKNN_QUERY_INPUT_ATTR, &kept, sizeof(kept)), RKNN_SUCC);
	memcpy(copy, model, model_size);
	ctx = init(copy, 0);
	memset(copy, 0xaa, model_size);
	free(copy);
	assert_int_equal(rknn_query(ctx, RKNN_QUERY_INPUT_ATTR, &a, sizeof(a)), RKNN_SUCC);
	assert_string_equal(a.name, kept.name);
	assert_int_equal(a.n_elems, kept.n_elems);
	assert_int_equal(infer(ctx, got), RKNN_SUCC);
	assert_memory_equal(got, want, CLASSES);
	/* a duplicate reads the same copy, and outlives the original */
	assert_int_equal(rknn_dup_context(&ctx, &dup), RKNN_SUCC);
	assert_int_equal(rknn_destroy(ctx), RKNN_SUCC);
	assert_int_equal(infer(dup, got), RKNN_SUCC);
	assert_memory_equal(got, want, CLASSES);
	assert_int_equal(rknn_destroy(dup), RKNN_SUCC);
	/* ZERO_COPY: read in place; the caller keeps model alive */
	ctx = init(model, RKNN_FLAG_MODEL_BUFFER_ZERO_COPY);
	assert_int_equal(infer(ctx, got), RKNN_SUCC);
	assert_memory_equal(got, want, CLASSES);
	assert_int_equal(rknn_destroy(ctx), RKNN_SUCC);
	assert_int_equal(rknn_destroy(ref), RKNN_SUCC);
	assert_pool_empty();
}

static void test_stale_and_garbage_handles(void **state)
{
	rknn_matmul_info info = { .M = MM_M, .K = MM_K, .N = MM_N,
				  .type = RKNN_INT8_MM_INT8_TO_INT32 };
	rknn_matmul_io_attr io;
	rknn_matmul_ctx mm;
	rknn_input_output_num n;
	uint64_t *heap = calloc(8, sizeof(uint64_t));
	rknn_context a, b;
	int8_t got[CLASSES];

	(void)state;
	assert_non_null(heap);
	a = init(model, 0);
	assert_int_equal(rknn_destroy(a), RKNN_SUCC);
	assert_int_equal(rknn_destroy(a), RKNN_ERR_CTX_INVALID);
	assert_int_equal(infer(a, got), RKNN_ERR_CTX_INVALID);
	assert_int_equal(rknn_query(a, RKNN_QUERY_IN_OUT_NUM, &n, sizeof(n)),
			 RKNN_ERR_CTX_INVALID);
	/* the slot is reused: the stale handle still fails, the new one works */
	b = init(model, 0);
	assert_true(b != a);
	assert_int_equal(infer(a, got), RKNN_ERR_CTX_INVALID);
	assert_int_equal(rknn_destroy(a), RKNN_ERR_CTX_INVALID);
	assert_int_equal(infer(b, got), RKNN_SUCC);
	assert_memory_equal(got, want, CLASSES);

	/* garbage: small numbers, a heap pointer, all ones, b's bits changed */
	const rknn_context junk[] = { 0, 0x1234, (rknn_context)(uintptr_t)heap, UINT64_MAX,
				      b ^ 1u, b + (1ull << 20) };
	for (size_t i = 0; i < sizeof(junk) / sizeof(junk[0]); i++) {
		assert_int_equal(rknn_query(junk[i], RKNN_QUERY_IN_OUT_NUM, &n, sizeof(n)),
				 RKNN_ERR_CTX_INVALID);
		assert_int_equal(rknn_destroy(junk[i]), RKNN_ERR_CTX_INVALID);
		assert_int_equal(rknn_matmul_destroy(junk[i]), RKNN_ERR_CTX_INVALID);
		assert_null(rknn_create_mem(junk[i], 64));
	}
	/* one API's handle is not the other's */
	assert_int_equal(rknn_matmul_create(&mm, &info, &io), RKNN_SUCC);
	assert_int_equal(rknn_query(mm, RKNN_QUERY_IN_OUT_NUM, &n, sizeof(n)),
			 RKNN_ERR_CTX_INVALID);
	assert_int_equal(rknn_matmul_run(b), RKNN_ERR_CTX_INVALID);
	assert_int_equal(rknn_matmul_destroy(mm), RKNN_SUCC);
	assert_int_equal(rknn_matmul_destroy(mm), RKNN_ERR_CTX_INVALID);
	assert_int_equal(rknn_matmul_run(mm), RKNN_ERR_CTX_INVALID);
	assert_int_equal(rknn_destroy(b), RKNN_SUCC);
	free(heap);
	assert_pool_empty();
}

/* A call while another caller is in the context: refused; everything
 * else (other contexts, new contexts, memory) goes on. */
static void test_concurrent_entry(void **state)
{
	rknn_matmul_info info = { .M = MM_M, .K = MM_K, .N = MM_N,
				  .type = RKNN_INT8_MM_INT8_TO_INT32 };
	rknn_matmul_io_attr io;
	rknn_matmul_ctx mm;
	rknn_tensor_mem *mem;
	rknn_context ctx = init(model, 0), other = init(model, 0), more;
	int8_t got[CLASSES];
	void *obj;

	(void)state;
	/* "another caller" is in ctx */
	assert_int_equal(rknn_handle_enter(ctx, RKNN_HANDLE_MODEL, "test", &obj), RKNN_SUCC);
	assert_int_equal(infer(ctx, got), RKNN_ERR_DEVICE_UNAVAILABLE);
	assert_int_equal(rknn_destroy(ctx), RKNN_ERR_DEVICE_UNAVAILABLE);
	assert_null(rknn_create_mem(ctx, 64));
	/* the rest of the runtime is not held up by it */
	assert_int_equal(infer(other, got), RKNN_SUCC);
	assert_memory_equal(got, want, CLASSES);
	more = init(model, 0);
	assert_int_equal(infer(more, got), RKNN_SUCC);
	assert_memory_equal(got, want, CLASSES);
	mem = rknn_create_mem(other, 64);
	assert_non_null(mem);
	assert_int_equal(rknn_matmul_create(&mm, &info, &io), RKNN_SUCC);
	assert_int_equal(rknn_matmul_destroy(mm), RKNN_SUCC);
	assert_int_equal(rknn_destroy_mem(more, mem), RKNN_SUCC);
	assert_int_equal(rknn_destroy(more), RKNN_SUCC);
	rknn_handle_leave(ctx);
	assert_int_equal(infer(ctx, got), RKNN_SUCC);
	assert_memory_equal(got, want, CLASSES);
	assert_int_equal(rknn_destroy(ctx), RKNN_SUCC);
	assert_int_equal(rknn_destroy(other), RKNN_SUCC);
	assert_pool_empty();
}

/* A frame in flight owns its core (core 0) until it is waited for; a
 * context on another core runs meanwhile. */
static void test_frame_in_flight_other_core(void **state)
{
	rknn_input in = { .index = 0, .buf = pixels, .size = PIXELS,
			  .type = RKNN_TENSOR_UINT8, .fmt = RKNN_TENSOR_NHWC };
	rknn_output out = { .index = 0, .want_float = 0 };
	rknn_context async = init(model, RKNN_FLAG_ASYNC_MASK), other = init(model, 0);
	int8_t got[CLASSES];

	(void)state;
	assert_int_equal(rknn_set_core_mask(async, RKNN_NPU_CORE_0), RKNN_SUCC);
	assert_int_equal(rknn_set_core_mask(other, RKNN_NPU_CORE_1), RKNN_SUCC);
	assert_int_equal(rknn_inputs_set(async, 1, &in), RKNN_SUCC);
	assert_int_equal(rknn_run(async, NULL), RKNN_SUCC);	/* returns in flight */
	assert_int_equal(infer(other, got), RKNN_SUCC);
	assert_memory_equal(got, want, CLASSES);
	assert_int_equal(rknn_wait(async, NULL), RKNN_SUCC);
	assert_int_equal(rknn_outputs_get(async, 1, &out, NULL), RKNN_SUCC);
	assert_memory_equal(out.buf, want, CLASSES);
	assert_int_equal(rknn_outputs_release(async, 1, &out), RKNN_SUCC);
	assert_int_equal(rknn_destroy(async), RKNN_SUCC);
	assert_int_equal(rknn_destroy(other), RKNN_SUCC);
	assert_pool_empty();
}

struct runner {
	rknn_context ctx;
	int ok, refused, wrong, other;
};

static void *run_thread(void *arg)
{
	struct runner *r = arg;
	int8_t got[CLASSES];

	for (int i = 0; i < THREAD_RUNS; i++) {
		int rc = infer(r->ctx, got);

		if (rc == RKNN_SUCC && !memcmp(got, want, CLASSES))
			r->ok++;
		else if (rc == RKNN_SUCC)
			r->wrong++;
		else if (rc == RKNN_ERR_DEVICE_UNAVAILABLE)
			r->refused++;
		else
			r->other++;
	}
	return NULL;
}

/* Two threads, each on its context (every run the sequential result) or
 * both on one (that or a refusal), never a wrong output nor another error. */
static void two_threads(rknn_context c0, rknn_context c1)
{
	struct runner r[2] = { { .ctx = c0 }, { .ctx = c1 } };
	pthread_t t[2];

	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&t[i], NULL, run_thread, &r[i]), 0);
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_join(t[i], NULL), 0);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(r[i].wrong, 0);
		assert_int_equal(r[i].other, 0);
		assert_int_equal(r[i].ok + r[i].refused, THREAD_RUNS);
		if (c0 != c1)
			assert_int_equal(r[i].refused, 0);
	}
	assert_true(r[0].ok + r[1].ok > 0);
}

static void test_two_threads(void **state)
{
	rknn_context a = init(model, 0), b = init(model, 0);
	int8_t got[CLASSES];

	(void)state;
	two_threads(a, b);
	two_threads(a, a);
	/* nothing is left taken */
	assert_int_equal(infer(a, got), RKNN_SUCC);
	assert_int_equal(infer(b, got), RKNN_SUCC);
	assert_int_equal(rknn_destroy(a), RKNN_SUCC);
	assert_int_equal(rknn_destroy(b), RKNN_SUCC);
	assert_pool_empty();
}

struct mm {
	rknn_matmul_ctx ctx;
	rknn_matmul_io_attr io;
	rknn_tensor_mem *a, *b, *c;
};

static void mm_open(struct mm *m)
{
	rknn_matmul_info info = { .M = MM_M, .K = MM_K, .N = MM_N,
				  .type = RKNN_INT8_MM_INT8_TO_INT32, .B_layout = 1,
				  .AC_layout = 1 };

	assert_int_equal(rknn_matmul_create(&m->ctx, &info, &m->io), RKNN_SUCC);
	m->a = rknn_create_mem(m->ctx, m->io.A.size);
	m->b = rknn_create_mem(m->ctx, m->io.B.size);
	m->c = rknn_create_mem(m->ctx, m->io.C.size);
	assert_true(m->a && m->b && m->c);
	/* all ones, padding included: every C element is the sum of K ones */
	memset(m->a->virt_addr, 1, m->io.A.size);
	memset(m->b->virt_addr, 1, m->io.B.size);
	assert_int_equal(rknn_matmul_set_io_mem(m->ctx, m->a, &m->io.A), RKNN_SUCC);
	assert_int_equal(rknn_matmul_set_io_mem(m->ctx, m->b, &m->io.B), RKNN_SUCC);
}

static bool all_bytes(const void *p, size_t n, uint8_t v)
{
	for (size_t i = 0; i < n; i++)
		if (((const uint8_t *)p)[i] != v)
			return false;
	return true;
}

static void test_matmul_destroyed_mem(void **state)
{
	struct mm m;
	rknn_tensor_mem *mine;
	uint64_t c_phys;

	(void)state;
	mm_open(&m);
	assert_int_equal(rknn_matmul_set_io_mem(m.ctx, m.c, &m.io.C), RKNN_SUCC);
	assert_int_equal(rknn_matmul_run(m.ctx), RKNN_SUCC);
	assert_int_equal(((int32_t *)m.c->virt_addr)[0], MM_K);
	c_phys = m.c->phys_addr;
	/* destroyed while bound: dies for the caller, stays for the NPU */
	assert_int_equal(rknn_destroy_mem(m.ctx, m.c), RKNN_SUCC);
	mine = rknn_create_mem(m.ctx, m.io.C.size);
	assert_non_null(mine);
	assert_true(mine->phys_addr != c_phys);
	memset(mine->virt_addr, FILL_BYTE, m.io.C.size);
	assert_int_equal(rknn_matmul_run(m.ctx), RKNN_ERR_OUTPUT_INVALID);
	assert_true(all_bytes(mine->virt_addr, m.io.C.size, FILL_BYTE));
	assert_int_equal(rknn_destroy_mem(m.ctx, m.c), RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rknn_matmul_set_io_mem(m.ctx, m.c, &m.io.C), RKNN_ERR_PARAM_INVALID);
	/* other memory bound: runs again, and the old C goes back to the pool */
	assert_int_equal(rknn_matmul_set_io_mem(m.ctx, mine, &m.io.C), RKNN_SUCC);
	assert_int_equal(rknn_matmul_run(m.ctx), RKNN_SUCC);
	assert_int_equal(((int32_t *)mine->virt_addr)[0], MM_K);
	/* the vendor's order: memory first, then the context */
	assert_int_equal(rknn_destroy_mem(m.ctx, m.a), RKNN_SUCC);
	assert_int_equal(rknn_destroy_mem(m.ctx, m.b), RKNN_SUCC);
	assert_int_equal(rknn_destroy_mem(m.ctx, mine), RKNN_SUCC);
	assert_int_equal(rknn_matmul_destroy(m.ctx), RKNN_SUCC);
	assert_pool_empty();
}

static void test_hand_made_mem_refused(void **state)
{
	struct mm m;
	rknn_tensor_mem *victim, fake, edited;
	rknn_context ctx = init(model, 0);
	rknn_tensor_attr na = { .index = 0 };
	uint64_t phys;

	(void)state;
	mm_open(&m);
	victim = rknn_create_mem(m.ctx, m.io.C.size);
	assert_non_null(victim);
	memset(victim->virt_addr, FILL_BYTE, m.io.C.size);
	/* a copy of a real one's fields, priv_data included, at another address */
	fake = *m.c;
	fake.phys_addr = victim->phys_addr;
	assert_int_equal(rknn_matmul_set_io_mem(m.ctx, &fake, &m.io.C), RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rknn_matmul_run(m.ctx), RKNN_ERR_OUTPUT_INVALID);	/* no C bound */
	edited = *victim;
	assert_int_equal(rknn_matmul_set_io_mem(m.ctx, &edited, &m.io.C), RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rknn_query(ctx, RKNN_QUERY_NATIVE_INPUT_ATTR, &na, sizeof(na)),
			 RKNN_SUCC);
	assert_int_equal(rknn_set_io_mem(ctx, &fake, &na), RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rknn_set_internal_mem(ctx, &fake), RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rknn_destroy_mem(ctx, &fake), RKNN_ERR_PARAM_INVALID);
	/* a real one whose address field was edited after binding */
	assert_int_equal(rknn_matmul_set_io_mem(m.ctx, m.c, &m.io.C), RKNN_SUCC);
	phys = m.c->phys_addr;
	m.c->phys_addr = victim->phys_addr;
	assert_int_equal(rknn_matmul_run(m.ctx), RKNN_ERR_OUTPUT_INVALID);
	m.c->phys_addr = phys;
	assert_int_equal(rknn_matmul_run(m.ctx), RKNN_SUCC);
	assert_int_equal(((int32_t *)m.c->virt_addr)[0], MM_K);
	assert_true(all_bytes(victim->virt_addr, m.io.C.size, FILL_BYTE));
	assert_int_equal(rknn_matmul_destroy(m.ctx), RKNN_SUCC);
	/* after their context: any live context's handle frees them */
	assert_int_equal(rknn_destroy_mem(ctx, m.a), RKNN_SUCC);
	assert_int_equal(rknn_destroy_mem(ctx, m.b), RKNN_SUCC);
	assert_int_equal(rknn_destroy_mem(ctx, m.c), RKNN_SUCC);
	assert_int_equal(rknn_destroy_mem(ctx, victim), RKNN_SUCC);
	assert_int_equal(rknn_destroy(ctx), RKNN_SUCC);
	assert_pool_empty();
}

/* "NPU tasks N" of a PERF_DETAIL text. */
static unsigned int perf_tasks(rknn_context ctx)
{
	rknn_perf_detail pd;
	const char *t;
	unsigned int n = 0;

	assert_int_equal(rknn_query(ctx, RKNN_QUERY_PERF_DETAIL, &pd, sizeof(pd)), RKNN_SUCC);
	t = strstr(pd.perf_data, "NPU tasks ");
	assert_non_null(t);
	assert_int_equal(sscanf(t, "NPU tasks %u", &n), 1);
	return n;
}

static void test_perf_in_flight(void **state)
{
	rknn_context sync = init(model, RKNN_FLAG_COLLECT_PERF_MASK);
	rknn_context async = init(model, RKNN_FLAG_COLLECT_PERF_MASK | RKNN_FLAG_ASYNC_MASK);
	rknn_input in = { .index = 0, .buf = pixels, .size = PIXELS,
			  .type = RKNN_TENSOR_UINT8, .fmt = RKNN_TENSOR_NHWC };
	rknn_perf_detail pd;
	rknn_perf_run pr;
	int8_t got[CLASSES];
	unsigned int whole;

	(void)state;
	assert_int_equal(infer(sync, got), RKNN_SUCC);
	whole = perf_tasks(sync);
	assert_true(whole > 0);
	assert_int_equal(rknn_inputs_set(async, 1, &in), RKNN_SUCC);
	assert_int_equal(rknn_run(async, NULL), RKNN_SUCC);
	assert_int_equal(rknn_query(async, RKNN_QUERY_PERF_DETAIL, &pd, sizeof(pd)),
			 RKNN_ERR_DEVICE_UNAVAILABLE);
	assert_int_equal(rknn_query(async, RKNN_QUERY_PERF_RUN, &pr, sizeof(pr)),
			 RKNN_ERR_DEVICE_UNAVAILABLE);
	assert_int_equal(rknn_wait(async, NULL), RKNN_SUCC);
	assert_int_equal(perf_tasks(async), whole);
	assert_int_equal(rknn_query(async, RKNN_QUERY_PERF_RUN, &pr, sizeof(pr)), RKNN_SUCC);
	assert_int_equal(rknn_destroy(async), RKNN_SUCC);
	assert_int_equal(rknn_destroy(sync), RKNN_SUCC);
	assert_pool_empty();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_model_buffer_freed_after_init),
		cmocka_unit_test(test_stale_and_garbage_handles),
		cmocka_unit_test(test_concurrent_entry),
		cmocka_unit_test(test_frame_in_flight_other_core),
		cmocka_unit_test(test_two_threads),
		cmocka_unit_test(test_matmul_destroyed_mem),
		cmocka_unit_test(test_hand_made_mem_refused),
		cmocka_unit_test(test_perf_in_flight),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
