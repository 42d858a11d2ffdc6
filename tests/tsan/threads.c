// SPDX-License-Identifier: MIT
/*
 * Several threads on several contexts, built with ThreadSanitizer
 * (tests/tsan/threads.sh; docs/PORTING.md "Concurrency"):
 *   - one rknn context per NPU core (rknn_set_core_mask), plus a second
 *     one on core 0 that also runs a duplicate (rknn_dup_context), each
 *     made in its thread while the others make theirs (the first of them
 *     brings the device up);
 *   - two matmul contexts, on cores 0 and 2, making and destroying their
 *     memory every run, one registering a CPU op meanwhile.
 * Every model output equals that of a single-threaded run afterwards, every
 * matmul the CPU's product; the DMA pool holds nothing at the end. A
 * ThreadSanitizer report fails the run (its exit code, TSAN_OPTIONS).
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rknn_api.h"
#include "rkbare/rknn_matmul_api.h"
#include "runtime/cpu_ops.h"
#include "runtime/rknn_device.h"

#define MODEL_PATH	"build/models/fmnist/fmnist.rkb"
#define PIXELS		(28u * 28u)
#define CLASSES		10u
#define IMAGES		4u
#define MODEL_RUNS	12u
#define MM_RUNS		12u
#define SEED		20261201u
/* matmul: M x K x N int8 -> int32, normal layouts */
#define MM_M		4
#define MM_K		64
#define MM_N		32

enum { T_CORE0, T_CORE1, T_CORE2, T_CORE0_DUP, MODEL_THREADS };
enum { MM_THREADS = 2 };
#define THREADS		(MODEL_THREADS + MM_THREADS)

static const rknn_core_mask model_core[MODEL_THREADS] = {
	RKNN_NPU_CORE_0, RKNN_NPU_CORE_1, RKNN_NPU_CORE_2, RKNN_NPU_CORE_0,
};
static const rknn_core_mask mm_core[MM_THREADS] = { RKNN_NPU_CORE_0, RKNN_NPU_CORE_2 };

static uint8_t *model;
static uint32_t model_size;
static uint8_t images[IMAGES][PIXELS];
static pthread_barrier_t start;
/* Threads inside rknn_run / rknn_matmul_run now, and the most seen. */
static int in_run, most_in_run;

struct model_thread {
	unsigned int index;
	int8_t out[MODEL_RUNS][CLASSES];
	unsigned int image[MODEL_RUNS];
	int failed;		/* the first error, or 0 */
};

struct mm_thread {
	unsigned int index;
	int mismatches, failed;
};

static uint32_t next_rand(uint32_t *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 16;
}

