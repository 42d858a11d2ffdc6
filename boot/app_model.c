/* SPDX-License-Identifier: MIT */
/*
 * The embedded model (boot/model_blob.S): created once from the linked-in
 * container, then run on each embedded sample. With labels, prints the
 * predictions (argmax of output 0) and the accuracy over the samples;
 * without samples, runs once on zeros. Built with RKB_APP_DB_BOXES (`make
 * run MODEL=ppocr_det`), output 0 is a text detector's probability map
 * and each sample's text boxes are printed instead (examples/ppocr_det);
 * with RKB_APP_CTC_TEXT (`make run MODEL=ppocr_rec`), output 0 is a text
 * recogniser's per-step class probabilities and each sample's text is
 * printed, decoded with the linked-in dictionary (examples/ppocr_rec).
 * Timings from hal_counter().
 */
#define _GNU_SOURCE	/* memmem */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/app.h"
#include "hal.h"
#include "rkbare.h"
#ifdef RKB_APP_DB_BOXES
#include "examples/ppocr_det/db_post.h"

/* Boxes printed per sample. */
#define APP_DB_BOXES	16u

/* The text boxes of output 0, a [.., H, W] probability map. */
static void db_print(const struct rkb_model *m, uint64_t sample, const float *map,
		     uint32_t *scratch)
{
	const struct rkb_io *io = &m->outputs[0];
	const struct db_params p = DB_PARAMS_DEFAULT;
	struct db_box boxes[APP_DB_BOXES];
	uint32_t h = io->rank >= 2 ? io->dims[io->rank - 2] : 1, w = io->dims[io->rank - 1];
	int n = db_boxes(map, h, w, &p, scratch, boxes, APP_DB_BOXES);

	printf("model: sample %llu: %d text box(es)\n", (unsigned long long)sample, n);
	for (int i = 0; i < n && (unsigned int)i < APP_DB_BOXES; i++)
		printf("model:   box %d: score %.3f: %ld,%ld %ld,%ld %ld,%ld %ld,%ld\n", i,
		       (double)boxes[i].score, (long)boxes[i].x[0], (long)boxes[i].y[0],
		       (long)boxes[i].x[1], (long)boxes[i].y[1], (long)boxes[i].x[2],
		       (long)boxes[i].y[2], (long)boxes[i].x[3], (long)boxes[i].y[3]);
}
#define APP_DB	1
#else
#define APP_DB	0
#endif
#ifdef RKB_APP_CTC_TEXT
#include "examples/ppocr_rec/ctc.h"

extern const uint8_t rkb_embedded_dict[];
extern const uint64_t rkb_embedded_dict_size;

/* Characters printed per sample, and their bytes (UTF-8: at most 4 each). */
#define APP_CTC_CHARS	256u
#define APP_CTC_TEXT	(APP_CTC_CHARS * 4u + 1u)

/* The text of output 0, [.., T, C] per-step class probabilities. */
static void ctc_print(const struct rkb_model *m, uint64_t sample, const float *p,
		      const struct ctc_dict *d)
{
	const struct rkb_io *io = &m->outputs[0];
	uint32_t steps = io->rank >= 2 ? io->dims[io->rank - 2] : 1, idx[APP_CTC_CHARS];
	static char text[APP_CTC_TEXT];
	float score;
	size_t n = ctc_greedy(p, steps, io->dims[io->rank - 1], idx, APP_CTC_CHARS, &score);

	ctc_text(d, idx, n < APP_CTC_CHARS ? n : APP_CTC_CHARS, text, sizeof(text));
	printf("model: sample %llu: text '%s' (score %.3f)\n", (unsigned long long)sample, text,
	       (double)score);
}
#define APP_CTC	1
#else
#define APP_CTC	0
#endif

extern const uint8_t rkb_embedded_model[], rkb_embedded_input[], rkb_embedded_labels[];
extern const uint64_t rkb_embedded_model_size, rkb_embedded_input_size,
	rkb_embedded_labels_size;

/* Predictions printed one per line; the rest are only counted. */
#define APP_MODEL_SHOWN		8u
/* Runs of one sample when the NPU job fails (the driver resets the core). */
#define APP_MODEL_ATTEMPTS	2u

/* .npy format 1.0 / 2.0 (numpy.lib.format): magic, version, header length
 * (u16 in 1.0, u32 in 2.0), a Python dict literal, then the data. */
#define NPY_MAGIC		"\x93NUMPY"
#define NPY_MAGIC_LEN		6u
#define NPY_MAX_RANK		8u

struct npy_view {
	const uint8_t *data;
	size_t count;		/* elements */
	uint64_t first;		/* first axis (1 for rank 0) */
	size_t elem;		/* bytes per element */
};

