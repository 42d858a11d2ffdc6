// SPDX-License-Identifier: MIT
/*
 * Data for tests/cli/sim_mtx_matmul.sh: the operands of the MTX fp16 → fp32
 * matmul C[4×16] = A[4×32] · B[32×16] in the NPU's documented layouts, and
 * the check of the result against a plain CPU matmul. Written from
 * docs/HARDWARE.md §5 only; shares no code with rkbare.
 *
 *   mtx_matmul_data gen DIR      write DIR/a.bin, DIR/b.bin, DIR/c_fill.bin
 *   mtx_matmul_data check FILE   compare the fp32 result FILE with the CPU
 *
 * The operands are small integers from a fixed-seed generator: every fp16
 * input, product and sum is exact, so the comparison is exact.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define M	4
#define K	32
#define N	16

#define ATOM		16	/* bytes (§5.1) */
#define C2_FP16		8	/* fp16 channels per atom */
#define C2_FP32		4	/* fp32 channels per atom */
#define W_OC_GROUP	16	/* fp16 weights: 16 kernels × 32 input channels (§5.4) */
#define W_IC_GROUP	32

#define A_BYTES		(K / C2_FP16 * M * ATOM)	/* W = 1, H = M, C = K */
#define B_BYTES		(K * N * 2)
#define C_BYTES		(N / C2_FP32 * M * ATOM)	/* W = 1, H = M, C = N */

#define SEED		0x5EED1234u
#define VALUE_RANGE	17	/* values -8..8 */

static uint32_t rng_state;

/* Numerical Recipes LCG: fixed, portable sequence. */
static int next_value(void)
{
	rng_state = rng_state * 1664525u + 1013904223u;
	return (int)((rng_state >> 16) % VALUE_RANGE) - VALUE_RANGE / 2;
}

static void make_operands(int a[M][K], int b[K][N])
{
	rng_state = SEED;
	for (int m = 0; m < M; m++)
		for (int k = 0; k < K; k++)
			a[m][k] = next_value();
	for (int k = 0; k < K; k++)
		for (int n = 0; n < N; n++)
			b[k][n] = next_value();
}

/* IEEE binary16 bits of a small integer (|v| ≤ 2048: exact). */
static uint16_t fp16_of_int(int v)
{
	uint16_t sign = v < 0 ? 0x8000u : 0;
	unsigned int mag = (unsigned int)(v < 0 ? -v : v);
	int exp = 0;

	if (!mag)
		return sign;
	while ((mag >> exp) > 1)
		exp++;
	/* 10 mantissa bits below the leading one. */
	return sign | (uint16_t)((exp + 15) << 10) | (uint16_t)(((mag << 10) >> exp) & 0x3FFu);
}

static float fp32_le(const uint8_t *p)
{
	uint32_t bits = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
			(uint32_t)p[3] << 24;
	float f;

	memcpy(&f, &bits, sizeof(f));
	return f;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static int write_file(const char *dir, const char *name, const uint8_t *data, size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f)) {
		fprintf(stderr, "mtx_matmul_data: cannot write %s\n", path);
		return 1;
	}
	return 0;
}

static int gen(const char *dir)
{
	static uint8_t a_buf[A_BYTES], b_buf[B_BYTES], c_fill[C_BYTES];
	int a[M][K], b[K][N];

	make_operands(a, b);
	/* §5.1: offset of (c, h, w) = ((c / C2) × H × W + h × W + w) × 16 + (c mod C2) × 2,
	 * with h = row m, w = 0, c = k. */
	for (int m = 0; m < M; m++)
		for (int k = 0; k < K; k++)
			put16(a_buf + ((k / C2_FP16) * M + m) * ATOM + (k % C2_FP16) * 2,
			      fp16_of_int(a[m][k]));
	/* §5.4 fp16: [N/16][K/32][kh=1][kw=1][16 oc][32 ic]; kernel n = column n of B. */
	for (int k = 0; k < K; k++)
		for (int n = 0; n < N; n++) {
			size_t idx = ((size_t)(n / W_OC_GROUP) * (K / W_IC_GROUP) + k / W_IC_GROUP) *
					     W_OC_GROUP * W_IC_GROUP +
				     (n % W_OC_GROUP) * W_IC_GROUP + k % W_IC_GROUP;

			put16(b_buf + idx * 2, fp16_of_int(b[k][n]));
		}
	/* NaN pattern: a result the NPU did not write cannot match. */
	memset(c_fill, 0xFF, sizeof(c_fill));
	return write_file(dir, "a.bin", a_buf, sizeof(a_buf)) ||
	       write_file(dir, "b.bin", b_buf, sizeof(b_buf)) ||
	       write_file(dir, "c_fill.bin", c_fill, sizeof(c_fill));
}

static int check(const char *path)
{
	static uint8_t c_buf[C_BYTES + 1];
	int a[M][K], b[K][N];
	unsigned int bad = 0;
	FILE *f = fopen(path, "rb");
	size_t len;

	if (!f) {
		fprintf(stderr, "mtx_matmul_data: cannot open %s\n", path);
		return 1;
	}
	len = fread(c_buf, 1, sizeof(c_buf), f);
	fclose(f);
	if (len != C_BYTES) {
		fprintf(stderr, "mtx_matmul_data: %s has %zu bytes, expected %d\n", path, len,
			C_BYTES);
		return 1;
	}

	make_operands(a, b);
	for (int m = 0; m < M; m++) {
		for (int n = 0; n < N; n++) {
			long want = 0;
			float got;

			for (int k = 0; k < K; k++)
				want += (long)a[m][k] * b[k][n];
			/* §5.1/§5.3: fp32 output, C2 = 4, h = m, channel = n. */
			got = fp32_le(c_buf + ((n / C2_FP32) * M + m) * ATOM + (n % C2_FP32) * 4);
			if (got != (float)want) {
				if (bad < 8)
					fprintf(stderr, "C[%d][%d] = %g, CPU reference %ld\n", m, n,
						(double)got, want);
				bad++;
			}
		}
	}
	if (bad) {
		fprintf(stderr, "mtx_matmul_data: %u of %d results differ\n", bad, M * N);
		return 1;
	}
	printf("C[%dx%d] matches the CPU reference exactly\n", M, N);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "gen"))
		return gen(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "check"))
		return check(argv[2]);
	fprintf(stderr, "usage: mtx_matmul_data gen DIR | check FILE\n");
	return 2;
}
