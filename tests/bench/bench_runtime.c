/* SPDX-License-Identifier: MIT */
/*
 * Benchmarks of the runtime, built without sanitizers (make bench):
 *
 *   bench_runtime model MODEL.rkb RUNS [uint8]
 *       creates a context (bench_create) and runs RUNS inferences
 *       (bench_inferences) on fixed float inputs, or uint8 ones read back as
 *       uint8 with `uint8`, through the NPU model: the two
 *       functions callgrind counts (tests/bench/bench.sh subtracts the
 *       model's own work); prints the model's command-stream figures:
 *       tasks, kicks, stream bytes, DMA bytes against the compulsory
 *       minimum, MAC utilisation and a roofline prediction for one RK3588
 *       core.
 *   bench_runtime matmul RUNS
 *       a 4x32x32 int8 matmul through the matmul API (normal layouts), run
 *       RUNS times (bench_matmul_runs, counted by callgrind).
 *   bench_runtime convert
 *       the edge conversions on a 4 MiB tensor against memcpy of the same
 *       bytes, timed in the same run.
 * Both print the SIMD level their kernels took (RKBARE_SIMD caps it).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hal.h"
#include "rkbare.h"
#include "rkbare/rknn_matmul_api.h"
#include "compiler/layout.h"
#include "runtime/op_kinds.h"
#include "host/simd_level.h"
#include "sim/conv_u8s8.h"
#include "sim/sim_host.h"

/* Roofline of one RK3588 NPU core (docs/BENCHMARKS.md states the figures):
 * 1024 int8 MAC per cycle at 1 GHz; an effective 10 GB/s of DDR for the
 * NPU (measured sequential copies reach 17-22 GB/s, less under contention);
 * 2 us per task for the PC to fetch and start it (an assumption). */
#define ROOF_MACS_PER_S		(1024.0 * 1e9)
/* fp16: 512 MAC per cycle per core (TRM, NPU overview) */
#define ROOF_FP16_MACS_PER_S	(512.0 * 1e9)
#define ROOF_BYTES_PER_S	(10.0e9)
#define ROOF_TASK_S		(2e-6)

#define CONVERT_BYTES		(4u << 20)
#define CONVERT_REPS		50

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint8_t *read_all(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b;
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET))
		return NULL;
	b = malloc((size_t)n);
	if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
		free(b);
		b = NULL;
	}
	fclose(f);
	*size = (size_t)n;
	return b;
}

/* Not inlined: callgrind's --toggle-collect names them. */
int bench_create(struct npu_dev *dev, struct dma_pool *pool, const void *blob, size_t size,
		 struct rkb_ctx **ctx);
int bench_inferences(struct rkb_ctx *ctx, const void *in, size_t in_bytes, void *out,
		     size_t out_bytes, const struct rkb_io_fmt *fmt, int runs);
int bench_matmul_runs(rknn_matmul_ctx ctx, int runs);

__attribute__((noinline)) int bench_matmul_runs(rknn_matmul_ctx ctx, int runs)
{
	for (int r = 0; r < runs; r++)
		if (rknn_matmul_run(ctx) != RKNN_SUCC)
			return -1;
	return 0;
}

static int bench_matmul(int runs)
{
	const struct sim_config cfg = { .powered_at_reset = false };
	struct sim_soc *soc = sim_host_attach(&cfg);
	rknn_matmul_info info = { .M = 4, .K = 32, .N = 32, .type = RKNN_INT8_MM_INT8_TO_INT32 };
	rknn_matmul_io_attr io;
	rknn_matmul_ctx ctx;
	rknn_tensor_mem *m[3];
	int rc;

	if (!soc || rknn_matmul_create(&ctx, &info, &io) != RKNN_SUCC)
		return 1;
	m[0] = rknn_create_mem(ctx, io.A.size);
	m[1] = rknn_create_mem(ctx, io.B.size);
	m[2] = rknn_create_mem(ctx, io.C.size);
	if (!m[0] || !m[1] || !m[2] || rknn_matmul_set_io_mem(ctx, m[0], &io.A) ||
	    rknn_matmul_set_io_mem(ctx, m[1], &io.B) || rknn_matmul_set_io_mem(ctx, m[2], &io.C))
		return 1;
	rc = bench_matmul_runs(ctx, runs);
	for (int i = 0; i < 3; i++)
		rknn_destroy_mem(ctx, m[i]);
	rknn_matmul_destroy(ctx);
	sim_host_detach(soc);
	printf("matmul_runs %d\n", runs);
	return rc ? 1 : 0;
}

__attribute__((noinline)) int bench_create(struct npu_dev *dev, struct dma_pool *pool,
					   const void *blob, size_t size, struct rkb_ctx **ctx)
{
	char err[256];
	int rc = rkb_ctx_create(dev, pool, blob, size, 1, 0, ctx, err, sizeof(err));

	if (rc)
		fprintf(stderr, "bench_runtime: %s\n", err);
	return rc;
}

