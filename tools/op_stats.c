/* SPDX-License-Identifier: MIT */
/* NPU/CPU shares of a container's ops and work (op_stats.h), from the
 * op-kind table's rows (runtime/op_kinds.h). */
#include "tools/op_stats.h"

#include <string.h>

#include "runtime/op_kinds.h"

const char *op_engine(const struct rkb_op *op)
{
	const struct rkb_op_kind *k = rkb_op_kind_of(op->type);

	return !k ? "?" : k->engine == RKB_ENGINE_CPU ? "CPU" : "NPU";
}

uint64_t op_macs(const struct rkb_model *m, const struct rkb_op *op)
{
	const struct rkb_op_kind *k = rkb_op_kind_of(op->type);
	const struct rkb_tensor *out = &m->tensors[op->out];
	uint64_t elems = (uint64_t)out->c * out->h * out->w;
	struct rkb_op_shape s;

	if (!k)
		return 0;
	if (k->shape && !k->shape(m, op, &s) && s.useful_macs)
		return s.useful_macs;
	/* a CPU MatMul's products: K (its input's columns) per output element */
	if (k->engine == RKB_ENGINE_CPU && op->cpu_type &&
	    !strcmp(m->strings + op->cpu_type, "MatMul"))
		return elems * m->tensors[op->in[0]].w;
	return elems * (k->uses & RKB_USES_WINDOW ? op->kh * op->kw : 1u);
}

void op_stats_print(FILE *out, const char *who, const struct rkb_model *m)
{
	uint64_t macs[2] = { 0, 0 }, fp16_macs = 0, total;
	uint32_t ops[2] = { 0, 0 };

	for (uint32_t i = 0; i < m->n_ops; i++) {
		const struct rkb_op *op = &m->ops[i];
		const struct rkb_op_kind *k = rkb_op_kind_of(op->type);
		unsigned int cpu = k && k->engine == RKB_ENGINE_CPU;
		uint64_t n = op_macs(m, op);

		ops[cpu]++;
		macs[cpu] += n;
		if (!cpu && m->tensors[op->in[0]].dtype == RKB_DT_FP16)
			fp16_macs += n;
	}
	total = macs[0] + macs[1] ? macs[0] + macs[1] : 1;
	fprintf(out, "%s: NPU %u op(s), %.1f %% of %llu MACs; CPU %u op(s), %.1f %%", who,
		ops[0], 100.0 * (double)macs[0] / (double)total,
		(unsigned long long)(macs[0] + macs[1]), ops[1],
		100.0 * (double)macs[1] / (double)total);
	/* a hybrid container: how the NPU's share splits between precisions */
	if (fp16_macs && fp16_macs < macs[0])
		fprintf(out, "; NPU int8 %.1f %%, fp16 %.1f %%",
			100.0 * (double)(macs[0] - fp16_macs) / (double)total,
			100.0 * (double)fp16_macs / (double)total);
	fputc('\n', out);
}
