/* SPDX-License-Identifier: MIT */
/*
 * rkbare info: what this build knows about the NPU (the register table),
 * or, given a model container, what the runtime makes of it: tensors, ops,
 * memory plan, NPU tasks, kicks and command-stream bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rkbare/npu_regs.h"
#include "runtime/model_run.h"
#include "runtime/op_kinds.h"
#include "tools/cli_parse.h"
#include "tools/commands.h"
#include "tools/model_host.h"
#include "tools/op_stats.h"

static const char *const act_names[] = {
	[RKB_ACT_NONE] = "", [RKB_ACT_RELU] = " +relu", [RKB_ACT_RELU6] = " +relu6",
	[RKB_ACT_CLIP] = " +clip",
};
static const char *const io_kinds[] = {
	[RKB_IO_FLOAT] = "float32", [RKB_IO_INT8] = "int8", [RKB_IO_UINT8] = "uint8",
	[RKB_IO_INT32] = "int32",
};

static void print_io(const struct rkb_model *m, const char *what, const struct rkb_io *io,
		     uint32_t n)
{
	char e[CLI_ESCAPED_LEN];

	for (uint32_t i = 0; i < n; i++) {
		printf("%s %u '%s': %s [", what, i,
		       cli_escape(rkb_model_str(m, io[i].name), e, sizeof(e)), io_kinds[io[i].kind]);
		for (uint32_t d = 0; d < io[i].rank; d++)
			printf("%s%u", d ? ", " : "", io[i].dims[d]);
		printf("] = tensor %u\n", io[i].tensor);
	}
}

static int model_info(const char *path)
{
	static struct model_host host;
	struct rkb_ctx *ctx = NULL;
	const struct rkb_model *m;
	struct rkb_run_stats st;
	void *blob = NULL;
	size_t size = 0;
	char err[512], e[CLI_ESCAPED_LEN], e2[CLI_ESCAPED_LEN];
	int status = RKBARE_EXIT_USAGE;

	if (model_host_read("rkbare info", path, &blob, &size))
		return RKBARE_EXIT_USAGE;
	if (model_host_open("rkbare info", &host, 1u)) {
		status = RKBARE_EXIT_FAIL;
		goto out;
	}
	if (rkb_ctx_create(&host.dev, &host.pool, blob, size, 1, 0, &ctx, err, sizeof(err))) {
		fprintf(stderr, "rkbare info: %s: %s\n", path, err);
		goto out;
	}
	m = rkb_ctx_model(ctx);
	printf("model %s: container %u.%u, %zu bytes%s%s\n", cli_escape(path, e2, sizeof(e2)),
	       RKB_VERSION_MAJOR, m->version_minor, m->size, m->user ? ", user string: " : "",
	       m->user ? cli_escape(m->user, e, sizeof(e)) : "");
	print_io(m, "input", m->inputs, m->n_inputs);
	print_io(m, "output", m->outputs, m->n_outputs);
	if (m->n_shapes > 1) {
		/* listed for set 0 below; the others as rknn_set_input_shapes picks them */
		printf("shape sets: %u (rknn_set_input_shapes)\n", m->n_shapes);
		for (uint32_t k = 0; k < m->n_shapes; k++) {
			printf("  set %u: arena %u bytes, %u tasks, inputs", k,
			       m->shapes[k].plan.arena_bytes, m->shapes[k].plan.tasks);
			for (uint32_t i = 0; i < m->n_inputs; i++) {
				const struct rkb_io *io = &m->shapes[k].inputs[i];

				printf("%s [", i ? "," : "");
				for (uint32_t d = 0; d < io->rank; d++)
					printf("%s%u", d ? ", " : "", io->dims[d]);
				printf("]");
			}
			printf("\n");
		}
	}
	printf("tensors (NC1HWC2; element type, arena offset + bytes):\n");
	for (uint32_t i = 0; i < m->n_tensors; i++) {
		const struct rkb_tensor *t = &m->tensors[i];

		printf("  %3u %-28s %5u x %4u x %4u (c_mem %4u) %-5s scale %-11g zp %4d  @%-8u "
		       "%u", i, cli_escape(rkb_model_str(m, t->name), e, sizeof(e)), t->c, t->h, t->w, t->c_mem,
		       t->dtype == RKB_DT_FP16 ? "fp16" : t->dtype == RKB_DT_INT32 ? "int32" :
		       "int8", (double)t->scale, t->zp, t->arena_offset, t->arena_bytes);
		/* a part of a Concat its producer writes in place */
		for (uint32_t v = 0; v < m->n_views; v++)
			if (m->views[v].tensor == i)
				printf("  = channels %u.. of %u", m->views[v].c_offset,
				       m->views[v].parent);
		printf("\n");
	}
	printf("ops:\n");
	for (uint32_t i = 0; i < m->n_ops; i++) {
		const struct rkb_op *op = &m->ops[i];
		/* the loader refused a type without a row */
		const struct rkb_op_kind *k = rkb_op_kind_of(op->type);

		printf("  %3u %s %-5s%s%s%s %u", i, op_engine(op), rkb_op_kind(m, op),
		       op->flags & RKB_OP_F_DEPTHWISE ? " dw" : "",
		       op->flags & RKB_OP_F_POW2 ? " pow2" : "", act_names[op->act], op->in[0]);
		if (op->in[1] != RKB_NONE)
			printf(" + %u", op->in[1]);
		printf(" -> %u", op->out);
		if (k->engine == RKB_ENGINE_CPU)
			printf("  on the CPU");
		if (k->uses & RKB_USES_WINDOW)
			printf("  %ux%u /%ux%u pads %u,%u,%u,%u", op->kh, op->kw, op->stride_y,
			       op->stride_x, op->pad_top, op->pad_left, op->pad_bottom,
			       op->pad_right);
		if (k->engine == RKB_ENGINE_NPU && (k->uses & RKB_USES_WEIGHTS))
			printf("  weights %u B", op->weights.bytes);
		printf("  (%s)\n", cli_escape(rkb_model_str(m, op->name), e, sizeof(e)));
	}
	op_stats_print(stdout, "engines", m);
	rkb_ctx_stats(ctx, &st);
	printf("plan: arena %u bytes, constants %u bytes, command stream %u bytes, "
	       "DMA %u bytes\n", m->plan.arena_bytes, m->const_bytes, st.regcmd_bytes,
	       st.dma_bytes);
	{
		/* the runtime's own stages: kicks and CPU ops (runtime/model_run.c) */
		uint32_t n = rkb_ctx_stages(ctx, NULL, 0), kicks = 0;
		struct rkb_stage_info *si = calloc(n ? n : 1, sizeof(*si));

		if (!si) {
			fprintf(stderr, "rkbare info: out of memory\n");
			status = RKBARE_EXIT_FAIL;
			goto out;
		}
		rkb_ctx_stages(ctx, si, n);
		for (uint32_t i = 0; i < n; i++)
			kicks += !si[i].cpu;
		printf("run: %u NPU tasks in %u PC kick(s) on 1 core, %u CPU op(s)\n",
		       m->plan.tasks, kicks, n - kicks);
		free(si);
	}
	status = RKBARE_EXIT_OK;
out:
	rkb_ctx_destroy(ctx);
	model_host_close(&host);
	free(blob);
	return status;
}

int cmd_info(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: rkbare info [MODEL.rkb]\n  prints the register table (blocks, "
		       "registers, fields),\n  or what the runtime makes of a model container\n");
		return RKBARE_EXIT_OK;
	}
	if (argc == 2 && argv[1][0] != '-')
		return model_info(argv[1]);
	if (argc > 1) {
		fprintf(stderr, "rkbare info: unexpected argument '%s'\n", argv[1]);
		return RKBARE_EXIT_USAGE;
	}
	printf("register table: %zu registers, %zu fields\n", npu_reg_count, npu_field_count);
	for (size_t i = 0; i < npu_reg_count; i++) {
		const struct npu_reg_desc *r = &npu_reg_table[i];

		printf("0x%04x %s.%s\n", r->offset, npu_block_table[r->block].name, r->name);
		for (size_t f = 0; f < npu_field_count; f++) {
			const struct npu_field_desc *fd = &npu_field_table[f];

			if (fd->reg_offset == r->offset)
				printf("         [%2u:%2u] %s\n", fd->hi, fd->lo, fd->name);
		}
	}
	return RKBARE_EXIT_OK;
}
