/* SPDX-License-Identifier: MIT */
/*
 * Throughput of the NPU model's int8 convolution on one host thread: a
 * 56x56x64 -> 64, 3x3, pad 1 int8 convolution (ResNet-style layer, 115.6 M
 * MACs per run) submitted through the PC like a driver would, timed from the
 * kick to the completion status. Reports MAC/s, and the ratio to the naive
 * CPU reference of tests/ref timed on the same layer in the same run.
 */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "ref/ref_nn.h"
#include "unit/test_sim_util.h"

#define RC_PA	(T_MEM + 0x000000u)
#define IN_PA	(T_MEM + 0x100000u)
#define WT_PA	(T_MEM + 0x400000u)
#define OUT_PA	(T_MEM + 0x800000u)
#define RUNS	5

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Best of REF_RUNS timings of ref_conv_int on the benchmark layer's shape. */
#define REF_RUNS 2
static double time_reference(const struct t_conv *t)
{
	struct ref_conv_shape shape = {
		.h = (int)t->h, .w = (int)t->w, .c = (int)t->c,
		.oh = (int)t->oh, .ow = (int)t->ow, .oc = (int)t->oc,
		.kh = (int)t->kh, .kw = (int)t->kw, .sy = (int)t->sy, .sx = (int)t->sx,
		.pad_top = (int)t->pt, .pad_left = (int)t->pl,
	};
	size_t n_in = (size_t)t->h * t->w * t->c, n_wt = (size_t)t->oc * t->kh * t->kw * t->c;
	int32_t *in = calloc(n_in, sizeof(*in)), *wt = calloc(n_wt, sizeof(*wt));
	int64_t *acc = calloc((size_t)t->oh * t->ow * t->oc, sizeof(*acc));
	uint32_t seed = 0x5EEDu;
	double best = 1e30;

	if (!in || !wt || !acc) {
		fprintf(stderr, "bench_sim: out of memory for the reference\n");
		best = -1;
		goto out;
	}
	for (size_t i = 0; i < n_in; i++)
		in[i] = (int8_t)t_rand(&seed);
	for (size_t i = 0; i < n_wt; i++)
		wt[i] = (int8_t)t_rand(&seed);
	for (int run = 0; run < REF_RUNS; run++) {
		double t0 = now_s(), dt;

		ref_conv_int(&shape, in, wt, 0, acc);
		dt = now_s() - t0;
		if (dt < best)
			best = dt;
	}
out:
	free(in);
	free(wt);
	free(acc);
	return best;
}

int main(void)
{
	double ref_best;
	struct sim_config cfg = { .powered_at_reset = true };
	struct sim_soc *soc = sim_host_attach(&cfg);
	struct t_conv t = {
		.prec = NPU_PREC_INT8, .h = 56, .w = 56, .c = 64, .oh = 56, .ow = 56, .oc = 64,
		.kh = 3, .kw = 3, .sy = 1, .sx = 1, .pt = 1, .pl = 1, .in_pa = IN_PA,
		.wt_pa = WT_PA, .out_pa = OUT_PA, .in_row = 16u * 56, .in_surf = 16u * 56 * 56,
		.out_prec = NPU_PREC_INT8, .cvt_scale = 0x4000, .cvt_shift = 24,
		.out_surf = 16u * 56 * 56,
	};
	struct t_rc rc = { .n = 0 };
	double macs = 56.0 * 56 * 64 * 64 * 9, best = 1e30;
	uint32_t seed = 0xBE7C4u, en, s;
	uint8_t *p;

	if (!soc) {
		fprintf(stderr, "bench_sim: cannot create the model\n");
		return 1;
	}
	p = t_phys(IN_PA);
	for (unsigned i = 0; i < 56u * 56 * 64; i++)
		p[i] = (uint8_t)t_rand(&seed);
	p = t_phys(WT_PA);
	for (unsigned i = 0; i < 64u * 9 * 64; i++)
		p[i] = (uint8_t)t_rand(&seed);
	en = t_conv_body(&rc, &t);
	t_rc_tail(&rc, 0, 0, en);
	t_rc_store(&rc, RC_PA);
	for (int run = 0; run < RUNS; run++) {
		double t0 = now_s(), dt;

		t_kick(0, RC_PA, t_amount(rc.n), 1, NPU_INT_DPU);
		s = t_wait(0, NPU_INT_DPU);
		dt = now_s() - t0;
		if (!(t_fuzz(s) & NPU_INT_DPU)) {
			fprintf(stderr, "bench_sim: job failed (status 0x%x): %s\n", s,
				sim_soc_last_error(soc));
			return 1;
		}
		if (dt < best)
			best = dt;
	}
	printf("bench_sim: int8 conv 56x56x64->64 3x3: %.1f M MACs in %.3f s (best of %d): "
	       "%.2f GMAC/s\n", macs / 1e6, best, RUNS, macs / best / 1e9);
	ref_best = time_reference(&t);
	if (ref_best < 0)
		return 1;
	printf("bench_sim: naive CPU reference (tests/ref) on the same layer: %.3f s; "
	       "model / reference speed: %.2fx\n", ref_best, ref_best / best);
	sim_host_detach(soc);
	return 0;
}
