/* SPDX-License-Identifier: MIT */
/*
 * Default application: bring the NPU up, then run int8 matmuls through the
 * rknn-style matmul API — on each core alone, then on all three at once —
 * and check every result against a plain CPU product.
 *
 * With an injected fault (rkbare.fault=...), the first job on each core may
 * fail as the fault dictates; the driver then resets the core, and the same
 * job run again must be exact. That is the recovery path users rely on.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/app.h"
#include "drivers/npu/npu.h"
#include "hal.h"
#include "rkbare/rknn_matmul_api.h"
#include "boot/bootargs.h"
#include "runtime/dma_pool.h"

/* Small enough to run in well under a second through trapped MMIO; N is
 * three int8 kernel groups, so a three-core mask gives every core a share
 * (the matmul API splits N by kernel groups). */
#define DEMO_M		16
#define DEMO_K		64
#define DEMO_N		96
#define DEMO_SEED	0x2545F491u

enum app_status {
	APP_OK = 0,
	APP_FAIL = 1,
};

/* How a demo job ended. */
enum job_result {
	JOB_EXACT,
	JOB_MISMATCH,	/* ran, and some result differs from the CPU's */
	JOB_FAILED,	/* never completed (timeouts, DMA errors) */
};

/* One-shot faults (hang, dma_read, dma_write, late) fail one job each: a
 * job is retried once per fault the boot arguments may have injected. */
#define APP_MAX_INJECTED_FAULTS	4

struct demo_job {
	const char *name;
	rknn_core_mask cores;
};

static const struct demo_job demo_jobs[] = {
	{ "core 0", RKNN_NPU_CORE_0 },
	{ "core 1", RKNN_NPU_CORE_1 },
	{ "core 2", RKNN_NPU_CORE_2 },
	{ "cores 0-2", RKNN_NPU_CORE_0_1_2 },
};

static struct npu_dev npu;
static struct dma_pool pool;

static uint32_t demo_rng(uint32_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 17;
	*state ^= *state << 5;
	return *state;
}

/* The reference the NPU result is checked against: the textbook product. */
static void cpu_matmul(const int8_t *a, const int8_t *b, int32_t *c)
{
	for (int m = 0; m < DEMO_M; m++)
		for (int n = 0; n < DEMO_N; n++) {
			int32_t acc = 0;

			for (int k = 0; k < DEMO_K; k++)
				acc += (int32_t)a[m * DEMO_K + k] * b[k * DEMO_N + n];
			c[m * DEMO_N + n] = acc;
		}
}

struct demo_ctx {
	rknn_matmul_ctx ctx;
	rknn_matmul_io_attr io;
	rknn_tensor_mem *a, *b, *c;
};

static void demo_destroy(struct demo_ctx *d)
{
	if (d->a)
		rknn_destroy_mem(d->ctx, d->a);
	if (d->b)
		rknn_destroy_mem(d->ctx, d->b);
	if (d->c)
		rknn_destroy_mem(d->ctx, d->c);
	if (d->ctx)
		rknn_matmul_destroy(d->ctx);
	memset(d, 0, sizeof(*d));
}

static int demo_create(struct demo_ctx *d, const int8_t *a, const int8_t *b,
		       rknn_core_mask cores)
{
	rknn_matmul_info info = {
		.M = DEMO_M, .K = DEMO_K, .N = DEMO_N,
		.type = RKNN_INT8_MM_INT8_TO_INT32,
	};

	memset(d, 0, sizeof(*d));
	if (rknn_matmul_create(&d->ctx, &info, &d->io) != RKNN_SUCC)
		return -1;
	d->a = rknn_create_mem(d->ctx, d->io.A.size);
	d->b = rknn_create_mem(d->ctx, d->io.B.size);
	d->c = rknn_create_mem(d->ctx, d->io.C.size);
	if (!d->a || !d->b || !d->c)
		goto fail;
	memcpy(d->a->virt_addr, a, (size_t)DEMO_M * DEMO_K);
	memcpy(d->b->virt_addr, b, (size_t)DEMO_K * DEMO_N);
	if (rknn_matmul_set_io_mem(d->ctx, d->a, &d->io.A) != RKNN_SUCC ||
	    rknn_matmul_set_io_mem(d->ctx, d->b, &d->io.B) != RKNN_SUCC ||
	    rknn_matmul_set_io_mem(d->ctx, d->c, &d->io.C) != RKNN_SUCC ||
	    rknn_matmul_set_core_mask(d->ctx, cores) != RKNN_SUCC)
		goto fail;
	return 0;
fail:
	demo_destroy(d);
	return -1;
}

static unsigned int count_mismatches(const int32_t *got, const int32_t *want)
{
	unsigned int bad = 0;

	for (int i = 0; i < DEMO_M * DEMO_N; i++)
		bad += got[i] != want[i];
	return bad;
}