/* A C-order array of descr `want` ('<f4', '|u1'), or false. */
static bool npy_parse(const uint8_t *p, size_t n, const char *want, struct npy_view *v)
{
	size_t hlen, at;
	const char *h, *s;
	uint64_t dims[NPY_MAX_RANK];
	unsigned int rank = 0;

	if (n < NPY_MAGIC_LEN + 4 || memcmp(p, NPY_MAGIC, NPY_MAGIC_LEN))
		return false;
	if (p[6] == 1) {
		hlen = p[8] | (size_t)p[9] << 8;
		at = 10;
	} else if (p[6] == 2 || p[6] == 3) {
		hlen = p[8] | (size_t)p[9] << 8 | (size_t)p[10] << 16 | (size_t)p[11] << 24;
		at = 12;
	} else {
		return false;
	}
	if (hlen > n - at)
		return false;
	h = (const char *)p + at;
	/* The header is ASCII without NUL: search within hlen only. */
	if (!memmem(h, hlen, want, strlen(want)) ||
	    !memmem(h, hlen, "'fortran_order': False", 22))
		return false;
	s = memmem(h, hlen, "'shape': (", 10);
	if (!s)
		return false;
	for (s += 10; s < h + hlen && *s != ')';) {
		uint64_t d = 0;

		while (s < h + hlen && *s == ' ')
			s++;
		if (s >= h + hlen || *s < '0' || *s > '9' || rank == NPY_MAX_RANK)
			return false;
		while (s < h + hlen && *s >= '0' && *s <= '9' && d < (1ull << 40))
			d = d * 10 + (uint64_t)(*s++ - '0');
		dims[rank++] = d;
		while (s < h + hlen && (*s == ',' || *s == ' '))
			s++;
	}
	v->elem = want[2] == 'f' ? 4 : 1;
	v->count = 1;
	for (unsigned int i = 0; i < rank; i++)
		v->count *= dims[i];
	v->first = rank ? dims[0] : 1;
	v->data = p + at + hlen;
	return v->count * v->elem == n - at - hlen;
}

static uint64_t us(uint64_t ticks)
{
	return ticks * 1000000u / hal_counter_freq();
}

static unsigned int argmax(const float *v, size_t n)
{
	unsigned int best = 0;

	for (size_t i = 1; i < n; i++)
		if (v[i] > v[best])
			best = (unsigned int)i;
	return best;
}