__attribute__((noinline)) int bench_inferences(struct rkb_ctx *ctx, const void *in,
					       size_t in_bytes, void *out, size_t out_bytes,
					       const struct rkb_io_fmt *fmt, int runs)
{
	for (int r = 0; r < runs; r++) {
		if (rkb_input_set(ctx, 0, in, in_bytes, fmt) || rkb_run(ctx) ||
		    rkb_output_get(ctx, 0, out, out_bytes, fmt))
			return -1;
	}
	return 0;
}

/* Traffic and MACs of one op, from the lowering's own shape checks. */
struct op_cost {
	double read, write, useful_macs, issued_macs;
	bool fp16;		/* MACs at the fp16 rate */
};

/* Seconds the MAC array needs for c's issued MACs. */
static double mac_seconds(const struct op_cost *c)
{
	return c->issued_macs / (c->fp16 ? ROOF_FP16_MACS_PER_S : ROOF_MACS_PER_S);
}

/* By the op's row (runtime/op_kinds.h): what the lowering makes of it. A
 * CPU op moves nothing through the NPU. */
static void op_cost(const struct rkb_model *m, const struct rkb_op *op, struct op_cost *c)
{
	const struct rkb_op_kind *k = rkb_op_kind_of(op->type);
	struct rkb_op_shape s;

	memset(c, 0, sizeof(*c));
	if (!k) {
		/* the loader refuses it: never here */
		fprintf(stderr, "bench_runtime: op type %u has no row\n", op->type);
		exit(1);
	}
	if (k->engine != RKB_ENGINE_NPU || k->shape(m, op, &s))
		return;
	c->read = (double)s.read_bytes;
	c->write = (double)s.write_bytes;
	c->useful_macs = (double)s.useful_macs;
	c->issued_macs = (double)s.issued_macs;
	c->fp16 = s.fp16;
}

/* io_kind: how the inputs and outputs cross the API, float32 or the
 * quantised values themselves (RKB_IO_UINT8: what onnxruntime takes and
 * gives for a uint8 QLinearConv). */
static int bench_model(const char *path, int runs, enum rkb_io_kind io_kind)
{
	const struct rkb_io_fmt fmt = { .kind = io_kind };
	static struct dma_pool pool;
	const struct sim_config cfg = { .powered_at_reset = false };
	struct sim_soc *soc = sim_host_attach(&cfg);
	struct npu_dev dev;
	struct rkb_ctx *ctx = NULL;
	const struct rkb_model *m;
	struct rkb_run_stats st;
	size_t size = 0, in_n, out_n;
	uint8_t *blob = read_all(path, &size);
	size_t elem = io_kind == RKB_IO_FLOAT ? sizeof(float) : sizeof(uint8_t);
	uint8_t *in, *out;
	double t0, t_create, t_run, read = 0, write = 0, useful = 0, issued = 0;
	double compulsory, predicted, t_mac = 0, t_mem = 0;

	if (!soc || !blob || npu_init(&dev, &rk3588_npu_board) || npu_power_on(&dev, 1) ||
	    dma_pool_init_default(&pool)) {
		fprintf(stderr, "bench_runtime: cannot read %s or bring the model up\n", path);
		return 1;
	}
	t0 = now_s();
	if (bench_create(&dev, &pool, blob, size, &ctx))
		return 1;
	t_create = now_s() - t0;
	m = rkb_ctx_model(ctx);
	in_n = rkb_io_elems(&m->inputs[0]);
	out_n = rkb_io_elems(&m->outputs[0]);
	in = malloc(in_n * elem);
	out = malloc(out_n * elem);
	if (!in || !out)
		return 1;
	for (size_t i = 0; i < in_n; i++) {
		float v = (float)(i % 251) / 250.0f;

		if (io_kind == RKB_IO_FLOAT)
			memcpy(in + i * elem, &v, sizeof(v));
		else
			in[i] = (uint8_t)(i % 251);
	}
	/* best single run, as onnxruntime's figure: the first touches fresh
	 * memory */
	t_run = 0;
	for (int r = 0; r < runs; r++) {
		double t;

		t0 = now_s();
		if (bench_inferences(ctx, in, in_n * elem, out, out_n * elem, &fmt, 1))
			return 1;
		t = now_s() - t0;
		if (!r || t < t_run)
			t_run = t;
	}
	rkb_ctx_stats(ctx, &st);

	/* the edge tensors in their element size (int8 or fp16) */
	compulsory = (double)(in_n + out_n) *
		     layout_elem_bytes(rkb_tensor_prec(&m->tensors[m->inputs[0].tensor]));
	for (uint32_t i = 0; i < m->n_ops; i++) {
		struct op_cost c;
		const struct rkb_op *op = &m->ops[i];

		op_cost(m, op, &c);
		read += c.read;
		write += c.write;
		useful += c.useful_macs;
		issued += c.issued_macs;
		compulsory += op->weights.bytes;
		t_mac += mac_seconds(&c);
		t_mem += (c.read + c.write) / ROOF_BYTES_PER_S;
	}
	/* per op the slower of compute and memory, summed (no overlap) */
	predicted = 0;
	for (uint32_t i = 0; i < m->n_ops; i++) {
		struct op_cost c;
		double tc, tm;

		op_cost(m, &m->ops[i], &c);
		tc = mac_seconds(&c);
		tm = (c.read + c.write) / ROOF_BYTES_PER_S;
		predicted += tc > tm ? tc : tm;
	}
	predicted += st.tasks * ROOF_TASK_S;
	printf("model %s\n", path);
	printf("ops %u\ntasks %u\nkicks %u\nregcmd_bytes %u\n", m->n_ops, st.tasks, st.kicks,
	       st.regcmd_bytes);
	printf("dma_read_bytes %.0f\ndma_write_bytes %.0f\ncompulsory_bytes %.0f\n", read, write,
	       compulsory);
	printf("useful_macs %.0f\nissued_macs %.0f\n", useful, issued);
	printf("predicted_us %.1f\ncompute_bound_us %.1f\nmemory_bound_us %.1f\n",
	       predicted * 1e6, t_mac * 1e6, t_mem * 1e6);
	printf("host_create_us %.1f\nhost_run_us %.1f\n", t_create * 1e6, t_run * 1e6);
	printf("conv_dot_unit %d\nsimd_level %s\n", conv_u8s8_path() != CONV_U8S8_NONE,
	       simd_level_name(simd_level()));
	rkb_ctx_destroy(ctx);
	sim_host_detach(soc);
	free(blob);
	free(in);
	free(out);
	return 0;
}