/* One job; with faults injected, one failed attempt per fault is allowed. */
static enum job_result run_job(const struct demo_job *job, const int8_t *a, const int8_t *b,
			       const int32_t *want, int fault_injected)
{
	struct demo_ctx d;
	int attempts = fault_injected ? 1 + APP_MAX_INJECTED_FAULTS : 1;
	int ret = RKNN_ERR_FAIL;
	enum job_result result = JOB_FAILED;

	if (demo_create(&d, a, b, job->cores)) {
		printf("app: %s: cannot set up the matmul\n", job->name);
		return JOB_FAILED;
	}
	for (int i = 0; i < attempts; i++) {
		uint64_t t0 = hal_time_us();

		ret = rknn_matmul_run(d.ctx);
		if (ret == RKNN_SUCC) {
			unsigned int bad = count_mismatches(d.c->virt_addr, want);

			printf("app: %s: int8 matmul %dx%dx%d in %llu us: %s\n", job->name,
			       DEMO_M, DEMO_K, DEMO_N,
			       (unsigned long long)(hal_time_us() - t0),
			       bad ? "MISMATCH" : "exact");
			result = bad ? JOB_MISMATCH : JOB_EXACT;
			break;
		}
		printf("app: %s: job failed (%d)%s\n", job->name, ret,
		       i + 1 < attempts ? "; injected fault, core reset, running again" : "");
	}
	demo_destroy(&d);
	return result;
}

int app_run(const struct bootargs *args)
{
	const char *fault = bootargs_get(args, "rkbare.fault");
	const char *probe = bootargs_get(args, "rkbare.probe");
	const char *only = bootargs_get(args, "rkbare.app");
	const char *core_list = bootargs_get(args, "rkbare.cores");
	uint32_t cores = 1u;
	int8_t *a = malloc((size_t)DEMO_M * DEMO_K);
	int8_t *b = malloc((size_t)DEMO_K * DEMO_N);
	int32_t *want = malloc(sizeof(int32_t) * DEMO_M * DEMO_N);
	uint32_t seed = DEMO_SEED;
	int status = APP_FAIL;
	int err;

	if (!a || !b || !want) {
		printf("app: out of memory\n");
		goto out;
	}
	if (core_list && bootargs_core_list(core_list, NPU_CORE_COUNT, &cores)) {
		printf("app: rkbare.cores='%s': expected cores 0 to %u, comma-separated\n",
		       core_list, NPU_CORE_COUNT - 1);
		goto out;
	}
	for (int i = 0; i < DEMO_M * DEMO_K; i++)
		a[i] = (int8_t)demo_rng(&seed);
	for (int i = 0; i < DEMO_K * DEMO_N; i++)
		b[i] = (int8_t)demo_rng(&seed);
	cpu_matmul(a, b, want);

	err = npu_init(&npu, &rk3588_npu_board);
	if (!err)
		err = npu_power_on(&npu, (1u << NPU_CORE_COUNT) - 1);
	if (err) {
		printf("app: NPU bring-up failed: %s\n", npu_strerror(err));
		goto out;
	}
	printf("app: NPU up, version 0x%08x, 3 cores\n", npu.version);
	if (dma_pool_init_default(&pool) || rknn_matmul_bind(&npu, &pool)) {
		printf("app: no DMA memory for the NPU\n");
		goto power_off;
	}

	if (probe) {
		status = probe_run(probe, &npu, &pool) ? APP_FAIL : APP_OK;
		goto power_off;
	}
	if (only && strcmp(only, "model") && strcmp(only, "matmul") && strcmp(only, "llm")) {
		printf("app: rkbare.app='%s': expected model, matmul or llm\n", only);
		goto power_off;
	}
	status = APP_OK;
	if (only && !strcmp(only, "llm")) {
		status = app_llm_run(&npu, &pool) ? APP_FAIL : APP_OK;
		goto power_off;
	}
	if (!only || !strcmp(only, "matmul")) {
		unsigned int mismatched = 0, failed = 0;

		for (size_t i = 0; i < sizeof(demo_jobs) / sizeof(demo_jobs[0]); i++) {
			enum job_result r = run_job(&demo_jobs[i], a, b, want, fault != NULL);

			mismatched += r == JOB_MISMATCH;
			failed += r == JOB_FAILED;
		}
		if (!mismatched && !failed)
			printf("app: all NPU results exact\n");
		if (mismatched)
			printf("app: NPU results WRONG in %u job(s)\n", mismatched);
		if (failed)
			printf("app: %u NPU job(s) FAILED (no result)\n", failed);
		status = mismatched || failed ? APP_FAIL : APP_OK;
	}
	if ((!only || !strcmp(only, "model")) && app_model_run(&npu, &pool, cores))
		status = APP_FAIL;

power_off:
	err = npu_power_off(&npu);
	if (err) {
		printf("app: NPU power-off failed: %s\n", npu_strerror(err));
		status = APP_FAIL;
	}
out:
	free(a);
	free(b);
	free(want);
	return status;
}