int app_model_run(struct npu_dev *npu, struct dma_pool *pool, uint32_t cores)
{
	const struct rkb_io_fmt f32 = { .kind = RKB_IO_FLOAT };
	size_t size = (size_t)rkb_embedded_model_size;
	size_t in_size = (size_t)rkb_embedded_input_size;
	size_t lab_size = (size_t)rkb_embedded_labels_size;
	struct npy_view in = { 0 }, lab = { 0 };
	const struct rkb_model *m;
	struct rkb_ctx *ctx;
	char err[160];
	float *x = NULL, *y = NULL;
	uint32_t *scratch = NULL;
#ifdef RKB_APP_CTC_TEXT
	struct ctc_dict dict;
#endif
	size_t n_in, n_out;
	uint64_t samples = 1, correct = 0, t0, t_run = 0, t_npu = 0;
	unsigned int retried = 0;
	bool have_in, have_lab;
	int rc;

	t0 = hal_counter();
	rc = rkb_ctx_create(npu, pool, rkb_embedded_model, size, cores, 0, &ctx, err, sizeof(err));
	if (rc) {
		printf("model: cannot load the embedded model (%zu bytes): %s: %s\n", size,
		       rkb_strerror(rc), err);
		return 1;
	}
	m = rkb_ctx_model(ctx);
	n_in = rkb_io_elems(&m->inputs[0]);
	n_out = rkb_io_elems(&m->outputs[0]);
	printf("model: '%s': %u ops, %u NPU tasks, arena %u bytes, constants %u bytes, "
	       "created in %llu us\n", m->user ? m->user : "(no name)", m->n_ops,
	       m->plan.tasks, m->plan.arena_bytes, m->const_bytes,
	       (unsigned long long)us(hal_counter() - t0));

	have_in = npy_parse(rkb_embedded_input, in_size, "'<f4'", &in);
	have_lab = npy_parse(rkb_embedded_labels, lab_size, "'|u1'", &lab);
	if (in_size && (!have_in || in.count != in.first * n_in)) {
		printf("model: the embedded samples are not float32 .npy of %zu values each\n",
		       n_in);
		rc = 1;
		goto out;
	}
	if (have_in)
		samples = in.first;
	if (lab_size && !have_lab) {
		printf("model: the embedded labels are not a uint8 .npy\n");
		rc = 1;
		goto out;
	}
	if (have_lab && lab.first != samples) {
		printf("model: %llu labels for %llu samples\n", (unsigned long long)lab.first,
		       (unsigned long long)samples);
		rc = 1;
		goto out;
	}
	x = calloc(n_in, sizeof(float));
	y = malloc(n_out * sizeof(float));
#ifdef RKB_APP_CTC_TEXT
	{
		const char *text = (const char *)rkb_embedded_dict;
		size_t len = (size_t)rkb_embedded_dict_size;
		const struct rkb_io *o = &m->outputs[0];

		/* the dictionary's line table lives in the scratch */
		scratch = malloc(((size_t)ctc_dict_lines(text, len) + 1) * sizeof(*scratch));
		if (scratch) {
			ctc_dict_init(&dict, text, len, scratch, 1);
			if (ctc_dict_classes(&dict) != o->dims[o->rank - 1]) {
				printf("model: output 0 has %u classes; the dictionary gives %u "
				       "(blank, %u lines, space)\n", (unsigned int)o->dims[o->rank - 1],
				       ctc_dict_classes(&dict), dict.lines);
				rc = 1;
				goto out;
			}
		}
	}
#endif
#ifdef RKB_APP_DB_BOXES
	{
		const struct rkb_io *o = &m->outputs[0];

		scratch = malloc(db_scratch_words(o->rank >= 2 ? o->dims[o->rank - 2] : 1,
						  o->dims[o->rank - 1]) * sizeof(*scratch));
	}
#endif
	if (!x || !y || ((APP_DB || APP_CTC) && !scratch)) {
		printf("model: out of memory\n");
		rc = 1;
		goto out;
	}
	for (uint64_t s = 0; s < samples; s++) {
		struct rkb_run_stats st;
		uint64_t t = hal_counter();
		unsigned int cls;

		if (have_in)
			memcpy(x, in.data + s * n_in * sizeof(float), n_in * sizeof(float));
		/* A failed NPU job (the driver has reset the core) is run once more. */
		for (unsigned int attempt = 0; attempt < APP_MODEL_ATTEMPTS; attempt++) {
			rc = rkb_input_set(ctx, 0, x, n_in * sizeof(float), &f32);
			if (!rc)
				rc = rkb_run(ctx);
			if (!rc)
				rc = rkb_output_get(ctx, 0, y, n_out * sizeof(float), &f32);
			if (rc != RKB_E_NPU && rc != RKB_E_TIMEOUT)
				break;
			printf("model: sample %llu: %s%s\n", (unsigned long long)s,
			       rkb_strerror(rc), attempt + 1 < APP_MODEL_ATTEMPTS ? ", run again" : "");
			retried += attempt + 1 < APP_MODEL_ATTEMPTS;
		}
		if (rc) {
			printf("model: sample %llu: %s\n", (unsigned long long)s, rkb_strerror(rc));
			goto out;
		}
		t_run += hal_counter() - t;
		rkb_ctx_stats(ctx, &st);
		t_npu += st.hw_ticks;
		cls = argmax(y, n_out);
		if (have_lab && cls == lab.data[s])
			correct++;
#ifdef RKB_APP_DB_BOXES
		if (s < APP_MODEL_SHOWN)
			db_print(m, s, y, scratch);
#endif
#ifdef RKB_APP_CTC_TEXT
		if (s < APP_MODEL_SHOWN)
			ctc_print(m, s, y, &dict);
#endif
		if (!APP_DB && !APP_CTC && s < APP_MODEL_SHOWN)
			printf("model: sample %llu: class %u%s%u%s\n", (unsigned long long)s, cls,
			       have_lab ? " (label " : "", have_lab ? (unsigned int)lab.data[s] : 0u,
			       have_lab ? ")" : "");
	}
	printf("model: %llu inference(s), %llu us each (NPU job %llu us, the rest input and "
	       "output conversion)\n", (unsigned long long)samples,
	       (unsigned long long)us(t_run / samples), (unsigned long long)us(t_npu / samples));
	{
		struct rkb_run_stats st;

		rkb_ctx_stats(ctx, &st);
		printf("model: core mask 0x%x: %u kick(s), %u NPU task(s) per inference\n",
		       (unsigned int)cores, st.kicks, st.tasks);
	}
	if (have_lab)
		printf("model: accuracy %llu/%llu\n", (unsigned long long)correct,
		       (unsigned long long)samples);
	if (retried)
		printf("model: %u inference(s) run again after a failed NPU job\n", retried);
out:
	free(x);
	free(y);
	free(scratch);
	rkb_ctx_destroy(ctx);
	return rc ? 1 : 0;
}