static void run_begin(void)
{
	int now = __atomic_add_fetch(&in_run, 1, __ATOMIC_RELAXED);
	int most = __atomic_load_n(&most_in_run, __ATOMIC_RELAXED);

	while (now > most && !__atomic_compare_exchange_n(&most_in_run, &most, now, false,
							  __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

static void run_end(void)
{
	__atomic_sub_fetch(&in_run, 1, __ATOMIC_RELAXED);
}

/* One inference of image on ctx into raw: RKNN_SUCC or the first error. */
static int infer(rknn_context ctx, const uint8_t *image, int8_t raw[CLASSES])
{
	rknn_input in = { .index = 0, .buf = (void *)image, .size = PIXELS,
			  .type = RKNN_TENSOR_UINT8, .fmt = RKNN_TENSOR_NHWC };
	rknn_output out = { .index = 0, .want_float = 0 };
	int rc = rknn_inputs_set(ctx, 1, &in);

	if (!rc) {
		run_begin();
		rc = rknn_run(ctx, NULL);
		run_end();
	}
	if (!rc)
		rc = rknn_outputs_get(ctx, 1, &out, NULL);
	if (rc)
		return rc;
	memcpy(raw, out.buf, CLASSES);
	return rknn_outputs_release(ctx, 1, &out);
}

static void *model_main(void *arg)
{
	struct model_thread *t = arg;
	rknn_context ctx = 0, dup = 0, on;
	int rc;

	pthread_barrier_wait(&start);
	rc = rknn_init(&ctx, model, model_size, 0, NULL);
	if (!rc)
		rc = rknn_set_core_mask(ctx, model_core[t->index]);
	for (unsigned int i = 0; !rc && i < MODEL_RUNS; i++) {
		/* halfway, the duplicate (same weights, same core) takes over */
		if (t->index == T_CORE0_DUP && i == MODEL_RUNS / 2) {
			rc = rknn_dup_context(&ctx, &dup);
			if (!rc)
				rc = rknn_set_core_mask(dup, model_core[t->index]);
			if (rc)
				break;
		}
		on = dup ? dup : ctx;
		t->image[i] = (t->index + i) % IMAGES;
		rc = infer(on, images[t->image[i]], t->out[i]);
	}
	if (dup && rknn_destroy(dup) && !rc)
		rc = RKNN_ERR_FAIL;
	if (ctx && rknn_destroy(ctx) && !rc)
		rc = RKNN_ERR_FAIL;
	t->failed = rc;
	return NULL;
}

static int nop_run(const struct rkb_cpu_call *call)
{
	(void)call;
	return 0;
}

static const struct rkb_cpu_op nop_op = { .type = "TsanNop", .run = nop_run };

/* One matmul of fresh A and B, with its memory made and destroyed around
 * it; the product is checked against the CPU's. */
static int mm_once(rknn_matmul_ctx ctx, const rknn_matmul_io_attr *io, uint32_t *seed,
		   int *mismatches)
{
	rknn_tensor_mem *a = rknn_create_mem(ctx, io->A.size);
	rknn_tensor_mem *b = rknn_create_mem(ctx, io->B.size);
	rknn_tensor_mem *c = rknn_create_mem(ctx, io->C.size);
	int rc = a && b && c ? RKNN_SUCC : RKNN_ERR_MALLOC_FAIL;

	if (!rc) {
		for (int i = 0; i < MM_M * MM_K; i++)
			((int8_t *)a->virt_addr)[i] = (int8_t)(next_rand(seed) % 255 - 127);
		for (int i = 0; i < MM_K * MM_N; i++)
			((int8_t *)b->virt_addr)[i] = (int8_t)(next_rand(seed) % 255 - 127);
		rc = rknn_matmul_set_io_mem(ctx, a, (rknn_matmul_tensor_attr *)&io->A);
	}
	if (!rc)
		rc = rknn_matmul_set_io_mem(ctx, b, (rknn_matmul_tensor_attr *)&io->B);
	if (!rc)
		rc = rknn_matmul_set_io_mem(ctx, c, (rknn_matmul_tensor_attr *)&io->C);
	if (!rc) {
		run_begin();
		rc = rknn_matmul_run(ctx);
		run_end();
	}
	for (int i = 0; !rc && i < MM_M; i++)
		for (int j = 0; j < MM_N; j++) {
			int32_t want = 0;

			for (int q = 0; q < MM_K; q++)
				want += ((int8_t *)a->virt_addr)[i * MM_K + q] *
					((int8_t *)b->virt_addr)[q * MM_N + j];
			if (((int32_t *)c->virt_addr)[i * MM_N + j] != want)
				(*mismatches)++;
		}
	/* destroyed while bound: freed with the next binding or the context */
	if ((a && rknn_destroy_mem(ctx, a)) || (b && rknn_destroy_mem(ctx, b)) ||
	    (c && rknn_destroy_mem(ctx, c)))
		rc = rc ? rc : RKNN_ERR_FAIL;
	return rc;
}

static void *mm_main(void *arg)
{
	struct mm_thread *t = arg;
	rknn_matmul_info info = { .M = MM_M, .K = MM_K, .N = MM_N,
				  .type = RKNN_INT8_MM_INT8_TO_INT32 };
	rknn_matmul_io_attr io;
	rknn_matmul_ctx ctx = 0;
	uint32_t seed = SEED + t->index;
	int rc;

	pthread_barrier_wait(&start);
	if (t->index == 0 && rkb_cpu_op_register(&nop_op)) {
		t->failed = RKNN_ERR_FAIL;
		return NULL;
	}
	rc = rknn_matmul_create(&ctx, &info, &io);
	if (!rc)
		rc = rknn_matmul_set_core_mask(ctx, mm_core[t->index]);
	for (unsigned int i = 0; !rc && i < MM_RUNS; i++)
		rc = mm_once(ctx, &io, &seed, &t->mismatches);
	if (ctx && rknn_matmul_destroy(ctx) && !rc)
		rc = RKNN_ERR_FAIL;
	t->failed = rc;
	return NULL;
}

static uint8_t *read_all(const char *path, uint32_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *p;

	if (!f) {
		fprintf(stderr, "threads: %s is missing: run make first\n", path);
		return NULL;
	}
	fseek(f, 0, SEEK_END);
	*size = (uint32_t)ftell(f);
	rewind(f);
	p = malloc(*size);
	if (p && fread(p, 1, *size, f) != *size) {
		free(p);
		p = NULL;
	}
	fclose(f);
	return p;
}

int main(void)
{
	static struct model_thread mt[MODEL_THREADS];
	static struct mm_thread mmt[MM_THREADS];
	int8_t want[IMAGES][CLASSES];
	pthread_t tid[THREADS];
	struct npu_dev *dev;
	struct dma_pool *pool;
	struct dma_pool_stats st;
	rknn_context ref = 0;
	uint32_t s = SEED;
	int fail = 0;

	model = read_all(MODEL_PATH, &model_size);
	if (!model)
		return 1;
	for (unsigned int k = 0; k < IMAGES; k++)
		for (unsigned int i = 0; i < PIXELS; i++)
			images[k][i] = (uint8_t)next_rand(&s);
	pthread_barrier_init(&start, NULL, THREADS);
	for (unsigned int i = 0; i < MODEL_THREADS; i++) {
		mt[i].index = i;
		if (pthread_create(&tid[i], NULL, model_main, &mt[i]))
			return 1;
	}
	for (unsigned int i = 0; i < MM_THREADS; i++) {
		mmt[i].index = i;
		if (pthread_create(&tid[MODEL_THREADS + i], NULL, mm_main, &mmt[i]))
			return 1;
	}
	for (unsigned int i = 0; i < THREADS; i++)
		pthread_join(tid[i], NULL);

	/* the single-threaded reference, on a context of its own */
	if (rknn_init(&ref, model, model_size, 0, NULL)) {
		fprintf(stderr, "threads: the reference context could not be made\n");
		return 1;
	}
	for (unsigned int k = 0; k < IMAGES; k++)
		if (infer(ref, images[k], want[k])) {
			fprintf(stderr, "threads: the reference run of image %u failed\n", k);
			return 1;
		}
	rknn_destroy(ref);

	for (unsigned int i = 0; i < MODEL_THREADS; i++) {
		if (mt[i].failed) {
			fprintf(stderr, "threads: model thread %u (core mask 0x%x) failed: %d\n", i,
				model_core[i], mt[i].failed);
			fail = 1;
			continue;
		}
		for (unsigned int r = 0; r < MODEL_RUNS; r++)
			if (memcmp(mt[i].out[r], want[mt[i].image[r]], CLASSES)) {
				fprintf(stderr, "threads: model thread %u run %u (image %u) "
					"differs from the single-threaded run\n", i, r,
					mt[i].image[r]);
				fail = 1;
			}
	}
	for (unsigned int i = 0; i < MM_THREADS; i++)
		if (mmt[i].failed || mmt[i].mismatches) {
			fprintf(stderr, "threads: matmul thread %u (core mask 0x%x): error %d, %d "
				"elements differ from the CPU's product\n", i, mm_core[i],
				mmt[i].failed, mmt[i].mismatches);
			fail = 1;
		}
	if (rknn_device_get(&dev, &pool)) {
		fprintf(stderr, "threads: no device afterwards\n");
		return 1;
	}
	dma_pool_get_stats(pool, &st);
	if (st.live) {
		fprintf(stderr, "threads: %u allocations left in the DMA pool\n", st.live);
		fail = 1;
	}
	free(model);
	pthread_barrier_destroy(&start);
	if (fail)
		return 1;
	printf("threads: %d model threads (cores 0, 1, 2, 0 + a duplicate) x %u runs and %d "
	       "matmul threads (cores 0, 2) x %u runs equal the single-threaded results; at "
	       "most %d runs at once\n", MODEL_THREADS, MODEL_RUNS, MM_THREADS, MM_RUNS,
	       most_in_run);
	return 0;
}
