/* SPDX-License-Identifier: MIT */
/*
 * What the second kernel runs, the same as the rkbare image's default run
 * (boot/app_npu.c, boot/app_model.c), so their outputs can be compared
 * line by line (tests/kernel/second_kernel.sh):
 *  - an int8 matmul of the same size and seed on each core and on all
 *    three, checked against the textbook product on the CPU;
 *  - the image's default model (models/models.mk) on the same embedded
 *    samples (blob.S), printing the class of the first eight and the
 *    accuracy over all.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hal.h"
#include "kernel.h"
#include "rkbare.h"
#include "rkbare/rknn_matmul_api.h"

/* The image's matmul demo: sizes and seed as in boot/app_npu.c. */
#define MM_M		16
#define MM_K		64
#define MM_N		96
#define MM_SEED		0x2545F491u

static const struct {
	const char *name;
	rknn_core_mask cores;
} mm_jobs[] = {
	{ "core 0", RKNN_NPU_CORE_0 },
	{ "core 1", RKNN_NPU_CORE_1 },
	{ "core 2", RKNN_NPU_CORE_2 },
	{ "cores 0-2", RKNN_NPU_CORE_0_1_2 },
};

static uint32_t xorshift32(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/* FNV-1a over C's bytes (little-endian int32): the test recomputes the
 * product on its own and compares. */
static uint32_t fnv1a(const void *c)
{
	const uint8_t *p = c;
	uint32_t h = 0x811c9dc5u;

	for (size_t i = 0; i < sizeof(int32_t) * MM_M * MM_N; i++)
		h = (h ^ p[i]) * 0x01000193u;
	return h;
}

/* One job through the rknn matmul API; 0 when C is the CPU's product. */
static int mm_job(unsigned int j, const int8_t *a, const int8_t *b, const int32_t *want)
{
	rknn_matmul_info info = { .M = MM_M, .K = MM_K, .N = MM_N,
				  .type = RKNN_INT8_MM_INT8_TO_INT32 };
	rknn_matmul_io_attr io;
	rknn_matmul_ctx ctx = 0;
	rknn_tensor_mem *ma = NULL, *mb = NULL, *mc = NULL;
	unsigned int bad = 0;
	int ret = -1;

	if (rknn_matmul_create(&ctx, &info, &io) != RKNN_SUCC)
		goto out;
	ma = rknn_create_mem(ctx, io.A.size);
	mb = rknn_create_mem(ctx, io.B.size);
	mc = rknn_create_mem(ctx, io.C.size);
	if (!ma || !mb || !mc)
		goto out;
	memcpy(ma->virt_addr, a, (size_t)MM_M * MM_K);
	memcpy(mb->virt_addr, b, (size_t)MM_K * MM_N);
	if (rknn_matmul_set_io_mem(ctx, ma, &io.A) != RKNN_SUCC ||
	    rknn_matmul_set_io_mem(ctx, mb, &io.B) != RKNN_SUCC ||
	    rknn_matmul_set_io_mem(ctx, mc, &io.C) != RKNN_SUCC ||
	    rknn_matmul_set_core_mask(ctx, mm_jobs[j].cores) != RKNN_SUCC ||
	    rknn_matmul_run(ctx) != RKNN_SUCC)
		goto out;
	for (int i = 0; i < MM_M * MM_N; i++)
		bad += ((const int32_t *)mc->virt_addr)[i] != want[i];
	kprintf("matmul: %s: int8 %dx%dx%d: %s, C checksum 0x%08x\n", mm_jobs[j].name, MM_M,
		MM_K, MM_N, bad ? "MISMATCH" : "exact", (unsigned int)fnv1a(mc->virt_addr));
	ret = bad ? -1 : 0;
out:
	if (ret && !bad)
		kprintf("matmul: %s: the job did not run\n", mm_jobs[j].name);
	if (ma)
		rknn_destroy_mem(ctx, ma);
	if (mb)
		rknn_destroy_mem(ctx, mb);
	if (mc)
		rknn_destroy_mem(ctx, mc);
	if (ctx)
		rknn_matmul_destroy(ctx);
	return ret;
}

int app_matmul(struct npu_dev *npu, struct dma_pool *pool)
{
	int8_t *a = malloc((size_t)MM_M * MM_K), *b = malloc((size_t)MM_K * MM_N);
	int32_t *want = malloc(sizeof(int32_t) * MM_M * MM_N);
	uint32_t seed = MM_SEED;
	int failed = 0;

	if (!a || !b || !want) {
		kprintf("matmul: out of memory\n");
		failed = 1;
		goto out;
	}
	/* A then B from one xorshift32 stream, as the image draws them. */
	for (int i = 0; i < MM_M * MM_K; i++)
		a[i] = (int8_t)xorshift32(&seed);
	for (int i = 0; i < MM_K * MM_N; i++)
		b[i] = (int8_t)xorshift32(&seed);
	for (int m = 0; m < MM_M; m++)
		for (int n = 0; n < MM_N; n++) {
			int32_t acc = 0;

			for (int k = 0; k < MM_K; k++)
				acc += a[m * MM_K + k] * b[k * MM_N + n];
			want[m * MM_N + n] = acc;
		}
	for (unsigned int j = 0; j < sizeof(mm_jobs) / sizeof(mm_jobs[0]); j++)
		failed |= mm_job(j, a, b, want) != 0;
	kprintf("matmul: %s\n", failed ? "FAILED" : "all NPU results exact");
out:
	free(a);
	free(b);
	free(want);
	return failed;
}

/* ---- the embedded model (blob.S) ---- */

extern const uint8_t sk_model[], sk_samples[], sk_labels[];
extern const uint64_t sk_model_size, sk_samples_size, sk_labels_size;

#define SHOWN		8u	/* samples whose class is printed, as the image */
#define NPY_MAGIC	"\x93NUMPY"
#define NPY_MAGIC_LEN	6u
#define NPY_V1_HEADER	10u	/* magic, version, u16 header length */
#define NPY_V2_HEADER	12u	/* magic, version, u32 header length */

static bool contains(const uint8_t *h, size_t n, const char *needle)
{
	size_t k = strlen(needle);

	for (size_t i = 0; i + k <= n; i++)
		if (!memcmp(h + i, needle, k))
			return true;
	return false;
}

/* The data of a C-order .npy of element type `descr` ('<f4', '|u1'), or
 * NULL; *bytes gets its size. The shape is checked by the caller. */
static const uint8_t *npy_data(const uint8_t *p, size_t n, const char *descr, size_t *bytes)
{
	size_t at, hlen;

	if (n < NPY_V2_HEADER || memcmp(p, NPY_MAGIC, NPY_MAGIC_LEN))
		return NULL;
	if (p[NPY_MAGIC_LEN] == 1) {
		at = NPY_V1_HEADER;
		hlen = p[8] | (size_t)p[9] << 8;
	} else {
		at = NPY_V2_HEADER;
		hlen = p[8] | (size_t)p[9] << 8 | (size_t)p[10] << 16 | (size_t)p[11] << 24;
	}
	if (hlen > n - at || !contains(p + at, hlen, descr) ||
	    !contains(p + at, hlen, "'fortran_order': False"))
		return NULL;
	*bytes = n - at - hlen;
	return p + at + hlen;
}

static unsigned int argmax(const float *v, size_t n)
{
	unsigned int best = 0;

	for (size_t i = 1; i < n; i++)
		if (v[i] > v[best])
			best = (unsigned int)i;
	return best;
}

int app_model(struct npu_dev *npu, struct dma_pool *pool)
{
	const struct rkb_io_fmt f32 = { .kind = RKB_IO_FLOAT };
	const struct rkb_model *m;
	struct rkb_ctx *ctx;
	const uint8_t *x, *labels;
	size_t x_bytes, l_bytes, n_in, n_out, samples, correct = 0;
	float *y = NULL;
	char err[160];
	int rc;

	rc = rkb_ctx_create(npu, pool, sk_model, (size_t)sk_model_size, 1u /* core 0 */, 0,
			    &ctx, err, sizeof(err));
	if (rc) {
		kprintf("model: cannot load the embedded model: %s: %s\n", rkb_strerror(rc), err);
		return 1;
	}
	m = rkb_ctx_model(ctx);
	n_in = rkb_io_elems(&m->inputs[0]);
	n_out = rkb_io_elems(&m->outputs[0]);
	kprintf("model: '%s': %u ops, %u NPU tasks\n", m->user ? m->user : "(no name)",
		m->n_ops, m->plan.tasks);
	x = npy_data(sk_samples, (size_t)sk_samples_size, "'<f4'", &x_bytes);
	labels = npy_data(sk_labels, (size_t)sk_labels_size, "'|u1'", &l_bytes);
	samples = x ? x_bytes / (n_in * sizeof(float)) : 0;
	if (!x || !labels || !samples || x_bytes != samples * n_in * sizeof(float) ||
	    l_bytes != samples) {
		kprintf("model: the embedded samples are not %zu float32 values each with "
			"one uint8 label\n", n_in);
		rc = 1;
		goto out;
	}
	y = malloc(n_out * sizeof(float));
	if (!y) {
		kprintf("model: out of memory\n");
		rc = 1;
		goto out;
	}
	for (size_t s = 0; s < samples; s++) {
		unsigned int cls;

		rc = rkb_input_set(ctx, 0, x + s * n_in * sizeof(float), n_in * sizeof(float),
				   &f32);
		if (!rc)
			rc = rkb_run(ctx);
		if (!rc)
			rc = rkb_output_get(ctx, 0, y, n_out * sizeof(float), &f32);
		if (rc) {
			kprintf("model: sample %zu: %s\n", s, rkb_strerror(rc));
			goto out;
		}
		cls = argmax(y, n_out);
		correct += cls == labels[s];
		if (s < SHOWN)
			kprintf("model: sample %zu: class %u (label %u)\n", s, cls, labels[s]);
	}
	kprintf("model: accuracy %zu/%zu\n", correct, samples);
out:
	free(y);
	rkb_ctx_destroy(ctx);
	return rc ? 1 : 0;
}