/* Best of the rounds so far for stmt, seconds per call. */
#define TIME_BEST(best, stmt) \
	do { \
		double t_ = now_s(); \
		stmt; \
		t_ = now_s() - t_; \
		if (t_ < best) \
			best = t_; \
	} while (0)

/* Reads every cache line of p: each timed conversion starts from its
 * source in the cache, as memcpy does (a conversion that streams its
 * output past the cache would otherwise hand the next one a cold source). */
static void touch(const void *p, size_t n)
{
	const volatile uint8_t *b = p;

	for (size_t i = 0; i < n; i += 64)
		(void)b[i];
}

static int bench_convert(void)
{
	/* 64 channels × 256 × 256 int8 = 4 MiB */
	const unsigned int c = 64, h = 256, w = 256;
	size_t n = (size_t)c * h * w;
	int8_t *src = malloc(n), *dst = malloc(layout_nc1hwc2_bytes(NPU_PREC_INT8, h, w, c));
	uint8_t *u8 = malloc(n);
	double t_copy, t_in, t_out, t_nhwc, t_u8;

	if (!src || !dst || !u8)
		return 1;
	for (size_t i = 0; i < n; i++)
		src[i] = (int8_t)(i * 7u);
	/* Rounds alternate memcpy and the conversions, so that a change of
	 * clock or neighbour load on the machine touches both sides. */
	t_copy = t_in = t_out = t_nhwc = t_u8 = 1e9;
	for (int r = 0; r < CONVERT_REPS; r++) {
		touch(src, n);
		TIME_BEST(t_copy, memcpy(dst, src, n));
		touch(src, n);
		TIME_BEST(t_in, layout_nchw_to_nc1hwc2(NPU_PREC_INT8, src, dst, h, w, c, c));
		touch(src, n);
		TIME_BEST(t_nhwc, layout_nhwc_to_nc1hwc2(NPU_PREC_INT8, src, dst, h, w, c, c));
		touch(dst, n);
		TIME_BEST(t_out, layout_nc1hwc2_to_nchw(NPU_PREC_INT8, dst, src, h, w, c));
		touch(src, n);
		TIME_BEST(t_u8, layout_u8_to_s8((const uint8_t *)src, (int8_t *)u8, n));
	}
	printf("convert_bytes %zu\nmemcpy_gbps %.2f\n", n, n / t_copy / 1e9);
	printf("nchw_to_nc1hwc2_ratio %.3f\nnhwc_to_nc1hwc2_ratio %.3f\n", t_copy / t_in,
	       t_copy / t_nhwc);
	printf("nc1hwc2_to_nchw_ratio %.3f\nu8_to_s8_ratio %.3f\n", t_copy / t_out,
	       t_copy / t_u8);
	printf("simd_level %s\n", simd_level_name(simd_level()));
	free(src);
	free(dst);
	free(u8);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "model"))
		return bench_model(argv[2], atoi(argv[3]), RKB_IO_FLOAT);
	if (argc == 5 && !strcmp(argv[1], "model") && !strcmp(argv[4], "uint8"))
		return bench_model(argv[2], atoi(argv[3]), RKB_IO_UINT8);
	if (argc == 2 && !strcmp(argv[1], "convert"))
		return bench_convert();
	if (argc == 3 && !strcmp(argv[1], "matmul"))
		return bench_matmul(atoi(argv[2]));
	fprintf(stderr, "usage: bench_runtime model MODEL.rkb RUNS [uint8] | matmul RUNS | "
			"convert\n");
	return 2;
}
