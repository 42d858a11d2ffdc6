/* SPDX-License-Identifier: MIT */
/*
 * An application as a user would write it against include/rkbare.h and
 * librkbare.a (on the host, over the NPU model): it registers its own CPU
 * op, "Negate", runs a container that `rkbare compile --cpu-op Negate`
 * wrote, and writes the output.
 *
 *   cpu_op_client MODEL.rkb IN.f32 OUT.f32    (raw float32, the model's
 *                                              input and output in order)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "rkbare.h"
#include "sim/sim_host.h"

static void *read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	void *b = NULL;
	long n;

	if (f && !fseek(f, 0, SEEK_END) && (n = ftell(f)) > 0 && !fseek(f, 0, SEEK_SET)) {
		b = malloc((size_t)n);
		if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
			free(b);
			b = NULL;
		}
		*size = (size_t)n;
	}
	if (f)
		fclose(f);
	return b;
}

/* out = −in, requantised to the output's scale and zero point. */
static int negate(const struct rkb_cpu_call *call)
{
	for (unsigned int ch = 0; ch < call->in.c; ch++)
		for (unsigned int y = 0; y < call->in.h; y++)
			for (unsigned int x = 0; x < call->in.w; x++) {
				size_t i = rkb_cpu_at(&call->in, ch, y, x);
				float v = -call->in.scale * (float)(call->in.data[i] - call->in.zp);
				long q = lrintf(v / call->out.scale) + call->out.zp;

				call->out.data[rkb_cpu_at(&call->out, ch, y, x)] =
					(int8_t)(q > 127 ? 127 : q < -128 ? -128 : q);
			}
	return 0;
}

static const struct rkb_cpu_op negate_op = { .type = "Negate", .run = negate };

int main(int argc, char **argv)
{
	const struct sim_config cfg = { .powered_at_reset = false };
	const struct rkb_io_fmt f32 = { .kind = RKB_IO_FLOAT };
	static struct dma_pool pool;
	struct sim_soc *soc = sim_host_attach(&cfg);
	struct npu_dev dev;
	struct rkb_ctx *ctx = NULL;
	size_t size = 0, in_size = 0, out_n;
	void *blob, *in;
	float *out;
	char err[256];
	FILE *f;

	if (argc != 4) {
		fprintf(stderr, "usage: cpu_op_client MODEL.rkb IN.f32 OUT.f32\n");
		return 2;
	}
	blob = read_file(argv[1], &size);
	in = read_file(argv[2], &in_size);
	if (!soc || !blob || !in || npu_init(&dev, &rk3588_npu_board) || npu_power_on(&dev, 1) ||
	    dma_pool_init_default(&pool) || rkb_cpu_op_register(&negate_op)) {
		fprintf(stderr, "cpu_op_client: cannot read %s or %s, or set up\n", argv[1],
			argv[2]);
		free(blob);
		free(in);
		return 1;
	}
	if (rkb_ctx_create(&dev, &pool, blob, size, 1, 0, &ctx, err, sizeof(err))) {
		fprintf(stderr, "cpu_op_client: %s\n", err);
		return 1;
	}
	out_n = rkb_io_elems(&rkb_ctx_model(ctx)->outputs[0]);
	out = malloc(out_n * sizeof(*out));
	if (!out || rkb_input_set(ctx, 0, in, in_size, &f32) || rkb_run(ctx) ||
	    rkb_output_get(ctx, 0, out, out_n * sizeof(*out), &f32)) {
		fprintf(stderr, "cpu_op_client: the run failed\n");
		return 1;
	}
	f = fopen(argv[3], "wb");
	if (!f || fwrite(out, sizeof(*out), out_n, f) != out_n || fclose(f)) {
		fprintf(stderr, "cpu_op_client: cannot write %s\n", argv[3]);
		return 1;
	}
	rkb_ctx_destroy(ctx);
	sim_host_detach(soc);
	free(out);
	free(in);
	free(blob);
	return 0;
}
